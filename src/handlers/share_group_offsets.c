/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share-group offset admin APIs, on the group's coordinator, over the
 * share coordinator's durable state (share/share_persister.h):
 *
 *   DescribeShareGroupOffsets (90, v0-1)  per partition asked: the start
 *       offset and leader epoch of ReadShareGroupStateSummary, and (v1) the
 *       lag, high watermark - start offset - records delivered complete,
 *       when this broker leads the partition and the summary counts them
 *       (else -1). Group DESCRIBE, else the group's GROUP_AUTHORIZATION_FAILED;
 *       topic DESCRIBE, else its partitions' TOPIC_AUTHORIZATION_FAILED.
 *       Topics null: every share-partition the group initialized.
 *   AlterShareGroupOffsets (91, v0)       sets each partition's start offset:
 *       an InitializeShareGroupState at the stored state epoch + 1 (so a
 *       leader still holding the old state is fenced) and the new offset,
 *       the in-flight batches gone. Group READ, topic READ.
 *   DeleteShareGroupOffsets (92, v0)      deletes the state of every
 *       partition of each topic named (DeleteShareGroupState). Group DELETE,
 *       topic READ.
 *
 * Alter and delete need the group empty: a share group with members is
 * NON_EMPTY_GROUP; a group of another kind with that id is
 * GROUP_ID_NOT_FOUND. Every API is NOT_COORDINATOR (or
 * COORDINATOR_LOAD_IN_PROGRESS, ...) where the group's coordinator is not
 * here, as gr_coordinator_check says. An unknown topic or partition is
 * UNKNOWN_TOPIC_OR_PARTITION.
 *
 * Each request is deferred while its persister calls run; an op counts
 * them (plus one for the handler itself) and answers when the last one
 * completes. A connection closing meanwhile only forgets the request:
 * the calls still complete and free the op.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/alter_share_group_offsets.h"
#include "gen/delete_share_group_offsets.h"
#include "gen/describe_share_group_offsets.h"
#include "group/coordinator.h"
#include "group/group.h"
#include "group/sgroup.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "security/authorizer.h"
#include "share/share_persister.h"

#define LAG_UNKNOWN (-1)

typedef gr_describe_share_group_offsets_response_describe_share_group_offsets_response_partition_t
    describe_part_t;
typedef gr_describe_share_group_offsets_response_describe_share_group_offsets_response_topic_t
    describe_topic_t;
typedef gr_describe_share_group_offsets_response_describe_share_group_offsets_response_group_t
    describe_group_t;
typedef gr_alter_share_group_offsets_response_alter_share_group_offsets_response_partition_t
    alter_part_t;
typedef gr_alter_share_group_offsets_response_alter_share_group_offsets_response_topic_t
    alter_topic_t;
typedef gr_delete_share_group_offsets_response_delete_share_group_offsets_response_topic_t
    delete_topic_t;

/* One request's persister calls in flight. */
typedef struct offsets_op {
    gr_broker_t *b;
    gr_request_t *req; /* NULL once its connection closed */
    int pending;       /* calls outstanding, plus the handler's own share */
    void *resp;        /* the response, in the request's arena */
} offsets_op_t;

/* One persister call: where its answer goes. */
typedef struct part_call {
    offsets_op_t *op;
    gr_share_key_t key;
    char *group; /* the key's group id, owned */
    int16_t *error_code;
    describe_part_t *describe; /* describe only */
    gr_partition_t *partition; /* describe: for the lag, when led here at the start */
    int64_t start_offset;      /* alter: the new one */
} part_call_t;

static void op_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    offsets_op_t *op = arg;
    op->req = NULL;
}

static void op_finish_one(offsets_op_t *op)
{
    if (--op->pending > 0)
        return;
    if (op->req)
        gr_request_respond(op->req, op->resp);
    free(op);
}

static offsets_op_t *op_start(gr_broker_t *b, gr_request_t *req, void *resp)
{
    offsets_op_t *op = calloc(1, sizeof *op);
    if (!op) {
        gr_request_fail(req, "out of memory");
        return NULL;
    }
    *op = (offsets_op_t){b, req, 1, resp};
    gr_resp_slot_defer(req->slot, op_cancel, op);
    return op;
}

