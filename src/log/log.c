/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The partition log: an ordered list of segments, the partition's offsets
 * (log start, high watermark, log end, recovery point), its leader-epoch
 * cache and partition.metadata. See log.h for the layout and API, log_int.h
 * for the segment lifecycle.
 *
 * Invariants:
 *   - nsegs >= 1; segs are in increasing base offset order; only the last
 *     is active; segs[i]->base_offset >= segs[i-1]->next_offset.
 *   - segs[0]->base_offset <= log_start_offset <= high_watermark
 *     <= log end offset (active segment's next_offset);
 *     recovery_point <= log end offset.
 *   - Data below recovery_point is fsynced, and so are the indexes of the
 *     segments wholly below it.
 *
 * Transitions: gr_log_append rolls (log_roll: seal the active segment,
 * create the next); gr_log_enforce_retention / gr_log_delete_records_before
 * remove segments from the front (log_delete_front); gr_log_truncate_to
 * removes them from the back and reactivates the segment holding the
 * truncation point.
 *
 * Runs on: the loop thread. No per-log thread or timer: flush.ms and
 * retention are driven by the caller's periodic calls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "log/clean_job.h"
#include "log/log_dir.h"
#include "log/log_int.h"
#include "protocol/control_batch.h"
#include "protocol/uuid.h"

#define PARTITION_METADATA_FILE "partition.metadata"
#define EPOCH_CHECKPOINT_FILE   "leader-epoch-checkpoint"
#define DELETED_SUFFIX          ".deleted"
#define DELETE_DIR_SUFFIX       "-delete"
#define PARTITION_METADATA_MAX  4096

void gr_log_config_init(gr_log_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->segment_bytes = GR_LOG_DEFAULT_SEGMENT_BYTES;
    cfg->segment_ms = GR_LOG_DEFAULT_SEGMENT_MS;
    cfg->segment_index_bytes = GR_LOG_DEFAULT_SEGMENT_INDEX_BYTES;
    cfg->index_interval_bytes = GR_LOG_DEFAULT_INDEX_INTERVAL_BYTES;
    cfg->retention_ms = GR_LOG_DEFAULT_RETENTION_MS;
    cfg->retention_bytes = GR_LOG_DEFAULT_RETENTION_BYTES;
    cfg->flush_messages = GR_LOG_DEFAULT_FLUSH_MESSAGES;
    cfg->flush_ms = GR_LOG_DEFAULT_FLUSH_MS;
    cfg->file_delete_delay_ms = GR_LOG_DEFAULT_FILE_DELETE_DELAY_MS;
    cfg->cleanup_delete = true;
    cfg->delete_retention_ms = GR_LOG_DEFAULT_DELETE_RETENTION_MS;
    cfg->max_compaction_lag_ms = INT64_MAX;
    cfg->min_cleanable_dirty_ratio = GR_LOG_DEFAULT_MIN_CLEANABLE_RATIO;
}

static gr_segment_t *log_active(const gr_log_t *log)
{
    return log->segs[log->nsegs - 1];
}

static void log_path(const gr_log_t *log, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", log->dir, name);
}

/* Index of the last segment with base_offset <= offset, or -1. */
static ssize_t log_find_segment(const gr_log_t *log, int64_t offset)
{
    size_t lo = 0, hi = log->nsegs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (log->segs[mid]->base_offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (ssize_t)lo - 1;
}

static int log_push_segment(gr_log_t *log, gr_segment_t *seg)
{
    if (log->nsegs == log->segs_cap) {
        /* Most logs keep one or two segments; 2 pointers cost malloc's minimum. */
        size_t cap = log->segs_cap ? log->segs_cap * 2 : 2;
        gr_segment_t **n = realloc(log->segs, cap * sizeof *n);
        if (!n)
            return -ENOMEM;
        log->segs = n;
        log->segs_cap = cap;
    }
    log->segs[log->nsegs++] = seg;
    return 0;
}

static int log_write_epochs(gr_log_t *log)
{
    char path[GR_PATH_MAX];
    log_path(log, EPOCH_CHECKPOINT_FILE, path, sizeof path);
    /* Not fsynced here (appends must not wait for it): gr_log_flush makes it
     * durable together with the data it describes. */
    int rc = gr_epoch_cache_write(&log->epochs, log->io, path, false);
    if (rc == 0)
        log->epochs_dirty = true;
    return rc;
}

/*
 * The latest wall clock known: the log's own (its last append, retention or
 * flush), or its flush set's last tick, which keeps an idle log's "now"
 * within a second without visiting it (flush_set.h).
 */
static int64_t log_now(gr_log_t *log)
{
    if (log->flush_set && log->flush_set->now_ms > log->last_now_ms)
        log->last_now_ms = log->flush_set->now_ms;
    return log->last_now_ms;
}

/* Queues path for unlinking at due_ms (now if the delay is 0). */
static void log_pending_add(gr_log_t *log, const char *path, int64_t due_ms)
{
    if (due_ms <= log_now(log) || log->npending == SIZE_MAX)
        goto now;
    if (log->npending == log->pending_cap) {
        size_t cap = log->pending_cap ? log->pending_cap * 2 : 8;
        gr_pending_delete_t *n = realloc(log->pending, cap * sizeof *n);
        if (!n)
            goto now;
        log->pending = n;
        log->pending_cap = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        goto now;
    log->pending[log->npending].path = copy;
    log->pending[log->npending].due_ms = due_ms;
    log->npending++;
    return;
now:
    log->io->unlink(log->io->ctx, path);
}

/* Unlinks pending files due by now_ms (all when now_ms is INT64_MAX). */
static void log_pending_run(gr_log_t *log, int64_t now_ms)
{
    size_t keep = 0;
    for (size_t i = 0; i < log->npending; i++) {
        gr_pending_delete_t *p = &log->pending[i];
        if (p->due_ms <= now_ms) {
            log->io->unlink(log->io->ctx, p->path);
            free(p->path);
        } else {
            log->pending[keep++] = *p;
        }
    }
    log->npending = keep;
}

/*
 * Deletes seg (already out of log->segs): renames its files "*.deleted" and
 * queues them for unlinking after delay_ms; drops the log's reference.
 */
static int log_discard_segment(gr_log_t *log, gr_segment_t *seg, int64_t delay_ms)
{
    static const char *const exts[] = {".log", ".index", ".timeindex", GR_TXN_INDEX_SUFFIX};
    int rc = gr_segment_mark_deleted(seg);
    char path[GR_PATH_MAX];
    int64_t now = log_now(log);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        snprintf(path, sizeof path, "%s%s" DELETED_SUFFIX, seg->path, exts[i]);
        log_pending_add(log, path, delay_ms > INT64_MAX - now ? INT64_MAX : now + delay_ms);
    }
    gr_segment_detach(seg);
    return rc;
}

int gr_log_discard_segment(gr_log_t *log, gr_segment_t *seg, int64_t delay_ms)
{
    return log_discard_segment(log, seg, delay_ms);
}

/* Removes the first segment. Precondition: nsegs > 1. */
static int log_delete_front(gr_log_t *log)
{
    gr_segment_t *seg = log->segs[0];
    memmove(log->segs, log->segs + 1, (log->nsegs - 1) * sizeof *log->segs);
    log->nsegs--;
    if (log->log_start_offset < log->segs[0]->base_offset)
        log->log_start_offset = log->segs[0]->base_offset;
    if (log->recovery_point < log->log_start_offset)
        log->recovery_point = log->log_start_offset;
    return log_discard_segment(log, seg, log->config.file_delete_delay_ms);
}

/* ---- partition.metadata ---------------------------------------------- */

static void log_read_partition_metadata(gr_log_t *log)
{
    char path[GR_PATH_MAX], *data = NULL;
    log_path(log, PARTITION_METADATA_FILE, path, sizeof path);
    if (gr_io_read_file(log->io, path, PARTITION_METADATA_MAX, &data, NULL) < 0)
        return;
    const char *key = strstr(data, "topic_id: ");
    if (strncmp(data, "version: 0\n", 11) == 0 && key &&
        gr_uuid_parse(key + strlen("topic_id: "), GR_UUID_STRING_CHARS, &log->topic_id) == 0)
        log->topic_id_known = true;
    free(data);
}

bool gr_log_topic_id(const gr_log_t *log, gr_uuid_t *out)
{
    if (log->topic_id_known)
        *out = log->topic_id;
    return log->topic_id_known;
}

int gr_log_set_topic_id(gr_log_t *log, gr_uuid_t id)
{
    char path[GR_PATH_MAX], text[64], b64[GR_UUID_STRING_CHARS + 1];
    gr_uuid_format(id, b64);
    int len = snprintf(text, sizeof text, "version: 0\ntopic_id: %s\n", b64);
    log_path(log, PARTITION_METADATA_FILE, path, sizeof path);
    /* No fsync: a file lost or emptied by a crash reads as absent, and the
     * caller rewrites it when it finds no (or another) topic id at open. */
    int rc = gr_io_write_file_replace(log->io, path, text, (size_t)len, false);
    if (rc == 0) {
        log->topic_id = id;
        log->topic_id_known = true;
    }
    return rc;
}

/* ---- open / close ----------------------------------------------------- */

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static bool bsearch_i64(const int64_t *v, size_t n, int64_t key)
{
    return n > 0 && bsearch(&key, v, n, sizeof *v, cmp_i64) != NULL;
}

/*
 * Lists the segment base offsets in the log dir (sorted, malloc'd) and
 * removes leftovers: "*.deleted", "*.cleaned", "*.swap", "*.tmp" files and
 * index files without a .log. Returns -EAGAIN at a "*.log.swap" (a
 * compaction swap to complete first).
 */
static int log_list_segments(gr_log_t *log, int64_t **out, size_t *out_count)
{
    DIR *d = opendir(log->dir);
    if (!d)
        return -errno;
    int64_t *bases = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    char path[GR_PATH_MAX];
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (has_suffix(name, ".log.swap")) {
            rc = -EAGAIN;
            goto fail;
        }
        if (has_suffix(name, DELETED_SUFFIX) || has_suffix(name, ".cleaned") ||
            has_suffix(name, ".swap") || has_suffix(name, ".tmp")) {
            log_path(log, name, path, sizeof path);
            log->io->unlink(log->io->ctx, path);
            continue;
        }
        int64_t base = gr_segment_name_offset(name, ".log");
        if (base < 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            int64_t *nb = realloc(bases, cap * sizeof *nb);
            if (!nb) {
                rc = -ENOMEM;
                goto fail;
            }
            bases = nb;
        }
        bases[n++] = base;
    }
    if (n > 1)
        qsort(bases, n, sizeof *bases, cmp_i64);
    rewinddir(d);
    while ((e = readdir(d)) != NULL) {
        int64_t base = gr_segment_name_offset(e->d_name, ".index");
        if (base < 0)
            base = gr_segment_name_offset(e->d_name, ".timeindex");
        if (base < 0)
            base = gr_segment_name_offset(e->d_name, GR_TXN_INDEX_SUFFIX);
        if (base >= 0 && !bsearch_i64(bases, n, base)) {
            log_path(log, e->d_name, path, sizeof path);
            log->io->unlink(log->io->ctx, path);
        }
    }
    closedir(d);
    *out = bases;
    *out_count = n;
    return 0;
fail:
    closedir(d);
    free(bases);
    return rc;
}

static void log_epoch_from_batch(void *arg, const gr_batch_header_t *h)
{
    gr_log_t *log = arg;
    gr_epoch_cache_assign(&log->epochs, h->partition_leader_epoch, h->base_offset);
}

/* Drops segments after index i (garbage after a corrupt segment). */
static void log_drop_after(gr_log_t *log, size_t i, gr_log_open_stats_t *stats)
{
    while (log->nsegs > i + 1) {
        gr_segment_t *seg = log->segs[--log->nsegs];
        stats->segments_deleted++;
        log_discard_segment(log, seg, 0);
    }
}

/* Full CRC scan of segs[i], truncating a bad tail (and dropping later segments). */
static int log_recover_segment(gr_log_t *log, size_t i, gr_log_open_stats_t *stats)
{
    gr_segment_t *seg = log->segs[i];
    gr_segment_scan_t scan;
    int rc = gr_segment_scan(seg, true, log->config.index_interval_bytes, log_epoch_from_batch, log,
                             &scan);
    if (rc < 0)
        return rc;
    stats->segments_recovered++;
    stats->bytes_scanned += scan.bytes_read;
    if (scan.valid_bytes < seg->size) {
        stats->bytes_truncated += seg->size - scan.valid_bytes;
        rc = gr_segment_truncate(seg, scan.valid_bytes, scan.next_offset);
        if (rc < 0)
            return rc;
        log_drop_after(log, i, stats);
    }
    seg->unflushed = true;
    return gr_segment_write_indexes(seg, false);
}

/*
 * Loads the segments; *out_txn_rebuild gets the base offset of the first
 * segment whose transaction index must be rebuilt (rescanned by recovery,
 * or its .txnindex missing or damaged), INT64_MAX if none.
 */
static int log_load(gr_log_t *log, const gr_log_open_args_t *args, bool rebuild_epochs,
                    gr_log_open_stats_t *stats, int64_t *out_txn_rebuild)
{
    *out_txn_rebuild = INT64_MAX;
    int64_t *bases = NULL;
    size_t nbases = 0;
    int rc = log_list_segments(log, &bases, &nbases);
    if (rc == -EAGAIN) {
        rc = gr_log_clean_recover_swaps(log->io, log->dir);
        if (rc >= 0)
            rc = log_list_segments(log, &bases, &nbases);
    }
    if (rc < 0)
        return rc;
    char path[GR_PATH_MAX];
    for (size_t i = 0; i < nbases; i++) {
        gr_segment_t *seg = gr_segment_new(log->dir, bases[i], log->io, log->fds);
        if (!seg) {
            rc = -ENOMEM;
            goto fail;
        }
        rc = log_push_segment(log, seg);
        if (rc < 0) {
            gr_segment_put(seg);
            goto fail;
        }
        gr_segment_file(seg, ".log", path, sizeof path);
        rc = log->io->stat(log->io->ctx, path, &seg->size, NULL);
        if (rc < 0)
            goto fail;
    }
    free(bases);
    bases = NULL;

    if (log->nsegs == 0) {
        int64_t base = args->log_start_offset > 0 ? args->log_start_offset : 0;
        gr_segment_t *seg = gr_segment_new(log->dir, base, log->io, log->fds);
        if (!seg)
            return -ENOMEM;
        rc = log_push_segment(log, seg);
        if (rc < 0) {
            gr_segment_put(seg);
            return rc;
        }
        rc = gr_segment_create_files(seg);
        if (rc < 0)
            return rc;
        log->dir_dirty = true;
    }

    /* Unclean: recover from the segment holding the recovery point. */
    size_t first_recover = log->nsegs;
    if (!args->clean_shutdown) {
        ssize_t i = log_find_segment(log, args->recovery_point > 0 ? args->recovery_point : 0);
        first_recover = i < 0 ? 0 : (size_t)i;
    }
    for (size_t i = 0; i < log->nsegs; i++) {
        gr_segment_t *seg = log->segs[i];
        bool sane = gr_segment_indexes_sane(seg);
        if (*out_txn_rebuild == INT64_MAX && (i >= first_recover || !gr_txn_index_sane(seg)))
            *out_txn_rebuild = seg->base_offset;
        /* Most partitions of a big broker are empty: rescanning one would only
         * rewrite its empty indexes and epochs, and flush (thousands of
         * renames and writebacks after a crash). */
        bool nothing_to_recover = sane && gr_segment_empty(seg);
        if ((i >= first_recover && !nothing_to_recover) || !sane) {
            if (!sane)
                stats->indexes_rebuilt++;
            rc = log_recover_segment(log, i, stats);
            if (rc < 0)
                return rc;
        } else {
            if (i + 1 < log->nsegs)
                seg->next_offset = log->segs[i + 1]->base_offset;
            if (rebuild_epochs && seg->size > 0) {
                rc = gr_segment_walk(seg, log_epoch_from_batch, log);
                if (rc < 0)
                    return rc;
            }
        }
        if (i + 1 < log->nsegs && seg->next_offset > log->segs[i + 1]->base_offset) {
            /* Overlapping segments: keep the data up to here. */
            log_drop_after(log, i, stats);
        }
    }

    /* The active segment: indexes in memory, log end offset from its tail. */
    gr_segment_t *active = log_active(log);
    rc = gr_segment_load_indexes(active, log->config.index_interval_bytes);
    if (rc < 0)
        return rc;
    if (rc == 1)
        stats->indexes_rebuilt++;
    rc = gr_segment_activate(active, args->now_ms);
    stats->bytes_read_tail = active->bytes_since_index; /* from the last index entry */
    if (rc == -EBADMSG || rc == -ENODATA) {
        /* Damaged tail after a "clean" shutdown: recover it anyway. */
        rc = log_recover_segment(log, log->nsegs - 1, stats);
        if (rc == 0)
            rc = gr_segment_activate(active, args->now_ms);
    }
    if (rc < 0)
        return rc;
    stats->segments = (int)log->nsegs;
    return 0;
fail:
    free(bases);
    return rc;
}

static void log_free(gr_log_t *log)
{
    gr_log_flush_set_leave(log); /* a freed log is never in a set */
    if (log->cleaning)
        log->cleaning->log = NULL; /* its output is discarded when it returns */
    for (size_t i = 0; i < log->nsegs; i++)
        gr_segment_detach(log->segs[i]);
    log_pending_run(log, INT64_MAX);
    free(log->pending);
    free(log->segs);
    gr_epoch_cache_fini(&log->epochs);
    gr_producer_state_fini(&log->producers);
    free(log->dir); /* log->topic shares its allocation */
    free(log);
}

int gr_log_open(const gr_log_config_t *cfg, const char *dir, const gr_log_open_args_t *args,
                gr_log_t **out, gr_log_open_stats_t *stats)
{
    gr_log_open_stats_t local;
    char topic[GR_TOPIC_NAME_MAX + 1], path[GR_PATH_MAX];
    int32_t partition;
    const char *slash = strrchr(dir, '/');
    if (!args || !args->fds || !cfg)
        return -EINVAL;
    if (gr_log_dir_parse_name(slash ? slash + 1 : dir, topic, &partition) < 0)
        return -EINVAL;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);

    gr_log_t *log = calloc(1, sizeof *log);
    if (!log)
        return -ENOMEM;
    int rc = -ENOMEM;
    /* One allocation for both strings: a malloc per partition less. */
    size_t dir_size = strlen(dir) + 1, topic_size = strlen(topic) + 1;
    log->dir = malloc(dir_size + topic_size);
    if (!log->dir)
        goto fail;
    memcpy(log->dir, dir, dir_size);
    log->topic = memcpy(log->dir + dir_size, topic, topic_size);
    log->partition = partition;
    log->config = *cfg;
    log->io = args->io ? args->io : gr_io_default();
    log->fds = args->fds;
    log->last_now_ms = args->now_ms;
    log->last_flush_ms = args->now_ms;
    log->flush_set = args->flush_set;
    log->clean_first_dirty = -1;
    gr_epoch_cache_init(&log->epochs);
    gr_producer_state_init(&log->producers);

    rc = log->io->mkdir(log->io->ctx, dir, 0755);
    if (rc < 0 && rc != -EEXIST)
        goto fail;
    log_read_partition_metadata(log);
    log_path(log, EPOCH_CHECKPOINT_FILE, path, sizeof path);
    rc = gr_epoch_cache_read(&log->epochs, log->io, path);
    if (rc < 0 && rc != -ENOENT && rc != -EINVAL)
        goto fail;
    /* Missing or unreadable (a crash between flushes may leave it empty):
     * rebuilt from the batch headers while loading. */
    bool epochs_bad = rc < 0;

    int64_t txn_rebuild;
    rc = log_load(log, args, epochs_bad, stats, &txn_rebuild);
    if (rc < 0)
        goto fail;

    int64_t leo = log_active(log)->next_offset;
    log->log_start_offset = log->segs[0]->base_offset;
    if (args->log_start_offset > log->log_start_offset)
        log->log_start_offset = args->log_start_offset < leo ? args->log_start_offset : leo;
    log->high_watermark = leo;
    if (args->high_watermark >= 0 && args->high_watermark < leo)
        log->high_watermark = args->high_watermark > log->log_start_offset ? args->high_watermark
                                                                           : log->log_start_offset;
    bool epochs_changed = gr_epoch_cache_truncate_end(&log->epochs, leo) > 0;
    epochs_changed |= gr_epoch_cache_truncate_start(&log->epochs, log->log_start_offset) > 0;
    if (epochs_changed || stats->segments_recovered > 0 || (epochs_bad && log->epochs.count)) {
        rc = log_write_epochs(log);
        if (rc < 0)
            goto fail;
    }

    /* After a clean shutdown everything is durable; recovered data is made
     * durable now. Either way the recovery point is the end. A new log's
     * directory is fsynced by its first flush. */
    log->recovery_point = leo;
    rc = gr_log_producers_load(log, args->clean_shutdown, txn_rebuild);
    if (rc < 0)
        goto fail;
    gr_producer_state_on_high_watermark(&log->producers, log->high_watermark);
    if (stats->segments_recovered > 0) {
        rc = gr_log_flush(log);
        if (rc < 0)
            goto fail;
    }
    *out = log;
    return 0;
fail:
    log_free(log); /* no flush: nothing recovered is trusted yet */
    return rc;
}

