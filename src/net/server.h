/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's network front: listeners plus the set of live connections.
 *
 * The server accepts, applies Kafka's connection quotas (below), wraps each
 * socket in a gr_conn_t configured from its template, and keeps every
 * connection on a list so it can stop them.
 *
 * Connection quotas, as Kafka's acceptor and ConnectionQuotas apply them:
 * - max_connections (broker-wide) and a listener's own maximum: at the limit
 *   the listener stops accepting (clients wait in the backlog) until one of
 *   its connections closes. The protected listener (the inter-broker one,
 *   when there are several) ignores the broker-wide limit; a connection it
 *   accepts past that limit closes the oldest connection of another
 *   listener, so brokers always reach each other.
 * - per client address (max_per_ip, overrides): a connection over its
 *   address's limit is closed right after accept and counted as refused.
 * - creation rate (broker-wide, except the protected listener, and per
 *   listener): past the rate a listener pauses for the time the rate owes,
 *   so the excess is delayed, never refused; counted as throttled.
 * A listener paused by a limit or a throttle counts as blocked (Kafka's
 * AcceptorBlockedPercent).
 *
 * Idle connections (connections.max.idle.ms, max_idle_sec): the list of
 * connections is kept in order of their last read, most recent first (a
 * read moves its connection to the front, O(1)), so the least recently
 * active is at the back, as in Kafka's selector. One timer for the whole
 * server looks only at the back: a connection silent for max_idle_sec with
 * no request in progress is closed (counted in idle_closed); one with a
 * request in progress (a long-poll fetch) counts as active now. The timer
 * is then set for when the new back connection would expire. No timer per
 * connection and no walk over the list.
 *
 * States: running (gr_server_init, gr_server_listen) -> stopping
 * (gr_server_stop: listeners closed, connections draining: no new requests
 * read, in-flight ones finish and their responses flush) -> stopped (the last
 * connection closed, or the deadline passed and the stragglers were closed
 * with their deferred slots cancelled; the stopped callback runs once).
 * gr_server_fini closes whatever is left at once and may follow either.
 *
 * Runs on: loop thread.
 */
#ifndef GR_NET_SERVER_H
#define GR_NET_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "net/conn.h"
#include "net/conn_quota.h"
#include "net/listener.h"

#define GR_SERVER_MAX_LISTENERS 8

typedef struct gr_server gr_server_t;
typedef struct gr_server_conn gr_server_conn_t;

/* Runs once when a stop completes. It may call gr_server_fini. */
typedef void (*gr_server_stopped_fn)(gr_server_t *srv, void *arg);

typedef struct gr_server_config {
    /* Template for every connection: limits, on_frame, opaque, log. The
     * server sets on_close, owner and stats itself. */
    gr_conn_config_t conn;
    uint32_t max_connections; /* 0: no limit */
    int backlog;              /* 0: GR_LISTENER_BACKLOG */
    /* max.connections.per.ip when per_ip_limited (0 is a valid limit in Kafka:
     * only the overrides' addresses may connect). */
    bool per_ip_limited;
    uint32_t max_per_ip;
    const gr_ip_override_t *ip_overrides; /* borrowed: must outlive the server */
    size_t ip_override_count;
    double max_creation_rate; /* connections a second, broker-wide; 0: no limit */
    double max_throttle_sec;  /* longest single creation-rate delay; 0: 1 s */
    double max_idle_sec;      /* connections.max.idle.ms in seconds; 0: never closed */
} gr_server_config_t;

struct gr_server {
    struct ev_loop *loop;
    gr_server_config_t cfg;
    gr_listener_t listeners[GR_SERVER_MAX_LISTENERS];
    const void *listener_tags[GR_SERVER_MAX_LISTENERS];  /* see gr_server_listen_as */
    gr_tls_ctx_t *listener_tls[GR_SERVER_MAX_LISTENERS]; /* see gr_server_listen_tls */
    int32_t listener_login_max[GR_SERVER_MAX_LISTENERS]; /* see gr_server_limit_login */
    size_t listener_count;
    gr_server_conn_t *conns; /* doubly linked, most recent read first */
    gr_server_conn_t *conns_tail;
    size_t conn_count;
    ev_timer idle_timer;  /* at the back connection's expiry (max_idle_sec) */
    uint64_t idle_closed; /* connections closed for connections.max.idle.ms */
    uint64_t accepted;    /* connections accepted since init */
    uint64_t closed;      /* connections closed since init */
    uint32_t listener_conns[GR_SERVER_MAX_LISTENERS];    /* open, per listener */
    uint64_t listener_accepted[GR_SERVER_MAX_LISTENERS]; /* accepted, per listener */
    uint64_t listener_closed[GR_SERVER_MAX_LISTENERS];   /* closed, per listener */
    /* Quotas (see above); listener_max 0 is no limit. */
    uint32_t listener_max[GR_SERVER_MAX_LISTENERS];
    gr_rate_bucket_t listener_rate[GR_SERVER_MAX_LISTENERS];
    gr_rate_bucket_t broker_rate;
    gr_ip_counts_t ip_counts;
    int protected_listener; /* index, or -1 */
    bool throttled[GR_SERVER_MAX_LISTENERS];
    ev_timer throttle_timer[GR_SERVER_MAX_LISTENERS];
    /* For the metrics: */
    uint64_t listener_refused[GR_SERVER_MAX_LISTENERS];     /* over max_per_ip */
    uint64_t listener_throttled[GR_SERVER_MAX_LISTENERS];   /* accepts that paused the listener */
    double listener_throttle_sec[GR_SERVER_MAX_LISTENERS];  /* their delays, summed */
    double listener_blocked_sec[GR_SERVER_MAX_LISTENERS];   /* paused by a limit or throttle */
    double listener_blocked_since[GR_SERVER_MAX_LISTENERS]; /* 0: not blocked now */
    double started;                                         /* ev_now at init */
    gr_chain_stats_t stats;
    bool stopping;
    bool limited; /* max_connections reached (logged once per episode) */
    bool held;    /* listeners paused by the owner (gr_server_hold) */
    ev_timer stop_timer;
    gr_server_stopped_fn on_stopped;
    void *stopped_arg;
};

