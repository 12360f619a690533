/* SPDX-License-Identifier: Apache-2.0 */
/* Connections to other brokers by node id: see peer_pool.h. */
#include "net/peer_pool.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/context.h"

void gr_peer_pool_init(gr_peer_pool_t *pool, gr_broker_t *b, const char *client_prefix)
{
    *pool = (gr_peer_pool_t){.broker = b, .client_prefix = client_prefix};
}

gr_peer_t *gr_peer_pool_get(gr_peer_pool_t *pool, int32_t node_id, const char *host, int32_t port)
{
    for (int32_t i = 0; i < pool->count; i++)
        if (pool->slots[i].node_id == node_id) {
            (void)gr_peer_set_address(pool->slots[i].peer, host, port);
            return pool->slots[i].peer;
        }
    gr_peer_pool_slot_t *grown = realloc(pool->slots, sizeof *grown * (size_t)(pool->count + 1));
    if (!grown)
        return NULL;
    pool->slots = grown;
    gr_broker_t *b = pool->broker;
    char client_id[GR_PEER_POOL_CLIENT_ID_MAX];
    snprintf(client_id, sizeof client_id, "%s-%d", pool->client_prefix, b->config.broker_id);
    gr_peer_t *peer = gr_peer_new_to_broker(b, node_id, host, port, client_id,
                                            b->config.replica_socket_timeout_ms);
    if (!peer)
        return NULL;
    gr_peer_set_unsent(peer, GR_PEER_FAIL_UNSENT);
    pool->slots[pool->count++] = (gr_peer_pool_slot_t){node_id, peer};
    return peer;
}

void gr_peer_pool_free(gr_peer_pool_t *pool)
{
    for (int32_t i = 0; i < pool->count; i++)
        gr_peer_free(pool->slots[i].peer);
    free(pool->slots);
    pool->slots = NULL;
    pool->count = 0;
}
