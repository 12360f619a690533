/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The loop side of log compaction (see cleaner.h): which part of a log is
 * cleanable and how dirty it is, starting a job, swapping its output in, and
 * completing an interrupted swap at open. The worker side is clean_job.c.
 *
 * Invariants kept while a job runs: log->cleaning points at it (one job per
 * log); the job holds a reference on each segment it reads, so a segment
 * deleted meanwhile (retention, truncation) stays allocated and is told
 * apart from its replacement by pointer; the swap happens only if the log
 * still holds exactly those segments, unchanged, in order. Rewriting drops
 * records only because a later record of their key exists in the mapped
 * range, so swapping a stale result could lose data: it is discarded whole.
 *
 * Runs on: the loop thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/clean_job.h"

/* The cleanable prefix of a log: segs[0, count), and how much of it is dirty. */
typedef struct clean_range {
    size_t count;
    int64_t first_dirty;
    int64_t clean_bytes;
    int64_t dirty_bytes;
    bool lag_due; /* the oldest dirty segment is past max.compaction.lag.ms */
} clean_range_t;

static void clean_range(gr_log_t *log, int64_t now_ms, clean_range_t *out)
{
    const gr_log_config_t *cfg = &log->config;
    memset(out, 0, sizeof *out);
    int64_t leo = gr_log_end_offset(log);
    out->first_dirty = log->clean_first_dirty;
    if (out->first_dirty < log->log_start_offset || out->first_dirty > leo)
        out->first_dirty = log->log_start_offset;
    /* Kafka's first uncleanable offset: the active segment, the last stable
     * offset (below the high watermark, and before any open transaction:
     * everything cleaned is decided). */
    int64_t uncleanable = log->segs[log->nsegs - 1]->base_offset;
    int64_t lso = gr_log_last_stable_offset(log);
    if (lso < uncleanable)
        uncleanable = lso;
    bool first_dirty_seen = false;
    for (size_t i = 0; i + 1 < log->nsegs; i++) {
        gr_segment_t *seg = log->segs[i];
        if (log->segs[i + 1]->base_offset > uncleanable)
            break;
        if (log->segs[i + 1]->base_offset <= out->first_dirty) {
            out->clean_bytes += seg->size;
        } else {
            int64_t max_ts = gr_segment_max_timestamp(seg, cfg->index_interval_bytes);
            /* min.compaction.lag.ms: this and every later segment are too young. */
            if (cfg->min_compaction_lag_ms > 0 && max_ts >= 0 &&
                now_ms - max_ts < cfg->min_compaction_lag_ms)
                break;
            if (!first_dirty_seen && max_ts >= 0 && now_ms - max_ts > cfg->max_compaction_lag_ms)
                out->lag_due = true;
            first_dirty_seen = true;
            out->dirty_bytes += seg->size;
        }
        out->count = i + 1;
    }
}

/* First visit: tombstones stamped before a restart are looked at again after a retention. */
static void clean_visit(gr_log_t *log, int64_t now_ms)
{
    if (log->clean_visited)
        return;
    log->clean_visited = true;
    int64_t r = log->config.delete_retention_ms;
    log->clean_horizon_ms = r > INT64_MAX - now_ms ? INT64_MAX : now_ms + r;
}

double gr_log_clean_priority(gr_log_t *log, int64_t now_ms)
{
    if (!log->config.cleanup_compact || log->cleaning || log->clean_failed)
        return 0;
    clean_visit(log, now_ms);
    clean_range_t range;
    clean_range(log, now_ms, &range);
    if (range.count == 0)
        return 0;
    int64_t total = range.clean_bytes + range.dirty_bytes;
    double ratio = total > 0 ? (double)range.dirty_bytes / (double)total : 0;
    if (range.dirty_bytes > 0 && range.lag_due)
        return 1 + ratio;
    if (log->clean_horizon_ms <= now_ms)
        return 1 + ratio;
    if (range.dirty_bytes > 0 && ratio >= log->config.min_cleanable_dirty_ratio)
        return ratio > 0 ? ratio : 1e-9;
    return 0;
}

static void job_free(gr_clean_job_t *job)
{
    for (size_t i = 0; i < job->nsources; i++) {
        if (job->sources[i].fd >= 0)
            job->io->close(job->io->ctx, job->sources[i].fd);
        gr_segment_put(job->sources[i].seg);
    }
    free(job->sources);
    free(job->aborted);
    free(job->outputs);
    free(job->dir);
    free(job);
}