int gr_log_close(gr_log_t *log)
{
    if (!log)
        return 0;
    int rc = log->nsegs ? gr_log_flush(log) : 0;
    if (log->nsegs) {
        int src = gr_log_producers_snapshot(log, gr_log_end_offset(log));
        if (rc == 0)
            rc = src;
    }
    log_free(log);
    return rc;
}

int gr_log_delete(gr_log_t *log)
{
    if (!log)
        return 0;
    uint8_t rnd[16];
    char hex[33], to[GR_PATH_MAX];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        for (size_t i = 0; i < sizeof rnd; i++)
            rnd[i] = (uint8_t)((uintptr_t)log >> (i % 8) ^ (uint8_t)log->last_now_ms ^ i);
    }
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
    snprintf(to, sizeof to, "%s.%s" DELETE_DIR_SUFFIX, log->dir, hex);
    const gr_io_ops_t *io = log->io;
    /* The files go with the directory: nothing to unlink one by one. */
    for (size_t i = 0; i < log->npending; i++)
        free(log->pending[i].path);
    log->npending = 0;
    char *dir = strdup(log->dir);
    log_free(log);
    if (!dir)
        return -ENOMEM;
    int rc = io->rename(io->ctx, dir, to);
    if (rc == 0) {
        char parent[GR_PATH_MAX];
        const char *slash = strrchr(dir, '/');
        snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - dir) : 1, slash ? dir : ".");
        gr_io_fsync_dir(io, parent);
        rc = gr_log_dir_remove_tree(io, to);
    }
    free(dir);
    return rc;
}

