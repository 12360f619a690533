/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SCRAM credentials in the metadata store: see scram_store.h.
 *
 * An alteration rewrites /config/users/<user> (keeping the keys of other
 * mechanisms and the user's quotas) and notifies the brokers through
 * metadata/config_entity.h.
 *
 * Runs on: loop thread.
 */
#include "security/scram_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "metadata/config_entity.h"
#include "metadata/store.h"
#include "metadata/zk_docs.h"
#include "metadata/zk_json.h"

#define USERS_ENTITY      "users"
#define USER_JSON_VERSION 1

/* ---- reading ------------------------------------------------------------------------ */

typedef struct read_op {
    gr_broker_t *b;
    char user[GR_STORE_PATH_MAX + 1];
} read_op_t;

static void on_user_data(void *opaque, int rc, const void *data, size_t len,
                         const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    gr_broker_t *b = op->b;
    if (rc == GR_STORE_OK || rc == GR_STORE_NONODE) {
        const char *text = rc == GR_STORE_OK ? data : NULL;
        if (gr_scram_users_apply(b->scram_users, op->user, text, text ? len : 0))
            gr_logf(&b->log, GR_LOG_WARN, "sasl", "SCRAM credentials of user %s are malformed",
                    op->user);
    } else if (rc != GR_STORE_CLOSING) {
        gr_logf(&b->log, GR_LOG_WARN, "sasl", "cannot read the credentials of user %s: %s",
                op->user, gr_store_rc_name(rc));
    }
    free(op);
}

void gr_scram_store_reload(gr_broker_t *b, const char *user)
{
    read_op_t *op = calloc(1, sizeof *op);
    if (!op || !b->store_session)
        goto fail;
    op->b = b;
    snprintf(op->user, sizeof op->user, "%s", user);
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_CONFIG_USERS_PATH "/%s", user);
    if (gr_store_get(b->store_session, path, NULL, NULL, on_user_data, op) == GR_STORE_OK)
        return;
fail:
    free(op);
    gr_logf(&b->log, GR_LOG_WARN, "sasl", "cannot read the credentials of user %s", user);
}

static void on_users(void *opaque, int rc, const char *const *names, size_t count,
                     const gr_store_stat_t *stat)
{
    (void)stat;
    gr_broker_t *b = opaque;
    for (size_t i = 0; rc == GR_STORE_OK && i < count; i++)
        gr_scram_store_reload(b, names[i]);
    if (rc != GR_STORE_OK && rc != GR_STORE_NONODE && rc != GR_STORE_CLOSING)
        gr_logf(&b->log, GR_LOG_WARN, "sasl", "cannot list " GR_ZK_CONFIG_USERS_PATH ": %s",
                gr_store_rc_name(rc));
}

void gr_scram_store_load(gr_broker_t *b)
{
    if (!b->store_session || gr_store_children(b->store_session, GR_ZK_CONFIG_USERS_PATH, NULL,
                                               NULL, on_users, b) != GR_STORE_OK)
        gr_logf(&b->log, GR_LOG_WARN, "sasl", "cannot list " GR_ZK_CONFIG_USERS_PATH);
}

/* ---- altering ----------------------------------------------------------------------- */

typedef struct alter_op {
    gr_broker_t *b;
    char user[GR_STORE_PATH_MAX + 1];
    gr_scram_change_t *changes;
    int count;
    gr_scram_store_done_fn *done;
    void *opaque;
} alter_op_t;

static void alter_op_free(alter_op_t *op)
{
    OPENSSL_cleanse(op->changes, (size_t)op->count * sizeof *op->changes);
    free(op->changes);
    free(op);
}

/* The change for mechanism name, or NULL. */
static const gr_scram_change_t *change_for(const alter_op_t *op, const char *name)
{
    for (int i = 0; i < op->count; i++)
        if (strcmp(gr_sasl_mechanism_name(op->changes[i].mechanism), name) == 0)
            return &op->changes[i];
    return NULL;
}

