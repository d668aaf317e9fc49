#include "CBuildShim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/// The sonames of Debian's libzip4 and libplist3 (the package's Depends names them: scripts/package).
#define ZIP_SONAME "libzip.so.4"
#define PLIST_SONAME "libplist-2.0.so.3"

static struct build_functions functions;
static int loaded;
static char reason[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *zip = dlopen(ZIP_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!zip) { snprintf(reason, sizeof reason, "%s", dlerror()); return; }
    void *plist = dlopen(PLIST_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!plist) { snprintf(reason, sizeof reason, "%s", dlerror()); return; }
#define LOOKUP(library, soname, name)                                                                              \
    if (!(functions.name = (__typeof__(name) *)dlsym(library, #name))) {                                           \
        snprintf(reason, sizeof reason, "%s lacks %s", soname, #name);                                             \
        return;                                                                                                    \
    }
#define ZIP_LOOKUP(name) LOOKUP(zip, ZIP_SONAME, name)
#define PLIST_LOOKUP(name) LOOKUP(plist, PLIST_SONAME, name)
    BUILD_ZIP_FUNCTIONS(ZIP_LOOKUP)
    BUILD_PLIST_FUNCTIONS(PLIST_LOOKUP)
    loaded = 1;
}

const struct build_functions *build_functions_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (loaded) return &functions;
    if (size) snprintf(error, size, "%s", reason);
    return NULL;
}
