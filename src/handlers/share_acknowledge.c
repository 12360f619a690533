/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ShareAcknowledge (79, v1-2, KIP-932): a share consumer acknowledges
 * records delivered by ShareFetch without fetching more. The same session
 * rules as ShareFetch (share_common.h) except that epoch 0 is refused
 * (INVALID_SHARE_SESSION_EPOCH: acknowledging opens nothing, as Kafka
 * answers); -1 closes the session after the acknowledgements, releasing
 * what the member still holds. Each partition's acknowledgements are
 * written through the persister before the answer (the slot is deferred
 * meanwhile; a closing connection cancels it).
 */
#include <errno.h>
#include <string.h>

#include "core/context.h"
#include "handlers/handlers.h"
#include "handlers/listener_endpoint.h"
#include "handlers/request.h"
#include "handlers/share_common.h"
#include "metadata/cluster_view.h"
#include "gen/share_acknowledge.h"

typedef struct share_ack_op {
    gr_broker_t *b;
    gr_request_t *req;
    gr_share_acknowledge_request_t in;
    gr_share_acks_t acks;
} share_ack_op_t;

static void fill_partition(share_ack_op_t *op, const gr_share_ack_result_t *r,
                           gr_share_leaders_t *leaders,
                           gr_share_acknowledge_response_partition_data_t *out)
{
    gr_share_acknowledge_response_partition_data_init(out);
    out->partition_index = r->partition;
    out->error_code = r->error_code;
    out->current_leader.leader_id = -1;
    out->current_leader.leader_epoch = -1;
    if (r->error_code == GR_KERR_NOT_LEADER_OR_FOLLOWER)
        gr_share_leaders_current(leaders, op->b, op->req, r->topic_id, r->partition,
                                 &out->current_leader.leader_id, &out->current_leader.leader_epoch);
}

static int fill_endpoints(share_ack_op_t *op, const gr_share_leaders_t *leaders,
                          gr_share_acknowledge_response_t *resp)
{
    resp->node_endpoints =
        gr_request_alloc_array(op->req, leaders->count, sizeof *resp->node_endpoints);
    if (!resp->node_endpoints)
        return -ENOMEM;
    for (int32_t i = 0; i < leaders->count; i++) {
        gr_share_acknowledge_response_node_endpoint_t *ep =
            &resp->node_endpoints[resp->node_endpoints_count];
        gr_share_acknowledge_response_node_endpoint_init(ep);
        const gr_cluster_node_t *node = gr_cluster_view_node(op->b->cluster, leaders->ids[i]);
        if (!node || !gr_request_node_endpoint(op->req, node, &ep->host, &ep->port))
            continue;
        ep->node_id = node->id;
        ep->rack = gr_str(node->rack);
        resp->node_endpoints_count++;
    }
    return 0;
}

/* The request's partitions, grouped by topic as it listed them. */
static int build(share_ack_op_t *op, gr_share_acknowledge_response_t *resp)
{
    const gr_share_acknowledge_request_t *in = &op->in;
    gr_share_leaders_t leaders = {0};
    resp->responses = gr_request_alloc_array(op->req, in->topics_count, sizeof *resp->responses);
    if (!resp->responses)
        return -ENOMEM;
    resp->responses_count = in->topics_count;
    int32_t next = 0;
    for (int32_t t = 0; t < in->topics_count; t++) {
        gr_share_acknowledge_response_share_acknowledge_topic_response_t *tout =
            &resp->responses[t];
        gr_share_acknowledge_response_share_acknowledge_topic_response_init(tout);
        tout->topic_id = in->topics[t].topic_id;
        int32_t n = in->topics[t].partitions_count;
        tout->partitions = gr_request_alloc_array(op->req, n, sizeof *tout->partitions);
        if (!tout->partitions)
            return -ENOMEM;
        tout->partitions_count = n;
        for (int32_t i = 0; i < n; i++)
            fill_partition(op, &op->acks.results[next++], &leaders, &tout->partitions[i]);
    }
    return fill_endpoints(op, &leaders, resp);
}

static void respond(share_ack_op_t *op)
{
    gr_share_acknowledge_response_t resp;
    gr_share_acknowledge_response_init(&resp);
    resp.acquisition_lock_timeout_ms =
        gr_share_manager_lock_duration_ms(op->b->share_manager, op->in.group_id);
    if (build(op, &resp) < 0) {
        gr_request_fail(op->req, "out of memory");
        return;
    }
    gr_request_respond(op->req, &resp);
}

static void acks_written(void *owner)
{
    respond(owner);
}

static void share_ack_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    share_ack_op_t *op = arg;
    gr_share_acks_cancel(&op->acks);
}

static int apply_acks(share_ack_op_t *op)
{
    const gr_share_acknowledge_request_t *in = &op->in;
    int32_t count = 0;
    for (int32_t t = 0; t < in->topics_count; t++)
        count += in->topics[t].partitions_count;
    if (gr_share_acks_init(&op->acks, op->b, op->req, count, acks_written, op) < 0)
        return -ENOMEM;
    for (int32_t t = 0; t < in->topics_count; t++) {
        for (int32_t i = 0; i < in->topics[t].partitions_count; i++) {
            const gr_share_acknowledge_request_acknowledge_partition_t *pin =
                &in->topics[t].partitions[i];
            int32_t n = pin->acknowledgement_batches_count;
            gr_share_ack_batch_t *batches = gr_request_alloc_array(op->req, n, sizeof *batches);
            if (!batches)
                return -ENOMEM;
            for (int32_t k = 0; k < n; k++) {
                const gr_share_acknowledge_request_acknowledgement_batch_t *a =
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

void gr_handle_share_acknowledge(gr_broker_t *b, gr_request_t *req)
{
    share_ack_op_t *op = gr_request_alloc(req, sizeof *op);
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (gr_request_decode(req, &op->in))
        return;
    op->b = b;
    op->req = req;
    gr_share_acknowledge_response_t resp;
    gr_share_session_t *session = NULL;
    int32_t epoch = op->in.share_session_epoch;
    gr_kerr_t err = GR_KERR_INVALID_SHARE_SESSION_EPOCH;
    if (epoch != GR_SHARE_SESSION_EPOCH_INITIAL)
        err = gr_share_request_session(b, req, op->in.group_id, op->in.member_id, epoch, true,
                                       &session);
    if (err) {
        gr_share_acknowledge_response_init(&resp);
        resp.error_code = err;
        gr_request_respond(req, &resp);
        return;
    }
    if (apply_acks(op) < 0) {
        gr_share_acks_cancel(&op->acks);
        gr_request_fail(req, "out of memory");
        return;
    }
    if (epoch == GR_SHARE_SESSION_EPOCH_FINAL)
        gr_share_request_close_session(b, session);
    if (op->acks.pending == 0) {
        respond(op);
        return;
    }
    gr_resp_slot_defer(req->slot, share_ack_cancel, op);
}
