/* SPDX-License-Identifier: Apache-2.0 */
/* The network front: see server.h. Runs on: loop thread. */
#include "net/server.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The server's record of one connection; the connection's owner pointer. */
struct gr_server_conn {
    gr_server_conn_t *prev;
    gr_server_conn_t *next;
    gr_server_t *srv;
    gr_conn_t *conn;
    int listener; /* index in srv->listeners, or -1 (adopted) */
};

static void set_listeners_paused(gr_server_t *srv, bool paused)
{
    for (size_t i = 0; i < srv->listener_count; i++) {
        if (paused)
            gr_listener_pause(&srv->listeners[i]);
        else
            gr_listener_resume(&srv->listeners[i]);
    }
}

static void finish_stop(gr_server_t *srv)
{
    ev_timer_stop(srv->loop, &srv->stop_timer);
    gr_server_stopped_fn done = srv->on_stopped;
    srv->on_stopped = NULL;
    if (done)
        done(srv, srv->stopped_arg); /* may fini the server: touch nothing after */
}

static void conn_closed(gr_conn_t *c, void *owner)
{
    (void)c;
    gr_server_conn_t *node = owner;
    gr_server_t *srv = node->srv;
    if (node->prev)
        node->prev->next = node->next;
    else
        srv->conns = node->next;
    if (node->next)
        node->next->prev = node->prev;
    if (node->listener >= 0) {
        srv->listener_conns[node->listener]--;
        srv->listener_closed[node->listener]++;
    }
    free(node);
    srv->conn_count--;
    srv->closed++;
    if (srv->limited && srv->conn_count < srv->cfg.max_connections && !srv->stopping) {
        srv->limited = false;
        set_listeners_paused(srv, srv->held);
    }
    if (srv->stopping && srv->conn_count == 0 && srv->on_stopped)
        finish_stop(srv);
}

/* Wraps fd as a connection of listener index (-1: adopted, no listener). */
static gr_conn_t *adopt_from(gr_server_t *srv, int fd, int index)
{
    const void *listener_tag = index >= 0 ? srv->listener_tags[index] : NULL;
    gr_tls_ctx_t *tls = index >= 0 ? srv->listener_tls[index] : NULL;
    int32_t login_max = index >= 0 ? srv->listener_login_max[index] : 0;
    gr_server_conn_t *node = calloc(1, sizeof(*node));
    if (!node) {
        close(fd);
        return NULL;
    }
    gr_conn_config_t cfg = srv->cfg.conn;
    cfg.on_close = conn_closed;
    cfg.owner = node;
    cfg.stats = &srv->stats;
    cfg.listener = listener_tag;
    cfg.max_login_bytes = login_max;
    if (tls)
        cfg.tls = tls;
    gr_conn_t *c = gr_conn_new(srv->loop, fd, &cfg);
    if (!c) {
        gr_logf(srv->cfg.conn.log, GR_LOG_WARN, "net", "cannot set up a connection: %s",
                strerror(errno));
        free(node);
        close(fd);
        return NULL;
    }
    node->srv = srv;
    node->conn = c;
    node->listener = index;
    if (index >= 0) {
        srv->listener_conns[index]++;
        srv->listener_accepted[index]++;
    }
    node->next = srv->conns;
    if (srv->conns)
        srv->conns->prev = node;
    srv->conns = node;
    srv->conn_count++;
    srv->accepted++;
    if (srv->cfg.max_connections && srv->conn_count >= srv->cfg.max_connections && !srv->limited) {
        srv->limited = true;
        set_listeners_paused(srv, true);
        gr_logf(srv->cfg.conn.log, GR_LOG_INFO, "net",
                "%zu connections (max.connections): not accepting until one closes",
                srv->conn_count);
    }
    return c;
}

gr_conn_t *gr_server_adopt(gr_server_t *srv, int fd)
{
    return adopt_from(srv, fd, -1);
}

static void on_accept(gr_listener_t *l, int fd, void *opaque)
{
    gr_server_t *srv = opaque;
    size_t i = (size_t)(l - srv->listeners);
    gr_conn_t *c = adopt_from(srv, fd, (int)i);
    if (c)
        gr_logf(srv->cfg.conn.log, GR_LOG_DEBUG, "net", "accepted connection from %s",
                gr_conn_peer(c));
}

