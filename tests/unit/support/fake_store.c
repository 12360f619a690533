/* SPDX-License-Identifier: Apache-2.0 */
/* The fault-injecting store wrapper (fake_store.h). */
#include <stdlib.h>
#include <string.h>

#include "fake_store.h"

/* The caller's completion, by operation kind. */
typedef union fake_cb {
    gr_store_create_fn *create;
    gr_store_stat_fn *stat;
    gr_store_done_fn *done;
} fake_cb_t;

/* A completion in flight through the wrapper: forwarded, held or faulted. */
struct gr_fake_completion {
    gr_fake_store_t *fs;
    int op;
    fake_cb_t cb;
    void *opaque;
    bool hold;
    /* The result, once the backend gave it (held) or the fault decided it. */
    int rc;
    gr_store_stat_t stat;
    char path[GR_STORE_PATH_MAX + 1];
    gr_fake_completion_t *next;
};

static gr_fake_store_t *fake_of(gr_store_session_t *s)
{
    return (gr_fake_store_t *)s->store;
}

static bool rule_matches(const gr_fake_rule_t *r, int op, const char *path)
{
    return (r->ops & op) && r->count != 0 && strncmp(path, r->prefix, strlen(r->prefix)) == 0;
}

static void run(gr_fake_completion_t *fc)
{
    const gr_store_stat_t *stat = fc->rc == GR_STORE_OK ? &fc->stat : NULL;
    switch (fc->op) {
    case GR_FAKE_OP_CREATE:
        if (fc->cb.create)
            fc->cb.create(fc->opaque, fc->rc, fc->rc == GR_STORE_OK ? fc->path : NULL);
        break;
    case GR_FAKE_OP_SET:
        if (fc->cb.stat)
            fc->cb.stat(fc->opaque, fc->rc, stat);
        break;
    default:
        if (fc->cb.done)
            fc->cb.done(fc->opaque, fc->rc);
    }
    free(fc);
}

static void append(gr_fake_completion_t **list, gr_fake_completion_t *fc)
{
    while (*list)
        list = &(*list)->next;
    fc->next = NULL;
    *list = fc;
}

/* The backend answered: run now, or keep for gr_fake_store_release. */
static void arrived(gr_fake_completion_t *fc, int rc, const gr_store_stat_t *stat, const char *path)
{
    fc->rc = rc;
    if (stat)
        fc->stat = *stat;
    if (path)
        snprintf(fc->path, sizeof fc->path, "%s", path);
    if (fc->hold && rc != GR_STORE_CLOSING)
        append(&fc->fs->held, fc);
    else
        run(fc);
}

static void on_created(void *opaque, int rc, const char *path)
{
    arrived(opaque, rc, NULL, path);
}

static void on_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    arrived(opaque, rc, stat, NULL);
}

static void on_deleted(void *opaque, int rc)
{
    arrived(opaque, rc, NULL, NULL);
}

static void on_answer_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop, (void)revents;
    gr_fake_store_t *fs = t->data;
    while (fs->answers) {
        gr_fake_completion_t *fc = fs->answers;
        fs->answers = fc->next;
        run(fc);
    }
}

/*
 * What becomes of an operation: GR_STORE_OK with *out to forward (cb
 * wrapped), or a refusal to return, or GR_STORE_OK with *out NULL (an
 * ANSWER fault queued).
 */
static int intercept(gr_fake_store_t *fs, int op, const char *path, fake_cb_t cb, void *opaque,
                     gr_fake_completion_t **out)
{
    *out = NULL;
    for (int i = 0; i < fs->fault_count; i++) {
        gr_fake_rule_t *r = &fs->faults[i];
        if (!rule_matches(r, op, path))
            continue;
        r->count--;
        fs->failed++;
        if (r->how == GR_FAKE_REFUSE)
            return r->rc;
        gr_fake_completion_t *fc = calloc(1, sizeof *fc);
        if (!fc)
            return GR_STORE_NOMEM;
        *fc = (gr_fake_completion_t){.fs = fs, .op = op, .cb = cb, .opaque = opaque, .rc = r->rc};
        append(&fs->answers, fc);
        if (!ev_is_active(&fs->answer_timer))
            ev_timer_start(fs->loop, &fs->answer_timer);
        return GR_STORE_OK;
    }
    gr_fake_completion_t *fc = calloc(1, sizeof *fc);
    if (!fc)
        return GR_STORE_NOMEM;
    *fc = (gr_fake_completion_t){.fs = fs, .op = op, .cb = cb, .opaque = opaque};
    for (int i = 0; i < fs->hold_count; i++)
        fc->hold |= rule_matches(&fs->holds[i], op, path);
    *out = fc;
    return GR_STORE_OK;
}

/* The backend expects its own store in s->store during a call: swapped around each one. */
static void as_backend(gr_fake_store_t *fs, gr_store_session_t *s)
{
    s->store = fs->real;
}

static void as_fake(gr_fake_store_t *fs, gr_store_session_t *s)
{
    s->store = &fs->base;
}

static int fake_create(gr_store_session_t *s, const char *path, const void *data, size_t len,
                       int flags, gr_store_create_fn *cb, void *opaque)
{
    gr_fake_store_t *fs = fake_of(s);
    gr_fake_completion_t *fc;
    int rc = intercept(fs, GR_FAKE_OP_CREATE, path, (fake_cb_t){.create = cb}, opaque, &fc);
    if (rc != GR_STORE_OK || !fc)
        return rc;
    as_backend(fs, s);
    rc = fs->real->ops->create(s, path, data, len, flags, on_created, fc);
    as_fake(fs, s);
    if (rc != GR_STORE_OK)
        free(fc);
    return rc;
}

