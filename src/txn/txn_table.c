/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction coordinator's table of transactional ids, the
 * __transaction_state partitions it leads (elected / resigned, with their
 * leader epochs) and the routing checks of the transaction APIs. A
 * partition's ids are served only when both the coordinator's state (elected,
 * loaded) and the topic table (an open log led here) agree, as for groups.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "group/coordinator_hash.h"
#include "log/log.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "txn/txn_int.h"

#define GR_TXN_BUCKETS 1024

static size_t bucket_of(const gr_txn_coordinator_t *co, gr_str_t id)
{
    uint32_t h = (uint32_t)gr_java_string_hash(id.ptr, id.len > 0 ? (size_t)id.len : 0);
    return h % co->bucket_count;
}

gr_txn_t *gr_txn_lookup(gr_txn_coordinator_t *co, gr_str_t id)
{
    if (!co->buckets)
        return NULL;
    for (gr_txn_t *t = co->buckets[bucket_of(co, id)]; t; t = t->next)
        if (gr_str_eq_c(id, t->id))
            return t;
    return NULL;
}

gr_txn_t *gr_txn_insert(gr_txn_coordinator_t *co, gr_str_t id, int32_t partition)
{
    gr_txn_t *t = calloc(1, sizeof *t);
    char *name = t ? malloc((size_t)id.len + 1) : NULL;
    if (!name) {
        free(t);
        return NULL;
    }
    memcpy(name, id.ptr, (size_t)id.len);
    name[id.len] = '\0';
    t->id = name;
    t->co = co;
    t->partition = partition;
    gr_txn_image_init(&t->cur);
    gr_txn_image_init(&t->next_image);
    size_t b = bucket_of(co, id);
    t->next = co->buckets[b];
    co->buckets[b] = t;
    co->count++;
    return t;
}

void gr_txn_reply(gr_txn_t *txn, gr_kerr_t err)
{
    gr_txn_waiter_t *w = txn->waiter;
    if (!w)
        return;
    txn->waiter = NULL;
    w->txn = NULL;
    w->done(w, err, err ? -1 : txn->cur.producer_id, err ? -1 : txn->cur.producer_epoch);
}

void gr_txn_waiter_cancel(gr_txn_waiter_t *w)
{
    if (w->txn && w->txn->waiter == w)
        w->txn->waiter = NULL;
    w->txn = NULL;
}

/* Frees txn, already out of the table. */
static void txn_free(gr_txn_coordinator_t *co, gr_txn_t *txn, gr_kerr_t err)
{
    gr_txn_reply(txn, err);
    gr_txn_write_abandon(txn);
    if (txn->allocating)
        gr_producer_ids_cancel(co->broker, &txn->id_wait);
    gr_txn_markers_drop(co, txn);
    gr_txn_image_fini(&txn->cur);
    gr_txn_image_fini(&txn->next_image);
    free(txn->id);
    free(txn);
}

void gr_txn_remove(gr_txn_coordinator_t *co, gr_txn_t *txn, gr_kerr_t err)
{
    size_t b = bucket_of(co, gr_str(txn->id));
    for (gr_txn_t **p = &co->buckets[b]; *p; p = &(*p)->next) {
        if (*p == txn) {
            *p = txn->next;
            co->count--;
            break;
        }
    }
    txn_free(co, txn, err);
}

/* --- partitions ------------------------------------------------------------------ */

gr_topic_t *gr_txn_topic(gr_txn_coordinator_t *co)
{
    return gr_topics_find(co->broker->topics, GR_TRANSACTION_STATE_TOPIC,
                          strlen(GR_TRANSACTION_STATE_TOPIC));
}

gr_partition_t *gr_txn_led_partition(gr_txn_coordinator_t *co, int32_t partition)
{
    gr_topic_t *topic = gr_txn_topic(co);
    gr_partition_t *p = topic ? gr_topic_partition(topic, partition) : NULL;
    if (!p || !p->log || p->leader_id != co->broker->config.broker_id)
        return NULL;
    return p;
}

gr_partition_load_t gr_txn_load_state(const gr_txn_coordinator_t *co, int32_t partition)
{
    return gr_coordinator_slots_load(&co->slots, partition);
}

int32_t gr_txn_coordinator_epoch(const gr_txn_coordinator_t *co, int32_t partition)
{
    return gr_coordinator_slots_epoch(&co->slots, partition);
}

