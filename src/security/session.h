/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who is on the other end of a client connection, and how far its
 * authentication got. One per connection, created on its first frame from
 * the listener that accepted it (gr_conn_listener), freed with it.
 *
 * States:
 *   OPEN            PLAINTEXT and SSL listeners: every request is served;
 *                   the principal is User:ANONYMOUS, or the one mapped from
 *                   the client certificate (SSL with ssl.client.auth).
 *   SASL_HANDSHAKE  SASL_* listeners, nothing yet: only ApiVersions and
 *                   SaslHandshake are served; anything else closes.
 *   SASL_AUTHENTICATE  a mechanism was chosen with SaslHandshake v1: only
 *                   ApiVersions and SaslAuthenticate are served.
 *   SASL_RAW        a mechanism was chosen with SaslHandshake v0: the next
 *                   frames are bare SASL tokens (kafka-python), answered as
 *                   bare tokens.
 *   AUTHENTICATED   the exchange succeeded: every request is served until
 *                   reauth_deadline_ms (KIP-368), when only SaslHandshake /
 *                   SaslAuthenticate (re-authentication) are accepted.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SECURITY_SESSION_H
#define GR_SECURITY_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"
#include "net/conn.h"

#define GR_PRINCIPAL_MAX       256
#define GR_SASL_MECHANISM_MAX  32
#define GR_SESSION_HOST_MAX    64
#define GR_PRINCIPAL_ANONYMOUS "User:ANONYMOUS"

typedef enum gr_session_state {
    GR_SESSION_OPEN = 0,
    GR_SESSION_SASL_HANDSHAKE,
    GR_SESSION_SASL_AUTHENTICATE,
    GR_SESSION_SASL_RAW,
    GR_SESSION_AUTHENTICATED,
} gr_session_state_t;

typedef struct gr_session {
    const gr_listener_spec_t *listener; /* NULL for adopted connections (tests) */
    gr_security_protocol_t protocol;
    gr_session_state_t state;
    char principal[GR_PRINCIPAL_MAX];      /* "User:name", as ACLs name it */
    char host[GR_SESSION_HOST_MAX];        /* the client's address, without the port */
    char mechanism[GR_SASL_MECHANISM_MAX]; /* chosen by SaslHandshake, "" before */
    void *sasl;                            /* the mechanism's exchange state, or NULL */
    void (*sasl_free)(void *sasl);
    int64_t reauth_deadline_ms; /* 0: none (connections.max.reauth.ms unset) */
    bool reauthenticating;      /* a SaslHandshake came after AUTHENTICATED (KIP-368):
                                   the new login must be principal's again */
    /* Called once when the connection is gone (after its deferred requests
     * were cancelled), with on_closed_arg and this session as the
     * connection's tag: share sessions opened on it end (share/). NULL: none. */
    void (*on_closed)(void *arg, const struct gr_session *s);
    void *on_closed_arg;
} gr_session_t;

/*
 * The connection's session, created on first use. On a TLS connection whose
 * client presented a certificate, the principal is "User:" plus the subject
 * mapped by the listener's ssl.principal.mapping.rules (the TLS context's app
 * data, a gr_principal_rules_t). NULL when out of memory, or when no rule
 * maps the subject: the connection is then closed (Kafka fails the
 * authentication).
 */
gr_session_t *gr_session_of(gr_conn_t *c);

/* Whether the listener's protocol authenticates with SASL. */
bool gr_security_protocol_is_sasl(gr_security_protocol_t p);
/* Whether the listener's protocol runs over TLS. */
bool gr_security_protocol_is_tls(gr_security_protocol_t p);

/* Drops the mechanism's exchange state (end of an exchange, or a failed one). */
void gr_session_sasl_reset(gr_session_t *s);

#endif
