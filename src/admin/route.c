/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin's routing of controller-only requests: in a cluster only the
 * controller serves CreateTopics, DeleteTopics, CreatePartitions and
 * ElectLeaders (the other brokers answer NOT_CONTROLLER), so the tool asks
 * the bootstrap broker's Metadata for the controller, connects to it, and
 * refreshes and retries while the controller moves. A single broker is
 * always its own controller: the connection stays as it is.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "admin/admin.h"
#include "gen/metadata.h"

#define ROUTE_METADATA_MIN_V 1 /* the first with controller_id */
#define ROUTE_METADATA_MAX_V 12
#define ROUTE_RETRY_MS       15000
#define ROUTE_BACKOFF_MS     250
#define NS_PER_MS            1000000L
#define MS_PER_SEC           1000L

enum route_outcome { ROUTED, ROUTE_RETRY };

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * MS_PER_SEC + ts.tv_nsec / NS_PER_MS;
}

static void backoff(void)
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
    int64_t deadline = now_ms() + ROUTE_RETRY_MS;
    for (;;) {
        if (to_controller(a) == ROUTED) {
            int16_t v = gr_admin_version(a, api, want_max);
            if (v < 0 || gr_admin_call(a, api, v, req, resp))
                return -1;
            if (error_of(resp) != GR_KERR_NOT_CONTROLLER || now_ms() >= deadline)
                return 0;
        } else if (now_ms() >= deadline) {
            fprintf(stderr, "error: no controller reachable through %s\n", a->bootstrap);
            return -1;
        }
        backoff();
    }
}
