/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quotas applied to requests: see quota_throttle.h.
 *
 * The request quota is Kafka's: handler time in percent of one thread, so
 * value recorded = seconds of handler time x 100, and the rate per second
 * of that is the percentage. The throttle already due before a request
 * runs is put in req->throttle_ms so Produce and Fetch report it.
 *
 * Runs on: loop thread.
 */
#include "handlers/quota_throttle.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/context.h"
#include "gen/api_versions.h"
#include "gen/sasl_authenticate.h"
#include "gen/sasl_handshake.h"
#include "security/session.h"

#define PRINCIPAL_USER_PREFIX "User:"
#define NS_PER_SEC            1e9
#define PERCENT               100.0

/* The user part of the session's principal ("alice" of "User:alice"). */
static const char *user_of(const gr_request_t *req)
{
    const char *p = req->session ? req->session->principal : GR_PRINCIPAL_ANONYMOUS;
    size_t prefix = strlen(PRINCIPAL_USER_PREFIX);
    return strncmp(p, PRINCIPAL_USER_PREFIX, prefix) == 0 ? p + prefix : p;
}

/* The client id, NUL-terminated (cut at GR_QUOTA_NAME_MAX bytes), into out. */
static void client_of(const gr_request_t *req, char out[GR_QUOTA_NAME_MAX + 1])
{
    int32_t len = req->client_id.ptr && req->client_id.len > 0 ? req->client_id.len : 0;
    if (len > GR_QUOTA_NAME_MAX)
        len = GR_QUOTA_NAME_MAX;
    memcpy(out, req->client_id.ptr ? req->client_id.ptr : "", (size_t)len);
    out[len] = '\0';
}

int32_t gr_request_quota_record(gr_request_t *req, gr_quota_type_t type, double value)
{
    gr_broker_t *b = req->broker;
    int64_t ms = req->throttle_ms;
    if (!gr_quotas_enabled(b->quotas, type))
        return (int32_t)ms;
    char client[GR_QUOTA_NAME_MAX + 1];
    client_of(req, client);
    int64_t due =
        gr_quotas_record(b->quotas, type, user_of(req), client, value, gr_broker_now_ms(b));
    if (due > ms)
        ms = due;
    return ms > INT32_MAX ? INT32_MAX : (int32_t)ms;
}

void gr_request_throttle(gr_request_t *req, int32_t ms)
{
    if (ms > 0)
        gr_conn_throttle(req->conn, ms);
}

static bool exempt(int16_t api_key)
{
    return api_key == GR_API_API_VERSIONS || api_key == GR_API_SASL_HANDSHAKE ||
           api_key == GR_API_SASL_AUTHENTICATE;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / NS_PER_SEC;
}

void gr_request_handle_measured(gr_broker_t *b, gr_request_t *req, gr_handler_fn handle)
{
    if (!gr_quotas_enabled(b->quotas, GR_QUOTA_REQUEST) || exempt(req->api_key)) {
        handle(b, req);
        return;
    }
    /* The handler may complete and the slot be reused: keep what is needed after it. */
    gr_conn_t *conn = req->conn;
    char user[GR_PRINCIPAL_MAX], client[GR_QUOTA_NAME_MAX + 1];
    snprintf(user, sizeof user, "%s", user_of(req));
    client_of(req, client);
    req->throttle_ms =
        (int32_t)gr_quotas_peek(b->quotas, GR_QUOTA_REQUEST, user, client, gr_broker_now_ms(b));
    double start = now_seconds();
    handle(b, req);
    double used = (now_seconds() - start) * PERCENT;
    int64_t ms =
        gr_quotas_record(b->quotas, GR_QUOTA_REQUEST, user, client, used, gr_broker_now_ms(b));
    gr_conn_throttle(conn, ms);
}
