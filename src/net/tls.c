/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TLS contexts from Kafka's ssl.* settings: see tls.h.
 *
 * Stores are PEM only. A keystore is one PEM text holding the private key and
 * the certificate chain (leaf first), from a file or inline; a truststore is
 * PEM CA certificates. Kafka's default store type is JKS; the caller passes a
 * NULL type when the key was left at that default, so a PEM file works
 * without naming its type, while an explicit JKS or PKCS12 is refused.
 *
 * Runs on: the loop thread, at start-up.
 */
#include "net/tls.h"
#include "net/tls_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/* OpenSSL's read buffer with read-ahead: a socketful of small records per read(). */
#define GR_TLS_READ_AHEAD_BYTES (64 * 1024)

/* Binds session caches to Gregor, so a session is not resumed by another server. */
static const unsigned char session_id_context[] = "gregor";

void gr_tls_take_error(char *err, size_t errlen, const char *what)
{
    unsigned long e = ERR_peek_last_error();
    char reason[GR_TLS_ERROR_MAX] = "";
    if (e)
        ERR_error_string_n(e, reason, sizeof reason);
    ERR_clear_error();
    if (reason[0])
        snprintf(err, errlen, "%s: %s", what, reason);
    else
        snprintf(err, errlen, "%s", what);
}

/* Refuses store types other than PEM, naming the conversion. */
static int check_store_type(const char *key, const char *type, char *err, size_t errlen)
{
    if (!type || strcasecmp(type, "PEM") == 0)
        return 0;
    const char *how =
        strcasecmp(type, "PKCS12") == 0
            ? "openssl pkcs12 -in store.p12 -nodes -out store.pem"
            : "keytool -importkeystore -srckeystore store.jks -destkeystore store.p12 "
              "-deststoretype PKCS12, then openssl pkcs12 -in store.p12 -nodes -out store.pem";
    snprintf(err, errlen, "%s=%s is not supported; convert to PEM with: %s (and set %s=PEM)", key,
             type, how, key);
    return -EINVAL;
}

/* A memory BIO over inline PEM text, or a file BIO. NULL with err on failure. */
static BIO *open_pem(const char *inline_text, const char *path, const char *key, char *err,
                     size_t errlen)
{
    BIO *bio = inline_text ? BIO_new_mem_buf(inline_text, -1) : BIO_new_file(path, "r");
    if (!bio) {
        if (inline_text || !path)
            snprintf(err, errlen, "%s: %s", key, inline_text ? "out of memory" : "not set");
        else
            snprintf(err, errlen, "%s %s: %s", key, path, strerror(errno ? errno : ENOENT));
        ERR_clear_error();
    }
    return bio;
}

/* Loads the leaf certificate and the rest of the chain from PEM text. */
static int load_chain(SSL_CTX *ctx, BIO *bio, const char *key, char *err, size_t errlen)
{
    X509 *leaf = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    if (!leaf) {
        snprintf(err, errlen, "%s: no PEM certificate found", key);
        ERR_clear_error();
        return -EINVAL;
    }
    int ok = SSL_CTX_use_certificate(ctx, leaf);
    X509_free(leaf);
    X509 *ca;
    while (ok && (ca = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        ok = SSL_CTX_add0_chain_cert(ctx, ca);
        if (!ok)
            X509_free(ca);
    }
    ERR_clear_error(); /* the loop ends on "no start line" */
    if (!ok) {
        gr_tls_take_error(err, errlen, key);
        return -EINVAL;
    }
    return 0;
}

/* Loads the private key (encrypted with password when given) and checks it fits the certificate. */
static int load_key(SSL_CTX *ctx, BIO *bio, const char *password, const char *key, char *err,
                    size_t errlen)
{
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio, NULL, NULL, (void *)(password ? password : ""));
    if (!pkey) {
        gr_tls_take_error(err, errlen,
                          password
                              ? "cannot read the private key (is ssl.key.password right?)"
                              : "cannot read the private key (encrypted? set ssl.key.password)");
        (void)key;
        return -EINVAL;
    }
    int ok = SSL_CTX_use_PrivateKey(ctx, pkey);
    EVP_PKEY_free(pkey);
    if (!ok || !SSL_CTX_check_private_key(ctx)) {
        gr_tls_take_error(err, errlen, "the private key does not match the certificate");
        return -EINVAL;
    }
    return 0;
}

