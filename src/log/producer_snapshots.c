/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A partition's producer-state snapshots: "<20-digit offset>.snapshot"
 * files beside the segments, each the state as of that offset (format in
 * producer_state.h). One is written at every roll (named after the new
 * segment's base offset) while there are producers, and one at close; they
 * go with the segments below them.
 *
 * Loading (gr_log_producers_load) follows Kafka's recovery: the newest
 * readable snapshot at or below the log end offset, then the batches after
 * it replayed from the segments (headers, and the record of each marker).
 * Snapshots past the log end (the log was truncated by recovery) are stale
 * and removed. When transaction indexes must be rebuilt (segments rescanned
 * after an unclean shutdown, or a .txnindex missing), the replay starts at
 * the newest snapshot at or below the first such segment instead, and
 * writes the indexes of that segment and every later one from the ABORT
 * markers it meets: the index, like the state, is a function of the log.
 *
 * Runs on: the loop thread.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/log_int.h"
#include "protocol/control_batch.h"

static void snapshot_path(const gr_log_t *log, int64_t offset, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%020" PRId64 GR_PRODUCER_SNAPSHOT_SUFFIX, log->dir, offset);
}

static int cmp_offsets(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The snapshot offsets in the log dir, sorted (malloc'd). 0 or -errno. */
static int snapshot_list(const gr_log_t *log, int64_t **out, size_t *out_count)
{
    DIR *d = opendir(log->dir);
    if (!d)
        return -errno;
    int64_t *offsets = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int64_t off = gr_segment_name_offset(e->d_name, GR_PRODUCER_SNAPSHOT_SUFFIX);
        if (off < 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            int64_t *more = realloc(offsets, cap * sizeof *more);
            if (!more) {
                free(offsets);
                closedir(d);
                return -ENOMEM;
            }
            offsets = more;
        }
        offsets[n++] = off;
    }
    closedir(d);
    if (n > 1)
        qsort(offsets, n, sizeof *offsets, cmp_offsets);
    *out = offsets;
    *out_count = n;
    return 0;
}

static void snapshot_remove(gr_log_t *log, int64_t offset)
{
    char path[GR_PATH_MAX];
    snapshot_path(log, offset, path, sizeof path);
    log->io->unlink(log->io->ctx, path);
}

#define REPLAY_CHUNK      (64 * 1024)
#define REPLAY_MARKER_MAX 4096 /* a marker batch is under 100 bytes: larger is not one */

/* The marker of the control batch at pos (header h), if it is a well-formed one. */
static bool replay_marker(gr_segment_reader_t *r, int64_t pos, const gr_batch_header_t *h,
                          gr_control_marker_t *out, int *rc)
{
    const uint8_t *p = NULL;
    int64_t size = gr_batch_size(h);
    *rc = 0;
    if (!gr_batch_is_control(h) || size > REPLAY_MARKER_MAX)
        return false;
    *rc = gr_segment_reader_get(r, pos, (size_t)size, &p);
    if (*rc == -ENODATA)
        *rc = 0;
    return *rc == 0 && p && gr_control_batch_parse(p, (size_t)size, h, out) == 0;
}

/*
 * Applies the batches of seg from offset from on to the producer state;
 * with rebuild, also writes seg's transaction index anew from its ABORT
 * markers. 0 or -errno.
 */
static int replay_segment(gr_log_t *log, gr_segment_t *seg, int64_t from, bool rebuild)
{
    int rc = rebuild ? gr_txn_index_reset(seg) : 0;
    if (rc < 0)
        return rc;
    gr_segment_reader_t r;
    gr_segment_reader_init(&r, seg, REPLAY_CHUNK);
    for (int64_t pos = 0; pos < seg->size && rc == 0;) {
        const uint8_t *p = NULL;
        gr_batch_header_t h;
        rc = gr_segment_reader_get(&r, pos, GR_RECORD_BATCH_HEADER_SIZE, &p);
        if (rc < 0 || gr_batch_header_parse(p, GR_RECORD_BATCH_HEADER_SIZE, &h) < 0)
            break;
        int64_t at = pos;
        pos += gr_batch_size(&h);
        if (h.base_offset < from || h.producer_id < 0)
            continue;
        gr_control_marker_t marker;
        bool has_marker = replay_marker(&r, at, &h, &marker, &rc);
        gr_txn_end_t end;
        if (rc == 0)
            rc = gr_producer_state_update(&log->producers, &h, has_marker ? &marker : NULL, &end);
        if (rc == 0 && rebuild && end.ended && end.aborted)
            rc = gr_txn_index_append(seg, &end.txn);
    }
    gr_segment_reader_fini(&r);
    if (rc == -ENODATA)
        rc = 0;
    /* Durable now: a sane-looking but short index would never be rebuilt. */
    if (rc == 0 && rebuild)
        rc = gr_txn_index_flush(seg);
    /* Ended transactions below the high watermark need no keeping. */
    gr_producer_state_on_high_watermark(&log->producers, log->high_watermark);
    return rc;
}

/* Applies the batches from offset from on; rebuilds the indexes of segments from rebuild_from. */
static int replay_from(gr_log_t *log, int64_t from, int64_t rebuild_from)
{
    for (size_t i = 0; i < log->nsegs; i++) {
        gr_segment_t *seg = log->segs[i];
        bool rebuild = seg->base_offset >= rebuild_from;
        if (!rebuild && (seg->size == 0 || seg->next_offset <= from))
            continue;
        int rc = replay_segment(log, seg, from, rebuild);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Base offset of the segment holding offset (the first one's when below it). */
static int64_t segment_base_for(const gr_log_t *log, int64_t offset)
{
    int64_t base = log->segs[0]->base_offset;
    for (size_t i = 0; i < log->nsegs && log->segs[i]->base_offset <= offset; i++)
        base = log->segs[i]->base_offset;
    return base;
}

int gr_log_producers_load(gr_log_t *log, bool clean_shutdown, int64_t rebuild_from)
{
    int64_t *offsets = NULL;
    size_t n = 0;
    int64_t leo = log->segs[log->nsegs - 1]->next_offset;
    gr_producer_state_clear(&log->producers);
    int rc = snapshot_list(log, &offsets, &n);
    if (rc < 0)
        return rc;
    while (n > 0 && offsets[n - 1] > leo)
        snapshot_remove(log, offsets[--n]);
    bool rebuild = rebuild_from != INT64_MAX;
    if (n == 0 && clean_shutdown && !rebuild) {
        free(offsets);
        return 0;
    }
    /* The state is needed as of target: the log end, or where indexes are rebuilt from. */
    int64_t target = rebuild_from < leo ? rebuild_from : leo;
    size_t usable = n;
    while (usable > 0 && offsets[usable - 1] > target)
        usable--;
    /* No snapshot at or below target: there were no producers at that
     * segment's start (a roll with live producers leaves one). */
    int64_t from = segment_base_for(log, target);
    while (usable > 0) {
        char path[GR_PATH_MAX];
        snapshot_path(log, offsets[usable - 1], path, sizeof path);
        rc = gr_producer_state_read(&log->producers, log->io, path);
        if (rc == 0) {
            from = offsets[usable - 1];
            break;
        }
        if (rc == -ENOMEM) {
            free(offsets);
            return rc;
        }
        snapshot_remove(log, offsets[--usable]); /* unreadable: an older one, or the log */
    }
    free(offsets);
    return from < leo || rebuild ? replay_from(log, from, rebuild_from) : 0;
}

int gr_log_producers_snapshot(gr_log_t *log, int64_t offset)
{
    int64_t *offsets = NULL;
    size_t n = 0;
    int rc = snapshot_list(log, &offsets, &n);
    if (rc < 0)
        return rc;
    int64_t first_base = log->segs[0]->base_offset;
    for (size_t i = 0; i < n; i++) {
        if (offsets[i] < first_base && offsets[i] != offset)
            snapshot_remove(log, offsets[i]);
    }
    bool others = false;
    for (size_t i = 0; i < n; i++)
        others |= offsets[i] >= first_base && offsets[i] != offset;
    free(offsets);
    if (log->producers.count == 0 && !others)
        return 0;
    char path[GR_PATH_MAX];
    snapshot_path(log, offset, path, sizeof path);
    return gr_producer_state_write(&log->producers, log->io, path);
}
