/* SPDX-License-Identifier: Apache-2.0 */
/* The metrics and health listener on the broker's loop: see http_server.h. */
#include "observe/http_server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file_read.h"
#include "net/listener.h"
#include "net/tls.h"
#include "net/tls_config.h"
#include "observe/http_endpoints.h"

#define HTTP_BACKLOG         64
#define HTTP_ADDR_MAX        GR_LISTENER_ADDR_MAX
#define HTTP_KEYSTORE_MAX    (1024 * 1024) /* a PEM keystore is a few KiB */
#define HTTP_TLS_ERR_MAX     512
#define HTTP_ALLOWED_METHODS "GET, HEAD"
#define HTTP_OPTIONS_MAX     10
#define HTTP_LOG_LINE_MAX    256

struct gr_http_server {
    gr_broker_t *b;
    struct MHD_Daemon *daemon;
    ev_io ready;       /* MHD's epoll fd has events */
    ev_timer deadline; /* MHD's next timeout, or 0 when it has work already read */
    char *tls_pem;     /* https: the keystore (key and chain), read once; MHD keeps a pointer */
    char addr[HTTP_ADDR_MAX];
};

/* Runs MHD, then rearms the timer for what it asks next. */
static void run_daemon(gr_http_server_t *h)
{
    MHD_run(h->daemon);
    ev_timer_stop(h->b->loop, &h->deadline);
    MHD_UNSIGNED_LONG_LONG ms;
    if (MHD_get_timeout(h->daemon, &ms) == MHD_YES) {
        ev_timer_set(&h->deadline, (double)ms / 1000., 0.);
        ev_timer_start(h->b->loop, &h->deadline);
    }
}

static void on_ready(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    run_daemon(w->data);
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    run_daemon(w->data);
}

static enum MHD_Result queue_page(struct MHD_Connection *conn, const gr_http_page_t *page)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(page->len, page->body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(page->body);
        return MHD_NO; /* closes the connection */
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, page->content_type);
    if (page->status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, HTTP_ALLOWED_METHODS);
    enum MHD_Result rc = MHD_queue_response(conn, page->status, resp);
    MHD_destroy_response(resp);
    return rc;
}

/*
 * MHD's request callback, on the loop (inside MHD_run). It is called once
 * the headers are in, then again when the (empty) body is: answering at the
 * second call keeps the connection alive for the next scrape. Any method but
 * GET and HEAD is answered at the first call, its body unread (MHD then
 * closes the connection).
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    static const char headers_seen = 0; /* only its address is used: a marker */
    (void)version;
    (void)upload_data;
    gr_http_server_t *h = cls;
    gr_http_page_t page;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        static const char msg[] = "method not allowed\n";
        page.status = MHD_HTTP_METHOD_NOT_ALLOWED;
        page.content_type = "text/plain; charset=utf-8";
        page.len = sizeof msg - 1;
        page.body = strdup(msg);
        if (!page.body)
            return MHD_NO;
        return queue_page(conn, &page);
    }
    if (*req_cls != &headers_seen) {
        *req_cls = (void *)&headers_seen;
        return MHD_YES;
    }
    if (*upload_data_size) { /* a body on a GET: ignored */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (gr_http_endpoint_serve(h->b, url, &page) < 0)
        return MHD_NO;
    return queue_page(conn, &page);
}

/* MHD's own messages (a client's bad request, the connection limit): DEBUG, a scraper's noise. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    gr_http_server_t *h = cls;
    if (!gr_log_enabled(&h->b->log, GR_LOG_DEBUG))
        return;
    char line[HTTP_LOG_LINE_MAX];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t len = strlen(line);
    while (len && line[len - 1] == '\n') /* MHD ends its messages with one */
        line[--len] = '\0';
    gr_logf(&h->b->log, GR_LOG_DEBUG, "http", "%s", line);
}

/*
 * https: the PEM key and certificate chain, as the SSL listeners take them
 * (checked the same way first, so a bad keystore fails with their message).
 * One text holds both (ssl.keystore.location) or two do (the inline keys).
 */