void gr_log_set_config(gr_log_t *log, const gr_log_config_t *cfg)
{
    log->config = *cfg;
    if (cfg->flush_ms == INT64_MAX)
        gr_log_flush_set_leave(log);
    else
        gr_log_flush_set_join(log); /* data appended while flush.ms was infinite */
}

const gr_log_config_t *gr_log_config(const gr_log_t *log)
{
    return &log->config;
}

const char *gr_log_dir(const gr_log_t *log)
{
    return log->dir;
}

const char *gr_log_topic(const gr_log_t *log)
{
    return log->topic;
}

int32_t gr_log_partition(const gr_log_t *log)
{
    return log->partition;
}

int64_t gr_log_start_offset(const gr_log_t *log)
{
    return log->log_start_offset;
}

int64_t gr_log_end_offset(const gr_log_t *log)
{
    return log_active(log)->next_offset;
}

int64_t gr_log_high_watermark(const gr_log_t *log)
{
    return log->high_watermark;
}

void gr_log_set_high_watermark(gr_log_t *log, int64_t hw)
{
    int64_t leo = gr_log_end_offset(log);
    if (hw > leo)
        hw = leo;
    if (hw < log->log_start_offset)
        hw = log->log_start_offset;
    log->high_watermark = hw;
    gr_producer_state_on_high_watermark(&log->producers, hw);
}

