/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ListOffsets (v0-10): per partition, the offset answering a timestamp query.
 *
 *   -1 latest    the last fetchable offset: the high watermark for clients
 *                (isolation_level 1, read_committed, v2+: the last stable
 *                offset), the log end offset for followers (replica_id >= 0);
 *                timestamp -1, leader epoch = the partition's leader epoch
 *   -2 earliest  the log start offset, with the epoch that covers it
 *   -4 earliest local (v8+) the same, since nothing is tiered
 *   -5 latest tiered (v9+, KIP-1005) nothing (offset -1), since nothing is
 *                tiered: what Kafka answers without remote storage
 *   -3 max       the record with the largest timestamp (v7+ clients send it;
 *                like Kafka, the broker does not gate it on the version)
 *   t >= 0       the first record with timestamp >= t
 * Anything but latest is only answered below the last fetchable offset; a
 * lookup finding nothing answers offset -1, timestamp -1, no error (v1+).
 *
 * v0 answers old_style_offsets: one offset at most (max_num_offsets 0 gives
 * none). Kafka's v0 answered timestamps from segment modification times;
 * here a v0 timestamp query answers the v1 lookup's offset (or nothing), and
 * latest/earliest answer as in v1.
 *
 * v10's timeout_ms bounds remote-storage lookups (KIP-1075); with none
 * here every answer is immediate and it is unused.
 *
 * Errors: UNKNOWN_TOPIC_OR_PARTITION; FENCED_LEADER_EPOCH /
 * UNKNOWN_LEADER_EPOCH when current_leader_epoch (v4+) is older / newer
 * than the partition's; INVALID_REQUEST for a partition asked twice (v1+).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/request.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "replica/replica.h"
#include "handlers/handlers.h"
#include "gen/common.h"
#include "gen/list_offsets.h"

/* A client's special timestamps go to the log as they are (EARLIEST_LOCAL, v8+, aside). */
_Static_assert(GR_LOG_TIMESTAMP_LATEST == GR_LIST_OFFSETS_TIMESTAMP_LATEST, "LATEST");
_Static_assert(GR_LOG_TIMESTAMP_EARLIEST == GR_LIST_OFFSETS_TIMESTAMP_EARLIEST, "EARLIEST");
_Static_assert(GR_LOG_TIMESTAMP_MAX == GR_LIST_OFFSETS_TIMESTAMP_MAX_TIMESTAMP, "MAX_TIMESTAMP");

/* One asked partition, for spotting duplicates. */
typedef struct asked {
    gr_str_t topic;
    int32_t partition;
    bool *dup; /* out: set when asked more than once */
} asked_t;

static int asked_cmp(const void *a, const void *b)
{
    const asked_t *x = a, *y = b;
    if (x->topic.len != y->topic.len)
        return x->topic.len < y->topic.len ? -1 : 1;
    int c = x->topic.len > 0 ? memcmp(x->topic.ptr, y->topic.ptr, (size_t)x->topic.len) : 0;
    if (c)
        return c;
    return (x->partition > y->partition) - (x->partition < y->partition);
}

/*
 * Marks dup[i] for every flattened partition asked more than once.
 * Returns 0 or -ENOMEM.
 */
static int find_duplicates(const gr_list_offsets_request_t *in, size_t total, bool *dup)
{
    if (total < 2)
        return 0;
    asked_t *all = malloc(total * sizeof(*all));
    if (!all)
        return -ENOMEM;
    size_t n = 0;
    for (int32_t t = 0; t < in->topics_count; t++)
        for (int32_t i = 0; i < in->topics[t].partitions_count; i++, n++)
            all[n] =
                (asked_t){in->topics[t].name, in->topics[t].partitions[i].partition_index, &dup[n]};
    qsort(all, n, sizeof(*all), asked_cmp);
    for (size_t i = 1; i < n; i++) {
        if (asked_cmp(&all[i - 1], &all[i]) == 0) {
            *all[i - 1].dup = true;
            *all[i].dup = true;
        }
    }
    free(all);
    return 0;
}

/*
 * Looks up one partition. Returns GR_KERR_NONE with *found filled (offset -1
 * when nothing qualifies), or the partition's error.
 */
