// `fix` (SPEC 19): a picture that passes on every phone, written to a
// descriptor the tool made. Baseline JPEG (PNG where the picture has
// transparency), sRGB, the orientation applied to the pixels and every tag
// dropped, at most `max_side` on its long side and `target_bytes` long: the
// quality goes down from 82 to no less than 70, then the side, until it fits.
// Fixed encoder settings and no metadata: the same input gives the same bytes.
#include "fix.h"
#include "picture.h"
#include "sandbox.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static const int qualities[] = {82, 78, 74, 70};

/// A photo's JPEG bytes at each of `qualities` against its bytes at the lowest: what scripts/bench's
/// 4032x3024 photos give at 2016x1512 (418, 365, 327 and 290 KB). A guess that orders the encodes only:
/// the answer is the same whatever it says.
static const double bytes_against_lowest[] = {1.44, 1.26, 1.13, 1.0};

/// `image` as baseline JPEG at the highest of `qualities` whose bytes fit in `target_bytes`: the bytes in
/// `*bytes` and that quality, or 0 (and `*bytes` NULL) when none fits or libvips fails. A JPEG's bytes fall
/// as its quality does, so the answer is the quality that fits whose next higher one does not, and the
/// search encodes until it knows both. The lowest first: when it does not fit, no quality at this side
/// does (one encode per side, which a photo that compresses badly pays at every step of its side). Then
/// the highest quality the bytes known predict to fit, else the next above the highest that fits: most
/// photos are answered in two encodes (the binary search before this took three).
static int highest_quality_that_fits(VipsImage *image, long long target_bytes, void **bytes, size_t *length) {
    int count = (int)(sizeof qualities / sizeof *qualities);
    int fits = count;    // the index of the highest quality known to fit (count: none yet)
    int misses = -1;     // the index of the lowest quality known not to (-1: none yet)
    void *kept = NULL;   // the encode at `fits`
    size_t kept_length = 0;
    for (int index = count - 1; misses + 1 < fits;) {
        void *encoded = NULL;
        size_t encoded_length = 0;
        if (vips_jpegsave_buffer(image, &encoded, &encoded_length, "Q", qualities[index], "strip", TRUE, "interlace", FALSE,
                                 "optimize_coding", TRUE, NULL) != 0) {
            g_free(kept);
            kept = NULL;
            fits = count;
            break;
        }
        if ((long long)encoded_length <= target_bytes) {
            g_free(kept);
            kept = encoded;
            kept_length = encoded_length;
            fits = index;
        } else {
            g_free(encoded);
            misses = index;
            if (fits == count) break;  // the lowest quality does not fit: none does
        }
        index = fits - 1;
        for (int guess = misses + 1; guess < fits; guess++) {
            if (kept_length * bytes_against_lowest[guess] / bytes_against_lowest[fits] <= (double)target_bytes) {
                index = guess;
                break;
            }
        }
    }
    *bytes = kept;
    *length = kept_length;
    return kept ? qualities[fits] : 0;
}

/// Whether the picture's alpha band has any pixel that is not opaque.
static int transparent(VipsImage *image) {
    if (!vips_image_hasalpha(image)) return 0;
    VipsImage *alpha = NULL;
    double least = 255;
    int bands = vips_image_get_bands(image);
    if (vips_extract_band(image, &alpha, bands - 1, NULL) == 0) vips_min(alpha, &least, NULL);
    if (alpha) g_object_unref(alpha);
    return least < 255;
}

