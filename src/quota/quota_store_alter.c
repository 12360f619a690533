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

#include "metadata/config_entity.h"
#include "metadata/store.h"
#include "metadata/zk_docs.h"
#include "quota/quota_doc.h"
#include "quota/quota_store.h"

/* What a user's node holds when created only as a parent (no quota, no credential). */
#define EMPTY_ENTITY_DOC "{\"version\":1,\"config\":{}}"
#define MAX_PARENTS      4 /* /config/users, /config/users/<u>, .../clients */

typedef struct alter_op {
    gr_broker_t *b;
    gr_quota_entity_t entity;
    char entity_path[GR_STORE_PATH_MAX + 1]; /* "users/<u>/clients/<c>" */
    gr_quota_values_t set;
    bool remove[GR_QUOTA_TYPE_COUNT];
    gr_quota_store_done_fn *done;
    void *opaque;
} alter_op_t;

static gr_kerr_t build_doc(void *arg, const char *current, size_t len, char **text,
                           size_t *text_len)
{
    alter_op_t *op = arg;
    return gr_quota_doc_build(current, len, &op->set, op->remove, text, text_len)
               ? GR_KERR_UNKNOWN_SERVER_ERROR
               : GR_KERR_NONE;
}

static void apply_doc(void *arg, const char *text, size_t len)
{
    alter_op_t *op = arg;
    gr_quota_values_t values;
    if (gr_quota_doc_parse(text, len, &values) == 0)
        (void)gr_quotas_set(op->b->quotas, &op->entity, &values);
    gr_logf(&op->b->log, GR_LOG_INFO, "quota", "quotas of %s changed", op->entity_path);
}

static void update_done(void *arg, gr_kerr_t err)
{
    alter_op_t *op = arg;
    op->done(op->opaque, err);
    free(op);
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

/* Creates each missing ancestor of the entity's znode below /config, parents first. */
static void create_parents(alter_op_t *op)
{
    gr_broker_t *b = op->b;
    char path[sizeof GR_ZK_CONFIG_PATH + GR_STORE_PATH_MAX + 1], parent[sizeof path];
    snprintf(path, sizeof path, GR_ZK_CONFIG_PATH "/%s", op->entity_path);
    const char *p = path + strlen(GR_ZK_CONFIG_PATH "/");
    for (int i = 0; i < MAX_PARENTS && (p = strchr(p, '/')) != NULL; i++, p++) {
        snprintf(parent, sizeof parent, "%.*s", (int)(p - path), path);
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
    /* Checked before the parents are created, so a refused path leaves no empty nodes. */
    if (!rc && !gr_config_entity_path_fits(op->entity_path))
        rc = -ENAMETOOLONG;
    if (rc) {
        free(op);
        return rc;
    }
    create_parents(op);
    gr_config_entity_update_t u = {"quota", build_doc, apply_doc, update_done, op};
    rc = gr_config_entity_update(b, op->entity_path, &u);
    if (rc)
        free(op); /* done must not run inside this call */
    return rc;
}
