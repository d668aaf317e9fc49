// Pictures through libvips: what the verdict (picture.c) and the preview's
// renditions (render.c) share.
#ifndef NOTTI_DECODE_PICTURE_H
#define NOTTI_DECODE_PICTURE_H

#include "libvips.h"

typedef enum { NONE, JPEG, PNG, GIF, WEBP, BMP, TIFF, HEIF } Loader;

/// The loader of a sniffed MIME type; NONE for types phones do not decode as pictures.
Loader loader_for(const char *mime);

/// Opens the `length` bytes at `bytes` with the loader of their sniffed type only (never libvips's guess: no
/// SVG, PDF or other loader a phone does not have reads them), `shrink` 1, 2, 4 or 8 for JPEG and WebP, failing
/// at `fail_on`; in a sandboxed child, which opens nothing (`loader_ready` ran in the worker before it). Access
/// is sequential: read once. The image reads the bytes lazily: they stay mapped while it is used.
VipsImage *load_bytes(const unsigned char *bytes, size_t length, Loader loader, int shrink, VipsFailOn fail_on);

/// Opens what `loader` needs beyond libvips (HEIF's and ImageMagick's modules, ImageMagick's configuration):
/// in the worker, before a child's filter. 1 when it is ready.
int loader_ready(Loader loader);

/// Whether a decode of `mime` needs libvips from the start (formats without a library of their own
/// here: HEIF, AVIF, TIFF, BMP); JPEG, PNG, GIF and WebP load it only for a file their libraries refuse.
int picture_needs_libvips(const char *mime);

/// libvips's first error line, for an answer's detail ("" when it has none).
const char *first_error(char *buffer, size_t size);

#endif
