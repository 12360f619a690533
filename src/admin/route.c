/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin's routing of controller-only requests: in a cluster only the
 * controller serves CreateTopics, DeleteTopics, CreatePartitions and
 * ElectLeaders (the other brokers answer NOT_CONTROLLER), so the tool asks
 * the bootstrap broker's Metadata for the controller, connects to it, and
 * refreshes and retries while the controller moves. A single broker is
 * always its own controller: the connection stays as it is.
 *
 * Other requests go to a broker chosen from Metadata: every broker in turn
 * (ListTransactions), a partition's leader (DescribeProducers, a
 * WriteTxnMarkers abort), or a coordinator FindCoordinator named; the tool
 * moves its one connection there (gr_admin_move_to).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "admin/admin.h"
#include "gen/find_coordinator.h"
#include "gen/metadata.h"

#define ROUTE_METADATA_MIN_V         1 /* the first with controller_id */
#define ROUTE_METADATA_MAX_V         12
#define ROUTE_FIND_COORDINATOR_MAX_V 3 /* one key per request */
#define ROUTE_RETRY_MS               15000
#define ROUTE_BACKOFF_MS             250
#define NS_PER_MS                    1000000L
#define MS_PER_SEC                   1000L

enum route_outcome { ROUTED, ROUTE_RETRY };

int64_t gr_admin_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * MS_PER_SEC + ts.tv_nsec / NS_PER_MS;
}

