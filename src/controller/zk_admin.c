/* SPDX-License-Identifier: Apache-2.0 */
/* Topic administration through ZooKeeper's nodes; see zk_admin.h. */
#include "controller/zk_admin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/context.h"
#include "controller/zk_member.h"
#include "metadata/cluster_view.h"
#include "metadata/store.h"
#include "metadata/topics.h"
#include "metadata/zk_docs.h"

#define GR_ZK_ADMIN_MSG_MAX 256 /* a placement failure's reason, for the log */

typedef struct admin_op {
    gr_broker_t *b;
    gr_zk_admin_done_fn *done;
    void *opaque;
    char name[GR_TOPIC_NAME_LIMIT + 1];
    int32_t partitions;
    int32_t factor;    /* replicas per partition */
    int32_t *replicas; /* factor per partition, partition-major (the new ones when growing) */
    int32_t given;     /* growing: how many new partitions the caller's replicas cover */
    char *config;      /* /config/topics document */
    size_t config_len;
} admin_op_t;

static void finish(admin_op_t *op, gr_kerr_t err)
{
    if (op->done)
        op->done(op->opaque, err);
    free(op->replicas);
    free(op->config);
    free(op);
}

static gr_kerr_t store_error(const admin_op_t *op, const char *what, int rc)
{
    gr_logf(&op->b->log, GR_LOG_WARN, "zookeeper", "%s of %s failed: %s", what, op->name,
            gr_store_rc_name(rc));
    return rc == GR_STORE_CONNLOSS || rc == GR_STORE_OPERATIONTIMEOUT
               ? GR_KERR_REQUEST_TIMED_OUT
               : GR_KERR_UNKNOWN_SERVER_ERROR;
}

static admin_op_t *op_new(gr_broker_t *b, const char *name, gr_zk_admin_done_fn *done, void *opaque)
{
    admin_op_t *op = calloc(1, sizeof *op);
    if (op) {
        op->b = b;
        op->done = done;
        op->opaque = opaque;
        snprintf(op->name, sizeof op->name, "%s", name);
    }
    return op;
}

/* The writer's text, copied to the heap. */
static char *writer_text(gr_zk_json_writer_t *w, size_t *len)
{
    const char *text = NULL;
    char *copy = NULL;
    if (gr_zk_json_writer_finish(w, &text, len) == 0 && (copy = malloc(*len + 1)))
        memcpy(copy, text, *len + 1);
    gr_zk_json_writer_fini(w);
    return copy;
}

/* ---- create ------------------------------------------------------------------------ */

static void on_assignment_created(void *opaque, int rc, const char *path)
{
    (void)path;
    admin_op_t *op = opaque;
    if (rc == GR_STORE_OK)
        gr_logf(&op->b->log, GR_LOG_INFO, "topics", "created topic %s with %d partition(s)",
                op->name, op->partitions);
    finish(op, rc == GR_STORE_OK           ? GR_KERR_NONE
               : rc == GR_STORE_NODEEXISTS ? GR_KERR_TOPIC_ALREADY_EXISTS
                                           : store_error(op, "creating the assignment", rc));
}

static void write_assignment(admin_op_t *op)
{
    gr_zk_assignment_t a = {.partition_count = op->partitions, .has_id = true};
    int32_t **replicas = calloc((size_t)op->partitions, sizeof *replicas);
    int32_t *counts = calloc((size_t)op->partitions, sizeof *counts);
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    char *text = NULL;
    size_t len = 0;
    if (replicas && counts && getrandom(a.id.b, sizeof a.id.b, 0) == (ssize_t)sizeof a.id.b) {
        for (int32_t i = 0; i < op->partitions; i++) {
            replicas[i] = &op->replicas[(size_t)i * (size_t)op->factor];
            counts[i] = op->factor;
        }
        a.replicas = replicas;
        a.replica_counts = counts;
        if (gr_zk_doc_assignment(&w, &a) == 0)
            text = writer_text(&w, &len);
    }
    if (!text)
        gr_zk_json_writer_fini(&w);
    free(replicas);
    free(counts);
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s", op->name);
    int rc = text ? gr_store_create(op->b->store_session, path, text, len, GR_STORE_PERSISTENT,
                                    on_assignment_created, op)
                  : GR_STORE_NOMEM;
    free(text);
    if (rc != GR_STORE_OK)
        finish(op, store_error(op, "creating the assignment", rc));
}

