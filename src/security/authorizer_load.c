/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The authorizer's reads: its store session, Kafka's ACL paths, the full
 * load of every resource node (into a->next, swapped in when the last read
 * completes, so checks never see a half-read tree), and the change
 * notifications that make one resource be read again. See authorizer.h.
 *
 * Every read carries the session generation it was issued in; a completion
 * of an older generation, or one arriving while closing, only frees itself.
 *
 * Runs on: loop thread.
 */
#include "security/authorizer_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/acl_znode.h"

#define MS_PER_SEC 1000.0

static const gr_acl_pattern_t families[GR_ACL_FAMILIES] = {GR_ACL_PATTERN_LITERAL,
                                                           GR_ACL_PATTERN_PREFIXED};

/* Kafka's ACL paths, parents first. */
static const char *const acl_paths[] = {
    GR_ACL_ZNODE_LITERAL_PATH,  GR_ACL_ZNODE_LITERAL_CHANGES_PATH,  GR_ACL_ZNODE_EXTENDED_PATH,
    GR_ACL_ZNODE_PREFIXED_PATH, GR_ACL_ZNODE_EXTENDED_CHANGES_PATH,
};

/* One read in flight: what it is about, and the generation it belongs to. */
typedef struct read_op {
    gr_authorizer_t *a;
    uint64_t gen;
    gr_acl_pattern_t pattern;
    gr_acl_resource_type_t type;
    bool full_load; /* part of the full load (counted in a->loading) */
    char name[GR_STORE_PATH_MAX + 1];
} read_op_t;

static read_op_t *read_new(gr_authorizer_t *a, gr_acl_pattern_t pattern, bool full_load)
{
    read_op_t *op = calloc(1, sizeof *op);
    if (op) {
        op->a = a;
        op->gen = a->gen;
        op->pattern = pattern;
        op->full_load = full_load;
        if (full_load)
            a->loading++;
    }
    return op;
}

/* Ends a full-load read; the last one swaps the new tree in. */
static void load_step_done(gr_authorizer_t *a, bool ok)
{
    if (!ok)
        a->load_failed = true;
    if (--a->loading > 0)
        return;
    if (a->load_failed) {
        gr_logf(&a->b->log, GR_LOG_ERROR, "acl", "could not read every ACL from the store");
        gr_acl_set_clear(&a->next);
        a->load_failed = false;
        return;
    }
    gr_acl_set_clear(&a->acls);
    a->acls = a->next;
    a->next = (gr_acl_set_t){0};
    a->loaded = true;
    gr_logf(&a->b->log, GR_LOG_INFO, "acl", "loaded %zu ACL(s)", a->acls.count);
}

/*
 * Whether the completion still matters; if not, frees op. A stale one
 * belongs to a closed session, whose load was abandoned with it.
 */
static bool read_current(read_op_t *op)
{
    gr_authorizer_t *a = op->a;
    if (!a->closing && op->gen == a->gen)
        return true;
    free(op);
    return false;
}

/* A read that could not be issued (op NULL: not even allocated). */
static void issue_failed(gr_authorizer_t *a, read_op_t *op, bool full_load)
{
    if (full_load && op)
        load_step_done(a, false);
    else if (full_load)
        a->load_failed = true;
    free(op);
}

/* ---- the full load ---------------------------------------------------------------- */

static void on_load_node(void *opaque, int rc, const void *data, size_t len,
                         const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    if (!read_current(op))
        return;
    gr_authorizer_t *a = op->a;
    int drc = rc == GR_STORE_OK
                  ? gr_acl_znode_decode(data, len, op->type, op->pattern, op->name, &a->next)
                  : 0;
    if (drc)
        gr_logf(&a->b->log, GR_LOG_WARN, "acl", "ignoring unreadable ACLs of %s:%s",
                gr_acl_resource_type_znode(op->type), op->name);
    load_step_done(a, rc == GR_STORE_OK || rc == GR_STORE_NONODE);
    free(op);
}

static void on_load_names(void *opaque, int rc, const char *const *names, size_t count,
                          const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    if (!read_current(op))
        return;
    gr_authorizer_t *a = op->a;
    for (size_t i = 0; rc == GR_STORE_OK && i < count; i++) {
        read_op_t *node = read_new(a, op->pattern, true);
        char path[GR_STORE_PATH_MAX + 1];
        if (node) {
            node->type = op->type;
            snprintf(node->name, sizeof node->name, "%s", names[i]);
        }
        if (!node || gr_acl_znode_path(op->type, op->pattern, names[i], path, sizeof path) ||
            gr_store_get(a->session, path, NULL, NULL, on_load_node, node) != GR_STORE_OK)
            issue_failed(a, node, true);
    }
    load_step_done(a, rc == GR_STORE_OK || rc == GR_STORE_NONODE);
    free(op);
}

