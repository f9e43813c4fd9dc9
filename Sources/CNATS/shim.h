#ifndef LISTSYNC_CNATS_SHIM_H
#define LISTSYNC_CNATS_SHIM_H

// nats.c, the NATS C client (libnats-dev): connections, JetStream publishing, streams, and
// ordered consumers. Only NATSTransport imports it.
#include <nats/nats.h>

// Forgets the calling thread's last error (its text and status). libnats exports it but its
// public header does not declare it; without it, a call that fails without setting an error
// text of its own would be described by an earlier call's.
void nats_clearLastError(void);

#endif
