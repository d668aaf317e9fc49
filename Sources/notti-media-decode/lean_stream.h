// The worker's own readers of the two stream formats a campaign sends most: MP4 (and
// QuickTime, 3GPP, M4A) of H.264 and AAC, and MP3. They read what the verdict needs
// (SPEC 17: brand, sample-entry tag, codecs, size, duration, whether every sample is in the
// file, whether the first picture decodes: OpenH264, openh264.h) without FFmpeg, whose
// libraries take 24 ms to load and 27 MB to hold (a campaign of MP4 and MP3 links: 0.77 of
// jq with them, 0.61 without). They answer only for a file whose facts they know to be
// FFmpeg's: a clean one. Anything else (a cut file, a fragmented one, an odd edit, another
// codec or profile, a picture OpenH264 does not decode, a table out of place) they leave to
// FFmpeg (stream.c), so that a broken file's facts and words stay FFmpeg's.
#ifndef NOTTI_DECODE_LEAN_STREAM_H
#define NOTTI_DECODE_LEAN_STREAM_H

#include "door.h"

#include <stddef.h>

/// The facts of `length` bytes of an MP4 family file of H.264 video and AAC or MP3 audio, as stream.c's FFmpeg
/// reading gives them: 1 when answered in `facts`, 0 when the file is left to FFmpeg (`facts` untouched).
int mp4_read(const unsigned char *bytes, size_t length, DoorFacts *facts);

/// The same for an MP3 file: a clean chain of MPEG audio frames after an ID3v2 tag, with LAME's Info tag.
int mp3_read(const unsigned char *bytes, size_t length, DoorFacts *facts);

/// Either reader, by the bytes' signature: 1 answered, 0 left to FFmpeg.
int lean_stream_read(const unsigned char *bytes, size_t length, DoorFacts *facts);

#endif
