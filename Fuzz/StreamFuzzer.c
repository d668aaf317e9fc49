// libFuzzer target for the decode worker's stream readers: the bytes a hostile server
// sends as a video or a sound, read first by the worker's own MP4 and MP3 readers
// (lean_stream_read, with OpenH264), then by FFmpeg's demuxers and decoders (stream_read,
// reply.h), from memory exactly as the sandboxed children read them, under the same
// container and decoder whitelists. FFmpeg's libraries are Debian's (not instrumented:
// the fuzzer finds their crashes, and the reader's own memory errors, not their
// coverage). Built by scripts/fuzz with AddressSanitizer.
#include "ffmpeg.h"
#include "lean_stream.h"
#include "openh264.h"
#include "reply.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!ffmpeg_loaded()) return 0;
    openh264_loaded();
    Reply reply;
    reply_begin(&reply);
    lean_stream_read(data, size, &reply);
    reply_end(&reply);
    reply_begin(&reply);
    stream_read(data, size, &reply);
    reply_end(&reply);
    return 0;
}
