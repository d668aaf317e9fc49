// The phones' own format libraries (formats.h): each file mapped into memory once,
// decoded in a child forked for it, behind the sandbox's filter (sandbox_run);
// its header read, its orientation taken from its EXIF (JPEG's APP1, PNG's eXIf,
// WebP's EXIF chunk, as libvips reads it), then every pixel decoded: JPEG and
// still WebP at a reduced scale (the DCT scaling still reads every byte), PNG a
// row at a time, GIF and animated WebP every frame, HEIC its primary picture whole
// (libheif with libde265, on its threads), AVIF its first picture whole (libavif with
// dav1d, set as Android's Skia codec sets it).
#define _GNU_SOURCE
#include "bytes.h"
#include "formats.h"
#include "door.h"

#include "sandbox.h"

#include <avif/avif.h>
#include <dlfcn.h>
#include <gif_lib.h>
#include <libheif/heif.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#include <unistd.h>
#include <webp/decode.h>
#include <webp/demux.h>


static void say(char *words, size_t size, const char *text) {
    snprintf(words, size, "%s", text ? text : "");
    // A library's message may end with a line break: the answer's detail is one line.
    words[strcspn(words, "\r\n")] = 0;
}

/// The EXIF orientation (1 to 8) in a TIFF structure, "Exif\0\0" before it or not; 1 when it names none.
static int exif_orientation(const unsigned char *bytes, size_t length) {
    if (length >= 6 && !memcmp(bytes, "Exif\0\0", 6)) {
        bytes += 6;
        length -= 6;
    }
    if (length < 8) return 1;
    int little = bytes[0] == 'I' && bytes[1] == 'I';
    if (!little && !(bytes[0] == 'M' && bytes[1] == 'M')) return 1;
#define U16(p) (little ? (unsigned)(p)[0] | (unsigned)(p)[1] << 8 : (unsigned)(p)[0] << 8 | (unsigned)(p)[1])
#define U32(p) (little ? U16(p) | (uint32_t)U16((p) + 2) << 16 : (uint32_t)U16(p) << 16 | U16((p) + 2))
    uint32_t directory = U32(bytes + 4);
    if (directory > room(2, length)) return 1;
    unsigned entries = U16(bytes + directory);
    for (unsigned i = 0; i < entries; i++) {
        size_t at = (size_t)directory + 2 + (size_t)i * 12;
        if (at + 12 > length) break;
        if (U16(bytes + at) != 0x0112) continue;
        unsigned type = U16(bytes + at + 2);
        uint32_t value = type == 3 ? U16(bytes + at + 8) : type == 4 ? U32(bytes + at + 8) : 0;
        return value >= 1 && value <= 8 ? (int)value : 1;
    }
    return 1;
#undef U16
#undef U32
}

/// A JPEG's orientation, from its first APP1 segment that holds EXIF.
static int jpeg_orientation(const unsigned char *bytes, size_t length) {
    size_t at = 2;
    while (at + 4 <= length && bytes[at] == 0xFF) {
        unsigned marker = bytes[at + 1];
        if (marker == 0xFF) {
            at++;
            continue;
        }
        if (marker == 0xD9 || marker == 0xDA) break;
        size_t segment = (size_t)bytes[at + 2] << 8 | bytes[at + 3];
        if (segment < 2 || at + 2 + segment > length) break;
        if (marker == 0xE1 && segment >= 8 && !memcmp(bytes + at + 4, "Exif\0\0", 6)) {
            return exif_orientation(bytes + at + 4, segment - 2);
        }
        at += 2 + segment;
    }
    return 1;
}

/// How many times smaller a scaled decode may be: the long side stays at least `side`.
static int shrink_for(int width, int height, int side) {
    int longest = width > height ? width : height, shrink = 1;
    while (shrink < 8 && longest / (shrink * 2) >= side) shrink *= 2;
    return shrink;
}

