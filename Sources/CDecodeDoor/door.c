// The door's tables, setters and check (door.h).
#include "door.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/// Tells a child's answer from bytes that merely have its size ("DOOR").
enum { DOOR_MAGIC = 0x524F4F44u };

static const struct {
    const char *key;
    DoorFieldType type;
    long long least, most;
} fields[DOOR_FIELD_COUNT] = {
    [DOOR_FORMAT] = {"format", DOOR_TEXT, 0, 0},
    [DOOR_CONTAINER] = {"container", DOOR_TEXT, 0, 0},
    [DOOR_VIDEO_CODEC] = {"videoCodec", DOOR_TEXT, 0, 0},
    [DOOR_VIDEO_TAG] = {"videoTag", DOOR_TEXT, 0, 0},
    [DOOR_AUDIO_CODEC] = {"audioCodec", DOOR_TEXT, 0, 0},
    [DOOR_TYPE] = {"type", DOOR_TEXT, 0, 0},
    [DOOR_CHANGE] = {"change", DOOR_TEXT, 0, 0},
    // A picture's side fits libvips's and the formats' own bounds (WebP and JPEG: 65,535; PNG: 2^31 - 1).
    [DOOR_WIDTH] = {"width", DOOR_NUMBER, 0, 2147483647LL},
    [DOOR_HEIGHT] = {"height", DOOR_NUMBER, 0, 2147483647LL},
    [DOOR_FRAMES] = {"frames", DOOR_NUMBER, 0, 2147483647LL},
    [DOOR_ORIENTATION] = {"orientation", DOOR_NUMBER, 1, 8},
    [DOOR_DECODED_BYTES] = {"decodedBytes", DOOR_NUMBER, 0, INT64_MAX},
    [DOOR_DRAWN_ROWS] = {"drawnRows", DOOR_NUMBER, 0, 2147483647LL},
    [DOOR_DRAWN_PERCENT] = {"drawnPercent", DOOR_NUMBER, 0, 100},
    [DOOR_BYTES] = {"bytes", DOOR_NUMBER, 0, 1LL << 40},
    [DOOR_QUALITY] = {"quality", DOOR_NUMBER, 1, 100},
    [DOOR_FRAMES_LOST] = {"framesLost", DOOR_NUMBER, 0, 2147483647LL},
    [DOOR_SOURCE_WIDTH] = {"sourceWidth", DOOR_NUMBER, 0, 2147483647LL},
    [DOOR_SOURCE_HEIGHT] = {"sourceHeight", DOOR_NUMBER, 0, 2147483647LL},
    [DOOR_DURATION_SECONDS] = {"durationSeconds", DOOR_SECONDS, 0, 0},
    [DOOR_COMPLETE] = {"complete", DOOR_FLAG, 0, 1},
};

static const char *const statuses[DOOR_STATUS_COUNT] = {
    [DOOR_NO_ANSWER] = "no_answer",
    [DOOR_DECODED] = "decoded",
    [DOOR_UNDECODABLE] = "undecodable",
    [DOOR_UNSUPPORTED_TYPE] = "unsupported_type",
    [DOOR_DECODER_MISSING] = "decoder_missing",
    [DOOR_DECODER_FAILED] = "decoder_failed",
    [DOOR_SANDBOX_UNAVAILABLE] = "sandbox_unavailable",
    [DOOR_RENDERED] = "rendered",
    [DOOR_FIXED] = "fixed",
    [DOOR_FAILED] = "failed",
};

static const char *const kinds[DOOR_KIND_COUNT] = {[DOOR_KIND_NONE] = "none", [DOOR_PICTURE] = "picture", [DOOR_VIDEO] = "video",
                                                   [DOOR_AUDIO] = "audio"};

/// A duration no file of 10 MiB (or any the tool downloads) reaches: a year.
static const double most_seconds = 366.0 * 24 * 3600;

const char *door_field_key(DoorField field) { return (unsigned)field < DOOR_FIELD_COUNT ? fields[field].key : ""; }
DoorFieldType door_field_type(DoorField field) { return (unsigned)field < DOOR_FIELD_COUNT ? fields[field].type : DOOR_TEXT; }
const char *door_status_name(DoorStatus status) { return (unsigned)status < DOOR_STATUS_COUNT ? statuses[status] : ""; }
const char *door_kind_name(DoorKind kind) { return (unsigned)kind < DOOR_KIND_COUNT ? kinds[kind] : ""; }

