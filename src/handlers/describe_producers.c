/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DescribeProducers (v0): per asked partition, the producers in its log's
 * producer state (producer_state.h): id, epoch, last sequence, timestamp of
 * the last write, coordinator epoch and open-transaction start (-1: none).
 * A missing topic or partition is UNKNOWN_TOPIC_OR_PARTITION; any replica
 * on this broker answers from its own log (a follower's producer state
 * follows the batches it copies), NOT_LEADER_OR_FOLLOWER without one.
 *
 * Runs on: loop thread.
 */
#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/request.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "replica/replica.h"
#include "gen/describe_producers.h"
#include "handlers/handlers.h"

/* Fills out for one partition; false when out of memory. */
static bool describe_partition(gr_request_t *req, gr_topic_t *topic, int32_t index,
                               gr_describe_producers_response_partition_response_t *out)
{
    gr_describe_producers_response_partition_response_init(out);
    out->partition_index = index;
    gr_partition_t *p = topic ? gr_topic_partition(topic, index) : NULL;
    /* Any replica answers for its own log (kafka-transactions.sh --broker-id). */
    out->error_code = !p        ? GR_KERR_UNKNOWN_TOPIC_OR_PARTITION
                      : !p->log ? GR_KERR_NOT_LEADER_OR_FOLLOWER
                                : GR_KERR_NONE;
    if (out->error_code)
        return true;
    const gr_producer_state_t *ps = gr_log_producer_state(p->log);
    out->active_producers = gr_request_alloc_array(
        req, (int64_t)ps->count, sizeof(gr_describe_producers_response_producer_state_t));
    if (!out->active_producers)
        return false;
    out->active_producers_count = (int32_t)ps->count;
    for (size_t i = 0; i < ps->count; i++) {
        const gr_producer_entry_t *e = &ps->entries[i];
        gr_describe_producers_response_producer_state_t *o = &out->active_producers[i];
        gr_describe_producers_response_producer_state_init(o);
        o->producer_id = e->producer_id;
        o->producer_epoch = e->epoch;
        o->last_sequence = gr_producer_entry_last_seq(e);
        o->last_timestamp = e->last_timestamp;
        o->coordinator_epoch = e->coordinator_epoch;
        o->current_txn_start_offset = e->current_txn_first_offset;
    }
    return true;
}

void gr_handle_describe_producers(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_producers_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_producers_response_t resp;
    gr_describe_producers_response_init(&resp);
    int32_t topics = in.topics_count;
    resp.topics = gr_request_alloc_array(req, topics, sizeof(*resp.topics));
    if (!resp.topics)
        goto oom;
    resp.topics_count = topics;
    for (int32_t t = 0; t < topics; t++) {
        const gr_describe_producers_request_topic_request_t *want = &in.topics[t];
        gr_describe_producers_response_topic_response_t *out = &resp.topics[t];
        gr_describe_producers_response_topic_response_init(out);
        out->name = want->name;
        int32_t n = want->partition_indexes_count;
        out->partitions = gr_request_alloc_array(req, n, sizeof(*out->partitions));
        if (!out->partitions)
            goto oom;
        out->partitions_count = n;
        gr_topic_t *topic = want->name.len > 0
                                ? gr_topics_find(b->topics, want->name.ptr, (size_t)want->name.len)
                                : NULL;
        bool allowed = gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ,
                                        GR_ACL_RESOURCE_TYPE_TOPIC, want->name);
        for (int32_t i = 0; i < n; i++) {
            if (!describe_partition(req, allowed ? topic : NULL, want->partition_indexes[i],
                                    &out->partitions[i]))
                goto oom;
            if (!allowed)
                out->partitions[i].error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        }
    }
    gr_request_respond(req, &resp);
    return;
oom:
    gr_request_fail(req, "out of memory");
}
