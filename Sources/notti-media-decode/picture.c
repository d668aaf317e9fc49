// Pictures through libvips (SPEC 17): the header first, then one decode at a
// reduced scale where the format allows it (JPEG's DCT scaling still reads
// every byte, so a cut is still seen), under libvips's `fail_on` levels: a
// file that fails on truncation ends early; one that reads to its end but fails
// on errors is data that is not what it claims.
//
// The verdict's libvips decode (BMP, TIFF, HEIF without libheif of its own, a
// file its format's library refused) runs in a sandboxed child (sandbox.h), as
// the format libraries' do: it reads the mapped file through libvips's buffer
// loaders, and pulls the pixels on its own thread (a region at a time), never
// through libvips's thread pool, whose idle threads, started in the worker by
// an earlier render or fix, a forked child does not have: a pool's task there
// waited for ever. What the child may not open, the worker opens first: the
// format's libvips module, and ImageMagick's configuration and BMP coder.
#define _GNU_SOURCE
#include "picture.h"
#include "formats.h"
#include "door.h"
#include "reply.h"
#include "sandbox.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// More pixels than this are judged from the header alone.
static const double header_only_pixels = 100000000.0;
/// The decode's long side, at least: enough rows to tell where a cut file's picture ends.
/// JPEG's 1/8 DCT scaling (a 4032×3024 photo decodes as 504×378) reads every byte in a
/// quarter of a full decode's time.
static const int decode_side = 256;

Loader loader_for(const char *mime) {
    // The door lists the picture types and the loader of each (door.h).
    const char *format = door_picture_format(mime);
    static const struct {
        const char *name;
        Loader loader;
    } loaders[] = {{"jpeg", JPEG}, {"png", PNG}, {"gif", GIF}, {"webp", WEBP}, {"bmp", BMP}, {"tiff", TIFF}, {"heif", HEIF}};
    for (size_t i = 0; format && i < sizeof loaders / sizeof *loaders; i++) {
        if (!strcmp(loaders[i].name, format)) return loaders[i].loader;
    }
    return NONE;
}

static const char *format_name(Loader loader) {
    switch (loader) {
    case JPEG: return "jpeg";
    case PNG: return "png";
    case GIF: return "gif";
    case WEBP: return "webp";
    case BMP: return "bmp";
    case TIFF: return "tiff";
    case HEIF: return "heif";
    default: return NULL;
    }
}

/// A 2x2 BMP: ImageMagick reads its configuration (policy.xml, magic.xml) and opens its BMP coder on the
/// first file it reads, paths a sandboxed child may not open; its header is read once in the worker.
static const unsigned char tiny_bmp[] = {
    'B', 'M', 70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 24, 0, 0, 0, 0, 0,
    16, 0, 0, 0, 0x13, 0x0b, 0, 0, 0x13, 0x0b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0};

int loader_ready(Loader loader) {
    static int heif = 0, magick = 0;
    if (loader == HEIF && !heif) heif = load_module("vips-heif") ? 1 : -1;
    if (loader == BMP && !magick) {
        magick = load_module("vips-magick") ? 1 : -1;
        VipsImage *warm = NULL;
        if (magick > 0 && vips_magickload_buffer((void *)tiny_bmp, sizeof tiny_bmp, &warm, NULL) == 0) g_object_unref(warm);
        vips_error_clear();
    }
    if ((loader == HEIF && heif < 0) || (loader == BMP && magick < 0)) {
        vips_error("notti-media-decode", "libvips's module for this format is not installed");
        return 0;
    }
    return 1;
}

VipsImage *load_bytes(const unsigned char *bytes, size_t length, Loader loader, int shrink, VipsFailOn fail_on) {
    VipsImage *image = NULL;
    void *buffer = (void *)bytes;
    int failed = -1;
    if (!loader_ready(loader)) return NULL;
    switch (loader) {
    case JPEG:
        failed = vips_jpegload_buffer(buffer, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, "shrink", shrink, "fail_on",
                                      fail_on, "autorotate", FALSE, NULL);
        break;
    case PNG: failed = vips_pngload_buffer(buffer, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL); break;
    case GIF: failed = vips_gifload_buffer(buffer, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL); break;
    case WEBP:
        failed = vips_webpload_buffer(buffer, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, "scale", 1.0 / shrink, "fail_on",
                                      fail_on, NULL);
        break;
    // The image reads from the bytes lazily: they stay mapped for the child's life.
    case BMP: failed = vips_magickload_buffer(buffer, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL); break;
    case TIFF: failed = vips_tiffload_buffer(buffer, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL); break;
    case HEIF: failed = vips_heifload_buffer(buffer, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL); break;
    case NONE: break;
    }
    return failed ? NULL : image;
}

