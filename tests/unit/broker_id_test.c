/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker id at start-up (core/broker_id.h): the choice between
 * broker.id and meta.properties, the arithmetic of generated ids, and a real
 * single-node broker (gr_broker_init/start on a temporary log dir, over the
 * embedded store) started with broker.id=-1: it generates
 * reserved.broker.max.id + 1 from /brokers/seqid, registers under it, keeps
 * it in meta.properties, gets it back on restart without bumping
 * /brokers/seqid again, and a configured id that disagrees with
 * meta.properties stops the start.
 *
 * Nothing sleeps: the loop runs until a completion arrives, under a deadline.
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
#include "core/broker_id.h"
#include "log/log_dir.h"
#include "loop_wait.h"
#include "metadata/store.h"

/* ---- the choice and the arithmetic ---------------------------------------------------- */

static void test_choose(void **state)
{
    char err[256] = "";
    int32_t id = 42;
    (void)state;

    /* Configured, no meta.properties: as configured. */
    assert_int_equal(gr_broker_id_choose(3, GR_BROKER_ID_NONE, true, &id, err, sizeof err), 0);
    assert_int_equal(id, 3);
    /* Both, equal: fine. */
    assert_int_equal(gr_broker_id_choose(3, 3, false, &id, err, sizeof err), 0);
    assert_int_equal(id, 3);
    /* -1 takes meta.properties' id, even one that was generated. */
    assert_int_equal(gr_broker_id_choose(GR_BROKER_ID_NONE, 1004, true, &id, err, sizeof err), 0);
    assert_int_equal(id, 1004);
    /* -1 and nothing stored: generate. */
    assert_int_equal(
        gr_broker_id_choose(GR_BROKER_ID_NONE, GR_BROKER_ID_NONE, true, &id, err, sizeof err), 0);
    assert_int_equal(id, GR_BROKER_ID_NONE);
    /* ... unless generation is off. */
    assert_int_equal(
        gr_broker_id_choose(GR_BROKER_ID_NONE, GR_BROKER_ID_NONE, false, &id, err, sizeof err),
        -EINVAL);
    assert_non_null(strstr(err, "broker.id.generation.enable"));
    /* Configured and stored differ: the log dir is another broker's. */
    err[0] = '\0';
    assert_int_equal(gr_broker_id_choose(2, 1001, true, &id, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "1001"));
}

static void test_from_sequence(void **state)
{
    int32_t id = 0;
    (void)state;

    assert_int_equal(gr_broker_id_from_sequence(1, 1000, &id), 0);
    assert_int_equal(id, 1001);
    assert_int_equal(gr_broker_id_from_sequence(7, 0, &id), 0);
    assert_int_equal(id, 7);
    assert_int_equal(gr_broker_id_from_sequence(INT32_MAX - 1000, 1000, &id), 0);
    assert_int_equal(id, INT32_MAX);
    assert_int_equal(gr_broker_id_from_sequence(INT32_MAX - 999, 1000, &id), -ERANGE);
    assert_int_equal(gr_broker_id_from_sequence(-1, 1000, &id), -ERANGE);
    assert_int_equal(gr_broker_id_from_sequence(0, 0, &id), -ERANGE);
}

/* ---- a single-node broker -------------------------------------------------------------- */

typedef struct fixture {
    char dir[64];
    struct ev_loop *loop;
    gr_broker_t *b;
} fixture_t;

/* Starts a broker on fx->dir with broker_id and extra (may be NULL) as overrides. */
static int broker_start(fixture_t *fx, const char *broker_id, const char *extra)
{
    char dirs[128];
    snprintf(dirs, sizeof dirs, "log.dirs=%s", fx->dir);
    const char *overrides[] = {dirs, "listeners=PLAINTEXT://127.0.0.1:0", broker_id, extra};
    gr_config_t config;
    char err[256];
    assert_int_equal(gr_config_load(&config, NULL, overrides, extra ? 4 : 3, NULL, err, sizeof err),
                     0);
    fx->loop = ev_loop_new(EVFLAG_AUTO);
    assert_non_null(fx->loop);
    fx->b = calloc(1, sizeof(*fx->b));
    assert_non_null(fx->b);
    assert_int_equal(gr_broker_init(fx->b, fx->loop, &config), 0);
    gr_logger_set_level(&fx->b->log, GR_LOGGER_ROOT, GR_LOG_ERROR);
    return gr_broker_start(fx->b);
}

