/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One segment: a .log/.index/.timeindex trio named by its base offset. Only
 * the active segment is appended to. The .log is the truth; the indexes are
 * sparse hints rebuilt from it (gr_segment_scan) whenever they are missing
 * or damaged. Lifecycle, index formats and fd caching: see log_int.h.
 *
 * Invariants: seg->size is the length of the valid batches in .log (the
 * file is never longer after an append fails, see gr_segment_append);
 * index entries point at batch starts below seg->size, in increasing order;
 * entries [0, oidx_written) are on disk, and the file holds oidx_on_disk
 * entries (SIZE_MAX: unknown, the next write truncates it).
 *
 * Runs on: the loop thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/log_int.h"

#define SEG_SCAN_CHUNK   (64 * 1024)
#define SEG_READ_CHUNK   (8 * 1024)
#define SEG_INDEX_MAX_MB (1024 * 1024 * 1024)

gr_segment_t *gr_segment_new(const char *dir, int64_t base_offset, const gr_io_ops_t *io,
                             gr_fd_cache_t *cache)
{
    gr_segment_t *seg = calloc(1, sizeof *seg);
    if (!seg)
        return NULL;
    size_t len = strlen(dir) + 1 + GR_SEGMENT_NAME_DIGITS + 1;
    seg->path = malloc(len);
    if (!seg->path) {
        free(seg);
        return NULL;
    }
    snprintf(seg->path, len, "%s/%020" PRId64, dir, base_offset);
    seg->refs = 1;
    seg->io = io;
    seg->cache = cache;
    seg->base_offset = base_offset;
    seg->next_offset = base_offset;
    seg->fd = -1;
    seg->max_timestamp = GR_LOG_NO_TIMESTAMP;
    seg->offset_of_max_timestamp = -1;
    seg->first_batch_timestamp = GR_LOG_NO_TIMESTAMP;
    return seg;
}

void gr_segment_file(const gr_segment_t *seg, const char *ext, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", seg->path, ext);
}

static void seg_drop_indexes(gr_segment_t *seg)
{
    free(seg->oidx);
    free(seg->tidx);
    seg->oidx = NULL;
    seg->tidx = NULL;
    seg->oidx_count = seg->oidx_cap = seg->oidx_written = seg->oidx_on_disk = 0;
    seg->tidx_count = seg->tidx_cap = seg->tidx_written = seg->tidx_on_disk = 0;
    seg->index_loaded = false;
}

void gr_segment_get(gr_segment_t *seg)
{
    seg->refs++;
}

void gr_segment_put(gr_segment_t *seg)
{
    if (!seg)
        return;
    if (--seg->refs > 0)
        return;
    seg->active = false;
    gr_segment_release(seg);
    seg_drop_indexes(seg);
    gr_txn_index_free(seg);
    free(seg->path);
    free(seg);
}

void gr_segment_get_opaque(void *seg)
{
    gr_segment_get(seg);
}

void gr_segment_put_opaque(void *seg)
{
    gr_segment_put(seg);
}

void gr_segment_release(gr_segment_t *seg)
{
    gr_fd_cache_remove(seg->cache, seg);
    if (seg->fd >= 0) {
        seg->io->close(seg->io->ctx, seg->fd);
        seg->fd = -1;
        seg->cache->open--;
    }
    /* Inactive indexes are all on disk (sealed or rebuilt), so they can go. */
    if (!seg->active && seg->oidx_written == seg->oidx_count &&
        seg->tidx_written == seg->tidx_count)
        seg_drop_indexes(seg);
}

int gr_segment_fd(gr_segment_t *seg)
{
    if (seg->fd >= 0) {
        if (!seg->detached)
            gr_fd_cache_touch(seg->cache, seg);
        return seg->fd;
    }
    if (seg->detached)
        return -ENOENT;
    char path[GR_PATH_MAX];
    gr_segment_file(seg, ".log", path, sizeof path);
    int fd = seg->io->open(seg->io->ctx, path, O_RDWR, 0);
    if (fd < 0)
        return fd;
    seg->fd = fd;
    seg->cache->open++;
    gr_fd_cache_touch(seg->cache, seg);
    return fd;
}

