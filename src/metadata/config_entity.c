/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One config entity's alteration: see config_entity.h. A chain of store
 * operations carrying one update_op_t: get the znode (on_current) -> set or
 * create it (on_written) -> create the notification (on_notified) -> done.
 * Also the entity names' sanitized form, which every entity type (users,
 * clients, groups) puts in its paths.
 *
 * Runs on: loop thread (the name functions: any thread).
 */
#include "metadata/config_entity.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/store.h"
#include "metadata/zk_docs.h"
#include "metadata/zk_json.h"

typedef struct update_op {
    gr_broker_t *b;
    gr_config_entity_update_t u;
    char entity_path[GR_STORE_PATH_MAX + 1]; /* "<type>/<name>" */
    char path[GR_STORE_PATH_MAX + 1];        /* "/config/" + entity_path */
    char *text;                              /* the znode as written */
    size_t len;
} update_op_t;

static void finish(update_op_t *op, gr_kerr_t err)
{
    op->u.done(op->u.arg, err);
    free(op->text);
    free(op);
}

static gr_kerr_t store_failed(update_op_t *op, const char *what, int rc)
{
    gr_logf(&op->b->log, GR_LOG_WARN, op->u.log_tag, "%s: %s failed: %s", op->path, what,
            gr_store_rc_name(rc));
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

static void on_notified(void *opaque, int rc, const char *path)
{
    (void)path;
    update_op_t *op = opaque;
    op->b->store_pending--;
    if (rc != GR_STORE_OK && rc != GR_STORE_CLOSING)
        (void)store_failed(op, "notifying the change", rc);
    finish(op, GR_KERR_NONE);
}

/* The notification {"version":2,"entity_path":"<type>/<name>"}. */
static int notify(update_op_t *op)
{
    const char *slash = strchr(op->entity_path, '/');
    char type[GR_STORE_PATH_MAX + 1];
    snprintf(type, sizeof type, "%.*s", (int)(slash - op->entity_path), op->entity_path);
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    const char *text = NULL;
    size_t len = 0;
    int rc = GR_STORE_NOMEM;
    if (gr_zk_doc_config_change_entity(&w, type, slash + 1) == 0 &&
        gr_zk_json_writer_finish(&w, &text, &len) == 0)
        rc = gr_store_create(op->b->store_session,
                             GR_ZK_CONFIG_CHANGES_PATH "/" GR_ZK_CONFIG_CHANGE_PREFIX, text, len,
                             GR_STORE_PERSISTENT | GR_STORE_SEQUENTIAL, on_notified, op);
    gr_zk_json_writer_fini(&w);
    return rc;
}

static void on_written(update_op_t *op, int rc)
{
    op->b->store_pending--;
    if (rc != GR_STORE_OK) {
        finish(op, store_failed(op, "writing", rc));
        return;
    }
    if (op->u.applied)
        op->u.applied(op->u.arg, op->text, op->len);
    rc = notify(op);
    if (rc == GR_STORE_OK) {
        op->b->store_pending++;
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
    update_op_t *op = opaque;
    if (rc != GR_STORE_OK && rc != GR_STORE_NONODE) {
        finish(op, store_failed(op, "reading", rc));
        return;
    }
    bool exists = rc == GR_STORE_OK;
    gr_kerr_t err =
        op->u.build(op->u.arg, exists ? data : NULL, exists ? len : 0, &op->text, &op->len);
    if (err) {
        finish(op, err);
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

/* ---- names (Kafka's Sanitizer) ---- */

#define HEX_DIGITS "0123456789ABCDEF"
#define ESCAPE_LEN 3 /* "%XX" */
#define HEX_BASE   16

static bool kept_as_is(unsigned char ch)
{
    return isalnum(ch) || ch == '.' || ch == '-' || ch == '_';
}

int gr_config_entity_sanitize(const char *name, size_t len, char *out, size_t out_size)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)name[i];
        size_t need = kept_as_is(ch) ? 1 : ESCAPE_LEN;
        if (o + need >= out_size)
            return -ENAMETOOLONG;
        if (need == 1) {
            out[o++] = (char)ch;
        } else {
            out[o++] = '%';
            out[o++] = HEX_DIGITS[ch >> 4];
            out[o++] = HEX_DIGITS[ch & 0xf];
        }
    }
    if (o >= out_size)
        return -ENAMETOOLONG;
    out[o] = '\0';
    return 0;
}

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = (char)toupper((unsigned char)ch);
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

int gr_config_entity_desanitize(const char *text, size_t len, char *out, size_t out_size,
                                size_t *out_len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (ch == '%') {
            int hi = i + 2 < len ? hex_value(text[i + 1]) : -1;
            int lo = hi >= 0 ? hex_value(text[i + 2]) : -1;
            if (lo < 0)
                return -EINVAL;
            ch = (char)(hi * HEX_BASE + lo);
            i += 2;
        } else if (ch == '+') {
            ch = ' ';
        }
        if (o + 1 >= out_size)
            return -ENAMETOOLONG;
        out[o++] = ch;
    }
    if (o >= out_size)
        return -ENAMETOOLONG;
    out[o] = '\0';
    if (out_len)
        *out_len = o;
    return 0;
}

bool gr_config_entity_path_fits(const char *entity_path)
{
    return strlen(GR_ZK_CONFIG_PATH "/") + strlen(entity_path) <= GR_STORE_PATH_MAX;
}

int gr_config_entity_update(gr_broker_t *b, const char *entity_path,
                            const gr_config_entity_update_t *u)
{
    if (!b->store_session)
        return -EIO;
    if (!strchr(entity_path, '/'))
        return -EINVAL;
    if (!gr_config_entity_path_fits(entity_path))
        return -ENAMETOOLONG;
    update_op_t *op = calloc(1, sizeof *op);
    if (!op)
        return -ENOMEM;
    op->b = b;
    op->u = *u;
    snprintf(op->entity_path, sizeof op->entity_path, "%s", entity_path);
    snprintf(op->path, sizeof op->path, GR_ZK_CONFIG_PATH "/%s", entity_path);
    if (gr_store_get(b->store_session, op->path, NULL, NULL, on_current, op) != GR_STORE_OK) {
        free(op);
        return -EIO;
    }
    return 0;
}
