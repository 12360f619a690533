/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A listener's ssl.* settings as a gr_tls_config_t: each key is looked up
 * first with Kafka's per-listener prefix, "listener.name.<listener>.", then
 * plain (gr_config_listener_text). Store types left at Kafka's JKS default
 * are passed as unset, so a PEM file works without ssl.keystore.type=PEM
 * while an explicit JKS is refused by gr_tls_ctx_new_*.
 *
 * Runs on: the loop thread, at start-up.
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