int gr_segment_create_files(gr_segment_t *seg)
{
    static const char *const exts[] = {".log", ".index", ".timeindex", GR_TXN_INDEX_SUFFIX};
    char path[GR_PATH_MAX];
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        gr_segment_file(seg, exts[i], path, sizeof path);
        int fd = seg->io->open(seg->io->ctx, path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return fd;
        seg->io->close(seg->io->ctx, fd);
    }
    seg->size = 0;
    seg->next_offset = seg->base_offset;
    seg->index_loaded = true;
    seg->max_ts_known = true;
    seg->txns.count = 0;
    seg->txns.loaded = true;
    return 0;
}

static int oidx_reserve(gr_segment_t *seg, size_t extra)
{
    if (seg->oidx_count + extra <= seg->oidx_cap)
        return 0;
    size_t cap = seg->oidx_cap ? seg->oidx_cap : 16;
    while (cap < seg->oidx_count + extra)
        cap *= 2;
    gr_offset_entry_t *n = realloc(seg->oidx, cap * sizeof *n);
    if (!n)
        return -ENOMEM;
    seg->oidx = n;
    seg->oidx_cap = cap;
    return 0;
}

static int tidx_reserve(gr_segment_t *seg, size_t extra)
{
    if (seg->tidx_count + extra <= seg->tidx_cap)
        return 0;
    size_t cap = seg->tidx_cap ? seg->tidx_cap : 16;
    while (cap < seg->tidx_count + extra)
        cap *= 2;
    gr_time_entry_t *n = realloc(seg->tidx, cap * sizeof *n);
    if (!n)
        return -ENOMEM;
    seg->tidx = n;
    seg->tidx_cap = cap;
    return 0;
}

/* Appends a time entry if ts grows (Kafka's maybeAppend). Capacity reserved. */
static void tidx_maybe_push(gr_segment_t *seg, int64_t ts, int64_t offset)
{
    if (ts < 0 || offset < seg->base_offset)
        return;
    if (seg->tidx_count > 0 && seg->tidx[seg->tidx_count - 1].timestamp >= ts)
        return;
    seg->tidx[seg->tidx_count].timestamp = ts;
    seg->tidx[seg->tidx_count].rel_offset = (int32_t)(offset - seg->base_offset);
    seg->tidx_count++;
}

/*
 * Accounts one batch at pos for the max timestamp and the sparse indexes.
 * Precondition: one entry of capacity reserved in each index.
 */
static void seg_index_batch(gr_segment_t *seg, const gr_batch_header_t *h, int64_t pos,
                            int64_t index_interval)
{
    int64_t last = h->base_offset + h->last_offset_delta;
    if (pos == 0)
        seg->first_batch_timestamp = h->max_timestamp;
    if (h->max_timestamp > seg->max_timestamp) {
        seg->max_timestamp = h->max_timestamp;
        seg->offset_of_max_timestamp = last;
    }
    seg->max_ts_known = true;
    if (seg->bytes_since_index > index_interval) {
        seg->oidx[seg->oidx_count].rel_offset = (int32_t)(last - seg->base_offset);
        seg->oidx[seg->oidx_count].position = (int32_t)pos;
        seg->oidx_count++;
        tidx_maybe_push(seg, seg->max_timestamp, seg->offset_of_max_timestamp);
        seg->bytes_since_index = 0;
    }
    seg->bytes_since_index += gr_batch_size(h);
}

/* Header checks shared by scans: 0 if the header at pos can start a valid batch. */
static int seg_check_header(const gr_segment_t *seg, const gr_batch_header_t *h, int64_t pos,
                            int64_t min_base)
{
    if (h->magic != GR_RECORD_BATCH_MAGIC_V2)
        return -EBADMSG;
    if (h->batch_length < GR_RECORD_BATCH_HEADER_SIZE - GR_RECORD_BATCH_LOG_OVERHEAD)
        return -EBADMSG;
    if (pos + gr_batch_size(h) > seg->size)
        return -ENODATA;
    if (h->base_offset < min_base || h->last_offset_delta < 0)
        return -EBADMSG;
    if (h->base_offset + h->last_offset_delta - seg->base_offset > INT32_MAX)
        return -EBADMSG;
    if (pos > INT32_MAX)
        return -EBADMSG;
    return 0;
}

