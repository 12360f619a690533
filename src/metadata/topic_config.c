/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's topic-level configs (see topic_config.h): the one table of names,
 * types, Kafka 3.8 defaults, ranges and broker synonyms; validation of a
 * value and of a whole override set; DescribeConfigs' view of a key; and the
 * effective settings of a topic (override, else the broker's log.* value)
 * that the data path applies.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/context.h"
#include "core/kafka_version.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "metadata/topic_config.h"

#include "metadata/broker_config_store.h"
#include "protocol/records.h"

static const char *const cleanup_policies[] = {"delete", "compact", NULL};
static const char *const timestamp_types[] = {"CreateTime", "LogAppendTime", NULL};
static const char *const compression_types[] = {"uncompressed", "zstd",     "lz4", "snappy",
                                                "gzip",         "producer", NULL};

#define NO_MAX        INT64_MAX
#define LONG_MAX_TEXT "9223372036854775807"
#define EFFECTIVE(f)  offsetof(gr_config_t, effective.f)

/* In name order; Kafka 3.8's TopicConfig keys, defaults and validators. */
static const gr_topic_config_def_t topic_configs[] = {
    {"cleanup.policy",
     GR_CONFIG_LIST,
     "delete",
     0,
     0,
     cleanup_policies,
     {"log.cleanup.policy"},
     0,
     "What happens to old segments: delete (retention), compact (keep the last value per key), "
     "or both."},
    {"compression.gzip.level",
     GR_CONFIG_INT,
     "-1",
     -1,
     9,
     NULL,
     {"compression.gzip.level"},
     0,
     "Level used when compression.type is gzip (-1: the codec's default)."},
    {"compression.lz4.level",
     GR_CONFIG_INT,
     "9",
     1,
     17,
     NULL,
     {"compression.lz4.level"},
     0,
     "Level used when compression.type is lz4."},
    {"compression.type",
     GR_CONFIG_STRING,
     "producer",
     0,
     0,
     compression_types,
     {"compression.type"},
     0,
     "Codec batches are stored with; producer keeps each batch as its producer sent it."},
    {"compression.zstd.level",
     GR_CONFIG_INT,
     "3",
     -131072,
     22,
     NULL,
     {"compression.zstd.level"},
     0,
     "Level used when compression.type is zstd."},
    {"delete.retention.ms",
     GR_CONFIG_LONG,
     "86400000",
     0,
     NO_MAX,
     NULL,
     {"log.cleaner.delete.retention.ms"},
     0,
     "How long tombstones stay readable in a compacted topic."},
    {"file.delete.delay.ms",
     GR_CONFIG_LONG,
     "60000",
     0,
     NO_MAX,
     NULL,
     {"log.segment.delete.delay.ms"},
     0,
     "Delay between retiring a segment and removing its files."},
    {"flush.messages",
     GR_CONFIG_LONG,
     LONG_MAX_TEXT,
     1,
     NO_MAX,
     NULL,
     {"log.flush.interval.messages"},
     0,
     "Records appended between forced fsyncs of the log."},
    {"flush.ms",
     GR_CONFIG_LONG,
     LONG_MAX_TEXT,
     0,
     NO_MAX,
     NULL,
     {"log.flush.interval.ms", "log.flush.scheduler.interval.ms"},
     EFFECTIVE(log_flush_interval_ms),
     "Longest time appended data stays unsynced."},
    {"follower.replication.throttled.replicas",
     GR_CONFIG_LIST,
     "",
     0,
     0,
     NULL,
     {NULL},
     0,
     "Replicas whose follower fetches are throttled (partition:broker, or *)."},
    {"index.interval.bytes",
     GR_CONFIG_INT,
     "4096",
     0,
     INT32_MAX,
     NULL,
     {"log.index.interval.bytes"},
     0,
     "Log bytes between two offset index entries."},
    {"leader.replication.throttled.replicas",
     GR_CONFIG_LIST,
     "",
     0,
     0,
     NULL,
     {NULL},
     0,
     "Replicas whose leader side of replication is throttled (partition:broker, or *)."},
    {"local.retention.bytes",
     GR_CONFIG_LONG,
     "-2",
     -2,
     NO_MAX,
     NULL,
     {"log.local.retention.bytes"},
     0,
     "Bytes kept locally when tiered storage is on (-2: retention.bytes)."},
    {"local.retention.ms",
     GR_CONFIG_LONG,
     "-2",
     -2,
     NO_MAX,
     NULL,
     {"log.local.retention.ms"},
     0,
     "Time data is kept locally when tiered storage is on (-2: retention.ms)."},
    {"max.compaction.lag.ms",
     GR_CONFIG_LONG,
     LONG_MAX_TEXT,
     1,
     NO_MAX,
     NULL,
     {"log.cleaner.max.compaction.lag.ms"},
     0,
     "Longest time a record may stay uncompacted."},
    {"max.message.bytes",
     GR_CONFIG_INT,
     "1048588",
     0,
     INT32_MAX,
     NULL,
     {"message.max.bytes"},
     0,
     "Largest record batch the topic accepts."},
    {"message.downconversion.enable",
     GR_CONFIG_BOOL,
     "true",
     0,
     0,
     NULL,
     {"log.message.downconversion.enable"},
     0,
     "Whether old fetch versions may get converted batches."},
    {"message.format.version",
     GR_CONFIG_STRING,
     "3.0-IV1",
     0,
     0,
     NULL,
     {"log.message.format.version"},
     0,
     "Deprecated: the message format is v2 from Kafka 3.0 on."},
    {"message.timestamp.after.max.ms",
     GR_CONFIG_LONG,
     LONG_MAX_TEXT,
     0,
     NO_MAX,
     NULL,
     {"log.message.timestamp.after.max.ms"},
     0,
     "How far in the future a CreateTime timestamp may be."},
    {"message.timestamp.before.max.ms",
     GR_CONFIG_LONG,
     LONG_MAX_TEXT,
     0,
     NO_MAX,
     NULL,
     {"log.message.timestamp.before.max.ms"},
     0,
     "How far in the past a CreateTime timestamp may be."},
    {"message.timestamp.difference.max.ms",
     GR_CONFIG_LONG,
     LONG_MAX_TEXT,
     0,
     NO_MAX,
     NULL,
     {"log.message.timestamp.difference.max.ms"},
     0,
     "Deprecated: the before and after limits when those are not set."},
    {"message.timestamp.type",
     GR_CONFIG_STRING,
     "CreateTime",
     0,
     0,
     timestamp_types,
     {"log.message.timestamp.type"},
     0,
     "CreateTime keeps the producer's timestamps, LogAppendTime stamps the broker's clock."},
    {"min.cleanable.dirty.ratio",
     GR_CONFIG_DOUBLE,
     "0.5",
     0,
     1,
     NULL,
     {"log.cleaner.min.cleanable.ratio"},
     0,
     "Share of uncompacted log that makes a compacted topic due for cleaning."},
    {"min.compaction.lag.ms",
     GR_CONFIG_LONG,
     "0",
     0,
     NO_MAX,
     NULL,
     {"log.cleaner.min.compaction.lag.ms"},
     0,
     "Shortest time a record stays uncompacted."},
    {"min.insync.replicas",
     GR_CONFIG_INT,
     "1",
     1,
     INT32_MAX,
     NULL,
     {"min.insync.replicas"},
     0,
     "In-sync replicas an acks=all produce needs."},
    {"preallocate",
     GR_CONFIG_BOOL,
     "false",
     0,
     0,
     NULL,
     {"log.preallocate"},
     0,
     "Whether new segment files are preallocated."},
    {"remote.storage.enable",
     GR_CONFIG_BOOL,
     "false",
     0,
     0,
     NULL,
     {NULL},
     0,
     "Whether the topic uses tiered storage."},
    {"retention.bytes",
     GR_CONFIG_LONG,
     "-1",
     INT64_MIN,
     NO_MAX,
     NULL,
     {"log.retention.bytes"},
     0,
     "Largest size of a partition before old segments are deleted (-1: no limit)."},
    {"retention.ms",
     GR_CONFIG_LONG,
     "604800000",
     -1,
     NO_MAX,
     NULL,
     {"log.retention.ms", "log.retention.minutes", "log.retention.hours"},
     EFFECTIVE(log_retention_ms),
     "Age after which segments are deleted (-1: never)."},
    {"segment.bytes",
     GR_CONFIG_INT,
     "1073741824",
     14,
     INT32_MAX,
     NULL,
     {"log.segment.bytes"},
     0,
     "Size at which a new segment is started."},
    {"segment.index.bytes",
     GR_CONFIG_INT,
     "10485760",
     4,
     INT32_MAX,
     NULL,
     {"log.index.size.max.bytes"},
     0,
     "Largest size of a segment's offset index."},
    {"segment.jitter.ms",
     GR_CONFIG_LONG,
     "0",
     0,
     NO_MAX,
     NULL,
     {"log.roll.jitter.ms", "log.roll.jitter.hours"},
     EFFECTIVE(log_roll_jitter_ms),
     "Random amount subtracted from segment.ms to spread segment rolls."},
    {"segment.ms",
     GR_CONFIG_LONG,
     "604800000",
     1,
     NO_MAX,
     NULL,
     {"log.roll.ms", "log.roll.hours"},
     EFFECTIVE(log_roll_ms),
     "Age at which a new segment is started even if not full."},
    {"unclean.leader.election.enable",
     GR_CONFIG_BOOL,
     "false",
     0,
     0,
     NULL,
     {"unclean.leader.election.enable"},
     0,
     "Whether a replica outside the ISR may become leader (losing data)."},
};

#define TOPIC_CONFIG_COUNT (sizeof topic_configs / sizeof topic_configs[0])

size_t gr_topic_config_def_count(void)
{
    return TOPIC_CONFIG_COUNT;
}

const gr_topic_config_def_t *gr_topic_config_def_at(size_t i)
{
    return i < TOPIC_CONFIG_COUNT ? &topic_configs[i] : NULL;
}

const gr_topic_config_def_t *gr_topic_config_def_find(const char *key)
{
    for (size_t i = 0; key && i < TOPIC_CONFIG_COUNT; i++)
        if (strcmp(topic_configs[i].name, key) == 0)
            return &topic_configs[i];
    return NULL;
}

static bool in_allowed(const char *const *allowed, const char *v, size_t len)
{
    for (; *allowed; allowed++)
        if (strlen(*allowed) == len && strncmp(*allowed, v, len) == 0)
            return true;
    return false;
}

/* Copies value without its surrounding whitespace into a new string (NULL: out of memory). */
static char *trim_dup(const char *value)
{
    while (isspace((unsigned char)*value))
        value++;
    size_t len = strlen(value);
    while (len && isspace((unsigned char)value[len - 1]))
        len--;
    return strndup(value, len);
}

/*
 * Checks (when out is NULL) or rewrites into out (room for strlen(value)+1)
 * a list value: items trimmed, empty ones dropped, joined by ','. Each item
 * must be allowed; for the throttled-replica keys, "*" alone or
 * "partition:broker" pairs. false when an item is invalid.
 */
static bool list_walk(const gr_topic_config_def_t *def, const char *value, char *out)
{
    bool throttled = strstr(def->name, "throttled.replicas") != NULL;
    size_t used = 0;
    int items = 0;
    bool star = false;
    for (const char *p = value; *p;) {
        while (isspace((unsigned char)*p))
            p++;
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t item = len;
        while (item && isspace((unsigned char)p[item - 1]))
            item--;
        if (item > 0) {
            if (def->allowed && !in_allowed(def->allowed, p, item))
                return false;
            if (throttled) {
                int partition, broker, consumed = 0;
                bool is_star = item == 1 && *p == '*';
                bool pair = sscanf(p, "%d:%d%n", &partition, &broker, &consumed) == 2 &&
                            (size_t)consumed == item && partition >= 0 && broker >= 0;
                if (!is_star && !pair)
                    return false;
                star |= is_star;
            }
            if (out) {
                if (used)
                    out[used++] = ',';
                memcpy(out + used, p, item);
                used += item;
            }
            items++;
        }
        p += len + (end ? 1 : 0);
    }
    if (out)
        out[used] = '\0';
    return !(star && items > 1);
}

/* Whether the trimmed value v is valid for def; writes Kafka's canonical text into out. */
static bool value_valid(const gr_topic_config_def_t *def, const char *v, char *out, size_t len)
{
    char *end = NULL;
    errno = 0;
    switch (def->type) {
    case GR_CONFIG_LONG:
    case GR_CONFIG_INT:
    case GR_CONFIG_SHORT: {
        long long n = strtoll(v, &end, 10);
        snprintf(out, len, "%lld", n);
        return errno == 0 && end != v && *end == '\0' && n >= def->min && n <= def->max;
    }
    case GR_CONFIG_DOUBLE: {
        double d = strtod(v, &end);
        snprintf(out, len, "%s", v);
        return errno == 0 && end != v && *end == '\0' && d >= (double)def->min &&
               d <= (double)def->max;
    }
    case GR_CONFIG_BOOL:
        snprintf(out, len, "%s", strcasecmp(v, "true") == 0 ? "true" : "false");
        return strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0;
    case GR_CONFIG_STRING:
        snprintf(out, len, "%s", v);
        if (strcmp(def->name, "message.format.version") == 0)
            return gr_kafka_version_known(v);
        return !def->allowed || in_allowed(def->allowed, v, strlen(v));
    case GR_CONFIG_LIST:
        return list_walk(def, v, out);
    }
    return false;
}

/* Keys Kafka refuses whatever their value's form: features this broker lacks. */
static bool feature_refused(const gr_topic_config_def_t *def, const char *canonical, char *err,
                            size_t errlen)
{
    if (strcmp(def->name, "remote.storage.enable") == 0 && strcmp(canonical, "true") == 0) {
        snprintf(err, errlen,
                 "Tiered Storage functionality is disabled in the broker. Topic cannot be "
                 "configured with remote log storage.");
        return true;
    }
    return false;
}

int gr_topic_config_normalize(const char *key, const char *value, char **out, char *err,
                              size_t errlen)
{
    const gr_topic_config_def_t *def = gr_topic_config_def_find(key);
    if (!def) {
        snprintf(err, errlen, "Unknown topic config name: %s", key);
        return -EINVAL;
    }
    if (!value) {
        snprintf(err, errlen, "Null value not supported for topic config %s", key);
        return -EINVAL;
    }
    char *trimmed = trim_dup(value);
    /* Canonical text is never longer than the trimmed text, nor than a number's digits. */
    size_t room = (trimmed ? strlen(trimmed) : 0) + 32;
    char *canonical = trimmed ? malloc(room) : NULL;
    if (!canonical) {
        free(trimmed);
        snprintf(err, errlen, "Out of memory");
        return -ENOMEM;
    }
    int rc = 0;
    if (!value_valid(def, trimmed, canonical, room)) {
        snprintf(err, errlen, "Invalid value %s for configuration %s", value, key);
        rc = -EINVAL;
    } else if (feature_refused(def, canonical, err, errlen)) {
        rc = -EINVAL;
    }
    free(trimmed);
    if (rc == 0 && out)
        *out = canonical;
    else
        free(canonical);
    return rc;
}

gr_kerr_t gr_topic_config_check(const char *key, const char *value, char *err, size_t errlen)
{
    int rc = gr_topic_config_normalize(key, value, NULL, err, errlen);
    if (rc == -ENOMEM)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    return rc ? GR_KERR_INVALID_CONFIG : GR_KERR_NONE;
}

static const char *set_value(const gr_topic_config_t *configs, int count, const char *key)
{
    for (int i = 0; i < count; i++)
        if (strcmp(configs[i].key, key) == 0)
            return configs[i].value;
    return NULL;
}

gr_kerr_t gr_topic_config_check_set(const gr_topic_config_t *configs, int count, char *err,
                                    size_t errlen)
{
    const char *min_lag = set_value(configs, count, "min.compaction.lag.ms");
    const char *max_lag = set_value(configs, count, "max.compaction.lag.ms");
    if (min_lag && max_lag && strtoll(min_lag, NULL, 10) > strtoll(max_lag, NULL, 10)) {
        snprintf(err, errlen,
                 "conflict topic config setting min.compaction.lag.ms (%s) > "
                 "max.compaction.lag.ms (%s)",
                 min_lag, max_lag);
        return GR_KERR_INVALID_CONFIG;
    }
    return GR_KERR_NONE;
}

const char *gr_topic_config_override(const gr_topic_t *topic, const char *key)
{
    return topic ? set_value(topic->configs, topic->config_count, key) : NULL;
}

int8_t gr_config_source_described(gr_config_source_t source)
{
    switch (source) {
    case GR_CONFIG_SOURCE_DEFAULT:
        return GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG;
    case GR_CONFIG_SOURCE_DYNAMIC_DEFAULT:
        return GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG;
    case GR_CONFIG_SOURCE_DYNAMIC_BROKER:
        return GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_BROKER_CONFIG;
    default:
        return GR_DESCRIBE_CONFIGS_SOURCE_STATIC_BROKER_CONFIG;
    }
}

static void add_synonym(gr_config_described_t *out, const char *name, const char *value,
                        int8_t source)
{
    if (out->synonym_count < GR_CONFIG_DESCRIBED_SYNONYMS_MAX)
        out->synonyms[out->synonym_count++] = (gr_config_synonym_t){name, value, source};
}

/*
 * The broker's synonyms of def: those set in the file or on the command
 * line, then those with a default, without the leading ones that are not the
 * primary synonym (as Kafka lists them: a topic key shows log.retention.ms
 * and what follows it, never log.retention.hours alone).
 */
static void broker_synonyms(const gr_broker_t *b, const gr_topic_config_def_t *def,
                            gr_config_described_t *out)
{
    const gr_config_t *c = &b->config;
    int first = out->synonym_count;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < GR_TOPIC_CONFIG_SYNONYMS_MAX && def->synonyms[i]; i++) {
            int k = gr_config_find(def->synonyms[i]);
            if (k < 0)
                continue;
            gr_config_entry_t e;
            gr_config_entry(c, (size_t)k, &e);
            gr_config_synonym_t dyn[3];
            int ndyn = pass == 0 ? gr_broker_dynamic_synonyms(b, def->synonyms[i], dyn, 3) : 0;
            for (int d = 0; d < ndyn; d++)
                add_synonym(out, dyn[d].name, dyn[d].value, dyn[d].source);
            if (ndyn > 0)
                continue;
            if (pass == 0 && e.source != GR_CONFIG_SOURCE_DEFAULT && e.value)
                add_synonym(out, def->synonyms[i], e.value, gr_config_source_described(e.source));
            else if (pass == 1 && e.def->default_value)
                add_synonym(out, def->synonyms[i], e.def->default_value,
                            GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG);
        }
    }
    int keep = first;
    while (keep < out->synonym_count && strcmp(out->synonyms[keep].name, def->synonyms[0]) != 0)
        keep++;
    memmove(&out->synonyms[first], &out->synonyms[keep],
            (size_t)(out->synonym_count - keep) * sizeof(out->synonyms[0]));
    out->synonym_count -= keep - first;
}

