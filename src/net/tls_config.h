/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a listener's TLS settings from the broker configuration (see tls_config.c). */
#ifndef GR_NET_TLS_CONFIG_H
#define GR_NET_TLS_CONFIG_H

#include "core/config.h"
#include "net/tls.h"

/*
 * Fills *out from cfg's ssl.* keys for listener (its name as in listeners,
 * any case; NULL: the plain keys only). The strings point into cfg, which
 * must outlive *out.
 */
void gr_tls_config_for_listener(const gr_config_t *cfg, const char *listener,
                                gr_tls_config_t *out /* out */);

/*
 * Values set live for a listener's SSL keys: the value of
 * "listener.name.<listener>.<key>" (key: "ssl.keystore.location"...) or NULL
 * when not set live. The strings must outlive the context built with them.
 */
typedef const char *gr_tls_override_fn(const void *arg, const char *listener, const char *key);

/*
 * Builds listener's server context from cfg with the values override gives
 * (a keystore or truststore set live wins over the file's), and, when cur
 * is not NULL, checks it may replace cur (gr_tls_ctx_check_replace, with
 * the listener's ssl.allow.dn.changes and ssl.allow.san.changes). Returns
 * the context (the caller's reference) or NULL with err filled.
 */
gr_tls_ctx_t *gr_tls_listener_ctx_new(const gr_config_t *cfg, const char *listener,
                                      gr_tls_override_fn *override, const void *arg,
                                      const gr_tls_ctx_t *cur, char *err, size_t errlen);

#endif
