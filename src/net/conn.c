/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Connections: see conn.h for the slot states and the close protocol.
 *
 * Read blocks. The connection reads into its current block; [rpos, rend) is
 * the unparsed tail. Each dispatched frame's slot takes a reference on the
 * block holding the frame. A block is only ever moved in place (memmove of
 * the tail to its start) when the connection holds the sole reference, i.e.
 * no live frame points into it; otherwise the tail is copied to a new block.
 *
 * Idle. Memory follows the requests in progress, not the connections open:
 * at the end of each pump the read block is released once every byte in it
 * has been parsed, and the spare slots (each with an arena block) once the
 * queue is empty. An idle connection holds its gr_conn_t alone, so 10,000
 * of them cost a few KiB each instead of a 64 KiB block plus a slot arena
 * per request they pipelined (a spare arena keeps its largest block: a
 * Metadata response for 100,000 partitions would otherwise stay cached for
 * the life of the connection). A request-response client allocates a block
 * and a slot per request; the allocator serves both from what the previous
 * request freed.
 *
 * Re-entrancy. depth counts this connection's callbacks on the stack (read
 * and write watchers, the throttle timer, gr_resp_slot_resume). Sending
 * happens only at depth 1 (end of a watcher callback, or of a resumed slot's
 * handling) or from the write watcher, never inside gr_resp_slot_complete,
 * so a handler never sees its connection freed under it. gr_conn_close at
 * depth > 0 tears down everything but the memory; the last callback to
 * unwind frees it.
 *
 * TLS (conn.h, "TLS"). Until the handshake completes, both watchers drive
 * tls_handshake_step. Afterwards reads go through tls_read; OpenSSL may hold
 * decrypted bytes no readiness will announce, so whenever reading is (re)armed
 * and bytes are pending, a read event is fed to the loop. A read that must
 * first write (a TLS 1.3 key update) sets read_wants_write for the write
 * watcher to resume it.
 *
 * Runs on: loop thread.
 */
#include "net/conn.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/clock.h"

#define GR_CONN_SLOT_CACHE  4  /* freed slots kept for reuse, each keeping one arena block */
#define GR_CONN_GATHER_IOV  64 /* iovecs per write gathering several responses */
#define GR_CONN_EAGER_BLOCK (1024 * 1024) /* frames up to this get their whole block at once */

typedef struct gr_rblock {
    uint32_t refs;
    size_t cap;
    uint8_t data[];
} gr_rblock_t;

typedef enum gr_slot_state {
    GR_SLOT_HANDLING,
    GR_SLOT_DEFERRED,
    GR_SLOT_COMPLETE,
} gr_slot_state_t;

struct gr_resp_slot {
    gr_resp_slot_t *next;
    gr_conn_t *conn;
    gr_slot_state_t state;
    gr_chain_t chain;
    gr_arena_t arena;
    gr_rblock_t *block; /* holds the request frame; one reference */
    gr_resp_slot_cancel_fn cancel;
    void *cancel_arg;
    void *tag;             /* gr_resp_slot_set_tag */
    gr_slot_times_t times; /* only with cfg.on_sent */
    int64_t deferred_at;   /* when it last became DEFERRED */
};

struct gr_conn {
    struct ev_loop *loop;
    int fd;
    ev_io read_watcher;
    ev_io write_watcher;
    gr_conn_config_t cfg;
    char peer[GR_CONN_PEER_MAX];

    gr_rblock_t *block; /* current read block or NULL; one reference */
    size_t rpos;        /* start of the unparsed bytes */
    size_t rend;        /* end of the bytes read */

    gr_resp_slot_t *head; /* response queue, oldest first */
    gr_resp_slot_t *tail;
    size_t queued;
    int64_t unsent; /* bytes of COMPLETE slots not yet sent */

    gr_resp_slot_t *spare; /* cache of freed slots */
    size_t spare_count;

    int32_t frame_limit;   /* max_request_bytes, or max_login_bytes before the login */
    gr_tls_t *tls;         /* NULL: plaintext */
    bool read_wants_write; /* a TLS read waits for writability */

