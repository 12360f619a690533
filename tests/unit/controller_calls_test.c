/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller's calls that may finish later (AlterPartition and
 * ControlledShutdown, controller/controller.h) on a real single-node broker
 * and its own controller: each either answers at once, done never called,
 * or is pending, done called exactly once later. Their failing paths are
 * reached through the fake store (support/fake_store.h: a set refused, as
 * a session that closed under the controller would): such a failure is an
 * answer (UNKNOWN_SERVER_ERROR), never a request left waiting for a done
 * that cannot come. Before gr_controller_call_t, "pending" was -1, which is
 * UNKNOWN_SERVER_ERROR's code, so exactly these failures hung.
 *
 * Nothing sleeps: the loop runs until a completion arrives, under a deadline.
 */
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
#include "fake_store.h"
#include "loop_wait.h"
#include "topic_wait.h"

#include "broker/broker.h"
#include "controller/controller.h"
#include "controller/zk_member.h"
#include "metadata/store.h"
#include "protocol/kerr.h"

#define TOPIC         "calls"
#define LOCAL_BROKER  0
#define ABSENT_BROKER 7

typedef struct fixture {
    gr_test_broker_t tb;
    gr_broker_t *b;
    struct ev_loop *loop;
    gr_fake_store_t store; /* installed for the test's life */
} fixture_t;

/* How a done callback was called. */
typedef struct outcome {
    int calls;
    int16_t err;
} outcome_t;

static bool called(void *arg)
{
    return ((outcome_t *)arg)->calls > 0;
}

static gr_controller_t *controller(fixture_t *fx)
{
    return &fx->b->zk->controller;
}

static bool controller_ready(void *arg)
{
    gr_controller_t *c = arg;
    return c->active && c->loaded && c->writes_pending == 0;
}

static int setup(void **state)
{
    fixture_t *fx = calloc(1, sizeof *fx);
    if (!fx || gr_test_broker_make_dir(&fx->tb, "controller-calls") < 0)
        return -1;
    assert_int_equal(gr_test_broker_start(&fx->tb, NULL, 0), 0);
    fx->b = fx->tb.b;
    fx->loop = fx->tb.loop;
    (void)gr_test_create_topic(fx->loop, fx->b, TOPIC, 1, NULL, 0);
    gr_test_wait(fx->loop, controller_ready, controller(fx), "the controller to settle");
    gr_fake_store_install(&fx->store, fx->b);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    gr_fake_store_remove(&fx->store);
    gr_test_broker_remove(&fx->tb);
    free(fx);
    return 0;
}

static void on_altered(void *opaque, int16_t err, const gr_zk_partition_state_t *state,
                       int32_t partition_epoch)
{
    (void)state, (void)partition_epoch;
    outcome_t *o = opaque;
    o->calls++;
    o->err = err;
}

/*
 * The controller's view of the topic's partition 0, edited so that asking
 * for ISR {0} needs a write: its ISR is made empty (one broker has no other
 * change to ask for). The members stay allocated, for the state's free.
 */
static gr_ctl_partition_t *partition_needing_write(fixture_t *fx)
{
    gr_ctl_topic_t *t = controller(fx)->topics;
    while (t && strcmp(t->name, TOPIC) != 0)
        t = t->next;
    assert_non_null(t);
    gr_ctl_partition_t *p = &t->partitions[0];
    assert_true(p->has_state);
    p->state.isr_count = 0;
    return p;
}

static gr_controller_call_t ask_isr_of_local(fixture_t *fx, const gr_ctl_partition_t *p,
                                             outcome_t *o)
{
    static const int32_t isr[] = {LOCAL_BROKER};
    gr_alter_partition_ask_t ask = {
        .broker = LOCAL_BROKER,
        .topic = TOPIC,
        .index = 0,
        .leader_epoch = p->state.leader_epoch,
        .partition_epoch = p->zk_version,
        .isr = isr,
        .isr_count = 1,
    };
    gr_zk_partition_state_t state;
    int32_t partition_epoch = -1;
    return gr_controller_alter_partition(controller(fx), &ask, &state, &partition_epoch, on_altered,
                                         o);
}

static void test_alter_store_refusal_is_an_answer(void **state)
{
    fixture_t *fx = *state;
    gr_ctl_partition_t *p = partition_needing_write(fx);
    outcome_t o = {0};
    gr_fake_store_fail(&fx->store, GR_FAKE_OP_SET, "/", 1, GR_STORE_NOMEM, GR_FAKE_REFUSE);
    gr_controller_call_t rc = ask_isr_of_local(fx, p, &o);
    assert_false(rc.pending);
    assert_int_equal(rc.err, GR_KERR_UNKNOWN_SERVER_ERROR);
    assert_false(p->writing);
    /* A later turn of the loop must not call done either. */
    gr_test_wait(fx->loop, controller_ready, controller(fx), "the controller to settle");
    assert_int_equal(o.calls, 0);
}

static void test_alter_write_is_pending_then_done_once(void **state)
{
    fixture_t *fx = *state;
    gr_ctl_partition_t *p = partition_needing_write(fx);
    outcome_t o = {0};
    gr_controller_call_t rc = ask_isr_of_local(fx, p, &o);
    assert_true(rc.pending);
    gr_test_wait(fx->loop, called, &o, "the ISR write");
    assert_int_equal(o.calls, 1);
    assert_int_equal(o.err, GR_KERR_NONE);
    /* The same ask again: answered at once, NONE, the ISR being that already. */
    rc = ask_isr_of_local(fx, p, &o);
    assert_false(rc.pending);
    assert_int_equal(rc.err, GR_KERR_NONE);
}

static void on_shutdown(void *opaque, int16_t err, const gr_ctl_partition_ref_t *left,
                        int32_t count)
{
    (void)left, (void)count;
    outcome_t *o = opaque;
    o->calls++;
    o->err = err;
}

static void test_shutdown_answers_and_pending(void **state)
{
    fixture_t *fx = *state;
    outcome_t o = {0};
    gr_controller_call_t rc =
        gr_controller_shutdown_broker(controller(fx), ABSENT_BROKER, -1, on_shutdown, &o);
    assert_false(rc.pending);
    assert_int_equal(rc.err, GR_KERR_BROKER_NOT_AVAILABLE);
    controller(fx)->active = false;
    rc = gr_controller_shutdown_broker(controller(fx), LOCAL_BROKER, -1, on_shutdown, &o);
    controller(fx)->active = true;
    assert_false(rc.pending);
    assert_int_equal(rc.err, GR_KERR_NOT_CONTROLLER);
    rc = gr_controller_shutdown_broker(controller(fx), LOCAL_BROKER, -1, on_shutdown, &o);
    assert_true(rc.pending);
    gr_test_wait(fx->loop, called, &o, "the shutdown's answer");
    assert_int_equal(o.calls, 1);
    assert_int_equal(o.err, GR_KERR_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_alter_store_refusal_is_an_answer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alter_write_is_pending_then_done_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_shutdown_answers_and_pending, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