static int cmp_aborted(const void *a, const void *b)
{
    const gr_aborted_txn_t *x = a, *y = b;
    return x->first_offset < y->first_offset ? -1 : x->first_offset > y->first_offset;
}

int gr_log_clean_begin(gr_log_t *log, const gr_clean_params_t *params, gr_clean_job_t **out)
{
    *out = NULL;
    if (gr_log_clean_priority(log, params->now_ms) <= 0)
        return 0;
    clean_range_t range;
    clean_range(log, params->now_ms, &range);
    if (range.count == 0)
        return 0;
    gr_clean_job_t *job = calloc(1, sizeof *job);
    if (!job)
        return -ENOMEM;
    /* Not the log's table: the broker's batches fsyncs for the loop thread. */
    job->io = params->io ? params->io : gr_io_default();
    job->dir = strdup(log->dir);
    job->sources = calloc(range.count, sizeof *job->sources);
    if (!job->dir || !job->sources) {
        job_free(job);
        return -ENOMEM;
    }
    char path[GR_PATH_MAX];
    for (size_t i = 0; i < range.count; i++) {
        gr_clean_source_t *src = &job->sources[job->nsources++];
        src->seg = log->segs[i];
        gr_segment_get(src->seg);
        src->base = src->seg->base_offset;
        src->size = src->seg->size;
        src->next_base = log->segs[i + 1]->base_offset;
        gr_segment_file(src->seg, ".log", path, sizeof path);
        src->fd = job->io->open(job->io->ctx, path, O_RDONLY, 0);
        if (src->fd < 0) {
            int rc = src->fd;
            job_free(job);
            return rc;
        }
    }
    /* Decided before the job starts: the worker never reads the log. */
    int rc =
        gr_log_collect_aborted(log, job->sources[0].base, job->sources[job->nsources - 1].next_base,
                               &job->aborted, &job->naborted);
    if (rc < 0) {
        job_free(job);
        return rc;
    }
    if (job->naborted > 1)
        qsort(job->aborted, job->naborted, sizeof *job->aborted, cmp_aborted);
    job->log = log;
    job->params = *params;
    job->first_dirty = range.first_dirty;
    job->delete_retention_ms = log->config.delete_retention_ms;
    job->segment_bytes = log->config.segment_bytes;
    job->index_interval_bytes = log->config.index_interval_bytes;
    log->cleaning = job;
    *out = job;
    return 1;
}

/* True when the log still holds the job's sources, unchanged, in order. */
static bool job_sources_current(const gr_log_t *log, const gr_clean_job_t *job)
{
    size_t k = 0;
    while (k < log->nsegs && log->segs[k] != job->sources[0].seg)
        k++;
    if (k + job->nsources >= log->nsegs)
        return false;
    for (size_t j = 0; j < job->nsources; j++) {
        const gr_segment_t *seg = log->segs[k + j];
        if (seg != job->sources[j].seg || seg->active || seg->size != job->sources[j].size)
            return false;
    }
    return log->segs[k + job->nsources]->base_offset == job->sources[job->nsources - 1].next_base;
}

/* ".log" last: its ".swap" appearing is the swap's commit point. */
static const char *const clean_exts[] = {".index", ".timeindex", GR_TXN_INDEX_SUFFIX, ".log"};
#define CLEAN_EXT_COUNT (sizeof clean_exts / sizeof clean_exts[0])

static void unlink_outputs(const gr_clean_job_t *job, size_t from)
{
    char path[GR_PATH_MAX];
    for (size_t i = from; i < job->noutputs; i++) {
        for (size_t e = 0; e < CLEAN_EXT_COUNT; e++) {
            gr_clean_file(job->dir, job->outputs[i].base, clean_exts[e], GR_CLEANED_SUFFIX, path,
                          sizeof path);
            job->io->unlink(job->io->ctx, path);
        }
    }
}

/* Renames output file ext from suffix "from" to suffix "to" ("" for the final name). */
static int rename_output(gr_log_t *log, const gr_clean_output_t *out, const char *ext,
                         const char *from, const char *to)
{
    char src[GR_PATH_MAX], dst[GR_PATH_MAX];
    gr_clean_file(log->dir, out->base, ext, from, src, sizeof src);
    gr_clean_file(log->dir, out->base, ext, to, dst, sizeof dst);
    return log->io->rename(log->io->ctx, src, dst);
}

