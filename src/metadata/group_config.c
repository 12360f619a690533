/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group configs: the key table, parsing and validation, the accessor and
 * the cache of overrides; see group_config.h.
 *
 * The cache is a plain array searched linearly: only groups somebody
 * configured by hand have an entry, a handful on any real cluster.
 *
 * Broker defaults are read by key name (gr_config_find), not by field, so
 * a broker table without a group.share.* key still resolves: Kafka's
 * default stands in for it.
 *
 * Runs on: loop thread.
 */
#include "metadata/group_config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define OFFSET_RESET_LATEST    "latest"
#define OFFSET_RESET_EARLIEST  "earliest"
#define OFFSET_RESET_BY_PREFIX "by_duration:"
#define READ_COMMITTED         "read_committed"
#define READ_UNCOMMITTED       "read_uncommitted"
#define LOCK_DURATION_FLOOR    1000

#define MS_PER_SEC  1000LL
#define MS_PER_MIN  (60 * MS_PER_SEC)
#define MS_PER_HOUR (60 * MS_PER_MIN)
#define MS_PER_DAY  (24 * MS_PER_HOUR)

static const gr_group_config_def_t defs[GR_GROUP_CONFIG_KEY_COUNT] = {
    [GR_GROUP_CONFIG_CONSUMER_HEARTBEAT_INTERVAL_MS] =
        {"consumer.heartbeat.interval.ms", GR_CONFIG_INT, "group.consumer.heartbeat.interval.ms",
         "5000", 1, "group.consumer.min.heartbeat.interval.ms", 5000,
         "group.consumer.max.heartbeat.interval.ms", 15000,
         "The heartbeat interval given to the members of a consumer group."},
    [GR_GROUP_CONFIG_CONSUMER_SESSION_TIMEOUT_MS] =
        {"consumer.session.timeout.ms", GR_CONFIG_INT, "group.consumer.session.timeout.ms", "45000",
         1, "group.consumer.min.session.timeout.ms", 45000, "group.consumer.max.session.timeout.ms",
         60000, "The timeout to detect client failures when using the consumer group protocol."},
    [GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET] =
        {"share.auto.offset.reset", GR_CONFIG_STRING, NULL, OFFSET_RESET_LATEST, 0, NULL, 0, NULL,
         0,
         "Where a share-partition with no state starts: latest, earliest, or "
         "by_duration:<ISO-8601 duration> (the first record at or after now minus it)."},
    [GR_GROUP_CONFIG_SHARE_HEARTBEAT_INTERVAL_MS] =
        {"share.heartbeat.interval.ms", GR_CONFIG_INT, "group.share.heartbeat.interval.ms", "5000",
         1, "group.share.min.heartbeat.interval.ms", 5000, "group.share.max.heartbeat.interval.ms",
         15000, "The heartbeat interval given to the members of a share group."},
    [GR_GROUP_CONFIG_SHARE_ISOLATION_LEVEL] =
        {"share.isolation.level", GR_CONFIG_STRING, NULL, READ_COMMITTED, 0, NULL, 0, NULL, 0,
         "read_committed: the share group delivers only committed transactional records (up to "
         "the last stable offset); read_uncommitted: every record up to the high watermark."},
    [GR_GROUP_CONFIG_SHARE_RECORD_LOCK_DURATION_MS] =
        {"share.record.lock.duration.ms", GR_CONFIG_INT, "group.share.record.lock.duration.ms",
         "30000", LOCK_DURATION_FLOOR, "group.share.min.record.lock.duration.ms", 15000,
         "group.share.max.record.lock.duration.ms", 60000,
         "How long a share consumer holds the records it acquired before they can go to another."},
    [GR_GROUP_CONFIG_SHARE_SESSION_TIMEOUT_MS] =
        {"share.session.timeout.ms", GR_CONFIG_INT, "group.share.session.timeout.ms", "45000", 1,
         "group.share.min.session.timeout.ms", 45000, "group.share.max.session.timeout.ms", 60000,
         "The timeout to detect client failures when using the share group protocol."},
};

