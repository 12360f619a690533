/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SASL login of a peer's connections (gr_peer_set_sasl): the
 * AUTHENTICATING state of peer.h, entered from on_connected in peer.c once
 * TCP (and TLS) is up, and again on a connected peer when the session the
 * broker granted is ending (re-authentication, KIP-368).
 *
 * While a login runs, the callers' requests wait in p->held and the queue
 * carries only SASL requests, so nothing else reaches a broker that has not
 * authenticated us. The exchange, with the function doing each step:
 *   gr_peer_auth_begin / auth_start   SaslHandshake v1 naming the mechanism;
 *                                     held = the callers' queue
 *   auth_handshake_done               mechanism accepted -> auth_next
 *   auth_next                         the mechanism's step: a token to send
 *                                     (SaslAuthenticate v2, auth_send), or done
 *   auth_authenticate_done            the broker's token -> auth_next; a
 *                                     session lifetime sets reauth_at
 *   auth_done                         held goes back to the queue ->
 *                                     CONNECTED (gr_peer_announce_connected)
 * A refused mechanism, a failed authentication or a token the mechanism
 * rejects fails the attempt with EACCES (gr_peer_attempt_failed), which
 * closes the connection and retries with backoff; close_socket calls
 * gr_peer_auth_abandon to give the held requests back. A response that
 * arrives after the connection went (rc < 0, or the state moved on) is
 * ignored.
 *
 * Re-authentication (gr_peer_maybe_reauthenticate, from gr_peer_send): at
 * AUTH_REAUTH_SHARE of the session lifetime, once every queued request is
 * written, the same exchange runs again on the open connection; requests in
 * flight are answered first, in order.
 *
 * Runs on: loop thread.
 */
#include "net/peer.h"
#include "net/peer_int.h"

#include <errno.h>
#include <stdio.h>

#include "gen/sasl_authenticate.h"
#include "gen/sasl_handshake.h"
#include "protocol/codec.h"

#define AUTH_HANDSHAKE_VERSION    1 /* SaslAuthenticate frames carry the tokens */
#define AUTH_AUTHENTICATE_VERSION 2
#define AUTH_WHY_MAX              320
/* Re-authenticate at this share of the session lifetime, as Kafka's clients (85-95%). */
#define AUTH_REAUTH_SHARE 0.85

static void auth_handshake_done(void *opaque, int rc, const void *response);
static void auth_authenticate_done(void *opaque, int rc, const void *response);

/* Queues one SASL request; the callers' requests are held aside meanwhile. */
static int auth_send(gr_peer_t *p, int16_t api_key, int16_t version, const void *request,
                     gr_peer_response_fn *cb)
{
    gr_peer_req_t *r;
    int rc = gr_peer_new_request(p, api_key, version, request, cb, p, &r);
    if (rc)
        return rc;
    gr_peer_list_push(&p->queue, r);
    ev_io_start(p->loop, &p->write_watcher);
    return 0;
}

/*
 * Starts an exchange: the callers' unsent requests are set aside and the
 * SaslHandshake goes first. Allocates before it changes anything, so a
 * failure (-ENOMEM) leaves the peer as it was.
 */
static int auth_start(gr_peer_t *p)
{
    void *exchange = p->sasl->start(p->sasl->arg);
    if (!exchange)
        return -ENOMEM;
    gr_sasl_handshake_request_t req;
    gr_sasl_handshake_request_init(&req);
    req.mechanism = gr_str(p->sasl->mechanism);
    gr_peer_req_t *r;
    if (gr_peer_new_request(p, GR_API_SASL_HANDSHAKE, AUTH_HANDSHAKE_VERSION, &req,
                            auth_handshake_done, p, &r)) {
        p->sasl->end(exchange);
        return -ENOMEM;
    }
    p->state = GR_PEER_AUTHENTICATING;
    p->reauth_at = 0;
    p->exchange = exchange;
    p->held = p->queue;
    p->queue = (gr_peer_list_t){NULL, NULL};
    gr_peer_list_push(&p->queue, r);
    ev_io_start(p->loop, &p->write_watcher);
    return 0;
}

void gr_peer_auth_begin(gr_peer_t *p)
{
    if (auth_start(p))
        gr_peer_attempt_failed(p, ENOMEM, "no memory for SASL");
}

