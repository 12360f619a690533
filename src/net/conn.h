/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client connection: frames in, responses out, in request order.
 *
 * Reading. The socket is non-blocking with TCP_NODELAY. A frame is a 4-byte
 * big-endian size then that many bytes. A negative size or one above
 * max_request_bytes closes the connection (logged). Frames are read into
 * reference-counted read blocks; each complete frame is handed to on_frame
 * in place (no copy) and its slot holds a reference on the block, so the
 * frame bytes (and every decoded string pointing into them) stay valid until
 * the slot is freed. When a block fills while frames in it are still live,
 * only the partial tail is copied into a fresh block; a frame bigger than a
 * block gets a block of its own size (at once up to 1 MiB; beyond that the
 * block doubles as bytes arrive, so a bare size prefix cannot claim 100 MB).
 *
 * Response slots. Every frame gets a gr_resp_slot_t appended to the
 * connection's queue, with its own arena (for the decoded request and the
 * response being built) and output chain. A slot's states:
 *
 *   HANDLING  inside on_frame. The handler either
 *             - completes it: gr_resp_slot_complete(slot, chain) or
 *               gr_resp_slot_complete_empty(slot) (acks=0 produce), or
 *             - defers it: gr_resp_slot_defer(slot, cancel, arg), and
 *               completes it later from the loop thread (acks=all,
 *               long-poll fetch, join-group).
 *             Returning from on_frame with neither done is a handler bug:
 *             the connection is closed (the client would otherwise wait
 *             forever for a response that never comes).
 *   DEFERRED  waiting on a subsystem, which holds the slot pointer;
 *             it completes it, or hands it back to HANDLING
 *             (gr_resp_slot_resume) to run a handler later.
 *   COMPLETE  has its response chain (possibly empty); waits for the slots
 *             before it, then is sent and freed.
 *
 * Responses go out strictly in request order: only the head of the queue is
 * ever sent, and a slot becomes the head once all earlier ones are sent.
 *
 * Closing with deferred slots (peer EOF, socket error, protocol violation,
 * gr_conn_close). A deferred slot is borrowed by the subsystem that will
 * complete it; on close the connection calls that subsystem's cancel(slot,
 * arg) for each deferred slot, in queue order, then frees the slot. After
 * cancel returns the holder must forget the pointer (e.g. unlink it from a
 * fetch wait list, or null it in a worker job whose done_fn runs later on
 * the loop thread). cancel must not complete the slot or close connections.
 * Slots never outlive their connection, so no refcount is needed: the
 * cancel callback is the only path by which a holder loses its slot.
 * A holder that gives up on its own deferred slot and wants the connection
 * closed (say, encoding its response failed) should complete it first
 * (gr_resp_slot_complete_empty) and then call gr_conn_close; closing first
 * runs that slot's cancel callback from inside the holder's own code.
 *
 * Back-pressure. While the queue holds max_inflight slots or the unsent
 * response bytes reach max_unsent_bytes, the connection neither reads the
 * socket nor dispatches frames already buffered; it resumes when responses
 * drain below both limits.
 *
 * TLS. With cfg.tls the connection first runs the TLS handshake on the loop
 * (driven by read and write readiness as OpenSSL asks), then reads with
 * SSL_read into the same read blocks and sends chains through
 * gr_tls_send_chain (kernel TLS sendfile, or file ranges read in bounded
 * chunks). A failed handshake or a bad record closes the connection with a
 * log line naming OpenSSL's reason. Plaintext connections have no TLS
 * state; the only cost to them is a NULL check per callback.
 *
 * Throttling (quotas, KIP-219). gr_conn_throttle mutes the connection for a
 * while: like back-pressure it neither reads the socket nor dispatches
 * buffered frames, but responses keep flowing out, so the response that
 * carries throttle_time_ms reaches the client at once. When the timer ends
 * reading resumes unless back-pressure or draining still holds it; close
 * stops the timer.
 *
 * Timing. Each slot carries the monotonic times of its request's way
 * through (gr_slot_times_t): the read that completed its frame, its
 * dispatch, the time it spent deferred, its completion and the moment its
 * last byte went to the kernel. Once a response is sent in full, on_sent
 * (if set) gets them with the tag the layer above put on the slot
 * (gr_resp_slot_set_tag), before the slot and its arena are freed. A slot
 * dropped by a closing connection is not reported.
 *
 * Lifetime. gr_conn_close may be called from any callback, including
 * on_frame for the same connection; the memory is freed once the callbacks
 * on the stack have returned. on_close is called exactly once, before the
 * free, so the owner can unlink the connection.
 *
 * Runs on: loop thread, all of it.
 */
#ifndef GR_NET_CONN_H
#define GR_NET_CONN_H

#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "net/chain.h"
#include "net/tls.h"
#include "core/logging.h"
#include "protocol/arena.h"

