/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Requests about one topic or one partition that several commands send:
 * Metadata of a topic, ListOffsets of a partition (see admin.h).
 */
#include "admin/admin.h"
#include "gen/list_offsets.h"
#include "gen/metadata.h"

#define REQUESTS_METADATA_MAX_V 12
#define REQUESTS_CONSUMER_ID    (-1) /* ListOffsets as a consumer: up to the high watermark */

int gr_admin_topic_metadata(gr_admin_t *a, gr_str_t topic, gr_metadata_response_t *out)
{
    int16_t v = gr_admin_version(a, GR_API_METADATA, REQUESTS_METADATA_MAX_V);
    if (v < 0)
        return -1;
    gr_metadata_request_t req;
    gr_metadata_request_init(&req);
    gr_metadata_request_metadata_request_topic_t t;
    gr_metadata_request_metadata_request_topic_init(&t);
    t.name = topic;
    req.topics = &t;
    req.topics_count = 1;
    req.allow_auto_topic_creation = false;
    if (gr_admin_call(a, GR_API_METADATA, v, &req, out))
        return -1;
    return out->topics_count == 1 ? 0 : -1;
}

int gr_admin_list_offset(gr_admin_t *a, int16_t v, gr_str_t topic, int32_t partition, int64_t ts,
                         int64_t *offset, int16_t *error)
{
    gr_list_offsets_request_t req;
    gr_list_offsets_request_init(&req);
    gr_list_offsets_request_list_offsets_topic_t t;
    gr_list_offsets_request_list_offsets_topic_init(&t);
    gr_list_offsets_request_list_offsets_partition_t p;
    gr_list_offsets_request_list_offsets_partition_init(&p);
    p.partition_index = partition;
    p.timestamp = ts;
    t.name = topic;
    t.partitions = &p;
    t.partitions_count = 1;
    req.replica_id = REQUESTS_CONSUMER_ID;
    req.topics = &t;
    req.topics_count = 1;
    gr_list_offsets_response_t resp;
    if (gr_admin_call(a, GR_API_LIST_OFFSETS, v, &req, &resp) || resp.topics_count != 1 ||
        resp.topics[0].partitions_count != 1)
        return -1;
    *error = resp.topics[0].partitions[0].error_code;
    *offset = *error ? -1 : resp.topics[0].partitions[0].offset;
    return 0;
}
