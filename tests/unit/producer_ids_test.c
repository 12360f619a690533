/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Producer ids (broker/producer_ids.c) on a real broker and its embedded
 * metadata store: blocks claimed through /latest_producer_id_block in
 * Kafka's JSON, ids unique and increasing across blocks and restarts, a
 * block claimed by someone else skipped, a malformed node failing requests
 * with a retriable error, and cancelled waiters never called.
 *
 * Nothing sleeps: the loop runs until a completion arrives, under a deadline.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ev.h>

#include "broker_fixture.h"
#include "loop_wait.h"

#include "broker/broker.h"
#include "metadata/producer_ids.h"
#include "metadata/store.h"
#include "log/log_dir.h"

#define MANY (GR_PRODUCER_ID_BLOCK_SIZE + 5)

typedef gr_test_broker_t fixture_t;

/* One request's outcome. */
typedef struct waiter {
    gr_producer_id_wait_t wait; /* first: the callback gets it back */
    bool done;
    gr_kerr_t err;
    int64_t id;
} waiter_t;

static void on_id(gr_producer_id_wait_t *w, gr_kerr_t err, int64_t id)
{
    waiter_t *me = (waiter_t *)w;
    assert_false(me->done);
    me->done = true;
    me->err = err;
    me->id = id;
}

static bool store_idle(void *arg)
{
    return ((gr_broker_t *)arg)->store_pending == 0;
}

/* Runs the loop until *flag, or the store is idle when flag is NULL. */
static void run_until(fixture_t *fx, const bool *flag)
{
    if (flag)
        gr_test_wait_flag(fx->loop, flag, "a completion");
    else
        gr_test_wait(fx->loop, store_idle, fx->b, "the store's writes");
}

static void broker_start(fixture_t *fx)
{
    assert_int_equal(gr_test_broker_start(fx, NULL, 0), 0);
    run_until(fx, NULL);
}

static void broker_stop(fixture_t *fx)
{
    gr_test_broker_stop(fx);
}

static int setup(void **state)
{
    return gr_test_broker_new(state, "producer-ids");
}

static int teardown(void **state)
{
    return gr_test_broker_free(state);
}

/* A fresh id (err NONE expected). */
static int64_t take_id(fixture_t *fx)
{
    waiter_t w = {0};
    gr_producer_ids_request(fx->b, &w.wait, on_id);
    run_until(fx, &w.done);
    assert_int_equal(w.err, GR_KERR_NONE);
    return w.id;
}

typedef struct node {
    bool done;
    int rc;
    char data[256];
} node_t;

static void on_get(void *opaque, int rc, const void *data, size_t len, const gr_store_stat_t *st)
{
    (void)st;
    node_t *n = opaque;
    n->rc = rc;
    if (rc == GR_STORE_OK)
        snprintf(n->data, sizeof n->data, "%.*s", (int)len, (const char *)data);
    n->done = true;
}

static void on_created(void *opaque, int rc, const char *path)
{
    (void)path;
    node_t *n = opaque;
    n->rc = rc;
    n->done = true;
}

static void read_block_node(fixture_t *fx, node_t *n)
{
    memset(n, 0, sizeof *n);
    assert_int_equal(
        gr_store_get(fx->b->store_session, GR_PRODUCER_ID_BLOCK_PATH, NULL, NULL, on_get, n),
        GR_STORE_OK);
    run_until(fx, &n->done);
    assert_int_equal(n->rc, GR_STORE_OK);
}

static void write_block_node(fixture_t *fx, const char *json)
{
    node_t n = {0};
    assert_int_equal(gr_store_create(fx->b->store_session, GR_PRODUCER_ID_BLOCK_PATH, json,
                                     strlen(json), GR_STORE_PERSISTENT, on_created, &n),
                     GR_STORE_OK);
    run_until(fx, &n.done);
    assert_int_equal(n.rc, GR_STORE_OK);
}

static void test_blocks_and_restart(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx);
    for (int64_t i = 0; i < MANY; i++)
        assert_int_equal(take_id(fx), i); /* crosses into the second block */
    node_t n;
    read_block_node(fx, &n);
    assert_string_equal(
        n.data, "{\"version\":1,\"broker\":0,\"block_start\":\"1000\",\"block_end\":\"1999\"}");
    broker_stop(fx);

    /* The rest of a block is never reused after a restart. */
    broker_start(fx);
    assert_int_equal(take_id(fx), 2 * GR_PRODUCER_ID_BLOCK_SIZE);
}

static void test_block_claimed_elsewhere(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx);
    write_block_node(
        fx, "{\"version\":1,\"broker\":7,\"block_start\":\"5000\",\"block_end\":\"5999\"}");
    assert_int_equal(take_id(fx), 6000);
}

static void test_malformed_node_fails_retriably(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx);
    write_block_node(fx, "{\"version\":1,\"block_end\":\"many\"}");
    waiter_t a = {0}, b = {0};
    gr_producer_ids_request(fx->b, &a.wait, on_id);
    gr_producer_ids_request(fx->b, &b.wait, on_id);
    run_until(fx, &b.done);
    assert_true(a.done);
    assert_int_equal(a.err, GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
    assert_int_equal(b.err, GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
    assert_int_equal(a.id, -1);
}

static void test_cancelled_waiter_not_called(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx);
    waiter_t a = {0}, b = {0}, c = {0};
    gr_producer_ids_request(fx->b, &a.wait, on_id);
    gr_producer_ids_request(fx->b, &b.wait, on_id);
    gr_producer_ids_request(fx->b, &c.wait, on_id);
    assert_false(a.done); /* the first block is still being claimed */
    gr_producer_ids_cancel(fx->b, &b.wait);
    gr_producer_ids_cancel(fx->b, &b.wait); /* twice is harmless */
    run_until(fx, &c.done);
    assert_true(a.done);
    assert_false(b.done);
    assert_int_equal(a.id, 0);
    assert_int_equal(c.id, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_blocks_and_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_block_claimed_elsewhere, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_node_fails_retriably, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancelled_waiter_not_called, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
