/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share coordinator's RPCs (KIP-932), sent by partition leaders and
 * group coordinators (share/share_persister.h), never by clients:
 * InitializeShareGroupState (83), ReadShareGroupState (84),
 * WriteShareGroupState (85), DeleteShareGroupState (86) and
 * ReadShareGroupStateSummary (87). Each needs CLUSTER_ACTION on the cluster
 * (else every partition is CLUSTER_AUTHORIZATION_FAILED, as Kafka answers),
 * then answers each partition from share/share_coordinator.h: its routing
 * errors (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 * COORDINATOR_NOT_AVAILABLE), INVALID_REQUEST, the fencing errors; an
 * unknown topic id or partition is UNKNOWN_TOPIC_OR_PARTITION for reads
 * and writes, as Kafka checks its metadata image.
 *
 * Initialize, Write and Delete answer once every record they appended is
 * on its __share_group_state partition's ISR (handlers/isr_wait.h, at most
 * share.coordinator.write.timeout.ms); leadership lost meanwhile is
 * NOT_COORDINATOR, a short ISR or the timeout COORDINATOR_NOT_AVAILABLE
 * (the persister retries both).
 *
 * Runs on: loop thread.
 */
#include <string.h>

#include "core/context.h"
#include "gen/delete_share_group_state.h"
#include "gen/initialize_share_group_state.h"
#include "gen/read_share_group_state.h"
#include "gen/read_share_group_state_summary.h"
#include "gen/write_share_group_state.h"
#include "handlers/handlers.h"
#include "handlers/isr_wait.h"
#include "handlers/request.h"
#include "protocol/arena.h"
#include "metadata/topics.h"
#include "security/authorizer.h"
#include "share/share_coordinator.h"

/* A writing RPC waiting for the ISR: the response and where each partition's code goes. */
typedef struct state_write_op {
    gr_request_t *req;
    const void *resp;
    gr_isr_wait_t isr_wait;
} state_write_op_t;

static gr_str_t message_of(gr_kerr_t err)
{
    return err ? gr_str(gr_kerr_name(err)) : (gr_str_t){NULL, GR_NULL_LEN};
}

/* The routing error every partition gets without a coordinator or the ACL, else NONE. */
static gr_kerr_t request_error(gr_broker_t *b, gr_request_t *req)
{
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_CLUSTER_ACTION))
        return GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
    return b->share_coordinator ? GR_KERR_NONE : GR_KERR_COORDINATOR_NOT_AVAILABLE;
}

/* Kafka's metadata check of a read or write: the topic and partition exist here. */
static gr_kerr_t partition_known(gr_broker_t *b, gr_uuid_t topic_id, int32_t partition)
{
    gr_topic_t *t = gr_topics_find_id(b->topics, topic_id);
    return t && gr_topic_partition(t, partition) ? GR_KERR_NONE
                                                 : GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
}

/*
 * The key of one partition. A group id holding a NUL byte gets a NULL
 * group_id (INVALID_REQUEST): cut at the NUL it would name, and write,
 * another group's state.
 */
static gr_share_key_t key_of(gr_request_t *req, gr_str_t group, gr_uuid_t topic_id,
                             int32_t partition)
{
    size_t len = group.len > 0 ? (size_t)group.len : 0;
    const char *text = len ? group.ptr : "";
    char *g = memchr(text, '\0', len) ? NULL : gr_arena_strndup(req->arena, text, len);
    return (gr_share_key_t){.group_id = g, .topic_id = topic_id, .partition = partition};
}

/* Where one partition's answer goes. */
typedef struct result_ref {
    int16_t *code;
    gr_str_t *message;
} result_ref_t;

static void set_error(result_ref_t r, gr_kerr_t err)
{
    *r.code = err;
    *r.message = message_of(err);
}

/* --- waiting for the ISR ------------------------------------------------------------------ */

static void write_respond(void *opaque)
{
    state_write_op_t *op = opaque;
    gr_request_respond(op->req, op->resp);
}

