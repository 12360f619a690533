/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The metadata store contract (metadata/store.h), written against the
 * interface only. A backend plugs in through a store_backend_t: it makes a
 * fresh, empty store location per test and opens (or reopens) a gr_store_t
 * on it. main() below runs the suite against the local store; the ZooKeeper
 * store's test can reuse it by defining GR_STORE_CONTRACT_NO_MAIN, including
 * this file and calling store_contract_run() with its own backend.
 *
 * Tests never sleep: they run the loop until a condition holds, under a
 * generous deadline timer, and use a "barrier" (an exists on the same
 * session, whose completion comes after everything issued before it) to
 * know that no further watch event is due.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <ev.h>

#include "loop_wait.h"

#include "metadata/store.h"

/* How long a test waits for a completion before failing. */

typedef struct store_backend {
    const char *name;
    /* A fresh, empty store location; returns the backend's context. */
    void *(*setup)(void);
    /* Opens the store at ctx (again, after a close: the same contents). */
    gr_store_t *(*open)(void *ctx, struct ev_loop *loop);
    /* Optional: with the store closed, leave a torn unfinished save behind. */
    void (*tear)(void *ctx);
    void (*teardown)(void *ctx);
} store_backend_t;

typedef struct fixture {
    const store_backend_t *backend;
    void *ctx;
    struct ev_loop *loop;
    gr_store_t *store;
    gr_store_session_t *s;
} fixture_t;

/* What one completion reported. */
typedef struct result {
    bool done;
    int calls;
    int rc;
    char path[GR_STORE_PATH_MAX + 1];
    char data[256];
    size_t len;
    gr_store_stat_t stat;
    char names[16][64];
    size_t count;
} result_t;

/* What a watch saw. */
typedef struct watch_log {
    int calls;
    gr_store_event_t event;
    char path[GR_STORE_PATH_MAX + 1];
} watch_log_t;

/* ---- loop driving ----------------------------------------------------------- */

static void wait_for(fixture_t *fx, const bool *flag)
{
    gr_test_wait_flag(fx->loop, flag, "a completion");
}

/* ---- completion recorders ------------------------------------------------------ */

static void on_create(void *opaque, int rc, const char *path)
{
    result_t *r = opaque;
    r->calls++;
    r->done = true;
    r->rc = rc;
    if (rc == GR_STORE_OK)
        snprintf(r->path, sizeof(r->path), "%s", path);
}

static void on_data(void *opaque, int rc, const void *data, size_t len, const gr_store_stat_t *st)
{
    result_t *r = opaque;
    r->calls++;
    r->done = true;
    r->rc = rc;
    if (rc == GR_STORE_OK) {
        assert_true(len < sizeof(r->data));
        memcpy(r->data, data, len);
        r->len = len;
        r->stat = *st;
    }
}

static void on_stat(void *opaque, int rc, const gr_store_stat_t *st)
{
    result_t *r = opaque;
    r->calls++;
    r->done = true;
    r->rc = rc;
    if (rc == GR_STORE_OK)
        r->stat = *st;
}

static void on_done(void *opaque, int rc)
{
    result_t *r = opaque;
    r->calls++;
    r->done = true;
    r->rc = rc;
}

static void on_children(void *opaque, int rc, const char *const *names, size_t count,
                        const gr_store_stat_t *st)
{
    result_t *r = opaque;
    r->calls++;
    r->done = true;
    r->rc = rc;
    if (rc == GR_STORE_OK) {
        assert_true(count <= 16);
        for (size_t i = 0; i < count; i++)
            snprintf(r->names[i], sizeof(r->names[i]), "%s", names[i]);
        r->count = count;
        r->stat = *st;
    }
}

static void on_watch(void *opaque, gr_store_event_t event, const char *path)
{
    watch_log_t *w = opaque;
    w->calls++;
    w->event = event;
    snprintf(w->path, sizeof(w->path), "%s", path);
}

/* ---- synchronous wrappers ------------------------------------------------------ */

/* Each issues one operation, checks the callback is not called inside the call, waits. */

static int do_create(fixture_t *fx, gr_store_session_t *s, const char *path, const char *data,
                     int flags, char *out_path)
{
    result_t r = {0};
    assert_int_equal(gr_store_create(s, path, data, data ? strlen(data) : 0, flags, on_create, &r),
                     GR_STORE_OK);
    assert_false(r.done);
    wait_for(fx, &r.done);
    assert_int_equal(r.calls, 1);
    if (out_path != NULL)
        strcpy(out_path, r.path);
    return r.rc;
}

static int do_get(fixture_t *fx, const char *path, watch_log_t *w, result_t *r)
{
    memset(r, 0, sizeof(*r));
    assert_int_equal(gr_store_get(fx->s, path, w ? on_watch : NULL, w, on_data, r), GR_STORE_OK);
    assert_false(r->done);
    wait_for(fx, &r->done);
    return r->rc;
}

static int do_set(fixture_t *fx, const char *path, const char *data, int32_t version,
                  gr_store_stat_t *st)
{
    result_t r = {0};
    assert_int_equal(gr_store_set(fx->s, path, data, strlen(data), version, on_stat, &r),
                     GR_STORE_OK);
    assert_false(r.done);
    wait_for(fx, &r.done);
    if (st != NULL)
        *st = r.stat;
    return r.rc;
}

static int do_delete(fixture_t *fx, gr_store_session_t *s, const char *path, int32_t version)
{
    result_t r = {0};
    assert_int_equal(gr_store_delete(s, path, version, on_done, &r), GR_STORE_OK);
    assert_false(r.done);
    wait_for(fx, &r.done);
    return r.rc;
}