static int read_keystore(gr_http_server_t *h, const char **key, const char **cert)
{
    gr_tls_config_t tc;
    gr_tls_config_for_listener(&h->b->config, NULL, &tc);
    char err[HTTP_TLS_ERR_MAX];
    gr_tls_ctx_t *check = gr_tls_ctx_new_server(&tc, err, sizeof err);
    if (!check) {
        gr_logf(&h->b->log, GR_LOG_ERROR, "http", "gregor.http.listener (https): %s", err);
        return -EINVAL;
    }
    gr_tls_ctx_free(check);
    if (tc.keystore_certificate_chain && tc.keystore_key) {
        *key = tc.keystore_key;
        *cert = tc.keystore_certificate_chain;
        return 0;
    }
    int fd = open(tc.keystore_location, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len;
    int rc = gr_file_read_all(fd, HTTP_KEYSTORE_MAX, &h->tls_pem, &len);
    close(fd);
    if (rc)
        return rc;
    *key = *cert = h->tls_pem;
    return 0;
}

static int start_daemon(gr_http_server_t *h, const gr_listener_spec_t *spec, int fd)
{
    const gr_config_t *cfg = &h->b->config;
    bool tls = spec->protocol == GR_SECURITY_SSL;
    const char *key = NULL, *cert = NULL;
    if (tls) {
        int rc = read_keystore(h, &key, &cert);
        if (rc)
            return rc;
    }
    unsigned timeout_sec = (unsigned)(cfg->gregor_http_connection_timeout_ms + 999) / 1000;
    struct MHD_OptionItem opts[HTTP_OPTIONS_MAX];
    int n = 0;
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, fd, NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT,
                                        cfg->gregor_http_max_connections, NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                        cfg->gregor_http_max_connections_per_ip, NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)timeout_sec, NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                                        cfg->gregor_http_request_max_bytes, NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, h};
    if (tls) {
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)key};
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)cert};
        if (cfg->ssl_key_password)
            opts[n++] =
                (struct MHD_OptionItem){MHD_OPTION_HTTPS_KEY_PASSWORD, 0, cfg->ssl_key_password};
    }
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG | (tls ? MHD_USE_TLS : 0);
    /* On failure the listening fd may or may not be closed by MHD: it is left (start-up fails). */
    h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_ARRAY, opts,
                                 MHD_OPTION_END);
    return h->daemon ? 0 : -EINVAL;
}

/* Watches MHD's epoll fd and runs it once, which arms the deadline. */
static int watch_daemon(gr_http_server_t *h)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_EPOLL_FD);
    if (!info)
        return -EINVAL;
    ev_io_init(&h->ready, on_ready, info->epoll_fd, EV_READ);
    h->ready.data = h;
    ev_init(&h->deadline, on_deadline);
    h->deadline.data = h;
    ev_io_start(h->b->loop, &h->ready);
    run_daemon(h);
    return 0;
}

int gr_http_server_start(gr_broker_t *b)
{
    const char *value = b->config.gregor_http_listener;
    if (!value || !value[0])
        return 0;
    gr_listener_spec_t spec;
    char err[HTTP_TLS_ERR_MAX];
    int rc = gr_http_listener_parse(value, &spec, err, sizeof err);
    if (rc) /* the config check took it: only out of memory is left */
        return rc;
    gr_http_server_t *h = calloc(1, sizeof(*h));
    if (!h)
        return -ENOMEM;
    h->b = b;
    b->http = h;
    uint16_t port;
    int fd = gr_listener_bind(spec.host, spec.port, HTTP_BACKLOG, &port, h->addr, sizeof h->addr);
    if (fd < 0) {
        gr_logf(&b->log, GR_LOG_ERROR, "http", "cannot listen on %s: %s", value, strerror(-fd));
        gr_http_server_stop(b);
        return fd;
    }
    rc = start_daemon(h, &spec, fd);
    if (rc == 0)
        rc = watch_daemon(h);
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "http", "cannot serve %s: %s", value, strerror(-rc));
        gr_http_server_stop(b);
        return rc;
    }
    gr_logf(&b->log, GR_LOG_INFO, "http", "serving /metrics /healthz /readyz on %s://%s",
            spec.protocol == GR_SECURITY_SSL ? "https" : "http", h->addr);
    return 0;
}

void gr_http_server_stop(gr_broker_t *b)
{
    gr_http_server_t *h = b->http;
    if (!h)
        return;
    if (h->daemon) {
        ev_io_stop(b->loop, &h->ready);
        ev_timer_stop(b->loop, &h->deadline);
        MHD_stop_daemon(h->daemon); /* closes the listening socket and every connection */
    }
    free(h->tls_pem);
    free(h);
    b->http = NULL;
}
