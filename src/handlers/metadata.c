/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Metadata: this broker, the cluster id, and topics with their partitions.
 * In single-node mode this broker is the controller and leads every
 * partition with an ISR of itself; in cluster mode every broker answers for
 * the whole cluster from what the controller last told it (UpdateMetadata),
 * offline partitions with LEADER_NOT_AVAILABLE and leader -1. Missing topics are auto-created when
 * the request allows it (always before v4) and auto.create.topics.enable is on.
 */
#include <string.h>

#include "controller/zk_admin.h"
#include "core/context.h"
#include "group/coordinator.h"
#include "handlers/request.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "handlers/handlers.h"
#include "metadata.h"

/* Bitfields of ACL operations allowed when no authorizer is configured. */
#define GR_ACL_OPS_ALL_TOPIC 3576 /* read, write, create, delete, alter, describe, configs */
#define GR_ACL_OPS_ALL_CLUSTER                                                                     \
    8096 /* create, alter, describe, cluster action, configs, idempotent */
#define GR_ACL_OPS_UNKNOWN INT32_MIN

gr_topic_t *gr_topic_find_or_create(gr_broker_t *b, gr_str_t name, bool allow_create,
                                    gr_kerr_t *kerr)
{
    gr_topic_t *topic = gr_topics_find(b->topics, name.ptr, (size_t)name.len);
    if (topic)
        return topic;
    *kerr = gr_topic_name_check(name.ptr, (size_t)name.len);
    if (*kerr)
        return NULL;
    if (!allow_create || !b->config.auto_create_topics_enable) {
        *kerr = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return NULL;
    }
    /* Internal topics are created with their coordinator's settings, or not at all. */
    if (gr_str_eq_c(name, GR_OFFSETS_TOPIC)) {
        *kerr = gr_coordinator_ensure_topic(b->groups);
        return *kerr ? NULL : gr_topics_find(b->topics, name.ptr, (size_t)name.len);
    }
    if (gr_str_eq_c(name, GR_TRANSACTION_STATE_TOPIC)) {
        *kerr = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION; /* no transaction coordinator yet */
        return NULL;
    }
    /* The name checked above is at most GR_TOPIC_NAME_LIMIT bytes. */
    char cname[GR_TOPIC_NAME_LIMIT + 1];
    memcpy(cname, name.ptr, (size_t)name.len);
    cname[name.len] = '\0';
    char err[256];
    *kerr = gr_admin_create_topic_now(b, cname, b->config.num_partitions, NULL, 0, &topic, err,
                                      sizeof err);
    if (*kerr) {
        gr_logf(&b->log, GR_LOG_WARN, "topics", "auto-creating %.*s failed: %s", name.len, name.ptr,
                err);
        return NULL;
    }
    return topic;
}

/* Cluster mode: the partition as the controller last described it. */
static void fill_cluster_partition(gr_broker_t *b, gr_request_t *req, const gr_partition_t *src,
                                   gr_metadata_response_metadata_response_partition_t *p)
{
    p->leader_id = src->leader_id;
    p->leader_epoch = src->leader_epoch;
    p->replica_nodes = src->replicas;
    p->replica_nodes_count = src->replica_count;
    p->isr_nodes = src->isr;
    p->isr_nodes_count = src->isr_count;
    p->offline_replicas = gr_request_alloc_array(req, src->replica_count, sizeof(int32_t));
    p->offline_replicas_count = 0;
    for (int32_t r = 0; p->offline_replicas && r < src->replica_count; r++)
        if (!gr_cluster_view_node(b->cluster, src->replicas[r]))
            p->offline_replicas[p->offline_replicas_count++] = src->replicas[r];
    if (!gr_cluster_view_node(b->cluster, src->leader_id)) {
        p->error_code = GR_KERR_LEADER_NOT_AVAILABLE;
        p->leader_id = GR_NO_BROKER;
    }
}

static void fill_partitions(gr_broker_t *b, gr_request_t *req, gr_topic_t *topic,
                            gr_metadata_response_metadata_response_topic_t *out)
{
    int32_t n = topic->partition_count;
    out->partitions = gr_request_alloc(req, (size_t)n * sizeof(*out->partitions));
    int32_t *self = gr_request_alloc(req, sizeof(int32_t));
    if (!out->partitions || !self) {
        out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        return;
    }
    *self = b->config.broker_id;
    out->partitions_count = n;
    for (int32_t i = 0; i < n; i++) {
        gr_metadata_response_metadata_response_partition_t *p = &out->partitions[i];
        gr_metadata_response_metadata_response_partition_init(p);
        p->partition_index = i;
        if (b->cluster->zk_mode) {
            fill_cluster_partition(b, req, &topic->partitions[i], p);
            continue;
        }
        p->leader_id = b->config.broker_id;
        p->leader_epoch = topic->partitions[i].leader_epoch;
        p->replica_nodes = self;
        p->replica_nodes_count = 1;
        p->isr_nodes = self;
        p->isr_nodes_count = 1;
    }
}

