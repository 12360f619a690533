/* SPDX-License-Identifier: Apache-2.0 */
/* Output chains: see chain.h. Runs on: the thread owning the chain. */
#include "net/chain.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

#define GR_CHAIN_MIN_LINKS 8
/* Linux moves at most this much per sendfile call. */
#define GR_SENDFILE_MAX 0x7ffff000

void gr_chain_init(gr_chain_t *ch)
{
    memset(ch, 0, sizeof(*ch));
}

static void put_file(gr_link_t *l)
{
    if (l->kind == GR_LINK_FILE && l->u.file.ops && l->u.file.ops->put)
        l->u.file.ops->put(l->u.file.file);
}

void gr_chain_fini(gr_chain_t *ch)
{
    for (size_t i = ch->head; i < ch->count; i++)
        put_file(&ch->links[i]);
    for (size_t i = 0; i < ch->owned_count; i++)
        free(ch->owned[i]);
    free(ch->links);
    free(ch->owned);
    gr_chain_init(ch);
}

/* Makes room for n more links. */
static int reserve_links(gr_chain_t *ch, size_t n)
{
    if (ch->cap - ch->count >= n)
        return 0;
    size_t cap = ch->cap ? ch->cap : GR_CHAIN_MIN_LINKS;
    while (cap - ch->count < n) {
        if (cap > SIZE_MAX / 2 / sizeof(gr_link_t))
            return -ENOMEM;
        cap *= 2;
    }
    gr_link_t *links = realloc(ch->links, cap * sizeof(*links));
    if (!links)
        return -ENOMEM;
    ch->links = links;
    ch->cap = cap;
    return 0;
}

static int reserve_owned(gr_chain_t *ch, size_t n)
{
    if (ch->owned_cap - ch->owned_count >= n)
        return 0;
    size_t cap = ch->owned_cap ? ch->owned_cap : 4;
    while (cap - ch->owned_count < n) {
        if (cap > SIZE_MAX / 2 / sizeof(void *))
            return -ENOMEM;
        cap *= 2;
    }
    void **owned = realloc(ch->owned, cap * sizeof(*owned));
    if (!owned)
        return -ENOMEM;
    ch->owned = owned;
    ch->owned_cap = cap;
    return 0;
}

static gr_link_t *last_unsent(gr_chain_t *ch)
{
    return ch->count > ch->head ? &ch->links[ch->count - 1] : NULL;
}

/* Appends a memory link; the caller has reserved room. */
static void push_mem(gr_chain_t *ch, const uint8_t *p, size_t len)
{
    gr_link_t *last = last_unsent(ch);
    if (last && last->kind == GR_LINK_MEM && last->u.mem.ptr + last->u.mem.len == p) {
        last->u.mem.len += len;
    } else {
        gr_link_t *l = &ch->links[ch->count++];
        l->kind = GR_LINK_MEM;
        l->u.mem.ptr = p;
        l->u.mem.len = len;
    }
    ch->unsent_bytes += (int64_t)len;
}

int gr_chain_add_mem(gr_chain_t *ch, const void *p, size_t len)
{
    if (len == 0)
        return 0;
    if (reserve_links(ch, 1) < 0)
        return -ENOMEM;
    push_mem(ch, p, len);
    return 0;
}

int gr_chain_add_owned(gr_chain_t *ch, void *buf, size_t len)
{
    if (reserve_links(ch, 1) < 0 || reserve_owned(ch, 1) < 0) {
        free(buf);
        return -ENOMEM;
    }
    ch->owned[ch->owned_count++] = buf;
    if (len > 0)
        push_mem(ch, buf, len);
    return 0;
}

int gr_chain_add_copy(gr_chain_t *ch, const void *p, size_t len)
{
    if (len == 0)
        return 0;
    void *copy = malloc(len);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, p, len);
    return gr_chain_add_owned(ch, copy, len);
}

/* Appends a file link, merging with an adjacent range; room reserved. */
static void push_file(gr_chain_t *ch, void *file, const gr_chain_file_ops_t *ops, int fd,
                      int64_t off, int64_t len)
{
    gr_link_t *last = last_unsent(ch);
    if (last && last->kind == GR_LINK_FILE && last->u.file.file == file && last->u.file.fd == fd &&
        last->u.file.off + last->u.file.len == off) {
        /* The merged link keeps the one reference it already holds. */
        last->u.file.len += len;
    } else {
        if (ops && ops->get)
            ops->get(file);
        gr_link_t *l = &ch->links[ch->count++];
        l->kind = GR_LINK_FILE;
        l->u.file.file = file;
        l->u.file.ops = ops;
        l->u.file.fd = fd;
        l->u.file.off = off;
        l->u.file.len = len;
    }
    ch->unsent_bytes += len;
}

