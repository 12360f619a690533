/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AlterPartition (v0-1, topics by name), served by the active controller:
 * each partition's ISR change goes to gr_controller_alter_partition, and
 * the response waits for the state writes it starts. The call lives in its
 * own allocation, since a write may end after the connection closed.
 */
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "controller/zk_member.h"
#include "core/context.h"
#include "gen/alter_partition.h"
#include "security/authorizer.h"
#include "handlers/handlers.h"
#include "handlers/request.h"

typedef struct alter_result {
    struct alter_call *call;
    int16_t error;
    int32_t leader;
    int32_t leader_epoch;
    int32_t partition_epoch;
    int32_t *isr;
    int32_t isr_count;
} alter_result_t;

typedef struct alter_call {
    gr_request_t *req; /* NULL once the connection closed */
    gr_alter_partition_request_t in;
    alter_result_t *results; /* one per partition, in request order */
    int32_t count;
    int pending;
} alter_call_t;

static void call_free(alter_call_t *call)
{
    for (int32_t i = 0; i < call->count; i++)
        free(call->results[i].isr);
    free(call->results);
    free(call);
}

static void keep_state(alter_result_t *r, int16_t err, const gr_zk_partition_state_t *s,
                       int32_t partition_epoch)
{
    r->error = err;
    if (err || !s)
        return;
    r->leader = s->leader;
    r->leader_epoch = s->leader_epoch;
    r->partition_epoch = partition_epoch;
    r->isr = malloc(sizeof(int32_t) * (size_t)(s->isr_count + 1));
    if (!r->isr) {
        r->error = GR_KERR_UNKNOWN_SERVER_ERROR;
        return;
    }
    memcpy(r->isr, s->isr, sizeof(int32_t) * (size_t)s->isr_count);
    r->isr_count = s->isr_count;
}

static void fill_partition(const alter_result_t *r, int32_t index,
                           gr_alter_partition_response_partition_data_t *out)
{
    gr_alter_partition_response_partition_data_init(out);
    out->partition_index = index;
    out->error_code = r->error;
    out->leader_id = r->error ? -1 : r->leader;
    out->leader_epoch = r->error ? -1 : r->leader_epoch;
    out->isr = r->isr;
    out->isr_count = r->error ? 0 : r->isr_count;
    out->partition_epoch = r->error ? -1 : r->partition_epoch;
}

static void respond(alter_call_t *call)
{
    gr_request_t *req = call->req;
    const gr_alter_partition_request_t *in = &call->in;
    gr_alter_partition_response_t resp;
    gr_alter_partition_response_init(&resp);
    resp.topics = gr_request_alloc_array(req, in->topics_count, sizeof *resp.topics);
    resp.topics_count = resp.topics ? in->topics_count : 0;
    int32_t k = 0;
    for (int32_t t = 0; t < resp.topics_count; t++) {
        gr_alter_partition_response_topic_data_t *tout = &resp.topics[t];
        gr_alter_partition_response_topic_data_init(tout);
        tout->topic_name = in->topics[t].topic_name;
        int32_t n = in->topics[t].partitions_count;
        tout->partitions = gr_request_alloc_array(req, n, sizeof *tout->partitions);
        tout->partitions_count = tout->partitions ? n : 0;
        for (int32_t i = 0; i < n; i++, k++)
            if (tout->partitions)
                fill_partition(&call->results[k], in->topics[t].partitions[i].partition_index,
                               &tout->partitions[i]);
    }
    if (in->topics_count > 0 && !resp.topics)
        resp.error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_request_respond(req, &resp);
}

static void maybe_finish(alter_call_t *call)
{
    if (call->pending > 0)
        return;
    if (call->req)
        respond(call);
    call_free(call);
}

static void on_done(void *opaque, int16_t err, const gr_zk_partition_state_t *state,
                    int32_t partition_epoch)
{
    alter_result_t *r = opaque;
    keep_state(r, err, state, partition_epoch);
    r->call->pending--;
    maybe_finish(r->call);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    alter_call_t *call = arg;
    call->req = NULL; /* the writes still end, and free the call */
}

static void ask_one(gr_broker_t *b, alter_call_t *call, const char *topic,
                    const gr_alter_partition_request_partition_data_t *part, alter_result_t *r)
{
    gr_alter_partition_ask_t ask = {
        .broker = call->in.broker_id,
        .topic = topic,
        .index = part->partition_index,
        .leader_epoch = part->leader_epoch,
        .partition_epoch = part->partition_epoch,
        .isr = part->new_isr,
        .isr_count = part->new_isr_count,
    };
    gr_zk_partition_state_t state;
    int32_t partition_epoch = -1;
    r->call = call;
    gr_controller_call_t rc = gr_controller_alter_partition(&b->zk->controller, &ask, &state,
                                                            &partition_epoch, on_done, r);
    if (rc.pending)
        call->pending++;
    else
        keep_state(r, rc.err, &state, partition_epoch);
}

void gr_handle_alter_partition(gr_broker_t *b, gr_request_t *req)
{
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_CLUSTER_ACTION)) {
        gr_alter_partition_response_t resp; /* Kafka answers before reading the body */
        gr_alter_partition_response_init(&resp);
        resp.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        gr_request_respond(req, &resp);
        return;
    }
    alter_call_t *call = calloc(1, sizeof *call);
    if (!call || gr_request_decode(req, &call->in)) {
        if (!call)
            gr_request_fail(req, "out of memory");
        free(call);
        return;
    }
    call->req = req;
    for (int32_t t = 0; t < call->in.topics_count; t++)
        call->count += call->in.topics[t].partitions_count;
    call->results = calloc((size_t)call->count + 1, sizeof *call->results);
    if (!call->results) {
        free(call);
        gr_request_fail(req, "out of memory");
        return;
    }
    call->pending = 1; /* held until every partition was asked */
    int32_t k = 0;
    for (int32_t t = 0; t < call->in.topics_count; t++) {
        const gr_alter_partition_request_topic_data_t *tin = &call->in.topics[t];
        char *name = gr_arena_strndup(req->arena, tin->topic_name.ptr ? tin->topic_name.ptr : "",
                                      (size_t)(tin->topic_name.len > 0 ? tin->topic_name.len : 0));
        for (int32_t i = 0; i < tin->partitions_count; i++, k++) {
            if (name)
                ask_one(b, call, name, &tin->partitions[i], &call->results[k]);
            else
                call->results[k].error = GR_KERR_UNKNOWN_SERVER_ERROR;
        }
    }
    if (--call->pending > 0)
        gr_resp_slot_defer(req->slot, on_cancel, call);
    maybe_finish(call);
}
