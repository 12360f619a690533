/* SPDX-License-Identifier: Apache-2.0 */
/* Client-facing broker endpoints: see listener_endpoint.h. Runs on: loop thread. */
#include "handlers/listener_endpoint.h"

#include <string.h>

#include "core/context.h"
#include "security/session.h"

static const gr_listener_spec_t *listener_of(const gr_request_t *req)
{
    return req->session ? req->session->listener : NULL;
}

bool gr_request_node_endpoint(const gr_request_t *req, const gr_cluster_node_t *node,
                              gr_str_t *host, int32_t *port)
{
    const gr_listener_spec_t *listener = listener_of(req);
    if (!listener || node->endpoint_count == 0) {
        *host = gr_str(node->host);
        *port = node->port;
        return true;
    }
    const gr_listener_spec_t *e = gr_cluster_node_endpoint(node, listener->name);
    if (!e)
        return false;
    *host = gr_str(e->host);
    *port = e->port;
    return true;
}

/* This broker's own endpoint, before the controller has listed it. */
static bool self_endpoint(gr_broker_t *b, const gr_request_t *req, gr_str_t *host, int32_t *port)
{
    const gr_listener_spec_t *listener = listener_of(req);
    if (!listener || b->advertised_count == 0) {
        *host = gr_str(b->advertised_host);
        *port = b->advertised_port;
        return true;
    }
    for (int i = 0; i < b->advertised_count; i++) {
        if (strcmp(b->advertised[i].name, listener->name) == 0) {
            *host = gr_str(b->advertised[i].host);
            *port = b->advertised[i].port;
            return true;
        }
    }
    return false;
}

bool gr_request_broker_endpoint(gr_broker_t *b, const gr_request_t *req, int32_t node_id,
                                gr_str_t *host, int32_t *port)
{
    const gr_cluster_node_t *node = gr_cluster_view_node(b->cluster, node_id);
    if (node)
        return gr_request_node_endpoint(req, node, host, port);
    return node_id == b->config.broker_id && self_endpoint(b, req, host, port);
}
