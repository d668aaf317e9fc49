// The preview's renditions of a picture (render.c).
#ifndef NOTTI_DECODE_RENDER_H
#define NOTTI_DECODE_RENDER_H

#include "door.h"

/// Draws the picture in the `length` bytes at `bytes` (sniffed as `mime`) as each of the `count` renditions
/// `names` (ios-thumbnail, ios-expanded, android, android-as-stored), the i-th written
/// as a JPEG to `fds[i]`. `drawn_rows`: the rows a cut file draws (-1: all); the rest is
/// grey. Answers "status" "rendered", or "failed" with a "detail".
void render_picture(const unsigned char *bytes, size_t length, const char *mime, long drawn_rows, char *const *names, const int *fds, int count,
                    DoorFacts *facts);

#endif
