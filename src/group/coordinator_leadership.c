/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which groups this broker coordinates: the __consumer_offsets partitions it
 * leads (elected / resigned, with their leader epochs), the routing checks
 * the group handlers make, and FindCoordinator's answer for a group.
 *
 * A group's partition is computed over the topic's partition count as this
 * broker's topic table has it, so every broker hashes alike even when the
 * topic was created elsewhere with another offsets.topic.num.partitions.
 * "Led here" needs both the coordinator's state (elected, not resigned
 * since) and the topic table's placement (an open log and leader_id ==
 * this broker): a call the controller's apply code has not made yet cannot
 * make this broker serve a partition it does not lead. The topic id seen at
 * the elections tells a __consumer_offsets deleted and created again (its
 * groups are gone with it) from the one they were loaded from.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "group/coordinator.h"
#include "log/log.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "group/coordinator_hash.h"
#include "group/coordinator_int.h"
#include "group/coordinator_slots.h"
#include "group/group_int.h"

gr_partition_load_t gr_coordinator_load_state(const gr_coordinator_t *co, int32_t partition)
{
    return gr_coordinator_slots_load(&co->slots, partition);
}

/* The partition's log when this broker leads it per the topic table, else NULL. */
gr_partition_t *gr_coordinator_led_partition(gr_coordinator_t *co, int32_t partition)
{
    gr_topic_t *topic = gr_coordinator_topic(co);
    gr_partition_t *p = topic ? gr_topic_partition(topic, partition) : NULL;
    if (!p || !p->log || p->leader_id != co->broker->config.broker_id)
        return NULL;
    return p;
}

/*
 * The topic was deleted and created again (another id) since its partitions
 * were elected: nothing loaded from the old one holds. Unloads it all.
 */
static void forget_replaced_topic(gr_coordinator_t *co, const gr_topic_t *topic)
{
    if (gr_coordinator_slots_replaced(&co->slots, &topic->id))
        for (int32_t i = 0; i < co->slots.count; i++)
            gr_coordinator_partition_resigned(co, i, GR_COORDINATOR_ANY_EPOCH);
}

void gr_coordinator_partition_elected(gr_coordinator_t *co, int32_t partition, int32_t leader_epoch)
{
    if (!co->buckets || partition < 0)
        return;
    gr_topic_t *topic = gr_coordinator_topic(co);
    if (topic)
        forget_replaced_topic(co, topic);
    bool epoch_moved;
    gr_coordinator_partition_t *s =
        gr_coordinator_slots_elect(&co->slots, partition, leader_epoch, &epoch_moved);
    if (!s)
        return;
    if (s->load != GR_LOAD_NONE)
        return; /* already ours: memory matches the log, which only we wrote */
    gr_partition_t *p = gr_coordinator_led_partition(co, partition);
    if (!p) {
        gr_logf(&co->broker->log, GR_LOG_WARN, "group",
                "%s-%d: elected at leader epoch %d but not led here; not loading", GR_OFFSETS_TOPIC,
                partition, leader_epoch);
        return;
    }
    /* An empty partition (a topic just created) has nothing to replay. */
    bool empty = gr_log_end_offset(p->log) == gr_log_start_offset(p->log);
    s->load = empty ? GR_LOAD_DONE : GR_LOAD_LOADING;
    if (!empty)
        gr_coordinator_load_begin(co);
}

/* Unloads every group of partition; returns how many there were. */
static size_t unload_groups(gr_coordinator_t *co, int32_t partition)
{
    size_t n = 0;
    for (size_t b = 0; b < co->bucket_count; b++) {
        gr_group_t **link = &co->buckets[b];
        while (*link) {
            gr_group_t *g = *link;
            if (g->coordinator_partition != partition) {
                link = &g->next;
                continue;
            }
            *link = g->next;
            co->count--;
            n++;
            gr_group_unload(g, &co->env);
            gr_group_free(g, &co->env);
        }
    }
    return n;
}

void gr_coordinator_partition_resigned(gr_coordinator_t *co, int32_t partition,
                                       int32_t leader_epoch)
{
    if (!co->buckets || partition < 0)
        return;
    gr_partition_load_t was;
    if (!gr_coordinator_slots_resign(&co->slots, partition, leader_epoch, &was) ||
        was == GR_LOAD_NONE)
        return;
    if (co->load_partition == partition)
        co->load_partition = -1; /* the loader moves on to the next partition */
    size_t n = unload_groups(co, partition);
    gr_coordinator_txn_forget(co, partition, NULL); /* the next load rebuilds pending offsets */
    gr_logf(&co->broker->log, GR_LOG_INFO, "group",
            "%s-%d: no longer coordinator (leader epoch %d): unloaded %zu group(s)%s",
            GR_OFFSETS_TOPIC, partition, leader_epoch, n,
            was == GR_LOAD_LOADING ? ", replay aborted" : "");
}

/* Single-node mode: this broker leads every partition of the topic. */
/* The group's partition: NONE, or COORDINATOR_NOT_AVAILABLE without the topic. */
static gr_kerr_t partition_of(gr_coordinator_t *co, gr_str_t id, int32_t *partition)
{
    gr_topic_t *topic = co->buckets ? gr_coordinator_topic(co) : NULL;
    if (!topic || topic->partition_count <= 0)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    forget_replaced_topic(co, topic);
    *partition =
        gr_group_partition_for(id.ptr, id.len > 0 ? (size_t)id.len : 0, topic->partition_count);
    return GR_KERR_NONE;
}

gr_kerr_t gr_coordinator_check(gr_coordinator_t *co, gr_str_t id, int32_t *partition)
{
    gr_kerr_t err = partition_of(co, id, partition);
    if (err)
        return err;
    gr_partition_load_t load = gr_coordinator_load_state(co, *partition);
    if (load == GR_LOAD_NONE || !gr_coordinator_led_partition(co, *partition))
        return GR_KERR_NOT_COORDINATOR;
    return load == GR_LOAD_DONE ? GR_KERR_NONE : GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
}

bool gr_coordinator_loading(const gr_coordinator_t *co)
{
    return gr_coordinator_slots_loading(&co->slots);
}

gr_kerr_t gr_coordinator_locate(gr_coordinator_t *co, gr_str_t id, gr_coordinator_node_t *out)
{
    gr_broker_t *b = co->broker;
    *out = (gr_coordinator_node_t){GR_NO_BROKER, "", -1};
    int32_t partition;
    gr_kerr_t err = gr_coordinator_ensure_topic(co);
    if (!err)
        err = partition_of(co, id, &partition);
    if (err)
        return err;
    gr_partition_t *p = gr_topic_partition(gr_coordinator_topic(co), partition);
    if (!p || p->leader_id == GR_NO_BROKER)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    if (p->leader_id == b->config.broker_id) {
        *out = (gr_coordinator_node_t){b->config.broker_id, b->advertised_host, b->advertised_port};
        return GR_KERR_NONE;
    }
    const gr_cluster_node_t *node = gr_cluster_view_node(b->cluster, p->leader_id);
    if (!node)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    *out = (gr_coordinator_node_t){node->id, node->host, node->port};
    return GR_KERR_NONE;
}