    void *session; /* the layer above's, see gr_conn_set_session */
    gr_conn_session_free_fn session_free;

    ev_timer throttle_timer; /* running while muted by gr_conn_throttle */
    bool throttled;

    int64_t read_ns; /* the last read (with cfg.on_sent): frames it completes carry it */

    unsigned depth; /* our callbacks on the stack */
    bool closing;
    bool draining;
    const char *drain_reason;
};

static void rblock_put(gr_rblock_t *b)
{
    if (b && --b->refs == 0)
        free(b);
}

static gr_rblock_t *rblock_new(size_t cap)
{
    gr_rblock_t *b = malloc(sizeof(*b) + cap);
    if (!b)
        return NULL;
    b->refs = 1;
    b->cap = cap;
    return b;
}

static void format_peer(gr_conn_t *c)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char host[INET6_ADDRSTRLEN];
    snprintf(c->peer, sizeof c->peer, "local");
    if (getpeername(c->fd, (struct sockaddr *)&ss, &len) < 0)
        return;
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        if (inet_ntop(AF_INET, &in->sin_addr, host, sizeof host))
            snprintf(c->peer, sizeof c->peer, "%s:%u", host, ntohs(in->sin_port));
    } else if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        /* IPv4 clients of a dual-stack listener: log them as plain IPv4. */
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) &&
            inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], host, sizeof host))
            snprintf(c->peer, sizeof c->peer, "%s:%u", host, ntohs(in6->sin6_port));
        else if (inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host))
            snprintf(c->peer, sizeof c->peer, "[%s]:%u", host, ntohs(in6->sin6_port));
    }
}

static void read_cb(struct ev_loop *loop, ev_io *w, int revents);
static void write_cb(struct ev_loop *loop, ev_io *w, int revents);
static void throttle_cb(struct ev_loop *loop, ev_timer *w, int revents);

gr_conn_t *gr_conn_new(struct ev_loop *loop, int fd, const gr_conn_config_t *cfg)
{
    assert(cfg->on_frame);
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return NULL;
    gr_conn_t *c = calloc(1, sizeof(*c));
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    c->loop = loop;
    c->fd = fd;
    c->cfg = *cfg;
    if (c->cfg.max_request_bytes <= 0)
        c->cfg.max_request_bytes = GR_CONN_DEFAULT_MAX_REQUEST_BYTES;
    c->frame_limit = c->cfg.max_request_bytes;
    if (c->cfg.max_login_bytes > 0 && c->cfg.max_login_bytes < c->frame_limit)
        c->frame_limit = c->cfg.max_login_bytes;
    if (c->cfg.max_inflight == 0)
        c->cfg.max_inflight = GR_CONN_DEFAULT_MAX_INFLIGHT;
    if (c->cfg.max_unsent_bytes <= 0)
        c->cfg.max_unsent_bytes = GR_CONN_DEFAULT_MAX_UNSENT_BYTES;
    if (c->cfg.read_block < GR_CONN_FRAME_SIZE_BYTES)
        c->cfg.read_block = GR_CONN_DEFAULT_READ_BLOCK;
    /* Responses are written whole with writev/sendfile; Nagle would only delay them.
     * Fails harmlessly on non-TCP sockets (tests use socketpairs). */
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    format_peer(c);
    ev_io_init(&c->read_watcher, read_cb, fd, EV_READ);
    ev_io_init(&c->write_watcher, write_cb, fd, EV_WRITE);
    c->read_watcher.data = c;
    c->write_watcher.data = c;
    if (cfg->tls && !(c->tls = gr_tls_new(cfg->tls, fd, NULL))) {
        free(c);
        errno = ENOMEM;
        return NULL;
    }
    ev_init(&c->throttle_timer, throttle_cb);
    c->throttle_timer.data = c;
    ev_io_start(loop, &c->read_watcher);
    return c;
}

const char *gr_conn_peer(const gr_conn_t *c)
{
    return c->peer;
}

void *gr_conn_opaque(const gr_conn_t *c)
{
    return c->cfg.opaque;
}

