/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The persister (see share_persister.h): one call is one key's RPC to the
 * share coordinator, one request per call (the RPCs carry lists, but a
 * leader writes a share-partition at a time and nothing waits to batch).
 *
 * A call's states, with the function doing each transition:
 *   WAITING  on its ev_timer: at once after the call (call_start), after a
 *            backoff after a retriable error (call_retry).
 *   SENT     (call_send) the key's coordinator located (the runtime
 *            creates __share_group_state on first use), the request queued
 *            on the peer to it; on_response moves on.
 *   done     (call_finish) the callback ran, the call is freed.
 * A call cancelled while SENT is marked and freed when its response
 * comes; one cancelled while WAITING is freed at once.
 *
 * Peers: one per coordinator broker, this one included (its own listener,
 * as the transaction coordinator sends its markers), at the address
 * FindCoordinator would name; unsent requests fail with the connection's
 * error (GR_PEER_FAIL_UNSENT), so a dead coordinator is retried elsewhere.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/delete_share_group_state.h"
#include "gen/initialize_share_group_state.h"
#include "gen/read_share_group_state.h"
#include "gen/read_share_group_state_summary.h"
#include "gen/write_share_group_state.h"
#include "net/peer.h"
#include "net/peer_pool.h"
#include "share/share_coordinator.h"
#include "share/share_persister.h"

#define GR_SHARE_PERSISTER_DEADLINE_MS 30000 /* Kafka's request.timeout.ms default */
#define GR_MS_PER_SEC                  1000.0

/* The versions sent: those every Kafka 4.x coordinator serves, but write's count (4.2). */
#define GR_SHARE_INITIALIZE_VERSION 0
#define GR_SHARE_READ_VERSION       0
#define GR_SHARE_WRITE_VERSION      1
#define GR_SHARE_DELETE_VERSION     0
#define GR_SHARE_SUMMARY_VERSION    1

typedef enum call_kind {
    CALL_INITIALIZE,
    CALL_READ,
    CALL_WRITE,
    CALL_DELETE,
    CALL_SUMMARY,
} call_kind_t;

typedef struct call call_t;

struct gr_share_persister {
    gr_broker_t *broker;
    call_t *calls; /* every pending call, for cancel and free */
    gr_peer_pool_t peers;
};

struct call {
    call_t *next, *prev;
    gr_share_persister_t *p;
    call_kind_t kind;
    char *group_id;
    char *coordinator_key;
    gr_uuid_t topic_id;
    int32_t partition;
    int32_t state_epoch, leader_epoch, delivery_complete_count;
    int64_t start_offset;
    gr_share_state_batch_t *batches;
    int32_t batch_count;
    gr_share_persister_done_fn *done;
    gr_share_persister_read_fn *read;
    gr_share_persister_summary_fn *summary;
    void *opaque;
    ev_timer timer;
    int64_t deadline_ms;
    int32_t backoff_ms;
    gr_kerr_t last_error;
    bool sent, cancelled;
};

/* --- call lifecycle ------------------------------------------------------------------ */

static void call_free(call_t *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else if (c->p->calls == c)
        c->p->calls = c->next;
    if (c->next)
        c->next->prev = c->prev;
    ev_timer_stop(c->p->broker->loop, &c->timer);
    free(c->group_id);
    free(c->coordinator_key);
    free(c->batches);
    free(c);
}

/* Runs c's callback with err (and the answer when NONE) unless cancelled. */
static void call_notify(call_t *c, gr_kerr_t err, const gr_share_state_t *state,
                        const gr_share_summary_t *summary)
{
    if (c->cancelled)
        return;
    switch (c->kind) {
    case CALL_READ:
        c->read(c->opaque, err, err ? NULL : state);
        break;
    case CALL_SUMMARY:
        c->summary(c->opaque, err, err ? NULL : summary);
        break;
    default:
        c->done(c->opaque, err);
        break;
    }
}

static void call_finish(call_t *c, gr_kerr_t err, const gr_share_state_t *state,
                        const gr_share_summary_t *summary)
{
    call_notify(c, err, state, summary);
    call_free(c);
}

