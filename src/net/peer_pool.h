/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One connection per other broker for a subsystem that talks to many of
 * them (lag's ListOffsets, the share persister, transaction markers): made
 * on first use with the inter-broker settings (gr_peer_new_to_broker),
 * found again by node id, its address updated on each use since a broker
 * may come back elsewhere. Requests that cannot be sent fail at once
 * (GR_PEER_FAIL_UNSENT): the callers retry on their own schedule.
 *
 * Runs on: loop thread.
 */
#ifndef GR_NET_PEER_POOL_H
#define GR_NET_PEER_POOL_H

#include <stdint.h>

#include "net/peer.h"

#define GR_PEER_POOL_CLIENT_ID_MAX 64

typedef struct gr_peer_pool_slot {
    int32_t node_id;
    gr_peer_t *peer;
} gr_peer_pool_slot_t;

typedef struct gr_peer_pool {
    struct gr_broker *broker;
    const char *client_prefix; /* static: the client id is "<prefix>-<broker id>" */
    gr_peer_pool_slot_t *slots;
    int32_t count;
} gr_peer_pool_t;

void gr_peer_pool_init(gr_peer_pool_t *pool, struct gr_broker *b, const char *client_prefix);

/* The connection to broker node_id at host:port; NULL when out of memory. */
gr_peer_t *gr_peer_pool_get(gr_peer_pool_t *pool, int32_t node_id, const char *host, int32_t port);

/* Frees every connection (their pending requests answered -ECANCELED). */
void gr_peer_pool_free(gr_peer_pool_t *pool);

#endif