int64_t gr_log_last_stable_offset(const gr_log_t *log)
{
    int64_t hw = log->high_watermark;
    int64_t first = gr_producer_state_first_unstable(&log->producers, hw);
    if (first < 0 || first >= hw)
        return hw;
    return first > log->log_start_offset ? first : log->log_start_offset;
}

int gr_log_collect_aborted(gr_log_t *log, int64_t from, int64_t upper, gr_aborted_txn_t **out,
                           size_t *out_count)
{
    size_t cap = 0;
    bool complete = false;
    *out = NULL;
    *out_count = 0;
    ssize_t i = log_find_segment(log, from);
    for (size_t k = i < 0 ? 0 : (size_t)i; k < log->nsegs && !complete; k++) {
        int rc = gr_txn_index_collect(log->segs[k], from, upper, out, out_count, &cap, &complete);
        if (rc < 0) {
            free(*out);
            *out = NULL;
            *out_count = 0;
            return rc;
        }
    }
    return 0;
}

int64_t gr_log_recovery_point(const gr_log_t *log)
{
    return log->recovery_point;
}

int64_t gr_log_size(const gr_log_t *log)
{
    int64_t size = 0;
    for (size_t i = 0; i < log->nsegs; i++)
        size += log->segs[i]->size;
    return size;
}