static int jpeg_decode(const unsigned char *bytes, size_t length, int side, double most, PictureFacts *facts,
                       char *words, size_t size) {
    tjhandle handle = tjInitDecompress();
    if (!handle) return 0;
    int ok = 0, width, height, subsampling, colorspace;
    unsigned char *pixels = NULL;
    if (tjDecompressHeader3(handle, bytes, (unsigned long)length, &width, &height, &subsampling, &colorspace) != 0) {
        say(words, size, tjGetErrorStr2(handle));
        goto done;
    }
    *facts = (PictureFacts){.width = width, .height = height, .frames = 1, .orientation = jpeg_orientation(bytes, length)};
    if ((double)width * height > most) {
        facts->header_only = 1;
        ok = 1;
        goto done;
    }
    int shrink = shrink_for(width, height, side);
    tjscalingfactor factor = {1, shrink};
    int scaled_width = TJSCALED(width, factor), scaled_height = TJSCALED(height, factor);
    int format = colorspace == TJCS_GRAY ? TJPF_GRAY : colorspace == TJCS_CMYK || colorspace == TJCS_YCCK ? TJPF_CMYK : TJPF_RGB;
    pixels = malloc((size_t)scaled_width * (size_t)scaled_height * (size_t)tjPixelSize[format]);
    if (!pixels) goto done;
    // A warning (a cut file, a bad Huffman code) is -1 too: the full path judges those.
    if (tjDecompress2(handle, bytes, (unsigned long)length, pixels, scaled_width, 0, scaled_height, format, 0) != 0) {
        say(words, size, tjGetErrorStr2(handle));
        goto done;
    }
    ok = 1;
done:
    free(pixels);
    tjDestroy(handle);
    return ok;
}

typedef struct PNGRead {
    const unsigned char *bytes;
    size_t length, at;
    char *words;
    size_t size;
    int warned;
} PNGRead;

static void png_bytes(png_structp png, png_bytep out, size_t count) {
    PNGRead *read = png_get_io_ptr(png);
    if (count > room(read->at, read->length)) png_error(png, "the file ends before the picture does");
    memcpy(out, read->bytes + read->at, count);
    read->at += count;
}

static void png_failed(png_structp png, png_const_charp message) {
    PNGRead *read = png_get_error_ptr(png);
    say(read->words, read->size, message);
    png_longjmp(png, 1);
}

static void png_warned(png_structp png, png_const_charp message) {
    PNGRead *read = png_get_error_ptr(png);
    if (!read->warned) say(read->words, read->size, message);
    read->warned = 1;
}

static int png_decode(const unsigned char *bytes, size_t length, int side, double most, PictureFacts *facts, char *words,
                      size_t size) {
    (void)side;  // decoded a row at a time, whole
    PNGRead read = {.bytes = bytes, .length = length, .words = words, .size = size};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &read, png_failed, png_warned);
    if (!png) return 0;
    png_infop info = png_create_info_struct(png), end = png_create_info_struct(png);
    // Volatile: read after a longjmp from libpng.
    unsigned char *volatile row = NULL;
    volatile int ok = 0;
    if (!info || !end || setjmp(png_jmpbuf(png))) goto done;
    png_set_read_fn(png, &read, png_bytes);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    *facts = (PictureFacts){.width = (int)width, .height = (int)height, .frames = 1, .orientation = 1};
    png_uint_32 exif_length = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(png, info, &exif_length, &exif)) facts->orientation = exif_orientation(exif, exif_length);
    if ((double)width * height > most) {
        facts->header_only = 1;
        ok = !read.warned;
        goto done;
    }
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    row = malloc(png_get_rowbytes(png, info));
    if (!row) goto done;
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) png_read_row(png, row, NULL);
    }
    // The chunks after the pixels: their CRCs, IEND, and an eXIf written after IDAT (libvips reads that one too).
    png_read_end(png, end);
    if (facts->orientation == 1 && png_get_eXIf_1(png, end, &exif_length, &exif)) facts->orientation = exif_orientation(exif, exif_length);
    ok = !read.warned;
done:
    free(row);
    png_destroy_read_struct(&png, info ? &info : NULL, end ? &end : NULL);
    return ok;
}

typedef struct GIFRead {
    const unsigned char *bytes;
    size_t length, at;
} GIFRead;

