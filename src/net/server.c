/* SPDX-License-Identifier: Apache-2.0 */
/* The network front: see server.h. Runs on: loop thread. */
#include "net/server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

/* The server's record of one connection; the connection's owner pointer. */
struct gr_server_conn {
    gr_server_conn_t *prev;
    gr_server_conn_t *next;
    gr_server_t *srv;
    gr_conn_t *conn;
    int listener;     /* index in srv->listeners, or -1 (adopted) */
    bool ip_counted;  /* ip is in srv->ip_counts */
    double active_at; /* ev_now of its last read (or accept) */
    uint8_t ip[GR_CONN_QUOTA_ADDR_LEN];
};

static bool is_protected(const gr_server_t *srv, size_t i)
{
    return srv->protected_listener == (int)i && srv->listener_count > 1;
}

/* Listener i may accept no more for now: a limit or a creation-rate delay. */
static bool is_blocked(const gr_server_t *srv, size_t i)
{
    if (srv->throttled[i])
        return true;
    if (srv->listener_max[i] && srv->listener_conns[i] >= srv->listener_max[i])
        return true;
    return !is_protected(srv, i) && srv->cfg.max_connections &&
           srv->conn_count >= srv->cfg.max_connections;
}

/* Pauses or resumes every listener for its limits and the owner's hold. */
static void update_accepting(gr_server_t *srv)
{
    if (srv->stopping)
        return;
    double now = ev_now(srv->loop);
    for (size_t i = 0; i < srv->listener_count; i++) {
        bool blocked = is_blocked(srv, i);
        if (blocked && srv->listener_blocked_since[i] == 0)
            srv->listener_blocked_since[i] = now;
        else if (!blocked && srv->listener_blocked_since[i] != 0) {
            srv->listener_blocked_sec[i] += now - srv->listener_blocked_since[i];
            srv->listener_blocked_since[i] = 0;
        }
        bool pause = blocked || srv->held;
        if (pause && !srv->listeners[i].paused)
            gr_listener_pause(&srv->listeners[i]);
        else if (!pause && srv->listeners[i].paused)
            gr_listener_resume(&srv->listeners[i]);
    }
    bool limited = srv->cfg.max_connections && srv->conn_count >= srv->cfg.max_connections;
    if (limited && !srv->limited)
        gr_logf(srv->cfg.conn.log, GR_LOG_INFO, "net",
                "%zu connections (max.connections): not accepting until one closes",
                srv->conn_count);
    srv->limited = limited;
}

static void throttle_done(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_server_t *srv = w->data;
    srv->throttled[w - srv->throttle_timer] = false;
    update_accepting(srv);
}

/* Takes a connection from listener i's rate buckets; pauses it for what they owe. */
static void take_creation_rate(gr_server_t *srv, size_t i)
{
    double now = ev_now(srv->loop);
    double delay = gr_rate_bucket_take(&srv->listener_rate[i], now);
    if (!is_protected(srv, i)) {
        double broker = gr_rate_bucket_take(&srv->broker_rate, now);
        if (broker > delay)
            delay = broker;
    }
    if (delay <= 0)
        return;
    double cap = srv->cfg.max_throttle_sec > 0 ? srv->cfg.max_throttle_sec : 1.;
    if (delay > cap)
        delay = cap;
    srv->listener_throttled[i]++;
    srv->listener_throttle_sec[i] += delay;
    srv->throttled[i] = true;
    ev_timer_set(&srv->throttle_timer[i], delay, 0.);
    ev_timer_start(srv->loop, &srv->throttle_timer[i]);
}

static uint32_t max_for_ip(const gr_server_t *srv, const uint8_t ip[GR_CONN_QUOTA_ADDR_LEN])
{
    for (size_t k = 0; k < srv->cfg.ip_override_count; k++)
        if (memcmp(srv->cfg.ip_overrides[k].addr, ip, GR_CONN_QUOTA_ADDR_LEN) == 0)
            return srv->cfg.ip_overrides[k].max;
    return srv->cfg.max_per_ip;
}

/*
 * Applies max_per_ip to fd, accepted on listener i: false (fd closed, counted
 * as refused) when its address is at its limit; else true with *ip filled
 * and *known set when the address could be read.
 */
static bool admit_ip(gr_server_t *srv, int fd, size_t i, uint8_t ip[GR_CONN_QUOTA_ADDR_LEN],
                     bool *known)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    *known = getpeername(fd, (struct sockaddr *)&ss, &len) == 0 &&
             gr_conn_quota_addr((struct sockaddr *)&ss, ip) == 0;
    if (!*known || !srv->cfg.per_ip_limited)
        return true;
    uint32_t max = max_for_ip(srv, ip);
    if (gr_ip_counts_get(&srv->ip_counts, ip) < max)
        return true;
    close(fd);
    srv->listener_refused[i]++;
    char host[INET6_ADDRSTRLEN] = "?";
    if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof host);
    else
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
    gr_logf(srv->cfg.conn.log, GR_LOG_INFO, "net",
            "rejected connection from %s, address already has the configured maximum of %u "
            "connections (max.connections.per.ip)",
            host, max);
    return false;
}

