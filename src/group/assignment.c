/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Partition sets by topic id; see assignment.h. Topics sorted by id (memcmp),
 * partitions sorted and distinct, no empty topic. Lookups are binary
 * searches; adding in ascending order appends, so building a set topic by
 * topic and partition by partition is linear (what the assignors do).
 */
#include "group/assignment.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GR_ASSIGNMENT_MIN_CAP 4

static int uuid_cmp(gr_uuid_t a, gr_uuid_t b)
{
    return memcmp(a.b, b.b, sizeof a.b);
}

/* Index of topic_id, or -(insertion point) - 1. */
static int32_t topic_search(const gr_assignment_t *a, gr_uuid_t topic_id)
{
    int32_t lo = 0, hi = a->topic_count;
    if (hi > 0 && uuid_cmp(a->topics[hi - 1].topic_id, topic_id) < 0)
        return -hi - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = uuid_cmp(a->topics[mid].topic_id, topic_id);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -lo - 1;
}

/* Index of partition in t, or -(insertion point) - 1. */
static int32_t partition_search(const gr_assignment_topic_t *t, int32_t partition)
{
    int32_t lo = 0, hi = t->partition_count;
    if (hi > 0 && t->partitions[hi - 1] < partition)
        return -hi - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (t->partitions[mid] == partition)
            return mid;
        if (t->partitions[mid] < partition)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -lo - 1;
}

/* Grows *items (of size elem) to hold at least need; 0 or -ENOMEM. */
static int grow(void **items, int32_t *cap, int32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int32_t next = *cap < GR_ASSIGNMENT_MIN_CAP ? GR_ASSIGNMENT_MIN_CAP : *cap;
    while (next < need)
        next *= 2;
    void *p = realloc(*items, (size_t)next * elem);
    if (!p)
        return -ENOMEM;
    *items = p;
    *cap = next;
    return 0;
}

void gr_assignment_init(gr_assignment_t *a)
{
    memset(a, 0, sizeof *a);
}

void gr_assignment_clear(gr_assignment_t *a)
{
    for (int32_t i = 0; i < a->topic_count; i++)
        free(a->topics[i].partitions);
    a->topic_count = 0;
}

void gr_assignment_free(gr_assignment_t *a)
{
    gr_assignment_clear(a);
    free(a->topics);
    gr_assignment_init(a);
}

/* The entry for topic_id, inserted empty if missing; NULL on ENOMEM. */
static gr_assignment_topic_t *topic_get_or_add(gr_assignment_t *a, gr_uuid_t topic_id)
{
    int32_t at = topic_search(a, topic_id);
    if (at >= 0)
        return &a->topics[at];
    at = -at - 1;
    if (grow((void **)&a->topics, &a->topic_cap, a->topic_count + 1, sizeof *a->topics) < 0)
        return NULL;
    memmove(&a->topics[at + 1], &a->topics[at], (size_t)(a->topic_count - at) * sizeof *a->topics);
    a->topics[at] = (gr_assignment_topic_t){.topic_id = topic_id};
    a->topic_count++;
    return &a->topics[at];
}

static void topic_drop(gr_assignment_t *a, int32_t at)
{
    free(a->topics[at].partitions);
    memmove(&a->topics[at], &a->topics[at + 1],
            (size_t)(a->topic_count - at - 1) * sizeof *a->topics);
    a->topic_count--;
}

int gr_assignment_add(gr_assignment_t *a, gr_uuid_t topic_id, int32_t partition)
{
    gr_assignment_topic_t *t = topic_get_or_add(a, topic_id);
    if (!t)
        return -ENOMEM;
    int32_t at = partition_search(t, partition);
    if (at >= 0)
        return 0;
    at = -at - 1;
    if (grow((void **)&t->partitions, &t->partition_cap, t->partition_count + 1,
             sizeof *t->partitions) < 0) {
        if (t->partition_count == 0)
            topic_drop(a, (int32_t)(t - a->topics));
        return -ENOMEM;
    }
    memmove(&t->partitions[at + 1], &t->partitions[at],
            (size_t)(t->partition_count - at) * sizeof *t->partitions);
    t->partitions[at] = partition;
    t->partition_count++;
    return 0;
}

bool gr_assignment_remove(gr_assignment_t *a, gr_uuid_t topic_id, int32_t partition)
{
    int32_t ti = topic_search(a, topic_id);
    if (ti < 0)
        return false;
    gr_assignment_topic_t *t = &a->topics[ti];
    int32_t at = partition_search(t, partition);
    if (at < 0)
        return false;
    memmove(&t->partitions[at], &t->partitions[at + 1],
            (size_t)(t->partition_count - at - 1) * sizeof *t->partitions);
    if (--t->partition_count == 0)
        topic_drop(a, ti);
    return true;
}

bool gr_assignment_contains(const gr_assignment_t *a, gr_uuid_t topic_id, int32_t partition)
{
    const gr_assignment_topic_t *t = gr_assignment_topic(a, topic_id);
    return t && partition_search(t, partition) >= 0;
}

const gr_assignment_topic_t *gr_assignment_topic(const gr_assignment_t *a, gr_uuid_t topic_id)
{
    int32_t at = topic_search(a, topic_id);
    return at >= 0 ? &a->topics[at] : NULL;
}

