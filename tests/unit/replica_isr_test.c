/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The leader's ISR changes (replica/leader.h): a follower that catches up
 * joins the ISR, one that stops fetching leaves it, each through an
 * AlterPartition to the controller (here the broker's own, over its
 * listener) whose state write and LeaderAndIsr then set the ISR here.
 * Broker 1 is a registration in the store (support/fake_cluster.h) and the
 * fake peer answers what the controller sends it; its fetches are made by
 * calling the leader's entry point for a follower's fetch directly.
 *
 * The rules themselves (when a follower is caught up or lagging) are
 * checked on a fake clock in isr_rules_test.c; the shrink here runs on a
 * short replica.lag.time.max.ms and waits for its outcome, never for a
 * duration.
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
#include "fake_cluster.h"
#include "fake_peer.h"
#include "loop_wait.h"
#include "topic_wait.h"

#include "broker/broker.h"
#include "controller/zk_member.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "protocol/kerr.h"
#include "replica/leader.h"

#define TOPIC       "isr"
#define LOCAL       0
#define FOLLOWER    1
#define NOT_REPLICA 7

typedef struct fixture {
    gr_test_broker_t tb;
    gr_broker_t *b;
    struct ev_loop *loop;
    gr_fake_peer_t peer;
} fixture_t;

static gr_controller_t *controller(fixture_t *fx)
{
    return &fx->b->zk->controller;
}

static int start(void **state, const char *const *overrides, int count)
{
    fixture_t *fx = calloc(1, sizeof *fx);
    if (!fx || gr_test_broker_make_dir(&fx->tb, "replica-isr") < 0)
        return -1;
    assert_int_equal(gr_test_broker_start(&fx->tb, overrides, count), 0);
    fx->b = fx->tb.b;
    fx->loop = fx->tb.loop;
    gr_test_wait(fx->loop, gr_fake_cluster_settled, controller(fx), "the controller to settle");
    gr_fake_peer_install(&fx->peer, controller(fx), fx->loop, LOCAL, true);
    gr_fake_cluster_join(fx->b, FOLLOWER);
    *state = fx;
    return 0;
}

static int setup(void **state)
{
    return start(state, NULL, 0);
}

/* Followers that do not fetch for this long leave the ISR (the check runs every half of it). */
static int setup_short_lag(void **state)
{
    static const char *const lag[] = {"replica.lag.time.max.ms=200"};
    return start(state, lag, 1);
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    gr_fake_peer_remove(&fx->peer);
    gr_test_broker_remove(&fx->tb);
    free(fx);
    return 0;
}

typedef struct isr_wait {
    fixture_t *fx;
    int32_t count;
} isr_wait_t;

/* Both the controller's state and this broker's partition have an ISR of count members. */
static bool isr_of(void *arg)
{
    isr_wait_t *w = arg;
    gr_ctl_partition_t *p = gr_fake_cluster_partition(controller(w->fx), TOPIC, 0);
    gr_topic_t *here = gr_test_hosted_topic(w->fx->b, TOPIC);
    return p && p->state.isr_count == w->count && here &&
           here->partitions[0].isr_count == w->count && gr_fake_cluster_settled(controller(w->fx));
}

static gr_partition_t *lead(fixture_t *fx, const int32_t *isr, int32_t isr_count)
{
    static const int32_t replicas[] = {LOCAL, FOLLOWER};
    gr_fake_cluster_topic_write(fx->b, TOPIC, replicas, 2, LOCAL, isr, isr_count, 0);
    isr_wait_t w = {fx, isr_count};
    gr_test_wait(fx->loop, isr_of, &w, "the partition to be led here");
    gr_partition_t *p = &gr_test_hosted_topic(fx->b, TOPIC)->partitions[0];
    assert_true(gr_partition_led_by(p, LOCAL));
    return p;
}

/* A follower outside the ISR that has fetched up to the leader's end joins it. */
static void test_caught_up_follower_joins_isr(void **state)
{
    fixture_t *fx = *state;
    static const int32_t isr[] = {LOCAL};
    gr_partition_t *p = lead(fx, isr, 1);
    int32_t leader_epoch = p->leader_epoch;
    int64_t leo = gr_log_end_offset(p->log);
    assert_int_equal(gr_replica_follower_fetch(fx->b, p, FOLLOWER, leo), GR_KERR_NONE);
    isr_wait_t w = {fx, 2};
    gr_test_wait(fx->loop, isr_of, &w, "the follower to join the ISR");
    gr_ctl_partition_t *cp = gr_fake_cluster_partition(controller(fx), TOPIC, 0);
    assert_int_equal(cp->state.isr[0], LOCAL);
    assert_int_equal(cp->state.isr[1], FOLLOWER);
    /* An ISR change is no leader change: the leader epoch stays. */
    assert_int_equal(cp->state.leader_epoch, leader_epoch);
    assert_int_equal(p->leader_epoch, leader_epoch);
}

/* A fetch from a broker that is no replica is refused. */
static void test_fetch_from_non_replica_refused(void **state)
{
    fixture_t *fx = *state;
    static const int32_t isr[] = {LOCAL};
    gr_partition_t *p = lead(fx, isr, 1);
    assert_int_equal(gr_replica_follower_fetch(fx->b, p, NOT_REPLICA, 0),
                     GR_KERR_NOT_LEADER_OR_FOLLOWER);
    assert_int_equal(p->isr_count, 1);
}

/* A follower in the ISR that never fetches leaves it; the leader stays, at its epoch. */
static void test_silent_follower_leaves_isr(void **state)
{
    fixture_t *fx = *state;
    static const int32_t isr[] = {LOCAL, FOLLOWER};
    gr_partition_t *p = lead(fx, isr, 2);
    int32_t leader_epoch = p->leader_epoch;
    int32_t version = gr_fake_cluster_partition(controller(fx), TOPIC, 0)->zk_version;
    isr_wait_t w = {fx, 1};
    gr_test_wait(fx->loop, isr_of, &w, "the follower to leave the ISR");
    gr_ctl_partition_t *cp = gr_fake_cluster_partition(controller(fx), TOPIC, 0);
    assert_int_equal(cp->state.isr[0], LOCAL);
    assert_int_equal(cp->state.leader, LOCAL);
    assert_int_equal(cp->state.leader_epoch, leader_epoch);
    assert_true(cp->zk_version > version); /* the partition epoch moved on */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_caught_up_follower_joins_isr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fetch_from_non_replica_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_silent_follower_leaves_isr, setup_short_lag, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