static void on_load_types(void *opaque, int rc, const char *const *names, size_t count,
                          const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    if (!read_current(op))
        return;
    gr_authorizer_t *a = op->a;
    for (size_t i = 0; rc == GR_STORE_OK && i < count; i++) {
        gr_acl_resource_type_t type = gr_acl_resource_type_parse(names[i]);
        if (type <= GR_ACL_RESOURCE_TYPE_ANY)
            continue; /* not a resource type Gregor knows */
        read_op_t *list = read_new(a, op->pattern, true);
        char path[GR_STORE_PATH_MAX + 1];
        snprintf(path, sizeof path, "%s/%s", gr_acl_znode_root(op->pattern), names[i]);
        if (list)
            list->type = type;
        if (!list ||
            gr_store_children(a->session, path, NULL, NULL, on_load_names, list) != GR_STORE_OK)
            issue_failed(a, list, true);
    }
    load_step_done(a, rc == GR_STORE_OK);
    free(op);
}

static void load_all(gr_authorizer_t *a)
{
    gr_acl_set_clear(&a->next);
    a->load_failed = false;
    for (int f = 0; f < GR_ACL_FAMILIES; f++) {
        read_op_t *op = read_new(a, families[f], true);
        if (!op || gr_store_children(a->session, gr_acl_znode_root(families[f]), NULL, NULL,
                                     on_load_types, op) != GR_STORE_OK)
            issue_failed(a, op, true);
    }
}

/* ---- change notifications ----------------------------------------------------------- */

static void watch_changes(gr_authorizer_t *a, gr_acl_pattern_t family);

static void on_resource_read(void *opaque, int rc, const void *data, size_t len,
                             const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    if (!read_current(op))
        return;
    if (rc == GR_STORE_OK || rc == GR_STORE_NONODE) {
        gr_authorizer_apply(op->a, op->type, op->pattern, op->name, rc == GR_STORE_OK ? data : NULL,
                            len);
        gr_logf(&op->a->b->log, GR_LOG_INFO, "acl", "ACLs of %s %s:%s changed",
                gr_acl_pattern_name(op->pattern), gr_acl_resource_type_znode(op->type), op->name);
    }
    free(op);
}

static void on_change_data(void *opaque, int rc, const void *data, size_t len,
                           const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    if (!read_current(op))
        return;
    gr_authorizer_t *a = op->a;
    char path[GR_STORE_PATH_MAX + 1];
    if (rc != GR_STORE_OK ||
        gr_acl_change_decode(data, len, op->pattern, &op->type, &op->pattern, op->name,
                             sizeof op->name) ||
        gr_acl_znode_path(op->type, op->pattern, op->name, path, sizeof path) ||
        gr_store_get(a->session, path, NULL, NULL, on_resource_read, op) != GR_STORE_OK)
        free(op); /* gone already (expired), or not one we can read */
}

/* The sequence number of an acl_changes_NNNNNNNNNN child, or -1. */
static int64_t change_sequence(const char *name)
{
    size_t prefix = strlen(GR_ACL_ZNODE_CHANGE_PREFIX);
    if (strncmp(name, GR_ACL_ZNODE_CHANGE_PREFIX, prefix) != 0)
        return -1;
    char *end = NULL;
    long long seq = strtoll(name + prefix, &end, 10);
    return *end || seq < 0 ? -1 : (int64_t)seq;
}

static void on_changes(void *opaque, int rc, const char *const *names, size_t count,
                       const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    if (!read_current(op))
        return;
    gr_authorizer_t *a = op->a;
    int f = gr_acl_family(op->pattern);
    int64_t highest = a->seen[f];
    for (size_t i = 0; rc == GR_STORE_OK && i < count; i++) {
        int64_t seq = change_sequence(names[i]);
        if (seq > highest)
            highest = seq;
        if (seq <= a->seen[f] || !a->primed[f])
            continue; /* handled, or older than the full load */
        char path[GR_STORE_PATH_MAX + 1];
        snprintf(path, sizeof path, "%s/%s", gr_acl_znode_changes_root(op->pattern), names[i]);
        read_op_t *read = read_new(a, op->pattern, false);
        if (read && gr_store_get(a->session, path, NULL, NULL, on_change_data, read) != GR_STORE_OK)
            free(read);
    }
    a->seen[f] = highest;
    a->primed[f] = rc == GR_STORE_OK;
    if (rc == GR_STORE_OK)
        gr_authorizer_purge(a, op->pattern, names, count);
    free(op);
}

