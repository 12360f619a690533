/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CreatePartitions (v0-3) and DeleteRecords (v0-2): the partition-level
 * admin APIs (ElectLeaders is in elect_leaders.c). CreatePartitions is the
 * controller's (NOT_CONTROLLER elsewhere; a single broker is its own): new
 * partitions are written to the metadata store and the response waits
 * until they have leaders (or timeout_ms: REQUEST_TIMED_OUT).
 *
 * CreatePartitions, per topic, reports the first failure of:
 *   the topic named twice                 INVALID_REQUEST (every copy)
 *   unknown topic                         UNKNOWN_TOPIC_OR_PARTITION
 *   count not above the current count     INVALID_PARTITIONS
 *   an internal topic (groups and transactions hash onto its partitions)
 *                                         INVALID_REQUEST
 *   count above GR_TOPIC_MAX_PARTITIONS   INVALID_PARTITIONS
 *   assignments not one per new partition, naming a broker that is not
 *     live or one broker twice, or with a replica count other than the
 *     topic's (its partition 0's)         INVALID_REPLICA_ASSIGNMENT
 *   without assignments: the topic's replication factor above the live
 *     brokers                             INVALID_REPLICATION_FACTOR
 *   only some live brokers with broker.rack  UNKNOWN_SERVER_ERROR
 * validate_only stops there; otherwise the new partitions are created
 * before the response. Without assignments they are placed as Kafka
 * places them, continuing from partition 0's first replica.
 *
 * DeleteRecords moves a partition's log start offset up to the given offset
 * (-1: the high watermark) and deletes the segments wholly below it. An
 * offset above the high watermark or below -1 is OFFSET_OUT_OF_RANGE, a
 * compact-only topic POLICY_VIOLATION, an internal topic
 * INVALID_TOPIC_EXCEPTION (its records are groups' and transactions' state),
 * an unknown partition UNKNOWN_TOPIC_OR_PARTITION; low_watermark is -1 on
 * error.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "controller/zk_member.h"
#include "security/authorizer.h"
#include "handlers/request.h"
#include "log/log.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "partition/partition.h"
#include "replica/replica.h"
#include "gen/create_partitions.h"
#include "gen/delete_records.h"
#include "controller/zk_admin.h"
#include "handlers/admin_common.h"
#include "handlers/admin_wait.h"
#include "handlers/handlers.h"

#define NO_LOW_WATERMARK (-1LL)

/* ---- CreatePartitions ---- */

/* The topic's replication factor: its partition 0's replica count, as Kafka takes it. */
static int32_t topic_factor(gr_topic_t *topic)
{
    const gr_partition_t *p = gr_topic_partition(topic, 0);
    return p ? p->replica_count : 0;
}

static bool listed_before(const int32_t *broker_ids, int32_t r)
{
    for (int32_t i = 0; i < r; i++)
        if (broker_ids[i] == broker_ids[r])
            return true;
    return false;
}

static gr_kerr_t
check_grow_assignments(gr_broker_t *b,
                       const gr_create_partitions_request_create_partitions_topic_t *want,
                       int32_t adding, int32_t factor, char *msg, size_t len)
{
    if (want->assignments_null)
        return gr_zk_admin_place_check(b, factor, GR_RACK_MODE_ENFORCED, msg, len);
    if (want->assignments_count != adding) {
        snprintf(msg, len, "Increasing the number of partitions by %d but %d assignments provided.",
                 adding, want->assignments_count);
        return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
    }
    for (int32_t i = 0; i < want->assignments_count; i++) {
        const gr_create_partitions_request_create_partitions_assignment_t *a =
            &want->assignments[i];
        for (int32_t r = 0; r < a->broker_ids_count; r++) {
            bool live = gr_cluster_view_node(b->cluster, a->broker_ids[r]) != NULL;
            if (!live) {
                snprintf(msg, len, "Unknown broker(s) in replica assignment: %d.",
                         a->broker_ids[r]);
                return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
            }
            if (listed_before(a->broker_ids, r)) {
                snprintf(msg, len,
                         "Duplicate brokers not allowed in replica assignment: broker %d for "
                         "new partition %d.",
                         a->broker_ids[r], i);
                return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
            }
        }
        if (a->broker_ids_count != factor) {
            snprintf(msg, len,
                     "Inconsistent replication factor between partitions, partition 0 has %d "
                     "while new partition %d has %d.",
                     factor, i, a->broker_ids_count);
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
        }
    }
    return GR_KERR_NONE;
}

/* Cluster mode: a topic whose growth was written to ZooKeeper, until its new leaders are known. */
typedef struct grow_state {
    gr_create_partitions_response_create_partitions_topic_result_t *out;
    const char *name;
    int32_t count;
    bool waiting;
} grow_state_t;

typedef struct cluster_grow {
    gr_create_partitions_response_t resp;
    grow_state_t *states;
    int32_t count;
    int32_t timeout_ms;
} cluster_grow_t;

typedef struct zk_grow {
    gr_admin_wait_t *wait;
    grow_state_t *state;
} zk_grow_t;

