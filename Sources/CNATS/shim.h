#ifndef LISTSYNC_CNATS_SHIM_H
#define LISTSYNC_CNATS_SHIM_H

// nats.c, the NATS C client (libnats-dev): connections, JetStream publishing, streams, and
// ordered consumers. Only NATSTransport imports it.
#include <nats/nats.h>

#endif