static int gif_bytes(GifFileType *gif, GifByteType *out, int count) {
    GIFRead *read = gif->UserData;
    size_t left = room(read->at, read->length), step = (size_t)count < left ? (size_t)count : left;
    memcpy(out, read->bytes + read->at, step);
    read->at += step;
    return (int)step;
}

static int gif_decode(const unsigned char *bytes, size_t length, int side, double most, PictureFacts *facts, char *words,
                      size_t size) {
    (void)side;  // every frame decoded whole
    GIFRead read = {.bytes = bytes, .length = length};
    int error = 0;
    GifFileType *gif = DGifOpen(&read, gif_bytes, &error);
    if (!gif) {
        say(words, size, GifErrorString(error));
        return 0;
    }
    int ok = 0;
    // Past the most pixels the full path counts the frames from the headers alone.
    if ((double)gif->SWidth * gif->SHeight <= most) {
        if (DGifSlurp(gif) == GIF_OK && gif->ImageCount > 0) {
            *facts = (PictureFacts){.width = gif->SWidth, .height = gif->SHeight, .frames = gif->ImageCount, .orientation = 1};
            ok = 1;
        } else {
            say(words, size, gif->Error ? GifErrorString(gif->Error) : "no frame");
        }
    }
    DGifCloseFile(gif, &error);
    return ok;
}