/* Kafka's defaults for the corresponding broker settings. */
#define GR_CONN_DEFAULT_MAX_REQUEST_BYTES 104857600 /* socket.request.max.bytes */
#define GR_CONN_DEFAULT_MAX_INFLIGHT      500       /* queued.max.requests */
#define GR_CONN_DEFAULT_MAX_UNSENT_BYTES  (64 * 1024 * 1024)
#define GR_CONN_DEFAULT_READ_BLOCK        (64 * 1024)
#define GR_CONN_FRAME_SIZE_BYTES          4  /* the big-endian int32 before each frame */
#define GR_CONN_PEER_MAX                  64 /* "[v6 address]:port" plus NUL */
#define GR_CONN_MS_PER_SEC                1000.0

typedef struct gr_conn gr_conn_t;
typedef struct gr_resp_slot gr_resp_slot_t;

/*
 * One complete frame (without its size prefix). frame stays valid until the
 * slot is freed. The handler must complete or defer the slot (see above).
 */
typedef void (*gr_conn_frame_fn)(gr_conn_t *c, gr_resp_slot_t *slot, const uint8_t *frame,
                                 size_t len, void *opaque);
/* Frees what gr_conn_set_session attached, when the connection is freed. */
typedef void (*gr_conn_session_free_fn)(void *session);
/* Called once when the connection closes, before it is freed; owner from the config. */
typedef void (*gr_conn_close_fn)(gr_conn_t *c, void *owner);
/* The connection read bytes from its socket (the owner's idle tracking); owner from the config. */
typedef void (*gr_conn_read_fn)(gr_conn_t *c, void *owner);
/* Where a request's time went, CLOCK_MONOTONIC ns (see "Timing"). */
typedef struct gr_slot_times {
    int64_t read_ns;     /* the read that completed the frame */
    int64_t dispatch_ns; /* handed to on_frame */
    int64_t deferred_ns; /* total time DEFERRED */
    int64_t complete_ns; /* response complete */
    int64_t sent_ns;     /* its last byte written */
} gr_slot_times_t;
/* A slot's response went out in full; tag from gr_resp_slot_set_tag (NULL if none). */
typedef void (*gr_conn_sent_fn)(gr_conn_t *c, void *tag, const gr_slot_times_t *times,
                                void *opaque);
/* The connection is closing: forget the deferred slot. */
typedef void (*gr_resp_slot_cancel_fn)(gr_resp_slot_t *slot, void *arg);

typedef struct gr_conn_config {
    int32_t max_request_bytes; /* socket.request.max.bytes; 0: default */
    int32_t max_login_bytes;   /* lower limit until gr_conn_logged_in (SASL); 0: none */
    uint32_t max_inflight;     /* queued.max.requests per connection; 0: default */
    int64_t max_unsent_bytes;  /* 0: default */
    size_t read_block;         /* read block size; 0: default */
    gr_conn_frame_fn on_frame; /* required */
    gr_conn_close_fn on_close; /* may be NULL */
    gr_conn_read_fn on_read;   /* may be NULL */
    gr_conn_sent_fn on_sent;   /* may be NULL: then no clock is read */
    void *opaque;              /* passed to on_frame, returned by gr_conn_opaque */
    void *owner;               /* passed to on_close (the server's bookkeeping) */
    const void *listener;      /* the accepting listener's tag (gr_server_listen_as), or NULL */
    gr_chain_stats_t *stats;   /* send counters, may be NULL */
    const gr_logger_t *log;    /* may be NULL: no log lines */
    gr_tls_ctx_t *tls;         /* server TLS context (SSL, SASL_SSL listeners), or NULL */
} gr_conn_config_t;

/*
 * Wraps an accepted socket: makes it non-blocking, sets TCP_NODELAY (when it
 * is TCP), and starts reading. cfg is copied. On success the connection owns
 * fd; on failure fd is left open for the caller.
 * Returns the connection or NULL (-ENOMEM or a failed fcntl; errno set).
 */
gr_conn_t *gr_conn_new(struct ev_loop *loop, int fd, const gr_conn_config_t *cfg);

/*
 * Closes the connection now: stops watchers, closes the fd, cancels deferred
 * slots, drops unsent responses, calls on_close, frees (possibly after the
 * callbacks on the stack return). reason is logged with the peer address.
 * Calling it again on a closing connection does nothing.
 */
void gr_conn_close(gr_conn_t *c, const char *reason);
/* gr_conn_close with its log line at level (routine closes of many connections: DEBUG). */
void gr_conn_close_at(gr_conn_t *c, gr_log_level_t level, const char *reason);

/*
 * Graceful close: stops reading; once every queued response is sent, closes
 * with reason. Used by the server's stop.
 */
void gr_conn_drain(gr_conn_t *c, const char *reason);

