/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A share-partition's log read (share_fetch_read.h).
 *
 * One log read (gr_log_read_batches) from the share-partition's next
 * fetch offset, bounded by the last stable offset (read_committed, the
 * default: share groups never see open or aborted transactions) or, for a
 * group set to read_uncommitted, the high watermark, returns whole batches
 * of one segment, and hands over each batch header as it walks them: what
 * acquire needs (offsets, producer id, the transactional and control bits)
 * comes from that one pass, nothing is read back from the file. The
 * aborted transactions overlapping the range come from the segments'
 * .txnindex, as a read_committed Fetch gets them (read_uncommitted needs
 * none). After acquiring, the file range is narrowed to the batches that
 * hold acquired records: the consumer gets no bytes it may not deliver.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log/log.h"
#include "partition/partition.h"
#include "protocol/records.h"
#include "share/share_fetch_read.h"

/* A batch with where it sits in the read's range. */
typedef struct read_batch {
    int64_t rel_pos; /* from the read's file_pos */
    int64_t size;
} read_batch_t;

typedef struct read_state {
    gr_log_read_result_t rd;
    gr_share_log_batch_t *batches;
    read_batch_t *places;
    int32_t count;
    int32_t cap;
    int64_t span; /* bytes of the batches so far */
    int error;    /* -ENOMEM: a header was lost */
    gr_share_aborted_txn_t *aborted;
    int32_t aborted_count;
} read_state_t;

static void read_state_fini(read_state_t *st)
{
    free(st->batches);
    free(st->places);
    free(st->aborted);
}

static int grow(read_state_t *st)
{
    int32_t cap = st->cap ? st->cap * 2 : 16;
    gr_share_log_batch_t *b = realloc(st->batches, (size_t)cap * sizeof *b);
    if (b)
        st->batches = b;
    read_batch_t *pl = realloc(st->places, (size_t)cap * sizeof *pl);
    if (pl)
        st->places = pl;
    if (!b || !pl)
        return -ENOMEM;
    st->cap = cap;
    return 0;
}

/* Keeps the header facts of each batch as the log read walks it (gr_log_batch_fn). */
static void on_batch(void *arg, const gr_batch_header_t *h)
{
    read_state_t *st = arg;
    if (st->error || (st->count == st->cap && (st->error = grow(st)) < 0))
        return;
    st->batches[st->count] = (gr_share_log_batch_t){
        .base_offset = h->base_offset,
        .last_offset = h->base_offset + h->last_offset_delta,
        .producer_id = h->producer_id,
        .is_transactional = (h->attributes & GR_BATCH_ATTR_TRANSACTIONAL) != 0,
        .is_control = (h->attributes & GR_BATCH_ATTR_CONTROL) != 0,
    };
    st->places[st->count] = (read_batch_t){st->span, gr_batch_size(h)};
    st->count++;
    st->span += gr_batch_size(h);
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
    out->file_pos = st->rd.file_pos + st->places[lo].rel_pos;
    out->len = (int32_t)(st->places[hi].rel_pos + st->places[hi].size - st->places[lo].rel_pos);
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
    gr_kerr_t err = GR_KERR_NONE;
    int rc = gr_log_read_batches(p->log, from, req->max_bytes > 0 ? req->max_bytes : 0, true,
                                 stable, on_batch, &st, &st.rd);
    if (rc == -ERANGE)
        goto out; /* the log moved under us: the next fetch looks again */
    if (rc == 0)
        rc = st.error;
    if (rc == 0 && st.rd.len > 0 && req->read_committed)
        rc = read_aborted(&st, p, from);
    if (rc < 0) {
        err = gr_kerr_from_errno(rc);
        goto out;
    }
    if (st.rd.len == 0)
        goto out;
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
        goto out;
    }
    if (out->acquired.count > 0) {
        out->segment = st.rd.segment;
        st.rd.segment = NULL;
        narrow(&st, out);
    }
out:
    if (st.rd.segment)
        gr_segment_put(st.rd.segment);
    read_state_fini(&st);
    return err;
}
