/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group membership: JoinGroup (v0-9), SyncGroup (v0-5), Heartbeat (v0-4)
 * and LeaveGroup (v0-5). Each decodes its request, checks that this broker
 * coordinates the group (COORDINATOR_NOT_AVAILABLE without
 * __consumer_offsets, NOT_COORDINATOR when another broker leads the group's
 * partition, COORDINATOR_LOAD_IN_PROGRESS while it replays), and
 * hands the work to the group's state machine (src/group/group.c).
 *
 * JoinGroup and SyncGroup may wait for the rebalance: their slot is
 * deferred before the group sees them, and the group answers through the
 * coordinator's respond_join / respond_sync (here) exactly once. A closing
 * connection cancels the wait; the member stays in the rebalance.
 *
 * Runs on: loop thread.
 */
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/request.h"
#include "group/coordinator.h"
#include "handlers/handlers.h"
#include "gen/heartbeat.h"
#include "gen/join_group.h"
#include "gen/leave_group.h"
#include "gen/sync_group.h"

#define GR_JOIN_NULLABLE_PROTOCOL_VERSION 7 /* protocol name may be null from v7 */
#define GR_JOIN_REQUIRE_MEMBER_ID_VERSION 4 /* KIP-394 */
#define GR_JOIN_SKIP_ASSIGNMENT_VERSION   9 /* KIP-814 */
#define GR_LEAVE_BATCH_VERSION            3 /* KIP-345: members array */

/* A request waiting in a group; lives in the request's arena. */
typedef struct group_wait {
    gr_group_waiter_t waiter;
    gr_request_t *req;
} group_wait_t;

static void wait_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    gr_group_waiter_cancel(arg);
}

/* Kafka reports the client address as InetAddress.toString: "/host". */
gr_str_t gr_group_client_host(gr_request_t *req)
{
    const char *peer = gr_conn_peer(req->conn);
    const char *colon = strrchr(peer, ':');
    size_t len = colon ? (size_t)(colon - peer) : strlen(peer);
    if (len >= 2 && peer[0] == '[' && peer[len - 1] == ']') {
        peer++;
        len -= 2;
    }
    char *out = gr_request_alloc(req, len + 2);
    if (!out)
        return gr_str("");
    out[0] = '/';
    memcpy(out + 1, peer, len);
    return (gr_str_t){out, (int32_t)len + 1};
}

/* Checks the group id and that we coordinate it. */
static gr_kerr_t coordinated(gr_broker_t *b, gr_str_t group_id, int32_t *partition)
{
    if (group_id.len <= 0)
        return GR_KERR_INVALID_GROUP_ID;
    return gr_coordinator_check(b->groups, group_id, partition);
}

/* Kafka's order for the membership APIs: READ on the group first, then the coordinator. */
static gr_kerr_t authorized_coordinated(gr_broker_t *b, gr_request_t *req, gr_str_t group_id,
                                        int32_t *partition)
{
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ, GR_ACL_RESOURCE_TYPE_GROUP,
                          group_id))
        return GR_KERR_GROUP_AUTHORIZATION_FAILED;
    return coordinated(b, group_id, partition);
}

/* --- JoinGroup ------------------------------------------------------------------ */

static gr_str_t nullable(const char *s, bool allowed)
{
    if (s)
        return gr_str(s);
    return allowed ? (gr_str_t){NULL, GR_NULL_LEN} : gr_str("");
}

void gr_group_membership_respond_join(void *opaque, gr_group_waiter_t *w, const gr_join_result_t *r)
{
    (void)opaque;
    gr_request_t *req = ((group_wait_t *)w)->req;
    bool null_ok = req->api_version >= GR_JOIN_NULLABLE_PROTOCOL_VERSION;
    gr_join_group_response_t resp;
    gr_join_group_response_init(&resp);
    resp.error_code = r->error;
    resp.generation_id = r->generation;
    resp.protocol_type = nullable(r->protocol_type, true);
    resp.protocol_name = nullable(r->protocol_name, null_ok);
    resp.leader = gr_str(r->leader_id ? r->leader_id : "");
    resp.member_id = gr_str(r->member_id ? r->member_id : "");
    resp.skip_assignment = r->skip_assignment;
    resp.members = gr_request_alloc_array(req, r->member_count, sizeof(*resp.members));
    if (!resp.members) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (int32_t i = 0; i < r->member_count; i++) {
        const gr_member_t *m = r->members[i];
        resp.members[i].member_id = gr_str(m->member_id);
        resp.members[i].group_instance_id = gr_str(m->instance_id);
        resp.members[i].metadata = gr_member_metadata(m, r->protocol_name);
        if (resp.members[i].metadata.len < 0)
            resp.members[i].metadata = (gr_bytes_t){NULL, 0};
    }
    resp.members_count = r->member_count;
    /* Encode now: the members' metadata is only valid during this call. */
    gr_request_respond(req, &resp);
}

