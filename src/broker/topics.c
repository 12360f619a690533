/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topic table: see topics.h. A topic's definition file
 * "<log dir>/.gregor-topics/<name>.conf" holds "topic.partitions=N",
 * "topic.id=<hex>" and one "key=value" line per config override; it is
 * written atomically before the partitions are created, so a crash leaves
 * either no topic or a topic whose missing partition logs are created at
 * the next start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "broker/broker.h"
#include "handlers/handlers.h"

#define TOPICS_DIR     ".gregor-topics"
#define TOPIC_FILE_MAX (64 * 1024)
#define TOPICS_BUCKETS 1024
#define KEY_PARTITIONS "topic.partitions"
#define KEY_ID         "topic.id"
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
    t->buckets = calloc(t->bucket_count, sizeof(*t->buckets));
    return t->buckets ? 0 : -ENOMEM;
}

static void topic_free(gr_topic_t *topic)
{
    for (int i = 0; i < topic->config_count; i++) {
        free(topic->configs[i].key);
        free(topic->configs[i].value);
    }
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
            topic_free(topic);
            topic = next;
        }
    }
    free(t->buckets);
    t->buckets = NULL;
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
    for (size_t i = 0; i < t->bucket_count; i++)
        for (gr_topic_t *topic = t->buckets[i]; topic; topic = topic->next)
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

static const char *first_log_dir(const gr_broker_t *b)
{
    return gr_log_dir_path(b->log_dir);
}

static void topic_file_path(const gr_broker_t *b, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s/%s.conf", first_log_dir(b), TOPICS_DIR, name);
}

static int topic_write_file(gr_broker_t *b, const gr_topic_t *topic)
{
    char path[PATH_BUF];
    char dir[PATH_BUF];
    snprintf(dir, sizeof dir, "%s/%s", first_log_dir(b), TOPICS_DIR);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return -errno;
    topic_file_path(b, topic->name, path, sizeof path);
    char *text = malloc(TOPIC_FILE_MAX);
    if (!text)
        return -ENOMEM;
    int n = snprintf(text, TOPIC_FILE_MAX, "%s=%d\n%s=", KEY_PARTITIONS, topic->partition_count,
                     KEY_ID);
    for (size_t i = 0; i < sizeof topic->id.b; i++)
        n += snprintf(text + n, TOPIC_FILE_MAX - (size_t)n, "%02x", topic->id.b[i]);
    n += snprintf(text + n, TOPIC_FILE_MAX - (size_t)n, "\n");
    for (int i = 0; i < topic->config_count && n < TOPIC_FILE_MAX; i++)
        n += snprintf(text + n, TOPIC_FILE_MAX - (size_t)n, "%s=%s\n", topic->configs[i].key,
                      topic->configs[i].value);
    int rc = n >= TOPIC_FILE_MAX ? -E2BIG
                                 : gr_io_write_file_atomic(gr_io_default(), path, text, (size_t)n);
    free(text);
    return rc;
}

static int partition_open(gr_broker_t *b, gr_topic_t *topic, int32_t index,
                          const gr_checkpoint_entry_t *recovery, size_t recovery_count,
                          const gr_checkpoint_entry_t *start, size_t start_count)
{
    char path[PATH_BUF];
    snprintf(path, sizeof path, "%s/%s-%d", first_log_dir(b), topic->name, index);
    gr_log_open_args_t args = {
        .io = NULL,
        .fds = b->fds,
        .clean_shutdown = gr_log_dir_was_clean(b->log_dir),
        .recovery_point = gr_checkpoint_find(recovery, recovery_count, topic->name, index, -1),
        .log_start_offset = gr_checkpoint_find(start, start_count, topic->name, index, -1),
        .high_watermark = -1,
        .now_ms = gr_broker_now_ms(b),
    };
    gr_log_open_stats_t stats;
    gr_partition_t *p = &topic->partitions[index];
    p->topic = topic;
    p->index = index;
    p->leader_epoch = 0;
    int rc = gr_log_open(&topic->settings.log, path, &args, &p->log, &stats);
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "log", "cannot open %s: %s", path, strerror(-rc));
        return rc;
    }
    if (stats.bytes_scanned || stats.bytes_truncated)
        gr_logf(&b->log, GR_LOG_WARN, "log",
                "recovered %s-%d: %d segment(s) scanned, %" PRId64 " bytes scanned, %" PRId64
                " bytes truncated, %d index(es) rebuilt",
                topic->name, index, stats.segments_recovered, stats.bytes_scanned,
                stats.bytes_truncated, stats.indexes_rebuilt);
    gr_uuid_t id;
    if (!gr_log_topic_id(p->log, &id) || memcmp(id.b, topic->id.b, sizeof id.b) != 0)
        rc = gr_log_set_topic_id(p->log, topic->id);
    return rc;
}

