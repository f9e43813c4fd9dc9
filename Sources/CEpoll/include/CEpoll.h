#ifndef LISTSYNC_EPOLL_H
#define LISTSYNC_EPOLL_H

/// Linux's epoll (`epoll_create1`, `epoll_ctl`, `epoll_wait`, `struct epoll_event`), which Swift's
/// Glibc module does not include: the latency benchmark reads its plain-socket subscribers with it.
#include <sys/epoll.h>

#endif
