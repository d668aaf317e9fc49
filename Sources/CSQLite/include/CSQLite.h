#ifndef CSQLITE_H
#define CSQLITE_H

// SQLite's types and constants, with its library loaded on first use.
//
// Only --cache needs SQLite, and linking libsqlite3 made every start-up load
// and relocate it (0.2 ms, a sixth of the gap to curl --version). So the
// library is opened with dlopen by csqlite_load, and the tool calls it through
// the csqlite_* functions below, each the sqlite3_* function of the same name.
#include <sqlite3.h>

/// Loads libsqlite3 once (thread-safe); NULL when loaded, else why not.
const char *csqlite_load(void);

int csqlite_open_v2(const char *filename, sqlite3 **database, int flags, const char *vfs);
int csqlite_close(sqlite3 *database);
const char *csqlite_errmsg(sqlite3 *database);
int csqlite_busy_timeout(sqlite3 *database, int milliseconds);
int csqlite_prepare_v2(sqlite3 *database, const char *sql, int bytes, sqlite3_stmt **statement, const char **tail);
int csqlite_finalize(sqlite3_stmt *statement);
int csqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int bytes, void (*destructor)(void *));
int csqlite_bind_null(sqlite3_stmt *statement, int index);
int csqlite_step(sqlite3_stmt *statement);
int csqlite_column_count(sqlite3_stmt *statement);
const unsigned char *csqlite_column_text(sqlite3_stmt *statement, int column);

#endif
