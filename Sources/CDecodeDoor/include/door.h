// The decoder's door (SPEC 17): the one declaration of what the tool, the decode
// worker (notti-media-decode) and the worker's sandboxed children say to each other.
// Both sides read this header: the worker's C and the tool's Swift (`import CDecodeDoor`).
//
// The protocol, version DOOR_VERSION, on the worker's descriptor 3 (a SOCK_SEQPACKET socket):
//   1. The worker's first message, before any request: `{"door":N}`. A tool that reads another N
//      (a stale installed worker) stops the run with exit 2, naming both.
//   2. Each request is one message, the verb's lines (below) with the file's descriptor and the
//      outputs' after it (SCM_RIGHTS); each answer one message, a JSON object whose members are
//      `status` (door_status_name), `detail` and the fields of the table below, keyed by door_field_key.
// Inside the worker, a child that read hostile bytes answers a DoorFacts record, a fixed layout with
// bounded texts, never the worker's own answer; the worker checks every field of it (door_facts_check)
// before it uses any, and writes the tool's answer once.
//
// Verbs (the request's first line; a decode has none):
//   MIME                                      decode the file as the phone reads MIME
//   render\nMIME\nROWS|-\nNAME NAME …          the preview's renditions (render.c's table), one output each
//   fix\nMIME\nSIDE\nBYTES\nCAP                `fix`'s picture, video or sound, one output
//   poster                                    a video's first frame as JPEG, one output
#ifndef NOTTI_DECODE_DOOR_H
#define NOTTI_DECODE_DOOR_H

#include <stddef.h>
#include <stdint.h>

/// The protocol's version: the worker says it first; the tool refuses any other.
#define DOOR_VERSION 2

/// An answer's members beside the fields: its status, the kind of media, and why in words.
#define DOOR_STATUS_KEY "status"
#define DOOR_KIND_KEY "kind"
#define DOOR_DETAIL_KEY "detail"
/// The greeting's member: the version.
#define DOOR_VERSION_KEY "door"

/// What an answer says of its request. Decodes: DECODED, UNDECODABLE (the media's fault), UNSUPPORTED_TYPE
/// (no phone decodes the type as media: no verdict), DECODER_MISSING (the library for it is not installed),
/// DECODER_FAILED (the machine's fault: a child that could not start, ended without an answer, or answered
/// what this door does not allow), SANDBOX_UNAVAILABLE (the filter cannot be installed on this machine: the
/// run stops). Renders and fixes: RENDERED, FIXED, FAILED. NO_ANSWER: a stream reader's child leaving the
/// file to FFmpeg; never sent to the tool.
typedef enum DoorStatus {
    DOOR_NO_ANSWER = 0,
    DOOR_DECODED,
    DOOR_UNDECODABLE,
    DOOR_UNSUPPORTED_TYPE,
    DOOR_DECODER_MISSING,
    DOOR_DECODER_FAILED,
    DOOR_SANDBOX_UNAVAILABLE,
    DOOR_RENDERED,
    DOOR_FIXED,
    DOOR_FAILED,
    DOOR_STATUS_COUNT
} DoorStatus;

typedef enum DoorKind { DOOR_KIND_NONE = 0, DOOR_PICTURE, DOOR_VIDEO, DOOR_AUDIO, DOOR_KIND_COUNT } DoorKind;

/// The facts an answer may carry (SPEC 17's `media.decoded`, a cut file's extent, `fix`'s result).
typedef enum DoorField {
    DOOR_FORMAT = 0,
    DOOR_CONTAINER,
    DOOR_VIDEO_CODEC,
    DOOR_VIDEO_TAG,
    DOOR_AUDIO_CODEC,
    DOOR_TYPE,
    DOOR_CHANGE,
    DOOR_WIDTH,
    DOOR_HEIGHT,
    DOOR_FRAMES,
    DOOR_ORIENTATION,
    DOOR_DECODED_BYTES,
    DOOR_DRAWN_ROWS,
    DOOR_DRAWN_PERCENT,
    DOOR_BYTES,
    DOOR_QUALITY,
    DOOR_FRAMES_LOST,
    DOOR_SOURCE_WIDTH,
    DOOR_SOURCE_HEIGHT,
    DOOR_DURATION_SECONDS,
    DOOR_COMPLETE,
    DOOR_FIELD_COUNT
} DoorField;