static int load_keystore(SSL_CTX *ctx, const gr_tls_config_t *cfg, char *err, size_t errlen)
{
    if (check_store_type("ssl.keystore.type", cfg->keystore_type, err, errlen) < 0)
        return -EINVAL;
    bool inline_store = cfg->keystore_certificate_chain && cfg->keystore_key;
    if (!inline_store && !cfg->keystore_location) {
        snprintf(err, errlen,
                 "no keystore: set ssl.keystore.location (PEM) or "
                 "ssl.keystore.certificate.chain and ssl.keystore.key");
        return -EINVAL;
    }
    const char *chain_key =
        inline_store ? "ssl.keystore.certificate.chain" : "ssl.keystore.location";
    BIO *bio = open_pem(inline_store ? cfg->keystore_certificate_chain : NULL,
                        cfg->keystore_location, chain_key, err, errlen);
    if (!bio)
        return -EINVAL;
    int rc = load_chain(ctx, bio, chain_key, err, errlen);
    if (rc == 0 && inline_store) {
        BIO_free(bio);
        bio = open_pem(cfg->keystore_key, NULL, "ssl.keystore.key", err, errlen);
        if (!bio)
            return -EINVAL;
    } else if (rc == 0) {
        /* The key may come before or after the certificates: read the file again. */
        (void)BIO_reset(bio);
    }
    if (rc == 0)
        rc = load_key(ctx, bio, cfg->key_password, chain_key, err, errlen);
    BIO_free(bio);
    return rc;
}

/* Adds every certificate of the PEM truststore to the context's verify store. */
static int load_truststore(SSL_CTX *ctx, const gr_tls_config_t *cfg, char *err, size_t errlen)
{
    if (check_store_type("ssl.truststore.type", cfg->truststore_type, err, errlen) < 0)
        return -EINVAL;
    const char *key =
        cfg->truststore_certificates ? "ssl.truststore.certificates" : "ssl.truststore.location";
    BIO *bio = open_pem(cfg->truststore_certificates, cfg->truststore_location, key, err, errlen);
    if (!bio)
        return -EINVAL;
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    int count = 0;
    X509 *ca;
    while ((ca = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (X509_STORE_add_cert(store, ca))
            count++;
        X509_free(ca);
    }
    ERR_clear_error();
    BIO_free(bio);
    if (count == 0) {
        snprintf(err, errlen, "%s: no PEM certificate found", key);
        return -EINVAL;
    }
    return 0;
}

static int protocol_version(const char *name)
{
    static const struct {
        const char *name;
        int version;
    } versions[] = {{"TLSv1", TLS1_VERSION},
                    {"TLSv1.1", TLS1_1_VERSION},
                    {"TLSv1.2", TLS1_2_VERSION},
                    {"TLSv1.3", TLS1_3_VERSION},
                    {"TLS", 0}};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (strcasecmp(name, versions[i].name) == 0)
            return versions[i].version;
    return -1;
}

/* ssl.enabled.protocols (else ssl.protocol) as the lowest and highest version allowed. */
static int set_protocols(SSL_CTX *ctx, const gr_tls_config_t *cfg, char *err, size_t errlen)
{
    const char *list = cfg->enabled_protocols && cfg->enabled_protocols[0] ? cfg->enabled_protocols
                                                                           : cfg->protocol;
    if (!list || !list[0])
        list = GR_TLS_DEFAULT_PROTOCOLS;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -ENOMEM;
    int lo = 0, hi = 0, rc = 0;
    for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        int v = protocol_version(tok);
        if (v < 0) {
            snprintf(err, errlen, "ssl.enabled.protocols: unknown protocol '%s'", tok);
            rc = -EINVAL;
            break;
        }
        if (v == 0) /* "TLS": any version OpenSSL allows */
            continue;
        lo = lo == 0 || v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    free(copy);
    if (rc == 0 &&
        (!SSL_CTX_set_min_proto_version(ctx, lo) || !SSL_CTX_set_max_proto_version(ctx, hi))) {
        gr_tls_take_error(err, errlen, "ssl.enabled.protocols");
        rc = -EINVAL;
    }
    return rc;
}

/*
 * ssl.cipher.suites: TLS 1.3 suites (TLS_AES_*, TLS_CHACHA20_*) and OpenSSL's
 * names for the TLS 1.2 ones, comma-separated as Kafka lists them.
 */
static int set_ciphers(SSL_CTX *ctx, const char *suites, char *err, size_t errlen)
{
    if (!suites || !suites[0])
        return 0;
    size_t n = strlen(suites) + 1;
    char *v13 = calloc(1, n), *v12 = calloc(1, n), *copy = strdup(suites), *save = NULL;
    int rc = 0;
    if (!v13 || !v12 || !copy) {
        rc = -ENOMEM;
        goto fail;
    }
    for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        char *dst =
            strncmp(tok, "TLS_AES_", 8) == 0 || strncmp(tok, "TLS_CHACHA20_", 13) == 0 ? v13 : v12;
        if (dst[0])
            strcat(dst, ":");
        strcat(dst, tok);
    }
    if ((v13[0] && !SSL_CTX_set_ciphersuites(ctx, v13)) ||
        (v12[0] && !SSL_CTX_set_cipher_list(ctx, v12))) {
        gr_tls_take_error(err, errlen, "ssl.cipher.suites: no usable cipher suite");
        rc = -EINVAL;
    }
fail:
    free(v13);
    free(v12);
    free(copy);
    return rc;
}

