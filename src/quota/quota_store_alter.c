/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing quota entities to the metadata store: see quota_store.h and the
 * operation chain in quota_store.c's opening comment.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/store.h"
#include "metadata/zk_docs.h"
#include "metadata/zk_json.h"
#include "quota/quota_doc.h"
#include "quota/quota_store.h"

/* What a user's node holds when created only as a parent (no quota, no credential). */
#define EMPTY_ENTITY_DOC "{\"version\":1,\"config\":{}}"
#define MAX_PARENTS      4 /* /config/users, /config/users/<u>, .../clients */

typedef struct alter_op {
    gr_broker_t *b;
    gr_quota_entity_t entity;
    char entity_path[GR_STORE_PATH_MAX + 1]; /* "users/<u>/clients/<c>" */
    char path[GR_STORE_PATH_MAX + 1];        /* "/config/" + entity_path */
    gr_quota_values_t set;
    bool remove[GR_QUOTA_TYPE_COUNT];
    char *text; /* the znode as written */
    size_t len;
    gr_quota_store_done_fn *done;
    void *opaque;
} alter_op_t;

static void finish(alter_op_t *op, gr_kerr_t err)
{
    op->done(op->opaque, err);
    free(op->text);
    free(op);
}

static gr_kerr_t store_failed(alter_op_t *op, const char *what, int rc)
{
    gr_logf(&op->b->log, GR_LOG_WARN, "quota", "quotas of %s: %s failed: %s", op->entity_path, what,
            gr_store_rc_name(rc));
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

static void on_notified(void *opaque, int rc, const char *path)
{
    (void)path;
    alter_op_t *op = opaque;
    op->b->store_pending--;
    /* The quotas are stored: a lost notification only delays other brokers. */
    if (rc != GR_STORE_OK && rc != GR_STORE_CLOSING)
        (void)store_failed(op, "notifying the change", rc);
    finish(op, GR_KERR_NONE);
}

static void on_written(alter_op_t *op, int rc)
{
    gr_broker_t *b = op->b;
    b->store_pending--;
    if (rc != GR_STORE_OK) {
        finish(op, store_failed(op, "writing", rc));
        return;
    }
    gr_quota_values_t values;
    if (gr_quota_doc_parse(op->text, op->len, &values) == 0)
        (void)gr_quotas_set(b->quotas, &op->entity, &values);
    gr_logf(&b->log, GR_LOG_INFO, "quota", "quotas of %s changed", op->entity_path);
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    const char *text = NULL;
    size_t len = 0;
    rc = GR_STORE_NOMEM;
    /* The type is the path's first component; the rest is the "name". */
    const char *slash = strchr(op->entity_path, '/');
    char type[sizeof GR_QUOTA_CLIENTS > sizeof GR_QUOTA_USERS ? sizeof GR_QUOTA_CLIENTS
                                                              : sizeof GR_QUOTA_USERS];
    snprintf(type, sizeof type, "%.*s", (int)(slash - op->entity_path), op->entity_path);
    if (gr_zk_doc_config_change_entity(&w, type, slash + 1) == 0 &&
        gr_zk_json_writer_finish(&w, &text, &len) == 0)
        rc = gr_store_create(b->store_session,
                             GR_ZK_CONFIG_CHANGES_PATH "/" GR_ZK_CONFIG_CHANGE_PREFIX, text, len,
                             GR_STORE_PERSISTENT | GR_STORE_SEQUENTIAL, on_notified, op);
    gr_zk_json_writer_fini(&w);
    if (rc == GR_STORE_OK) {
        b->store_pending++;
        return;
    }
    (void)store_failed(op, "notifying the change", rc);
    finish(op, GR_KERR_NONE);
}

static void on_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    on_written(opaque, rc);
}

static void on_created(void *opaque, int rc, const char *path)
{
    (void)path;
    on_written(opaque, rc);
}

static void on_current(void *opaque, int rc, const void *data, size_t len,
                       const gr_store_stat_t *stat)
{
    alter_op_t *op = opaque;
    if (rc != GR_STORE_OK && rc != GR_STORE_NONODE) {
        finish(op, store_failed(op, "reading", rc));
        return;
    }
    bool exists = rc == GR_STORE_OK;
    if (gr_quota_doc_build(exists ? data : NULL, exists ? len : 0, &op->set, op->remove, &op->text,
                           &op->len)) {
        finish(op, GR_KERR_UNKNOWN_SERVER_ERROR);
        return;
    }
    gr_store_session_t *s = op->b->store_session;
    rc = exists
             ? gr_store_set(s, op->path, op->text, op->len, stat->version, on_set, op)
             : gr_store_create(s, op->path, op->text, op->len, GR_STORE_PERSISTENT, on_created, op);
    if (rc != GR_STORE_OK) {
        finish(op, store_failed(op, "writing", rc));
        return;
    }
    op->b->store_pending++;
}

static void on_parent(void *opaque, int rc, const char *path)
{
    (void)path;
    gr_broker_t *b = opaque;
    b->store_pending--;
    if (rc != GR_STORE_OK && rc != GR_STORE_NODEEXISTS && rc != GR_STORE_CLOSING)
        gr_logf(&b->log, GR_LOG_WARN, "quota", "cannot create a parent of a quota entity: %s",
                gr_store_rc_name(rc));
}

/* Creates each missing ancestor of op->path below /config, parents first. */
static void create_parents(alter_op_t *op)
{
    gr_broker_t *b = op->b;
    char parent[GR_STORE_PATH_MAX + 1];
    const char *p = op->path + strlen(GR_ZK_CONFIG_PATH "/");
    for (int i = 0; i < MAX_PARENTS && (p = strchr(p, '/')) != NULL; i++, p++) {
        snprintf(parent, sizeof parent, "%.*s", (int)(p - op->path), op->path);
        /* A user's own node gets a config document; the folders between are empty. */
        bool user_node = i == 1;
        const char *data = user_node ? EMPTY_ENTITY_DOC : "";
        if (gr_store_create(b->store_session, parent, data, strlen(data), GR_STORE_PERSISTENT,
                            on_parent, b) == GR_STORE_OK)
            b->store_pending++;
    }
}

int gr_quota_store_alter(gr_broker_t *b, const gr_quota_entity_t *e, const gr_quota_values_t *set,
                         const bool remove[GR_QUOTA_TYPE_COUNT], gr_quota_store_done_fn *done,
                         void *opaque)
{
    if (!b->store_session)
        return -EIO;
    alter_op_t *op = calloc(1, sizeof *op);
    if (!op)
        return -ENOMEM;
    op->b = b;
    op->entity = *e;
    op->set = *set;
    memcpy(op->remove, remove, sizeof op->remove);
    op->done = done;
    op->opaque = opaque;
    int rc = gr_quota_entity_path(e, op->entity_path, sizeof op->entity_path);
    if (rc == 0 && (size_t)snprintf(op->path, sizeof op->path, GR_ZK_CONFIG_PATH "/%s",
                                    op->entity_path) >= sizeof op->path)
        rc = -ENAMETOOLONG;
    if (rc) {
        free(op);
        return rc;
    }
    create_parents(op);
    if (gr_store_get(b->store_session, op->path, NULL, NULL, on_current, op) != GR_STORE_OK) {
        free(op); /* done must not run inside this call */
        return -EIO;
    }
    return 0;
}
