/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The metrics and health listener: an HTTP (or HTTPS) server at
 * gregor.http.listener serving http_endpoints.h's pages (/metrics, /healthz,
 * /readyz) to Prometheus and orchestrators.
 *
 * Why on the loop. The pages read the broker's single-threaded state, so
 * libmicrohttpd runs without a thread of its own: its epoll fd is watched by
 * an ev_io and its next deadline by an ev_timer, and both call MHD_run, which
 * never blocks (every socket is non-blocking). A page is built whole in
 * memory during that call and sent as the socket takes it.
 *
 * Why a scraper cannot hurt clients. The limits are the library's, set
 * from gregor.http.*: at most max.connections open at once (further ones are
 * closed on accept) and max.connections.per.ip from one address; a
 * connection idle for connection.timeout.ms is closed; a request line and
 * headers larger than request.max.bytes get 431 and a close, never more
 * memory. Only GET and HEAD are served.
 *
 * Lifecycle: gr_http_server_start (after the client listeners) -> serving
 * -> gr_http_server_stop (the broker's stop, or fini after a failed start):
 * every HTTP connection is closed at once.
 *
 * Runs on: loop thread.
 */
#ifndef GR_OBSERVE_HTTP_SERVER_H
#define GR_OBSERVE_HTTP_SERVER_H

#include "core/context.h"

/*
 * Binds gregor.http.listener and serves it as b->http; does nothing when the
 * key is empty. https reads the ssl.keystore.* settings the SSL listeners
 * use (PEM). Logs the bound address at INFO. Returns 0, or -errno (logged
 * as an ERROR): the address cannot be bound, the keystore cannot be read,
 * -ENOMEM.
 */
int gr_http_server_start(gr_broker_t *b);

/* Closes the listener and its connections; b->http becomes NULL. Idempotent. */
void gr_http_server_stop(gr_broker_t *b);

#endif
