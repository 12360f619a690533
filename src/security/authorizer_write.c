/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Adding and removing one binding in its resource's node (authorizer.h).
 *
 * A write is a small state machine over the store, one step per completion:
 *   read the node (its bindings and version; NONODE: none, to be created)
 *   -> change the bindings; no change: done
 *   -> create it (missing; its type's parent created first if need be),
 *      set it at the version read, or delete it at that version when no
 *      binding is left
 *   -> a race with another writer (BADVERSION, NODEEXISTS, NONODE): read
 *      again, up to WRITE_ATTEMPTS times
 *   -> cache updated from the written data, change notification created
 *   -> done(opaque, GR_KERR_NONE)
 * Any other store failure ends it with UNKNOWN_SERVER_ERROR.
 *
 * Runs on: loop thread.
 */
#include "security/authorizer_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/kerr.h"
#include "security/acl_znode.h"

#define WRITE_ATTEMPTS  10
#define CHANGE_DATA_MAX (GR_STORE_PATH_MAX + 128)

typedef struct write_op {
    gr_authorizer_t *a;
    bool add; /* else remove */
    gr_acl_binding_t binding;
    gr_authorizer_done_fn *done;
    void *opaque;
    int attempts;
    char path[GR_STORE_PATH_MAX + 1];
    char *text; /* the node's new data, NULL when it is deleted */
    size_t text_len;
} write_op_t;

static void write_attempt(write_op_t *op);

static void finish(write_op_t *op, int16_t kerr)
{
    op->done(op->opaque, kerr);
    free(op->binding.name);
    free(op->text);
    free(op);
}

static void fail(write_op_t *op, const char *step, int rc)
{
    gr_logf(&op->a->b->log, GR_LOG_WARN, "acl", "%s %s: %s", step, op->path, gr_store_rc_name(rc));
    finish(op, GR_KERR_UNKNOWN_SERVER_ERROR);
}

static void on_notified(void *opaque, int rc, const char *path)
{
    (void)path;
    write_op_t *op = opaque;
    if (rc != GR_STORE_OK && !op->a->closing)
        gr_logf(&op->a->b->log, GR_LOG_WARN, "acl",
                "ACLs of %s written, but other brokers were not told: %s", op->path,
                gr_store_rc_name(rc));
    finish(op, rc == GR_STORE_OK ? GR_KERR_NONE : GR_KERR_UNKNOWN_SERVER_ERROR);
}

/* Written: the cache follows at once, then every broker is told. */
static void written(write_op_t *op)
{
    gr_authorizer_t *a = op->a;
    const gr_acl_binding_t *k = &op->binding;
    gr_authorizer_apply(a, k->type, k->pattern, k->name, op->text, op->text_len);
    char change[CHANGE_DATA_MAX], path[GR_STORE_PATH_MAX + 1];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", gr_acl_znode_changes_root(k->pattern),
             GR_ACL_ZNODE_CHANGE_PREFIX);
    int rc = gr_acl_change_encode(k->type, k->pattern, k->name, change, sizeof change, &len);
    if (rc == 0 && gr_store_create(a->session, path, change, len, GR_STORE_SEQUENTIAL, on_notified,
                                   op) == GR_STORE_OK)
        return;
    finish(op, GR_KERR_UNKNOWN_SERVER_ERROR);
}

static bool raced(int rc)
{
    return rc == GR_STORE_BADVERSION || rc == GR_STORE_NODEEXISTS || rc == GR_STORE_NONODE;
}

static void retry_or_fail(write_op_t *op, const char *step, int rc)
{
    if (raced(rc) && ++op->attempts < WRITE_ATTEMPTS && !op->a->closing)
        write_attempt(op);
    else
        fail(op, step, rc);
}

static void on_parent_created(void *opaque, int rc, const char *path)
{
    (void)path;
    write_op_t *op = opaque;
    if (rc != GR_STORE_OK && rc != GR_STORE_NODEEXISTS)
        return fail(op, "creating the parent of", rc);
    retry_or_fail(op, "creating", GR_STORE_NODEEXISTS);
}

static void on_created(void *opaque, int rc, const char *path)
{
    (void)path;
    write_op_t *op = opaque;
    if (rc == GR_STORE_OK)
        return written(op);
    if (rc != GR_STORE_NONODE || op->a->closing)
        return retry_or_fail(op, "creating", rc);
    /* The resource type's node (/kafka-acl/Topic) does not exist yet. */
    char parent[GR_STORE_PATH_MAX + 1];
    snprintf(parent, sizeof parent, "%s/%s", gr_acl_znode_root(op->binding.pattern),
             gr_acl_resource_type_znode(op->binding.type));
    if (gr_store_create(op->a->session, parent, NULL, 0, GR_STORE_PERSISTENT, on_parent_created,
                        op) != GR_STORE_OK)
        fail(op, "creating the parent of", GR_STORE_CLOSING);
}