int gr_log_segment_count(const gr_log_t *log)
{
    return (int)log->nsegs;
}

/* ---- append ----------------------------------------------------------- */

/* Seals the active segment and starts one at max(log end offset, first). */
static int log_roll(gr_log_t *log, int64_t first, int64_t now_ms)
{
    gr_segment_t *old = log_active(log);
    int64_t base = old->next_offset > first ? old->next_offset : first;
    /* Index write errors are not fatal: the indexes are rebuilt if needed.
     * So is a failed snapshot: the state is replayed from an older one. */
    gr_segment_seal(old);
    if (log->producers.count > 0)
        gr_log_producers_snapshot(log, base);
    gr_segment_t *seg = gr_segment_new(log->dir, base, log->io, log->fds);
    int rc = seg ? gr_segment_create_files(seg) : -ENOMEM;
    if (rc == 0)
        rc = log_push_segment(log, seg);
    if (rc < 0) {
        gr_segment_put(seg);
        old->active = true;
        return rc;
    }
    seg->active = true;
    seg->created_ms = now_ms;
    log->dir_dirty = true;
    return 0;
}

/* Kafka's roll conditions for an append of len bytes whose max timestamp is max_ts. */
static bool log_should_roll(const gr_log_t *log, int64_t len, int64_t max_ts, int64_t last_offset,
                            int64_t now_ms)
{
    const gr_segment_t *seg = log_active(log);
    const gr_log_config_t *cfg = &log->config;
    if (seg->size == 0)
        return false;
    if (seg->size > cfg->segment_bytes - len)
        return true;
    int64_t waited = seg->first_batch_timestamp >= 0 ? max_ts - seg->first_batch_timestamp
                                                     : now_ms - seg->created_ms;
    if (waited > cfg->segment_ms)
        return true;
    if ((int64_t)seg->oidx_count >= cfg->segment_index_bytes / GR_OFFSET_INDEX_ENTRY_SIZE ||
        (int64_t)seg->tidx_count >= cfg->segment_index_bytes / GR_TIME_INDEX_ENTRY_SIZE)
        return true;
    return last_offset - seg->base_offset > INT32_MAX;
}

/*
 * Checks the framing of the batches (the caller validated their content)
 * and sums them up. Returns 0, -EINVAL or -EMSGSIZE.
 */
static int log_check_batches(const gr_log_t *log, const uint8_t *batches, size_t len,
                             int64_t *out_max_ts, int64_t *out_records, int64_t *out_count,
                             int64_t *out_append_time)
{
    if (!batches || len == 0)
        return -EINVAL;
    *out_max_ts = GR_LOG_NO_TIMESTAMP;
    *out_records = 0;
    *out_count = 0;
    *out_append_time = GR_LOG_NO_TIMESTAMP;
    for (size_t off = 0; off < len;) {
        gr_batch_header_t h;
        if (gr_batch_header_parse(batches + off, len - off, &h) < 0 ||
            h.magic != GR_RECORD_BATCH_MAGIC_V2 || h.last_offset_delta < 0 ||
            h.batch_length < GR_RECORD_BATCH_HEADER_SIZE - GR_RECORD_BATCH_LOG_OVERHEAD ||
            gr_batch_size(&h) > (int64_t)(len - off))
            return -EINVAL;
        if (gr_batch_size(&h) > log->config.segment_bytes)
            return -EMSGSIZE;
        if (h.max_timestamp > *out_max_ts)
            *out_max_ts = h.max_timestamp;
        /* The time the leader stamped, which the records carry (not this append's clock). */
        if ((h.attributes & GR_BATCH_ATTR_LOG_APPEND_TIME) && h.max_timestamp > *out_append_time)
            *out_append_time = h.max_timestamp;
        *out_records += h.last_offset_delta + 1;
        (*out_count)++;
        off += (size_t)gr_batch_size(&h);
    }
    return 0;
}

/*
 * Producer state follows every appended batch that carries a producer id;
 * an ABORT marker that ends a transaction goes into the transaction index
 * of seg, the segment that holds it. Returns 0 or the index's -errno (the
 * batches are appended regardless).
 */
static int log_update_producers(gr_log_t *log, gr_segment_t *seg, const uint8_t *batches,
                                size_t len)
{
    int rc = 0;
    for (size_t off = 0; off < len;) {
        gr_batch_header_t h;
        gr_batch_header_parse(batches + off, len - off, &h);
        size_t size = (size_t)gr_batch_size(&h);
        gr_control_marker_t marker;
        bool has_marker = gr_batch_is_control(&h) && h.producer_id >= 0 &&
                          gr_control_batch_parse(batches + off, size, &h, &marker) == 0;
        gr_txn_end_t end;
        /* Cannot fail: reserved. */
        gr_producer_state_update(&log->producers, &h, has_marker ? &marker : NULL, &end);
        if (end.ended && end.aborted) {
            int irc = gr_txn_index_append(seg, &end.txn);
            if (rc == 0)
                rc = irc;
        }
        off += size;
    }
    return rc;
}

