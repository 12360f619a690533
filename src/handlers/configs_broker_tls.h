/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The listener SSL keys of AlterConfigs on a BROKER resource (KIP-226's
 * keystore and truststore rotation, metadata/listener_configs.h): checked
 * as Kafka checks them (per broker only, with the listener prefix only,
 * passwords only with password.encoder.secret), then the listener's new
 * TLS context is built and checked against the one it serves now, all
 * before anything is stored, validate_only too. configs_broker.c routes
 * these keys here.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_CONFIGS_BROKER_TLS_H
#define GR_HANDLERS_CONFIGS_BROKER_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/context.h"
#include "handlers/configs_broker.h"
#include "metadata/broker_config_store.h"

/* Whether key is a listener SSL key changed live, with its listener prefix or without. */
bool gr_broker_tls_key(const char *key);

/*
 * One change of such a key (key: its NUL-free text) into e->listeners.
 * NONE, or INVALID_CONFIG / INVALID_REQUEST with Kafka's message in msg.
 */
gr_kerr_t gr_broker_tls_edit(gr_broker_t *b, gr_str_t name, bool is_default, const char *key,
                             const gr_broker_config_change_t *c, gr_broker_dynamic_edit_t *e,
                             char *msg, size_t len);

/*
 * Builds the TLS context of every listener e names, as it would be once
 * stored, and checks it may replace the one served now. NONE, or
 * INVALID_CONFIG with why in msg.
 */
gr_kerr_t gr_broker_tls_validate(gr_broker_t *b, gr_str_t name, const gr_broker_dynamic_edit_t *e,
                                 char *msg, size_t len);

#endif
