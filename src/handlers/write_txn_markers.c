/* SPDX-License-Identifier: Apache-2.0 */
/*
 * WriteTxnMarkers (API 27, v0-1): a transaction coordinator asks this
 * broker, as leader of the partitions named, to end producer transactions
 * with COMMIT or ABORT markers (KIP-98). Only coordinators send it, over
 * the inter-broker connections (to themselves too).
 *
 * Per marker and partition, in Kafka's order:
 *   unknown topic or partition           -> UNKNOWN_TOPIC_OR_PARTITION
 *   not led here                         -> NOT_LEADER_OR_FOLLOWER
 *   ISR below min.insync.replicas        -> NOT_ENOUGH_REPLICAS (appends
 *                                           with acks=-1, as Kafka's)
 *   marker epoch below the producer's    -> INVALID_PRODUCER_EPOCH
 *   coordinator epoch below the one last
 *   seen for the producer                -> TRANSACTION_COORDINATOR_FENCED
 * then the control batch is appended through the leader's path
 * (gr_partition_append: high watermark, waiting fetches), the broker's
 * on_txn_marker hook is told (the group coordinator settles pending
 * transactional offsets), and the partition is answered once the ISR has
 * the marker (handlers/isr_wait.h, as a produce with acks=-1): NONE,
 * NOT_ENOUGH_REPLICAS_AFTER_APPEND, NOT_LEADER_OR_FOLLOWER or
 * REQUEST_TIMED_OUT, all of which the coordinator retries. A marker for a
 * producer with no open transaction here is written all the same.
 *
 * One response answers the whole request, once every partition has settled.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/handlers.h"
#include "handlers/isr_wait.h"
#include "handlers/request.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "protocol/control_batch.h"
#include "protocol/writer.h"
#include "gen/write_txn_markers.h"

/* Kafka appends markers with its request.timeout.ms (default 30 s) as the ISR wait. */
#define TXN_MARKER_ISR_TIMEOUT_MS 30000

typedef gr_write_txn_markers_response_writable_txn_marker_partition_result_t part_result_t;

typedef struct markers_op {
    gr_broker_t *b;
    gr_request_t *req;
    gr_write_txn_markers_response_t resp;
    gr_isr_wait_t isr_wait;
} markers_op_t;

static void settle_partition(void *opaque, gr_kerr_t err)
{
    part_result_t *out = opaque;
    out->error_code = err;
}

