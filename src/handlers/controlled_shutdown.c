/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ControlledShutdown (v1-3), served by the active controller: the broker
 * asking is marked as stopping (gr_controller_shutdown_broker) and the
 * answer, once its leadership moved, lists the partitions it still leads.
 * Other brokers answer NOT_CONTROLLER; the broker asking retries.
 *
 * Runs on: loop thread.
 */
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "controller/zk_member.h"
#include "core/context.h"
#include "gen/controlled_shutdown.h"
#include "security/authorizer.h"
#include "handlers/handlers.h"
#include "handlers/request.h"

typedef struct shutdown_call {
    gr_request_t *req; /* NULL once the connection closed */
} shutdown_call_t;

static void respond(gr_request_t *req, int16_t err, const gr_ctl_partition_ref_t *left,
                    int32_t count)
{
    gr_controlled_shutdown_response_t resp;
    gr_controlled_shutdown_response_init(&resp);
    resp.error_code = err;
    resp.remaining_partitions =
        gr_request_alloc_array(req, count, sizeof *resp.remaining_partitions);
    if (count > 0 && !resp.remaining_partitions) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (int32_t i = 0; i < count; i++) {
        gr_controlled_shutdown_response_remaining_partition_t *out =
            &resp.remaining_partitions[resp.remaining_partitions_count++];
        size_t len = strlen(left[i].topic);
        char *name = gr_arena_strndup(req->arena, left[i].topic, len);
        if (!name) {
            gr_request_fail(req, "out of memory");
            return;
        }
        out->topic_name = (gr_str_t){name, (int32_t)len};
        out->partition_index = left[i].index;
    }
    gr_request_respond(req, &resp);
}

static void on_done(void *opaque, int16_t err, const gr_ctl_partition_ref_t *left, int32_t count)
{
    shutdown_call_t *call = opaque;
    if (call->req)
        respond(call->req, err, left, count);
    free(call);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    shutdown_call_t *call = arg;
    call->req = NULL;
}

void gr_handle_controlled_shutdown(gr_broker_t *b, gr_request_t *req)
{
    gr_controlled_shutdown_request_t in;
    if (gr_request_decode(req, &in))
        return;
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_CLUSTER_ACTION)) {
        respond(req, GR_KERR_CLUSTER_AUTHORIZATION_FAILED, NULL, 0);
        return;
    }
    shutdown_call_t *call = calloc(1, sizeof *call);
    if (!call) {
        gr_request_fail(req, "out of memory");
        return;
    }
    call->req = req;
    int64_t epoch = req->api_version >= 2 ? in.broker_epoch : -1;
    gr_controller_call_t rc =
        gr_controller_shutdown_broker(&b->zk->controller, in.broker_id, epoch, on_done, call);
    if (!rc.pending) {
        free(call);
        respond(req, rc.err, NULL, 0);
        return;
    }
    gr_resp_slot_defer(req->slot, on_cancel, call);
}