/// Reads `image` top to bottom, a strip at a time, on this thread; `row(pixels, y, bytes)` sees each row.
/// Returns 0 when every row was read.
static int read_rows(VipsImage *image, void (*row)(void *context, const unsigned char *pixels, int y, size_t bytes), void *context) {
    VipsRegion *region = vips_region_new(image);
    if (!region) return -1;
    int width = vips_image_get_width(image), height = vips_image_get_height(image), failed = 0;
    size_t bytes = (size_t)width * (size_t)vips_image_get_bands(image) * (size_t)vips_format_sizeof(vips_image_get_format(image));
    for (int top = 0; top < height && !failed; top += 16) {
        VipsRect strip = {0, top, width, height - top < 16 ? height - top : 16};
        failed = vips_region_prepare(region, &strip);
        for (int y = top; !failed && row && y < top + strip.height; y++) {
            row(context, (const unsigned char *)VIPS_REGION_ADDR_TOPLEFT(region) + (size_t)(y - region->valid.top) * VIPS_REGION_LSKIP(region),
                y, bytes);
        }
    }
    g_object_unref(region);
    return failed;
}

/// Decodes every pixel of `image`.
static int decodes(VipsImage *image) {
    return image && read_rows(image, NULL, NULL) == 0;
}

const char *first_error(char *buffer, size_t size) {
    const char *text = vips_error_buffer();
    size_t length = strcspn(text, "\n");
    if (length >= size) length = size - 1;
    memcpy(buffer, text, length);
    buffer[length] = 0;
    return buffer;
}

/// Whether a warning says the coded data is broken (not a benign one, such as
/// extraneous bytes between markers, which every phone draws through).
/// The decoders' words are matched whatever their case: libjpeg writes "Corrupt JPEG data", libpng "CRC error".
static int corrupt(const char *warning) {
    static const char *const signs[] = {"huffman", "invalid", "crc", "bad ", "bogus", "corrupt"};
    if (strcasestr(warning, "extraneous bytes")) return 0;
    for (size_t i = 0; i < sizeof signs / sizeof *signs; i++) {
        if (strcasestr(warning, signs[i])) return 1;
    }
    return 0;
}

/// Whether a warning says the coded data ends early though the file goes on (libjpeg's "premature end of data
/// segment": a JPEG cut and closed with an end marker).
static int cut_short(const char *warning) { return strcasestr(warning, "premature end") != NULL; }

/// The rows of a picture, kept whole in memory (a cut file's, shrunk to a column per 64).
typedef struct Rows {
    unsigned char *pixels;
    size_t row;
    int stored;
} Rows;

static void keep_row(void *context, const unsigned char *pixels, int y, size_t bytes) {
    Rows *rows = context;
    if (rows->pixels && bytes == rows->row) memcpy(rows->pixels + rows->row * (size_t)y, pixels, bytes);
}

/// How many of the picture's rows (of `height`) a cut file draws: the rows above
/// the uniform fill a decoder puts below the cut (grey for JPEG, black for PNG).
static long drawn_rows(const unsigned char *bytes, size_t length, Loader loader, int shrink, int height) {
    VipsImage *image = load_bytes(bytes, length, loader, shrink, VIPS_FAIL_ON_NONE);
    if (!image) return 0;
    VipsImage *small = NULL;
    int columns = vips_image_get_width(image) > 64 ? vips_image_get_width(image) / 64 : 1;
    long drawn = 0;
    if (vips_shrinkh(image, &small, columns, NULL) == 0) {
        int width = vips_image_get_width(small), bands = vips_image_get_bands(small);
        Rows rows = {NULL, (size_t)width * (size_t)bands * (size_t)vips_format_sizeof(vips_image_get_format(small)),
                     vips_image_get_height(small)};
        if (rows.stored > 0 && rows.row > 0) rows.pixels = calloc((size_t)rows.stored, rows.row);
        // A cut file's rows end in the decoder's fill, not in an error; a read that fails draws nothing.
        if (read_rows(small, keep_row, &rows) != 0) {
            free(rows.pixels);
            rows.pixels = NULL;
        }
        if (rows.pixels) {
            const unsigned char *last = rows.pixels + rows.row * (size_t)(rows.stored - 1);
            int uniform = 1;
            for (size_t at = (size_t)bands; at < rows.row && uniform; at++) uniform = last[at] == last[at % (size_t)bands];
            int cut = rows.stored;
            if (uniform) {
                while (cut > 0 && memcmp(rows.pixels + rows.row * (size_t)(cut - 1), last, rows.row) == 0) cut--;
            }
            drawn = (long)((double)cut / rows.stored * height + 0.5);
            free(rows.pixels);
        }
        g_object_unref(small);
    }
    g_object_unref(image);
    return drawn;
}