void gr_assignment_remove_topic(gr_assignment_t *a, gr_uuid_t topic_id)
{
    int32_t at = topic_search(a, topic_id);
    if (at >= 0)
        topic_drop(a, at);
}

int32_t gr_assignment_size(const gr_assignment_t *a)
{
    int32_t n = 0;
    for (int32_t i = 0; i < a->topic_count; i++)
        n += a->topics[i].partition_count;
    return n;
}

bool gr_assignment_is_empty(const gr_assignment_t *a)
{
    return a->topic_count == 0;
}

bool gr_assignment_equal(const gr_assignment_t *a, const gr_assignment_t *b)
{
    if (a->topic_count != b->topic_count)
        return false;
    for (int32_t i = 0; i < a->topic_count; i++) {
        const gr_assignment_topic_t *x = &a->topics[i], *y = &b->topics[i];
        if (uuid_cmp(x->topic_id, y->topic_id) != 0 || x->partition_count != y->partition_count)
            return false;
        if (memcmp(x->partitions, y->partitions,
                   (size_t)x->partition_count * sizeof *x->partitions) != 0)
            return false;
    }
    return true;
}

/* Appends a topic entry holding a copy of count partitions (count > 0). */
static int topic_append(gr_assignment_t *dst, gr_uuid_t topic_id, const int32_t *partitions,
                        int32_t count)
{
    if (grow((void **)&dst->topics, &dst->topic_cap, dst->topic_count + 1, sizeof *dst->topics) < 0)
        return -ENOMEM;
    int32_t *copy = malloc((size_t)count * sizeof *copy);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, partitions, (size_t)count * sizeof *copy);
    dst->topics[dst->topic_count++] = (gr_assignment_topic_t){topic_id, copy, count, count};
    return 0;
}

int gr_assignment_copy(gr_assignment_t *dst, const gr_assignment_t *src)
{
    gr_assignment_clear(dst);
    for (int32_t i = 0; i < src->topic_count; i++) {
        const gr_assignment_topic_t *t = &src->topics[i];
        if (topic_append(dst, t->topic_id, t->partitions, t->partition_count) < 0) {
            gr_assignment_clear(dst);
            return -ENOMEM;
        }
    }
    return 0;
}

/*
 * Merges the partitions of x and y (both sorted) into out: keep_both for
 * the intersection, else x's partitions not in y. Returns the count.
 */
static int32_t partitions_combine(const gr_assignment_topic_t *x, const gr_assignment_topic_t *y,
                                  bool keep_both, int32_t *out)
{
    int32_t i = 0, j = 0, n = 0;
    while (i < x->partition_count) {
        if (j < y->partition_count && y->partitions[j] < x->partitions[i]) {
            j++;
            continue;
        }
        bool in_y = j < y->partition_count && y->partitions[j] == x->partitions[i];
        if (in_y == keep_both)
            out[n++] = x->partitions[i];
        i++;
    }
    return n;
}

/* dst = a ∩ b (keep_both) or a \ b, topic by topic. */
static int combine(gr_assignment_t *dst, const gr_assignment_t *a, const gr_assignment_t *b,
                   bool keep_both)
{
    static const gr_assignment_topic_t none;
    gr_assignment_clear(dst);
    for (int32_t i = 0; i < a->topic_count; i++) {
        const gr_assignment_topic_t *x = &a->topics[i];
        const gr_assignment_topic_t *y = gr_assignment_topic(b, x->topic_id);
        if (!y && keep_both)
            continue;
        int32_t *buf = malloc((size_t)x->partition_count * sizeof *buf);
        if (!buf)
            return -ENOMEM;
        int32_t n = partitions_combine(x, y ? y : &none, keep_both, buf);
        int rc = n > 0 ? topic_append(dst, x->topic_id, buf, n) : 0;
        free(buf);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int gr_assignment_intersect(gr_assignment_t *dst, const gr_assignment_t *a,
                            const gr_assignment_t *b)
{
    return combine(dst, a, b, true);
}

int gr_assignment_subtract(gr_assignment_t *dst, const gr_assignment_t *a, const gr_assignment_t *b)
{
    return combine(dst, a, b, false);
}

int gr_assignment_merge(gr_assignment_t *a, const gr_assignment_t *b)
{
    if (a == b)
        return 0;
    for (int32_t i = 0; i < b->topic_count; i++) {
        const gr_assignment_topic_t *t = &b->topics[i];
        for (int32_t j = 0; j < t->partition_count; j++) {
            int rc = gr_assignment_add(a, t->topic_id, t->partitions[j]);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

bool gr_assignment_overlaps(const gr_assignment_t *a, const gr_assignment_t *b)
{
    for (int32_t i = 0; i < a->topic_count; i++) {
        const gr_assignment_topic_t *x = &a->topics[i];
        const gr_assignment_topic_t *y = gr_assignment_topic(b, x->topic_id);
        for (int32_t j = 0; y && j < x->partition_count; j++) {
            if (partition_search(y, x->partitions[j]) >= 0)
                return true;
        }
    }
    return false;
}
