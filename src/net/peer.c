/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Inter-broker client connection: see peer.h for the states, the failure
 * rules and the callback contract. This file is the connection and request
 * machinery (IDLE to CONNECTED, queues, timeouts, responses); the SASL login
 * of the AUTHENTICATING state is peer_sasl.c, the struct both share
 * peer_int.h.
 *
 * Lists. queue holds encoded frames not yet fully written (the head may be
 * partly written: wpos bytes); inflight holds frames fully written, oldest
 * first. A request's response deadline runs from its first byte written
 * (head_started), so deadlines grow along both lists. A lost connection resets
 * wpos: the other broker cannot have acted on a partial frame, so the head
 * is written again whole on the next connection.
 *
 * Callbacks out of the peer are made one request at a time, after the
 * request is unlinked, and the peer's state is checked again after each
 * (a callback may free the peer, change its address or send). depth counts
 * the peer's own frames on the stack; gr_peer_free at depth > 0 cancels
 * everything and marks the peer freed, and the outermost frame releases the
 * memory as it unwinds. conn_gen changes with every closed connection, so
 * the read loop notices a callback that closed the connection under it.
 *
 * Runs on: loop thread.
 */
#include "net/peer.h"
#include "net/peer_int.h"
#include "net/tls.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "protocol/frame.h"
#include "core/worker.h"
#include "gen/codec_registry.h"
#include "gen/headers.h"
#include "protocol/arena.h"
#include "protocol/writer.h"

#define GR_PEER_WRITE_IOV 64 /* requests gathered into one sendmsg */
#define GR_PEER_READ_MIN  (64 * 1024)
#define GR_PEER_READ_KEEP (1024 * 1024) /* read buffer kept between responses */
#define GR_PEER_PORT_STR  8

/*
 * A host name lookup handed to the resolver. The loop thread owns it but for
 * lookup_job's fields (rc, saved_errno, addrs) while the job runs; peer is
 * cleared when the peer stops waiting (freed, moved, timed out), and
 * lookup_done then only frees it.
 */
struct gr_peer_lookup {
    gr_peer_t *peer;
    char *host;
    int32_t port;
    int rc;          /* getaddrinfo's */
    int saved_errno; /* for EAI_SYSTEM */
    struct addrinfo *addrs;
};

static void connect_timer_cb(struct ev_loop *loop, ev_timer *w, int revents);
static void timeout_cb(struct ev_loop *loop, ev_timer *w, int revents);
static void read_cb(struct ev_loop *loop, ev_io *w, int revents);
static void write_cb(struct ev_loop *loop, ev_io *w, int revents);
static void start_attempt(gr_peer_t *p);

/* --- lists and callbacks --------------------------------------------------- */

void gr_peer_list_push(gr_peer_list_t *l, gr_peer_req_t *r)
{
    r->next = NULL;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
}

gr_peer_req_t *gr_peer_list_pop(gr_peer_list_t *l)
{
    gr_peer_req_t *r = l->head;
    if (r) {
        l->head = r->next;
        if (!l->head)
            l->tail = NULL;
        r->next = NULL;
    }
    return r;
}

void gr_peer_req_free(gr_peer_req_t *r)
{
    free(r->frame);
    free(r);
}

/* An idle connection does not keep ev_run alive (peer.h, "Loop liveness"). */
void gr_peer_update_liveness(gr_peer_t *p)
{
    bool idle = p->pending == 0 && ev_is_active(&p->read_watcher);
    if (idle && !p->unref)
        ev_unref(p->loop);
    else if (!idle && p->unref)
        ev_ref(p->loop); /* before the watcher stops, as libev requires */
    p->unref = idle;
}

/* Delivers one unlinked request's outcome and frees it. */
static void complete(gr_peer_t *p, gr_peer_req_t *r, int rc, const void *response)
{
    p->pending--;
    gr_peer_update_liveness(p);
    if (r->cb)
        r->cb(r->opaque, rc, response);
    gr_peer_req_free(r);
}

/*
 * Fails every request of list, the first with first_rc and the others with
 * rc, one at a time. Stops if a callback frees the peer (gr_peer_free then
 * fails what is left). Returns false if the peer was freed.
 */
static bool fail_list(gr_peer_t *p, gr_peer_list_t *l, int first_rc, int rc)
{
    bool first = true;
    gr_peer_req_t *r;
    while (!p->freed && (r = gr_peer_list_pop(l))) {
        complete(p, r, first ? first_rc : rc, NULL);
        first = false;
    }
    return !p->freed;
}

static void enter(gr_peer_t *p)
{
    p->depth++;
}