static void seg_reset_indexes(gr_segment_t *seg)
{
    seg->oidx_count = 0;
    seg->tidx_count = 0;
    seg->oidx_written = 0;
    seg->tidx_written = 0;
    seg->oidx_on_disk = SIZE_MAX;
    seg->tidx_on_disk = SIZE_MAX;
    seg->bytes_since_index = 0;
    seg->max_timestamp = GR_LOG_NO_TIMESTAMP;
    seg->offset_of_max_timestamp = -1;
    seg->first_batch_timestamp = GR_LOG_NO_TIMESTAMP;
    seg->index_loaded = true;
    seg->max_ts_known = true;
}

int gr_segment_scan(gr_segment_t *seg, bool verify_crc, int64_t index_interval,
                    gr_segment_batch_fn fn, void *arg, gr_segment_scan_t *out)
{
    gr_segment_reader_t r;
    gr_segment_reader_init(&r, seg, SEG_SCAN_CHUNK);
    seg_reset_indexes(seg);
    int64_t pos = 0, next = seg->base_offset;
    int32_t max_epoch = -1;
    int rc = 0;
    while (pos < seg->size) {
        const uint8_t *p = NULL; /* set by gr_segment_reader_get on success */
        gr_batch_header_t h;
        rc = gr_segment_reader_get(&r, pos, GR_RECORD_BATCH_HEADER_SIZE, &p);
        if (rc == -ENODATA)
            break;
        if (rc < 0)
            goto fail;
        if (gr_batch_header_parse(p, GR_RECORD_BATCH_HEADER_SIZE, &h) < 0 ||
            seg_check_header(seg, &h, pos, next) < 0)
            break;
        int64_t size = gr_batch_size(&h);
        if (verify_crc) {
            rc = gr_segment_reader_get(&r, pos, (size_t)size, &p);
            if (rc == -ENODATA)
                break;
            if (rc < 0)
                goto fail;
            if (!gr_batch_crc_ok(p, (size_t)size))
                break;
        }
        rc = oidx_reserve(seg, 1);
        if (rc == 0)
            rc = tidx_reserve(seg, 1);
        if (rc < 0)
            goto fail;
        seg_index_batch(seg, &h, pos, index_interval);
        if (fn)
            fn(arg, &h);
        if (h.partition_leader_epoch > max_epoch)
            max_epoch = h.partition_leader_epoch;
        next = h.base_offset + h.last_offset_delta + 1;
        pos += size;
    }
    rc = 0;
    seg->next_offset = next;
    out->valid_bytes = pos;
    out->bytes_read = r.bytes_read;
    out->next_offset = next;
    out->max_epoch = max_epoch;
fail:
    gr_segment_reader_fini(&r);
    return rc;
}

/*
 * Scans headers from the last offset index entry to the end, refreshing
 * next_offset, the max timestamp and bytes_since_index. Returns the valid
 * length (< seg->size when the tail is damaged) or -errno; *out_read gets
 * the bytes read.
 */
static int64_t seg_scan_tail(gr_segment_t *seg, int64_t *out_read)
{
    gr_segment_reader_t r;
    gr_segment_reader_init(&r, seg, SEG_SCAN_CHUNK);
    int64_t pos = 0, next = seg->base_offset;
    if (seg->oidx_count > 0) {
        const gr_offset_entry_t *e = &seg->oidx[seg->oidx_count - 1];
        pos = e->position;
        next = 0; /* the batch at pos is the one indexed; its base is checked below */
    }
    int64_t start = pos;
    int64_t rc = 0;
    while (pos < seg->size) {
        const uint8_t *p = NULL; /* set by gr_segment_reader_get on success */
        gr_batch_header_t h;
        int grc = gr_segment_reader_get(&r, pos, GR_RECORD_BATCH_HEADER_SIZE, &p);
        if (grc == -ENODATA)
            break;
        if (grc < 0) {
            rc = grc;
            goto fail;
        }
        if (gr_batch_header_parse(p, GR_RECORD_BATCH_HEADER_SIZE, &h) < 0 ||
            seg_check_header(seg, &h, pos, next) < 0)
            break;
        if (pos == start && seg->oidx_count > 0 &&
            h.base_offset + h.last_offset_delta !=
                seg->base_offset + seg->oidx[seg->oidx_count - 1].rel_offset)
            break; /* the index does not match the data */
        if (h.max_timestamp > seg->max_timestamp) {
            seg->max_timestamp = h.max_timestamp;
            seg->offset_of_max_timestamp = h.base_offset + h.last_offset_delta;
        }
        next = h.base_offset + h.last_offset_delta + 1;
        pos += gr_batch_size(&h);
    }
    seg->max_ts_known = true;
    seg->bytes_since_index = pos - start;
    if (next > seg->next_offset)
        seg->next_offset = next;
    rc = pos;
fail:
    *out_read = r.bytes_read;
    gr_segment_reader_fini(&r);
    return rc;
}