static int log_append(gr_log_t *log, uint8_t *batches, size_t len, bool assign,
                      int32_t leader_epoch, int64_t now_ms, gr_log_append_info_t *out)
{
    int64_t max_ts, records, count, append_time;
    int rc = log_check_batches(log, batches, len, &max_ts, &records, &count, &append_time);
    if (rc < 0)
        return rc;
    log->last_now_ms = now_ms;
    int64_t leo = gr_log_end_offset(log);
    int64_t first = -1, next = leo;
    size_t with_producer = 0, markers = 0;

    /* Offsets: assigned, or checked (follower). Nothing is written yet. */
    for (size_t off = 0; off < len;) {
        gr_batch_header_t h;
        gr_batch_header_parse(batches + off, len - off, &h);
        if (assign) {
            gr_batch_set_base_offset(batches + off, next);
            gr_batch_set_leader_epoch(batches + off, leader_epoch);
            h.base_offset = next;
        } else if (h.base_offset < next) {
            return -EINVAL;
        }
        if (first < 0)
            first = h.base_offset;
        next = h.base_offset + h.last_offset_delta + 1;
        with_producer += h.producer_id >= 0;
        markers += gr_batch_is_control(&h);
        off += (size_t)gr_batch_size(&h);
    }
    /* Room to record every producer batch before any is written. */
    rc = gr_producer_state_reserve(&log->producers, with_producer);
    if (rc < 0)
        return rc;
    gr_segment_t *seg = log_active(log);
    if (log_should_roll(log, (int64_t)len, max_ts, next - 1, now_ms) ||
        (first > seg->base_offset && next - 1 - seg->base_offset > INT32_MAX)) {
        rc = log_roll(log, first, now_ms);
        if (rc < 0)
            return rc;
        seg = log_active(log);
    }
    if (markers > 0) {
        /* Missing or damaged reads as empty; open rebuilt such files. */
        rc = gr_txn_index_load(seg);
        if (rc < 0 && rc != -ENOENT && rc != -EINVAL)
            return rc;
        rc = gr_txn_index_reserve(seg, markers);
        if (rc < 0)
            return rc;
    }
    rc = gr_segment_append(seg, batches, len, log->config.index_interval_bytes);
    if (rc < 0)
        return rc;
    int index_rc = log_update_producers(log, seg, batches, len);

    /* Leader epochs. */
    bool epochs_changed = false;
    if (assign) {
        epochs_changed = gr_epoch_cache_assign(&log->epochs, leader_epoch, first) > 0;
    } else {
        for (size_t off = 0; off < len;) {
            gr_batch_header_t h;
            gr_batch_header_parse(batches + off, len - off, &h);
            if (gr_epoch_cache_assign(&log->epochs, h.partition_leader_epoch, h.base_offset) > 0)
                epochs_changed = true;
            off += (size_t)gr_batch_size(&h);
        }
    }
    if (epochs_changed)
        log_write_epochs(log); /* the cache is rebuilt from batches on recovery */

    if (out) {
        memset(out, 0, sizeof *out);
        out->first_offset = first;
        out->last_offset = next - 1;
        out->log_append_time = append_time;
        out->max_timestamp = max_ts;
        out->records = (int32_t)records;
    }

    /* Flush policy. A log that had nothing unflushed starts its flush.ms
     * period now rather than at its last flush (the nothing in between was
     * as good as flushed); it joins the flush set for the tick to finish. */
    if (leo <= log->recovery_point && now_ms - log->last_flush_ms >= log->config.flush_ms)
        log->last_flush_ms = now_ms;
    log->unflushed_messages += records;
    gr_log_flush_set_join(log);
    bool flushed = false;
    if (log->unflushed_messages >= log->config.flush_messages ||
        (log->config.flush_ms != INT64_MAX &&
         now_ms - log->last_flush_ms >= log->config.flush_ms)) {
        rc = gr_log_flush(log);
        if (rc < 0)
            return rc; /* the data is appended but its durability is unknown */
        flushed = true;
    }
    if (out) {
        out->log_start_offset = log->log_start_offset;
        out->flushed = flushed;
    }
    /* Like a failed fsync: appended, but an index the log relies on was not written. */
    return index_rc;
}

int gr_log_append(gr_log_t *log, uint8_t *batches, size_t len, int32_t leader_epoch,
                  int64_t append_time, gr_log_append_info_t *out)
{
    return log_append(log, batches, len, true, leader_epoch, append_time, out);
}

int gr_log_append_as_follower(gr_log_t *log, uint8_t *batches, size_t len, int64_t now_ms,
                              gr_log_append_info_t *out)
{
    return log_append(log, batches, len, false, GR_LOG_NO_EPOCH, now_ms, out);
}

int gr_log_flush(gr_log_t *log)
{
    int rc = 0;
    for (size_t i = 0; i < log->nsegs && rc == 0; i++)
        rc = gr_segment_flush(log->segs[i]);
    if (rc == 0 && log->epochs_dirty) {
        char path[GR_PATH_MAX];
        log_path(log, EPOCH_CHECKPOINT_FILE, path, sizeof path);
        rc = gr_epoch_cache_write(&log->epochs, log->io, path, true);
        if (rc == 0)
            log->epochs_dirty = false;
    }
    if (rc == 0 && log->dir_dirty) {
        rc = gr_io_fsync_dir(log->io, log->dir);
        if (rc == 0)
            log->dir_dirty = false;
    }
    if (rc < 0)
        return rc;
    log->recovery_point = gr_log_end_offset(log);
    log->unflushed_messages = 0;
    log->last_flush_ms = log_now(log);
    gr_log_flush_set_leave(log);
    return 0;
}

int gr_log_maybe_flush(gr_log_t *log, int64_t now_ms)
{
    if (now_ms > log->last_now_ms)
        log->last_now_ms = now_ms;
    if (log->config.flush_ms == INT64_MAX || log->recovery_point >= gr_log_end_offset(log)) {
        gr_log_flush_set_leave(log); /* clean (e.g. truncated), or flush.ms turned off */
        return 0;
    }
    if (now_ms - log->last_flush_ms < log->config.flush_ms)
        return 0;
    int rc = gr_log_flush(log);
    return rc < 0 ? rc : 1;
}

/* ---- read ------------------------------------------------------------- */

int gr_log_read(gr_log_t *log, int64_t offset, int32_t max_bytes, bool min_one_batch,
                int64_t max_offset, gr_log_read_result_t *out)
{
    return gr_log_read_batches(log, offset, max_bytes, min_one_batch, max_offset, NULL, NULL, out);
}

int gr_log_read_batches(gr_log_t *log, int64_t offset, int32_t max_bytes, bool min_one_batch,
                        int64_t max_offset, gr_log_batch_fn fn, void *arg,
                        gr_log_read_result_t *out)
{
    int64_t leo = gr_log_end_offset(log);
    memset(out, 0, sizeof *out);
    out->fd = -1;
    out->first_offset = -1;
    out->log_start_offset = log->log_start_offset;
    out->log_end_offset = leo;
    out->high_watermark = log->high_watermark;
    if (offset < log->log_start_offset || offset > leo)
        return -ERANGE;
    if (offset == leo || offset >= max_offset)
        return 0;
    ssize_t i = log_find_segment(log, offset);
    for (size_t k = i < 0 ? 0 : (size_t)i; k < log->nsegs; k++) {
        gr_segment_t *seg = log->segs[k];
        gr_segment_get(seg);
        int rc = gr_segment_load_indexes(seg, log->config.index_interval_bytes);
        int64_t pos = 0, len = 0, next = -1;
        gr_batch_header_t h;
        if (rc >= 0)
            rc = gr_segment_find_batch(seg, offset, gr_segment_index_lookup(seg, offset), &pos, &h);
        if (rc >= 0 && pos < seg->size)
            rc = gr_segment_span(seg, pos, max_bytes < 0 ? 0 : max_bytes, min_one_batch, max_offset,
                                 fn, arg, &len, &next);
        if (rc >= 0 && len > 0)
            rc = gr_segment_fd(seg);
        if (rc < 0) {
            gr_segment_put(seg);
            return rc;
        }
        if (pos >= seg->size) {
            gr_segment_put(seg);
            continue; /* offset is past this segment's data: try the next one */
        }
        if (len == 0) {
            gr_segment_put(seg);
            return 0;
        }
        out->segment = seg; /* the reference taken above goes to the caller */
        out->fd = seg->fd;
        out->file_pos = pos;
        out->len = (int32_t)len;
        out->first_offset = h.base_offset;
        out->next_offset = next;
        return 0;
    }
    return 0;
}

