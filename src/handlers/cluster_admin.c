/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DescribeCluster (v0-2) and DescribeLogDirs (v0-4): what the cluster and
 * its storage look like. The brokers are the live ones this broker knows of
 * (itself alone in single-node mode, where it is also the controller); this
 * broker has one log dir (the first of log.dirs, where its partitions live).
 *
 * DescribeCluster v1 names the kind of endpoint wanted: brokers (1) are
 * served; controllers (2) are MISMATCHED_ENDPOINT_TYPE on a broker
 * listener, as in Kafka; any other value UNSUPPORTED_ENDPOINT_TYPE.
 * v2 may ask for fenced brokers too and marks each listed one: fencing is
 * KRaft's, so in ZooKeeper mode no broker is fenced and the list is the
 * same either way (is_fenced false).
 *
 * DescribeLogDirs lists, for the log dir, the requested partitions that it
 * holds (all with a null topic list) with their size on disk; offset lag 0
 * (a leader has none) and no future replicas. v4 adds the file system's
 * total and usable bytes (-1 when statvfs fails).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/request.h"
#include "log/log.h"
#include "log/log_dir.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "gen/describe_cluster.h"
#include "gen/describe_log_dirs.h"
#include "handlers/admin_common.h"
#include "handlers/handlers.h"
#include "handlers/listener_endpoint.h"

#define UNKNOWN_BYTES (-1LL)

void gr_handle_describe_cluster(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_cluster_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_cluster_response_t resp;
    gr_describe_cluster_response_init(&resp);
    int8_t endpoint = req->api_version >= 1 ? in.endpoint_type : GR_ENDPOINT_TYPE_BROKERS;
    resp.endpoint_type = endpoint;
    resp.cluster_id = gr_str(b->cluster_id);
    if (endpoint != GR_ENDPOINT_TYPE_BROKERS) {
        resp.error_code = endpoint == GR_ENDPOINT_TYPE_CONTROLLERS
                              ? GR_KERR_MISMATCHED_ENDPOINT_TYPE
                              : GR_KERR_UNSUPPORTED_ENDPOINT_TYPE;
        resp.error_message =
            gr_str(endpoint == GR_ENDPOINT_TYPE_CONTROLLERS
                       ? "The request was sent to an endpoint of type BROKER, but we wanted an "
                         "endpoint of type CONTROLLER"
                       : "Unsupported endpoint type");
        gr_request_respond(req, &resp);
        return;
    }
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_DESCRIBE)) {
        resp.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        gr_request_respond(req, &resp);
        return;
    }
    resp.controller_id = b->cluster->controller_id;
    size_t n = b->cluster->node_count;
    resp.brokers = gr_request_alloc_array(req, n ? n : 1, sizeof(*resp.brokers));
    if (!resp.brokers) {
        gr_request_fail(req, "out of memory");
        return;
    }
    int32_t count = 0;
    for (size_t i = 0; i < n; i++) {
        const gr_cluster_node_t *node = &b->cluster->nodes[i];
        gr_describe_cluster_response_describe_cluster_broker_t *out = &resp.brokers[count];
        gr_describe_cluster_response_describe_cluster_broker_init(out);
        if (!gr_request_node_endpoint(req, node, &out->host, &out->port))
            continue; /* not reachable on this listener */
        out->broker_id = node->id;
        out->rack = gr_str(node->id == b->config.broker_id ? b->config.broker_rack : node->rack);
        count++;
    }
    resp.brokers_count = count;
    if (in.include_cluster_authorized_operations)
        resp.cluster_authorized_operations =
            gr_authorized_ops(b, req->session, GR_ACL_RESOURCE_TYPE_CLUSTER, GR_ACL_CLUSTER_NAME,
                              strlen(GR_ACL_CLUSTER_NAME));
    gr_request_respond(req, &resp);
}

