// libFuzzer target for the decode worker's format readers (formats.h): the
// bytes a hostile server sends, read by libjpeg-turbo, libpng, giflib, libwebp,
// libheif (HEIC and AVIF) and libavif (AVIF), the last two opened on first use as the
// worker opens them, exactly as the sandboxed child reads them (format_read), each input by all six (a
// reader refuses another format's signature at once, so one input mutated from
// a PNG seed can still find the JPEG reader's edges).
// Built by scripts/fuzz with AddressSanitizer; the allocator returns NULL past
// the worker's --memory-mib, as RLIMIT_AS makes malloc do in the worker.
#include "formats.h"

#include <stddef.h>
#include <stdint.h>

/// Smaller than the worker's 100-megapixel bound, so that each input decodes in milliseconds;
/// past it a reader answers from the header alone, which the fuzzer covers too.
static const double most_pixels = 4000000.0;
/// The worker's decode side (picture.c).
static const int decode_side = 256;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const formats[] = {"jpeg", "png", "gif", "webp", "heif", "avif"};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        PictureFacts facts;
        char words[512];
        format_read(formats[i], data, size, decode_side, most_pixels, &facts, words, sizeof words);
    }
    return 0;
}
