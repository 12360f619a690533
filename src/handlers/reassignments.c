/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AlterPartitionReassignments and ListPartitionReassignments (v0, KIP-455),
 * served by the active controller (NOT_CONTROLLER for the whole request
 * elsewhere). An alteration is answered once each partition's new replica
 * set is saved (the moves then go on in the controller, see
 * controller/controller_reassign.c), or REQUEST_TIMED_OUT at timeout_ms for
 * what is not saved by then. A listing names the partitions being moved,
 * with their replicas, adding and removing replicas; asked partitions that
 * do not exist or are not moving are left out, as Kafka does.
 *
 * Runs on: loop thread.
 */
#include <ev.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "controller/zk_member.h"
#include "core/context.h"
#include "gen/alter_partition_reassignments.h"
#include "gen/list_partition_reassignments.h"
#include "security/authorizer.h"
#include "handlers/admin_common.h"
#include "handlers/handlers.h"
#include "handlers/request.h"

#define MS_PER_SEC 1000.0

typedef gr_alter_partition_reassignments_response_reassignable_topic_response_t alter_topic_t;
typedef gr_alter_partition_reassignments_response_reassignable_partition_response_t alter_part_t;

typedef struct reassign_call {
    gr_request_t *req; /* NULL once answered (timeout) or the connection closed */
    struct ev_loop *loop;
    const gr_reassign_ask_t *asks; /* in the request's arena */
    int32_t count;
    ev_timer timeout;
} reassign_call_t;

static const char *message_of(int16_t err)
{
    switch (err) {
    case GR_KERR_UNKNOWN_TOPIC_OR_PARTITION:
        return "The partition does not exist.";
    case GR_KERR_INVALID_REPLICA_ASSIGNMENT:
        return "The replica list is empty, repeats a broker or names one that is not registered.";
    case GR_KERR_NO_REASSIGNMENT_IN_PROGRESS:
        return "No reassignment of the partition is in progress.";
    case GR_KERR_REQUEST_TIMED_OUT:
        return "The new replica set was not saved within the timeout; it may still be.";
    case GR_KERR_UNKNOWN_SERVER_ERROR:
        return "The topic's assignment changed while saving; retry.";
    default:
        return NULL;
    }
}

/* Groups consecutive results of one topic, in request order. */
static int fill_topics(gr_request_t *req, const gr_election_result_t *results, int32_t count,
                       gr_alter_partition_reassignments_response_t *resp)
{
    resp->responses = gr_request_alloc_array(req, count, sizeof(alter_topic_t));
    if (count > 0 && !resp->responses)
        return -1;
    alter_topic_t *cur = NULL;
    for (int32_t i = 0; i < count; i++) {
        const gr_election_result_t *r = &results[i];
        if (!cur || i == 0 || strcmp(results[i - 1].partition.topic, r->partition.topic) != 0) {
            cur = &resp->responses[resp->responses_count++];
            gr_alter_partition_reassignments_response_reassignable_topic_response_init(cur);
            char *name =
                gr_arena_strndup(req->arena, r->partition.topic, strlen(r->partition.topic));
            cur->partitions = gr_request_alloc_array(req, count - i, sizeof(alter_part_t));
            if (!name || !cur->partitions)
                return -1;
            cur->name = (gr_str_t){name, (int32_t)strlen(name)};
        }
        alter_part_t *out = &cur->partitions[cur->partitions_count++];
        gr_alter_partition_reassignments_response_reassignable_partition_response_init(out);
        out->partition_index = r->partition.index;
        out->error_code = r->error;
        if (message_of(r->error))
            out->error_message = gr_admin_message(req, message_of(r->error));
    }
    return 0;
}

static void respond_results(gr_request_t *req, const gr_election_result_t *results, int32_t count)
{
    gr_alter_partition_reassignments_response_t resp;
    gr_alter_partition_reassignments_response_init(&resp);
    if (!results || fill_topics(req, results, count, &resp))
        gr_request_fail(req, "out of memory");
    else
        gr_request_respond(req, &resp);
}

