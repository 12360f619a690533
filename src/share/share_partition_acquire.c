/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Acquisition (share_partition.h): turning what the caller read from the
 * log into records locked for one member.
 *
 * The fetched span is cut into pieces: each log batch, and each hole
 * between two batches (offsets compacted away, acquired with their
 * neighbours and acknowledged as GAP by the client). Offsets from the
 * fetch offset up to the first batch no longer exist and form an archived
 * piece of their own. A piece is archived
 * whole when it is a control batch or, read_committed, a batch of an
 * aborted transaction (classify). Pieces are walked in offset order; inside
 * the window only AVAILABLE offsets are taken, from end_offset on the
 * pieces are appended to the window. Two budgets bound the walk: the
 * request's max_records and, for new records, the room left in the window
 * (max_record_locks). When one runs out at offset x the walk goes on to
 * stop_at: x in RECORD_LIMIT mode, the end of x's piece (its log batch) in
 * BATCH_OPTIMIZED mode, as Kafka aligns acquisitions on batches.
 *
 * Memory is reserved before the first change, so -ENOMEM leaves the
 * partition as it was.
 *
 * Thread: the partition owner's.
 */
#include "share/share_partition_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Kafka's floor for the delivery count at which redeliveries are throttled
 * (MINIMUM_THROTTLE_RECORDS_DELIVERY_LIMIT). */
#define GR_SHARE_THROTTLE_DELIVERY_MIN 2

/* One piece of the fetched span. */
typedef struct piece {
    int64_t first;
    int64_t last;
    bool archive; /* control, or an aborted transaction's */
} piece_t;

/* The walk over the pieces of one acquisition. */
typedef struct walk {
    gr_share_partition_t *sp;
    const gr_share_acquire_request_t *req;
    gr_share_owner_t *owner;
    gr_share_acquired_list_t *out;
    int32_t first_item; /* out->count before this call */
    int64_t deadline;
    int64_t acquired; /* records acquired by this call */
    int64_t new_room; /* new offsets the window may still take */
    int64_t stop_at;  /* INT64_MAX until a budget ran out */
    int16_t throttle; /* delivery count from which redelivery is throttled */
    bool done;
} walk_t;

static int cmp_aborted(const void *a, const void *b)
{
    int64_t x = ((const gr_share_aborted_txn_t *)a)->first_offset;
    int64_t y = ((const gr_share_aborted_txn_t *)b)->first_offset;
    return (x > y) - (x < y);
}

/*
 * Marks which batches are archived: every control batch, and with
 * read_committed each transactional batch of a producer whose aborted
 * transaction began at or before the batch's last offset and whose end
 * marker (a control batch) has not been passed yet (the consumer's rule).
 * 0 or -ENOMEM.
 */
static int classify(const gr_share_acquire_request_t *req, bool *archive)
{
    int32_t n = req->read_committed ? req->aborted_count : 0;
    gr_share_aborted_txn_t *aborted = NULL;
    int64_t *open = NULL;
    int32_t open_count = 0, next = 0;
    if (n > 0) {
        aborted = malloc((size_t)n * sizeof(*aborted));
        open = malloc((size_t)n * sizeof(*open));
        if (!aborted || !open) {
            free(aborted);
            free(open);
            return -ENOMEM;
        }
        memcpy(aborted, req->aborted, (size_t)n * sizeof(*aborted));
        qsort(aborted, (size_t)n, sizeof(*aborted), cmp_aborted);
    }
    for (int32_t k = 0; k < req->batch_count; k++) {
        const gr_share_log_batch_t *b = &req->batches[k];
        while (next < n && aborted[next].first_offset <= b->last_offset)
            open[open_count++] = aborted[next++].producer_id;
        int32_t at = -1;
        for (int32_t j = 0; j < open_count; j++)
            if (open[j] == b->producer_id)
                at = j;
        archive[k] = b->is_control || (b->is_transactional && at >= 0);
        if (b->is_control && at >= 0)
            open[at] = open[--open_count]; /* the marker ends it */
    }
    free(aborted);
    free(open);
    return 0;
}

static bool request_valid(const gr_share_acquire_request_t *req)
{
    if (!req->member_id || req->batch_count < 0 || (req->batch_count > 0 && !req->batches))
        return false;
    if (req->aborted_count < 0 || (req->aborted_count > 0 && !req->aborted))
        return false;
    for (int32_t k = 0; k < req->batch_count; k++) {
        const gr_share_log_batch_t *b = &req->batches[k];
        if (b->base_offset < 0 || b->base_offset > b->last_offset)
            return false;
        if (k > 0 && b->base_offset <= req->batches[k - 1].last_offset)
            return false;
    }
    return true;
}

static int list_reserve(gr_share_acquired_list_t *l, int64_t more)
{
    int64_t need = (int64_t)l->count + more;
    if (need <= l->capacity)
        return 0;
    if (need > INT32_MAX / 2)
        return -ENOMEM;
    int32_t cap = l->capacity ? l->capacity : 8;
    while (cap < need)
        cap *= 2;
    gr_share_acquired_t *items = realloc(l->items, (size_t)cap * sizeof(*items));
    if (!items)
        return -ENOMEM;
    l->items = items;
    l->capacity = cap;
    return 0;
}