static int do_exists(fixture_t *fx, gr_store_session_t *s, const char *path, watch_log_t *w,
                     gr_store_stat_t *st)
{
    result_t r = {0};
    assert_int_equal(gr_store_exists(s, path, w ? on_watch : NULL, w, on_stat, &r), GR_STORE_OK);
    assert_false(r.done);
    wait_for(fx, &r.done);
    if (st != NULL)
        *st = r.stat;
    return r.rc;
}

static int do_children(fixture_t *fx, const char *path, watch_log_t *w, result_t *r)
{
    memset(r, 0, sizeof(*r));
    assert_int_equal(gr_store_children(fx->s, path, w ? on_watch : NULL, w, on_children, r),
                     GR_STORE_OK);
    assert_false(r->done);
    wait_for(fx, &r->done);
    return r->rc;
}

/* Waits until everything issued on s before now has completed. */
static void barrier(fixture_t *fx, gr_store_session_t *s)
{
    do_exists(fx, s, "/", NULL, NULL);
}

/* ---- setup ---------------------------------------------------------------------- */

static int fx_setup(void **state)
{
    const store_backend_t *backend = *state;
    fixture_t *fx = calloc(1, sizeof(*fx));

    assert_non_null(fx);
    fx->backend = backend;
    fx->ctx = backend->setup();
    fx->loop = ev_loop_new(EVFLAG_AUTO);
    assert_non_null(fx->loop);
    fx->store = backend->open(fx->ctx, fx->loop);
    assert_non_null(fx->store);
    assert_int_equal(gr_store_session_open(fx->store, NULL, NULL, &fx->s), GR_STORE_OK);
    *state = fx;
    return 0;
}

static int fx_teardown(void **state)
{
    fixture_t *fx = *state;

    if (fx->store != NULL)
        gr_store_close(fx->store);
    ev_loop_destroy(fx->loop);
    fx->backend->teardown(fx->ctx);
    *state = (void *)fx->backend;
    free(fx);
    return 0;
}

/* Closes and reopens the store (the session fx->s is replaced). */
static void fx_reopen(fixture_t *fx, bool tear)
{
    gr_store_close(fx->store);
    fx->store = NULL;
    fx->s = NULL;
    /* Let anything the close left on the loop run out. */
    ev_run(fx->loop, EVRUN_NOWAIT);
    if (tear)
        fx->backend->tear(fx->ctx);
    fx->store = fx->backend->open(fx->ctx, fx->loop);
    assert_non_null(fx->store);
    assert_int_equal(gr_store_session_open(fx->store, NULL, NULL, &fx->s), GR_STORE_OK);
}

/* ---- the contract --------------------------------------------------------------- */