static void call_free(part_call_t *c)
{
    offsets_op_t *op = c->op;
    free(c->group);
    free(c);
    op_finish_one(op);
}

/* A call for (group, topic, partition), counted in op; NULL when out of memory. */
static part_call_t *call_new(offsets_op_t *op, gr_str_t group, const gr_topic_t *t, int32_t index,
                             int16_t *error_code)
{
    part_call_t *c = calloc(1, sizeof *c);
    char *id = c ? malloc((size_t)group.len + 1) : NULL;
    if (!id) {
        free(c);
        return NULL;
    }
    memcpy(id, group.ptr, (size_t)group.len);
    id[group.len] = '\0';
    *c = (part_call_t){.op = op, .key = {id, t->id, index}, .group = id, .error_code = error_code};
    op->pending++;
    return c;
}

/* A persister call refused at once: the partition's answer, and the call undone. */
static void call_refused(part_call_t *c, int rc)
{
    if (c->op->req)
        *c->error_code = rc == -ENOMEM ? GR_KERR_UNKNOWN_SERVER_ERROR : GR_KERR_INVALID_REQUEST;
    call_free(c);
}

/* Why this broker cannot answer for group id now, or NONE. */
static gr_kerr_t coordinator_error(gr_broker_t *b, gr_str_t id)
{
    int32_t partition = 0;
    if (id.len <= 0)
        return GR_KERR_INVALID_GROUP_ID;
    return b->groups ? gr_coordinator_check(b->groups, id, &partition)
                     : GR_KERR_COORDINATOR_NOT_AVAILABLE;
}

/*
 * Whether alter/delete may change group id's offsets: NONE for a share
 * group without members (or no group yet), once the caller may do op on
 * the group (else GROUP_AUTHORIZATION_FAILED) and its coordinator is here
 * (else coordinator_error's code); NON_EMPTY_GROUP, or GROUP_ID_NOT_FOUND
 * for a group of another kind.
 */
static gr_kerr_t offsets_change_error(gr_broker_t *b, gr_request_t *req, gr_acl_operation_t op,
                                      gr_str_t id)
{
    if (!gr_authorize_str(b, req->session, op, GR_ACL_RESOURCE_TYPE_GROUP, id))
        return GR_KERR_GROUP_AUTHORIZATION_FAILED;
    gr_kerr_t err = coordinator_error(b, id);
    if (err)
        return err;
    gr_group_t *g = gr_coordinator_find(b->groups, id);
    if (!g || g->state == GR_GROUP_DEAD)
        return GR_KERR_NONE;
    if (g->type != GR_GROUP_TYPE_SHARE || !g->share)
        return GR_KERR_GROUP_ID_NOT_FOUND;
    return g->share->member_count > 0 ? GR_KERR_NON_EMPTY_GROUP : GR_KERR_NONE;
}

static gr_topic_t *topic_find(gr_broker_t *b, gr_str_t name)
{
    return name.len > 0 ? gr_topics_find(b->topics, name.ptr, (size_t)name.len) : NULL;
}

/* ---- DescribeShareGroupOffsets ---- */

static void on_summary(void *opaque, gr_kerr_t err, const gr_share_summary_t *s)
{
    part_call_t *c = opaque;
    if (c->op->req) {
        describe_part_t *out = c->describe;
        out->error_code = err;
        if (!err) {
            out->start_offset = s->start_offset;
            out->leader_epoch = s->leader_epoch;
            gr_partition_t *p = c->partition;
            if (p && p->log && s->start_offset >= 0 &&
                s->delivery_complete_count != GR_SHARE_DELIVERY_COMPLETE_UNKNOWN) {
                int64_t lag =
                    gr_log_high_watermark(p->log) - s->start_offset - s->delivery_complete_count;
                out->lag = lag > 0 ? lag : 0;
            }
        }
    }
    call_free(c);
}

