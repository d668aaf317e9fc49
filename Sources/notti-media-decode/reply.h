// One JSON object, built into a fixed buffer: the worker's answer to one request.
#ifndef NOTTI_DECODE_REPLY_H
#define NOTTI_DECODE_REPLY_H

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

/// "status" "failed" with its "detail": a render's, a fix's or a poster's refusal.
void reply_failed(Reply *reply, const char *detail);

// What the two decoders answer: the facts of SPEC 17's `media.decoded`, plus
// "status" ("decoded", "undecodable", "not_decoded") and "detail" (why, in words).
void decode_picture(int descriptor, const char *mime, Reply *reply);
void decode_stream(int descriptor, const char *mime, Reply *reply);

/// The sandboxed child's step of `decode_stream`, in the calling process and without a filter: the facts of the
/// `length` bytes of a stream, read by FFmpeg from memory (its libraries loaded first: `ffmpeg_loaded`).
/// Fuzz/StreamFuzzer.c calls it on hostile bytes.
void stream_read(const unsigned char *bytes, size_t length, Reply *reply);

#endif
