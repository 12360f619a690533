/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replaying the __transaction_state partitions this broker was elected for,
 * one partition at a time and one slice (transaction.state.log.load.buffer.size)
 * per loop iteration, as the group coordinator replays its partitions. The
 * last record of an id wins; a tombstone removes it. Once a partition is
 * loaded, the transactions it left in PrepareCommit or PrepareAbort get
 * their markers written again (the previous coordinator may have died
 * before writing them all), with this coordinator's epoch.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "log/log_replay.h"
#include "metadata/topics.h"
#include "protocol/records.h"
#include "txn/txn_int.h"

typedef struct replay_ctx {
    gr_txn_coordinator_t *co;
    int32_t partition;
} replay_ctx_t;

static void replay_batch(void *arg, const uint8_t *batch, size_t size, const gr_batch_header_t *h)
{
    replay_ctx_t *ctx = arg;
    if (h->attributes & GR_BATCH_ATTR_CONTROL)
        return;
    uint8_t *records;
    size_t len;
    if (gr_batch_decompress(batch, size, &records, &len) < 0) {
        gr_logf(&ctx->co->broker->log, GR_LOG_WARN, GR_TXN_LOG_TAG,
                "%s-%d: skipping an unreadable batch at offset %" PRId64,
                GR_TRANSACTION_STATE_TOPIC, ctx->partition, h->base_offset);
        return;
    }
    gr_record_iter_t it;
    gr_record_iter_init(&it, records, len, h->records_count);
    gr_record_t rec;
    while (gr_record_iter_next(&it, &rec) == 1)
        if (gr_txn_apply_record(ctx->co, ctx->partition, rec.key, rec.value) == -ENOMEM)
            gr_logf(&ctx->co->broker->log, GR_LOG_ERROR, GR_TXN_LOG_TAG,
                    "out of memory replaying %s-%d", GR_TRANSACTION_STATE_TOPIC, ctx->partition);
    free(records);
}

static bool pick_partition(gr_txn_coordinator_t *co)
{
    if (co->load_partition >= 0 && gr_txn_load_state(co, co->load_partition) == GR_LOAD_LOADING)
        return true;
    co->load_partition = gr_coordinator_slots_next_loading(&co->slots);
    if (co->load_partition < 0)
        return false;
    gr_partition_t *p = gr_txn_led_partition(co, co->load_partition);
    co->load_offset = p ? gr_log_start_offset(p->log) : 0;
    return true;
}

/* The partition is loaded: its unfinished commits and aborts go on. */
static void loaded(gr_txn_coordinator_t *co, int32_t partition)
{
    size_t ids = 0, resumed = 0;
    co->slots.items[partition].load = GR_LOAD_DONE;
    for (size_t b = 0; b < co->bucket_count; b++) {
        for (gr_txn_t *t = co->buckets[b]; t; t = t->next) {
            if (t->partition != partition)
                continue;
            ids++;
            if (gr_txn_state_preparing(t->cur.state)) {
                gr_txn_markers_start(co, t);
                resumed++;
            }
        }
    }
    gr_logf(&co->broker->log, GR_LOG_INFO, GR_TXN_LOG_TAG,
            "loaded %zu transactional id(s) from %s-%d (coordinator epoch %d), %zu to complete",
            ids, GR_TRANSACTION_STATE_TOPIC, partition, co->slots.items[partition].epoch, resumed);
}

static void loader_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
    (void)revents;
    gr_txn_coordinator_t *co = w->data;
    if (!pick_partition(co)) {
        ev_idle_stop(loop, w);
        return;
    }
    int32_t partition = co->load_partition;
    gr_partition_t *p = gr_txn_led_partition(co, partition);
    replay_ctx_t ctx = {co, partition};
    int rc = p ? gr_log_replay_slice(p->log, &co->load_offset,
                                     co->broker->config.transaction_state_log_load_buffer_size,
                                     replay_batch, &ctx)
               : -ENOENT;
    if (rc == 0)
        return;
    co->load_partition = -1;
    if (rc < 0) {
        gr_logf(&co->broker->log, GR_LOG_ERROR, GR_TXN_LOG_TAG, "replaying %s-%d failed: %s",
                GR_TRANSACTION_STATE_TOPIC, partition, strerror(-rc));
        co->slots.items[partition].load = GR_LOAD_NONE;
        return;
    }
    loaded(co, partition);
}

void gr_txn_load_begin(gr_txn_coordinator_t *co)
{
    if (ev_is_active(&co->loader) || gr_coordinator_slots_next_loading(&co->slots) < 0)
        return;
    ev_idle_init(&co->loader, loader_cb);
    ev_set_priority(&co->loader, EV_MAXPRI); /* one slice per iteration, even when busy */
    co->loader.data = co;
    ev_idle_start(co->broker->loop, &co->loader);
}

void gr_txn_load_stop(gr_txn_coordinator_t *co)
{
    if (ev_is_active(&co->loader))
        ev_idle_stop(co->broker->loop, &co->loader);
    co->load_partition = -1;
}
