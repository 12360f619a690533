/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin's connection: one blocking TCP socket to the bootstrap
 * broker, framed requests encoded with the generated codec, and the
 * broker's API versions (asked once at connect) to choose each request's
 * version. With --command-config security.protocol=SSL the socket carries
 * TLS (blocking SSL_read/SSL_write through net/tls.h); with SASL_* each
 * connection logs in (sasl_login.c) before its first command.
 */
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "admin/admin.h"
#include "admin/command_config.h"
#include "gen/api_versions.h"
#include "gen/codec_registry.h"
#include "gen/headers.h"
#include "net/tls.h"
#include "protocol/frame.h"

#define ADMIN_CLIENT_ID      "gregor-admin"
#define ADMIN_MAX_RESPONSE   (64 * 1024 * 1024)
#define ADMIN_IO_TIMEOUT_SEC 60
#define HOST_MAX             256

/* One write or read on the socket, through TLS when the connection has it. */
static ssize_t io(gr_admin_t *a, uint8_t *p, size_t n, bool writing)
{
    if (!a->tls_session)
        return writing ? write(a->sock, p, n) : read(a->sock, p, n);
    size_t done = 0;
    int rc = writing ? gr_tls_write(a->tls_session, p, n, &done)
                     : gr_tls_read(a->tls_session, p, n, &done);
    return rc == GR_TLS_OK ? (ssize_t)done : -1;
}