static int parse_client_auth(const char *text, gr_tls_client_auth_t *out, char *err, size_t errlen)
{
    if (!text || !text[0] || strcasecmp(text, "none") == 0)
        *out = GR_TLS_CLIENT_AUTH_NONE;
    else if (strcasecmp(text, "requested") == 0)
        *out = GR_TLS_CLIENT_AUTH_REQUESTED;
    else if (strcasecmp(text, "required") == 0)
        *out = GR_TLS_CLIENT_AUTH_REQUIRED;
    else {
        snprintf(err, errlen, "ssl.client.auth=%s: expected none, requested or required", text);
        return -EINVAL;
    }
    return 0;
}

/*
 * Whether the kernel has the "tls" TCP upper layer protocol. Asking for it on
 * a fresh, unconnected socket answers -ENOENT when there is none (no module,
 * and none loadable from here) and -ENOTCONN when there is. Without it every
 * session would still have OpenSSL prepare kernel TLS at each key change and
 * fail, so such a context never asks (the sessions take exactly the
 * user-space path of gregor.ssl.ktls.enable=false). A probe that cannot run
 * (no socket) counts as present; a build without TCP_ULP has none.
 */
static bool kernel_tls_present(void)
{
#ifdef TCP_ULP
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return true;
    static const char ulp[] = "tls";
    bool absent = setsockopt(fd, IPPROTO_TCP, TCP_ULP, ulp, sizeof ulp) < 0 && errno == ENOENT;
    close(fd);
    return !absent;
#else
    return false;
#endif
}

