/* SPDX-License-Identifier: Apache-2.0 */
/*
 * StopReplica (v0-4): this broker stops being a replica of partitions,
 * deleting their data when asked (topic deletion). A partition this broker
 * no longer knows still has its directory removed when deletion is asked
 * (it may have been down when its topic went).
 */
#include <string.h>

#include "core/context.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "replica/replica.h"
#include "replica/requests_int.h"
#include "gen/stop_replica.h"

static void stop_one(gr_broker_t *b, gr_str_t name, int32_t index, bool delete_data,
                     gr_stop_replica_response_stop_replica_partition_error_t *e)
{
    gr_stop_replica_response_stop_replica_partition_error_init(e);
    e->topic_name = name;
    e->partition_index = index;
    if (name.len <= 0 || name.len > GR_TOPIC_NAME_LIMIT || index < 0) {
        e->error_code = GR_KERR_INVALID_REQUEST;
        return;
    }
    gr_topic_t *topic = gr_topics_find(b->topics, name.ptr, (size_t)name.len);
    gr_partition_t *p = topic ? gr_topic_partition(topic, index) : NULL;
    if (p)
        gr_replica_stop(b, p, delete_data);
    else if (delete_data && gr_topic_name_check(name.ptr, (size_t)name.len) == GR_KERR_NONE)
        gr_partition_dir_delete(b, name.ptr, (size_t)name.len, index);
}

static int32_t count_partitions(const gr_stop_replica_request_t *in)
{
    int32_t n = in->ungrouped_partitions_count;
    for (int32_t t = 0; t < in->topics_count; t++)
        n += in->topics[t].partition_indexes_count;
    for (int32_t t = 0; t < in->topic_states_count; t++)
        n += in->topic_states[t].partition_states_count > 0
                 ? in->topic_states[t].partition_states_count
                 : 0;
    return n;
}

static void stop_all(gr_broker_t *b, const gr_stop_replica_request_t *in,
                     gr_stop_replica_response_stop_replica_partition_error_t *errors)
{
    int32_t k = 0;
    for (int32_t i = 0; i < in->ungrouped_partitions_count; i++)
        stop_one(b, in->ungrouped_partitions[i].topic_name,
                 in->ungrouped_partitions[i].partition_index, in->delete_partitions, &errors[k++]);
    for (int32_t t = 0; t < in->topics_count; t++)
        for (int32_t i = 0; i < in->topics[t].partition_indexes_count; i++)
            stop_one(b, in->topics[t].name, in->topics[t].partition_indexes[i],
                     in->delete_partitions, &errors[k++]);
    for (int32_t t = 0; t < in->topic_states_count; t++) {
        const gr_stop_replica_request_stop_replica_topic_state_t *ts = &in->topic_states[t];
        for (int32_t i = 0; i < ts->partition_states_count; i++)
            stop_one(b, ts->topic_name, ts->partition_states[i].partition_index,
                     ts->partition_states[i].delete_partition, &errors[k++]);
    }
}

void replica_stop_replica(gr_replica_call_t *call)
{
    const gr_stop_replica_request_t *in = call->request;
    gr_stop_replica_response_t *resp = replica_alloc(call, 1, sizeof *resp);
    if (!resp) {
        replica_finish(call, NULL);
        return;
    }
    gr_stop_replica_response_init(resp);
    resp->error_code = replica_fence(call, in->controller_id, in->controller_epoch);
    if (resp->error_code == GR_KERR_NONE) {
        int32_t n = count_partitions(in);
        resp->partition_errors = replica_alloc(call, n, sizeof *resp->partition_errors);
        if (!resp->partition_errors) {
            replica_finish(call, NULL);
            return;
        }
        resp->partition_errors_count = n;
        stop_all(call->b, in, resp->partition_errors);
    }
    replica_finish(call, resp);
}