/// The length of the UTF-8 character at `at` (of `left` bytes), or 0 when none starts there.
static size_t character(const unsigned char *at, size_t left) {
    unsigned char first = at[0];
    size_t length = first < 0x80 ? 1 : (first & 0xE0) == 0xC0 ? 2 : (first & 0xF0) == 0xE0 ? 3 : (first & 0xF8) == 0xF0 ? 4 : 0;
    if (length == 0 || length > left || (length == 2 && first < 0xC2) || (length == 4 && first > 0xF4)) return 0;
    for (size_t i = 1; i < length; i++) {
        if ((at[i] & 0xC0) != 0x80) return 0;
    }
    return length;
}

/// `value` into `into` (of `size` bytes): whole characters only, a byte that starts none as '?', terminated.
static void copy_text(char *into, size_t size, const char *value) {
    const unsigned char *at = (const unsigned char *)value;
    size_t left = strlen(value), kept = 0;
    while (left > 0) {
        size_t length = character(at, left);
        size_t room = length ? length : 1;
        if (kept + room > size - 1) break;
        if (length) {
            memcpy(into + kept, at, length);
        } else {
            into[kept] = '?';
        }
        kept += room;
        at += room;
        left -= room;
    }
    into[kept] = 0;
}

/// Whether `text` (of `size` bytes) is terminated within them and UTF-8 before its end.
static int well_formed(const char *text, size_t size) {
    const char *end = memchr(text, 0, size);
    if (!end) return 0;
    const unsigned char *at = (const unsigned char *)text;
    size_t left = (size_t)(end - text);
    while (left > 0) {
        size_t length = character(at, left);
        if (!length) return 0;
        at += length;
        left -= length;
    }
    return 1;
}

void door_begin(DoorFacts *facts) {
    // Every byte defined: the record crosses a pipe whole.
    memset(facts, 0, sizeof *facts);
    facts->magic = DOOR_MAGIC;
}

void door_status(DoorFacts *facts, DoorStatus status, const char *detail) {
    facts->status = status;
    if (detail) door_detail(facts, detail);
}

void door_detail(DoorFacts *facts, const char *detail) { copy_text(facts->detail, sizeof facts->detail, detail ? detail : ""); }

void door_kind(DoorFacts *facts, DoorKind kind) { facts->kind = kind; }

void door_text(DoorFacts *facts, DoorField field, const char *value) {
    if ((unsigned)field >= DOOR_FIELD_COUNT || fields[field].type != DOOR_TEXT) return;
    if (!value) return door_clear(facts, field);
    copy_text(facts->text[field], DOOR_TEXT_BYTES, value);
    facts->present |= 1u << field;
}

void door_number(DoorFacts *facts, DoorField field, long long value) {
    if ((unsigned)field >= DOOR_FIELD_COUNT || fields[field].type != DOOR_NUMBER) return;
    facts->number[field] = value;
    facts->present |= 1u << field;
}

void door_seconds(DoorFacts *facts, double seconds) {
    facts->seconds = isfinite(seconds) && seconds > 0 ? (seconds < most_seconds ? seconds : most_seconds) : 0;
    facts->present |= 1u << DOOR_DURATION_SECONDS;
}

void door_flag(DoorFacts *facts, DoorField field, int value) {
    if ((unsigned)field >= DOOR_FIELD_COUNT || fields[field].type != DOOR_FLAG) return;
    facts->number[field] = value ? 1 : 0;
    facts->present |= 1u << field;
}

void door_clear(DoorFacts *facts, DoorField field) {
    if ((unsigned)field >= DOOR_FIELD_COUNT) return;
    facts->present &= ~(1u << field);
    facts->number[field] = 0;
    memset(facts->text[field], 0, DOOR_TEXT_BYTES);
}

long long door_decoded_bytes(long long width, long long height) {
    if (width <= 0 || height <= 0) return 0;
    return width > INT64_MAX / 4 / height ? INT64_MAX : width * height * 4;
}