/* What server and client contexts share: protocols, ciphers, write modes, KTLS. */
static gr_tls_ctx_t *ctx_new(const SSL_METHOD *method, const gr_tls_config_t *cfg, char *err,
                             size_t errlen)
{
    gr_tls_ctx_t *ctx = calloc(1, sizeof(*ctx));
    if (!ctx || !(ctx->ssl = SSL_CTX_new(method))) {
        snprintf(err, errlen, "cannot create a TLS context: out of memory");
        free(ctx);
        return NULL;
    }
    ctx->refs = 1;
    /* Responses go out link by link from memory that stays put until written. */
    SSL_CTX_set_mode(ctx->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    ctx->ktls = cfg->ktls && kernel_tls_present();
    if (ctx->ktls)
        SSL_CTX_set_options(ctx->ssl, SSL_OP_ENABLE_KTLS);
    /* Renegotiation only adds attack surface; TLS 1.3 has none anyway. */
    SSL_CTX_set_options(ctx->ssl, SSL_OP_NO_RENEGOTIATION);
    if (set_protocols(ctx->ssl, cfg, err, errlen) < 0 ||
        set_ciphers(ctx->ssl, cfg->cipher_suites, err, errlen) < 0) {
        gr_tls_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

gr_tls_ctx_t *gr_tls_ctx_new_server(const gr_tls_config_t *cfg, char *err, size_t errlen)
{
    gr_tls_client_auth_t auth;
    if (parse_client_auth(cfg->client_auth, &auth, err, errlen) < 0)
        return NULL;
    gr_tls_ctx_t *ctx = ctx_new(TLS_server_method(), cfg, err, errlen);
    if (!ctx)
        return NULL;
    ctx->server = true;
    /*
     * Clients send each small record as its own TLS record: without
     * read-ahead OpenSSL reads every one with two read()s (header, body).
     * gr_conn's tls_read drains what one read() brings. Server side only:
     * the peer and admin clients read one SSL_read per wake-up.
     */
    SSL_CTX_set_read_ahead(ctx->ssl, 1);
    SSL_CTX_set_default_read_buffer_len(ctx->ssl, GR_TLS_READ_AHEAD_BYTES);
    /* An idle connection keeps no buffer (gr_conn's own are freed too): else each would
     * hold the 64 KiB read-ahead buffer for its whole life. */
    SSL_CTX_set_mode(ctx->ssl, SSL_MODE_RELEASE_BUFFERS);
    if (load_keystore(ctx->ssl, cfg, err, errlen) < 0)
        goto fail;
    ctx->has_keystore = true;
    SSL_CTX_set_session_id_context(ctx->ssl, session_id_context, sizeof session_id_context - 1);
    if (auth != GR_TLS_CLIENT_AUTH_NONE) {
        if (!cfg->truststore_location && !cfg->truststore_certificates) {
            snprintf(err, errlen,
                     "ssl.client.auth=%s needs a truststore "
                     "(ssl.truststore.location or ssl.truststore.certificates)",
                     cfg->client_auth);
            goto fail;
        }
        if (load_truststore(ctx->ssl, cfg, err, errlen) < 0)
            goto fail;
        ctx->has_truststore = true;
        int mode = SSL_VERIFY_PEER;
        if (auth == GR_TLS_CLIENT_AUTH_REQUIRED)
            mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
        SSL_CTX_set_verify(ctx->ssl, mode, NULL);
    }
    return ctx;
fail:
    gr_tls_ctx_free(ctx);
    return NULL;
}

gr_tls_ctx_t *gr_tls_ctx_new_client(const gr_tls_config_t *cfg, char *err, size_t errlen)
{
    gr_tls_ctx_t *ctx = ctx_new(TLS_client_method(), cfg, err, errlen);
    if (!ctx)
        return NULL;
    if (cfg->truststore_location || cfg->truststore_certificates) {
        if (load_truststore(ctx->ssl, cfg, err, errlen) < 0)
            goto fail;
        ctx->has_truststore = true;
    } else if (!SSL_CTX_set_default_verify_paths(ctx->ssl)) {
        gr_tls_take_error(err, errlen, "cannot load the system's CA certificates");
        goto fail;
    }
    if (cfg->keystore_location || cfg->keystore_certificate_chain) {
        if (load_keystore(ctx->ssl, cfg, err, errlen) < 0)
            goto fail;
        ctx->has_keystore = true;
    }
    SSL_CTX_set_verify(ctx->ssl, SSL_VERIFY_PEER, NULL);
    /* Kafka's default ("https") checks the host name; an empty value turns it off. */
    ctx->verify_host =
        !cfg->endpoint_identification || strcasecmp(cfg->endpoint_identification, "https") == 0;
    return ctx;
fail:
    gr_tls_ctx_free(ctx);
    return NULL;
}

void gr_tls_ctx_free(gr_tls_ctx_t *ctx)
{
    if (!ctx || --ctx->refs > 0)
        return;
    SSL_CTX_free(ctx->ssl);
    free(ctx);
}

void gr_tls_ctx_set_app(gr_tls_ctx_t *ctx, const void *app)
{
    ctx->app = app;
}

bool gr_tls_ctx_ktls(const gr_tls_ctx_t *ctx)
{
    return ctx->ktls;
}

const void *gr_tls_ctx_app(const gr_tls_ctx_t *ctx)
{
    return ctx->app;
}