const void *gr_conn_listener(const gr_conn_t *c)
{
    return c->cfg.listener;
}

void *gr_conn_session(const gr_conn_t *c)
{
    return c->session;
}

void gr_conn_set_session(gr_conn_t *c, void *session, gr_conn_session_free_fn free_fn)
{
    if (c->session && c->session_free)
        c->session_free(c->session);
    c->session = session;
    c->session_free = free_fn;
}

const gr_logger_t *gr_conn_log(const gr_conn_t *c)
{
    return c->cfg.log;
}

bool gr_conn_is_tls(const gr_conn_t *c)
{
    return c->cfg.tls != NULL;
}

const char *gr_conn_tls_peer_subject(const gr_conn_t *c)
{
    return c->tls ? gr_tls_peer_subject(c->tls) : NULL;
}

const void *gr_conn_tls_app(const gr_conn_t *c)
{
    /* The session's context: the listener's may have been replaced since (a keystore rotated). */
    return c->tls ? gr_tls_ctx_app(gr_tls_ctx_of(c->tls)) : NULL;
}

const char *gr_conn_tls_describe(const gr_conn_t *c, char *buf, size_t size)
{
    if (!c->tls)
        return buf[0] = '\0', buf;
    return gr_tls_describe(c->tls, buf, size);
}

size_t gr_conn_queued(const gr_conn_t *c)
{
    return c->queued;
}

int64_t gr_conn_unsent(const gr_conn_t *c)
{
    return c->unsent;
}

bool gr_conn_reading(const gr_conn_t *c)
{
    return ev_is_active(&c->read_watcher);
}

/* --- slots ------------------------------------------------------------- */

static gr_resp_slot_t *slot_new(gr_conn_t *c)
{
    gr_resp_slot_t *s = c->spare;
    if (s) {
        c->spare = s->next;
        c->spare_count--;
    } else {
        s = calloc(1, sizeof(*s));
        if (!s)
            return NULL;
        gr_chain_init(&s->chain);
        gr_arena_init(&s->arena);
    }
    s->next = NULL;
    s->conn = c;
    s->state = GR_SLOT_HANDLING;
    s->block = c->block;
    c->block->refs++;
    s->cancel = NULL;
    s->cancel_arg = NULL;
    s->tag = NULL;
    memset(&s->times, 0, sizeof s->times);
    if (c->cfg.on_sent) {
        s->times.read_ns = c->read_ns;
        s->times.dispatch_ns = gr_clock_mono_ns();
    }
    return s;
}

/* Releases a slot's response, frame and arena; caches the slot when there is room. */
static void slot_free(gr_conn_t *c, gr_resp_slot_t *s)
{
    gr_chain_fini(&s->chain);
    rblock_put(s->block);
    s->block = NULL;
    if (c->spare_count < GR_CONN_SLOT_CACHE && !c->closing) {
        gr_arena_reset(&s->arena);
        s->next = c->spare;
        c->spare = s;
        c->spare_count++;
        return;
    }
    gr_arena_fini(&s->arena);
    free(s);
}

gr_arena_t *gr_resp_slot_arena(gr_resp_slot_t *slot)
{
    return &slot->arena;
}

gr_chain_t *gr_resp_slot_chain(gr_resp_slot_t *slot)
{
    return &slot->chain;
}

gr_conn_t *gr_resp_slot_conn(gr_resp_slot_t *slot)
{
    return slot->conn;
}

void gr_resp_slot_set_tag(gr_resp_slot_t *slot, void *tag)
{
    slot->tag = tag;
}

/* A DEFERRED slot leaves that state at now: its wait counts as remote time. */
static void slot_undefer(gr_resp_slot_t *slot, int64_t now)
{
    if (slot->state == GR_SLOT_DEFERRED && slot->conn->cfg.on_sent)
        slot->times.deferred_ns += now - slot->deferred_at;
}

void gr_resp_slot_defer(gr_resp_slot_t *slot, gr_resp_slot_cancel_fn cancel, void *arg)
{
    assert(slot->state == GR_SLOT_HANDLING);
    assert(cancel);
    if (slot->conn->cfg.on_sent)
        slot->deferred_at = gr_clock_mono_ns();
    slot->state = GR_SLOT_DEFERRED;
    slot->cancel = cancel;
    slot->cancel_arg = arg;
}