int gr_segment_truncate(gr_segment_t *seg, int64_t size, int64_t next_offset)
{
    int fd = gr_segment_fd(seg);
    if (fd < 0)
        return fd;
    int rc = seg->io->ftruncate(seg->io->ctx, fd, size);
    if (rc < 0)
        return rc;
    seg->size = size;
    seg->next_offset = next_offset;
    while (seg->oidx_count > 0 && seg->oidx[seg->oidx_count - 1].position >= size)
        seg->oidx_count--;
    while (seg->tidx_count > 0 &&
           seg->base_offset + seg->tidx[seg->tidx_count - 1].rel_offset >= next_offset)
        seg->tidx_count--;
    if (seg->oidx_written > seg->oidx_count)
        seg->oidx_written = seg->oidx_count;
    if (seg->tidx_written > seg->tidx_count)
        seg->tidx_written = seg->tidx_count;
    seg->max_timestamp = GR_LOG_NO_TIMESTAMP;
    seg->offset_of_max_timestamp = -1;
    if (seg->tidx_count > 0) {
        seg->max_timestamp = seg->tidx[seg->tidx_count - 1].timestamp;
        seg->offset_of_max_timestamp = seg->base_offset + seg->tidx[seg->tidx_count - 1].rel_offset;
    }
    if (size == 0)
        seg->first_batch_timestamp = GR_LOG_NO_TIMESTAMP;
    rc = gr_txn_index_truncate(seg, next_offset);
    if (rc < 0)
        return rc;
    int64_t scanned;
    int64_t valid = seg_scan_tail(seg, &scanned);
    seg->unflushed = true;
    return valid < 0 ? (int)valid : 0;
}

/* Reads an index file into a malloc'd buffer. Returns 0, -ENOENT or -errno. */
static int seg_read_index_file(gr_segment_t *seg, const char *ext, char **data, size_t *len)
{
    char path[GR_PATH_MAX];
    gr_segment_file(seg, ext, path, sizeof path);
    return gr_io_read_file(seg->io, path, SEG_INDEX_MAX_MB, data, len);
}

/* Parses .index bytes; false when damaged. */
static bool seg_parse_oidx(gr_segment_t *seg, const uint8_t *p, size_t len)
{
    if (len % GR_OFFSET_INDEX_ENTRY_SIZE != 0)
        return false;
    size_t n = len / GR_OFFSET_INDEX_ENTRY_SIZE;
    if (oidx_reserve(seg, n) < 0)
        return false;
    for (size_t i = 0; i < n; i++, p += GR_OFFSET_INDEX_ENTRY_SIZE) {
        int32_t rel = (int32_t)gr_be32_get(p);
        int32_t pos = (int32_t)gr_be32_get(p + 4);
        if (i > 0 && rel == 0 && pos == 0)
            break; /* zero-filled preallocation left by a crash */
        if (rel < 0 || pos < 0 || pos >= seg->size)
            return false;
        if (seg->oidx_count > 0 && (rel <= seg->oidx[seg->oidx_count - 1].rel_offset ||
                                    pos <= seg->oidx[seg->oidx_count - 1].position))
            return false;
        seg->oidx[seg->oidx_count].rel_offset = rel;
        seg->oidx[seg->oidx_count].position = pos;
        seg->oidx_count++;
    }
    seg->oidx_written = seg->oidx_count;
    seg->oidx_on_disk = n;
    return true;
}

