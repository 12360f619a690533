/* SPDX-License-Identifier: Apache-2.0 */
/* Which partitions each fetcher carries, and when it sends; see fetcher.h. */
#include "replica/fetcher.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/fetch.h"
#include "metadata/cluster_view.h"
#include "net/peer.h"
#include "partition/partition.h"
#include "replica/fetcher_int.h"
#include "replica/replication.h"

#define MS_PER_SEC 1000.0

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* The fetcher of topic's partition index among num.replica.fetchers. */
static int32_t fetcher_number_of(const gr_broker_t *b, const char *topic, int32_t index)
{
    int32_t n = b->config.num_replica_fetchers > 0 ? b->config.num_replica_fetchers : 1;
    return (int32_t)((name_hash(topic) + (uint32_t)index) % (uint32_t)n);
}

static int32_t fetcher_number(gr_broker_t *b, const gr_partition_t *p)
{
    return fetcher_number_of(b, p->topic->name, p->index);
}

static int part_cmp(const char *topic, int32_t index, const fetch_part_t *part)
{
    int c = strcmp(topic, part->topic);
    return c ? c : (index > part->index) - (index < part->index);
}

/* Index of the first part not before (topic, index). */
static int32_t part_slot(const gr_fetcher_t *f, const char *topic, int32_t index)
{
    int32_t lo = 0, hi = f->count;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        if (part_cmp(topic, index, &f->parts[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

fetch_part_t *fetcher_part_find(gr_fetcher_t *f, const char *topic, size_t len, int32_t index)
{
    char name[GR_TOPIC_NAME_LIMIT + 1];
    if (len >= sizeof name)
        return NULL;
    memcpy(name, topic, len);
    name[len] = '\0';
    int32_t i = part_slot(f, name, index);
    return i < f->count && part_cmp(name, index, &f->parts[i]) == 0 ? &f->parts[i] : NULL;
}

gr_partition_t *fetcher_partition(gr_fetcher_t *f, const fetch_part_t *part)
{
    gr_broker_t *b = f->b;
    gr_topic_t *t = gr_topics_find(b->topics, part->topic, strlen(part->topic));
    if (!t || memcmp(t->id.b, part->topic_id.b, sizeof t->id.b) != 0)
        return NULL;
    gr_partition_t *p = gr_topic_partition(t, part->index);
    if (!p || !p->log || p->leader_id != f->source || p->leader_epoch != part->leader_epoch)
        return NULL;
    return p;
}

gr_partition_t *fetcher_part_due(gr_fetcher_t *f, const fetch_part_t *part,
                                 fetch_part_state_t state, int64_t now)
{
    if (part->state != state || part->retry_ms > now)
        return NULL;
    return fetcher_partition(f, part);
}

bool fetcher_new_topic(const fetch_part_t *part, gr_str_t last)
{
    return strncmp(last.ptr, part->topic, (size_t)last.len) != 0 || part->topic[last.len] != '\0';
}

static gr_peer_t *fetcher_peer(gr_fetcher_t *f)
{
    gr_broker_t *b = f->b;
    const gr_cluster_node_t *node = gr_cluster_view_node(b->cluster, f->source);
    if (!node)
        return NULL;
    if (f->peer) {
        (void)gr_peer_set_address(f->peer, node->host, node->port);
        return f->peer;
    }
    char client_id[64];
    snprintf(client_id, sizeof client_id, "gregor-replica-fetcher-%d-%d", b->config.broker_id,
             f->number);
    /* The long poll must end before the request times out. */
    int32_t timeout = b->config.replica_socket_timeout_ms;
    if (timeout <= b->config.replica_fetch_wait_max_ms)
        timeout = b->config.replica_fetch_wait_max_ms + 1000;
    f->peer = gr_peer_new_to_broker(b, f->source, node->host, node->port, client_id, timeout);
    if (f->peer)
        gr_peer_set_unsent(f->peer, GR_PEER_FAIL_UNSENT);
    return f->peer;
}

static void arm_wake(gr_fetcher_t *f, int64_t now)
{
    int64_t next = f->retry_ms > now ? f->retry_ms : INT64_MAX;
    for (int32_t i = 0; i < f->count; i++)
        if (f->parts[i].retry_ms > now && f->parts[i].retry_ms < next)
            next = f->parts[i].retry_ms;
    if (next == INT64_MAX)
        return;
    ev_timer_stop(f->b->loop, &f->wake);
    ev_timer_set(&f->wake, (double)(next - now) / MS_PER_SEC, 0);
    ev_timer_start(f->b->loop, &f->wake);
}

void fetcher_kick(gr_fetcher_t *f)
{
    if (f->closing || f->request != FETCHER_IDLE || f->count == 0)
        return;
    int64_t now = gr_broker_now_ms(f->b);
    int rc = 1;
    if (f->retry_ms <= now && fetcher_peer(f)) {
        f->request = FETCHER_EPOCHS;
        rc = fetcher_send_epochs(f, now);
        if (rc == 1) {
            f->request = FETCHER_FETCH;
            rc = fetcher_send_fetch(f, now);
        }
        if (rc != 0)
            f->request = FETCHER_IDLE;
    } else if (f->retry_ms <= now) {
        f->retry_ms = now + f->b->config.replica_fetch_backoff_ms; /* leader address unknown */
    }
    if (rc < 0)
        f->retry_ms = now + f->b->config.replica_fetch_backoff_ms;
    if (rc != 0)
        arm_wake(f, now);
}

void fetcher_request_done(gr_fetcher_t *f, int rc)
{
    f->request = FETCHER_IDLE;
    for (int32_t i = 0; i < f->count; i++)
        f->parts[i].in_request = false;
    if (f->closing)
        return;
    if (rc < 0) {
        gr_logf(&f->b->log, GR_LOG_DEBUG, "replica", "fetching from broker %d: %s", f->source,
                strerror(-rc));
        f->retry_ms = gr_broker_now_ms(f->b) + f->b->config.replica_fetch_backoff_ms;
    }
    fetcher_kick(f);
}

void fetcher_session_reset(gr_fetcher_t *f)
{
    f->session_epoch = GR_FETCH_SESSION_EPOCH_INITIAL;
    f->session_resets++;
    f->departed_count = 0; /* the full Fetch leaves them out of the new session */
}

void fetcher_session_depart(gr_fetcher_t *f, const fetch_part_t *part)
{
    if (!part->in_session)
        return;
    if (f->session_epoch == GR_FETCH_SESSION_EPOCH_INITIAL) {
        /* A full Fetch out with it makes a session that has it: start over after it. */
        if (f->request == FETCHER_FETCH)
            fetcher_session_reset(f);
        return;
    }
    if (f->departed_count == f->departed_cap) {
        int32_t cap = f->departed_cap ? f->departed_cap * 2 : 8;
        fetch_part_t *departed = realloc(f->departed, sizeof *departed * (size_t)cap);
        if (!departed) {
            fetcher_session_reset(f); /* a new session leaves it out as well */
            return;
        }
        f->departed = departed;
        f->departed_cap = cap;
    }
    f->departed[f->departed_count++] = *part;
}

void fetcher_part_back_off(gr_fetcher_t *f, fetch_part_t *part)
{
    part->retry_ms = gr_broker_now_ms(f->b) + f->b->config.replica_fetch_backoff_ms;
}

static void on_wake(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    fetcher_kick(w->data);
}

static gr_fetcher_t *fetcher_get(gr_broker_t *b, int32_t source, int32_t number)
{
    gr_fetcher_t *f;
    for (f = b->replication->fetchers; f; f = f->next)
        if (f->source == source && f->number == number)
            return f;
    f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->b = b;
    f->source = source;
    f->number = number;
    ev_timer_init(&f->wake, on_wake, 0, 0);
    f->wake.data = f;
    f->next = b->replication->fetchers;
    b->replication->fetchers = f;
    return f;
}

static void fetcher_free(gr_broker_t *b, gr_fetcher_t *f)
{
    for (gr_fetcher_t **pp = &b->replication->fetchers; *pp; pp = &(*pp)->next)
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    f->closing = true;
    ev_timer_stop(b->loop, &f->wake);
    gr_peer_free(f->peer); /* its callback sees closing */
    free(f->parts);
    free(f->departed);
    free(f->buf);
    free(f);
}

/* Removes p from f; frees f when it has no partition left. */
static void fetcher_remove(gr_broker_t *b, gr_fetcher_t *f, const gr_partition_t *p)
{
    int32_t i = part_slot(f, p->topic->name, p->index);
    if (i >= f->count || part_cmp(p->topic->name, p->index, &f->parts[i]) != 0)
        return;
    /* The leader's session would go on reading it: forget it there. */
    fetcher_session_depart(f, &f->parts[i]);
    memmove(&f->parts[i], &f->parts[i + 1], sizeof *f->parts * (size_t)(f->count - i - 1));
    f->count--;
    if (f->count == 0)
        fetcher_free(b, f);
}

/* A copy of part into f at its place; 0 or -ENOMEM. */
static int fetcher_insert_part(gr_fetcher_t *f, const fetch_part_t *part)
{
    if (f->count == f->cap) {
        int32_t cap = f->cap ? f->cap * 2 : 8;
        fetch_part_t *parts = realloc(f->parts, sizeof *parts * (size_t)cap);
        if (!parts)
            return -ENOMEM;
        f->parts = parts;
        f->cap = cap;
    }
    int32_t i = part_slot(f, part->topic, part->index);
    memmove(&f->parts[i + 1], &f->parts[i], sizeof *f->parts * (size_t)(f->count - i));
    f->count++;
    f->parts[i] = *part;
    return 0;
}

static int fetcher_insert(gr_fetcher_t *f, const gr_partition_t *p)
{
    fetch_part_t part;
    memset(&part, 0, sizeof part);
    snprintf(part.topic, sizeof part.topic, "%s", p->topic->name);
    part.topic_id = p->topic->id;
    part.index = p->index;
    part.leader_epoch = p->leader_epoch;
    part.state = FETCH_PART_TRUNCATE;
    return fetcher_insert_part(f, &part);
}

/*
 * Moves f's part i to fetcher number of the same leader, state kept (a
 * response of f's still in flight no longer finds it): f's session forgets
 * it, to's adds it. 0 or -ENOMEM (the part stays in f).
 */
static int fetcher_move(gr_broker_t *b, gr_fetcher_t *f, int32_t i, int32_t number)
{
    gr_fetcher_t *to = fetcher_get(b, f->source, number);
    fetch_part_t part = f->parts[i];
    part.in_request = false;
    part.in_session = false;
    if (!to || fetcher_insert_part(to, &part)) {
        if (to && to->count == 0)
            fetcher_free(b, to);
        return -ENOMEM;
    }
    fetcher_session_depart(f, &f->parts[i]);
    memmove(&f->parts[i], &f->parts[i + 1], sizeof *f->parts * (size_t)(f->count - i - 1));
    f->count--;
    fetcher_kick(to);
    return 0;
}

int64_t gr_replica_fetchers_max_lag(const gr_broker_t *b)
{
    int64_t max = 0;
    if (!b->replication)
        return 0;
    for (const gr_fetcher_t *f = b->replication->fetchers; f; f = f->next)
        for (int32_t i = 0; i < f->count; i++)
            if (f->parts[i].lag > max)
                max = f->parts[i].lag;
    return max;
}

void gr_replica_unfollow(gr_broker_t *b, gr_partition_t *p)
{
    if (!b->replication)
        return;
    gr_fetcher_t *f = b->replication->fetchers;
    while (f) {
        gr_fetcher_t *next = f->next;
        fetcher_remove(b, f, p);
        f = next;
    }
}

void gr_replica_follow(gr_broker_t *b, gr_partition_t *p)
{
    if (!b->replication)
        return;
    int32_t number = fetcher_number(b, p);
    for (gr_fetcher_t *f = b->replication->fetchers; f; f = f->next) {
        fetch_part_t *part =
            f->source == p->leader_id && f->number == number
                ? fetcher_part_find(f, p->topic->name, strlen(p->topic->name), p->index)
                : NULL;
        if (part && part->leader_epoch == p->leader_epoch &&
            memcmp(part->topic_id.b, p->topic->id.b, sizeof part->topic_id.b) == 0)
            return; /* a repeated LeaderAndIsr */
    }
    gr_replica_unfollow(b, p);
    if (p->leader_id < 0 || p->leader_id == b->config.broker_id)
        return;
    gr_fetcher_t *f = fetcher_get(b, p->leader_id, number);
    if (!f || fetcher_insert(f, p)) {
        gr_logf(&b->log, GR_LOG_ERROR, "replica", "out of memory following %s-%d", p->topic->name,
                p->index);
        if (f && f->count == 0)
            fetcher_free(b, f);
        return;
    }
    gr_logf(&b->log, GR_LOG_INFO, "replica", "%s-%d: following broker %d at leader epoch %d",
            p->topic->name, p->index, p->leader_id, p->leader_epoch);
    fetcher_kick(f);
}

void gr_replica_fetchers_resize(gr_broker_t *b)
{
    if (!b->replication)
        return;
    int moved = 0;
    /* Fetchers made here go to the head of the list: they are not walked again. */
    gr_fetcher_t *f = b->replication->fetchers;
    while (f) {
        gr_fetcher_t *next = f->next;
        for (int32_t i = 0; i < f->count;) {
            int32_t number = fetcher_number_of(b, f->parts[i].topic, f->parts[i].index);
            if (number == f->number || fetcher_move(b, f, i, number) < 0) {
                i++;
                continue;
            }
            moved++;
        }
        if (f->count == 0)
            fetcher_free(b, f);
        f = next;
    }
    if (moved)
        gr_logf(&b->log, GR_LOG_INFO, "replica",
                "num.replica.fetchers=%d: %d partition(s) moved to another fetcher",
                b->config.num_replica_fetchers, moved);
}

void gr_replica_fetchers_stop(gr_broker_t *b)
{
    while (b->replication && b->replication->fetchers)
        fetcher_free(b, b->replication->fetchers);
}
