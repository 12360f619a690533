/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which address of a broker a client is told: the endpoint of the listener
 * its request came in on, as Kafka answers Metadata, DescribeCluster and
 * FindCoordinator. A broker without that listener is left out (or, for a
 * coordinator, not available).
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_LISTENER_ENDPOINT_H
#define GR_HANDLERS_LISTENER_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/request.h"
#include "metadata/cluster_view.h"

/*
 * node's endpoint for req's listener into *host and *port (pointing into the
 * cluster view: valid until it changes). Returns false when node has no such
 * listener. Connections accepted without a listener (tests) get host/port.
 */
bool gr_request_node_endpoint(const gr_request_t *req, const gr_cluster_node_t *node,
                              gr_str_t *host, int32_t *port);

/* The same for the live broker node_id; false also when it is not known. */
bool gr_request_broker_endpoint(gr_broker_t *b, const gr_request_t *req, int32_t node_id,
                                gr_str_t *host, int32_t *port);

#endif