static void stop_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_server_t *srv = w->data;
    gr_logf(srv->cfg.conn.log, GR_LOG_WARN, "net",
            "%zu connections still busy at the stop deadline, closing them", srv->conn_count);
    /* Keep on_stopped for the end: each close unlinks its node. */
    gr_server_stopped_fn done = srv->on_stopped;
    srv->on_stopped = NULL;
    while (srv->conns)
        gr_conn_close(srv->conns->conn, "broker stopping (deadline)");
    srv->on_stopped = done;
    finish_stop(srv);
}

int gr_server_init(gr_server_t *srv, struct ev_loop *loop, const gr_server_config_t *cfg)
{
    memset(srv, 0, sizeof(*srv));
    srv->loop = loop;
    srv->cfg = *cfg;
    ev_timer_init(&srv->stop_timer, stop_deadline, 0., 0.);
    srv->stop_timer.data = srv;
    return 0;
}

int gr_server_listen(gr_server_t *srv, const char *host, uint16_t port, uint16_t *out_port)
{
    return gr_server_listen_as(srv, host, port, NULL, out_port);
}

void gr_server_limit_login(gr_server_t *srv, const void *tag, int32_t max_bytes)
{
    for (size_t i = 0; i < srv->listener_count; i++)
        if (srv->listener_tags[i] == tag)
            srv->listener_login_max[i] = max_bytes;
}

int gr_server_listen_as(gr_server_t *srv, const char *host, uint16_t port, const void *tag,
                        uint16_t *out_port)
{
    return gr_server_listen_tls(srv, host, port, tag, NULL, out_port);
}

int gr_server_listen_tls(gr_server_t *srv, const char *host, uint16_t port, const void *tag,
                         gr_tls_ctx_t *tls, uint16_t *out_port)
{
    if (srv->stopping)
        return -ESHUTDOWN;
    if (srv->listener_count == GR_SERVER_MAX_LISTENERS)
        return -ENOSPC;
    gr_listener_t *l = &srv->listeners[srv->listener_count];
    int rc = gr_listener_open(l, srv->loop, host, port, srv->cfg.backlog, on_accept, srv,
                              srv->cfg.conn.log);
    if (rc < 0)
        return rc;
    srv->listener_tags[srv->listener_count] = tag;
    srv->listener_tls[srv->listener_count] = tls;
    srv->listener_login_max[srv->listener_count] = 0;
    srv->listener_count++;
    if (srv->limited || srv->held)
        gr_listener_pause(l);
    if (out_port)
        *out_port = gr_listener_port(l);
    return 0;
}

void gr_server_hold(gr_server_t *srv, bool hold)
{
    srv->held = hold;
    if (!srv->stopping)
        set_listeners_paused(srv, hold || srv->limited);
}

void gr_server_stop(gr_server_t *srv, double deadline_sec, gr_server_stopped_fn on_stopped,
                    void *arg)
{
    if (srv->stopping)
        return;
    srv->stopping = true;
    srv->on_stopped = on_stopped;
    srv->stopped_arg = arg;
    for (size_t i = 0; i < srv->listener_count; i++)
        gr_listener_close(&srv->listeners[i]);
    gr_logf(srv->cfg.conn.log, GR_LOG_INFO, "net", "stopping: draining %zu connections",
            srv->conn_count);
    if (srv->conn_count == 0) {
        finish_stop(srv);
        return;
    }
    ev_timer_set(&srv->stop_timer, deadline_sec > 0 ? deadline_sec : 0., 0.);
    ev_timer_start(srv->loop, &srv->stop_timer);
    /* Draining may close a connection at once (nothing queued), unlinking its node. */
    gr_server_conn_t *node = srv->conns;
    while (node) {
        gr_server_conn_t *next = node->next;
        gr_conn_drain(node->conn, "broker stopping");
        node = next;
    }
}

void gr_server_fini(gr_server_t *srv)
{
    srv->on_stopped = NULL;
    ev_timer_stop(srv->loop, &srv->stop_timer);
    for (size_t i = 0; i < srv->listener_count; i++)
        gr_listener_close(&srv->listeners[i]);
    srv->listener_count = 0;
    srv->stopping = true;
    while (srv->conns)
        gr_conn_close(srv->conns->conn, "broker shutting down");
}