const gr_group_config_def_t *gr_group_config_def_at(gr_group_config_key_t k)
{
    return &defs[k];
}

int gr_group_config_find(const char *name)
{
    for (int k = 0; k < GR_GROUP_CONFIG_KEY_COUNT; k++)
        if (strcmp(defs[k].name, name) == 0)
            return k;
    return -1;
}

/* Kafka's INT parse: surrounding whitespace ignored, int32 range. 0 or -EINVAL. */
static int parse_int(const char *text, int32_t *out)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!*text)
        return -EINVAL;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || *end || v < INT32_MIN || v > INT32_MAX)
        return -EINVAL;
    *out = (int32_t)v;
    return 0;
}

/* The broker's value of an INT key by name, or fallback when it has no such key. */
static int32_t broker_int(const gr_broker_t *b, const char *key, int32_t fallback)
{
    int i = key ? gr_config_find(key) : -1;
    if (i < 0)
        return fallback;
    gr_config_entry_t e;
    gr_config_entry(&b->config, (size_t)i, &e);
    int32_t v = fallback;
    return e.value && parse_int(e.value, &v) == 0 ? v : fallback;
}

/* The default text of key k into buf (the broker's value of its broker key, else Kafka's). */
static const char *default_text(const gr_broker_t *b, gr_group_config_key_t k, char *buf,
                                size_t buf_len)
{
    const gr_group_config_def_t *d = &defs[k];
    if (d->type != GR_CONFIG_INT)
        return d->default_value;
    int32_t fallback = 0;
    (void)parse_int(d->default_value, &fallback);
    snprintf(buf, buf_len, "%d", broker_int(b, d->broker_key, fallback));
    return buf;
}

/* Reads digits into *v (no sign). Returns the end, or NULL when there were none or overflow. */
static const char *read_digits(const char *p, long long *v)
{
    if (!isdigit((unsigned char)*p))
        return NULL;
    *v = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (*v > (LLONG_MAX - 9) / 10)
            return NULL;
        *v = *v * 10 + (*p - '0');
    }
    return p;
}

/* Adds n units of unit_ms to *total, refusing overflow. */
static int add_units(int64_t *total, long long n, long long unit_ms)
{
    if (n > (INT64_MAX - *total) / unit_ms)
        return -EINVAL;
    *total += n * unit_ms;
    return 0;
}

/* The time part after 'T': [nH][nM][n[.f]S], at least one. 0 or -EINVAL. */
static int parse_time_part(const char *p, int64_t *total)
{
    bool any = false;
    long long n = 0;
    static const struct {
        char unit;
        long long ms;
    } units[] = {{'H', MS_PER_HOUR}, {'M', MS_PER_MIN}};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        const char *end = read_digits(p, &n);
        if (end && toupper((unsigned char)*end) == units[u].unit) {
            if (add_units(total, n, units[u].ms))
                return -EINVAL;
            p = end + 1;
            any = true;
        }
    }
    if (*p) {
        const char *end = read_digits(p, &n);
        if (!end || add_units(total, n, MS_PER_SEC))
            return -EINVAL;
        if (*end == '.' || *end == ',') {
            long long fraction_ms = 0, scale = 100; /* ms of the first fraction digit */
            for (end++; isdigit((unsigned char)*end); end++, scale /= 10)
                fraction_ms += (*end - '0') * scale;
            if (add_units(total, fraction_ms, 1))
                return -EINVAL; /* whole seconds at the limit, and a fraction on top */
        }
        if (toupper((unsigned char)*end) != 'S' || end[1])
            return -EINVAL;
        any = true;
    }
    return any ? 0 : -EINVAL;
}

