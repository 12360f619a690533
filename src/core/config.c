/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Configuration values: converting and validating a key's text by its table
 * entry (config_keys.c), the per-listener "listener.name.<l>.<key>" settings,
 * loading server.properties (read by core/properties.c) and --override
 * arguments, and the cross-key rules of gr_config_resolve (listener lists
 * parsed by core/listeners.c). Values are trimmed before they are converted,
 * as Kafka trims them.
 *
 * Within one load the last occurrence of a key wins, and only that one is
 * validated (a bad value that a later line or an override replaces is not an
 * error, as with Kafka, which validates the merged properties).
 *
 * Invariant: cfg->text[i] and cfg->source[i] describe the value held in key
 * i's field. Runs on: the main thread at start-up; reads from any thread
 * once resolved.
 */
#include "core/config.h"
#include "core/config_int.h"
#include "core/file_read.h"
#include "core/properties.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Largest server.properties accepted; real ones are a few KiB. */
#define GR_CONFIG_FILE_MAX (4 * 1024 * 1024)

#define MS_PER_MINUTE 60000LL
#define MS_PER_HOUR   3600000LL

/* ---- small helpers -------------------------------------------------------- */

void gr_config_seterr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void gr_config_trim(const char **s, size_t *len)
{
    while (*len > 0 && (unsigned char)(*s)[0] <= ' ') {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && (unsigned char)(*s)[*len - 1] <= ' ')
        (*len)--;
}