/* ---- timestamps and epochs -------------------------------------------- */

/*
 * Reads the whole batch at pos (header h) and finds its first record with
 * timestamp >= ts (ts < 0: the first record whose timestamp is h's max),
 * decompressing a compressed batch. With LogAppendTime every record carries
 * the batch's max timestamp, so the first record answers.
 */
static int log_find_record(gr_segment_t *seg, int64_t pos, const gr_batch_header_t *h, int64_t ts,
                           gr_log_offset_ts_t *out)
{
    out->offset = h->base_offset;
    out->timestamp = h->max_timestamp;
    out->leader_epoch = h->partition_leader_epoch;
    if (h->attributes & GR_BATCH_ATTR_LOG_APPEND_TIME)
        return 0;
    bool exact = ts < 0;
    int64_t target = exact ? h->max_timestamp : ts;
    int64_t size = gr_batch_size(h);
    uint8_t *buf = malloc((size_t)size), *records = NULL;
    size_t records_len = 0;
    if (!buf)
        return -ENOMEM;
    int fd = gr_segment_fd(seg);
    ssize_t n = fd < 0 ? fd : gr_io_pread_all(seg->io, fd, buf, (size_t)size, pos);
    int rc = n < 0 ? (int)n : n < size ? -ENODATA : 0;
    if (rc == 0)
        rc = gr_batch_decompress(buf, (size_t)size, &records, &records_len);
    if (rc == 0) {
        gr_record_iter_t it;
        gr_record_t rec;
        gr_record_iter_init(&it, records, records_len, h->records_count);
        while (gr_record_iter_next(&it, &rec) == 1) {
            int64_t rts = h->base_timestamp + rec.timestamp_delta;
            if (exact ? rts == target : rts >= target) {
                out->offset = h->base_offset + rec.offset_delta;
                out->timestamp = rts;
                break;
            }
        }
    }
    free(records);
    free(buf);
    return rc == -EBADMSG || rc == -ENOTSUP ? 0 : rc; /* undecodable: the batch answers */
}

static int log_offset_for_max_timestamp(gr_log_t *log, gr_log_offset_ts_t *out)
{
    gr_segment_t *best = NULL;
    for (size_t i = 0; i < log->nsegs; i++) {
        int64_t ts = gr_segment_max_timestamp(log->segs[i], log->config.index_interval_bytes);
        if (ts >= 0 && (!best || ts > best->max_timestamp))
            best = log->segs[i];
    }
    if (!best)
        return 0;
    gr_segment_get(best);
    int64_t target = best->offset_of_max_timestamp;
    int rc = gr_segment_load_indexes(best, log->config.index_interval_bytes);
    int64_t pos = 0;
    gr_batch_header_t h;
    if (rc >= 0)
        rc = gr_segment_find_batch(best, target, gr_segment_index_lookup(best, target), &pos, &h);
    if (rc >= 0) {
        rc = 0;
        if (pos < best->size)
            rc = log_find_record(best, pos, &h, -1, out);
    }
    gr_segment_put(best);
    return rc;
}

int gr_log_offset_for_timestamp(gr_log_t *log, int64_t ts, gr_log_offset_ts_t *out)
{
    out->offset = -1;
    out->timestamp = GR_LOG_NO_TIMESTAMP;
    out->leader_epoch = GR_LOG_NO_EPOCH;
    if (ts == GR_LOG_TIMESTAMP_LATEST) {
        out->offset = gr_log_end_offset(log);
        out->leader_epoch = gr_epoch_cache_latest(&log->epochs);
        return 0;
    }
    if (ts == GR_LOG_TIMESTAMP_EARLIEST) {
        out->offset = log->log_start_offset;
        out->leader_epoch = gr_epoch_cache_epoch_for(&log->epochs, log->log_start_offset);
        return 0;
    }
    if (ts == GR_LOG_TIMESTAMP_MAX)
        return log_offset_for_max_timestamp(log, out);
    if (ts < 0)
        return -EINVAL;
    for (size_t i = 0; i < log->nsegs; i++) {
        gr_segment_t *seg = log->segs[i];
        if (gr_segment_max_timestamp(seg, log->config.index_interval_bytes) < ts)
            continue;
        gr_segment_get(seg);
        int rc = gr_segment_load_indexes(seg, log->config.index_interval_bytes);
        int64_t pos = 0, from = 0;
        if (rc >= 0) {
            int64_t off = gr_segment_time_lookup(seg, ts);
            if (off < log->log_start_offset)
                off = log->log_start_offset;
            from = gr_segment_index_lookup(seg, off);
        }
        /* First batch from there with max timestamp >= ts. */
        while (rc >= 0 && from < seg->size) {
            gr_batch_header_t h;
            rc = gr_segment_read_header(seg, from, &h);
            if (rc < 0)
                break;
            pos = from;
            from += gr_batch_size(&h);
            if (h.max_timestamp >= ts &&
                h.base_offset + h.last_offset_delta >= log->log_start_offset) {
                rc = log_find_record(seg, pos, &h, ts, out);
                if (out->offset < log->log_start_offset)
                    out->offset = log->log_start_offset;
                gr_segment_put(seg);
                return rc;
            }
        }
        gr_segment_put(seg);
        if (rc < 0 && rc != -ENODATA)
            return rc;
    }
    return 0;
}

void gr_log_end_offset_for_epoch(const gr_log_t *log, int32_t epoch, int32_t *out_epoch,
                                 int64_t *out_end_offset)
{
    gr_epoch_cache_end_offset_for(&log->epochs, epoch, gr_log_end_offset(log), out_epoch,
                                  out_end_offset);
}

