/* SPDX-License-Identifier: Apache-2.0 */
/*
 * This broker's view of the cluster: the live brokers with their endpoints
 * and the controller, as the controller last described them
 * (UpdateMetadata) in cluster mode, or this broker alone in single-node
 * mode. Partition leaders live with the partitions (gr_partition_t's
 * leader_id, replicas, isr); this holds the brokers those ids name.
 *
 * Runs on: loop thread.
 */
#ifndef GR_METADATA_CLUSTER_VIEW_H
#define GR_METADATA_CLUSTER_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"

/* Broker id meaning "no broker": an offline partition's leader, an unknown controller. */
#define GR_NO_BROKER (-1)

/*
 * host and port are the broker's endpoint on this broker's inter-broker
 * listener (what the controller, fetchers and coordinators connect to);
 * endpoints are all of its advertised listeners, for clients, who are told
 * the endpoints of the listener they came in on.
 */
typedef struct gr_cluster_node {
    int32_t id;
    char host[GR_LISTENER_HOST_MAX];
    int32_t port;
    char *rack; /* NULL when the broker has no broker.rack */
    gr_listener_spec_t endpoints[GR_LISTENERS_MAX];
    int32_t endpoint_count;
} gr_cluster_node_t;

typedef struct gr_cluster_view {
    bool zk_mode;             /* zookeeper.connect is set */
    gr_cluster_node_t *nodes; /* sorted by id */
    size_t node_count;
    int32_t controller_id;    /* GR_NO_BROKER while unknown */
    int32_t controller_epoch; /* highest seen; older controllers are fenced */
    /* The broker epoch (czxid of this broker's registration) the last
     * UpdateMetadata applied was addressed to; -1: none yet, or a version
     * without one (v0-4). */
    int64_t metadata_broker_epoch;
    uint64_t metadata_updates; /* UpdateMetadata requests applied */
} gr_cluster_view_t;

void gr_cluster_view_init(gr_cluster_view_t *v, bool zk_mode);
void gr_cluster_view_fini(gr_cluster_view_t *v);

/* The live broker with this id, or NULL. */
const gr_cluster_node_t *gr_cluster_view_node(const gr_cluster_view_t *v, int32_t id);

/* The node's endpoint on the listener named listener, or NULL when it has none. */
const gr_listener_spec_t *gr_cluster_node_endpoint(const gr_cluster_node_t *n,
                                                   const char *listener);

/*
 * Points host and port at the endpoint of listener (the inter-broker
 * listener), or at the first endpoint when the node has no such listener.
 */
void gr_cluster_node_use_listener(gr_cluster_node_t *n, const char *listener);

/*
 * Replaces the node list with count nodes (copied; racks duplicated).
 * 0 or -ENOMEM (the old list is kept).
 */
int gr_cluster_view_set_nodes(gr_cluster_view_t *v, const gr_cluster_node_t *nodes, size_t count);

#endif