void gr_resp_slot_complete(gr_resp_slot_t *slot, gr_chain_t *chain)
{
    gr_conn_t *c = slot->conn;
    assert(slot->state != GR_SLOT_COMPLETE);
    if (c->cfg.on_sent) {
        slot->times.complete_ns = gr_clock_mono_ns();
        slot_undefer(slot, slot->times.complete_ns);
    }
    slot->state = GR_SLOT_COMPLETE;
    slot->cancel = NULL;
    if (c->closing) {
        /* Only the slot being handled can get here: the response has nowhere to go. */
        if (chain)
            gr_chain_fini(chain);
        gr_chain_fini(&slot->chain);
        return;
    }
    if (chain && gr_chain_move(&slot->chain, chain) < 0) {
        gr_chain_fini(chain);
        gr_conn_close(c, "out of memory building a response");
        return;
    }
    c->unsent += gr_chain_unsent(&slot->chain);
    /* Outside our own callbacks, let the write watcher send it (see the file comment). */
    if (c->depth == 0 && c->head == slot)
        ev_io_start(c->loop, &c->write_watcher);
}

void gr_resp_slot_complete_empty(gr_resp_slot_t *slot)
{
    gr_resp_slot_complete(slot, NULL);
}

/* --- closing ------------------------------------------------------------ */

static void conn_free(gr_conn_t *c)
{
    gr_resp_slot_t *s = c->head;
    while (s) {
        gr_resp_slot_t *next = s->next;
        slot_free(c, s);
        s = next;
    }
    s = c->spare;
    while (s) {
        gr_resp_slot_t *next = s->next;
        gr_arena_fini(&s->arena);
        free(s);
        s = next;
    }
    rblock_put(c->block);
    if (c->session && c->session_free)
        c->session_free(c->session);
    free(c);
}

static void close_with(gr_conn_t *c, gr_log_level_t level, const char *reason)
{
    if (c->closing)
        return;
    c->closing = true;
    gr_logf(c->cfg.log, level, "net", "closing connection from %s: %s", c->peer, reason);
    ev_io_stop(c->loop, &c->read_watcher);
    ev_io_stop(c->loop, &c->write_watcher);
    gr_tls_free(c->tls);
    c->tls = NULL;
    ev_timer_stop(c->loop, &c->throttle_timer);
    close(c->fd);
    c->fd = -1;
    /* Deferred slots: their holders forget them now (conn.h, "Closing"). */
    for (gr_resp_slot_t *s = c->head; s; s = s->next) {
        if (s->state != GR_SLOT_DEFERRED)
            continue;
        gr_resp_slot_cancel_fn cancel = s->cancel;
        s->state = GR_SLOT_COMPLETE;
        s->cancel = NULL;
        cancel(s, s->cancel_arg);
    }
    if (c->cfg.on_close)
        c->cfg.on_close(c, c->cfg.owner);
    if (c->depth == 0)
        conn_free(c);
}

void gr_conn_close(gr_conn_t *c, const char *reason)
{
    close_with(c, GR_LOG_INFO, reason);
}

void gr_conn_close_at(gr_conn_t *c, gr_log_level_t level, const char *reason)
{
    close_with(c, level, reason);
}

/* --- reading ------------------------------------------------------------ */

static bool may_read(const gr_conn_t *c)
{
    return !c->closing && !c->draining && !c->throttled && c->queued < c->cfg.max_inflight &&
           c->unsent < c->cfg.max_unsent_bytes;
}

static int32_t load_be32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
                     (uint32_t)p[3]);
}

/*
 * Hands complete buffered frames to on_frame while back-pressure allows.
 * Returns how many were dispatched. May close the connection.
 */
