/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ShareFetch (78, v1-2, KIP-932): a share consumer's fetch on the leaders
 * of its partitions, with acknowledgements of earlier deliveries riding
 * along. Records come back acquired: locked for this member until
 * AcquisitionLockTimeoutMillis, then delivered to someone else.
 *
 * Steps of a request:
 *   1. Group READ, the share session step (share_common.h: epoch 0 opens,
 *      -1 closes, others must match); a top-level error answers at once.
 *   2. The session's partitions grow by the request's and shrink by
 *      ForgottenTopicsData; the fetch covers every partition of the session.
 *   3. Acknowledgements are applied and written through the persister
 *      (each partition's AcknowledgeErrorCode); the response waits for the
 *      writes. Epoch -1 then closes the session (the member's acquired
 *      records released) and fetches nothing.
 *   4. Acquire: each partition's share-partition reads its log
 *      (share/share_manager.h) within MaxBytes and MaxRecords; records are
 *      sent zero-copy as file ranges, like Fetch's.
 *   5. Nothing acquired, no error and MaxWaitMillis > 0: WAITING, the slot
 *      deferred, a waiter on each partition (woken by appends, high
 *      watermark moves, a share-partition's state loaded, records released
 *      or expired) and a timer; each wake tries step 4 again.
 * Unlike Fetch, MinBytes counts as met by any acquired record: holding
 * acquired records back while waiting for more would only run their locks
 * down (Kafka's share consumers send MinBytes 1).
 *
 * The slot is deferred while waiting or while writes are in flight; a
 * closing connection cancels both (share_fetch_cancel) and its share
 * sessions end with it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "handlers/handlers.h"
#include "handlers/listener_endpoint.h"
#include "handlers/request.h"
#include "handlers/share_common.h"
#include "log/log.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "gen/share_fetch.h"

#define GR_MS_PER_SEC 1000.0

/* One partition of the session this request fetches. */
typedef struct fetch_part {
    gr_uuid_t topic_id;
    int32_t partition;
    gr_kerr_t error; /* TOPIC_AUTHORIZATION_FAILED, found once; others each try */
    gr_share_fetched_t got;
} fetch_part_t;

typedef struct share_fetch_op {
    gr_broker_t *b;
    gr_request_t *req;
    gr_share_fetch_request_t in;
    gr_share_acks_t acks;
    gr_share_fetch_limits_t limits; /* the group's configs and the request's modes */
    fetch_part_t *parts;
    int32_t part_count;
    gr_partition_waiter_t *links;
    int32_t link_count;
    ev_timer timer;
    bool timer_armed;
    bool deferred;
    bool fetched; /* step 4 is over: respond once the writes are done */
} share_fetch_op_t;

static void links_remove(share_fetch_op_t *op)
{
    for (int32_t i = 0; i < op->link_count; i++)
        gr_partition_unwait(&op->links[i]);
    op->link_count = 0;
}

static void stop_waiting(share_fetch_op_t *op)
{
    if (op->timer_armed)
        ev_timer_stop(op->b->loop, &op->timer);
    op->timer_armed = false;
    links_remove(op);
}

static void parts_fini(share_fetch_op_t *op)
{
    for (int32_t i = 0; i < op->part_count; i++)
        gr_share_fetched_fini(&op->parts[i].got);
}

/* One partition's answer; acquisitions and errors from the last try. */
static void fill_partition(share_fetch_op_t *op, const fetch_part_t *part,
                           gr_share_leaders_t *leaders,
                           gr_share_fetch_response_partition_data_t *out)
{
    gr_share_fetch_response_partition_data_init(out);
    out->partition_index = part->partition;
    out->error_code = part->error;
    out->records.ptr = (const uint8_t *)"";
    out->records.len = 0;
    out->current_leader.leader_id = -1;
    out->current_leader.leader_epoch = -1;
    if (part->error == GR_KERR_NOT_LEADER_OR_FOLLOWER)
        gr_share_leaders_current(leaders, op->b, op->req, part->topic_id, part->partition,
                                 &out->current_leader.leader_id, &out->current_leader.leader_epoch);
    const gr_share_ack_result_t *ack =
        gr_share_acks_find(&op->acks, part->topic_id, part->partition);
    if (ack)
        out->acknowledge_error_code = ack->error_code;
    const gr_share_fetched_t *got = &part->got;
    if (got->len > 0) {
        out->records.ptr = NULL;
        out->records.len = got->len;
        out->records.file = got->segment;
        out->records.file_off = got->file_pos;
    }
    out->acquired_records =
        gr_request_alloc_array(op->req, got->acquired.count, sizeof *out->acquired_records);
    if (!out->acquired_records)
        return;
    out->acquired_records_count = got->acquired.count;
    for (int32_t i = 0; i < got->acquired.count; i++) {
        out->acquired_records[i].first_offset = got->acquired.items[i].first_offset;
        out->acquired_records[i].last_offset = got->acquired.items[i].last_offset;
        out->acquired_records[i].delivery_count = got->acquired.items[i].delivery_count;
    }
}

/* The partitions answered: the fetched ones, then acknowledged ones not fetched. */
static int32_t answered_parts(share_fetch_op_t *op, fetch_part_t **out)
{
    int32_t n = op->part_count;
    fetch_part_t *all =
        gr_request_alloc_array(op->req, op->part_count + op->acks.count, sizeof *all);
    if (!all)
        return -1;
    if (n)
        memcpy(all, op->parts, (size_t)n * sizeof *all);
    for (int32_t i = 0; i < op->acks.count; i++) {
        const gr_share_ack_result_t *r = &op->acks.results[i];
        bool listed = false;
        for (int32_t j = 0; j < op->part_count && !listed; j++)
            listed = op->parts[j].partition == r->partition &&
                     memcmp(op->parts[j].topic_id.b, r->topic_id.b, sizeof r->topic_id.b) == 0;
        if (!listed)
            all[n++] = (fetch_part_t){.topic_id = r->topic_id, .partition = r->partition};
    }
    *out = all;
    return n;
}

static int fill_endpoints(share_fetch_op_t *op, const gr_share_leaders_t *leaders,
                          gr_share_fetch_response_t *resp)
{
    resp->node_endpoints =
        gr_request_alloc_array(op->req, leaders->count, sizeof *resp->node_endpoints);
    if (!resp->node_endpoints)
        return -ENOMEM;
    for (int32_t i = 0; i < leaders->count; i++) {
        gr_share_fetch_response_node_endpoint_t *ep =
            &resp->node_endpoints[resp->node_endpoints_count];
        gr_share_fetch_response_node_endpoint_init(ep);
        const gr_cluster_node_t *node = gr_cluster_view_node(op->b->cluster, leaders->ids[i]);
        if (!node || !gr_request_node_endpoint(op->req, node, &ep->host, &ep->port))
            continue;
        ep->node_id = node->id;
        ep->rack = gr_str(node->rack);
        resp->node_endpoints_count++;
    }
    return 0;
}

/* Groups the answered partitions by topic, in first-seen order. */
static int build(share_fetch_op_t *op, gr_share_fetch_response_t *resp)
{
    fetch_part_t *all;
    int32_t n = answered_parts(op, &all);
    if (n < 0)
        return -ENOMEM;
    resp->responses = gr_request_alloc_array(op->req, n, sizeof *resp->responses);
    gr_share_leaders_t leaders = {0};
    if (!resp->responses)
        return -ENOMEM;
    bool *done = gr_request_alloc_array(op->req, n, sizeof *done);
    if (!done)
        return -ENOMEM;
    for (int32_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        gr_share_fetch_response_share_fetchable_topic_response_t *t =
            &resp->responses[resp->responses_count++];
        gr_share_fetch_response_share_fetchable_topic_response_init(t);
        t->topic_id = all[i].topic_id;
        t->partitions = gr_request_alloc_array(op->req, n - i, sizeof *t->partitions);
        if (!t->partitions)
            return -ENOMEM;
        for (int32_t j = i; j < n; j++) {
            if (done[j] || memcmp(all[j].topic_id.b, t->topic_id.b, sizeof t->topic_id.b) != 0)
                continue;
            done[j] = true;
            fill_partition(op, &all[j], &leaders, &t->partitions[t->partitions_count++]);
        }
    }
    return fill_endpoints(op, &leaders, resp);
}

static void respond(share_fetch_op_t *op)
{
    stop_waiting(op);
    gr_request_t *req = op->req;
    gr_share_fetch_response_t resp;
    gr_share_fetch_response_init(&resp);
    resp.acquisition_lock_timeout_ms = op->limits.lock_duration_ms;
    int rc = build(op, &resp);
    if (rc == 0)
        rc = gr_request_encode(req, &resp);
    parts_fini(op); /* the chain holds its own segment references */
    /* Completing or failing may free the slot's arena, op included. */
    if (rc == 0)
        gr_request_complete(req);
    else
        gr_request_fail(req, "response encoding failed");
}

/* The last write is done: answer if the fetch is over too. */
static void acks_written(void *owner)
{
    share_fetch_op_t *op = owner;
    if (op->fetched)
        respond(op);
}

/* Step 4 over: answer now, or once the acknowledgements are written. */
static void fetch_over(share_fetch_op_t *op)
{
    stop_waiting(op);
    op->fetched = true;
    if (op->acks.pending == 0)
        respond(op);
}

/* Tries to acquire on every partition. Returns true when the request should answer now. */
static bool try_acquire(share_fetch_op_t *op)
{
    gr_broker_t *b = op->b;
    const gr_share_fetch_request_t *in = &op->in;
    int64_t bytes_left = in->max_bytes > 0 ? in->max_bytes : 0;
    int64_t records_left = in->max_records > 0 ? in->max_records : INT32_MAX;
    bool answer = false;
    for (int32_t i = 0; i < op->part_count; i++) {
        fetch_part_t *part = &op->parts[i];
        if (part->error == GR_KERR_TOPIC_AUTHORIZATION_FAILED) {
            answer = true;
            continue;
        }
        gr_partition_t *other;
        gr_partition_t *p =
            gr_share_request_partition(b, part->topic_id, part->partition, &part->error, &other);
        if (!p) {
            answer = true;
            continue;
        }
        if (records_left <= 0 || part->got.acquired.count > 0)
            continue;
        gr_share_fetch_limits_t limits = op->limits;
        limits.max_bytes = (int32_t)bytes_left;
        limits.max_records = (int32_t)records_left;
        part->error = gr_share_manager_acquire(b->share_manager, in->group_id, p, in->member_id,
                                               &limits, &part->got);
        answer |= part->error != GR_KERR_NONE || part->got.acquired.count > 0;
        bytes_left -= part->got.len;
        if (bytes_left < 0)
            bytes_left = 0;
        records_left -= part->got.acquired.records;
    }
    return answer;
}

static void share_fetch_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    share_fetch_op_t *op = w->data;
    op->timer_armed = false;
    fetch_over(op);
}

static void share_fetch_wake(void *owner, gr_partition_t *p, bool gone)
{
    (void)p;
    share_fetch_op_t *op = owner;
    if (gone || try_acquire(op))
        fetch_over(op);
}

static void share_fetch_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    share_fetch_op_t *op = arg;
    stop_waiting(op);
    gr_share_acks_cancel(&op->acks);
    parts_fini(op);
}

