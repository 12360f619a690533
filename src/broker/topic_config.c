/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's topic-level configs: names, types and ranges (one table), their
 * validation, and the effective settings of a topic (override, else the
 * broker's log.* default).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/broker.h"
#include "protocol/records.h"

typedef enum topic_config_type {
    TC_LONG,
    TC_INT,
    TC_BOOL,
    TC_DOUBLE,
    TC_STRING,
    TC_LIST,
} topic_config_type_t;

typedef struct topic_config_def {
    const char *name;
    topic_config_type_t type;
    int64_t min;
    int64_t max;
    const char *const *allowed; /* valid values (each list item), or NULL */
} topic_config_def_t;

static const char *const cleanup_policies[] = {"delete", "compact", NULL};
static const char *const timestamp_types[] = {"CreateTime", "LogAppendTime", NULL};
static const char *const compression_types[] = {"uncompressed", "zstd",     "lz4", "snappy",
                                                "gzip",         "producer", NULL};

#define NO_MAX INT64_MAX

static const topic_config_def_t topic_configs[] = {
    {"cleanup.policy", TC_LIST, 0, 0, cleanup_policies},
    {"compression.type", TC_STRING, 0, 0, compression_types},
    {"compression.gzip.level", TC_INT, -1, 9, NULL},
    {"compression.lz4.level", TC_INT, 1, 17, NULL},
    {"compression.zstd.level", TC_INT, -131072, 22, NULL},
    {"delete.retention.ms", TC_LONG, 0, NO_MAX, NULL},
    {"file.delete.delay.ms", TC_LONG, 0, NO_MAX, NULL},
    {"flush.messages", TC_LONG, 1, NO_MAX, NULL},
    {"flush.ms", TC_LONG, 0, NO_MAX, NULL},
    {"follower.replication.throttled.replicas", TC_LIST, 0, 0, NULL},
    {"index.interval.bytes", TC_INT, 0, INT32_MAX, NULL},
    {"leader.replication.throttled.replicas", TC_LIST, 0, 0, NULL},
    {"local.retention.bytes", TC_LONG, -2, NO_MAX, NULL},
    {"local.retention.ms", TC_LONG, -2, NO_MAX, NULL},
    {"max.compaction.lag.ms", TC_LONG, 1, NO_MAX, NULL},
    {"max.message.bytes", TC_INT, 0, INT32_MAX, NULL},
    {"message.downconversion.enable", TC_BOOL, 0, 0, NULL},
    {"message.format.version", TC_STRING, 0, 0, NULL},
    {"message.timestamp.after.max.ms", TC_LONG, 0, NO_MAX, NULL},
    {"message.timestamp.before.max.ms", TC_LONG, 0, NO_MAX, NULL},
    {"message.timestamp.difference.max.ms", TC_LONG, 0, NO_MAX, NULL},
    {"message.timestamp.type", TC_STRING, 0, 0, timestamp_types},
    {"min.cleanable.dirty.ratio", TC_DOUBLE, 0, 1, NULL},
    {"min.compaction.lag.ms", TC_LONG, 0, NO_MAX, NULL},
    {"min.insync.replicas", TC_INT, 1, INT32_MAX, NULL},
    {"preallocate", TC_BOOL, 0, 0, NULL},
    {"remote.storage.enable", TC_BOOL, 0, 0, NULL},
    {"retention.bytes", TC_LONG, INT64_MIN, NO_MAX, NULL},
    {"retention.ms", TC_LONG, -1, NO_MAX, NULL},
    {"segment.bytes", TC_INT, 14, INT32_MAX, NULL},
    {"segment.index.bytes", TC_INT, 4, INT32_MAX, NULL},
    {"segment.jitter.ms", TC_LONG, 0, NO_MAX, NULL},
    {"segment.ms", TC_LONG, 1, NO_MAX, NULL},
    {"unclean.leader.election.enable", TC_BOOL, 0, 0, NULL},
};

static const topic_config_def_t *find_def(const char *key)
{
    for (size_t i = 0; i < sizeof topic_configs / sizeof topic_configs[0]; i++)
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

static gr_kerr_t check_list(const topic_config_def_t *def, const char *value)
{
    if (!def->allowed)
        return GR_KERR_NONE;
    const char *p = value;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && p[len - 1] == ' ')
            len--;
        if (!in_allowed(def->allowed, p, len))
            return GR_KERR_INVALID_CONFIG;
        p = end ? end + 1 : p + strlen(p);
    }
    return GR_KERR_NONE;
}

