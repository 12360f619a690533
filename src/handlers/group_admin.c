/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Finding and administering groups: FindCoordinator (v0-6, batched keys
 * from v4), DescribeGroups (v0-6) and ListGroups (v0-5, state filter from
 * v4, type filter from v5). DeleteGroups is group_delete.c's.
 *
 * FindCoordinator v6 adds share-partition keys (KIP-932, key type 2,
 * "<group>:<topic id>:<partition>"), after Kafka's CLUSTER_ACTION check: the
 * share coordinator's __share_group_state is created on first use like the
 * other internal topics; a malformed key, or one before v6, is
 * INVALID_REQUEST. DescribeGroups v6
 * (KIP-1043) answers an unknown group GROUP_ID_NOT_FOUND with a message
 * where older versions describe it as Dead without error.
 *
 * Every kind of group, as Kafka 4.x treats them (group/group_listing.h):
 * ListGroups lists KIP-848 consumer groups with type "consumer" and KIP-932
 * share groups with type "share", their own state names and protocol type
 * ("consumer", "share"), its filters matching any case-insensitively;
 * DescribeGroups describes classic groups only (a consumer or share group
 * is "not a classic group": GROUP_ID_NOT_FOUND from v6, Dead before), so
 * admin clients turn to ConsumerGroupDescribe or ShareGroupDescribe;
 * DeleteGroups (group_delete.c) deletes a group of any kind once it is Empty.
 *
 * FindCoordinator creates __consumer_offsets (key type 0, groups) or
 * __transaction_state (key type 1, transactional ids) on first use and names
 * the broker leading the key's partition (COORDINATOR_NOT_AVAILABLE while it
 * is offline, which clients retry). The other
 * requests need this broker to coordinate the group (NOT_COORDINATOR sends
 * the client back to FindCoordinator); ListGroups lists the groups of the
 * partitions this broker leads, as Kafka does.
 *
 * Runs on: loop thread.
 */
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/request.h"
#include "gen/describe_groups.h"
#include "gen/common.h"
#include "gen/find_coordinator.h"
#include "group/coordinator.h"
#include "group/group_listing.h"
#include "handlers/admin_common.h"
#include "handlers/admin_wait.h"
#include "handlers/handlers.h"
#include "handlers/listener_endpoint.h"
#include "share/share_coordinator.h"
#include "txn/txn_coordinator.h"
#include "gen/list_groups.h"

#define GR_FIND_COORDINATOR_BATCH_VERSION    4
#define GR_FIND_COORDINATOR_SHARE_VERSION    6 /* KIP-932 */
#define GR_DESCRIBE_GROUPS_NOT_FOUND_VERSION 6 /* KIP-1043 */
/*
 * How long a FindCoordinator that had __consumer_offsets created waits for
 * its leaders before answering COORDINATOR_NOT_AVAILABLE (Kafka answers
 * that at once; a single node creates it within milliseconds).
 */
#define GR_OFFSETS_TOPIC_WAIT_MS 3000

/* --- FindCoordinator -------------------------------------------------------------- */

typedef struct coordinator_answer {
    gr_kerr_t error;
    int32_t node_id;
    gr_str_t host;
    int32_t port;
} coordinator_answer_t;

