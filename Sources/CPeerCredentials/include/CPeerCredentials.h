#ifndef LISTSYNC_PEER_CREDENTIALS_H
#define LISTSYNC_PEER_CREDENTIALS_H

#include <stdint.h>

/// The credentials of the process at the other end of a Unix socket, as `SO_PEERCRED` reports
/// them: laid out exactly like Linux's `struct ucred`, which Swift's Glibc module hides (it is
/// only declared with `_GNU_SOURCE`). Read it with `getsockopt(fd, SOL_SOCKET, SO_PEERCRED, ...)`,
/// or through SwiftNIO's `SocketOptionProvider.unsafeGetSocketOption`.
typedef struct listsync_peer_credentials {
    int32_t pid;
    uint32_t uid;
    uint32_t gid;
} listsync_peer_credentials;

/// `SO_PEERCRED`, the socket option that reports `listsync_peer_credentials`.
int listsync_peer_credentials_option(void);

/// `SO_PEERGROUPS`, the socket option that reports the supplementary groups of the process at the
/// other end of a Unix socket, as an array of `gid_t` sorted in ascending order.
int listsync_peer_groups_option(void);

#endif