/* Writes the kept keys of the old config (may be NULL), then the upsertions. */
static int write_config(alter_op_t *op, const gr_zk_json_t *old, gr_zk_json_writer_t *w)
{
    for (size_t i = 0; old && i < old->count; i++) {
        if (change_for(op, old->keys[i]) || old->items[i]->type != GR_ZK_JSON_STRING)
            continue;
        gr_zk_json_key(w, old->keys[i]);
        gr_zk_json_string(w, old->items[i]->string);
    }
    for (int i = 0; i < op->count; i++) {
        const gr_scram_change_t *c = &op->changes[i];
        char text[GR_SCRAM_CREDENTIAL_MAX];
        if (c->remove)
            continue;
        if (gr_scram_credential_format(&c->cred, c->mechanism, text, sizeof text))
            return -ENOSPC;
        gr_zk_json_key(w, gr_sasl_mechanism_name(c->mechanism));
        gr_zk_json_string(w, text);
        OPENSSL_cleanse(text, sizeof text);
    }
    return 0;
}

/* The new znode text from the old one (NULL when there is none). */
static gr_kerr_t build_doc(void *arg, const char *old_text, size_t old_len, char **out,
                           size_t *out_len)
{
    alter_op_t *op = arg;
    gr_zk_json_t *doc = NULL;
    if (old_text && gr_zk_json_parse(old_text, old_len, &doc))
        doc = NULL; /* a malformed znode is replaced */
    const gr_zk_json_t *old = doc ? gr_zk_json_find(doc, "config") : NULL;
    if (old && old->type != GR_ZK_JSON_OBJECT)
        old = NULL;
    gr_kerr_t err = GR_KERR_NONE;
    for (int i = 0; i < op->count; i++)
        if (op->changes[i].remove &&
            !(old && gr_zk_json_find(old, gr_sasl_mechanism_name(op->changes[i].mechanism))))
            err = GR_KERR_RESOURCE_NOT_FOUND;
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    gr_zk_json_object_begin(&w);
    gr_zk_json_key(&w, "version");
    gr_zk_json_int(&w, USER_JSON_VERSION);
    gr_zk_json_key(&w, "config");
    gr_zk_json_object_begin(&w);
    int rc = write_config(op, old, &w);
    gr_zk_json_object_end(&w);
    gr_zk_json_object_end(&w);
    const char *text = NULL;
    if (err == GR_KERR_NONE &&
        (rc || gr_zk_json_writer_finish(&w, &text, out_len) || !(*out = strndup(text, *out_len))))
        err = GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_zk_json_writer_fini(&w);
    gr_zk_json_free(doc);
    return err;
}

static void apply_doc(void *arg, const char *text, size_t len)
{
    alter_op_t *op = arg;
    (void)gr_scram_users_apply(op->b->scram_users, op->user, text, len);
    gr_logf(&op->b->log, GR_LOG_INFO, "sasl", "SCRAM credentials of user %s changed", op->user);
}

static void update_done(void *arg, gr_kerr_t err)
{
    alter_op_t *op = arg;
    op->done(op->opaque, err);
    alter_op_free(op);
}

int gr_scram_store_alter(gr_broker_t *b, const char *user, const gr_scram_change_t *changes,
                         int count, gr_scram_store_done_fn *done, void *opaque)
{
    alter_op_t *op = calloc(1, sizeof *op);
    if (!op || !(op->changes = malloc((size_t)(count ? count : 1) * sizeof *changes))) {
        free(op);
        return -ENOMEM;
    }
    memcpy(op->changes, changes, (size_t)count * sizeof *changes);
    op->b = b;
    op->count = count;
    op->done = done;
    op->opaque = opaque;
    snprintf(op->user, sizeof op->user, "%s", user);
    char entity_path[GR_STORE_PATH_MAX + 1];
    int rc = (size_t)snprintf(entity_path, sizeof entity_path, USERS_ENTITY "/%s", user) >=
                     sizeof entity_path
                 ? -ENAMETOOLONG
                 : 0;
    gr_config_entity_update_t u = {"sasl", build_doc, apply_doc, update_done, op};
    if (rc == 0)
        rc = gr_config_entity_update(b, entity_path, &u);
    if (rc)
        alter_op_free(op); /* done must not run inside this call */
    return rc;
}