static int write_all(gr_admin_t *a, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = io(a, (uint8_t *)p, n, true);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(gr_admin_t *a, uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = io(a, p, n, false);
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int open_socket(const char *bootstrap, char *host /* out: HOST_MAX */)
{
    const char *colon = strrchr(bootstrap, ':');
    if (!colon || (size_t)(colon - bootstrap) >= HOST_MAX) {
        fprintf(stderr, "error: --bootstrap-server wants HOST:PORT, got '%s'\n", bootstrap);
        return -1;
    }
    const char *start = bootstrap[0] == '[' ? bootstrap + 1 : bootstrap;
    size_t len = (size_t)(colon - start) - (bootstrap[0] == '[' ? 1 : 0);
    memcpy(host, start, len);
    host[len] = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0) {
        fprintf(stderr, "error: cannot resolve %s\n", bootstrap);
        return -1;
    }
    int fd = socket(res->ai_family, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr, "error: cannot connect to %s\n", bootstrap);
        return -1;
    }
    struct timeval tv = {ADMIN_IO_TIMEOUT_SEC, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    return fd;
}

int gr_admin_call(gr_admin_t *a, int16_t key, int16_t v, const void *msg, void *resp)
{
    const gr_api_desc_t *api = gr_api_find(key);
    if (!api)
        return -1;
    gr_writer_t w;
    gr_writer_init(&w);
    int rc = gr_frame_encode_request(&w, api, v, ++a->correlation_id, gr_str(ADMIN_CLIENT_ID), msg);
    if (rc == 0)
        rc = write_all(a, w.buf, w.len);
    gr_writer_fini(&w);
    uint8_t size_buf[GR_FRAME_SIZE_BYTES];
    if (rc || read_all(a, size_buf, sizeof size_buf)) {
        fprintf(stderr, "error: %s request failed (connection lost)\n", api->name);
        return -1;
    }
    uint32_t size =
        (uint32_t)size_buf[0] << 24 | size_buf[1] << 16 | size_buf[2] << 8 | size_buf[3];
    uint8_t *buf = size <= ADMIN_MAX_RESPONSE ? gr_arena_alloc(&a->arena, size ? size : 1) : NULL;
    if (!buf || read_all(a, buf, size)) {
        fprintf(stderr, "error: %s response could not be read\n", api->name);
        return -1;
    }
    if (gr_frame_decode_response(buf, size, api, v, a->correlation_id, &a->arena, resp)) {
        fprintf(stderr, "error: malformed %s response\n", api->name);
        return -1;
    }
    return 0;
}

/* The TLS handshake on the fresh (blocking) socket. 0 or -1 (printed). */
static int start_tls(gr_admin_t *a, const char *host)
{
    a->tls_session = gr_tls_new(a->tls, a->sock, host);
    if (!a->tls_session) {
        fprintf(stderr, "error: out of memory for a TLS session\n");
        return -1;
    }
    if (gr_tls_handshake(a->tls_session) != GR_TLS_OK) {
        const char *why = gr_tls_error(a->tls_session);
        fprintf(stderr, "error: TLS with %s failed: %s\n", a->addr, why[0] ? why : "timed out");
        return -1;
    }
    return 0;
}

/* The SASL login --command-config asks for, kept for every connection. */
static int sasl_setup(gr_admin_t *a, const gr_admin_command_config_t *cc, const char *path)
{
    if (!gr_admin_command_config_sasl(cc))
        return 0;
    return gr_admin_command_config_login(cc, path, &a->sasl_mechanism, &a->sasl_user,
                                         &a->sasl_password);
}

int gr_admin_security_setup(gr_admin_t *a)
{
    const char *path = gr_admin_opt(a->opts, "command-config");
    if (!path || a->tls || a->sasl_user)
        return 0;
    gr_admin_command_config_t cc;
    if (gr_admin_command_config_load(path, &cc) < 0)
        return -1;
    int rc = sasl_setup(a, &cc, path);
    if (rc == 0 && gr_admin_command_config_tls(&cc)) {
        char err[512];
        a->tls = gr_tls_ctx_new_client(&cc.tls, err, sizeof err);
        if (!a->tls) {
            fprintf(stderr, "error: --command-config %s: %s\n", path, err);
            rc = -1;
        }
    }
    gr_admin_command_config_fini(&cc);
    return rc;
}

void gr_admin_security_fini(gr_admin_t *a)
{
    gr_tls_ctx_free(a->tls);
    a->tls = NULL;
    if (a->sasl_password)
        OPENSSL_cleanse(a->sasl_password, strlen(a->sasl_password));
    free(a->sasl_password);
    free(a->sasl_user);
    a->sasl_password = a->sasl_user = NULL;
}

/* TLS, ApiVersions and the SASL login on the fresh socket. 0 or -1 (printed). */
static int start_session(gr_admin_t *a, const char *host)
{
    if (a->tls && start_tls(a, host) < 0)
        return -1;
    gr_api_versions_request_t req;
    gr_api_versions_request_init(&req);
    gr_api_versions_response_t resp;
    /* v0: every broker answers it, whatever it supports. */
    if (gr_admin_call(a, GR_API_API_VERSIONS, 0, &req, &resp))
        return -1;
    for (int32_t i = 0; i < resp.api_keys_count; i++) {
        int16_t key = resp.api_keys[i].api_key;
        if (key >= 0 && key < GR_ADMIN_API_MAX)
            a->max_version[key] = resp.api_keys[i].max_version;
    }
    return a->sasl_user ? gr_admin_sasl_login(a) : 0;
}

int gr_admin_connect(gr_admin_t *a, const char *bootstrap)
{
    for (int i = 0; i < GR_ADMIN_API_MAX; i++)
        a->max_version[i] = -1;
    if (!a->bootstrap)
        a->bootstrap = bootstrap;
    snprintf(a->addr, sizeof a->addr, "%s", bootstrap);
    char host[HOST_MAX];
    a->sock = open_socket(bootstrap, host);
    if (a->sock < 0)
        return -1;
    /* A socket that failed half-way (a broker that did not prove its
     * credential, say) must not be used for the next request. */
    if (start_session(a, host) < 0) {
        gr_admin_close(a);
        return -1;
    }
    return 0;
}

void gr_admin_close(gr_admin_t *a)
{
    gr_tls_free(a->tls_session);
    a->tls_session = NULL;
    if (a->sock >= 0)
        close(a->sock);
    a->sock = -1;
}

int16_t gr_admin_version(gr_admin_t *a, int16_t key, int16_t want_max)
{
    const gr_api_desc_t *api = gr_api_find(key);
    int16_t broker = key >= 0 && key < GR_ADMIN_API_MAX ? a->max_version[key] : -1;
    int16_t v = broker < want_max ? broker : want_max;
    if (!api || v < 0 || v < api->min_version) {
        fprintf(stderr, "error: the broker does not support %s\n", api ? api->name : "this API");
        return -1;
    }
    return v;
}
