/* SPDX-License-Identifier: Apache-2.0 */
/* Connection-quota keys into the server's limits: see conn_limits.h. Runs on: loop thread. */
#include "broker/conn_limits.h"

#include "core/ip_overrides.h"

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_MAX_CONNECTIONS "max.connections"
#define KEY_CREATION_RATE   "max.connection.creation.rate"
#define KEY_OVERRIDES       "max.connections.per.ip.overrides"

/* A non-negative int from text; false when it is not one. */
static bool parse_count(const char *text, uint32_t *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0 || v > INT_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Resolves host (a name or an address literal) to its first address. */
static int resolve(const char *host, uint8_t out[GR_CONN_QUOTA_ADDR_LEN])
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
        return -EINVAL;
    int rc = gr_conn_quota_addr(res->ai_addr, out);
    freeaddrinfo(res);
    return rc;
}

/* One "host:count" item (core/ip_overrides.h), its host resolved. */
static int parse_override(gr_broker_t *b, const char *item, size_t len, gr_ip_override_t *out)
{
    char host[GR_IP_OVERRIDE_HOST_MAX];
    if (gr_ip_override_parse(item, len, host, &out->max)) {
        gr_logf(&b->log, GR_LOG_ERROR, "config", KEY_OVERRIDES ": '%.*s' is not host:count",
                (int)len, item);
        return -EINVAL;
    }
    if (resolve(host, out->addr) == 0)
        return 0;
    gr_logf(&b->log, GR_LOG_ERROR, "config", KEY_OVERRIDES ": cannot resolve %s", host);
    return -EINVAL;
}

typedef struct overrides_fill {
    gr_broker_t *b;
    gr_ip_override_t *list;
    size_t count;
} overrides_fill_t;

static int fill_override(const char *item, size_t len, void *arg)
{
    overrides_fill_t *f = arg;
    int rc = parse_override(f->b, item, len, &f->list[f->count]);
    if (rc == 0)
        f->count++;
    return rc;
}

/* Parses the comma-separated overrides into b->ip_overrides. Returns their count or -errno. */
static int parse_overrides(gr_broker_t *b, const char *text)
{
    size_t n = 0;
    for (const char *p = text; *p; p++)
        n += *p == ',';
    gr_ip_override_t *list = calloc(n + 1, sizeof(*list));
    if (!list)
        return -ENOMEM;
    b->ip_overrides = list;
    overrides_fill_t fill = {.b = b, .list = list};
    int rc = gr_ip_overrides_each(text, fill_override, &fill);
    return rc ? rc : (int)fill.count;
}

int gr_conn_limits_config(gr_broker_t *b, gr_server_config_t *scfg)
{
    const gr_config_t *cfg = &b->config;
    scfg->max_connections = cfg->max_connections > 0 ? (uint32_t)cfg->max_connections : 0;
    scfg->per_ip_limited = true;
    scfg->max_per_ip = (uint32_t)cfg->max_connections_per_ip;
    /* Kafka's INT_MAX default is no limit, as is 0 to the server. */
    int32_t rate = cfg->max_connection_creation_rate;
    scfg->max_creation_rate = rate == INT_MAX ? 0 : rate;
    scfg->max_throttle_sec = cfg->quota_window_size_seconds;
    /* Kafka's connections.max.idle.ms (10 minutes by default); not a live key. */
    scfg->max_idle_sec = cfg->connections_max_idle_ms > 0
                             ? (double)cfg->connections_max_idle_ms / GR_CONN_MS_PER_SEC
                             : 0;
    const char *text = cfg->max_connections_per_ip_overrides;
    int count = parse_overrides(b, text ? text : "");
    if (count < 0)
        return count;
    if (cfg->max_connections_per_ip == 0 && count == 0) {
        gr_logf(&b->log, GR_LOG_ERROR, "config",
                "max.connections.per.ip is 0: set max.connections.per.ip.overrides for the "
                "addresses that may connect");
        return -EINVAL;
    }
    char *copy = strdup(text ? text : "");
    if (!copy)
        return -ENOMEM;
    free(b->ip_overrides_text);
    b->ip_overrides_text = copy;
    scfg->ip_overrides = b->ip_overrides;
    scfg->ip_override_count = (size_t)count;
    return 0;
}

/* A per-listener count: listener.name.<l>.key, else the broker-wide key. */
static int listener_count(gr_broker_t *b, const char *listener, const char *key, uint32_t *out)
{
    const char *text = gr_config_listener_text(&b->config, listener, key, NULL);
    if (!text || parse_count(text, out))
        return 0;
    gr_logf(&b->log, GR_LOG_ERROR, "config", "listener.name.%s.%s: '%s' is not a count", listener,
            key, text);
    return -EINVAL;
}

int gr_conn_limits_listeners(gr_broker_t *b)
{
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    for (int i = 0; i < ls->count; i++) {
        uint32_t max = 0, rate = 0;
        int rc = listener_count(b, ls->items[i].name, KEY_MAX_CONNECTIONS, &max);
        if (!rc)
            rc = listener_count(b, ls->items[i].name, KEY_CREATION_RATE, &rate);
        if (rc)
            return rc;
        /* Kafka's INT_MAX defaults are no limit; 0 is no limit to the server. */
        gr_server_limit_listener(b->server, &ls->items[i], max == INT_MAX ? 0 : max,
                                 rate == INT_MAX ? 0 : rate);
        if (strcmp(ls->items[i].name, b->config.effective.inter_broker_listener) == 0)
            gr_server_protect(b->server, &ls->items[i]);
    }
    return 0;
}

/* Whether the limits in force differ from b->config's (host names resolved only on a change). */
static bool limits_changed(gr_broker_t *b)
{
    const gr_config_t *cfg = &b->config;
    const gr_server_config_t *now = &b->server->cfg;
    gr_server_config_t want = *now;
    want.max_connections = cfg->max_connections > 0 ? (uint32_t)cfg->max_connections : 0;
    want.max_per_ip = (uint32_t)cfg->max_connections_per_ip;
    want.max_creation_rate =
        cfg->max_connection_creation_rate == INT_MAX ? 0 : cfg->max_connection_creation_rate;
    const char *text =
        cfg->max_connections_per_ip_overrides ? cfg->max_connections_per_ip_overrides : "";
    return want.max_connections != now->max_connections || want.max_per_ip != now->max_per_ip ||
           want.max_creation_rate != now->max_creation_rate || !b->ip_overrides_text ||
           strcmp(text, b->ip_overrides_text) != 0;
}

void gr_conn_limits_apply(gr_broker_t *b)
{
    if (!b->started || b->stopping || !limits_changed(b))
        return; /* start_listeners reads b->config itself */
    gr_server_config_t limits = b->server->cfg;
    gr_ip_override_t *old = b->ip_overrides;
    b->ip_overrides = NULL;
    int rc = gr_conn_limits_config(b, &limits);
    if (rc) {
        free(b->ip_overrides);
        b->ip_overrides = old;
        gr_logf(&b->log, GR_LOG_WARN, "config",
                "connection limits not changed: %s; the previous ones stay", strerror(-rc));
        return;
    }
    gr_server_set_limits(b->server, &limits);
    free(old);
    if (gr_conn_limits_listeners(b))
        gr_logf(&b->log, GR_LOG_WARN, "config", "per-listener connection limits not changed");
}

void gr_conn_limits_free(gr_broker_t *b)
{
    free(b->ip_overrides);
    b->ip_overrides = NULL;
    free(b->ip_overrides_text);
    b->ip_overrides_text = NULL;
}