static coordinator_answer_t find_coordinator(gr_broker_t *b, gr_request_t *req, int8_t key_type,
                                             gr_str_t key)
{
    coordinator_answer_t a = {GR_KERR_NONE, -1, gr_str(""), -1};
    gr_coordinator_node_t node;
    /* Kafka: DESCRIBE on the group, or on the transactional id, before anything else. */
    if (key_type == GR_COORDINATOR_TYPE_GROUP &&
        !gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE, GR_ACL_RESOURCE_TYPE_GROUP,
                          key))
        a.error = GR_KERR_GROUP_AUTHORIZATION_FAILED;
    else if (key_type == GR_COORDINATOR_TYPE_TRANSACTION &&
             !gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                               GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID, key))
        a.error = GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    else if (key_type == GR_COORDINATOR_TYPE_GROUP)
        a.error = gr_coordinator_locate(b->groups, key, &node);
    else if (key_type == GR_COORDINATOR_TYPE_TRANSACTION)
        a.error = gr_txn_locate(b->txns, key, &node);
    else if (key_type == GR_COORDINATOR_TYPE_SHARE &&
             !gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_CLUSTER_ACTION))
        a.error = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
    else if (key_type == GR_COORDINATOR_TYPE_SHARE && b->share_coordinator &&
             req->api_version >= GR_FIND_COORDINATOR_SHARE_VERSION)
        a.error = gr_share_coordinator_locate(b->share_coordinator, key, &node);
    else /* an unknown key type; share keys before v6 (a malformed one: locate) */
        a.error = GR_KERR_INVALID_REQUEST;
    if (a.error)
        return a;
    /* The coordinator's address on the listener this client uses. */
    if (!gr_request_broker_endpoint(b, req, node.node_id, &a.host, &a.port)) {
        a.error = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        a.host = gr_str("");
        a.port = -1;
        return a;
    }
    a.node_id = node.node_id;
    return a;
}

static gr_str_t error_message(gr_kerr_t err)
{
    return err ? gr_str(gr_kerr_name(err)) : (gr_str_t){NULL, GR_NULL_LEN};
}

/* Fills resp for every key; returns whether one got COORDINATOR_NOT_AVAILABLE. */
static bool answer_keys(gr_broker_t *b, gr_request_t *req, const gr_find_coordinator_request_t *in,
                        gr_find_coordinator_response_t *resp)
{
    if (req->api_version < GR_FIND_COORDINATOR_BATCH_VERSION) {
        coordinator_answer_t a = find_coordinator(b, req, in->key_type, in->key);
        resp->error_code = a.error;
        resp->error_message = error_message(a.error);
        resp->node_id = a.node_id;
        resp->host = a.host;
        resp->port = a.port;
        return a.error == GR_KERR_COORDINATOR_NOT_AVAILABLE;
    }
    bool unavailable = false;
    for (int32_t i = 0; i < in->coordinator_keys_count; i++) {
        coordinator_answer_t a = find_coordinator(b, req, in->key_type, in->coordinator_keys[i]);
        gr_find_coordinator_response_coordinator_t *c = &resp->coordinators[i];
        c->key = in->coordinator_keys[i];
        c->error_code = a.error;
        c->error_message = error_message(a.error);
        c->node_id = a.node_id;
        c->host = a.host;
        c->port = a.port;
        unavailable |= a.error == GR_KERR_COORDINATOR_NOT_AVAILABLE;
    }
    resp->coordinators_count = in->coordinator_keys_count;
    return unavailable;
}

/* A FindCoordinator waiting for the controller to create __consumer_offsets or __transaction_state.
 */
typedef struct find_wait {
    gr_find_coordinator_request_t in;
    gr_find_coordinator_response_t resp;
} find_wait_t;

/* Whether the internal topic of key_type's coordinator is being created. */
static bool creating_topic(gr_broker_t *b, int8_t key_type)
{
    if (key_type == GR_COORDINATOR_TYPE_TRANSACTION)
        return gr_txn_creating_topic(b->txns);
    if (key_type == GR_COORDINATOR_TYPE_SHARE)
        return b->share_coordinator && gr_share_coordinator_creating_topic(b->share_coordinator);
    return gr_coordinator_creating_topic(b->groups);
}

static bool coordinator_topic_ready(gr_request_t *req, void *arg)
{
    find_wait_t *fw = arg;
    return !creating_topic(req->broker, fw->in.key_type);
}

static void answer_after_wait(gr_request_t *req, void *arg, bool timed_out)
{
    (void)timed_out; /* keys still without a coordinator say so: clients retry */
    find_wait_t *fw = arg;
    (void)answer_keys(req->broker, req, &fw->in, &fw->resp);
    gr_request_respond(req, &fw->resp);
}

