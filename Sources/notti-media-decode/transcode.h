// `fix` for video and audio (transcode.c).
#ifndef NOTTI_DECODE_TRANSCODE_H
#define NOTTI_DECODE_TRANSCODE_H

#include "door.h"

/// Writes to `fd` the video or sound in the `length` bytes at `bytes` as one iOS plays: HEVC stored as `hev1` re-muxed as
/// `hvc1`; a sound as MP3 within `target_bytes`. Answers "status" "fixed" with "type" (mp4, mp3) and
/// "change" (in words), or "failed" with a "detail".
void fix_stream(const unsigned char *bytes, size_t length, long long target_bytes, int fd, DoorFacts *facts);

#endif
