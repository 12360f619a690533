/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topic table: see topics.h.
 *
 * Persistence. A topic's definition lives in the metadata store (store.h;
 * in single-node mode the local store under the first log dir), in Kafka's
 * ZooKeeper layout and JSON so that the ZooKeeper store can replace it:
 *   /config/topics/<name>   {"version":1,"config":{"retention.ms":"1000",...}}
 *   /brokers/topics/<name>  {"partitions":{"0":[<broker id>],...},
 *                            "topic_id":"<base64url uuid>","adding_replicas":{},
 *                            "removing_replicas":{},"version":3}
 * The config is written before the assignment, as Kafka does, so whoever
 * sees the assignment also finds the config. The partitions' data is in the
 * log dir, each partition.metadata holding the topic id.
 *
 * gr_topics_create is synchronous for the table and the logs (handlers answer
 * at once) and issues the two store writes asynchronously on the broker's
 * session; the session applies them in issue order. The local store applies
 * and fsyncs a change inside the call that issues it, so in single-node mode
 * the store is already durable when gr_topics_create returns; a ZooKeeper
 * store would apply them later. A failed write is logged as an ERROR (the
 * topic then lives until the next restart only). gr_topics_delete issues the
 * store deletes (assignment, then config) before deleting the logs, so a
 * deleted topic never comes back. Kafka's ZooKeeper mode goes through
 * /admin/delete_topics because the controller, another process, performs the
 * deletion and must resume it after a failover; here the broker is its own
 * controller and deletes synchronously, so a direct delete is enough.
 *
 * Crashes, and how gr_topics_load reconciles them at start-up:
 *  - between creating the partition dirs and the store writes (or after a
 *    failed write): the dirs exist, the topic is not in the store. Partition
 *    dirs of topics missing from the store are left alone and logged (never
 *    deleted: a lost or foreign store must not destroy data); creating the
 *    topic again adopts them, with the new topic id;
 *  - between the config and the assignment write (or between the assignment
 *    and the config delete): a config without an assignment. It is deleted;
 *  - between the store deletes and the log deletion: as the first case;
 *  - a topic in the store whose partition dirs are missing (lost, or never
 *    created): the missing partitions are created empty.
 * A store document that cannot be parsed fails the start-up rather than
 * dropping a topic silently.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/context.h"
#include "log/batch_io.h"
#include "log/log.h"
#include "log/log_dir.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "metadata/topic_config.h"
#include "metadata/topics_int.h"
#include "metadata/store.h"
#include "metadata/zk_docs.h"
#include "metadata/zk_json.h"

#define TOPICS_BUCKETS 1024
#define PATH_BUF       4096

/* Kafka's znodes for topics, and the versions of their JSON documents. */
#define STORE_TOPICS_PATH        "/brokers/topics"
#define STORE_TOPIC_CONFIGS_PATH "/config/topics"

/* How long start-up waits for one store read before giving up. */
#define STORE_READ_DEADLINE_SEC 30.0

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
    for (int32_t i = 0; i < topic->partition_count; i++) {
        free(topic->partitions[i].replicas);
        free(topic->partitions[i].isr);
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
            gr_topic_free(topic);
            topic = next;
        }
    }
    free(t->buckets);
    free(t->id_buckets);
    t->buckets = NULL;
    t->id_buckets = NULL;
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

/* ---- store writes ------------------------------------------------------------------ */

typedef enum store_op {
    STORE_OP_CREATE,
    STORE_OP_SET,
    STORE_OP_DELETE,
} store_op_t;

static const char *const store_op_names[] = {"create", "set", "delete"};

/* One asynchronous write of a topic's node, owning copies of its path and data. */
typedef struct store_write {
    gr_broker_t *b;
    store_op_t op;
    char *data;
    size_t len;
    char path[GR_STORE_PATH_MAX + 1];
} store_write_t;

/* Reports w's outcome (an ERROR unless it succeeded) and frees it. */
static void store_write_finish(store_write_t *w, int rc)
{
    if (rc == GR_STORE_NONODE && w->op == STORE_OP_DELETE)
        gr_logf(&w->b->log, GR_LOG_WARN, "metadata", "%s was already absent from the store",
                w->path);
    else if (rc != GR_STORE_OK)
        gr_logf(&w->b->log, GR_LOG_ERROR, "metadata", "%s of %s in the store failed: %s",
                store_op_names[w->op], w->path, gr_store_rc_name(rc));
    free(w->data);
    free(w);
}