/* Adds [first, last] to the result, joining the previous entry when it is
 * contiguous with the same delivery count and (BATCH_OPTIMIZED with a
 * batch size) not yet batch_size long. Space was reserved. */
static void list_add(walk_t *w, int64_t first, int64_t last, int16_t dc)
{
    gr_share_acquired_list_t *l = w->out;
    /* Entries of an earlier call stay as they were. */
    gr_share_acquired_t *prev = l->count > w->first_item ? &l->items[l->count - 1] : NULL;
    bool cut = w->req->mode == GR_SHARE_ACQUIRE_BATCH_OPTIMIZED && w->req->batch_size > 0 && prev &&
               prev->last_offset - prev->first_offset + 1 >= w->req->batch_size;
    if (prev && !cut && prev->last_offset + 1 == first && prev->delivery_count == dc)
        prev->last_offset = last;
    else
        l->items[l->count++] = (gr_share_acquired_t){first, last, dc};
    l->records += last - first + 1;
}

/* How many of n offsets from o the budget lets this call take, moving
 * stop_at when it runs out. room: the budget left. */
static int64_t take(walk_t *w, int64_t o, int64_t n, int64_t room, int64_t piece_last)
{
    if (w->stop_at != INT64_MAX)
        return n; /* already capped by stop_at */
    if (room <= 0) {
        w->done = true;
        return 0;
    }
    if (n < room)
        return n;
    int64_t x = o + room - 1;
    w->stop_at = w->req->mode == GR_SHARE_ACQUIRE_RECORD_LIMIT ? x : piece_last;
    int64_t end = w->stop_at < o + n - 1 ? w->stop_at : o + n - 1;
    return end - o + 1;
}

/* Locks [first, last] (whole ranges after isolate) for the member. */
static void lock_span(walk_t *w, int64_t first, int64_t last, int16_t dc)
{
    gr_share_partition_t *sp = w->sp;
    int32_t end;
    int32_t i = gr_share_partition_isolate(sp, first, last, &end);
    for (int32_t k = i; k < end; k++)
        gr_share_partition_set(sp, k, GR_SHARE_RECORD_ACQUIRED, (int16_t)(dc + 1), w->owner,
                               w->deadline);
    gr_share_partition_coalesce(sp, i, end);
    w->acquired += last - first + 1;
    list_add(w, first, last, (int16_t)(dc + 1));
}

static void archive_span(walk_t *w, int64_t first, int64_t last)
{
    gr_share_partition_t *sp = w->sp;
    int32_t end;
    int32_t i = gr_share_partition_isolate(sp, first, last, &end);
    for (int32_t k = i; k < end; k++)
        gr_share_partition_set(sp, k, GR_SHARE_RECORD_ARCHIVED, sp->ranges[k].delivery_count, NULL,
                               0);
    gr_share_partition_coalesce(sp, i, end);
    sp->changed = true;
}

/*
 * Re-acquires available offsets [o, last] of one range (delivery count dc,
 * range length len) inside the window. Records delivered often are
 * throttled (Kafka 4.2): one on its last attempt goes alone; from the
 * throttle count on, runs halve with each further delivery and never join
 * other records. Returns the offsets consumed.
 */
static int64_t reacquire(walk_t *w, int64_t o, int64_t last, int16_t dc, int64_t len,
                         int64_t piece_last)
{
    int16_t limit = w->sp->config.delivery_count_limit;
    bool last_attempt = limit > 2 && dc == limit - 1;
    bool throttled = dc >= w->throttle;
    if ((last_attempt || throttled) && w->acquired > 0) {
        w->done = true;
        return 0;
    }
    int64_t n = take(w, o, last - o + 1, w->req->max_records - w->acquired, piece_last);
    if (last_attempt) {
        n = n > 1 ? 1 : n;
    } else if (throttled) {
        int shift = dc - w->throttle + 1;
        int64_t cap = shift < 63 ? len >> shift : 0;
        cap = cap < 1 ? 1 : cap;
        n = n > cap ? cap : n;
    }
    if (n > 0)
        lock_span(w, o, o + n - 1, dc);
    if (last_attempt || throttled)
        w->done = true;
    return n;
}

/* Walks [o, p->last] inside the window. Returns where it stopped. */
static int64_t walk_window(walk_t *w, const piece_t *p, int64_t o)
{
    gr_share_partition_t *sp = w->sp;
    while (!w->done && o <= p->last && o <= w->stop_at && o < sp->end_offset) {
        const gr_share_range_t *r = &sp->ranges[gr_share_partition_find(sp, o)];
        int64_t last = r->last < p->last ? r->last : p->last;
        last = last < w->stop_at ? last : w->stop_at;
        if (r->state != GR_SHARE_RECORD_AVAILABLE) {
            o = last + 1;
        } else if (p->archive || r->delivery_count >= sp->config.delivery_count_limit) {
            archive_span(w, o, last);
            o = last + 1;
        } else {
            int64_t len = gr_share_range_len(r);
            o += reacquire(w, o, last, r->delivery_count, len, p->last);
        }
    }
    return o;
}

