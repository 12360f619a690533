/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group config overrides in the metadata store: see group_config_store.h.
 *
 * Loading lists /config/groups and reads every child; each read replaces
 * the cached overrides of its group (a missing node forgets them). A write
 * creates /config/groups if missing (NODEEXISTS is fine; a session's
 * operations complete in order, so it need not be awaited), then rewrites
 * the group's node and notifies the brokers through
 * metadata/config_entity.h.
 *
 * Runs on: loop thread.
 */
#include "metadata/group_config_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/config_entity.h"
#include "metadata/store.h"
#include "metadata/topics.h"
#include "metadata/zk_docs.h"
#include "metadata/zk_json.h"

#define GROUPS_PATH GR_ZK_CONFIG_PATH "/" GR_GROUP_CONFIG_ENTITY_TYPE

/* The overrides of a /config/groups document (unknown keys ignored). 0, -EINVAL, -ENOMEM. */
static int parse_doc(const char *text, size_t len, gr_group_overrides_t *o)
{
    int rc = gr_zk_doc_config_known(text, len, gr_group_config_find, o->values);
    if (rc)
        gr_group_overrides_clear(o);
    return rc;
}

/* Puts a document's overrides (NULL: none) into the cache for group. */
static void apply(gr_broker_t *b, const char *group, size_t len, const char *text, size_t text_len)
{
    gr_group_overrides_t o = {{NULL}};
    if (text && parse_doc(text, text_len, &o)) {
        gr_logf(&b->log, GR_LOG_WARN, "groups", "the config of group %.*s is unreadable", (int)len,
                group);
        return;
    }
    if (!b->group_configs || gr_group_configs_set(b->group_configs, group, len, &o))
        gr_logf(&b->log, GR_LOG_WARN, "groups", "out of memory for the config of group %.*s",
                (int)len, group);
    gr_group_overrides_clear(&o);
}

/* ---- reading ---- */

typedef struct read_op {
    gr_broker_t *b;
    char group[GR_STORE_PATH_MAX + 1];
    size_t len;
    char path[GR_STORE_PATH_MAX + 1];
} read_op_t;

static void on_group_data(void *opaque, int rc, const void *data, size_t len,
                          const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    if (rc == GR_STORE_OK || rc == GR_STORE_NONODE)
        apply(op->b, op->group, op->len, rc == GR_STORE_OK ? data : NULL, len);
    else if (rc != GR_STORE_CLOSING)
        gr_logf(&op->b->log, GR_LOG_WARN, "groups", "cannot read %s: %s", op->path,
                gr_store_rc_name(rc));
    free(op);
}

void gr_group_config_store_reload(gr_broker_t *b, const char *sanitized)
{
    read_op_t *op = calloc(1, sizeof *op);
    if (!op || !b->store_session)
        goto fail;
    op->b = b;
    if (gr_config_entity_desanitize(sanitized, strlen(sanitized), op->group, sizeof op->group,
                                    &op->len) ||
        (size_t)snprintf(op->path, sizeof op->path, GROUPS_PATH "/%s", sanitized) >=
            sizeof op->path)
        goto fail;
    if (gr_store_get(b->store_session, op->path, NULL, NULL, on_group_data, op) == GR_STORE_OK)
        return;
fail:
    free(op);
    gr_logf(&b->log, GR_LOG_WARN, "groups", "cannot read the config of group %s", sanitized);
}

static void on_children(void *opaque, int rc, const char *const *names, size_t count,
                        const gr_store_stat_t *stat)
{
    (void)stat;
    gr_broker_t *b = opaque;
    for (size_t i = 0; rc == GR_STORE_OK && i < count; i++)
        gr_group_config_store_reload(b, names[i]);
    if (rc != GR_STORE_OK && rc != GR_STORE_NONODE && rc != GR_STORE_CLOSING)
        gr_logf(&b->log, GR_LOG_WARN, "groups", "cannot list " GROUPS_PATH ": %s",
                gr_store_rc_name(rc));
}