static void describe_partition(offsets_op_t *op, gr_str_t group, const gr_topic_t *t, int32_t index,
                               gr_kerr_t refused, describe_part_t *out)
{
    gr_describe_share_group_offsets_response_describe_share_group_offsets_response_partition_init(
        out);
    out->partition_index = index;
    out->start_offset = GR_SHARE_START_OFFSET_UNINITIALIZED;
    out->leader_epoch = -1;
    out->lag = LAG_UNKNOWN;
    out->error_message = gr_str(NULL);
    if (!refused && (!t || index < 0 || index >= t->partition_count))
        refused = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
    out->error_code = refused;
    if (refused)
        return;
    part_call_t *c = call_new(op, group, t, index, &out->error_code);
    if (!c) {
        out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        return;
    }
    c->describe = out;
    gr_partition_t *p = &t->partitions[index];
    c->partition = gr_partition_led_by(p, op->b->config.broker_id) ? p : NULL;
    int rc = gr_share_persister_read_summary(op->b->share_persister, &c->key, -1, on_summary, c);
    if (rc)
        call_refused(c, rc);
}

typedef gr_describe_share_group_offsets_request_describe_share_group_offsets_request_group_t
    describe_group_in_t;
typedef gr_describe_share_group_offsets_request_describe_share_group_offsets_request_topic_t
    describe_topic_in_t;

/*
 * Topics null asks for every partition the group has state for: its
 * initialized share-partitions (those ever assigned), as Kafka answers
 * from ShareGroupStatePartitionMetadata. Topics deleted since are left
 * out; so are those the caller may not DESCRIBE, as Kafka filters them.
 * The list goes to *out (request arena). Its length, or -ENOMEM.
 */
static int32_t initialized_topics(offsets_op_t *op, gr_str_t group, describe_topic_in_t **out)
{
    gr_broker_t *b = op->b;
    gr_group_t *g = gr_coordinator_find(b->groups, group);
    *out = NULL;
    if (!g || g->type != GR_GROUP_TYPE_SHARE || !g->share)
        return 0;
    const gr_assignment_t *init = &g->share->initialized;
    *out = gr_request_alloc_array(op->req, init->topic_count, sizeof **out);
    if (!*out)
        return -ENOMEM;
    int32_t n = 0;
    for (int32_t i = 0; i < init->topic_count; i++) {
        gr_topic_t *t = gr_topics_find_id(b->topics, init->topics[i].topic_id);
        if (!t || !gr_authorize_str(b, op->req->session, GR_ACL_OPERATION_DESCRIBE,
                                    GR_ACL_RESOURCE_TYPE_TOPIC, gr_str(t->name)))
            continue;
        /* The name is copied: the topic may go while the persister calls run. */
        char *name = gr_request_alloc(op->req, strlen(t->name) + 1);
        if (!name)
            return -ENOMEM;
        strcpy(name, t->name);
        (*out)[n++] = (describe_topic_in_t){gr_str(name), init->topics[i].partitions,
                                            init->topics[i].partition_count};
    }
    return n;
}

static int describe_topic(offsets_op_t *op, gr_str_t group, const describe_topic_in_t *tin,
                          describe_topic_t *tout)
{
    gr_broker_t *b = op->b;
    gr_request_t *req = op->req;
    gr_describe_share_group_offsets_response_describe_share_group_offsets_response_topic_init(tout);
    tout->topic_name = tin->topic_name;
    gr_kerr_t refused = gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                                         GR_ACL_RESOURCE_TYPE_TOPIC, tin->topic_name)
                            ? GR_KERR_NONE
                            : GR_KERR_TOPIC_AUTHORIZATION_FAILED;
    gr_topic_t *t = refused ? NULL : topic_find(b, tin->topic_name);
    if (t)
        tout->topic_id = t->id;
    tout->partitions = gr_request_alloc_array(req, tin->partitions_count, sizeof *tout->partitions);
    if (!tout->partitions)
        return -ENOMEM;
    tout->partitions_count = tin->partitions_count;
    for (int32_t k = 0; k < tin->partitions_count; k++)
        describe_partition(op, group, t, tin->partitions[k], refused, &tout->partitions[k]);
    return 0;
}

