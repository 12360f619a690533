/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A listening socket on host:port and its accept loop.
 *
 * Opens with SO_REUSEADDR (a restarted broker rebinds while old connections
 * sit in TIME_WAIT), non-blocking, and accepts in a loop until EAGAIN, at
 * most GR_LISTENER_ACCEPT_BATCH per wake-up so one busy listener cannot
 * starve the loop. Each accepted fd (non-blocking, close-on-exec) goes to
 * on_accept, which owns it from then on.
 *
 * Running out of descriptors: the listener keeps one spare fd open. On
 * EMFILE it closes the spare, accepts the pending connection and closes it at
 * once (the client sees a reset instead of hanging in the backlog while we
 * spin on a readable listener), then reopens the spare. On ENFILE, ENOBUFS
 * or ENOMEM it pauses accepting for GR_LISTENER_RETRY_SEC.
 *
 * States: open (watching) -> paused (gr_listener_pause, or resource
 * shortage) -> open (gr_listener_resume, or the retry timer) -> closed
 * (gr_listener_close).
 *
 * Runs on: loop thread.
 */
#ifndef GR_NET_LISTENER_H
#define GR_NET_LISTENER_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "core/logging.h"

#define GR_LISTENER_ACCEPT_BATCH 64
#define GR_LISTENER_RETRY_SEC    0.1
#define GR_LISTENER_BACKLOG      511
#define GR_LISTENER_ADDR_MAX     64 /* "[v6 address]:port" plus NUL */

typedef struct gr_listener gr_listener_t;

/* Receives an accepted, non-blocking socket; the callee owns fd. */
typedef void (*gr_listener_accept_fn)(gr_listener_t *l, int fd, void *opaque);

struct gr_listener {
    struct ev_loop *loop;
    int fd;       /* -1 when closed */
    int spare_fd; /* reserved for EMFILE, or -1 */
    ev_io watcher;
    ev_timer retry;
    bool paused; /* by the owner (gr_listener_pause) */
    uint16_t port;
    char addr[GR_LISTENER_ADDR_MAX]; /* bound address, for logs */
    gr_listener_accept_fn on_accept;
    void *opaque;
    const gr_logger_t *log;
};

/*
 * Binds host:port and starts accepting. host is an IPv4 or IPv6 literal
 * (brackets allowed) or a name; NULL or "" means every interface (IPv6
 * dual-stack when available, else IPv4). port 0 picks a free port, read it
 * back with gr_listener_port. backlog <= 0 means GR_LISTENER_BACKLOG.
 * log may be NULL.
 * Returns 0, or -errno (e.g. -EADDRINUSE, -EADDRNOTAVAIL; -EINVAL for a host
 * that does not resolve); on error nothing stays open.
 */
int gr_listener_open(gr_listener_t *l, struct ev_loop *loop, const char *host, uint16_t port,
                     int backlog, gr_listener_accept_fn on_accept, void *opaque,
                     const gr_logger_t *log);

/*
 * Only binds and listens, for a server that accepts by itself (the HTTP
 * listener's library): host and port as for gr_listener_open. Returns the
 * non-blocking, close-on-exec fd with its bound port and address ("[::]:9644",
 * "127.0.0.1:9644"), or -errno as gr_listener_open.
 */
int gr_listener_bind(const char *host, uint16_t port, int backlog, uint16_t *bound_port /* out */,
                     char *addr /* out */, size_t addr_size);

/* The bound port (the chosen one when opened with port 0). */
uint16_t gr_listener_port(const gr_listener_t *l);

/* Stops accepting (new clients wait in the backlog) until resumed. */
void gr_listener_pause(gr_listener_t *l);
void gr_listener_resume(gr_listener_t *l);

/* Stops watching and closes the socket and the spare fd. Idempotent. */
void gr_listener_close(gr_listener_t *l);

#endif