static void on_grown(void *opaque, gr_kerr_t err)
{
    zk_grow_t *zg = opaque;
    if (gr_admin_wait_request(zg->wait) && err) {
        zg->state->waiting = false;
        zg->state->out->error_code = err;
    }
    gr_admin_wait_release(zg->wait);
    free(zg);
}

static bool all_grown(gr_request_t *req, void *arg)
{
    cluster_grow_t *cg = arg;
    for (int32_t i = 0; i < cg->count; i++)
        if (cg->states[i].waiting &&
            !gr_topic_led(req->broker, cg->states[i].name, cg->states[i].count))
            return false;
    return true;
}

static void finish_grow(gr_request_t *req, void *arg, bool timed_out)
{
    cluster_grow_t *cg = arg;
    for (int32_t i = 0; timed_out && cg->timeout_ms > 0 && i < cg->count; i++)
        if (cg->states[i].waiting &&
            !gr_topic_led(req->broker, cg->states[i].name, cg->states[i].count))
            cg->states[i].out->error_code = GR_KERR_REQUEST_TIMED_OUT;
    gr_request_respond(req, &cg->resp);
}

static gr_kerr_t cluster_grow(gr_broker_t *b, gr_request_t *req,
                              const gr_create_partitions_request_create_partitions_topic_t *want,
                              gr_admin_wait_t *w, grow_state_t *st)
{
    gr_topic_t *topic = gr_topics_find(b->topics, st->name, strlen(st->name));
    int32_t adding = want->count - topic->partition_count;
    int32_t factor = topic_factor(topic);
    int32_t *replicas = NULL; /* NULL: placed once the stored assignment is read */
    if (want->assignments_count > 0) {
        replicas = gr_request_alloc_array(req, (size_t)adding * (size_t)factor, sizeof *replicas);
        if (!replicas)
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        for (int32_t i = 0; i < adding; i++)
            memcpy(&replicas[(size_t)i * (size_t)factor], want->assignments[i].broker_ids,
                   (size_t)factor * sizeof *replicas);
    }
    zk_grow_t *zg = calloc(1, sizeof *zg);
    if (!zg)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    *zg = (zk_grow_t){w, st};
    st->count = want->count;
    gr_admin_wait_hold(w);
    if (gr_zk_admin_add_partitions(b, st->name, want->count, factor, replicas, on_grown, zg) != 0) {
        gr_admin_wait_release(w);
        free(zg);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    st->waiting = true;
    return GR_KERR_NONE;
}

static gr_kerr_t grow_topic(gr_broker_t *b, gr_request_t *req,
                            const gr_create_partitions_request_create_partitions_topic_t *want,
                            bool validate_only, char *msg, size_t len, gr_admin_wait_t *w,
                            grow_state_t *st)
{
    const char *name = gr_admin_cstr(req, want->name);
    if (!name) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_topic_t *topic = want->name.len > 0
                            ? gr_topics_find(b->topics, want->name.ptr, (size_t)want->name.len)
                            : NULL;
    if (!topic) {
        snprintf(msg, len, "The topic '%s' does not exist.", name);
        return GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
    }
    if (topic->internal) {
        snprintf(msg, len,
                 "Cannot increase the partition count of internal topic %s: every group or "
                 "transaction would move to another partition.",
                 name);
        return GR_KERR_INVALID_REQUEST;
    }
    int32_t current = topic->partition_count;
    if (want->count < current) {
        snprintf(msg, len,
                 "Topic currently has %d partitions, which is higher than the requested %d.",
                 current, want->count);
        return GR_KERR_INVALID_PARTITIONS;
    }
    if (want->count == current) {
        snprintf(msg, len, "Topic already has %d partitions.", current);
        return GR_KERR_INVALID_PARTITIONS;
    }
    if (want->count > GR_TOPIC_MAX_PARTITIONS) {
        snprintf(msg, len, "Number of partitions %d exceeds the limit of %d.", want->count,
                 GR_TOPIC_MAX_PARTITIONS);
        return GR_KERR_INVALID_PARTITIONS;
    }
    gr_kerr_t err =
        check_grow_assignments(b, want, want->count - current, topic_factor(topic), msg, len);
    if (err || validate_only)
        return err;
    st->name = name;
    return cluster_grow(b, req, want, w, st);
}

void gr_handle_create_partitions(gr_broker_t *b, gr_request_t *req)
{
    gr_create_partitions_request_t in;
    if (gr_request_decode(req, &in))
        return;
    int32_t n = in.topics_count;
    gr_create_partitions_response_t resp;
    gr_create_partitions_response_init(&resp);
    resp.results = gr_request_alloc_array(req, n, sizeof(*resp.results));
    bool *dup = gr_request_alloc_array(req, n, sizeof(bool));
    gr_admin_key_t *keys = gr_request_alloc_array(req, n, sizeof(*keys));
    if (!resp.results || !dup || !keys) {
        gr_request_fail(req, "out of memory");
        return;
    }
    cluster_grow_t *cg = gr_request_alloc(req, sizeof *cg);
    grow_state_t *states = gr_request_alloc_array(req, n, sizeof *states);
    bool not_controller = !gr_zk_member_is_controller(b);
    gr_admin_wait_t *w = NULL;
    if (!cg || !states ||
        (!not_controller &&
         !(w = gr_admin_wait_new(req, in.timeout_ms, all_grown, finish_grow, cg)))) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (int32_t i = 0; i < n; i++)
        keys[i] = (gr_admin_key_t){0, in.topics[i].name, i};
    gr_admin_mark_repeats(keys, n, dup);
    resp.results_count = n;
    for (int32_t i = 0; i < n; i++) {
        gr_create_partitions_response_create_partitions_topic_result_t *out = &resp.results[i];
        gr_create_partitions_response_create_partitions_topic_result_init(out);
        out->name = in.topics[i].name;
        char msg[GR_ADMIN_MSG_MAX] = "";
        gr_kerr_t err = GR_KERR_INVALID_REQUEST;
        states[i].out = out;
        if (dup[i]) {
            snprintf(msg, sizeof msg, "Duplicate topic in request.");
        } else if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_ALTER,
                                     GR_ACL_RESOURCE_TYPE_TOPIC, in.topics[i].name)) {
            err = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            snprintf(msg, sizeof msg, "Authorization failed.");
        } else if (not_controller) {
            err = GR_KERR_NOT_CONTROLLER;
            snprintf(msg, sizeof msg, "This is not the correct controller for this cluster.");
        } else {
            err =
                grow_topic(b, req, &in.topics[i], in.validate_only, msg, sizeof msg, w, &states[i]);
        }
        out->error_code = err;
        out->error_message = err ? gr_admin_message(req, msg) : gr_str(NULL);
    }
    if (!w) {
        gr_request_respond(req, &resp);
        return;
    }
    *cg = (cluster_grow_t){resp, states, n, in.timeout_ms};
    gr_admin_wait_release(w);
}

