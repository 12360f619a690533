/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ElectLeaders (v0-2; v0 is always a preferred election), served by the
 * active controller (NOT_CONTROLLER elsewhere, for the whole request from
 * v1): the partitions go to gr_controller_elect_leaders and the response
 * waits for the state writes, or answers REQUEST_TIMED_OUT at timeout_ms.
 * An unknown election type is INVALID_REQUEST.
 * Asked for every partition (null), the answer leaves out those that
 * needed no election, as Kafka does.
 *
 * Runs on: loop thread.
 */
#include <ev.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "controller/zk_member.h"
#include "core/context.h"
#include "gen/elect_leaders.h"
#include "security/authorizer.h"
#include "handlers/admin_common.h"
#include "handlers/handlers.h"
#include "handlers/request.h"

typedef struct elect_call {
    gr_request_t *req; /* NULL once answered early (timeout) or the connection closed */
    struct ev_loop *loop;
    bool all;                           /* asked for every partition */
    const gr_ctl_partition_ref_t *refs; /* what was asked, in the request's arena */
    int32_t count;
    ev_timer timeout; /* timeout_ms: REQUEST_TIMED_OUT for what is not decided */
} elect_call_t;

#define MS_PER_SEC 1000.0

typedef gr_elect_leaders_response_replica_election_result_t topic_result_t;
typedef gr_elect_leaders_response_partition_result_t partition_result_t;

static const char *message_of(int16_t err)
{
    switch (err) {
    case GR_KERR_ELECTION_NOT_NEEDED:
        return "Leader election not needed for topic partition.";
    case GR_KERR_PREFERRED_LEADER_NOT_AVAILABLE:
        return "The preferred leader is not live or not in sync.";
    case GR_KERR_ELIGIBLE_LEADERS_NOT_AVAILABLE:
        return "No live replica can lead the partition.";
    case GR_KERR_UNKNOWN_TOPIC_OR_PARTITION:
        return "The partition does not exist.";
    case GR_KERR_INVALID_REQUEST:
        return "Unknown election type.";
    default:
        return NULL;
    }
}

static bool shown(const elect_call_t *call, const gr_election_result_t *r)
{
    return !call->all || r->error != GR_KERR_ELECTION_NOT_NEEDED;
}

/* Groups consecutive results of one topic (request order, or the controller's topic order). */
static int fill_topics(gr_request_t *req, const elect_call_t *call,
                       const gr_election_result_t *results, int32_t count,
                       gr_elect_leaders_response_t *resp)
{
    resp->replica_election_results = gr_request_alloc_array(req, count, sizeof(topic_result_t));
    if (count > 0 && !resp->replica_election_results)
        return -1;
    topic_result_t *cur = NULL;
    for (int32_t i = 0; i < count; i++) {
        const gr_election_result_t *r = &results[i];
        if (!shown(call, r))
            continue;
        if (!cur || strncmp(cur->topic.ptr, r->partition.topic, (size_t)cur->topic.len) != 0 ||
            r->partition.topic[cur->topic.len] != '\0') {
            cur = &resp->replica_election_results[resp->replica_election_results_count++];
            gr_elect_leaders_response_replica_election_result_init(cur);
            char *name =
                gr_arena_strndup(req->arena, r->partition.topic, strlen(r->partition.topic));
            cur->partition_result =
                gr_request_alloc_array(req, count - i, sizeof(partition_result_t));
            if (!name || !cur->partition_result)
                return -1;
            cur->topic = (gr_str_t){name, (int32_t)strlen(name)};
        }
        partition_result_t *out = &cur->partition_result[cur->partition_result_count++];
        gr_elect_leaders_response_partition_result_init(out);
        out->partition_id = r->partition.index;
        out->error_code = r->error;
        if (message_of(r->error))
            out->error_message = gr_admin_message(req, message_of(r->error));
    }
    return 0;
}

static void on_elected(void *opaque, const gr_election_result_t *results, int32_t count)
{
    elect_call_t *call = opaque;
    gr_request_t *req = call->req;
    ev_timer_stop(call->loop, &call->timeout);
    if (req) {
        gr_elect_leaders_response_t resp;
        gr_elect_leaders_response_init(&resp);
        if (!results || fill_topics(req, call, results, count, &resp))
            gr_request_fail(req, "out of memory");
        else
            gr_request_respond(req, &resp);
    }
    free(call);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    elect_call_t *call = arg;
    ev_timer_stop(call->loop, &call->timeout);
    call->req = NULL; /* the election still ends, and frees the call */
}

