/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The quota table: see quotas.h.
 *
 * Entities are an array searched linearly (operators configure a handful).
 * Rates ("sensors") are a chained hash table keyed by (type, user tag,
 * client tag), where a tag is the name the matched level shares the rate
 * by, or "" for a part the level ignores.
 *
 * Runs on: loop thread.
 */
#include "quota/quotas.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "quota/rate.h"

#define SENSOR_BUCKETS       256 /* power of two */
#define FNV_OFFSET           2166136261u
#define FNV_PRIME            16777619u
#define ENTITY_INITIAL_SLOTS 8

typedef struct entry {
    gr_quota_entity_t entity;
    gr_quota_values_t values;
} entry_t;

typedef struct sensor {
    struct sensor *next;
    gr_quota_type_t type;
    char *user_tag;
    char *client_tag;
    gr_quota_rate_t rate;
} sensor_t;

struct gr_quotas {
    int enabled[GR_QUOTA_TYPE_COUNT]; /* entities with a quota of each type */
    int samples;
    int64_t window_ms;
    entry_t *entries;
    int entry_count;
    int entry_cap;
    sensor_t *buckets[SENSOR_BUCKETS];
};

static const char *const type_keys[GR_QUOTA_TYPE_COUNT] = {
    [GR_QUOTA_PRODUCE] = GR_QUOTA_KEY_PRODUCE,
    [GR_QUOTA_FETCH] = GR_QUOTA_KEY_FETCH,
    [GR_QUOTA_REQUEST] = GR_QUOTA_KEY_REQUEST,
};

const char *gr_quota_type_key(gr_quota_type_t type)
{
    return type_keys[type];
}

int gr_quota_type_parse(const char *key, size_t len, gr_quota_type_t *out)
{
    for (int t = 0; t < GR_QUOTA_TYPE_COUNT; t++)
        if (strlen(type_keys[t]) == len && memcmp(type_keys[t], key, len) == 0) {
            *out = (gr_quota_type_t)t;
            return 0;
        }
    return -EINVAL;
}

gr_quotas_t *gr_quotas_new(int samples, int64_t window_ms)
{
    if (samples < 1 || window_ms < 1)
        return NULL;
    gr_quotas_t *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->samples = samples;
    q->window_ms = window_ms;
    return q;
}

void gr_quotas_free(gr_quotas_t *q)
{
    if (!q)
        return;
    for (int i = 0; i < SENSOR_BUCKETS; i++) {
        sensor_t *s = q->buckets[i];
        while (s) {
            sensor_t *next = s->next;
            gr_quota_rate_fini(&s->rate);
            free(s->user_tag);
            free(s->client_tag);
            free(s);
            s = next;
        }
    }
    free(q->entries);
    free(q);
}

/* --- entities -------------------------------------------------------------------------- */

static entry_t *find_entry(const gr_quotas_t *q, const gr_quota_entity_t *e)
{
    for (int i = 0; i < q->entry_count; i++)
        if (gr_quota_entity_eq(&q->entries[i].entity, e))
            return &q->entries[i];
    return NULL;
}

static void count_types(gr_quotas_t *q, const gr_quota_values_t *v, int delta)
{
    for (int t = 0; t < GR_QUOTA_TYPE_COUNT; t++)
        if (v->has[t])
            q->enabled[t] += delta;
}

static bool values_empty(const gr_quota_values_t *v)
{
    for (int t = 0; t < GR_QUOTA_TYPE_COUNT; t++)
        if (v->has[t])
            return false;
    return true;
}

