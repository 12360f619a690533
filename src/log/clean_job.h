/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to src/log/: a cleaning job as gr_log_clean_begin builds it,
 * gr_clean_job_run (worker thread) fills its outputs and gr_clean_job_finish
 * (loop thread) swaps them in. While the job runs, the worker reads only
 * the fields marked "worker" and writes only "outputs", "end_offset" and
 * "stats"; the loop thread touches nothing but "log" (cleared when the log
 * closes) until the job's done callback.
 */
#ifndef GR_LOG_CLEAN_JOB_H
#define GR_LOG_CLEAN_JOB_H

#include "log/clean_txn.h"
#include "log/cleaner.h"
#include "log/log_int.h"

#define GR_CLEANED_SUFFIX ".cleaned"
#define GR_SWAP_SUFFIX    ".swap"

typedef struct gr_clean_source {
    gr_segment_t *seg; /* reference held; loop thread only */
    int64_t base;      /* worker */
    int64_t size;      /* worker: bytes of batches when the job began */
    int64_t next_base; /* worker: base offset of the segment after it */
    int fd;            /* worker: a private read-only fd */
} gr_clean_source_t;

/* One rewritten segment, replacing sources [first, first + count). */
typedef struct gr_clean_output {
    int64_t base;
    size_t first, count;
    int64_t size;
    int64_t next_offset; /* after its last batch; base if empty */
    int64_t max_timestamp;
    int64_t offset_of_max_timestamp;
    int64_t delete_horizon_ms; /* earliest in it; INT64_MAX if none */
} gr_clean_output_t;

struct gr_clean_job {
    gr_log_t *log; /* loop thread; NULL once the log closed */
    /* worker: */
    const gr_io_ops_t *io;
    char *dir;
    gr_clean_params_t params;
    int64_t first_dirty;
    int64_t delete_retention_ms;
    int64_t segment_bytes;
    int64_t index_interval_bytes;
    gr_clean_source_t *sources;
    size_t nsources;
    gr_aborted_txn_t *aborted; /* worker: the range's aborted transactions, by first offset */
    size_t naborted;
    /* written by the worker: */
    gr_clean_output_t *outputs;
    size_t noutputs;
    int64_t end_offset;
    gr_clean_stats_t stats;
};

/* "<dir>/<20-digit base><ext><suffix>" into buf. */
void gr_clean_file(const char *dir, int64_t base, const char *ext, const char *suffix, char *buf,
                   size_t size);

#endif
