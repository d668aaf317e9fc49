// One JSON object, built into a fixed buffer: the worker's answer to one request (door.h).
#ifndef NOTTI_DECODE_REPLY_H
#define NOTTI_DECODE_REPLY_H

#include "door.h"

#include <stddef.h>

typedef struct Reply {
    char text[8192];
    size_t length;
    int members;
    /// Set when the member being written did not fit: it is dropped whole.
    int overflowed;
} Reply;

void reply_begin(Reply *reply);
void reply_string(Reply *reply, const char *key, const char *value);
void reply_int(Reply *reply, const char *key, long long value);
void reply_double(Reply *reply, const char *key, double value);
void reply_bool(Reply *reply, const char *key, int value);
void reply_null(Reply *reply, const char *key);
void reply_end(Reply *reply);

/// The whole answer to one request, from facts the door checked (door_facts_check): `status`, `kind`, the
/// fields present, `detail` when it says anything. The one place the tool's answer is written.
void reply_facts(Reply *reply, const DoorFacts *facts);

/// The worker's decoders (picture.c, stream.c): the facts of SPEC 17's `media.decoded`, with a status and why.
void decode_picture(int descriptor, const char *mime, DoorFacts *facts);
void decode_stream(int descriptor, const char *mime, DoorFacts *facts);

/// The sandboxed child's step of `decode_stream`, in the calling process and without a filter: the facts of the
/// `length` bytes of a stream, read by FFmpeg from memory (its libraries loaded first: `ffmpeg_loaded`).
/// Fuzz/StreamFuzzer.c calls it on hostile bytes.
void stream_read(const unsigned char *bytes, size_t length, DoorFacts *facts);

#endif
