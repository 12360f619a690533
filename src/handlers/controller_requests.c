/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LeaderAndIsr, UpdateMetadata and StopReplica from a controller over the
 * network: decoded here and applied by replica/requests.c, the same code the
 * in-process controller of this broker calls.
 *
 * Runs on: loop thread.
 */
#include <errno.h>

#include "security/authorizer.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "gen/leader_and_isr.h"
#include "replica/requests.h"
#include "gen/stop_replica.h"
#include "gen/update_metadata.h"

typedef struct controller_request {
    gr_request_t *req;
    gr_replica_call_t call;
    /* The decoded request: one of the three, per api key; decoded in place. */
    union {
        gr_leader_and_isr_request_t leader_and_isr;
        gr_update_metadata_request_t update_metadata;
        gr_stop_replica_request_t stop_replica;
    } in;
} controller_request_t;

static void on_applied(gr_replica_call_t *call, int rc, const void *response)
{
    controller_request_t *cr = call->opaque;
    if (rc)
        gr_request_fail(cr->req, "out of memory");
    else
        gr_request_respond(cr->req, response);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    controller_request_t *cr = arg;
    gr_replica_call_cancel(&cr->call);
}

/* Kafka's answer to a controller request from a principal without CLUSTER_ACTION. */
static void refuse(gr_request_t *req)
{
    union {
        gr_leader_and_isr_response_t leader_and_isr;
        gr_update_metadata_response_t update_metadata;
        gr_stop_replica_response_t stop_replica;
    } resp;
    if (req->api_key == GR_API_LEADER_AND_ISR) {
        gr_leader_and_isr_response_init(&resp.leader_and_isr);
        resp.leader_and_isr.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
    } else if (req->api_key == GR_API_UPDATE_METADATA) {
        gr_update_metadata_response_init(&resp.update_metadata);
        resp.update_metadata.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
    } else {
        gr_stop_replica_response_init(&resp.stop_replica);
        resp.stop_replica.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
    }
    gr_request_respond(req, &resp);
}

/* Every controller request: its handler in the API table. */
void gr_handle_controller_request(gr_broker_t *b, gr_request_t *req)
{
    controller_request_t *cr = gr_request_alloc(req, sizeof *cr);
    if (!cr) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (gr_request_decode(req, &cr->in))
        return;
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_CLUSTER_ACTION)) {
        refuse(req);
        return;
    }
    cr->req = req;
    cr->call = (gr_replica_call_t){
        .b = b,
        .api_key = req->api_key,
        .version = req->api_version,
        .from_network = true,
        .request = &cr->in,
        .arena = req->arena,
        .done = on_applied,
        .opaque = cr,
    };
    /* Deferred first: done may run inside start, and completes the slot itself. */
    gr_resp_slot_defer(req->slot, on_cancel, cr);
    gr_replica_call_start(&cr->call);
}
