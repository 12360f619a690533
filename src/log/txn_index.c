/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A segment's transaction index (".txnindex"), format in log_int.h.
 *
 * The entries live in memory once loaded (aborted transactions are few,
 * and every read_committed fetch looks them up), and each append is written
 * through to the file at once: the file is only fsynced with its segment
 * (gr_segment_flush), so a crash may lose entries past the recovery point,
 * and recovery rebuilds the indexes of the segments it rescans.
 *
 * Invariant: when loaded, the file holds exactly count entries (a failed
 * write or truncate leaves loaded false: the next load reads the file
 * again and, if damaged, the log treats it as damaged).
 *
 * Runs on: the loop thread (with its segment).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "log/log_int.h"

#define TXN_INDEX_MAX_BYTES (256u << 20)

enum {
    ENTRY_VERSION = 0,
    ENTRY_PRODUCER_ID = 2,
    ENTRY_FIRST_OFFSET = 10,
    ENTRY_LAST_OFFSET = 18,
    ENTRY_LAST_STABLE_OFFSET = 26,
};

static void txn_path(const gr_segment_t *seg, char *buf, size_t size)
{
    gr_segment_file(seg, GR_TXN_INDEX_SUFFIX, buf, size);
}

void gr_txn_index_encode(uint8_t *p, const gr_aborted_txn_t *txn)
{
    p[ENTRY_VERSION] = 0;
    p[ENTRY_VERSION + 1] = GR_TXN_INDEX_VERSION;
    gr_be64_put(p + ENTRY_PRODUCER_ID, (uint64_t)txn->producer_id);
    gr_be64_put(p + ENTRY_FIRST_OFFSET, (uint64_t)txn->first_offset);
    gr_be64_put(p + ENTRY_LAST_OFFSET, (uint64_t)txn->last_offset);
    gr_be64_put(p + ENTRY_LAST_STABLE_OFFSET, (uint64_t)txn->last_stable_offset);
}

void gr_txn_index_free(gr_segment_t *seg)
{
    free(seg->txns.entries);
    memset(&seg->txns, 0, sizeof seg->txns);
}

int gr_txn_index_reserve(gr_segment_t *seg, size_t n)
{
    gr_txn_index_t *ix = &seg->txns;
    if (ix->cap - ix->count >= n)
        return 0;
    size_t cap = ix->cap ? ix->cap : 4;
    while (cap - ix->count < n)
        cap *= 2;
    gr_aborted_txn_t *more = realloc(ix->entries, cap * sizeof *more);
    if (!more)
        return -ENOMEM;
    ix->entries = more;
    ix->cap = cap;
    return 0;
}

/* Parses the file's bytes; -EINVAL when not whole, well-versioned entries. */
static int txn_parse(gr_segment_t *seg, const uint8_t *p, size_t len)
{
    if (len % GR_TXN_INDEX_ENTRY_SIZE != 0)
        return -EINVAL;
    size_t n = len / GR_TXN_INDEX_ENTRY_SIZE;
    int rc = gr_txn_index_reserve(seg, n);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++, p += GR_TXN_INDEX_ENTRY_SIZE) {
        if ((p[ENTRY_VERSION] << 8 | p[ENTRY_VERSION + 1]) != GR_TXN_INDEX_VERSION)
            return -EINVAL;
        gr_aborted_txn_t *t = &seg->txns.entries[seg->txns.count++];
        t->producer_id = (int64_t)gr_be64_get(p + ENTRY_PRODUCER_ID);
        t->first_offset = (int64_t)gr_be64_get(p + ENTRY_FIRST_OFFSET);
        t->last_offset = (int64_t)gr_be64_get(p + ENTRY_LAST_OFFSET);
        t->last_stable_offset = (int64_t)gr_be64_get(p + ENTRY_LAST_STABLE_OFFSET);
    }
    return 0;
}

int gr_txn_index_load(gr_segment_t *seg)
{
    if (seg->txns.loaded)
        return 0;
    char path[GR_PATH_MAX], *data = NULL;
    size_t len = 0;
    txn_path(seg, path, sizeof path);
    seg->txns.count = 0;
    int rc = gr_io_read_file(seg->io, path, TXN_INDEX_MAX_BYTES, &data, &len);
    if (rc == 0)
        rc = txn_parse(seg, (const uint8_t *)data, len);
    free(data);
    if (rc == -EFBIG)
        rc = -EINVAL;
    if (rc < 0)
        seg->txns.count = 0;
    /* Missing or damaged reads as empty (the log rebuilds such files at open). */
    seg->txns.loaded = rc == 0 || rc == -ENOENT || rc == -EINVAL;
    return rc;
}

