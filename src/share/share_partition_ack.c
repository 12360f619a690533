/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Ending acquisitions (share_partition.h): a member's acknowledgements,
 * releasing everything a member holds, and lock expiry.
 *
 * An acknowledgement is checked whole before anything changes (shape, then
 * every offset's state and owner, then the memory its splits need), so a
 * refused or failed one leaves the partition as it was: Kafka rolls back
 * the same way.
 *
 * Thread: the partition owner's.
 */
#include "share/share_partition_int.h"

#include <errno.h>
#include <stddef.h>

/* The record state an acknowledge type ends in (RENEW keeps ACQUIRED). */
static int8_t ack_state(int8_t type)
{
    switch (type) {
    case GR_SHARE_ACK_ACCEPT:
        return GR_SHARE_RECORD_ACKNOWLEDGED;
    case GR_SHARE_ACK_RELEASE:
        return GR_SHARE_RECORD_AVAILABLE;
    case GR_SHARE_ACK_RENEW:
        return GR_SHARE_RECORD_ACQUIRED;
    default: /* GAP, REJECT */
        return GR_SHARE_RECORD_ARCHIVED;
    }
}

/* The type of offset o in batch b. */
static int8_t type_at(const gr_share_ack_batch_t *b, int64_t o)
{
    return b->type_count == 1 ? b->types[0] : b->types[o - b->first_offset];
}

/* The last offset (<= b->last_offset) of the run of equal types from o. */
static int64_t run_end(const gr_share_ack_batch_t *b, int64_t o)
{
    if (b->type_count == 1)
        return b->last_offset;
    int8_t t = type_at(b, o);
    while (o < b->last_offset && type_at(b, o + 1) == t)
        o++;
    return o;
}

/* Shape checks Kafka's request handling makes: INVALID_REQUEST. */
static bool batches_valid(const gr_share_ack_batch_t *batches, int32_t count, bool renew_allowed)
{
    if (count < 0 || (count > 0 && !batches))
        return false;
    for (int32_t i = 0; i < count; i++) {
        const gr_share_ack_batch_t *b = &batches[i];
        if (b->first_offset < 0 || b->first_offset > b->last_offset || !b->types)
            return false;
        if (i > 0 && b->first_offset <= batches[i - 1].last_offset)
            return false;
        int64_t len = b->last_offset - b->first_offset + 1;
        if (b->type_count != 1 && b->type_count != len)
            return false;
        for (int32_t k = 0; k < b->type_count; k++)
            if (!gr_share_ack_type_valid(b->types[k], renew_allowed))
                return false;
    }
    return true;
}

/* Checks that member owns every offset of b from the start offset on, and
 * counts the splits applying it may need (*splits, in/out). */
static gr_kerr_t batch_check(const gr_share_partition_t *sp, const gr_share_owner_t *owner,
                             const gr_share_ack_batch_t *b, int64_t *splits)
{
    if (b->last_offset < sp->start_offset)
        return GR_KERR_NONE;              /* done already */
    if (b->last_offset >= sp->end_offset) /* never fetched; Kafka's codes */
        return sp->count == 0 ? GR_KERR_INVALID_RECORD_STATE : GR_KERR_INVALID_REQUEST;
    if (!owner)
        return GR_KERR_INVALID_RECORD_STATE;
    int64_t lo = b->first_offset > sp->start_offset ? b->first_offset : sp->start_offset;
    for (int32_t i = gr_share_partition_find(sp, lo);
         i < sp->count && sp->ranges[i].first <= b->last_offset; i++) {
        const gr_share_range_t *r = &sp->ranges[i];
        if (r->state != GR_SHARE_RECORD_ACQUIRED || r->owner != owner)
            return GR_KERR_INVALID_RECORD_STATE;
    }
    for (int64_t o = lo; o <= b->last_offset; o = run_end(b, o) + 1)
        *splits += 2;
    return GR_KERR_NONE;
}

/* Applies type to [first, last], all ACQUIRED by owner. */
static void apply_run(gr_share_partition_t *sp, gr_share_owner_t *owner, int64_t first,
                      int64_t last, int8_t type, int64_t now_ms)
{
    int32_t end;
    int32_t i = gr_share_partition_isolate(sp, first, last, &end);
    int8_t st = ack_state(type);
    for (int32_t k = i; k < end; k++) {
        int16_t dc = sp->ranges[k].delivery_count;
        if (st == GR_SHARE_RECORD_AVAILABLE) {
            gr_share_partition_release_range(sp, k);
        } else if (st == GR_SHARE_RECORD_ACQUIRED) {
            gr_share_partition_set(sp, k, st, dc, owner,
                                   now_ms + sp->config.record_lock_duration_ms);
        } else {
            gr_share_partition_set(sp, k, st, dc, NULL, 0);
            sp->changed = true;
        }
    }
    gr_share_partition_coalesce(sp, i, end);
}

static void expire(gr_share_partition_t *sp, int64_t now_ms, int64_t *released)
{
    for (int32_t i = 0; i < sp->count; i++) {
        gr_share_range_t *r = &sp->ranges[i];
        if (r->state == GR_SHARE_RECORD_ACQUIRED && r->deadline <= now_ms) {
            *released += gr_share_range_len(r);
            gr_share_partition_release_range(sp, i);
        }
    }
    if (*released > 0) {
        gr_share_partition_coalesce(sp, 0, sp->count);
        gr_share_partition_trim_head(sp);
    }
}

gr_kerr_t gr_share_partition_acknowledge(gr_share_partition_t *sp, const char *member_id,
                                         const gr_share_ack_batch_t *batches, int32_t batch_count,
                                         bool renew_allowed, int64_t now_ms)
{
    /* A lock past its deadline is gone even if the timer has not run yet. */
    int64_t expired = 0;
    expire(sp, now_ms, &expired);
    if (!member_id || !batches_valid(batches, batch_count, renew_allowed))
        return GR_KERR_INVALID_REQUEST;
    gr_share_owner_t *owner = gr_share_partition_find_owner(sp, member_id);
    int64_t splits = 0;
    for (int32_t i = 0; i < batch_count; i++) {
        gr_kerr_t err = batch_check(sp, owner, &batches[i], &splits);
        if (err != GR_KERR_NONE)
            return err;
    }
    if (gr_share_partition_reserve(sp, splits) < 0)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (int32_t i = 0; i < batch_count; i++) {
        const gr_share_ack_batch_t *b = &batches[i];
        int64_t o = b->first_offset > sp->start_offset ? b->first_offset : sp->start_offset;
        while (o <= b->last_offset) {
            int64_t last = run_end(b, o);
            apply_run(sp, owner, o, last, type_at(b, o), now_ms);
            o = last + 1;
        }
    }
    /* The owner may be freed by now (it acknowledged all it held): not
     * used below. */
    gr_share_partition_trim_head(sp);
    gr_share_partition_check(sp);
    return GR_KERR_NONE;
}

int64_t gr_share_partition_release_member(gr_share_partition_t *sp, const char *member_id)
{
    gr_share_owner_t *owner = gr_share_partition_find_owner(sp, member_id);
    if (!owner)
        return 0;
    /* The owner is freed with its last range: count, do not look at it. */
    int64_t held = owner->records, released = 0;
    for (int32_t i = 0; i < sp->count && released < held; i++) {
        gr_share_range_t *r = &sp->ranges[i];
        if (r->state == GR_SHARE_RECORD_ACQUIRED && r->owner == owner) {
            released += gr_share_range_len(r);
            gr_share_partition_release_range(sp, i);
        }
    }
    gr_share_partition_coalesce(sp, 0, sp->count);
    gr_share_partition_trim_head(sp);
    gr_share_partition_check(sp);
    return released;
}

int64_t gr_share_partition_expire(gr_share_partition_t *sp, int64_t now_ms)
{
    int64_t released = 0;
    expire(sp, now_ms, &released);
    gr_share_partition_check(sp);
    return released;
}
