/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SCRAM credentials in the metadata store: see scram_store.h.
 *
 * An alteration is a chain of store operations, one alter_op_t carried
 * through them: get the znode (on_current) -> set or create it (on_written)
 * -> create the notification (on_notified) -> done. The broker's
 * store_pending counts the writes in flight so a stopping broker waits for
 * them.
 *
 * Runs on: loop thread.
 */
#include "security/scram_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

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
    char path[GR_STORE_PATH_MAX + 1];
    gr_scram_change_t *changes;
    int count;
    char *text; /* the znode as written */
    size_t len;
    gr_scram_store_done_fn *done;
    void *opaque;
} alter_op_t;

static void finish(alter_op_t *op, gr_kerr_t err)
{
    op->done(op->opaque, err);
    OPENSSL_cleanse(op->changes, (size_t)op->count * sizeof *op->changes);
    free(op->changes);
    free(op->text);
    free(op);
}

static gr_kerr_t store_failed(alter_op_t *op, const char *what, int rc)
{
    gr_logf(&op->b->log, GR_LOG_WARN, "sasl", "credentials of user %s: %s failed: %s", op->user,
            what, gr_store_rc_name(rc));
    return GR_KERR_UNKNOWN_SERVER_ERROR;
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

/* The new znode text from the old one (NULL when there is none), into op->text. */
static gr_kerr_t build_doc(alter_op_t *op, const char *old_text, size_t old_len)
{
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
    if (err == GR_KERR_NONE && (rc || gr_zk_json_writer_finish(&w, &text, &op->len) ||
                                !(op->text = strndup(text, op->len))))
        err = GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_zk_json_writer_fini(&w);
    gr_zk_json_free(doc);
    return err;
}

static void on_notified(void *opaque, int rc, const char *path)
{
    (void)path;
    alter_op_t *op = opaque;
    op->b->store_pending--;
    /* The credentials are stored: a lost notification only delays other brokers. */
    if (rc != GR_STORE_OK && rc != GR_STORE_CLOSING)
        (void)store_failed(op, "notifying the change", rc);
    finish(op, GR_KERR_NONE);
}

static void on_written(void *opaque, int rc)
{
    alter_op_t *op = opaque;
    gr_broker_t *b = op->b;
    b->store_pending--;
    if (rc != GR_STORE_OK) {
        finish(op, store_failed(op, "writing " GR_ZK_CONFIG_USERS_PATH, rc));
        return;
    }
    (void)gr_scram_users_apply(b->scram_users, op->user, op->text, op->len);
    gr_logf(&b->log, GR_LOG_INFO, "sasl", "SCRAM credentials of user %s changed", op->user);
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    const char *text = NULL;
    size_t len = 0;
    rc = GR_STORE_NOMEM;
    if (gr_zk_doc_config_change_entity(&w, USERS_ENTITY, op->user) == 0 &&
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
        finish(op, store_failed(op, "reading " GR_ZK_CONFIG_USERS_PATH, rc));
        return;
    }
    bool exists = rc == GR_STORE_OK;
    gr_kerr_t err = build_doc(op, exists ? data : NULL, exists ? len : 0);
    if (err) {
        finish(op, err);
        return;
    }
    gr_store_session_t *s = op->b->store_session;
    rc = exists
             ? gr_store_set(s, op->path, op->text, op->len, stat->version, on_set, op)
             : gr_store_create(s, op->path, op->text, op->len, GR_STORE_PERSISTENT, on_created, op);
    if (rc != GR_STORE_OK) {
        finish(op, store_failed(op, "writing " GR_ZK_CONFIG_USERS_PATH, rc));
        return;
    }
    op->b->store_pending++;
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
    snprintf(op->path, sizeof op->path, GR_ZK_CONFIG_USERS_PATH "/%s", user);
    int rc = b->store_session ? gr_store_get(b->store_session, op->path, NULL, NULL, on_current, op)
                              : GR_STORE_CLOSING;
    if (rc != GR_STORE_OK) {
        /* done must not run inside this call: report through the caller instead. */
        free(op->changes);
        free(op);
        return -EIO;
    }
    return 0;
}
