/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Output chains: the bytes of one response, as an ordered list of links that
 * are sent without being copied into one buffer.
 *
 * A link has exactly one kind:
 *   GR_LINK_MEM   a pointer and a length. The memory is either borrowed (it
 *                 belongs to someone who outlives the chain, typically the
 *                 response slot's arena or request frame) or owned by the
 *                 chain (added with gr_chain_add_owned/add_copy/add_writer;
 *                 the chain keeps those buffers in its own list and frees
 *                 them in gr_chain_fini, so a link never says who frees it).
 *   GR_LINK_FILE  a range [off, off + len) of an open file, sent with
 *                 sendfile(). The link holds a reference on the caller's
 *                 opaque file object (ops->get on add, ops->put when the
 *                 range is fully sent or the chain is finalised), so a log
 *                 segment deleted by retention keeps its fd open until the
 *                 bytes are out.
 *
 * Invariants: links[head..count) are the unsent links; the first of them may
 * be partly sent (its ptr/off and len are advanced in place); unsent_bytes is
 * the sum of their lengths. Links before head are already sent; file links
 * before head have had their reference put.
 *
 * A file link may only cover bytes that existed when the response was built:
 * the response's length prefix has gone out before the file bytes, so a file
 * that turns out shorter (sendfile returns 0) cannot be patched up; the
 * sender reports -ENODATA and the connection must be closed.
 *
 * Sending needs SIGPIPE ignored by the process (sendfile to a reset socket
 * raises it); the broker's main does that. Memory links go out with
 * sendmsg(MSG_NOSIGNAL), a writev that does not raise it.
 *
 * Runs on: the thread owning the chain (the loop thread for connections).
 */
#ifndef GR_NET_CHAIN_H
#define GR_NET_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "protocol/writer.h"

typedef enum gr_link_kind {
    GR_LINK_MEM,
    GR_LINK_FILE,
} gr_link_kind_t;

/* Reference counting on the caller's file object (a log segment). */
typedef struct gr_chain_file_ops {
    void (*get)(void *file);
    void (*put)(void *file);
} gr_chain_file_ops_t;

typedef struct gr_link {
    gr_link_kind_t kind;
    union {
        struct {
            const uint8_t *ptr;
            size_t len;
        } mem;
        struct {
            void *file; /* opaque, one reference held by this link */
            const gr_chain_file_ops_t *ops;
            int fd;
            int64_t off;
            int64_t len;
        } file;
    } u;
} gr_link_t;

typedef struct gr_chain {
    gr_link_t *links;
    size_t count;
    size_t cap;
    size_t head;  /* first unsent link */
    void **owned; /* malloc'd buffers freed by gr_chain_fini */
    size_t owned_count;
    size_t owned_cap;
    int64_t unsent_bytes; /* bytes of links[head..count) not yet sent */
} gr_chain_t;

/* Counters kept by whoever sends (the server, or a test). */
typedef struct gr_chain_stats {
    uint64_t writev_calls;
    uint64_t writev_bytes;
    uint64_t sendfile_calls;
    uint64_t sendfile_bytes;
} gr_chain_stats_t;

/* Results of gr_chain_send besides -errno. */
enum {
    GR_CHAIN_DONE = 0,  /* every link sent */
    GR_CHAIN_AGAIN = 1, /* socket full (EAGAIN): wait for writability */
};

void gr_chain_init(gr_chain_t *ch);
/* Frees owned buffers and puts the references of unsent file links. */
void gr_chain_fini(gr_chain_t *ch);
/* Moves src's links and buffers to the end of dst; src is left empty. */
int gr_chain_move(gr_chain_t *dst, gr_chain_t *src);

static inline bool gr_chain_empty(const gr_chain_t *ch)
{
    return ch->head == ch->count;
}

/* Bytes not yet sent. */
static inline int64_t gr_chain_unsent(const gr_chain_t *ch)
{
    return ch->unsent_bytes;
}

/*
 * Appends len bytes at p, borrowed: p must stay valid until the chain is
 * finalised. Zero-length adds are ignored. Adjacent borrowed ranges that
 * touch are merged into one link.
 * Returns 0 or -ENOMEM.
 */
int gr_chain_add_mem(gr_chain_t *ch, const void *p, size_t len);

/* Appends a malloc'd buffer the chain now owns (freed even on -ENOMEM). */
int gr_chain_add_owned(gr_chain_t *ch, void *buf, size_t len);

/* Appends a copy of len bytes at p (for small, short-lived data). 0 or -ENOMEM. */
int gr_chain_add_copy(gr_chain_t *ch, const void *p, size_t len);

/*
 * Appends the range [off, off + len) of fd, which belongs to the caller's
 * file object. Takes a reference with ops->get (ops may be NULL when the fd
 * outlives the chain by other means). Ranges adjacent to the previous link's
 * range of the same file are merged (one reference kept).
 * Returns 0, -EINVAL (negative off/len, fd < 0) or -ENOMEM.
 */
int gr_chain_add_file(gr_chain_t *ch, void *file, const gr_chain_file_ops_t *ops, int fd,
                      int64_t off, int64_t len);

/*
 * Maps a writer hole's opaque file to the fd to send from and the ops that
 * reference-count it. Returns 0 or -errno (the add fails with it).
 */
typedef int (*gr_chain_resolve_fn)(void *opaque, void *file, int *out_fd /* out */,
                                   const gr_chain_file_ops_t **out_ops /* out */);

/*
 * Appends an encoded writer: its buffer split at each hole into memory links,
 * and each hole as a file link resolved with resolve(opaque, hole.file, ...).
 * Takes the writer's buffer without copying (the writer is left empty and
 * reusable; the caller still calls gr_writer_fini). resolve may be NULL when
 * the writer has no holes.
 * Returns 0, the writer's sticky error, -EINVAL (holes but no resolver, or a
 * hole outside the buffer), resolve's error, or -ENOMEM. On error the chain is
 * unchanged and the writer keeps its buffer.
 */
int gr_chain_add_writer(gr_chain_t *ch, gr_writer_t *w, gr_chain_resolve_fn resolve, void *opaque);

/* Links not yet sent. */
static inline size_t gr_chain_links(const gr_chain_t *ch)
{
    return ch->count - ch->head;
}

/*
 * Fills iov with the leading unsent memory links, at most max of them, for a
 * caller gathering several chains into one write. Returns how many were
 * filled; fewer than gr_chain_links(ch) means a file link comes next (or max
 * was reached).
 */
int gr_chain_iov(const gr_chain_t *ch, struct iovec *iov, int max);

/*
 * Marks up to n bytes of the leading memory links as sent (after a gather
 * write of what gr_chain_iov offered). Stops at a file link. Returns the
 * bytes consumed.
 */
size_t gr_chain_consume(gr_chain_t *ch, size_t n);

/*
 * Marks n bytes at the head of the chain as sent, across memory and file
 * links alike (for senders that copy bytes out, such as TLS). n must not
 * exceed gr_chain_unsent. Returns the bytes consumed.
 */
size_t gr_chain_advance(gr_chain_t *ch, size_t n);

/*
 * Writes iov[0..n) (memory links from gr_chain_iov, of one chain or several)
 * with one sendmsg(MSG_NOSIGNAL), retried on EINTR, and counts it in stats
 * (may be NULL). The caller marks the *out_sent bytes sent with
 * gr_chain_consume; *out_sent is 0 unless the write went through.
 * Returns GR_CHAIN_DONE (all of iov written), GR_CHAIN_AGAIN (EAGAIN, or a
 * short write: the socket is full, so the next call would only say EAGAIN)
 * or -errno from the socket (close the connection).
 */
int gr_chain_send_iov(int sock, struct iovec *iov, int n, gr_chain_stats_t *stats,
                      size_t *out_sent /* out: bytes written */);

/*
 * Sends as much of the chain as the socket takes: consecutive memory links
 * in one sendmsg (gather, up to IOV_MAX links), runs of adjacent ranges of
 * the same file in one sendfile; short writes advance the links in place.
 * stats may be NULL.
 * Returns GR_CHAIN_DONE, GR_CHAIN_AGAIN (arm the write watcher and call again
 * when writable), -ENODATA (a file ended before its range: close the
 * connection) or another -errno from the socket (close the connection).
 */
int gr_chain_send(gr_chain_t *ch, int sock, gr_chain_stats_t *stats);

#endif
