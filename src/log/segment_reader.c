/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The buffered forward reader over a segment's .log that every batch walk
 * of src/log/ uses: segment scans, lookups and spans (segment.c) and the
 * cleaner's worker (clean_job.c). Batches are looked at in place in a
 * buffer filled chunk by chunk, so a walk costs one pread per chunk rather
 * than one per batch.
 *
 * Invariants: the buffer holds buf_len bytes of the file starting at
 * buf_off; only [0, size) is ever read, size being fixed at init (a walk
 * never sees bytes appended after it began). A pointer handed out by
 * gr_segment_reader_get stays valid until the next get or fini.
 *
 * Runs on: the caller's thread. A reader over a gr_segment_t only on the
 * loop thread (it asks the fd cache for the fd); one over a private fd on
 * any thread (the cleaner's workers).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "log/log_int.h"

void gr_segment_reader_init(gr_segment_reader_t *r, gr_segment_t *seg, size_t chunk)
{
    memset(r, 0, sizeof *r);
    r->io = seg->io;
    r->seg = seg;
    r->fd = -1;
    r->size = seg->size;
    r->chunk = chunk;
}

void gr_segment_reader_init_fd(gr_segment_reader_t *r, const gr_io_ops_t *io, int fd, int64_t size,
                               size_t chunk)
{
    memset(r, 0, sizeof *r);
    r->io = io;
    r->fd = fd;
    r->size = size;
    r->chunk = chunk;
}

void gr_segment_reader_fini(gr_segment_reader_t *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = r->buf_len = 0;
}

int gr_segment_reader_get(gr_segment_reader_t *r, int64_t pos, size_t need, const uint8_t **out)
{
    if (pos < 0 || pos + (int64_t)need > r->size)
        return -ENODATA;
    if (pos >= r->buf_off && pos + (int64_t)need <= r->buf_off + (int64_t)r->buf_len) {
        *out = r->buf + (pos - r->buf_off);
        return 0;
    }
    size_t want = need > r->chunk ? need : r->chunk;
    if ((int64_t)want > r->size - pos)
        want = (size_t)(r->size - pos);
    if (want > r->cap) {
        uint8_t *nb = realloc(r->buf, want);
        if (!nb)
            return -ENOMEM;
        r->buf = nb;
        r->cap = want;
    }
    /* Asked at each refill: between two gets the fd cache may have closed it. */
    int fd = r->seg ? gr_segment_fd(r->seg) : r->fd;
    if (fd < 0)
        return fd;
    ssize_t n = gr_io_pread_all(r->io, fd, r->buf, want, pos);
    /* -errno always fits an int, but for all the compiler knows a bare
     * (int)n could be >= 0: a "success" with *out unset for the caller
     * (gcc -O2 -Wmaybe-uninitialized once inlined). */
    if (n < 0)
        return n < INT_MIN ? -EIO : (int)n;
    r->bytes_read += n;
    r->buf_off = pos;
    r->buf_len = (size_t)n;
    if ((size_t)n < need)
        return -ENODATA;
    *out = r->buf;
    return 0;
}
