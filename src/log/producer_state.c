/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A partition's producer state and its snapshot files; the design is in
 * producer_state.h. Entries are kept in an array sorted by producer id:
 * a partition has few producers, lookups are binary searches, and inserts
 * (a producer's first batch) are rare.
 */
#include "log/producer_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log/log_int.h"
#include "protocol/crc32c.h"

#define SNAPSHOT_CRC_OFFSET     2
#define SNAPSHOT_ENTRIES_OFFSET 6

/* Field offsets inside one snapshot entry (layout in producer_state.h). */
enum {
    ENTRY_PRODUCER_ID = 0,
    ENTRY_EPOCH = 8,
    ENTRY_LAST_SEQ = 10,
    ENTRY_LAST_OFFSET = 14,
    ENTRY_OFFSET_DELTA = 22,
    ENTRY_TIMESTAMP = 26,
    ENTRY_COORDINATOR_EPOCH = 34,
    ENTRY_TXN_FIRST_OFFSET = 38,
};

void gr_producer_state_init(gr_producer_state_t *ps)
{
    memset(ps, 0, sizeof *ps);
}

void gr_producer_state_fini(gr_producer_state_t *ps)
{
    free(ps->entries);
    free(ps->txns);
    memset(ps, 0, sizeof *ps);
}

void gr_producer_state_clear(gr_producer_state_t *ps)
{
    ps->count = 0;
    ps->txn_count = 0;
}

/* Index of producer_id, or of where it would go (*found false). */
static size_t state_search(const gr_producer_state_t *ps, int64_t producer_id, bool *found)
{
    size_t lo = 0, hi = ps->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ps->entries[mid].producer_id < producer_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < ps->count && ps->entries[lo].producer_id == producer_id;
    return lo;
}

const gr_producer_entry_t *gr_producer_state_find(const gr_producer_state_t *ps,
                                                  int64_t producer_id)
{
    bool found;
    size_t i = state_search(ps, producer_id, &found);
    return found ? &ps->entries[i] : NULL;
}

/* Grows *items (count used, *cap slots of size bytes) to hold n more. 0 or -ENOMEM. */
static int grow_for(void **items, size_t *cap, size_t count, size_t n, size_t size)
{
    if (*cap - count >= n)
        return 0;
    size_t c = *cap ? *cap : 8;
    while (c - count < n)
        c *= 2;
    void *more = realloc(*items, c * size);
    if (!more)
        return -ENOMEM;
    *items = more;
    *cap = c;
    return 0;
}

int gr_producer_state_reserve(gr_producer_state_t *ps, size_t n)
{
    int rc = grow_for((void **)&ps->entries, &ps->cap, ps->count, n, sizeof *ps->entries);
    if (rc == 0)
        rc = grow_for((void **)&ps->txns, &ps->txn_cap, ps->txn_count, n, sizeof *ps->txns);
    return rc;
}

/* ---- unstable transactions --------------------------------------------- */

/* Adds an open span, keeping first-offset order (appends come in order: usually at the end). */
static int txns_open(gr_producer_state_t *ps, int64_t producer_id, int64_t first_offset)
{
    if (grow_for((void **)&ps->txns, &ps->txn_cap, ps->txn_count, 1, sizeof *ps->txns) < 0)
        return -ENOMEM;
    size_t i = ps->txn_count;
    while (i > 0 && ps->txns[i - 1].first_offset > first_offset)
        i--;
    memmove(&ps->txns[i + 1], &ps->txns[i], (ps->txn_count - i) * sizeof ps->txns[0]);
    ps->txns[i] = (gr_txn_span_t){producer_id, first_offset, -1};
    ps->txn_count++;
    return 0;
}

/* The open span of producer_id starting at first_offset, or NULL. */
static gr_txn_span_t *txns_find_open(gr_producer_state_t *ps, int64_t producer_id,
                                     int64_t first_offset)
{
    for (size_t i = 0; i < ps->txn_count; i++) {
        gr_txn_span_t *t = &ps->txns[i];
        if (t->producer_id == producer_id && t->first_offset == first_offset && t->last_offset < 0)
            return t;
    }
    return NULL;
}

/* Kafka's LSO of a completed transaction: the oldest open one of another producer. */
static int64_t txns_stable_after(const gr_producer_state_t *ps, int64_t producer_id,
                                 int64_t marker_offset)
{
    for (size_t i = 0; i < ps->txn_count; i++) {
        const gr_txn_span_t *t = &ps->txns[i];
        if (t->last_offset < 0 && t->producer_id != producer_id)
            return t->first_offset;
    }
    return marker_offset + 1;
}

int64_t gr_producer_state_first_unstable(const gr_producer_state_t *ps, int64_t high_watermark)
{
    for (size_t i = 0; i < ps->txn_count; i++) {
        const gr_txn_span_t *t = &ps->txns[i];
        if (t->last_offset < 0 || t->last_offset >= high_watermark)
            return t->first_offset;
    }
    return -1;
}

void gr_producer_state_on_high_watermark(gr_producer_state_t *ps, int64_t high_watermark)
{
    size_t kept = 0;
    for (size_t i = 0; i < ps->txn_count; i++) {
        const gr_txn_span_t *t = &ps->txns[i];
        if (t->last_offset >= 0 && t->last_offset < high_watermark)
            continue;
        ps->txns[kept++] = *t;
    }
    ps->txn_count = kept;
}

static int cmp_span(const void *a, const void *b)
{
    const gr_txn_span_t *x = a, *y = b;
    return x->first_offset < y->first_offset ? -1 : x->first_offset > y->first_offset;
}

/* The open spans from the producers' entries (after reading a snapshot). */
static int txns_rebuild(gr_producer_state_t *ps)
{
    ps->txn_count = 0;
    for (size_t i = 0; i < ps->count; i++) {
        const gr_producer_entry_t *e = &ps->entries[i];
        if (e->current_txn_first_offset < 0)
            continue;
        if (grow_for((void **)&ps->txns, &ps->txn_cap, ps->txn_count, 1, sizeof *ps->txns) < 0)
            return -ENOMEM;
        ps->txns[ps->txn_count++] =
            (gr_txn_span_t){e->producer_id, e->current_txn_first_offset, -1};
    }
    if (ps->txn_count > 1)
        qsort(ps->txns, ps->txn_count, sizeof *ps->txns, cmp_span);
    return 0;
}

/* The entry for producer_id, inserted empty if new; NULL on ENOMEM. */
static gr_producer_entry_t *state_upsert(gr_producer_state_t *ps, int64_t producer_id)
{
    bool found;
    size_t i = state_search(ps, producer_id, &found);
    if (found)
        return &ps->entries[i];
    if (gr_producer_state_reserve(ps, 1) < 0)
        return NULL;
    memmove(&ps->entries[i + 1], &ps->entries[i], (ps->count - i) * sizeof ps->entries[0]);
    ps->count++;
    gr_producer_entry_t *e = &ps->entries[i];
    memset(e, 0, sizeof *e);
    e->producer_id = producer_id;
    e->epoch = GR_PRODUCER_NO_EPOCH;
    e->coordinator_epoch = GR_PRODUCER_NO_COORDINATOR;
    e->current_txn_first_offset = GR_PRODUCER_NO_TXN;
    e->last_timestamp = -1;
    return e;
}

/* Sequences wrap to 0 after INT32_MAX. */
static int32_t seq_add(int32_t seq, int32_t delta)
{
    if (seq > INT32_MAX - delta)
        return delta - (INT32_MAX - seq) - 1;
    return seq + delta;
}

static bool seq_follows(int32_t last, int32_t next)
{
    return (int64_t)next == (int64_t)last + 1 || (next == 0 && last == INT32_MAX);
}

int32_t gr_producer_entry_last_seq(const gr_producer_entry_t *e)
{
    return e->nbatches ? e->batches[e->nbatches - 1].last_seq : GR_PRODUCER_NO_SEQUENCE;
}

gr_producer_check_t gr_producer_state_check(const gr_producer_state_t *ps,
                                            const gr_batch_header_t *h, gr_producer_batch_t *dup)
{
    if (h->producer_id < 0)
        return GR_PRODUCER_APPEND;
    const gr_producer_entry_t *e = gr_producer_state_find(ps, h->producer_id);
    if (!e || e->epoch == GR_PRODUCER_NO_EPOCH)
        return GR_PRODUCER_APPEND;
    if (h->producer_epoch < e->epoch)
        return GR_PRODUCER_STALE_EPOCH;
    if (h->attributes & GR_BATCH_ATTR_CONTROL)
        return GR_PRODUCER_APPEND;
    int32_t last_seq = seq_add(h->base_sequence, h->last_offset_delta);
    bool transactional = (h->attributes & GR_BATCH_ATTR_TRANSACTIONAL) != 0;
    if (h->producer_epoch == e->epoch) {
        for (int i = 0; i < e->nbatches; i++) {
            const gr_producer_batch_t *b = &e->batches[i];
            if (b->first_seq == h->base_sequence && b->last_seq == last_seq) {
                if (dup)
                    *dup = *b;
                return GR_PRODUCER_DUPLICATE;
            }
        }
        /* An epoch with no batch yet (a marker moved it) takes any start. */
        if (e->nbatches && !seq_follows(gr_producer_entry_last_seq(e), h->base_sequence))
            return GR_PRODUCER_OUT_OF_ORDER;
    } else if (h->base_sequence != 0) {
        return GR_PRODUCER_OUT_OF_ORDER;
    }
    /* Kafka checks this once the sequence is known good. */
    if (!transactional && e->current_txn_first_offset >= 0)
        return GR_PRODUCER_INVALID_TXN_STATE;
    return GR_PRODUCER_APPEND;
}

gr_producer_check_t gr_producer_state_check_marker(const gr_producer_state_t *ps,
                                                   int64_t producer_id, int16_t producer_epoch,
                                                   int32_t coordinator_epoch)
{
    const gr_producer_entry_t *e = gr_producer_state_find(ps, producer_id);
    if (!e)
        return GR_PRODUCER_APPEND;
    if (e->epoch != GR_PRODUCER_NO_EPOCH && producer_epoch < e->epoch)
        return GR_PRODUCER_STALE_EPOCH;
    if (coordinator_epoch < e->coordinator_epoch)
        return GR_PRODUCER_COORDINATOR_FENCED;
    return GR_PRODUCER_APPEND;
}

/* A new slot at the end of the entry's window, dropping the oldest if full. */
static gr_producer_batch_t *entry_push_batch(gr_producer_entry_t *e)
{
    if (e->nbatches == GR_PRODUCER_BATCHES_KEPT) {
        memmove(&e->batches[0], &e->batches[1],
                (GR_PRODUCER_BATCHES_KEPT - 1) * sizeof e->batches[0]);
        e->nbatches--;
    }
    return &e->batches[e->nbatches++];
}

/* A marker for e at offset: ends its open transaction, if any. */
static void entry_end_txn(gr_producer_state_t *ps, gr_producer_entry_t *e,
                          const gr_control_marker_t *marker, int64_t offset, gr_txn_end_t *end)
{
    e->coordinator_epoch = marker->coordinator_epoch;
    if (e->current_txn_first_offset < 0)
        return; /* an empty transaction: nothing to end, nothing to index */
    if (end) {
        end->ended = true;
        end->aborted = marker->type == GR_CONTROL_TYPE_ABORT;
        end->txn = (gr_aborted_txn_t){e->producer_id, e->current_txn_first_offset, offset,
                                      txns_stable_after(ps, e->producer_id, offset)};
    }
    gr_txn_span_t *t = txns_find_open(ps, e->producer_id, e->current_txn_first_offset);
    if (t)
        t->last_offset = offset;
    e->current_txn_first_offset = GR_PRODUCER_NO_TXN;
}

int gr_producer_state_update(gr_producer_state_t *ps, const gr_batch_header_t *h,
                             const gr_control_marker_t *marker, gr_txn_end_t *end)
{
    if (end)
        memset(end, 0, sizeof *end);
    if (h->producer_id < 0)
        return 0;
    gr_producer_entry_t *e = state_upsert(ps, h->producer_id);
    if (!e)
        return -ENOMEM;
    if (h->producer_epoch != e->epoch) {
        e->epoch = h->producer_epoch;
        e->nbatches = 0; /* a new epoch restarts the sequences */
    }
    e->last_timestamp = h->max_timestamp;
    if (h->attributes & GR_BATCH_ATTR_CONTROL) {
        if (marker &&
            (marker->type == GR_CONTROL_TYPE_ABORT || marker->type == GR_CONTROL_TYPE_COMMIT))
            entry_end_txn(ps, e, marker, h->base_offset, end);
        return 0;
    }
    if ((h->attributes & GR_BATCH_ATTR_TRANSACTIONAL) && e->current_txn_first_offset < 0) {
        if (txns_open(ps, e->producer_id, h->base_offset) < 0)
            return -ENOMEM; /* nothing changed but the epoch: the caller reserved anyway */
        e->current_txn_first_offset = h->base_offset;
    }
    gr_producer_batch_t *b = entry_push_batch(e);
    b->first_seq = h->base_sequence;
    b->last_seq = seq_add(h->base_sequence, h->last_offset_delta);
    b->first_offset = h->base_offset;
    b->last_offset = h->base_offset + h->last_offset_delta;
    b->timestamp = h->max_timestamp;
    return 0;
}

size_t gr_producer_state_expire(gr_producer_state_t *ps, int64_t now_ms, int64_t expiration_ms)
{
    size_t kept = 0, removed = 0;
    for (size_t i = 0; i < ps->count; i++) {
        const gr_producer_entry_t *e = &ps->entries[i];
        bool expired = e->current_txn_first_offset < 0 && e->last_timestamp <= now_ms &&
                       now_ms - e->last_timestamp >= expiration_ms;
        if (expired) {
            removed++;
            continue;
        }
        if (kept != i)
            ps->entries[kept] = *e;
        kept++;
    }
    ps->count = kept;
    return removed;
}

/* ---- snapshots ------------------------------------------------------- */

static uint8_t *put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    gr_be32_put(p, v);
    return p + 4;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
    gr_be64_put(p, v);
    return p + 8;
}