static size_t dispatch_frames(gr_conn_t *c)
{
    size_t n = 0;
    while (may_read(c) && c->block && c->rend - c->rpos >= GR_CONN_FRAME_SIZE_BYTES) {
        int32_t size = load_be32(c->block->data + c->rpos);
        if (size < 0 || size > c->frame_limit) {
            char why[160];
            snprintf(why, sizeof why, "request size %d outside 0..%d (%s)", size, c->frame_limit,
                     c->frame_limit < c->cfg.max_request_bytes
                         ? "sasl.server.max.receive.size before authentication"
                         : "socket.request.max.bytes");
            close_with(c, GR_LOG_WARN, why);
            break;
        }
        size_t total = GR_CONN_FRAME_SIZE_BYTES + (size_t)size;
        if (c->rend - c->rpos < total)
            break;
        gr_resp_slot_t *s = slot_new(c);
        if (!s) {
            close_with(c, GR_LOG_ERROR, "out of memory for a request slot");
            break;
        }
        const uint8_t *frame = c->block->data + c->rpos + GR_CONN_FRAME_SIZE_BYTES;
        c->rpos += total;
        if (c->tail)
            c->tail->next = s;
        else
            c->head = s;
        c->tail = s;
        c->queued++;
        n++;
        c->cfg.on_frame(c, s, frame, (size_t)size, c->cfg.opaque);
        if (c->closing)
            break;
        if (s->state == GR_SLOT_HANDLING) {
            close_with(c, GR_LOG_ERROR, "request handler neither completed nor deferred its slot");
            break;
        }
    }
    return n;
}

/*
 * Makes room in the read block for the frame being assembled.
 * Returns 0 or -ENOMEM.
 */
static int prepare_block(gr_conn_t *c)
{
    size_t tail = c->block ? c->rend - c->rpos : 0;
    size_t need = c->cfg.read_block; /* block size wanted for the current frame */
    size_t room_wanted = c->cfg.read_block / 4;
    if (tail >= GR_CONN_FRAME_SIZE_BYTES) {
        int32_t size = load_be32(c->block->data + c->rpos);
        if (size < 0 || size > c->frame_limit)
            return 0; /* dispatch_frames closes the connection before using it */
        size_t total = GR_CONN_FRAME_SIZE_BYTES + (size_t)size;
        /* A size prefix alone does not earn a 100 MB buffer: beyond
         * GR_CONN_EAGER_BLOCK the block grows with what actually arrived. */
        size_t want = total;
        if (total > GR_CONN_EAGER_BLOCK) {
            want = tail > GR_CONN_EAGER_BLOCK / 2 ? 2 * tail : GR_CONN_EAGER_BLOCK;
            if (want > total)
                want = total;
        }
        if (want > need)
            need = want;
        if (total - tail < room_wanted)
            room_wanted = total - tail;
    }
    if (room_wanted == 0)
        room_wanted = 1;
    gr_rblock_t *b = c->block;
    if (b && b->cap - c->rpos >= need && b->cap - c->rend >= room_wanted)
        return 0;
    if (b && b->refs == 1 && b->cap >= need) {
        /* No frame lives in this block: slide the tail to the front. */
        memmove(b->data, b->data + c->rpos, tail);
    } else {
        gr_rblock_t *nb = rblock_new(need);
        if (!nb)
            return -ENOMEM;
        if (tail)
            memcpy(nb->data, b->data + c->rpos, tail);
        rblock_put(b);
        c->block = nb;
    }
    c->rpos = 0;
    c->rend = tail;
    return 0;
}

/*
 * Gathers the memory-only responses of consecutive complete slots at the head
 * into one write (pipelined small responses cost one syscall, not one each).
 * Returns 1 when fewer than two slots qualify (the caller sends the head on
 * its own), else 0, GR_CHAIN_AGAIN or -errno. Sent bytes are consumed from
 * the slots' chains; fully sent slots are left for the caller to pop.
 */
