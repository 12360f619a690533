/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SASL on a connection (KIP-43, KIP-152, KIP-368): the gate that keeps an
 * unauthenticated client to ApiVersions and the SASL requests, SaslHandshake
 * (v0-1) choosing a mechanism, SaslAuthenticate (v0-2) carrying its tokens,
 * and the bare tokens kafka-python sends after SaslHandshake v0.
 *
 * Session transitions (security/session.h), all here:
 *   SASL_HANDSHAKE --SaslHandshake v1--> SASL_AUTHENTICATE
 *   SASL_HANDSHAKE --SaslHandshake v0--> SASL_RAW
 *   SASL_AUTHENTICATE / SASL_RAW --last token accepted--> AUTHENTICATED
 *   AUTHENTICATED --SaslHandshake v1 (re-authentication)--> SASL_AUTHENTICATE
 *   any failed login: the response (or nothing, raw) then the connection closes.
 *
 * Runs on: loop thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/api_versions.h"
#include "gen/sasl_authenticate.h"
#include "gen/sasl_handshake.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "protocol/frame.h"
#include "protocol/writer.h"
#include "security/sasl_config.h"
#include "security/sasl_server.h"
#include "security/session.h"

#define PRINCIPAL_USER_PREFIX "User:"

static const gr_sasl_listener_t *listener_of(gr_broker_t *b, const gr_session_t *s)
{
    return s->listener ? gr_sasl_listener_find(b->sasl, s->listener->name) : NULL;
}

static bool is_sasl_api(int16_t key)
{
    return key == GR_API_SASL_HANDSHAKE || key == GR_API_SASL_AUTHENTICATE;
}

bool gr_sasl_gate_allows(gr_broker_t *b, gr_request_t *req)
{
    gr_session_t *s = req->session;
    bool allowed;
    const char *why = "before SASL authentication";
    switch (s->state) {
    case GR_SESSION_OPEN:
        return true;
    case GR_SESSION_AUTHENTICATED:
        allowed = is_sasl_api(req->api_key) || s->reauth_deadline_ms == 0 ||
                  gr_broker_now_ms(b) < s->reauth_deadline_ms;
        why = "after its SASL session expired (connections.max.reauth.ms)";
        break;
    default:
        allowed = is_sasl_api(req->api_key) || req->api_key == GR_API_API_VERSIONS;
        break;
    }
    if (!allowed)
        gr_logf(&b->log, GR_LOG_WARN, "sasl", "%s: %s %s, closing", gr_conn_peer(req->conn),
                req->api ? req->api->name : "request", why);
    return allowed;
}

/* The listener's enabled mechanisms, for the handshake's answer. */
static int list_mechanisms(gr_request_t *req, const gr_sasl_listener_t *l,
                           gr_sasl_handshake_response_t *resp)
{
    resp->mechanisms = gr_request_alloc_array(req, GR_SASL_MECHANISM_COUNT, sizeof(gr_str_t));
    if (!resp->mechanisms)
        return -1;
    for (int m = 0; l && m < GR_SASL_MECHANISM_COUNT; m++)
        if (l->enabled[m])
            resp->mechanisms[resp->mechanisms_count++] = gr_str(gr_sasl_mechanism_name(m));
    return 0;
}