int gr_quotas_set(gr_quotas_t *q, const gr_quota_entity_t *e, const gr_quota_values_t *v)
{
    entry_t *old = find_entry(q, e);
    if (old) {
        count_types(q, &old->values, -1);
        if (values_empty(v)) {
            *old = q->entries[--q->entry_count];
            return 0;
        }
        old->values = *v;
        count_types(q, v, 1);
        return 0;
    }
    if (values_empty(v))
        return 0;
    if (q->entry_count == q->entry_cap) {
        int cap = q->entry_cap ? q->entry_cap * 2 : ENTITY_INITIAL_SLOTS;
        entry_t *grown = realloc(q->entries, (size_t)cap * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        q->entries = grown;
        q->entry_cap = cap;
    }
    q->entries[q->entry_count++] = (entry_t){.entity = *e, .values = *v};
    count_types(q, v, 1);
    return 0;
}

const gr_quota_values_t *gr_quotas_find(const gr_quotas_t *q, const gr_quota_entity_t *e)
{
    const entry_t *found = find_entry(q, e);
    return found ? &found->values : NULL;
}

void gr_quotas_foreach(const gr_quotas_t *q,
                       void (*fn)(const gr_quota_entity_t *e, const gr_quota_values_t *v,
                                  void *arg),
                       void *arg)
{
    for (int i = 0; i < q->entry_count; i++)
        fn(&q->entries[i].entity, &q->entries[i].values, arg);
}

bool gr_quotas_enabled(const gr_quotas_t *q, gr_quota_type_t type)
{
    return q && q->enabled[type] > 0;
}

/* --- resolution ------------------------------------------------------------------------ */

typedef enum part_kind { PART_NONE, PART_DEFAULT, PART_NAME } part_kind_t;
typedef enum share { SHARE_PAIR, SHARE_USER, SHARE_CLIENT } share_t;

/* Kafka's precedence, most specific first, with who shares the rate at each level. */
static const struct level {
    part_kind_t user, client;
    share_t share;
} levels[] = {
    {PART_NAME, PART_NAME, SHARE_PAIR},       {PART_NAME, PART_DEFAULT, SHARE_PAIR},
    {PART_NAME, PART_NONE, SHARE_USER},       {PART_DEFAULT, PART_NAME, SHARE_PAIR},
    {PART_DEFAULT, PART_DEFAULT, SHARE_PAIR}, {PART_DEFAULT, PART_NONE, SHARE_USER},
    {PART_NONE, PART_NAME, SHARE_CLIENT},     {PART_NONE, PART_DEFAULT, SHARE_CLIENT},
};
#define LEVEL_COUNT (sizeof levels / sizeof levels[0])

static bool part_matches(const gr_quota_part_t *p, part_kind_t kind, const char *name)
{
    switch (kind) {
    case PART_NONE:
        return !p->present;
    case PART_DEFAULT:
        return p->present && p->is_default;
    case PART_NAME:
        return p->present && !p->is_default && strcmp(p->name, name) == 0;
    }
    return false;
}

/* The first level with a quota of type for (user, client); -1 when none. */
static int resolve_level(const gr_quotas_t *q, gr_quota_type_t type, const char *user,
                         const char *client, double *bound)
{
    for (size_t l = 0; l < LEVEL_COUNT; l++)
        for (int i = 0; i < q->entry_count; i++) {
            const entry_t *en = &q->entries[i];
            if (en->values.has[type] && part_matches(&en->entity.user, levels[l].user, user) &&
                part_matches(&en->entity.client, levels[l].client, client)) {
                *bound = en->values.value[type];
                return (int)l;
            }
        }
    return -1;
}

bool gr_quotas_resolve(const gr_quotas_t *q, gr_quota_type_t type, const char *user,
                       const char *client_id, double *bound)
{
    return gr_quotas_enabled(q, type) && resolve_level(q, type, user, client_id, bound) >= 0;
}

/* --- rates ----------------------------------------------------------------------------- */

static uint32_t hash_key(gr_quota_type_t type, const char *user_tag, const char *client_tag)
{
    uint32_t h = FNV_OFFSET ^ (uint32_t)type;
    for (const char *p = user_tag; *p; p++)
        h = (h ^ (uint8_t)*p) * FNV_PRIME;
    h = (h ^ '/') * FNV_PRIME; /* separates ("ab","") from ("a","b") */
    for (const char *p = client_tag; *p; p++)
        h = (h ^ (uint8_t)*p) * FNV_PRIME;
    return h & (SENSOR_BUCKETS - 1);
}

/* The rate shared under (type, user_tag, client_tag), or NULL. */
static sensor_t *sensor_find(const gr_quotas_t *q, gr_quota_type_t type, const char *user_tag,
                             const char *client_tag)
{
    uint32_t h = hash_key(type, user_tag, client_tag);
    for (sensor_t *s = q->buckets[h]; s; s = s->next)
        if (s->type == type && strcmp(s->user_tag, user_tag) == 0 &&
            strcmp(s->client_tag, client_tag) == 0)
            return s;
    return NULL;
}

/* The same, created on first use; NULL: no memory. */
static sensor_t *sensor_get(gr_quotas_t *q, gr_quota_type_t type, const char *user_tag,
                            const char *client_tag)
{
    sensor_t *s = sensor_find(q, type, user_tag, client_tag);
    if (s)
        return s;
    uint32_t h = hash_key(type, user_tag, client_tag);
    s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->type = type;
    s->user_tag = strdup(user_tag);
    s->client_tag = strdup(client_tag);
    if (!s->user_tag || !s->client_tag || gr_quota_rate_init(&s->rate, q->samples, q->window_ms)) {
        free(s->user_tag);
        free(s->client_tag);
        free(s);
        return NULL;
    }
    s->next = q->buckets[h];
    q->buckets[h] = s;
    return s;
}

/* The rate (user, client_id) counts against for type, and its bound; NULL when none. */
static sensor_t *sensor_for(gr_quotas_t *q, gr_quota_type_t type, const char *user,
                            const char *client_id, bool create, double *bound)
{
    if (!gr_quotas_enabled(q, type))
        return NULL;
    int level = resolve_level(q, type, user, client_id, bound);
    if (level < 0)
        return NULL;
    share_t share = levels[level].share;
    const char *user_tag = share == SHARE_CLIENT ? "" : user;
    const char *client_tag = share == SHARE_USER ? "" : client_id;
    return create ? sensor_get(q, type, user_tag, client_tag)
                  : sensor_find(q, type, user_tag, client_tag);
}

static int64_t throttle_of(gr_quotas_t *q, gr_quota_type_t type, sensor_t *s, double bound,
                           int64_t now_ms)
{
    int64_t span;
    double observed = gr_quota_rate_measure(&s->rate, now_ms, &span);
    int64_t cap = type == GR_QUOTA_REQUEST ? q->window_ms : 0;
    return gr_quota_throttle_ms(observed, bound, span, cap);
}

int64_t gr_quotas_record(gr_quotas_t *q, gr_quota_type_t type, const char *user,
                         const char *client_id, double value, int64_t now_ms)
{
    double bound;
    sensor_t *s = sensor_for(q, type, user, client_id, true, &bound);
    if (!s)
        return 0; /* no quota; or out of memory: let the client through rather than fail */
    gr_quota_rate_record(&s->rate, value, now_ms);
    return throttle_of(q, type, s, bound, now_ms);
}

int64_t gr_quotas_peek(gr_quotas_t *q, gr_quota_type_t type, const char *user,
                       const char *client_id, int64_t now_ms)
{
    double bound;
    sensor_t *s = sensor_for(q, type, user, client_id, false, &bound);
    return s ? throttle_of(q, type, s, bound, now_ms) : 0;
}
