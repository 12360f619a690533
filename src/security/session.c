/* SPDX-License-Identifier: Apache-2.0 */
/* Connection sessions: see session.h. Runs on: loop thread. */
#include "security/session.h"
#include "security/principal_rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gr_security_protocol_is_sasl(gr_security_protocol_t p)
{
    return p == GR_SECURITY_SASL_PLAINTEXT || p == GR_SECURITY_SASL_SSL;
}

bool gr_security_protocol_is_tls(gr_security_protocol_t p)
{
    return p == GR_SECURITY_SSL || p == GR_SECURITY_SASL_SSL;
}

void gr_session_sasl_reset(gr_session_t *s)
{
    if (s->sasl && s->sasl_free)
        s->sasl_free(s->sasl);
    s->sasl = NULL;
    s->sasl_free = NULL;
}

static void session_free(void *p)
{
    gr_session_t *s = p;
    if (s->on_closed)
        s->on_closed(s->on_closed_arg, s);
    gr_session_sasl_reset(s);
    free(s);
}

/* "1.2.3.4:5678" or "[::1]:5678" without the port, as ACL hosts are written. */
static void copy_host(char *out, size_t size, const char *peer)
{
    const char *colon = strrchr(peer, ':');
    size_t len = colon ? (size_t)(colon - peer) : strlen(peer);
    if (len >= 2 && peer[0] == '[' && peer[len - 1] == ']') {
        peer++;
        len -= 2;
    }
    if (len >= size)
        len = size - 1;
    memcpy(out, peer, len);
    out[len] = '\0';
}

/* The principal from the client certificate, when one was presented. 0 or -ENOENT. */
static int principal_from_certificate(gr_conn_t *c, gr_session_t *s)
{
    const char *subject = gr_conn_tls_peer_subject(c);
    if (!subject)
        return 0;
    char name[GR_PRINCIPAL_MAX - sizeof "User:"];
    int rc = gr_principal_rules_apply(gr_conn_tls_app(c), subject, name, sizeof name);
    if (rc < 0) {
        gr_logf(gr_conn_log(c), GR_LOG_WARN, "security", "TLS client %s: certificate %s: %s",
                gr_conn_peer(c), subject,
                rc == -ENOENT ? "no ssl.principal.mapping.rules rule applies" : "name too long");
        return -ENOENT;
    }
    snprintf(s->principal, sizeof s->principal, "User:%s", name);
    gr_logf(gr_conn_log(c), GR_LOG_INFO, "security", "TLS client %s: certificate %s, principal %s",
            gr_conn_peer(c), subject, s->principal);
    return 0;
}

gr_session_t *gr_session_of(gr_conn_t *c)
{
    gr_session_t *s = gr_conn_session(c);
    if (s)
        return s;
    s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->listener = gr_conn_listener(c);
    s->protocol = s->listener ? s->listener->protocol : GR_SECURITY_PLAINTEXT;
    s->state =
        gr_security_protocol_is_sasl(s->protocol) ? GR_SESSION_SASL_HANDSHAKE : GR_SESSION_OPEN;
    snprintf(s->principal, sizeof s->principal, "%s", GR_PRINCIPAL_ANONYMOUS);
    copy_host(s->host, sizeof s->host, gr_conn_peer(c));
    if (principal_from_certificate(c, s) < 0) {
        free(s);
        gr_conn_close(c, "TLS client certificate maps to no principal");
        return NULL;
    }
    gr_conn_set_session(c, s, session_free);
    return s;
}