static group_wait_t *wait_new(gr_request_t *req)
{
    group_wait_t *wait = gr_request_alloc(req, sizeof(*wait));
    if (!wait) {
        gr_request_fail(req, "out of memory");
        return NULL;
    }
    wait->req = req;
    wait->waiter.request = req;
    gr_resp_slot_defer(req->slot, wait_cancel, &wait->waiter);
    return wait;
}

static void join_error(gr_request_t *req, gr_kerr_t err, gr_str_t member_id)
{
    group_wait_t wait = {.req = req};
    char id[256];
    snprintf(id, sizeof id, "%.*s", member_id.len > 0 ? member_id.len : 0,
             member_id.len > 0 ? member_id.ptr : "");
    gr_join_result_t r = {.error = err, .generation = -1, .leader_id = "", .member_id = id};
    gr_group_membership_respond_join(NULL, &wait.waiter, &r);
}

void gr_handle_join_group(gr_broker_t *b, gr_request_t *req)
{
    gr_join_group_request_t in;
    if (gr_request_decode(req, &in))
        return;
    int32_t partition;
    gr_kerr_t err = authorized_coordinated(b, req, in.group_id, &partition);
    gr_group_t *g = NULL;
    if (!err) {
        g = gr_coordinator_find(b->groups, in.group_id);
        if (!g && in.member_id.len > 0)
            err = GR_KERR_UNKNOWN_MEMBER_ID;
        else if (!g && !(g = gr_coordinator_get_or_create(b->groups, in.group_id, partition)))
            err = GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_join_protocol_t *protocols =
        err ? NULL : gr_request_alloc_array(req, in.protocols_count, sizeof(*protocols));
    if (err || !protocols) {
        join_error(req, err ? err : GR_KERR_UNKNOWN_SERVER_ERROR, in.member_id);
        return;
    }
    for (int32_t i = 0; i < in.protocols_count; i++)
        protocols[i] = (gr_join_protocol_t){in.protocols[i].name, in.protocols[i].metadata};
    gr_join_args_t args = {
        .member_id = in.member_id,
        .instance_id = in.group_instance_id,
        .client_id = req->client_id,
        .client_host = gr_group_client_host(req),
        .session_timeout_ms = in.session_timeout_ms,
        /* v0 has no rebalance timeout: the session timeout serves as both. */
        .rebalance_timeout_ms =
            in.rebalance_timeout_ms >= 0 ? in.rebalance_timeout_ms : in.session_timeout_ms,
        .protocol_type = in.protocol_type,
        .protocols = protocols,
        .protocol_count = in.protocols_count,
        .require_known_member_id = req->api_version >= GR_JOIN_REQUIRE_MEMBER_ID_VERSION,
        .static_leader_skip = req->api_version >= GR_JOIN_SKIP_ASSIGNMENT_VERSION,
    };
    group_wait_t *wait = wait_new(req);
    if (wait)
        gr_group_join(g, &b->groups->env, &args, &wait->waiter);
}

/* --- SyncGroup ------------------------------------------------------------------ */

void gr_group_membership_respond_sync(void *opaque, gr_group_waiter_t *w, const gr_sync_result_t *r)
{
    (void)opaque;
    gr_request_t *req = ((group_wait_t *)w)->req;
    gr_sync_group_response_t resp;
    gr_sync_group_response_init(&resp);
    resp.error_code = r->error;
    resp.protocol_type = nullable(r->protocol_type, true);
    resp.protocol_name = nullable(r->protocol_name, true);
    resp.assignment = (gr_bytes_t){r->assignment, r->assignment ? r->assignment_len : 0};
    gr_request_respond(req, &resp);
}

void gr_handle_sync_group(gr_broker_t *b, gr_request_t *req)
{
    gr_sync_group_request_t in;
    if (gr_request_decode(req, &in))
        return;
    int32_t partition;
    gr_kerr_t err = authorized_coordinated(b, req, in.group_id, &partition);
    gr_group_t *g = err ? NULL : gr_coordinator_find(b->groups, in.group_id);
    if (!err && !g)
        err = GR_KERR_UNKNOWN_MEMBER_ID;
    gr_sync_assignment_t *assignments =
        err ? NULL : gr_request_alloc_array(req, in.assignments_count, sizeof(*assignments));
    if (!err && !assignments)
        err = GR_KERR_UNKNOWN_SERVER_ERROR;
    if (err) {
        group_wait_t wait = {.req = req};
        gr_sync_result_t r = {.error = err};
        gr_group_membership_respond_sync(NULL, &wait.waiter, &r);
        return;
    }
    for (int32_t i = 0; i < in.assignments_count; i++)
        assignments[i] =
            (gr_sync_assignment_t){in.assignments[i].member_id, in.assignments[i].assignment};
    gr_sync_args_t args = {.member_id = in.member_id,
                           .instance_id = in.group_instance_id,
                           .generation = in.generation_id,
                           .protocol_type = in.protocol_type,
                           .protocol_name = in.protocol_name,
                           .assignments = assignments,
                           .assignment_count = in.assignments_count};
    group_wait_t *wait = wait_new(req);
    if (wait)
        gr_group_sync(g, &b->groups->env, &args, &wait->waiter);
}

/* --- Heartbeat ------------------------------------------------------------------ */

void gr_handle_heartbeat(gr_broker_t *b, gr_request_t *req)
{
    gr_heartbeat_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_heartbeat_response_t resp;
    gr_heartbeat_response_init(&resp);
    int32_t partition;
    gr_kerr_t err = authorized_coordinated(b, req, in.group_id, &partition);
    if (!err) {
        gr_group_t *g = gr_coordinator_find(b->groups, in.group_id);
        err = g ? gr_group_heartbeat(g, &b->groups->env, in.member_id, in.group_instance_id,
                                     in.generation_id)
                : GR_KERR_UNKNOWN_MEMBER_ID;
    }
    resp.error_code = err;
    gr_request_respond(req, &resp);
}

/* --- LeaveGroup ------------------------------------------------------------------ */

void gr_handle_leave_group(gr_broker_t *b, gr_request_t *req)
{
    gr_leave_group_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_leave_group_response_t resp;
    gr_leave_group_response_init(&resp);
    bool batch = req->api_version >= GR_LEAVE_BATCH_VERSION;
    /* v0-2 name one member; treat it as a batch of one. */
    gr_leave_group_request_member_identity_t single = {.member_id = in.member_id,
                                                       .group_instance_id = {NULL, GR_NULL_LEN}};
    gr_leave_group_request_member_identity_t *leaving = batch ? in.members : &single;
    int32_t count = batch ? in.members_count : 1;
    int32_t partition;
    gr_kerr_t err = authorized_coordinated(b, req, in.group_id, &partition);
    gr_group_t *g = err ? NULL : gr_coordinator_find(b->groups, in.group_id);
    if (g && g->state == GR_GROUP_DEAD)
        err = GR_KERR_COORDINATOR_NOT_AVAILABLE;
    resp.members = gr_request_alloc_array(req, err ? 0 : count, sizeof(*resp.members));
    if (!resp.members) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (int32_t i = 0; !err && i < count; i++) {
        gr_leave_group_response_member_response_t *out = &resp.members[resp.members_count++];
        out->member_id = leaving[i].member_id;
        out->group_instance_id = leaving[i].group_instance_id;
        out->error_code = g ? gr_group_leave(g, &b->groups->env, leaving[i].member_id,
                                             leaving[i].group_instance_id)
                            : GR_KERR_UNKNOWN_MEMBER_ID;
    }
    /* Before v3 the one member's error is the response's, and there is no list. */
    resp.error_code = err ? err : (!batch && resp.members_count ? resp.members[0].error_code : 0);
    if (!batch)
        resp.members_count = 0;
    gr_request_respond(req, &resp);
}