int gr_group_config_parse_duration(const char *text, int64_t *out_ms)
{
    const char *p = text;
    if (toupper((unsigned char)*p) != 'P')
        return -EINVAL; /* a sign (negative durations are refused) or not a duration */
    p++;
    int64_t total = 0;
    bool any = false;
    long long n = 0;
    const char *end = read_digits(p, &n);
    if (end && toupper((unsigned char)*end) == 'D') {
        if (add_units(&total, n, MS_PER_DAY))
            return -EINVAL;
        p = end + 1;
        any = true;
    }
    if (toupper((unsigned char)*p) == 'T') {
        if (parse_time_part(p + 1, &total))
            return -EINVAL;
        any = true;
    } else if (*p) {
        return -EINVAL;
    }
    if (!any)
        return -EINVAL;
    *out_ms = total;
    return 0;
}

/* share.auto.offset.reset's value. 0 or -EINVAL. */
static int parse_offset_reset(const char *text, gr_share_offset_reset_t *reset, int64_t *ms)
{
    *ms = 0;
    if (strcasecmp(text, OFFSET_RESET_LATEST) == 0) {
        *reset = GR_SHARE_OFFSET_RESET_LATEST;
        return 0;
    }
    if (strcasecmp(text, OFFSET_RESET_EARLIEST) == 0) {
        *reset = GR_SHARE_OFFSET_RESET_EARLIEST;
        return 0;
    }
    size_t prefix = strlen(OFFSET_RESET_BY_PREFIX);
    if (strncasecmp(text, OFFSET_RESET_BY_PREFIX, prefix) != 0 ||
        gr_group_config_parse_duration(text + prefix, ms))
        return -EINVAL;
    *reset = GR_SHARE_OFFSET_RESET_BY_DURATION;
    return 0;
}

/* share.isolation.level's value (Kafka's ValidString: exact). 0 or -EINVAL. */
static int parse_isolation(const char *text, int8_t *out)
{
    if (strcmp(text, READ_COMMITTED) == 0)
        *out = GR_GROUP_ISOLATION_READ_COMMITTED;
    else if (strcmp(text, READ_UNCOMMITTED) == 0)
        *out = GR_GROUP_ISOLATION_READ_UNCOMMITTED;
    else
        return -EINVAL;
    return 0;
}

/* The text of key k: the override in o (may be NULL), else the default. */
static const char *value_text(const gr_broker_t *b, const gr_group_overrides_t *o,
                              gr_group_config_key_t k, char *buf, size_t buf_len, bool *overridden)
{
    *overridden = o && o->values[k];
    return *overridden ? o->values[k] : default_text(b, k, buf, buf_len);
}

const char *gr_group_config_text(const gr_broker_t *b, const char *group, size_t len,
                                 gr_group_config_key_t k, char *buf, size_t buf_len,
                                 bool *overridden)
{
    const gr_group_overrides_t *o =
        b->group_configs ? gr_group_configs_find(b->group_configs, group, len) : NULL;
    return value_text(b, o, k, buf, buf_len, overridden);
}

/* Resolves every key from o (may be NULL); an unparsable override takes the default. */
static void resolve(const gr_broker_t *b, const gr_group_overrides_t *o,
                    gr_group_config_values_t *out)
{
    int32_t *ints[GR_GROUP_CONFIG_KEY_COUNT] = {
        [GR_GROUP_CONFIG_CONSUMER_HEARTBEAT_INTERVAL_MS] = &out->consumer_heartbeat_interval_ms,
        [GR_GROUP_CONFIG_CONSUMER_SESSION_TIMEOUT_MS] = &out->consumer_session_timeout_ms,
        [GR_GROUP_CONFIG_SHARE_HEARTBEAT_INTERVAL_MS] = &out->share_heartbeat_interval_ms,
        [GR_GROUP_CONFIG_SHARE_RECORD_LOCK_DURATION_MS] = &out->share_record_lock_duration_ms,
        [GR_GROUP_CONFIG_SHARE_SESSION_TIMEOUT_MS] = &out->share_session_timeout_ms,
    };
    char buf[16];
    bool overridden = false;
    for (int k = 0; k < GR_GROUP_CONFIG_KEY_COUNT; k++) {
        if (!ints[k])
            continue;
        if (parse_int(value_text(b, o, k, buf, sizeof buf, &overridden), ints[k]))
            (void)parse_int(default_text(b, k, buf, sizeof buf), ints[k]);
    }
    const char *reset =
        value_text(b, o, GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET, buf, sizeof buf, &overridden);
    if (parse_offset_reset(reset, &out->share_auto_offset_reset,
                           &out->share_auto_offset_reset_duration_ms))
        out->share_auto_offset_reset = GR_SHARE_OFFSET_RESET_LATEST;
    const char *iso =
        value_text(b, o, GR_GROUP_CONFIG_SHARE_ISOLATION_LEVEL, buf, sizeof buf, &overridden);
    if (parse_isolation(iso, &out->share_isolation_level))
        out->share_isolation_level = GR_GROUP_ISOLATION_READ_COMMITTED;
}

