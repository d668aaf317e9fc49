// libFuzzer target for the decode worker's stream reader (stream_read, reply.h): the
// bytes a hostile server sends as a video or a sound, read by FFmpeg's demuxers and
// decoders from memory exactly as the sandboxed child reads them, under the same
// container and decoder whitelists. FFmpeg's libraries are Debian's (not instrumented:
// the fuzzer finds their crashes, and the reader's own memory errors, not their
// coverage). Built by scripts/fuzz with AddressSanitizer.
#include "ffmpeg.h"
#include "reply.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!ffmpeg_loaded()) return 0;
    Reply reply;
    reply_begin(&reply);
    stream_read(data, size, &reply);
    reply_end(&reply);
    return 0;
}
