/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A listener's SSL keys changed live (Kafka's KIP-226 per-listener keys,
 * SslConfigs.RECONFIGURABLE_CONFIGS): "listener.name.<listener>.<key>" with
 * key one of the keystore and truststore settings below. Kafka takes them
 * per broker only, never at the cluster default, and only with the
 * listener prefix. Three are passwords (ssl.keystore.password,
 * ssl.key.password, ssl.truststore.password): stored encrypted
 * (password_codec.h), held here in clear.
 *
 * A gr_listener_configs_t is a small list of such keys (listener part in
 * lower case, as Kafka writes it) with their values; in an edit, a NULL
 * value means "deleted".
 *
 * Runs on: loop thread.
 */
#ifndef GR_METADATA_LISTENER_CONFIGS_H
#define GR_METADATA_LISTENER_CONFIGS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/config.h"

typedef struct gr_listener_configs {
    char **keys;   /* "listener.name.<l>.<key>" */
    char **values; /* NULL: deleted (edits only) */
    size_t count;
} gr_listener_configs_t;

/*
 * Whether key is "listener.name.<l>.<ssl key changed live>": then the
 * listener part (lower case) goes into listener and *base points at the
 * SSL key inside key.
 */
bool gr_listener_ssl_key(const char *key, char *listener, size_t size, const char **base);

/* Whether base (an SSL key changed live) is a password. */
bool gr_listener_ssl_key_is_password(const char *base);

/* Whether key is one of the SSL keys changed live, without the listener prefix. */
bool gr_listener_ssl_key_base(const char *key);

/*
 * Sets key (listener part lower-cased) to value (copied; NULL: deleted in
 * an edit) in set. 0 or -ENOMEM.
 */
int gr_listener_configs_set(gr_listener_configs_t *set, const char *key, const char *value);

/* The value of listener's base key in set, or NULL (also when deleted). */
const char *gr_listener_configs_get(const gr_listener_configs_t *set, const char *listener,
                                    const char *base);

/* The edit's entries over set: values set, deleted ones removed. 0 or -ENOMEM. */
int gr_listener_configs_overlay(gr_listener_configs_t *set, const gr_listener_configs_t *edit);

/* Whether both hold the same keys with the same values. */
bool gr_listener_configs_equal(const gr_listener_configs_t *a, const gr_listener_configs_t *b);

/* Whether set has any key of listener. */
bool gr_listener_configs_touch(const gr_listener_configs_t *set, const char *listener);

void gr_listener_configs_clear(gr_listener_configs_t *set);

/*
 * The listener SSL keys of a /config/brokers document into set, passwords
 * decrypted with cfg's password.encoder.secret (else .old.secret); one
 * that cannot be is left out with a line in err_key (the last such key).
 * 0, -EINVAL (not such a document) or -ENOMEM.
 */
int gr_listener_configs_parse(const gr_config_t *cfg, const char *text, size_t len,
                              gr_listener_configs_t *set, char *err_key, size_t err_size);

/*
 * The listener SSL keys of a stored document as stored (passwords still
 * encrypted) into set. 0, -EINVAL or -ENOMEM.
 */
int gr_listener_configs_parse_raw(const char *text, size_t len, gr_listener_configs_t *set);

#endif
