/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OffsetForLeaderEpoch (v0-4): per partition, the end offset of the asked
 * leader epoch, from the log's leader-epoch cache: the largest epoch not
 * above the asked one and the start offset of the next epoch (the log end
 * offset for the latest). An epoch the cache cannot answer gets epoch -1 and
 * end offset -1 with no error, as Kafka answers.
 *
 * Followers (replica_id >= 0, v3+) use it to truncate after a leader change,
 * consumers (KIP-320) to detect truncation; both are answered alike, since
 * this broker leads every partition. current_leader_epoch (v2+) fences as in
 * Fetch: older is FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH.
 * A missing topic or partition is UNKNOWN_TOPIC_OR_PARTITION.
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
#include "handlers/handlers.h"
#include "gen/offset_for_leader_epoch.h"

static void end_offset(const gr_broker_t *b, gr_topic_t *topic,
                       const gr_offset_for_leader_epoch_request_offset_for_leader_partition_t *want,
                       gr_offset_for_leader_epoch_response_epoch_end_offset_t *out)
{
    gr_offset_for_leader_epoch_response_epoch_end_offset_init(out);
    out->partition = want->partition;
    gr_partition_t *p = topic ? gr_topic_partition(topic, want->partition) : NULL;
    out->error_code = gr_partition_serve_error(p, b->config.broker_id);
    if (out->error_code)
        return;
    out->error_code = gr_partition_check_leader_epoch(p, want->current_leader_epoch);
    if (out->error_code)
        return;
    int32_t epoch = GR_LOG_NO_EPOCH;
    int64_t offset = -1;
    gr_log_end_offset_for_epoch(p->log, want->leader_epoch, &epoch, &offset);
    if (offset < 0)
        return; /* unknown: epoch -1, offset -1 */
    out->end_offset = offset;
    out->leader_epoch = epoch; /* encoded from v1 on; v0 carries the offset alone */
}

void gr_handle_offset_for_leader_epoch(gr_broker_t *b, gr_request_t *req)
{
    gr_offset_for_leader_epoch_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_offset_for_leader_epoch_response_t resp;
    gr_offset_for_leader_epoch_response_init(&resp);
    int32_t topics = in.topics_count;
    size_t total = 0;
    for (int32_t t = 0; t < topics; t++)
        total += (size_t)in.topics[t].partitions_count;
    resp.topics = gr_request_alloc_array(req, topics, sizeof(*resp.topics));
    gr_offset_for_leader_epoch_response_epoch_end_offset_t *parts =
        gr_request_alloc_array(req, total, sizeof(*parts));
    if (!resp.topics || !parts) {
        gr_request_fail(req, "out of memory");
        return;
    }
    /* Kafka: a follower (replica_id >= 0) needs CLUSTER_ACTION, a client DESCRIBE per topic. */
    bool follower = in.replica_id >= 0;
    bool cluster_ok =
        !follower || gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_CLUSTER_ACTION);
    gr_kerr_t refusal =
        cluster_ok ? GR_KERR_TOPIC_AUTHORIZATION_FAILED : GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
    resp.topics_count = topics;
    size_t n = 0;
    for (int32_t t = 0; t < topics; t++) {
        const gr_offset_for_leader_epoch_request_offset_for_leader_topic_t *want = &in.topics[t];
        gr_offset_for_leader_epoch_response_offset_for_leader_topic_result_t *out = &resp.topics[t];
        gr_offset_for_leader_epoch_response_offset_for_leader_topic_result_init(out);
        out->topic = want->topic;
        out->partitions = &parts[n];
        out->partitions_count = want->partitions_count;
        gr_topic_t *topic = want->topic.len > 0 ? gr_topics_find(b->topics, want->topic.ptr,
                                                                 (size_t)want->topic.len)
                                                : NULL;
        bool allowed =
            cluster_ok && (follower || gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                                                        GR_ACL_RESOURCE_TYPE_TOPIC, want->topic));
        for (int32_t i = 0; i < out->partitions_count; i++, n++) {
            end_offset(b, allowed ? topic : NULL, &want->partitions[i], &parts[n]);
            if (!allowed)
                parts[n].error_code = refusal;
        }
    }
    gr_request_respond(req, &resp);
}
