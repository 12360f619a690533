/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's TLS contexts: one server context per SSL or SASL_SSL listener
 * (with that listener's ssl.principal.mapping.rules as its app data, read by
 * security/session.c), and the client context the broker's own connections
 * use when the inter-broker listener runs TLS (kept in b->inter_broker_tls
 * for the peers: gr_peer_set_tls).
 *
 * Built by gr_broker_tls_open before the listeners open, so a bad keystore is
 * a start-up error; freed by gr_broker_tls_close after the server's
 * connections are gone. Runs on: loop thread.
 */
#ifndef GR_BROKER_LISTENER_TLS_H
#define GR_BROKER_LISTENER_TLS_H

#include "core/context.h"
#include "net/tls.h"

/*
 * Builds the contexts for b->config.effective.listeners. Returns 0 or
 * -EINVAL (logged as an ERROR naming the listener and the setting) or -ENOMEM.
 */
int gr_broker_tls_open(gr_broker_t *b);

/* The server context of listener i (index in effective.listeners), or NULL (plaintext). */
gr_tls_ctx_t *gr_broker_tls_listener(const gr_broker_t *b, int i);

void gr_broker_tls_close(gr_broker_t *b);

#endif