static void release(gr_peer_t *p)
{
    ev_timer_stop(p->loop, &p->connect_timer);
    ev_timer_stop(p->loop, &p->timeout_timer);
    if (p->addrs)
        freeaddrinfo(p->addrs);
    gr_arena_fini(&p->arena);
    free(p->rbuf);
    free(p->host);
    free(p->client_id);
    free(p);
}

/* Leaves a peer frame; returns false (and frees) when the peer was freed meanwhile. */
static bool leave(gr_peer_t *p)
{
    if (--p->depth == 0 && p->freed) {
        release(p);
        return false;
    }
    return true;
}

/* --- connection lifecycle ------------------------------------------------ */

/* Stops the watchers and closes the socket; the lists are untouched. */
static void close_socket(gr_peer_t *p)
{
    if (p->unref)
        ev_ref(p->loop);
    p->unref = false;
    ev_io_stop(p->loop, &p->read_watcher);
    ev_io_stop(p->loop, &p->write_watcher);
    ev_timer_stop(p->loop, &p->timeout_timer);
    gr_tls_free(p->tls);
    p->tls = NULL;
    if (p->state == GR_PEER_AUTHENTICATING)
        gr_peer_auth_abandon(p);
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    if (p->lookup)
        p->lookup->peer = NULL; /* its done function frees it */
    p->lookup = NULL;
    p->state = GR_PEER_IDLE;
    p->wpos = 0;
    p->rlen = 0;
    p->conn_gen++;
}

/* Arms connect_timer for the next attempt if requests wait and none is under way. */
static void schedule_connect(gr_peer_t *p)
{
    if (p->freed || p->state != GR_PEER_IDLE || !p->queue.head || ev_is_active(&p->connect_timer))
        return;
    ev_tstamp delay = p->next_attempt_at - ev_now(p->loop);
    ev_timer_set(&p->connect_timer, delay > 0 ? delay : 0., 0.);
    ev_timer_start(p->loop, &p->connect_timer);
}

/*
 * Counts a failure, logs it (WARN once per outage, then DEBUG) and pushes the
 * next attempt back. detail, if not NULL, is logged instead of strerror(err).
 */
static void note_failure(gr_peer_t *p, int err, const char *what, const char *detail)
{
    p->stats.failures++;
    gr_log_level_t level = p->outage ? GR_LOG_DEBUG : GR_LOG_WARN;
    gr_logf(p->log, level, "net", "broker %d at %s:%d: %s: %s", p->node_id, p->host, p->port, what,
            detail ? detail : strerror(err));
    p->outage = true;
    p->next_attempt_at = ev_now(p->loop) + p->backoff;
    p->backoff = p->backoff * 2 < GR_PEER_BACKOFF_MAX_MS / 1000. ? p->backoff * 2
                                                                 : GR_PEER_BACKOFF_MAX_MS / 1000.;
}

/*
 * The attempt failed (err > 0; detail as for note_failure). Under
 * GR_PEER_FAIL_UNSENT the queue fails with -err. Returns false if a callback
 * freed the peer.
 */
bool gr_peer_attempt_failed(gr_peer_t *p, int err, const char *detail)
{
    close_socket(p);
    if (p->addrs)
        freeaddrinfo(p->addrs);
    p->addrs = p->addr = NULL;
    note_failure(p, err, "cannot connect", detail);
    if (p->unsent_policy == GR_PEER_FAIL_UNSENT && !fail_list(p, &p->queue, -err, -err))
        return false;
    schedule_connect(p);
    return true;
}

/*
 * Closes an established connection. The oldest in-flight request gets
 * first_rc and the others rc; under GR_PEER_FAIL_UNSENT the queue gets rc
 * too (first_rc for its head when nothing was in flight). err (> 0, or 0 for none) and why are
 * logged. Returns false if a callback freed the peer.
 */
static bool connection_lost(gr_peer_t *p, int first_rc, int rc, int err, const char *why)
{
    /* The broker dropping a connection that has served us, with nothing in
     * flight, is housekeeping (connections.max.idle.ms), not an outage. */
    bool idle_close = !err && !p->inflight.head && p->answered;
    close_socket(p);
    if (!idle_close)
        note_failure(p, err ? err : ECONNRESET, why, NULL);
    else
        gr_logf(p->log, GR_LOG_DEBUG, "net", "broker %d at %s:%d: idle connection closed: %s",
                p->node_id, p->host, p->port, why);
    /* With nothing in flight, first_rc is about the queue head (a stalled write). */
    bool had_inflight = p->inflight.head != NULL;
    if (!fail_list(p, &p->inflight, first_rc, rc))
        return false;
    if (p->unsent_policy == GR_PEER_FAIL_UNSENT &&
        !fail_list(p, &p->queue, had_inflight ? rc : first_rc, rc))
        return false;
    schedule_connect(p);
    return true;
}

