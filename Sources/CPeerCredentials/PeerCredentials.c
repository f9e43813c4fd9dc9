#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>

#include "CPeerCredentials.h"

_Static_assert(sizeof(struct ucred) == sizeof(listsync_peer_credentials), "struct ucred changed size");
_Static_assert(offsetof(struct ucred, pid) == offsetof(listsync_peer_credentials, pid), "ucred.pid moved");
_Static_assert(offsetof(struct ucred, uid) == offsetof(listsync_peer_credentials, uid), "ucred.uid moved");
_Static_assert(offsetof(struct ucred, gid) == offsetof(listsync_peer_credentials, gid), "ucred.gid moved");

int listsync_peer_credentials_option(void) {
    return SO_PEERCRED;
}

int listsync_peer_groups_option(void) {
    return SO_PEERGROUPS;
}