/* The broker-level value a topic without an override gets. */
static const char *broker_value(const gr_config_t *c, const gr_topic_config_def_t *def,
                                gr_config_described_t *out)
{
    if (def->effective_offset) {
        int64_t v;
        memcpy(&v, (const char *)c + def->effective_offset, sizeof v);
        snprintf(out->buf, sizeof out->buf, "%lld", (long long)v);
        return out->buf;
    }
    int k = def->synonyms[0] ? gr_config_find(def->synonyms[0]) : -1;
    if (k >= 0) {
        gr_config_entry_t e;
        gr_config_entry(c, (size_t)k, &e);
        if (e.value)
            return e.value;
    }
    return def->default_value;
}

void gr_topic_config_describe(const gr_broker_t *b, const gr_topic_t *topic,
                              const gr_topic_config_def_t *def, gr_config_described_t *out)
{
    out->synonym_count = 0;
    const char *override = gr_topic_config_override(topic, def->name);
    if (override)
        add_synonym(out, def->name, override, GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_TOPIC_CONFIG);
    if (def->synonyms[0])
        broker_synonyms(b, def, out);
    out->value = override ? override : broker_value(&b->config, def, out);
    out->source =
        out->synonym_count ? out->synonyms[0].source : GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG;
}

static int64_t long_of(const gr_topic_t *topic, const char *key, int64_t dflt)
{
    const char *v = gr_topic_config_override(topic, key);
    return v ? strtoll(v, NULL, 10) : dflt;
}