/* The connection is usable: says so, and writes what waits. */
void gr_peer_announce_connected(gr_peer_t *p)
{
    p->state = GR_PEER_CONNECTED;
    if (p->outage)
        gr_logf(p->log, GR_LOG_INFO, "net", "broker %d at %s:%d: connected again", p->node_id,
                p->host, p->port);
    else
        gr_logf(p->log, GR_LOG_DEBUG, "net", "broker %d at %s:%d: connected", p->node_id, p->host,
                p->port);
    p->outage = false;
    if (p->queue.head)
        ev_io_start(p->loop, &p->write_watcher);
}

/* TCP (and TLS) is up: SASL first when configured. */
static void on_connected(gr_peer_t *p)
{
    freeaddrinfo(p->addrs);
    p->addrs = p->addr = NULL;
    ev_timer_stop(p->loop, &p->timeout_timer);
    ev_io_stop(p->loop, &p->write_watcher);
    p->answered = false;
    p->stats.connections++;
    ev_io_set(&p->read_watcher, p->fd, EV_READ);
    ev_io_start(p->loop, &p->read_watcher);
    gr_peer_update_liveness(p);
    ev_io_set(&p->write_watcher, p->fd, EV_WRITE);
    if (p->sasl)
        gr_peer_auth_begin(p);
    else
        gr_peer_announce_connected(p);
}

/* --- TLS transport (gr_peer_set_tls) ------------------------------------- */

/* Advances the handshake; on success the connection is usable (on_connected). */
static void tls_step(gr_peer_t *p)
{
    int rc = gr_tls_handshake(p->tls);
    ev_io_stop(p->loop, &p->read_watcher);
    ev_io_stop(p->loop, &p->write_watcher);
    if (rc < 0) {
        char why[GR_TLS_ERROR_MAX]; /* the session goes with the socket */
        snprintf(why, sizeof why, "%s", gr_tls_error(p->tls));
        gr_peer_attempt_failed(p, EPROTO, why);
    } else if (rc == GR_TLS_WANT_READ) {
        ev_io_start(p->loop, &p->read_watcher);
    } else if (rc == GR_TLS_WANT_WRITE) {
        ev_io_start(p->loop, &p->write_watcher);
    } else {
        on_connected(p);
    }
}

/* TCP is up: negotiate TLS first when configured, else the connection is usable now. */
static void transport_connected(gr_peer_t *p)
{
    if (!p->tls_ctx) {
        on_connected(p);
        return;
    }
    ev_io_stop(p->loop, &p->write_watcher);
    p->tls = gr_tls_new(p->tls_ctx, p->fd, p->host);
    if (!p->tls) {
        gr_peer_attempt_failed(p, ENOMEM, "no memory for a TLS session");
        return;
    }
    p->state = GR_PEER_TLS_HANDSHAKE;
    ev_io_set(&p->read_watcher, p->fd, EV_READ);
    ev_io_set(&p->write_watcher, p->fd, EV_WRITE);
    /* The handshake shares the connect's deadline (started if connect was instant). */
    if (!ev_is_active(&p->timeout_timer)) {
        ev_timer_set(&p->timeout_timer, p->request_timeout, 0.);
        ev_timer_start(p->loop, &p->timeout_timer);
    }
    tls_step(p);
}

/* read(2) over the session: bytes, 0 at close, or -1 with errno (EAGAIN to wait). */
static ssize_t tls_read(gr_peer_t *p, void *buf, size_t len)
{
    size_t n;
    int rc = gr_tls_read(p->tls, buf, len, &n);
    if (rc == GR_TLS_OK)
        return (ssize_t)n;
    if (rc == GR_TLS_CLOSED)
        return 0;
    errno = rc == GR_TLS_WANT_READ || rc == GR_TLS_WANT_WRITE ? EAGAIN : (rc < 0 ? -rc : EIO);
    return -1;
}

/* sendmsg(2) over the session: writes from the first iovec, as SSL_write must be retried alike. */
static ssize_t tls_write(gr_peer_t *p, const struct iovec *iov)
{
    size_t n;
    int rc = gr_tls_write(p->tls, iov[0].iov_base, iov[0].iov_len, &n);
    if (rc == GR_TLS_OK)
        return (ssize_t)n;
    errno = rc == GR_TLS_WANT_READ || rc == GR_TLS_WANT_WRITE ? EAGAIN : (rc < 0 ? -rc : EPIPE);
    return -1;
}