void gr_group_config_get(const gr_broker_t *b, const char *group, size_t len,
                         gr_group_config_values_t *out)
{
    const gr_group_overrides_t *o =
        b->group_configs ? gr_group_configs_find(b->group_configs, group, len) : NULL;
    resolve(b, o, out);
}

/* One value alone: its type, floor and the broker's bounds. 0 or -EINVAL with err. */
static int validate_value(const gr_broker_t *b, gr_group_config_key_t k, const char *text,
                          char *err, size_t errlen)
{
    const gr_group_config_def_t *d = &defs[k];
    gr_share_offset_reset_t reset;
    int64_t ms = 0;
    int8_t iso = 0;
    int32_t v = 0;
    if (k == GR_GROUP_CONFIG_SHARE_AUTO_OFFSET_RESET) {
        if (parse_offset_reset(text, &reset, &ms) == 0)
            return 0;
        snprintf(err, errlen,
                 "Invalid value %s for configuration %s: must be latest, earliest or "
                 "by_duration:<ISO-8601 duration, not negative>",
                 text, d->name);
        return -EINVAL;
    }
    if (k == GR_GROUP_CONFIG_SHARE_ISOLATION_LEVEL) {
        if (parse_isolation(text, &iso) == 0)
            return 0;
        snprintf(err, errlen,
                 "Invalid value %s for configuration %s: String must be one of: %s, %s", text,
                 d->name, READ_COMMITTED, READ_UNCOMMITTED);
        return -EINVAL;
    }
    if (parse_int(text, &v)) {
        snprintf(err, errlen, "Invalid value %s for configuration %s: Not a number of type INT",
                 text, d->name);
        return -EINVAL;
    }
    if (v < d->floor) {
        snprintf(err, errlen, "Invalid value %d for configuration %s: Value must be at least %d", v,
                 d->name, d->floor);
        return -EINVAL;
    }
    if (v < broker_int(b, d->min_key, d->min_default)) {
        snprintf(err, errlen, "%s must be greater than or equal to %s", d->name, d->min_key);
        return -EINVAL;
    }
    if (v > broker_int(b, d->max_key, d->max_default)) {
        snprintf(err, errlen, "%s must be less than or equal to %s", d->name, d->max_key);
        return -EINVAL;
    }
    return 0;
}

int gr_group_config_validate(const gr_broker_t *b, const gr_group_overrides_t *o, char *err,
                             size_t errlen)
{
    for (int k = 0; k < GR_GROUP_CONFIG_KEY_COUNT; k++)
        if (o->values[k] && validate_value(b, k, o->values[k], err, errlen))
            return -EINVAL;
    gr_group_config_values_t v;
    resolve(b, o, &v);
    if (v.consumer_session_timeout_ms <= v.consumer_heartbeat_interval_ms) {
        snprintf(err, errlen, "%s must be greater than %s",
                 defs[GR_GROUP_CONFIG_CONSUMER_SESSION_TIMEOUT_MS].name,
                 defs[GR_GROUP_CONFIG_CONSUMER_HEARTBEAT_INTERVAL_MS].name);
        return -EINVAL;
    }
    if (v.share_session_timeout_ms <= v.share_heartbeat_interval_ms) {
        snprintf(err, errlen, "%s must be greater than %s",
                 defs[GR_GROUP_CONFIG_SHARE_SESSION_TIMEOUT_MS].name,
                 defs[GR_GROUP_CONFIG_SHARE_HEARTBEAT_INTERVAL_MS].name);
        return -EINVAL;
    }
    return 0;
}

