/* SPDX-License-Identifier: Apache-2.0 */
/* Request dispatch and response encoding: see request.h. Runs on: loop thread. */
#include "handlers/request.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "handlers/handlers.h"
#include "handlers/quota_throttle.h"
#include "handlers/request_stats.h"
#include "handlers/slow_log.h"
#include "handlers/start_gate.h"
#include "gen/api_versions.h"
#include "gen/codec_registry.h"
#include "gen/headers.h"
#include "log/log.h"
#include "core/clock.h"
#include "protocol/frame.h"
#include "security/session.h"

#define GR_REQUEST_PEEK_BYTES 4 /* int16 api key + int16 api version */

const gr_api_handler_t *gr_api_handler_find(int16_t key)
{
    for (size_t i = 0; i < gr_api_handler_count; i++)
        if (gr_api_handlers[i].key == key)
            return &gr_api_handlers[i];
    return NULL;
}

void *gr_request_alloc(gr_request_t *req, size_t n)
{
    return gr_arena_alloc(req->arena, n);
}

void *gr_request_alloc_array(gr_request_t *req, int64_t count, size_t size)
{
    return gr_arena_alloc_array(req->arena, count, size);
}

/* Answers an ApiVersions request of an unsupported version at v0 (KIP-511). */
static void respond_api_versions_unsupported(gr_broker_t *b, gr_request_t *req)
{
    gr_api_versions_response_t resp;
    gr_api_versions_response_init(&resp);
    resp.error_code = GR_KERR_UNSUPPORTED_VERSION;
    gr_broker_fill_api_versions(b, req, &resp);
    req->api_version = 0;
    gr_request_respond(req, &resp);
}

/* Decodes the request header of version hv; the body reader starts after it. */
static int decode_header(gr_request_t *req, int16_t hv, const uint8_t *frame, size_t len)
{
    gr_request_header_t header;
    gr_reader_t r;
    gr_reader_init(&r, frame, len);
    int rc = gr_request_header_decode(&r, hv, req->arena, &header);
    if (rc)
        return rc;
    req->correlation_id = header.correlation_id;
    req->client_id = header.client_id;
    req->body = r;
    return 0;
}

void gr_request_dispatch(gr_conn_t *c, gr_resp_slot_t *slot, const uint8_t *frame, size_t len,
                         void *opaque)
{
    gr_broker_t *b = opaque;
    gr_arena_t *arena = gr_resp_slot_arena(slot);
    gr_request_t *req = gr_arena_alloc(arena, sizeof(*req));
    if (!req) {
        gr_conn_close(c, "out of memory for a request");
        return;
    }
    req->broker = b;
    req->conn = c;
    req->slot = slot;
    req->arena = arena;
    req->session = gr_session_of(c);
    if (!req->session) {
        gr_request_fail(req, "out of memory for a session");
        return;
    }
    if (req->session->state == GR_SESSION_SASL_RAW) {
        /* After SaslHandshake v0 the frame is a bare SASL token. */
        gr_sasl_handle_raw(b, req, frame, len);
        return;
    }
    if (len < GR_REQUEST_PEEK_BYTES) {
        gr_request_fail(req, "request shorter than its header");
        return;
    }
    req->api_key = (int16_t)(frame[0] << 8 | frame[1]);
    req->api_version = (int16_t)(frame[2] << 8 | frame[3]);
    req->api = gr_api_find(req->api_key);
    const gr_api_handler_t *h = gr_api_handler_find(req->api_key);
    if (req->api)
        gr_resp_slot_set_tag(slot, req); /* gr_request_sent times it */
    if (!h || !req->api) {
        gr_logf(&b->log, GR_LOG_WARN, "net", "%s: unknown API key %d, closing", gr_conn_peer(c),
                req->api_key);
        gr_request_fail(req, "unknown API key");
        return;
    }
    if (!gr_sasl_gate_allows(b, req)) {
        gr_request_fail(req, "not authenticated");
        return;
    }
    bool supported = req->api_version >= h->min_version && req->api_version <= h->max_version;
    if (!supported && req->api_key != GR_API_API_VERSIONS) {
        gr_logf(&b->log, GR_LOG_WARN, "net", "%s: %s v%d is not supported, closing",
                gr_conn_peer(c), req->api->name, req->api_version);
        gr_request_fail(req, "unsupported API version");
        return;
    }
    /* An ApiVersions request of a version we don't know is read with the
     * oldest header, v1: its fields are a prefix of every later header. */
    int16_t hv = gr_frame_request_header_version(req->api, supported ? req->api_version : 0);
    int rc = decode_header(req, hv, frame, len);
    if (rc) {
        gr_logf(&b->log, GR_LOG_WARN, "net", "%s: malformed request header, closing",
                gr_conn_peer(c));
        gr_request_fail(req, "malformed request header");
        return;
    }
    if (!supported) {
        respond_api_versions_unsupported(b, req);
        return;
    }
    b->stats.requests++;
    if (b->start_gate && gr_start_gate_holds(b, req, h->handle))
        return;
    gr_request_handle_measured(b, req, h->handle);
}

