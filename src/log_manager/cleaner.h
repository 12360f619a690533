/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The log cleaner, the log manager's compaction (log_manager.h): schedules
 * compaction of the compacted partitions (log/cleaner.h does the cleaning)
 * on threads of its own, so a long cleaning never delays produce
 * recompression or anything else on the broker's worker, and keeps
 * <log.dir>/cleaner-offset-checkpoint.
 *
 * Every log.cleaner.backoff.ms, and again as soon as a cleaning finishes,
 * the dirtiest due logs are started, at most log.cleaner.threads at once,
 * each with dedupe.buffer.size / threads bytes of key map. A finished
 * cleaning is swapped in on the loop thread and the checkpoint rewritten (on
 * a cleaner thread). log.cleaner.enable=false or threads=0: no cleaning.
 * The threads are named gr-log-cleaner.
 *
 * Lifecycle (driven by gr_log_manager_start and gr_log_manager_fini):
 * gr_cleaner_start (after the topics are loaded: applies the checkpoint,
 * starts threads and timer) → ... → gr_cleaner_stop (before the logs close:
 * cancels running cleanings, whose output is discarded, and writes the
 * checkpoint). Its state is b->log_manager->cleaner.
 *
 * Runs on: the loop thread.
 */
#ifndef GR_LOG_MANAGER_CLEANER_H
#define GR_LOG_MANAGER_CLEANER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "core/worker.h"

#define GR_CHECKPOINT_CLEANER "cleaner-offset-checkpoint"

typedef struct gr_broker gr_broker_t;

typedef struct gr_cleaner_stats {
    uint64_t cleanings; /* swapped in */
    uint64_t discarded; /* output discarded (log changed or closed meanwhile) */
    uint64_t failed;    /* runs that failed */
    uint64_t bytes_in, bytes_out;
} gr_cleaner_stats_t;

typedef struct gr_cleaner {
    bool started;
    unsigned threads;
    gr_worker_t worker;
    atomic_bool cancel; /* read by running cleanings */
    ev_timer timer;
    unsigned running; /* cleanings submitted, not yet finished */
    bool checkpoint_writing;
    bool checkpoint_dirty;
    gr_cleaner_stats_t stats;
} gr_cleaner_t;

/* Starts cleaning (or does nothing when disabled). 0 or -errno (logged). */
int gr_cleaner_start(gr_broker_t *b);

/*
 * Follows a live change of log.cleaner.backoff.ms (the timer's period; the
 * next pass comes one new period from now) and log.cleaner.threads (the
 * pool resized: threads beyond the new count leave once their cleaning is
 * over). The dedupe buffer size, load factor and I/O keys need nothing:
 * each cleaning reads them when it starts.
 */
void gr_cleaner_reconfigure(gr_broker_t *b);

/* Looks for due logs now (e.g. after an append made one due). */
void gr_cleaner_wake(gr_broker_t *b);

/* Cancels and waits for running cleanings, writes the checkpoint. No-op if not started. */
void gr_cleaner_stop(gr_broker_t *b);

#endif