/* Sets up an idle server; cfg is copied. Returns 0. */
int gr_server_init(gr_server_t *srv, struct ev_loop *loop, const gr_server_config_t *cfg);

/*
 * Holds (or releases) accepting on every listener, present and future:
 * clients connecting meanwhile wait in the backlog. For a start-up that binds
 * its ports before it can answer.
 */
void gr_server_hold(gr_server_t *srv, bool hold);

/*
 * Adds a listener on host:port (see gr_listener_open for host forms).
 * out_port, if not NULL, receives the bound port (useful with port 0).
 * Returns 0, -ENOSPC (GR_SERVER_MAX_LISTENERS reached), -ESHUTDOWN (stopping)
 * or gr_listener_open's -errno.
 */
int gr_server_listen(gr_server_t *srv, const char *host, uint16_t port,
                     uint16_t *out_port /* out */);
/*
 * gr_server_listen, with a tag that every connection accepted there carries
 * (gr_conn_listener): the broker's listener spec, naming its security protocol.
 */
int gr_server_listen_as(gr_server_t *srv, const char *host, uint16_t port, const void *tag,
                        uint16_t *out_port /* out */);

/*
 * gr_server_listen_as for a TLS listener: connections accepted there run a
 * TLS handshake with tls (borrowed: it must outlive the server) before their
 * first frame. tls NULL is gr_server_listen_as.
 */
int gr_server_listen_tls(gr_server_t *srv, const char *host, uint16_t port, const void *tag,
                         gr_tls_ctx_t *tls, uint16_t *out_port /* out */);

/*
 * Connections accepted from now on on the TLS listener tagged tag use tls
 * (borrowed, as above); those already accepted keep the context they were
 * made with (their sessions hold it). Returns 0, or -ENOENT when no TLS
 * listener has that tag.
 */
int gr_server_set_tls(gr_server_t *srv, const void *tag, gr_tls_ctx_t *tls);

/* The context new connections of the listener tagged tag get, or NULL (none, or plaintext). */
gr_tls_ctx_t *gr_server_tls(const gr_server_t *srv, const void *tag);

/*
 * Connections accepted on the listeners tagged tag read frames of at most
 * max_bytes until gr_conn_logged_in (SASL listeners: an unauthenticated
 * client cannot make the broker buffer socket.request.max.bytes).
 */
void gr_server_limit_login(gr_server_t *srv, const void *tag, int32_t max_bytes);

/*
 * Gives the listeners tagged tag their own limits: max_connections open at
 * once (0: none) and max_rate new connections a second (0: none).
 */
void gr_server_limit_listener(gr_server_t *srv, const void *tag, uint32_t max_connections,
                              double max_rate);

/*
 * Replaces the broker-wide limits (max_connections, per_ip_limited,
 * max_per_ip, ip_overrides, max_creation_rate) with those of limits, as a
 * live config change does: connections over a lowered limit stay open, new
 * ones are refused or wait. limits->ip_overrides is borrowed as at init.
 */
void gr_server_set_limits(gr_server_t *srv, const gr_server_config_t *limits);

/*
 * Makes the listener tagged tag the protected one (Kafka's inter-broker
 * listener): exempt from the broker-wide limit and rate while the server has
 * more than one listener.
 */
void gr_server_protect(gr_server_t *srv, const void *tag);

/* Seconds listener i has been blocked since init, the current episode included. */
double gr_server_blocked_sec(const gr_server_t *srv, size_t i);

/*
 * Adopts an already connected socket as a connection (tests, socket
 * activation). On failure fd is closed. Returns the connection or NULL.
 */
gr_conn_t *gr_server_adopt(gr_server_t *srv, int fd);

/*
 * Graceful stop: closes the listeners and drains every connection; calls
 * on_stopped(srv, arg) once all are closed, or after deadline_sec seconds,
 * having force-closed the rest. on_stopped may be NULL. A second call while
 * stopping does nothing.
 */
void gr_server_stop(gr_server_t *srv, double deadline_sec, gr_server_stopped_fn on_stopped,
                    void *arg);

/* Closes listeners and connections now (deferred slots cancelled); no callback. */
void gr_server_fini(gr_server_t *srv);

static inline size_t gr_server_conn_count(const gr_server_t *srv)
{
    return srv->conn_count;
}

#endif