static int send_gathered(gr_conn_t *c)
{
    struct iovec iov[GR_CONN_GATHER_IOV];
    int n = 0, slots = 0;
    for (gr_resp_slot_t *s = c->head; s && s->state == GR_SLOT_COMPLETE; s = s->next) {
        size_t links = gr_chain_links(&s->chain);
        if (links > (size_t)(GR_CONN_GATHER_IOV - n))
            break;
        int k = gr_chain_iov(&s->chain, iov + n, GR_CONN_GATHER_IOV - n);
        if ((size_t)k != links)
            break; /* a file link: sendfile needs the slot on its own */
        n += k;
        slots++;
    }
    if (slots < 2)
        return 1;
    size_t sent;
    int rc = gr_chain_send_iov(c->fd, iov, n, c->cfg.stats, &sent);
    c->unsent -= (int64_t)sent;
    size_t left = sent;
    for (gr_resp_slot_t *s = c->head; s && left > 0; s = s->next)
        left -= gr_chain_consume(&s->chain, left);
    return rc;
}

/*
 * Sends complete responses at the head of the queue. May close the connection.
 * Returns how many slots were sent and freed.
 */
static size_t flush(gr_conn_t *c)
{
    size_t sent = 0;
    while (c->head && c->head->state == GR_SLOT_COMPLETE) {
        gr_resp_slot_t *s = c->head;
        int rc = 0;
        if (!gr_chain_empty(&s->chain)) {
            rc = c->tls ? 1 : send_gathered(c); /* TLS gathers in its own stage */
            if (rc == 1) {
                int64_t before = gr_chain_unsent(&s->chain);
                rc = c->tls ? gr_tls_send_chain(c->tls, &s->chain, c->cfg.stats)
                            : gr_chain_send(&s->chain, c->fd, c->cfg.stats);
                c->unsent -= before - gr_chain_unsent(&s->chain);
            }
        }
        /* Pop what is fully sent, even when the socket just filled up. */
        int64_t sent_ns = 0;
        while (c->head && c->head->state == GR_SLOT_COMPLETE && gr_chain_empty(&c->head->chain)) {
            s = c->head;
            if (c->cfg.on_sent) {
                if (!sent_ns)
                    sent_ns = gr_clock_mono_ns();
                s->times.sent_ns = sent_ns;
                c->cfg.on_sent(c, s->tag, &s->times, c->cfg.opaque);
            }
            c->head = s->next;
            if (!c->head)
                c->tail = NULL;
            c->queued--;
            slot_free(c, s);
            sent++;
        }
        if (rc == GR_CHAIN_AGAIN) {
            /* A TLS write waiting on a read resumes from the read watcher's pump. */
            if (!c->tls || !gr_tls_send_wants_read(c->tls))
                ev_io_start(c->loop, &c->write_watcher);
            return sent;
        }
        if (rc < 0) {
            char why[128];
            snprintf(why, sizeof why, "sending a response failed: %s",
                     rc == -ENODATA  ? "log segment shorter than the promised range"
                     : rc == -EPROTO ? gr_tls_error(c->tls)
                                     : strerror(-rc));
            close_with(c, rc == -ENODATA ? GR_LOG_ERROR : GR_LOG_DEBUG, why);
            return sent;
        }
    }
    ev_io_stop(c->loop, &c->write_watcher);
    if (c->draining && !c->head)
        close_with(c, GR_LOG_INFO, c->drain_reason);
    return sent;
}

/*
 * An idle connection keeps no buffers (see the file comment, "Idle"): the read
 * block goes once every byte in it is parsed (the slots of frames still being
 * handled hold their own references), the spare slots once the queue is empty.
 */
static void release_idle(gr_conn_t *c)
{
    if (c->block && c->rpos == c->rend) {
        rblock_put(c->block);
        c->block = NULL;
        c->rpos = c->rend = 0;
    }
    if (c->head)
        return;
    while (c->spare) {
        gr_resp_slot_t *s = c->spare;
        c->spare = s->next;
        gr_arena_fini(&s->arena);
        free(s);
    }
    c->spare_count = 0;
}

size_t gr_conn_buffer_bytes(const gr_conn_t *c)
{
    size_t bytes = c->block ? sizeof(*c->block) + c->block->cap : 0;
    for (const gr_resp_slot_t *s = c->spare; s; s = s->next)
        bytes += sizeof(*s); /* and its arena's block, which the arena does not tell */
    return bytes;
}