int32_t gr_log_latest_epoch(const gr_log_t *log)
{
    return gr_epoch_cache_latest(&log->epochs);
}

/* ---- retention and truncation ----------------------------------------- */

/* The segment's age reference: its largest timestamp, or its file's mtime. */
static int64_t log_segment_time(gr_log_t *log, gr_segment_t *seg)
{
    int64_t ts = gr_segment_max_timestamp(seg, log->config.index_interval_bytes);
    if (ts >= 0)
        return ts;
    char path[GR_PATH_MAX];
    int64_t mtime = 0;
    gr_segment_file(seg, ".log", path, sizeof path);
    if (log->io->stat(log->io->ctx, path, NULL, &mtime) < 0)
        return INT64_MAX; /* unknown: never expires by time */
    return mtime;
}

/* True when the front segment may go: wholly below the high watermark. */
static bool log_front_deletable(const gr_log_t *log)
{
    return log->nsegs > 1 && log->segs[1]->base_offset <= log->high_watermark;
}

static int log_after_front_deletes(gr_log_t *log, int deleted)
{
    if (deleted > 0 && gr_epoch_cache_truncate_start(&log->epochs, log->log_start_offset) > 0)
        log_write_epochs(log);
    return deleted;
}

int gr_log_enforce_retention(gr_log_t *log, int64_t now_ms)
{
    if (now_ms > log->last_now_ms)
        log->last_now_ms = now_ms;
    const gr_log_config_t *cfg = &log->config;
    int deleted = 0, rc = 0;
    if (cfg->cleanup_delete && cfg->retention_ms >= 0) {
        while (log_front_deletable(log) &&
               now_ms - log_segment_time(log, log->segs[0]) > cfg->retention_ms) {
            rc = log_delete_front(log);
            deleted++;
        }
    }
    if (cfg->cleanup_delete && cfg->retention_bytes >= 0) {
        int64_t size = gr_log_size(log);
        while (log_front_deletable(log) && size - log->segs[0]->size >= cfg->retention_bytes) {
            size -= log->segs[0]->size;
            rc = log_delete_front(log);
            deleted++;
        }
    }
    while (log_front_deletable(log) && log->segs[1]->base_offset <= log->log_start_offset) {
        rc = log_delete_front(log);
        deleted++;
    }
    log_pending_run(log, now_ms);
    log_after_front_deletes(log, deleted);
    return rc < 0 ? rc : deleted;
}

int gr_log_delete_records_before(gr_log_t *log, int64_t offset, int64_t *out_low_watermark)
{
    if (offset > log->high_watermark || offset < 0)
        return -ERANGE;
    int deleted = 0, rc = 0;
    if (offset > log->log_start_offset) {
        log->log_start_offset = offset;
        if (log->recovery_point < offset)
            log->recovery_point = offset; /* recovery rescans the segment holding it */
        while (log_front_deletable(log) && log->segs[1]->base_offset <= log->log_start_offset) {
            rc = log_delete_front(log);
            deleted++;
        }
        if (gr_epoch_cache_truncate_start(&log->epochs, log->log_start_offset) > 0)
            log_write_epochs(log);
    }
    if (out_low_watermark)
        *out_low_watermark = log->log_start_offset;
    return rc;
}

/* Drops every segment and starts empty at offset. 0, -ENOMEM (unchanged) or -errno. */
static int log_start_over(gr_log_t *log, int64_t offset)
{
    gr_segment_t *seg = gr_segment_new(log->dir, offset, log->io, log->fds);
    if (!seg)
        return -ENOMEM;
    while (log->nsegs > 0)
        log_discard_segment(log, log->segs[--log->nsegs], 0);
    log_push_segment(log, seg); /* cannot fail: capacity >= 1 */
    int rc = gr_segment_create_files(seg);
    seg->active = true;
    seg->created_ms = log_now(log);
    log->log_start_offset = offset;
    log->dir_dirty = true;
    return rc;
}

/* After a truncation: offsets, epochs and producers follow the new end. */
static int log_after_truncation(gr_log_t *log, int rc)
{
    int64_t leo = gr_log_end_offset(log);
    if (log->high_watermark > leo)
        log->high_watermark = leo;
    if (log->recovery_point > leo)
        log->recovery_point = leo;
    if (log->log_start_offset > leo)
        log->log_start_offset = leo;
    if (gr_epoch_cache_truncate_end(&log->epochs, leo) > 0) {
        int wrc = log_write_epochs(log);
        if (rc >= 0)
            rc = wrc;
    }
    if (rc >= 0)
        rc = gr_log_producers_load(log, false, INT64_MAX);
    return rc < 0 ? rc : 0;
}

int gr_log_reset_to(gr_log_t *log, int64_t offset)
{
    if (offset < 0)
        return -EINVAL;
    int rc = log_start_over(log, offset);
    if (rc == -ENOMEM)
        return rc;
    log->epochs.count = 0; /* no batch is left to carry an epoch */
    (void)log_write_epochs(log);
    return log_after_truncation(log, rc);
}

int gr_log_truncate_to(gr_log_t *log, int64_t offset)
{
    int rc;
    if (offset < 0)
        return -EINVAL;
    if (offset >= gr_log_end_offset(log))
        return 0;
    if (offset < log->segs[0]->base_offset) {
        rc = log_start_over(log, offset);
        if (rc == -ENOMEM)
            return rc;
    } else {
        while (log->segs[log->nsegs - 1]->base_offset > offset)
            log_discard_segment(log, log->segs[--log->nsegs], 0);
        gr_segment_t *seg = log_active(log);
        gr_segment_get(seg);
        rc = gr_segment_load_indexes(seg, log->config.index_interval_bytes);
        int64_t pos = 0;
        gr_batch_header_t h;
        if (rc >= 0)
            rc = gr_segment_find_batch(seg, offset, gr_segment_index_lookup(seg, offset), &pos, &h);
        if (rc >= 0 && pos < seg->size)
            rc = gr_segment_truncate(seg, pos, h.base_offset);
        if (rc >= 0)
            rc = gr_segment_activate(seg, log_now(log));
        gr_segment_put(seg);
    }
    return log_after_truncation(log, rc);
}

/* ---- producers --------------------------------------------------------- */

const gr_producer_state_t *gr_log_producer_state(const gr_log_t *log)
{
    return &log->producers;
}

size_t gr_log_expire_producers(gr_log_t *log, int64_t now_ms, int64_t expiration_ms)
{
    return gr_producer_state_expire(&log->producers, now_ms, expiration_ms);
}