static size_t state_batch_count(const gr_producer_state_t *ps)
{
    size_t n = 0;
    for (size_t i = 0; i < ps->count; i++)
        n += ps->entries[i].nbatches ? (size_t)ps->entries[i].nbatches : 1;
    return n;
}

/* One snapshot entry: the entry's state as of batch b (NULL: no batch). */
static uint8_t *put_entry(uint8_t *p, const gr_producer_entry_t *e, const gr_producer_batch_t *b)
{
    p = put64(p, (uint64_t)e->producer_id);
    p = put16(p, (uint16_t)e->epoch);
    p = put32(p, (uint32_t)(b ? b->last_seq : GR_PRODUCER_NO_SEQUENCE));
    p = put64(p, (uint64_t)(b ? b->last_offset : -1));
    p = put32(p, (uint32_t)(b ? (int32_t)(b->last_offset - b->first_offset) : 0));
    p = put64(p, (uint64_t)(b ? b->timestamp : e->last_timestamp));
    p = put32(p, (uint32_t)e->coordinator_epoch);
    return put64(p, (uint64_t)e->current_txn_first_offset);
}

int gr_producer_state_write(const gr_producer_state_t *ps, const gr_io_ops_t *io, const char *path)
{
    size_t n = state_batch_count(ps);
    size_t len = GR_PRODUCER_SNAPSHOT_HEADER + n * GR_PRODUCER_SNAPSHOT_ENTRY;
    uint8_t *buf = malloc(len);
    if (!buf)
        return -ENOMEM;
    uint8_t *p = put16(buf, GR_PRODUCER_SNAPSHOT_VERSION);
    p = put32(p, 0);
    p = put32(p, (uint32_t)n);
    for (size_t i = 0; i < ps->count; i++) {
        const gr_producer_entry_t *e = &ps->entries[i];
        if (e->nbatches == 0)
            p = put_entry(p, e, NULL);
        for (int j = 0; j < e->nbatches; j++)
            p = put_entry(p, e, &e->batches[j]);
    }
    put32(buf + SNAPSHOT_CRC_OFFSET,
          gr_crc32c(0, buf + SNAPSHOT_ENTRIES_OFFSET, len - SNAPSHOT_ENTRIES_OFFSET));
    int rc = gr_io_write_file_atomic(io, path, buf, len);
    free(buf);
    return rc;
}