static void defer(share_fetch_op_t *op)
{
    if (op->deferred)
        return;
    op->deferred = true;
    gr_resp_slot_defer(op->req->slot, share_fetch_cancel, op);
}

static void wait_for_records(share_fetch_op_t *op)
{
    op->links = gr_request_alloc_array(op->req, op->part_count, sizeof *op->links);
    if (!op->links) {
        fetch_over(op);
        return;
    }
    for (int32_t i = 0; i < op->part_count; i++) {
        gr_kerr_t err;
        gr_partition_t *other;
        gr_partition_t *p = gr_share_request_partition(op->b, op->parts[i].topic_id,
                                                       op->parts[i].partition, &err, &other);
        /* A partition listed twice: its link is already at the head. */
        if (!p || (p->waiters && p->waiters->owner == op))
            continue;
        gr_partition_waiter_t *l = &op->links[op->link_count++];
        l->owner = op;
        l->wake = share_fetch_wake;
        gr_partition_wait(p, l);
    }
    ev_timer_init(&op->timer, share_fetch_timeout, op->in.max_wait_ms / GR_MS_PER_SEC, 0.);
    op->timer.data = op;
    ev_timer_start(op->b->loop, &op->timer);
    op->timer_armed = true;
    defer(op);
}

/* Step 2: the session's partitions change; the fetch covers all of them. */
static int update_session(share_fetch_op_t *op, gr_share_session_t *session)
{
    const gr_share_fetch_request_t *in = &op->in;
    for (int32_t t = 0; t < in->topics_count; t++)
        for (int32_t i = 0; i < in->topics[t].partitions_count; i++)
            if (gr_share_session_add(session, in->topics[t].topic_id,
                                     in->topics[t].partitions[i].partition_index) == -ENOMEM)
                return -ENOMEM;
    for (int32_t t = 0; t < in->forgotten_topics_data_count; t++) {
        const gr_share_fetch_request_forgotten_topic_t *f = &in->forgotten_topics_data[t];
        for (int32_t i = 0; i < f->partitions_count; i++)
            gr_share_session_forget(session, f->topic_id, f->partitions[i]);
    }
    op->parts = gr_request_alloc_array(op->req, session->partition_count, sizeof *op->parts);
    if (!op->parts)
        return -ENOMEM;
    for (int32_t i = 0; i < session->partition_count; i++) {
        fetch_part_t *part = &op->parts[op->part_count++];
        part->topic_id = session->partitions[i].topic_id;
        part->partition = session->partitions[i].partition;
        if (!gr_share_request_topic_allowed(op->b, op->req, part->topic_id))
            part->error = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
    }
    return 0;
}