static bool retriable(gr_kerr_t err)
{
    return err == GR_KERR_NOT_COORDINATOR || err == GR_KERR_COORDINATOR_LOAD_IN_PROGRESS ||
           err == GR_KERR_COORDINATOR_NOT_AVAILABLE || err == GR_KERR_REQUEST_TIMED_OUT ||
           err == GR_KERR_NETWORK_EXCEPTION;
}

/* Another attempt after the backoff, or the last error once past the deadline. */
static void call_retry(call_t *c, gr_kerr_t err)
{
    gr_broker_t *b = c->p->broker;
    c->sent = false;
    c->last_error = err;
    if (c->cancelled) {
        call_free(c);
        return;
    }
    int64_t now = gr_broker_now_ms(b);
    if (now + c->backoff_ms >= c->deadline_ms) {
        call_finish(c, err, NULL, NULL);
        return;
    }
    ev_timer_set(&c->timer, c->backoff_ms / GR_MS_PER_SEC, 0.0);
    ev_timer_start(b->loop, &c->timer);
    c->backoff_ms = c->backoff_ms * 2 > GR_SHARE_PERSISTER_BACKOFF_MAX_MS
                        ? GR_SHARE_PERSISTER_BACKOFF_MAX_MS
                        : c->backoff_ms * 2;
}

/* --- responses ------------------------------------------------------------------------ */

/* The one partition result of a response shaped topics[].partitions[]. */
#define ONE_RESULT(resp, list)                                                                     \
    ((resp)->list##_count == 1 && (resp)->list[0].partitions_count == 1                            \
         ? &(resp)->list[0].partitions[0]                                                          \
         : NULL)

static void on_read(call_t *c, const gr_read_share_group_state_response_t *r)
{
    const gr_read_share_group_state_response_partition_result_t *pr = ONE_RESULT(r, results);
    if (!pr) {
        call_retry(c, GR_KERR_NETWORK_EXCEPTION);
        return;
    }
    if (pr->error_code) {
        gr_kerr_t err = pr->error_code;
        if (retriable(err))
            call_retry(c, err);
        else
            call_finish(c, err, NULL, NULL);
        return;
    }
    gr_share_state_batch_t *batches = calloc(
        (size_t)(pr->state_batches_count > 0 ? pr->state_batches_count : 1), sizeof *batches);
    if (!batches) {
        call_finish(c, GR_KERR_UNKNOWN_SERVER_ERROR, NULL, NULL);
        return;
    }
    for (int32_t i = 0; i < pr->state_batches_count; i++)
        batches[i] = (gr_share_state_batch_t){
            pr->state_batches[i].first_offset, pr->state_batches[i].last_offset,
            pr->state_batches[i].delivery_state, pr->state_batches[i].delivery_count};
    gr_share_state_t state = {.state_epoch = pr->state_epoch,
                              .leader_epoch = c->leader_epoch,
                              .start_offset = pr->start_offset,
                              .batches = batches,
                              .batch_count = pr->state_batches_count};
    call_finish(c, GR_KERR_NONE, &state, NULL);
    free(batches);
}

static void on_summary(call_t *c, const gr_read_share_group_state_summary_response_t *r)
{
    const gr_read_share_group_state_summary_response_partition_result_t *pr =
        ONE_RESULT(r, results);
    gr_kerr_t err = pr ? pr->error_code : GR_KERR_NETWORK_EXCEPTION;
    if (retriable(err)) {
        call_retry(c, err);
        return;
    }
    gr_share_summary_t s = {0};
    if (!err)
        s = (gr_share_summary_t){.state_epoch = pr->state_epoch,
                                 .leader_epoch = pr->leader_epoch,
                                 .start_offset = pr->start_offset,
                                 .delivery_complete_count = pr->delivery_complete_count};
    call_finish(c, err, NULL, &s);
}

/* Initialize, write and delete: a partition's error code only. */
static void on_plain(call_t *c, gr_kerr_t err)
{
    if (retriable(err))
        call_retry(c, err);
    else
        call_finish(c, err, NULL, NULL);
}

