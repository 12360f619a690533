/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The log manager (Kafka's LogManager): the periodic work every partition
 * log here needs, on the loop thread.
 *
 *  - retention: every log.retention.check.interval.ms, each log deletes the
 *    segments past its retention (gr_log_enforce_retention);
 *  - flush: every second, the logs holding unflushed data under a finite
 *    flush.ms (the topic table's flush set, log/flush_set.h) flush when it
 *    says they are due; the others are not visited;
 *  - checkpoints: every log.flush.offset.checkpoint.interval.ms, the
 *    recovery-point, log-start and replication checkpoints
 *    (gr_topics_checkpoint);
 *  - compaction: the log cleaner (cleaner.h), on threads of its own.
 *
 * Lifecycle: gr_log_manager_init (zeroed, nothing armed) ->
 * gr_log_manager_start (log dir open: cleaner started, timers armed) ->
 * gr_log_manager_stop (broker stopping: timers disarmed, no more ticks) ->
 * gr_log_manager_fini (before the logs close: timers disarmed if still
 * armed, cleanings cancelled, cleaner checkpoint written). The final offset
 * checkpoints are the composition root's, written with the logs' close.
 *
 * The timers are started unreferenced: they alone do not keep the loop
 * running.
 *
 * Runs on: loop thread.
 */
#ifndef GR_LOG_MANAGER_LOG_MANAGER_H
#define GR_LOG_MANAGER_LOG_MANAGER_H

#include <ev.h>

#include "log_manager/cleaner.h"

typedef struct gr_broker gr_broker_t;

typedef struct gr_log_manager {
    gr_cleaner_t cleaner;
    ev_timer retention_timer;
    ev_timer flush_timer;
    ev_timer checkpoint_timer;
} gr_log_manager_t;

/* Sets lm to nothing started. */
void gr_log_manager_init(gr_log_manager_t *lm);

/*
 * Starts the cleaner and arms the timers of b->log_manager. Precondition:
 * b->log_dir open, b->topics loaded. A cleaner that cannot start is logged
 * and the broker runs without compaction: this cannot fail.
 */
void gr_log_manager_start(gr_broker_t *b);

/* Disarms the timers (the broker is stopping). Safe without a start, and twice. */
void gr_log_manager_stop(gr_broker_t *b);

/*
 * Disarms the timers, cancels and waits for running cleanings, writes the
 * cleaner checkpoint. Before the logs close. Safe without a start.
 */
void gr_log_manager_fini(gr_broker_t *b);

#endif