/* Step 3: every partition's acknowledgement batches. */
static int apply_acks(share_fetch_op_t *op)
{
    const gr_share_fetch_request_t *in = &op->in;
    int32_t count = 0;
    for (int32_t t = 0; t < in->topics_count; t++)
        count += in->topics[t].partitions_count;
    if (gr_share_acks_init(&op->acks, op->b, op->req, count, acks_written, op) < 0)
        return -ENOMEM;
    for (int32_t t = 0; t < in->topics_count; t++) {
        for (int32_t i = 0; i < in->topics[t].partitions_count; i++) {
            const gr_share_fetch_request_fetch_partition_t *pin = &in->topics[t].partitions[i];
            int32_t n = pin->acknowledgement_batches_count;
            if (n == 0)
                continue;
            gr_share_ack_batch_t *batches = gr_request_alloc_array(op->req, n, sizeof *batches);
            if (!batches)
                return -ENOMEM;
            for (int32_t k = 0; k < n; k++) {
                const gr_share_fetch_request_acknowledgement_batch_t *a =
                    &pin->acknowledgement_batches[k];
                batches[k] =
                    (gr_share_ack_batch_t){a->first_offset, a->last_offset, a->acknowledge_types,
                                           a->acknowledge_types_count};
            }
            gr_share_acks_add(&op->acks, op->req, in->group_id, in->member_id,
                              in->topics[t].topic_id, pin->partition_index, batches, n,
                              in->is_renew_ack);
        }
    }
    return 0;
}

