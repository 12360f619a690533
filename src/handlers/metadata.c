/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Metadata: the brokers, the cluster id, and topics with their partitions,
 * answered from what the controller last told this broker (UpdateMetadata;
 * in single-node mode the controller runs here), offline partitions with
 * LEADER_NOT_AVAILABLE and leader -1. Missing topics are auto-created
 * through the controller when the request allows it (always before v4) and
 * auto.create.topics.enable is on; the answer waits a moment for them.
 * v13's top-level error code (KIP-1102) is always NONE: this broker never
 * asks a client to rebootstrap.
 */
#include <errno.h>
#include <string.h>

#include "controller/zk_admin.h"
#include "core/context.h"
#include "group/coordinator.h"
#include "security/authorizer.h"
#include "handlers/admin_common.h"
#include "handlers/admin_wait.h"
#include "handlers/request.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "handlers/handlers.h"
#include "handlers/listener_endpoint.h"
#include "gen/common.h"
#include "gen/metadata.h"

/*
 * How long a Metadata request that auto-created topics waits for the
 * controller to give them leaders before answering LEADER_NOT_AVAILABLE
 * (Kafka answers that at once; waiting a moment spares the client a retry,
 * and a single node creates them within milliseconds).
 */
#define GR_AUTO_CREATE_WAIT_MS 3000

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
    if (gr_str_eq_c(name, GR_TRANSACTION_STATE_TOPIC) || gr_str_eq_c(name, GR_SHARE_STATE_TOPIC)) {
        *kerr = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION; /* created by its coordinator only */
        return NULL;
    }
    /* The name checked above is at most GR_TOPIC_NAME_LIMIT bytes. */
    char cname[GR_TOPIC_NAME_LIMIT + 1];
    memcpy(cname, name.ptr, (size_t)name.len);
    cname[name.len] = '\0';
    char err[256];
    *kerr =
        gr_admin_create_topic_now(b, cname, b->config.num_partitions,
                                  b->config.default_replication_factor, NULL, 0, err, sizeof err);
    if (*kerr && *kerr != GR_KERR_LEADER_NOT_AVAILABLE)
        gr_logf(&b->log, GR_LOG_WARN, "topics", "auto-creating %.*s failed: %s", name.len, name.ptr,
                err);
    return NULL;
}

/* The partition as the controller last described it. */
static void fill_partition(gr_broker_t *b, gr_request_t *req, const gr_partition_t *src,
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
    if (!out->partitions) {
        out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        return;
    }
    out->partitions_count = n;
    for (int32_t i = 0; i < n; i++) {
        gr_metadata_response_metadata_response_partition_t *p = &out->partitions[i];
        gr_metadata_response_metadata_response_partition_init(p);
        p->partition_index = i;
        fill_partition(b, req, &topic->partitions[i], p);
    }
}

static void fill_topic(gr_broker_t *b, gr_request_t *req, gr_topic_t *topic, bool include_ops,
                       gr_metadata_response_metadata_response_topic_t *out)
{
    out->name = gr_str(topic->name);
    out->topic_id = topic->id;
    out->is_internal = topic->internal;
    out->topic_authorized_operations =
        include_ops ? gr_authorized_ops(b, req->session, GR_ACL_RESOURCE_TYPE_TOPIC, topic->name,
                                        strlen(topic->name))
                    : GR_ACL_OPS_UNKNOWN;
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
    /* Kafka leaves out of "all topics" those the principal may not describe. */
    if (!gr_authorize_quiet(all->b, all->req->session, GR_ACL_OPERATION_DESCRIBE,
                            GR_ACL_RESOURCE_TYPE_TOPIC, topic->name, strlen(topic->name)))
        return;
    gr_metadata_response_metadata_response_topic_t *t =
        &all->resp->topics[all->resp->topics_count++];
    gr_metadata_response_metadata_response_topic_init(t);
    fill_topic(all->b, all->req, topic, all->include_ops, t);
}

/*
 * Kafka's checks for a topic named in Metadata: DESCRIBE on it, and for one
 * to be auto-created, CREATE on the cluster or on the topic.
 */
static gr_kerr_t authorize_named(gr_broker_t *b, gr_request_t *req, gr_str_t name,
                                 bool allow_create)
{
    if (!b->authorizer)
        return GR_KERR_NONE;
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE, GR_ACL_RESOURCE_TYPE_TOPIC,
                          name))
        return GR_KERR_TOPIC_AUTHORIZATION_FAILED;
    if (!allow_create || gr_topics_find(b->topics, name.ptr, (size_t)name.len))
        return GR_KERR_NONE;
    bool may_create =
        gr_authorize_quiet(b, req->session, GR_ACL_OPERATION_CREATE, GR_ACL_RESOURCE_TYPE_CLUSTER,
                           GR_ACL_CLUSTER_NAME, strlen(GR_ACL_CLUSTER_NAME)) ||
        gr_authorize_str(b, req->session, GR_ACL_OPERATION_CREATE, GR_ACL_RESOURCE_TYPE_TOPIC,
                         name);
    return may_create ? GR_KERR_NONE : GR_KERR_TOPIC_AUTHORIZATION_FAILED;
}