void door_failed(DoorFacts *facts, const char *detail) { door_status(facts, DOOR_FAILED, detail); }

int door_facts_check(const DoorFacts *facts, char *why, size_t size) {
    if (facts->magic != DOOR_MAGIC) return snprintf(why, size, "not a facts record"), 0;
    if (facts->status >= DOOR_STATUS_COUNT) return snprintf(why, size, "status %u is out of range", facts->status), 0;
    if (facts->kind >= DOOR_KIND_COUNT) return snprintf(why, size, "kind %u is out of range", facts->kind), 0;
    if (facts->present >> DOOR_FIELD_COUNT) return snprintf(why, size, "an unknown field is set"), 0;
    if (!well_formed(facts->detail, sizeof facts->detail)) return snprintf(why, size, "its detail is not terminated UTF-8 text"), 0;
    for (int field = 0; field < DOOR_FIELD_COUNT; field++) {
        if (!(facts->present & (1u << field))) continue;
        switch (fields[field].type) {
        case DOOR_TEXT:
            if (!well_formed(facts->text[field], DOOR_TEXT_BYTES)) {
                return snprintf(why, size, "its %s is not terminated UTF-8 text", fields[field].key), 0;
            }
            break;
        case DOOR_NUMBER:
        case DOOR_FLAG:
            if (facts->number[field] < fields[field].least || facts->number[field] > fields[field].most) {
                return snprintf(why, size, "its %s (%lld) is out of range", fields[field].key, (long long)facts->number[field]), 0;
            }
            break;
        case DOOR_SECONDS:
            if (!isfinite(facts->seconds) || facts->seconds < 0 || facts->seconds > most_seconds) {
                return snprintf(why, size, "its %s is out of range", fields[field].key), 0;
            }
            break;
        }
    }
    return 1;
}

/// Sniffed MIME type -> the loader that reads it. A new picture format phones decode is one row here (and its
/// loader in the worker's picture.c).
static const struct {
    const char *mime, *format;
} picture_types[] = {
    {"image/jpeg", "jpeg"}, {"image/png", "png"}, {"image/gif", "gif"}, {"image/webp", "webp"}, {"image/bmp", "bmp"},
    {"image/x-ms-bmp", "bmp"}, {"image/tiff", "tiff"}, {"image/heic", "heif"}, {"image/heif", "heif"},
    {"image/avif", "heif"}, {"image/heic-sequence", "heif"}, {"image/heif-sequence", "heif"},
};

enum { PICTURE_TYPES = sizeof picture_types / sizeof *picture_types };

const char *door_picture_format(const char *mime) {
    for (int i = 0; mime && i < PICTURE_TYPES; i++) {
        if (!strcmp(picture_types[i].mime, mime)) return picture_types[i].format;
    }
    return NULL;
}

const char *door_picture_mime(int index) { return index >= 0 && index < PICTURE_TYPES ? picture_types[index].mime : NULL; }

static const DoorRendition renditions[] = {
    // The collapsed banner's thumbnail: a square, centre-cropped, at 2 px per point of its 38-point frame and more.
    {"ios-thumbnail", 120, 120, 1, 1},
    // The expanded (long-press) view: the whole picture at the banner's width, upright.
    {"ios-expanded", 720, 720, 0, 1},
    // BigPictureStyle: the ImageView is centerCrop in at most 416 × 284 dp (AOSP dimens.xml
    // notification_big_picture_max_width/_max_height), here at 2 px per dp.
    {"android", 832, 568, 1, 1},
    // The same, from BitmapFactory, which ignores the orientation: as stored.
    {"android-as-stored", 832, 568, 1, 0},
};

enum { RENDITIONS = sizeof renditions / sizeof *renditions };

const DoorRendition *door_rendition(const char *name) {
    for (int i = 0; name && i < RENDITIONS; i++) {
        if (!strcmp(renditions[i].name, name)) return &renditions[i];
    }
    return NULL;
}

const DoorRendition *door_rendition_at(int index) { return index >= 0 && index < RENDITIONS ? &renditions[index] : NULL; }