static int describe_group(offsets_op_t *op, const describe_group_in_t *in, describe_group_t *out)
{
    gr_broker_t *b = op->b;
    gr_request_t *req = op->req;
    gr_describe_share_group_offsets_response_describe_share_group_offsets_response_group_init(out);
    out->group_id = in->group_id;
    out->error_message = gr_str(NULL);
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE, GR_ACL_RESOURCE_TYPE_GROUP,
                          in->group_id)) {
        out->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        return 0;
    }
    out->error_code = coordinator_error(b, in->group_id);
    if (out->error_code)
        return 0;
    describe_topic_in_t *topics = in->topics;
    int32_t count = in->topics_count;
    if (in->topics_null) {
        count = initialized_topics(op, in->group_id, &topics);
        if (count < 0)
            return count;
    }
    out->topics = gr_request_alloc_array(req, count, sizeof *out->topics);
    if (!out->topics)
        return -ENOMEM;
    out->topics_count = count;
    for (int32_t i = 0; i < count; i++)
        if (describe_topic(op, in->group_id, &topics[i], &out->topics[i]))
            return -ENOMEM;
    return 0;
}

void gr_handle_describe_share_group_offsets(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_share_group_offsets_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_share_group_offsets_response_t *resp = gr_request_alloc(req, sizeof *resp);
    if (!resp) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_describe_share_group_offsets_response_init(resp);
    resp->groups = gr_request_alloc_array(req, in.groups_count, sizeof *resp->groups);
    offsets_op_t *op = resp->groups ? op_start(b, req, resp) : NULL;
    if (!op) {
        if (!resp->groups)
            gr_request_fail(req, "out of memory");
        return;
    }
    resp->groups_count = in.groups_count;
    for (int32_t i = 0; i < in.groups_count; i++) {
        if (describe_group(op, &in.groups[i], &resp->groups[i])) {
            /* The calls already out still complete; this answer is lost. */
            op->req = NULL;
            gr_request_fail(req, "out of memory");
            break;
        }
    }
    op_finish_one(op);
}

/* ---- AlterShareGroupOffsets ---- */

static void on_initialized(void *opaque, gr_kerr_t err)
{
    part_call_t *c = opaque;
    if (c->op->req)
        *c->error_code = err;
    call_free(c);
}

/* The stored state epoch is known: the new state goes at the next one. */
static void on_alter_summary(void *opaque, gr_kerr_t err, const gr_share_summary_t *s)
{
    part_call_t *c = opaque;
    if (err) {
        on_initialized(c, err);
        return;
    }
    int32_t epoch = s->state_epoch > 0 ? s->state_epoch + 1 : 1;
    int rc = gr_share_persister_initialize(c->op->b->share_persister, &c->key, epoch,
                                           c->start_offset, on_initialized, c);
    if (rc)
        call_refused(c, rc);
}

static void alter_partition(offsets_op_t *op, gr_str_t group, const gr_topic_t *t, int32_t index,
                            int64_t start_offset, gr_kerr_t refused, alter_part_t *out)
{
    gr_alter_share_group_offsets_response_alter_share_group_offsets_response_partition_init(out);
    out->partition_index = index;
    out->error_message = gr_str(NULL);
    if (!refused && (!t || index < 0 || index >= t->partition_count))
        refused = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (!refused && start_offset < 0)
        refused = GR_KERR_INVALID_REQUEST;
    out->error_code = refused;
    if (refused)
        return;
    part_call_t *c = call_new(op, group, t, index, &out->error_code);
    if (!c) {
        out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        return;
    }
    c->start_offset = start_offset;
    int rc =
        gr_share_persister_read_summary(op->b->share_persister, &c->key, -1, on_alter_summary, c);
    if (rc)
        call_refused(c, rc);
}