static int compression_of(const char *name)
{
    static const struct {
        const char *name;
        int codec;
    } codecs[] = {
        {"producer", -1},
        {"uncompressed", GR_COMPRESSION_NONE},
        {"gzip", GR_COMPRESSION_GZIP},
        {"snappy", GR_COMPRESSION_SNAPPY},
        {"lz4", GR_COMPRESSION_LZ4},
        {"zstd", GR_COMPRESSION_ZSTD},
    };
    for (size_t i = 0; name && i < sizeof codecs / sizeof codecs[0]; i++)
        if (strcmp(codecs[i].name, name) == 0)
            return codecs[i].codec;
    return -1;
}

static bool list_has(const char *list, const char *item)
{
    return list && strstr(list, item) != NULL;
}

/*
 * message.timestamp.before/after.max.ms at their "unset" value (Long.MAX)
 * take message.timestamp.difference.max.ms, as Kafka 3.6+ does.
 */
static int64_t timestamp_limit(int64_t limit, int64_t difference)
{
    return limit == INT64_MAX ? difference : limit;
}

void gr_topic_settings_compute(const gr_broker_t *b, gr_topic_t *topic)
{
    const gr_config_t *c = &b->config;
    gr_topic_settings_t *s = &topic->settings;
    gr_log_config_t *log = &s->log;
    gr_log_config_init(log);
    log->segment_bytes = long_of(topic, "segment.bytes", c->log_segment_bytes);
    log->segment_ms = long_of(topic, "segment.ms", c->effective.log_roll_ms);
    log->segment_index_bytes = long_of(topic, "segment.index.bytes", c->log_index_size_max_bytes);
    log->index_interval_bytes = long_of(topic, "index.interval.bytes", c->log_index_interval_bytes);
    log->retention_ms = long_of(topic, "retention.ms", c->effective.log_retention_ms);
    log->retention_bytes = long_of(topic, "retention.bytes", c->log_retention_bytes);
    log->flush_messages = long_of(topic, "flush.messages", c->log_flush_interval_messages);
    log->flush_ms = long_of(topic, "flush.ms", c->effective.log_flush_interval_ms);
    log->file_delete_delay_ms =
        long_of(topic, "file.delete.delay.ms", c->log_segment_delete_delay_ms);
    const char *policy = gr_topic_config_override(topic, "cleanup.policy");
    if (policy) {
        log->cleanup_delete = list_has(policy, "delete");
        log->cleanup_compact = list_has(policy, "compact");
    } else {
        log->cleanup_delete = false;
        log->cleanup_compact = false;
        for (int i = 0; i < c->log_cleanup_policy.count; i++) {
            log->cleanup_delete |= strcmp(c->log_cleanup_policy.items[i], "delete") == 0;
            log->cleanup_compact |= strcmp(c->log_cleanup_policy.items[i], "compact") == 0;
        }
    }
    log->delete_retention_ms =
        long_of(topic, "delete.retention.ms", c->log_cleaner_delete_retention_ms);
    log->min_compaction_lag_ms =
        long_of(topic, "min.compaction.lag.ms", c->log_cleaner_min_compaction_lag_ms);
    log->max_compaction_lag_ms =
        long_of(topic, "max.compaction.lag.ms", c->log_cleaner_max_compaction_lag_ms);
    const char *ratio = gr_topic_config_override(topic, "min.cleanable.dirty.ratio");
    log->min_cleanable_dirty_ratio =
        ratio ? strtod(ratio, NULL) : c->log_cleaner_min_cleanable_ratio;
    /* Compacted: the active segment rolls by max.compaction.lag.ms too, or it would never be
     * cleaned. */
    if (log->cleanup_compact && log->max_compaction_lag_ms < log->segment_ms)
        log->segment_ms = log->max_compaction_lag_ms;
    s->max_message_bytes = (int32_t)long_of(topic, "max.message.bytes", c->message_max_bytes);
    const char *ts = gr_topic_config_override(topic, "message.timestamp.type");
    if (!ts)
        ts = c->log_message_timestamp_type;
    s->timestamp_type = ts && strcmp(ts, "LogAppendTime") == 0 ? GR_TIMESTAMP_LOG_APPEND_TIME
                                                               : GR_TIMESTAMP_CREATE_TIME;
    int64_t difference = long_of(topic, "message.timestamp.difference.max.ms",
                                 c->log_message_timestamp_difference_max_ms);
    s->timestamp_before_max_ms = timestamp_limit(
        long_of(topic, "message.timestamp.before.max.ms", c->log_message_timestamp_before_max_ms),
        difference);
    s->timestamp_after_max_ms = timestamp_limit(
        long_of(topic, "message.timestamp.after.max.ms", c->log_message_timestamp_after_max_ms),
        difference);
    const char *comp = gr_topic_config_override(topic, "compression.type");
    s->compression = compression_of(comp ? comp : c->compression_type);
    s->min_insync_replicas = (int32_t)long_of(topic, "min.insync.replicas", c->min_insync_replicas);
    const char *unclean = gr_topic_config_override(topic, "unclean.leader.election.enable");
    s->unclean_leader_election =
        unclean ? strcmp(unclean, "true") == 0 : c->unclean_leader_election_enable;
}
