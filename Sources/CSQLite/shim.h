#ifndef LISTSYNC_CSQLITE_SHIM_H
#define LISTSYNC_CSQLITE_SHIM_H

// SQLite's C API (Debian's libsqlite3-dev), for the SQLite sink.
#include <sqlite3.h>

#endif