void gr_group_config_store_load(gr_broker_t *b)
{
    if (!b->store_session ||
        gr_store_children(b->store_session, GROUPS_PATH, NULL, NULL, on_children, b) != GR_STORE_OK)
        gr_logf(&b->log, GR_LOG_WARN, "groups", "cannot list " GROUPS_PATH);
}

/* ---- writing ---- */

typedef struct alter_op {
    gr_broker_t *b;
    char group[GR_STORE_PATH_MAX + 1];
    size_t len;
    gr_group_overrides_t overrides;
} alter_op_t;

static gr_kerr_t build_doc(void *arg, const char *current, size_t len, char **text,
                           size_t *text_len)
{
    (void)current;
    (void)len;
    alter_op_t *op = arg;
    gr_topic_config_t pairs[GR_GROUP_CONFIG_KEY_COUNT];
    int n = 0;
    for (int k = 0; k < GR_GROUP_CONFIG_KEY_COUNT; k++)
        if (op->overrides.values[k])
            pairs[n++] = (gr_topic_config_t){(char *)gr_group_config_def_at(k)->name,
                                             op->overrides.values[k]};
    return gr_zk_doc_config_text(pairs, n, text, text_len) ? GR_KERR_UNKNOWN_SERVER_ERROR
                                                           : GR_KERR_NONE;
}

static void alter_free(alter_op_t *op)
{
    gr_group_overrides_clear(&op->overrides);
    free(op);
}

/* The write is over (config_entity.c logged why a store operation failed). */
static void update_done(void *arg, gr_kerr_t err)
{
    alter_op_t *op = arg;
    if (err)
        gr_logf(&op->b->log, GR_LOG_WARN, "groups", "config of group %.*s not written: %s",
                (int)op->len, op->group, gr_kerr_name(err));
    else
        gr_logf(&op->b->log, GR_LOG_INFO, "groups", "config of group %.*s changed", (int)op->len,
                op->group);
    alter_free(op);
}

static void on_parent(void *opaque, int rc, const char *path)
{
    (void)path;
    gr_broker_t *b = opaque;
    b->store_pending--;
    if (rc != GR_STORE_OK && rc != GR_STORE_NODEEXISTS && rc != GR_STORE_CLOSING)
        gr_logf(&b->log, GR_LOG_WARN, "groups", "cannot create " GROUPS_PATH ": %s",
                gr_store_rc_name(rc));
}

/* "groups/<sanitized>" into entity. 0 or -ENAMETOOLONG. */
static int entity_path(const char *group, size_t len, char entity[GR_STORE_PATH_MAX + 1])
{
    size_t prefix = strlen(GR_GROUP_CONFIG_ENTITY_TYPE "/");
    memcpy(entity, GR_GROUP_CONFIG_ENTITY_TYPE "/", prefix);
    if (len >= GR_STORE_PATH_MAX ||
        gr_config_entity_sanitize(group, len, entity + prefix, GR_STORE_PATH_MAX + 1 - prefix) ||
        !gr_config_entity_path_fits(entity))
        return -ENAMETOOLONG;
    return 0;
}

bool gr_group_config_store_name_fits(const char *group, size_t len)
{
    char entity[GR_STORE_PATH_MAX + 1];
    return entity_path(group, len, entity) == 0;
}

int gr_group_config_store_alter(gr_broker_t *b, const char *group, size_t len,
                                const gr_group_overrides_t *o)
{
    if (!b->store_session)
        return -EIO;
    char entity[GR_STORE_PATH_MAX + 1];
    if (entity_path(group, len, entity))
        return -ENAMETOOLONG;
    alter_op_t *op = calloc(1, sizeof *op);
    if (!op || gr_group_overrides_copy(&op->overrides, o)) {
        free(op);
        return -ENOMEM;
    }
    op->b = b;
    memcpy(op->group, group, len);
    op->len = len;
    if (gr_store_create(b->store_session, GROUPS_PATH, "", 0, GR_STORE_PERSISTENT, on_parent, b) ==
        GR_STORE_OK)
        b->store_pending++;
    gr_config_entity_update_t u = {"groups", build_doc, NULL, update_done, op};
    int rc = gr_config_entity_update(b, entity, &u);
    if (rc)
        alter_free(op); /* update_done never runs then */
    return rc;
}