static bool seg_parse_tidx(gr_segment_t *seg, const uint8_t *p, size_t len)
{
    if (len % GR_TIME_INDEX_ENTRY_SIZE != 0)
        return false;
    size_t n = len / GR_TIME_INDEX_ENTRY_SIZE;
    if (tidx_reserve(seg, n) < 0)
        return false;
    for (size_t i = 0; i < n; i++, p += GR_TIME_INDEX_ENTRY_SIZE) {
        int64_t ts = (int64_t)gr_be64_get(p);
        int32_t rel = (int32_t)gr_be32_get(p + 8);
        if (i > 0 && ts == 0 && rel == 0)
            break;
        if (rel < 0)
            return false;
        if (seg->tidx_count > 0 && (ts <= seg->tidx[seg->tidx_count - 1].timestamp ||
                                    rel < seg->tidx[seg->tidx_count - 1].rel_offset))
            return false;
        seg->tidx[seg->tidx_count].timestamp = ts;
        seg->tidx[seg->tidx_count].rel_offset = rel;
        seg->tidx_count++;
    }
    seg->tidx_written = seg->tidx_count;
    seg->tidx_on_disk = n;
    return true;
}

int gr_segment_load_indexes(gr_segment_t *seg, int64_t index_interval)
{
    if (seg->index_loaded)
        return 0;
    char *odata = NULL, *tdata = NULL;
    size_t olen = 0, tlen = 0;
    int rc = seg_read_index_file(seg, ".index", &odata, &olen);
    if (rc < 0 && rc != -ENOENT)
        return rc;
    bool ok = rc == 0;
    rc = seg_read_index_file(seg, ".timeindex", &tdata, &tlen);
    if (rc < 0 && rc != -ENOENT) {
        free(odata);
        return rc;
    }
    ok = ok && rc == 0;
    seg->oidx_count = seg->tidx_count = 0;
    ok = ok && seg_parse_oidx(seg, (const uint8_t *)odata, olen) &&
         seg_parse_tidx(seg, (const uint8_t *)tdata, tlen);
    free(odata);
    free(tdata);
    if (ok) {
        seg->index_loaded = true;
        seg->bytes_since_index =
            seg->size - (seg->oidx_count ? seg->oidx[seg->oidx_count - 1].position : 0);
        if (!seg->max_ts_known) {
            seg->max_ts_known = true;
            if (seg->tidx_count > 0) {
                const gr_time_entry_t *t = &seg->tidx[seg->tidx_count - 1];
                seg->max_timestamp = t->timestamp;
                seg->offset_of_max_timestamp = seg->base_offset + t->rel_offset;
            }
        }
        return 0;
    }
    gr_segment_scan_t scan;
    rc = gr_segment_scan(seg, false, index_interval, NULL, NULL, &scan);
    if (rc < 0) {
        seg_drop_indexes(seg);
        return rc;
    }
    rc = gr_segment_write_indexes(seg, false);
    return rc < 0 ? rc : 1;
}

bool gr_segment_indexes_sane(gr_segment_t *seg)
{
    char path[GR_PATH_MAX];
    int64_t size;
    gr_segment_file(seg, ".index", path, sizeof path);
    if (seg->io->stat(seg->io->ctx, path, &size, NULL) < 0 ||
        size % GR_OFFSET_INDEX_ENTRY_SIZE != 0)
        return false;
    /* An index can only be empty or short for a short log. */
    gr_segment_file(seg, ".timeindex", path, sizeof path);
    if (seg->io->stat(seg->io->ctx, path, &size, NULL) < 0 || size % GR_TIME_INDEX_ENTRY_SIZE != 0)
        return false;
    return true;
}

bool gr_segment_empty(gr_segment_t *seg)
{
    static const char *const index_ext[] = {".index", ".timeindex"};
    if (seg->size != 0)
        return false;
    char path[GR_PATH_MAX];
    for (size_t i = 0; i < sizeof index_ext / sizeof index_ext[0]; i++) {
        int64_t size;
        gr_segment_file(seg, index_ext[i], path, sizeof path);
        if (seg->io->stat(seg->io->ctx, path, &size, NULL) < 0 || size != 0)
            return false;
    }
    return true;
}

