/* SPDX-License-Identifier: Apache-2.0 */
/* The broker's TLS contexts: see listener_tls.h. Runs on: loop thread. */
#include "broker/listener_tls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metadata/broker_config_store.h"
#include "net/server.h"
#include "net/tls_config.h"
#include "security/principal_rules.h"
#include "security/session.h"

#define TLS_ERR_MAX 512

struct gr_broker_tls {
    gr_tls_ctx_t *server[GR_SERVER_MAX_LISTENERS];
    gr_principal_rules_t *rules[GR_SERVER_MAX_LISTENERS];
    gr_tls_ctx_t *inter_broker; /* client side, or NULL */
};

/*
 * The listener's context with its keys set live; when those cannot be
 * used, the file's (Kafka too ignores per-broker configs it cannot apply
 * at start-up), with the reason logged.
 */
static gr_tls_ctx_t *new_server_ctx(gr_broker_t *b, const gr_listener_spec_t *l, char *err,
                                    size_t errlen)
{
    const gr_listener_configs_t *live = gr_broker_dynamic_listeners(b);
    if (gr_listener_configs_touch(live, l->name)) {
        gr_tls_ctx_t *ctx = gr_tls_listener_ctx_new(
            &b->config, l->name, gr_broker_dynamic_listener_value, live, NULL, err, errlen);
        char desc[TLS_ERR_MAX];
        if (ctx) {
            gr_logf(&b->log, GR_LOG_INFO, "net", "listener %s: SSL keys set live: %s", l->name,
                    gr_tls_ctx_describe(ctx, desc, sizeof desc));
            return ctx;
        }
        gr_logf(&b->log, GR_LOG_ERROR, "net",
                "listener %s: the SSL keys set live cannot be used (%s): the file's instead",
                l->name, err);
    }
    return gr_tls_listener_ctx_new(&b->config, l->name, NULL, NULL, NULL, err, errlen);
}

/* The server context and principal rules of one TLS listener. */
static int open_listener(gr_broker_t *b, int i, const gr_listener_spec_t *l)
{
    char err[TLS_ERR_MAX];
    gr_tls_config_t tc;
    gr_tls_config_for_listener(&b->config, l->name, &tc);
    b->tls->server[i] = new_server_ctx(b, l, err, sizeof err);
    if (!b->tls->server[i]) {
        gr_logf(&b->log, GR_LOG_ERROR, "net", "listener %s (%s): %s", l->name,
                l->protocol == GR_SECURITY_SSL ? "SSL" : "SASL_SSL", err);
        return -EINVAL;
    }
    if (tc.ktls && !gr_tls_ctx_ktls(b->tls->server[i]))
        gr_logf(&b->log, GR_LOG_INFO, "net",
                "listener %s: the kernel has no tls module: user-space TLS (as with "
                "gregor.ssl.ktls.enable=false)",
                l->name);
    const char *rules =
        gr_config_listener_text(&b->config, l->name, "ssl.principal.mapping.rules", NULL);
    int rc = gr_principal_rules_parse(rules, &b->tls->rules[i], err, sizeof err);
    if (rc < 0) {
        gr_logf(&b->log, GR_LOG_ERROR, "net", "listener %s: %s", l->name, err);
        return rc;
    }
    gr_tls_ctx_set_app(b->tls->server[i], b->tls->rules[i]);
    return 0;
}

/* The client context, when the inter-broker listener runs TLS. */
static int open_inter_broker(gr_broker_t *b)
{
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    const char *name = b->config.effective.inter_broker_listener;
    for (int i = 0; i < ls->count; i++) {
        if (strcmp(ls->items[i].name, name) != 0 ||
            !gr_security_protocol_is_tls(ls->items[i].protocol))
            continue;
        char err[TLS_ERR_MAX];
        gr_tls_config_t tc;
        gr_tls_config_for_listener(&b->config, name, &tc);
        b->tls->inter_broker = gr_tls_ctx_new_client(&tc, err, sizeof err);
        if (!b->tls->inter_broker) {
            gr_logf(&b->log, GR_LOG_ERROR, "net", "inter-broker listener %s (client side): %s",
                    name, err);
            return -EINVAL;
        }
        b->inter_broker_tls = b->tls->inter_broker;
    }
    return 0;
}

int gr_broker_tls_open(gr_broker_t *b)
{
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    if (!b->tls && !(b->tls = calloc(1, sizeof(*b->tls))))
        return -ENOMEM;
    for (int i = 0; i < ls->count && i < GR_SERVER_MAX_LISTENERS; i++) {
        if (!gr_security_protocol_is_tls(ls->items[i].protocol))
            continue;
        int rc = open_listener(b, i, &ls->items[i]);
        if (rc < 0)
            return rc;
    }
    b->on_listener_tls = gr_broker_tls_rotate;
    return open_inter_broker(b);
}

/* Listener i's context built again and served to new connections, if it passes. */
static void rotate_listener(gr_broker_t *b, int i, const gr_listener_spec_t *l)
{
    char err[TLS_ERR_MAX], desc[TLS_ERR_MAX];
    gr_tls_ctx_t *cur = b->tls->server[i];
    gr_tls_ctx_t *ctx =
        gr_tls_listener_ctx_new(&b->config, l->name, gr_broker_dynamic_listener_value,
                                gr_broker_dynamic_listeners(b), cur, err, sizeof err);
    if (!ctx || gr_server_set_tls(b->server, l, ctx) < 0) {
        gr_logf(&b->log, GR_LOG_ERROR, "net", "listener %s: new SSL keystore not used: %s", l->name,
                ctx ? "not listening yet" : err);
        gr_tls_ctx_free(ctx);
        return;
    }
    gr_tls_ctx_set_app(ctx, b->tls->rules[i]);
    b->tls->server[i] = ctx;
    gr_tls_ctx_free(cur); /* lives on while a connection made with it does */
    gr_logf(&b->log, GR_LOG_INFO, "net", "listener %s: new connections get %s", l->name,
            gr_tls_ctx_describe(ctx, desc, sizeof desc));
}

void gr_broker_tls_rotate(gr_broker_t *b, const char *listener)
{
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    for (int i = 0; b->tls && i < ls->count && i < GR_SERVER_MAX_LISTENERS; i++) {
        if (b->tls->server[i] && (!listener || strcasecmp(ls->items[i].name, listener) == 0))
            rotate_listener(b, i, &ls->items[i]);
    }
}

gr_tls_ctx_t *gr_broker_tls_listener(const gr_broker_t *b, int i)
{
    return b->tls && i >= 0 && i < GR_SERVER_MAX_LISTENERS ? b->tls->server[i] : NULL;
}

void gr_broker_tls_close(gr_broker_t *b)
{
    if (!b->tls)
        return;
    for (int i = 0; i < GR_SERVER_MAX_LISTENERS; i++) {
        gr_tls_ctx_free(b->tls->server[i]);
        gr_principal_rules_free(b->tls->rules[i]);
    }
    gr_tls_ctx_free(b->tls->inter_broker);
    b->inter_broker_tls = NULL;
    free(b->tls);
    b->tls = NULL;
}