static void on_config_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    admin_op_t *op = opaque;
    if (rc == GR_STORE_OK)
        write_assignment(op);
    else
        finish(op, store_error(op, "writing the config", rc));
}

static void on_config_created(void *opaque, int rc, const char *path)
{
    (void)path;
    admin_op_t *op = opaque;
    if (rc == GR_STORE_OK)
        return write_assignment(op);
    if (rc == GR_STORE_NODEEXISTS) { /* left by an earlier topic of that name: replace it */
        char p[GR_STORE_PATH_MAX + 1];
        snprintf(p, sizeof p, GR_ZK_CONFIG_TOPICS_PATH "/%s", op->name);
        rc = gr_store_set(op->b->store_session, p, op->config, op->config_len, GR_STORE_ANY_VERSION,
                          on_config_set, op);
        if (rc == GR_STORE_OK)
            return;
    }
    finish(op, store_error(op, "writing the config", rc));
}

static void on_topic_exists(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    admin_op_t *op = opaque;
    if (rc == GR_STORE_OK)
        return finish(op, GR_KERR_TOPIC_ALREADY_EXISTS);
    if (rc != GR_STORE_NONODE)
        return finish(op, store_error(op, "checking", rc));
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_CONFIG_TOPICS_PATH "/%s", op->name);
    rc = gr_store_create(op->b->store_session, path, op->config, op->config_len,
                         GR_STORE_PERSISTENT, on_config_created, op);
    if (rc != GR_STORE_OK)
        finish(op, store_error(op, "writing the config", rc));
}

static char *config_doc(const gr_topic_config_t *configs, int count, size_t *len)
{
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    (void)gr_zk_doc_topic_config(&w, configs, count); /* errors surface in writer_text */
    return writer_text(&w, len);
}

int gr_zk_admin_create_topic(gr_broker_t *b, const char *name, int32_t partitions, int32_t factor,
                             const int32_t *replicas, const gr_topic_config_t *configs,
                             int config_count, gr_zk_admin_done_fn *done, void *opaque)
{
    admin_op_t *op = op_new(b, name, done, opaque);
    if (!op)
        return -ENOMEM;
    size_t total = (size_t)partitions * (size_t)factor;
    char msg[GR_ZK_ADMIN_MSG_MAX];
    op->partitions = partitions;
    op->factor = factor;
    op->replicas = malloc(total * sizeof *op->replicas);
    op->config = config_doc(configs, config_count, &op->config_len);
    if (!op->replicas || !op->config) {
        free(op->replicas);
        free(op->config);
        free(op);
        return -ENOMEM;
    }
    if (replicas)
        memcpy(op->replicas, replicas, total * sizeof *replicas);
    else if (gr_zk_admin_place(b, partitions, factor, GR_RACK_MODE_SAFE, NULL, op->replicas, msg,
                               sizeof msg)) {
        gr_logf(&b->log, GR_LOG_WARN, "topics", "cannot place %s: %s", name, msg);
        op->done = NULL;
        finish(op, GR_KERR_NONE);
        return -ENODEV;
    }
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s", name);
    int rc = gr_store_exists(b->store_session, path, NULL, NULL, on_topic_exists, op);
    if (rc != GR_STORE_OK) {
        op->done = NULL;
        finish(op, GR_KERR_NONE);
        return -EIO;
    }
    return 0;
}

/* ---- add partitions ---------------------------------------------------------------- */

