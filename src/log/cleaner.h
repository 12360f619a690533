/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Log compaction (cleanup.policy=compact), Kafka's log cleaner.
 *
 * A compacted log has a clean head and a dirty tail: segments below the
 * first dirty offset were cleaned (each key there at most once, its latest
 * value as of that cleaning), those from it on were appended since. The
 * active segment, data at or above the high watermark, and segments whose
 * newest record is younger than min.compaction.lag.ms are never cleaned.
 * A log is due when its dirty bytes make up min.cleanable.dirty.ratio of
 * its cleanable bytes, when its oldest dirty segment is older than
 * max.compaction.lag.ms, or when a delete horizon left by an earlier cleaning
 * has passed (tombstones to drop).
 *
 * One cleaning, as a job (state machine, with the function doing each step):
 *   gr_log_clean_begin (loop): picks the cleanable segments, takes references
 *     on them and opens private fds, so nothing the job reads is loop state.
 *   gr_clean_job_run (worker thread): maps keys → latest offsets over the
 *     dirty segments until the map is full (then this pass ends at that
 *     batch: a later pass continues from there); rewrites every cleanable
 *     segment up to the map's end (keeping each producer id's last batch, if
 *     need be emptied), in groups that fit segment.bytes, into
 *     "<base>.log.cleaned" with its .index/.timeindex ".cleaned" files,
 *     fsynced; throttled to log.cleaner.io.max.bytes.per.second.
 *   gr_clean_job_finish (loop): if the log still holds exactly the segments
 *     read, renames each group ".cleaned" → ".swap" (the .log last: its
 *     rename is the commit point), renames the replaced segments "*.deleted"
 *     (readers holding them keep their fds), renames ".swap" → final and
 *     puts the new segment in the list; otherwise discards the output.
 * A crash leaves at worst ".cleaned" files (deleted at open) or a ".log.swap"
 * (gr_log_clean_recover_swaps, at open, completes that swap).
 *
 * Runs on: the loop thread, but gr_clean_job_run on a worker thread.
 */
#ifndef GR_LOG_CLEANER_H
#define GR_LOG_CLEANER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/log.h"

typedef struct gr_clean_params {
    int64_t now_ms;
    size_t map_bytes;          /* key map memory (a share of log.cleaner.dedupe.buffer.size) */
    double map_load_factor;    /* log.cleaner.io.buffer.load.factor */
    size_t io_buffer_size;     /* read buffer (log.cleaner.io.buffer.size) */
    double max_bytes_per_sec;  /* log.cleaner.io.max.bytes.per.second; <= 0: unlimited */
    const atomic_bool *cancel; /* when set, a running job stops early (-ECANCELED) */
    const gr_io_ops_t *io;     /* the job's file I/O, from its thread; NULL: gr_io_default() */
} gr_clean_params_t;

typedef struct gr_clean_job gr_clean_job_t;

/* What one cleaning did. */
typedef struct gr_clean_stats {
    int64_t first_dirty; /* dirty range mapped: [first_dirty, end_offset) */
    int64_t end_offset;
    int segments_in;  /* segments rewritten */
    int segments_out; /* segments that replaced them */
    int64_t bytes_in;
    int64_t bytes_out;
    int64_t records_in;
    int64_t records_kept;
    size_t keys_mapped;
    int64_t run_ms;     /* time on the worker, throttling sleeps included */
    int64_t pace_waits; /* sleeps to keep under log.cleaner.io.max.bytes.per.second */
    size_t read_chunk;  /* bytes read at once from a source (log.cleaner.io.buffer.size) */
} gr_clean_stats_t;

/*
 * How dirty a compacted log is (loop thread): 0 when it needs no cleaning
 * now (not compacted, being cleaned, or not due), else a priority > 0, the
 * dirty ratio, or above 1 when max.compaction.lag.ms or a delete horizon
 * makes it due.
 */
double gr_log_clean_priority(gr_log_t *log, int64_t now_ms);

/*
 * Starts cleaning log (loop thread): returns 1 and *out, a job to hand to
 * gr_clean_job_run and then gr_clean_job_finish; 0 if the log is not due
 * (gr_log_clean_priority is 0);
 * -ENOMEM or -errno (opening the segments). params is copied.
 */
int gr_log_clean_begin(gr_log_t *log, const gr_clean_params_t *params, gr_clean_job_t **out);

/* Worker thread: the cleaning itself (see above). Returns 0 or -errno. */
int gr_clean_job_run(void *job);

/*
 * Loop thread, once the run is over (result: its return, or -ECANCELED if it
 * never ran): swaps the output in or discards it, then frees the job.
 * stats may be NULL. Returns 0 (swapped), -ESTALE (the log changed or was
 * closed meanwhile: output discarded), or the run's or a rename's -errno.
 * *out_log gets the log if it is still open (else NULL); may be NULL.
 */
int gr_clean_job_finish(gr_clean_job_t *job, int result, gr_clean_stats_t *stats,
                        gr_log_t **out_log);

/*
 * The cleaner checkpoint of a log: its first dirty offset, -1 while the
 * cleaner has not looked at it (then gr_log_clean_set_checkpoint may set it
 * from cleaner-offset-checkpoint).
 */
int64_t gr_log_clean_checkpoint(const gr_log_t *log);
void gr_log_clean_set_checkpoint(gr_log_t *log, int64_t first_dirty);

/*
 * At open, before the segments are listed: completes every "<base>.log.swap"
 * in dir (deletes the segments it replaced, renames it to "<base>.log", drops
 * its index files to be rebuilt). Returns the number completed or -errno.
 */
int gr_log_clean_recover_swaps(const gr_io_ops_t *io, const char *dir);

#endif
