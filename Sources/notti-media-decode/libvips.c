// Fills libvips.h's table, opens libvips on the first picture and starts it.
#define _GNU_SOURCE
#define LIBVIPS_NO_RENAMES
#include "libvips.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct LibVips vp;

int warnings = 0;

/// libvips's module folder (`<libdir>/vips-modules-X.Y`), found from where libvips itself was loaded.
static char module_folder[4096];

static void locate_modules(void) {
    Dl_info library;
    if (!dladdr((void *)vp.vips_init, &library) || !library.dli_fname) return;
    const char *slash = strrchr(library.dli_fname, '/');
    if (!slash) return;
    snprintf(module_folder, sizeof module_folder, "%.*s/vips-modules-%d.%d", (int)(slash - library.dli_fname),
             library.dli_fname, VIPS_MAJOR_VERSION, VIPS_MINOR_VERSION);
}

int load_module(const char *name) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.so", module_folder, name);
    // GModule runs the module's g_module_check_init, which registers its loaders; it stays open.
    return module_folder[0] && vp.g_module_open(path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL) != NULL;
}

/// libvips reports a decoder's warnings through GLib's log: counted, so a file that gave none is not
/// decoded a second time to judge them; never printed.
static void count_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain, (void)message, (void)data;
    if (level & G_LOG_LEVEL_WARNING) warnings++;
}

static void drop_message(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain, (void)level, (void)message, (void)data;
}

// The soname as a literal: scripts/package finds the package that holds it in the worker's strings.
#define SONAME "libvips.so.42"
_Static_assert(VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE == 42, "the headers are of another libvips: change SONAME");

static int state = 0;  // 0: not tried, 1: ready, -1: unavailable

int libvips_ready(void) { return state > 0; }

void libvips_shutdown(void) {
    if (state > 0) vp.vips_shutdown();
}

int libvips_loaded(const char **why) {
    static const char *failure = "libvips is not installed";
    *why = failure;
    if (state) return state > 0;
    state = -1;
    // libvips's own dependencies (GLib, GObject, GModule) are searched through its handle. RTLD_LAZY, as
    // a linked program binds: 3 ms less than RTLD_NOW of the worker's start (about 25 ms).
    void *library = dlopen(SONAME, RTLD_LAZY | RTLD_LOCAL);
    if (!library) return 0;
#define LOOKUP(name) if (!(vp.name = (__typeof__(name) *)dlsym(library, #name))) return 0;
    LIBVIPS_FUNCTIONS(LOOKUP)
    // libvips loads every module it finds at start (PDF, OpenSlide, JPEG XL: loaders no phone has, and
    // 7 MB of libraries): none here; HEIF's and ImageMagick's are opened when a file needs them.
    locate_modules();
    setenv("VIPSHOME", "/nonexistent/notti-media-decode", 1);
    // VIPS_INIT's check that the headers match the library, through the table.
    if (vp.vips_version(3) - vp.vips_version(5) != VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE) {
        *why = failure = "the installed libvips is not the version the worker was built with";
        return 0;
    }
    if (vp.vips_init("notti-media-decode")) {
        *why = failure = "libvips did not start";
        return 0;
    }
    // One thread: libvips's pool gives different verdicts from run to run on some damaged files.
    vp.vips_concurrency_set(1);
    // No operation cache: every file is new, and cached images would hold memory.
    vp.vips_cache_set_max(0);
    vp.vips_cache_set_max_mem(0);
    vp.g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, count_warning, NULL);
    // Every other library's messages (GLib's, a loader's) dropped: GLib's own printer looks at standard error
    // (a terminal? the journal?) with calls a sandboxed child may not make.
    vp.g_log_set_default_handler(drop_message, NULL);
    state = 1;
    return 1;
}