static void on_assignment_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    admin_op_t *op = opaque;
    finish(op, rc == GR_STORE_OK ? GR_KERR_NONE : store_error(op, "growing the assignment", rc));
}

/*
 * The new partitions' replicas: the caller's if it gave them (with
 * partition 0's replica count), else placed continuing partition 0's layout.
 */
static gr_kerr_t new_replicas(admin_op_t *op, const gr_zk_assignment_t *a)
{
    int32_t factor = a->replica_counts[0];
    int32_t adding = op->partitions - a->partition_count;
    if (op->replicas && adding != op->given)
        return GR_KERR_INVALID_PARTITIONS; /* grown meanwhile: the caller's list no longer fits */
    if (op->replicas)
        return op->factor == factor ? GR_KERR_NONE : GR_KERR_INVALID_REPLICA_ASSIGNMENT;
    op->factor = factor;
    op->replicas = malloc((size_t)adding * (size_t)factor * sizeof *op->replicas);
    if (!op->replicas)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_zk_admin_grow_t grow = {a->replicas[0][0], a->partition_count};
    char msg[GR_ZK_ADMIN_MSG_MAX];
    gr_kerr_t err = gr_zk_admin_place(op->b, adding, factor, GR_RACK_MODE_ENFORCED, &grow,
                                      op->replicas, msg, sizeof msg);
    if (err)
        gr_logf(&op->b->log, GR_LOG_WARN, "topics", "cannot place new partitions of %s: %s",
                op->name, msg);
    return err;
}

