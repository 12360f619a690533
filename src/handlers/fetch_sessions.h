/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fetch session cache (KIP-227): the sessions consumers and followers
 * open with a full Fetch (epoch 0), so that later Fetches (incremental) name
 * only what changed and responses carry only partitions with news.
 *
 * A session: a random non-zero id, unique in the cache; the epoch the next
 * request must carry (1 after the full fetch, then +1, INT32_MAX wrapping
 * to 1); whether it is a follower's (privileged) and keyed by topic id
 * (Fetch v13+) or by name; and its partitions, sorted by (topic, partition),
 * each with what the client last asked (fetch offset, max bytes, ...) and
 * what was last sent (high watermark, last stable offset, log start).
 * Partitions are read in the session's fetch order, which is not the key
 * order: a new partition joins at the end, and one that returned records
 * moves to the end (Kafka's order: the consumer or follower that cannot
 * take every partition's data in one response gets the others' next, so no
 * partition starves behind a busy one).
 *
 * The cache holds at most max.incremental.fetch.session.cache.slots
 * sessions. When it is full, a new session may take the place of (Kafka's
 * FetchSessionCache rules):
 *   1. the least recently used session, when idle longer than
 *      min.incremental.fetch.session.eviction.ms; else
 *   2. the least valuable evictable session, ordered by (privileged, size,
 *      id), when the new one is not less valuable (privileged, size, 0). A
 *      session is evictable by anyone once older than the eviction time
 *      (as of its last use), and by a follower's session when it is not a
 *      follower's itself.
 * Otherwise no session is made and the fetch is served sessionless.
 *
 * Sessions outlive connections (a client may fetch on a new connection);
 * they end by FINAL, eviction, or gr_fetch_sessions_free.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_FETCH_SESSIONS_H
#define GR_HANDLERS_FETCH_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/types.h"

typedef struct gr_fetch_sessions gr_fetch_sessions_t;

/* One partition of a session: its key, the client's request, what was sent. */
typedef struct gr_fetch_session_partition {
    gr_uuid_t topic_id; /* the key in a topic-id session */
    char *topic; /* the key in a name session; in a topic-id one its name when known, or NULL */
    int32_t partition;
    int32_t current_leader_epoch;
    int64_t fetch_offset;
    int32_t last_fetched_epoch;
    int64_t log_start_offset; /* a follower's own */
    int32_t max_bytes;
    /* As last sent; -1 (unknown) until the first response, so it goes out. */
    int64_t high_watermark;
    int64_t last_stable_offset;
    int64_t sent_log_start_offset;
    /* Place in the fetch order once settled; added since: after all those,
     * in insertion order (of two equal keys added, the later wins). */
    int32_t rank;
    bool forgotten; /* to be dropped by gr_fetch_session_settle */
    bool run_start; /* once settled: first of its topic's run in the fetch order */
} gr_fetch_session_partition_t;

typedef struct gr_fetch_session {
    int32_t id;
    int32_t epoch; /* what the next incremental request must carry */
    bool privileged;
    bool topic_ids;
    int64_t created_ms;
    int64_t last_used_ms;
    gr_fetch_session_partition_t *parts; /* sorted by key up to sorted_count */
    int32_t count;
    int32_t cap;
    int32_t sorted_count;
    int32_t forgotten; /* partitions marked forgotten since the last settle */
    int32_t *order;    /* indices into parts in fetch order (once settled) */
    int32_t order_cap;
    /* As of the last touch (Kafka evaluates eviction sets there). */
    int32_t touched_size;
    bool evictable_by_all;
    bool evictable_by_privileged;
} gr_fetch_session_t;

/* Kafka's next epoch after epoch: +1, INT32_MAX wraps to 1. */
int32_t gr_fetch_session_next_epoch(int32_t epoch);

/*
 * A cache of at most max_slots sessions (0: no sessions), evicting after
 * eviction_ms idle. NULL when out of memory.
 */
gr_fetch_sessions_t *gr_fetch_sessions_new(int32_t max_slots, int64_t eviction_ms);
/* Frees every session and the cache; NULL is fine. */
void gr_fetch_sessions_free(gr_fetch_sessions_t *c);

/* The session with this id, or NULL. */
gr_fetch_session_t *gr_fetch_sessions_find(gr_fetch_sessions_t *c, int32_t id);

/*
 * A new, empty session expecting epoch 1, made room for by the eviction
 * rules for a session of size partitions; touched at now_ms. NULL when the
 * cache is full and nothing may be evicted, or out of memory.
 */
gr_fetch_session_t *gr_fetch_sessions_create(gr_fetch_sessions_t *c, bool privileged,
                                             bool topic_ids, int32_t size, int64_t now_ms);

/* Drops the session with this id (freeing it); false when there is none. */
bool gr_fetch_sessions_remove(gr_fetch_sessions_t *c, int32_t id);

/* Marks s used at now_ms and refreshes its eviction standing (size, age). */
void gr_fetch_sessions_touch(gr_fetch_sessions_t *c, gr_fetch_session_t *s, int64_t now_ms);

/* Sessions in the cache, and partitions in them as of their last touch. */
int32_t gr_fetch_sessions_count(const gr_fetch_sessions_t *c);
int64_t gr_fetch_sessions_partitions(const gr_fetch_sessions_t *c);
/* Sessions evicted to make room for others, since the cache was made. */
uint64_t gr_fetch_sessions_evictions(const gr_fetch_sessions_t *c);

/*
 * The partition (topic id in a topic-id session, else the name topic of
 * topic_len bytes) among the sorted ones, or NULL.
 */
gr_fetch_session_partition_t *gr_fetch_session_find(gr_fetch_session_t *s, gr_uuid_t topic_id,
                                                    const char *topic, size_t topic_len,
                                                    int32_t partition);

/*
 * The partition, added (unsorted, with unknown sent values) when missing;
 * call gr_fetch_session_settle after a batch of these. A new partition of
 * a topic-id session keeps topic (topic_len bytes) as its name unless it
 * is NULL. NULL when out of memory.
 */
gr_fetch_session_partition_t *gr_fetch_session_upsert(gr_fetch_session_t *s, gr_uuid_t topic_id,
                                                      const char *topic, size_t topic_len,
                                                      int32_t partition);

/* Marks the partition forgotten (if the session has it). */
void gr_fetch_session_forget(gr_fetch_session_t *s, gr_uuid_t topic_id, const char *topic,
                             size_t topic_len, int32_t partition);

/*
 * Sorts what upsert added, keeps the last of equal keys, and drops what
 * was forgotten: afterwards every partition is sorted and findable, and
 * s->order lists them in fetch order (the added ones last). Does nothing
 * when nothing was added or forgotten. 0, or -ENOMEM (then s must be
 * dropped: its order is lost).
 */
int gr_fetch_session_settle(gr_fetch_session_t *s);

/*
 * Moves the partitions at the fetch-order positions marked in to_end
 * (s->count of them) to the end of the fetch order, each group keeping its
 * order. Without memory nothing moves (the order is only fairness).
 */
void gr_fetch_session_requeue(gr_fetch_session_t *s, const bool *to_end);

#endif