/*
 * Starts a non-blocking connect to p->addr. Returns 0 when it completed at
 * once, EINPROGRESS when under way (fd set), or a positive errno.
 */
static int connect_one(gr_peer_t *p)
{
    const struct addrinfo *ai = p->addr;
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    /* Controller requests are small and latency-bound: no Nagle delay. */
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    p->fd = fd;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
        return 0;
    int err = errno;
    if (err == EINPROGRESS)
        return EINPROGRESS;
    close(fd);
    p->fd = -1;
    return err;
}

/*
 * Tries p->addr and the addresses after it until one connects or is under
 * way; fails the attempt when none is left. Returns false if a callback
 * freed the peer.
 */
static bool try_addresses(gr_peer_t *p)
{
    for (; p->addr; p->addr = p->addr->ai_next) {
        int rc = connect_one(p);
        if (rc == 0) {
            transport_connected(p);
            return true;
        }
        if (rc == EINPROGRESS) {
            p->state = GR_PEER_CONNECTING;
            ev_io_set(&p->write_watcher, p->fd, EV_WRITE);
            ev_io_start(p->loop, &p->write_watcher);
            ev_timer_set(&p->timeout_timer, p->request_timeout, 0.);
            ev_timer_start(p->loop, &p->timeout_timer);
            return true;
        }
        p->attempt_err = rc;
    }
    return gr_peer_attempt_failed(p, p->attempt_err ? p->attempt_err : ECONNREFUSED, NULL);
}

/* getaddrinfo's failure as an errno for the callbacks. */
static int lookup_errno(int gai_rc, int saved_errno)
{
    switch (gai_rc) {
    case EAI_SYSTEM:
        return saved_errno ? saved_errno : EIO;
    case EAI_MEMORY:
        return ENOMEM;
    case EAI_AGAIN:
        return EAGAIN;
    default:
        return ENOENT; /* no such host (or no address of a usable family) */
    }
}

/* Resolves host:port; numeric_only never consults a resolver. Returns getaddrinfo's code. */
static int lookup(const char *host, int32_t port, bool numeric_only, struct addrinfo **out,
                  int *saved_errno /* out */)
{
    char service[GR_PEER_PORT_STR];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    if (numeric_only)
        hints.ai_flags |= AI_NUMERICHOST;
    *out = NULL;
    int rc = getaddrinfo(host, service, &hints, out);
    *saved_errno = rc == EAI_SYSTEM ? errno : 0;
    if (rc)
        *out = NULL;
    return rc;
}

/* The attempt has its addresses: try them in turn. Takes addrs. */
static void got_addresses(gr_peer_t *p, struct addrinfo *addrs)
{
    p->addrs = p->addr = addrs;
    try_addresses(p);
}

static void lookup_failed(gr_peer_t *p, int gai_rc, int saved_errno)
{
    gr_peer_attempt_failed(p, lookup_errno(gai_rc, saved_errno),
                           gai_rc == EAI_SYSTEM ? NULL : gai_strerror(gai_rc));
}

/* Runs on a resolver thread: touches only the lookup. */
static int lookup_job(void *arg)
{
    gr_peer_lookup_t *l = arg;
    l->rc = lookup(l->host, l->port, false, &l->addrs, &l->saved_errno);
    return 0;
}

static void lookup_free(gr_peer_lookup_t *l)
{
    if (l->addrs)
        freeaddrinfo(l->addrs);
    free(l->host);
    free(l);
}

/* Back on the loop: the peer, if it still waits for this lookup, goes on. */
static void lookup_done(void *arg, int result)
{
    gr_peer_lookup_t *l = arg;
    gr_peer_t *p = l->peer;
    if (!p) {
        lookup_free(l);
        return;
    }
    p->lookup = NULL;
    enter(p);
    ev_timer_stop(p->loop, &p->timeout_timer);
    if (result) {
        gr_peer_attempt_failed(p, -result, "host name lookup cancelled");
    } else if (l->rc) {
        lookup_failed(p, l->rc, l->saved_errno);
    } else {
        struct addrinfo *addrs = l->addrs;
        l->addrs = NULL;
        got_addresses(p, addrs);
    }
    lookup_free(l);
    leave(p);
}

