/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The log manager's timers: retention and offset checkpoints walk the topic
 * table, the flush tick only the flush set (see log_manager.h). A log that fails is
 * logged and the walk goes on: the next tick tries again.
 *
 * Runs on: loop thread.
 */
#include "log_manager/log_manager.h"

#include <errno.h>
#include <string.h>

#include "core/context.h"
#include "log/log.h"
#include "log_manager/heap_trim.h"
#include "metadata/topics.h"

#define GR_MS_PER_SEC     1000.0
#define GR_FLUSH_TICK_SEC 1.0
/* Free heap worth returning to the OS at a checkpoint tick (heap_trim.h). */
#define GR_HEAP_TRIM_MIN_FREE (8u << 20)

static void enforce_retention(gr_topic_t *topic, void *arg)
{
    gr_broker_t *b = arg;
    int64_t now = gr_broker_now_ms(b); /* one read per topic, not per partition */
    for (int32_t i = 0; i < topic->partition_count; i++) {
        gr_log_t *log = topic->partitions[i].log;
        if (!log)
            continue;
        int rc = gr_log_enforce_retention(log, now);
        if (rc > 0)
            gr_logf(&b->log, GR_LOG_INFO, "log", "retention deleted %d segment(s) of %s-%d", rc,
                    topic->name, i);
        else if (rc < 0)
            gr_logf(&b->log, GR_LOG_ERROR, "log", "retention on %s-%d failed: %s", topic->name, i,
                    strerror(-rc));
    }
}

static void on_retention_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_broker_t *b = w->data;
    gr_topics_foreach(b->topics, enforce_retention, b);
}

static void log_flush_failed(void *arg, gr_log_t *log, int rc)
{
    gr_broker_t *b = arg;
    gr_logf(&b->log, GR_LOG_ERROR, "log", "flush of %s-%d failed: %s", gr_log_topic(log),
            gr_log_partition(log), strerror(-rc));
}

/* Visits only the logs with data awaiting flush.ms (log/flush_set.h): an idle
 * broker does no per-partition work here, whatever its partition count. */
static void on_flush_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_broker_t *b = w->data;
    (void)gr_log_flush_set_run(&b->topics->flush_set, gr_broker_now_ms(b), log_flush_failed, b);
}

static void on_checkpoint_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_broker_t *b = w->data;
    int rc = gr_topics_checkpoint(b);
    if (rc)
        gr_logf(&b->log, GR_LOG_ERROR, "log", "writing checkpoints failed: %s", strerror(-rc));
    gr_heap_trim(b, GR_HEAP_TRIM_MIN_FREE); /* the garbage of bursts since the last tick */
}

static void start_timer(gr_broker_t *b, ev_timer *t, void (*cb)(struct ev_loop *, ev_timer *, int),
                        double every_sec)
{
    ev_timer_init(t, cb, every_sec, every_sec);
    t->data = b;
    ev_timer_start(b->loop, t);
    ev_unref(b->loop); /* timers alone do not keep the loop running */
}

void gr_log_manager_init(gr_log_manager_t *lm)
{
    memset(lm, 0, sizeof *lm);
}

void gr_log_manager_start(gr_broker_t *b)
{
    gr_log_manager_t *lm = b->log_manager;
    (void)gr_cleaner_start(b); /* logged; the broker runs without compaction */
    start_timer(b, &lm->retention_timer, on_retention_timer,
                (double)b->config.log_retention_check_interval_ms / GR_MS_PER_SEC);
    start_timer(b, &lm->flush_timer, on_flush_timer, GR_FLUSH_TICK_SEC);
    start_timer(b, &lm->checkpoint_timer, on_checkpoint_timer,
                (double)b->config.log_flush_offset_checkpoint_interval_ms / GR_MS_PER_SEC);
}

void gr_log_manager_stop(gr_broker_t *b)
{
    gr_log_manager_t *lm = b->log_manager;
    ev_timer *timers[] = {&lm->retention_timer, &lm->flush_timer, &lm->checkpoint_timer};
    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
        if (ev_is_active(timers[i])) {
            ev_ref(b->loop); /* started unreferenced (start_timer) */
            ev_timer_stop(b->loop, timers[i]);
        }
    }
}

void gr_log_manager_fini(gr_broker_t *b)
{
    gr_log_manager_stop(b);
    gr_cleaner_stop(b);
}