/* Fills the requested topics; returns how many are being auto-created (LEADER_NOT_AVAILABLE). */
static int fill_requested(gr_broker_t *b, gr_request_t *req, const gr_metadata_request_t *in,
                          gr_metadata_response_t *resp)
{
    bool allow_create = req->api_version < 4 || in->allow_auto_topic_creation;
    int creating = 0;
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
            if (topic &&
                !gr_authorize(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                              GR_ACL_RESOURCE_TYPE_TOPIC, topic->name, strlen(topic->name))) {
                topic = NULL;
                kerr = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            }
        } else {
            t->name = want->name;
            kerr = authorize_named(b, req, want->name, allow_create);
            if (!kerr)
                topic = gr_topic_find_or_create(b, want->name, allow_create, &kerr);
        }
        if (topic)
            fill_topic(b, req, topic, in->include_topic_authorized_operations, t);
        else
            t->error_code = kerr;
        creating += !topic && kerr == GR_KERR_LEADER_NOT_AVAILABLE;
    }
    return creating;
}

/* A Metadata request waiting for the topics it auto-created. */
typedef struct metadata_wait {
    gr_metadata_request_t in;
    gr_metadata_response_t resp;
} metadata_wait_t;

/* Whether every topic answered LEADER_NOT_AVAILABLE now exists with its leaders. */
static bool created_topics_led(gr_request_t *req, void *arg)
{
    metadata_wait_t *mw = arg;
    for (int32_t i = 0; i < mw->resp.topics_count; i++) {
        const gr_metadata_response_metadata_response_topic_t *t = &mw->resp.topics[i];
        if (t->error_code != GR_KERR_LEADER_NOT_AVAILABLE)
            continue;
        gr_topic_t *topic = gr_topics_find(req->broker->topics, t->name.ptr, (size_t)t->name.len);
        if (!topic || !gr_topic_led(req->broker, topic->name, topic->partition_count))
            return false;
    }
    return true;
}

static int fill_brokers(gr_broker_t *b, gr_request_t *req, gr_metadata_response_t *resp);

/*
 * Everything is filled again: what the response pointed at (the broker list,
 * partition replicas) may have been replaced by UpdateMetadata meanwhile.
 */
static void answer_created(gr_request_t *req, void *arg, bool timed_out)
{
    (void)timed_out; /* then the topics still being created say so again, as Kafka answers */
    metadata_wait_t *mw = arg;
    if (fill_brokers(req->broker, req, &mw->resp)) {
        gr_request_fail(req, "out of memory");
        return;
    }
    (void)fill_requested(req->broker, req, &mw->in, &mw->resp);
    gr_request_respond(req, &mw->resp);
}

/* The live brokers, the cluster id and the controller. 0 or -ENOMEM. */
static int fill_brokers(gr_broker_t *b, gr_request_t *req, gr_metadata_response_t *resp)
{
    size_t nodes = b->cluster->node_count;
    gr_metadata_response_metadata_response_broker_t *broker =
        gr_request_alloc_array(req, (int64_t)nodes, sizeof(*broker));
    if (!broker)
        return -ENOMEM;
    int32_t n = 0;
    for (size_t i = 0; i < nodes; i++) {
        const gr_cluster_node_t *node = &b->cluster->nodes[i];
        gr_metadata_response_metadata_response_broker_t *out = &broker[n];
        gr_metadata_response_metadata_response_broker_init(out);
        if (!gr_request_node_endpoint(req, node, &out->host, &out->port))
            continue; /* not reachable on this listener */
        out->node_id = node->id;
        out->rack = gr_str(node->id == b->config.broker_id ? b->config.broker_rack : node->rack);
        n++;
    }
    resp->brokers = broker;
    resp->brokers_count = n;
    resp->cluster_id = gr_str(b->cluster_id);
    resp->controller_id = b->cluster->controller_id;
    return 0;
}

void gr_handle_metadata(gr_broker_t *b, gr_request_t *req)
{
    metadata_wait_t *mw = gr_request_alloc(req, sizeof *mw);
    if (!mw) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_metadata_request_t *in = &mw->in;
    if (gr_request_decode(req, in))
        return;
    gr_metadata_response_t *resp = &mw->resp;
    gr_metadata_response_init(resp);
    bool all = in->topics_null || (req->api_version == 0 && in->topics_count == 0);
    size_t want = all ? b->topics->count : (size_t)in->topics_count;
    resp->topics = gr_request_alloc_array(req, (int64_t)want, sizeof(*resp->topics));
    if (!resp->topics || fill_brokers(b, req, resp)) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (in->include_cluster_authorized_operations)
        resp->cluster_authorized_operations =
            gr_authorized_ops(b, req->session, GR_ACL_RESOURCE_TYPE_CLUSTER, GR_ACL_CLUSTER_NAME,
                              strlen(GR_ACL_CLUSTER_NAME));
    if (all) {
        all_topics_t ctx = {b, req, resp, in->include_topic_authorized_operations};
        resp->topics_count = 0;
        gr_topics_foreach(b->topics, add_topic, &ctx);
    } else if (fill_requested(b, req, in, resp) > 0) {
        gr_admin_wait_t *w =
            gr_admin_wait_new(req, GR_AUTO_CREATE_WAIT_MS, created_topics_led, answer_created, mw);
        if (w) {
            gr_admin_wait_release(w); /* answered once the controller has created them */
            return;
        }
    }
    gr_request_respond(req, resp);
}