/* Appends the new partitions' replicas to a parsed assignment and writes it back. */
static gr_kerr_t grow_assignment(admin_op_t *op, gr_zk_assignment_t *a, int32_t version)
{
    int32_t old = a->partition_count, count = op->partitions;
    if (count <= old)
        return GR_KERR_INVALID_PARTITIONS;
    if (old == 0 || a->replica_counts[0] <= 0)
        return GR_KERR_UNKNOWN_SERVER_ERROR; /* the stored assignment has no partition 0 */
    if (gr_zk_assignment_reassigning(a))
        return GR_KERR_REASSIGNMENT_IN_PROGRESS; /* as Kafka: the layout is moving */
    gr_kerr_t err = new_replicas(op, a);
    if (err)
        return err;
    int32_t **replicas = realloc(a->replicas, (size_t)count * sizeof *replicas);
    if (replicas)
        a->replicas = replicas;
    int32_t *counts = realloc(a->replica_counts, (size_t)count * sizeof *counts);
    if (counts)
        a->replica_counts = counts;
    if (!replicas || !counts)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    size_t factor = (size_t)op->factor;
    for (int32_t i = old; i < count; i++) {
        a->replicas[i] = malloc(factor * sizeof(int32_t));
        a->replica_counts[i] = a->replicas[i] ? op->factor : 0;
        a->partition_count = i + 1;
        if (!a->replicas[i])
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        memcpy(a->replicas[i], &op->replicas[(size_t)(i - old) * factor], factor * sizeof(int32_t));
    }
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    size_t len = 0;
    char *text = gr_zk_doc_assignment(&w, a) == 0 ? writer_text(&w, &len) : NULL;
    if (!text) {
        gr_zk_json_writer_fini(&w);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s", op->name);
    int rc = gr_store_set(op->b->store_session, path, text, len, version, on_assignment_set, op);
    free(text);
    return rc == GR_STORE_OK ? GR_KERR_NONE : GR_KERR_UNKNOWN_SERVER_ERROR;
}

static void on_assignment_read(void *opaque, int rc, const void *data, size_t len,
                               const gr_store_stat_t *stat)
{
    admin_op_t *op = opaque;
    gr_zk_assignment_t a;
    if (rc == GR_STORE_NONODE)
        return finish(op, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    if (rc != GR_STORE_OK)
        return finish(op, store_error(op, "reading the assignment", rc));
    if (gr_zk_parse_assignment(data, len, &a) != 0)
        return finish(op, GR_KERR_UNKNOWN_SERVER_ERROR);
    gr_kerr_t err = grow_assignment(op, &a, stat->version);
    gr_zk_assignment_free(&a);
    if (err)
        finish(op, err);
}

int gr_zk_admin_add_partitions(gr_broker_t *b, const char *name, int32_t count, int32_t factor,
                               const int32_t *new_replicas, gr_zk_admin_done_fn *done, void *opaque)
{
    gr_topic_t *topic = gr_topics_find(b->topics, name, strlen(name));
    int32_t old = topic ? topic->partition_count : 0;
    if (count <= old)
        return -EINVAL;
    admin_op_t *op = op_new(b, name, done, opaque);
    if (!op)
        return -ENOMEM;
    op->partitions = count;
    if (new_replicas) {
        /* Sized by this broker's view; grow_assignment refuses a stored count that differs. */
        size_t total = (size_t)(count - old) * (size_t)factor;
        op->factor = factor;
        op->given = count - old;
        if (!(op->replicas = malloc(total * sizeof *op->replicas))) {
            free(op);
            return -ENOMEM;
        }
        memcpy(op->replicas, new_replicas, total * sizeof *new_replicas);
    }
    int rc = 0;
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s", name);
    if (rc == 0 &&
        gr_store_get(b->store_session, path, NULL, NULL, on_assignment_read, op) != GR_STORE_OK)
        rc = -EIO;
    if (rc) {
        op->done = NULL;
        finish(op, GR_KERR_NONE);
    }
    return rc;
}

/* ---- delete ----------------------------------------------------------------------- */

static void on_delete_queued(void *opaque, int rc, const char *path)
{
    (void)path;
    admin_op_t *op = opaque;
    finish(op, rc == GR_STORE_OK || rc == GR_STORE_NODEEXISTS
                   ? GR_KERR_NONE
                   : store_error(op, "queueing the deletion", rc));
}

int gr_zk_admin_delete_topic(gr_broker_t *b, const char *name, gr_zk_admin_done_fn *done,
                             void *opaque)
{
    admin_op_t *op = op_new(b, name, done, opaque);
    if (!op)
        return -ENOMEM;
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_DELETE_TOPICS_PATH "/%s", name);
    if (gr_store_create(b->store_session, path, NULL, 0, GR_STORE_PERSISTENT, on_delete_queued,
                        op) != GR_STORE_OK) {
        free(op);
        return -EIO;
    }
    return 0;
}

/* ---- configs ---------------------------------------------------------------------- */

static void on_change_notified(void *opaque, int rc, const char *path)
{
    (void)path;
    admin_op_t *op = opaque;
    finish(op, rc == GR_STORE_OK ? GR_KERR_NONE : store_error(op, "notifying the change", rc));
}

static void notify_change(admin_op_t *op)
{
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    size_t len = 0;
    char *text = gr_zk_doc_config_change(&w, op->name) == 0 ? writer_text(&w, &len) : NULL;
    if (!text)
        gr_zk_json_writer_fini(&w);
    int rc =
        text ? gr_store_create(op->b->store_session,
                               GR_ZK_CONFIG_CHANGES_PATH "/" GR_ZK_CONFIG_CHANGE_PREFIX, text, len,
                               GR_STORE_PERSISTENT | GR_STORE_SEQUENTIAL, on_change_notified, op)
             : GR_STORE_NOMEM;
    free(text);
    if (rc != GR_STORE_OK)
        finish(op, store_error(op, "notifying the change", rc));
}

static void on_configs_created(void *opaque, int rc, const char *path)
{
    (void)path;
    admin_op_t *op = opaque;
    if (rc == GR_STORE_OK)
        notify_change(op);
    else
        finish(op, store_error(op, "writing the config", rc));
}

static void on_configs_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    admin_op_t *op = opaque;
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_CONFIG_TOPICS_PATH "/%s", op->name);
    if (rc == GR_STORE_OK)
        return notify_change(op);
    if (rc == GR_STORE_NONODE &&
        gr_store_create(op->b->store_session, path, op->config, op->config_len, GR_STORE_PERSISTENT,
                        on_configs_created, op) == GR_STORE_OK)
        return;
    finish(op, store_error(op, "writing the config", rc));
}