static void broker_stop(fixture_t *fx)
{
    (void)gr_broker_fini(fx->b);
    free(fx->b);
    fx->b = NULL;
    ev_loop_destroy(fx->loop);
    fx->loop = NULL;
}

static int setup(void **state)
{
    fixture_t *fx = calloc(1, sizeof(*fx));
    snprintf(fx->dir, sizeof fx->dir, "/tmp/gr-broker-id-XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    if (fx->b)
        broker_stop(fx);
    gr_log_dir_remove_tree(NULL, fx->dir);
    free(fx);
    return 0;
}

typedef struct stat_result {
    bool done;
    int rc;
    gr_store_stat_t stat;
} stat_result_t;

static void on_stat(void *opaque, int rc, const gr_store_stat_t *st)
{
    stat_result_t *r = opaque;
    r->done = true;
    r->rc = rc;
    if (rc == GR_STORE_OK)
        r->stat = *st;
}

/* The stat of path in the broker's store, read on a session of the test's own. */
static int store_stat(fixture_t *fx, const char *path, gr_store_stat_t *out)
{
    gr_store_session_t *s = NULL;
    stat_result_t r = {0};
    assert_int_equal(gr_store_session_open(fx->b->store, NULL, NULL, &s), GR_STORE_OK);
    assert_int_equal(gr_store_exists(s, path, NULL, NULL, on_stat, &r), GR_STORE_OK);
    gr_test_wait_flag(fx->loop, &r.done, path);
    gr_store_session_close(s);
    *out = r.stat;
    return r.rc;
}

/* broker.id in fx->dir's meta.properties, read as an operator would (-2 if none). */
static int32_t meta_broker_id(fixture_t *fx)
{
    char path[128];
    snprintf(path, sizeof path, "%s/meta.properties", fx->dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[128];
    int32_t id = -2;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "broker.id=%d", &id) == 1)
            break;
    fclose(f);
    return id;
}

static void test_single_node_generated(void **state)
{
    fixture_t *fx = *state;
    gr_store_stat_t st;

    assert_int_equal(broker_start(fx, "broker.id=-1", NULL), 0);
    assert_int_equal(fx->b->config.broker_id, 1001);
    assert_int_equal(meta_broker_id(fx), 1001);
    assert_int_equal(store_stat(fx, "/brokers/seqid", &st), GR_STORE_OK);
    assert_int_equal(st.version, 1);
    assert_int_equal(store_stat(fx, "/brokers/ids/1001", &st), GR_STORE_OK);
    assert_int_not_equal(st.ephemeral_owner, 0);
    broker_stop(fx);

    /* A restart takes it from meta.properties: no new sequence number. */
    assert_int_equal(broker_start(fx, "broker.id=-1", NULL), 0);
    assert_int_equal(fx->b->config.broker_id, 1001);
    assert_int_equal(store_stat(fx, "/brokers/seqid", &st), GR_STORE_OK);
    assert_int_equal(st.version, 1);
    broker_stop(fx);

    /* Naming it is fine too, once reserved.broker.max.id allows it. */
    assert_int_equal(broker_start(fx, "broker.id=1001", "reserved.broker.max.id=2000"), 0);
    assert_int_equal(fx->b->config.broker_id, 1001);
    broker_stop(fx);

    /* Another configured id: the log dir is this other broker's, refused. */
    assert_int_equal(broker_start(fx, "broker.id=7", NULL), -EINVAL);
    broker_stop(fx);
    assert_int_equal(meta_broker_id(fx), 1001);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choose),
        cmocka_unit_test(test_from_sequence),
        cmocka_unit_test_setup_teardown(test_single_node_generated, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