static void store_write_issue(store_write_t *w);

static void on_store_created(void *opaque, int rc, const char *path)
{
    (void)path;
    store_write_t *w = opaque;
    w->b->store_pending--;
    if (rc == GR_STORE_NODEEXISTS && w->b->store_session) {
        /* Left behind by a delete that failed earlier: replace it. */
        gr_logf(&w->b->log, GR_LOG_WARN, "metadata", "%s was already in the store: replacing it",
                w->path);
        w->op = STORE_OP_SET;
        store_write_issue(w);
        return;
    }
    store_write_finish(w, rc);
}

static void on_store_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    store_write_t *w = opaque;
    w->b->store_pending--;
    store_write_finish(w, rc);
}

static void on_store_deleted(void *opaque, int rc)
{
    store_write_t *w = opaque;
    w->b->store_pending--;
    store_write_finish(w, rc);
}

/* Issues w on the broker's session; its completion (or a refusal now) finishes it. */
static void store_write_issue(store_write_t *w)
{
    gr_store_session_t *s = w->b->store_session;
    int rc = GR_STORE_CLOSING;
    if (s && w->op == STORE_OP_CREATE)
        rc = gr_store_create(s, w->path, w->data, w->len, GR_STORE_PERSISTENT, on_store_created, w);
    else if (s && w->op == STORE_OP_SET)
        rc = gr_store_set(s, w->path, w->data, w->len, GR_STORE_ANY_VERSION, on_store_set, w);
    else if (s)
        rc = gr_store_delete(s, w->path, GR_STORE_ANY_VERSION, on_store_deleted, w);
    if (rc == GR_STORE_OK)
        w->b->store_pending++;
    else
        store_write_finish(w, rc);
}

/* Writes (op) parent/name with json's text, or deletes it (json NULL); errors are logged. */
static void topic_store_write(gr_broker_t *b, store_op_t op, const char *parent, const char *name,
                              gr_zk_json_writer_t *json)
{
    store_write_t *w = calloc(1, sizeof(*w));
    const char *text = NULL;
    size_t len = 0;
    int rc = w ? 0 : -ENOMEM;
    if (rc == 0 && json)
        rc = gr_zk_json_writer_finish(json, &text, &len);
    if (rc == 0 && json && !(w->data = malloc(len)))
        rc = -ENOMEM;
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "metadata", "cannot %s %s/%s in the store: %s",
                store_op_names[op], parent, name, strerror(-rc));
        free(w);
        return;
    }
    if (json)
        memcpy(w->data, text, len);
    w->len = len;
    w->b = b;
    w->op = op;
    snprintf(w->path, sizeof w->path, "%s/%s", parent, name);
    store_write_issue(w);
}

static void topic_config_json(const gr_topic_t *topic, gr_zk_json_writer_t *w)
{
    (void)gr_zk_doc_topic_config(w, topic->configs, topic->config_count); /* errors are sticky */
}

/* Kafka's partition assignment, every partition on this broker alone. */
static void topic_assignment_json(const gr_broker_t *b, const gr_topic_t *topic,
                                  gr_zk_json_writer_t *w)
{
    int32_t self = b->config.broker_id;
    int32_t n = topic->partition_count;
    int32_t **replicas = malloc((size_t)n * sizeof *replicas);
    int32_t *counts = malloc((size_t)n * sizeof *counts);
    for (int32_t i = 0; replicas && counts && i < n; i++) {
        replicas[i] = &self;
        counts[i] = 1;
    }
    gr_zk_assignment_t a = {.id = topic->id,
                            .has_id = true,
                            .partition_count = n,
                            .replicas = replicas,
                            .replica_counts = counts};
    /* Without memory nothing is written: finishing the writer reports it. */
    if (replicas && counts)
        (void)gr_zk_doc_assignment(w, &a);
    free(replicas);
    free(counts);
}

/* Writes the assignment only (op CREATE or SET), or the config then the assignment (both). */
static void topic_store_save(gr_broker_t *b, const gr_topic_t *topic, store_op_t op, bool config)
{
    gr_zk_json_writer_t w;
    if (config) {
        gr_zk_json_writer_init(&w);
        topic_config_json(topic, &w);
        topic_store_write(b, op, STORE_TOPIC_CONFIGS_PATH, topic->name, &w);
        gr_zk_json_writer_fini(&w);
    }
    gr_zk_json_writer_init(&w);
    topic_assignment_json(b, topic, &w);
    topic_store_write(b, op, STORE_TOPICS_PATH, topic->name, &w);
    gr_zk_json_writer_fini(&w);
}