/* "host:port" of the peer ("[v6]:port", or "local" for non-IP sockets). */
const char *gr_conn_peer(const gr_conn_t *c);
void *gr_conn_opaque(const gr_conn_t *c);
/* The tag of the listener that accepted the connection (NULL when adopted). */
const void *gr_conn_listener(const gr_conn_t *c);
/*
 * Per-connection state of the layer above (who the client is, how far its
 * authentication got). The connection only keeps the pointer and calls
 * free_fn (may be NULL) once, after on_close and every deferred slot's
 * cancel have run. Setting it again frees the previous one first.
 */
void *gr_conn_session(const gr_conn_t *c);
void gr_conn_set_session(gr_conn_t *c, void *session, gr_conn_session_free_fn free_fn);
/* The logger from the connection's config (may be NULL). */
const gr_logger_t *gr_conn_log(const gr_conn_t *c);
/* Whether the connection runs TLS (its listener is SSL or SASL_SSL). */
bool gr_conn_is_tls(const gr_conn_t *c);
/*
 * The client certificate's subject in RFC 2253 form ("CN=alice,OU=eng,O=acme"),
 * or NULL: plaintext, handshake not done, or no certificate presented.
 */
const char *gr_conn_tls_peer_subject(const gr_conn_t *c);
/* The app data of the connection's TLS context (gr_tls_ctx_set_app), or NULL. */
const void *gr_conn_tls_app(const gr_conn_t *c);
/* "TLSv1.3 TLS_AES_256_GCM_SHA384" for log lines, "" for plaintext. */
const char *gr_conn_tls_describe(const gr_conn_t *c, char *buf, size_t size);
/* Slots in the queue (handling, deferred or complete but unsent). */
size_t gr_conn_queued(const gr_conn_t *c);
/* Response bytes complete but not yet sent. */
int64_t gr_conn_unsent(const gr_conn_t *c);
/*
 * Bytes the connection keeps between requests: its read block and its spare
 * slots (not counting their arena blocks). 0 for an idle connection (conn.c,
 * "Idle").
 */
size_t gr_conn_buffer_bytes(const gr_conn_t *c);
/* Whether reading is paused by back-pressure, draining or throttling. */
bool gr_conn_reading(const gr_conn_t *c);

/*
 * Stops reading from c for ms milliseconds (a client over its quota); a
 * longer mute already running is kept. Does nothing for ms <= 0 or a closing
 * connection. Safe from inside on_frame.
 */
void gr_conn_throttle(gr_conn_t *c, int64_t ms);
/*
 * The client has authenticated: frames up to max_request_bytes are read from
 * now on, no longer only max_login_bytes (sasl.server.max.receive.size).
 */
void gr_conn_logged_in(gr_conn_t *c);

/* Whether a gr_conn_throttle mute is running. */
bool gr_conn_throttled(const gr_conn_t *c);

/*
 * The slot's arena: for the decoded request and the response. Freed with the
 * slot. Valid from on_frame until the slot is freed.
 */
gr_arena_t *gr_resp_slot_arena(gr_resp_slot_t *slot);
/*
 * The slot's own chain. A handler may build the response directly in it and
 * then call gr_resp_slot_complete(slot, NULL).
 */
gr_chain_t *gr_resp_slot_chain(gr_resp_slot_t *slot);
gr_conn_t *gr_resp_slot_conn(gr_resp_slot_t *slot);

/* The layer above's pointer for on_sent (the request); lives as long as the slot. */
void gr_resp_slot_set_tag(gr_resp_slot_t *slot, void *tag);

/*
 * Marks a HANDLING slot as waiting on a subsystem; cancel(slot, arg) is
 * called if the connection closes before gr_resp_slot_complete. cancel is
 * required.
 */
void gr_resp_slot_defer(gr_resp_slot_t *slot, gr_resp_slot_cancel_fn cancel, void *arg);

/* Runs a resumed slot's handling (gr_resp_slot_resume); arg as given there. */
typedef void (*gr_resp_slot_resume_fn)(gr_resp_slot_t *slot, void *arg);

/*
 * Hands a DEFERRED slot back to HANDLING and runs fn(slot, arg) as if the
 * frame had just arrived: fn must complete or defer the slot again (else the
 * connection is closed, as for on_frame). The slot's cancel callback is
 * dropped first, so the holder must already have forgotten the slot. For a
 * request parked before its handler ran (handlers/start_gate.h). Call it
 * from outside the connection's own callbacks; the connection may close
 * inside fn and is then freed when this returns.
 */
void gr_resp_slot_resume(gr_resp_slot_t *slot, gr_resp_slot_resume_fn fn, void *arg);

/*
 * Completes a HANDLING or DEFERRED slot with a response. chain's links are
 * moved into the slot (chain is left empty; NULL or the slot's own chain
 * means the slot's chain already holds the response). After this call the
 * slot belongs to the connection again: do not touch it. If the move fails
 * for lack of memory the connection is closed.
 */
void gr_resp_slot_complete(gr_resp_slot_t *slot, gr_chain_t *chain);

/* Completes a slot that has no response (acks=0 produce). */
void gr_resp_slot_complete_empty(gr_resp_slot_t *slot);

#endif
