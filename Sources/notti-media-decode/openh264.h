// Cisco's OpenH264 decoder (Debian's libopenh264-7, one library of 1 MB against FFmpeg's
// hundred), opened on the first MP4 the worker's own reader reads (lean_stream.h): it decodes
// that file's first picture, so that a file whose first picture is damaged inside its slices
// is left to FFmpeg, whose verdict ("not one frame of it decodes") it was.
#ifndef NOTTI_DECODE_OPENH264_H
#define NOTTI_DECODE_OPENH264_H

#include <stddef.h>

/// Opens the library (once; before the sandbox's filter: it may not open a library). 0 when it is not installed:
/// every H.264 file is then FFmpeg's.
int openh264_loaded(void);

/// Whether `length` bytes of an Annex B stream (start codes, the parameter sets first) decode to a picture with no
/// error, error concealment off. 0 also when the library is not loaded.
int openh264_decodes(const unsigned char *stream, size_t length);

#endif