typedef enum DoorFieldType { DOOR_TEXT, DOOR_NUMBER, DOOR_SECONDS, DOOR_FLAG } DoorFieldType;

/// The most bytes of one text (a terminating NUL included), and of the detail.
enum { DOOR_TEXT_BYTES = 64, DOOR_DETAIL_BYTES = 512 };

/// A child's answer to its worker: every byte defined (door_begin), each field set only by the door_ setters.
typedef struct DoorFacts {
    uint32_t magic;
    uint32_t status;  // DoorStatus
    uint32_t kind;    // DoorKind
    uint32_t present; // one bit per DoorField set; a field not present is null
    int64_t number[DOOR_FIELD_COUNT];
    double seconds;
    char text[DOOR_FIELD_COUNT][DOOR_TEXT_BYTES];
    char detail[DOOR_DETAIL_BYTES];
} DoorFacts;

/// The JSON key of a field ("videoCodec"), its type, and the names of statuses and kinds ("decoded", "picture").
const char *door_field_key(DoorField field);
DoorFieldType door_field_type(DoorField field);
const char *door_status_name(DoorStatus status);
const char *door_kind_name(DoorKind kind);

// The setters, in a child (and in the worker). A text is cut at a character's first byte and any byte
// that is not UTF-8 becomes '?': a file's own text (an MP4's brand) cannot make an answer the door refuses.
void door_begin(DoorFacts *facts);
/// The status, and the detail when `detail` is not NULL.
void door_status(DoorFacts *facts, DoorStatus status, const char *detail);
/// Why, in words (the decoder's own, where it gives any).
void door_detail(DoorFacts *facts, const char *detail);
void door_kind(DoorFacts *facts, DoorKind kind);
void door_text(DoorFacts *facts, DoorField field, const char *value);
void door_number(DoorFacts *facts, DoorField field, long long value);
void door_seconds(DoorFacts *facts, double seconds);
void door_flag(DoorFacts *facts, DoorField field, int value);
/// Makes `field` null again.
void door_clear(DoorFacts *facts, DoorField field);
/// FAILED with `detail`: a render's, a fix's or a poster's refusal.
void door_failed(DoorFacts *facts, const char *detail);

/// width × height × 4, what a phone allocates to decode the picture (SPEC 17's `decodedBytes`), at most INT64_MAX.
long long door_decoded_bytes(long long width, long long height);

/// Whether `facts` is an answer the door allows: the magic, a status and a kind in range, only known fields
/// present, each number within its field's bounds, each text terminated within its bytes and UTF-8. 1 when it
/// is; 0 with why in `why`. The worker calls it on every child's answer before it reads any field.
int door_facts_check(const DoorFacts *facts, char *why, size_t size);

/// The picture types phones decode, each with the loader the worker reads it with ("jpeg", "png", "gif",
/// "webp", "bmp", "tiff", "heif"): the one list of them. `door_picture_format` is NULL for any other type;
/// `door_picture_mime(i)` the i-th type, NULL past the last.
const char *door_picture_format(const char *mime);
const char *door_picture_mime(int index);

/// A rendition the preview asks a render for (SPEC 17, last paragraph): its name in the request, the box it is
/// drawn in (pixels), whether it covers the box and is cut at the centre (else it fits inside), and whether it is
/// turned by the EXIF orientation (else drawn as stored, as BitmapFactory does).
typedef struct DoorRendition {
    const char *name;
    int width, height, crop, upright;
} DoorRendition;

/// The rendition named `name`, NULL for none; `door_rendition_at(i)` the i-th, NULL past the last.
const DoorRendition *door_rendition(const char *name);
const DoorRendition *door_rendition_at(int index);

#endif