static void write_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    state_write_op_t *op = arg;
    gr_isr_wait_cancel(&op->isr_wait);
}

/* A partition's record did not reach the ISR: a code the persister retries on. */
static void write_settle(void *opaque, gr_kerr_t err)
{
    result_ref_t *r = opaque;
    set_error(*r, err == GR_KERR_NOT_LEADER_OR_FOLLOWER ? GR_KERR_NOT_COORDINATOR
                                                        : GR_KERR_COORDINATOR_NOT_AVAILABLE);
}

/* Sets a partition's outcome; a record appended (end > 0) is waited for. */
static int write_outcome(gr_broker_t *b, state_write_op_t *op, gr_kerr_t err, int32_t partition,
                         int64_t end, result_ref_t r)
{
    set_error(r, err);
    gr_partition_t *p = err || end <= 0
                            ? NULL
                            : gr_share_coordinator_led_partition(b->share_coordinator, partition);
    if (!p)
        return 0;
    result_ref_t *ref = gr_request_alloc(op->req, sizeof *ref);
    if (!ref)
        return -1;
    *ref = r;
    gr_isr_wait_add(&op->isr_wait, p, end, p->topic->settings.min_insync_replicas, write_settle,
                    ref);
    return 0;
}

/* An op for a writing RPC of `partitions` partitions; NULL: the request failed (out of memory). */
static state_write_op_t *write_op_new(gr_broker_t *b, gr_request_t *req, const void *resp,
                                      int64_t partitions)
{
    state_write_op_t *op = gr_request_alloc(req, sizeof *op);
    int32_t cap = partitions > INT32_MAX ? INT32_MAX : (int32_t)(partitions > 0 ? partitions : 1);
    if (!op || gr_isr_wait_init(&op->isr_wait, b, req, cap,
                                b->config.share_coordinator_write_timeout_ms, write_respond, op)) {
        gr_request_fail(req, "out of memory");
        return NULL;
    }
    op->req = req;
    op->resp = resp;
    return op;
}

/* Answers now, or once the ISR has every record. */
static void write_finish(state_write_op_t *op)
{
    if (op->isr_wait.pending > 0)
        gr_resp_slot_defer(op->req->slot, write_cancel, op);
    else
        write_respond(op);
}

/* The slot is still ours: no cancel runs, so the waits end here. */
static void write_fail(state_write_op_t *op)
{
    gr_isr_wait_cancel(&op->isr_wait);
    gr_request_fail(op->req, "out of memory");
}

/* --- InitializeShareGroupState (83) -------------------------------------------------------- */

typedef gr_initialize_share_group_state_response_partition_result_t init_result_t;

void gr_handle_initialize_share_group_state(gr_broker_t *b, gr_request_t *req)
{
    gr_initialize_share_group_state_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_initialize_share_group_state_response_t *resp = gr_request_alloc(req, sizeof *resp);
    int64_t total = 0;
    for (int32_t t = 0; t < in.topics_count; t++)
        total += in.topics[t].partitions_count;
    state_write_op_t *op = resp ? write_op_new(b, req, resp, total) : NULL;
    if (!op) {
        if (!resp)
            gr_request_fail(req, "out of memory");
        return;
    }
    gr_initialize_share_group_state_response_init(resp);
    resp->results = gr_request_alloc_array(req, in.topics_count, sizeof *resp->results);
    if (!resp->results)
        return write_fail(op);
    resp->results_count = in.topics_count;
    gr_kerr_t all = request_error(b, req);
    for (int32_t t = 0; t < in.topics_count; t++) {
        const gr_initialize_share_group_state_request_initialize_state_data_t *tin = &in.topics[t];
        gr_initialize_share_group_state_response_initialize_state_result_t *tout =
            &resp->results[t];
        tout->topic_id = tin->topic_id;
        tout->partitions =
            gr_request_alloc_array(req, tin->partitions_count, sizeof *tout->partitions);
        if (!tout->partitions)
            return write_fail(op);
        tout->partitions_count = tin->partitions_count;
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            const gr_initialize_share_group_state_request_partition_data_t *pin =
                &tin->partitions[i];
            init_result_t *pout = &tout->partitions[i];
            gr_initialize_share_group_state_response_partition_result_init(pout);
            pout->partition = pin->partition;
            gr_share_key_t key = key_of(req, in.group_id, tin->topic_id, pin->partition);
            int32_t partition = -1;
            int64_t end = 0;
            gr_kerr_t err = all;
            if (!err)
                err = gr_share_coordinator_initialize(b->share_coordinator, &key, pin->state_epoch,
                                                      pin->start_offset, &partition, &end);
            if (write_outcome(b, op, err, partition, end,
                              (result_ref_t){&pout->error_code, &pout->error_message}))
                return write_fail(op);
        }
    }
    write_finish(op);
}