void gr_group_overrides_clear(gr_group_overrides_t *o)
{
    for (int k = 0; k < GR_GROUP_CONFIG_KEY_COUNT; k++) {
        free(o->values[k]);
        o->values[k] = NULL;
    }
}

int gr_group_overrides_copy(gr_group_overrides_t *dst, const gr_group_overrides_t *src)
{
    gr_group_overrides_clear(dst);
    for (int k = 0; k < GR_GROUP_CONFIG_KEY_COUNT; k++) {
        if (!src->values[k])
            continue;
        dst->values[k] = strdup(src->values[k]);
        if (!dst->values[k]) {
            gr_group_overrides_clear(dst);
            return -ENOMEM;
        }
    }
    return 0;
}

bool gr_group_overrides_empty(const gr_group_overrides_t *o)
{
    for (int k = 0; k < GR_GROUP_CONFIG_KEY_COUNT; k++)
        if (o->values[k])
            return false;
    return true;
}

/* ---- the cache ---- */

typedef struct group_entry {
    char *group;
    size_t len;
    gr_group_overrides_t overrides;
} group_entry_t;

struct gr_group_configs {
    group_entry_t *items;
    size_t count;
    size_t cap;
};

gr_group_configs_t *gr_group_configs_new(void)
{
    return calloc(1, sizeof(gr_group_configs_t));
}

void gr_group_configs_free(gr_group_configs_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->count; i++) {
        free(c->items[i].group);
        gr_group_overrides_clear(&c->items[i].overrides);
    }
    free(c->items);
    free(c);
}

static group_entry_t *entry_find(const gr_group_configs_t *c, const char *group, size_t len)
{
    for (size_t i = 0; i < c->count; i++)
        if (c->items[i].len == len && memcmp(c->items[i].group, group, len) == 0)
            return &c->items[i];
    return NULL;
}

const gr_group_overrides_t *gr_group_configs_find(const gr_group_configs_t *c, const char *group,
                                                  size_t len)
{
    const group_entry_t *e = entry_find(c, group, len);
    return e ? &e->overrides : NULL;
}

/* A new entry for group at the end (no overrides yet), or NULL when out of memory. */
static group_entry_t *entry_add(gr_group_configs_t *c, const char *group, size_t len)
{
    if (c->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        group_entry_t *items = realloc(c->items, cap * sizeof *items);
        if (!items)
            return NULL;
        c->items = items;
        c->cap = cap;
    }
    char *name = malloc(len + 1);
    if (!name)
        return NULL;
    memcpy(name, group, len);
    name[len] = '\0';
    group_entry_t *e = &c->items[c->count++];
    *e = (group_entry_t){name, len, {{NULL}}};
    return e;
}

int gr_group_configs_set(gr_group_configs_t *c, const char *group, size_t len,
                         const gr_group_overrides_t *o)
{
    group_entry_t *e = entry_find(c, group, len);
    if (gr_group_overrides_empty(o)) {
        if (e) {
            free(e->group);
            gr_group_overrides_clear(&e->overrides);
            *e = c->items[--c->count];
        }
        return 0;
    }
    gr_group_overrides_t copy = {{NULL}};
    if (gr_group_overrides_copy(&copy, o))
        return -ENOMEM;
    if (!e)
        e = entry_add(c, group, len);
    if (!e) {
        gr_group_overrides_clear(&copy);
        return -ENOMEM;
    }
    gr_group_overrides_clear(&e->overrides);
    e->overrides = copy;
    return 0;
}