static void topics_insert(gr_topics_t *t, gr_topic_t *topic)
{
    size_t h = hash_name(topic->name, strlen(topic->name)) % t->bucket_count;
    topic->next = t->buckets[h];
    t->buckets[h] = topic;
    t->count++;
}

static void topics_remove(gr_topics_t *t, gr_topic_t *topic)
{
    size_t h = hash_name(topic->name, strlen(topic->name)) % t->bucket_count;
    for (gr_topic_t **pp = &t->buckets[h]; *pp; pp = &(*pp)->next) {
        if (*pp == topic) {
            *pp = topic->next;
            t->count--;
            return;
        }
    }
}

static gr_topic_t *topic_new(const char *name, int32_t partitions)
{
    gr_topic_t *topic = calloc(1, sizeof(*topic));
    if (!topic)
        return NULL;
    topic->name = strdup(name);
    topic->partitions = calloc((size_t)partitions, sizeof(*topic->partitions));
    topic->partition_count = partitions;
    topic->internal = name[0] == '_' && name[1] == '_';
    if (!topic->name || !topic->partitions) {
        topic_free(topic);
        return NULL;
    }
    return topic;
}

static int topic_add_config(gr_topic_t *topic, const char *key, const char *value)
{
    if (topic->config_count >= GR_TOPIC_MAX_CONFIGS)
        return -E2BIG;
    gr_topic_config_t *c = &topic->configs[topic->config_count];
    c->key = strdup(key);
    c->value = strdup(value);
    if (!c->key || !c->value) {
        free(c->key);
        free(c->value);
        return -ENOMEM;
    }
    topic->config_count++;
    return 0;
}

static int open_partitions(gr_broker_t *b, gr_topic_t *topic)
{
    gr_checkpoint_entry_t *recovery = NULL, *start = NULL;
    size_t recovery_count = 0, start_count = 0;
    (void)gr_log_dir_read_checkpoint(b->log_dir, GR_CHECKPOINT_RECOVERY_POINT, &recovery,
                                     &recovery_count);
    (void)gr_log_dir_read_checkpoint(b->log_dir, GR_CHECKPOINT_LOG_START, &start, &start_count);
    int rc = 0;
    for (int32_t i = 0; i < topic->partition_count && rc == 0; i++)
        rc = partition_open(b, topic, i, recovery, recovery_count, start, start_count);
    free(recovery);
    free(start);
    return rc;
}

