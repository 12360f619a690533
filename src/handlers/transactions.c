/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transactional producer's requests to its transaction coordinator:
 * AddPartitionsToTxn (v0-5; from v4 several transactions per request and
 * the brokers' verify-only form, KIP-890), AddOffsetsToTxn (v0-4) and EndTxn
 * (v0-4). The coordinator (txn/) decides; this file decodes, checks the
 * partitions exist, waits for the coordinator's answer and encodes it.
 *
 * AddPartitionsToTxn with a partition this broker does not know answers it
 * UNKNOWN_TOPIC_OR_PARTITION and the others OPERATION_NOT_ATTEMPTED, as
 * Kafka does. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH for clients older
 * than KIP-588 (AddPartitionsToTxn, AddOffsetsToTxn and EndTxn before v2).
 *
 * Runs on: loop thread.
 */
#include <string.h>

#include "core/context.h"
#include "gen/add_offsets_to_txn.h"
#include "gen/add_partitions_to_txn.h"
#include "gen/end_txn.h"
#include "group/coordinator.h"
#include "coordinator/hash.h"
#include "security/authorizer.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "metadata/topics.h"
#include "txn/txn_coordinator.h"

#define PRODUCER_FENCED_MIN_VERSION 2
#define BATCHED_MIN_VERSION         4

static gr_kerr_t fenced_for(const gr_request_t *req, gr_kerr_t err)
{
    if (err == GR_KERR_PRODUCER_FENCED && req->api_version < PRODUCER_FENCED_MIN_VERSION)
        return GR_KERR_INVALID_PRODUCER_EPOCH;
    return err;
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    gr_txn_waiter_cancel(arg);
}

/* --- AddPartitionsToTxn ---------------------------------------------------------- */

typedef gr_add_partitions_to_txn_request_add_partitions_to_txn_topic_t add_topic_t;
typedef gr_add_partitions_to_txn_response_add_partitions_to_txn_topic_result_t topic_result_t;
typedef gr_add_partitions_to_txn_response_add_partitions_to_txn_partition_result_t part_result_t;
typedef struct add_op add_op_t;

/* One transaction of the request. */
typedef struct add_entry {
    gr_txn_waiter_t wait; /* first: the wait is the entry */
    add_op_t *op;
    topic_result_t *results;
    int32_t result_count;
    bool waiting;
} add_entry_t;

struct add_op {
    gr_request_t *req;
    gr_add_partitions_to_txn_response_t resp;
    add_entry_t *entries;
    int32_t entry_count;
    int32_t waiting;
};

static void set_all(add_entry_t *e, gr_kerr_t err)
{
    for (int32_t t = 0; t < e->result_count; t++)
        for (int32_t p = 0; p < e->results[t].results_by_partition_count; p++)
            e->results[t].results_by_partition[p].partition_error_code = err;
}

/* The results for topics, every partition NONE; false when out of memory. */
static bool results_for(gr_request_t *req, add_entry_t *e, const add_topic_t *topics, int32_t count)
{
    e->results = gr_request_alloc_array(req, count, sizeof *e->results);
    if (!e->results)
        return false;
    e->result_count = count;
    for (int32_t t = 0; t < count; t++) {
        topic_result_t *r = &e->results[t];
        r->name = topics[t].name;
        r->results_by_partition = gr_request_alloc_array(req, topics[t].partitions_count,
                                                         sizeof *r->results_by_partition);
        if (!r->results_by_partition)
            return false;
        r->results_by_partition_count = topics[t].partitions_count;
        for (int32_t p = 0; p < topics[t].partitions_count; p++)
            r->results_by_partition[p].partition_index = topics[t].partitions[p];
    }
    return true;
}

/* Marks partitions this broker does not know; true if there was one. */
static bool unknown_partitions(gr_broker_t *b, add_entry_t *e)
{
    bool any = false;
    for (int32_t t = 0; t < e->result_count; t++) {
        topic_result_t *r = &e->results[t];
        gr_topic_t *topic =
            r->name.len > 0 ? gr_topics_find(b->topics, r->name.ptr, (size_t)r->name.len) : NULL;
        for (int32_t p = 0; p < r->results_by_partition_count; p++) {
            part_result_t *pr = &r->results_by_partition[p];
            bool known = topic && gr_topic_partition(topic, pr->partition_index);
            pr->partition_error_code = known ? GR_KERR_NONE : GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
            any |= !known;
        }
    }
    if (any)
        for (int32_t t = 0; t < e->result_count; t++)
            for (int32_t p = 0; p < e->results[t].results_by_partition_count; p++)
                if (!e->results[t].results_by_partition[p].partition_error_code)
                    e->results[t].results_by_partition[p].partition_error_code =
                        GR_KERR_OPERATION_NOT_ATTEMPTED;
    return any;
}

/*
 * Kafka's checks: WRITE on the transactional id (else every partition says
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then WRITE on each topic (refused
 * ones say TOPIC_AUTHORIZATION_FAILED, the rest OPERATION_NOT_ATTEMPTED).
 * Returns whether anything was refused.
 */
static bool unauthorized_partitions(gr_broker_t *b, add_entry_t *e, gr_str_t id)
{
    const gr_session_t *session = e->op->req->session;
    if (!gr_authorize_str(b, session, GR_ACL_OPERATION_WRITE, GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID,
                          id)) {
        set_all(e, GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        return true;
    }
    bool any = false;
    for (int32_t t = 0; t < e->result_count; t++)
        if (!gr_authorize_str(b, session, GR_ACL_OPERATION_WRITE, GR_ACL_RESOURCE_TYPE_TOPIC,
                              e->results[t].name)) {
            any = true;
            for (int32_t p = 0; p < e->results[t].results_by_partition_count; p++)
                e->results[t].results_by_partition[p].partition_error_code =
                    GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        }
    for (int32_t t = 0; any && t < e->result_count; t++)
        for (int32_t p = 0; p < e->results[t].results_by_partition_count; p++)
            if (!e->results[t].results_by_partition[p].partition_error_code)
                e->results[t].results_by_partition[p].partition_error_code =
                    GR_KERR_OPERATION_NOT_ATTEMPTED;
    return any;
}

/* The partitions of an entry as the coordinator takes them (request arena). */
static gr_txn_part_ref_t *part_refs(gr_request_t *req, const add_entry_t *e, int32_t *count)
{
    int32_t n = 0;
    for (int32_t t = 0; t < e->result_count; t++)
        n += e->results[t].results_by_partition_count;
    gr_txn_part_ref_t *refs = gr_request_alloc_array(req, n, sizeof *refs);
    if (!refs)
        return NULL;
    *count = 0;
    for (int32_t t = 0; t < e->result_count; t++)
        for (int32_t p = 0; p < e->results[t].results_by_partition_count; p++)
            refs[(*count)++] = (gr_txn_part_ref_t){
                e->results[t].name, e->results[t].results_by_partition[p].partition_index};
    return refs;
}

static void add_finish(add_op_t *op)
{
    gr_request_respond(op->req, &op->resp);
}

static void on_added(gr_txn_waiter_t *w, gr_kerr_t err, int64_t producer_id, int16_t epoch)
{
    (void)producer_id;
    (void)epoch;
    add_entry_t *e = (add_entry_t *)w;
    set_all(e, fenced_for(e->op->req, err));
    if (e->waiting) {
        e->waiting = false;
        if (--e->op->waiting == 0)
            add_finish(e->op);
    }
}

static void add_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    add_op_t *op = arg;
    for (int32_t i = 0; i < op->entry_count; i++)
        gr_txn_waiter_cancel(&op->entries[i].wait);
}

/*
 * Ends a deferred request that ran out of memory half-started: entries
 * already waiting on their transaction let go first, since the failing slot
 * is completed, not cancelled, and add_cancel would never run.
 */
static void add_fail(add_op_t *op)
{
    add_cancel(NULL, op);
    gr_request_fail(op->req, "out of memory");
}

/* Starts one transaction's part of the request (answered at once or later). */
static void add_entry(gr_broker_t *b, add_entry_t *e, gr_str_t id, int64_t producer_id,
                      int16_t epoch, bool verify_only)
{
    if (unauthorized_partitions(b, e, id) || unknown_partitions(b, e))
        return;
    if (id.len <= 0) {
        set_all(e, GR_KERR_INVALID_REQUEST);
        return;
    }
    int32_t count = 0;
    gr_txn_part_ref_t *refs = part_refs(e->op->req, e, &count);
    if (!refs) {
        set_all(e, GR_KERR_UNKNOWN_SERVER_ERROR);
        return;
    }
    if (verify_only) {
        gr_kerr_t *errs = gr_request_alloc_array(e->op->req, count, sizeof *errs);
        if (!errs) {
            set_all(e, GR_KERR_UNKNOWN_SERVER_ERROR);
            return;
        }
        gr_txn_verify_partitions(b->txns, id, producer_id, epoch, refs, count,
                                 GR_KERR_INVALID_TXN_STATE, errs);
        for (int32_t i = 0, t = 0; t < e->result_count; t++)
            for (int32_t p = 0; p < e->results[t].results_by_partition_count; p++)
                e->results[t].results_by_partition[p].partition_error_code = errs[i++];
        return;
    }
    e->wait.done = on_added;
    e->waiting = true;
    e->op->waiting++;
    gr_txn_add_partitions(b->txns, id, producer_id, epoch, refs, count, &e->wait);
}

static bool add_op_init(gr_request_t *req, add_op_t *op, int32_t entries)
{
    op->req = req;
    gr_add_partitions_to_txn_response_init(&op->resp);
    op->entries = gr_request_alloc_array(req, entries, sizeof *op->entries);
    op->entry_count = entries;
    for (int32_t i = 0; op->entries && i < entries; i++)
        op->entries[i].op = op;
    return op->entries != NULL;
}

void gr_handle_add_partitions_to_txn(gr_broker_t *b, gr_request_t *req)
{
    gr_add_partitions_to_txn_request_t in;
    if (gr_request_decode(req, &in))
        return;
    add_op_t *op = gr_request_alloc(req, sizeof *op);
    bool batched = req->api_version >= BATCHED_MIN_VERSION;
    if (!op || !add_op_init(req, op, batched ? in.transactions_count : 1)) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_resp_slot_defer(req->slot, add_cancel, op);
    op->waiting = 1; /* held until every entry has started */
    if (!batched) {
        add_entry_t *e = &op->entries[0];
        if (!results_for(req, e, in.v3_and_below_topics, in.v3_and_below_topics_count)) {
            add_fail(op);
            return;
        }
        op->resp.results_by_topic_v3_and_below = e->results;
        op->resp.results_by_topic_v3_and_below_count = e->result_count;
        add_entry(b, e, in.v3_and_below_transactional_id, in.v3_and_below_producer_id,
                  in.v3_and_below_producer_epoch, false);
    } else {
        op->resp.results_by_transaction = gr_request_alloc_array(
            req, in.transactions_count, sizeof *op->resp.results_by_transaction);
        if (!op->resp.results_by_transaction) {
            add_fail(op);
            return;
        }
        op->resp.results_by_transaction_count = in.transactions_count;
        for (int32_t i = 0; i < in.transactions_count; i++) {
            const gr_add_partitions_to_txn_request_add_partitions_to_txn_transaction_t *t =
                &in.transactions[i];
            add_entry_t *e = &op->entries[i];
            if (!results_for(req, e, t->topics, t->topics_count)) {
                add_fail(op);
                return;
            }
            op->resp.results_by_transaction[i].transactional_id = t->transactional_id;
            op->resp.results_by_transaction[i].topic_results = e->results;
            op->resp.results_by_transaction[i].topic_results_count = e->result_count;
            add_entry(b, e, t->transactional_id, t->producer_id, t->producer_epoch, t->verify_only);
        }
    }
    if (--op->waiting == 0)
        add_finish(op);
}

/* --- AddOffsetsToTxn, EndTxn -------------------------------------------------------- */

typedef struct single_op {
    gr_txn_waiter_t wait; /* first: the wait is the op */
    gr_request_t *req;
} single_op_t;

static void on_offsets_added(gr_txn_waiter_t *w, gr_kerr_t err, int64_t producer_id, int16_t epoch)
{
    (void)producer_id;
    (void)epoch;
    single_op_t *op = (single_op_t *)w;
    gr_add_offsets_to_txn_response_t resp;
    gr_add_offsets_to_txn_response_init(&resp);
    resp.error_code = fenced_for(op->req, err);
    gr_request_respond(op->req, &resp);
}

static void on_ended(gr_txn_waiter_t *w, gr_kerr_t err, int64_t producer_id, int16_t epoch)
{
    (void)producer_id;
    (void)epoch;
    single_op_t *op = (single_op_t *)w;
    gr_end_txn_response_t resp;
    gr_end_txn_response_init(&resp);
    resp.error_code = fenced_for(op->req, err);
    gr_request_respond(op->req, &resp);
}

static single_op_t *single_op(gr_request_t *req, gr_txn_done_fn *done)
{
    single_op_t *op = gr_request_alloc(req, sizeof *op);
    if (!op) {
        gr_request_fail(req, "out of memory");
        return NULL;
    }
    op->req = req;
    op->wait.done = done;
    gr_resp_slot_defer(req->slot, on_cancel, &op->wait);
    return op;
}

/*
 * The __consumer_offsets partition of group: over the topic's partition
 * count, or offsets.topic.num.partitions before it exists (it is created
 * now, as FindCoordinator would).
 */
static int32_t offsets_partition(gr_broker_t *b, gr_str_t group)
{
    gr_topic_t *topic = gr_topics_find(b->topics, GR_OFFSETS_TOPIC, strlen(GR_OFFSETS_TOPIC));
    int32_t count = topic ? topic->partition_count : b->config.offsets_topic_num_partitions;
    if (!topic)
        (void)gr_coordinator_ensure_topic(b->groups);
    return gr_coordinator_partition_for(group.ptr, group.len > 0 ? (size_t)group.len : 0, count);
}

void gr_handle_add_offsets_to_txn(gr_broker_t *b, gr_request_t *req)
{
    gr_add_offsets_to_txn_request_t in;
    if (gr_request_decode(req, &in))
        return;
    single_op_t *op = single_op(req, on_offsets_added);
    if (!op)
        return;
    if (in.transactional_id.len <= 0 || in.group_id.len <= 0) {
        on_offsets_added(&op->wait, GR_KERR_INVALID_REQUEST, -1, -1);
        return;
    }
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_WRITE,
                          GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID, in.transactional_id)) {
        on_offsets_added(&op->wait, GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, -1);
        return;
    }
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ, GR_ACL_RESOURCE_TYPE_GROUP,
                          in.group_id)) {
        on_offsets_added(&op->wait, GR_KERR_GROUP_AUTHORIZATION_FAILED, -1, -1);
        return;
    }
    gr_txn_part_ref_t part = {gr_str(GR_OFFSETS_TOPIC), offsets_partition(b, in.group_id)};
    gr_txn_add_partitions(b->txns, in.transactional_id, in.producer_id, in.producer_epoch, &part, 1,
                          &op->wait);
}

void gr_handle_end_txn(gr_broker_t *b, gr_request_t *req)
{
    gr_end_txn_request_t in;
    if (gr_request_decode(req, &in))
        return;
    single_op_t *op = single_op(req, on_ended);
    if (!op)
        return;
    if (in.transactional_id.len <= 0) {
        on_ended(&op->wait, GR_KERR_INVALID_REQUEST, -1, -1);
        return;
    }
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_WRITE,
                          GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID, in.transactional_id)) {
        on_ended(&op->wait, GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, -1);
        return;
    }
    gr_txn_end(b->txns, in.transactional_id, in.producer_id, in.producer_epoch, in.committed,
               &op->wait);
}
