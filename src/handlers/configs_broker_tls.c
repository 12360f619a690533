/* SPDX-License-Identifier: Apache-2.0 */
/* The listener SSL keys of a broker AlterConfigs; see configs_broker_tls.h. */
#include "handlers/configs_broker_tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/incremental_alter_configs.h"
#include "metadata/listener_configs.h"
#include "metadata/password_codec.h"
#include "net/server.h"
#include "net/tls_config.h"
#include "security/session.h"

#define TEXT_MAX 512

/* Kafka's "Invalid config value for resource ConfigResource(type=BROKER, name='N'): why". */
static gr_kerr_t refuse(gr_str_t name, char *msg, size_t len, const char *why)
{
    snprintf(msg, len,
             "Invalid config value for resource ConfigResource(type=BROKER, name='%.*s'): %s",
             name.len > 0 ? name.len : 0, name.ptr ? name.ptr : "", why);
    return GR_KERR_INVALID_CONFIG;
}

bool gr_broker_tls_key(const char *key)
{
    char listener[GR_LISTENER_NAME_MAX];
    const char *base;
    return gr_listener_ssl_key(key, listener, sizeof listener, &base) ||
           gr_listener_ssl_key_base(key);
}

/* This broker's listener named name (any case), or NULL. */
static const gr_listener_spec_t *find_listener(gr_broker_t *b, const char *name)
{
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    for (int i = 0; i < ls->count; i++)
        if (strcasecmp(ls->items[i].name, name) == 0)
            return &ls->items[i];
    return NULL;
}

gr_kerr_t gr_broker_tls_edit(gr_broker_t *b, gr_str_t name, bool is_default, const char *key,
                             const gr_broker_config_change_t *c, gr_broker_dynamic_edit_t *e,
                             char *msg, size_t len)
{
    char why[TEXT_MAX], listener[GR_LISTENER_NAME_MAX];
    const char *base;
    if (!gr_listener_ssl_key(key, listener, sizeof listener, &base)) {
        snprintf(why, sizeof why,
                 "These security configs can be dynamically updated only per-listener using the "
                 "listener prefix: Set(%s)",
                 key);
        return refuse(name, msg, len, why);
    }
    if (is_default) {
        snprintf(why, sizeof why,
                 "Cannot update these configs at default cluster level, broker id must be "
                 "specified: Set(%s)",
                 key);
        return refuse(name, msg, len, why);
    }
    const gr_listener_spec_t *l = find_listener(b, listener);
    if (!l || !gr_security_protocol_is_tls(l->protocol)) {
        snprintf(why, sizeof why, "%s: %s is not an SSL or SASL_SSL listener of this broker", key,
                 listener);
        return refuse(name, msg, len, why);
    }
    if (c->op == GR_ALTER_CONFIG_OP_DELETE)
        return gr_listener_configs_set(&e->listeners, key, NULL) ? GR_KERR_UNKNOWN_SERVER_ERROR
                                                                 : GR_KERR_NONE;
    if (c->op == GR_ALTER_CONFIG_OP_APPEND || c->op == GR_ALTER_CONFIG_OP_SUBTRACT) {
        /* As the other broker keys (configs_broker.c): none of these is a list. */
        snprintf(msg, len, "Config value %s is not allowed for config key: %s",
                 c->op == GR_ALTER_CONFIG_OP_APPEND ? "append" : "subtract", key);
        return GR_KERR_INVALID_CONFIG;
    }
    if (c->op != GR_ALTER_CONFIG_OP_SET) {
        snprintf(msg, len, "Unknown alter config operation type %d for config %s", c->op, key);
        return GR_KERR_INVALID_REQUEST;
    }
    if (!c->value.ptr || c->value.len < 0) {
        snprintf(why, sizeof why, "Null value not supported for: Set(%s)", key);
        return refuse(name, msg, len, why);
    }
    /* Stores are PEM, which has no store password: Kafka refuses one with PEM too. */
    const char *no_password =
        strcmp(base, "ssl.keystore.password") == 0
            ? "SSL key store password cannot be specified with PEM format, only key password may "
              "be specified"
        : strcmp(base, "ssl.truststore.password") == 0
            ? "SSL trust store password cannot be specified for PEM format"
            : NULL;
    if (no_password) {
        snprintf(why, sizeof why,
                 "Validation of dynamic config update of SSLFactory failed: %s (%s; Gregor reads "
                 "PEM stores only)",
                 no_password, key);
        return refuse(name, msg, len, why);
    }
    char *value = strndup(c->value.ptr, (size_t)c->value.len);
    if (!value)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_kerr_t err = GR_KERR_NONE;
    char *sealed = NULL;
    /* Kafka encrypts a password before storing it; without a secret it refuses. */
    if (gr_listener_ssl_key_is_password(base) &&
        gr_password_encode(&b->config, value, &sealed, why, sizeof why))
        err = refuse(name, msg, len, why);
    else if (gr_listener_configs_set(&e->listeners, key, value))
        err = GR_KERR_UNKNOWN_SERVER_ERROR;
    free(sealed);
    memset(value, 0, strlen(value));
    free(value);
    return err;
}

/* The listener's new context built and checked against the served one. */
static gr_kerr_t validate_listener(gr_broker_t *b, gr_str_t name, const gr_listener_spec_t *l,
                                   const gr_listener_configs_t *next, char *msg, size_t len)
{
    char err[TEXT_MAX], why[TEXT_MAX + 64];
    gr_tls_ctx_t *cur = gr_server_tls(b->server, l);
    gr_tls_ctx_t *ctx = gr_tls_listener_ctx_new(
        &b->config, l->name, gr_broker_dynamic_listener_value, next, cur, err, sizeof err);
    if (ctx) {
        gr_tls_ctx_free(ctx);
        return GR_KERR_NONE;
    }
    snprintf(why, sizeof why, "Validation of dynamic config update of SSLFactory failed: %s", err);
    return refuse(name, msg, len, why);
}

gr_kerr_t gr_broker_tls_validate(gr_broker_t *b, gr_str_t name, const gr_broker_dynamic_edit_t *e,
                                 char *msg, size_t len)
{
    gr_listener_configs_t next = {0};
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    int rc = e->replace_listeners
                 ? 0
                 : gr_listener_configs_overlay(&next, gr_broker_dynamic_listeners(b));
    if (!rc)
        rc = gr_listener_configs_overlay(&next, &e->listeners);
    gr_kerr_t err = rc ? GR_KERR_UNKNOWN_SERVER_ERROR : GR_KERR_NONE;
    for (int i = 0; !err && i < ls->count; i++) {
        const gr_listener_spec_t *l = &ls->items[i];
        bool named = gr_listener_configs_touch(&e->listeners, l->name) ||
                     (e->replace_listeners &&
                      gr_listener_configs_touch(gr_broker_dynamic_listeners(b), l->name));
        if (named && gr_security_protocol_is_tls(l->protocol))
            err = validate_listener(b, name, l, &next, msg, len);
    }
    gr_listener_configs_clear(&next);
    return err;
}