gr_kerr_t gr_topics_create(gr_broker_t *b, const char *name, int32_t partitions,
                           const gr_topic_config_t *configs, int config_count, gr_topic_t **out,
                           char *err, size_t errlen)
{
    gr_kerr_t kerr = gr_topic_name_check(name, strlen(name));
    if (kerr) {
        snprintf(err, errlen, "Topic name \"%s\" is illegal", name);
        return kerr;
    }
    if (gr_topics_find(&b->topics, name, strlen(name))) {
        snprintf(err, errlen, "Topic '%s' already exists.", name);
        return GR_KERR_TOPIC_ALREADY_EXISTS;
    }
    if (partitions <= 0) {
        snprintf(err, errlen, "Number of partitions must be larger than 0.");
        return GR_KERR_INVALID_PARTITIONS;
    }
    for (int i = 0; i < config_count; i++) {
        kerr = gr_topic_config_check(configs[i].key, configs[i].value, err, errlen);
        if (kerr)
            return kerr;
    }
    gr_topic_t *topic = topic_new(name, partitions);
    if (!topic)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (int i = 0; i < config_count; i++) {
        if (topic_add_config(topic, configs[i].key, configs[i].value)) {
            topic_free(topic);
            snprintf(err, errlen, "Too many configs");
            return GR_KERR_INVALID_CONFIG;
        }
    }
    if (getrandom(topic->id.b, sizeof topic->id.b, 0) != (ssize_t)sizeof topic->id.b) {
        topic_free(topic);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_topic_settings_compute(b, topic);
    int rc = topic_write_file(b, topic);
    if (rc == 0)
        rc = open_partitions(b, topic);
    if (rc) {
        topic_close_logs(topic);
        topic_free(topic);
        snprintf(err, errlen, "Cannot create topic: %s", strerror(-rc));
        return gr_kerr_from_errno(rc);
    }
    topics_insert(&b->topics, topic);
    gr_logf(&b->log, GR_LOG_INFO, "topics", "created topic %s with %d partition(s)", name,
            partitions);
    if (out)
        *out = topic;
    return GR_KERR_NONE;
}

gr_kerr_t gr_topics_delete(gr_broker_t *b, gr_topic_t *topic)
{
    char path[PATH_BUF];
    topic_file_path(b, topic->name, path, sizeof path);
    topics_remove(&b->topics, topic);
    if (unlink(path) != 0 && errno != ENOENT)
        gr_logf(&b->log, GR_LOG_WARN, "topics", "cannot remove %s: %s", path, strerror(errno));
    for (int32_t i = 0; i < topic->partition_count; i++) {
        gr_partition_t *p = &topic->partitions[i];
        gr_fetch_wake_all(b, p);
        int rc = gr_log_delete(p->log);
        p->log = NULL;
        if (rc)
            gr_logf(&b->log, GR_LOG_WARN, "topics", "deleting %s-%d: %s", topic->name, i,
                    strerror(-rc));
    }
    gr_logf(&b->log, GR_LOG_INFO, "topics", "deleted topic %s", topic->name);
    topic_free(topic);
    return GR_KERR_NONE;
}

/* Parses one definition file into a new topic. 0 or -errno. */
static int topic_read_file(const char *path, const char *name, gr_topic_t **out)
{
    char *text = NULL;
    size_t len = 0;
    int rc = gr_io_read_file(gr_io_default(), path, TOPIC_FILE_MAX, &text, &len);
    if (rc)
        return rc;
    int32_t partitions = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (strncmp(line, KEY_PARTITIONS "=", strlen(KEY_PARTITIONS) + 1) == 0)
            partitions = (int32_t)atoi(line + strlen(KEY_PARTITIONS) + 1);
    free(text);
    if (partitions <= 0)
        return -EINVAL;
    gr_topic_t *topic = topic_new(name, partitions);
    if (!topic)
        return -ENOMEM;
    rc = gr_io_read_file(gr_io_default(), path, TOPIC_FILE_MAX, &text, &len);
    if (rc) {
        topic_free(topic);
        return rc;
    }
    for (char *line = strtok_r(text, "\n", &save); line && rc == 0;
         line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (strcmp(line, KEY_ID) == 0) {
            for (size_t i = 0; i < sizeof topic->id.b && eq[1 + 2 * i]; i++) {
                unsigned int byte = 0;
                sscanf(eq + 1 + 2 * i, "%2x", &byte);
                topic->id.b[i] = (uint8_t)byte;
            }
        } else if (strcmp(line, KEY_PARTITIONS) != 0) {
            rc = topic_add_config(topic, line, eq + 1);
        }
    }
    free(text);
    if (rc) {
        topic_free(topic);
        return rc;
    }
    *out = topic;
    return 0;
}

int gr_topics_load(gr_broker_t *b)
{
    char dir[PATH_BUF];
    snprintf(dir, sizeof dir, "%s/%s", first_log_dir(b), TOPICS_DIR);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -errno;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n <= 5 || strcmp(e->d_name + n - 5, ".conf") != 0)
            continue;
        char name[GR_TOPIC_NAME_LIMIT + 1];
        if (n - 5 > GR_TOPIC_NAME_LIMIT)
            continue;
        memcpy(name, e->d_name, n - 5);
        name[n - 5] = '\0';
        char path[PATH_BUF + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gr_topic_t *topic = NULL;
        rc = topic_read_file(path, name, &topic);
        if (rc) {
            gr_logf(&b->log, GR_LOG_ERROR, "topics", "bad topic file %s: %s", path, strerror(-rc));
            break;
        }
        gr_topic_settings_compute(b, topic);
        rc = open_partitions(b, topic);
        if (rc) {
            topic_close_logs(topic);
            topic_free(topic);
            break;
        }
        topics_insert(&b->topics, topic);
    }
    closedir(d);
    return rc;
}