static int webp_decode(const unsigned char *bytes, size_t length, int side, double most, PictureFacts *facts,
                       char *words, size_t size) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(bytes, length, &features) != VP8_STATUS_OK) {
        say(words, size, "libwebp cannot read its header");
        return 0;
    }
    WebPData data = {bytes, length};
    WebPDemuxer *demuxer = WebPDemux(&data);
    if (!demuxer) {
        say(words, size, "libwebp cannot read its chunks");
        return 0;
    }
    int ok = 0;
    *facts = (PictureFacts){.width = (int)WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH),
                            .height = (int)WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT),
                            .frames = features.has_animation ? (int)WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT) : 1, .orientation = 1};
    WebPChunkIterator chunk;
    if (WebPDemuxGetChunk(demuxer, "EXIF", 1, &chunk)) {
        facts->orientation = exif_orientation(chunk.chunk.bytes, chunk.chunk.size);
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    WebPDemuxDelete(demuxer);
    if ((double)facts->width * facts->height > most) {
        facts->header_only = 1;
        return 1;
    }
    if (features.has_animation) {
        WebPAnimDecoderOptions options;
        WebPAnimDecoder *decoder = WebPAnimDecoderOptionsInit(&options) ? WebPAnimDecoderNew(&data, &options) : NULL;
        if (!decoder) {
            say(words, size, "libwebp cannot decode its animation");
            return 0;
        }
        ok = facts->frames > 0;
        while (ok && WebPAnimDecoderHasMoreFrames(decoder)) {
            uint8_t *frame;
            int timestamp;
            ok = WebPAnimDecoderGetNext(decoder, &frame, &timestamp);
        }
        if (!ok) say(words, size, "libwebp cannot decode one of its frames");
        WebPAnimDecoderDelete(decoder);
        return ok;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return 0;
    int shrink = shrink_for(features.width, features.height, side);
    if (shrink > 1) {
        config.options.use_scaling = 1;
        config.options.scaled_width = features.width / shrink > 0 ? features.width / shrink : 1;
        config.options.scaled_height = features.height / shrink > 0 ? features.height / shrink : 1;
    }
    config.output.colorspace = MODE_RGBA;
    VP8StatusCode status = WebPDecode(bytes, length, &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) {
        static const char *const why[] = {"", "out of memory", "an invalid parameter", "its bitstream is broken",
                                          "an unsupported feature", "it is suspended", "it was cancelled", "it ends early"};
        char text[96];
        snprintf(text, sizeof text, "libwebp cannot decode it: %s", status < 8 ? why[status] : "an error");
        say(words, size, text);
        return 0;
    }
    return 1;
}

#define FUNCTION_NAME(name) #name,

/// A library opened on the first file that needs it (formats.h) and its functions looked up into `table`, a
/// struct of function pointers in the order of `names` (as ffmpeg.h's table is): 1 once all are found and
/// `usable` says so, 0 then and ever after when any is missing. `*state`: 0 not tried, 1 loaded, -1 unavailable.
static int library_loaded(int *state, const char *soname, const char *const names[], size_t count, void *table,
                          int (*usable)(void)) {
    if (*state) return *state > 0;
    *state = -1;
    void *library = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (!library) return 0;
    void **slots = table;
    for (size_t i = 0; i < count; i++) {
        if (!(slots[i] = dlsym(library, names[i]))) return 0;
    }
    if (!usable()) return 0;
    *state = 1;
    return 1;
}

// libheif, for HEIC (libde265), and AVIF (dav1d) where libavif is not installed, opened on the first
// such file (formats.h): its functions looked up by their declared types, as ffmpeg.h's table is.
#define HEIF_FUNCTIONS(X) \
    X(heif_context_alloc) X(heif_context_free) X(heif_context_set_max_decoding_threads) \
    X(heif_context_read_from_memory_without_copy) X(heif_context_get_primary_image_handle) \
    X(heif_context_get_number_of_top_level_images) X(heif_image_handle_get_width) X(heif_image_handle_get_height) \
    X(heif_image_handle_release) X(heif_decode_image) X(heif_image_release) X(heif_main_brand) \
    X(heif_decoding_options_alloc) X(heif_decoding_options_free)
#define HEIF_MEMBER(name) __typeof__(name) *name;
static struct { HEIF_FUNCTIONS(HEIF_MEMBER) } heif;

static int heif_registers_its_decoders(void) {
    // Its decoders registered now, in the worker: in the child, with the filter on, nothing may be opened.
    struct heif_context *context = heif.heif_context_alloc();
    if (context) heif.heif_context_free(context);
    return context != NULL;
}

static int heif_loaded(void) {
    static int state = 0;
    static const char *const names[] = {HEIF_FUNCTIONS(FUNCTION_NAME)};
    _Static_assert(sizeof heif == sizeof names / sizeof *names * sizeof(void *), "heif: a pointer for each name");
    return library_loaded(&state, "libheif.so.1", names, sizeof names / sizeof *names, &heif, heif_registers_its_decoders);
}

/// HEIC and AVIF through libheif: the primary picture decoded whole (no reduced scale: HEVC and AV1 have none).
static int heif_decode(const unsigned char *bytes, size_t length, int side, double most, PictureFacts *facts, char *words,
                       size_t size) {
    (void)side;
    struct heif_context *context = heif.heif_context_alloc();
    if (!context) return 0;
    // Every tile on this thread.
    heif.heif_context_set_max_decoding_threads(context, 0);
    struct heif_image_handle *handle = NULL;
    struct heif_error error = heif.heif_context_read_from_memory_without_copy(context, bytes, length, NULL);
    if (error.code == heif_error_Ok) error = heif.heif_context_get_primary_image_handle(context, &handle);
    if (error.code != heif_error_Ok) {
        say(words, size, error.message);
        heif.heif_context_free(context);
        return 0;
    }
    enum heif_brand brand = heif.heif_main_brand(bytes, length > 64 ? 64 : (int)length);
    *facts = (PictureFacts){.width = heif.heif_image_handle_get_width(handle), .height = heif.heif_image_handle_get_height(handle),
                            .frames = heif.heif_context_get_number_of_top_level_images(context),
                            // A HEIF file turns its picture in the container (irot, imir), and every decoder applies
                            // that: its size is the turned one and an EXIF orientation is not read (libvips alike).
                            .orientation = 1};
    snprintf(facts->format, sizeof facts->format, "%s", brand == heif_avif || brand == heif_avis ? "avif" : "heif");
    int ok = 1;
    if ((double)facts->width * facts->height > most) {
        facts->header_only = 1;
    } else {
        struct heif_image *image = NULL;
        // AV1 through dav1d, as Android's decoder reads it, whichever AV1 decoder libheif would rank first.
        struct heif_decoding_options *options = heif.heif_decoding_options_alloc();
        if (options && facts->format[0] == 'a') options->decoder_id = "dav1d";
        error = heif.heif_decode_image(handle, &image, heif_colorspace_undefined, heif_chroma_undefined, options);
        if (options) heif.heif_decoding_options_free(options);
        ok = error.code == heif_error_Ok;
        if (ok) {
            heif.heif_image_release(image);
        } else {
            say(words, size, error.message);
        }
    }
    heif.heif_image_handle_release(handle);
    heif.heif_context_free(context);
    return ok;
}

// libavif, for AVIF (dav1d), opened on the first AVIF file (formats.h), its functions looked up by their
// declared types as libheif's are: the library Android's AVIF decoder (Skia's SkAvifCodec) is built on.
#define AVIF_FUNCTIONS(X) \
    X(avifDecoderCreate) X(avifDecoderDestroy) X(avifDecoderSetIOMemory) X(avifDecoderParse) X(avifDecoderNextImage) \
    X(avifResultToString) X(avifCodecName)
#define AVIF_MEMBER(name) __typeof__(name) *name;
static struct { AVIF_FUNCTIONS(AVIF_MEMBER) } avif;

static int avif_reads_with_dav1d(void) {
    // dav1d is linked into libavif (no module to open in the child); without it, AVIF stays libheif's.
    return avif.avifCodecName(AVIF_CODEC_CHOICE_DAV1D, AVIF_CODEC_FLAG_CAN_DECODE) != NULL;
}

static int avif_loaded(void) {
    static int state = 0;
    static const char *const names[] = {AVIF_FUNCTIONS(FUNCTION_NAME)};
    _Static_assert(sizeof avif == sizeof names / sizeof *names * sizeof(void *), "avif: a pointer for each name");
    return library_loaded(&state, "libavif.so.15", names, sizeof names / sizeof *names, &avif, avif_reads_with_dav1d);
}

/// An AVIF's words: libavif's result, and its diagnostic where it gave one.
static void say_avif(char *words, size_t size, avifResult result, const avifDecoder *decoder) {
    char text[512];
    snprintf(text, sizeof text, "%s%s%s", avif.avifResultToString(result), decoder->diag.error[0] ? ": " : "", decoder->diag.error);
    say(words, size, text);
}

/// AVIF through libavif and dav1d, as SkAvifCodec sets the decoder (no Exif or XMP read, strict checks off, one
/// thread, no progressive or incremental decode): the first picture decoded whole (AV1 has no reduced scale).
/// The size is the stored grid (libavif leaves irot and imir to its caller).
static int avif_decode(const unsigned char *bytes, size_t length, int side, double most, PictureFacts *facts, char *words,
                       size_t size) {
    (void)side;
    avifDecoder *decoder = avif.avifDecoderCreate();
    if (!decoder) return 0;
    decoder->codecChoice = AVIF_CODEC_CHOICE_DAV1D;
    decoder->maxThreads = 1;
    decoder->ignoreExif = AVIF_TRUE;
    decoder->ignoreXMP = AVIF_TRUE;
    decoder->allowProgressive = AVIF_FALSE;
    decoder->allowIncremental = AVIF_FALSE;
    decoder->strictFlags = AVIF_STRICT_DISABLED;
    avifResult result = avif.avifDecoderSetIOMemory(decoder, bytes, length);
    if (result == AVIF_RESULT_OK) result = avif.avifDecoderParse(decoder);
    if (result != AVIF_RESULT_OK) {
        say_avif(words, size, result, decoder);
        avif.avifDecoderDestroy(decoder);
        return 0;
    }
    *facts = (PictureFacts){.width = (int)decoder->image->width, .height = (int)decoder->image->height,
                            .frames = decoder->imageCount > 0 ? decoder->imageCount : 1, .orientation = 1};
    snprintf(facts->format, sizeof facts->format, "avif");
    int ok = 1;
    if ((double)facts->width * facts->height > most) {
        facts->header_only = 1;
    } else if ((result = avif.avifDecoderNextImage(decoder)) != AVIF_RESULT_OK) {
        say_avif(words, size, result, decoder);
        ok = 0;
    }
    avif.avifDecoderDestroy(decoder);
    return ok;
}

/// Each format's reader: the file's bytes in, its facts (or the library's words) out; 1 when it decodes whole and clean.
typedef int (*Reader)(const unsigned char *bytes, size_t length, int side, double most, PictureFacts *facts, char *words, size_t size);

static const struct {
    const char *format;
    Reader read;
} readers[] = {{"jpeg", jpeg_decode}, {"png", png_decode}, {"gif", gif_decode}, {"webp", webp_decode}, {"heif", heif_decode},
               {"avif", avif_decode}};

static Reader reader_of(const char *format) {
    for (size_t i = 0; i < sizeof readers / sizeof *readers; i++) {
        if (!strcmp(readers[i].format, format)) return readers[i].read;
    }
    return NULL;
}

int format_has_library(const char *format) {
    if (!reader_of(format)) return 0;
    if (!strcmp(format, "heif")) return heif_loaded();
    if (!strcmp(format, "avif")) return avif_loaded();
    return 1;
}

int format_read(const char *format, const unsigned char *bytes, size_t length, int decode_side, double most_pixels,
                PictureFacts *facts, char *words, size_t size) {
    Reader decode = format_has_library(format) ? reader_of(format) : NULL;
    words[0] = 0;
    *facts = (PictureFacts){0};
    return decode ? decode(bytes, length, decode_side, most_pixels, facts, words, size) : 0;
}

/// What a decoding child reads: the mapped file, and how far to decode it.
typedef struct ChildWork {
    const char *library, *format;
    const unsigned char *bytes;
    size_t length;
    int decode_side;
    double most_pixels;
} ChildWork;

/// The answer of a picture its library decoded whole and clean, in the door's terms.
static void answer_clean(const PictureFacts *facts, const char *format, DoorFacts *answer) {
    door_kind(answer, DOOR_PICTURE);
    door_text(answer, DOOR_FORMAT, facts->format[0] ? facts->format : format);
    door_number(answer, DOOR_WIDTH, facts->width);
    door_number(answer, DOOR_HEIGHT, facts->height);
    door_number(answer, DOOR_FRAMES, facts->frames > 0 ? facts->frames : 1);
    door_number(answer, DOOR_ORIENTATION, facts->orientation >= 1 && facts->orientation <= 8 ? facts->orientation : 1);
    door_number(answer, DOOR_DECODED_BYTES, door_decoded_bytes(facts->width, facts->height));
    if (facts->header_only) {
        door_status(answer, DOOR_DECODED, "judged from its header: more than 100,000,000 pixels are not decoded");
        return;
    }
    door_flag(answer, DOOR_COMPLETE, 1);
    door_status(answer, DOOR_DECODED, NULL);
}

static void decode_in_child(void *context, DoorFacts *answer) {
    const ChildWork *work = context;
    PictureFacts facts;
    char words[DOOR_DETAIL_BYTES];
    if (format_read(work->library, work->bytes, work->length, work->decode_side, work->most_pixels, &facts, words, sizeof words)) {
        answer_clean(&facts, work->format, answer);
    } else {
        // Not the verdict: the worker hands the file to libvips, with these words for its detail.
        door_status(answer, DOOR_UNDECODABLE, words);
    }
}

int format_decode(const char *library, const char *format, int descriptor, int decode_side, double most_pixels, DoorFacts *facts) {
    door_begin(facts);
    if (!format_has_library(library)) return 0;
    size_t length;
    const unsigned char *bytes = sandbox_map(descriptor, &length);
    if (!bytes || length == 0) return 0;
    ChildWork work = {library, format, bytes, length, decode_side, most_pixels};
    int answered = sandbox_run(library, decode_in_child, &work, facts);
    sandbox_unmap(bytes, length);
    // A machine's failure is the answer; a library's refusal leaves the file to libvips.
    return !answered || facts->status == DOOR_DECODED;
}
