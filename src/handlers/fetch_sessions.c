/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fetch session cache (handlers/fetch_sessions.h has the rules).
 *
 * Sessions are kept in an array of pointers sorted by id, so an incremental
 * fetch finds its session by binary search; the cache holds at most a few
 * thousand, so making room (a linear scan for the eviction candidates) and
 * inserting (a memmove) cost little next to the full fetch that asks for it.
 * A session's partitions are an array sorted by key: upserts append, and
 * settle sorts once per request rather than once per partition. The fetch
 * order is a second array, of indices into the first, rebuilt by settle
 * (ranks are positions in it, so that takes one pass, no sort) and
 * rotated by requeue; an idle incremental fetch changes neither.
 *
 * Runs on: loop thread.
 */
#include "handlers/fetch_sessions.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct gr_fetch_sessions {
    gr_fetch_session_t **by_id; /* sorted by id */
    int32_t count;
    int32_t max_slots;
    int64_t eviction_ms;
    int64_t partitions; /* sum of touched sizes */
    uint64_t evictions;
};

int32_t gr_fetch_session_next_epoch(int32_t epoch)
{
    if (epoch < 0)
        return -1;
    return epoch == INT32_MAX ? 1 : epoch + 1;
}

gr_fetch_sessions_t *gr_fetch_sessions_new(int32_t max_slots, int64_t eviction_ms)
{
    gr_fetch_sessions_t *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->max_slots = max_slots > 0 ? max_slots : 0;
    c->eviction_ms = eviction_ms;
    if (c->max_slots) {
        c->by_id = calloc((size_t)c->max_slots, sizeof(*c->by_id));
        if (!c->by_id) {
            free(c);
            return NULL;
        }
    }
    return c;
}

static void session_free(gr_fetch_session_t *s)
{
    for (int32_t i = 0; i < s->count; i++)
        free(s->parts[i].topic);
    free(s->parts);
    free(s->order);
    free(s);
}

void gr_fetch_sessions_free(gr_fetch_sessions_t *c)
{
    if (!c)
        return;
    for (int32_t i = 0; i < c->count; i++)
        session_free(c->by_id[i]);
    free(c->by_id);
    free(c);
}