int gr_topic_partition_open(gr_broker_t *b, gr_topic_t *topic, int32_t index,
                            const gr_checkpoint_entry_t *recovery, size_t recovery_count,
                            const gr_checkpoint_entry_t *start, size_t start_count)
{
    char path[PATH_BUF];
    snprintf(path, sizeof path, "%s/%s-%d", gr_topics_log_dir(b), topic->name, index);
    gr_log_open_args_t args = {
        .io = &b->io->ops,
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
    p->leader_id = b->config.broker_id;
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
}

void gr_topics_remove(gr_topics_t *t, gr_topic_t *topic)
{
    size_t h = hash_name(topic->name, strlen(topic->name)) % t->bucket_count;
    for (gr_topic_t **pp = &t->buckets[h]; *pp; pp = &(*pp)->next) {
        if (*pp == topic) {
            *pp = topic->next;
            t->count--;
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
    /* Kafka's internal topics are exactly its coordinators' two. */
    topic->internal =
        strcmp(name, GR_OFFSETS_TOPIC) == 0 || strcmp(name, GR_TRANSACTION_STATE_TOPIC) == 0;
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

static int topic_add_config(gr_topic_t *topic, const char *key, const char *value)
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

static int open_partitions(gr_broker_t *b, gr_topic_t *topic)
{
    gr_checkpoint_entry_t *recovery = NULL, *start = NULL;
    size_t recovery_count = 0, start_count = 0;
    (void)gr_log_dir_read_checkpoint(b->log_dir, GR_CHECKPOINT_RECOVERY_POINT, &recovery,
                                     &recovery_count);
    (void)gr_log_dir_read_checkpoint(b->log_dir, GR_CHECKPOINT_LOG_START, &start, &start_count);
    int rc = 0;
    for (int32_t i = 0; i < topic->partition_count && rc == 0; i++)
        rc = gr_topic_partition_open(b, topic, i, recovery, recovery_count, start, start_count);
    free(recovery);
    free(start);
    return rc;
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

gr_kerr_t gr_topics_create(gr_broker_t *b, const char *name, int32_t partitions,
                           const gr_topic_config_t *configs, int config_count, gr_topic_t **out,
                           char *err, size_t errlen)
{
    gr_kerr_t kerr =
        gr_topics_create_check(b, name, partitions, configs, config_count, err, errlen);
    if (kerr)
        return kerr;
    gr_topic_t *topic = gr_topic_new(name, partitions);
    if (!topic)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (int i = 0; i < config_count; i++) {
        if (topic_add_config(topic, configs[i].key, configs[i].value)) {
            gr_topic_free(topic);
            snprintf(err, errlen, "Too many configs");
            return GR_KERR_INVALID_CONFIG;
        }
    }
    if (getrandom(topic->id.b, sizeof topic->id.b, 0) != (ssize_t)sizeof topic->id.b) {
        gr_topic_free(topic);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_topic_settings_compute(b, topic);
    gr_batch_io_begin(b->io);
    int rc = open_partitions(b, topic);
    int sync_rc = gr_batch_io_end(b->io, gr_topics_log_dir(b));
    if (rc == 0)
        rc = sync_rc;
    if (rc) {
        topic_close_logs(topic);
        gr_topic_free(topic);
        snprintf(err, errlen, "Cannot create topic: %s", strerror(-rc));
        return gr_kerr_from_errno(rc);
    }
    gr_topics_insert(b->topics, topic);
    topic_store_save(b, topic, STORE_OP_CREATE, true);
    gr_logf(&b->log, GR_LOG_INFO, "topics", "created topic %s with %d partition(s)", name,
            partitions);
    if (out)
        *out = topic;
    return GR_KERR_NONE;
}

gr_kerr_t gr_topics_delete(gr_broker_t *b, gr_topic_t *topic)
{
    gr_topics_remove(b->topics, topic);
    /* The assignment first: a crash in between leaves a config alone, which start-up removes. */
    topic_store_write(b, STORE_OP_DELETE, STORE_TOPICS_PATH, topic->name, NULL);
    topic_store_write(b, STORE_OP_DELETE, STORE_TOPIC_CONFIGS_PATH, topic->name, NULL);
    for (int32_t i = 0; i < topic->partition_count; i++) {
        gr_partition_t *p = &topic->partitions[i];
        gr_partition_wake_all(p);
        int rc = gr_log_delete(p->log);
        p->log = NULL;
        if (rc)
            gr_logf(&b->log, GR_LOG_WARN, "topics", "deleting %s-%d: %s", topic->name, i,
                    strerror(-rc));
    }
    gr_logf(&b->log, GR_LOG_INFO, "topics", "deleted topic %s", topic->name);
    gr_topic_free(topic);
    return GR_KERR_NONE;
}

/* Writes the topic's overrides to /config/topics/<name> (replacing the document). */
static void topic_store_save_config(gr_broker_t *b, const gr_topic_t *topic)
{
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    topic_config_json(topic, &w);
    topic_store_write(b, STORE_OP_SET, STORE_TOPIC_CONFIGS_PATH, topic->name, &w);
    gr_zk_json_writer_fini(&w);
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
        rc = topic_add_config(fresh, configs[i].key, configs[i].value);
    if (rc) {
        if (fresh)
            gr_topic_clear_configs(fresh);
        free(fresh);
        snprintf(err, errlen, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_topic_adopt_configs(b, topic, fresh);
    if (!b->cluster->zk_mode) /* in a cluster the caller notifies every broker */
        topic_store_save_config(b, topic);
    gr_logf(&b->log, GR_LOG_INFO, "topics", "topic %s now has %d config override(s)", topic->name,
            topic->config_count);
    return GR_KERR_NONE;
}

gr_kerr_t gr_topics_add_partitions(gr_broker_t *b, gr_topic_t *topic, int32_t count, char *err,
                                   size_t errlen)
{
    int32_t old = topic->partition_count;
    if (count <= old || count > GR_TOPIC_MAX_PARTITIONS) {
        snprintf(err, errlen, "Cannot grow topic %s from %d to %d partitions (limit %d).",
                 topic->name, old, count, GR_TOPIC_MAX_PARTITIONS);
        return GR_KERR_INVALID_PARTITIONS;
    }
    /* Waiting fetches point at the partitions, which realloc may move. */
    for (int32_t i = 0; i < old; i++)
        gr_partition_wake_all(&topic->partitions[i]);
    gr_partition_t *grown = realloc(topic->partitions, (size_t)count * sizeof(*grown));
    if (!grown) {
        snprintf(err, errlen, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    topic->partitions = grown;
    memset(&grown[old], 0, (size_t)(count - old) * sizeof(*grown));
    gr_batch_io_begin(b->io);
    int rc = 0;
    int32_t opened = old;
    for (; opened < count && rc == 0; opened++)
        rc = gr_topic_partition_open(b, topic, opened, NULL, 0, NULL, 0);
    int sync_rc = gr_batch_io_end(b->io, gr_topics_log_dir(b));
    if (rc == 0)
        rc = sync_rc;
    if (rc) {
        for (int32_t i = old; i < opened; i++) {
            (void)gr_log_close(grown[i].log);
            grown[i].log = NULL;
        }
        snprintf(err, errlen, "Cannot create partitions: %s", strerror(-rc));
        return gr_kerr_from_errno(rc);
    }
    topic->partition_count = count;
    topic_store_save(b, topic, STORE_OP_SET, false);
    gr_logf(&b->log, GR_LOG_INFO, "topics", "topic %s grew from %d to %d partitions", topic->name,
            old, count);
    return GR_KERR_NONE;
}

/* ---- start-up load ------------------------------------------------------------------ */

/* A store read start-up waits for. If the wait gives up, the callback frees it. */
typedef struct store_read {
    bool done;
    bool abandoned;
    int rc;
    char *data; /* get: the data, NUL-terminated */
    size_t len;
    char **names; /* children: the names */
    size_t count;
} store_read_t;

static void store_read_free(store_read_t *r)
{
    for (size_t i = 0; i < r->count; i++)
        free(r->names[i]);
    free(r->names);
    free(r->data);
    free(r);
}

static void on_read_data(void *opaque, int rc, const void *data, size_t len,
                         const gr_store_stat_t *stat)
{
    (void)stat;
    store_read_t *r = opaque;
    r->done = true;
    r->rc = rc;
    if (rc == GR_STORE_OK) {
        r->data = malloc(len + 1);
        if (r->data) {
            if (len)
                memcpy(r->data, data, len);
            r->data[len] = '\0';
            r->len = len;
        } else {
            r->rc = GR_STORE_NOMEM;
        }
    }
    if (r->abandoned)
        store_read_free(r);
}

static void on_read_children(void *opaque, int rc, const char *const *names, size_t count,
                             const gr_store_stat_t *stat)
{
    (void)stat;
    store_read_t *r = opaque;
    r->done = true;
    r->rc = rc;
    if (rc == GR_STORE_OK) {
        r->names = calloc(count ? count : 1, sizeof(*r->names));
        for (size_t i = 0; r->names && i < count; i++) {
            r->names[i] = strdup(names[i]);
            if (!r->names[i])
                break;
            r->count++;
        }
        if (r->count != count)
            r->rc = GR_STORE_NOMEM;
    }
    if (r->abandoned)
        store_read_free(r);
}

static void on_read_deadline(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    *(bool *)t->data = true;
}

static int store_rc_to_errno(int rc)
{
    switch (rc) {
    case GR_STORE_OK:
        return 0;
    case GR_STORE_NONODE:
        return -ENOENT;
    case GR_STORE_NOMEM:
        return -ENOMEM;
    case GR_STORE_OPERATIONTIMEOUT:
        return -ETIMEDOUT;
    default:
        return -EIO;
    }
}

/*
 * Reads path's data, or its children's names when children is true, running
 * the loop until the read completes (start-up only: no connection exists yet,
 * so nothing else is served meanwhile). Returns 0 and *out (free with
 * store_read_free), -ENOENT (no such node), -ETIMEDOUT, -EIO, -ENOMEM.
 */
static int store_read(gr_broker_t *b, const char *path, bool children, store_read_t **out)
{
    if (!b->store_session)
        return -EIO;
    store_read_t *r = calloc(1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    int rc = children ? gr_store_children(b->store_session, path, NULL, NULL, on_read_children, r)
                      : gr_store_get(b->store_session, path, NULL, NULL, on_read_data, r);
    if (rc != GR_STORE_OK) {
        free(r);
        return store_rc_to_errno(rc);
    }
    bool expired = false;
    ev_timer deadline;
    ev_timer_init(&deadline, on_read_deadline, STORE_READ_DEADLINE_SEC, 0.);
    deadline.data = &expired;
    ev_timer_start(b->loop, &deadline);
    while (!r->done && !expired)
        ev_run(b->loop, EVRUN_ONCE);
    ev_timer_stop(b->loop, &deadline);
    if (!r->done) {
        r->abandoned = true; /* its completion frees it */
        return -ETIMEDOUT;
    }
    rc = store_rc_to_errno(r->rc);
    if (rc) {
        store_read_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

/* Reads the partition count and topic id of an assignment document. 0, -EINVAL, -ENOMEM. */
static int parse_assignment(const char *text, size_t len, int32_t *partitions, gr_uuid_t *id,
                            bool *has_id)
{
    gr_zk_assignment_t a;
    int rc = gr_zk_parse_assignment(text, len, &a);
    if (rc)
        return rc;
    *partitions = a.partition_count;
    *id = a.id;
    *has_id = a.has_id;
    gr_zk_assignment_free(&a);
    return 0;
}

/* Adds the overrides of a topic config document to topic. 0, -EINVAL, -E2BIG, -ENOMEM. */
int gr_topic_parse_config(const char *text, size_t len, gr_topic_t *topic)
{
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc)
        return rc;
    const gr_zk_json_t *config = gr_zk_json_find(doc, "config");
    if (!config || config->type != GR_ZK_JSON_OBJECT)
        rc = -EINVAL;
    for (size_t i = 0; rc == 0 && i < config->count; i++) {
        const gr_zk_json_t *value = config->items[i];
        if (value->type != GR_ZK_JSON_STRING || strlen(value->string) != value->string_len)
            rc = -EINVAL;
        else
            rc = topic_add_config(topic, config->keys[i], value->string);
    }
    gr_zk_json_free(doc);
    return rc;
}

/* Loads one topic from the store and opens its partitions. 0 or -errno (logged). */
static int topic_load(gr_broker_t *b, const char *name)
{
    char path[GR_STORE_PATH_MAX + 1];
    store_read_t *assignment = NULL, *config = NULL;
    gr_topic_t *topic = NULL;
    int32_t partitions = 0;
    gr_uuid_t id;
    bool has_id = false;
    int rc = -EINVAL;
    snprintf(path, sizeof path, "%s/%s", STORE_TOPICS_PATH, name);
    if (gr_topic_name_check(name, strlen(name)) != GR_KERR_NONE)
        goto fail;
    rc = store_read(b, path, false, &assignment);
    if (rc == 0)
        rc = parse_assignment(assignment->data, assignment->len, &partitions, &id, &has_id);
    if (rc)
        goto fail;
    topic = gr_topic_new(name, partitions);
    rc = topic ? 0 : -ENOMEM;
    if (rc)
        goto fail;
    snprintf(path, sizeof path, "%s/%s", STORE_TOPIC_CONFIGS_PATH, name);
    rc = store_read(b, path, false, &config);
    if (rc == -ENOENT)
        gr_logf(&b->log, GR_LOG_WARN, "topics", "%s is missing: topic %s uses broker defaults",
                path, name);
    if (rc == -ENOENT)
        rc = 0;
    else if (rc == 0)
        rc = gr_topic_parse_config(config->data, config->len, topic);
    if (rc)
        goto fail;
    if (has_id) {
        topic->id = id;
    } else {
        rc =
            getrandom(topic->id.b, sizeof topic->id.b, 0) == (ssize_t)sizeof topic->id.b ? 0 : -EIO;
        if (rc)
            goto fail;
        gr_logf(&b->log, GR_LOG_WARN, "topics", "topic %s had no topic id: assigning one", name);
        topic_store_save(b, topic, STORE_OP_SET, false);
    }
    gr_topic_settings_compute(b, topic);
    rc = open_partitions(b, topic);
    if (rc == 0) {
        gr_topics_insert(b->topics, topic);
        topic = NULL;
    }
fail:
    if (rc)
        gr_logf(&b->log, GR_LOG_ERROR, "topics", "cannot load topic %s (%s): %s", name, path,
                strerror(-rc));
    if (topic) {
        topic_close_logs(topic);
        gr_topic_free(topic);
    }
    if (assignment)
        store_read_free(assignment);
    if (config)
        store_read_free(config);
    return rc;
}

/* Logs partition directories that no topic in the store owns; they are left alone. */
static void report_stray_partitions(gr_broker_t *b)
{
    gr_log_dir_partition_t *parts = NULL;
    size_t count = 0;
    int rc = gr_log_dir_list_partitions(b->log_dir, &parts, &count);
    if (rc) {
        gr_logf(&b->log, GR_LOG_WARN, "topics", "cannot list partition directories: %s",
                strerror(-rc));
        return;
    }
    for (size_t i = 0; i < count; i++) {
        gr_topic_t *topic = gr_topics_find(b->topics, parts[i].topic, strlen(parts[i].topic));
        if (!topic || parts[i].partition >= topic->partition_count)
            gr_logf(&b->log, GR_LOG_WARN, "topics",
                    "%s/%s belongs to no partition in the metadata store: left alone",
                    gr_topics_log_dir(b), parts[i].name);
    }
    free(parts);
}

int gr_topics_load(gr_broker_t *b)
{
    store_read_t *names = NULL;
    int rc = store_read(b, STORE_TOPICS_PATH, true, &names);
    /* Recovering thousands of partitions: one syncfs instead of their fsyncs. */
    gr_batch_io_begin(b->io);
    for (size_t i = 0; rc == 0 && i < names->count; i++)
        rc = topic_load(b, names->names[i]);
    int sync_rc = gr_batch_io_end(b->io, gr_topics_log_dir(b));
    if (rc == 0)
        rc = sync_rc;
    if (names)
        store_read_free(names);
    names = NULL;
    /* A config without its topic: a crash between the two writes of a creation or deletion. */
    if (rc == 0)
        rc = store_read(b, STORE_TOPIC_CONFIGS_PATH, true, &names);
    for (size_t i = 0; rc == 0 && i < names->count; i++) {
        const char *name = names->names[i];
        if (gr_topics_find(b->topics, name, strlen(name)))
            continue;
        gr_logf(&b->log, GR_LOG_WARN, "topics", "removing %s/%s: topic %s is not in %s",
                STORE_TOPIC_CONFIGS_PATH, name, name, STORE_TOPICS_PATH);
        topic_store_write(b, STORE_OP_DELETE, STORE_TOPIC_CONFIGS_PATH, name, NULL);
    }
    if (names)
        store_read_free(names);
    if (rc == 0)
        report_stray_partitions(b);
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
    gr_topics_foreach(b->topics, collect_checkpoint, &cb);
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
