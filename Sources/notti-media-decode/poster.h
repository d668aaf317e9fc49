// `fix`'s still for Android (poster.c).
#ifndef NOTTI_DECODE_POSTER_H
#define NOTTI_DECODE_POSTER_H

#include "door.h"

/// Writes to `fd` the first frame of the video in the `length` bytes at `bytes` as a full-quality baseline JPEG (Android
/// shows no video in a notification: `fix` draws this still under Android's limits, as any picture,
/// for `android.notification.image`). Answers "status" "fixed" with "type" "jpg", "width", "height";
/// or "failed" with a "detail".
void poster_frame(const unsigned char *bytes, size_t length, int fd, DoorFacts *facts);

#endif