int gr_zk_admin_set_configs(gr_broker_t *b, const char *name, const gr_topic_config_t *configs,
                            int count, gr_zk_admin_done_fn *done, void *opaque)
{
    admin_op_t *op = op_new(b, name, done, opaque);
    if (!op || !(op->config = config_doc(configs, count, &op->config_len))) {
        free(op);
        return -ENOMEM;
    }
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_CONFIG_TOPICS_PATH "/%s", name);
    if (gr_store_set(b->store_session, path, op->config, op->config_len, GR_STORE_ANY_VERSION,
                     on_configs_set, op) != GR_STORE_OK) {
        op->done = NULL;
        finish(op, GR_KERR_NONE);
        return -EIO;
    }
    return 0;
}

gr_kerr_t gr_admin_create_topic_now(gr_broker_t *b, const char *name, int32_t partitions,
                                    int32_t factor, const gr_topic_config_t *configs,
                                    int config_count, char *err, size_t errlen)
{
    gr_kerr_t kerr =
        gr_topics_create_check(b, name, partitions, configs, config_count, err, errlen);
    if (kerr)
        return kerr;
    int32_t *replicas = malloc((size_t)partitions * (size_t)factor * sizeof *replicas);
    if (!replicas) {
        snprintf(err, errlen, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    kerr = gr_zk_admin_place(b, partitions, factor, GR_RACK_MODE_SAFE, NULL, replicas, err, errlen);
    /* The controller creates it; clients retry until it has leaders. */
    int rc = kerr ? 0
                  : gr_zk_admin_create_topic(b, name, partitions, factor, replicas, configs,
                                             config_count, NULL, NULL);
    free(replicas);
    if (kerr)
        return kerr;
    if (rc)
        snprintf(err, errlen, "cannot write it: %s", strerror(-rc));
    else
        snprintf(err, errlen, "being created");
    return GR_KERR_LEADER_NOT_AVAILABLE;
}

typedef struct config_write {
    gr_broker_t *b;
    char name[GR_TOPIC_NAME_LIMIT + 1];
} config_write_t;

static void on_topic_configs_written(void *opaque, gr_kerr_t error)
{
    config_write_t *w = opaque;
    gr_topic_t *topic = gr_topics_find(w->b->topics, w->name, strlen(w->name));
    if (topic && topic->config_writes_pending > 0)
        topic->config_writes_pending--;
    if (error)
        gr_logf(&w->b->log, GR_LOG_ERROR, "topics", "writing the configs of %s failed: %s", w->name,
                gr_kerr_name(error));
    free(w);
}

gr_kerr_t gr_admin_set_topic_configs(gr_broker_t *b, gr_topic_t *topic,
                                     const gr_topic_config_t *configs, int count,
                                     bool validate_only, char *err, size_t errlen)
{
    gr_kerr_t kerr = gr_topics_set_configs(b, topic, configs, count, validate_only, err, errlen);
    if (kerr || validate_only)
        return kerr;
    /* Every other broker applies it from the notification. */
    config_write_t *w = calloc(1, sizeof *w);
    if (w) {
        w->b = b;
        snprintf(w->name, sizeof w->name, "%s", topic->name);
    }
    if (!w || gr_zk_admin_set_configs(b, topic->name, topic->configs, topic->config_count,
                                      on_topic_configs_written, w)) {
        free(w);
        gr_logf(&b->log, GR_LOG_ERROR, "topics", "cannot write the configs of %s: out of memory",
                topic->name);
        return GR_KERR_NONE;
    }
    topic->config_writes_pending++;
    return GR_KERR_NONE;
}
