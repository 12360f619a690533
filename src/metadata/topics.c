/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topic table: see topics.h.
 *
 * Persistence. Topics are defined in the metadata store, in Kafka's
 * ZooKeeper layout, and this table holds what the controller told this
 * broker (LeaderAndIsr, UpdateMetadata: topics_cluster.c) and the configs
 * read from /config/topics (topic_configs.c); admin writes go through the
 * controller (controller/zk_admin.c). The partitions' data is in the log
 * dir, each partition.metadata holding the topic id.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "log/batch_io.h"
#include "log/log.h"
#include "log/log_dir.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "metadata/topic_config.h"
#include "metadata/topics_int.h"
#include "metadata/store.h"

#define TOPICS_BUCKETS 1024
#define PATH_BUF       4096

static size_t hash_name(const char *name, size_t len)
{
    size_t h = 5381;
    for (size_t i = 0; i < len; i++)
        h = h * 33 + (unsigned char)name[i];
    return h;
}

int gr_topics_init(gr_topics_t *t)
{
    t->bucket_count = TOPICS_BUCKETS;
    t->count = 0;
    gr_log_flush_set_init(&t->flush_set);
    t->buckets = calloc(t->bucket_count, sizeof(*t->buckets));
    t->id_buckets = calloc(t->bucket_count, sizeof(*t->id_buckets));
    return t->buckets && t->id_buckets ? 0 : -ENOMEM;
}

/* Topic ids are random: their first bytes are a good hash. */
static size_t hash_id(gr_uuid_t id)
{
    size_t h = 0;
    memcpy(&h, id.b, sizeof h);
    return h;
}

void gr_topic_free(gr_topic_t *topic)
{
    for (int i = 0; i < topic->config_count; i++) {
        free(topic->configs[i].key);
        free(topic->configs[i].value);
    }
    for (int32_t i = 0; i < topic->partition_count; i++)
        gr_partition_fini(&topic->partitions[i]);
    free(topic->partitions);
    free(topic->name);
    free(topic);
}

static int topic_close_logs(gr_topic_t *topic)
{
    int first = 0;
    for (int32_t i = 0; i < topic->partition_count; i++) {
        int rc = gr_log_close(topic->partitions[i].log);
        topic->partitions[i].log = NULL;
        if (rc && !first)
            first = rc;
    }
    return first;
}

int gr_topics_fini(gr_topics_t *t)
{
    int first = 0;
    for (size_t i = 0; t->buckets && i < t->bucket_count; i++) {
        gr_topic_t *topic = t->buckets[i];
        while (topic) {
            gr_topic_t *next = topic->next;
            int rc = topic_close_logs(topic);
            if (rc && !first)
                first = rc;
            gr_topic_free(topic);
            topic = next;
        }
    }
    free(t->buckets);
    free(t->id_buckets);
    t->buckets = NULL;
    t->id_buckets = NULL;
    gr_topics_checkpoints_fini(t);
    return first;
}

gr_topic_t *gr_topics_find(gr_topics_t *t, const char *name, size_t len)
{
    gr_topic_t *topic = t->buckets[hash_name(name, len) % t->bucket_count];
    for (; topic; topic = topic->next)
        if (strlen(topic->name) == len && memcmp(topic->name, name, len) == 0)
            return topic;
    return NULL;
}

gr_topic_t *gr_topics_find_id(gr_topics_t *t, gr_uuid_t id)
{
    gr_topic_t *topic = t->id_buckets[hash_id(id) % t->bucket_count];
    for (; topic; topic = topic->next_by_id)
        if (memcmp(topic->id.b, id.b, sizeof id.b) == 0)
            return topic;
    return NULL;
}

gr_partition_t *gr_topic_partition(gr_topic_t *topic, int32_t index)
{
    if (!topic || index < 0 || index >= topic->partition_count)
        return NULL;
    return &topic->partitions[index];
}

void gr_topics_foreach(gr_topics_t *t, void (*fn)(gr_topic_t *, void *), void *arg)
{
    for (size_t i = 0; i < t->bucket_count; i++) {
        gr_topic_t *topic = t->buckets[i];
        while (topic) {
            gr_topic_t *next = topic->next;
            fn(topic, arg);
            topic = next;
        }
    }
}

gr_kerr_t gr_topic_name_check(const char *name, size_t len)
{
    if (len == 0 || len > GR_TOPIC_NAME_LIMIT)
        return GR_KERR_INVALID_TOPIC_EXCEPTION;
    if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
        return GR_KERR_INVALID_TOPIC_EXCEPTION;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok)
            return GR_KERR_INVALID_TOPIC_EXCEPTION;
    }
    return GR_KERR_NONE;
}