/* Writes entries [*written, count) of one index file. */
static int seg_write_index_file(gr_segment_t *seg, const char *ext, size_t entry_size, size_t count,
                                size_t *written, size_t *on_disk, bool *unsynced, bool sync)
{
    bool write = *written != count || *on_disk != count;
    if (!write && (!sync || !*unsynced))
        return 0; /* nothing new, and what is there was already fsynced */
    char path[GR_PATH_MAX];
    gr_segment_file(seg, ext, path, sizeof path);
    const gr_io_ops_t *io = seg->io;
    int fd = io->open(io->ctx, path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        return fd;
    uint8_t *buf = NULL;
    int rc = 0;
    if (*on_disk != *written) {
        rc = io->ftruncate(io->ctx, fd, (int64_t)(*written * entry_size));
        if (rc < 0)
            goto fail;
        *on_disk = *written;
    }
    if (count > *written) {
        size_t n = count - *written;
        buf = malloc(n * entry_size);
        if (!buf) {
            rc = -ENOMEM;
            goto fail;
        }
        for (size_t i = 0; i < n; i++) {
            uint8_t *p = buf + i * entry_size;
            if (entry_size == GR_OFFSET_INDEX_ENTRY_SIZE) {
                const gr_offset_entry_t *e = &seg->oidx[*written + i];
                gr_be32_put(p, (uint32_t)e->rel_offset);
                gr_be32_put(p + 4, (uint32_t)e->position);
            } else {
                const gr_time_entry_t *e = &seg->tidx[*written + i];
                gr_be64_put(p, (uint64_t)e->timestamp);
                gr_be32_put(p + 8, (uint32_t)e->rel_offset);
            }
        }
        /* Until the write completes, the file's length is unknown. */
        *on_disk = SIZE_MAX;
        rc = gr_io_pwrite_all(io, fd, buf, n * entry_size, (int64_t)(*written * entry_size));
        if (rc < 0)
            goto fail;
        *written = *on_disk = count;
    }
    if (write)
        *unsynced = true;
    if (sync) {
        rc = io->fsync(io->ctx, fd);
        if (rc == 0)
            *unsynced = false;
    }
fail:
    free(buf);
    io->close(io->ctx, fd);
    return rc;
}

int gr_segment_write_indexes(gr_segment_t *seg, bool sync)
{
    if (!seg->index_loaded)
        return 0;
    int rc =
        seg_write_index_file(seg, ".index", GR_OFFSET_INDEX_ENTRY_SIZE, seg->oidx_count,
                             &seg->oidx_written, &seg->oidx_on_disk, &seg->oidx_unsynced, sync);
    if (rc < 0)
        return rc;
    return seg_write_index_file(seg, ".timeindex", GR_TIME_INDEX_ENTRY_SIZE, seg->tidx_count,
                                &seg->tidx_written, &seg->tidx_on_disk, &seg->tidx_unsynced, sync);
}

int gr_segment_flush(gr_segment_t *seg)
{
    if (seg->unflushed) {
        int fd = gr_segment_fd(seg);
        if (fd < 0)
            return fd;
        int rc = seg->io->fsync(seg->io->ctx, fd);
        if (rc < 0)
            return rc;
        rc = gr_segment_write_indexes(seg, true);
        if (rc == 0)
            rc = gr_txn_index_flush(seg);
        if (rc < 0)
            return rc;
        seg->unflushed = false;
    }
    return 0;
}

int gr_segment_append(gr_segment_t *seg, const uint8_t *batches, size_t len, int64_t index_interval)
{
    size_t nbatches = 0;
    for (size_t off = 0; off < len;) {
        gr_batch_header_t h;
        if (gr_batch_header_parse(batches + off, len - off, &h) < 0)
            return -EINVAL;
        off += (size_t)gr_batch_size(&h);
        nbatches++;
    }
    int rc = oidx_reserve(seg, nbatches);
    if (rc == 0)
        rc = tidx_reserve(seg, nbatches);
    if (rc < 0)
        return rc;
    int fd = gr_segment_fd(seg);
    if (fd < 0)
        return fd;
    rc = gr_io_pwrite_all(seg->io, fd, batches, len, seg->size);
    if (rc < 0) {
        /* Whatever part landed is beyond seg->size; cut it so a restart
         * does not see it either (best effort: recovery would also). */
        seg->io->ftruncate(seg->io->ctx, fd, seg->size);
        return rc;
    }
    for (size_t off = 0; off < len;) {
        gr_batch_header_t h;
        gr_batch_header_parse(batches + off, len - off, &h);
        seg_index_batch(seg, &h, seg->size + (int64_t)off, index_interval);
        seg->next_offset = h.base_offset + h.last_offset_delta + 1;
        off += (size_t)gr_batch_size(&h);
    }
    seg->size += (int64_t)len;
    seg->unflushed = true;
    return 0;
}

int gr_segment_seal(gr_segment_t *seg)
{
    if (seg->index_loaded && tidx_reserve(seg, 1) == 0)
        tidx_maybe_push(seg, seg->max_timestamp, seg->offset_of_max_timestamp);
    seg->active = false;
    return gr_segment_write_indexes(seg, false);
}

int gr_segment_activate(gr_segment_t *seg, int64_t now_ms)
{
    int64_t scanned;
    seg->active = true;
    seg->created_ms = now_ms;
    seg->first_batch_timestamp = GR_LOG_NO_TIMESTAMP;
    if (seg->size > 0) {
        gr_batch_header_t h;
        int rc = gr_segment_read_header(seg, 0, &h);
        if (rc < 0)
            return rc;
        seg->first_batch_timestamp = h.max_timestamp;
    }
    int64_t valid = seg_scan_tail(seg, &scanned);
    if (valid < 0)
        return (int)valid;
    return valid < seg->size ? -EBADMSG : 0;
}

int64_t gr_segment_scan_tail(gr_segment_t *seg, int64_t *out_read)
{
    return seg_scan_tail(seg, out_read);
}

int32_t gr_segment_index_lookup(const gr_segment_t *seg, int64_t offset)
{
    int64_t rel = offset - seg->base_offset;
    size_t lo = 0, hi = seg->oidx_count;
    /* First entry with rel_offset > rel. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (seg->oidx[mid].rel_offset <= rel)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? 0 : seg->oidx[lo - 1].position;
}

int64_t gr_segment_time_lookup(const gr_segment_t *seg, int64_t ts)
{
    size_t lo = 0, hi = seg->tidx_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (seg->tidx[mid].timestamp <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? seg->base_offset : seg->base_offset + seg->tidx[lo - 1].rel_offset;
}

int gr_segment_read_header(gr_segment_t *seg, int64_t pos, gr_batch_header_t *out)
{
    uint8_t buf[GR_RECORD_BATCH_HEADER_SIZE];
    if (pos + GR_RECORD_BATCH_HEADER_SIZE > seg->size)
        return -ENODATA;
    int fd = gr_segment_fd(seg);
    if (fd < 0)
        return fd;
    ssize_t n = gr_io_pread_all(seg->io, fd, buf, sizeof buf, pos);
    if (n < 0)
        return (int)n;
    if ((size_t)n < sizeof buf)
        return -ENODATA;
    int rc = gr_batch_header_parse(buf, sizeof buf, out);
    return rc < 0 ? -EBADMSG : 0;
}

int gr_segment_find_batch(gr_segment_t *seg, int64_t offset, int64_t from, int64_t *out_pos,
                          gr_batch_header_t *out)
{
    gr_segment_reader_t r;
    gr_segment_reader_init(&r, seg, SEG_READ_CHUNK);
    int64_t pos = from;
    int rc = 0;
    while (pos < seg->size) {
        const uint8_t *p = NULL; /* set by gr_segment_reader_get on success */
        rc = gr_segment_reader_get(&r, pos, GR_RECORD_BATCH_HEADER_SIZE, &p);
        if (rc == -ENODATA)
            break;
        if (rc < 0)
            goto fail;
        if (gr_batch_header_parse(p, GR_RECORD_BATCH_HEADER_SIZE, out) < 0 ||
            out->batch_length < GR_RECORD_BATCH_HEADER_SIZE - GR_RECORD_BATCH_LOG_OVERHEAD)
            break;
        if (out->base_offset + out->last_offset_delta >= offset) {
            *out_pos = pos;
            gr_segment_reader_fini(&r);
            return 0;
        }
        pos += gr_batch_size(out);
    }
    rc = 0;
    *out_pos = seg->size;
fail:
    gr_segment_reader_fini(&r);
    return rc;
}

