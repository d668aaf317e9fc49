// Pictures through libvips (SPEC 17): the header first, then one decode at a
// reduced scale where the format allows it (JPEG's DCT scaling still reads
// every byte, so a cut is still seen), under libvips's `fail_on` levels: a
// file that fails on truncation ends early; one that reads to its end but fails
// on errors is data that is not what it claims.
#include "picture.h"
#include "formats.h"
#include "reply.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/// More pixels than this are judged from the header alone.
static const double header_only_pixels = 100000000.0;
/// The decode's long side, at least: enough rows to tell where a cut file's picture ends.
/// JPEG's 1/8 DCT scaling (a 4032×3024 photo decodes as 504×378) reads every byte in a
/// quarter of a full decode's time.
static const int decode_side = 256;

Loader loader_for(const char *mime) {
    if (!strcmp(mime, "image/jpeg")) return JPEG;
    if (!strcmp(mime, "image/png")) return PNG;
    if (!strcmp(mime, "image/gif")) return GIF;
    if (!strcmp(mime, "image/webp")) return WEBP;
    if (!strcmp(mime, "image/bmp") || !strcmp(mime, "image/x-ms-bmp")) return BMP;
    if (!strcmp(mime, "image/tiff")) return TIFF;
    if (!strcmp(mime, "image/heic") || !strcmp(mime, "image/heif") || !strcmp(mime, "image/avif")
        || !strcmp(mime, "image/heic-sequence") || !strcmp(mime, "image/heif-sequence")) return HEIF;
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

VipsImage *load(const char *path, Loader loader, int shrink, VipsFailOn fail_on) {
    VipsImage *image = NULL;
    int failed = -1;
    static int heif = 0, magick = 0;
    if (loader == HEIF && !heif) heif = load_module("vips-heif") ? 1 : -1;
    if (loader == BMP && !magick) magick = load_module("vips-magick") ? 1 : -1;
    if ((loader == HEIF && heif < 0) || (loader == BMP && magick < 0)) {
        vips_error("notti-media-decode", "libvips's module for this format is not installed");
        return NULL;
    }
    switch (loader) {
    case JPEG:
        failed = vips_jpegload(path, &image, "access", VIPS_ACCESS_SEQUENTIAL, "shrink", shrink, "fail_on", fail_on,
                               "autorotate", FALSE, NULL);
        break;
    case PNG: failed = vips_pngload(path, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL); break;
    case GIF: failed = vips_gifload(path, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL); break;
    case WEBP:
        failed = vips_webpload(path, &image, "access", VIPS_ACCESS_SEQUENTIAL, "scale", 1.0 / shrink, "fail_on", fail_on, NULL);
        break;
    case BMP: {
        // ImageMagick's security policy refuses to open a path under /proc (the file has no other): it reads the bytes.
        gchar *bytes = NULL;
        gsize length = 0;
        if (g_file_get_contents(path, &bytes, &length, NULL)) {
            VipsImage *loaded = NULL;
            failed = vips_magickload_buffer(bytes, length, &loaded, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL);
            // The image reads from the buffer lazily: decode it now, while the buffer is there.
            if (!failed) {
                image = vips_image_copy_memory(loaded);
                g_object_unref(loaded);
                failed = image == NULL;
            }
            g_free(bytes);
        }
        break;
    }
    case TIFF: failed = vips_tiffload(path, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL); break;
    case HEIF: failed = vips_heifload(path, &image, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, NULL); break;
    case NONE: break;
    }
    return failed ? NULL : image;
}

/// Decodes every pixel of `image` (its average, which reads every row once).
static int decodes(VipsImage *image) {
    double average;
    return image && vips_avg(image, &average, NULL) == 0;
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
static int corrupt(const char *warning) {
    static const char *const signs[] = {"Huffman", "Invalid", "CRC", "bad ", "Bogus", "corrupt"};
    if (strstr(warning, "extraneous bytes")) return 0;
    for (size_t i = 0; i < sizeof signs / sizeof *signs; i++) {
        if (strstr(warning, signs[i])) return 1;
    }
    return 0;
}

/// How many of the picture's rows (of `height`) a cut file draws: the rows above
/// the uniform fill a decoder puts below the cut (grey for JPEG, black for PNG).
static long drawn_rows(const char *path, Loader loader, int shrink, int height) {
    VipsImage *image = load(path, loader, shrink, VIPS_FAIL_ON_NONE);
    if (!image) return 0;
    VipsImage *small = NULL;
    int columns = vips_image_get_width(image) > 64 ? vips_image_get_width(image) / 64 : 1;
    long rows = 0;
    if (vips_shrinkh(image, &small, columns, NULL) == 0) {
        size_t size = 0;
        unsigned char *pixels = vips_image_write_to_memory(small, &size);
        int width = vips_image_get_width(small), bands = vips_image_get_bands(small);
        int stored = vips_image_get_height(small);
        size_t row = (size_t)width * (size_t)bands * (size_t)vips_format_sizeof(vips_image_get_format(small));
        if (pixels && stored > 0 && row > 0 && size >= row * (size_t)stored) {
            const unsigned char *last = pixels + row * (size_t)(stored - 1);
            int uniform = 1;
            for (size_t at = (size_t)bands; at < row && uniform; at++) uniform = last[at] == last[at % (size_t)bands];
            int cut = stored;
            if (uniform) {
                while (cut > 0 && memcmp(pixels + row * (size_t)(cut - 1), last, row) == 0) cut--;
            }
            rows = (long)((double)cut / stored * height + 0.5);
        }
        g_free(pixels);
        g_object_unref(small);
    }
    g_object_unref(image);
    return rows;
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
/// at `path` has a CRC that does not match its bytes, and which: libpng, what Android's Skia decodes PNG
/// with, stops there, while libvips's loader reads on. Ancillary chunks' CRCs only warn in libpng.
static int png_critical_crc_error(const char *path, char *detail, size_t size) {
    FILE *file = fopen(path, "rb");
    if (!file) return 0;
    unsigned char head[8], buffer[65536];
    int found = 0;
    if (fread(head, 1, 8, file) == 8) {
        for (;;) {
            if (fread(head, 1, 8, file) != 8) break;
            uint32_t length = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
            if (length > 0x7FFFFFFFU) break;
            uint32_t crc = png_crc(0, head + 4, 4);
            for (uint32_t left = length; left > 0;) {
                size_t step = left < sizeof buffer ? left : sizeof buffer;
                if (fread(buffer, 1, step, file) != step) { left = 0; crc = ~0U; break; }
                crc = png_crc(crc, buffer, step);
                left -= (uint32_t)step;
            }
            unsigned char stored[4];
            // A file cut inside a chunk is judged by the decode (truncated), not here.
            if (fread(stored, 1, 4, file) != 4) break;
            uint32_t expected = (uint32_t)stored[0] << 24 | (uint32_t)stored[1] << 16 | (uint32_t)stored[2] << 8 | stored[3];
            int critical = head[4] >= 'A' && head[4] <= 'Z';
            if (critical && crc != expected) {
                snprintf(detail, size, "its %.4s chunk's CRC does not match its bytes, and libpng (what Android decodes PNG with) "
                         "stops there", (const char *)head + 4);
                found = 1;
                break;
            }
            if (!memcmp(head + 4, "IEND", 4)) break;
        }
    }
    fclose(file);
    return found;
}

int picture_needs_libvips(const char *mime) {
    Loader loader = loader_for(mime);
    return loader != NONE && !format_has_library(format_name(loader));
}

/// The facts of a picture its format's library decoded whole and clean (formats.h).
static void reply_clean(const PictureFacts *facts, const char *format, Reply *reply) {
    reply_string(reply, "kind", "picture");
    reply_string(reply, "format", format);
    reply_int(reply, "width", facts->width);
    reply_int(reply, "height", facts->height);
    reply_int(reply, "frames", facts->frames > 0 ? facts->frames : 1);
    reply_int(reply, "orientation", facts->orientation);
    reply_int(reply, "decodedBytes", (long long)facts->width * facts->height * 4);
    if (facts->header_only) {
        reply_null(reply, "complete");
        reply_string(reply, "status", "decoded");
        reply_string(reply, "detail", "judged from its header: more than 100,000,000 pixels are not decoded");
        return;
    }
    reply_bool(reply, "complete", 1);
    reply_string(reply, "status", "decoded");
}

/// libvips's words for a detail, else the format library's (libvips says nothing on some broken headers).
static const char *words_of(char *error, const char *words) {
    return error[0] ? error : words;
}

void decode_picture(int descriptor, const char *path, const char *mime, Reply *reply) {
    Loader loader = loader_for(mime);
    char error[512];
    char words[512] = "";
    if (loader == NONE) {
        reply_string(reply, "status", "not_decoded");
        reply_string(reply, "detail", "not a picture format phones decode");
        return;
    }
    // The format's own library first: a file that decodes whole and clean is judged without libvips.
    if (format_has_library(format_name(loader))) {
        PictureFacts facts;
        if (format_decode(format_name(loader), descriptor, decode_side, header_only_pixels, &facts, words, sizeof words)) {
            reply_clean(&facts, facts.format[0] ? facts.format : format_name(loader), reply);
            return;
        }
    }
    const char *why = NULL;
    if (!libvips_loaded(&why)) {
        reply_string(reply, "status", "not_decoded");
        reply_string(reply, "detail", why);
        return;
    }
    VipsImage *header = load(path, loader, 1, VIPS_FAIL_ON_NONE);
    if (!header) {
        reply_string(reply, "status", "undecodable");
        reply_string(reply, "kind", "picture");
        reply_string(reply, "format", format_name(loader));
        if (loader != PNG || !png_critical_crc_error(path, error, sizeof error)) first_error(error, sizeof error);
        reply_string(reply, "detail", words_of(error, words));
        return;
    }
    int width = vips_image_get_width(header), height = vips_image_get_height(header);
    int frames = vips_image_get_n_pages(header);
    int orientation = 1;
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION)) vips_image_get_int(header, VIPS_META_ORIENTATION, &orientation);
    if (orientation < 1 || orientation > 8) orientation = 1;
    const char *format = format_name(loader);
    const char *compression = NULL;
    if (loader == HEIF && vips_image_get_typeof(header, "heif-compression")
        && vips_image_get_string(header, "heif-compression", &compression) == 0 && compression && !strcmp(compression, "av1")) {
        format = "avif";
    }
    g_object_unref(header);
    reply_string(reply, "kind", "picture");
    reply_string(reply, "format", format);
    reply_int(reply, "width", width);
    reply_int(reply, "height", height);
    reply_int(reply, "frames", frames > 0 ? frames : 1);
    reply_int(reply, "orientation", orientation);
    reply_int(reply, "decodedBytes", (long long)width * height * 4);
    if ((double)width * height > header_only_pixels) {
        reply_null(reply, "complete");
        reply_string(reply, "status", "decoded");
        reply_string(reply, "detail", "judged from its header: more than 100,000,000 pixels are not decoded");
        return;
    }
    int longest = width > height ? width : height;
    int shrink = 1;
    if (loader == JPEG || loader == WEBP) {
        while (shrink < 8 && longest / (shrink * 2) >= decode_side) shrink *= 2;
    }
    if (loader == PNG && png_critical_crc_error(path, error, sizeof error)) {
        reply_string(reply, "status", "undecodable");
        reply_string(reply, "detail", error);
        return;
    }
    vips_error_clear();
    warnings = 0;
    VipsImage *image = load(path, loader, shrink, VIPS_FAIL_ON_TRUNCATED);
    int whole = decodes(image);
    if (image) g_object_unref(image);
    if (!whole) {
        first_error(error, sizeof error);
        long rows = drawn_rows(path, loader, shrink, height);
        if (rows <= 0) {
            reply_string(reply, "status", "undecodable");
            reply_string(reply, "detail", words_of(error, words));
            return;
        }
        reply_bool(reply, "complete", 0);
        reply_int(reply, "drawnRows", rows);
        reply_string(reply, "status", "decoded");
        reply_string(reply, "detail", words_of(error, words));
        return;
    }
    // Data that is not what it claims: libjpeg calls a bad Huffman code a warning and draws noise.
    // Decoded again, failing on warnings, only when the decode above gave some (most files give none).
    int clean = 1;
    if (warnings > 0) {
        vips_error_clear();
        image = load(path, loader, shrink, VIPS_FAIL_ON_WARNING);
        clean = decodes(image);
        if (image) g_object_unref(image);
    }
    if (!clean && corrupt(first_error(error, sizeof error))) {
        reply_string(reply, "status", "undecodable");
        reply_string(reply, "detail", error);
        return;
    }
    reply_bool(reply, "complete", 1);
    reply_string(reply, "status", "decoded");
}