int gr_request_decode(gr_request_t *req, void *msg)
{
    int rc = req->api->request->decode(&req->body, req->api_version, req->arena, msg);
    if (rc) {
        gr_logf(&req->broker->log, GR_LOG_WARN, "net", "%s: malformed %s v%d body (%s), closing",
                gr_conn_peer(req->conn), req->api->request->name, req->api_version, strerror(-rc));
        gr_request_fail(req, "malformed request body");
        return -EBADMSG;
    }
    return 0;
}

/* Maps a records hole (a log segment) to its fd, with segment refcounting. */
static int resolve_segment(void *opaque, void *file, int *out_fd,
                           const gr_chain_file_ops_t **out_ops)
{
    static const gr_chain_file_ops_t segment_ops = {gr_segment_get_opaque, gr_segment_put_opaque};
    (void)opaque;
    int fd = gr_segment_fd(file);
    if (fd < 0)
        return fd;
    *out_fd = fd;
    *out_ops = &segment_ops;
    return 0;
}

typedef struct error_count_ctx {
    gr_request_stats_t *stats;
    int16_t api_key;
} error_count_ctx_t;

static void count_error(void *ctx, int16_t code)
{
    error_count_ctx_t *ec = ctx;
    gr_request_stats_error(ec->stats, ec->api_key, code);
}

/* Every error code of the response, NONE too, as Kafka's ErrorsPerSec counts them. */
static void count_errors(gr_request_t *req, const void *msg)
{
    gr_request_stats_t *stats = req->broker->request_stats;
    if (!stats || !req->api->response->errors)
        return;
    error_count_ctx_t ec = {stats, req->api_key};
    req->api->response->errors(req->api_version, msg, count_error, &ec);
}

int gr_request_encode(gr_request_t *req, const void *msg)
{
    gr_writer_t w;
    gr_writer_init(&w);
    size_t size_pos = gr_write_reserve(&w, GR_FRAME_SIZE_BYTES);
    gr_response_header_t header;
    gr_response_header_init(&header);
    header.correlation_id = req->correlation_id;
    gr_response_header_encode(&w, gr_frame_response_header_version(req->api, req->api_version),
                              &header);
    int rc = req->api->response->encode(&w, req->api_version, msg);
    gr_writer_put_int32(&w, size_pos, (int32_t)(gr_writer_total(&w) - GR_FRAME_SIZE_BYTES));
    if (rc == 0)
        rc = gr_chain_add_writer(gr_resp_slot_chain(req->slot), &w, resolve_segment, NULL);
    gr_writer_fini(&w);
    if (rc == 0)
        count_errors(req, msg); /* only what is sent */
    else
        gr_logf(&req->broker->log, GR_LOG_ERROR, "net", "%s: cannot encode %s v%d: %s",
                gr_conn_peer(req->conn), req->api->response->name, req->api_version, strerror(-rc));
    return rc;
}

void gr_request_fail(gr_request_t *req, const char *reason)
{
    gr_conn_t *conn = req->conn;
    /* The slot goes back to the connection first: close then frees it, and the
     * request with it, without calling the holder's cancel on itself. */
    gr_resp_slot_complete_empty(req->slot);
    gr_conn_close(conn, reason);
}

void gr_request_respond(gr_request_t *req, const void *msg)
{
    if (gr_request_encode(req, msg) == 0)
        gr_resp_slot_complete(req->slot, NULL);
    else
        gr_request_fail(req, "response encoding failed");
}

void gr_request_respond_none(gr_request_t *req)
{
    gr_resp_slot_complete_empty(req->slot);
}

/* Logs a request over gregor.request.slow.log.ms, at most one line a second. */
static void log_if_slow(gr_broker_t *b, const gr_request_t *req, const int64_t *times)
{
    int64_t threshold_ms = b->config.gregor_request_slow_log_ms;
    int64_t own = times[GR_REQUEST_TIME_TOTAL] - times[GR_REQUEST_TIME_REMOTE];
    if (threshold_ms <= 0 || own < threshold_ms * GR_NS_PER_MS)
        return;
    uint64_t suppressed;
    if (!gr_slow_log_admit(&b->request_stats->slow_log, gr_clock_mono_ns(), &suppressed))
        return;
    gr_slow_request_t r = {
        .api = req->api->name,
        .version = req->api_version,
        .client_id = req->client_id.ptr,
        .client_id_len = req->client_id.ptr ? req->client_id.len : -1,
        .peer = gr_conn_peer(req->conn),
        .total_ns = times[GR_REQUEST_TIME_TOTAL],
        .queue_ns = times[GR_REQUEST_TIME_QUEUE],
        .local_ns = times[GR_REQUEST_TIME_LOCAL],
        .remote_ns = times[GR_REQUEST_TIME_REMOTE],
        .send_ns = times[GR_REQUEST_TIME_SEND],
    };
    char line[GR_SLOW_LOG_LINE_MAX];
    gr_slow_log_format(line, sizeof line, &r, threshold_ms, suppressed);
    gr_logf(&b->log, GR_LOG_WARN, "net", "%s", line);
}

void gr_request_sent(gr_conn_t *c, void *tag, const gr_slot_times_t *t, void *opaque)
{
    gr_broker_t *b = opaque;
    gr_request_t *req = tag;
    (void)c;
    if (!req || !b->request_stats)
        return;
    int64_t times[GR_REQUEST_TIMES];
    gr_request_stats_times(t, times);
    gr_request_stats_record(b->request_stats, req->api_key, req->api_version, times);
    log_if_slow(b, req, times);
}