/// The picture at no more than `max_side`, 8-bit sRGB, upright, in memory; *png set when it keeps transparency.
static VipsImage *prepare(const unsigned char *source, size_t source_length, Loader loader, int max_side, int *png, int *orientation,
                          int *width, int *height) {
    VipsImage *header = load_bytes(source, source_length, loader, 1, VIPS_FAIL_ON_NONE);
    if (!header) return NULL;
    *width = vips_image_get_width(header);
    *height = vips_image_get_height(header);
    *orientation = 1;
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION)) vips_image_get_int(header, VIPS_META_ORIENTATION, orientation);
    if (*orientation < 1 || *orientation > 8) *orientation = 1;
    g_object_unref(header);
    // JPEG and WebP decode at a reduced scale whose long side is still at least 90% of `max_side` (a
    // 4032-pixel photo at half scale, 2016, for 2048): a quarter of the pixels decoded and held, for
    // a picture at most 10% smaller than the most allowed.
    int longest = *width > *height ? *width : *height, shrink = 1;
    if (loader == JPEG || loader == WEBP) {
        while (shrink < 8 && longest / (shrink * 2) >= max_side * 9 / 10) shrink *= 2;
    }
    VipsImage *image = load_bytes(source, source_length, loader, shrink, VIPS_FAIL_ON_TRUNCATED);
    if (!image) return NULL;
    VipsImage *steps[5] = {NULL};
    int failed = vips_thumbnail_image(image, &steps[0], max_side, "height", max_side, "size", VIPS_SIZE_DOWN, "no_rotate", TRUE,
                                      NULL);
    g_object_unref(image);
    if (!failed) failed = vips_colourspace(steps[0], &steps[1], VIPS_INTERPRETATION_sRGB, NULL);
    if (!failed) failed = vips_cast_uchar(steps[1], &steps[2], NULL);
    VipsImage *memory = failed ? NULL : vips_image_copy_memory(steps[2]);
    for (int i = 0; i < 5; i++) {
        if (steps[i]) g_object_unref(steps[i]);
    }
    if (!memory) return NULL;
    *png = transparent(memory);
    VipsImage *opaque = NULL;
    if (!*png && vips_image_hasalpha(memory)) {
        // An alpha band that is opaque everywhere says nothing: JPEG has none.
        failed = vips_extract_band(memory, &opaque, 0, "n", vips_image_get_bands(memory) - 1, NULL);
        g_object_unref(memory);
        if (failed) return NULL;
        memory = vips_image_copy_memory(opaque);
        g_object_unref(opaque);
        if (!memory) return NULL;
    }
    // Upright already (most photos): the copy in memory is the picture, not copied again.
    if (*orientation == 1) return memory;
    VipsImage *tagged = NULL, *upright = NULL;
    if (vips_copy(memory, &tagged, NULL) == 0) {
        vips_image_set_int(tagged, VIPS_META_ORIENTATION, *orientation);
        if (vips_autorot(tagged, &upright, NULL) == 0) {
            VipsImage *kept = vips_image_copy_memory(upright);
            g_object_unref(upright);
            upright = kept;
        }
        g_object_unref(tagged);
    }
    g_object_unref(memory);
    return upright;
}

/// The smallest side an animation is kept at: below it, its first frame says more.
static const int least_animated_side = 96;

/// An animated GIF as a smaller animated GIF within `cap` bytes (the strictest record's cap), its side
/// going down as the bytes say (bytes grow with the area); 1 when one was written, 0 when none fits at
/// `least_animated_side` or more (the caller writes the first frame), -1 on a write error.
static int fix_animation(const unsigned char *source, size_t source_length, int pages, int longest, int max_side, long long cap,
                         int fd, DoorFacts *facts) {
    int side = longest < max_side ? longest : max_side;
    while (side >= least_animated_side) {
        VipsImage *small = NULL;
        void *bytes = NULL;
        size_t length = 0;
        // libvips's thumbnail keeps every frame of a loader given n=-1; the file was sniffed as a GIF.
        if (vips_thumbnail_buffer((void *)source, source_length, &small, side, "height", side, "size", VIPS_SIZE_DOWN,
                                  "option_string", "n=-1", NULL)) {
            return 0;
        }
        int width = vips_image_get_width(small), page_height = vips_image_get_page_height(small);
        int saved = vips_gifsave_buffer(small, &bytes, &length, "strip", TRUE, NULL);
        g_object_unref(small);
        if (saved) return 0;
        if ((long long)length <= cap) {
            int failed = sandbox_write_all(fd, bytes, length);
            g_free(bytes);
            if (failed) return -1;
            door_status(facts, DOOR_FIXED, NULL);
            door_text(facts, DOOR_TYPE, "gif");
            door_number(facts, DOOR_WIDTH, width);
            door_number(facts, DOOR_HEIGHT, page_height);
            door_number(facts, DOOR_BYTES, (long long)length);
            door_number(facts, DOOR_FRAMES, pages);
            return 1;
        }
        g_free(bytes);
        // The side the bytes ask for, a little under; at least a tenth smaller each time.
        double scale = sqrt((double)cap / (double)length) * 0.95;
        int next = (int)(side * (scale < 0.9 ? scale : 0.9));
        side = next < side ? next : side - 1;
    }
    return 0;
}