static int fake_set(gr_store_session_t *s, const char *path, const void *data, size_t len,
                    int32_t version, gr_store_stat_fn *cb, void *opaque)
{
    gr_fake_store_t *fs = fake_of(s);
    gr_fake_completion_t *fc;
    int rc = intercept(fs, GR_FAKE_OP_SET, path, (fake_cb_t){.stat = cb}, opaque, &fc);
    if (rc != GR_STORE_OK || !fc)
        return rc;
    as_backend(fs, s);
    rc = fs->real->ops->set(s, path, data, len, version, on_set, fc);
    as_fake(fs, s);
    if (rc != GR_STORE_OK)
        free(fc);
    return rc;
}

static int fake_delete(gr_store_session_t *s, const char *path, int32_t version,
                       gr_store_done_fn *cb, void *opaque)
{
    gr_fake_store_t *fs = fake_of(s);
    gr_fake_completion_t *fc;
    int rc = intercept(fs, GR_FAKE_OP_DELETE, path, (fake_cb_t){.done = cb}, opaque, &fc);
    if (rc != GR_STORE_OK || !fc)
        return rc;
    as_backend(fs, s);
    rc = fs->real->ops->del(s, path, version, on_deleted, fc);
    as_fake(fs, s);
    if (rc != GR_STORE_OK)
        free(fc);
    return rc;
}

static int fake_get(gr_store_session_t *s, const char *path, gr_store_watch_fn *watch,
                    void *watch_opaque, gr_store_data_fn *cb, void *opaque)
{
    gr_fake_store_t *fs = fake_of(s);
    int rc;
    as_backend(fs, s);
    rc = fs->real->ops->get(s, path, watch, watch_opaque, cb, opaque);
    as_fake(fs, s);
    return rc;
}

static int fake_exists(gr_store_session_t *s, const char *path, gr_store_watch_fn *watch,
                       void *watch_opaque, gr_store_stat_fn *cb, void *opaque)
{
    gr_fake_store_t *fs = fake_of(s);
    int rc;
    as_backend(fs, s);
    rc = fs->real->ops->exists(s, path, watch, watch_opaque, cb, opaque);
    as_fake(fs, s);
    return rc;
}

static int fake_children(gr_store_session_t *s, const char *path, gr_store_watch_fn *watch,
                         void *watch_opaque, gr_store_children_fn *cb, void *opaque)
{
    gr_fake_store_t *fs = fake_of(s);
    int rc;
    as_backend(fs, s);
    rc = fs->real->ops->children(s, path, watch, watch_opaque, cb, opaque);
    as_fake(fs, s);
    return rc;
}

static int64_t fake_session_id(const gr_store_session_t *s)
{
    const gr_fake_store_t *fs = (const gr_fake_store_t *)s->store;
    gr_store_session_t *mut = (gr_store_session_t *)s;
    mut->store = fs->real;
    int64_t id = fs->real->ops->session_id(s);
    mut->store = (gr_store_t *)&fs->base;
    return id;
}

void gr_fake_store_install(gr_fake_store_t *fs, gr_broker_t *b)
{
    memset(fs, 0, sizeof *fs);
    fs->session = b->store_session;
    fs->real = fs->session->store;
    fs->loop = b->loop;
    fs->ops = *fs->real->ops; /* session open/close and store close stay the backend's */
    fs->ops.name = "fake";
    fs->ops.session_id = fake_session_id;
    fs->ops.create = fake_create;
    fs->ops.get = fake_get;
    fs->ops.set = fake_set;
    fs->ops.del = fake_delete;
    fs->ops.exists = fake_exists;
    fs->ops.children = fake_children;
    fs->base.ops = &fs->ops;
    ev_timer_init(&fs->answer_timer, on_answer_timer, 0., 0.);
    fs->answer_timer.data = fs;
    fs->session->store = &fs->base;
}

void gr_fake_store_remove(gr_fake_store_t *fs)
{
    gr_fake_store_release(fs);
    ev_timer_stop(fs->loop, &fs->answer_timer);
    on_answer_timer(fs->loop, &fs->answer_timer, 0);
    fs->session->store = fs->real;
}

static void add_rule(gr_fake_rule_t *rules, int *count, int ops, const char *prefix, int n, int rc,
                     gr_fake_how_t how)
{
    if (*count == GR_FAKE_RULES_MAX)
        abort(); /* a test asking for more rules than a fake holds is a broken test */
    gr_fake_rule_t *r = &rules[(*count)++];
    *r = (gr_fake_rule_t){.ops = ops, .count = n, .rc = rc, .how = how};
    snprintf(r->prefix, sizeof r->prefix, "%s", prefix);
}

void gr_fake_store_fail(gr_fake_store_t *fs, int ops, const char *prefix, int count, int rc,
                        gr_fake_how_t how)
{
    add_rule(fs->faults, &fs->fault_count, ops, prefix, count, rc, how);
}

void gr_fake_store_hold(gr_fake_store_t *fs, int ops, const char *prefix)
{
    add_rule(fs->holds, &fs->hold_count, ops, prefix, -1, GR_STORE_OK, GR_FAKE_REFUSE);
}

void gr_fake_store_release(gr_fake_store_t *fs)
{
    fs->hold_count = 0;
    while (fs->held) {
        gr_fake_completion_t *fc = fs->held;
        fs->held = fc->next;
        run(fc);
    }
}

size_t gr_fake_store_held(const gr_fake_store_t *fs)
{
    size_t n = 0;
    for (const gr_fake_completion_t *fc = fs->held; fc; fc = fc->next)
        n++;
    return n;
}