/* Maps the producer state's verdict on a marker to the partition's answer. */
static gr_kerr_t marker_check_error(gr_producer_check_t check)
{
    switch (check) {
    case GR_PRODUCER_APPEND:
        return GR_KERR_NONE;
    case GR_PRODUCER_STALE_EPOCH:
        return GR_KERR_INVALID_PRODUCER_EPOCH;
    case GR_PRODUCER_COORDINATOR_FENCED:
        return GR_KERR_TRANSACTION_COORDINATOR_FENCED;
    case GR_PRODUCER_DUPLICATE:
    case GR_PRODUCER_OUT_OF_ORDER:
    case GR_PRODUCER_INVALID_TXN_STATE:
        break; /* data batches only */
    }
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

/* Appends the marker to p (led here) and waits for the ISR; out is answered then. */
static void write_marker(markers_op_t *op, gr_topic_t *topic, gr_partition_t *p,
                         const gr_write_txn_markers_request_writable_txn_marker_t *m,
                         part_result_t *out)
{
    gr_broker_t *b = op->b;
    int32_t isr = p->isr_count > 0 ? p->isr_count : 1; /* the leader at least */
    if (topic->settings.min_insync_replicas > isr) {
        out->error_code = GR_KERR_NOT_ENOUGH_REPLICAS;
        return;
    }
    gr_producer_check_t check = gr_producer_state_check_marker(
        gr_log_producer_state(p->log), m->producer_id, m->producer_epoch, m->coordinator_epoch);
    out->error_code = marker_check_error(check);
    if (out->error_code)
        return;
    int64_t now_ms = gr_broker_now_ms(b);
    gr_writer_t w;
    gr_writer_init(&w);
    int rc = gr_control_batch_build(&w, m->producer_id, m->producer_epoch, m->coordinator_epoch,
                                    m->transaction_result, now_ms);
    gr_log_append_info_t info;
    memset(&info, 0, sizeof info);
    if (rc == 0)
        rc = gr_partition_append(p, w.buf, w.len, now_ms, &info);
    gr_writer_fini(&w);
    if (rc && info.records == 0) {
        gr_logf(&b->log, GR_LOG_ERROR, "txn", "marker append to %s-%d failed: %s", topic->name,
                p->index, strerror(-rc));
        out->error_code = gr_kerr_from_errno(rc);
        return;
    }
    if (b->on_txn_marker)
        b->on_txn_marker(b, p, m->producer_id, m->transaction_result);
    if (rc) { /* appended, but not durable: the coordinator retries */
        out->error_code = gr_kerr_from_errno(rc);
        return;
    }
    gr_isr_wait_add(&op->isr_wait, p, info.last_offset + 1, topic->settings.min_insync_replicas,
                    settle_partition, out);
}

/* One marker's partitions of one topic. 0 or -ENOMEM. */
static int mark_topic(markers_op_t *op, const gr_write_txn_markers_request_writable_txn_marker_t *m,
                      const gr_write_txn_markers_request_writable_txn_marker_topic_t *tin,
                      gr_write_txn_markers_response_writable_txn_marker_topic_result_t *tout)
{
    gr_broker_t *b = op->b;
    gr_write_txn_markers_response_writable_txn_marker_topic_result_init(tout);
    tout->name = tin->name;
    int32_t n = tin->partition_indexes_count;
    tout->partitions = gr_request_alloc_array(op->req, n, sizeof(*tout->partitions));
    if (n > 0 && !tout->partitions)
        return -ENOMEM;
    tout->partitions_count = n;
    gr_topic_t *topic =
        tin->name.len > 0 ? gr_topics_find(b->topics, tin->name.ptr, (size_t)tin->name.len) : NULL;
    for (int32_t i = 0; i < n; i++) {
        part_result_t *out = &tout->partitions[i];
        gr_write_txn_markers_response_writable_txn_marker_partition_result_init(out);
        out->partition_index = tin->partition_indexes[i];
        gr_partition_t *p = topic ? gr_topic_partition(topic, out->partition_index) : NULL;
        out->error_code = gr_partition_serve_error(p, b->config.broker_id);
        if (!out->error_code)
            write_marker(op, topic, p, m, out);
    }
    return 0;
}

static void markers_finish(markers_op_t *op)
{
    if (op->isr_wait.pending > 0)
        return; /* the last ISR wait to end calls this again */
    gr_request_respond(op->req, &op->resp);
}

static void on_isr_wait_done(void *opaque)
{
    markers_finish(opaque);
}

static void markers_cancel(gr_resp_slot_t *slot, void *arg)
{
    markers_op_t *op = arg;
    (void)slot;
    gr_isr_wait_cancel(&op->isr_wait);
}

static int32_t count_partitions(const gr_write_txn_markers_request_t *in)
{
    int64_t n = 0;
    for (int32_t i = 0; i < in->markers_count; i++)
        for (int32_t t = 0; t < in->markers[i].topics_count; t++)
            n += in->markers[i].topics[t].partition_indexes_count;
    return n > INT32_MAX ? INT32_MAX : (int32_t)n;
}

typedef gr_write_txn_markers_response_writable_txn_marker_topic_result_t topic_result_t;

/* Kafka's answer without CLUSTER_ACTION: every partition refused, nothing written. */
static void refuse_markers(gr_request_t *req, const gr_write_txn_markers_request_t *in)
{
    gr_write_txn_markers_response_t resp;
    gr_write_txn_markers_response_init(&resp);
    resp.markers = gr_request_alloc_array(req, in->markers_count, sizeof(*resp.markers));
    for (int32_t i = 0; resp.markers && i < in->markers_count; i++) {
        const gr_write_txn_markers_request_writable_txn_marker_t *m = &in->markers[i];
        resp.markers[i].producer_id = m->producer_id;
        resp.markers[i].topics =
            gr_request_alloc_array(req, m->topics_count, sizeof(topic_result_t));
        if (!resp.markers[i].topics)
            return gr_request_fail(req, "out of memory");
        resp.markers[i].topics_count = m->topics_count;
        for (int32_t t = 0; t < m->topics_count; t++) {
            topic_result_t *out = &resp.markers[i].topics[t];
            int32_t n = m->topics[t].partition_indexes_count;
            out->name = m->topics[t].name;
            out->partitions = gr_request_alloc_array(req, n, sizeof(*out->partitions));
            if (!out->partitions)
                return gr_request_fail(req, "out of memory");
            out->partitions_count = n;
            for (int32_t k = 0; k < n; k++)
                out->partitions[k] =
                    (gr_write_txn_markers_response_writable_txn_marker_partition_result_t){
                        m->topics[t].partition_indexes[k], GR_KERR_CLUSTER_AUTHORIZATION_FAILED};
        }
    }
    if (!resp.markers)
        return gr_request_fail(req, "out of memory");
    resp.markers_count = in->markers_count;
    gr_request_respond(req, &resp);
}

void gr_handle_write_txn_markers(gr_broker_t *b, gr_request_t *req)
{
    gr_write_txn_markers_request_t in;
    if (gr_request_decode(req, &in))
        return;
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_CLUSTER_ACTION))
        return refuse_markers(req, &in);
    markers_op_t *op = gr_request_alloc(req, sizeof(*op));
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->b = b;
    op->req = req;
    gr_write_txn_markers_response_init(&op->resp);
    op->resp.markers = gr_request_alloc_array(req, in.markers_count, sizeof(*op->resp.markers));
    if ((in.markers_count > 0 && !op->resp.markers) ||
        gr_isr_wait_init(&op->isr_wait, b, req, count_partitions(&in), TXN_MARKER_ISR_TIMEOUT_MS,
                         on_isr_wait_done, op)) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->resp.markers_count = in.markers_count;
    for (int32_t i = 0; i < in.markers_count; i++) {
        const gr_write_txn_markers_request_writable_txn_marker_t *m = &in.markers[i];
        gr_write_txn_markers_response_writable_txn_marker_result_t *mout = &op->resp.markers[i];
        gr_write_txn_markers_response_writable_txn_marker_result_init(mout);
        mout->producer_id = m->producer_id;
        mout->topics = gr_request_alloc_array(req, m->topics_count, sizeof(*mout->topics));
        if (m->topics_count > 0 && !mout->topics)
            goto oom;
        mout->topics_count = m->topics_count;
        for (int32_t t = 0; t < m->topics_count; t++)
            if (mark_topic(op, m, &m->topics[t], &mout->topics[t]) < 0)
                goto oom;
    }
    if (op->isr_wait.pending > 0)
        gr_resp_slot_defer(req->slot, markers_cancel, op);
    else
        markers_finish(op);
    return;
oom:
    /* The slot is still ours: no cancel runs, so the waits end here. */
    gr_isr_wait_cancel(&op->isr_wait);
    gr_request_fail(req, "out of memory");
}
