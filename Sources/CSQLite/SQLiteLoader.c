#include "CSQLite.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The sqlite3_* functions the tool uses, resolved once by load().
static struct {
    int (*open_v2)(const char *, sqlite3 **, int, const char *);
    int (*close)(sqlite3 *);
    const char *(*errmsg)(sqlite3 *);
    int (*busy_timeout)(sqlite3 *, int);
    int (*prepare_v2)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
    int (*finalize)(sqlite3_stmt *);
    int (*bind_text)(sqlite3_stmt *, int, const char *, int, void (*)(void *));
    int (*bind_null)(sqlite3_stmt *, int);
    int (*step)(sqlite3_stmt *);
    int (*column_count)(sqlite3_stmt *);
    const unsigned char *(*column_text)(sqlite3_stmt *, int);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];
static int failed;

static void *bind(void *library, const char *name) {
    void *symbol = dlsym(library, name);
    if (!symbol && !failed) {
        snprintf(failure, sizeof failure, "libsqlite3 has no %s", name);
        failed = 1;
    }
    return symbol;
}

static void load(void) {
    // The soname the Debian package installs (libsqlite3-0), as a link to -lsqlite3 would record.
    void *library = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "cannot load libsqlite3: %s", why ? why : "unknown error");
        failed = 1;
        return;
    }
    api.open_v2 = (int (*)(const char *, sqlite3 **, int, const char *))bind(library, "sqlite3_open_v2");
    api.close = (int (*)(sqlite3 *))bind(library, "sqlite3_close");
    api.errmsg = (const char *(*)(sqlite3 *))bind(library, "sqlite3_errmsg");
    api.busy_timeout = (int (*)(sqlite3 *, int))bind(library, "sqlite3_busy_timeout");
    api.prepare_v2 = (int (*)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **))bind(library, "sqlite3_prepare_v2");
    api.finalize = (int (*)(sqlite3_stmt *))bind(library, "sqlite3_finalize");
    api.bind_text = (int (*)(sqlite3_stmt *, int, const char *, int, void (*)(void *)))bind(library, "sqlite3_bind_text");
    api.bind_null = (int (*)(sqlite3_stmt *, int))bind(library, "sqlite3_bind_null");
    api.step = (int (*)(sqlite3_stmt *))bind(library, "sqlite3_step");
    api.column_count = (int (*)(sqlite3_stmt *))bind(library, "sqlite3_column_count");
    api.column_text = (const unsigned char *(*)(sqlite3_stmt *, int))bind(library, "sqlite3_column_text");
}

const char *csqlite_load(void) {
    pthread_once(&once, load);
    return failed ? failure : NULL;
}

// Each below is called only after csqlite_load() returned NULL.
int csqlite_open_v2(const char *filename, sqlite3 **database, int flags, const char *vfs) {
    return api.open_v2(filename, database, flags, vfs);
}
int csqlite_close(sqlite3 *database) { return api.close(database); }
const char *csqlite_errmsg(sqlite3 *database) { return api.errmsg(database); }
int csqlite_busy_timeout(sqlite3 *database, int milliseconds) { return api.busy_timeout(database, milliseconds); }
int csqlite_prepare_v2(sqlite3 *database, const char *sql, int bytes, sqlite3_stmt **statement, const char **tail) {
    return api.prepare_v2(database, sql, bytes, statement, tail);
}
int csqlite_finalize(sqlite3_stmt *statement) { return api.finalize(statement); }
int csqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int bytes, void (*destructor)(void *)) {
    return api.bind_text(statement, index, text, bytes, destructor);
}
int csqlite_bind_null(sqlite3_stmt *statement, int index) { return api.bind_null(statement, index); }
int csqlite_step(sqlite3_stmt *statement) { return api.step(statement); }
int csqlite_column_count(sqlite3_stmt *statement) { return api.column_count(statement); }
const unsigned char *csqlite_column_text(sqlite3_stmt *statement, int column) { return api.column_text(statement, column); }
