#ifndef LISTSYNC_CINOTIFYTOOLS_SHIM_H
#define LISTSYNC_CINOTIFYTOOLS_SHIM_H

// libinotifytools' public API plus the IN_* constants it uses.
#include <inotifytools/inotifytools.h>
#include <inotifytools/inotify.h>

#endif