/* --- WriteShareGroupState (85) ------------------------------------------------------------- */

typedef gr_write_share_group_state_request_partition_data_t write_part_t;

/* One partition's write. */
static gr_kerr_t write_partition(gr_broker_t *b, gr_request_t *req, gr_str_t group,
                                 gr_uuid_t topic_id, const write_part_t *pin, int32_t *partition,
                                 int64_t *end)
{
    gr_kerr_t err = partition_known(b, topic_id, pin->partition);
    if (err)
        return err;
    gr_share_state_batch_t *batches =
        gr_request_alloc_array(req, pin->state_batches_count, sizeof *batches);
    if (!batches)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (int32_t k = 0; k < pin->state_batches_count; k++)
        batches[k] = (gr_share_state_batch_t){
            pin->state_batches[k].first_offset, pin->state_batches[k].last_offset,
            pin->state_batches[k].delivery_state, pin->state_batches[k].delivery_count};
    gr_share_state_t state = {.state_epoch = pin->state_epoch,
                              .leader_epoch = pin->leader_epoch,
                              .start_offset = pin->start_offset,
                              .batches = batches,
                              .batch_count = pin->state_batches_count};
    gr_share_key_t key = key_of(req, group, topic_id, pin->partition);
    return gr_share_coordinator_write(b->share_coordinator, &key, &state,
                                      pin->delivery_complete_count, partition, end);
}

void gr_handle_write_share_group_state(gr_broker_t *b, gr_request_t *req)
{
    gr_write_share_group_state_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_write_share_group_state_response_t *resp = gr_request_alloc(req, sizeof *resp);
    int64_t total = 0;
    for (int32_t t = 0; t < in.topics_count; t++)
        total += in.topics[t].partitions_count;
    state_write_op_t *op = resp ? write_op_new(b, req, resp, total) : NULL;
    if (!op) {
        if (!resp)
            gr_request_fail(req, "out of memory");
        return;
    }
    gr_write_share_group_state_response_init(resp);
    resp->results = gr_request_alloc_array(req, in.topics_count, sizeof *resp->results);
    if (!resp->results)
        return write_fail(op);
    resp->results_count = in.topics_count;
    gr_kerr_t all = request_error(b, req);
    for (int32_t t = 0; t < in.topics_count; t++) {
        const gr_write_share_group_state_request_write_state_data_t *tin = &in.topics[t];
        gr_write_share_group_state_response_write_state_result_t *tout = &resp->results[t];
        tout->topic_id = tin->topic_id;
        tout->partitions =
            gr_request_alloc_array(req, tin->partitions_count, sizeof *tout->partitions);
        if (!tout->partitions)
            return write_fail(op);
        tout->partitions_count = tin->partitions_count;
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            gr_write_share_group_state_response_partition_result_t *pout = &tout->partitions[i];
            gr_write_share_group_state_response_partition_result_init(pout);
            pout->partition = tin->partitions[i].partition;
            int32_t partition = -1;
            int64_t end = 0;
            gr_kerr_t err = all ? all
                                : write_partition(b, req, in.group_id, tin->topic_id,
                                                  &tin->partitions[i], &partition, &end);
            if (write_outcome(b, op, err, partition, end,
                              (result_ref_t){&pout->error_code, &pout->error_message}))
                return write_fail(op);
        }
    }
    write_finish(op);
}

