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
 * connections are gone. A listener's keystore or truststore set live
 * (metadata/broker_config_store.h, KIP-226) wins over the file's; when it
 * changes, gr_broker_tls_rotate (b->on_listener_tls) builds the listener's
 * context again and hands it to the server for new connections, while
 * connections already open keep theirs (each session holds its context).
 * The inter-broker client context is not rebuilt: it is the file's.
 *
 * Runs on: loop thread.
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

/*
 * Builds listener's server context again (NULL: every TLS listener's) with
 * the keys set live, checked as Kafka does against the one served now, and
 * serves it to new connections. A context that cannot be built or checked
 * is logged as an ERROR and the current one kept. Does nothing before
 * gr_broker_tls_open. Set as b->on_listener_tls by gr_broker_tls_open.
 */
void gr_broker_tls_rotate(gr_broker_t *b, const char *listener);

void gr_broker_tls_close(gr_broker_t *b);

#endif
