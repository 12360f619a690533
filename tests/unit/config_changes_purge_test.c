/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Expiry of /config/changes notifications in single-node mode: a real broker
 * over the embedded store (gr_broker_init/start on a temporary log dir) with
 * gregor.config.change.expiration.ms lowered deletes config_change_*
 * children once they are older than that, by its periodic purge with no new
 * change arriving, leaves other children alone, and never deletes one that
 * is younger than the expiry.
 *
 * Nothing sleeps: the loop runs until the condition holds, under a deadline.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <ev.h>

#include "broker/broker.h"
#include "controller/zk_member.h"
#include "log/log_dir.h"
#include "broker_fixture.h"
#include "loop_wait.h"
#include "metadata/store.h"
#include "metadata/zk_docs.h"

#define EXPIRY_MS 2000

typedef struct fixture {
    gr_test_broker_t tb;
    gr_broker_t *b;
    gr_store_session_t *s; /* the test's own session */
} fixture_t;

static int setup(void **state)
{
    fixture_t *fx = calloc(1, sizeof(*fx));
    if (!fx || gr_test_broker_make_dir(&fx->tb, "changes-purge") < 0)
        return -1;
    char expiry[64];
    snprintf(expiry, sizeof expiry, "gregor.config.change.expiration.ms=%d", EXPIRY_MS);
    const char *overrides[] = {expiry};
    assert_int_equal(gr_test_broker_start(&fx->tb, overrides, 1), 0);
    fx->b = fx->tb.b;
    assert_int_equal(gr_store_session_open(fx->b->store, NULL, NULL, &fx->s), GR_STORE_OK);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    gr_store_session_close(fx->s);
    gr_test_broker_remove(&fx->tb);
    free(fx);
    return 0;
}

typedef struct op_result {
    bool done;
    int rc;
    char path[GR_STORE_PATH_MAX + 1];
} op_result_t;

static void on_created(void *opaque, int rc, const char *path)
{
    op_result_t *r = opaque;
    r->done = true;
    r->rc = rc;
    if (rc == GR_STORE_OK)
        snprintf(r->path, sizeof r->path, "%s", path);
}

static void on_stat(void *opaque, int rc, const gr_store_stat_t *st)
{
    (void)st;
    op_result_t *r = opaque;
    r->done = true;
    r->rc = rc;
}

/* Creates a child of /config/changes (sequential when seq); its path into out. */
static void create_child(fixture_t *fx, const char *name, bool seq, char *out, size_t outlen)
{
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_CONFIG_CHANGES_PATH "/%s", name);
    const char *doc = "{\"version\":2,\"entity_path\":\"topics/t\"}";
    op_result_t r = {0};
    assert_int_equal(gr_store_create(fx->s, path, doc, strlen(doc),
                                     seq ? GR_STORE_SEQUENTIAL : GR_STORE_PERSISTENT, on_created,
                                     &r),
                     GR_STORE_OK);
    gr_test_wait_flag(fx->tb.loop, &r.done, path);
    assert_int_equal(r.rc, GR_STORE_OK);
    snprintf(out, outlen, "%s", r.path);
}

static int node_rc(fixture_t *fx, const char *path)
{
    op_result_t r = {0};
    assert_int_equal(gr_store_exists(fx->s, path, NULL, NULL, on_stat, &r), GR_STORE_OK);
    gr_test_wait_flag(fx->tb.loop, &r.done, path);
    return r.rc;
}

typedef struct gone_arg {
    fixture_t *fx;
    const char *path;
} gone_arg_t;

static bool node_gone(void *arg)
{
    gone_arg_t *g = arg;
    return node_rc(g->fx, g->path) == GR_STORE_NONODE;
}

typedef struct seen_arg {
    fixture_t *fx;
    int64_t seq;
} seen_arg_t;

/* Whether the broker's listener has handled notification seq (and so purged once after it). */
static bool listener_saw(void *arg)
{
    seen_arg_t *a = arg;
    return a->fx->b->zk->changes.seen >= a->seq;
}

/*
 * Waits until the broker's purge pass over the listing that had path is
 * done: completions of one session run in order and the embedded store
 * applies a delete when it is issued, so once an exists issued on the
 * broker's own session after that listing completes, the pass has issued
 * (and applied) every delete it was going to.
 */
static void await_purge_pass(fixture_t *fx, const char *path)
{
    seen_arg_t a = {fx, strtoll(strrchr(path, '_') + 1, NULL, 10)};
    gr_test_wait(fx->tb.loop, listener_saw, &a, "the listener to see the fresh notification");
    op_result_t r = {0};
    assert_int_equal(gr_store_exists(fx->b->store_session, path, NULL, NULL, on_stat, &r),
                     GR_STORE_OK);
    gr_test_wait_flag(fx->tb.loop, &r.done, "an exists after the broker's purge pass");
}

static void test_expired_notifications_purged(void **state)
{
    fixture_t *fx = *state;
    char first[GR_STORE_PATH_MAX + 1], second[GR_STORE_PATH_MAX + 1];
    char other[GR_STORE_PATH_MAX + 1], fresh[GR_STORE_PATH_MAX + 1];

    create_child(fx, GR_ZK_CONFIG_CHANGE_PREFIX, true, first, sizeof first);
    create_child(fx, GR_ZK_CONFIG_CHANGE_PREFIX, true, second, sizeof second);
    create_child(fx, "not_a_notification", false, other, sizeof other);

    /* No change comes after them: the periodic purge must find them. */
    gone_arg_t g = {fx, first};
    gr_test_wait(fx->tb.loop, node_gone, &g, "the first notification to be purged");
    g.path = second;
    gr_test_wait(fx->tb.loop, node_gone, &g, "the second notification to be purged");
    assert_int_equal(node_rc(fx, other), GR_STORE_OK);

    /* A fresh one stays while younger than the expiry (checked only while it is). */
    int64_t before = gr_broker_now_ms(fx->b);
    create_child(fx, GR_ZK_CONFIG_CHANGE_PREFIX, true, fresh, sizeof fresh);
    await_purge_pass(fx, fresh);
    int rc = node_rc(fx, fresh);
    if (gr_broker_now_ms(fx->b) - before <= EXPIRY_MS)
        assert_int_equal(rc, GR_STORE_OK);
    g.path = fresh;
    gr_test_wait(fx->tb.loop, node_gone, &g, "the fresh notification to be purged in turn");
    assert_int_equal(node_rc(fx, other), GR_STORE_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_expired_notifications_purged, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
