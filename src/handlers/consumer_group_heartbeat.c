/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ConsumerGroupHeartbeat (v0-1, KIP-848): a consumer-group member joins,
 * heartbeats, reports the partitions it owns and receives its assignment,
 * all through this one request. In Kafka's order: READ on the group
 * (GROUP_AUTHORIZATION_FAILED), DESCRIBE on each subscribed topic
 * (TOPIC_AUTHORIZATION_FAILED), this broker coordinating the group,
 * the request's own validity, then the group's state machine
 * (src/group/cgroup_heartbeat.c). A subscription regex resolves only to
 * the topics the member may DESCRIBE (src/group/cgroup_regex.c).
 *
 * The group id names one kind of group: a member joining (epoch 0) creates
 * a consumer group, or turns a classic group into one (an Empty one always,
 * one with members as group.consumer.migration.policy allows:
 * src/group/cgroup_migrate.c; else GROUP_ID_NOT_FOUND). Without "consumer"
 * in group.coordinator.rebalance.protocols the API answers
 * UNSUPPORTED_VERSION, as Kafka's does. A
 * heartbeat for a group this broker does not hold (never created, or lost
 * with the coordinator: consumer-group state is not yet durable) answers
 * UNKNOWN_MEMBER_ID, so the member rejoins instead of failing.
 *
 * A heartbeat that changed the group is answered once the ISR of the
 * group's __consumer_offsets partition has the records that store it
 * (offsets.commit.timeout.ms at most, as OffsetCommit), or with
 * NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE when that fails.
 *
 * Runs on: loop thread.
 */
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/consumer_group_heartbeat.h"
#include "group/cgroup.h"
#include "group/coordinator.h"
#include "metadata/topics.h"
#include "handlers/handlers.h"
#include "handlers/isr_wait.h"
#include "handlers/request.h"
#include "security/authorizer.h"

typedef struct owned_pair {
    gr_uuid_t topic_id;
    int32_t partition;
} owned_pair_t;

