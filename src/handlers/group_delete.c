/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DeleteGroups (v0-2): each group named, once DELETE on it is allowed
 * (GROUP_AUTHORIZATION_FAILED) and this broker coordinates it, is deleted
 * if it is Empty (NON_EMPTY_GROUP otherwise, GROUP_ID_NOT_FOUND when there
 * is none): its offsets and group records get tombstones.
 *
 * A share group first has the durable state of its share-partitions (every
 * partition it was ever assigned, sgroup.h's initialized set) deleted from
 * the share coordinator through the persister (share/share_persister.h),
 * one DeleteShareGroupState per partition, as Kafka's coordinator does
 * before it writes the tombstones; should one fail, the group stays and
 * its result is that error, so a retry deletes the rest. Meanwhile the
 * request waits (its slot deferred); a member joining in between makes the
 * group NON_EMPTY_GROUP when the deletes come back. A connection closing
 * first cancels the calls still pending.
 *
 * Runs on: loop thread.
 */
#include "core/context.h"
#include "gen/delete_groups.h"
#include "group/coordinator.h"
#include "group/sgroup.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "net/conn.h"
#include "security/authorizer.h"
#include "share/share_persister.h"

typedef struct delete_op delete_op_t;

/* One share group's state deletes in flight (their callbacks' opaque). */
typedef struct pending_group {
    delete_op_t *op;
    gr_delete_groups_response_deletable_group_result_t *result;
    int32_t calls;   /* persister deletes not yet back */
    gr_kerr_t error; /* the first that failed */
} pending_group_t;

struct delete_op {
    gr_broker_t *b;
    gr_request_t *req;
    gr_delete_groups_response_t resp;
    pending_group_t *groups; /* one per group named (calls 0: nothing pending) */
    int32_t waiting;         /* groups with calls pending */
    bool deferred;
};

/* Kafka's validateDeleteGroup: the group to delete, or NULL with the error. */
static gr_group_t *deletable(gr_broker_t *b, gr_str_t id, gr_kerr_t *err)
{
    int32_t partition;
    if ((*err = gr_coordinator_check(b->groups, id, &partition)))
        return NULL;
    gr_group_t *g = gr_coordinator_find(b->groups, id);
    if (!g || g->state == GR_GROUP_DEAD) {
        *err = GR_KERR_GROUP_ID_NOT_FOUND;
        return NULL;
    }
    /* A group of any kind must be Empty (a consumer or share group's classic
     * state is Empty exactly when it has no member). */
    if (g->state != GR_GROUP_EMPTY) {
        *err = GR_KERR_NON_EMPTY_GROUP;
        return NULL;
    }
    return g;
}

static void op_finish(delete_op_t *op)
{
    gr_request_respond(op->req, &op->resp);
}

/* A share group's last state delete came back: the group goes unless one failed. */
static void group_done(pending_group_t *pg)
{
    delete_op_t *op = pg->op;
    gr_kerr_t err = pg->error;
    gr_group_t *g = err ? NULL : deletable(op->b, pg->result->group_id, &err);
    pg->result->error_code = g ? gr_coordinator_delete_group(op->b->groups, g) : err;
    if (--op->waiting == 0 && op->deferred)
        op_finish(op);
}

static void state_deleted(void *opaque, gr_kerr_t err)
{
    pending_group_t *pg = opaque;
    if (err && !pg->error)
        pg->error = err;
    if (--pg->calls == 0)
        group_done(pg);
}

static void op_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    delete_op_t *op = arg;
    for (int32_t i = 0; i < op->resp.results_count; i++)
        if (op->groups[i].calls > 0)
            (void)gr_share_persister_cancel(op->b->share_persister, &op->groups[i]);
}

/* Sends the deletes of sg's share-partition states; how many are pending (0: none to send). */
static int32_t delete_states(delete_op_t *op, pending_group_t *pg, const gr_sgroup_t *sg)
{
    const gr_assignment_t *set = &sg->initialized;
    for (int32_t t = 0; t < set->topic_count; t++)
        for (int32_t i = 0; i < set->topics[t].partition_count; i++) {
            gr_share_key_t key = {sg->group->key.id, set->topics[t].topic_id,
                                  set->topics[t].partitions[i]};
            if (gr_share_persister_delete(op->b->share_persister, &key, state_deleted, pg) < 0) {
                pg->error = GR_KERR_UNKNOWN_SERVER_ERROR; /* the ones sent still come back */
                return pg->calls;
            }
            pg->calls++;
        }
    return pg->calls;
}

static void delete_one(delete_op_t *op, int32_t i)
{
    gr_delete_groups_response_deletable_group_result_t *r = &op->resp.results[i];
    gr_kerr_t err;
    if (!gr_authorize_str(op->b, op->req->session, GR_ACL_OPERATION_DELETE,
                          GR_ACL_RESOURCE_TYPE_GROUP, r->group_id)) {
        r->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        return;
    }
    gr_group_t *g = deletable(op->b, r->group_id, &err);
    if (!g) {
        r->error_code = err;
        return;
    }
    pending_group_t *pg = &op->groups[i];
    *pg = (pending_group_t){.op = op, .result = r};
    if (g->share && op->b->share_persister && delete_states(op, pg, g->share) > 0) {
        op->waiting++;
        return;
    }
    r->error_code = pg->error ? pg->error : gr_coordinator_delete_group(op->b->groups, g);
}

void gr_handle_delete_groups(gr_broker_t *b, gr_request_t *req)
{
    gr_delete_groups_request_t in;
    if (gr_request_decode(req, &in))
        return;
    delete_op_t *op = gr_request_alloc(req, sizeof(*op));
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    *op = (delete_op_t){.b = b, .req = req};
    gr_delete_groups_response_init(&op->resp);
    int32_t n = in.groups_names_count;
    op->resp.results = gr_request_alloc_array(req, n, sizeof(*op->resp.results));
    op->groups = gr_request_alloc_array(req, n, sizeof(*op->groups));
    if (!op->resp.results || !op->groups) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->resp.results_count = n;
    for (int32_t i = 0; i < n; i++) {
        gr_delete_groups_response_deletable_group_result_init(&op->resp.results[i]);
        op->resp.results[i].group_id = in.groups_names[i];
        op->groups[i] = (pending_group_t){0};
    }
    for (int32_t i = 0; i < n; i++)
        delete_one(op, i);
    if (op->waiting == 0) {
        op_finish(op);
        return;
    }
    /* Persister callbacks never run inside the calls that queued them. */
    op->deferred = true;
    gr_resp_slot_defer(req->slot, op_cancel, op);
}
