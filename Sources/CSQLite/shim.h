#ifndef LISTSYNC_CSQLITE_SHIM_H
#define LISTSYNC_CSQLITE_SHIM_H

// SQLite's C API (Debian's libsqlite3-dev), for the SQLite sink.
#include <sqlite3.h>

/// SQLITE_TRANSIENT, which the header defines as a cast Swift does not import: SQLite copies
/// bound text before the call returns.
static inline void (*listsync_sqlite_transient(void))(void *) {
    return SQLITE_TRANSIENT;
}

#endif