int64_t gr_segment_max_timestamp(gr_segment_t *seg, int64_t index_interval)
{
    if (seg->max_ts_known)
        return seg->max_timestamp;
    if (gr_segment_load_indexes(seg, index_interval) < 0)
        return GR_LOG_NO_TIMESTAMP;
    /* Loaded only for this: a segment without an open fd is not in the LRU,
     * so nothing would ever free these copies (retention visits them all). */
    if (!seg->active && seg->fd < 0 && seg->oidx_written == seg->oidx_count &&
        seg->tidx_written == seg->tidx_count)
        seg_drop_indexes(seg);
    return seg->max_timestamp;
}

int gr_segment_mark_deleted(gr_segment_t *seg)
{
    static const char *const exts[] = {".log", ".index", ".timeindex", GR_TXN_INDEX_SUFFIX};
    char from[GR_PATH_MAX], to[GR_PATH_MAX + sizeof ".deleted"];
    int rc = 0;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        gr_segment_file(seg, exts[i], from, sizeof from);
        snprintf(to, sizeof to, "%s.deleted", from);
        int r = seg->io->rename(seg->io->ctx, from, to);
        if (r < 0 && r != -ENOENT && rc == 0)
            rc = r;
    }
    seg->active = false;
    return rc;
}

void gr_segment_detach(gr_segment_t *seg)
{
    seg->active = false;
    if (seg->refs > 1) {
        gr_fd_cache_remove(seg->cache, seg);
        seg->detached = true;
    }
    gr_segment_put(seg);
}