/* Fills out with topic's partitions that want names (all if want is NULL). 0 or -ENOMEM. */
static int describe_topic_dir(gr_request_t *req, gr_topic_t *topic,
                              const gr_describe_log_dirs_request_describable_log_dir_topic_t *want,
                              gr_describe_log_dirs_response_describe_log_dirs_topic_t *out)
{
    gr_describe_log_dirs_response_describe_log_dirs_topic_init(out);
    out->name = gr_str(topic->name);
    int32_t n = want ? want->partitions_count : topic->partition_count;
    out->partitions = gr_request_alloc_array(req, n, sizeof(*out->partitions));
    if (!out->partitions)
        return -ENOMEM;
    int32_t count = 0;
    for (int32_t i = 0; i < n; i++) {
        gr_partition_t *p = gr_topic_partition(topic, want ? want->partitions[i] : i);
        if (!p || !p->log)
            continue; /* not in this log dir */
        gr_describe_log_dirs_response_describe_log_dirs_partition_t *part =
            &out->partitions[count++];
        gr_describe_log_dirs_response_describe_log_dirs_partition_init(part);
        part->partition_index = p->index;
        part->partition_size = gr_log_size(p->log);
        part->offset_lag = 0;
        part->is_future_key = false;
    }
    out->partitions_count = count;
    return 0;
}

typedef struct all_topics {
    gr_request_t *req;
    gr_describe_log_dirs_response_describe_log_dirs_topic_t *out;
    int32_t count;
    int err;
} all_topics_t;

static void add_topic(gr_topic_t *topic, void *arg)
{
    all_topics_t *all = arg;
    if (!all->err)
        all->err = describe_topic_dir(all->req, topic, NULL, &all->out[all->count++]);
}

static int fill_dir_topics(gr_broker_t *b, gr_request_t *req,
                           const gr_describe_log_dirs_request_t *in,
                           gr_describe_log_dirs_response_describe_log_dirs_result_t *dir)
{
    if (in->topics_null) {
        all_topics_t all = {req, NULL, 0, 0};
        all.out = gr_request_alloc_array(req, (int64_t)b->topics->count, sizeof(*all.out));
        if (!all.out)
            return -ENOMEM;
        gr_topics_foreach(b->topics, add_topic, &all);
        dir->topics = all.out;
        dir->topics_count = all.count;
        return all.err;
    }
    dir->topics = gr_request_alloc_array(req, in->topics_count, sizeof(*dir->topics));
    if (!dir->topics)
        return -ENOMEM;
    int32_t count = 0;
    for (int32_t i = 0; i < in->topics_count; i++) {
        const gr_str_t name = in->topics[i].topic;
        gr_topic_t *topic =
            name.len > 0 ? gr_topics_find(b->topics, name.ptr, (size_t)name.len) : NULL;
        if (!topic)
            continue;
        if (describe_topic_dir(req, topic, &in->topics[i], &dir->topics[count]))
            return -ENOMEM;
        if (dir->topics[count].partitions_count > 0)
            count++;
    }
    dir->topics_count = count;
    return 0;
}

void gr_handle_describe_log_dirs(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_log_dirs_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_log_dirs_response_t resp;
    gr_describe_log_dirs_response_init(&resp);
    resp.results = gr_request_alloc_array(req, 1, sizeof(*resp.results));
    if (!resp.results)
        goto fail;
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_DESCRIBE)) {
        resp.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED; /* Kafka: the whole request */
        gr_request_respond(req, &resp);
        return;
    }
    gr_describe_log_dirs_response_describe_log_dirs_result_t *dir = &resp.results[0];
    gr_describe_log_dirs_response_describe_log_dirs_result_init(dir);
    const char *path = gr_log_dir_path(b->log_dir);
    dir->log_dir = gr_str(path);
    dir->total_bytes = UNKNOWN_BYTES;
    dir->usable_bytes = UNKNOWN_BYTES;
    struct statvfs fs;
    if (statvfs(path, &fs) == 0) {
        dir->total_bytes = (int64_t)fs.f_blocks * (int64_t)fs.f_frsize;
        dir->usable_bytes = (int64_t)fs.f_bavail * (int64_t)fs.f_frsize;
    }
    if (fill_dir_topics(b, req, &in, dir))
        goto fail;
    resp.results_count = 1;
    gr_request_respond(req, &resp);
    return;
fail:
    gr_request_fail(req, "out of memory");
}