static void on_response(void *opaque, int rc, const void *response)
{
    call_t *c = opaque;
    if (rc || !response || c->cancelled) {
        call_retry(c, GR_KERR_NETWORK_EXCEPTION); /* frees a cancelled call */
        return;
    }
    switch (c->kind) {
    case CALL_READ:
        on_read(c, response);
        return;
    case CALL_SUMMARY:
        on_summary(c, response);
        return;
    case CALL_INITIALIZE: {
        const gr_initialize_share_group_state_response_t *r = response;
        const gr_initialize_share_group_state_response_partition_result_t *pr =
            ONE_RESULT(r, results);
        on_plain(c, pr ? pr->error_code : GR_KERR_NETWORK_EXCEPTION);
        return;
    }
    case CALL_WRITE: {
        const gr_write_share_group_state_response_t *r = response;
        const gr_write_share_group_state_response_partition_result_t *pr = ONE_RESULT(r, results);
        on_plain(c, pr ? pr->error_code : GR_KERR_NETWORK_EXCEPTION);
        return;
    }
    case CALL_DELETE: {
        const gr_delete_share_group_state_response_t *r = response;
        const gr_delete_share_group_state_response_partition_result_t *pr = ONE_RESULT(r, results);
        on_plain(c, pr ? pr->error_code : GR_KERR_NETWORK_EXCEPTION);
        return;
    }
    }
}

/* --- requests ------------------------------------------------------------------------- */

static int send_initialize(call_t *c, gr_peer_t *peer)
{
    gr_initialize_share_group_state_request_partition_data_t part = {
        .partition = c->partition, .state_epoch = c->state_epoch, .start_offset = c->start_offset};
    gr_initialize_share_group_state_request_initialize_state_data_t topic = {
        .topic_id = c->topic_id, .partitions = &part, .partitions_count = 1};
    gr_initialize_share_group_state_request_t req;
    gr_initialize_share_group_state_request_init(&req);
    req.group_id = gr_str(c->group_id);
    req.topics = &topic;
    req.topics_count = 1;
    return gr_peer_send(peer, GR_API_INITIALIZE_SHARE_GROUP_STATE, GR_SHARE_INITIALIZE_VERSION,
                        &req, on_response, c);
}

static int send_read(call_t *c, gr_peer_t *peer)
{
    gr_read_share_group_state_request_partition_data_t part = {.partition = c->partition,
                                                               .leader_epoch = c->leader_epoch};
    gr_read_share_group_state_request_read_state_data_t topic = {
        .topic_id = c->topic_id, .partitions = &part, .partitions_count = 1};
    gr_read_share_group_state_request_t req;
    gr_read_share_group_state_request_init(&req);
    req.group_id = gr_str(c->group_id);
    req.topics = &topic;
    req.topics_count = 1;
    return gr_peer_send(peer, GR_API_READ_SHARE_GROUP_STATE, GR_SHARE_READ_VERSION, &req,
                        on_response, c);
}

static int send_write(call_t *c, gr_peer_t *peer)
{
    gr_write_share_group_state_request_state_batch_t *batches =
        calloc((size_t)(c->batch_count > 0 ? c->batch_count : 1), sizeof *batches);
    if (!batches)
        return -ENOMEM;
    for (int32_t i = 0; i < c->batch_count; i++)
        batches[i] = (gr_write_share_group_state_request_state_batch_t){
            .first_offset = c->batches[i].first_offset,
            .last_offset = c->batches[i].last_offset,
            .delivery_state = c->batches[i].state,
            .delivery_count = c->batches[i].delivery_count};
    gr_write_share_group_state_request_partition_data_t part = {
        .partition = c->partition,
        .state_epoch = c->state_epoch,
        .leader_epoch = c->leader_epoch,
        .start_offset = c->start_offset,
        .delivery_complete_count = c->delivery_complete_count,
        .state_batches = batches,
        .state_batches_count = c->batch_count};
    gr_write_share_group_state_request_write_state_data_t topic = {
        .topic_id = c->topic_id, .partitions = &part, .partitions_count = 1};
    gr_write_share_group_state_request_t req;
    gr_write_share_group_state_request_init(&req);
    req.group_id = gr_str(c->group_id);
    req.topics = &topic;
    req.topics_count = 1;
    int rc = gr_peer_send(peer, GR_API_WRITE_SHARE_GROUP_STATE, GR_SHARE_WRITE_VERSION, &req,
                          on_response, c);
    free(batches);
    return rc;
}