const char *gr_topics_log_dir(const gr_broker_t *b)
{
    return gr_log_dir_path(b->log_dir);
}

int gr_topic_partition_open(gr_broker_t *b, gr_topic_t *topic, int32_t index)
{
    char path[PATH_BUF];
    snprintf(path, sizeof path, "%s/%s-%d", gr_topics_log_dir(b), topic->name, index);
    gr_log_open_args_t args = {
        .io = &b->io->ops,
        .fds = b->fds,
        .clean_shutdown = gr_log_dir_was_clean(b->log_dir),
        .now_ms = gr_broker_now_ms(b),
        .flush_set = &b->topics->flush_set,
    };
    /* A leader alone in its ISR moves the high watermark to the log end at once (partition.h). */
    gr_topics_checkpoints_find(b->topics, topic->name, index, &args);
    gr_log_open_stats_t stats;
    gr_partition_t *p = &topic->partitions[index];
    p->topic = topic;
    p->index = index;
    p->leader_epoch = 0;
    p->leader_id = b->config.broker_id;
    int rc = gr_log_open(&topic->settings.log, path, &args, &p->log, &stats);
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "log", "cannot open %s: %s", path, strerror(-rc));
        return rc;
    }
    gr_topics_checkpoints_forget(b->topics, topic->name, index); /* the open log's now */
    if (stats.bytes_scanned || stats.bytes_truncated)
        gr_logf(&b->log, GR_LOG_WARN, "log",
                "recovered %s-%d: %d segment(s) scanned, %" PRId64 " bytes scanned, %" PRId64
                " bytes truncated, %d index(es) rebuilt",
                topic->name, index, stats.segments_recovered, stats.bytes_scanned,
                stats.bytes_truncated, stats.indexes_rebuilt);
    gr_uuid_t id;
    bool had_id = gr_log_topic_id(p->log, &id);
    if (had_id && memcmp(id.b, topic->id.b, sizeof id.b) != 0)
        gr_logf(&b->log, GR_LOG_WARN, "topics",
                "%s held another topic id (left by an earlier topic of that name): replacing it",
                path);
    if (!had_id || memcmp(id.b, topic->id.b, sizeof id.b) != 0)
        rc = gr_log_set_topic_id(p->log, topic->id);
    return rc;
}

void gr_topics_insert(gr_topics_t *t, gr_topic_t *topic)
{
    size_t h = hash_name(topic->name, strlen(topic->name)) % t->bucket_count;
    topic->next = t->buckets[h];
    t->buckets[h] = topic;
    size_t hi = hash_id(topic->id) % t->bucket_count;
    topic->next_by_id = t->id_buckets[hi];
    t->id_buckets[hi] = topic;
    t->count++;
    t->generation++;
}

void gr_topics_remove(gr_topics_t *t, gr_topic_t *topic)
{
    size_t h = hash_name(topic->name, strlen(topic->name)) % t->bucket_count;
    for (gr_topic_t **pp = &t->buckets[h]; *pp; pp = &(*pp)->next) {
        if (*pp == topic) {
            *pp = topic->next;
            t->count--;
            t->generation++;
            break;
        }
    }
    size_t hi = hash_id(topic->id) % t->bucket_count;
    for (gr_topic_t **pp = &t->id_buckets[hi]; *pp; pp = &(*pp)->next_by_id) {
        if (*pp == topic) {
            *pp = topic->next_by_id;
            break;
        }
    }
}

gr_topic_t *gr_topic_new(const char *name, int32_t partitions)
{
    gr_topic_t *topic = calloc(1, sizeof(*topic));
    if (!topic)
        return NULL;
    topic->name = strdup(name);
    topic->partitions = calloc((size_t)partitions, sizeof(*topic->partitions));
    topic->partition_count = partitions;
    /* Kafka's internal topics are exactly its coordinators' three (4.x: the share state too). */
    topic->internal = strcmp(name, GR_OFFSETS_TOPIC) == 0 ||
                      strcmp(name, GR_TRANSACTION_STATE_TOPIC) == 0 ||
                      strcmp(name, GR_SHARE_STATE_TOPIC) == 0;
    if (!topic->name || !topic->partitions) {
        gr_topic_free(topic);
        return NULL;
    }
    return topic;
}

/* Adds or replaces an override: a key given twice keeps its last value, as Kafka does. */
/* Kafka's canonical text of a valid value; an invalid one (from an old store) is kept as is. */
static char *config_value_dup(const char *key, const char *value)
{
    char err[GR_STORE_PATH_MAX];
    char *canonical = NULL;
    if (gr_topic_config_normalize(key, value, &canonical, err, sizeof err) == 0)
        return canonical;
    return strdup(value);
}