static int alter_topics(offsets_op_t *op, const gr_alter_share_group_offsets_request_t *in,
                        gr_alter_share_group_offsets_response_t *resp)
{
    gr_broker_t *b = op->b;
    gr_request_t *req = op->req;
    resp->responses = gr_request_alloc_array(req, in->topics_count, sizeof *resp->responses);
    if (!resp->responses)
        return -ENOMEM;
    resp->responses_count = in->topics_count;
    for (int32_t i = 0; i < in->topics_count; i++) {
        const gr_alter_share_group_offsets_request_alter_share_group_offsets_request_topic_t *tin =
            &in->topics[i];
        alter_topic_t *tout = &resp->responses[i];
        gr_alter_share_group_offsets_response_alter_share_group_offsets_response_topic_init(tout);
        tout->topic_name = tin->topic_name;
        gr_kerr_t refused = gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ,
                                             GR_ACL_RESOURCE_TYPE_TOPIC, tin->topic_name)
                                ? GR_KERR_NONE
                                : GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        gr_topic_t *t = refused ? NULL : topic_find(b, tin->topic_name);
        if (t)
            tout->topic_id = t->id;
        tout->partitions =
            gr_request_alloc_array(req, tin->partitions_count, sizeof *tout->partitions);
        if (!tout->partitions)
            return -ENOMEM;
        tout->partitions_count = tin->partitions_count;
        for (int32_t k = 0; k < tin->partitions_count; k++)
            alter_partition(op, in->group_id, t, tin->partitions[k].partition_index,
                            tin->partitions[k].start_offset, refused, &tout->partitions[k]);
    }
    return 0;
}

void gr_handle_alter_share_group_offsets(gr_broker_t *b, gr_request_t *req)
{
    gr_alter_share_group_offsets_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_alter_share_group_offsets_response_t *resp = gr_request_alloc(req, sizeof *resp);
    if (!resp) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_alter_share_group_offsets_response_init(resp);
    resp->error_message = gr_str(NULL);
    resp->error_code = offsets_change_error(b, req, GR_ACL_OPERATION_READ, in.group_id);
    if (resp->error_code) {
        gr_request_respond(req, resp);
        return;
    }
    offsets_op_t *op = op_start(b, req, resp);
    if (!op)
        return;
    if (alter_topics(op, &in, resp)) {
        op->req = NULL;
        gr_request_fail(req, "out of memory");
    }
    op_finish_one(op);
}

/* ---- DeleteShareGroupOffsets ---- */

/* A topic's partitions share its error code: the first error wins. */
static void on_deleted(void *opaque, gr_kerr_t err)
{
    part_call_t *c = opaque;
    if (c->op->req && err && !*c->error_code)
        *c->error_code = err;
    call_free(c);
}

static void delete_topic(offsets_op_t *op, gr_str_t group, gr_str_t name, delete_topic_t *out)
{
    gr_broker_t *b = op->b;
    gr_delete_share_group_offsets_response_delete_share_group_offsets_response_topic_init(out);
    out->topic_name = name;
    out->error_message = gr_str(NULL);
    if (!gr_authorize_str(b, op->req->session, GR_ACL_OPERATION_READ, GR_ACL_RESOURCE_TYPE_TOPIC,
                          name)) {
        out->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        return;
    }
    gr_topic_t *t = topic_find(b, name);
    if (!t) {
        out->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    out->topic_id = t->id;
    for (int32_t k = 0; k < t->partition_count; k++) {
        part_call_t *c = call_new(op, group, t, k, &out->error_code);
        if (!c) {
            out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
            return;
        }
        int rc = gr_share_persister_delete(b->share_persister, &c->key, on_deleted, c);
        if (rc)
            call_refused(c, rc);
    }
}

void gr_handle_delete_share_group_offsets(gr_broker_t *b, gr_request_t *req)
{
    gr_delete_share_group_offsets_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_delete_share_group_offsets_response_t *resp = gr_request_alloc(req, sizeof *resp);
    if (!resp) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_delete_share_group_offsets_response_init(resp);
    resp->error_message = gr_str(NULL);
    resp->error_code = offsets_change_error(b, req, GR_ACL_OPERATION_DELETE, in.group_id);
    resp->responses = gr_request_alloc_array(req, resp->error_code ? 0 : in.topics_count,
                                             sizeof *resp->responses);
    if (!resp->responses) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (resp->error_code) {
        gr_request_respond(req, resp);
        return;
    }
    offsets_op_t *op = op_start(b, req, resp);
    if (!op)
        return;
    resp->responses_count = in.topics_count;
    for (int32_t i = 0; i < in.topics_count; i++)
        delete_topic(op, in.group_id, in.topics[i].topic_name, &resp->responses[i]);
    op_finish_one(op);
}