/* Index of id in by_id, or -(insertion point) - 1. */
static int32_t index_of(const gr_fetch_sessions_t *c, int32_t id)
{
    int32_t lo = 0, hi = c->count - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int32_t v = c->by_id[mid]->id;
        if (v == id)
            return mid;
        if (v < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

gr_fetch_session_t *gr_fetch_sessions_find(gr_fetch_sessions_t *c, int32_t id)
{
    int32_t i = index_of(c, id);
    return i >= 0 ? c->by_id[i] : NULL;
}

static void remove_at(gr_fetch_sessions_t *c, int32_t i)
{
    gr_fetch_session_t *s = c->by_id[i];
    c->partitions -= s->touched_size;
    memmove(&c->by_id[i], &c->by_id[i + 1], (size_t)(c->count - i - 1) * sizeof(*c->by_id));
    c->count--;
    session_free(s);
}

bool gr_fetch_sessions_remove(gr_fetch_sessions_t *c, int32_t id)
{
    int32_t i = index_of(c, id);
    if (i < 0)
        return false;
    remove_at(c, i);
    return true;
}

void gr_fetch_sessions_touch(gr_fetch_sessions_t *c, gr_fetch_session_t *s, int64_t now_ms)
{
    bool old = now_ms - s->created_ms > c->eviction_ms;
    s->last_used_ms = now_ms;
    c->partitions += s->count - s->touched_size;
    s->touched_size = s->count;
    s->evictable_by_all = old;
    s->evictable_by_privileged = old || !s->privileged;
}

/* Kafka's EvictableKey order: privileged after not, then size, then id. */
static int key_cmp(bool pa, int32_t sa, int32_t ia, bool pb, int32_t sb, int32_t ib)
{
    if (pa != pb)
        return pa ? 1 : -1;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

/* Makes room for a session of size partitions; false when nothing may go. */
static bool try_evict(gr_fetch_sessions_t *c, bool privileged, int32_t size, int64_t now_ms)
{
    int32_t lru = -1, cheapest = -1;
    for (int32_t i = 0; i < c->count; i++) {
        const gr_fetch_session_t *s = c->by_id[i];
        if (lru < 0 || s->last_used_ms < c->by_id[lru]->last_used_ms)
            lru = i;
        if (!(privileged ? s->evictable_by_privileged : s->evictable_by_all))
            continue;
        const gr_fetch_session_t *m = cheapest >= 0 ? c->by_id[cheapest] : NULL;
        if (!m || key_cmp(s->privileged, s->touched_size, s->id, m->privileged, m->touched_size,
                          m->id) < 0)
            cheapest = i;
    }
    if (lru < 0)
        return false;
    if (now_ms - c->by_id[lru]->last_used_ms > c->eviction_ms) {
        remove_at(c, lru);
        c->evictions++;
        return true;
    }
    if (cheapest < 0)
        return false;
    const gr_fetch_session_t *m = c->by_id[cheapest];
    if (key_cmp(privileged, size, 0, m->privileged, m->touched_size, m->id) < 0)
        return false;
    remove_at(c, cheapest);
    c->evictions++;
    return true;
}

/* A random positive id no session has; 0 when the random source fails. */
static int32_t new_id(const gr_fetch_sessions_t *c)
{
    for (;;) {
        uint32_t v;
        if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
            return 0;
        int32_t id = (int32_t)(v & INT32_MAX);
        if (id != 0 && index_of(c, id) < 0)
            return id;
    }
}

gr_fetch_session_t *gr_fetch_sessions_create(gr_fetch_sessions_t *c, bool privileged,
                                             bool topic_ids, int32_t size, int64_t now_ms)
{
    if (c->max_slots == 0)
        return NULL;
    if (c->count >= c->max_slots && !try_evict(c, privileged, size, now_ms))
        return NULL;
    int32_t id = new_id(c);
    gr_fetch_session_t *s = id ? calloc(1, sizeof(*s)) : NULL;
    if (!s)
        return NULL;
    s->id = id;
    s->epoch = gr_fetch_session_next_epoch(0);
    s->privileged = privileged;
    s->topic_ids = topic_ids;
    s->created_ms = now_ms;
    int32_t at = -index_of(c, id) - 1;
    memmove(&c->by_id[at + 1], &c->by_id[at], (size_t)(c->count - at) * sizeof(*c->by_id));
    c->by_id[at] = s;
    c->count++;
    gr_fetch_sessions_touch(c, s, now_ms);
    return s;
}

int32_t gr_fetch_sessions_count(const gr_fetch_sessions_t *c)
{
    return c->count;
}

int64_t gr_fetch_sessions_partitions(const gr_fetch_sessions_t *c)
{
    return c->partitions;
}

uint64_t gr_fetch_sessions_evictions(const gr_fetch_sessions_t *c)
{
    return c->evictions;
}

/* Orders partitions of one session: topic (id or name), then index. */
static int part_cmp_key(bool topic_ids, const gr_fetch_session_partition_t *p, gr_uuid_t id,
                        const char *topic, size_t len, int32_t partition)
{
    int d;
    if (topic_ids) {
        d = memcmp(p->topic_id.b, id.b, sizeof id.b);
    } else {
        size_t plen = strlen(p->topic);
        d = memcmp(p->topic, topic, plen < len ? plen : len);
        if (d == 0 && plen != len)
            d = plen < len ? -1 : 1;
    }
    if (d)
        return d;
    return p->partition < partition ? -1 : p->partition > partition;
}

gr_fetch_session_partition_t *gr_fetch_session_find(gr_fetch_session_t *s, gr_uuid_t topic_id,
                                                    const char *topic, size_t topic_len,
                                                    int32_t partition)
{
    int32_t lo = 0, hi = s->sorted_count - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int d = part_cmp_key(s->topic_ids, &s->parts[mid], topic_id, topic, topic_len, partition);
        if (d == 0)
            return &s->parts[mid];
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

gr_fetch_session_partition_t *gr_fetch_session_upsert(gr_fetch_session_t *s, gr_uuid_t topic_id,
                                                      const char *topic, size_t topic_len,
                                                      int32_t partition)
{
    gr_fetch_session_partition_t *p =
        gr_fetch_session_find(s, topic_id, topic, topic_len, partition);
    if (p) {
        s->forgotten -= p->forgotten;
        p->forgotten = false;
        return p;
    }
    if (s->count == s->cap) {
        int32_t cap = s->cap ? s->cap * 2 : 8;
        gr_fetch_session_partition_t *parts = realloc(s->parts, (size_t)cap * sizeof(*parts));
        if (!parts)
            return NULL;
        s->parts = parts;
        s->cap = cap;
    }
    p = &s->parts[s->count];
    memset(p, 0, sizeof(*p));
    if (!s->topic_ids || topic) {
        p->topic = malloc(topic_len + 1);
        if (!p->topic)
            return NULL;
        memcpy(p->topic, topic, topic_len);
        p->topic[topic_len] = '\0';
    }
    p->rank = s->count++; /* settled ranks are below sorted_count <= count */
    p->topic_id = topic_id;
    p->partition = partition;
    p->current_leader_epoch = -1;
    p->last_fetched_epoch = -1;
    p->log_start_offset = -1;
    p->high_watermark = -1;
    p->last_stable_offset = -1;
    p->sent_log_start_offset = -1;
    return p;
}

void gr_fetch_session_forget(gr_fetch_session_t *s, gr_uuid_t topic_id, const char *topic,
                             size_t topic_len, int32_t partition)
{
    gr_fetch_session_partition_t *p =
        gr_fetch_session_find(s, topic_id, topic, topic_len, partition);
    if (p && !p->forgotten) {
        p->forgotten = true;
        s->forgotten++;
    }
}

/* qsort's order over whole partitions: the key, then insertion order. */
static int part_cmp_ids(const void *a, const void *b)
{
    const gr_fetch_session_partition_t *x = a, *y = b;
    int d = part_cmp_key(true, x, y->topic_id, NULL, 0, y->partition);
    return d ? d : (x->rank < y->rank ? -1 : 1);
}

static int part_cmp_names(const void *a, const void *b)
{
    const gr_fetch_session_partition_t *x = a, *y = b;
    int d = part_cmp_key(false, x, y->topic_id, y->topic, strlen(y->topic), y->partition);
    return d ? d : (x->rank < y->rank ? -1 : 1);
}

/*
 * Marks where each topic's run starts in the fetch order, so that an idle
 * incremental fetch groups its partitions by topic without comparing names.
 */
static void mark_runs(gr_fetch_session_t *s)
{
    for (int32_t k = 0; k < s->count; k++) {
        gr_fetch_session_partition_t *p = &s->parts[s->order[k]];
        const gr_fetch_session_partition_t *prev = k ? &s->parts[s->order[k - 1]] : NULL;
        p->run_start = !prev || part_cmp_key(s->topic_ids, prev, p->topic_id, p->topic,
                                             p->topic ? strlen(p->topic) : 0, prev->partition) != 0;
    }
}

/*
 * Rebuilds s->order from the ranks of s->parts, which are distinct and
 * below ranks (the partition count before settling). 0 or -ENOMEM.
 */
static int order_rebuild(gr_fetch_session_t *s, int32_t ranks)
{
    if (ranks > s->order_cap) {
        int32_t *order = realloc(s->order, (size_t)ranks * sizeof(*order));
        if (!order)
            return -ENOMEM;
        s->order = order;
        s->order_cap = ranks;
    }
    for (int32_t r = 0; r < ranks; r++)
        s->order[r] = -1;
    for (int32_t i = 0; i < s->count; i++)
        s->order[s->parts[i].rank] = i;
    int32_t n = 0;
    for (int32_t r = 0; r < ranks; r++)
        if (s->order[r] >= 0) {
            s->parts[s->order[r]].rank = n;
            s->order[n++] = s->order[r];
        }
    mark_runs(s);
    return 0;
}

int gr_fetch_session_settle(gr_fetch_session_t *s)
{
    if (s->sorted_count == s->count && s->forgotten == 0)
        return 0; /* an idle incremental fetch: nothing to redo */
    int32_t ranks = s->count;
    if (s->sorted_count < s->count)
        qsort(s->parts, (size_t)s->count, sizeof(*s->parts),
              s->topic_ids ? part_cmp_ids : part_cmp_names);
    int32_t out = 0;
    for (int32_t i = 0; i < s->count; i++) {
        gr_fetch_session_partition_t *p = &s->parts[i];
        const gr_fetch_session_partition_t *next = i + 1 < s->count ? &s->parts[i + 1] : NULL;
        bool superseded =
            next && part_cmp_key(s->topic_ids, p, next->topic_id, next->topic,
                                 next->topic ? strlen(next->topic) : 0, next->partition) == 0;
        if (superseded || p->forgotten) {
            free(p->topic);
            continue;
        }
        s->parts[out++] = *p;
    }
    s->count = out;
    s->sorted_count = out;
    s->forgotten = 0;
    return order_rebuild(s, ranks);
}

void gr_fetch_session_requeue(gr_fetch_session_t *s, const bool *to_end)
{
    int32_t moved = 0;
    for (int32_t k = 0; k < s->count; k++)
        moved += to_end[k];
    if (moved == 0)
        return;
    int32_t *tail = malloc((size_t)moved * sizeof(*tail));
    if (!tail)
        return;
    int32_t kept = 0, m = 0;
    for (int32_t k = 0; k < s->count; k++) {
        if (to_end[k])
            tail[m++] = s->order[k];
        else
            s->order[kept++] = s->order[k];
    }
    memcpy(&s->order[kept], tail, (size_t)moved * sizeof(*tail));
    free(tail);
    for (int32_t k = 0; k < s->count; k++)
        s->parts[s->order[k]].rank = k;
    mark_runs(s);
}