/* Hands the name lookup to the resolver. Returns 0 or -errno (not submitted). */
static int submit_lookup(gr_peer_t *p)
{
    gr_peer_lookup_t *l = calloc(1, sizeof(*l));
    if (!l || !(l->host = strdup(p->host))) {
        free(l);
        return -ENOMEM;
    }
    l->port = p->port;
    l->peer = p;
    int rc = gr_worker_submit(p->resolver, lookup_job, lookup_done, l);
    if (rc) {
        lookup_free(l);
        return rc;
    }
    p->lookup = l;
    p->state = GR_PEER_RESOLVING;
    p->stats.lookups++;
    ev_timer_set(&p->timeout_timer, p->request_timeout, 0.);
    ev_timer_start(p->loop, &p->timeout_timer);
    return 0;
}

/*
 * Starts a connection attempt: numeric addresses at once, names on the
 * resolver when there is one (else here, which may block on DNS).
 */
static void start_attempt(gr_peer_t *p)
{
    p->stats.attempts++;
    p->attempt_err = 0;
    struct addrinfo *addrs;
    int saved_errno;
    int rc = lookup(p->host, p->port, true, &addrs, &saved_errno);
    if (rc == EAI_NONAME) {
        /* A host name: on the resolver if there is one (it carries on in lookup_done). */
        if (p->resolver && submit_lookup(p) == 0)
            return;
        rc = lookup(p->host, p->port, false, &addrs, &saved_errno);
    }
    if (rc)
        lookup_failed(p, rc, saved_errno);
    else
        got_addresses(p, addrs);
}

/* The connect under way finished (err 0) or failed (err > 0); moves on. */
static void connect_done(gr_peer_t *p, int err)
{
    if (err == 0) {
        transport_connected(p);
        return;
    }
    ev_io_stop(p->loop, &p->write_watcher);
    ev_timer_stop(p->loop, &p->timeout_timer);
    close(p->fd);
    p->fd = -1;
    p->attempt_err = err;
    p->addr = p->addr->ai_next;
    try_addresses(p);
}

static void connect_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_peer_t *p = w->data;
    enter(p);
    if (p->state == GR_PEER_IDLE && p->queue.head)
        start_attempt(p);
    leave(p);
}

/* --- writing ------------------------------------------------------------- */

/*
 * The oldest request's response deadline: the in-flight head's, else the
 * partly written queue head's; 0 when nothing is on the wire.
 */
static ev_tstamp oldest_deadline(const gr_peer_t *p)
{
    if (p->inflight.head)
        return p->inflight.head->deadline;
    return p->queue.head && p->wpos ? p->queue.head->deadline : 0;
}

/* Re-arms timeout_timer for the oldest deadline, or stops it. */
static void arm_response_timeout(gr_peer_t *p)
{
    ev_timer_stop(p->loop, &p->timeout_timer);
    ev_tstamp due = oldest_deadline(p);
    if (!due)
        return;
    ev_tstamp delay = due - ev_now(p->loop);
    ev_timer_set(&p->timeout_timer, delay > 0 ? delay : 0., 0.);
    ev_timer_start(p->loop, &p->timeout_timer);
}

/*
 * The queue head's first byte is going out: its response is due within the
 * timeout from now (a broker that stops reading half-way times out too).
 */
static void head_started(gr_peer_t *p)
{
    p->queue.head->deadline = ev_now(p->loop) + p->request_timeout;
    if (!ev_is_active(&p->timeout_timer)) {
        ev_timer_set(&p->timeout_timer, p->request_timeout, 0.);
        ev_timer_start(p->loop, &p->timeout_timer);
    }
}

/* Writes queued frames until done or EAGAIN. Returns false if the peer was freed. */
static bool flush(gr_peer_t *p)
{
    while (p->queue.head) {
        struct iovec iov[GR_PEER_WRITE_IOV];
        int n = 0;
        size_t skip = p->wpos;
        for (gr_peer_req_t *r = p->queue.head; r && n < GR_PEER_WRITE_IOV; r = r->next) {
            iov[n].iov_base = r->frame + skip;
            iov[n].iov_len = r->len - skip;
            skip = 0;
            n++;
        }
        /* sendmsg rather than writev: MSG_NOSIGNAL, no SIGPIPE from a reset peer. */
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t w = p->tls ? tls_write(p, iov) : sendmsg(p->fd, &msg, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            ev_io_start(p->loop, &p->write_watcher);
            return true;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return connection_lost(p, -ECONNRESET, -ECONNRESET, errno, "write failed");
        size_t done = (size_t)w;
        while (done && p->queue.head) {
            if (p->wpos == 0)
                head_started(p);
            size_t left = p->queue.head->len - p->wpos;
            if (done < left) {
                p->wpos += done;
                break;
            }
            done -= left;
            p->wpos = 0;
            gr_peer_list_push(&p->inflight, gr_peer_list_pop(&p->queue));
        }
    }
    ev_io_stop(p->loop, &p->write_watcher);
    return true;
}

static void write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_peer_t *p = w->data;
    enter(p);
    if (p->state == GR_PEER_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
            err = errno;
        connect_done(p, err);
    } else if (p->state == GR_PEER_TLS_HANDSHAKE) {
        tls_step(p);
    } else if (p->state == GR_PEER_CONNECTED || p->state == GR_PEER_AUTHENTICATING) {
        flush(p);
    }
    leave(p);
}