void fix_picture(const unsigned char *source, size_t source_length, const char *mime, int max_side, long long target_bytes, long long cap, int fd, DoorFacts *facts) {
    Loader loader = loader_for(mime);
    if (loader == NONE || max_side < 16 || target_bytes < 1) {
        door_failed(facts, loader == NONE ? "not a picture format phones decode" : "no room for a picture");
        return;
    }
    int pages = 1;
    if (loader == GIF) {
        VipsImage *header = load_bytes(source, source_length, loader, 1, VIPS_FAIL_ON_NONE);
        if (header) {
            pages = vips_image_get_n_pages(header);
            int source_width = vips_image_get_width(header), source_height = vips_image_get_height(header);
            g_object_unref(header);
            if (pages > 1) {
                int longest = source_width > source_height ? source_width : source_height;
                int written = fix_animation(source, source_length, pages, longest, max_side, cap, fd, facts);
                if (written < 0) {
                    door_failed(facts, strerror(errno));
                    return;
                }
                if (written > 0) {
                    door_number(facts, DOOR_ORIENTATION, 1);
                    door_number(facts, DOOR_SOURCE_WIDTH, source_width);
                    door_number(facts, DOOR_SOURCE_HEIGHT, source_height);
                    return;
                }
            }
        }
    }
    int png = 0, orientation = 1, width = 0, height = 0;
    VipsImage *upright = prepare(source, source_length, loader, max_side, &png, &orientation, &width, &height);
    if (!upright) {
        door_failed(facts, "libvips could not decode it whole");
        return;
    }
    int side = vips_image_get_width(upright) > vips_image_get_height(upright) ? vips_image_get_width(upright)
                                                                                  : vips_image_get_height(upright);
    VipsImage *current = upright;
    g_object_ref(current);
    void *bytes = NULL;
    size_t length = 0;
    int quality = 0;
    while (!bytes) {
        if (png) {
            if (vips_pngsave_buffer(current, &bytes, &length, "compression", 9, "strip", TRUE, "interlace", FALSE, NULL) == 0
                && (long long)length > target_bytes) {
                g_free(bytes);
                bytes = NULL;
            }
        } else {
            quality = highest_quality_that_fits(current, target_bytes, &bytes, &length);
        }
        if (bytes) break;
        // Then the side, by 15% a step.
        side = side * 85 / 100;
        g_object_unref(current);
        current = NULL;
        if (side < 16) break;
        int upright_side = vips_image_get_width(upright) > vips_image_get_height(upright) ? vips_image_get_width(upright)
                                                                                            : vips_image_get_height(upright);
        if (vips_resize(upright, &current, (double)side / upright_side, NULL)) break;
    }
    int out_width = current ? vips_image_get_width(current) : 0, out_height = current ? vips_image_get_height(current) : 0;
    if (current) g_object_unref(current);
    g_object_unref(upright);
    if (!bytes) {
        door_failed(facts, "no rendition fits in the bytes allowed");
        return;
    }
    int failed = sandbox_write_all(fd, bytes, length);
    g_free(bytes);
    if (failed) {
        door_failed(facts, strerror(errno));
        return;
    }
    door_status(facts, DOOR_FIXED, NULL);
    door_text(facts, DOOR_TYPE, png ? "png" : "jpg");
    door_number(facts, DOOR_WIDTH, out_width);
    door_number(facts, DOOR_HEIGHT, out_height);
    door_number(facts, DOOR_BYTES, (long long)length);
    if (!png) door_number(facts, DOOR_QUALITY, quality);
    // An animation no smaller GIF could keep within the bytes: its first frame.
    if (pages > 1) door_number(facts, DOOR_FRAMES_LOST, pages - 1);
    door_number(facts, DOOR_ORIENTATION, orientation);
    door_number(facts, DOOR_SOURCE_WIDTH, width);
    door_number(facts, DOOR_SOURCE_HEIGHT, height);
}