/*
 * Dispatches buffered frames and flushes responses until neither makes
 * progress (a flush may lift back-pressure and let buffered frames through),
 * then sets the read watcher. Terminates: each turn consumes a buffered frame
 * or frees a slot.
 */
static void pump(gr_conn_t *c)
{
    for (;;) {
        size_t dispatched = dispatch_frames(c);
        if (c->closing)
            return;
        size_t sent = flush(c);
        if (c->closing)
            return;
        if (dispatched == 0 && sent == 0)
            break;
    }
    release_idle(c);
    if (may_read(c)) {
        ev_io_start(c->loop, &c->read_watcher);
        /* Bytes OpenSSL already holds raise no readiness: announce them. */
        if (c->tls && gr_tls_pending(c->tls))
            ev_feed_event(c->loop, &c->read_watcher, EV_READ);
    } else {
        ev_io_stop(c->loop, &c->read_watcher);
    }
}

/* Ends one of our callbacks: frees the connection if it closed meanwhile. */
static void leave(gr_conn_t *c)
{
    if (--c->depth == 0 && c->closing)
        conn_free(c);
}

/* Advances the TLS handshake; once done, reads as a plaintext connection would. */
static void tls_handshake_step(gr_conn_t *c)
{
    int rc = gr_tls_handshake(c->tls);
    if (rc < 0) {
        close_with(c, GR_LOG_INFO, gr_tls_error(c->tls));
        return;
    }
    /* Wait only for what OpenSSL asked, or a readable socket would spin here. */
    if (rc == GR_TLS_WANT_WRITE) {
        ev_io_stop(c->loop, &c->read_watcher);
        ev_io_start(c->loop, &c->write_watcher);
        return;
    }
    ev_io_stop(c->loop, &c->write_watcher);
    ev_io_start(c->loop, &c->read_watcher);
    if (rc == GR_TLS_OK) {
        char desc[GR_TLS_ERROR_MAX];
        const char *subject = gr_tls_peer_subject(c->tls);
        gr_logf(c->cfg.log, GR_LOG_DEBUG, "net", "TLS handshake with %s done: %s, %s%s", c->peer,
                gr_tls_describe(c->tls, desc, sizeof desc),
                subject ? "client certificate " : "no client certificate", subject ? subject : "");
        /* The client's first request may have come with its Finished message. */
        ev_feed_event(c->loop, &c->read_watcher, EV_READ);
    }
}

/*
 * Reads decrypted bytes into the read block, then dispatches as plaintext does.
 * With read-ahead (tls.c) one read() brings many small TLS records into
 * OpenSSL, so SSL_read goes on while OpenSSL holds bytes and the block has
 * room: one wake-up per socketful, not two read()s per record. What stays
 * in OpenSSL when the block fills or reading pauses is announced by pump.
 */
static void tls_read(gr_conn_t *c)
{
    if (prepare_block(c) < 0) {
        close_with(c, GR_LOG_ERROR, "out of memory for the read buffer");
        return;
    }
    size_t got = 0, n;
    int rc;
    do {
        rc = gr_tls_read(c->tls, c->block->data + c->rend, c->block->cap - c->rend, &n);
        if (rc != GR_TLS_OK)
            break;
        c->rend += n;
        got += n;
    } while (c->rend < c->block->cap && gr_tls_pending(c->tls));
    /* A failed session takes no more I/O: frames read before the error go with it. */
    if (rc < 0) {
        close_with(c, rc == -EPROTO ? GR_LOG_WARN : GR_LOG_DEBUG, gr_tls_error(c->tls));
        return;
    }
    /* Frames read before a close_notify are handled first, as plaintext's would be. */
    if (got > 0) {
        if (c->cfg.on_read)
            c->cfg.on_read(c, c->cfg.owner);
        pump(c);
        if (c->closing)
            return;
    }
    if (rc == GR_TLS_WANT_WRITE) {
        c->read_wants_write = true;
        ev_io_start(c->loop, &c->write_watcher);
    } else if (rc == GR_TLS_CLOSED) {
        close_with(c, GR_LOG_DEBUG, "peer closed the connection");
    }
}