/* --- timeouts ------------------------------------------------------------ */

static void timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_peer_t *p = w->data;
    enter(p);
    if (p->state == GR_PEER_RESOLVING) {
        gr_peer_attempt_failed(p, ETIMEDOUT, "host name lookup timed out");
    } else if (p->state == GR_PEER_CONNECTING) {
        connect_done(p, ETIMEDOUT);
    } else if (p->state == GR_PEER_TLS_HANDSHAKE) {
        gr_peer_attempt_failed(p, ETIMEDOUT, "TLS handshake timed out");
    } else if (p->state == GR_PEER_CONNECTED || p->state == GR_PEER_AUTHENTICATING) {
        ev_tstamp due = oldest_deadline(p);
        if (due && due <= ev_now(p->loop)) {
            const gr_peer_req_t *r = p->inflight.head ? p->inflight.head : p->queue.head;
            char why[96];
            snprintf(why, sizeof why, "no %s v%d response within %.0f ms", r->api->name, r->version,
                     p->request_timeout * 1000);
            connection_lost(p, -ETIMEDOUT, -ECONNRESET, ETIMEDOUT, why);
        } else
            arm_response_timeout(p);
    }
    leave(p);
}

/* --- reading ------------------------------------------------------------- */

static int32_t load_be32(const uint8_t *b)
{
    return (int32_t)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
                     (uint32_t)b[3]);
}

/*
 * Decodes one response frame for the oldest in-flight request into the
 * arena. Returns 0 with *out set, or -EBADMSG / -ENOMEM with why filled.
 */
static int decode_response(gr_peer_t *p, const gr_peer_req_t *r, const uint8_t *frame, size_t len,
                           void **out /* out */, char *why, size_t whylen)
{
    void *msg = gr_arena_alloc(&p->arena, r->api->response->struct_size);
    if (!msg) {
        snprintf(why, whylen, "no memory for a %s response", r->api->name);
        return -ENOMEM;
    }
    int rc =
        gr_frame_decode_response(frame, len, r->api, r->version, r->correlation_id, &p->arena, msg);
    if (rc == -EPROTO) {
        snprintf(why, whylen, "%s v%d response with correlation id other than %d", r->api->name,
                 r->version, r->correlation_id);
        return -EBADMSG;
    }
    if (rc) {
        snprintf(why, whylen, "malformed %s v%d response of %zu bytes", r->api->name, r->version,
                 len);
        return rc == -ENOMEM ? -ENOMEM : -EBADMSG;
    }
    *out = msg;
    return 0;
}

/*
 * Delivers every complete frame in rbuf. Returns false when the connection
 * closed (or the peer was freed) meanwhile.
 */
static bool deliver_frames(gr_peer_t *p)
{
    uint64_t gen = p->conn_gen;
    size_t pos = 0;
    while (p->rlen - pos >= GR_FRAME_SIZE_BYTES) {
        int32_t size = load_be32(p->rbuf + pos);
        if (!p->inflight.head) {
            connection_lost(p, -EBADMSG, -ECONNRESET, EBADMSG,
                            "response with no request in flight");
            return false;
        }
        if (size < 0 || size > GR_PEER_MAX_RESPONSE_BYTES) {
            char why[96];
            snprintf(why, sizeof why, "response size %d outside 0..%d", size,
                     GR_PEER_MAX_RESPONSE_BYTES);
            connection_lost(p, -EBADMSG, -ECONNRESET, EBADMSG, why);
            return false;
        }
        if (p->rlen - pos - GR_FRAME_SIZE_BYTES < (size_t)size)
            break;
        const uint8_t *frame = p->rbuf + pos + GR_FRAME_SIZE_BYTES;
        gr_peer_req_t *r = p->inflight.head;
        void *msg = NULL;
        char why[160];
        int rc = decode_response(p, r, frame, (size_t)size, &msg, why, sizeof why);
        if (rc) {
            gr_arena_reset(&p->arena);
            connection_lost(p, rc, -ECONNRESET, -rc, why);
            return false;
        }
        pos += GR_FRAME_SIZE_BYTES + (size_t)size;
        gr_peer_list_pop(&p->inflight);
        p->stats.responses++;
        /* A SASL answer proves nothing yet: a refused login keeps backing off. */
        if (p->state == GR_PEER_CONNECTED) {
            p->answered = true;
            p->backoff = GR_PEER_BACKOFF_MS / 1000.;
        }
        arm_response_timeout(p);
        complete(p, r, 0, msg);
        gr_arena_reset(&p->arena);
        if (p->freed || p->conn_gen != gen)
            return false;
    }
    memmove(p->rbuf, p->rbuf + pos, p->rlen - pos);
    p->rlen -= pos;
    if (p->rlen == 0 && p->rcap > GR_PEER_READ_KEEP) {
        /* A big response is done: do not hold its buffer for the next small ones. */
        free(p->rbuf);
        p->rbuf = NULL;
        p->rcap = 0;
    }
    return true;
}

