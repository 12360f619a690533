/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ShareGroupHeartbeat (v1, KIP-932): a share-group member joins (epoch 0,
 * with a member id it made itself), heartbeats, leaves (epoch -1) and
 * receives the partitions it may fetch from, through this one request. In
 * Kafka's order: READ on the group (GROUP_AUTHORIZATION_FAILED), DESCRIBE
 * on each subscribed topic (TOPIC_AUTHORIZATION_FAILED), this broker
 * coordinating the group, the request's own validity, then the group's
 * state machine (src/group/sgroup_heartbeat.c).
 *
 * The group id names one kind of group: a join creates a share group; an
 * id a classic or consumer group holds is GROUP_ID_NOT_FOUND ("not a share
 * group"), as is a heartbeat or leave for a group this broker does not
 * hold. Without "share" in group.coordinator.rebalance.protocols (Gregor's
 * stand-in for Kafka 4.2's share.version feature) the API answers
 * UNSUPPORTED_VERSION, as Kafka does with share groups off.
 *
 * A heartbeat that changed the group is answered once the ISR of the
 * group's __consumer_offsets partition has the records that store it
 * (offsets.commit.timeout.ms at most), or NOT_COORDINATOR /
 * COORDINATOR_NOT_AVAILABLE when that fails.
 *
 * Runs on: loop thread.
 */
#include <string.h>

#include "core/context.h"
#include "gen/share_group_heartbeat.h"
#include "group/coordinator.h"
#include "group/sgroup.h"
#include "handlers/handlers.h"
#include "handlers/isr_wait.h"
#include "handlers/request.h"
#include "metadata/topics.h"
#include "security/authorizer.h"

typedef gr_share_group_heartbeat_response_assignment_t assignment_t;
typedef gr_share_group_heartbeat_response_topic_partitions_t topic_partitions_t;

static assignment_t *encode_assignment(gr_request_t *req, const gr_assignment_t *a)
{
    assignment_t *out = gr_request_alloc(req, sizeof(*out));
    if (!out)
        return NULL;
    gr_share_group_heartbeat_response_assignment_init(out);
    out->topic_partitions =
        gr_request_alloc_array(req, a->topic_count, sizeof(*out->topic_partitions));
    if (!out->topic_partitions)
        return NULL;
    for (int32_t t = 0; t < a->topic_count; t++) {
        topic_partitions_t *tp = &out->topic_partitions[t];
        gr_share_group_heartbeat_response_topic_partitions_init(tp);
        tp->topic_id = a->topics[t].topic_id;
        /* A copy: the answer may wait for the ISR, and the member go meanwhile. */
        tp->partitions = gr_request_alloc_array(req, a->topics[t].partition_count, sizeof(int32_t));
        if (!tp->partitions)
            return NULL;
        memcpy(tp->partitions, a->topics[t].partitions,
               sizeof(int32_t) * (size_t)a->topics[t].partition_count);
        tp->partitions_count = a->topics[t].partition_count;
    }
    out->topic_partitions_count = a->topic_count;
    return out;
}

/* s copied into req's arena; a null string on -ENOMEM. */
static gr_str_t arena_str(gr_request_t *req, const char *s)
{
    size_t n = strlen(s);
    char *c = gr_request_alloc(req, n + 1);
    if (!c)
        return (gr_str_t){NULL, GR_NULL_LEN};
    memcpy(c, s, n + 1);
    return (gr_str_t){c, (int32_t)n};
}

/* Kafka 4.1+: every subscribed topic needs DESCRIBE, or the whole heartbeat fails. */
static bool topics_authorized(gr_broker_t *b, gr_request_t *req,
                              const gr_share_group_heartbeat_request_t *in)
{
    for (int32_t i = 0; i < in->subscribed_topic_names_count; i++)
        if (in->subscribed_topic_names[i].len >= 0 &&
            !gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                              GR_ACL_RESOURCE_TYPE_TOPIC, in->subscribed_topic_names[i]))
            return false;
    return true;
}

/* The share group the heartbeat is for, created on a join. NULL with *err set. */
static gr_group_t *find_group(gr_broker_t *b, const gr_share_group_heartbeat_request_t *in,
                              int32_t partition, gr_kerr_t *err, const char **message)
{
    gr_group_t *g = gr_coordinator_find(b->groups, in->group_id);
    if (!g && in->member_epoch != GR_SGROUP_JOIN_EPOCH) {
        *err = GR_KERR_GROUP_ID_NOT_FOUND;
        *message = "Share group not found.";
        return NULL;
    }
    if (!g && !(g = gr_coordinator_get_or_create(b->groups, in->group_id, partition))) {
        *err = GR_KERR_UNKNOWN_SERVER_ERROR;
        return NULL;
    }
    if (g->state == GR_GROUP_DEAD) {
        *err = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        return NULL;
    }
    if ((*err = gr_group_become_share(g, &b->groups->env)))
        *message = *err == GR_KERR_GROUP_ID_NOT_FOUND ? "The group is not a share group." : NULL;
    return *err ? NULL : g;
}

/* A heartbeat whose answer waits for the ISR; lives in the request's arena. */
typedef struct heartbeat_op {
    gr_request_t *req;
    gr_share_group_heartbeat_response_t resp;
    gr_isr_wait_t isr_wait;
} heartbeat_op_t;

static void op_respond(void *opaque)
{
    heartbeat_op_t *op = opaque;
    gr_request_respond(op->req, &op->resp);
}

/* The group's records did not reach the ISR: the member retries (elsewhere if need be). */
static void op_settle(void *opaque, gr_kerr_t err)
{
    heartbeat_op_t *op = opaque;
    if (!err)
        return;
    gr_share_group_heartbeat_response_init(&op->resp);
    op->resp.error_code = err == GR_KERR_NOT_LEADER_OR_FOLLOWER ? GR_KERR_NOT_COORDINATOR
                                                                : GR_KERR_COORDINATOR_NOT_AVAILABLE;
}

static void op_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    heartbeat_op_t *op = arg;
    gr_isr_wait_cancel(&op->isr_wait);
}

