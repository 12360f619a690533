/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A share-partition's log read (share_fetch_read.h).
 *
 * One gr_log_read from the share-partition's next fetch offset, bounded by
 * the last stable offset (read_committed, the default: share groups never
 * see open or aborted transactions) or, for a group set to
 * read_uncommitted, the high watermark, returns whole batches of one
 * segment. Their
 * headers are read back from the segment file (GR_RECORD_BATCH_HEADER_SIZE
 * bytes each) for what acquire needs: offsets, producer id, the
 * transactional and control bits. The aborted transactions overlapping the
 * range come from the segments' .txnindex, as a read_committed Fetch gets
 * them (read_uncommitted needs none). After acquiring, the file range is narrowed to the batches
 * that hold acquired records: the consumer gets no bytes it may not deliver.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log/io.h"
#include "log/log.h"
#include "partition/partition.h"
#include "protocol/records.h"
#include "share/share_fetch_read.h"

/* A batch with where it sits in the segment file. */
typedef struct read_batch {
    int64_t file_pos;
    int64_t size;
} read_batch_t;

typedef struct read_state {
    gr_log_read_result_t rd;
    gr_share_log_batch_t *batches;
    read_batch_t *places;
    int32_t count;
    gr_share_aborted_txn_t *aborted;
    int32_t aborted_count;
} read_state_t;

static void read_state_fini(read_state_t *st)
{
    free(st->batches);
    free(st->places);
    free(st->aborted);
}

/* Parses the headers of the batches in [rd.file_pos, rd.file_pos + rd.len). */
static int read_headers(read_state_t *st)
{
    const gr_log_read_result_t *rd = &st->rd;
    int32_t cap = 16;
    st->batches = malloc((size_t)cap * sizeof *st->batches);
    st->places = malloc((size_t)cap * sizeof *st->places);
    if (!st->batches || !st->places)
        return -ENOMEM;
    int64_t pos = rd->file_pos, end = rd->file_pos + rd->len;
    while (pos < end) {
        uint8_t raw[GR_RECORD_BATCH_HEADER_SIZE];
        ssize_t n = gr_io_pread_all(gr_io_default(), rd->fd, raw, sizeof raw, pos);
        if (n != (ssize_t)sizeof raw)
            return n < 0 ? -errno : -EIO;
        gr_batch_header_t h;
        int rc = gr_batch_header_parse(raw, sizeof raw, &h);
        if (rc < 0)
            return rc;
        if (st->count == cap) {
            cap *= 2;
            gr_share_log_batch_t *b = realloc(st->batches, (size_t)cap * sizeof *b);
            if (b)
                st->batches = b;
            read_batch_t *pl = realloc(st->places, (size_t)cap * sizeof *pl);
            if (pl)
                st->places = pl;
            if (!b || !pl)
                return -ENOMEM;
        }
        st->batches[st->count] = (gr_share_log_batch_t){
            .base_offset = h.base_offset,
            .last_offset = h.base_offset + h.last_offset_delta,
            .producer_id = h.producer_id,
            .is_transactional = (h.attributes & GR_BATCH_ATTR_TRANSACTIONAL) != 0,
            .is_control = (h.attributes & GR_BATCH_ATTR_CONTROL) != 0,
        };
        st->places[st->count] = (read_batch_t){pos, gr_batch_size(&h)};
        st->count++;
        pos += gr_batch_size(&h);
    }
    return 0;
}

static int read_aborted(read_state_t *st, gr_partition_t *p, int64_t from)
{
    gr_aborted_txn_t *txns = NULL;
    size_t n = 0;
    int rc = gr_log_collect_aborted(p->log, from, st->rd.next_offset, &txns, &n);
    if (rc < 0)
        return rc;
    if (n > INT32_MAX)
        n = INT32_MAX;
    if (n) {
        st->aborted = malloc(n * sizeof *st->aborted);
        if (!st->aborted) {
            free(txns);
            return -ENOMEM;
        }
    }
    for (size_t i = 0; i < n; i++)
        st->aborted[i] = (gr_share_aborted_txn_t){txns[i].producer_id, txns[i].first_offset};
    st->aborted_count = (int32_t)n;
    free(txns);
    return 0;
}

/* Narrows out's file range to the batches overlapping the acquired ranges. */
static void narrow(const read_state_t *st, gr_share_fetched_t *out)
{
    const gr_share_acquired_list_t *acq = &out->acquired;
    int64_t first = acq->items[0].first_offset;
    int64_t last = acq->items[acq->count - 1].last_offset;
    int32_t lo = 0, hi = st->count - 1;
    while (lo < hi && st->batches[lo].last_offset < first)
        lo++;
    while (hi > lo && st->batches[hi].base_offset > last)
        hi--;
    out->file_pos = st->places[lo].file_pos;
    out->len = (int32_t)(st->places[hi].file_pos + st->places[hi].size - st->places[lo].file_pos);
}

gr_kerr_t gr_share_fetch_read(gr_share_partition_t *sp, gr_partition_t *p,
                              const gr_share_read_request_t *req, gr_share_fetched_t *out)
{
    if (!gr_share_partition_can_acquire(sp) || req->max_records <= 0)
        return GR_KERR_NONE;
    int64_t log_start = gr_log_start_offset(p->log);
    if (gr_share_partition_next_fetch_offset(sp) < log_start &&
        gr_share_partition_advance_log_start(sp, log_start) < 0)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    int64_t from = gr_share_partition_next_fetch_offset(sp);
    int64_t stable =
        req->read_committed ? gr_log_last_stable_offset(p->log) : gr_log_high_watermark(p->log);
    if (from >= stable)
        return GR_KERR_NONE;
    read_state_t st = {0};
    int rc =
        gr_log_read(p->log, from, req->max_bytes > 0 ? req->max_bytes : 0, true, stable, &st.rd);
    if (rc == -ERANGE)
        return GR_KERR_NONE; /* the log moved under us: the next fetch looks again */
    if (rc < 0)
        return gr_kerr_from_errno(rc);
    if (st.rd.len == 0)
        return GR_KERR_NONE;
    gr_kerr_t err = GR_KERR_NONE;
    if ((rc = read_headers(&st)) < 0 ||
        (req->read_committed && (rc = read_aborted(&st, p, from)) < 0)) {
        err = gr_kerr_from_errno(rc);
        goto fail;
    }
    gr_share_acquire_request_t acq = {
        .member_id = req->member_id,
        .fetch_offset = from,
        .batches = st.batches,
        .batch_count = st.count,
        .read_committed = req->read_committed,
        .aborted = st.aborted,
        .aborted_count = st.aborted_count,
        .max_records = req->max_records,
        .mode = req->mode,
        .batch_size = req->batch_size,
        .now_ms = req->now_ms,
    };
    rc = gr_share_partition_acquire(sp, &acq, &out->acquired);
    if (rc < 0) {
        err = rc == -ENOMEM ? GR_KERR_UNKNOWN_SERVER_ERROR : GR_KERR_CORRUPT_MESSAGE;
        goto fail;
    }
    if (out->acquired.count > 0) {
        out->segment = st.rd.segment;
        st.rd.segment = NULL;
        narrow(&st, out);
    }
fail:
    if (st.rd.segment)
        gr_segment_put(st.rd.segment);
    read_state_fini(&st);
    return err;
}
