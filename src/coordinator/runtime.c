/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The coordinator runtime's leadership and routing (runtime.h): elect and
 * resign moving the slots, the topic id that tells a T deleted and created
 * again, a key's partition, check and locate. Replay: loader.c.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <string.h>

#include "coordinator/hash.h"
#include "coordinator/runtime_int.h"
#include "core/context.h"
#include "log/log.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"

void gr_coordinator_runtime_init(gr_coordinator_runtime_t *rt, gr_broker_t *b,
                                 const gr_internal_topic_t *topic,
                                 const gr_coordinator_spec_t *spec,
                                 const gr_coordinator_handler_t *handler, void *owner)
{
    memset(rt, 0, sizeof *rt);
    rt->broker = b;
    rt->spec = *spec;
    rt->handler = *handler;
    rt->owner = owner;
    rt->topic = *topic;
    rt->load_partition = -1;
    gr_coordinator_slots_init(&rt->slots, topic->name, spec->log_tag, &b->log);
    rt->running = true;
}

void gr_coordinator_runtime_fini(gr_coordinator_runtime_t *rt)
{
    if (!rt->running)
        return;
    gr_coordinator_loader_stop(rt);
    rt->running = false;
    gr_coordinator_slots_fini(&rt->slots);
}

gr_topic_t *gr_coordinator_runtime_topic(gr_coordinator_runtime_t *rt)
{
    return gr_topics_find(rt->broker->topics, rt->topic.name, strlen(rt->topic.name));
}

gr_partition_t *gr_coordinator_runtime_led_partition(gr_coordinator_runtime_t *rt,
                                                     int32_t partition)
{
    gr_topic_t *topic = gr_coordinator_runtime_topic(rt);
    gr_partition_t *p = topic ? gr_topic_partition(topic, partition) : NULL;
    if (!p || !p->log || p->leader_id != rt->broker->config.broker_id)
        return NULL;
    return p;
}

gr_coordinator_load_t gr_coordinator_runtime_state(const gr_coordinator_runtime_t *rt,
                                                   int32_t partition)
{
    return gr_coordinator_slots_state(&rt->slots, partition);
}

int32_t gr_coordinator_runtime_owned(const gr_coordinator_runtime_t *rt)
{
    int32_t n = 0;
    for (int32_t i = 0; i < rt->slots.count; i++)
        n += gr_coordinator_load_ours(rt->slots.items[i].state);
    return n;
}

int32_t gr_coordinator_runtime_epoch(const gr_coordinator_runtime_t *rt, int32_t partition)
{
    return gr_coordinator_slots_epoch(&rt->slots, partition);
}

bool gr_coordinator_runtime_loading(const gr_coordinator_runtime_t *rt)
{
    return gr_coordinator_slots_loading(&rt->slots);
}

/* Drops partition's keys and its replay (the slot has left LOADING/LOADED); returns how many keys.
 */
static size_t unload(gr_coordinator_runtime_t *rt, int32_t partition)
{
    if (rt->load_partition == partition)
        rt->load_partition = -1; /* the loader moves on (or starts it again from the log start) */
    return rt->handler.unload(rt->owner, partition);
}

/* T was deleted and created again (another id) since its partitions were elected. */
static void forget_replaced_topic(gr_coordinator_runtime_t *rt, const gr_topic_t *topic)
{
    if (gr_coordinator_slots_replaced(&rt->slots, &topic->id))
        for (int32_t i = 0; i < rt->slots.count; i++)
            gr_coordinator_runtime_resign(rt, i, GR_COORDINATOR_ANY_EPOCH);
}

