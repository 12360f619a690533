/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A listener's ssl.* settings as a gr_tls_config_t: each key is looked up
 * first with Kafka's per-listener prefix, "listener.name.<listener>.", then
 * plain (gr_config_listener_text). Store types left at Kafka's JKS default
 * are passed as unset, so a PEM file works without ssl.keystore.type=PEM
 * while an explicit JKS is refused by gr_tls_ctx_new_*. Keystore and
 * truststore keys set live (KIP-226) come first when given
 * (gr_tls_listener_ctx_new).
 *
 * Runs on: the loop thread.
 */
#include "net/tls_config.h"

#include <stddef.h>
#include <strings.h>

static const char *value(const gr_config_t *cfg, const char *listener, const char *key)
{
    return gr_config_listener_text(cfg, listener, key, NULL);
}

/* A store type, or NULL when left at Kafka's default. */
static const char *store_type(const gr_config_t *cfg, const char *listener, const char *key)
{
    bool explicit_value = false;
    const char *v = gr_config_listener_text(cfg, listener, key, &explicit_value);
    return explicit_value ? v : NULL;
}

void gr_tls_config_for_listener(const gr_config_t *cfg, const char *listener, gr_tls_config_t *out)
{
    *out = (gr_tls_config_t){
        .keystore_type = store_type(cfg, listener, "ssl.keystore.type"),
        .keystore_location = value(cfg, listener, "ssl.keystore.location"),
        .keystore_certificate_chain = value(cfg, listener, "ssl.keystore.certificate.chain"),
        .keystore_key = value(cfg, listener, "ssl.keystore.key"),
        .key_password = value(cfg, listener, "ssl.key.password"),
        .truststore_type = store_type(cfg, listener, "ssl.truststore.type"),
        .truststore_location = value(cfg, listener, "ssl.truststore.location"),
        .truststore_certificates = value(cfg, listener, "ssl.truststore.certificates"),
        .client_auth = value(cfg, listener, "ssl.client.auth"),
        .enabled_protocols = value(cfg, listener, "ssl.enabled.protocols"),
        .protocol = value(cfg, listener, "ssl.protocol"),
        .cipher_suites = value(cfg, listener, "ssl.cipher.suites"),
        .endpoint_identification = value(cfg, listener, "ssl.endpoint.identification.algorithm"),
        .ktls = cfg->gregor_ssl_ktls_enable,
    };
    const char *ktls = value(cfg, listener, "gregor.ssl.ktls.enable");
    if (ktls)
        out->ktls = strcasecmp(ktls, "false") != 0;
}

/* Keystore and truststore keys set live over out; a store type set live counts as explicit. */
static void apply_overrides(gr_tls_config_t *out, const char *listener,
                            gr_tls_override_fn *override, const void *arg)
{
    static const struct {
        const char *key;
        size_t offset;
    } keys[] = {
        {"ssl.keystore.type", offsetof(gr_tls_config_t, keystore_type)},
        {"ssl.keystore.location", offsetof(gr_tls_config_t, keystore_location)},
        {"ssl.keystore.certificate.chain", offsetof(gr_tls_config_t, keystore_certificate_chain)},
        {"ssl.keystore.key", offsetof(gr_tls_config_t, keystore_key)},
        {"ssl.key.password", offsetof(gr_tls_config_t, key_password)},
        {"ssl.truststore.type", offsetof(gr_tls_config_t, truststore_type)},
        {"ssl.truststore.location", offsetof(gr_tls_config_t, truststore_location)},
        {"ssl.truststore.certificates", offsetof(gr_tls_config_t, truststore_certificates)},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = override(arg, listener, keys[i].key);
        if (v)
            *(const char **)((char *)out + keys[i].offset) = v;
    }
    /* A location set live replaces inline PEM set in the file, and the other way round. */
    if (override(arg, listener, "ssl.keystore.location") &&
        !override(arg, listener, "ssl.keystore.certificate.chain"))
        out->keystore_certificate_chain = out->keystore_key = NULL;
    if (override(arg, listener, "ssl.truststore.location") &&
        !override(arg, listener, "ssl.truststore.certificates"))
        out->truststore_certificates = NULL;
}

/* ssl.allow.*.changes of listener, else the broker's. */
static bool allowed(const gr_config_t *cfg, const char *listener, const char *key)
{
    const char *v = gr_config_listener_text(cfg, listener, key, NULL);
    return v && strcasecmp(v, "true") == 0;
}

gr_tls_ctx_t *gr_tls_listener_ctx_new(const gr_config_t *cfg, const char *listener,
                                      gr_tls_override_fn *override, const void *arg,
                                      const gr_tls_ctx_t *cur, char *err, size_t errlen)
{
    gr_tls_config_t tc;
    gr_tls_config_for_listener(cfg, listener, &tc);
    if (override)
        apply_overrides(&tc, listener, override, arg);
    gr_tls_ctx_t *ctx = gr_tls_ctx_new_server(&tc, err, errlen);
    if (ctx && cur &&
        gr_tls_ctx_check_replace(cur, ctx, allowed(cfg, listener, "ssl.allow.dn.changes"),
                                 allowed(cfg, listener, "ssl.allow.san.changes"), err, errlen)) {
        gr_tls_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}