static void on_saved(void *opaque, const gr_election_result_t *results, int32_t count)
{
    reassign_call_t *call = opaque;
    ev_timer_stop(call->loop, &call->timeout);
    if (call->req)
        respond_results(call->req, results, count);
    free(call);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    reassign_call_t *call = arg;
    ev_timer_stop(call->loop, &call->timeout);
    call->req = NULL; /* the controller still answers, and frees the call */
}

static void on_timeout(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    reassign_call_t *call = t->data;
    gr_request_t *req = call->req;
    call->req = NULL;
    gr_election_result_t *results = gr_request_alloc_array(req, call->count + 1, sizeof *results);
    for (int32_t i = 0; results && i < call->count; i++)
        results[i] = (gr_election_result_t){call->asks[i].partition, GR_KERR_REQUEST_TIMED_OUT};
    respond_results(req, results, call->count);
}

/* The asked partitions, flattened in request order. NULL without memory. */
static gr_reassign_ask_t *
asked(gr_request_t *req, const gr_alter_partition_reassignments_request_t *in, int32_t *count)
{
    int32_t n = 0;
    for (int32_t t = 0; t < in->topics_count; t++)
        n += in->topics[t].partitions_count;
    gr_reassign_ask_t *asks = gr_request_alloc_array(req, n + 1, sizeof *asks);
    *count = 0;
    for (int32_t t = 0; asks && t < in->topics_count; t++) {
        const gr_alter_partition_reassignments_request_reassignable_topic_t *tin = &in->topics[t];
        char *name = gr_admin_cstr(req, tin->name);
        if (!name)
            return NULL;
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            const gr_alter_partition_reassignments_request_reassignable_partition_t *p =
                &tin->partitions[i];
            asks[(*count)++] = (gr_reassign_ask_t){
                {name, p->partition_index}, p->replicas_null, p->replicas, p->replicas_count};
        }
    }
    return asks;
}

void gr_handle_alter_partition_reassignments(gr_broker_t *b, gr_request_t *req)
{
    gr_alter_partition_reassignments_request_t in;
    if (gr_request_decode(req, &in))
        return;
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_ALTER)) {
        gr_alter_partition_reassignments_response_t resp;
        gr_alter_partition_reassignments_response_init(&resp);
        resp.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        gr_request_respond(req, &resp);
        return;
    }
    int32_t count = 0;
    gr_reassign_ask_t *asks = asked(req, &in, &count);
    reassign_call_t *call = asks ? calloc(1, sizeof *call) : NULL;
    if (!call) {
        gr_request_fail(req, "out of memory");
        return;
    }
    *call = (reassign_call_t){.req = req, .loop = b->loop, .asks = asks, .count = count};
    ev_timer_init(&call->timeout, on_timeout,
                  (double)(in.timeout_ms > 0 ? in.timeout_ms : 0) / MS_PER_SEC, 0.);
    call->timeout.data = call;
    int rc = gr_controller_reassign(&b->zk->controller, asks, count, on_saved, call);
    if (rc != GR_KERR_NONE) {
        free(call);
        gr_alter_partition_reassignments_response_t resp;
        gr_alter_partition_reassignments_response_init(&resp);
        resp.error_code = (int16_t)rc;
        if (rc == GR_KERR_NOT_CONTROLLER)
            resp.error_message = gr_admin_message(req, "This is not the controller.");
        gr_request_respond(req, &resp);
        return;
    }
    gr_resp_slot_defer(req->slot, on_cancel, call);
    ev_timer_start(b->loop, &call->timeout);
}

/* ---- ListPartitionReassignments ------------------------------------------------------ */

typedef gr_list_partition_reassignments_response_ongoing_topic_reassignment_t list_topic_t;
typedef gr_list_partition_reassignments_response_ongoing_partition_reassignment_t list_part_t;

typedef struct list_ctx {
    gr_request_t *req;
    const gr_list_partition_reassignments_request_t *in;
    gr_list_partition_reassignments_response_t *resp;
    int32_t room; /* topics the response has room for */
    bool failed;
} list_ctx_t;

