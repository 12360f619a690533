/* SPDX-License-Identifier: Apache-2.0 */
/* TLS internals shared by tls.c, tls_session.c and tls_send.c; not for other folders. */
#ifndef GR_NET_TLS_INT_H
#define GR_NET_TLS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "net/tls.h"

#define GR_TLS_DEFAULT_PROTOCOLS "TLSv1.2,TLSv1.3"
/* Largest piece of a file range read into memory at once when kernel TLS is off. */
#define GR_TLS_FILE_CHUNK (64 * 1024)

struct gr_tls_ctx {
    SSL_CTX *ssl;
    bool server;
    bool verify_host;    /* client: check the certificate against the host name */
    bool ktls;           /* sessions ask OpenSSL for kernel TLS (allowed and the kernel has it) */
    bool has_keystore;   /* a certificate and key were loaded */
    bool has_truststore; /* CA certificates were loaded from a truststore */
    int refs;            /* the creator's plus one per session (gr_tls_new) */
    const void *app;
};

struct gr_tls {
    gr_tls_ctx_t *ctx;
    SSL *ssl;
    bool established;
    bool failed;      /* a fatal error: no close_notify, no more calls into OpenSSL */
    bool ktls_send;   /* decided once the handshake completes */
    bool wants_read;  /* the last write waits for readability */
    char *subject;    /* peer certificate subject, RFC 2253; NULL when none */
    uint8_t *chunk;   /* file bytes read for SSL_write, GR_TLS_FILE_CHUNK; lazily */
    size_t chunk_pos; /* [chunk_pos, chunk_len) are the head file link's next bytes */
    size_t chunk_len;
    char error[GR_TLS_ERROR_MAX];
};

/* Fills err with what, then OpenSSL's last error reason; clears the error queue. */
void gr_tls_take_error(char *err, size_t errlen, const char *what);

/*
 * Maps the result of an SSL_* I/O call: GR_TLS_OK for ret > 0, WANT_READ,
 * WANT_WRITE, GR_TLS_CLOSED, -EPROTO (t->error says why) or -errno.
 */
int gr_tls_result(gr_tls_t *t, int ret, const char *what);

#endif