static int owned_pair_cmp(const void *a, const void *b)
{
    const owned_pair_t *x = a, *y = b;
    int c = memcmp(x->topic_id.b, y->topic_id.b, sizeof x->topic_id.b);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

/*
 * The request's owned partitions as a set; NULL when it sent null. -1 on
 * -ENOMEM. Sorted first, so the set is built by appending: a client
 * listing a million partitions in reverse costs n log n, not n².
 */
static int owned_partitions(gr_request_t *req, const gr_consumer_group_heartbeat_request_t *in,
                            gr_assignment_t *out, const gr_assignment_t **owned)
{
    *owned = NULL;
    if (in->topic_partitions_null)
        return 0;
    int32_t n = 0;
    for (int32_t t = 0; t < in->topic_partitions_count; t++)
        n += in->topic_partitions[t].partitions_count;
    owned_pair_t *pairs = gr_request_alloc_array(req, n, sizeof(*pairs));
    if (!pairs)
        return -1;
    int32_t k = 0;
    for (int32_t t = 0; t < in->topic_partitions_count; t++)
        for (int32_t i = 0; i < in->topic_partitions[t].partitions_count; i++)
            pairs[k++] = (owned_pair_t){in->topic_partitions[t].topic_id,
                                        in->topic_partitions[t].partitions[i]};
    qsort(pairs, (size_t)n, sizeof(*pairs), owned_pair_cmp);
    for (int32_t i = 0; i < n; i++)
        if (gr_assignment_add(out, pairs[i].topic_id, pairs[i].partition) < 0)
            return -1;
    *owned = out;
    return 0;
}

static gr_consumer_group_heartbeat_response_assignment_t *
encode_assignment(gr_request_t *req, const gr_assignment_t *a)
{
    gr_consumer_group_heartbeat_response_assignment_t *out = gr_request_alloc(req, sizeof(*out));
    if (!out)
        return NULL;
    gr_consumer_group_heartbeat_response_assignment_init(out);
    out->topic_partitions =
        gr_request_alloc_array(req, a->topic_count, sizeof(*out->topic_partitions));
    if (!out->topic_partitions)
        return NULL;
    for (int32_t t = 0; t < a->topic_count; t++) {
        gr_consumer_group_heartbeat_response_topic_partitions_t *tp = &out->topic_partitions[t];
        gr_consumer_group_heartbeat_response_topic_partitions_init(tp);
        tp->topic_id = a->topics[t].topic_id;
        tp->partitions = gr_request_alloc_array(req, a->topics[t].partition_count, sizeof(int32_t));
        if (!tp->partitions)
            return NULL;
        for (int32_t i = 0; i < a->topics[t].partition_count; i++)
            tp->partitions[i] = a->topics[t].partitions[i];
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

/* Kafka 4.x: every subscribed topic needs DESCRIBE, or the whole heartbeat fails. */
static bool topics_authorized(gr_broker_t *b, gr_request_t *req,
                              const gr_consumer_group_heartbeat_request_t *in)
{
    for (int32_t i = 0; i < in->subscribed_topic_names_count; i++)
        if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                              GR_ACL_RESOURCE_TYPE_TOPIC, in->subscribed_topic_names[i]))
            return false;
    return true;
}

/* The request a regex is resolved for: its principal's DESCRIBE decides (Kafka's filter). */
typedef struct regex_viewer {
    gr_broker_t *b;
    gr_request_t *req;
} regex_viewer_t;

static bool regex_topic_allowed(void *ctx, const char *topic)
{
    regex_viewer_t *v = ctx;
    return gr_authorize_quiet(v->b, v->req->session, GR_ACL_OPERATION_DESCRIBE,
                              GR_ACL_RESOURCE_TYPE_TOPIC, topic, strlen(topic));
}

/*
 * The group the heartbeat is for, created or converted when a member
 * joins. NULL with *err set when there is none to serve it.
 */
static gr_group_t *find_group(gr_broker_t *b, const gr_consumer_group_heartbeat_request_t *in,
                              int32_t partition, gr_kerr_t *err)
{
    bool joining = in->member_epoch == GR_CGROUP_JOIN_EPOCH;
    bool leaving = in->member_epoch < 0;
    gr_group_t *g = gr_coordinator_find(b->groups, in->group_id);
    if (!g && !joining) {
        *err = leaving ? GR_KERR_GROUP_ID_NOT_FOUND : GR_KERR_UNKNOWN_MEMBER_ID;
        return NULL;
    }
    if (!g)
        g = gr_coordinator_get_or_create(b->groups, in->group_id, partition);
    if (!g) {
        *err = GR_KERR_UNKNOWN_SERVER_ERROR;
        return NULL;
    }
    if (g->state == GR_GROUP_DEAD) {
        *err = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        return NULL;
    }
    if (g->type == GR_GROUP_TYPE_SHARE) { /* Kafka: "Group ... is not a consumer group" */
        *err = GR_KERR_GROUP_ID_NOT_FOUND;
        return NULL;
    }
    if (g->type == GR_GROUP_TYPE_CLASSIC) {
        *err = joining ? gr_group_become_consumer(g, &b->groups->env) : GR_KERR_GROUP_ID_NOT_FOUND;
        if (*err)
            return NULL;
    }
    return g;
}

static gr_cgroup_heartbeat_args_t args_of(gr_request_t *req,
                                          const gr_consumer_group_heartbeat_request_t *in,
                                          const gr_assignment_t *owned)
{
    return (gr_cgroup_heartbeat_args_t){
        .version = req->api_version,
        .member_id = in->member_id,
        .member_epoch = in->member_epoch,
        .instance_id = in->instance_id,
        .rack_id = in->rack_id,
        .rebalance_timeout_ms = in->rebalance_timeout_ms,
        .subscribed_topics = in->subscribed_topic_names,
        .subscribed_count = in->subscribed_topic_names_null ? -1 : in->subscribed_topic_names_count,
        .subscribed_regex = in->subscribed_topic_regex,
        .server_assignor = in->server_assignor,
        .owned = owned,
        .client_id = req->client_id,
        .client_host = gr_group_client_host(req),
    };
}

/* A heartbeat whose answer waits for the ISR; lives in the request's arena. */
typedef struct heartbeat_op {
    gr_request_t *req;
    gr_consumer_group_heartbeat_response_t resp;
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
    gr_consumer_group_heartbeat_response_init(&op->resp);
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
                       const gr_consumer_group_heartbeat_request_t *in,
                       const gr_cgroup_heartbeat_args_t *a,
                       gr_consumer_group_heartbeat_response_t *resp, const char **message,
                       int32_t *partition_out, int64_t *written_end)
{
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
        err = gr_cgroup_heartbeat_validate(&b->groups->env, a, message);
    if (err)
        return err;
    gr_group_t *g = find_group(b, in, partition, &err);
    if (!g)
        return err;
    gr_cgroup_heartbeat_result_t r;
    regex_viewer_t viewer = {b, req};
    gr_cgroup_heartbeat_args_t with_acls = *a;
    if (b->authorizer) {
        with_acls.topic_allowed = regex_topic_allowed;
        with_acls.topic_allowed_ctx = &viewer;
    }
    gr_cgroup_heartbeat(g, &b->groups->env, &with_acls, &r);
    *partition_out = partition;
    *written_end = r.written_end;
    /* A composed message lives in r: copied before r goes. */
    *message =
        r.error_message == r.message_buf ? arena_str(req, r.message_buf).ptr : r.error_message;
    if (r.error)
        return r.error;
    /* A copy: the answer may wait for the ISR, and the member go meanwhile. */
    resp->member_id =
        r.member_id ? arena_str(req, r.member_id) : in->member_id; /* a leave echoes */
    if (resp->member_id.len < 0)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    resp->member_epoch = r.member_epoch;
    resp->heartbeat_interval_ms = r.heartbeat_interval_ms;
    if (r.assignment && !(resp->assignment = encode_assignment(req, r.assignment)))
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    return GR_KERR_NONE;
}

void gr_handle_consumer_group_heartbeat(gr_broker_t *b, gr_request_t *req)
{
    gr_consumer_group_heartbeat_request_t in;
    if (gr_request_decode(req, &in))
        return;
    heartbeat_op_t *op = gr_request_alloc(req, sizeof(*op));
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->req = req;
    gr_consumer_group_heartbeat_response_init(&op->resp);
    gr_assignment_t owned_set = GR_ASSIGNMENT_INIT;
    const gr_assignment_t *owned;
    const char *message = NULL;
    gr_kerr_t err = GR_KERR_UNKNOWN_SERVER_ERROR;
    int32_t partition = -1;
    int64_t end = 0;
    /* group.coordinator.rebalance.protocols without "consumer": Kafka refuses the API. */
    if (!gr_config_rebalance_protocol_enabled(&b->config, "consumer"))
        err = GR_KERR_UNSUPPORTED_VERSION;
    else if (owned_partitions(req, &in, &owned_set, &owned) == 0) {
        gr_cgroup_heartbeat_args_t a = args_of(req, &in, owned);
        err = serve(b, req, &in, &a, &op->resp, &message, &partition, &end);
    }
    gr_assignment_free(&owned_set);
    if (err) {
        /* Kafka answers an error without member id or epoch. */
        gr_consumer_group_heartbeat_response_init(&op->resp);
        op->resp.error_code = err;
        op->resp.error_message = message ? gr_str(message) : (gr_str_t){NULL, GR_NULL_LEN};
    }
    answer(b, op, partition, err ? 0 : end);
}
