/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The peer's insides, shared by peer.c (connection, requests, responses) and
 * peer_sasl.c (the SASL login on each connection); not for other files.
 * Runs on: loop thread.
 */
#ifndef GR_NET_PEER_INT_H
#define GR_NET_PEER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "core/worker.h"
#include "net/peer.h"
#include "net/tls.h"
#include "protocol/arena.h"
#include "protocol/codec.h"

struct addrinfo;

typedef struct gr_peer_req {
    struct gr_peer_req *next;
    const gr_api_desc_t *api;
    int16_t version;
    int32_t correlation_id;
    gr_peer_response_fn *cb;
    void *opaque;
    ev_tstamp deadline; /* once its first byte is written: when its response is due */
    uint8_t *frame;     /* size prefix, header, body */
    size_t len;
} gr_peer_req_t;

typedef struct gr_peer_list {
    gr_peer_req_t *head;
    gr_peer_req_t *tail;
} gr_peer_list_t;

/* A peer's host name lookup (peer.c). */
typedef struct gr_peer_lookup gr_peer_lookup_t;

/* Connection states; peer.h's file comment has the transitions. */
typedef enum gr_peer_state {
    GR_PEER_IDLE,
    GR_PEER_RESOLVING,
    GR_PEER_CONNECTING,
    GR_PEER_TLS_HANDSHAKE,  /* TCP is up; TLS is being negotiated (tls_ctx set) */
    GR_PEER_AUTHENTICATING, /* SASL round trips (sasl set); the callers' requests wait in held */
    GR_PEER_CONNECTED,
} gr_peer_state_t;

struct gr_peer {
    struct ev_loop *loop;
    int32_t node_id;
    char *host;
    int32_t port;
    char *client_id;
    ev_tstamp request_timeout;
    const gr_logger_t *log;
    gr_peer_unsent_t unsent_policy;
    gr_worker_t *resolver;    /* NULL: names resolved on the loop */
    gr_peer_lookup_t *lookup; /* RESOLVING: the lookup under way */

    gr_peer_state_t state;
    int fd;
    gr_tls_ctx_t *tls_ctx;      /* NULL: plaintext */
    gr_tls_t *tls;              /* this connection's TLS session, from TLS_HANDSHAKE on */
    const gr_peer_sasl_t *sasl; /* NULL: no SASL */
    void *exchange;             /* AUTHENTICATING: this connection's SASL exchange */
    gr_peer_list_t held;        /* AUTHENTICATING: the callers' queue, set aside */
    ev_tstamp reauth_at;        /* log in again on this connection from then (KIP-368), or 0 */
    ev_io read_watcher;
    ev_io write_watcher;    /* connect completion, then write readiness */
    ev_timer connect_timer; /* the next attempt */
    ev_timer timeout_timer; /* connect timeout, or the oldest response's deadline */
    struct addrinfo *addrs; /* resolved for the attempt under way */
    struct addrinfo *addr;  /* the address being tried */
    int attempt_err;        /* last error of this attempt's addresses */

    gr_peer_list_t queue;
    size_t wpos; /* bytes of queue.head already written */
    gr_peer_list_t inflight;
    size_t pending;
    int32_t next_correlation_id;

    uint8_t *rbuf;
    size_t rcap;
    size_t rlen;
    gr_arena_t arena;

    ev_tstamp backoff;         /* wait after the next failure */
    ev_tstamp next_attempt_at; /* no attempt before this */
    bool outage;               /* a failure was logged, no connection since */
    uint64_t conn_gen;
    bool unref;    /* the read watcher does not keep the loop alive (idle) */
    bool answered; /* a response came on this connection */
    unsigned depth;
    bool freed;
    gr_peer_stats_t stats;
};

/* ---- peer.c, for peer_sasl.c --------------------------------------------- */

/* Appends r to l. */
void gr_peer_list_push(gr_peer_list_t *l, gr_peer_req_t *r);

/* Unlinks and returns l's oldest request, or NULL when l is empty. */
gr_peer_req_t *gr_peer_list_pop(gr_peer_list_t *l);

/* Frees an unlinked request and its frame (its callback is not called). */
void gr_peer_req_free(gr_peer_req_t *r);

/* References the loop, or not, as the peer has something pending or not. */
void gr_peer_update_liveness(gr_peer_t *p);

/*
 * Encodes a request with the next correlation id and counts it pending; the
 * caller queues it. Returns 0 and *out, or -EINVAL / -ENOMEM.
 */
int gr_peer_new_request(gr_peer_t *p, int16_t api_key, int16_t api_version, const void *request,
                        gr_peer_response_fn *cb, void *opaque, gr_peer_req_t **out /* out */);

/*
 * The connection attempt failed (err > 0; detail, if not NULL, is logged
 * instead of strerror(err)): closes it and schedules the next. Returns false
 * if a callback freed the peer.
 */
bool gr_peer_attempt_failed(gr_peer_t *p, int err, const char *detail);

/* The connection is usable (state CONNECTED): logs it and writes what waits. */
void gr_peer_announce_connected(gr_peer_t *p);

/* ---- peer_sasl.c, for peer.c --------------------------------------------- */

/*
 * TCP (and TLS) is up and p->sasl is set: enters AUTHENTICATING and sends
 * the SaslHandshake; without memory the attempt fails.
 */
void gr_peer_auth_begin(gr_peer_t *p);

/*
 * The connection closes in AUTHENTICATING: drops the SASL requests not
 * written and gives the callers' held requests back to the queue.
 */
void gr_peer_auth_abandon(gr_peer_t *p);

/*
 * Called before a request is queued: when the session the broker granted is
 * ending, logs in again on this connection first (KIP-368).
 */
void gr_peer_maybe_reauthenticate(gr_peer_t *p);

#endif
