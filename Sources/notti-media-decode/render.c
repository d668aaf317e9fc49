// The preview's renditions (SPEC 17, last paragraph): each picture drawn as each
// phone draws it, from the decoded pixels, as small JPEGs the page shows instead
// of the downloaded file. Where a cut file ends the rows are grey, as BitmapFactory
// leaves them; Android's as-stored rendition keeps the stored orientation, which
// BitmapFactory ignores.
#include "picture.h"
#include "render.h"
#include "door.h"
#include "sandbox.h"

#include <string.h>

/// The renditions are the door's (door.h: their names, boxes, crops and turns).
typedef DoorRendition Rendition;

/// The decode the renditions are cut from, at most this long on either side.
static const int base_side = 1664;

static const Rendition *rendition_named(const char *name) { return door_rendition(name); }

/// The picture at no more than `base_side`, 8-bit sRGB on white, in memory, with the
/// stored rows at and below `drawn_rows` (of the stored `height`; -1: all drawn) grey.
static VipsImage *decode_base(const unsigned char *bytes, size_t length, Loader loader, long drawn_rows, int *orientation) {
    VipsImage *header = load_bytes(bytes, length, loader, 1, VIPS_FAIL_ON_NONE);
    if (!header) return NULL;
    int width = vips_image_get_width(header), height = vips_image_get_height(header);
    *orientation = 1;
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION)) vips_image_get_int(header, VIPS_META_ORIENTATION, orientation);
    g_object_unref(header);
    if (*orientation < 1 || *orientation > 8) *orientation = 1;
    if ((double)width * height > 100000000.0) {
        vips_error("notti-media-decode", "more than 100,000,000 pixels are not drawn");
        return NULL;
    }
    int longest = width > height ? width : height, shrink = 1;
    if (loader == JPEG || loader == WEBP) {
        while (shrink < 8 && longest / (shrink * 2) >= base_side) shrink *= 2;
    }
    VipsImage *image = load_bytes(bytes, length, loader, shrink, VIPS_FAIL_ON_NONE);
    if (!image) return NULL;
    VipsImage *steps[4] = {NULL};
    double white[] = {255.0};
    int failed = vips_thumbnail_image(image, &steps[0], base_side, "height", base_side, "size", VIPS_SIZE_DOWN,
                                      "no_rotate", TRUE, NULL);
    g_object_unref(image);
    VipsImage *flat = steps[0];
    if (!failed && vips_image_hasalpha(flat)) {
        // The operation takes its own reference to the colour: this one is ours to drop (it leaked 80 bytes a picture).
        VipsArrayDouble *background = vips_array_double_new(white, 1);
        failed = vips_flatten(flat, &steps[1], "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
        flat = steps[1];
    }
    if (!failed) failed = vips_colourspace(flat, &steps[2], VIPS_INTERPRETATION_sRGB, NULL);
    if (!failed) failed = vips_cast_uchar(steps[2], &steps[3], NULL);
    VipsImage *base = failed ? NULL : vips_image_copy_memory(steps[3]);
    for (int i = 0; i < 4; i++) {
        if (steps[i]) g_object_unref(steps[i]);
    }
    if (base && drawn_rows >= 0 && height > 0) {
        int rows = vips_image_get_height(base);
        int cut = (int)((double)drawn_rows / height * rows + 0.5);
        if (cut < rows) {
            double grey[] = {128.0, 128.0, 128.0};
            vips_draw_rect(base, grey, vips_image_get_bands(base), 0, cut, vips_image_get_width(base), rows - cut, "fill", TRUE,
                           NULL);
        }
    }
    return base;
}

/// `base` turned by `orientation`, through libvips's own reading of the EXIF values.
static VipsImage *upright(VipsImage *base, int orientation) {
    VipsImage *tagged = NULL, *turned = NULL;
    if (vips_copy(base, &tagged, NULL)) return NULL;
    vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
    int failed = vips_autorot(tagged, &turned, NULL);
    g_object_unref(tagged);
    return failed ? NULL : turned;
}

static int write_rendition(VipsImage *source, const Rendition *rendition, int fd) {
    VipsImage *drawn = NULL;
    if (vips_thumbnail_image(source, &drawn, rendition->width, "height", rendition->height, "crop",
                             rendition->crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, "size",
                             rendition->crop ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL)) {
        return -1;
    }
    // Encoded in memory and written by the child itself: a target on the descriptor would dup it, and the
    // sandbox lets the child write to the descriptors the tool made and no other.
    void *encoded = NULL;
    size_t length = 0;
    int failed = vips_jpegsave_buffer(drawn, &encoded, &length, "Q", 80, "strip", TRUE, "optimize_coding", TRUE, NULL) ||
                 sandbox_write_all(fd, encoded, length) != 0;
    g_free(encoded);
    g_object_unref(drawn);
    return failed ? -1 : 0;
}

void render_picture(const unsigned char *bytes, size_t length, const char *mime, long drawn_rows, char *const *names, const int *fds, int count,
                    DoorFacts *facts) {
    Loader loader = loader_for(mime);
    for (int i = 0; i < count; i++) {
        if (!rendition_named(names[i])) {
            door_failed(facts, "no such rendition");
            return;
        }
    }
    if (loader == NONE) {
        door_failed(facts, "not a picture format phones decode");
        return;
    }
    int orientation = 1;
    VipsImage *base = decode_base(bytes, length, loader, drawn_rows, &orientation);
    VipsImage *turned = base ? upright(base, orientation) : NULL;
    int failed = !turned;
    for (int i = 0; i < count && !failed; i++) {
        const Rendition *rendition = rendition_named(names[i]);
        failed = write_rendition(rendition->upright ? turned : base, rendition, fds[i]) != 0;
    }
    if (turned) g_object_unref(turned);
    if (base) g_object_unref(base);
    if (failed) {
        char detail[512];
        first_error(detail, sizeof detail);
        door_failed(facts, detail[0] ? detail : "libvips could not draw it");
        return;
    }
    door_status(facts, DOOR_RENDERED, NULL);
}