gr_kerr_t gr_topic_config_check(const char *key, const char *value, char *err, size_t errlen)
{
    const topic_config_def_t *def = find_def(key);
    if (!def) {
        snprintf(err, errlen, "Unknown topic config name: %s", key);
        return GR_KERR_INVALID_CONFIG;
    }
    if (!value) {
        snprintf(err, errlen, "Null value not supported for topic config %s", key);
        return GR_KERR_INVALID_CONFIG;
    }
    char *end = NULL;
    errno = 0;
    bool ok = true;
    switch (def->type) {
    case TC_LONG:
    case TC_INT: {
        long long v = strtoll(value, &end, 10);
        ok = errno == 0 && end != value && *end == '\0' && v >= def->min && v <= def->max;
        break;
    }
    case TC_DOUBLE: {
        double v = strtod(value, &end);
        ok = errno == 0 && end != value && *end == '\0' && v >= (double)def->min &&
             v <= (double)def->max;
        break;
    }
    case TC_BOOL:
        ok = strcmp(value, "true") == 0 || strcmp(value, "false") == 0;
        break;
    case TC_STRING:
        ok = !def->allowed || in_allowed(def->allowed, value, strlen(value));
        break;
    case TC_LIST:
        ok = check_list(def, value) == GR_KERR_NONE;
        break;
    }
    if (!ok) {
        snprintf(err, errlen, "Invalid value %s for configuration %s", value, key);
        return GR_KERR_INVALID_CONFIG;
    }
    return GR_KERR_NONE;
}

static const char *override_of(const gr_topic_t *topic, const char *key)
{
    for (int i = 0; i < topic->config_count; i++)
        if (strcmp(topic->configs[i].key, key) == 0)
            return topic->configs[i].value;
    return NULL;
}

static int64_t long_of(const gr_topic_t *topic, const char *key, int64_t dflt)
{
    const char *v = override_of(topic, key);
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
    const char *policy = override_of(topic, "cleanup.policy");
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
    const char *ratio = override_of(topic, "min.cleanable.dirty.ratio");
    log->min_cleanable_dirty_ratio =
        ratio ? strtod(ratio, NULL) : c->log_cleaner_min_cleanable_ratio;
    /* Compacted: the active segment rolls by max.compaction.lag.ms too, or it would never be
     * cleaned. */
    if (log->cleanup_compact && log->max_compaction_lag_ms < log->segment_ms)
        log->segment_ms = log->max_compaction_lag_ms;
    s->max_message_bytes = (int32_t)long_of(topic, "max.message.bytes", c->message_max_bytes);
    const char *ts = override_of(topic, "message.timestamp.type");
    if (!ts)
        ts = c->log_message_timestamp_type;
    s->timestamp_type = ts && strcmp(ts, "LogAppendTime") == 0 ? GR_TIMESTAMP_LOG_APPEND_TIME
                                                               : GR_TIMESTAMP_CREATE_TIME;
    s->timestamp_before_max_ms =
        long_of(topic, "message.timestamp.before.max.ms", c->log_message_timestamp_before_max_ms);
    s->timestamp_after_max_ms =
        long_of(topic, "message.timestamp.after.max.ms", c->log_message_timestamp_after_max_ms);
    const char *comp = override_of(topic, "compression.type");
    s->compression = compression_of(comp ? comp : c->compression_type);
    s->min_insync_replicas = (int32_t)long_of(topic, "min.insync.replicas", c->min_insync_replicas);
}