void gr_handle_find_coordinator(gr_broker_t *b, gr_request_t *req)
{
    find_wait_t *fw = gr_request_alloc(req, sizeof *fw);
    if (!fw) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (gr_request_decode(req, &fw->in))
        return;
    gr_find_coordinator_response_init(&fw->resp);
    if (req->api_version >= GR_FIND_COORDINATOR_BATCH_VERSION) {
        fw->resp.coordinators = gr_request_alloc_array(req, fw->in.coordinator_keys_count,
                                                       sizeof(*fw->resp.coordinators));
        if (!fw->resp.coordinators) {
            gr_request_fail(req, "out of memory");
            return;
        }
    }
    if (answer_keys(b, req, &fw->in, &fw->resp) && creating_topic(b, fw->in.key_type)) {
        gr_admin_wait_t *w = gr_admin_wait_new(req, GR_OFFSETS_TOPIC_WAIT_MS,
                                               coordinator_topic_ready, answer_after_wait, fw);
        if (w) {
            gr_admin_wait_release(w);
            return;
        }
    }
    gr_request_respond(req, &fw->resp);
}

/* --- DescribeGroups --------------------------------------------------------------- */

static int describe_members(gr_request_t *req, const gr_group_t *g,
                            gr_describe_groups_response_described_group_t *out)
{
    out->members = gr_request_alloc_array(req, g->member_count, sizeof(*out->members));
    if (!out->members)
        return -1;
    /* Metadata and assignments are shown only once a generation is stable, as Kafka does. */
    bool stable = g->state == GR_GROUP_STABLE;
    for (const gr_member_t *m = g->members; m; m = m->next) {
        gr_describe_groups_response_described_group_member_t *d =
            &out->members[out->members_count++];
        d->member_id = gr_str(m->member_id);
        d->group_instance_id = gr_str(m->instance_id);
        d->client_id = gr_str(m->client_id);
        d->client_host = gr_str(m->client_host);
        gr_bytes_t meta = stable ? gr_member_metadata(m, g->protocol_name) : (gr_bytes_t){0};
        d->member_metadata = meta.len >= 0 ? meta : (gr_bytes_t){NULL, 0};
        d->member_assignment =
            stable ? (gr_bytes_t){m->assignment, m->assignment_len} : (gr_bytes_t){NULL, 0};
    }
    return 0;
}

/* Kafka's GROUP_ID_NOT_FOUND text for id (request memory; null if none is left). */
static gr_str_t not_found_message(gr_request_t *req, gr_str_t id, bool consumer)
{
    const char *why = consumer ? "is not a classic group" : "not found";
    int len = id.len > 0 ? (int)id.len : 0;
    size_t cap = (size_t)len + strlen(why) + sizeof "Group  .";
    char *msg = gr_request_alloc(req, cap);
    if (!msg)
        return (gr_str_t){NULL, GR_NULL_LEN};
    snprintf(msg, cap, "Group %.*s %s.", len, id.ptr ? id.ptr : "", why);
    return gr_str(msg);
}

static void describe_one(gr_broker_t *b, gr_request_t *req, gr_str_t id, bool include_ops,
                         gr_describe_groups_response_described_group_t *out)
{
    out->group_id = id;
    out->authorized_operations =
        include_ops ? gr_authorized_ops(b, req->session, GR_ACL_RESOURCE_TYPE_GROUP, id.ptr,
                                        id.len > 0 ? (size_t)id.len : 0)
                    : GR_ACL_OPS_UNKNOWN;
    out->group_state = gr_str(gr_group_state_name(GR_GROUP_DEAD));
    out->protocol_type = gr_str("");
    out->protocol_data = gr_str("");
    out->members = gr_request_alloc_array(req, 0, sizeof(*out->members));
    int32_t partition;
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE, GR_ACL_RESOURCE_TYPE_GROUP,
                          id)) {
        out->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        return;
    }
    out->error_code = gr_coordinator_check(b->groups, id, &partition);
    gr_group_t *g = out->error_code ? NULL : gr_coordinator_find(b->groups, id);
    /* Kafka's DescribeGroups describes classic groups only: a consumer
     * group is "not a classic group", which tells the admin client to ask
     * ConsumerGroupDescribe instead. */
    bool consumer = g && g->type != GR_GROUP_TYPE_CLASSIC; /* share groups too */
    if ((!g || consumer) && !out->error_code &&
        req->api_version >= GR_DESCRIBE_GROUPS_NOT_FOUND_VERSION) {
        out->error_code = GR_KERR_GROUP_ID_NOT_FOUND;
        out->error_message = not_found_message(req, id, consumer);
    }
    if (!g || consumer)
        return; /* before v6 such a group is described as Dead, without error */
    out->group_state = gr_str(gr_group_state_name(g->state));
    out->protocol_type = gr_str(g->protocol_type ? g->protocol_type : "");
    if (g->state == GR_GROUP_STABLE && g->protocol_name)
        out->protocol_data = gr_str(g->protocol_name);
    if (describe_members(req, g, out) < 0)
        out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
}