int gr_segment_span(gr_segment_t *seg, int64_t pos, int64_t max_bytes, bool min_one,
                    int64_t max_offset, gr_segment_batch_fn fn, void *arg, int64_t *out_len,
                    int64_t *out_next_offset)
{
    int64_t next = -1;
    gr_segment_reader_t r;
    gr_segment_reader_init(&r, seg, SEG_READ_CHUNK);
    int64_t total = 0;
    int rc = 0;
    while (pos + total < seg->size) {
        const uint8_t *p = NULL; /* set by gr_segment_reader_get on success */
        gr_batch_header_t h;
        rc = gr_segment_reader_get(&r, pos + total, GR_RECORD_BATCH_HEADER_SIZE, &p);
        if (rc == -ENODATA)
            break;
        if (rc < 0)
            goto fail;
        if (gr_batch_header_parse(p, GR_RECORD_BATCH_HEADER_SIZE, &h) < 0 ||
            h.batch_length < GR_RECORD_BATCH_HEADER_SIZE - GR_RECORD_BATCH_LOG_OVERHEAD)
            break;
        int64_t size = gr_batch_size(&h);
        if (h.base_offset >= max_offset || pos + total + size > seg->size)
            break;
        /* KIP-74: one whole batch even if too large. */
        bool last = total + size > max_bytes;
        if (last && !(total == 0 && min_one))
            break;
        total += size;
        next = h.base_offset + h.last_offset_delta + 1;
        if (fn)
            fn(arg, &h);
        if (last)
            break;
    }
    rc = 0;
    *out_len = total;
    *out_next_offset = next;
fail:
    gr_segment_reader_fini(&r);
    return rc;
}

int gr_segment_walk(gr_segment_t *seg, gr_segment_batch_fn fn, void *arg)
{
    gr_segment_reader_t r;
    gr_segment_reader_init(&r, seg, SEG_READ_CHUNK);
    int64_t pos = 0;
    int rc = 0;
    while (pos < seg->size) {
        const uint8_t *p = NULL; /* set by gr_segment_reader_get on success */
        gr_batch_header_t h;
        rc = gr_segment_reader_get(&r, pos, GR_RECORD_BATCH_HEADER_SIZE, &p);
        if (rc == -ENODATA)
            break;
        if (rc < 0)
            goto fail;
        if (gr_batch_header_parse(p, GR_RECORD_BATCH_HEADER_SIZE, &h) < 0)
            break;
        fn(arg, &h);
        pos += gr_batch_size(&h);
    }
    rc = 0;
fail:
    gr_segment_reader_fini(&r);
    return rc;
}

int64_t gr_segment_name_offset(const char *name, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix);
    if (n != GR_SEGMENT_NAME_DIGITS + m || strcmp(name + GR_SEGMENT_NAME_DIGITS, suffix) != 0)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < GR_SEGMENT_NAME_DIGITS; i++) {
        if (name[i] < '0' || name[i] > '9' || v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (name[i] - '0');
    }
    return v;
}
