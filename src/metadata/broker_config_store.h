/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dynamic broker configs (Kafka's KIP-226) in the metadata store:
 * /config/brokers/<default> (every broker) and /config/brokers/<id> (one)
 * hold {"version":1,"config":{..}}, Kafka's documents. A write is followed
 * by a /config/changes notification naming "brokers/<default>" or
 * "brokers/<id>", on which every broker reads that node again
 * (controller/config_changes.c calls gr_broker_config_store_reload).
 *
 * Only the keys Gregor applies live (GR_BROKER_DYNAMIC_KEYS below) are
 * kept; each is applied to b->config (its own value, else the cluster
 * default, else the static value from the file), and every topic's
 * settings are computed again, so topics without an override follow.
 *
 * Runs on: loop thread.
 */
#ifndef GR_METADATA_BROKER_CONFIG_STORE_H
#define GR_METADATA_BROKER_CONFIG_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/context.h"
#include "metadata/listener_configs.h"
#include "metadata/topic_config.h"
#include "protocol/kerr.h"

/* The entity type of broker configs in /config and in change notifications. */
#define GR_BROKER_CONFIG_ENTITY_TYPE "brokers"
/* The name of the cluster-wide default entity (Kafka's ConfigEntityName.DEFAULT). */
#define GR_BROKER_CONFIG_DEFAULT "<default>"
/* At most how many keys Gregor applies live (gr_broker_dynamic_name: NULL past the last). */
#define GR_BROKER_DYNAMIC_KEYS 48

/* One level's values (NULL: not set at that level), indexed like the key table. */
typedef struct gr_broker_dynamic_set {
    char *values[GR_BROKER_DYNAMIC_KEYS];
} gr_broker_dynamic_set_t;

/* The index of a key Gregor applies live, or -1. */
int gr_broker_dynamic_find(const char *key);
/* The name of key i, or NULL past the last key. */
const char *gr_broker_dynamic_name(int i);
/* How many keys Gregor applies live (at most GR_BROKER_DYNAMIC_KEYS: a unit test checks). */
int gr_broker_dynamic_count(void);

/*
 * Why Gregor refuses to change key live although Kafka does (the key has
 * no effect in Gregor), or NULL.
 */
const char *gr_broker_dynamic_refusal(const char *key);

/*
 * What Kafka says of a key it refuses to change live: true when Kafka 3.8
 * changes key live (but Gregor cannot yet), false when Kafka refuses it too.
 */
bool gr_broker_dynamic_kafka_allows(const char *key);

/* The values of the default entity (is_default) or of this broker (owned by b). */
const gr_broker_dynamic_set_t *gr_broker_dynamic_level(gr_broker_t *b, bool is_default);

/*
 * A request's changes to one level: for each touched key its new value in
 * set (NULL: deleted); untouched keys keep what the level holds.
 */
typedef struct gr_broker_dynamic_edit {
    gr_broker_dynamic_set_t set;
    bool touched[GR_BROKER_DYNAMIC_KEYS];
    /* Listener SSL keys (this broker only): value, or NULL deleted. */
    gr_listener_configs_t listeners;
    bool replace_listeners; /* legacy AlterConfigs: keys not in listeners are deleted */
} gr_broker_dynamic_edit_t;

/*
 * This broker's listener SSL keys set live (passwords in clear), for
 * building its listeners' TLS contexts. Never NULL.
 */
const gr_listener_configs_t *gr_broker_dynamic_listeners(gr_broker_t *b);

/* gr_tls_override_fn over a gr_listener_configs_t (arg). */
const char *gr_broker_dynamic_listener_value(const void *arg, const char *listener,
                                             const char *key);

/*
 * Writes edit over the level's stored document (the store's current text,
 * so another broker's change to other keys meanwhile is kept) with a
 * notification, and applies it here at once: b->on_listener_tls for each
 * listener whose SSL keys the edit names (their files read again even when
 * the values are the same: a keystore rewritten in place). Passwords are
 * stored encrypted (password_codec.h; the caller checked they can be). Returns 0, or -ENOMEM, -EIO
 * (no store session) or the store update's -errno, having changed nothing.
 */
int gr_broker_config_store_alter(gr_broker_t *b, bool is_default,
                                 const gr_broker_dynamic_edit_t *edit);

/* Reads both levels of this broker (async; failures logged). At start. */
void gr_broker_config_store_load(gr_broker_t *b);

/*
 * Whether this broker's document was read once (or could not be): its
 * listener keystores are known. The broker waits for it before its TLS
 * listeners open, as Kafka reads its dynamic configs before serving.
 */
bool gr_broker_config_store_loaded(gr_broker_t *b);

/* Reads /config/brokers/<name> again, if it is <default> or this broker. */
void gr_broker_config_store_reload(gr_broker_t *b, const char *name);

/*
 * The synonyms of broker key name (Kafka's order: this broker's dynamic
 * value, the cluster default, the static one) into syn (at most max);
 * returns how many. Keys Gregor does not change live have none here.
 */
int gr_broker_dynamic_synonyms(const gr_broker_t *b, const char *name, gr_config_synonym_t *syn,
                               int max);

/* Frees the dynamic state of b. */
void gr_broker_dynamic_free(gr_broker_t *b);

#endif