static int send_delete(call_t *c, gr_peer_t *peer)
{
    gr_delete_share_group_state_request_partition_data_t part = {.partition = c->partition};
    gr_delete_share_group_state_request_delete_state_data_t topic = {
        .topic_id = c->topic_id, .partitions = &part, .partitions_count = 1};
    gr_delete_share_group_state_request_t req;
    gr_delete_share_group_state_request_init(&req);
    req.group_id = gr_str(c->group_id);
    req.topics = &topic;
    req.topics_count = 1;
    return gr_peer_send(peer, GR_API_DELETE_SHARE_GROUP_STATE, GR_SHARE_DELETE_VERSION, &req,
                        on_response, c);
}

static int send_summary(call_t *c, gr_peer_t *peer)
{
    gr_read_share_group_state_summary_request_partition_data_t part = {
        .partition = c->partition, .leader_epoch = c->leader_epoch};
    gr_read_share_group_state_summary_request_read_state_summary_data_t topic = {
        .topic_id = c->topic_id, .partitions = &part, .partitions_count = 1};
    gr_read_share_group_state_summary_request_t req;
    gr_read_share_group_state_summary_request_init(&req);
    req.group_id = gr_str(c->group_id);
    req.topics = &topic;
    req.topics_count = 1;
    return gr_peer_send(peer, GR_API_READ_SHARE_GROUP_STATE_SUMMARY, GR_SHARE_SUMMARY_VERSION, &req,
                        on_response, c);
}