static bool has_acks(const gr_share_fetch_request_t *in)
{
    for (int32_t t = 0; t < in->topics_count; t++)
        for (int32_t i = 0; i < in->topics[t].partitions_count; i++)
            if (in->topics[t].partitions[i].acknowledgement_batches_count > 0)
                return true;
    return false;
}

static void respond_error(gr_request_t *req, gr_kerr_t err)
{
    gr_share_fetch_response_t resp;
    gr_share_fetch_response_init(&resp);
    resp.error_code = err;
    gr_request_respond(req, &resp);
}

void gr_handle_share_fetch(gr_broker_t *b, gr_request_t *req)
{
    share_fetch_op_t *op = gr_request_alloc(req, sizeof *op);
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (gr_request_decode(req, &op->in))
        return;
    op->b = b;
    op->req = req;
    gr_share_manager_fetch_limits(b->share_manager, op->in.group_id, &op->limits);
    op->limits.batch_size = op->in.batch_size > 0 ? op->in.batch_size : 0;
    op->limits.mode = op->in.share_acquire_mode == GR_SHARE_ACQUIRE_RECORD_LIMIT
                          ? GR_SHARE_ACQUIRE_RECORD_LIMIT
                          : GR_SHARE_ACQUIRE_BATCH_OPTIMIZED;
    gr_share_session_t *session = NULL;
    int32_t epoch = op->in.share_session_epoch;
    gr_kerr_t err = gr_share_request_session(b, req, op->in.group_id, op->in.member_id, epoch,
                                             has_acks(&op->in), &session);
    if (err) {
        respond_error(req, err);
        return;
    }
    bool closing = epoch == GR_SHARE_SESSION_EPOCH_FINAL;
    if ((!closing && update_session(op, session) < 0) || apply_acks(op) < 0) {
        gr_share_acks_cancel(&op->acks);
        gr_request_fail(req, "out of memory");
        return;
    }
    if (closing)
        gr_share_request_close_session(b, session);
    if (closing || try_acquire(op) || op->in.max_wait_ms <= 0 || op->part_count == 0) {
        op->fetched = true;
        if (op->acks.pending == 0) {
            respond(op);
            return;
        }
        defer(op);
        return;
    }
    wait_for_records(op);
}
