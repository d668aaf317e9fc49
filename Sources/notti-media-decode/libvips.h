// libvips (and the GLib calls the worker makes), opened when the worker first
// reads a picture, not linked: with its hundred-odd libraries linked in, a worker
// that reads only video and audio would load them all at its start, and its
// start-up and resident memory would be the picture worker's plus FFmpeg's. Its
// functions are called through `vp`, under their own names (the macros below),
// as FFmpeg's are through `ff` (ffmpeg.h).
#ifndef NOTTI_DECODE_LIBVIPS_H
#define NOTTI_DECODE_LIBVIPS_H

#include <gmodule.h>
#include <vips/vips.h>
#include <vips/vector.h>

#define LIBVIPS_FUNCTIONS(X) \
    X(vips_init) X(vips_version) X(vips_shutdown) X(vips_concurrency_set) X(vips_cache_set_max) \
    X(vips_cache_set_max_mem) X(vips_error) X(vips_error_buffer) X(vips_error_clear) X(vips_image_get_width) \
    X(vips_image_get_height) X(vips_image_get_bands) X(vips_image_get_format) X(vips_image_get_n_pages) \
    X(vips_image_get_page_height) X(vips_image_get_typeof) X(vips_image_get_int) X(vips_image_get_string) \
    X(vips_image_set_int) X(vips_image_hasalpha) X(vips_image_copy_memory) X(vips_format_sizeof) \
    X(vips_magickload_buffer) X(vips_jpegload_buffer) X(vips_pngload_buffer) X(vips_gifload_buffer) \
    X(vips_webpload_buffer) X(vips_tiffload_buffer) X(vips_heifload_buffer) X(vips_region_new) X(vips_region_prepare) \
    X(vips_vector_set_enabled) X(vips_thumbnail_buffer) X(vips_thumbnail_image) X(vips_autorot) X(vips_resize) \
    X(vips_shrinkh) X(vips_extract_band) X(vips_copy) X(vips_colourspace) X(vips_cast_uchar) X(vips_flatten) \
    X(vips_draw_rect) X(vips_min) X(vips_array_double_new) X(vips_area_unref) X(vips_jpegsave_buffer) \
    X(vips_pngsave_buffer) X(vips_gifsave_buffer) X(g_object_ref) X(g_object_unref) X(g_free) X(g_log_set_handler) \
    X(g_log_set_default_handler) X(g_module_open)

#define LIBVIPS_MEMBER(name) __typeof__(name) *name;
extern struct LibVips { LIBVIPS_FUNCTIONS(LIBVIPS_MEMBER) } vp;

/// Opens libvips, once, and starts it as the worker runs it (one thread, no cache, warnings
/// counted in `warnings`, modules opened on demand); 1 when it is ready. `why` says what failed.
int libvips_loaded(const char **why);

/// 1 once `libvips_loaded` has started libvips (it never loads it).
int libvips_ready(void);

/// Shuts libvips down, if `libvips_loaded` started it.
void libvips_shutdown(void);

/// The warnings libvips's decoders logged since the worker started (libjpeg's "Corrupt JPEG data", say).
extern int warnings;

/// Opens libvips's module `name` (`vips-heif`, `vips-magick`) from its module folder; 1 when it is open.
int load_module(const char *name);

// libvips.c, which fills `vp`, needs the real names.
#ifndef LIBVIPS_NO_RENAMES
#define vips_init vp.vips_init
#define vips_version vp.vips_version
#define vips_shutdown vp.vips_shutdown
#define vips_concurrency_set vp.vips_concurrency_set
#define vips_cache_set_max vp.vips_cache_set_max
#define vips_cache_set_max_mem vp.vips_cache_set_max_mem
#define vips_error vp.vips_error
#define vips_error_buffer vp.vips_error_buffer
#define vips_error_clear vp.vips_error_clear
#define vips_image_get_width vp.vips_image_get_width
#define vips_image_get_height vp.vips_image_get_height
#define vips_image_get_bands vp.vips_image_get_bands
#define vips_image_get_format vp.vips_image_get_format
#define vips_image_get_n_pages vp.vips_image_get_n_pages
#define vips_image_get_page_height vp.vips_image_get_page_height
#define vips_image_get_typeof vp.vips_image_get_typeof
#define vips_image_get_int vp.vips_image_get_int
#define vips_image_get_string vp.vips_image_get_string
#define vips_image_set_int vp.vips_image_set_int
#define vips_image_hasalpha vp.vips_image_hasalpha
#define vips_image_copy_memory vp.vips_image_copy_memory
#define vips_format_sizeof vp.vips_format_sizeof
#define vips_magickload_buffer vp.vips_magickload_buffer
#define vips_jpegload_buffer vp.vips_jpegload_buffer
#define vips_pngload_buffer vp.vips_pngload_buffer
#define vips_gifload_buffer vp.vips_gifload_buffer
#define vips_webpload_buffer vp.vips_webpload_buffer
#define vips_tiffload_buffer vp.vips_tiffload_buffer
#define vips_heifload_buffer vp.vips_heifload_buffer
#define vips_region_new vp.vips_region_new
#define vips_region_prepare vp.vips_region_prepare
#define vips_vector_set_enabled vp.vips_vector_set_enabled
#define vips_thumbnail_buffer vp.vips_thumbnail_buffer
#define vips_thumbnail_image vp.vips_thumbnail_image
#define vips_autorot vp.vips_autorot
#define vips_resize vp.vips_resize
#define vips_shrinkh vp.vips_shrinkh
#define vips_extract_band vp.vips_extract_band
#define vips_copy vp.vips_copy
#define vips_colourspace vp.vips_colourspace
#define vips_cast_uchar vp.vips_cast_uchar
#define vips_flatten vp.vips_flatten
#define vips_draw_rect vp.vips_draw_rect
#define vips_min vp.vips_min
#define vips_array_double_new vp.vips_array_double_new
#define vips_area_unref vp.vips_area_unref
#define vips_jpegsave_buffer vp.vips_jpegsave_buffer
#define vips_pngsave_buffer vp.vips_pngsave_buffer
#define vips_gifsave_buffer vp.vips_gifsave_buffer
// GLib defines g_object_ref as a macro that keeps the argument's type: the plain call here.
#undef g_object_ref
#define g_object_ref vp.g_object_ref
#define g_object_unref vp.g_object_unref
#define g_free vp.g_free
#define g_log_set_handler vp.g_log_set_handler
#define g_log_set_default_handler vp.g_log_set_default_handler
#define g_module_open vp.g_module_open
#endif

#endif