/* Checks the handshake and starts the exchange; the error code for the response. */
static gr_kerr_t start_exchange(gr_broker_t *b, gr_request_t *req, const gr_sasl_listener_t *l,
                                gr_str_t name)
{
    gr_session_t *s = req->session;
    bool reauth = s->state == GR_SESSION_AUTHENTICATED;
    if (!l || (s->state != GR_SESSION_SASL_HANDSHAKE && !(reauth && req->api_version >= 1)))
        return GR_KERR_ILLEGAL_SASL_STATE;
    char mechanism[GR_SASL_MECHANISM_MAX];
    snprintf(mechanism, sizeof mechanism, "%.*s", name.len > 0 ? (int)name.len : 0, name.ptr);
    /* The whole name, not a prefix: "PLAIN\0..." or a cut-off long name is not PLAIN. */
    bool whole = name.len >= 0 && (size_t)name.len < sizeof mechanism &&
                 strlen(mechanism) == (size_t)name.len;
    int m = gr_sasl_mechanism_find(mechanism);
    if (!whole || m < 0 || !l->enabled[m])
        return GR_KERR_UNSUPPORTED_SASL_MECHANISM;
    gr_sasl_server_t *x = gr_sasl_server_new(m, l, b->scram_users);
    if (!x)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_session_sasl_reset(s);
    s->sasl = x;
    s->sasl_free = gr_sasl_server_free;
    snprintf(s->mechanism, sizeof s->mechanism, "%s", mechanism);
    s->reauthenticating = reauth;
    s->state = req->api_version == 0 ? GR_SESSION_SASL_RAW : GR_SESSION_SASL_AUTHENTICATE;
    return GR_KERR_NONE;
}

void gr_handle_sasl_handshake(gr_broker_t *b, gr_request_t *req)
{
    gr_sasl_handshake_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_sasl_handshake_response_t resp;
    gr_sasl_handshake_response_init(&resp);
    const gr_sasl_listener_t *l = listener_of(b, req->session);
    if (list_mechanisms(req, l, &resp)) {
        gr_request_fail(req, "out of memory");
        return;
    }
    resp.error_code = start_exchange(b, req, l, in.mechanism);
    if (!resp.error_code || !l) { /* a plaintext listener answers and stays open, as Kafka */
        gr_request_respond(req, &resp);
        return;
    }
    gr_logf(&b->log, GR_LOG_WARN, "sasl", "%s: SaslHandshake for %.*s refused: %s, closing",
            gr_conn_peer(req->conn), in.mechanism.len > 0 ? (int)in.mechanism.len : 0,
            in.mechanism.ptr, gr_kerr_name(resp.error_code));
    /* As Kafka: the client learns the enabled mechanisms, then the connection ends. */
    gr_conn_t *c = req->conn;
    gr_request_respond(req, &resp);
    gr_conn_drain(c, "SaslHandshake refused");
}

/* connections.max.reauth.ms for s's listener and mechanism; 0: the session never expires. */
static int64_t session_lifetime_ms(gr_broker_t *b, const gr_session_t *s)
{
    const gr_sasl_listener_t *l = listener_of(b, s);
    int m = gr_sasl_mechanism_find(s->mechanism);
    return l && m >= 0 ? l->reauth_ms[m] : 0;
}

/*
 * The exchange succeeded: the connection is authenticated as user. A
 * re-authentication must name the same principal (Kafka's rule). Returns
 * false when it does not (the caller fails the login).
 */
static bool authenticated(gr_broker_t *b, gr_conn_t *c, gr_session_t *s, const char *user)
{
    char principal[GR_PRINCIPAL_MAX];
    snprintf(principal, sizeof principal, PRINCIPAL_USER_PREFIX "%s", user);
    if (s->reauthenticating && strcmp(principal, s->principal) != 0) {
        gr_logf(&b->log, GR_LOG_WARN, "sasl", "%s: re-authentication as %s refused: was %s",
                gr_conn_peer(c), principal, s->principal);
        return false;
    }
    snprintf(s->principal, sizeof s->principal, "%s", principal);
    s->state = GR_SESSION_AUTHENTICATED;
    gr_conn_logged_in(c);
    int64_t lifetime = session_lifetime_ms(b, s);
    s->reauth_deadline_ms = lifetime ? gr_broker_now_ms(b) + lifetime : 0;
    gr_logf(&b->log, s->reauthenticating ? GR_LOG_DEBUG : GR_LOG_INFO, "sasl",
            "%s: %sauthenticated as %s with %s", gr_conn_peer(c), s->reauthenticating ? "re-" : "",
            principal, s->mechanism);
    s->reauthenticating = false;
    gr_session_sasl_reset(s);
    return true;
}

