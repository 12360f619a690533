/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group configs (Kafka's ConfigResource type GROUP): the per-group keys
 * Kafka 4.2 has for consumer (KIP-848) and share (KIP-932) groups, their
 * overrides, and the value a group gets for each.
 *
 * A group's value for a key is its override if it has one, else the broker
 * default: the broker key named in the definition (group.share.session.
 * timeout.ms for share.session.timeout.ms), else Kafka's default. Overrides
 * live in the metadata store at /config/groups/<group, sanitized as Kafka's
 * Sanitizer does> as {"version":1,"config":{...}}; every broker caches them
 * in b->group_configs (filled at start-up, re-read when a /config/changes
 * notification names "groups/<group>", and at once by the broker that wrote
 * the change). See group_config_store.h for the store side.
 *
 * Validation is Kafka's GroupConfig: the INT keys have a floor (1, the lock
 * duration 1000) and must sit within the broker's group.consumer.* and
 * group.share.* min/max; a session timeout must exceed its heartbeat
 * interval; share.auto.offset.reset is latest, earliest or
 * by_duration:<ISO-8601 duration, not negative>; share.isolation.level is
 * read_committed or read_uncommitted.
 *
 * One deliberate difference: share.isolation.level defaults to
 * read_committed here (Kafka: read_uncommitted), so a share group never
 * acquires records of open or aborted transactions unless asked.
 *
 * Runs on: loop thread (the key table itself is const).
 */
#ifndef GR_METADATA_GROUP_CONFIG_H
#define GR_METADATA_GROUP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/context.h"

/* The keys, in name order (DescribeConfigs lists them so). */
typedef enum gr_group_config_key {
    GR_GROUP_CONFIG_CONSUMER_HEARTBEAT_INTERVAL_MS = 0,
    GR_GROUP_CONFIG_CONSUMER_SESSION_TIMEOUT_MS,
    GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET,
    GR_GROUP_CONFIG_SHARE_HEARTBEAT_INTERVAL_MS,
    GR_GROUP_CONFIG_SHARE_ISOLATION_LEVEL,
    GR_GROUP_CONFIG_SHARE_RECORD_LOCK_DURATION_MS,
    GR_GROUP_CONFIG_SHARE_SESSION_TIMEOUT_MS,
    GR_GROUP_CONFIG_KEY_COUNT
} gr_group_config_key_t;

typedef struct gr_group_config_def {
    const char *name;
    gr_config_type_t type;     /* GR_CONFIG_INT or GR_CONFIG_STRING */
    const char *broker_key;    /* the broker key whose value is the default, or NULL */
    const char *default_value; /* when broker_key is NULL or unknown to this broker */
    int32_t floor;             /* INT: Kafka's atLeast */
    const char *min_key;       /* INT: broker keys bounding the value, or NULL */
    int32_t min_default;       /* their Kafka defaults, when this broker lacks them */
    const char *max_key;
    int32_t max_default;
    const char *doc;
} gr_group_config_def_t;

/* One group's overrides: values[key] is its text, NULL when not overridden. Owned. */
typedef struct gr_group_overrides {
    char *values[GR_GROUP_CONFIG_KEY_COUNT];
} gr_group_overrides_t;

/* share.auto.offset.reset, parsed. */
typedef enum gr_share_offset_reset {
    GR_SHARE_OFFSET_RESET_LATEST = 0,
    GR_SHARE_OFFSET_RESET_EARLIEST = 1,
    GR_SHARE_OFFSET_RESET_BY_DURATION = 2,
} gr_share_offset_reset_t;

/* Kafka's IsolationLevel ids (ListOffsets, Fetch). */
#define GR_GROUP_ISOLATION_READ_UNCOMMITTED 0
#define GR_GROUP_ISOLATION_READ_COMMITTED   1

/* Every key's value for one group, resolved (gr_group_config_get). */
typedef struct gr_group_config_values {
    int32_t consumer_heartbeat_interval_ms;
    int32_t consumer_session_timeout_ms;
    gr_share_offset_reset_t share_auto_offset_reset;
    int64_t share_auto_offset_reset_duration_ms; /* BY_DURATION: start at now minus this */
    int8_t share_isolation_level;                /* GR_GROUP_ISOLATION_* */
    int32_t share_heartbeat_interval_ms;
    int32_t share_record_lock_duration_ms;
    int32_t share_session_timeout_ms;
} gr_group_config_values_t;

/* The definition of key k (< GR_GROUP_CONFIG_KEY_COUNT). */
const gr_group_config_def_t *gr_group_config_def_at(gr_group_config_key_t k);

/* The key named name, or -1 when it is not a group config. */
int gr_group_config_find(const char *name);

/*
 * THE ACCESSOR: every key's value for group (len bytes, need not be
 * NUL-terminated): its override, else the broker default. Never fails (a
 * stored value that no longer parses falls back to the default).
 * b->group_configs may be NULL (no overrides known: defaults only).
 * Runs on: loop thread.
 */
void gr_group_config_get(const gr_broker_t *b, const char *group, size_t len,
                         gr_group_config_values_t *out /* out */);

/*
 * The text value of key k for group, and whether it is the group's
 * override (DescribeConfigs' GROUP_CONFIG) rather than the default. The
 * text points into the cache or into buf (buf_len >= 16); use it before
 * the next change.
 */
const char *gr_group_config_text(const gr_broker_t *b, const char *group, size_t len,
                                 gr_group_config_key_t k, char *buf, size_t buf_len,
                                 bool *overridden /* out */);

/*
 * Parses an ISO-8601 duration as Java's Duration.parse reads it
 * ("PT30M", "P1DT2H", "PT1.5S", case-insensitive) into milliseconds.
 * Returns 0, or -EINVAL (not a duration, negative, or out of range).
 */
int gr_group_config_parse_duration(const char *text, int64_t *out_ms /* out */);

/*
 * Validates a whole override set as Kafka's GroupConfig.validate does (the
 * values the overrides leave unset are the broker defaults). Returns 0 or
 * -EINVAL with a message naming the key in err.
 */
int gr_group_config_validate(const gr_broker_t *b, const gr_group_overrides_t *o, char *err,
                             size_t errlen);

/* Frees the values of o and clears it. */
void gr_group_overrides_clear(gr_group_overrides_t *o);

/* Copies src into dst (cleared first). 0 or -ENOMEM (dst then cleared). */
int gr_group_overrides_copy(gr_group_overrides_t *dst, const gr_group_overrides_t *src);

/* Whether o overrides nothing. */
bool gr_group_overrides_empty(const gr_group_overrides_t *o);

/* ---- the cache (b->group_configs) ---- */

typedef struct gr_group_configs gr_group_configs_t;

gr_group_configs_t *gr_group_configs_new(void);
void gr_group_configs_free(gr_group_configs_t *c);

/* The overrides of group, or NULL when it has none. Valid until the next set. */
const gr_group_overrides_t *gr_group_configs_find(const gr_group_configs_t *c, const char *group,
                                                  size_t len);

/* Replaces the overrides of group with a copy of o (empty: forgets it). 0 or -ENOMEM. */
int gr_group_configs_set(gr_group_configs_t *c, const char *group, size_t len,
                         const gr_group_overrides_t *o);

#endif
