/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TxnOffsetCommit (v0-4): a transactional producer commits a group's
 * offsets inside its transaction (send_offsets_to_transaction). The
 * transaction coordinator has already added the group's __consumer_offsets
 * partition to the transaction (AddOffsetsToTxn); the offsets are written
 * there as one transactional batch of the producer and stay pending until
 * the transaction's marker (group/coordinator_txn.c).
 *
 * Checks, in Kafka 3.8's order: a partition of an unknown topic gets
 * UNKNOWN_TOPIC_OR_PARTITION; the rest get the group's error if any
 * (INVALID_GROUP_ID for an empty id, NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS — COORDINATOR_NOT_AVAILABLE before v2, whose
 * clients did not retry it — COORDINATOR_NOT_AVAILABLE; then the member
 * checks of gr_group_check_txn_commit), then OFFSET_METADATA_TOO_LARGE per
 * partition, then INVALID_PRODUCER_EPOCH when the log knows a newer epoch
 * of the producer. An unknown group is created (commit-only) before the
 * member checks, as Kafka does. The answer waits for the ISR, as
 * OffsetCommit's.
 *
 * Runs on: loop thread.
 */
#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/isr_wait.h"
#include "handlers/request.h"
#include "metadata/topics.h"
#include "group/coordinator.h"
#include "handlers/handlers.h"
#include "gen/txn_offset_commit.h"

/* Before v2, clients took COORDINATOR_LOAD_IN_PROGRESS as fatal (Kafka's KAFKA-7296). */
#define GR_TXN_OFFSET_COMMIT_LOADING_VERSION 2

/* A TxnOffsetCommit waiting for the ISR to have its batch. */
typedef struct txn_commit_op {
    gr_request_t *req;
    gr_txn_offset_commit_response_t resp;
    gr_offset_commit_t *commits;
    int32_t count;
    gr_isr_wait_t isr_wait;
} txn_commit_op_t;

static bool partition_exists(gr_broker_t *b, gr_str_t topic, int32_t partition)
{
    gr_topic_t *t = gr_topics_find(b->topics, topic.ptr, topic.len > 0 ? (size_t)topic.len : 0);
    return t && gr_topic_partition(t, partition) != NULL;
}

/* Allocates the response mirroring the request, and the commits; presets unknown partitions. */
static int txn_commit_prepare(gr_broker_t *b, gr_request_t *req,
                              const gr_txn_offset_commit_request_t *in, txn_commit_op_t *op)
{
    int32_t total = 0;
    for (int32_t t = 0; t < in->topics_count; t++)
        total += in->topics[t].partitions_count;
    op->commits = gr_request_alloc_array(req, total, sizeof(*op->commits));
    op->resp.topics = gr_request_alloc_array(req, in->topics_count, sizeof(*op->resp.topics));
    if (!op->commits || !op->resp.topics)
        return -1;
    for (int32_t t = 0; t < in->topics_count; t++) {
        const gr_txn_offset_commit_request_txn_offset_commit_request_topic_t *tin = &in->topics[t];
        gr_txn_offset_commit_response_txn_offset_commit_response_topic_t *tout =
            &op->resp.topics[op->resp.topics_count++];
        tout->name = tin->name;
        tout->partitions =
            gr_request_alloc_array(req, tin->partitions_count, sizeof(*tout->partitions));
        if (!tout->partitions)
            return -1;
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            const gr_txn_offset_commit_request_txn_offset_commit_request_partition_t *p =
                &tin->partitions[i];
            gr_txn_offset_commit_response_txn_offset_commit_response_partition_t *pout =
                &tout->partitions[tout->partitions_count++];
            pout->partition_index = p->partition_index;
            if (!partition_exists(b, tin->name, p->partition_index))
                pout->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
            op->commits[op->count++] =
                (gr_offset_commit_t){.topic = tin->name,
                                     .partition = p->partition_index,
                                     .offset = p->committed_offset,
                                     .leader_epoch = p->committed_leader_epoch,
                                     .metadata = p->committed_metadata,
                                     .expire_timestamp = -1,
                                     .error = &pout->error_code};
        }
    }
    return 0;
}

