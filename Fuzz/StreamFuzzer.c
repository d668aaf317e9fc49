// libFuzzer target for the decode worker's stream readers: the bytes a hostile server
// sends as a video or a sound, read first by the worker's own MP4 and MP3 readers
// (lean_stream_read, with OpenH264), then by FFmpeg's demuxers and decoders (stream_read,
// reply.h), from memory exactly as the sandboxed children read them, under the same
// container and decoder whitelists, each answering the door's facts record (door.h). An
// honest reader's answer always passes the door's check: one that does not is a finding.
// FFmpeg's libraries are Debian's (not instrumented: the fuzzer finds their crashes, and the
// reader's own memory errors, not their coverage). Built by scripts/fuzz with AddressSanitizer.
#include "door.h"
#include "ffmpeg.h"
#include "lean_stream.h"
#include "openh264.h"
#include "reply.h"

#include <stddef.h>
#include <stdint.h>

static void expect_door(const DoorFacts *facts) {
    char why[256];
    if (!door_facts_check(facts, why, sizeof why)) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!ffmpeg_loaded()) return 0;
    openh264_loaded();
    DoorFacts facts;
    door_begin(&facts);
    lean_stream_read(data, size, &facts);
    expect_door(&facts);
    door_begin(&facts);
    stream_read(data, size, &facts);
    expect_door(&facts);
    return 0;
}