/* The connection closes mid-exchange: SASL requests not written go, the callers' come back. */
void gr_peer_auth_abandon(gr_peer_t *p)
{
    gr_peer_req_t *r;
    while ((r = gr_peer_list_pop(&p->queue))) {
        p->pending--;
        gr_peer_req_free(r);
    }
    p->queue = p->held;
    p->held = (gr_peer_list_t){NULL, NULL};
    gr_peer_update_liveness(p);
    if (p->exchange)
        p->sasl->end(p->exchange);
    p->exchange = NULL;
}

static void auth_done(gr_peer_t *p)
{
    p->sasl->end(p->exchange);
    p->exchange = NULL;
    gr_peer_req_t *r;
    while ((r = gr_peer_list_pop(&p->held)))
        gr_peer_list_push(&p->queue, r);
    gr_logf(p->log, GR_LOG_DEBUG, "net", "broker %d at %s:%d: authenticated with %s", p->node_id,
            p->host, p->port, p->sasl->mechanism);
    gr_peer_announce_connected(p);
}

/* Feeds the broker's token (NULL first) to the exchange and sends its answer. */
static void auth_next(gr_peer_t *p, const uint8_t *in, size_t len)
{
    const uint8_t *out = NULL;
    size_t out_len = 0;
    int rc = p->sasl->step(p->exchange, in, len, &out, &out_len);
    if (rc == 0) {
        auth_done(p);
        return;
    }
    if (rc < 0) {
        gr_peer_attempt_failed(p, EACCES,
                               rc == -EACCES
                                   ? "SASL: the broker did not prove it knows the credential"
                                   : "SASL: the broker's token is malformed");
        return;
    }
    gr_sasl_authenticate_request_t req;
    gr_sasl_authenticate_request_init(&req);
    req.auth_bytes = (gr_bytes_t){out, (int32_t)out_len};
    if (auth_send(p, GR_API_SASL_AUTHENTICATE, AUTH_AUTHENTICATE_VERSION, &req,
                  auth_authenticate_done))
        gr_peer_attempt_failed(p, ENOMEM, "no memory for SASL");
}

static void auth_handshake_done(void *opaque, int rc, const void *response)
{
    gr_peer_t *p = opaque;
    if (rc < 0 || p->state != GR_PEER_AUTHENTICATING)
        return; /* the connection went; close_socket cleaned up */
    const gr_sasl_handshake_response_t *resp = response;
    if (resp->error_code) {
        char why[AUTH_WHY_MAX];
        snprintf(why, sizeof why, "SASL mechanism %s refused (error %d)", p->sasl->mechanism,
                 resp->error_code);
        gr_peer_attempt_failed(p, EACCES, why);
        return;
    }
    auth_next(p, NULL, 0);
}

static void auth_authenticate_done(void *opaque, int rc, const void *response)
{
    gr_peer_t *p = opaque;
    if (rc < 0 || p->state != GR_PEER_AUTHENTICATING)
        return;
    const gr_sasl_authenticate_response_t *resp = response;
    if (resp->error_code) {
        char why[AUTH_WHY_MAX];
        snprintf(why, sizeof why, "SASL authentication failed (error %d): %.*s", resp->error_code,
                 resp->error_message.len > 0 ? (int)resp->error_message.len : 0,
                 resp->error_message.ptr ? resp->error_message.ptr : "");
        gr_peer_attempt_failed(p, EACCES, why);
        return;
    }
    if (resp->session_lifetime_ms > 0)
        p->reauth_at =
            ev_now(p->loop) + AUTH_REAUTH_SHARE * (double)resp->session_lifetime_ms / 1000;
    bool has = resp->auth_bytes.ptr && resp->auth_bytes.len > 0;
    auth_next(p, has ? resp->auth_bytes.ptr : NULL, has ? (size_t)resp->auth_bytes.len : 0);
}

/*
 * The session the broker granted is ending: log in again on this connection
 * before the next request. Only once every queued request is written: a TLS
 * write that wants a retry must be retried with the same bytes. Requests
 * already in flight are answered first, in order. Without memory nothing
 * changes and the next send tries again.
 */
void gr_peer_maybe_reauthenticate(gr_peer_t *p)
{
    if (p->state != GR_PEER_CONNECTED || !p->reauth_at || ev_now(p->loop) < p->reauth_at ||
        p->queue.head)
        return;
    if (auth_start(p) == 0)
        gr_logf(p->log, GR_LOG_DEBUG, "net", "broker %d at %s:%d: re-authenticating with %s",
                p->node_id, p->host, p->port, p->sasl->mechanism);
}

void gr_peer_set_sasl(gr_peer_t *p, const gr_peer_sasl_t *sasl)
{
    p->sasl = sasl;
}
