/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One request in flight: its decoded header, its body still to decode, and
 * the response slot it answers through. Lives in the slot's arena, so it is
 * valid until the slot completes (or is cancelled by a closing connection).
 *
 * Dispatch (gr_request_dispatch, the connection's on_frame):
 *   frame -> (SASL_RAW session: a bare SASL token, handlers/sasl.c)
 *   -> api key/version peek -> advertised-API lookup
 *   -> SASL gate (handlers/sasl.c): before authentication only ApiVersions
 *      and the SASL APIs, after connections.max.reauth.ms only the SASL
 *      APIs; anything else closes
 *     unknown key, or version outside the advertised range: close
 *       (except ApiVersions: answered at v0 with UNSUPPORTED_VERSION and the
 *       supported list, so clients can downgrade)
 *   -> request header decode (v0/v1/v2 by the API's flexible versions)
 *   -> start gate (handlers/start_gate.h): a cluster broker not yet told the
 *      cluster by its controller parks client requests until it is
 *   -> handler(broker, request), which completes or defers the slot.
 * Bytes left after a request body are ignored, as Kafka does.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_REQUEST_H
#define GR_HANDLERS_REQUEST_H

#include <stdint.h>

#include "net/conn.h"
#include "protocol/codec.h"
#include "protocol/kerr.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_request gr_request_t;

typedef void (*gr_handler_fn)(gr_broker_t *b, gr_request_t *req);

/* One API the broker serves, with the versions it advertises. */
typedef struct gr_api_handler {
    int16_t key;
    int16_t min_version;
    int16_t max_version;
    gr_handler_fn handle;
} gr_api_handler_t;

struct gr_request {
    gr_broker_t *broker;
    gr_conn_t *conn;
    gr_resp_slot_t *slot;
    gr_arena_t *arena;
    const gr_api_desc_t *api;
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
    gr_str_t client_id;
    gr_reader_t body;           /* the body, after the header */
    struct gr_session *session; /* who sent it (security/session.h) */
    int32_t throttle_ms;        /* due to the request quota before it ran (quota_throttle.h) */
};

/*
 * The advertised API table, ordered by key: generated (build/gen/api_handlers.c)
 * from the `serve` lines of proto/, so the served versions and the handler of
 * an API sit beside its schema.
 */
extern const gr_api_handler_t gr_api_handlers[];
extern const size_t gr_api_handler_count;
const gr_api_handler_t *gr_api_handler_find(int16_t key);

/* The connection's on_frame: opaque is the broker. */
void gr_request_dispatch(gr_conn_t *c, gr_resp_slot_t *slot, const uint8_t *frame, size_t len,
                         void *opaque);

/*
 * The connection's on_sent: a response went out in full; records its
 * request's counts and times (request_stats.h) and logs it if slow
 * (slow_log.h). opaque is the broker.
 */
void gr_request_sent(gr_conn_t *c, void *tag, const gr_slot_times_t *t, void *opaque);

/*
 * Decodes the body into msg (a struct of the API's request type).
 * Returns 0; on malformed input logs, ends the request with gr_request_fail
 * and returns -EBADMSG: the handler must then return without touching the
 * request.
 */
int gr_request_decode(gr_request_t *req, void *msg);

/*
 * Encodes the response (header + msg, of the API's response type at the
 * request's version) into the slot and completes it. Records fields backed
 * by log segments are sent from the file; their references are taken here
 * and dropped once sent. If encoding fails the connection is closed.
 */
void gr_request_respond(gr_request_t *req, const void *msg);

/*
 * The two halves of gr_request_respond, for handlers that must release
 * resources after encoding but before the slot (and the request's arena)
 * may be freed. encode returns 0 or -errno (logged); on 0 the handler calls
 * gr_request_complete, otherwise gr_request_fail. Either ends the request.
 */
int gr_request_encode(gr_request_t *req, const void *msg);
static inline void gr_request_complete(gr_request_t *req)
{
    gr_resp_slot_complete(req->slot, NULL);
}

/*
 * Ends a request that cannot be answered (encoding failed, out of memory)
 * by completing its slot empty and closing its connection; handlers end a
 * request this way, never with gr_conn_close on req->conn. Safe for deferred
 * requests: the holder must have released what it keeps, since its cancel
 * callback is not called.
 */
void gr_request_fail(gr_request_t *req, const char *reason);

/* Completes the request with no response (acks=0 produce). */
void gr_request_respond_none(gr_request_t *req);

/* Allocates n zeroed bytes for the request's lifetime, or NULL. */
void *gr_request_alloc(gr_request_t *req, size_t n);

/*
 * Allocates count zeroed elements of size bytes for the request's lifetime.
 * count comes from client input: zero or negative (a null array) gives a
 * valid empty allocation, never NULL. Returns NULL only when out of memory.
 */
void *gr_request_alloc_array(gr_request_t *req, int64_t count, size_t size);

#endif