/// The CRC-32 of PNG chunks (ISO 3309, as zlib's), over `length` bytes, continuing `crc`.
static uint32_t png_crc(uint32_t crc, const unsigned char *bytes, size_t length) {
    static uint32_t table[256];
    if (!table[1]) {
        for (uint32_t n = 0; n < 256; n++) {
            uint32_t c = n;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
            table[n] = c;
        }
    }
    crc = ~crc;
    for (size_t i = 0; i < length; i++) crc = table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

/// Whether a critical chunk (IHDR, PLTE, IDAT, IEND: a type whose first letter is upper case) of the PNG
/// in `bytes` has a CRC that does not match its bytes, and which: libpng, what Android's Skia decodes PNG
/// with, stops there, while libvips's loader reads on. Ancillary chunks' CRCs only warn in libpng.
static int png_critical_crc_error(const unsigned char *bytes, size_t length, char *detail, size_t size) {
    size_t at = 8;
    while (length >= 12 && at <= length - 12) {
        const unsigned char *head = bytes + at;
        uint32_t chunk = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
        // A file cut inside a chunk is judged by the decode (truncated), not here.
        if (chunk > 0x7FFFFFFFU || chunk > length - at - 12) break;
        uint32_t crc = png_crc(0, head + 4, 4 + (size_t)chunk);
        const unsigned char *stored = head + 8 + chunk;
        uint32_t expected = (uint32_t)stored[0] << 24 | (uint32_t)stored[1] << 16 | (uint32_t)stored[2] << 8 | stored[3];
        int critical = head[4] >= 'A' && head[4] <= 'Z';
        if (critical && crc != expected) {
            snprintf(detail, size, "its %.4s chunk's CRC does not match its bytes, and libpng (what Android decodes PNG with) "
                     "stops there", (const char *)head + 4);
            return 1;
        }
        if (!memcmp(head + 4, "IEND", 4)) break;
        at += 12 + (size_t)chunk;
    }
    return 0;
}

/// The library that reads `mime` first: its loader's, but libavif for an AVIF where it is installed (Android's
/// AVIF decoder is built on it; libheif reads AVIF too).
static const char *library_for(const char *mime) {
    if (!strcmp(mime, "image/avif") && format_has_library("avif")) return "avif";
    return format_name(loader_for(mime));
}

int picture_needs_libvips(const char *mime) {
    const char *library = library_for(mime);
    return library && !format_has_library(library);
}

/// libvips's words for a detail, else the format library's (libvips says nothing on some broken headers).
static const char *words_of(char *error, const char *words) {
    return error[0] ? error : words;
}

/// What the judging child reads: the mapped file, its loader, and the format library's words (for a
/// detail libvips leaves empty).
typedef struct Judgement {
    const unsigned char *bytes;
    size_t length;
    Loader loader;
    /// The format the facts names ("avif" for an AVIF, which libvips reads with its HEIF loader).
    const char *format;
    const char *words;
} Judgement;

/// libvips's verdict on the file (the child's step of `decode_picture`): the answer's members after the
/// worker's own.
static void judge(const unsigned char *bytes, size_t length, Loader loader, const char *format, const char *words, DoorFacts *facts);

static void judge_in_child(void *context, DoorFacts *answer) {
    const Judgement *job = context;
    // ORC, libvips's vector code, compiles to memory it maps executable: the filter refuses that.
    vips_vector_set_enabled(FALSE);
    judge(job->bytes, job->length, job->loader, job->format, job->words, answer);
}

void decode_picture(int descriptor, const char *mime, DoorFacts *facts) {
    Loader loader = loader_for(mime);
    char words[DOOR_DETAIL_BYTES] = "";
    if (loader == NONE) return door_status(facts, DOOR_UNSUPPORTED_TYPE, "not a picture format phones decode");
    // The format's own library first: a file that decodes whole and clean is judged without libvips.
    const char *library = library_for(mime);
    if (format_has_library(library)) {
        if (format_decode(library, format_name(loader), descriptor, decode_side, header_only_pixels, facts)) return;
        // Checked by the door: terminated within its bytes.
        snprintf(words, sizeof words, "%s", facts->detail);
        door_begin(facts);
    }
    const char *why = NULL;
    if (!libvips_loaded(&why)) return door_status(facts, DOOR_DECODER_MISSING, why);
    // Opened here, before the child's filter: the format's module (and ImageMagick's files).
    loader_ready(loader);
    Judgement job = {NULL, 0, loader, !strcmp(mime, "image/avif") ? "avif" : format_name(loader), words};
    if (!(job.bytes = sandbox_map(descriptor, &job.length))) return door_status(facts, DOOR_DECODER_FAILED, "the worker cannot map the file");
    sandbox_run(format_name(loader), judge_in_child, &job, facts);
    sandbox_unmap(job.bytes, job.length);
}

static void judge(const unsigned char *bytes, size_t length, Loader loader, const char *format, const char *words, DoorFacts *facts) {
    char error[512];
    VipsImage *header = load_bytes(bytes, length, loader, 1, VIPS_FAIL_ON_NONE);
    if (!header) {
        door_status(facts, DOOR_UNDECODABLE, NULL);
        door_kind(facts, DOOR_PICTURE);
        door_text(facts, DOOR_FORMAT, format);
        if (loader != PNG || !png_critical_crc_error(bytes, length, error, sizeof error)) first_error(error, sizeof error);
        door_detail(facts, words_of(error, words));
        return;
    }
    int width = vips_image_get_width(header), height = vips_image_get_height(header);
    int frames = vips_image_get_n_pages(header);
    int orientation = 1;
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION)) vips_image_get_int(header, VIPS_META_ORIENTATION, &orientation);
    if (orientation < 1 || orientation > 8) orientation = 1;
    const char *compression = NULL;
    if (loader == HEIF && vips_image_get_typeof(header, "heif-compression")
        && vips_image_get_string(header, "heif-compression", &compression) == 0 && compression && !strcmp(compression, "av1")) {
        format = "avif";
    }
    g_object_unref(header);
    door_kind(facts, DOOR_PICTURE);
    door_text(facts, DOOR_FORMAT, format);
    door_number(facts, DOOR_WIDTH, width);
    door_number(facts, DOOR_HEIGHT, height);
    door_number(facts, DOOR_FRAMES, frames > 0 ? frames : 1);
    door_number(facts, DOOR_ORIENTATION, orientation);
    door_number(facts, DOOR_DECODED_BYTES, door_decoded_bytes(width, height));
    if ((double)width * height > header_only_pixels) {
        door_clear(facts, DOOR_COMPLETE);
        door_status(facts, DOOR_DECODED, NULL);
        door_detail(facts, "judged from its header: more than 100,000,000 pixels are not decoded");
        return;
    }
    int longest = width > height ? width : height;
    int shrink = 1;
    if (loader == JPEG || loader == WEBP) {
        while (shrink < 8 && longest / (shrink * 2) >= decode_side) shrink *= 2;
    }
    if (loader == PNG && png_critical_crc_error(bytes, length, error, sizeof error)) {
        door_status(facts, DOOR_UNDECODABLE, NULL);
        door_detail(facts, error);
        return;
    }
    vips_error_clear();
    warnings = 0;
    VipsImage *image = load_bytes(bytes, length, loader, shrink, VIPS_FAIL_ON_TRUNCATED);
    int whole = decodes(image);
    if (image) g_object_unref(image);
    if (!whole) {
        first_error(error, sizeof error);
        long rows = drawn_rows(bytes, length, loader, shrink, height);
        if (rows <= 0) {
            door_status(facts, DOOR_UNDECODABLE, NULL);
            door_detail(facts, words_of(error, words));
            return;
        }
        door_flag(facts, DOOR_COMPLETE, 0);
        door_number(facts, DOOR_DRAWN_ROWS, rows);
        door_status(facts, DOOR_DECODED, NULL);
        door_detail(facts, words_of(error, words));
        return;
    }
    // Data that is not what it claims: libjpeg calls a bad Huffman code a warning and draws noise.
    // Decoded again, failing on warnings, only when the decode above gave some (most files give none).
    int clean = 1;
    if (warnings > 0) {
        vips_error_clear();
        image = load_bytes(bytes, length, loader, shrink, VIPS_FAIL_ON_WARNING);
        clean = decodes(image);
        if (image) g_object_unref(image);
    }
    if (!clean && cut_short(first_error(error, sizeof error))) {
        // The data ends before the picture does, behind an end marker (a cut upload an editor closed): the
        // rows above the cut are drawn, as for a file that simply ends.
        long rows = drawn_rows(bytes, length, loader, shrink, height);
        if (rows > 0 && rows < height) {
            door_flag(facts, DOOR_COMPLETE, 0);
            door_number(facts, DOOR_DRAWN_ROWS, rows);
            door_status(facts, DOOR_DECODED, error);
            return;
        }
    }
    if (!clean && corrupt(error)) {
        door_status(facts, DOOR_UNDECODABLE, NULL);
        door_detail(facts, error);
        return;
    }
    door_flag(facts, DOOR_COMPLETE, 1);
    door_status(facts, DOOR_DECODED, NULL);
}