/* One watch function per family, with the authorizer as opaque: nothing to free when dropped. */
static void rewatch(gr_authorizer_t *a, gr_acl_pattern_t family)
{
    if (!a->closing && a->session)
        watch_changes(a, family);
}

static void on_literal_changes_watch(void *opaque, gr_store_event_t event, const char *path)
{
    (void)event;
    (void)path;
    rewatch(opaque, GR_ACL_PATTERN_LITERAL);
}

static void on_prefixed_changes_watch(void *opaque, gr_store_event_t event, const char *path)
{
    (void)event;
    (void)path;
    rewatch(opaque, GR_ACL_PATTERN_PREFIXED);
}

static void watch_changes(gr_authorizer_t *a, gr_acl_pattern_t family)
{
    gr_store_watch_fn *watch =
        family == GR_ACL_PATTERN_PREFIXED ? on_prefixed_changes_watch : on_literal_changes_watch;
    read_op_t *op = read_new(a, family, false);
    if (op && gr_store_children(a->session, gr_acl_znode_changes_root(family), watch, a, on_changes,
                                op) != GR_STORE_OK)
        free(op);
}

/* ---- session and start-up ----------------------------------------------------------- */

static void start_reading(gr_authorizer_t *a)
{
    /* Changes first: the listing is the baseline the full load then covers. */
    for (int f = 0; f < GR_ACL_FAMILIES; f++) {
        a->primed[f] = false;
        watch_changes(a, families[f]);
    }
    load_all(a);
}

static void on_session_state(void *opaque, gr_store_session_state_t state);

static int open_session(gr_authorizer_t *a)
{
    int rc = gr_store_session_open(a->b->store, on_session_state, a, &a->session);
    if (rc != GR_STORE_OK) {
        a->session = NULL;
        gr_logf(&a->b->log, GR_LOG_ERROR, "acl", "cannot open a metadata store session: %s",
                gr_store_rc_name(rc));
        return -ENOMEM;
    }
    for (size_t i = 0; i < sizeof acl_paths / sizeof acl_paths[0]; i++)
        (void)gr_store_create(a->session, acl_paths[i], NULL, 0, GR_STORE_PERSISTENT, NULL,
                              NULL); /* NODEEXISTS is the usual answer */
    start_reading(a);
    return 0;
}

/* An expired session loses its watches: a new one reads everything again. */
static void on_session_state(void *opaque, gr_store_session_state_t state)
{
    gr_authorizer_t *a = opaque;
    if (state != GR_STORE_SESSION_EXPIRED || a->closing)
        return;
    gr_logf(&a->b->log, GR_LOG_WARN, "acl", "store session expired: reading every ACL again");
    a->gen++;
    a->loading = 0;
    gr_store_session_t *old = a->session;
    a->session = NULL;
    gr_store_session_close(old);
    (void)open_session(a);
}

int gr_authorizer_load_begin(gr_authorizer_t *a)
{
    return open_session(a);
}

static void on_deadline(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    *(bool *)t->data = true;
}

int gr_authorizer_start(gr_broker_t *b)
{
    gr_authorizer_t *a = b->authorizer;
    if (!a)
        return 0;
    int rc = gr_authorizer_load_begin(a);
    if (rc)
        return rc;
    bool expired = false;
    ev_timer deadline;
    ev_timer_init(&deadline, on_deadline,
                  b->config.effective.zookeeper_connection_timeout_ms / MS_PER_SEC, 0.);
    deadline.data = &expired;
    ev_timer_start(b->loop, &deadline);
    while (!a->loaded && !expired)
        ev_run(b->loop, EVRUN_ONCE);
    ev_timer_stop(b->loop, &deadline);
    if (!a->loaded) {
        gr_logf(&b->log, GR_LOG_ERROR, "acl", "timed out loading the ACLs");
        return -ETIMEDOUT;
    }
    return 0;
}