static gr_kerr_t lookup(gr_broker_t *b, const gr_list_offsets_request_t *in, gr_partition_t *p,
                        int64_t ts, gr_log_offset_ts_t *found)
{
    bool from_client = in->replica_id < 0;
    int64_t fetchable = !from_client ? gr_log_end_offset(p->log)
                        : in->isolation_level == GR_ISOLATION_LEVEL_READ_COMMITTED
                            ? gr_log_last_stable_offset(p->log)
                            : gr_log_high_watermark(p->log);
    found->offset = -1;
    found->timestamp = GR_LOG_NO_TIMESTAMP;
    found->leader_epoch = GR_LOG_NO_EPOCH;
    if (ts == GR_LOG_TIMESTAMP_LATEST) {
        found->offset = fetchable;
        found->leader_epoch = p->leader_epoch;
        return GR_KERR_NONE;
    }
    if (ts == GR_LIST_OFFSETS_TIMESTAMP_LATEST_TIERED)
        return GR_KERR_NONE; /* nothing is in remote storage */
    if (ts == GR_LIST_OFFSETS_TIMESTAMP_EARLIEST_LOCAL)
        ts = GR_LOG_TIMESTAMP_EARLIEST;
    else if (ts < GR_LOG_TIMESTAMP_MAX)
        ts = 0; /* any other negative time: every record's timestamp is at least that */
    gr_log_offset_ts_t r;
    int rc = gr_log_offset_for_timestamp(p->log, ts, &r);
    if (rc) {
        gr_logf(&b->log, GR_LOG_WARN, "list_offsets", "lookup in %s-%d failed: %s", p->topic->name,
                p->index, strerror(-rc));
        return gr_kerr_from_errno(rc);
    }
    if (ts == GR_LOG_TIMESTAMP_EARLIEST) {
        found->offset = r.offset;
        found->leader_epoch = r.leader_epoch;
        return GR_KERR_NONE;
    }
    if (r.offset >= 0 && r.offset < fetchable)
        *found = r;
    return GR_KERR_NONE;
}

static void list_partition(gr_broker_t *b, gr_request_t *req, const gr_list_offsets_request_t *in,
                           gr_topic_t *topic,
                           const gr_list_offsets_request_list_offsets_partition_t *want, bool dup,
                           gr_list_offsets_response_list_offsets_partition_response_t *out)
{
    int16_t version = req->api_version;
    gr_list_offsets_response_list_offsets_partition_response_init(out);
    out->partition_index = want->partition_index;
    gr_partition_t *p = topic ? gr_topic_partition(topic, want->partition_index) : NULL;
    if (dup && version >= 1) {
        out->error_code = GR_KERR_INVALID_REQUEST;
        return;
    }
    out->error_code = gr_partition_serve_error(p, b->config.broker_id);
    if (out->error_code)
        return;
    out->error_code = gr_partition_check_leader_epoch(p, want->current_leader_epoch);
    if (out->error_code)
        return;
    gr_log_offset_ts_t found;
    out->error_code = lookup(b, in, p, want->timestamp, &found);
    if (out->error_code)
        return;
    if (version == 0) {
        if (found.offset < 0 || want->max_num_offsets <= 0)
            return;
        out->old_style_offsets = gr_request_alloc(req, sizeof(int64_t));
        if (!out->old_style_offsets) {
            out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
            return;
        }
        out->old_style_offsets[0] = found.offset;
        out->old_style_offsets_count = 1;
        return;
    }
    out->offset = found.offset;
    out->timestamp = found.offset < 0 ? GR_LOG_NO_TIMESTAMP : found.timestamp;
    if (version >= 4)
        out->leader_epoch = found.offset < 0 ? GR_LOG_NO_EPOCH : found.leader_epoch;
}

void gr_handle_list_offsets(gr_broker_t *b, gr_request_t *req)
{
    gr_list_offsets_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_list_offsets_response_t resp;
    gr_list_offsets_response_init(&resp);
    int32_t topics = in.topics_count;
    size_t total = 0;
    for (int32_t t = 0; t < topics; t++)
        total += (size_t)in.topics[t].partitions_count;
    resp.topics = gr_request_alloc_array(req, topics, sizeof(*resp.topics));
    gr_list_offsets_response_list_offsets_partition_response_t *parts =
        gr_request_alloc_array(req, total, sizeof(*parts));
    bool *dup = gr_request_alloc_array(req, total, sizeof(bool));
    if (!resp.topics || !parts || !dup || find_duplicates(&in, total, dup)) {
        gr_request_fail(req, "out of memory");
        return;
    }
    resp.topics_count = topics;
    size_t n = 0;
    for (int32_t t = 0; t < topics; t++) {
        const gr_list_offsets_request_list_offsets_topic_t *want = &in.topics[t];
        gr_list_offsets_response_list_offsets_topic_response_t *out = &resp.topics[t];
        gr_list_offsets_response_list_offsets_topic_response_init(out);
        out->name = want->name;
        out->partitions = &parts[n];
        out->partitions_count = want->partitions_count;
        gr_topic_t *topic = want->name.len > 0
                                ? gr_topics_find(b->topics, want->name.ptr, (size_t)want->name.len)
                                : NULL;
        bool allowed = gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                                        GR_ACL_RESOURCE_TYPE_TOPIC, want->name);
        for (int32_t i = 0; i < out->partitions_count; i++, n++) {
            /* A refused topic is answered as an unknown one, with Kafka's refusal code. */
            list_partition(b, req, &in, allowed ? topic : NULL, &want->partitions[i], dup[n],
                           &parts[n]);
            if (!allowed)
                parts[n].error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        }
    }
    gr_request_respond(req, &resp);
}
