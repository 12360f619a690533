/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The lag rows (see group_lag.h) and the cache of remote partitions' ends.
 *
 * The cache is an array of (topic, partition) sorted by both, rebuilt at
 * each refresh from the partitions the rows need and this broker holds no
 * replica of; a rebuilt entry keeps the values and answer time of the same
 * partition in the old array. The array is rebuilt only while nothing is in
 * flight, so a response always finds the array its request was built from.
 *
 * A refresh's states, with the function doing each transition:
 *   idle     in_flight == 0; gr_group_lag_rows starts a refresh (refresh)
 *            once GR_GROUP_LAG_REFRESH_MS have passed since the last one.
 *   sending  refresh rebuilds the array and sends, per leader, two
 *            ListOffsets (send_to_leader), each counted in in_flight.
 *   idle     again when on_response has run for every request (answer,
 *            error or cancellation alike).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/common.h"
#include "gen/list_offsets.h"
#include "group/cgroup.h"
#include "group/coordinator.h"
#include "group/group_lag.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "net/peer.h"
#include "net/peer_pool.h"
#include "partition/partition.h"

/* ListOffsets v2+ carries the isolation level; 7 is served by every Kafka since 2.8. */
#define GR_GROUP_LAG_LIST_OFFSETS_VERSION 7
#define GR_GROUP_LAG_ISOLATIONS           2    /* read_uncommitted, read_committed */
#define GR_GROUP_LAG_CONSUMER_REPLICA_ID  (-1) /* ListOffsets as a consumer: up to the HW */

/* A partition of which this broker holds no replica, and what its leader last said. */
typedef struct lag_entry {
    char *topic;
    int32_t partition;
    int32_t leader;                        /* at the last refresh; GR_NO_BROKER when unknown */
    int64_t ends[GR_GROUP_LAG_ISOLATIONS]; /* high watermark, last stable; -1 unknown */
    int64_t answered_ms[GR_GROUP_LAG_ISOLATIONS]; /* when each came; 0 never */
} lag_entry_t;

/* A response's context: which of the two values its request asked for. */
typedef struct lag_call {
    gr_group_lag_t *lag;
    int8_t isolation; /* GR_ISOLATION_LEVEL_READ_(UN)COMMITTED, the index into ends */
} lag_call_t;

struct gr_group_lag {
    gr_broker_t *broker;
    lag_entry_t *entries; /* sorted by topic, partition */
    int32_t entry_count;
    gr_peer_pool_t peers;
    lag_call_t calls[GR_GROUP_LAG_ISOLATIONS];
    int32_t in_flight;
    int64_t refreshed_ms; /* when the last refresh started; 0 never */
};

/* --- the cache ---------------------------------------------------------------------- */

static int key_cmp(const char *topic_a, int32_t part_a, const char *topic_b, int32_t part_b)
{
    int c = strcmp(topic_a, topic_b);
    return c ? c : (part_a > part_b) - (part_a < part_b);
}

static int entry_cmp(const void *a, const void *b)
{
    const lag_entry_t *x = a, *y = b;
    return key_cmp(x->topic, x->partition, y->topic, y->partition);
}