static void list_unlink(gr_server_t *srv, gr_server_conn_t *node)
{
    if (node->prev)
        node->prev->next = node->next;
    else
        srv->conns = node->next;
    if (node->next)
        node->next->prev = node->prev;
    else
        srv->conns_tail = node->prev;
    node->prev = node->next = NULL;
}

static void list_push_front(gr_server_t *srv, gr_server_conn_t *node)
{
    node->prev = NULL;
    node->next = srv->conns;
    if (srv->conns)
        srv->conns->prev = node;
    else
        srv->conns_tail = node;
    srv->conns = node;
}

/* Sets the idle timer for the back connection's expiry (server.h, "Idle connections"). */
static void arm_idle(gr_server_t *srv)
{
    if (srv->cfg.max_idle_sec <= 0 || srv->stopping || !srv->conns_tail ||
        ev_is_active(&srv->idle_timer))
        return;
    double in = srv->conns_tail->active_at + srv->cfg.max_idle_sec - ev_now(srv->loop);
    ev_timer_set(&srv->idle_timer, in > 0 ? in : 0., 0.);
    ev_timer_start(srv->loop, &srv->idle_timer);
}

static void idle_check(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)revents;
    gr_server_t *srv = w->data;
    double now = ev_now(loop);
    gr_server_conn_t *node;
    uint64_t closed = 0;
    while ((node = srv->conns_tail) && node->active_at + srv->cfg.max_idle_sec <= now) {
        if (gr_conn_queued(node->conn) > 0) {
            node->active_at = now; /* a request in progress: not idle */
            list_unlink(srv, node);
            list_push_front(srv, node);
            continue;
        }
        closed++;
        /* One line per connection at DEBUG, as Kafka; 10,000 leaked clients are one INFO line. */
        gr_conn_close_at(node->conn, GR_LOG_DEBUG,
                         "idle for connections.max.idle.ms"); /* unlinks the node */
    }
    if (closed)
        gr_logf(srv->cfg.conn.log, GR_LOG_INFO, "net",
                "closed %llu connection(s) idle for connections.max.idle.ms (%.0f s)",
                (unsigned long long)closed, srv->cfg.max_idle_sec);
    srv->idle_closed += closed;
    arm_idle(srv);
}

/* The connection read bytes: it moves to the front of the list. */
static void conn_read(gr_conn_t *c, void *owner)
{
    (void)c;
    gr_server_conn_t *node = owner;
    gr_server_t *srv = node->srv;
    node->active_at = ev_now(srv->loop);
    if (srv->conns != node) {
        list_unlink(srv, node);
        list_push_front(srv, node);
    }
}

/*
 * A connection on the protected listener took the broker past
 * max_connections: close the least recently active connection of another
 * listener (the list's back end), as Kafka's processors close their least
 * recently used one.
 */
static void make_room(gr_server_t *srv)
{
    for (gr_server_conn_t *n = srv->conns_tail; n; n = n->prev)
        if (n->listener >= 0 && !is_protected(srv, (size_t)n->listener)) {
            gr_conn_close(n->conn, "max.connections reached: room made for an inter-broker "
                                   "connection");
            return;
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
    list_unlink(srv, node);
    if (node->listener >= 0) {
        srv->listener_conns[node->listener]--;
        srv->listener_closed[node->listener]++;
    }
    if (node->ip_counted)
        gr_ip_counts_dec(&srv->ip_counts, node->ip);
    free(node);
    srv->conn_count--;
    srv->closed++;
    update_accepting(srv);
    if (srv->stopping && srv->conn_count == 0 && srv->on_stopped)
        finish_stop(srv);
}

/* Wraps fd as a connection of listener index (-1: adopted, no listener). */
static gr_conn_t *adopt_from(gr_server_t *srv, int fd, int index)
{
    const void *listener_tag = index >= 0 ? srv->listener_tags[index] : NULL;
    gr_tls_ctx_t *tls = index >= 0 ? srv->listener_tls[index] : NULL;
    int32_t login_max = index >= 0 ? srv->listener_login_max[index] : 0;
    uint8_t ip[GR_CONN_QUOTA_ADDR_LEN];
    bool ip_known = false;
    if (index >= 0) {
        /* Kafka counts every accept against the rate, refused ones too. */
        take_creation_rate(srv, (size_t)index);
        if (!admit_ip(srv, fd, (size_t)index, ip, &ip_known)) {
            update_accepting(srv);
            return NULL;
        }
    }
    gr_server_conn_t *node = calloc(1, sizeof(*node));
    if (!node || (ip_known && gr_ip_counts_inc(&srv->ip_counts, ip) < 0)) {
        free(node);
        close(fd);
        update_accepting(srv);
        return NULL;
    }
    if (ip_known) {
        node->ip_counted = true;
        memcpy(node->ip, ip, sizeof ip);
    }
    gr_conn_config_t cfg = srv->cfg.conn;
    cfg.on_close = conn_closed;
    cfg.on_read = conn_read;
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
        if (node->ip_counted)
            gr_ip_counts_dec(&srv->ip_counts, node->ip);
        free(node);
        close(fd);
        update_accepting(srv);
        return NULL;
    }
    node->srv = srv;
    node->conn = c;
    node->listener = index;
    if (index >= 0) {
        srv->listener_conns[index]++;
        srv->listener_accepted[index]++;
    }
    node->active_at = ev_now(srv->loop);
    list_push_front(srv, node);
    arm_idle(srv);
    srv->conn_count++;
    srv->accepted++;
    if (index >= 0 && is_protected(srv, (size_t)index) && srv->cfg.max_connections &&
        srv->conn_count > srv->cfg.max_connections)
        make_room(srv);
    update_accepting(srv);
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
    srv->protected_listener = -1;
    srv->started = ev_now(loop);
    gr_rate_bucket_init(&srv->broker_rate, cfg->max_creation_rate, srv->started);
    for (size_t i = 0; i < GR_SERVER_MAX_LISTENERS; i++) {
        ev_timer_init(&srv->throttle_timer[i], throttle_done, 0., 0.);
        srv->throttle_timer[i].data = srv;
    }
    ev_timer_init(&srv->stop_timer, stop_deadline, 0., 0.);
    srv->stop_timer.data = srv;
    ev_timer_init(&srv->idle_timer, idle_check, 0., 0.);
    srv->idle_timer.data = srv;
    return 0;
}

