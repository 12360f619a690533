/* SPDX-License-Identifier: Apache-2.0 */
/* A peer to another broker with this broker's inter-broker settings: see peer.h. */
#include "core/context.h"
#include "net/peer.h"

gr_peer_t *gr_peer_new_to_broker(gr_broker_t *b, int32_t node_id, const char *host, int32_t port,
                                 const char *client_id, int32_t request_timeout_ms)
{
    gr_peer_t *peer =
        gr_peer_new(b->loop, node_id, host, port, client_id, request_timeout_ms, &b->log);
    if (!peer)
        return NULL;
    gr_peer_set_resolver(peer, &b->worker);
    gr_peer_set_tls(peer, b->inter_broker_tls);
    gr_peer_set_sasl(peer, b->inter_broker_sasl);
    return peer;
}