/* Every asked partition REQUEST_TIMED_OUT (the writes go on; their outcome is dropped). */
static void on_timeout(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    elect_call_t *call = t->data;
    gr_request_t *req = call->req;
    call->req = NULL;
    gr_election_result_t *results = gr_request_alloc_array(req, call->count + 1, sizeof *results);
    gr_elect_leaders_response_t resp;
    gr_elect_leaders_response_init(&resp);
    for (int32_t i = 0; results && i < call->count; i++)
        results[i] = (gr_election_result_t){call->refs[i], GR_KERR_REQUEST_TIMED_OUT};
    if (!results || fill_topics(req, call, results, call->count, &resp))
        gr_request_fail(req, "out of memory");
    else
        gr_request_respond(req, &resp);
}

/* The asked partitions, flattened in request order (NULL with *count 0 when none). */
static gr_ctl_partition_ref_t *asked(gr_request_t *req, const gr_elect_leaders_request_t *in,
                                     int32_t *count)
{
    int32_t n = 0;
    for (int32_t t = 0; t < in->topic_partitions_count; t++)
        n += in->topic_partitions[t].partitions_count;
    gr_ctl_partition_ref_t *refs = gr_request_alloc_array(req, n + 1, sizeof *refs);
    *count = 0;
    for (int32_t t = 0; refs && t < in->topic_partitions_count; t++) {
        const gr_elect_leaders_request_topic_partitions_t *tin = &in->topic_partitions[t];
        char *name = gr_arena_strndup(req->arena, tin->topic.ptr ? tin->topic.ptr : "",
                                      (size_t)(tin->topic.len > 0 ? tin->topic.len : 0));
        if (!name)
            return NULL;
        for (int32_t i = 0; i < tin->partitions_count; i++)
            refs[(*count)++] = (gr_ctl_partition_ref_t){name, tin->partitions[i]};
    }
    return refs;
}

/* An unknown election type: INVALID_REQUEST for each partition asked. */
static void refuse_type(gr_request_t *req, const gr_ctl_partition_ref_t *refs, int32_t count)
{
    elect_call_t call = {.req = req};
    gr_election_result_t *results = gr_request_alloc_array(req, count + 1, sizeof *results);
    gr_elect_leaders_response_t resp;
    gr_elect_leaders_response_init(&resp);
    for (int32_t i = 0; results && i < count; i++)
        results[i] = (gr_election_result_t){refs[i], GR_KERR_INVALID_REQUEST};
    if (!results || fill_topics(req, &call, results, count, &resp))
        gr_request_fail(req, "out of memory");
    else
        gr_request_respond(req, &resp);
}

static void respond_error(gr_request_t *req, int16_t err)
{
    gr_elect_leaders_response_t resp;
    gr_elect_leaders_response_init(&resp);
    resp.error_code = err;
    gr_request_respond(req, &resp);
}

void gr_handle_elect_leaders(gr_broker_t *b, gr_request_t *req)
{
    gr_elect_leaders_request_t in;
    if (gr_request_decode(req, &in))
        return;
    int8_t type = req->api_version >= 1 ? in.election_type : GR_ELECTION_TYPE_PREFERRED;
    bool all = in.topic_partitions_null;
    int32_t count = 0;
    gr_ctl_partition_ref_t *refs = all ? NULL : asked(req, &in, &count);
    if (type != GR_ELECTION_TYPE_PREFERRED && type != GR_ELECTION_TYPE_UNCLEAN)
        return refuse_type(req, refs, count);
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_ALTER))
        return respond_error(req, GR_KERR_CLUSTER_AUTHORIZATION_FAILED);
    elect_call_t *call = calloc(1, sizeof *call);
    if (!call || (!all && !refs)) {
        free(call);
        gr_request_fail(req, "out of memory");
        return;
    }
    call->req = req;
    call->loop = b->loop;
    call->all = all;
    call->refs = refs;
    call->count = count;
    ev_timer_init(&call->timeout, on_timeout,
                  (double)(in.timeout_ms > 0 ? in.timeout_ms : 0) / MS_PER_SEC, 0.);
    call->timeout.data = call;
    int rc = gr_controller_elect_leaders(&b->zk->controller, type, refs, count, on_elected, call);
    if (rc != GR_KERR_NONE) {
        free(call);
        return respond_error(req, (int16_t)rc);
    }
    gr_resp_slot_defer(req->slot, on_cancel, call);
    ev_timer_start(b->loop, &call->timeout);
}
