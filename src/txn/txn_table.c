/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction coordinator's table of transactional ids, the ids a
 * resigned __transaction_state partition unloads, and the leadership and
 * routing calls of the transaction APIs, over the coordinator runtime
 * (coordinator/runtime.h).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "txn/txn_int.h"

#define GR_TXN_BUCKETS 1024

static gr_txn_t *txn_of(gr_coordinator_key_t *k)
{
    return k ? GR_COORDINATOR_ENTRY(k, gr_txn_t, key) : NULL;
}

gr_txn_t *gr_txn_lookup(gr_txn_coordinator_t *co, gr_str_t id)
{
    return txn_of(gr_coordinator_keys_find(&co->table, id));
}

gr_txn_t *gr_txn_first(gr_txn_coordinator_t *co)
{
    return txn_of(gr_coordinator_keys_first(&co->table));
}

gr_txn_t *gr_txn_next(gr_txn_coordinator_t *co, gr_txn_t *t)
{
    return txn_of(gr_coordinator_keys_next(&co->table, &t->key));
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
    t->key.id = name;
    t->co = co;
    t->key.partition = partition;
    gr_txn_image_init(&t->cur);
    gr_txn_image_init(&t->next_image);
    gr_coordinator_keys_add(&co->table, &t->key);
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
    free(txn->key.id);
    free(txn);
}

void gr_txn_remove(gr_txn_coordinator_t *co, gr_txn_t *txn, gr_kerr_t err)
{
    gr_coordinator_keys_remove(&co->table, &txn->key);
    txn_free(co, txn, err);
}

/* gr_coordinator_keys_drop's fn: frees the id (waiter answered NOT_COORDINATOR). */
static void unload_txn(gr_coordinator_key_t *k, void *arg)
{
    txn_free(arg, txn_of(k), GR_KERR_NOT_COORDINATOR);
}

/* gr_coordinator_keys_drop's fn at shutdown: waiter answered COORDINATOR_NOT_AVAILABLE. */
static void free_txn(gr_coordinator_key_t *k, void *arg)
{
    txn_free(arg, txn_of(k), GR_KERR_COORDINATOR_NOT_AVAILABLE);
}

/* --- partitions and routing, over the coordinator runtime ------------------------ */

gr_partition_t *gr_txn_led_partition(gr_txn_coordinator_t *co, int32_t partition)
{
    return gr_coordinator_runtime_led_partition(&co->runtime, partition);
}

gr_coordinator_load_t gr_txn_load_state(const gr_txn_coordinator_t *co, int32_t partition)
{
    return gr_coordinator_runtime_state(&co->runtime, partition);
}

int32_t gr_txn_coordinator_epoch(const gr_txn_coordinator_t *co, int32_t partition)
{
    return gr_coordinator_runtime_epoch(&co->runtime, partition);
}

size_t gr_txn_unload(void *owner, int32_t partition)
{
    gr_txn_coordinator_t *co = owner;
    return gr_coordinator_keys_drop(&co->table, partition, unload_txn, co);
}

void gr_txn_partition_elected(gr_txn_coordinator_t *co, int32_t partition, int32_t leader_epoch)
{
    gr_coordinator_runtime_elect(&co->runtime, partition, leader_epoch);
}

void gr_txn_partition_resigned(gr_txn_coordinator_t *co, int32_t partition, int32_t leader_epoch)
{
    gr_coordinator_runtime_resign(&co->runtime, partition, leader_epoch);
}

bool gr_txn_loading(const gr_txn_coordinator_t *co)
{
    return gr_coordinator_runtime_loading(&co->runtime);
}

gr_kerr_t gr_txn_check(gr_txn_coordinator_t *co, gr_str_t id, int32_t *partition)
{
    return gr_coordinator_runtime_check(&co->runtime, id, partition);
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
    for (gr_txn_t *t = gr_txn_first(co); t; t = gr_txn_next(co, t))
        if (t->cur.producer_id >= 0 &&
            gr_txn_load_state(co, t->key.partition) == GR_COORDINATOR_LOADED)
            fn(t->key.id, &t->cur, arg);
}

static void census_count(const char *id, const gr_txn_image_t *im, void *arg)
{
    (void)id;
    gr_txn_census_t *out = arg;
    if ((unsigned)im->state < GR_TXN_STATE_COUNT)
        out->by_state[im->state]++;
}

void gr_txn_census_take(gr_txn_coordinator_t *co, gr_txn_census_t *out)
{
    memset(out, 0, sizeof *out);
    out->partitions = gr_coordinator_runtime_owned(&co->runtime);
    gr_txn_foreach(co, census_count, out);
}

bool gr_txn_creating_topic(gr_txn_coordinator_t *co)
{
    return gr_coordinator_runtime_creating_topic(&co->runtime);
}

gr_kerr_t gr_txn_locate(gr_txn_coordinator_t *co, gr_str_t id, gr_coordinator_node_t *out)
{
    return gr_coordinator_runtime_locate(&co->runtime, id, out);
}

/* --- lifecycle ---------------------------------------------------------------------- */

/* __transaction_state's settings, from transaction.state.log.* (Kafka's), and its replay. */
static void start_runtime(gr_txn_coordinator_t *co)
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
    gr_internal_topic_t topic = {
        .name = GR_TRANSACTION_STATE_TOPIC,
        .factor_key = "transaction.state.log.replication.factor",
        .log_tag = GR_TXN_LOG_TAG,
        .partitions = cfg->transaction_state_log_num_partitions,
        .factor = cfg->transaction_state_log_replication_factor,
        .configs = co->topic_configs,
        .config_count = (int)(sizeof co->topic_configs / sizeof co->topic_configs[0]),
    };
    gr_coordinator_spec_t spec = {
        .log_tag = GR_TXN_LOG_TAG,
        .keys = "transactional id(s)",
        .load_slice = cfg->transaction_state_log_load_buffer_size,
        .reload_on_new_epoch = true,
        .serve_failed_replay = false,
    };
    gr_coordinator_runtime_init(&co->runtime, co->broker, &topic, &spec, &gr_txn_handler, co);
}

int gr_txn_coordinator_init(gr_txn_coordinator_t *co, gr_broker_t *b)
{
    memset(co, 0, sizeof *co);
    co->broker = b;
    gr_peer_pool_init(&co->peers, b, "gregor-txn-markers");
    if (gr_coordinator_keys_init(&co->table, GR_TXN_BUCKETS) < 0)
        return -ENOMEM;
    start_runtime(co);
    gr_txn_markers_init(co);
    return 0;
}

void gr_txn_coordinator_start(gr_txn_coordinator_t *co)
{
    gr_txn_timers_start(co);
}

void gr_txn_coordinator_fini(gr_txn_coordinator_t *co)
{
    if (!co || !co->table.buckets)
        return;
    co->stopped = true;
    gr_txn_timers_stop(co);
    gr_coordinator_runtime_fini(&co->runtime);
    (void)gr_coordinator_keys_drop(&co->table, -1, free_txn, co);
    gr_txn_markers_fini(co);
    gr_coordinator_keys_fini(&co->table);
}
