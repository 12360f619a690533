/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ShareGroupDescribe (v1, KIP-932): each share group's state ("Empty",
 * "Stable", "Dead"), epochs, assignor ("simple") and members, each with
 * its subscription and current assignment (topics named from this
 * broker's metadata; a topic it no longer knows is left out).
 *
 * Per group, in Kafka's order: DESCRIBE on the group
 * (GROUP_AUTHORIZATION_FAILED), a non-empty id (INVALID_GROUP_ID), this
 * broker coordinating it, the group being a share group
 * (GROUP_ID_NOT_FOUND otherwise), and DESCRIBE on every topic its members'
 * assignments name (TOPIC_AUTHORIZATION_FAILED, members withheld,
 * otherwise). With share groups off every group is UNSUPPORTED_VERSION.
 *
 * Runs on: loop thread.
 */
#include "core/context.h"
#include "gen/share_group_describe.h"
#include "group/coordinator.h"
#include "group/sgroup.h"
#include "handlers/admin_common.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "metadata/topics.h"
#include "security/authorizer.h"

typedef gr_share_group_describe_response_described_group_t described_t;
typedef gr_share_group_describe_response_member_t described_member_t;

/* Is every topic of a describable by the session? */
static bool assignment_authorized(gr_broker_t *b, gr_request_t *req, const gr_assignment_t *a)
{
    for (int32_t t = 0; t < a->topic_count; t++) {
        gr_topic_t *topic = gr_topics_find_id(b->topics, a->topics[t].topic_id);
        if (topic && !gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                                       GR_ACL_RESOURCE_TYPE_TOPIC, gr_str(topic->name)))
            return false;
    }
    return true;
}

static int encode_assignment(gr_broker_t *b, gr_request_t *req, const gr_assignment_t *a,
                             gr_share_group_describe_response_assignment_t *out)
{
    gr_share_group_describe_response_assignment_init(out);
    out->topic_partitions =
        gr_request_alloc_array(req, a->topic_count, sizeof(*out->topic_partitions));
    if (!out->topic_partitions)
        return -1;
    for (int32_t t = 0; t < a->topic_count; t++) {
        gr_topic_t *topic = gr_topics_find_id(b->topics, a->topics[t].topic_id);
        if (!topic)
            continue;
        gr_share_group_describe_response_topic_partitions_t *tp =
            &out->topic_partitions[out->topic_partitions_count++];
        gr_share_group_describe_response_topic_partitions_init(tp);
        tp->topic_id = a->topics[t].topic_id;
        tp->topic_name = gr_str(topic->name);
        tp->partitions = a->topics[t].partitions; /* the group outlives the encode */
        tp->partitions_count = a->topics[t].partition_count;
    }
    return 0;
}

static int describe_member(gr_broker_t *b, gr_request_t *req, const gr_smember_t *m,
                           described_member_t *d)
{
    gr_share_group_describe_response_member_init(d);
    d->member_id = gr_str(m->member_id);
    d->rack_id = m->rack_id ? gr_str(m->rack_id) : (gr_str_t){NULL, GR_NULL_LEN};
    d->member_epoch = m->member_epoch;
    d->client_id = gr_str(m->client_id ? m->client_id : "");
    d->client_host = gr_str(m->client_host ? m->client_host : "");
    d->subscribed_topic_names =
        gr_request_alloc_array(req, m->subscribed_count, sizeof(*d->subscribed_topic_names));
    if (!d->subscribed_topic_names)
        return -1;
    for (int32_t i = 0; i < m->subscribed_count; i++)
        d->subscribed_topic_names[i] = gr_str(m->subscribed_topics[i]);
    d->subscribed_topic_names_count = m->subscribed_count;
    return encode_assignment(b, req, &m->assigned, &d->assignment);
}

static void describe_group(gr_broker_t *b, gr_request_t *req, const gr_sgroup_t *sg,
                           described_t *out)
{
    out->group_state = gr_str(gr_sgroup_state_name(sg->state));
    out->group_epoch = sg->group_epoch;
    out->assignment_epoch = sg->assignment_epoch;
    out->assignor_name = gr_str(GR_SGROUP_ASSIGNOR_SIMPLE);
    for (const gr_smember_t *m = sg->members; m; m = m->next)
        if (!assignment_authorized(b, req, &m->assigned)) {
            out->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            out->error_message = gr_str(
                "The group has described topic(s) that the client is not authorized to describe.");
            return;
        }
    out->members = gr_request_alloc_array(req, sg->member_count, sizeof(*out->members));
    if (!out->members) {
        out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        return;
    }
    for (const gr_smember_t *m = sg->members; m; m = m->next)
        if (describe_member(b, req, m, &out->members[out->members_count++]) < 0) {
            out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
            out->members_count = 0;
            return;
        }
}

static void describe_one(gr_broker_t *b, gr_request_t *req, gr_str_t id, bool include_ops,
                         described_t *out)
{
    gr_share_group_describe_response_described_group_init(out);
    out->group_id = id;
    out->group_state = gr_str("");
    out->assignor_name = gr_str("");
    if (!gr_config_rebalance_protocol_enabled(&b->config, "share")) {
        out->error_code = GR_KERR_UNSUPPORTED_VERSION; /* Kafka, with share groups off */
        return;
    }
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE, GR_ACL_RESOURCE_TYPE_GROUP,
                          id)) {
        out->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        return;
    }
    if (id.len <= 0) {
        out->error_code = GR_KERR_INVALID_GROUP_ID;
        return;
    }
    int32_t partition;
    out->error_code = gr_coordinator_check(b->groups, id, &partition);
    if (out->error_code)
        return;
    gr_group_t *g = gr_coordinator_find(b->groups, id);
    if (!g || g->type != GR_GROUP_TYPE_SHARE || !g->share) {
        out->error_code = GR_KERR_GROUP_ID_NOT_FOUND;
        out->error_message = gr_str(g ? "Group is not a share group." : "Group not found.");
        return;
    }
    out->authorized_operations =
        include_ops
            ? gr_authorized_ops(b, req->session, GR_ACL_RESOURCE_TYPE_GROUP, id.ptr, (size_t)id.len)
            : GR_ACL_OPS_UNKNOWN;
    describe_group(b, req, g->share, out);
}

void gr_handle_share_group_describe(gr_broker_t *b, gr_request_t *req)
{
    gr_share_group_describe_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_share_group_describe_response_t resp;
    gr_share_group_describe_response_init(&resp);
    resp.groups = gr_request_alloc_array(req, in.group_ids_count, sizeof(*resp.groups));
    if (!resp.groups) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (int32_t i = 0; i < in.group_ids_count; i++)
        describe_one(b, req, in.group_ids[i], in.include_authorized_operations, &resp.groups[i]);
    resp.groups_count = in.group_ids_count;
    gr_request_respond(req, &resp);
}