void gr_coordinator_runtime_elect(gr_coordinator_runtime_t *rt, int32_t partition,
                                  int32_t leader_epoch)
{
    if (!rt->running || partition < 0)
        return;
    gr_topic_t *topic = gr_coordinator_runtime_topic(rt);
    if (topic)
        forget_replaced_topic(rt, topic);
    bool epoch_moved;
    gr_coordinator_partition_t *s =
        gr_coordinator_slots_elect(&rt->slots, partition, leader_epoch, &epoch_moved);
    if (!s)
        return;
    if (gr_coordinator_load_ours(s->state)) {
        if (!epoch_moved || !rt->spec.reload_on_new_epoch)
            return; /* memory matches the log, which only we wrote */
        s->state = GR_COORDINATOR_NOT_OURS;
        unload(rt, partition);
    }
    gr_partition_t *p = gr_coordinator_runtime_led_partition(rt, partition);
    if (!p) {
        gr_logf(&rt->broker->log, GR_LOG_WARN, rt->spec.log_tag,
                "%s-%d: elected at leader epoch %d but not led here; not loading", rt->topic.name,
                partition, leader_epoch);
        return;
    }
    /* An empty partition (a topic just created) has nothing to replay. */
    bool empty = gr_log_end_offset(p->log) == gr_log_start_offset(p->log);
    s->state = empty ? GR_COORDINATOR_LOADED : GR_COORDINATOR_LOADING;
    if (!empty)
        gr_coordinator_loader_start(rt);
}

void gr_coordinator_runtime_resign(gr_coordinator_runtime_t *rt, int32_t partition,
                                   int32_t leader_epoch)
{
    if (!rt->running || partition < 0)
        return;
    gr_coordinator_load_t was;
    if (!gr_coordinator_slots_resign(&rt->slots, partition, leader_epoch, &was) ||
        !gr_coordinator_load_ours(was))
        return;
    size_t n = unload(rt, partition);
    gr_logf(&rt->broker->log, GR_LOG_INFO, rt->spec.log_tag,
            "%s-%d: no longer coordinator (leader epoch %d): unloaded %zu %s%s", rt->topic.name,
            partition, leader_epoch, n, rt->spec.keys,
            was == GR_COORDINATOR_LOADING ? ", replay aborted" : "");
}

/* key's partition of T: NONE, or COORDINATOR_NOT_AVAILABLE without T (or after fini). */
static gr_kerr_t partition_of(gr_coordinator_runtime_t *rt, gr_str_t key, int32_t *partition)
{
    gr_topic_t *topic = rt->running ? gr_coordinator_runtime_topic(rt) : NULL;
    if (!topic || topic->partition_count <= 0)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    forget_replaced_topic(rt, topic);
    *partition = gr_coordinator_partition_for(key.ptr, key.len > 0 ? (size_t)key.len : 0,
                                              topic->partition_count);
    return GR_KERR_NONE;
}

gr_kerr_t gr_coordinator_runtime_check(gr_coordinator_runtime_t *rt, gr_str_t key,
                                       int32_t *partition)
{
    gr_kerr_t err = partition_of(rt, key, partition);
    if (err)
        return err;
    gr_coordinator_load_t state = gr_coordinator_runtime_state(rt, *partition);
    if (!gr_coordinator_load_ours(state) || !gr_coordinator_runtime_led_partition(rt, *partition))
        return GR_KERR_NOT_COORDINATOR;
    return state == GR_COORDINATOR_LOADED ? GR_KERR_NONE : GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
}

gr_kerr_t gr_coordinator_runtime_ensure_topic(gr_coordinator_runtime_t *rt)
{
    if (!rt->running)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    return gr_coordinator_runtime_topic(rt) ? GR_KERR_NONE
                                            : gr_internal_topic_create(rt->broker, &rt->topic);
}

bool gr_coordinator_runtime_creating_topic(gr_coordinator_runtime_t *rt)
{
    gr_topic_t *topic = gr_coordinator_runtime_topic(rt);
    return rt->topic.requested &&
           !(topic && gr_topic_led(rt->broker, topic->name, topic->partition_count));
}

gr_kerr_t gr_coordinator_runtime_locate(gr_coordinator_runtime_t *rt, gr_str_t key,
                                        gr_coordinator_node_t *out)
{
    gr_broker_t *b = rt->broker;
    *out = (gr_coordinator_node_t){GR_NO_BROKER, "", -1};
    int32_t partition;
    gr_kerr_t err = gr_coordinator_runtime_ensure_topic(rt);
    if (!err)
        err = partition_of(rt, key, &partition);
    if (err)
        return err;
    gr_partition_t *p = gr_topic_partition(gr_coordinator_runtime_topic(rt), partition);
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