static void read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_conn_t *c = w->data;
    c->depth++;
    if (c->cfg.on_sent)
        c->read_ns = gr_clock_mono_ns();
    if (c->tls && !gr_tls_established(c->tls)) {
        tls_handshake_step(c);
        leave(c);
        return;
    }
    if (c->tls) {
        tls_read(c);
        leave(c);
        return;
    }
    if (prepare_block(c) < 0) {
        close_with(c, GR_LOG_ERROR, "out of memory for the read buffer");
        leave(c);
        return;
    }
    ssize_t n;
    do {
        n = read(c->fd, c->block->data + c->rend, c->block->cap - c->rend);
    } while (n < 0 && errno == EINTR);
    if (n == 0) {
        close_with(c, GR_LOG_DEBUG, "peer closed the connection");
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        char why[128];
        snprintf(why, sizeof why, "read failed: %s", strerror(errno));
        close_with(c, GR_LOG_DEBUG, why);
    } else {
        if (n > 0) {
            c->rend += (size_t)n;
            if (c->cfg.on_read)
                c->cfg.on_read(c, c->cfg.owner);
        }
        pump(c);
    }
    leave(c);
}

static void write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_conn_t *c = w->data;
    c->depth++;
    if (c->tls && !gr_tls_established(c->tls)) {
        tls_handshake_step(c);
        leave(c);
        return;
    }
    if (c->tls && c->read_wants_write) {
        c->read_wants_write = false;
        tls_read(c);
        if (c->closing) {
            leave(c);
            return;
        }
    }
    pump(c);
    leave(c);
}

void gr_conn_logged_in(gr_conn_t *c)
{
    c->frame_limit = c->cfg.max_request_bytes;
}

void gr_conn_drain(gr_conn_t *c, const char *reason)
{
    if (c->closing || c->draining)
        return;
    c->draining = true;
    c->drain_reason = reason;
    ev_io_stop(c->loop, &c->read_watcher);
    if (!c->head)
        close_with(c, GR_LOG_INFO, reason);
    else if (c->depth == 0 && c->head->state == GR_SLOT_COMPLETE)
        ev_io_start(c->loop, &c->write_watcher);
}

/* --- resuming a deferred slot ------------------------------------------- */

void gr_resp_slot_resume(gr_resp_slot_t *slot, gr_resp_slot_resume_fn fn, void *arg)
{
    gr_conn_t *c = slot->conn;
    assert(slot->state == GR_SLOT_DEFERRED);
    if (c->cfg.on_sent)
        slot_undefer(slot, gr_clock_mono_ns());
    slot->state = GR_SLOT_HANDLING;
    slot->cancel = NULL;
    slot->cancel_arg = NULL;
    c->depth++;
    fn(slot, arg);
    if (!c->closing && slot->state == GR_SLOT_HANDLING)
        close_with(c, GR_LOG_ERROR, "request handler neither completed nor deferred its slot");
    if (!c->closing)
        pump(c); /* sends the response if it heads the queue */
    leave(c);
}

/* --- throttling ---------------------------------------------------------- */

static void throttle_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_conn_t *c = w->data;
    c->throttled = false;
    c->depth++;
    pump(c); /* frames buffered while muted go first, then reading resumes */
    leave(c);
}

void gr_conn_throttle(gr_conn_t *c, int64_t ms)
{
    if (c->closing || ms <= 0)
        return;
    ev_tstamp seconds = (double)ms / GR_CONN_MS_PER_SEC;
    /* A longer mute already running wins: throttles never shorten each other. */
    if (c->throttled && ev_timer_remaining(c->loop, &c->throttle_timer) >= seconds)
        return;
    ev_timer_stop(c->loop, &c->throttle_timer);
    ev_timer_set(&c->throttle_timer, seconds, 0.);
    ev_timer_start(c->loop, &c->throttle_timer);
    c->throttled = true;
    ev_io_stop(c->loop, &c->read_watcher);
}

bool gr_conn_throttled(const gr_conn_t *c)
{
    return c->throttled;
}