/* ---- DeleteRecords ---- */

static void delete_partition(gr_broker_t *b, gr_topic_t *topic,
                             const gr_delete_records_request_delete_records_partition_t *want,
                             gr_delete_records_response_delete_records_partition_result_t *out)
{
    gr_delete_records_response_delete_records_partition_result_init(out);
    out->partition_index = want->partition_index;
    out->low_watermark = NO_LOW_WATERMARK;
    gr_partition_t *p = gr_topic_partition(topic, want->partition_index);
    out->error_code = gr_partition_serve_error(p, b->config.broker_id);
    if (out->error_code)
        return;
    if (topic->internal) {
        out->error_code = GR_KERR_INVALID_TOPIC_EXCEPTION;
        return;
    }
    const gr_log_config_t *cfg = &topic->settings.log;
    if (cfg->cleanup_compact && !cfg->cleanup_delete) {
        out->error_code = GR_KERR_POLICY_VIOLATION;
        return;
    }
    int64_t offset = want->offset == GR_DELETE_RECORDS_OFFSET_HIGH_WATERMARK
                         ? gr_log_high_watermark(p->log)
                         : want->offset;
    int64_t low = NO_LOW_WATERMARK;
    int rc = offset < 0 ? -ERANGE : gr_log_delete_records_before(p->log, offset, &low);
    if (rc) {
        out->error_code = gr_kerr_from_errno(rc);
        if (rc != -ERANGE)
            gr_logf(&b->log, GR_LOG_ERROR, "log", "DeleteRecords on %s-%d: %s", topic->name,
                    p->index, strerror(-rc));
        return;
    }
    out->low_watermark = low;
}

void gr_handle_delete_records(gr_broker_t *b, gr_request_t *req)
{
    gr_delete_records_request_t in;
    if (gr_request_decode(req, &in))
        return;
    int32_t n = in.topics_count;
    gr_delete_records_response_t resp;
    gr_delete_records_response_init(&resp);
    resp.topics = gr_request_alloc_array(req, n, sizeof(*resp.topics));
    if (!resp.topics)
        goto fail;
    resp.topics_count = n;
    for (int32_t t = 0; t < n; t++) {
        const gr_delete_records_request_delete_records_topic_t *tin = &in.topics[t];
        gr_delete_records_response_delete_records_topic_result_t *tout = &resp.topics[t];
        gr_delete_records_response_delete_records_topic_result_init(tout);
        tout->name = tin->name;
        int32_t pn = tin->partitions_count;
        tout->partitions = gr_request_alloc_array(req, pn, sizeof(*tout->partitions));
        if (!tout->partitions)
            goto fail;
        tout->partitions_count = pn;
        gr_topic_t *topic = tin->name.len > 0
                                ? gr_topics_find(b->topics, tin->name.ptr, (size_t)tin->name.len)
                                : NULL;
        bool allowed = gr_authorize_str(b, req->session, GR_ACL_OPERATION_DELETE,
                                        GR_ACL_RESOURCE_TYPE_TOPIC, tin->name);
        for (int32_t i = 0; i < pn; i++) {
            delete_partition(b, allowed ? topic : NULL, &tin->partitions[i], &tout->partitions[i]);
            if (!allowed)
                tout->partitions[i].error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        }
    }
    gr_request_respond(req, &resp);
    return;
fail:
    gr_request_fail(req, "out of memory");
}