/* Makes room to read: the frame being assembled, or at least GR_PEER_READ_MIN. */
static int grow_rbuf(gr_peer_t *p)
{
    size_t want = p->rlen + GR_PEER_READ_MIN;
    if (p->rlen >= GR_FRAME_SIZE_BYTES) {
        int32_t size = load_be32(p->rbuf);
        size_t frame = GR_FRAME_SIZE_BYTES + (size_t)(size > 0 ? size : 0);
        /* Grow towards a big frame by doubling as its bytes arrive, so a bare
         * size prefix cannot make us allocate the whole cap at once. */
        size_t doubled = p->rcap * 2;
        if (frame > want)
            want = frame < doubled ? frame : doubled;
    }
    if (want <= p->rcap)
        return 0;
    uint8_t *buf = realloc(p->rbuf, want);
    if (!buf)
        return -ENOMEM;
    p->rbuf = buf;
    p->rcap = want;
    return 0;
}

static void read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_peer_t *p = w->data;
    enter(p);
    if (p->state == GR_PEER_TLS_HANDSHAKE) {
        tls_step(p);
        leave(p);
        return;
    }
    if (p->rcap - p->rlen < GR_PEER_READ_MIN / 4 && grow_rbuf(p) < 0) {
        connection_lost(p, -ENOMEM, -ECONNRESET, ENOMEM, "out of memory for a response");
        leave(p);
        return;
    }
    ssize_t n = p->tls ? tls_read(p, p->rbuf + p->rlen, p->rcap - p->rlen)
                       : read(p->fd, p->rbuf + p->rlen, p->rcap - p->rlen);
    if (n > 0) {
        p->rlen += (size_t)n;
        /* Bytes OpenSSL holds raise no readiness: come back for them. */
        if (deliver_frames(p) && p->tls && gr_tls_pending(p->tls))
            ev_feed_event(p->loop, &p->read_watcher, EV_READ);
    } else if (n == 0) {
        connection_lost(p, -ECONNRESET, -ECONNRESET, 0, "closed by the broker");
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        connection_lost(p, -ECONNRESET, -ECONNRESET, errno, "read failed");
    }
    leave(p);
}

/* --- public -------------------------------------------------------------- */

gr_peer_t *gr_peer_new(struct ev_loop *loop, int32_t node_id, const char *host, int32_t port,
                       const char *client_id, int32_t request_timeout_ms, const gr_logger_t *log)
{
    if (!host || port <= 0 || port > UINT16_MAX || request_timeout_ms <= 0) {
        errno = EINVAL;
        return NULL;
    }
    gr_peer_t *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->host = strdup(host);
    p->client_id = strdup(client_id ? client_id : "");
    if (!p->host || !p->client_id) {
        free(p->host);
        free(p->client_id);
        free(p);
        errno = ENOMEM;
        return NULL;
    }
    p->loop = loop;
    p->node_id = node_id;
    p->port = port;
    p->request_timeout = request_timeout_ms / 1000.;
    p->log = log;
    p->fd = -1;
    p->backoff = GR_PEER_BACKOFF_MS / 1000.;
    gr_arena_init(&p->arena);
    ev_io_init(&p->read_watcher, read_cb, -1, EV_READ);
    ev_io_init(&p->write_watcher, write_cb, -1, EV_WRITE);
    ev_timer_init(&p->connect_timer, connect_timer_cb, 0., 0.);
    ev_timer_init(&p->timeout_timer, timeout_cb, 0., 0.);
    p->read_watcher.data = p->write_watcher.data = p;
    p->connect_timer.data = p->timeout_timer.data = p;
    return p;
}