static void on_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    write_op_t *op = opaque;
    if (rc == GR_STORE_OK)
        return written(op);
    retry_or_fail(op, "writing", rc);
}

static void on_deleted(void *opaque, int rc)
{
    write_op_t *op = opaque;
    if (rc == GR_STORE_OK)
        return written(op);
    retry_or_fail(op, "deleting", rc);
}

/* Applies the change to the node's bindings; false when there is nothing to do. */
static bool change(write_op_t *op, gr_acl_set_t *set)
{
    if (op->add)
        return !gr_acl_set_contains(set, &op->binding) && gr_acl_set_add(set, &op->binding) == 0;
    size_t kept = 0;
    for (size_t i = 0; i < set->count; i++) {
        if (gr_acl_binding_equal(&set->items[i], &op->binding))
            free(set->items[i].name);
        else
            set->items[kept++] = set->items[i];
    }
    bool changed = kept < set->count;
    set->count = kept;
    return changed;
}

/* Encodes set as the node's new data into op->text. 0 or -ENOMEM. */
static int encode(write_op_t *op, const gr_acl_set_t *set)
{
    const gr_acl_binding_t *k = &op->binding;
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    const char *text = NULL;
    int rc = gr_acl_znode_encode(set, k->type, k->pattern, k->name, &w);
    if (rc == 0)
        rc = gr_zk_json_writer_finish(&w, &text, &op->text_len);
    free(op->text);
    op->text = rc == 0 ? strndup(text, op->text_len) : NULL;
    gr_zk_json_writer_fini(&w);
    return rc == 0 && !op->text ? -ENOMEM : rc;
}

/* Writes set back (create, set or delete), expecting the node at version (-1: absent). */
static void write_back(write_op_t *op, const gr_acl_set_t *set, int32_t version)
{
    gr_store_session_t *s = op->a->session;
    int rc;
    free(op->text);
    op->text = NULL;
    if (set->count == 0 && version >= 0)
        rc = gr_store_delete(s, op->path, version, on_deleted, op);
    else if (encode(op, set) != 0)
        rc = GR_STORE_NOMEM;
    else if (version >= 0)
        rc = gr_store_set(s, op->path, op->text, op->text_len, version, on_set, op);
    else
        rc = gr_store_create(s, op->path, op->text, op->text_len, GR_STORE_PERSISTENT, on_created,
                             op);
    if (rc != GR_STORE_OK)
        fail(op, "writing", rc);
}

static void on_current(void *opaque, int rc, const void *data, size_t len,
                       const gr_store_stat_t *stat)
{
    write_op_t *op = opaque;
    const gr_acl_binding_t *k = &op->binding;
    if (rc != GR_STORE_OK && rc != GR_STORE_NONODE)
        return fail(op, "reading", rc);
    gr_acl_set_t set = {0};
    if (rc == GR_STORE_OK &&
        gr_acl_znode_decode(data, len, k->type, k->pattern, k->name, &set) != 0) {
        gr_acl_set_clear(&set);
        return fail(op, "decoding", GR_STORE_SYSTEMERROR);
    }
    if (!change(op, &set)) {
        gr_acl_set_clear(&set);
        return finish(op, GR_KERR_NONE);
    }
    write_back(op, &set, rc == GR_STORE_OK ? stat->version : -1);
    gr_acl_set_clear(&set);
}

static void write_attempt(write_op_t *op)
{
    int rc = gr_store_get(op->a->session, op->path, NULL, NULL, on_current, op);
    if (rc != GR_STORE_OK)
        fail(op, "reading", rc);
}

static int write_start(gr_authorizer_t *a, bool add, const gr_acl_binding_t *binding,
                       gr_authorizer_done_fn *done, void *opaque)
{
    if (!a->session)
        return -ENOTCONN;
    write_op_t *op = calloc(1, sizeof *op);
    if (!op)
        return -ENOMEM;
    *op = (write_op_t){.a = a, .add = add, .binding = *binding, .done = done, .opaque = opaque};
    op->binding.name = strdup(binding->name);
    int rc = op->binding.name ? gr_acl_znode_path(binding->type, binding->pattern, binding->name,
                                                  op->path, sizeof op->path)
                              : -ENOMEM;
    if (rc == 0 && gr_store_get(a->session, op->path, NULL, NULL, on_current, op) != GR_STORE_OK)
        rc = -ENOTCONN;
    if (rc) {
        free(op->binding.name);
        free(op);
    }
    return rc;
}

int gr_authorizer_add(gr_authorizer_t *a, const gr_acl_binding_t *binding,
                      gr_authorizer_done_fn *done, void *opaque)
{
    return write_start(a, true, binding, done, opaque);
}

int gr_authorizer_remove(gr_authorizer_t *a, const gr_acl_binding_t *binding,
                         gr_authorizer_done_fn *done, void *opaque)
{
    return write_start(a, false, binding, done, opaque);
}