void gr_server_limit_listener(gr_server_t *srv, const void *tag, uint32_t max_connections,
                              double max_rate)
{
    for (size_t i = 0; i < srv->listener_count; i++) {
        if (srv->listener_tags[i] != tag)
            continue;
        srv->listener_max[i] = max_connections;
        gr_rate_bucket_init(&srv->listener_rate[i], max_rate, ev_now(srv->loop));
    }
    update_accepting(srv);
}

void gr_server_set_limits(gr_server_t *srv, const gr_server_config_t *limits)
{
    srv->cfg.max_connections = limits->max_connections;
    srv->cfg.per_ip_limited = limits->per_ip_limited;
    srv->cfg.max_per_ip = limits->max_per_ip;
    srv->cfg.ip_overrides = limits->ip_overrides;
    srv->cfg.ip_override_count = limits->ip_override_count;
    if (limits->max_creation_rate != srv->cfg.max_creation_rate) {
        srv->cfg.max_creation_rate = limits->max_creation_rate;
        gr_rate_bucket_init(&srv->broker_rate, limits->max_creation_rate, ev_now(srv->loop));
    }
    update_accepting(srv);
}

void gr_server_protect(gr_server_t *srv, const void *tag)
{
    srv->protected_listener = -1;
    for (size_t i = 0; i < srv->listener_count; i++)
        if (srv->listener_tags[i] == tag)
            srv->protected_listener = (int)i;
    update_accepting(srv);
}

double gr_server_blocked_sec(const gr_server_t *srv, size_t i)
{
    double since = srv->listener_blocked_since[i];
    return srv->listener_blocked_sec[i] + (since != 0 ? ev_now(srv->loop) - since : 0);
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
    srv->listener_max[srv->listener_count] = 0;
    gr_rate_bucket_init(&srv->listener_rate[srv->listener_count], 0, ev_now(srv->loop));
    srv->listener_count++;
    update_accepting(srv);
    if (out_port)
        *out_port = gr_listener_port(l);
    return 0;
}

int gr_server_set_tls(gr_server_t *srv, const void *tag, gr_tls_ctx_t *tls)
{
    for (size_t i = 0; i < srv->listener_count; i++) {
        if (srv->listener_tags[i] == tag && srv->listener_tls[i]) {
            srv->listener_tls[i] = tls;
            return 0;
        }
    }
    return -ENOENT;
}

gr_tls_ctx_t *gr_server_tls(const gr_server_t *srv, const void *tag)
{
    for (size_t i = 0; i < srv->listener_count; i++)
        if (srv->listener_tags[i] == tag)
            return srv->listener_tls[i];
    return NULL;
}

void gr_server_hold(gr_server_t *srv, bool hold)
{
    srv->held = hold;
    update_accepting(srv);
}

void gr_server_stop(gr_server_t *srv, double deadline_sec, gr_server_stopped_fn on_stopped,
                    void *arg)
{
    if (srv->stopping)
        return;
    srv->stopping = true;
    srv->on_stopped = on_stopped;
    srv->stopped_arg = arg;
    ev_timer_stop(srv->loop, &srv->idle_timer);
    for (size_t i = 0; i < srv->listener_count; i++) {
        ev_timer_stop(srv->loop, &srv->throttle_timer[i]);
        gr_listener_close(&srv->listeners[i]);
    }
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
    ev_timer_stop(srv->loop, &srv->idle_timer);
    for (size_t i = 0; i < srv->listener_count; i++) {
        ev_timer_stop(srv->loop, &srv->throttle_timer[i]);
        gr_listener_close(&srv->listeners[i]);
    }
    srv->listener_count = 0;
    srv->stopping = true;
    while (srv->conns)
        gr_conn_close(srv->conns->conn, "broker shutting down");
    gr_ip_counts_fini(&srv->ip_counts);
}