static void fill_topic(gr_broker_t *b, gr_request_t *req, gr_topic_t *topic, bool include_ops,
                       gr_metadata_response_metadata_response_topic_t *out)
{
    out->name = gr_str(topic->name);
    out->topic_id = topic->id;
    out->is_internal = topic->internal;
    out->topic_authorized_operations = include_ops ? GR_ACL_OPS_ALL_TOPIC : GR_ACL_OPS_UNKNOWN;
    fill_partitions(b, req, topic, out);
}

typedef struct all_topics {
    gr_broker_t *b;
    gr_request_t *req;
    gr_metadata_response_t *resp;
    bool include_ops;
} all_topics_t;

static void add_topic(gr_topic_t *topic, void *arg)
{
    all_topics_t *all = arg;
    gr_metadata_response_metadata_response_topic_t *t =
        &all->resp->topics[all->resp->topics_count++];
    gr_metadata_response_metadata_response_topic_init(t);
    fill_topic(all->b, all->req, topic, all->include_ops, t);
}

static void fill_requested(gr_broker_t *b, gr_request_t *req, const gr_metadata_request_t *in,
                           gr_metadata_response_t *resp)
{
    bool allow_create = req->api_version < 4 || in->allow_auto_topic_creation;
    resp->topics_count = 0;
    for (int32_t i = 0; i < in->topics_count; i++) {
        const gr_metadata_request_metadata_request_topic_t *want = &in->topics[i];
        gr_metadata_response_metadata_response_topic_t *t = &resp->topics[resp->topics_count++];
        gr_metadata_response_metadata_response_topic_init(t);
        gr_kerr_t kerr = GR_KERR_NONE;
        gr_topic_t *topic = NULL;
        if (want->name.len == GR_NULL_LEN) {
            topic = gr_topics_find_id(b->topics, want->topic_id);
            kerr = GR_KERR_UNKNOWN_TOPIC_ID;
            t->topic_id = want->topic_id;
            t->name.len = GR_NULL_LEN;
        } else {
            topic = gr_topic_find_or_create(b, want->name, allow_create, &kerr);
            t->name = want->name;
        }
        if (topic)
            fill_topic(b, req, topic, in->include_topic_authorized_operations, t);
        else
            t->error_code = kerr;
    }
}

void gr_handle_metadata(gr_broker_t *b, gr_request_t *req)
{
    gr_metadata_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_metadata_response_t resp;
    gr_metadata_response_init(&resp);
    size_t nodes = b->cluster->node_count;
    gr_metadata_response_metadata_response_broker_t *broker =
        gr_request_alloc_array(req, nodes ? nodes : 1, sizeof(*broker));
    bool all = in.topics_count == GR_NULL_LEN || (req->api_version == 0 && in.topics_count == 0);
    size_t want = all ? b->topics->count : (size_t)in.topics_count;
    resp.topics = gr_request_alloc_array(req, want, sizeof(*resp.topics));
    if (!broker || !resp.topics) {
        gr_conn_close(req->conn, "out of memory");
        return;
    }
    for (size_t i = 0; i < nodes; i++) {
        const gr_cluster_node_t *node = &b->cluster->nodes[i];
        gr_metadata_response_metadata_response_broker_init(&broker[i]);
        broker[i].node_id = node->id;
        broker[i].host = gr_str(node->host);
        broker[i].port = node->port;
        broker[i].rack =
            gr_str(node->id == b->config.broker_id ? b->config.broker_rack : node->rack);
    }
    resp.brokers = broker;
    resp.brokers_count = (int32_t)nodes;
    resp.cluster_id = gr_str(b->cluster_id);
    resp.controller_id = b->cluster->controller_id;
    if (in.include_cluster_authorized_operations)
        resp.cluster_authorized_operations = GR_ACL_OPS_ALL_CLUSTER;
    if (all) {
        all_topics_t ctx = {b, req, &resp, in.include_topic_authorized_operations};
        resp.topics_count = 0;
        gr_topics_foreach(b->topics, add_topic, &ctx);
    } else {
        fill_requested(b, req, &in, &resp);
    }
    gr_request_respond(req, &resp);
}
