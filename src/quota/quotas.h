/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Client quotas: the configured entities and the rates measured against
 * them (Kafka's ClientQuotaManager with its default quota callback).
 *
 * Three quota types: producer_byte_rate (bytes of produced records per
 * second), consumer_byte_rate (bytes of fetched records per second) and
 * request_percentage (handler time on the loop thread, in % of one thread).
 *
 * Resolution. A request by user U with client id C is held to the first
 * entity, in this order, that has a quota of the type: (U, C), (U, <default>
 * client), U, (<default> user, C), (<default> user, <default> client),
 * <default> user, C, <default> client. Which level matched decides who
 * shares one rate (Kafka's metric tags): at a user-only level every client
 * of the user shares it, at a client-only level every user of the client id
 * does, otherwise each (user, client id) pair has its own.
 *
 * Cost. With no entity having a quota of a type, gr_quotas_record for that
 * type is one flag check (gr_quotas_enabled) and measures nothing.
 *
 * Rates live as long as the broker (Kafka expires idle ones after an hour;
 * not done here: each one is a few hundred bytes per distinct client).
 *
 * Runs on: loop thread.
 */
#ifndef GR_QUOTA_QUOTAS_H
#define GR_QUOTA_QUOTAS_H

#include <stdbool.h>
#include <stdint.h>

#include "quota/entity.h"

typedef enum gr_quota_type {
    GR_QUOTA_PRODUCE = 0,
    GR_QUOTA_FETCH,
    GR_QUOTA_REQUEST,
    GR_QUOTA_TYPE_COUNT
} gr_quota_type_t;

#define GR_QUOTA_KEY_PRODUCE "producer_byte_rate"
#define GR_QUOTA_KEY_FETCH   "consumer_byte_rate"
#define GR_QUOTA_KEY_REQUEST "request_percentage"

/* The quota values of one entity. */
typedef struct gr_quota_values {
    bool has[GR_QUOTA_TYPE_COUNT];
    double value[GR_QUOTA_TYPE_COUNT];
} gr_quota_values_t;

typedef struct gr_quotas gr_quotas_t;

/* The config key of a type ("producer_byte_rate", ...). */
const char *gr_quota_type_key(gr_quota_type_t type);
/* The type of a config key. Returns 0 or -EINVAL for an unknown key. */
int gr_quota_type_parse(const char *key, size_t len, gr_quota_type_t *out /* out */);

/*
 * A quota table measuring rates over samples windows of window_ms
 * (quota.window.num, quota.window.size.seconds). NULL when out of memory.
 */
gr_quotas_t *gr_quotas_new(int samples, int64_t window_ms);
void gr_quotas_free(gr_quotas_t *q);

/*
 * Replaces e's quota values (an entity with none is removed).
 * Returns 0 or -ENOMEM.
 */
int gr_quotas_set(gr_quotas_t *q, const gr_quota_entity_t *e, const gr_quota_values_t *v);
/* e's values, or NULL when it has none. */
const gr_quota_values_t *gr_quotas_find(const gr_quotas_t *q, const gr_quota_entity_t *e);
/* Calls fn for every entity with quotas, in no particular order; fn must not change q. */
void gr_quotas_foreach(const gr_quotas_t *q,
                       void (*fn)(const gr_quota_entity_t *e, const gr_quota_values_t *v,
                                  void *arg),
                       void *arg);

/* Whether any entity has a quota of type (q may be NULL): when not, recording is skipped. */
bool gr_quotas_enabled(const gr_quotas_t *q, gr_quota_type_t type);

/*
 * The quota that applies to (user, client_id) for type, by the precedence
 * above. Returns false when none applies; else *bound gets it.
 */
bool gr_quotas_resolve(const gr_quotas_t *q, gr_quota_type_t type, const char *user,
                       const char *client_id, double *bound /* out */);

/*
 * Records value for (user, client_id) at now_ms and returns how long the
 * client must now be throttled, in ms (0: within its quota, or no quota).
 * Request quotas are capped at one window, as in Kafka.
 */
int64_t gr_quotas_record(gr_quotas_t *q, gr_quota_type_t type, const char *user,
                         const char *client_id, double value, int64_t now_ms);

/*
 * The throttle time (ms) (user, client_id) is due for type at now_ms without
 * recording anything; 0 when no quota applies or nothing was recorded yet.
 */
int64_t gr_quotas_peek(gr_quotas_t *q, gr_quota_type_t type, const char *user,
                       const char *client_id, int64_t now_ms);

#endif
