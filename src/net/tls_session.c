/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TLS sessions on a socket: handshake, reads, writes, the peer's subject.
 * See tls.h for the states. After the handshake the peer certificate's
 * subject is formatted once (RFC 2253, as Kafka prints it), and whether
 * OpenSSL moved the write side into the kernel (KTLS) is noted.
 *
 * Runs on: the thread owning the socket.
 */
#include "net/tls.h"
#include "net/tls_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

int gr_tls_result(gr_tls_t *t, int ret, const char *what)
{
    if (ret > 0)
        return GR_TLS_OK;
    int saved = errno;
    switch (SSL_get_error(t->ssl, ret)) {
    case SSL_ERROR_WANT_READ:
        return GR_TLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE:
        return GR_TLS_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN:
        return GR_TLS_CLOSED;
    case SSL_ERROR_SYSCALL:
        t->failed = true;
        ERR_clear_error();
        if (saved == 0 || ret == 0) {
            snprintf(t->error, sizeof t->error, "%s: the peer closed the connection", what);
            return GR_TLS_CLOSED;
        }
        snprintf(t->error, sizeof t->error, "%s: %s", what, strerror(saved));
        return -saved;
    default:
        t->failed = true;
        if (ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
            /* OpenSSL 3's name for a peer that closed without close_notify, as
             * most Kafka clients do: Kafka's framing notices any truncation. */
            ERR_clear_error();
            snprintf(t->error, sizeof t->error, "%s: the peer closed the connection", what);
            return GR_TLS_CLOSED;
        }
        gr_tls_take_error(t->error, sizeof t->error, what);
        return -EPROTO;
    }
}

/* Whether host is a literal address (no SNI; checked as an IP, not a name). */
static bool is_ip(const char *host)
{
    unsigned char addr[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
}

/* Client side: SNI and the name or address the certificate must carry. */
static int set_host(gr_tls_t *t, const char *host)
{
    if (!is_ip(host) && !SSL_set_tlsext_host_name(t->ssl, host))
        return -ENOMEM;
    if (!t->ctx->verify_host)
        return 0;
    if (is_ip(host)) {
        X509_VERIFY_PARAM *param = SSL_get0_param(t->ssl);
        return X509_VERIFY_PARAM_set1_ip_asc(param, host) ? 0 : -EINVAL;
    }
    return SSL_set1_host(t->ssl, host) ? 0 : -ENOMEM;
}

gr_tls_t *gr_tls_new(gr_tls_ctx_t *ctx, int fd, const char *host)
{
    gr_tls_t *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->ctx = ctx;
    ctx->refs++; /* the context may be replaced meanwhile (a keystore rotated) */
    t->ssl = SSL_new(ctx->ssl);
    if (!t->ssl || !SSL_set_fd(t->ssl, fd))
        goto fail;
    if (ctx->server) {
        SSL_set_accept_state(t->ssl);
    } else {
        SSL_set_connect_state(t->ssl);
        if (host && set_host(t, host) < 0)
            goto fail;
    }
    return t;
fail:
    ERR_clear_error();
    SSL_free(t->ssl);
    gr_tls_ctx_free(ctx);
    free(t);
    return NULL;
}

void gr_tls_free(gr_tls_t *t)
{
    if (!t)
        return;
    /* close_notify, once, without waiting for the peer's (Kafka clients do not care). */
    if (t->established && !t->failed)
        (void)SSL_shutdown(t->ssl);
    ERR_clear_error();
    SSL_free(t->ssl);
    gr_tls_ctx_free(t->ctx);
    free(t->subject);
    free(t->chunk);
    free(t);
}

/* The peer certificate's subject, RFC 2253 without multi-valued escaping surprises. */
static char *format_subject(SSL *ssl)
{
    X509 *cert = SSL_get1_peer_certificate(ssl);
    if (!cert)
        return NULL;
    char *out = NULL;
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio && X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0,
                                  XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) >= 0) {
        char *data;
        long len = BIO_get_mem_data(bio, &data);
        if (len >= 0 && len < GR_TLS_SUBJECT_MAX)
            out = strndup(data, (size_t)len);
    }
    BIO_free(bio);
    X509_free(cert);
    return out;
}

int gr_tls_handshake(gr_tls_t *t)
{
    if (t->established)
        return GR_TLS_OK;
    int rc = gr_tls_result(t, SSL_do_handshake(t->ssl), "TLS handshake failed");
    if (rc == GR_TLS_CLOSED) {
        if (!t->error[0])
            snprintf(t->error, sizeof t->error, "TLS handshake failed: the peer closed it");
        t->failed = true;
        return -EPROTO;
    }
    if (rc != GR_TLS_OK)
        return rc < 0 ? -EPROTO : rc;
    t->established = true;
    t->subject = format_subject(t->ssl);
    t->ktls_send = BIO_get_ktls_send(SSL_get_wbio(t->ssl)) > 0;
    /* Refused (a cipher or record size the kernel cannot take): no retry at each KeyUpdate. */
    if (!t->ktls_send)
        SSL_clear_options(t->ssl, SSL_OP_ENABLE_KTLS);
    return GR_TLS_OK;
}

int gr_tls_read(gr_tls_t *t, void *buf, size_t len, size_t *out_n)
{
    size_t n = 0;
    *out_n = 0;
    int ret = SSL_read_ex(t->ssl, buf, len, &n);
    if (ret == 1) {
        *out_n = n;
        return GR_TLS_OK;
    }
    return gr_tls_result(t, ret, "TLS read failed");
}

int gr_tls_write(gr_tls_t *t, const void *buf, size_t len, size_t *out_n)
{
    size_t n = 0;
    *out_n = 0;
    int ret = SSL_write_ex(t->ssl, buf, len, &n);
    if (ret == 1) {
        *out_n = n;
        return GR_TLS_OK;
    }
    return gr_tls_result(t, ret, "TLS write failed");
}

bool gr_tls_pending(const gr_tls_t *t)
{
    return SSL_has_pending(t->ssl);
}

bool gr_tls_established(const gr_tls_t *t)
{
    return t->established;
}

bool gr_tls_ktls_send(const gr_tls_t *t)
{
    return t->ktls_send;
}

const char *gr_tls_peer_subject(const gr_tls_t *t)
{
    return t->subject;
}

const char *gr_tls_describe(const gr_tls_t *t, char *buf, size_t size)
{
    if (!t->established)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%s %s%s", SSL_get_version(t->ssl), SSL_get_cipher_name(t->ssl),
                 t->ktls_send ? " (kernel TLS)" : "");
    return buf;
}

const char *gr_tls_error(const gr_tls_t *t)
{
    return t->error;
}

gr_tls_ctx_t *gr_tls_ctx_of(const gr_tls_t *t)
{
    return t->ctx;
}