/* Adds one snapshot entry: a batch of its producer (or only its epoch). */
static int load_entry(gr_producer_state_t *ps, const uint8_t *p)
{
    int64_t producer_id = (int64_t)gr_be64_get(p + ENTRY_PRODUCER_ID);
    int16_t epoch = (int16_t)(p[ENTRY_EPOCH] << 8 | p[ENTRY_EPOCH + 1]);
    int32_t last_seq = (int32_t)gr_be32_get(p + ENTRY_LAST_SEQ);
    int64_t last_offset = (int64_t)gr_be64_get(p + ENTRY_LAST_OFFSET);
    int32_t delta = (int32_t)gr_be32_get(p + ENTRY_OFFSET_DELTA);
    int64_t timestamp = (int64_t)gr_be64_get(p + ENTRY_TIMESTAMP);
    if (producer_id < 0 || delta < 0 || (last_offset >= 0 && delta > last_offset))
        return -EINVAL;
    gr_producer_entry_t *e = state_upsert(ps, producer_id);
    if (!e)
        return -ENOMEM;
    if (epoch != e->epoch)
        e->nbatches = 0;
    e->epoch = epoch;
    e->last_timestamp = timestamp;
    e->coordinator_epoch = (int32_t)gr_be32_get(p + ENTRY_COORDINATOR_EPOCH);
    e->current_txn_first_offset = (int64_t)gr_be64_get(p + ENTRY_TXN_FIRST_OFFSET);
    if (last_seq < 0 || last_offset < 0)
        return 0;
    gr_producer_batch_t *b = entry_push_batch(e);
    b->last_seq = last_seq;
    b->first_seq = last_seq >= delta ? last_seq - delta : seq_add(last_seq, INT32_MAX - delta + 1);
    b->last_offset = last_offset;
    b->first_offset = last_offset - delta;
    b->timestamp = timestamp;
    return 0;
}