void gr_config_list_free(gr_config_list_t *l)
{
    for (int i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

int gr_config_list_split(const char *text, gr_config_list_t *out)
{
    gr_config_list_t l = {NULL, 0};
    const char *p = text;

    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *item = p;

        gr_config_trim(&item, &len);
        if (len > 0) {
            char **items = realloc(l.items, sizeof(char *) * (size_t)(l.count + 1));
            if (items == NULL)
                goto fail;
            l.items = items;
            l.items[l.count] = strndup(item, len);
            if (l.items[l.count] == NULL)
                goto fail;
            l.count++;
        }
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    *out = l;
    return 0;
fail:
    gr_config_list_free(&l);
    return -ENOMEM;
}

static bool in_set(const char *const *set, const char *s)
{
    for (; *set != NULL; set++)
        if (strcmp(*set, s) == 0)
            return true;
    return false;
}

static void describe_set(const char *const *set, char *buf, size_t size)
{
    size_t n = 0;

    buf[0] = '\0';
    for (; *set != NULL && n < size; set++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", *set);
}

bool gr_config_parse_int64(const char *s, int64_t *out)
{
    bool neg = false;
    uint64_t v = 0, limit;

    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (*s == '\0')
        return false;
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

void gr_config_upper(char *s)
{
    for (; *s; s++)
        *s = (char)toupper((unsigned char)*s);
}

static void *field_ptr(gr_config_t *cfg, const gr_config_def_t *def)
{
    return (char *)cfg + def->offset;
}

/* Frees the field's heap value (strings, lists) and zeroes it. */
static void field_clear(gr_config_t *cfg, const gr_config_def_t *def)
{
    void *f = field_ptr(cfg, def);

    switch (def->type) {
    case GR_CONFIG_STRING:
        free(*(char **)f);
        *(char **)f = NULL;
        break;
    case GR_CONFIG_LIST:
        gr_config_list_free(f);
        break;
    case GR_CONFIG_BOOL:
        *(bool *)f = false;
        break;
    case GR_CONFIG_INT:
    case GR_CONFIG_SHORT:
        *(int32_t *)f = 0;
        break;
    case GR_CONFIG_LONG:
        *(int64_t *)f = 0;
        break;
    case GR_CONFIG_DOUBLE:
        *(double *)f = 0;
        break;
    }
}

static const char *type_word(gr_config_type_t t)
{
    switch (t) {
    case GR_CONFIG_BOOL:
        return "a boolean (true or false)";
    case GR_CONFIG_INT:
        return "a 32-bit integer";
    case GR_CONFIG_SHORT:
        return "a 16-bit integer";
    case GR_CONFIG_LONG:
        return "a 64-bit integer";
    case GR_CONFIG_DOUBLE:
        return "a number";
    default:
        return "a string";
    }
}

static void type_error(const gr_config_def_t *def, const char *value, char *err, size_t errlen)
{
    gr_config_seterr(err, errlen, "invalid value '%s' for configuration %s: not %s", value,
                     def->name, type_word(def->type));
}

/*
 * Converts text (trimmed, NUL-terminated) for def and stores it in cfg,
 * replacing the old value. value NULL stores Kafka's null. Returns 0, -EINVAL
 * with err, or -ENOMEM; on error the old value is kept.
 */
static int store_value(gr_config_t *cfg, size_t idx, const char *value, gr_config_source_t source,
                       char *err, size_t errlen)
{
    const gr_config_def_t *def = gr_config_def_at(idx);
    void *f = field_ptr(cfg, def);
    char *text = NULL;
    char set_text[256];

    /* An empty value for a key whose default is null means "unset". */
    if (value != NULL && value[0] == '\0' && def->default_value == NULL &&
        (def->type == GR_CONFIG_STRING || def->type == GR_CONFIG_LIST))
        value = NULL;
    if (value != NULL) {
        text = strdup(value);
        if (text == NULL)
            return -ENOMEM;
    }

    switch (value == NULL ? -1 : (int)def->type) {
    case -1:
        field_clear(cfg, def);
        break;
    case GR_CONFIG_BOOL:
        if (strcasecmp(value, "true") != 0 && strcasecmp(value, "false") != 0) {
            type_error(def, value, err, errlen);
            goto fail;
        }
        *(bool *)f = strcasecmp(value, "true") == 0;
        break;
    case GR_CONFIG_INT:
    case GR_CONFIG_SHORT:
    case GR_CONFIG_LONG: {
        int64_t v, tmin = def->type == GR_CONFIG_LONG    ? INT64_MIN
                          : def->type == GR_CONFIG_SHORT ? INT16_MIN
                                                         : INT32_MIN;
        int64_t tmax = def->type == GR_CONFIG_LONG    ? INT64_MAX
                       : def->type == GR_CONFIG_SHORT ? INT16_MAX
                                                      : INT32_MAX;
        if (!gr_config_parse_int64(value, &v) || v < tmin || v > tmax) {
            type_error(def, value, err, errlen);
            goto fail;
        }
        if ((v < def->min || v > def->max) && !(def->has_extra && v == def->extra)) {
            if (def->has_extra)
                gr_config_seterr(
                    err, errlen,
                    "invalid value '%s' for configuration %s: must be %lld or between %lld "
                    "and %lld",
                    value, def->name, (long long)def->extra, (long long)def->min,
                    (long long)def->max);
            else
                gr_config_seterr(
                    err, errlen,
                    "invalid value '%s' for configuration %s: must be between %lld and %lld", value,
                    def->name, (long long)def->min, (long long)def->max);
            goto fail;
        }
        if (def->type == GR_CONFIG_LONG)
            *(int64_t *)f = v;
        else
            *(int32_t *)f = (int32_t)v;
        break;
    }
    case GR_CONFIG_DOUBLE: {
        char *end;
        errno = 0;
        double v = strtod(value, &end);
        if (value[0] == '\0' || *end != '\0' || isnan(v)) {
            type_error(def, value, err, errlen);
            goto fail;
        }
        if (v < def->min_double || v > def->max_double) {
            gr_config_seterr(err, errlen,
                             "invalid value '%s' for configuration %s: must be between %g and %g",
                             value, def->name, def->min_double, def->max_double);
            goto fail;
        }
        *(double *)f = v;
        break;
    }
    case GR_CONFIG_STRING:
        if (def->allowed != NULL && !in_set(def->allowed, value)) {
            describe_set(def->allowed, set_text, sizeof(set_text));
            gr_config_seterr(err, errlen,
                             "invalid value '%s' for configuration %s: must be one of: %s", value,
                             def->name, set_text);
            goto fail;
        }
        if (def->known != NULL && !def->known(value)) {
            gr_config_seterr(err, errlen, "invalid value '%s' for configuration %s: not %s", value,
                             def->name, def->known_what);
            goto fail;
        }
        {
            char *copy = strdup(value);
            if (copy == NULL) {
                free(text);
                return -ENOMEM;
            }
            field_clear(cfg, def);
            *(char **)f = copy;
            break;
        }
    case GR_CONFIG_LIST: {
        gr_config_list_t l;
        if (gr_config_list_split(value, &l) < 0) {
            free(text);
            return -ENOMEM;
        }
        for (int i = 0; def->allowed != NULL && i < l.count; i++) {
            if (!in_set(def->allowed, l.items[i])) {
                describe_set(def->allowed, set_text, sizeof(set_text));
                gr_config_seterr(err, errlen,
                                 "invalid value '%s' for configuration %s: '%s' is not one of: %s",
                                 value, def->name, l.items[i], set_text);
                gr_config_list_free(&l);
                goto fail;
            }
        }
        gr_config_list_free(f);
        *(gr_config_list_t *)f = l;
        break;
    }
    }
    free(cfg->text[idx]);
    cfg->text[idx] = text;
    cfg->source[idx] = (uint8_t)source;
    return 0;

fail:
    free(text);
    return -EINVAL;
}

/* ---- public: values ------------------------------------------------------ */

void gr_config_entry(const gr_config_t *cfg, size_t i, gr_config_entry_t *out)
{
    out->def = gr_config_def_at(i);
    out->value = cfg->text[i];
    out->source = (gr_config_source_t)cfg->source[i];
}

bool gr_config_is_null(const gr_config_t *cfg, const char *name)
{
    int i = gr_config_find(name);
    return i >= 0 && cfg->text[i] == NULL;
}

/* ---- public: life cycle ------------------------------------------------- */

int gr_config_init(gr_config_t *cfg)
{
    char err[256];

    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < gr_config_key_count(); i++) {
        const char *value = gr_config_def_at(i)->default_value;
        if (value == NULL)
            continue;
        int rc = store_value(cfg, i, value, GR_CONFIG_SOURCE_DEFAULT, err, sizeof(err));
        /* Defaults are constants in the key table: only memory can fail. */
        assert(rc != -EINVAL);
        if (rc < 0) {
            gr_config_fini(cfg);
            return rc;
        }
    }
    return 0;
}

void gr_config_fini(gr_config_t *cfg)
{
    for (size_t i = 0; i < gr_config_key_count(); i++) {
        field_clear(cfg, gr_config_def_at(i));
        free(cfg->text[i]);
        cfg->text[i] = NULL;
    }
    for (size_t i = 0; i < cfg->per_listener.count; i++) {
        free(cfg->per_listener.keys[i]);
        free(cfg->per_listener.values[i]);
    }
    free(cfg->per_listener.keys);
    free(cfg->per_listener.values);
    memset(&cfg->per_listener, 0, sizeof cfg->per_listener);
    gr_config_list_free(&cfg->effective.log_dirs);
    gr_config_listeners_free(&cfg->effective.listeners);
    gr_config_listeners_free(&cfg->effective.advertised_listeners);
}

#define LISTENER_PREFIX "listener.name."

/* Lower-cases the listener part of "listener.name.<l>.<key>": Kafka writes it so, we accept any
 * case. */
static void lower_listener_part(char *key)
{
    for (char *p = key + strlen(LISTENER_PREFIX); *p && *p != '.'; p++)
        *p = (char)tolower((unsigned char)*p);
}

/* Keeps a "listener.name.<l>.<key>" setting as text; a later one replaces it. */
static int set_per_listener(gr_config_t *cfg, const char *raw_key, const char *value, size_t len)
{
    char *key = strdup(raw_key);
    char *v = key ? strndup(value, len) : NULL;
    if (!v) {
        free(key);
        return -ENOMEM;
    }
    lower_listener_part(key);
    for (size_t i = 0; i < cfg->per_listener.count; i++) {
        if (strcmp(cfg->per_listener.keys[i], key) == 0) {
            free(cfg->per_listener.values[i]);
            cfg->per_listener.values[i] = v;
            free(key);
            return 0;
        }
    }
    size_t n = cfg->per_listener.count + 1;
    char **keys = realloc(cfg->per_listener.keys, n * sizeof(*keys));
    if (keys)
        cfg->per_listener.keys = keys;
    char **values = keys ? realloc(cfg->per_listener.values, n * sizeof(*values)) : NULL;
    if (!values) {
        free(key);
        free(v);
        return -ENOMEM;
    }
    cfg->per_listener.values = values;
    cfg->per_listener.keys[n - 1] = key;
    cfg->per_listener.values[n - 1] = v;
    cfg->per_listener.count = n;
    return 0;
}

const char *gr_config_listener_value(const gr_config_t *cfg, const char *listener, const char *key)
{
    char full[GR_LISTENER_NAME_MAX + 256];
    int n = snprintf(full, sizeof full, LISTENER_PREFIX "%s.%s", listener ? listener : "", key);
    if (!listener || n < 0 || (size_t)n >= sizeof full)
        return NULL;
    lower_listener_part(full);
    for (size_t i = 0; i < cfg->per_listener.count; i++)
        if (strcmp(cfg->per_listener.keys[i], full) == 0)
            return cfg->per_listener.values[i];
    return NULL;
}

const char *gr_config_listener_text(const gr_config_t *cfg, const char *listener, const char *key,
                                    bool *out_explicit)
{
    const char *v = gr_config_listener_value(cfg, listener, key);
    if (v) {
        if (out_explicit)
            *out_explicit = true;
        return v;
    }
    int idx = gr_config_find(key);
    if (out_explicit)
        *out_explicit = idx >= 0 && cfg->source[idx] != GR_CONFIG_SOURCE_DEFAULT;
    return idx >= 0 ? cfg->text[idx] : NULL;
}

/* Sets key from a value whose trimming is still to do (value may be unterminated). */
static int set_span(gr_config_t *cfg, const char *key, const char *value, size_t len,
                    gr_config_source_t source, const char *origin, const gr_logger_t *log,
                    char *err, size_t errlen)
{
    int idx = gr_config_find(key);
    char *v;
    int rc;

    if (idx < 0 && strncmp(key, LISTENER_PREFIX, strlen(LISTENER_PREFIX)) == 0) {
        gr_config_trim(&value, &len);
        return set_per_listener(cfg, key, value, len);
    }
    if (idx < 0) {
        gr_logf(log, GR_LOG_WARN, "config", "ignoring unknown configuration %s (from %s)", key,
                origin ? origin : "?");
        return 1;
    }
    gr_config_trim(&value, &len);
    v = strndup(value, len);
    if (v == NULL)
        return -ENOMEM;
    rc = store_value(cfg, (size_t)idx, v, source, err, errlen);
    free(v);
    return rc;
}

int gr_config_set(gr_config_t *cfg, const char *key, const char *value, gr_config_source_t source,
                  const gr_logger_t *log, char *err, size_t errlen)
{
    return set_span(cfg, key, value, strlen(value), source,
                    source == GR_CONFIG_SOURCE_OVERRIDE ? "--override" : "file", log, err, errlen);
}

int gr_config_unset(gr_config_t *cfg, const char *key)
{
    int idx = gr_config_find(key);
    if (idx < 0)
        return -ENOENT;
    field_clear(cfg, gr_config_def_at((size_t)idx));
    free(cfg->text[idx]);
    cfg->text[idx] = NULL;
    cfg->source[idx] = GR_CONFIG_SOURCE_DEFAULT;
    return 0;
}

int gr_config_override(gr_config_t *cfg, const char *arg, const gr_logger_t *log, char *err,
                       size_t errlen)
{
    const char *eq = strchr(arg, '=');
    char *key;
    int rc;

    if (eq == NULL || eq == arg) {
        gr_config_seterr(err, errlen, "invalid override '%s': expected key=value", arg);
        return -EINVAL;
    }
    key = strndup(arg, (size_t)(eq - arg));
    if (key == NULL)
        return -ENOMEM;
    const char *k = key;
    size_t klen = strlen(key);
    gr_config_trim(&k, &klen);
    key[(k - key) + (ptrdiff_t)klen] = '\0';
    rc = set_span(cfg, k, eq + 1, strlen(eq + 1), GR_CONFIG_SOURCE_OVERRIDE, "--override", log, err,
                  errlen);
    free(key);
    return rc;
}

/*
 * Applies the last occurrence of each key in props, in order: items before
 * first_override came from origin (source FILE), the others from --override.
 */
static int apply_props(gr_config_t *cfg, const gr_properties_t *props, size_t first_override,
                       const char *origin, const gr_logger_t *log, char *err, size_t errlen)
{
    for (size_t i = 0; i < props->count; i++) {
        bool later = false;
        for (size_t j = i + 1; j < props->count && !later; j++)
            later = strcmp(props->items[i].key, props->items[j].key) == 0;
        if (later)
            continue;
        const gr_property_t *p = &props->items[i];
        bool override = i >= first_override;
        int rc = set_span(cfg, p->key, p->value, strlen(p->value),
                          override ? GR_CONFIG_SOURCE_OVERRIDE : GR_CONFIG_SOURCE_FILE,
                          override ? "--override" : origin, log, err, errlen);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int gr_config_parse_text(gr_config_t *cfg, const char *text, size_t len, const char *origin,
                         const gr_logger_t *log, char *err, size_t errlen)
{
    const char *name = origin ? origin : "properties";
    gr_properties_t props = {NULL, 0};
    int rc = gr_properties_read(text, len, name, &props, err, errlen);

    if (rc == 0)
        rc = apply_props(cfg, &props, props.count, name, log, err, errlen);
    gr_properties_free(&props);
    return rc;
}

/* Reads a whole file into a new buffer. Returns 0 or -errno (-EFBIG: too large). */
static int read_file(const char *path, char **out, size_t *out_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = gr_file_read_all(fd, GR_CONFIG_FILE_MAX, out, out_len);
    close(fd);
    return rc;
}

int gr_config_load_file(gr_config_t *cfg, const char *path, const gr_logger_t *log, char *err,
                        size_t errlen)
{
    char *buf;
    size_t len;
    int rc = read_file(path, &buf, &len);

    if (rc < 0) {
        gr_config_seterr(err, errlen, "cannot read %s: %s", path, strerror(-rc));
        return rc;
    }
    rc = gr_config_parse_text(cfg, buf, len, path, log, err, errlen);
    free(buf);
    return rc;
}

int gr_config_load(gr_config_t *cfg, const char *path, const char *const *overrides, int n,
                   const gr_logger_t *log, char *err, size_t errlen)
{
    gr_properties_t props = {NULL, 0};
    size_t first_override;
    char *buf = NULL;
    size_t len = 0;
    int rc = gr_config_init(cfg);

    if (rc < 0) {
        gr_config_seterr(err, errlen, "out of memory");
        return rc;
    }
    if (path != NULL) {
        rc = read_file(path, &buf, &len);
        if (rc < 0) {
            gr_config_seterr(err, errlen, "cannot read %s: %s", path, strerror(-rc));
            goto fail;
        }
        rc = gr_properties_read(buf, len, path, &props, err, errlen);
        if (rc < 0)
            goto fail;
    }
    first_override = props.count;
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(overrides[i], '=');
        if (eq == NULL || eq == overrides[i]) {
            gr_config_seterr(err, errlen, "invalid override '%s': expected key=value",
                             overrides[i]);
            rc = -EINVAL;
            goto fail;
        }
        const char *k = overrides[i];
        size_t klen = (size_t)(eq - k);
        gr_config_trim(&k, &klen);
        char *key = strndup(k, klen), *value = strdup(eq + 1);
        if (key == NULL || value == NULL) {
            free(key);
            free(value);
            rc = -ENOMEM;
            goto fail;
        }
        rc = gr_properties_add(&props, key, value);
        if (rc < 0)
            goto fail;
    }
    rc = apply_props(cfg, &props, first_override, path ? path : "properties", log, err, errlen);
    if (rc < 0)
        goto fail;
    rc = gr_config_resolve(cfg, log, err, errlen);
    if (rc < 0)
        goto fail;
    gr_properties_free(&props);
    free(buf);
    return 0;
fail:
    if (rc == -ENOMEM)
        gr_config_seterr(err, errlen, "out of memory while loading the configuration");
    gr_properties_free(&props);
    free(buf);
    gr_config_fini(cfg);
    return rc;
}

/* ---- resolve -------------------------------------------------------------- */

static bool is_set(const gr_config_t *cfg, const char *name)
{
    return !gr_config_is_null(cfg, name);
}

void gr_config_resolve_log_times(gr_config_t *cfg)
{
    if (is_set(cfg, "log.retention.ms"))
        cfg->effective.log_retention_ms = cfg->log_retention_ms;
    else if (is_set(cfg, "log.retention.minutes"))
        cfg->effective.log_retention_ms = MS_PER_MINUTE * cfg->log_retention_minutes;
    else
        cfg->effective.log_retention_ms = MS_PER_HOUR * cfg->log_retention_hours;
    if (cfg->effective.log_retention_ms < 0)
        cfg->effective.log_retention_ms = -1;
    cfg->effective.log_roll_ms =
        is_set(cfg, "log.roll.ms") ? cfg->log_roll_ms : MS_PER_HOUR * cfg->log_roll_hours;
    cfg->effective.log_roll_jitter_ms = is_set(cfg, "log.roll.jitter.ms")
                                            ? cfg->log_roll_jitter_ms
                                            : MS_PER_HOUR * cfg->log_roll_jitter_hours;
    cfg->effective.log_flush_interval_ms = is_set(cfg, "log.flush.interval.ms")
                                               ? cfg->log_flush_interval_ms
                                               : cfg->log_flush_scheduler_interval_ms;
}

/*
 * Kafka's checks of the consumer- and share-group settings: each value
 * within its min and max, and the heartbeat interval below the session
 * timeout.
 */
bool gr_config_rebalance_protocol_enabled(const gr_config_t *cfg, const char *protocol)
{
    for (int i = 0; i < cfg->group_coordinator_rebalance_protocols.count; i++)
        if (strcmp(cfg->group_coordinator_rebalance_protocols.items[i], protocol) == 0)
            return true;
    return false;
}

static int check_consumer_group(const gr_config_t *cfg, char *err, size_t errlen)
{
    static const struct {
        const char *key, *min_key, *max_key;
        size_t value, min, max;
    } ranges[] = {
        {"group.consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms",
         "group.consumer.max.heartbeat.interval.ms",
         offsetof(gr_config_t, group_consumer_heartbeat_interval_ms),
         offsetof(gr_config_t, group_consumer_min_heartbeat_interval_ms),
         offsetof(gr_config_t, group_consumer_max_heartbeat_interval_ms)},
        {"group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms",
         "group.consumer.max.session.timeout.ms",
         offsetof(gr_config_t, group_consumer_session_timeout_ms),
         offsetof(gr_config_t, group_consumer_min_session_timeout_ms),
         offsetof(gr_config_t, group_consumer_max_session_timeout_ms)},
        {"group.share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms",
         "group.share.max.heartbeat.interval.ms",
         offsetof(gr_config_t, group_share_heartbeat_interval_ms),
         offsetof(gr_config_t, group_share_min_heartbeat_interval_ms),
         offsetof(gr_config_t, group_share_max_heartbeat_interval_ms)},
        {"group.share.session.timeout.ms", "group.share.min.session.timeout.ms",
         "group.share.max.session.timeout.ms",
         offsetof(gr_config_t, group_share_session_timeout_ms),
         offsetof(gr_config_t, group_share_min_session_timeout_ms),
         offsetof(gr_config_t, group_share_max_session_timeout_ms)},
    };
    const char *base = (const char *)cfg;
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
        int32_t v = *(const int32_t *)(base + ranges[i].value);
        int32_t lo = *(const int32_t *)(base + ranges[i].min);
        int32_t hi = *(const int32_t *)(base + ranges[i].max);
        if (v < lo || v > hi) {
            gr_config_seterr(err, errlen, "%s (%d) must be between %s (%d) and %s (%d)",
                             ranges[i].key, v, ranges[i].min_key, lo, ranges[i].max_key, hi);
            return -EINVAL;
        }
    }
    if (cfg->group_consumer_heartbeat_interval_ms >= cfg->group_consumer_session_timeout_ms) {
        gr_config_seterr(err, errlen,
                         "group.consumer.heartbeat.interval.ms (%d) must be less than "
                         "group.consumer.session.timeout.ms (%d)",
                         cfg->group_consumer_heartbeat_interval_ms,
                         cfg->group_consumer_session_timeout_ms);
        return -EINVAL;
    }
    if (cfg->group_share_heartbeat_interval_ms >= cfg->group_share_session_timeout_ms) {
        gr_config_seterr(err, errlen,
                         "group.share.heartbeat.interval.ms (%d) must be less than "
                         "group.share.session.timeout.ms (%d)",
                         cfg->group_share_heartbeat_interval_ms,
                         cfg->group_share_session_timeout_ms);
        return -EINVAL;
    }
    if (cfg->group_consumer_assignors.count == 0) {
        gr_config_seterr(err, errlen, "group.consumer.assignors names no assignor");
        return -EINVAL;
    }
    if (!gr_config_rebalance_protocol_enabled(cfg, "classic")) {
        gr_config_seterr(err, errlen, "Disabling the 'classic' protocol is not supported.");
        return -EINVAL;
    }
    return 0;
}

int gr_config_resolve(gr_config_t *cfg, const gr_logger_t *log, char *err, size_t errlen)
{
    int rc;

    (void)log;

    gr_config_list_free(&cfg->effective.log_dirs);
    gr_config_listeners_free(&cfg->effective.listeners);
    gr_config_listeners_free(&cfg->effective.advertised_listeners);

    /* Ids above reserved.broker.max.id are the generated ones (see core/broker_id.h). */
    if (cfg->broker_id_generation_enable && cfg->broker_id > cfg->reserved_broker_max_id) {
        gr_config_seterr(
            err, errlen,
            "broker.id=%d is above reserved.broker.max.id=%d, which keeps the ids above it "
            "for generated ones: use a smaller id or raise reserved.broker.max.id",
            cfg->broker_id, cfg->reserved_broker_max_id);
        return -EINVAL;
    }
    if (!cfg->broker_id_generation_enable && cfg->broker_id < 0) {
        gr_config_seterr(err, errlen,
                         "broker.id=-1 asks for a generated id, but broker.id.generation.enable is "
                         "false: set broker.id");
        return -EINVAL;
    }
    if (gr_logger_apply_levels(NULL, cfg->gregor_log_levels, err, errlen) != 0)
        return -EINVAL;
    /* log.dirs wins over log.dir; both may hold comma-separated lists. */
    if (cfg->log_dirs.count > 0) {
        if (gr_config_list_split(cfg->text[gr_config_find("log.dirs")], &cfg->effective.log_dirs) <
            0)
            return -ENOMEM;
    } else if (cfg->log_dir != NULL) {
        if (gr_config_list_split(cfg->log_dir, &cfg->effective.log_dirs) < 0)
            return -ENOMEM;
    }
    if (cfg->effective.log_dirs.count == 0) {
        gr_config_seterr(err, errlen, "no log directory: set log.dirs (or log.dir)");
        return -EINVAL;
    }

    gr_config_resolve_log_times(cfg);
    cfg->effective.zookeeper_connection_timeout_ms = is_set(cfg, "zookeeper.connection.timeout.ms")
                                                         ? cfg->zookeeper_connection_timeout_ms
                                                         : cfg->zookeeper_session_timeout_ms;

    if (cfg->group_min_session_timeout_ms > cfg->group_max_session_timeout_ms) {
        gr_config_seterr(
            err, errlen,
            "group.min.session.timeout.ms (%d) is above group.max.session.timeout.ms (%d)",
            cfg->group_min_session_timeout_ms, cfg->group_max_session_timeout_ms);
        return -EINVAL;
    }

    if (check_consumer_group(cfg, err, errlen) < 0)
        return -EINVAL;

    if (cfg->inter_broker_listener_name != NULL &&
        cfg->source[gr_config_find("security.inter.broker.protocol")] != GR_CONFIG_SOURCE_DEFAULT) {
        gr_config_seterr(
            err, errlen,
            "set only one of inter.broker.listener.name and security.inter.broker.protocol");
        return -EINVAL;
    }

    const char *listeners = cfg->listeners ? cfg->listeners : "";
    rc = gr_config_listeners_parse(listeners, cfg->listener_security_protocol_map,
                                   &cfg->effective.listeners, err, errlen);
    if (rc < 0)
        return rc;
    if (cfg->effective.listeners.count == 0) {
        gr_config_seterr(err, errlen, "listeners is empty: set at least one PLAINTEXT://host:port");
        return -EINVAL;
    }
    rc = gr_config_listeners_parse(
        cfg->advertised_listeners ? cfg->advertised_listeners : listeners,
        cfg->listener_security_protocol_map, &cfg->effective.advertised_listeners, err, errlen);
    if (rc < 0)
        return rc;
    for (int i = 0; i < cfg->effective.advertised_listeners.count; i++) {
        const gr_listener_spec_t *a = &cfg->effective.advertised_listeners.items[i];
        if (cfg->advertised_listeners != NULL &&
            (strcmp(a->host, "0.0.0.0") == 0 || strcmp(a->host, "::") == 0)) {
            gr_config_seterr(
                err, errlen,
                "advertised.listeners: listener %s advertises the wildcard address %s, which "
                "clients cannot connect to",
                a->name, a->host);
            return -EINVAL;
        }
        if (!gr_listener_spec_find(cfg->effective.listeners.items, cfg->effective.listeners.count,
                                   a->name)) {
            gr_config_seterr(err, errlen,
                             "advertised.listeners names %s, which is not in listeners", a->name);
            return -EINVAL;
        }
    }
    if (cfg->gregor_http_listener && cfg->gregor_http_listener[0]) {
        /* Checked with the rest, not first when the HTTP server starts (after registering). */
        gr_listener_spec_t http;
        if ((rc = gr_http_listener_parse(cfg->gregor_http_listener, &http, err, errlen)) < 0)
            return rc;
    }
    char *name = cfg->effective.inter_broker_listener;
    snprintf(name, GR_LISTENER_NAME_MAX, "%s",
             cfg->inter_broker_listener_name ? cfg->inter_broker_listener_name
                                             : cfg->security_inter_broker_protocol);
    gr_config_upper(name);
    if (!gr_listener_spec_find(cfg->effective.advertised_listeners.items,
                               cfg->effective.advertised_listeners.count, name)) {
        gr_config_seterr(err, errlen,
                         "the inter-broker listener %s (inter.broker.listener.name, else "
                         "security.inter.broker.protocol) is not an advertised listener",
                         name);
        return -EINVAL;
    }
    return 0;
}