void gr_handle_describe_groups(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_groups_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_groups_response_t resp;
    gr_describe_groups_response_init(&resp);
    resp.groups = gr_request_alloc_array(req, in.groups_count, sizeof(*resp.groups));
    if (!resp.groups) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (int32_t i = 0; i < in.groups_count; i++) {
        gr_describe_groups_response_described_group_init(&resp.groups[i]);
        describe_one(b, req, in.groups[i], in.include_authorized_operations, &resp.groups[i]);
    }
    resp.groups_count = in.groups_count;
    gr_request_respond(req, &resp);
}

/* --- ListGroups ------------------------------------------------------------------- */

typedef struct list_ctx {
    gr_request_t *req;
    const gr_list_groups_request_t *in;
    gr_list_groups_response_t *resp;
    int32_t cap;
    bool all_visible; /* DESCRIBE on the cluster */
} list_ctx_t;

static void list_one(gr_group_t *g, void *arg)
{
    list_ctx_t *ctx = arg;
    const gr_list_groups_request_t *in = ctx->in;
    if (!gr_group_listing_wanted(g, in->states_filter, in->states_filter_count, in->types_filter,
                                 in->types_filter_count) ||
        ctx->resp->groups_count >= ctx->cap)
        return;
    /* Without DESCRIBE on the cluster, Kafka lists only the groups one may describe. */
    if (!ctx->all_visible &&
        !gr_authorize_quiet(ctx->req->broker, ctx->req->session, GR_ACL_OPERATION_DESCRIBE,
                            GR_ACL_RESOURCE_TYPE_GROUP, g->key.id, strlen(g->key.id)))
        return;
    gr_list_groups_response_listed_group_t *out = &ctx->resp->groups[ctx->resp->groups_count++];
    out->group_id = gr_str(g->key.id);
    out->protocol_type = gr_str(gr_group_listed_protocol_type(g));
    out->group_state = gr_str(gr_group_listed_state(g));
    out->group_type = gr_str(gr_group_type_name(g));
}

void gr_handle_list_groups(gr_broker_t *b, gr_request_t *req)
{
    gr_list_groups_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_list_groups_response_t resp;
    gr_list_groups_response_init(&resp);
    int32_t cap = (int32_t)b->groups->table.count;
    resp.groups = gr_request_alloc_array(req, cap, sizeof(*resp.groups));
    if (!resp.groups) {
        gr_request_fail(req, "out of memory");
        return;
    }
    list_ctx_t ctx = {req, &in, &resp, cap,
                      gr_authorize_quiet(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                                         GR_ACL_RESOURCE_TYPE_CLUSTER, GR_ACL_CLUSTER_NAME,
                                         strlen(GR_ACL_CLUSTER_NAME))};
    gr_coordinator_foreach(b->groups, list_one, &ctx);
    /* Groups of partitions still replaying are not known yet: say so. */
    if (gr_coordinator_loading(b->groups))
        resp.error_code = GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
    gr_request_respond(req, &resp);
}