int gr_producer_state_read(gr_producer_state_t *ps, const gr_io_ops_t *io, const char *path)
{
    char *data = NULL;
    size_t len = 0;
    gr_producer_state_clear(ps);
    int rc = gr_io_read_file(io, path, GR_PRODUCER_SNAPSHOT_MAX_SIZE, &data, &len);
    if (rc < 0)
        return rc == -EFBIG ? -EINVAL : rc;
    const uint8_t *p = (const uint8_t *)data;
    rc = -EINVAL;
    if (len < GR_PRODUCER_SNAPSHOT_HEADER || (p[0] << 8 | p[1]) != GR_PRODUCER_SNAPSHOT_VERSION ||
        gr_be32_get(p + SNAPSHOT_CRC_OFFSET) !=
            gr_crc32c(0, p + SNAPSHOT_ENTRIES_OFFSET, len - SNAPSHOT_ENTRIES_OFFSET))
        goto fail;
    uint32_t n = gr_be32_get(p + SNAPSHOT_ENTRIES_OFFSET);
    if ((len - GR_PRODUCER_SNAPSHOT_HEADER) / GR_PRODUCER_SNAPSHOT_ENTRY != n ||
        (len - GR_PRODUCER_SNAPSHOT_HEADER) % GR_PRODUCER_SNAPSHOT_ENTRY != 0)
        goto fail;
    for (uint32_t i = 0; i < n; i++) {
        rc = load_entry(ps,
                        p + GR_PRODUCER_SNAPSHOT_HEADER + (size_t)i * GR_PRODUCER_SNAPSHOT_ENTRY);
        if (rc < 0)
            goto fail;
    }
    rc = txns_rebuild(ps);
    if (rc < 0)
        goto fail;
    free(data);
    return 0;
fail:
    gr_producer_state_clear(ps);
    free(data);
    return rc;
}