/* One token through the session's exchange; *failure set when the login failed. */
static gr_kerr_t step(gr_broker_t *b, gr_request_t *req, const uint8_t *in, size_t len,
                      gr_sasl_reply_t *reply, const char **failure)
{
    gr_session_t *s = req->session;
    gr_sasl_server_t *x = s->sasl;
    *failure = NULL;
    gr_kerr_t err = gr_sasl_server_step(x, in, len, reply);
    if (err == GR_KERR_NONE && reply->done &&
        !authenticated(b, req->conn, s, gr_sasl_server_user(x)))
        err = GR_KERR_SASL_AUTHENTICATION_FAILED;
    if (err != GR_KERR_NONE) {
        gr_logf(&b->log, GR_LOG_WARN, "sasl", "%s: %s authentication failed for user '%s'",
                gr_conn_peer(req->conn), s->mechanism, gr_sasl_server_user(x));
        *failure = gr_sasl_server_failure(x);
        free(reply->token);
        memset(reply, 0, sizeof *reply);
    }
    return err;
}

/* Closes the connection once the failure's response is out, as Kafka does. */
static void respond_and_close(gr_request_t *req, const void *resp)
{
    gr_conn_t *c = req->conn;
    gr_request_respond(req, resp);
    gr_conn_drain(c, "SASL authentication failed");
}

void gr_handle_sasl_authenticate(gr_broker_t *b, gr_request_t *req)
{
    gr_sasl_authenticate_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_sasl_authenticate_response_t resp;
    gr_sasl_authenticate_response_init(&resp);
    resp.auth_bytes = (gr_bytes_t){(const uint8_t *)"", 0};
    gr_session_t *s = req->session;
    if (s->state != GR_SESSION_SASL_AUTHENTICATE || !s->sasl) {
        resp.error_code = GR_KERR_ILLEGAL_SASL_STATE;
        resp.error_message = gr_str("SaslAuthenticate without a SaslHandshake before it");
        gr_logf(&b->log, GR_LOG_WARN, "sasl", "%s: SaslAuthenticate out of order, closing",
                gr_conn_peer(req->conn));
        respond_and_close(req, &resp);
        return;
    }
    gr_sasl_reply_t reply;
    const char *failure;
    size_t len = in.auth_bytes.len > 0 ? (size_t)in.auth_bytes.len : 0;
    resp.error_code = step(b, req, in.auth_bytes.ptr, len, &reply, &failure);
    if (failure) {
        /* The message lives in the exchange: respond before the reset frees it. */
        resp.error_message = gr_str(failure);
        gr_conn_t *c = req->conn;
        gr_request_respond(req, &resp);
        gr_session_sasl_reset(s);
        gr_conn_drain(c, "SASL authentication failed");
        return;
    }
    uint8_t *token = reply.len ? gr_request_alloc(req, reply.len) : NULL;
    if (token)
        memcpy(token, reply.token, reply.len);
    free(reply.token);
    if (reply.len && !token) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (token)
        resp.auth_bytes = (gr_bytes_t){token, (int32_t)reply.len};
    if (s->state == GR_SESSION_AUTHENTICATED)
        resp.session_lifetime_ms = session_lifetime_ms(b, s);
    gr_request_respond(req, &resp);
}

void gr_sasl_handle_raw(gr_broker_t *b, gr_request_t *req, const uint8_t *token, size_t len)
{
    gr_sasl_reply_t reply;
    const char *failure;
    step(b, req, token, len, &reply, &failure);
    if (failure) {
        gr_request_fail(req, "SASL authentication failed");
        return;
    }
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_int32(&w, (int32_t)reply.len);
    gr_write_raw(&w, reply.token, reply.len);
    free(reply.token);
    int rc = gr_chain_add_writer(gr_resp_slot_chain(req->slot), &w, NULL, NULL);
    gr_writer_fini(&w);
    if (rc)
        gr_request_fail(req, "out of memory");
    else
        gr_resp_slot_complete(req->slot, NULL);
}