typedef struct checkpoint_build {
    gr_checkpoint_entry_t *recovery, *start, *hw;
    size_t count, cap;
    int err;
} checkpoint_build_t;

static void collect_checkpoint(gr_topic_t *topic, void *arg)
{
    checkpoint_build_t *cb = arg;
    for (int32_t i = 0; i < topic->partition_count && !cb->err; i++) {
        gr_log_t *log = topic->partitions[i].log;
        if (!log)
            continue;
        if (cb->count == cb->cap) {
            size_t cap = cb->cap ? cb->cap * 2 : 64;
            gr_checkpoint_entry_t *r = realloc(cb->recovery, cap * sizeof(*r));
            if (r)
                cb->recovery = r;
            gr_checkpoint_entry_t *s = realloc(cb->start, cap * sizeof(*s));
            if (s)
                cb->start = s;
            gr_checkpoint_entry_t *h = realloc(cb->hw, cap * sizeof(*h));
            if (h)
                cb->hw = h;
            if (!r || !s || !h) {
                cb->err = -ENOMEM;
                return;
            }
            cb->cap = cap;
        }
        gr_checkpoint_entry_t *e[3] = {&cb->recovery[cb->count], &cb->start[cb->count],
                                       &cb->hw[cb->count]};
        int64_t values[3] = {gr_log_recovery_point(log), gr_log_start_offset(log),
                             gr_log_high_watermark(log)};
        for (int k = 0; k < 3; k++) {
            snprintf(e[k]->topic, sizeof e[k]->topic, "%s", topic->name);
            e[k]->partition = i;
            e[k]->offset = values[k];
        }
        cb->count++;
    }
}

int gr_topics_checkpoint(gr_broker_t *b)
{
    checkpoint_build_t cb = {0};
    gr_topics_foreach(&b->topics, collect_checkpoint, &cb);
    int rc = cb.err;
    if (!rc)
        rc = gr_log_dir_write_checkpoint(b->log_dir, GR_CHECKPOINT_RECOVERY_POINT, cb.recovery,
                                         cb.count);
    if (!rc)
        rc = gr_log_dir_write_checkpoint(b->log_dir, GR_CHECKPOINT_LOG_START, cb.start, cb.count);
    if (!rc)
        rc = gr_log_dir_write_checkpoint(b->log_dir, GR_CHECKPOINT_REPLICATION, cb.hw, cb.count);
    free(cb.recovery);
    free(cb.start);
    free(cb.hw);
    return rc;
}