int gr_chain_add_file(gr_chain_t *ch, void *file, const gr_chain_file_ops_t *ops, int fd,
                      int64_t off, int64_t len)
{
    if (fd < 0 || off < 0 || len < 0 || off > INT64_MAX - len)
        return -EINVAL;
    if (len == 0)
        return 0;
    if (reserve_links(ch, 1) < 0)
        return -ENOMEM;
    push_file(ch, file, ops, fd, off, len);
    return 0;
}

int gr_chain_add_writer(gr_chain_t *ch, gr_writer_t *w, gr_chain_resolve_fn resolve, void *opaque)
{
    if (w->err)
        return w->err;
    if (w->hole_count && !resolve)
        return -EINVAL;
    size_t prev = 0;
    for (size_t i = 0; i < w->hole_count; i++) {
        const gr_writer_hole_t *h = &w->holes[i];
        if (h->pos < prev || h->pos > w->len || h->len < 0 || h->file_off < 0)
            return -EINVAL;
        prev = h->pos;
    }
    /* Worst case: a memory link before each hole, one after, plus the holes. */
    if (reserve_links(ch, 2 * w->hole_count + 1) < 0 || reserve_owned(ch, 1) < 0)
        return -ENOMEM;
    /* Resolve every hole before changing the chain, so failure leaves it as it was. */
    int *fds = NULL;
    const gr_chain_file_ops_t **ops = NULL;
    if (w->hole_count) {
        fds = calloc(w->hole_count, sizeof(*fds));
        ops = calloc(w->hole_count, sizeof(*ops));
        if (!fds || !ops) {
            free(fds);
            free(ops);
            return -ENOMEM;
        }
    }
    for (size_t i = 0; i < w->hole_count; i++) {
        int rc = resolve(opaque, w->holes[i].file, &fds[i], &ops[i]);
        if (rc == 0 && fds[i] < 0)
            rc = -EBADF;
        if (rc < 0) {
            free(fds);
            free(ops);
            return rc;
        }
    }
    uint8_t *buf = w->buf;
    size_t at = 0;
    for (size_t i = 0; i < w->hole_count; i++) {
        const gr_writer_hole_t *h = &w->holes[i];
        if (h->pos > at)
            push_mem(ch, buf + at, h->pos - at);
        at = h->pos;
        if (h->len > 0)
            push_file(ch, h->file, ops[i], fds[i], h->file_off, h->len);
    }
    if (w->len > at)
        push_mem(ch, buf + at, w->len - at);
    free(fds);
    free(ops);
    if (buf)
        ch->owned[ch->owned_count++] = buf;
    /* The buffer now belongs to the chain; the writer starts over empty. */
    w->buf = NULL;
    w->len = 0;
    w->cap = 0;
    gr_writer_reset(w);
    return 0;
}

int gr_chain_move(gr_chain_t *dst, gr_chain_t *src)
{
    if (dst == src)
        return 0;
    if (dst->count == 0 && dst->owned_count == 0) {
        /* Common case: the destination is fresh, take src's arrays whole. */
        gr_chain_fini(dst);
        *dst = *src;
        gr_chain_init(src);
        return 0;
    }
    size_t n = src->count - src->head;
    if (reserve_links(dst, n) < 0 || reserve_owned(dst, src->owned_count) < 0)
        return -ENOMEM;
    if (n)
        memcpy(&dst->links[dst->count], &src->links[src->head], n * sizeof(gr_link_t));
    dst->count += n;
    dst->unsent_bytes += src->unsent_bytes;
    if (src->owned_count)
        memcpy(&dst->owned[dst->owned_count], src->owned, src->owned_count * sizeof(void *));
    dst->owned_count += src->owned_count;
    /* References and buffers moved; free only src's arrays. */
    free(src->links);
    free(src->owned);
    gr_chain_init(src);
    return 0;
}

/* Marks the head link sent and moves on. */
static void finish_head(gr_chain_t *ch)
{
    put_file(&ch->links[ch->head]);
    ch->head++;
}

int gr_chain_iov(const gr_chain_t *ch, struct iovec *iov, int max)
{
    int n = 0;
    for (size_t i = ch->head; i < ch->count && n < max; i++) {
        const gr_link_t *l = &ch->links[i];
        if (l->kind != GR_LINK_MEM)
            break;
        iov[n].iov_base = (void *)l->u.mem.ptr;
        iov[n].iov_len = l->u.mem.len;
        n++;
    }
    return n;
}

