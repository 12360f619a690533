/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where zk_admin's new partitions go: the live brokers (with their racks)
 * handed to replica_assignment with Kafka's random start and shift, or the
 * seed that continues a growing topic's layout. See zk_admin.h.
 *
 * Runs on: loop thread.
 */
#include "controller/zk_admin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

#include "core/context.h"
#include "controller/zk_member.h"
#include "metadata/cluster_view.h"

size_t gr_zk_admin_live_nodes(const gr_broker_t *b, gr_replica_broker_t *out, size_t cap)
{
    size_t count = 0;
    const gr_ctl_broker_t *brokers = gr_controller_brokers(&b->zk->controller, &count);
    if (!brokers)
        count = b->cluster->node_count;
    if (!out)
        return count;
    size_t n = 0;
    for (size_t i = 0; i < count && n < cap; i++) {
        const gr_cluster_node_t *node = brokers ? &brokers[i].node : &b->cluster->nodes[i];
        out[n++] = (gr_replica_broker_t){node->id, node->rack};
    }
    return n;
}

/* The live nodes on the heap (*count of them; the caller frees), or NULL. */
static gr_replica_broker_t *live_nodes_copy(const gr_broker_t *b, size_t *count)
{
    size_t n = gr_zk_admin_live_nodes(b, NULL, 0);
    gr_replica_broker_t *nodes = malloc((n + 1) * sizeof *nodes);
    *count = nodes ? gr_zk_admin_live_nodes(b, nodes, n) : 0;
    return nodes;
}

size_t gr_zk_admin_live_brokers(const gr_broker_t *b, int32_t *ids, size_t cap)
{
    if (!ids)
        return gr_zk_admin_live_nodes(b, NULL, 0);
    size_t n = 0;
    gr_replica_broker_t *nodes = live_nodes_copy(b, &n);
    n = n < cap ? n : cap;
    for (size_t i = 0; i < n; i++)
        ids[i] = nodes[i].id;
    free(nodes);
    return n;
}

/* Kafka's rand.nextInt(n) for the start and the shift. */
static int32_t random_below(size_t n)
{
    uint32_t value = 0;
    if (getrandom(&value, sizeof value, 0) != (ssize_t)sizeof value)
        value = 0; /* placement stays valid, merely predictable */
    return (int32_t)(value % n);
}

gr_kerr_t gr_zk_admin_place_check(const gr_broker_t *b, int32_t factor, gr_rack_mode_t mode,
                                  char *msg, size_t len)
{
    size_t count = 0;
    gr_replica_broker_t *nodes = live_nodes_copy(b, &count);
    if (!nodes) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_kerr_t err = gr_replica_assign_check(nodes, count, factor, mode, msg, len);
    free(nodes);
    return err;
}

gr_kerr_t gr_zk_admin_place(const gr_broker_t *b, int32_t partitions, int32_t factor,
                            gr_rack_mode_t mode, const gr_zk_admin_grow_t *grow, int32_t *out,
                            char *msg, size_t len)
{
    size_t count = 0;
    gr_replica_broker_t *nodes = live_nodes_copy(b, &count);
    if (!nodes) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_kerr_t err = gr_replica_assign_check(nodes, count, factor, mode, msg, len);
    if (!err) {
        gr_replica_seed_t seed =
            grow ? gr_replica_seed_continue(nodes, count, grow->leader0, grow->existing)
                 : (gr_replica_seed_t){random_below(count), random_below(count), 0};
        int rc = gr_replica_assign(nodes, count, partitions, factor, &seed, out);
        if (rc) {
            snprintf(msg, len, "Placing the replicas failed: %s",
                     rc == -ENOMEM ? "out of memory" : "bad arguments");
            err = rc == -EINVAL ? GR_KERR_INVALID_PARTITIONS : GR_KERR_UNKNOWN_SERVER_ERROR;
        }
    }
    free(nodes);
    return err;
}
