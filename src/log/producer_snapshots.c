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
 * it replayed from the segments' headers. Snapshots past the log end (the
 * log was truncated by recovery) are stale and removed.
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

typedef struct replay {
    gr_log_t *log;
    int64_t from; /* batches below this are already in the state */
    int rc;
} replay_t;

static void replay_batch(void *arg, const gr_batch_header_t *h)
{
    replay_t *r = arg;
    if (h->base_offset < r->from || h->producer_id < 0 || r->rc < 0)
        return;
    r->rc = gr_producer_state_update(&r->log->producers, h);
}

/* Applies the batches from offset on. 0 or -errno. */
static int replay_from(gr_log_t *log, int64_t from)
{
    replay_t r = {log, from, 0};
    for (size_t i = 0; i < log->nsegs && r.rc == 0; i++) {
        gr_segment_t *seg = log->segs[i];
        if (seg->size == 0 || seg->next_offset <= from)
            continue;
        int rc = gr_segment_walk(seg, replay_batch, &r);
        if (rc < 0)
            return rc;
    }
    return r.rc;
}

int gr_log_producers_load(gr_log_t *log, bool clean_shutdown)
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
    if (n == 0 && clean_shutdown) {
        free(offsets);
        return 0;
    }
    int64_t from = log->segs[log->nsegs - 1]->base_offset;
    while (n > 0) {
        char path[GR_PATH_MAX];
        snapshot_path(log, offsets[n - 1], path, sizeof path);
        rc = gr_producer_state_read(&log->producers, log->io, path);
        if (rc == 0) {
            from = offsets[n - 1];
            break;
        }
        if (rc == -ENOMEM) {
            free(offsets);
            return rc;
        }
        snapshot_remove(log, offsets[--n]); /* unreadable: an older one, or the log */
    }
    free(offsets);
    return from < leo ? replay_from(log, from) : 0;
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
