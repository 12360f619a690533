/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Output chains over TLS (gr_tls_send_chain, see tls.h).
 *
 * Plain sockets send memory links with writev and file links with sendfile;
 * TLS must encrypt, so bytes go through OpenSSL. Two ways:
 *   - Staged: the next bytes of the chain (memory copied, file ranges read
 *     with pread) are gathered into one buffer of GR_TLS_FILE_CHUNK bytes and
 *     written with SSL_write. Small pipelined links become one record, and a
 *     50 MB file range never sits in memory whole.
 *   - Kernel TLS (KTLS): when OpenSSL handed the write side to the kernel, a
 *     file link at the head goes out with SSL_sendfile, which is sendfile(2)
 *     on the kTLS socket: fetches stay zero-copy.
 *
 * Invariant: [chunk_pos, chunk_len) of the stage are exactly the next unsent
 * bytes of the chain. A write that says WANT_WRITE is repeated later with the
 * same bytes, as OpenSSL requires; written bytes are marked sent with
 * gr_chain_advance, so file references are put as they finish.
 *
 * Runs on: the loop thread.
 */
#include "net/tls.h"
#include "net/tls_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes per SSL_sendfile call; Linux moves at most about 2 GiB per sendfile. */
#define GR_TLS_SENDFILE_MAX (1 << 30)

/* Fills the empty stage with the chain's next bytes; stops before a file link under KTLS. */
static int stage(gr_tls_t *t, gr_chain_t *ch)
{
    if (!t->chunk && !(t->chunk = malloc(GR_TLS_FILE_CHUNK)))
        return -ENOMEM;
    t->chunk_pos = t->chunk_len = 0;
    for (size_t i = ch->head; i < ch->count && t->chunk_len < GR_TLS_FILE_CHUNK; i++) {
        const gr_link_t *l = &ch->links[i];
        size_t room = GR_TLS_FILE_CHUNK - t->chunk_len;
        if (l->kind == GR_LINK_MEM) {
            size_t n = l->u.mem.len < room ? l->u.mem.len : room;
            memcpy(t->chunk + t->chunk_len, l->u.mem.ptr, n);
            t->chunk_len += n;
            continue;
        }
        if (t->ktls_send)
            break;
        size_t want = (int64_t)room < l->u.file.len ? room : (size_t)l->u.file.len;
        ssize_t n;
        do {
            n = pread(l->u.file.fd, t->chunk + t->chunk_len, want, (off_t)l->u.file.off);
        } while (n < 0 && errno == EINTR);
        if (n < 0)
            return -errno;
        if (n == 0)
            return t->chunk_len ? 0 : -ENODATA; /* shorter than the range promised */
        t->chunk_len += (size_t)n;
        if ((size_t)n < want)
            break; /* the rest of this link on the next round */
    }
    return 0;
}

/* Maps an OpenSSL wait to the chain's result, noting which readiness it needs. */
static int wait_result(gr_tls_t *t, int rc)
{
    if (rc == GR_TLS_WANT_READ || rc == GR_TLS_WANT_WRITE) {
        t->wants_read = rc == GR_TLS_WANT_READ;
        return GR_CHAIN_AGAIN;
    }
    if (rc == GR_TLS_CLOSED)
        return -EPIPE;
    return rc;
}

/* The file link at the head, through the kernel's TLS. */
static int send_ktls_file(gr_tls_t *t, gr_chain_t *ch, gr_chain_stats_t *stats)
{
    gr_link_t *l = &ch->links[ch->head];
    size_t want = l->u.file.len < GR_TLS_SENDFILE_MAX ? (size_t)l->u.file.len : GR_TLS_SENDFILE_MAX;
    ossl_ssize_t n = SSL_sendfile(t->ssl, l->u.file.fd, (off_t)l->u.file.off, want, 0);
    if (n <= 0)
        return n == 0 ? -ENODATA : wait_result(t, gr_tls_result(t, (int)n, "TLS sendfile failed"));
    if (stats) {
        stats->sendfile_calls++;
        stats->sendfile_bytes += (uint64_t)n;
    }
    gr_chain_advance(ch, (size_t)n);
    return 0;
}

/* Writes the staged bytes (staging first when the stage is empty). */
static int send_staged(gr_tls_t *t, gr_chain_t *ch, gr_chain_stats_t *stats)
{
    if (t->chunk_pos == t->chunk_len) {
        int rc = stage(t, ch);
        if (rc < 0)
            return rc;
    }
    size_t n;
    int rc = gr_tls_write(t, t->chunk + t->chunk_pos, t->chunk_len - t->chunk_pos, &n);
    if (rc != GR_TLS_OK)
        return wait_result(t, rc);
    if (stats) {
        stats->writev_calls++;
        stats->writev_bytes += n;
    }
    t->chunk_pos += n;
    gr_chain_advance(ch, n);
    return 0;
}

int gr_tls_send_chain(gr_tls_t *t, gr_chain_t *ch, gr_chain_stats_t *stats)
{
    t->wants_read = false;
    while (!gr_chain_empty(ch)) {
        int rc;
        if (t->chunk_pos == t->chunk_len && t->ktls_send &&
            ch->links[ch->head].kind == GR_LINK_FILE)
            rc = send_ktls_file(t, ch, stats);
        else
            rc = send_staged(t, ch, stats);
        if (rc != 0)
            return rc;
    }
    return GR_CHAIN_DONE;
}

bool gr_tls_send_wants_read(const gr_tls_t *t)
{
    return t->wants_read;
}