/* Encodes the whole frame into a new request. Returns 0 or -errno. */
static int encode_request(gr_peer_t *p, const gr_api_desc_t *api, int16_t version, const void *msg,
                          gr_peer_req_t *r)
{
    gr_writer_t w;
    gr_writer_init(&w);
    int rc =
        gr_frame_encode_request(&w, api, version, r->correlation_id, gr_str(p->client_id), msg);
    if (rc) {
        gr_writer_fini(&w);
        return rc;
    }
    r->frame = w.buf; /* the request takes the writer's buffer */
    r->len = w.len;
    free(w.holes);
    return 0;
}

/* A request encoded with the next correlation id, not queued yet. Returns 0 or -errno. */
int gr_peer_new_request(gr_peer_t *p, int16_t api_key, int16_t api_version, const void *request,
                        gr_peer_response_fn *cb, void *opaque, gr_peer_req_t **out)
{
    const gr_api_desc_t *api = gr_api_find(api_key);
    if (!api || api_version < api->min_version || api_version > api->max_version || !request)
        return -EINVAL;
    gr_peer_req_t *r = calloc(1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->api = api;
    r->version = api_version;
    r->correlation_id = p->next_correlation_id;
    r->cb = cb;
    r->opaque = opaque;
    int rc = encode_request(p, api, api_version, request, r);
    if (rc) {
        free(r);
        return rc;
    }
    p->next_correlation_id = p->next_correlation_id == INT32_MAX ? 0 : p->next_correlation_id + 1;
    p->pending++;
    gr_peer_update_liveness(p);
    *out = r;
    return 0;
}

int gr_peer_send(gr_peer_t *p, int16_t api_key, int16_t api_version, const void *request,
                 gr_peer_response_fn *cb, void *opaque)
{
    if (p->freed)
        return -ECANCELED;
    gr_peer_req_t *r;
    int rc = gr_peer_new_request(p, api_key, api_version, request, cb, opaque, &r);
    if (rc)
        return rc;
    gr_peer_maybe_reauthenticate(p);
    gr_peer_list_push(p->state == GR_PEER_AUTHENTICATING ? &p->held : &p->queue, r);
    if (p->state == GR_PEER_CONNECTED)
        ev_io_start(p->loop, &p->write_watcher);
    else
        schedule_connect(p);
    return 0;
}

int gr_peer_set_address(gr_peer_t *p, const char *host, int32_t port)
{
    if (!host || port <= 0 || port > UINT16_MAX)
        return -EINVAL;
    if (p->freed || (p->port == port && strcmp(p->host, host) == 0))
        return 0;
    char *copy = strdup(host);
    if (!copy)
        return -ENOMEM;
    gr_logf(p->log, GR_LOG_INFO, "net", "broker %d moved from %s:%d to %s:%d", p->node_id, p->host,
            p->port, host, port);
    free(p->host);
    p->host = copy;
    p->port = port;
    enter(p);
    close_socket(p);
    if (p->addrs)
        freeaddrinfo(p->addrs);
    p->addrs = p->addr = NULL;
    ev_timer_stop(p->loop, &p->connect_timer);
    p->backoff = GR_PEER_BACKOFF_MS / 1000.;
    p->next_attempt_at = 0;
    p->outage = false;
    if (fail_list(p, &p->inflight, -ECANCELED, -ECANCELED))
        schedule_connect(p);
    leave(p);
    return 0;
}

void gr_peer_set_unsent(gr_peer_t *p, gr_peer_unsent_t policy)
{
    p->unsent_policy = policy;
}

void gr_peer_set_resolver(gr_peer_t *p, struct gr_worker *resolver)
{
    p->resolver = resolver;
}

void gr_peer_set_tls(gr_peer_t *p, gr_tls_ctx_t *tls)
{
    p->tls_ctx = tls;
}

void gr_peer_free(gr_peer_t *p)
{
    if (!p || p->freed)
        return;
    enter(p);
    close_socket(p);
    ev_timer_stop(p->loop, &p->connect_timer);
    /* Callbacks below may call gr_peer_send, which refuses a freed peer. */
    p->freed = true;
    gr_peer_req_t *r;
    while ((r = gr_peer_list_pop(&p->inflight)) || (r = gr_peer_list_pop(&p->queue)))
        complete(p, r, -ECANCELED, NULL);
    leave(p);
}

size_t gr_peer_pending(const gr_peer_t *p)
{
    return p->pending;
}

bool gr_peer_connected(const gr_peer_t *p)
{
    return p->state == GR_PEER_CONNECTED;
}

int32_t gr_peer_node_id(const gr_peer_t *p)
{
    return p->node_id;
}

const gr_peer_stats_t *gr_peer_stats(const gr_peer_t *p)
{
    return &p->stats;
}
