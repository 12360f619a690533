/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The flush set: the logs a flush.ms tick has to look at, so that the tick
 * costs what is unflushed, not what the broker holds (an idle broker with
 * 100,000 partitions does no per-partition work per second).
 *
 * Invariant: every log opened with this set whose flush.ms is finite and
 * that holds data past its recovery point is in the set. The set may also
 * hold logs that became clean another way (a truncation): the next tick
 * drops them. A log joins when an append leaves data unflushed or a config
 * change makes its flush.ms finite while it has some (log.c), and leaves
 * when it is flushed, its flush.ms becomes infinite, or it is closed or
 * deleted: a freed log is never in a set.
 *
 * The set also carries the tick's wall clock (now_ms): a log reads it as its
 * "now" between appends (file.delete.delay.ms deadlines, segment creation
 * times), as it did when the tick visited every log each second.
 *
 * Runs on: the loop thread, like the logs in it.
 */
#ifndef GR_LOG_FLUSH_SET_H
#define GR_LOG_FLUSH_SET_H

#include <stddef.h>
#include <stdint.h>

typedef struct gr_log gr_log_t;

typedef struct gr_log_flush_set {
    gr_log_t *head; /* intrusive list through the logs (log_int.h) */
    size_t count;
    int64_t now_ms; /* the last tick's wall clock; INT64_MIN before one */
} gr_log_flush_set_t;

/* A failed flush of log (rc: -errno); it stays in the set for the next tick. */
typedef void gr_log_flush_error_fn(void *arg, gr_log_t *log, int rc);

/* An empty set. */
void gr_log_flush_set_init(gr_log_flush_set_t *set);

/*
 * The flush.ms tick: sets set->now_ms and flushes the logs of set whose
 * flush.ms has passed since their last flush (gr_log_maybe_flush), calling
 * on_error (may be NULL) for each that fails. Returns how many it flushed.
 */
size_t gr_log_flush_set_run(gr_log_flush_set_t *set, int64_t now_ms,
                            gr_log_flush_error_fn *on_error, void *arg);

/* Logs in the set now. */
size_t gr_log_flush_set_count(const gr_log_flush_set_t *set);

#endif