/* --- DeleteShareGroupState (86) ------------------------------------------------------------ */

void gr_handle_delete_share_group_state(gr_broker_t *b, gr_request_t *req)
{
    gr_delete_share_group_state_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_delete_share_group_state_response_t *resp = gr_request_alloc(req, sizeof *resp);
    int64_t total = 0;
    for (int32_t t = 0; t < in.topics_count; t++)
        total += in.topics[t].partitions_count;
    state_write_op_t *op = resp ? write_op_new(b, req, resp, total) : NULL;
    if (!op) {
        if (!resp)
            gr_request_fail(req, "out of memory");
        return;
    }
    gr_delete_share_group_state_response_init(resp);
    resp->results = gr_request_alloc_array(req, in.topics_count, sizeof *resp->results);
    if (!resp->results)
        return write_fail(op);
    resp->results_count = in.topics_count;
    gr_kerr_t all = request_error(b, req);
    for (int32_t t = 0; t < in.topics_count; t++) {
        const gr_delete_share_group_state_request_delete_state_data_t *tin = &in.topics[t];
        gr_delete_share_group_state_response_delete_state_result_t *tout = &resp->results[t];
        tout->topic_id = tin->topic_id;
        tout->partitions =
            gr_request_alloc_array(req, tin->partitions_count, sizeof *tout->partitions);
        if (!tout->partitions)
            return write_fail(op);
        tout->partitions_count = tin->partitions_count;
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            gr_delete_share_group_state_response_partition_result_t *pout = &tout->partitions[i];
            gr_delete_share_group_state_response_partition_result_init(pout);
            pout->partition = tin->partitions[i].partition;
            gr_share_key_t key = key_of(req, in.group_id, tin->topic_id, pout->partition);
            int32_t partition = -1;
            int64_t end = 0;
            gr_kerr_t err =
                all ? all
                    : gr_share_coordinator_delete(b->share_coordinator, &key, &partition, &end);
            if (write_outcome(b, op, err, partition, end,
                              (result_ref_t){&pout->error_code, &pout->error_message}))
                return write_fail(op);
        }
    }
    write_finish(op);
}

/* --- ReadShareGroupState (84) --------------------------------------------------------------- */

typedef gr_read_share_group_state_response_partition_result_t read_result_t;

/* One partition's read into pout (its batches copied into the request's arena). */
static int read_partition(gr_broker_t *b, gr_request_t *req, gr_str_t group, gr_uuid_t topic_id,
                          int32_t leader_epoch, read_result_t *pout)
{
    gr_share_key_t key = key_of(req, group, topic_id, pout->partition);
    gr_share_state_t state;
    gr_kerr_t err = partition_known(b, topic_id, pout->partition);
    if (!err)
        err = gr_share_coordinator_read(b->share_coordinator, &key, leader_epoch, &state);
    set_error((result_ref_t){&pout->error_code, &pout->error_message}, err);
    if (err)
        return 0;
    pout->state_epoch = state.state_epoch;
    pout->start_offset = state.start_offset;
    pout->state_batches =
        gr_request_alloc_array(req, state.batch_count, sizeof *pout->state_batches);
    if (!pout->state_batches)
        return -1;
    pout->state_batches_count = state.batch_count;
    for (int32_t k = 0; k < state.batch_count; k++) {
        pout->state_batches[k].first_offset = state.batches[k].first_offset;
        pout->state_batches[k].last_offset = state.batches[k].last_offset;
        pout->state_batches[k].delivery_state = state.batches[k].state;
        pout->state_batches[k].delivery_count = state.batches[k].delivery_count;
    }
    return 0;
}