static void test_versioned_set(void **state)
{
    fixture_t *fx = *state;
    result_t r;
    gr_store_stat_t st;
    char path[GR_STORE_PATH_MAX + 1];

    assert_int_equal(do_create(fx, fx->s, "/a", "one", 0, path), GR_STORE_OK);
    assert_string_equal(path, "/a");
    assert_int_equal(do_get(fx, "/a", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.len, 3);
    assert_memory_equal(r.data, "one", 3);
    assert_int_equal(r.stat.version, 0);
    assert_int_equal(r.stat.data_length, 3);
    assert_int_equal(r.stat.ephemeral_owner, 0);
    assert_true(r.stat.czxid == r.stat.mzxid);

    assert_int_equal(do_set(fx, "/a", "two", GR_STORE_ANY_VERSION, &st), GR_STORE_OK);
    assert_int_equal(st.version, 1);
    assert_int_equal(do_set(fx, "/a", "three", 1, &st), GR_STORE_OK);
    assert_int_equal(st.version, 2);
    assert_true(st.mzxid > st.czxid);
    /* A stale version fails and leaves the data alone. */
    assert_int_equal(do_set(fx, "/a", "stale", 1, NULL), GR_STORE_BADVERSION);
    assert_int_equal(do_set(fx, "/a", "future", 7, NULL), GR_STORE_BADVERSION);
    assert_int_equal(do_get(fx, "/a", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.len, 5);
    assert_memory_equal(r.data, "three", 5);
    assert_int_equal(r.stat.version, 2);

    /* Empty data is data too. */
    assert_int_equal(do_set(fx, "/a", "", 2, NULL), GR_STORE_OK);
    assert_int_equal(do_get(fx, "/a", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.len, 0);
    assert_int_equal(do_set(fx, "/missing", "x", -1, NULL), GR_STORE_NONODE);
}

static void test_create_errors(void **state)
{
    fixture_t *fx = *state;
    result_t r = {0};
    static const char *const bad_paths[] = {"",     "a",       "/a/",    "//a", "/a//b",
                                            "/a/.", "/a/../b", "/a\001", NULL};

    assert_int_equal(do_create(fx, fx->s, "/x/y", "", 0, NULL), GR_STORE_NONODE);
    assert_int_equal(do_create(fx, fx->s, "/x", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/x", "", 0, NULL), GR_STORE_NODEEXISTS);
    assert_int_equal(do_create(fx, fx->s, "/", "", 0, NULL), GR_STORE_NODEEXISTS);
    assert_int_equal(do_create(fx, fx->s, "/x/y", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/x/y/z", "deep", 0, NULL), GR_STORE_OK);

    /* Malformed paths are refused at once; the callback is never called. */
    for (int i = 0; bad_paths[i] != NULL; i++) {
        assert_int_equal(gr_store_create(fx->s, bad_paths[i], NULL, 0, 0, on_create, &r),
                         GR_STORE_BADARGUMENTS);
        assert_int_equal(gr_store_get(fx->s, bad_paths[i], NULL, NULL, on_data, &r),
                         GR_STORE_BADARGUMENTS);
    }
    assert_int_equal(gr_store_create(fx->s, "/ok", NULL, 0, 0x40, on_create, &r),
                     GR_STORE_BADARGUMENTS);
    assert_int_equal(gr_store_delete(fx->s, "/", -1, on_done, &r), GR_STORE_BADARGUMENTS);
    barrier(fx, fx->s);
    assert_int_equal(r.calls, 0);
}

static void test_delete(void **state)
{
    fixture_t *fx = *state;
    gr_store_stat_t st;

    assert_int_equal(do_delete(fx, fx->s, "/d", -1), GR_STORE_NONODE);
    assert_int_equal(do_create(fx, fx->s, "/d", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/d/c", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_delete(fx, fx->s, "/d", -1), GR_STORE_NOTEMPTY);
    assert_int_equal(do_set(fx, "/d/c", "v1", -1, NULL), GR_STORE_OK);
    assert_int_equal(do_delete(fx, fx->s, "/d/c", 0), GR_STORE_BADVERSION);
    assert_int_equal(do_exists(fx, fx->s, "/d/c", NULL, &st), GR_STORE_OK);
    assert_int_equal(do_delete(fx, fx->s, "/d/c", 1), GR_STORE_OK);
    assert_int_equal(do_exists(fx, fx->s, "/d/c", NULL, NULL), GR_STORE_NONODE);
    assert_int_equal(do_delete(fx, fx->s, "/d", -1), GR_STORE_OK);
    assert_int_equal(do_exists(fx, fx->s, "/d", NULL, NULL), GR_STORE_NONODE);
    /* The name can be used again, from version 0. */
    assert_int_equal(do_create(fx, fx->s, "/d", "again", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_exists(fx, fx->s, "/d", NULL, &st), GR_STORE_OK);
    assert_int_equal(st.version, 0);
}

static void test_children(void **state)
{
    fixture_t *fx = *state;
    result_t r;

    assert_int_equal(do_children(fx, "/p", NULL, &r), GR_STORE_NONODE);
    assert_int_equal(do_create(fx, fx->s, "/p", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_children(fx, "/p", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.count, 0);
    assert_int_equal(do_create(fx, fx->s, "/p/b", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/p/a", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/p/c", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/p/a/deeper", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_children(fx, "/p", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.count, 3);
    assert_string_equal(r.names[0], "a");
    assert_string_equal(r.names[1], "b");
    assert_string_equal(r.names[2], "c");
    assert_int_equal(r.stat.num_children, 3);
    assert_int_equal(r.stat.cversion, 3);
    assert_int_equal(do_delete(fx, fx->s, "/p/b", -1), GR_STORE_OK);
    assert_int_equal(do_children(fx, "/p", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.count, 2);
    assert_string_equal(r.names[1], "c");
    assert_int_equal(r.stat.cversion, 4);
    /* The root lists top-level nodes. */
    assert_int_equal(do_children(fx, "/", NULL, &r), GR_STORE_OK);
    bool has_p = false;
    for (size_t i = 0; i < r.count; i++)
        has_p |= strcmp(r.names[i], "p") == 0;
    assert_true(has_p);
}

static void test_data_watch(void **state)
{
    fixture_t *fx = *state;
    watch_log_t w = {0};
    result_t r;

    assert_int_equal(do_create(fx, fx->s, "/w", "0", 0, NULL), GR_STORE_OK);
    /* The same watcher twice on one path fires once. */
    assert_int_equal(do_get(fx, "/w", &w, &r), GR_STORE_OK);
    assert_int_equal(do_exists(fx, fx->s, "/w", &w, NULL), GR_STORE_OK);
    assert_int_equal(do_set(fx, "/w", "1", -1, NULL), GR_STORE_OK);
    assert_int_equal(do_set(fx, "/w", "2", -1, NULL), GR_STORE_OK);
    barrier(fx, fx->s);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.event, GR_STORE_EVENT_CHANGED);
    assert_string_equal(w.path, "/w");

    /* exists on a missing node watches for its creation. */
    memset(&w, 0, sizeof(w));
    assert_int_equal(do_exists(fx, fx->s, "/n", &w, NULL), GR_STORE_NONODE);
    assert_int_equal(do_create(fx, fx->s, "/n", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_set(fx, "/n", "x", -1, NULL), GR_STORE_OK);
    barrier(fx, fx->s);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.event, GR_STORE_EVENT_CREATED);

    /* get on a missing node sets no watch. */
    memset(&w, 0, sizeof(w));
    assert_int_equal(do_get(fx, "/m", &w, &r), GR_STORE_NONODE);
    assert_int_equal(do_create(fx, fx->s, "/m", "", 0, NULL), GR_STORE_OK);
    barrier(fx, fx->s);
    assert_int_equal(w.calls, 0);

    /* Deletion. */
    assert_int_equal(do_get(fx, "/m", &w, &r), GR_STORE_OK);
    assert_int_equal(do_delete(fx, fx->s, "/m", -1), GR_STORE_OK);
    barrier(fx, fx->s);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.event, GR_STORE_EVENT_DELETED);

    /* A failed set fires nothing. */
    memset(&w, 0, sizeof(w));
    assert_int_equal(do_get(fx, "/w", &w, &r), GR_STORE_OK);
    assert_int_equal(do_set(fx, "/w", "z", 99, NULL), GR_STORE_BADVERSION);
    barrier(fx, fx->s);
    assert_int_equal(w.calls, 0);
}

/* A watch sees the change applied: reading from inside the watch gets the new data. */
typedef struct reread {
    fixture_t *fx;
    result_t r;
    bool fired;
} reread_t;

static void on_watch_reread(void *opaque, gr_store_event_t event, const char *path)
{
    reread_t *rr = opaque;
    (void)event;
    rr->fired = true;
    assert_int_equal(gr_store_get(rr->fx->s, path, NULL, NULL, on_data, &rr->r), GR_STORE_OK);
}

static void test_watch_after_change(void **state)
{
    fixture_t *fx = *state;
    reread_t rr = {.fx = fx};
    result_t r = {0};

    assert_int_equal(do_create(fx, fx->s, "/ww", "old", 0, NULL), GR_STORE_OK);
    assert_int_equal(gr_store_get(fx->s, "/ww", on_watch_reread, &rr, on_data, &r), GR_STORE_OK);
    wait_for(fx, &r.done);
    assert_int_equal(do_set(fx, "/ww", "new", -1, NULL), GR_STORE_OK);
    wait_for(fx, &rr.r.done);
    assert_true(rr.fired);
    assert_int_equal(rr.r.rc, GR_STORE_OK);
    assert_int_equal(rr.r.len, 3);
    assert_memory_equal(rr.r.data, "new", 3);
}

static void test_children_watch(void **state)
{
    fixture_t *fx = *state;
    watch_log_t w = {0};
    result_t r;

    assert_int_equal(do_create(fx, fx->s, "/cw", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_children(fx, "/cw", &w, &r), GR_STORE_OK);
    /* Data changes of the parent do not fire a children watch. */
    assert_int_equal(do_set(fx, "/cw", "data", -1, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/cw/x", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/cw/y", "", 0, NULL), GR_STORE_OK);
    barrier(fx, fx->s);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.event, GR_STORE_EVENT_CHILD);
    assert_string_equal(w.path, "/cw");

    /* Grandchildren do not count; deleting a child does. */
    memset(&w, 0, sizeof(w));
    assert_int_equal(do_children(fx, "/cw", &w, &r), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/cw/x/g", "", 0, NULL), GR_STORE_OK);
    barrier(fx, fx->s);
    assert_int_equal(w.calls, 0);
    assert_int_equal(do_delete(fx, fx->s, "/cw/y", -1), GR_STORE_OK);
    barrier(fx, fx->s);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.event, GR_STORE_EVENT_CHILD);

    /* Deleting the watched node itself. */
    watch_log_t leaf = {0};
    assert_int_equal(do_children(fx, "/cw/x/g", &leaf, &r), GR_STORE_OK);
    assert_int_equal(do_delete(fx, fx->s, "/cw/x/g", -1), GR_STORE_OK);
    barrier(fx, fx->s);
    assert_int_equal(leaf.calls, 1);
    assert_int_equal(leaf.event, GR_STORE_EVENT_DELETED);
}

static void test_ephemeral(void **state)
{
    fixture_t *fx = *state;
    gr_store_session_t *other;
    watch_log_t w = {0}, mine = {0};
    gr_store_stat_t st;

    assert_int_equal(gr_store_session_open(fx->store, NULL, NULL, &other), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/ids", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, other, "/ids/1", "me", GR_STORE_EPHEMERAL, NULL), GR_STORE_OK);
    /* Both sessions have completed an operation: they are connected and have their ids. */
    assert_true(gr_store_session_id(other) != 0);
    assert_true(gr_store_session_id(other) != gr_store_session_id(fx->s));
    assert_int_equal(do_exists(fx, fx->s, "/ids/1", NULL, &st), GR_STORE_OK);
    assert_true(st.ephemeral_owner == gr_store_session_id(other));
    assert_int_equal(do_create(fx, fx->s, "/ids/1/child", "", 0, NULL),
                     GR_STORE_NOCHILDRENFOREPHEMERALS);

    /* The owner's own watches go silently with it; others' fire. */
    assert_int_equal(do_exists(fx, fx->s, "/ids/1", &w, NULL), GR_STORE_OK);
    assert_int_equal(do_exists(fx, other, "/ids/1", &mine, NULL), GR_STORE_OK);
    gr_store_session_close(other);
    barrier(fx, fx->s);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.event, GR_STORE_EVENT_DELETED);
    assert_int_equal(mine.calls, 0);
    assert_int_equal(do_exists(fx, fx->s, "/ids/1", NULL, NULL), GR_STORE_NONODE);
    /* Persistent nodes of the session stay. */
    assert_int_equal(do_exists(fx, fx->s, "/ids", NULL, NULL), GR_STORE_OK);
}

static void test_close_pending(void **state)
{
    fixture_t *fx = *state;
    gr_store_session_t *other;
    result_t get = {0}, set = {0};

    assert_int_equal(do_create(fx, fx->s, "/cp", "x", 0, NULL), GR_STORE_OK);
    assert_int_equal(gr_store_session_open(fx->store, NULL, NULL, &other), GR_STORE_OK);
    assert_int_equal(gr_store_get(other, "/cp", NULL, NULL, on_data, &get), GR_STORE_OK);
    assert_int_equal(gr_store_set(other, "/cp", "y", 1, -1, on_stat, &set), GR_STORE_OK);
    gr_store_session_close(other);
    /* Every pending completion was called, once, with CLOSING, before close returned. */
    assert_int_equal(get.calls, 1);
    assert_int_equal(get.rc, GR_STORE_CLOSING);
    assert_int_equal(set.calls, 1);
    assert_int_equal(set.rc, GR_STORE_CLOSING);
    barrier(fx, fx->s);
    assert_int_equal(get.calls, 1);
    assert_int_equal(set.calls, 1);
}

static void on_session_state(void *opaque, gr_store_session_state_t state)
{
    result_t *r = opaque;
    r->calls++;
    r->done = true;
    r->rc = (int)state;
}

/* A session reports CONNECTED once it is usable, never from inside the open call. */
static void test_session_connected(void **state)
{
    fixture_t *fx = *state;
    gr_store_session_t *other;
    result_t r = {0};

    assert_int_equal(gr_store_session_open(fx->store, on_session_state, &r, &other), GR_STORE_OK);
    assert_false(r.done);
    wait_for(fx, &r.done);
    assert_int_equal(r.rc, GR_STORE_SESSION_CONNECTED);
    assert_int_equal(do_create(fx, other, "/sc", "", 0, NULL), GR_STORE_OK);
    barrier(fx, other);
    assert_int_equal(r.calls, 1);
    gr_store_session_close(other);
}

static void test_sequential(void **state)
{
    fixture_t *fx = *state;
    char path[GR_STORE_PATH_MAX + 1];

    assert_int_equal(do_create(fx, fx->s, "/q", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/q/item-", "a", GR_STORE_SEQUENTIAL, path), GR_STORE_OK);
    assert_string_equal(path, "/q/item-0000000000");
    assert_int_equal(do_create(fx, fx->s, "/q/item-", "b", GR_STORE_SEQUENTIAL, path), GR_STORE_OK);
    assert_string_equal(path, "/q/item-0000000001");
    /* The suffix is the parent's children version: any child created counts. */
    assert_int_equal(do_create(fx, fx->s, "/q/plain", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(
        do_create(fx, fx->s, "/q/e-", "", GR_STORE_SEQUENTIAL | GR_STORE_EPHEMERAL, path),
        GR_STORE_OK);
    assert_string_equal(path, "/q/e-0000000003");
    /* After a deletion only growth is promised: ZooKeeper 3.8 counts the deletion in
     * the parent's cversion but not always in the next sequence number. */
    assert_int_equal(do_delete(fx, fx->s, "/q/plain", -1), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/q/", "", GR_STORE_SEQUENTIAL, path), GR_STORE_OK);
    assert_int_equal(strlen(path), strlen("/q/") + GR_STORE_SEQUENCE_DIGITS);
    assert_int_equal(strspn(path + 3, "0123456789"), GR_STORE_SEQUENCE_DIGITS);
    assert_true(atol(path + 3) > 3);
    result_t r;
    assert_int_equal(do_get(fx, "/q/item-0000000001", NULL, &r), GR_STORE_OK);
    assert_memory_equal(r.data, "b", 1);
}

static void test_persistence(void **state)
{
    fixture_t *fx = *state;
    static const char binary[] = "line1\nline2\0after-nul crc 00000000\n";
    result_t r;
    gr_store_stat_t before, after;
    char path[GR_STORE_PATH_MAX + 1];

    assert_int_equal(do_create(fx, fx->s, "/brokers", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/brokers/topics", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/brokers/topics/t", "{}", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/brokers/ids", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/brokers/ids/0", "eph", GR_STORE_EPHEMERAL, NULL),
                     GR_STORE_OK);
    result_t set = {0};
    assert_int_equal(
        gr_store_set(fx->s, "/brokers/topics/t", binary, sizeof(binary), -1, on_stat, &set),
        GR_STORE_OK);
    wait_for(fx, &set.done);
    assert_int_equal(set.rc, GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/seq", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/seq/n-", "", GR_STORE_SEQUENTIAL, path), GR_STORE_OK);
    assert_int_equal(do_exists(fx, fx->s, "/brokers/topics/t", NULL, &before), GR_STORE_OK);

    fx_reopen(fx, false);

    assert_int_equal(do_get(fx, "/brokers/topics/t", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.len, sizeof(binary));
    assert_memory_equal(r.data, binary, sizeof(binary));
    after = r.stat;
    assert_int_equal(after.version, before.version);
    assert_true(after.czxid == before.czxid);
    assert_true(after.mzxid == before.mzxid);
    assert_true(after.ctime == before.ctime);
    assert_true(after.mtime == before.mtime);
    /* The ephemeral node did not survive. */
    assert_int_equal(do_exists(fx, fx->s, "/brokers/ids/0", NULL, NULL), GR_STORE_NONODE);
    assert_int_equal(do_children(fx, "/brokers", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.count, 2);
    assert_string_equal(r.names[0], "ids");
    assert_string_equal(r.names[1], "topics");
    /* Sequence numbers continue; transaction ids keep growing. */
    assert_int_equal(do_create(fx, fx->s, "/seq/n-", "", GR_STORE_SEQUENTIAL, path), GR_STORE_OK);
    assert_string_equal(path, "/seq/n-0000000001");
    gr_store_stat_t st;
    assert_int_equal(do_exists(fx, fx->s, path, NULL, &st), GR_STORE_OK);
    assert_true(st.czxid > before.mzxid);
    assert_int_equal(do_set(fx, "/brokers/topics/t", "v", before.version, NULL), GR_STORE_OK);
}

static void test_torn_save(void **state)
{
    fixture_t *fx = *state;
    result_t r;

    if (fx->backend->tear == NULL)
        skip();
    assert_int_equal(do_create(fx, fx->s, "/keep", "kept", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_set(fx, "/keep", "kept2", 0, NULL), GR_STORE_OK);
    fx_reopen(fx, true);
    assert_int_equal(do_get(fx, "/keep", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.len, 5);
    assert_memory_equal(r.data, "kept2", 5);
    assert_int_equal(r.stat.version, 1);
    /* And the store keeps working. */
    assert_int_equal(do_set(fx, "/keep", "kept3", 1, NULL), GR_STORE_OK);
    fx_reopen(fx, false);
    assert_int_equal(do_get(fx, "/keep", NULL, &r), GR_STORE_OK);
    assert_memory_equal(r.data, "kept3", 5);
}

/* Completions of one session come in the order the operations were issued. */
static void test_order(void **state)
{
    fixture_t *fx = *state;
    result_t r[4] = {{0}};

    assert_int_equal(do_create(fx, fx->s, "/o", "0", 0, NULL), GR_STORE_OK);
    assert_int_equal(gr_store_set(fx->s, "/o", "1", 1, -1, on_stat, &r[0]), GR_STORE_OK);
    assert_int_equal(gr_store_get(fx->s, "/o", NULL, NULL, on_data, &r[1]), GR_STORE_OK);
    assert_int_equal(gr_store_set(fx->s, "/o", "2", 1, 0, on_stat, &r[2]), GR_STORE_OK);
    assert_int_equal(gr_store_get(fx->s, "/o", NULL, NULL, on_data, &r[3]), GR_STORE_OK);
    wait_for(fx, &r[3].done);
    for (int i = 0; i < 4; i++)
        assert_true(r[i].done);
    assert_int_equal(r[0].rc, GR_STORE_OK);
    assert_memory_equal(r[1].data, "1", 1);
    assert_int_equal(r[2].rc, GR_STORE_BADVERSION);
    assert_memory_equal(r[3].data, "1", 1);
    assert_int_equal(r[3].stat.version, 1);
}

static int store_contract_run(const store_backend_t *backend)
{
    void *b = (void *)backend;
#define CONTRACT_TEST(f) cmocka_unit_test_prestate_setup_teardown(f, fx_setup, fx_teardown, b)
    const struct CMUnitTest tests[] = {
        CONTRACT_TEST(test_versioned_set),  CONTRACT_TEST(test_create_errors),
        CONTRACT_TEST(test_delete),         CONTRACT_TEST(test_children),
        CONTRACT_TEST(test_data_watch),     CONTRACT_TEST(test_watch_after_change),
        CONTRACT_TEST(test_children_watch), CONTRACT_TEST(test_ephemeral),
        CONTRACT_TEST(test_close_pending),  CONTRACT_TEST(test_sequential),
        CONTRACT_TEST(test_persistence),    CONTRACT_TEST(test_torn_save),
        CONTRACT_TEST(test_order),          CONTRACT_TEST(test_session_connected),
    };
#undef CONTRACT_TEST
    return cmocka_run_group_tests_name(backend->name, tests, NULL, NULL);
}

#ifndef GR_STORE_CONTRACT_NO_MAIN

/* ---- the local store backend ------------------------------------------------------ */

typedef struct local_ctx {
    char root[64]; /* temporary directory */
    char dir[128]; /* the store's directory inside it */
} local_ctx_t;

static void *local_setup(void)
{
    local_ctx_t *c = calloc(1, sizeof(*c));

    assert_non_null(c);
    strcpy(c->root, "/tmp/gr_store_test_XXXXXX");
    assert_non_null(mkdtemp(c->root));
    /* A directory that does not exist yet, two levels down: open creates it. */
    snprintf(c->dir, sizeof(c->dir), "%s/logs/__gregor_metadata", c->root);
    return c;
}

static gr_store_t *local_open(void *ctx, struct ev_loop *loop)
{
    local_ctx_t *c = ctx;
    gr_store_t *store = NULL;

    assert_int_equal(gr_store_local_open(loop, c->dir, NULL, &store), 0);
    return store;
}

static void write_file(const char *path, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
}

/* Leaves the first half of the current tree file as an unfinished save. */
static void local_tear(void *ctx)
{
    local_ctx_t *c = ctx;
    char path[256], buf[65536];

    snprintf(path, sizeof(path), "%s/metadata", c->dir);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, sizeof(buf));
    assert_true(n > 0);
    close(fd);
    snprintf(path, sizeof(path), "%s/metadata.tmp", c->dir);
    write_file(path, buf, (size_t)n / 2);
    /* And half a group at the journal's end: an append the crash cut. */
    static const char torn[] = "group 999999 40 0badc0de\nP 6 1 1 1 1 1 1 0 0\n/tor";
    snprintf(path, sizeof(path), "%s/metadata.journal", c->dir);
    fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, torn, sizeof(torn) - 1), (ssize_t)(sizeof(torn) - 1));
    close(fd);
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;

    if (d == NULL) {
        unlink(path);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        char child[512];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
        remove_tree(child);
    }
    closedir(d);
    rmdir(path);
}

static void local_teardown(void *ctx)
{
    local_ctx_t *c = ctx;
    remove_tree(c->root);
    free(c);
}

static const store_backend_t local_backend = {
    .name = "store_contract_local",
    .setup = local_setup,
    .open = local_open,
    .tear = local_tear,
    .teardown = local_teardown,
};

/* ---- local-store specifics (not part of the contract) ------------------------------- */

static void test_local_corrupt_file_refused(void **state)
{
    local_ctx_t *c = local_setup();
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    gr_store_t *store = NULL;
    char path[256];
    (void)state;

    store = local_open(c, loop);
    gr_store_close(store);
    snprintf(path, sizeof(path), "%s/metadata", c->dir);
    /* A flipped byte fails the checksum. */
    int fd = open(path, O_RDWR);
    char ch;
    assert_int_equal(pread(fd, &ch, 1, 0), 1);
    ch ^= 1;
    assert_int_equal(pwrite(fd, &ch, 1, 0), 1);
    close(fd);
    assert_int_equal(gr_store_local_open(loop, c->dir, NULL, &store), -EIO);
    write_file(path, "", 0);
    assert_int_equal(gr_store_local_open(loop, c->dir, NULL, &store), -EIO);
    ev_loop_destroy(loop);
    local_teardown(c);
}

static void test_local_locked(void **state)
{
    local_ctx_t *c = local_setup();
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    gr_store_t *store, *second = NULL;
    (void)state;

    store = local_open(c, loop);
    assert_int_equal(gr_store_local_open(loop, c->dir, NULL, &second), -EBUSY);
    gr_store_close(store);
    second = local_open(c, loop);
    gr_store_close(second);
    ev_loop_destroy(loop);
    local_teardown(c);
}

/* Closing the store from inside one of its callbacks is allowed. */
static void on_done_close_store(void *opaque, int rc)
{
    gr_store_t **store = opaque;
    (void)rc;
    gr_store_close(*store);
    *store = NULL;
}

static void test_local_close_in_callback(void **state)
{
    local_ctx_t *c = local_setup();
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    gr_store_t *store = local_open(c, loop);
    gr_store_session_t *s;
    result_t later = {0};
    (void)state;

    assert_int_equal(gr_store_session_open(store, NULL, NULL, &s), GR_STORE_OK);
    assert_int_equal(gr_store_delete(s, "/nothing", -1, on_done_close_store, &store), GR_STORE_OK);
    assert_int_equal(gr_store_exists(s, "/", NULL, NULL, on_stat, &later), GR_STORE_OK);
    /* The loop returns once the queue is empty: the store keeps no watcher active. */
    ev_run(loop, 0);
    assert_null(store);
    assert_int_equal(later.calls, 1);
    assert_int_equal(later.rc, GR_STORE_CLOSING);
    ev_loop_destroy(loop);
    local_teardown(c);
}

/* A save that fails undoes its change and completes with GR_STORE_IO. */
static void test_local_failed_save_undone(void **state)
{
    local_ctx_t *c = local_setup();
    fixture_t fx = {.loop = ev_loop_new(EVFLAG_AUTO)};
    result_t r;
    watch_log_t w = {0};
    (void)state;

    fx.store = local_open(c, fx.loop);
    assert_int_equal(gr_store_session_open(fx.store, NULL, NULL, &fx.s), GR_STORE_OK);
    assert_int_equal(do_create(&fx, fx.s, "/a", "old", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(&fx, fx.s, "/p", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_get(&fx, "/a", &w, &r), GR_STORE_OK);

    /* Files may not grow any more: every save now fails (journal append or snapshot alike). */
    struct rlimit fsize;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &fsize), 0);
    struct rlimit tiny = {.rlim_cur = 1, .rlim_max = fsize.rlim_max};
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &tiny), 0);

    assert_int_equal(do_create(&fx, fx.s, "/b", "", 0, NULL), GR_STORE_IO);
    assert_int_equal(do_exists(&fx, fx.s, "/b", NULL, NULL), GR_STORE_NONODE);
    assert_int_equal(do_set(&fx, "/a", "new", 0, NULL), GR_STORE_IO);
    assert_int_equal(do_delete(&fx, fx.s, "/p", 0), GR_STORE_IO);
    assert_int_equal(do_get(&fx, "/a", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.len, 3);
    assert_memory_equal(r.data, "old", 3);
    assert_int_equal(r.stat.version, 0);
    assert_int_equal(do_children(&fx, "/", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.count, 2);
    assert_int_equal(r.stat.cversion, 2);
    barrier(&fx, fx.s);
    assert_int_equal(w.calls, 0); /* nothing changed, nothing fired */

    /* Changes of one loop turn share one save: when it fails, all of them are undone. */
    result_t made = {0}, child = {0}, set = {0};
    assert_int_equal(gr_store_create(fx.s, "/c", "", 0, 0, on_create, &made), GR_STORE_OK);
    assert_int_equal(gr_store_create(fx.s, "/c/d", "", 0, 0, on_create, &child), GR_STORE_OK);
    assert_int_equal(gr_store_set(fx.s, "/a", "newer", 5, -1, on_stat, &set), GR_STORE_OK);
    wait_for(&fx, &set.done);
    assert_int_equal(made.rc, GR_STORE_IO);
    assert_int_equal(child.rc, GR_STORE_IO);
    assert_int_equal(set.rc, GR_STORE_IO);
    assert_int_equal(do_exists(&fx, fx.s, "/c", NULL, NULL), GR_STORE_NONODE);
    assert_int_equal(do_get(&fx, "/a", NULL, &r), GR_STORE_OK);
    assert_memory_equal(r.data, "old", 3);
    assert_int_equal(do_children(&fx, "/", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.stat.cversion, 2);
    assert_int_equal(w.calls, 0);

    /* Nothing of the failed saves reached the files: a reopened store has the old tree. */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &fsize), 0);
    gr_store_close(fx.store);
    fx.store = local_open(c, fx.loop);
    assert_int_equal(gr_store_session_open(fx.store, NULL, NULL, &fx.s), GR_STORE_OK);
    assert_int_equal(do_exists(&fx, fx.s, "/b", NULL, NULL), GR_STORE_NONODE);
    assert_int_equal(do_exists(&fx, fx.s, "/c", NULL, NULL), GR_STORE_NONODE);
    assert_int_equal(do_exists(&fx, fx.s, "/p", NULL, NULL), GR_STORE_OK);
    assert_int_equal(do_get(&fx, "/a", NULL, &r), GR_STORE_OK);
    assert_memory_equal(r.data, "old", 3);
    assert_int_equal(r.stat.version, 0);
    /* And it saves again. */
    assert_int_equal(do_set(&fx, "/a", "new", 0, NULL), GR_STORE_OK);

    gr_store_close(fx.store);
    ev_loop_destroy(fx.loop);
    local_teardown(c);
}

static void test_rc_names(void **state)
{
    (void)state;
    assert_string_equal(gr_store_rc_name(GR_STORE_OK), "OK");
    assert_string_equal(gr_store_rc_name(GR_STORE_NONODE), "NONODE");
    assert_string_equal(gr_store_rc_name(GR_STORE_SYSTEMERROR), "SYSTEMERROR");
    assert_string_equal(gr_store_rc_name(-5), "?");
    assert_string_equal(gr_store_rc_name(999), "?");
}

static off_t file_size(const local_ctx_t *c, const char *name)
{
    char path[256];
    struct stat st;

    snprintf(path, sizeof(path), "%s/%s", c->dir, name);
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/*
 * A save appends what changed to the journal; the snapshot is rewritten only
 * once the journal outgrows it, and a reopen replays both.
 */
static void test_local_journal(void **state)
{
    local_ctx_t *c = local_setup();
    fixture_t fx = {.loop = ev_loop_new(EVFLAG_AUTO)};
    static char big[512 * 1024];
    char path[64];
    result_t r;
    (void)state;

    fx.store = local_open(c, fx.loop);
    assert_int_equal(gr_store_session_open(fx.store, NULL, NULL, &fx.s), GR_STORE_OK);
    off_t snapshot = file_size(c, "metadata");
    assert_int_equal(do_create(&fx, fx.s, "/t", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(&fx, fx.s, "/t/gone", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_delete(&fx, fx.s, "/t/gone", 0), GR_STORE_OK);
    assert_int_equal(file_size(c, "metadata"), snapshot);
    off_t journal = file_size(c, "metadata.journal");
    assert_true(journal > 0);

    /* 6 MiB of changes: the journal (at most 4 MiB before a snapshot here) is reset. */
    memset(big, 'x', sizeof(big));
    for (int i = 0; i < 12; i++) {
        snprintf(path, sizeof(path), "/t/n%03d", i);
        assert_int_equal(do_create(&fx, fx.s, path, "", 0, NULL), GR_STORE_OK);
        result_t set = {0};
        assert_int_equal(gr_store_set(fx.s, path, big, sizeof(big), 0, on_stat, &set), GR_STORE_OK);
        wait_for(&fx, &set.done);
        assert_int_equal(set.rc, GR_STORE_OK);
    }
    assert_true(file_size(c, "metadata") > 4 * 1024 * 1024);
    assert_true(file_size(c, "metadata.journal") < 12 * (off_t)sizeof(big));
    gr_store_stat_t before;
    assert_int_equal(do_exists(&fx, fx.s, "/t", NULL, &before), GR_STORE_OK);

    gr_store_close(fx.store);
    fx.store = local_open(c, fx.loop);
    assert_int_equal(gr_store_session_open(fx.store, NULL, NULL, &fx.s), GR_STORE_OK);
    assert_int_equal(do_children(&fx, "/t", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.count, 12);
    assert_int_equal(r.stat.cversion, before.cversion);
    assert_true(r.stat.pzxid == before.pzxid);
    for (int i = 0; i < 12; i++) {
        snprintf(path, sizeof(path), "/t/n%03d", i);
        gr_store_stat_t st;
        assert_int_equal(do_exists(&fx, fx.s, path, NULL, &st), GR_STORE_OK);
        assert_int_equal(st.data_length, (int32_t)sizeof(big));
        assert_int_equal(st.version, 1);
    }
    assert_int_equal(do_exists(&fx, fx.s, "/t/gone", NULL, NULL), GR_STORE_NONODE);
    gr_store_close(fx.store);
    ev_loop_destroy(fx.loop);
    local_teardown(c);
}

static size_t read_whole(const local_ctx_t *c, const char *name, char *buf, size_t size)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", c->dir, name);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, size);
    assert_true(n > 0 && (size_t)n < size);
    close(fd);
    return (size_t)n;
}

static void write_whole(const local_ctx_t *c, const char *name, const char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", c->dir, name);
    write_file(path, buf, len);
}

/*
 * The files as a crash leaves them (a clean close folds the journal into the
 * snapshot): the journal is replayed; a damaged group with another after it
 * is not a torn append, and the store refuses to open.
 */
static void test_local_journal_replay(void **state)
{
    local_ctx_t *c = local_setup();
    fixture_t fx = {.loop = ev_loop_new(EVFLAG_AUTO)};
    static char snapshot[4096], journal[4096];
    result_t r;
    (void)state;

    fx.store = local_open(c, fx.loop);
    assert_int_equal(gr_store_session_open(fx.store, NULL, NULL, &fx.s), GR_STORE_OK);
    assert_int_equal(do_create(&fx, fx.s, "/a", "first", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(&fx, fx.s, "/b", "second", 0, NULL), GR_STORE_OK);
    size_t slen = read_whole(c, "metadata", snapshot, sizeof(snapshot));
    size_t jlen = read_whole(c, "metadata.journal", journal, sizeof(journal));
    gr_store_close(fx.store);
    assert_int_equal(file_size(c, "metadata.journal"), 0);

    write_whole(c, "metadata", snapshot, slen);
    write_whole(c, "metadata.journal", journal, jlen);
    fx.store = local_open(c, fx.loop);
    assert_int_equal(gr_store_session_open(fx.store, NULL, NULL, &fx.s), GR_STORE_OK);
    assert_int_equal(do_get(&fx, "/a", NULL, &r), GR_STORE_OK);
    assert_int_equal(r.len, 5);
    assert_memory_equal(r.data, "first", 5);
    assert_int_equal(do_exists(&fx, fx.s, "/b", NULL, NULL), GR_STORE_OK);
    gr_store_close(fx.store);

    write_whole(c, "metadata", snapshot, slen);
    char *first = memmem(journal, jlen, "first", 5);
    assert_non_null(first);
    first[0] = 'F';
    write_whole(c, "metadata.journal", journal, jlen);
    gr_store_t *store = NULL;
    assert_int_equal(gr_store_local_open(fx.loop, c->dir, NULL, &store), -EIO);

    /* Changes without the snapshot they follow are refused too. */
    char path[256];
    snprintf(path, sizeof(path), "%s/metadata", c->dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(gr_store_local_open(fx.loop, c->dir, NULL, &store), -EIO);
    ev_loop_destroy(fx.loop);
    local_teardown(c);
}

int main(void)
{
    const struct CMUnitTest local_tests[] = {
        cmocka_unit_test(test_local_corrupt_file_refused),
        cmocka_unit_test(test_local_locked),
        cmocka_unit_test(test_local_close_in_callback),
        cmocka_unit_test(test_local_failed_save_undone),
        cmocka_unit_test(test_local_journal),
        cmocka_unit_test(test_local_journal_replay),
        cmocka_unit_test(test_rc_names),
    };
    int failed = store_contract_run(&local_backend);
    failed += cmocka_run_group_tests_name("store_local", local_tests, NULL, NULL);
    return failed;
}

#endif