static bool asked_for(const gr_list_partition_reassignments_request_t *in, const char *topic,
                      int32_t index)
{
    if (in->topics_null)
        return true;
    size_t len = strlen(topic);
    for (int32_t t = 0; t < in->topics_count; t++) {
        gr_str_t name = in->topics[t].name;
        if (name.len != (int32_t)len || memcmp(name.ptr, topic, len) != 0)
            continue;
        for (int32_t i = 0; i < in->topics[t].partition_indexes_count; i++)
            if (in->topics[t].partition_indexes[i] == index)
                return true;
    }
    return false;
}

static int32_t *ids_copy(gr_request_t *req, const int32_t *ids, int32_t count)
{
    int32_t *out = gr_request_alloc_array(req, count + 1, sizeof *out);
    if (out && count > 0)
        memcpy(out, ids, sizeof *out * (size_t)count);
    return out;
}

/* The controller walks its topics in order: a new topic starts a new entry. */
static list_topic_t *topic_entry(list_ctx_t *ctx, const char *topic, int32_t partitions)
{
    gr_list_partition_reassignments_response_t *resp = ctx->resp;
    list_topic_t *last = resp->topics_count > 0 ? &resp->topics[resp->topics_count - 1] : NULL;
    if (last && last->name.len == (int32_t)strlen(topic) &&
        memcmp(last->name.ptr, topic, strlen(topic)) == 0)
        return last;
    if (resp->topics_count == ctx->room) {
        int32_t room = ctx->room * 2 + 4;
        list_topic_t *grown = gr_request_alloc_array(ctx->req, room, sizeof *grown);
        if (!grown)
            return NULL;
        if (resp->topics_count > 0)
            memcpy(grown, resp->topics, sizeof *grown * (size_t)resp->topics_count);
        resp->topics = grown;
        ctx->room = room;
    }
    list_topic_t *t = &resp->topics[resp->topics_count];
    gr_list_partition_reassignments_response_ongoing_topic_reassignment_init(t);
    char *name = gr_arena_strndup(ctx->req->arena, topic, strlen(topic));
    t->partitions = gr_request_alloc_array(ctx->req, partitions, sizeof *t->partitions);
    if (!name || !t->partitions)
        return NULL;
    t->name = (gr_str_t){name, (int32_t)strlen(name)};
    resp->topics_count++;
    return t;
}

static void on_reassigning(void *opaque, const gr_ctl_topic_t *topic, int32_t index)
{
    list_ctx_t *ctx = opaque;
    const gr_ctl_partition_t *p = &topic->partitions[index];
    if (ctx->failed || !asked_for(ctx->in, topic->name, index))
        return;
    list_topic_t *t = topic_entry(ctx, topic->name, topic->partition_count);
    list_part_t *out = NULL;
    if (t && t->partitions_count < topic->partition_count) {
        out = &t->partitions[t->partitions_count++];
        gr_list_partition_reassignments_response_ongoing_partition_reassignment_init(out);
        out->partition_index = index;
        out->replicas = ids_copy(ctx->req, p->replicas, p->replica_count);
        out->replicas_count = p->replica_count;
        out->adding_replicas = ids_copy(ctx->req, p->adding, p->adding_count);
        out->adding_replicas_count = p->adding_count;
        out->removing_replicas = ids_copy(ctx->req, p->removing, p->removing_count);
        out->removing_replicas_count = p->removing_count;
    }
    ctx->failed = !out || !out->replicas || !out->adding_replicas || !out->removing_replicas;
}

void gr_handle_list_partition_reassignments(gr_broker_t *b, gr_request_t *req)
{
    gr_list_partition_reassignments_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_list_partition_reassignments_response_t resp;
    gr_list_partition_reassignments_response_init(&resp);
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_DESCRIBE)) {
        resp.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        gr_request_respond(req, &resp);
        return;
    }
    list_ctx_t ctx = {req, &in, &resp, 0, false};
    int rc = gr_controller_list_reassignments(&b->zk->controller, on_reassigning, &ctx);
    if (ctx.failed) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (rc != GR_KERR_NONE) {
        resp.error_code = (int16_t)rc;
        resp.topics_count = 0;
        if (rc == GR_KERR_NOT_CONTROLLER)
            resp.error_message = gr_admin_message(req, "This is not the controller.");
    }
    gr_request_respond(req, &resp);
}