/* Locates the key's coordinator and sends; a retriable failure waits and tries again. */
static void call_send(call_t *c)
{
    gr_share_persister_t *p = c->p;
    gr_coordinator_node_t node;
    gr_kerr_t err = p->broker->share_coordinator
                        ? gr_share_coordinator_locate(p->broker->share_coordinator,
                                                      gr_str(c->coordinator_key), &node)
                        : GR_KERR_COORDINATOR_NOT_AVAILABLE;
    gr_peer_t *peer = err ? NULL : gr_peer_pool_get(&p->peers, node.node_id, node.host, node.port);
    if (!peer) {
        call_retry(c, err ? err : GR_KERR_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    int rc;
    switch (c->kind) {
    case CALL_INITIALIZE:
        rc = send_initialize(c, peer);
        break;
    case CALL_READ:
        rc = send_read(c, peer);
        break;
    case CALL_WRITE:
        rc = send_write(c, peer);
        break;
    case CALL_DELETE:
        rc = send_delete(c, peer);
        break;
    default:
        rc = send_summary(c, peer);
        break;
    }
    if (rc) {
        call_retry(c, GR_KERR_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    c->sent = true;
}

static void on_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    call_send(t->data);
}

/* A new call on its way (first attempt on the next loop iteration). NULL: ENOMEM/EINVAL. */
static call_t *call_new(gr_share_persister_t *p, call_kind_t kind, const gr_share_key_t *key,
                        void *opaque)
{
    if (!p || !key || !key->group_id)
        return NULL;
    call_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->p = p;
    c->kind = kind;
    c->opaque = opaque;
    c->topic_id = key->topic_id;
    c->partition = key->partition;
    c->group_id = strdup(key->group_id);
    size_t cap = strlen(key->group_id) + GR_SHARE_KEY_TEXT_EXTRA;
    c->coordinator_key = malloc(cap);
    if (!c->group_id || !c->coordinator_key ||
        gr_share_coordinator_key_format(key, c->coordinator_key, cap) < 0) {
        free(c->group_id);
        free(c->coordinator_key);
        free(c);
        return NULL;
    }
    c->delivery_complete_count = GR_SHARE_DELIVERY_COMPLETE_UNKNOWN;
    c->backoff_ms = GR_SHARE_PERSISTER_BACKOFF_MS;
    c->deadline_ms = gr_broker_now_ms(p->broker) + GR_SHARE_PERSISTER_DEADLINE_MS;
    c->last_error = GR_KERR_REQUEST_TIMED_OUT;
    ev_timer_init(&c->timer, on_timer, 0.0, 0.0);
    c->timer.data = c;
    return c;
}

/* Links c and arms its first attempt (never from inside the caller's call). */
static int call_start(call_t *c)
{
    gr_share_persister_t *p = c->p;
    c->next = p->calls;
    if (p->calls)
        p->calls->prev = c;
    p->calls = c;
    ev_timer_start(p->broker->loop, &c->timer);
    return 0;
}

/* --- the interface --------------------------------------------------------------------- */

gr_share_persister_t *gr_share_persister_new(gr_broker_t *b)
{
    gr_share_persister_t *p = calloc(1, sizeof *p);
    if (p) {
        p->broker = b;
        gr_peer_pool_init(&p->peers, b, "gregor-share-persister");
    }
    return p;
}

void gr_share_persister_free(gr_share_persister_t *p)
{
    if (!p)
        return;
    call_t *next;
    for (call_t *c = p->calls; c; c = next) {
        next = c->next;
        call_notify(c, GR_KERR_COORDINATOR_NOT_AVAILABLE, NULL, NULL);
        c->cancelled = true;
        if (!c->sent)
            call_free(c);
    }
    /* The calls still sent come back -ECANCELED from their peer, cancelled: freed then. */
    gr_peer_pool_free(&p->peers);
    free(p);
}

int gr_share_persister_initialize(gr_share_persister_t *p, const gr_share_key_t *key,
                                  int32_t state_epoch, int64_t start_offset,
                                  gr_share_persister_done_fn *cb, void *opaque)
{
    call_t *c = cb ? call_new(p, CALL_INITIALIZE, key, opaque) : NULL;
    if (!c)
        return cb ? -ENOMEM : -EINVAL;
    c->state_epoch = state_epoch;
    c->start_offset = start_offset;
    c->done = cb;
    return call_start(c);
}

int gr_share_persister_read(gr_share_persister_t *p, const gr_share_key_t *key,
                            int32_t leader_epoch, gr_share_persister_read_fn *cb, void *opaque)
{
    call_t *c = cb ? call_new(p, CALL_READ, key, opaque) : NULL;
    if (!c)
        return cb ? -ENOMEM : -EINVAL;
    c->leader_epoch = leader_epoch;
    c->read = cb;
    return call_start(c);
}

int gr_share_persister_write(gr_share_persister_t *p, const gr_share_key_t *key,
                             const gr_share_state_t *state, int32_t delivery_complete_count,
                             gr_share_persister_done_fn *cb, void *opaque)
{
    if (!state || state->batch_count < 0 || (state->batch_count > 0 && !state->batches))
        return -EINVAL;
    call_t *c = cb ? call_new(p, CALL_WRITE, key, opaque) : NULL;
    if (!c)
        return cb ? -ENOMEM : -EINVAL;
    c->state_epoch = state->state_epoch;
    c->leader_epoch = state->leader_epoch;
    c->start_offset = state->start_offset;
    c->delivery_complete_count = delivery_complete_count;
    c->batch_count = state->batch_count;
    if (state->batch_count > 0) {
        c->batches = malloc(sizeof *c->batches * (size_t)state->batch_count);
        if (!c->batches) {
            call_free(c);
            return -ENOMEM;
        }
        memcpy(c->batches, state->batches, sizeof *c->batches * (size_t)state->batch_count);
    }
    c->done = cb;
    return call_start(c);
}

int gr_share_persister_delete(gr_share_persister_t *p, const gr_share_key_t *key,
                              gr_share_persister_done_fn *cb, void *opaque)
{
    call_t *c = cb ? call_new(p, CALL_DELETE, key, opaque) : NULL;
    if (!c)
        return cb ? -ENOMEM : -EINVAL;
    c->done = cb;
    return call_start(c);
}

int gr_share_persister_read_summary(gr_share_persister_t *p, const gr_share_key_t *key,
                                    int32_t leader_epoch, gr_share_persister_summary_fn *cb,
                                    void *opaque)
{
    call_t *c = cb ? call_new(p, CALL_SUMMARY, key, opaque) : NULL;
    if (!c)
        return cb ? -ENOMEM : -EINVAL;
    c->leader_epoch = leader_epoch;
    c->summary = cb;
    return call_start(c);
}

int gr_share_persister_cancel(gr_share_persister_t *p, const void *opaque)
{
    int n = 0;
    call_t *next;
    for (call_t *c = p ? p->calls : NULL; c; c = next) {
        next = c->next;
        if (c->opaque != opaque || c->cancelled)
            continue;
        n++;
        c->cancelled = true;
        if (!c->sent)
            call_free(c);
    }
    return n;
}
