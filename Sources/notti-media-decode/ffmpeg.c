// Fills ffmpeg.h's table from FFmpeg's libraries, opened on first use.
#define _GNU_SOURCE
#define FFMPEG_NO_RENAMES
#include "ffmpeg.h"

#include <dlfcn.h>

#define STRINGIFY(x) #x
#define SONAME(name, major) "lib" name ".so." STRINGIFY(major)

struct FFmpeg ff;

int ffmpeg_loaded(void) {
    static int state = 0;  // 0: not tried, 1: loaded, -1: unavailable
    if (state) return state > 0;
    state = -1;
    // RTLD_LAZY: the libraries' own calls between them are bound on first use, as a linked program's
    // are; every function the worker calls is looked up below, so none is missing later.
    void *avutil = dlopen(SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), RTLD_LAZY | RTLD_LOCAL);
    void *swresample = dlopen(SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR), RTLD_LAZY | RTLD_LOCAL);
    void *avcodec = dlopen(SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), RTLD_LAZY | RTLD_LOCAL);
    void *avformat = dlopen(SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), RTLD_LAZY | RTLD_LOCAL);
    if (!avutil || !swresample || !avcodec || !avformat) return 0;
#define LOOKUP(library, name) if (!(ff.name = (__typeof__(name) *)dlsym(library, #name))) return 0;
    FFMPEG_FUNCTIONS(LOOKUP)
    ff.av_log_set_level(AV_LOG_QUIET);
    state = 1;
    return 1;
}