/* Unloads every id of partition (waiters answered NOT_COORDINATOR); returns how many. */
static size_t unload_ids(gr_txn_coordinator_t *co, int32_t partition)
{
    size_t n = 0;
    for (size_t b = 0; b < co->bucket_count; b++) {
        gr_txn_t **link = &co->buckets[b];
        while (*link) {
            gr_txn_t *t = *link;
            if (t->partition != partition) {
                link = &t->next;
                continue;
            }
            *link = t->next;
            co->count--;
            n++;
            txn_free(co, t, GR_KERR_NOT_COORDINATOR);
        }
    }
    return n;
}

/* A __transaction_state deleted and created again: nothing loaded from the old one holds. */
static void forget_replaced_topic(gr_txn_coordinator_t *co, const gr_topic_t *topic)
{
    if (gr_coordinator_slots_replaced(&co->slots, &topic->id))
        for (int32_t i = 0; i < co->slots.count; i++)
            gr_txn_partition_resigned(co, i, GR_COORDINATOR_ANY_EPOCH);
}

void gr_txn_partition_elected(gr_txn_coordinator_t *co, int32_t partition, int32_t leader_epoch)
{
    if (co->stopped || partition < 0)
        return;
    gr_topic_t *topic = gr_txn_topic(co);
    if (topic)
        forget_replaced_topic(co, topic);
    bool epoch_moved;
    gr_coordinator_partition_t *s =
        gr_coordinator_slots_elect(&co->slots, partition, leader_epoch, &epoch_moved);
    if (!s)
        return;
    if (s->load != GR_LOAD_NONE && !epoch_moved)
        return;
    if (s->load != GR_LOAD_NONE)
        unload_ids(co, partition); /* a new coordinator epoch: reload, markers resent with it */
    if (!gr_txn_led_partition(co, partition)) {
        gr_logf(&co->broker->log, GR_LOG_WARN, GR_TXN_LOG_TAG,
                "%s-%d: elected at leader epoch %d but not led here; not loading",
                GR_TRANSACTION_STATE_TOPIC, partition, leader_epoch);
        s->load = GR_LOAD_NONE;
        return;
    }
    /* An empty partition (a topic just created) has nothing to replay. */
    gr_partition_t *p = gr_txn_led_partition(co, partition);
    bool empty = gr_log_end_offset(p->log) == gr_log_start_offset(p->log);
    s->load = empty ? GR_LOAD_DONE : GR_LOAD_LOADING;
    if (!empty)
        gr_txn_load_begin(co);
}

void gr_txn_partition_resigned(gr_txn_coordinator_t *co, int32_t partition, int32_t leader_epoch)
{
    if (co->stopped || partition < 0)
        return;
    gr_partition_load_t was;
    if (!gr_coordinator_slots_resign(&co->slots, partition, leader_epoch, &was) ||
        was == GR_LOAD_NONE)
        return;
    if (co->load_partition == partition)
        co->load_partition = -1;
    size_t n = unload_ids(co, partition);
    gr_logf(&co->broker->log, GR_LOG_INFO, GR_TXN_LOG_TAG,
            "%s-%d: no longer coordinator (leader epoch %d): unloaded %zu transactional id(s)",
            GR_TRANSACTION_STATE_TOPIC, partition, leader_epoch, n);
}

bool gr_txn_loading(const gr_txn_coordinator_t *co)
{
    return gr_coordinator_slots_loading(&co->slots);
}

/* --- routing ---------------------------------------------------------------------- */

static gr_kerr_t partition_of(gr_txn_coordinator_t *co, gr_str_t id, int32_t *partition)
{
    gr_topic_t *topic = co->stopped ? NULL : gr_txn_topic(co);
    if (!topic || topic->partition_count <= 0)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    forget_replaced_topic(co, topic);
    *partition =
        gr_group_partition_for(id.ptr, id.len > 0 ? (size_t)id.len : 0, topic->partition_count);
    return GR_KERR_NONE;
}

gr_kerr_t gr_txn_check(gr_txn_coordinator_t *co, gr_str_t id, int32_t *partition)
{
    gr_kerr_t err = partition_of(co, id, partition);
    if (err)
        return err;
    gr_partition_load_t load = gr_txn_load_state(co, *partition);
    if (load == GR_LOAD_NONE || !gr_txn_led_partition(co, *partition))
        return GR_KERR_NOT_COORDINATOR;
    return load == GR_LOAD_DONE ? GR_KERR_NONE : GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
}

const gr_txn_image_t *gr_txn_find(gr_txn_coordinator_t *co, gr_str_t id)
{
    int32_t partition;
    if (gr_txn_check(co, id, &partition))
        return NULL;
    gr_txn_t *t = gr_txn_lookup(co, id);
    return t && t->cur.producer_id >= 0 ? &t->cur : NULL;
}

