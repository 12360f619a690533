/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TLS with OpenSSL: contexts built from Kafka's ssl.* settings (PEM only),
 * and one non-blocking TLS session per socket.
 *
 * A context (gr_tls_ctx_t) is built at start-up per listener (server) or
 * per inter-broker/admin client, and shared by its sessions; it is
 * immutable afterwards. A listener's may be replaced by a new one (a
 * keystore rotated live): each session holds a reference to the context it
 * was made from, so the old one lives on until its last session ends. JKS
 * and PKCS12 stores are refused with a message naming the conversion, since
 * Gregor reads PEM only.
 *
 * A session (gr_tls_t) wraps an fd the caller owns. Its life:
 *   HANDSHAKE  gr_tls_handshake until it returns GR_TLS_OK; WANT_READ or
 *              WANT_WRITE say which readiness to wait for;
 *   OPEN       gr_tls_read / gr_tls_send_chain (tls_send.c);
 *   FAILED     any -EPROTO: the caller closes the socket; gr_tls_error
 *              says why (OpenSSL's reason, for the log line).
 * Nothing here blocks unless the fd does (the admin client's sockets).
 *
 * Runs on: the thread owning the socket (the loop thread for the broker).
 */
#ifndef GR_NET_TLS_H
#define GR_NET_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include "net/chain.h"

#define GR_TLS_ERROR_MAX   256
#define GR_TLS_SUBJECT_MAX 512

/* Results besides 0 (done) and -errno. */
enum {
    GR_TLS_OK = 0,
    GR_TLS_WANT_READ = 1,  /* wait until the socket is readable, then call again */
    GR_TLS_WANT_WRITE = 2, /* wait until the socket is writable, then call again */
    GR_TLS_CLOSED = 3,     /* the peer closed the session (close_notify or EOF) */
};

typedef enum gr_tls_client_auth {
    GR_TLS_CLIENT_AUTH_NONE = 0,
    GR_TLS_CLIENT_AUTH_REQUESTED,
    GR_TLS_CLIENT_AUTH_REQUIRED,
} gr_tls_client_auth_t;

/*
 * The ssl.* settings of one listener or client, as text (NULL: unset). The
 * strings are borrowed for the duration of gr_tls_ctx_new only.
 */
typedef struct gr_tls_config {
    const char *keystore_type;              /* ssl.keystore.type: PEM (JKS/PKCS12 refused) */
    const char *keystore_location;          /* PEM file: private key and certificate chain */
    const char *keystore_certificate_chain; /* inline PEM certificates */
    const char *keystore_key;               /* inline PEM private key */
    const char *key_password;               /* ssl.key.password, for an encrypted key */
    const char *truststore_type;            /* ssl.truststore.type: PEM */
    const char *truststore_location;        /* PEM file of CA certificates */
    const char *truststore_certificates;    /* inline PEM CA certificates */
    const char *client_auth;                /* ssl.client.auth: none, requested, required */
    const char *enabled_protocols;          /* "TLSv1.2,TLSv1.3" */
    const char *protocol;                   /* ssl.protocol, used when enabled is unset */
    const char *cipher_suites;              /* OpenSSL or IANA names, comma-separated */
    const char *endpoint_identification;    /* client: "https" checks the host name, "" not */
    bool ktls;                              /* try kernel TLS (sendfile for fetches) */
} gr_tls_config_t;

typedef struct gr_tls_ctx gr_tls_ctx_t;
typedef struct gr_tls gr_tls_t;

/*
 * Builds a server context: the keystore is required, the truststore only for
 * ssl.client.auth requested/required. Returns the context or NULL with err
 * filled ("ssl.keystore.location /x: No such file or directory", "JKS is not
 * supported ...", a bad key password, a key not matching the certificate).
 */
gr_tls_ctx_t *gr_tls_ctx_new_server(const gr_tls_config_t *cfg, char *err, size_t errlen);

/*
 * Builds a client context: the server is verified against the truststore (the
 * system's CAs when none is given); the keystore, when given, is presented
 * for mutual TLS. Returns the context or NULL with err filled.
 */
gr_tls_ctx_t *gr_tls_ctx_new_client(const gr_tls_config_t *cfg, char *err, size_t errlen);

/*
 * Drops the creator's reference: the context is freed once no session made
 * from it remains (each gr_tls_new takes one, gr_tls_free gives it back).
 */
void gr_tls_ctx_free(gr_tls_ctx_t *ctx);

/* "subject CN=..., serial 1A2B" of the context's certificate for log lines; "" without one. */
const char *gr_tls_ctx_describe(const gr_tls_ctx_t *ctx, char *buf, size_t size);

/*
 * Whether a server context may replace cur (Kafka's checks of a keystore
 * changed live, SslFactory): a keystore neither added nor removed, no
 * truststore added where none was, and unless allowed, the same subject DN
 * (compared case-insensitively in RFC 2253 form) and at least the subject
 * alternative names of cur's certificate. 0, or -EINVAL with err filled.
 */
int gr_tls_ctx_check_replace(const gr_tls_ctx_t *cur, const gr_tls_ctx_t *next,
                             bool allow_dn_changes, bool allow_san_changes, char *err,
                             size_t errlen);

/*
 * Whether the context's sessions try kernel TLS: allowed by the config and
 * the kernel has its "tls" module (or can load it). When false they run
 * exactly the user-space path of gregor.ssl.ktls.enable=false.
 */
bool gr_tls_ctx_ktls(const gr_tls_ctx_t *ctx);

/*
 * Opaque data of the layer above, kept with the context (the broker keeps the
 * listener's principal mapping rules here). NULL until set.
 */
void gr_tls_ctx_set_app(gr_tls_ctx_t *ctx, const void *app);
const void *gr_tls_ctx_app(const gr_tls_ctx_t *ctx);

/*
 * Starts a session on fd (server side for a server context). host, for a
 * client, is sent as SNI and checked against the certificate when the context
 * verifies host names; NULL otherwise. Returns the session or NULL (-ENOMEM).
 */
gr_tls_t *gr_tls_new(gr_tls_ctx_t *ctx, int fd, const char *host);

/* Frees the session, first sending close_notify if it is open (best effort). */
void gr_tls_free(gr_tls_t *t);

/* Advances the handshake. Returns GR_TLS_OK, GR_TLS_WANT_READ/WRITE or -EPROTO. */
int gr_tls_handshake(gr_tls_t *t);

/*
 * Reads decrypted bytes. Returns GR_TLS_OK with *out_n > 0, GR_TLS_WANT_READ,
 * GR_TLS_WANT_WRITE (a key update must go out first), GR_TLS_CLOSED, -EPROTO
 * (bad record) or -errno of the socket.
 */
int gr_tls_read(gr_tls_t *t, void *buf, size_t len, size_t *out_n /* out */);

/*
 * Writes len bytes (blocking sockets: all of them; non-blocking: see
 * gr_tls_send_chain, which is what the broker uses). Returns GR_TLS_OK,
 * GR_TLS_WANT_READ/WRITE, -EPROTO or -errno.
 */
int gr_tls_write(gr_tls_t *t, const void *buf, size_t len, size_t *out_n /* out */);

/* Whether decrypted or undecrypted bytes wait inside OpenSSL (no readiness will say so). */
bool gr_tls_pending(const gr_tls_t *t);

/* Whether the handshake has completed. */
bool gr_tls_established(const gr_tls_t *t);

/* Whether kernel TLS carries this session's writes (sendfile works). */
bool gr_tls_ktls_send(const gr_tls_t *t);

/*
 * The peer certificate's subject in RFC 2253 form ("CN=alice,OU=eng,O=acme"),
 * or NULL when none was presented (or before the handshake completed).
 */
const char *gr_tls_peer_subject(const gr_tls_t *t);

/* "TLSv1.3 TLS_AES_256_GCM_SHA384" for log lines; "" before the handshake. */
const char *gr_tls_describe(const gr_tls_t *t, char *buf, size_t size);

/* Why the last call failed ("" when it did not). */
const char *gr_tls_error(const gr_tls_t *t);

/* The context the session was made from. */
gr_tls_ctx_t *gr_tls_ctx_of(const gr_tls_t *t);

/*
 * Sends as much of the chain as the session takes: memory links with
 * SSL_write; file links with SSL_sendfile under kernel TLS, otherwise read
 * into a bounded buffer (GR_TLS_FILE_CHUNK) and written from there. Same
 * results as gr_chain_send (GR_CHAIN_DONE, GR_CHAIN_AGAIN: wait for
 * writability, or readability when gr_tls_send_wants_read; -ENODATA, -EPROTO,
 * -errno).
 */
int gr_tls_send_chain(gr_tls_t *t, gr_chain_t *ch, gr_chain_stats_t *stats);

/* After GR_CHAIN_AGAIN: whether the session waits for readability, not writability. */
bool gr_tls_send_wants_read(const gr_tls_t *t);

#endif