/*
 * Swaps one output in for its sources (see cleaner.h for the steps).
 * Returns 0; an -errno before the commit point (nothing changed but the
 * output's own files); or after it, an -errno with the swap left for the
 * next open to complete (the log dir is failing: until then reads of the
 * range may fail).
 */
static int swap_output(gr_log_t *log, const gr_clean_job_t *job, const gr_clean_output_t *out)
{
    gr_segment_t *seg = gr_segment_new(log->dir, out->base, log->io, log->fds);
    if (!seg)
        return -ENOMEM;
    int rc = 0;
    for (size_t e = 0; e < CLEAN_EXT_COUNT && rc == 0; e++)
        rc = rename_output(log, out, clean_exts[e], GR_CLEANED_SUFFIX, GR_SWAP_SUFFIX);
    if (rc < 0) {
        gr_segment_put(seg);
        return rc;
    }
    /* Committed: "<base>.log.swap" exists. */
    size_t k = 0;
    while (log->segs[k] != job->sources[out->first].seg)
        k++;
    for (size_t j = 0; j < out->count; j++) {
        int drc = gr_log_discard_segment(log, log->segs[k + j], log->config.file_delete_delay_ms);
        if (rc == 0)
            rc = drc;
    }
    log->segs[k] = seg;
    memmove(log->segs + k + 1, log->segs + k + out->count,
            (log->nsegs - k - out->count) * sizeof *log->segs);
    log->nsegs -= out->count - 1;
    seg->size = out->size;
    seg->next_offset = out->next_offset;
    seg->max_ts_known = true;
    seg->max_timestamp = out->max_timestamp;
    seg->offset_of_max_timestamp = out->offset_of_max_timestamp;
    log->dir_dirty = true;
    /* A replaced segment still under its name would overlap the new one at
     * the next open: leave the ".swap" for that open to complete (it deletes
     * whatever the swap covers first). Until then the new segment is not
     * readable by name ("<base>.log" may even be the old data): reads of it
     * fail rather than return wrong bytes. */
    if (rc < 0)
        seg->detached = true;
    for (size_t e = 0; e < CLEAN_EXT_COUNT && rc == 0; e++)
        rc = rename_output(log, out, clean_exts[e], GR_SWAP_SUFFIX, "");
    return rc;
}

static int job_swap(gr_log_t *log, gr_clean_job_t *job)
{
    int64_t horizon = INT64_MAX;
    for (size_t i = 0; i < job->noutputs; i++) {
        int rc = swap_output(log, job, &job->outputs[i]);
        if (rc < 0) {
            unlink_outputs(job, i);
            log->clean_failed = true; /* the files are not what the list says until reopened */
            return rc;
        }
        if (job->outputs[i].delete_horizon_ms < horizon)
            horizon = job->outputs[i].delete_horizon_ms;
    }
    log->clean_first_dirty = job->end_offset;
    /* A horizon this cleaning had already passed names nothing a cleaning
     * can drop (it would have): waiting on it would re-clean the same
     * segments at every tick. Dirty data or max.compaction.lag.ms bring the
     * log back. */
    log->clean_horizon_ms = horizon < job->params.now_ms ? INT64_MAX : horizon;
    return 0;
}

int gr_clean_job_finish(gr_clean_job_t *job, int result, gr_clean_stats_t *stats,
                        gr_log_t **out_log)
{
    gr_log_t *log = job->log;
    if (log)
        log->cleaning = NULL;
    int rc = result;
    /* A log closed (deleted) meanwhile may also have failed the run (its dir is gone). */
    if ((rc == 0 || !log) && rc != -ECANCELED && (!log || !job_sources_current(log, job)))
        rc = -ESTALE;
    if (rc == 0)
        rc = job_swap(log, job);
    else
        unlink_outputs(job, 0);
    /* Data the cleaner cannot read: Kafka marks such a partition uncleanable. */
    if (log && (rc == -EBADMSG || rc == -ENOTSUP || rc == -EMSGSIZE || rc == -ENOBUFS))
        log->clean_failed = true;
    if (stats)
        *stats = job->stats;
    if (out_log)
        *out_log = log;
    job_free(job);
    return rc;
}

int64_t gr_log_clean_checkpoint(const gr_log_t *log)
{
    return log->clean_first_dirty;
}