void gr_txn_foreach(gr_txn_coordinator_t *co,
                    void (*fn)(const char *id, const gr_txn_image_t *im, void *arg), void *arg)
{
    for (size_t b = 0; b < co->bucket_count; b++)
        for (gr_txn_t *t = co->buckets[b]; t; t = t->next)
            if (t->cur.producer_id >= 0 && gr_txn_load_state(co, t->partition) == GR_LOAD_DONE)
                fn(t->id, &t->cur, arg);
}

bool gr_txn_creating_topic(gr_txn_coordinator_t *co)
{
    gr_topic_t *topic = gr_txn_topic(co);
    return co->topic.requested &&
           !(topic && gr_topic_led(co->broker, topic->name, topic->partition_count));
}

gr_kerr_t gr_txn_locate(gr_txn_coordinator_t *co, gr_str_t id, gr_coordinator_node_t *out)
{
    gr_broker_t *b = co->broker;
    *out = (gr_coordinator_node_t){GR_NO_BROKER, "", -1};
    if (co->stopped)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    gr_kerr_t err = gr_txn_topic(co) ? GR_KERR_NONE : gr_internal_topic_create(b, &co->topic);
    int32_t partition;
    if (!err)
        err = partition_of(co, id, &partition);
    if (err)
        return err;
    gr_partition_t *p = gr_topic_partition(gr_txn_topic(co), partition);
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

/* --- lifecycle ---------------------------------------------------------------------- */

/* __transaction_state's settings, from transaction.state.log.* (Kafka's). */
static void topic_settings(gr_txn_coordinator_t *co)
{
    const gr_config_t *cfg = &co->broker->config;
    snprintf(co->segment_bytes, sizeof co->segment_bytes, "%d",
             cfg->transaction_state_log_segment_bytes);
    snprintf(co->min_isr, sizeof co->min_isr, "%d", cfg->transaction_state_log_min_isr);
    co->topic_configs[0] = (gr_topic_config_t){"cleanup.policy", "compact"};
    co->topic_configs[1] = (gr_topic_config_t){"segment.bytes", co->segment_bytes};
    co->topic_configs[2] = (gr_topic_config_t){"min.insync.replicas", co->min_isr};
    co->topic_configs[3] = (gr_topic_config_t){"unclean.leader.election.enable", "false"};
    co->topic_configs[4] = (gr_topic_config_t){"compression.type", "uncompressed"};
    co->topic = (gr_internal_topic_t){
        .name = GR_TRANSACTION_STATE_TOPIC,
        .factor_key = "transaction.state.log.replication.factor",
        .log_tag = GR_TXN_LOG_TAG,
        .partitions = cfg->transaction_state_log_num_partitions,
        .factor = cfg->transaction_state_log_replication_factor,
        .configs = co->topic_configs,
        .config_count = (int)(sizeof co->topic_configs / sizeof co->topic_configs[0]),
    };
}

int gr_txn_coordinator_init(gr_txn_coordinator_t *co, gr_broker_t *b)
{
    memset(co, 0, sizeof *co);
    co->broker = b;
    co->bucket_count = GR_TXN_BUCKETS;
    co->buckets = calloc(co->bucket_count, sizeof *co->buckets);
    if (!co->buckets)
        return -ENOMEM;
    co->load_partition = -1;
    gr_coordinator_slots_init(&co->slots, GR_TRANSACTION_STATE_TOPIC, GR_TXN_LOG_TAG, &b->log);
    topic_settings(co);
    gr_txn_markers_init(co);
    return 0;
}

void gr_txn_coordinator_start(gr_txn_coordinator_t *co)
{
    gr_txn_timers_start(co);
}

void gr_txn_coordinator_fini(gr_txn_coordinator_t *co)
{
    if (!co || !co->buckets)
        return;
    co->stopped = true;
    gr_txn_timers_stop(co);
    gr_txn_load_stop(co);
    for (size_t b = 0; b < co->bucket_count; b++) {
        while (co->buckets[b]) {
            gr_txn_t *t = co->buckets[b];
            co->buckets[b] = t->next;
            txn_free(co, t, GR_KERR_COORDINATOR_NOT_AVAILABLE);
        }
    }
    gr_txn_markers_fini(co);
    free(co->buckets);
    co->buckets = NULL;
    co->bucket_count = 0;
    co->count = 0;
    gr_coordinator_slots_fini(&co->slots);
}
