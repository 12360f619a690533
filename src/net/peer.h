/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client connection from this broker to another one (the controller's
 * channel to each broker): requests encoded with the generated codec,
 * pipelined on one non-blocking socket, answered through callbacks.
 *
 * Requests. gr_peer_send encodes the request at once (header v1 or v2 by the
 * API's flexible versions) and appends it to the send queue. Queued requests
 * are written in order, several per sendmsg; a request fully written moves to
 * the in-flight list, where the responses match it in order by correlation
 * id. The response header is v1 for flexible versions, v0 otherwise and
 * always v0 for ApiVersions. Each response is decoded into an arena that is
 * reset after its callback returns.
 *
 * Connection states, with the function doing each transition:
 *   IDLE        no socket. connect_timer (schedule_connect) fires at once
 *               for the first attempt, or after the reconnect backoff.
 *   RESOLVING   a host name being looked up on the resolver (start_attempt,
 *               submit_lookup; lookup_done moves on).
 *   CONNECTING  non-blocking connect in progress (try_addresses); write
 *               readiness then SO_ERROR tells the outcome (connect_done).
 *               Each resolved address is tried in turn; when all fail the
 *               attempt fails (attempt_failed) -> IDLE.
 *   AUTHENTICATING  with gr_peer_set_sasl: the SASL round trips run while
 *               the requests sent meanwhile wait aside (peer_sasl.c:
 *               gr_peer_auth_begin, auth_done).
 *   CONNECTED   (on_connected) reading always, writing while the queue has
 *               bytes. A protocol violation, timeout, EOF or socket error
 *               closes it (connection_lost) -> IDLE.
 * The peer connects only while it has something to send (lazily on the
 * first request), and tries again with backoff while requests wait: the
 * first retry after GR_PEER_BACKOFF_MS, doubling up to GR_PEER_BACKOFF_MAX_MS
 * (the roles of Kafka's reconnect.backoff.ms / reconnect.backoff.max.ms),
 * back to the start once a response has arrived on a connection.
 *
 * What fails, with which code (the callback's rc):
 *   - in-flight requests (fully written) when the connection is lost:
 *     -ECONNRESET. The peer never resends them, since the other broker may
 *     have acted on them; the caller decides (Kafka's controller resends).
 *   - the oldest in-flight request when its response does not come within
 *     request_timeout_ms of its first byte being written: -ETIMEDOUT (the
 *     connection is closed, the others in flight get -ECONNRESET). Timing
 *     from the first byte also catches a broker that stops reading: a
 *     request stuck half-written closes the connection the same way, then
 *     counts as not yet written (below; under GR_PEER_FAIL_UNSENT it is the
 *     one that gets -ETIMEDOUT).
 *   - the oldest in-flight request when its response is malformed, too big
 *     (GR_PEER_MAX_RESPONSE_BYTES) or carries another correlation id:
 *     -EBADMSG (connection closed, the others get -ECONNRESET).
 *   - everything pending on gr_peer_free, and everything in flight on an
 *     address change: -ECANCELED.
 *   - requests not yet written: by default (GR_PEER_KEEP_UNSENT) never for
 *     connection trouble; they wait and go out once a connection is up, so a
 *     broker that is briefly unreachable gets them late rather than never.
 *     With GR_PEER_FAIL_UNSENT a failed connection attempt fails them with
 *     its error (-ECONNREFUSED, -ETIMEDOUT for the connect timeout,
 *     -EHOSTUNREACH, -ENOENT when the host does not resolve, ...) and a lost
 *     connection with -ECONNRESET.
 * A name lookup or a connect that does not complete within
 * request_timeout_ms fails with -ETIMEDOUT (Kafka's controller also bounds
 * its connect wait by its socket timeout).
 *
 * Logging: the first failure of an outage is a WARN line, the retries are
 * DEBUG, and the connection that ends the outage is an INFO line. The
 * broker closing a connection that has answered, with nothing in flight, is
 * no failure (idle connections are closed after connections.max.idle.ms):
 * DEBUG, and the next request reconnects at once.
 *
 * Callbacks. Every request's callback runs exactly once, on the loop thread,
 * and never from inside gr_peer_send. It may call gr_peer_send (resend),
 * gr_peer_set_address and gr_peer_free on the same peer. Callbacks run from
 * inside gr_peer_free and gr_peer_set_address for the requests those cancel.
 *
 * Addresses are resolved afresh for every attempt, each address tried in
 * turn. Numeric ones never block; host names go to the resolver (a worker
 * pool, gr_peer_set_resolver) or, without one, are looked up on the loop,
 * which may block it on a slow DNS server.
 *
 * Loop liveness: a connection with nothing pending does not keep ev_run
 * running (its read watcher is unreferenced), so a broker's loop can end on
 * stop without freeing idle peers first; anything pending, a connection
 * attempt or a reconnect wait does keep it running.
 *
 * Runs on: loop thread, all of it.
 */
#ifndef GR_NET_PEER_H
#define GR_NET_PEER_H

#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "core/logging.h"

#define GR_PEER_BACKOFF_MS         100  /* first wait before reconnecting */
#define GR_PEER_BACKOFF_MAX_MS     1000 /* the wait doubles up to this */
#define GR_PEER_MAX_RESPONSE_BYTES (100 * 1024 * 1024)

typedef struct gr_peer gr_peer_t;
struct gr_worker;
struct gr_tls_ctx; /* net/tls.h */

/*
 * A request's completion: rc 0 with the decoded response (a struct of the
 * API's response type; it and every string in it live until the callback
 * returns), or rc a -errno (see the file comment) with response NULL.
 */
typedef void gr_peer_response_fn(void *opaque, int rc, const void *response);

/* What becomes of requests not yet written when a connection fails. */
typedef enum gr_peer_unsent {
    GR_PEER_KEEP_UNSENT, /* default: they wait for the next connection */
    GR_PEER_FAIL_UNSENT, /* they fail with the connection's error */
} gr_peer_unsent_t;

typedef struct gr_peer_stats {
    uint64_t attempts;    /* connection attempts started */
    uint64_t failures;    /* attempts that failed, and connections lost */
    uint64_t connections; /* connections established */
    uint64_t responses;   /* responses decoded and delivered */
    uint64_t lookups;     /* host names handed to the resolver */
} gr_peer_stats_t;

/*
 * A peer for broker node_id at host:port; does not connect until the first
 * send. host and client_id are copied. request_timeout_ms (> 0) bounds both
 * the connect and each response. log may be NULL.
 * Returns the peer, or NULL (errno ENOMEM, or EINVAL for a bad argument).
 */
gr_peer_t *gr_peer_new(struct ev_loop *loop, int32_t node_id, const char *host, int32_t port,
                       const char *client_id, int32_t request_timeout_ms, const gr_logger_t *log);

/*
 * gr_peer_new for another broker of this cluster, with this broker's
 * inter-broker settings: its resolver (no DNS lookups on the loop), client
 * TLS and SASL, its logger (net/peer_broker.c). NULL as gr_peer_new.
 */
struct gr_broker;
gr_peer_t *gr_peer_new_to_broker(struct gr_broker *b, int32_t node_id, const char *host,
                                 int32_t port, const char *client_id, int32_t request_timeout_ms);

/*
 * Queues a request of api_key at api_version; request points to that API's
 * request struct, encoded before the call returns (the caller may free it).
 * cb may be NULL (the response is read and dropped).
 * Returns 0, -EINVAL (unknown API or version, or a request the version
 * cannot carry), -ENOMEM, or -ECANCELED when called on a peer being freed.
 * On error cb is never called.
 */
int gr_peer_send(gr_peer_t *p, int16_t api_key, int16_t api_version, const void *request,
                 gr_peer_response_fn *cb, void *opaque);

/*
 * The broker moved (re-registered with another endpoint). Closes the current
 * connection, failing in-flight requests with -ECANCELED; queued ones stay
 * and go to the new address, at once (the backoff starts over). Does nothing
 * when the address is the same. Returns 0, or -EINVAL / -ENOMEM (address
 * unchanged).
 */
int gr_peer_set_address(gr_peer_t *p, const char *host, int32_t port);

/* Chooses what connection failures do to requests not yet written. */
void gr_peer_set_unsent(gr_peer_t *p, gr_peer_unsent_t policy);

/*
 * Looks host names up on resolver's threads instead of the loop (the
 * broker's worker pool). resolver must outlive the peer, or be finished
 * (gr_worker_fini) before it: lookups it cancels count as failed attempts.
 */
void gr_peer_set_resolver(gr_peer_t *p, struct gr_worker *resolver);

/*
 * Runs every later connection over TLS with the client context tls (the
 * inter-broker listener's, see broker/listener_tls.h; borrowed, it must
 * outlive the peer): once TCP connects, a TLS handshake verifies the broker's
 * certificate (and its host name, per ssl.endpoint.identification.algorithm)
 * before requests are written. A failed handshake is a failed connection
 * attempt (-EPROTO; its timeout -ETIMEDOUT). NULL goes back to plaintext.
 */
void gr_peer_set_tls(gr_peer_t *p, struct gr_tls_ctx *tls);

/*
 * A SASL client for the peer's connections: the mechanism's name, and an
 * exchange per connection (security/sasl_client.h fits these). step feeds
 * the server's last token (NULL first) and returns 1 with the next token in
 * *out, 0 when authenticated, or < 0 when the exchange failed.
 */
typedef struct gr_peer_sasl {
    const char *mechanism;
    void *(*start)(void *arg); /* NULL on ENOMEM */
    int (*step)(void *exchange, const uint8_t *in, size_t in_len, const uint8_t **out,
                size_t *out_len);
    void (*end)(void *exchange);
    void *arg;
} gr_peer_sasl_t;

/*
 * Authenticates every later connection with sasl (borrowed, it must outlive
 * the peer; NULL: none): once TCP (and TLS) is up, SaslHandshake v1 and
 * SaslAuthenticate v2 round trips run before any queued request is written;
 * requests sent meanwhile wait. A refused login is a failed connection
 * attempt (-EACCES, logged with the broker's message) and is retried with
 * backoff, as Kafka's clients do. gr_peer_connected is false until it is done.
 */
void gr_peer_set_sasl(gr_peer_t *p, const gr_peer_sasl_t *sasl);

/*
 * Closes the connection and frees the peer; every pending request's callback
 * runs with -ECANCELED before this returns (oldest first). May be called from
 * a callback of this peer. p may be NULL.
 */
void gr_peer_free(gr_peer_t *p);

/* Requests queued or in flight (sent, response not yet delivered). */
size_t gr_peer_pending(const gr_peer_t *p);
/* Whether the connection is established. */
bool gr_peer_connected(const gr_peer_t *p);
int32_t gr_peer_node_id(const gr_peer_t *p);
const gr_peer_stats_t *gr_peer_stats(const gr_peer_t *p);

#endif