void gr_handle_read_share_group_state(gr_broker_t *b, gr_request_t *req)
{
    gr_read_share_group_state_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_read_share_group_state_response_t resp;
    gr_read_share_group_state_response_init(&resp);
    resp.results = gr_request_alloc_array(req, in.topics_count, sizeof *resp.results);
    if (!resp.results)
        return gr_request_fail(req, "out of memory");
    resp.results_count = in.topics_count;
    gr_kerr_t all = request_error(b, req);
    for (int32_t t = 0; t < in.topics_count; t++) {
        const gr_read_share_group_state_request_read_state_data_t *tin = &in.topics[t];
        gr_read_share_group_state_response_read_state_result_t *tout = &resp.results[t];
        tout->topic_id = tin->topic_id;
        tout->partitions =
            gr_request_alloc_array(req, tin->partitions_count, sizeof *tout->partitions);
        if (!tout->partitions)
            return gr_request_fail(req, "out of memory");
        tout->partitions_count = tin->partitions_count;
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            read_result_t *pout = &tout->partitions[i];
            gr_read_share_group_state_response_partition_result_init(pout);
            pout->partition = tin->partitions[i].partition;
            if (all)
                set_error((result_ref_t){&pout->error_code, &pout->error_message}, all);
            else if (read_partition(b, req, in.group_id, tin->topic_id,
                                    tin->partitions[i].leader_epoch, pout))
                return gr_request_fail(req, "out of memory");
        }
    }
    gr_request_respond(req, &resp);
}

/* --- ReadShareGroupStateSummary (87) --------------------------------------------------------- */

typedef gr_read_share_group_state_summary_response_partition_result_t summary_result_t;

static void summary_partition(gr_broker_t *b, gr_request_t *req, gr_str_t group, gr_uuid_t topic_id,
                              int32_t leader_epoch, summary_result_t *pout)
{
    gr_share_key_t key = key_of(req, group, topic_id, pout->partition);
    gr_share_summary_t s;
    gr_kerr_t err = partition_known(b, topic_id, pout->partition);
    if (!err)
        err = gr_share_coordinator_read_summary(b->share_coordinator, &key, leader_epoch, &s);
    set_error((result_ref_t){&pout->error_code, &pout->error_message}, err);
    if (err)
        return;
    pout->state_epoch = s.state_epoch;
    pout->leader_epoch = s.leader_epoch;
    pout->start_offset = s.start_offset;
    pout->delivery_complete_count = s.delivery_complete_count;
}

void gr_handle_read_share_group_state_summary(gr_broker_t *b, gr_request_t *req)
{
    gr_read_share_group_state_summary_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_read_share_group_state_summary_response_t resp;
    gr_read_share_group_state_summary_response_init(&resp);
    resp.results = gr_request_alloc_array(req, in.topics_count, sizeof *resp.results);
    if (!resp.results)
        return gr_request_fail(req, "out of memory");
    resp.results_count = in.topics_count;
    gr_kerr_t all = request_error(b, req);
    for (int32_t t = 0; t < in.topics_count; t++) {
        const gr_read_share_group_state_summary_request_read_state_summary_data_t *tin =
            &in.topics[t];
        gr_read_share_group_state_summary_response_read_state_summary_result_t *tout =
            &resp.results[t];
        tout->topic_id = tin->topic_id;
        tout->partitions =
            gr_request_alloc_array(req, tin->partitions_count, sizeof *tout->partitions);
        if (!tout->partitions)
            return gr_request_fail(req, "out of memory");
        tout->partitions_count = tin->partitions_count;
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            summary_result_t *pout = &tout->partitions[i];
            gr_read_share_group_state_summary_response_partition_result_init(pout);
            pout->partition = tin->partitions[i].partition;
            if (all)
                set_error((result_ref_t){&pout->error_code, &pout->error_message}, all);
            else
                summary_partition(b, req, in.group_id, tin->topic_id,
                                  tin->partitions[i].leader_epoch, pout);
        }
    }
    gr_request_respond(req, &resp);
}