bool gr_txn_index_sane(gr_segment_t *seg)
{
    char path[GR_PATH_MAX];
    int64_t size;
    txn_path(seg, path, sizeof path);
    return seg->io->stat(seg->io->ctx, path, &size, NULL) == 0 &&
           size % GR_TXN_INDEX_ENTRY_SIZE == 0;
}

/* Opens the file for writing (created if missing): fd or -errno. */
static int txn_open(gr_segment_t *seg)
{
    char path[GR_PATH_MAX];
    txn_path(seg, path, sizeof path);
    return seg->io->open(seg->io->ctx, path, O_WRONLY | O_CREAT, 0644);
}

int gr_txn_index_append(gr_segment_t *seg, const gr_aborted_txn_t *txn)
{
    assert(seg->txns.loaded);
    int rc = gr_txn_index_reserve(seg, 1);
    if (rc < 0)
        return rc;
    uint8_t buf[GR_TXN_INDEX_ENTRY_SIZE];
    gr_txn_index_encode(buf, txn);
    int fd = txn_open(seg);
    if (fd < 0)
        return fd;
    rc = gr_io_pwrite_all(seg->io, fd, buf, sizeof buf,
                          (int64_t)(seg->txns.count * GR_TXN_INDEX_ENTRY_SIZE));
    seg->io->close(seg->io->ctx, fd);
    if (rc < 0) {
        seg->txns.loaded = false; /* the file's length is unknown: read it again */
        return rc;
    }
    seg->txns.entries[seg->txns.count++] = *txn;
    seg->txns.unsynced = true;
    return 0;
}

/* Cuts the file to the in-memory count. */
static int txn_cut_file(gr_segment_t *seg)
{
    int fd = txn_open(seg);
    if (fd < 0)
        return fd;
    int rc =
        seg->io->ftruncate(seg->io->ctx, fd, (int64_t)(seg->txns.count * GR_TXN_INDEX_ENTRY_SIZE));
    seg->io->close(seg->io->ctx, fd);
    if (rc < 0)
        seg->txns.loaded = false;
    else
        seg->txns.unsynced = true;
    return rc;
}

int gr_txn_index_truncate(gr_segment_t *seg, int64_t offset)
{
    int rc = gr_txn_index_load(seg);
    if (rc < 0 && rc != -ENOENT && rc != -EINVAL)
        return rc;
    size_t n = seg->txns.count;
    while (n > 0 && seg->txns.entries[n - 1].last_offset >= offset)
        n--;
    if (n == seg->txns.count && rc == 0)
        return 0;
    seg->txns.count = n;
    return txn_cut_file(seg);
}

int gr_txn_index_reset(gr_segment_t *seg)
{
    seg->txns.count = 0;
    seg->txns.loaded = true;
    return txn_cut_file(seg);
}

int gr_txn_index_flush(gr_segment_t *seg)
{
    if (!seg->txns.unsynced)
        return 0;
    char path[GR_PATH_MAX];
    txn_path(seg, path, sizeof path);
    int fd = seg->io->open(seg->io->ctx, path, O_RDONLY, 0);
    if (fd == -ENOENT)
        return 0; /* deleted with its segment meanwhile */
    if (fd < 0)
        return fd;
    int rc = seg->io->fsync(seg->io->ctx, fd);
    seg->io->close(seg->io->ctx, fd);
    if (rc == 0)
        seg->txns.unsynced = false;
    return rc;
}

int gr_txn_index_collect(gr_segment_t *seg, int64_t from, int64_t upper, gr_aborted_txn_t **out,
                         size_t *count, size_t *cap, bool *complete)
{
    int rc = gr_txn_index_load(seg);
    if (rc < 0 && rc != -ENOENT && rc != -EINVAL)
        return rc;
    for (size_t i = 0; i < seg->txns.count; i++) {
        const gr_aborted_txn_t *t = &seg->txns.entries[i];
        bool overlaps = t->last_offset >= from && t->first_offset < upper;
        if (overlaps && *count == *cap) {
            size_t c = *cap ? *cap * 2 : 8;
            gr_aborted_txn_t *more = realloc(*out, c * sizeof *more);
            if (!more)
                return -ENOMEM;
            *out = more;
            *cap = c;
        }
        if (overlaps)
            (*out)[(*count)++] = *t;
        if (t->last_stable_offset >= upper) {
            *complete = true;
            return 0;
        }
    }
    return 0;
}
