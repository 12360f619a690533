/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quota entities in the metadata store: see quota_store.h.
 *
 * Loading lists /config/clients and /config/users (and each user's
 * clients), then reads every entity; each read replaces the cached values
 * of its entity (a missing znode removes them).
 *
 * An alteration (quota_store_alter.c) creates the missing parents
 * (NODEEXISTS is fine; a session's operations complete in order, so they
 * need not be awaited), then rewrites the entity and notifies the brokers
 * through metadata/config_entity.h.
 *
 * Runs on: loop thread.
 */
#include "quota/quota_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/store.h"
#include "metadata/zk_docs.h"
#include "quota/quota_doc.h"

/* ---- reading ------------------------------------------------------------------------ */

typedef struct read_op {
    gr_broker_t *b;
    gr_quota_entity_t entity;
    char path[GR_STORE_PATH_MAX + 1];
} read_op_t;

static void on_entity_data(void *opaque, int rc, const void *data, size_t len,
                           const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    gr_broker_t *b = op->b;
    gr_quota_values_t values;
    if (rc == GR_STORE_OK || rc == GR_STORE_NONODE) {
        if (rc == GR_STORE_NONODE || gr_quota_doc_parse(data, len, &values))
            memset(&values, 0, sizeof values);
        if (gr_quotas_set(b->quotas, &op->entity, &values))
            gr_logf(&b->log, GR_LOG_WARN, "quota", "out of memory for the quotas of %s", op->path);
    } else if (rc != GR_STORE_CLOSING) {
        gr_logf(&b->log, GR_LOG_WARN, "quota", "cannot read %s: %s", op->path,
                gr_store_rc_name(rc));
    }
    free(op);
}

void gr_quota_store_reload(gr_broker_t *b, const char *entity_path)
{
    read_op_t *op = calloc(1, sizeof *op);
    if (!op || !b->store_session || !b->quotas)
        goto fail;
    if (gr_quota_entity_parse(entity_path, &op->entity)) {
        free(op);
        return; /* not a quota entity */
    }
    op->b = b;
    snprintf(op->path, sizeof op->path, GR_ZK_CONFIG_PATH "/%s", entity_path);
    if (gr_store_get(b->store_session, op->path, NULL, NULL, on_entity_data, op) == GR_STORE_OK)
        return;
fail:
    free(op);
    gr_logf(&b->log, GR_LOG_WARN, "quota", "cannot read the quotas of %s", entity_path);
}

/* Children of a listed node, with the entity path prefix they get. */
typedef struct list_op {
    gr_broker_t *b;
    char prefix[GR_STORE_PATH_MAX + 1]; /* "clients", "users" or "users/<u>/clients" */
} list_op_t;

static void list_entities(gr_broker_t *b, const char *prefix);

static void on_children(void *opaque, int rc, const char *const *names, size_t count,
                        const gr_store_stat_t *stat)
{
    (void)stat;
    list_op_t *op = opaque;
    gr_broker_t *b = op->b;
    bool users = strcmp(op->prefix, GR_QUOTA_USERS) == 0;
    for (size_t i = 0; rc == GR_STORE_OK && i < count; i++) {
        char path[GR_STORE_PATH_MAX + 1];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", op->prefix, names[i]) >= sizeof path)
            continue; /* cannot be a path of the store */
        gr_quota_store_reload(b, path);
        if (users && (size_t)snprintf(path, sizeof path, GR_QUOTA_USERS "/%s/" GR_QUOTA_CLIENTS,
                                      names[i]) < sizeof path)
            list_entities(b, path);
    }
    if (rc != GR_STORE_OK && rc != GR_STORE_NONODE && rc != GR_STORE_CLOSING)
        gr_logf(&b->log, GR_LOG_WARN, "quota", "cannot list " GR_ZK_CONFIG_PATH "/%s: %s",
                op->prefix, gr_store_rc_name(rc));
    free(op);
}

static void list_entities(gr_broker_t *b, const char *prefix)
{
    list_op_t *op = calloc(1, sizeof *op);
    char path[GR_STORE_PATH_MAX + 1];
    if (op) {
        op->b = b;
        snprintf(op->prefix, sizeof op->prefix, "%s", prefix);
        snprintf(path, sizeof path, GR_ZK_CONFIG_PATH "/%s", prefix);
    }
    if (op && b->store_session &&
        gr_store_children(b->store_session, path, NULL, NULL, on_children, op) == GR_STORE_OK)
        return;
    free(op);
    gr_logf(&b->log, GR_LOG_WARN, "quota", "cannot list " GR_ZK_CONFIG_PATH "/%s", prefix);
}

void gr_quota_store_load(gr_broker_t *b)
{
    list_entities(b, GR_QUOTA_CLIENTS);
    list_entities(b, GR_QUOTA_USERS);
}
