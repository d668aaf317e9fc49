// The phones' own format libraries (SPEC 17): libjpeg-turbo (TurboJPEG), libpng,
// giflib and libwebp, linked into the worker, libheif (HEIC, with libde265), opened on
// the first HEIC file, and libavif (AVIF, with dav1d), on the first AVIF file. They load in well under a millisecond,
// where libvips brings a hundred libraries (ImageMagick, poppler, librsvg …) and
// 30–50 ms of relocation: a file that decodes whole and clean through them is judged
// without libvips ever loading. Anything else (an error, a warning, a cut file) is
// judged by the full path in picture.c, so a broken file's facts (the rows a cut
// draws, a CRC's words) stay what they were; the library's words are kept for it.
#ifndef NOTTI_DECODE_FORMATS_H
#define NOTTI_DECODE_FORMATS_H

#include "door.h"

#include <stddef.h>

typedef struct PictureFacts {
    int width, height, frames, orientation;
    /// More pixels than the decode reads: judged from the header alone.
    int header_only;
    /// The format the bytes are, where the reader tells one apart from its loader's name ("avif" for
    /// a HEIF file of AV1 pictures); empty otherwise.
    char format[8];
} PictureFacts;

/// Whether `format` ("jpeg", "png", "gif", "webp", "heif", "avif") is read by its own library here. libheif
/// is opened by the first call that asks for "heif" (it brings the x265 and AOM encoders, which a worker
/// that never meets a HEIF file should not load), libavif by the first for "avif"; before the decoding
/// child's filter is on.
int format_has_library(const char *format);

/// Reads the picture in `descriptor` with `library` ("jpeg" … "avif"), in a sandboxed child (sandbox.h). Returns 1
/// when `facts` is the answer: the picture decoded whole with no warning (only its header read past
/// `most_pixels` pixels; `format` named where the reader tells none apart), or the child failed (the machine's
/// fault: DOOR_DECODER_FAILED, DOOR_SANDBOX_UNAVAILABLE). 0 when the library refused it or is not here: the
/// file is left to libvips, with the library's words, if any, in `facts->detail`. `decode_side`: the shortest
/// long side a scaled decode (JPEG's DCT scaling, WebP's) keeps.
int format_decode(const char *library, const char *format, int descriptor, int decode_side, double most_pixels, DoorFacts *facts);

/// The sandboxed child's step, in the calling process and without a filter: `bytes` read by `format`'s library,
/// as `format_decode` answers (0 for a format without one). Fuzz/DecoderFuzzer.c calls it on hostile bytes.
int format_read(const char *format, const unsigned char *bytes, size_t length, int decode_side, double most_pixels,
                PictureFacts *facts, char *words, size_t size);

#endif