/* Appends [o, p->last] beyond the window's end (o == end_offset). */
static void walk_new(walk_t *w, const piece_t *p, int64_t o)
{
    gr_share_partition_t *sp = w->sp;
    int64_t last = p->last < w->stop_at ? p->last : w->stop_at;
    if (w->done || o > last)
        return;
    /* A full window takes nothing new, even where a batch would carry the
     * acquisition on (Kafka clamps to the window's end then). */
    if (w->new_room <= 0) {
        w->done = true;
        return;
    }
    int64_t n = last - o + 1;
    if (p->archive) {
        if (w->stop_at == INT64_MAX)
            n = n < w->new_room ? n : w->new_room;
    } else {
        int64_t room = w->req->max_records - w->acquired;
        room = room < w->new_room ? room : w->new_room;
        n = take(w, o, n, room, p->last);
    }
    if (n <= 0) {
        w->done = true;
        return;
    }
    gr_share_partition_append(sp, o, o + n - 1);
    w->new_room -= n;
    if (p->archive)
        archive_span(w, o, o + n - 1);
    else
        lock_span(w, o, o + n - 1, 0);
}

static void walk_piece(walk_t *w, const piece_t *p)
{
    gr_share_partition_t *sp = w->sp;
    int64_t o = p->first > sp->start_offset ? p->first : sp->start_offset;
    if (o < sp->end_offset)
        o = walk_window(w, p, o);
    if (w->done || o > p->last || o > w->stop_at)
        return;
    if (o > sp->end_offset) {
        /* The read began above the window's end: nothing exists between. */
        piece_t hole = {sp->end_offset, o - 1, true};
        walk_new(w, &hole, sp->end_offset);
        if (w->done || sp->end_offset != o)
            return;
    }
    walk_new(w, p, o);
}

int gr_share_partition_acquire(gr_share_partition_t *sp, const gr_share_acquire_request_t *req,
                               gr_share_acquired_list_t *out)
{
    if (!request_valid(req))
        return -EINVAL;
    gr_share_partition_expire(sp, req->now_ms);
    if (req->max_records <= 0 || req->batch_count == 0)
        return 0;
    int32_t n = req->batch_count;
    bool *archive = malloc((size_t)n * sizeof(*archive));
    if (!archive)
        return -ENOMEM;
    gr_share_owner_t *owner = NULL;
    /* Each piece (batches, holes between them, one hole below) splits at
     * most at its two ends and appends once; the stop point and a
     * throttled run split once more each. */
    int64_t slots = 8 * (int64_t)n + 8;
    if (classify(req, archive) < 0 || !(owner = gr_share_partition_owner(sp, req->member_id)) ||
        gr_share_partition_reserve(sp, slots) < 0 || list_reserve(out, sp->count + slots) < 0) {
        free(archive);
        gr_share_partition_owner_idle(sp, owner);
        return -ENOMEM;
    }
    int16_t half = (int16_t)((sp->config.delivery_count_limit + 1) / 2);
    walk_t w = {.sp = sp,
                .req = req,
                .owner = owner,
                .out = out,
                .first_item = out->count,
                .deadline = req->now_ms + sp->config.record_lock_duration_ms,
                .new_room = sp->config.max_record_locks - (sp->end_offset - sp->start_offset),
                .stop_at = INT64_MAX,
                .throttle =
                    half > GR_SHARE_THROTTLE_DELIVERY_MIN ? half : GR_SHARE_THROTTLE_DELIVERY_MIN};
    if (req->fetch_offset >= 0 && req->fetch_offset < req->batches[0].base_offset) {
        piece_t stale = {req->fetch_offset, req->batches[0].base_offset - 1, true};
        walk_piece(&w, &stale);
    }
    for (int32_t k = 0; k < n && !w.done; k++) {
        const gr_share_log_batch_t *b = &req->batches[k];
        if (k > 0 && b->base_offset > req->batches[k - 1].last_offset + 1) {
            piece_t gap = {req->batches[k - 1].last_offset + 1, b->base_offset - 1, false};
            walk_piece(&w, &gap);
        }
        if (!w.done && b->base_offset <= w.stop_at) {
            piece_t p = {b->base_offset, b->last_offset, archive[k]};
            walk_piece(&w, &p);
        }
    }
    free(archive);
    gr_share_partition_owner_idle(sp, owner);
    gr_share_partition_trim_head(sp);
    gr_share_partition_check(sp);
    return 0;
}

void gr_share_acquired_list_fini(gr_share_acquired_list_t *list)
{
    free(list->items);
    *list = (gr_share_acquired_list_t){0};
}