void gr_log_clean_set_checkpoint(gr_log_t *log, int64_t first_dirty)
{
    log->clean_first_dirty = first_dirty;
}

/* ---- crash recovery ----------------------------------------------------- */

/* The offset after the last whole batch of the file at path (base if none). */
static int64_t swap_next_offset(const gr_io_ops_t *io, const char *path, int64_t base)
{
    int fd = io->open(io->ctx, path, O_RDONLY, 0);
    if (fd < 0)
        return fd;
    int64_t size = io->fsize(io->ctx, fd), pos = 0, next = base;
    uint8_t buf[GR_RECORD_BATCH_HEADER_SIZE];
    gr_batch_header_t h;
    while (size >= 0 && pos + GR_RECORD_BATCH_HEADER_SIZE <= size &&
           gr_io_pread_all(io, fd, buf, sizeof buf, pos) == (ssize_t)sizeof buf &&
           gr_batch_header_parse(buf, sizeof buf, &h) == 0 && pos + gr_batch_size(&h) <= size &&
           h.last_offset_delta >= 0) {
        next = h.base_offset + h.last_offset_delta + 1;
        pos += gr_batch_size(&h);
    }
    io->close(io->ctx, fd);
    return next;
}

/* Lists the bases of "<base><suffix>" files in dir (malloc'd). 0 or -errno. */
static int list_bases(const char *dir, const char *suffix, int64_t **out, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    size_t cap = 0;
    *out = NULL;
    *count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int64_t base = gr_segment_name_offset(e->d_name, suffix);
        if (base < 0)
            continue;
        if (*count == cap) {
            cap = cap ? cap * 2 : 8;
            int64_t *n = realloc(*out, cap * sizeof *n);
            if (!n) {
                closedir(d);
                free(*out);
                *out = NULL;
                return -ENOMEM;
            }
            *out = n;
        }
        (*out)[(*count)++] = base;
    }
    closedir(d);
    return 0;
}

/* Completes the swap of "<base>.log.swap": 0 or -errno. */
static int recover_swap(const gr_io_ops_t *io, const char *dir, int64_t base)
{
    char swap[GR_PATH_MAX], path[GR_PATH_MAX];
    gr_clean_file(dir, base, ".log", GR_SWAP_SUFFIX, swap, sizeof swap);
    int64_t next = swap_next_offset(io, swap, base);
    if (next < 0)
        return (int)next;
    int64_t *bases;
    size_t count;
    int rc = list_bases(dir, ".log", &bases, &count);
    if (rc < 0)
        return rc;
    /* The segments it replaced: from its base up to its last offset. */
    for (size_t i = 0; i < count; i++) {
        if (bases[i] != base && (bases[i] < base || bases[i] >= next))
            continue;
        for (size_t e = 0; e < CLEAN_EXT_COUNT; e++) {
            gr_clean_file(dir, bases[i], clean_exts[e], "", path, sizeof path);
            io->unlink(io->ctx, path);
        }
    }
    free(bases);
    for (size_t e = 0; e + 1 < CLEAN_EXT_COUNT; e++) {
        char swapped[GR_PATH_MAX];
        gr_clean_file(dir, base, clean_exts[e], GR_SWAP_SUFFIX, swapped, sizeof swapped);
        gr_clean_file(dir, base, clean_exts[e], "", path, sizeof path);
        io->unlink(io->ctx, path);
        /* Offset and time indexes are rebuilt from the data; the
         * transaction index is kept (missing, it is rebuilt by replay). */
        if (strcmp(clean_exts[e], GR_TXN_INDEX_SUFFIX) == 0)
            io->rename(io->ctx, swapped, path);
        else
            io->unlink(io->ctx, swapped);
    }
    gr_clean_file(dir, base, ".log", "", path, sizeof path);
    return io->rename(io->ctx, swap, path);
}

int gr_log_clean_recover_swaps(const gr_io_ops_t *io, const char *dir)
{
    int64_t *swaps;
    size_t count;
    int rc = list_bases(dir, ".log" GR_SWAP_SUFFIX, &swaps, &count);
    if (rc < 0)
        return rc == -ENOENT ? 0 : rc;
    for (size_t i = 0; i < count && rc == 0; i++)
        rc = recover_swap(io, dir, swaps[i]);
    free(swaps);
    if (rc == 0 && count > 0)
        rc = gr_io_fsync_dir(io, dir);
    return rc < 0 ? rc : (int)count;
}
