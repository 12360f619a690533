/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The coordinator runtime's loader (runtime.h): replays the LOADING
 * partitions of T one at a time, from the log start offset to the log end,
 * at most spec.load_slice bytes per loop iteration. It is an ev_idle
 * watcher of the highest priority, so it runs in every iteration, busy or
 * not, and the broker keeps serving while a large partition replays.
 *
 * Each batch is handed over whole: a control batch as one transaction
 * marker (H.replay_marker, or skipped without one), any other batch record
 * by record (H.replay) with its origin (partition, the producer of a
 * transactional batch, the batch's offset). Unreadable batches are logged
 * and skipped. A partition resigned mid-replay stops being read at once
 * (its slot left LOADING); the loader moves on to the next.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/runtime_int.h"
#include "core/context.h"
#include "log/log.h"
#include "log/log_replay.h"
#include "metadata/topics.h"
#include "protocol/control_batch.h"
#include "protocol/records.h"

typedef struct replay_target {
    gr_coordinator_runtime_t *rt;
    int32_t partition;
} replay_target_t;

static void replay_marker(const replay_target_t *t, const uint8_t *batch, size_t size,
                          const gr_batch_header_t *h)
{
    gr_coordinator_runtime_t *rt = t->rt;
    gr_control_marker_t marker;
    if (gr_control_batch_parse(batch, size, h, &marker) < 0) {
        gr_logf(&rt->broker->log, GR_LOG_WARN, rt->spec.log_tag,
                "%s-%d: skipping an unreadable control batch at offset %" PRId64, rt->topic.name,
                t->partition, h->base_offset);
        return;
    }
    rt->handler.replay_marker(rt->owner, t->partition, h->producer_id,
                              marker.type == GR_CONTROL_TYPE_COMMIT);
}

/* Applies one whole batch (gr_log_replay_fn). */
static void replay_batch(void *arg, const uint8_t *batch, size_t size, const gr_batch_header_t *h)
{
    const replay_target_t *t = arg;
    gr_coordinator_runtime_t *rt = t->rt;
    if (gr_batch_is_control(h)) {
        if (rt->handler.replay_marker)
            replay_marker(t, batch, size, h);
        return;
    }
    gr_coordinator_record_origin_t origin = {
        .partition = t->partition,
        .producer_id = gr_batch_is_transactional(h) ? h->producer_id : -1,
        .log_offset = h->base_offset,
    };
    uint8_t *records;
    size_t len;
    if (gr_batch_decompress(batch, size, &records, &len) < 0) {
        gr_logf(&rt->broker->log, GR_LOG_WARN, rt->spec.log_tag,
                "%s-%d: skipping an unreadable batch at offset %" PRId64, rt->topic.name,
                t->partition, h->base_offset);
        return;
    }
    gr_record_iter_t it;
    gr_record_iter_init(&it, records, len, h->records_count);
    gr_record_t rec;
    while (gr_record_iter_next(&it, &rec) == 1)
        if (rt->handler.replay(rt->owner, &origin, rec.key, rec.value) == -ENOMEM)
            gr_logf(&rt->broker->log, GR_LOG_ERROR, rt->spec.log_tag,
                    "out of memory replaying %s-%d", rt->topic.name, t->partition);
    free(records);
}

/* Picks the partition to replay next; false when none is left (the loader stops). */
static bool pick_partition(gr_coordinator_runtime_t *rt)
{
    if (rt->load_partition >= 0 &&
        gr_coordinator_slots_state(&rt->slots, rt->load_partition) == GR_COORDINATOR_LOADING)
        return true;
    rt->load_partition = gr_coordinator_slots_next_loading(&rt->slots);
    if (rt->load_partition < 0)
        return false;
    gr_partition_t *p = gr_coordinator_runtime_led_partition(rt, rt->load_partition);
    rt->load_offset = p ? gr_log_start_offset(p->log) : 0;
    return true;
}

/* The replay of partition ended: rc 1 (the log end reached) or -errno. */
static void replay_ended(gr_coordinator_runtime_t *rt, int32_t partition, int rc)
{
    rt->load_partition = -1;
    if (rc < 0) {
        gr_logf(&rt->broker->log, GR_LOG_ERROR, rt->spec.log_tag, "replaying %s-%d failed: %s",
                rt->topic.name, partition, strerror(-rc));
        if (!rt->spec.serve_failed_replay) {
            rt->slots.items[partition].state = GR_COORDINATOR_NOT_OURS;
            return;
        }
    }
    rt->slots.items[partition].state = GR_COORDINATOR_LOADED;
    rt->handler.loaded(rt->owner, partition);
}

static void loader_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
    (void)revents;
    gr_coordinator_runtime_t *rt = w->data;
    if (!pick_partition(rt)) {
        ev_idle_stop(loop, w);
        return;
    }
    int32_t partition = rt->load_partition;
    /* One no longer led here has nothing to read. */
    gr_partition_t *p = gr_coordinator_runtime_led_partition(rt, partition);
    replay_target_t t = {rt, partition};
    int rc =
        p ? gr_log_replay_slice(p->log, &rt->load_offset, rt->spec.load_slice, replay_batch, &t)
          : -ENOENT;
    if (rc != 0)
        replay_ended(rt, partition, rc);
}

void gr_coordinator_loader_start(gr_coordinator_runtime_t *rt)
{
    if (ev_is_active(&rt->loader) || gr_coordinator_slots_next_loading(&rt->slots) < 0)
        return;
    ev_idle_init(&rt->loader, loader_cb);
    /* At the default priority an idle watcher runs only when no I/O is pending,
     * so a busy broker would never finish a replay: one slice per iteration. */
    ev_set_priority(&rt->loader, EV_MAXPRI);
    rt->loader.data = rt;
    ev_idle_start(rt->broker->loop, &rt->loader);
}

void gr_coordinator_loader_stop(gr_coordinator_runtime_t *rt)
{
    if (ev_is_active(&rt->loader))
        ev_idle_stop(rt->broker->loop, &rt->loader);
    rt->load_partition = -1;
}