static void answer(gr_broker_t *b, heartbeat_op_t *op, int32_t partition, int64_t end)
{
    gr_partition_t *p = end > 0 ? gr_coordinator_led_partition(b->groups, partition) : NULL;
    if (p && gr_isr_wait_init(&op->isr_wait, b, op->req, 1, b->config.offsets_commit_timeout_ms,
                              op_respond, op) == 0) {
        gr_isr_wait_add(&op->isr_wait, p, end, p->topic->settings.min_insync_replicas, op_settle,
                        op);
        if (op->isr_wait.pending > 0) {
            gr_resp_slot_defer(op->req->slot, op_cancel, op);
            return;
        }
    }
    op_respond(op);
}

static gr_kerr_t serve(gr_broker_t *b, gr_request_t *req,
                       const gr_share_group_heartbeat_request_t *in,
                       gr_share_group_heartbeat_response_t *resp, const char **message,
                       int32_t *partition_out, int64_t *written_end)
{
    gr_sgroup_heartbeat_args_t a = {
        .member_id = in->member_id,
        .member_epoch = in->member_epoch,
        .rack_id = in->rack_id,
        .subscribed_topics = in->subscribed_topic_names,
        .subscribed_count = in->subscribed_topic_names_null ? -1 : in->subscribed_topic_names_count,
        .client_id = req->client_id,
        .client_host = gr_group_client_host(req),
    };
    int32_t partition;
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ, GR_ACL_RESOURCE_TYPE_GROUP,
                          in->group_id))
        return GR_KERR_GROUP_AUTHORIZATION_FAILED;
    if (!topics_authorized(b, req, in))
        return GR_KERR_TOPIC_AUTHORIZATION_FAILED;
    if (in->group_id.len <= 0) {
        *message = "GroupId can't be empty.";
        return GR_KERR_INVALID_REQUEST;
    }
    gr_kerr_t err = gr_coordinator_check(b->groups, in->group_id, &partition);
    if (!err)
        err = gr_sgroup_heartbeat_validate(&a, message);
    if (err)
        return err;
    gr_group_t *g = find_group(b, in, partition, &err, message);
    if (!g)
        return err;
    gr_sgroup_heartbeat_result_t r;
    gr_sgroup_heartbeat(g, &b->groups->env, &a, &r);
    *partition_out = partition;
    *written_end = r.written_end;
    *message = r.error_message;
    if (r.error)
        return r.error;
    /* A copy: the answer may wait for the ISR, and the member go meanwhile; a leave echoes. */
    resp->member_id = r.member_id ? arena_str(req, r.member_id) : in->member_id;
    if (resp->member_id.len < 0)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    resp->member_epoch = r.member_epoch;
    resp->heartbeat_interval_ms = r.heartbeat_interval_ms;
    if (r.assignment && !(resp->assignment = encode_assignment(req, r.assignment)))
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    return GR_KERR_NONE;
}

void gr_handle_share_group_heartbeat(gr_broker_t *b, gr_request_t *req)
{
    gr_share_group_heartbeat_request_t in;
    if (gr_request_decode(req, &in))
        return;
    heartbeat_op_t *op = gr_request_alloc(req, sizeof(*op));
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->req = req;
    gr_share_group_heartbeat_response_init(&op->resp);
    const char *message = NULL;
    gr_kerr_t err = GR_KERR_UNSUPPORTED_VERSION;
    int32_t partition = -1;
    int64_t end = 0;
    /* Share groups off: Kafka refuses the API. */
    if (gr_config_rebalance_protocol_enabled(&b->config, "share"))
        err = serve(b, req, &in, &op->resp, &message, &partition, &end);
    if (err) {
        /* Kafka answers an error without member id or epoch. */
        gr_share_group_heartbeat_response_init(&op->resp);
        op->resp.error_code = err;
        op->resp.error_message = message ? gr_str(message) : (gr_str_t){NULL, GR_NULL_LEN};
    }
    answer(b, op, partition, err ? 0 : end);
}