size_t gr_chain_consume(gr_chain_t *ch, size_t n)
{
    size_t done = 0;
    while (done < n && ch->head < ch->count) {
        gr_link_t *l = &ch->links[ch->head];
        if (l->kind != GR_LINK_MEM)
            break;
        size_t take = n - done;
        if (take < l->u.mem.len) {
            l->u.mem.ptr += take;
            l->u.mem.len -= take;
            done += take;
            break;
        }
        done += l->u.mem.len;
        finish_head(ch);
    }
    ch->unsent_bytes -= (int64_t)done;
    return done;
}

size_t gr_chain_advance(gr_chain_t *ch, size_t n)
{
    size_t done = 0;
    while (done < n && ch->head < ch->count) {
        gr_link_t *l = &ch->links[ch->head];
        size_t left = n - done;
        size_t len = l->kind == GR_LINK_MEM ? l->u.mem.len : (size_t)l->u.file.len;
        if (left < len) {
            if (l->kind == GR_LINK_MEM) {
                l->u.mem.ptr += left;
                l->u.mem.len -= left;
            } else {
                l->u.file.off += (int64_t)left;
                l->u.file.len -= (int64_t)left;
            }
            done += left;
            break;
        }
        done += len;
        finish_head(ch);
    }
    ch->unsent_bytes -= (int64_t)done;
    return done;
}

int gr_chain_send_iov(int sock, struct iovec *iov, int n, gr_chain_stats_t *stats, size_t *out_sent)
{
    size_t want = 0;
    for (int i = 0; i < n; i++)
        want += iov[i].iov_len;
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)n};
    ssize_t sent;
    *out_sent = 0;
    do {
        sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0)
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? GR_CHAIN_AGAIN : -errno;
    if (stats) {
        stats->writev_calls++;
        stats->writev_bytes += (uint64_t)sent;
    }
    *out_sent = (size_t)sent;
    /* A short write means the socket is full: skip the call that would say EAGAIN. */
    return (size_t)sent < want ? GR_CHAIN_AGAIN : GR_CHAIN_DONE;
}

/* Sends the run of memory links at head with one gather write. */
static int send_mem(gr_chain_t *ch, int sock, gr_chain_stats_t *stats)
{
    struct iovec iov[IOV_MAX];
    int n = gr_chain_iov(ch, iov, IOV_MAX);
    size_t sent;
    int rc = gr_chain_send_iov(sock, iov, n, stats, &sent);
    gr_chain_consume(ch, sent);
    return rc;
}

/* Sends the file link at head, together with adjacent ranges of the same file. */
static int send_file(gr_chain_t *ch, int sock, gr_chain_stats_t *stats)
{
    gr_link_t *l = &ch->links[ch->head];
    int64_t want = l->u.file.len;
    /* Adds merge adjacent ranges already; this also catches ranges that met
     * through gr_chain_move or came from different file objects on one fd. */
    for (size_t i = ch->head + 1; i < ch->count; i++) {
        const gr_link_t *next = &ch->links[i];
        if (next->kind != GR_LINK_FILE || next->u.file.fd != l->u.file.fd ||
            next->u.file.off != l->u.file.off + want)
            break;
        want += next->u.file.len;
    }
    if (want > GR_SENDFILE_MAX)
        want = GR_SENDFILE_MAX;
    off_t off = (off_t)l->u.file.off;
    ssize_t sent;
    do {
        sent = sendfile(sock, l->u.file.fd, &off, (size_t)want);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0)
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? GR_CHAIN_AGAIN : -errno;
    if (sent == 0)
        return -ENODATA; /* the file is shorter than the range we promised */
    if (stats) {
        stats->sendfile_calls++;
        stats->sendfile_bytes += (uint64_t)sent;
    }
    ch->unsent_bytes -= sent;
    int64_t left = sent;
    while (left > 0) {
        l = &ch->links[ch->head];
        if (left < l->u.file.len) {
            l->u.file.off += left;
            l->u.file.len -= left;
            return 0; /* maybe short; the caller tries again and learns EAGAIN */
        }
        left -= l->u.file.len;
        finish_head(ch);
    }
    return 0;
}

int gr_chain_send(gr_chain_t *ch, int sock, gr_chain_stats_t *stats)
{
    while (ch->head < ch->count) {
        int rc;
        if (ch->links[ch->head].kind == GR_LINK_MEM)
            rc = send_mem(ch, sock, stats);
        else
            rc = send_file(ch, sock, stats);
        if (rc != 0)
            return rc;
    }
    return GR_CHAIN_DONE;
}