/* The group-level outcome: NONE lets the commit proceed into *group. */
static gr_kerr_t txn_commit_group(gr_broker_t *b, gr_request_t *req,
                                  const gr_txn_offset_commit_request_t *in, gr_group_t **group)
{
    if (in->group_id.len <= 0)
        return GR_KERR_INVALID_GROUP_ID;
    int32_t partition;
    gr_kerr_t err = gr_coordinator_check(b->groups, in->group_id, &partition);
    if (err == GR_KERR_COORDINATOR_LOAD_IN_PROGRESS &&
        req->api_version < GR_TXN_OFFSET_COMMIT_LOADING_VERSION)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    if (err)
        return err;
    gr_group_t *g = gr_coordinator_get_or_create(b->groups, in->group_id, partition);
    if (!g)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    *group = g;
    return gr_group_check_txn_commit(g, in->member_id, in->group_instance_id, in->generation_id);
}

static void txn_commit_respond(void *opaque)
{
    txn_commit_op_t *op = opaque;
    gr_request_respond(op->req, &op->resp);
}

/* Kafka's mapping of a failed replicated write to what a committer understands. */
static void txn_commit_settle(void *opaque, gr_kerr_t err)
{
    txn_commit_op_t *op = opaque;
    gr_kerr_t mapped = err == GR_KERR_NOT_LEADER_OR_FOLLOWER ? GR_KERR_NOT_COORDINATOR
                                                             : GR_KERR_COORDINATOR_NOT_AVAILABLE;
    for (int32_t i = 0; i < op->count; i++)
        if (!*op->commits[i].error)
            *op->commits[i].error = mapped;
}

static void txn_commit_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    txn_commit_op_t *op = arg;
    gr_isr_wait_cancel(&op->isr_wait);
}

/* Answers once the ISR has the batch (at once for a leader alone in its ISR). */
static void txn_commit_answer(gr_broker_t *b, txn_commit_op_t *op, int32_t partition, int64_t end)
{
    gr_partition_t *p = end > 0 ? gr_coordinator_led_partition(b->groups, partition) : NULL;
    if (p && gr_isr_wait_init(&op->isr_wait, b, op->req, 1, b->config.offsets_commit_timeout_ms,
                              txn_commit_respond, op) == 0) {
        gr_isr_wait_add(&op->isr_wait, p, end, p->topic->settings.min_insync_replicas,
                        txn_commit_settle, op);
        if (op->isr_wait.pending > 0) {
            gr_resp_slot_defer(op->req->slot, txn_commit_cancel, op);
            return;
        }
    }
    txn_commit_respond(op);
}

/* Sets err on every partition that has none yet. */
static void txn_commit_fail(txn_commit_op_t *op, gr_kerr_t err)
{
    for (int32_t i = 0; i < op->count; i++)
        if (!*op->commits[i].error)
            *op->commits[i].error = err;
}

void gr_handle_txn_offset_commit(gr_broker_t *b, gr_request_t *req)
{
    gr_txn_offset_commit_request_t in;
    if (gr_request_decode(req, &in))
        return;
    txn_commit_op_t *op = gr_request_alloc(req, sizeof *op);
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->req = req;
    op->count = 0;
    gr_txn_offset_commit_response_init(&op->resp);
    if (txn_commit_prepare(b, req, &in, op) < 0) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_group_t *g = NULL;
    int64_t end = 0;
    /* Kafka: WRITE on the transactional id, READ on the group, READ on each topic. */
    gr_kerr_t err = GR_KERR_NONE;
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_WRITE,
                          GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID, in.transactional_id))
        err = GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    else if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ, GR_ACL_RESOURCE_TYPE_GROUP,
                               in.group_id))
        err = GR_KERR_GROUP_AUTHORIZATION_FAILED;
    if (!err)
        err = txn_commit_group(b, req, &in, &g);
    for (int32_t i = 0; !err && i < op->count; i++)
        if (!*op->commits[i].error &&
            !gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ, GR_ACL_RESOURCE_TYPE_TOPIC,
                              op->commits[i].topic))
            *op->commits[i].error = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
    if (err) {
        txn_commit_fail(op, err);
    } else {
        for (int32_t i = 0; i < op->count; i++)
            if (!*op->commits[i].error &&
                op->commits[i].metadata.len > b->config.offset_metadata_max_bytes)
                *op->commits[i].error = GR_KERR_OFFSET_METADATA_TOO_LARGE;
        gr_coordinator_txn_commit(b->groups, g, in.producer_id, in.producer_epoch, op->commits,
                                  op->count, &end);
    }
    txn_commit_answer(b, op, g ? g->key.partition : -1, end);
}
