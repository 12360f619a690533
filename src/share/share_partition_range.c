/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The range array of a share-partition (share_partition_int.h): finding,
 * splitting, appending, setting and merging ranges, the owners they point
 * to, and moving the start offset past the finished head.
 *
 * Splits never allocate: callers reserve the slots they may need first
 * (gr_share_partition_reserve), so an operation that ran out of memory
 * stops before it changed anything.
 *
 * Thread: the partition owner's.
 */
#include "share/share_partition_int.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int gr_share_partition_reserve(gr_share_partition_t *sp, int64_t more)
{
    int64_t need = (int64_t)sp->count + more;
    if (need <= sp->capacity)
        return 0;
    if (need > INT32_MAX / 2)
        return -ENOMEM;
    int32_t cap = sp->capacity ? sp->capacity : 8;
    while (cap < need)
        cap *= 2;
    gr_share_range_t *ranges = realloc(sp->ranges, (size_t)cap * sizeof(*ranges));
    if (!ranges)
        return -ENOMEM;
    sp->ranges = ranges;
    sp->capacity = cap;
    return 0;
}

int32_t gr_share_partition_find(const gr_share_partition_t *sp, int64_t offset)
{
    assert(offset >= sp->start_offset && offset < sp->end_offset);
    int32_t lo = 0, hi = sp->count - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (sp->ranges[mid].first <= offset)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int32_t gr_share_partition_split(gr_share_partition_t *sp, int64_t offset)
{
    int32_t i = gr_share_partition_find(sp, offset);
    if (sp->ranges[i].first == offset)
        return i;
    assert(sp->count < sp->capacity);
    memmove(&sp->ranges[i + 2], &sp->ranges[i + 1],
            (size_t)(sp->count - i - 1) * sizeof(sp->ranges[0]));
    sp->ranges[i + 1] = sp->ranges[i];
    sp->ranges[i].last = offset - 1;
    sp->ranges[i + 1].first = offset;
    sp->count++;
    return i + 1;
}

int32_t gr_share_partition_isolate(gr_share_partition_t *sp, int64_t first, int64_t last,
                                   int32_t *end_index)
{
    assert(first <= last && last < sp->end_offset);
    /* The split at last + 1 comes second: it is above first, so the range
     * starting at first keeps its index. */
    int32_t i = gr_share_partition_split(sp, first);
    *end_index = last + 1 < sp->end_offset ? gr_share_partition_split(sp, last + 1) : sp->count;
    return i;
}

int32_t gr_share_partition_append(gr_share_partition_t *sp, int64_t first, int64_t last)
{
    assert(first == sp->end_offset && first <= last && sp->count < sp->capacity);
    gr_share_range_t *r = &sp->ranges[sp->count];
    *r = (gr_share_range_t){.first = first, .last = last, .state = GR_SHARE_RECORD_AVAILABLE};
    sp->end_offset = last + 1;
    return sp->count++;
}

gr_share_owner_t *gr_share_partition_find_owner(const gr_share_partition_t *sp,
                                                const char *member_id)
{
    for (int32_t i = 0; i < sp->owner_count; i++)
        if (strcmp(sp->owners[i]->id, member_id) == 0)
            return sp->owners[i];
    return NULL;
}

gr_share_owner_t *gr_share_partition_owner(gr_share_partition_t *sp, const char *member_id)
{
    gr_share_owner_t *o = gr_share_partition_find_owner(sp, member_id);
    if (o)
        return o;
    if (sp->owner_count == sp->owner_capacity) {
        int32_t cap = sp->owner_capacity ? sp->owner_capacity * 2 : 4;
        gr_share_owner_t **owners = realloc(sp->owners, (size_t)cap * sizeof(*owners));
        if (!owners)
            return NULL;
        sp->owners = owners;
        sp->owner_capacity = cap;
    }
    size_t len = strlen(member_id);
    o = malloc(sizeof(*o) + len + 1);
    if (!o)
        return NULL;
    o->records = 0;
    memcpy(o->id, member_id, len + 1);
    sp->owners[sp->owner_count++] = o;
    return o;
}

void gr_share_partition_owner_idle(gr_share_partition_t *sp, gr_share_owner_t *owner)
{
    if (!owner || owner->records > 0)
        return;
    for (int32_t i = 0; i < sp->owner_count; i++) {
        if (sp->owners[i] == owner) {
            sp->owners[i] = sp->owners[--sp->owner_count];
            free(owner);
            return;
        }
    }
}

void gr_share_partition_set(gr_share_partition_t *sp, int32_t i, int8_t state,
                            int16_t delivery_count, gr_share_owner_t *owner, int64_t deadline)
{
    gr_share_range_t *r = &sp->ranges[i];
    int64_t len = gr_share_range_len(r);
    gr_share_owner_t *old = r->owner;
    if (state == GR_SHARE_RECORD_ACQUIRED) {
        assert(owner);
        owner->records += len;
        sp->acquired += len;
    } else {
        owner = NULL;
        deadline = 0;
    }
    if (r->state == GR_SHARE_RECORD_ACQUIRED) {
        old->records -= len;
        sp->acquired -= len;
    }
    r->state = state;
    r->delivery_count = delivery_count;
    r->owner = owner;
    r->deadline = deadline;
    /* After the new owner was counted, so renewing its own range keeps it. */
    if (old)
        gr_share_partition_owner_idle(sp, old);
}

void gr_share_partition_release_range(gr_share_partition_t *sp, int32_t i)
{
    gr_share_range_t *r = &sp->ranges[i];
    assert(r->state == GR_SHARE_RECORD_ACQUIRED);
    int8_t state = r->delivery_count >= sp->config.delivery_count_limit ? GR_SHARE_RECORD_ARCHIVED
                                                                        : GR_SHARE_RECORD_AVAILABLE;
    gr_share_partition_set(sp, i, state, r->delivery_count, NULL, 0);
    sp->changed = true;
}

static bool range_equal(const gr_share_range_t *a, const gr_share_range_t *b)
{
    return a->state == b->state && a->delivery_count == b->delivery_count && a->owner == b->owner &&
           a->deadline == b->deadline;
}

void gr_share_partition_coalesce(gr_share_partition_t *sp, int32_t lo, int32_t hi)
{
    if (sp->count == 0)
        return;
    lo = lo > 0 ? lo - 1 : 0;
    hi = hi < sp->count ? hi + 1 : sp->count;
    int32_t out = lo;
    for (int32_t i = lo + 1; i < hi; i++) {
        if (range_equal(&sp->ranges[out], &sp->ranges[i]))
            sp->ranges[out].last = sp->ranges[i].last;
        else
            sp->ranges[++out] = sp->ranges[i];
    }
    int32_t removed = hi - out - 1;
    if (removed > 0) {
        memmove(&sp->ranges[out + 1], &sp->ranges[hi],
                (size_t)(sp->count - hi) * sizeof(sp->ranges[0]));
        sp->count -= removed;
    }
}

void gr_share_partition_trim_head(gr_share_partition_t *sp)
{
    int32_t n = 0;
    while (n < sp->count && (sp->ranges[n].state == GR_SHARE_RECORD_ACKNOWLEDGED ||
                             sp->ranges[n].state == GR_SHARE_RECORD_ARCHIVED))
        n++;
    if (n == 0)
        return;
    sp->start_offset = sp->ranges[n - 1].last + 1;
    memmove(&sp->ranges[0], &sp->ranges[n], (size_t)(sp->count - n) * sizeof(sp->ranges[0]));
    sp->count -= n;
    sp->changed = true;
}

void gr_share_partition_check(const gr_share_partition_t *sp)
{
#ifndef NDEBUG
    int64_t next = sp->start_offset, acquired = 0;
    assert((sp->count == 0) == (sp->start_offset == sp->end_offset));
    for (int32_t i = 0; i < sp->count; i++) {
        const gr_share_range_t *r = &sp->ranges[i];
        assert(r->first == next && r->first <= r->last);
        assert((r->state == GR_SHARE_RECORD_ACQUIRED) == (r->owner != NULL));
        if (r->state == GR_SHARE_RECORD_ACQUIRED)
            acquired += gr_share_range_len(r);
        next = r->last + 1;
    }
    assert(next == sp->end_offset && acquired == sp->acquired);
    assert(sp->count == 0 || (sp->ranges[0].state != GR_SHARE_RECORD_ACKNOWLEDGED &&
                              sp->ranges[0].state != GR_SHARE_RECORD_ARCHIVED));
    int64_t owned = 0;
    for (int32_t i = 0; i < sp->owner_count; i++) {
        assert(sp->owners[i]->records > 0);
        owned += sp->owners[i]->records;
    }
    assert(owned == acquired);
#else
    (void)sp;
#endif
}