int gr_topic_add_config(gr_topic_t *topic, const char *key, const char *value)
{
    for (int i = 0; i < topic->config_count; i++) {
        if (strcmp(topic->configs[i].key, key) != 0)
            continue;
        char *copy = config_value_dup(key, value);
        if (!copy)
            return -ENOMEM;
        free(topic->configs[i].value);
        topic->configs[i].value = copy;
        return 0;
    }
    if (topic->config_count >= GR_TOPIC_MAX_CONFIGS)
        return -E2BIG;
    gr_topic_config_t *c = &topic->configs[topic->config_count];
    c->key = strdup(key);
    c->value = config_value_dup(key, value);
    if (!c->key || !c->value) {
        free(c->key);
        free(c->value);
        return -ENOMEM;
    }
    topic->config_count++;
    return 0;
}

gr_kerr_t gr_topics_create_check(gr_broker_t *b, const char *name, int32_t partitions,
                                 const gr_topic_config_t *configs, int config_count, char *err,
                                 size_t errlen)
{
    gr_kerr_t kerr = gr_topic_name_check(name, strlen(name));
    if (kerr) {
        snprintf(err, errlen, "Topic name \"%s\" is illegal", name);
        return kerr;
    }
    if (gr_topics_find(b->topics, name, strlen(name))) {
        snprintf(err, errlen, "Topic '%s' already exists.", name);
        return GR_KERR_TOPIC_ALREADY_EXISTS;
    }
    if (partitions <= 0) {
        snprintf(err, errlen, "Number of partitions must be larger than 0.");
        return GR_KERR_INVALID_PARTITIONS;
    }
    /* Creation runs on the loop thread: bound what one request can ask for. */
    if (partitions > GR_TOPIC_MAX_PARTITIONS) {
        snprintf(err, errlen, "Number of partitions %d exceeds the limit of %d.", partitions,
                 GR_TOPIC_MAX_PARTITIONS);
        return GR_KERR_INVALID_PARTITIONS;
    }
    for (int i = 0; i < config_count; i++) {
        kerr = gr_topic_config_check(configs[i].key, configs[i].value, err, errlen);
        if (kerr)
            return kerr;
    }
    return GR_KERR_NONE;
}

void gr_topic_clear_configs(gr_topic_t *topic)
{
    for (int i = 0; i < topic->config_count; i++) {
        free(topic->configs[i].key);
        free(topic->configs[i].value);
    }
    topic->config_count = 0;
}

void gr_topic_adopt_configs(gr_broker_t *b, gr_topic_t *topic, gr_topic_t *fresh)
{
    gr_topic_clear_configs(topic);
    memcpy(topic->configs, fresh->configs, sizeof(topic->configs));
    topic->config_count = fresh->config_count;
    free(fresh);
    gr_topic_settings_compute(b, topic);
    for (int32_t i = 0; i < topic->partition_count; i++)
        if (topic->partitions[i].log)
            gr_log_set_config(topic->partitions[i].log, &topic->settings.log);
}

gr_kerr_t gr_topics_set_configs(gr_broker_t *b, gr_topic_t *topic, const gr_topic_config_t *configs,
                                int count, bool validate_only, char *err, size_t errlen)
{
    if (count > GR_TOPIC_MAX_CONFIGS) {
        snprintf(err, errlen, "At most %d topic configs can be set", GR_TOPIC_MAX_CONFIGS);
        return GR_KERR_INVALID_CONFIG;
    }
    for (int i = 0; i < count; i++) {
        gr_kerr_t kerr = gr_topic_config_check(configs[i].key, configs[i].value, err, errlen);
        if (kerr)
            return kerr;
    }
    gr_kerr_t kerr = gr_topic_config_check_set(configs, count, err, errlen);
    if (kerr || validate_only)
        return kerr;
    /* Build the new set aside, so that running out of memory changes nothing. */
    gr_topic_t *fresh = calloc(1, sizeof(*fresh));
    int rc = fresh ? 0 : -ENOMEM;
    for (int i = 0; rc == 0 && i < count; i++)
        rc = gr_topic_add_config(fresh, configs[i].key, configs[i].value);
    if (rc) {
        if (fresh)
            gr_topic_clear_configs(fresh);
        free(fresh);
        snprintf(err, errlen, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_topic_adopt_configs(b, topic, fresh);
    gr_logf(&b->log, GR_LOG_INFO, "topics", "topic %s now has %d config override(s)", topic->name,
            topic->config_count);
    return GR_KERR_NONE;
}