void gr_admin_backoff(void)
{
    struct timespec ts = {0, ROUTE_BACKOFF_MS * NS_PER_MS};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The broker's address as HOST:PORT, IPv6 hosts in brackets. */
static void format_addr(const gr_metadata_response_metadata_response_broker_t *b, char *out,
                        size_t len)
{
    bool v6 = b->host.len > 0 && memchr(b->host.ptr, ':', (size_t)b->host.len);
    snprintf(out, len, "%s%.*s%s:%d", v6 ? "[" : "", b->host.len > 0 ? b->host.len : 0,
             b->host.ptr ? b->host.ptr : "", v6 ? "]" : "", b->port);
}

/* A connection again, to the bootstrap broker, after one was lost. */
static int reconnect_bootstrap(gr_admin_t *a)
{
    gr_admin_close(a);
    return gr_admin_connect(a, a->bootstrap);
}

/* Moves the connection to the controller the connected broker names. */
static enum route_outcome to_controller(gr_admin_t *a)
{
    if (a->sock < 0 && reconnect_bootstrap(a))
        return ROUTE_RETRY;
    int16_t v = gr_admin_version(a, GR_API_METADATA, ROUTE_METADATA_MAX_V);
    if (v < ROUTE_METADATA_MIN_V)
        return ROUTE_RETRY;
    gr_metadata_request_t req;
    gr_metadata_request_init(&req);
    req.topics_count = 0; /* brokers and controller only */
    req.allow_auto_topic_creation = false;
    gr_metadata_response_t md;
    if (gr_admin_call(a, GR_API_METADATA, v, &req, &md)) {
        gr_admin_close(a);
        return ROUTE_RETRY;
    }
    if (md.brokers_count == 1)
        return ROUTED;
    const gr_metadata_response_metadata_response_broker_t *ctl = NULL;
    for (int32_t i = 0; i < md.brokers_count && md.controller_id >= 0; i++)
        if (md.brokers[i].node_id == md.controller_id)
            ctl = &md.brokers[i];
    if (!ctl)
        return ROUTE_RETRY; /* an election under way */
    char addr[GR_ADMIN_ADDR_MAX];
    format_addr(ctl, addr, sizeof addr);
    if (strcmp(addr, a->addr) == 0)
        return ROUTED;
    gr_admin_close(a);
    if (gr_admin_connect(a, addr)) {
        gr_admin_close(a); /* back to the bootstrap broker on the next try */
        return ROUTE_RETRY;
    }
    return ROUTED;
}

int gr_admin_controller_call(gr_admin_t *a, int16_t api, int16_t want_max, const void *req,
                             void *resp, gr_admin_error_of_fn error_of)
{
    int64_t deadline = gr_admin_now_ms() + ROUTE_RETRY_MS;
    for (;;) {
        if (to_controller(a) == ROUTED) {
            int16_t v = gr_admin_version(a, api, want_max);
            if (v < 0 || gr_admin_call(a, api, v, req, resp))
                return -1;
            if (error_of(resp) != GR_KERR_NOT_CONTROLLER || gr_admin_now_ms() >= deadline)
                return 0;
        } else if (gr_admin_now_ms() >= deadline) {
            fprintf(stderr, "error: no controller reachable through %s\n", a->bootstrap);
            return -1;
        }
        gr_admin_backoff();
    }
}

int gr_admin_move_to(gr_admin_t *a, const char *addr)
{
    if (a->sock >= 0 && strcmp(addr, a->addr) == 0)
        return 0;
    gr_admin_close(a);
    return gr_admin_connect(a, addr);
}

/* Metadata for topic (NULL: brokers only) from the bootstrap broker. 0 or -1 (printed). */
static int bootstrap_metadata(gr_admin_t *a, const char *topic, gr_metadata_response_t *md)
{
    if (gr_admin_move_to(a, a->bootstrap))
        return -1;
    int16_t v = gr_admin_version(a, GR_API_METADATA, ROUTE_METADATA_MAX_V);
    if (v < ROUTE_METADATA_MIN_V)
        return -1;
    gr_metadata_request_t req;
    gr_metadata_request_init(&req);
    gr_metadata_request_metadata_request_topic_t t;
    gr_metadata_request_metadata_request_topic_init(&t);
    t.name = gr_str(topic);
    req.topics = &t;
    req.topics_count = topic ? 1 : 0;
    req.allow_auto_topic_creation = false;
    return gr_admin_call(a, GR_API_METADATA, v, &req, md);
}

static void broker_entry(const gr_metadata_response_metadata_response_broker_t *b,
                         gr_admin_broker_t *out)
{
    out->node_id = b->node_id;
    format_addr(b, out->addr, sizeof out->addr);
}

int gr_admin_brokers(gr_admin_t *a, gr_admin_broker_t *out, int max)
{
    gr_metadata_response_t md;
    if (bootstrap_metadata(a, NULL, &md))
        return -1;
    int n = 0;
    for (int32_t i = 0; i < md.brokers_count && n < max; i++)
        broker_entry(&md.brokers[i], &out[n++]);
    return n;
}

int gr_admin_broker_find(gr_admin_t *a, int32_t node_id, gr_admin_broker_t *out)
{
    gr_metadata_response_t md;
    if (bootstrap_metadata(a, NULL, &md))
        return -1;
    for (int32_t i = 0; i < md.brokers_count; i++)
        if (md.brokers[i].node_id == node_id) {
            broker_entry(&md.brokers[i], out);
            return 0;
        }
    fprintf(stderr, "error: broker %d is not in the cluster's metadata\n", node_id);
    return -1;
}

int gr_admin_partition_route(gr_admin_t *a, const char *topic, int32_t partition,
                             gr_admin_broker_t *out, int16_t *error, bool *topic_error)
{
    int64_t deadline = gr_admin_now_ms() + ROUTE_RETRY_MS;
    for (;;) {
        gr_metadata_response_t md;
        if (bootstrap_metadata(a, topic, &md) || md.topics_count != 1)
            return -1;
        int16_t code = md.topics[0].error_code;
        *topic_error = code != GR_KERR_NONE;
        int32_t leader = -1;
        bool listed = false;
        for (int32_t i = 0; i < md.topics[0].partitions_count; i++)
            if (md.topics[0].partitions[i].partition_index == partition) {
                listed = true;
                leader = md.topics[0].partitions[i].leader_id;
                code = code ? code : md.topics[0].partitions[i].error_code;
            }
        if (code == GR_KERR_NONE && leader >= 0) {
            for (int32_t i = 0; i < md.brokers_count; i++)
                if (md.brokers[i].node_id == leader) {
                    broker_entry(&md.brokers[i], out);
                    *error = GR_KERR_NONE;
                    return 0;
                }
        }
        if (code == GR_KERR_NONE && !listed && md.topics[0].partitions_count > 0) {
            *error = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION; /* the topic has no such partition */
            return 0;
        }
        bool retriable = code == GR_KERR_NONE || code == GR_KERR_LEADER_NOT_AVAILABLE;
        if (!retriable || gr_admin_now_ms() >= deadline) {
            *error = code ? code : GR_KERR_LEADER_NOT_AVAILABLE;
            return 0;
        }
        gr_admin_backoff();
    }
}

int gr_admin_partition_leader(gr_admin_t *a, const char *topic, int32_t partition,
                              gr_admin_broker_t *out)
{
    int16_t code;
    bool topic_error;
    if (gr_admin_partition_route(a, topic, partition, out, &code, &topic_error))
        return -1;
    if (code == GR_KERR_UNKNOWN_TOPIC_OR_PARTITION && !topic_error)
        fprintf(stderr, "error: %s-%d: no such partition or no leader\n", topic, partition);
    else if (code)
        gr_admin_report(topic, code, gr_str(NULL));
    return code ? -1 : 0;
}

int gr_admin_group_coordinator(gr_admin_t *a, const char *group, gr_admin_broker_t *out)
{
    if (gr_admin_move_to(a, a->bootstrap))
        return -1;
    int16_t v = gr_admin_version(a, GR_API_FIND_COORDINATOR, ROUTE_FIND_COORDINATOR_MAX_V);
    if (v < 0)
        return -1;
    gr_find_coordinator_request_t req;
    gr_find_coordinator_request_init(&req);
    req.key = gr_str(group);
    req.key_type = GR_COORDINATOR_TYPE_GROUP;
    gr_find_coordinator_response_t resp;
    int64_t deadline = gr_admin_now_ms() + ROUTE_RETRY_MS;
    for (;;) {
        if (gr_admin_call(a, GR_API_FIND_COORDINATOR, v, &req, &resp))
            return -1;
        if (resp.error_code != GR_KERR_COORDINATOR_NOT_AVAILABLE &&
            resp.error_code != GR_KERR_COORDINATOR_LOAD_IN_PROGRESS)
            break;
        if (gr_admin_now_ms() >= deadline)
            break;
        gr_admin_backoff();
    }
    if (resp.error_code) {
        gr_admin_report(group, resp.error_code, resp.error_message);
        return -1;
    }
    out->node_id = resp.node_id;
    snprintf(out->addr, sizeof out->addr, "%.*s:%d", (int)resp.host.len, resp.host.ptr, resp.port);
    return gr_admin_move_to(a, out->addr);
}