/* The entry of (topic, partition), or NULL. topic need not be NUL-terminated. */
static lag_entry_t *entry_find(gr_group_lag_t *lag, gr_str_t topic, int32_t partition)
{
    int32_t lo = 0, hi = lag->entry_count;
    if (topic.len < 0)
        return NULL; /* a null name in a broker's answer matches nothing */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        lag_entry_t *e = &lag->entries[mid];
        size_t len = strlen(e->topic);
        int c = strncmp(e->topic, topic.ptr, len < (size_t)topic.len ? len : (size_t)topic.len);
        if (c == 0)
            c = (len > (size_t)topic.len) - (len < (size_t)topic.len);
        if (c == 0)
            c = (e->partition > partition) - (e->partition < partition);
        if (c == 0)
            return e;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void entries_free(lag_entry_t *entries, int32_t count)
{
    for (int32_t i = 0; i < count; i++)
        free(entries[i].topic);
    free(entries);
}

/* --- rows ---------------------------------------------------------------------------- */

typedef struct rows_build {
    gr_group_lag_row_t *rows;
    int32_t count, cap;
    int err;
} rows_build_t;

static void collect_group(gr_group_t *g, void *arg)
{
    rows_build_t *rb = arg;
    if (rb->err || g->type == GR_GROUP_TYPE_SHARE)
        return;
    for (int32_t i = 0; i < g->offset_count; i++) {
        const gr_group_offset_t *o = &g->offsets[i];
        if (o->offset < 0)
            continue; /* a commit of "no position": nothing to measure from */
        if (rb->count == rb->cap) {
            int32_t cap = rb->cap ? rb->cap * 2 : 64;
            gr_group_lag_row_t *grown = realloc(rb->rows, sizeof *grown * (size_t)cap);
            if (!grown) {
                rb->err = -ENOMEM;
                return;
            }
            rb->rows = grown;
            rb->cap = cap;
        }
        rb->rows[rb->count++] = (gr_group_lag_row_t){.group_id = g->key.id,
                                                     .topic = o->topic,
                                                     .partition = o->partition,
                                                     .committed = o->offset,
                                                     .high_watermark = -1,
                                                     .last_stable = -1};
    }
}

static int row_cmp(const void *a, const void *b)
{
    const gr_group_lag_row_t *x = a, *y = b;
    int c = strcmp(x->group_id, y->group_id);
    return c ? c : key_cmp(x->topic, x->partition, y->topic, y->partition);
}

/* The partition as this broker knows it, or NULL. */
static gr_partition_t *partition_find(gr_broker_t *b, const char *topic, int32_t partition)
{
    gr_topic_t *t = gr_topics_find(b->topics, topic, strlen(topic));
    return t ? gr_topic_partition(t, partition) : NULL;
}

/* Fills the row's ends from the local log, else from the cache. Whether it is remote. */
static bool row_ends(gr_group_lag_t *lag, gr_group_lag_row_t *r, int64_t now_ms)
{
    gr_partition_t *p = partition_find(lag->broker, r->topic, r->partition);
    if (p && p->log) {
        r->high_watermark = gr_log_high_watermark(p->log);
        r->last_stable = gr_log_last_stable_offset(p->log);
        return false;
    }
    lag_entry_t *e = entry_find(lag, gr_str(r->topic), r->partition);
    if (e) {
        int64_t *dst[GR_GROUP_LAG_ISOLATIONS] = {&r->high_watermark, &r->last_stable};
        for (int i = 0; i < GR_GROUP_LAG_ISOLATIONS; i++)
            if (e->answered_ms[i] > 0 && now_ms - e->answered_ms[i] <= GR_GROUP_LAG_STALE_MS)
                *dst[i] = e->ends[i];
    }
    return true;
}

/* --- refresh ------------------------------------------------------------------------- */

static void on_response(void *opaque, int rc, const void *response)
{
    lag_call_t *call = opaque;
    gr_group_lag_t *lag = call->lag;
    lag->in_flight--;
    if (rc != 0)
        return; /* the values known stay until they are stale */
    const gr_list_offsets_response_t *resp = response;
    int64_t now_ms = gr_broker_now_ms(lag->broker);
    for (int32_t t = 0; t < resp->topics_count; t++) {
        const gr_list_offsets_response_list_offsets_topic_response_t *topic = &resp->topics[t];
        for (int32_t i = 0; i < topic->partitions_count; i++) {
            const gr_list_offsets_response_list_offsets_partition_response_t *part =
                &topic->partitions[i];
            lag_entry_t *e = entry_find(lag, topic->name, part->partition_index);
            if (!e)
                continue;
            e->ends[call->isolation] = part->error_code == GR_KERR_NONE ? part->offset : -1;
            e->answered_ms[call->isolation] = now_ms;
        }
    }
}

/*
 * Sends the two ListOffsets for the entries led by node (consecutive
 * entries of one topic share a topic). 0 or -errno (nothing counted then).
 */
static int send_to_leader(gr_group_lag_t *lag, const gr_cluster_node_t *node)
{
    int32_t n = 0;
    for (int32_t i = 0; i < lag->entry_count; i++)
        n += lag->entries[i].leader == node->id;
    gr_list_offsets_request_list_offsets_topic_t *topics = calloc((size_t)n, sizeof *topics);
    gr_list_offsets_request_list_offsets_partition_t *parts = calloc((size_t)n, sizeof *parts);
    gr_peer_t *peer = gr_peer_pool_get(&lag->peers, node->id, node->host, node->port);
    int rc = -ENOMEM;
    if (!topics || !parts || !peer)
        goto fail;
    int32_t topic_count = 0, part_count = 0;
    for (int32_t i = 0; i < lag->entry_count; i++) {
        const lag_entry_t *e = &lag->entries[i];
        if (e->leader != node->id)
            continue;
        gr_list_offsets_request_list_offsets_topic_t *t =
            topic_count > 0 ? &topics[topic_count - 1] : NULL;
        if (!t || !gr_str_eq_c(t->name, e->topic)) {
            t = &topics[topic_count++];
            gr_list_offsets_request_list_offsets_topic_init(t);
            t->name = gr_str(e->topic);
            t->partitions = &parts[part_count];
        }
        gr_list_offsets_request_list_offsets_partition_t *p = &parts[part_count++];
        gr_list_offsets_request_list_offsets_partition_init(p);
        p->partition_index = e->partition;
        p->timestamp = GR_LIST_OFFSETS_TIMESTAMP_LATEST;
        t->partitions_count++;
    }
    for (int i = 0; i < GR_GROUP_LAG_ISOLATIONS; i++) {
        gr_list_offsets_request_t req;
        gr_list_offsets_request_init(&req);
        req.replica_id = GR_GROUP_LAG_CONSUMER_REPLICA_ID; /* not the log end a follower gets */
        req.isolation_level = lag->calls[i].isolation;
        req.topics = topics;
        req.topics_count = topic_count;
        rc = gr_peer_send(peer, GR_API_LIST_OFFSETS, GR_GROUP_LAG_LIST_OFFSETS_VERSION, &req,
                          on_response, &lag->calls[i]);
        if (rc != 0)
            goto fail;
        lag->in_flight++;
    }
    rc = 0;
fail:
    free(topics);
    free(parts);
    return rc;
}

/*
 * The new cache: an entry per distinct remote partition among rows (whose
 * remote flag is set), with the old entry's values. 0 or -ENOMEM (the old
 * cache kept).
 */
static int rebuild(gr_group_lag_t *lag, const gr_group_lag_row_t *rows, const bool *remote,
                   int32_t count)
{
    int32_t n = 0;
    for (int32_t i = 0; i < count; i++)
        n += remote[i];
    lag_entry_t *fresh = calloc((size_t)(n ? n : 1), sizeof *fresh);
    if (!fresh)
        return -ENOMEM;
    int32_t k = 0;
    for (int32_t i = 0; i < count; i++) {
        if (!remote[i])
            continue;
        fresh[k] = (lag_entry_t){
            .topic = strdup(rows[i].topic), .partition = rows[i].partition, .ends = {-1, -1}};
        if (!fresh[k].topic) {
            entries_free(fresh, k);
            return -ENOMEM;
        }
        k++;
    }
    qsort(fresh, (size_t)k, sizeof *fresh, entry_cmp);
    int32_t distinct = 0;
    for (int32_t i = 0; i < k; i++) {
        if (distinct > 0 && entry_cmp(&fresh[distinct - 1], &fresh[i]) == 0) {
            free(fresh[i].topic);
            continue;
        }
        fresh[distinct] = fresh[i];
        const lag_entry_t *old = entry_find(lag, gr_str(fresh[i].topic), fresh[i].partition);
        if (old) {
            memcpy(fresh[distinct].ends, old->ends, sizeof old->ends);
            memcpy(fresh[distinct].answered_ms, old->answered_ms, sizeof old->answered_ms);
        }
        distinct++;
    }
    entries_free(lag->entries, lag->entry_count);
    lag->entries = fresh;
    lag->entry_count = distinct;
    return 0;
}

/* Asks every remote partition's leader for its ends (see the file comment). */
static void refresh(gr_group_lag_t *lag, const gr_group_lag_row_t *rows, const bool *remote,
                    int32_t count, int64_t now_ms)
{
    gr_broker_t *b = lag->broker;
    lag->refreshed_ms = now_ms;
    if (rebuild(lag, rows, remote, count) != 0)
        return;
    for (int32_t i = 0; i < lag->entry_count; i++) {
        lag_entry_t *e = &lag->entries[i];
        gr_partition_t *p = partition_find(b, e->topic, e->partition);
        e->leader = p && p->leader_id != b->config.broker_id ? p->leader_id : GR_NO_BROKER;
    }
    /* The distinct leaders (no more than the brokers), then one round per leader. */
    int32_t *leaders = calloc((size_t)(lag->entry_count ? lag->entry_count : 1), sizeof *leaders);
    if (!leaders)
        return;
    int32_t leader_count = 0;
    for (int32_t i = 0; i < lag->entry_count; i++) {
        int32_t leader = lag->entries[i].leader;
        bool seen = leader == GR_NO_BROKER;
        for (int32_t j = 0; j < leader_count && !seen; j++)
            seen = leaders[j] == leader;
        if (!seen)
            leaders[leader_count++] = leader;
    }
    for (int32_t i = 0; i < leader_count; i++) {
        const gr_cluster_node_t *node = gr_cluster_view_node(b->cluster, leaders[i]);
        if (node && send_to_leader(lag, node) != 0)
            gr_logf(&b->log, GR_LOG_DEBUG, "group",
                    "consumer lag: cannot ask broker %d for log ends", leaders[i]);
    }
    free(leaders);
}

static gr_group_lag_t *lag_get(gr_coordinator_t *co)
{
    if (co->lag)
        return co->lag;
    gr_group_lag_t *lag = calloc(1, sizeof *lag);
    if (!lag)
        return NULL;
    lag->broker = co->broker;
    gr_peer_pool_init(&lag->peers, co->broker, "gregor-group-lag");
    lag->calls[0] = (lag_call_t){lag, GR_ISOLATION_LEVEL_READ_UNCOMMITTED};
    lag->calls[1] = (lag_call_t){lag, GR_ISOLATION_LEVEL_READ_COMMITTED};
    co->lag = lag;
    return lag;
}

int gr_group_lag_rows(gr_coordinator_t *co, gr_group_lag_row_t **out)
{
    *out = NULL;
    if (!co->table.buckets)
        return 0; /* finished: its groups are gone */
    gr_group_lag_t *lag = lag_get(co);
    rows_build_t rb = {0};
    gr_coordinator_foreach(co, collect_group, &rb);
    bool *remote = calloc((size_t)(rb.count ? rb.count : 1), sizeof *remote);
    if (!lag || rb.err || !remote) {
        free(rb.rows);
        free(remote);
        return -ENOMEM;
    }
    if (rb.count > 1)
        qsort(rb.rows, (size_t)rb.count, sizeof *rb.rows, row_cmp);
    int64_t now_ms = gr_broker_now_ms(co->broker);
    bool any_remote = false;
    for (int32_t i = 0; i < rb.count; i++)
        any_remote |= remote[i] = row_ends(lag, &rb.rows[i], now_ms);
    if (lag->in_flight == 0 && (any_remote || lag->entry_count > 0) &&
        now_ms - lag->refreshed_ms >= GR_GROUP_LAG_REFRESH_MS)
        refresh(lag, rb.rows, remote, rb.count, now_ms);
    free(remote);
    *out = rb.rows;
    return rb.count;
}

int32_t gr_group_lag_members(const gr_group_t *g)
{
    if (g->type == GR_GROUP_TYPE_CONSUMER && g->consumer)
        return g->consumer->member_count;
    return g->member_count;
}

void gr_group_lag_free(gr_group_lag_t *lag)
{
    if (!lag)
        return;
    gr_peer_pool_free(&lag->peers); /* on_response runs for what was in flight */
    entries_free(lag->entries, lag->entry_count);
    free(lag);
}
