// `fix`'s renditions (fix.c).
#ifndef NOTTI_DECODE_FIX_H
#define NOTTI_DECODE_FIX_H

#include "door.h"

/// Writes to `fd` the picture in the `source_length` bytes at `source` (sniffed as `mime`) as one that passes on every phone:
/// baseline JPEG or, with transparency, PNG; sRGB; upright; at most `max_side` pixels on its
/// long side and `target_bytes` long; an animated GIF stays an animated GIF where one fits in `cap`
/// bytes (the strictest record's cap), else becomes its first frame. Answers "status" "fixed" with "type", "width", "height",
/// "bytes", "quality" (JPEG), "frames" (an animation kept), "framesLost" (one that was not), "orientation" (the source's EXIF value), "sourceWidth",
/// "sourceHeight"; or "failed" with a "detail".
void fix_picture(const unsigned char *source, size_t source_length, const char *mime, int max_side, long long target_bytes, long long cap, int fd, DoorFacts *facts);

#endif
