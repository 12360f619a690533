/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller's leadership rules, run by the real controller of a
 * single-node broker (id 0) over fakes: brokers 1, 2 and 3 exist only as
 * registrations in its store, the fake peer (support/fake_peer.h) takes
 * what the controller sends them and answers success, and the fake store
 * (support/fake_store.h) refuses or holds its writes. Topics here have their
 * replicas on 1..3 only, so broker 0 hosts none of them; their assignment
 * and state nodes are written directly, as another controller would have.
 *
 * Each test takes a broker away (deletes its registration, as its session
 * expiring would) or edits the controller's view, and checks the state
 * written and what LeaderAndIsr / UpdateMetadata carry afterwards.
 *
 * Nothing sleeps: the loop runs until the controller's view shows the
 * outcome, under a deadline.
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

#include <cmocka.h>
#include <ev.h>

#include "broker_fixture.h"
#include "fake_cluster.h"
#include "fake_peer.h"
#include "fake_store.h"
#include "loop_wait.h"

#include "broker/broker.h"
#include "controller/controller.h"
#include "controller/zk_member.h"
#include "gen/common.h"
#include "gen/elect_leaders.h"
#include "gen/leader_and_isr.h"
#include "gen/stop_replica.h"
#include "gen/update_metadata.h"
#include "metadata/store.h"
#include "metadata/zk_docs.h"

#define TOPIC       "elect"
#define LOCAL       0
#define OTHERS      3
#define PATH_STATES GR_ZK_BROKER_TOPICS_PATH "/" TOPIC "/partitions"

typedef struct fixture {
    gr_test_broker_t tb;
    gr_broker_t *b;
    struct ev_loop *loop;
    gr_fake_peer_t peer;
    gr_fake_store_t store;
} fixture_t;

static gr_controller_t *controller(fixture_t *fx)
{
    return &fx->b->zk->controller;
}

static gr_ctl_topic_t *find_topic(gr_controller_t *c, const char *name)
{
    return gr_fake_cluster_topic(c, name);
}

static bool controller_settled(void *arg)
{
    return gr_fake_cluster_settled(arg);
}

static void make_topic(fixture_t *fx, const int32_t *replicas, int32_t count, int32_t leader,
                       const int32_t *isr, int32_t isr_count, int32_t leader_epoch)
{
    gr_fake_cluster_topic_write(fx->b, TOPIC, replicas, count, leader, isr, isr_count,
                                leader_epoch);
}

typedef struct epoch_wait {
    gr_controller_t *c;
    int32_t leader_epoch;
} epoch_wait_t;

/* The controller knows TOPIC-0 at leader epoch (or later) and has nothing in flight. */
static bool at_epoch(void *arg)
{
    epoch_wait_t *w = arg;
    gr_ctl_partition_t *p = gr_fake_cluster_partition(w->c, TOPIC, 0);
    return p && p->state.leader_epoch >= w->leader_epoch && controller_settled(w->c);
}

static const gr_ctl_partition_t *wait_epoch(fixture_t *fx, int32_t leader_epoch)
{
    epoch_wait_t w = {controller(fx), leader_epoch};
    gr_test_wait(fx->loop, at_epoch, &w, "the partition's leader epoch");
    return &find_topic(controller(fx), TOPIC)->partitions[0];
}

static void assert_ids(const int32_t *ids, int32_t count, const int32_t *want, int32_t want_count)
{
    assert_int_equal(count, want_count);
    for (int32_t i = 0; i < count; i++)
        assert_int_equal(ids[i], want[i]);
}

static int setup(void **state)
{
    fixture_t *fx = calloc(1, sizeof *fx);
    if (!fx || gr_test_broker_make_dir(&fx->tb, "controller-elect") < 0)
        return -1;
    assert_int_equal(gr_test_broker_start(&fx->tb, NULL, 0), 0);
    fx->b = fx->tb.b;
    fx->loop = fx->tb.loop;
    gr_test_wait(fx->loop, controller_settled, controller(fx), "the controller to settle");
    gr_fake_peer_install(&fx->peer, controller(fx), fx->loop, LOCAL, true);
    gr_fake_store_install(&fx->store, fx->b);
    for (int32_t id = 1; id <= OTHERS; id++)
        gr_fake_cluster_join(fx->b, id);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    gr_fake_store_remove(&fx->store);
    gr_fake_peer_remove(&fx->peer);
    gr_test_broker_remove(&fx->tb);
    free(fx);
    return 0;
}

/* Takes broker id away (its session expired) and waits for the controller to see it gone. */
static void lose_broker(fixture_t *fx, int32_t id)
{
    gr_fake_cluster_leave(fx->b, id);
}

/* The newest LeaderAndIsr to broker for TOPIC-0, or NULL. */
static const gr_leader_and_isr_request_leader_and_isr_partition_state_t *
last_leader_and_isr(fixture_t *fx, int32_t broker)
{
    const gr_leader_and_isr_request_t *r =
        gr_fake_peer_last(&fx->peer, broker, GR_API_LEADER_AND_ISR);
    for (int32_t i = 0; r && i < r->topic_states_count; i++)
        if (gr_str_eq_c(r->topic_states[i].topic_name, TOPIC))
            return &r->topic_states[i].partition_states[0];
    return NULL;
}

/* TOPIC-0 in the newest UpdateMetadata to broker, or NULL. */
static const gr_update_metadata_request_update_metadata_partition_state_t *
last_update_metadata(fixture_t *fx, int32_t broker)
{
    const gr_update_metadata_request_t *r =
        gr_fake_peer_last(&fx->peer, broker, GR_API_UPDATE_METADATA);
    for (int32_t i = 0; r && i < r->topic_states_count; i++)
        if (gr_str_eq_c(r->topic_states[i].topic_name, TOPIC))
            return &r->topic_states[i].partition_states[0];
    return NULL;
}

typedef struct told_wait {
    fixture_t *fx;
    int32_t broker;
    int32_t leader_epoch;
} told_wait_t;

static bool told(void *arg)
{
    told_wait_t *w = arg;
    const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s =
        last_leader_and_isr(w->fx, w->broker);
    return s && s->leader_epoch >= w->leader_epoch;
}

/* Waits for broker to get a LeaderAndIsr of TOPIC-0 at leader_epoch, and returns it. */
static const gr_leader_and_isr_request_leader_and_isr_partition_state_t *
wait_told(fixture_t *fx, int32_t broker, int32_t leader_epoch)
{
    told_wait_t w = {fx, broker, leader_epoch};
    gr_test_wait(fx->loop, told, &w, "LeaderAndIsr at the new leader epoch");
    return last_leader_and_isr(fx, broker);
}

/* The leader gone: the first replica in assignment order that is live and in the ISR leads. */
static void test_dead_leader_gives_way_to_first_live_isr_replica(void **state)
{
    fixture_t *fx = *state;
    /* ISR order (3, 2) differs from assignment order (2, 3): assignment order wins. */
    static const int32_t replicas[] = {1, 2, 3}, isr[] = {1, 3, 2};
    make_topic(fx, replicas, 3, 1, isr, 3, 5);
    (void)wait_epoch(fx, 5);
    lose_broker(fx, 1);
    const gr_ctl_partition_t *p = wait_epoch(fx, 6);
    assert_int_equal(p->state.leader, 2);
    assert_int_equal(p->state.leader_epoch, 6);
    static const int32_t want_isr[] = {3, 2};
    assert_ids(p->state.isr, p->state.isr_count, want_isr, 2);
    assert_int_equal(p->state.controller_epoch, controller(fx)->epoch);
}

/* A live replica outside the ISR is not elected, even when it comes first. */
static void test_out_of_sync_replica_not_elected(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2, 3}, isr[] = {3, 2};
    make_topic(fx, replicas, 3, 3, isr, 2, 0);
    (void)wait_epoch(fx, 0);
    lose_broker(fx, 3);
    const gr_ctl_partition_t *p = wait_epoch(fx, 1);
    assert_int_equal(p->state.leader, 2);
    static const int32_t want_isr[] = {2};
    assert_ids(p->state.isr, p->state.isr_count, want_isr, 1);
}

/* A follower lost: the leader stays, the ISR shrinks, the leader epoch moves on. */
static void test_follower_loss_shrinks_isr(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2, 3}, isr[] = {1, 2, 3};
    make_topic(fx, replicas, 3, 1, isr, 3, 2);
    (void)wait_epoch(fx, 2);
    lose_broker(fx, 3);
    const gr_ctl_partition_t *p = wait_epoch(fx, 3);
    assert_int_equal(p->state.leader, 1);
    static const int32_t want_isr[] = {1, 2};
    assert_ids(p->state.isr, p->state.isr_count, want_isr, 2);
}

/* No ISR member alive, unclean election off: offline (leader -1), the ISR kept. */
static void test_no_live_isr_goes_offline(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2}, isr[] = {1};
    make_topic(fx, replicas, 2, 1, isr, 1, 4);
    (void)wait_epoch(fx, 4);
    lose_broker(fx, 1);
    const gr_ctl_partition_t *p = wait_epoch(fx, 5);
    assert_int_equal(p->state.leader, GR_NO_BROKER);
    assert_ids(p->state.isr, p->state.isr_count, isr, 1);
}

/* The same with unclean.leader.election.enable: the live out-of-sync replica leads alone. */
static void test_unclean_election_when_enabled(void **state)
{
    fixture_t *fx = *state;
    fx->b->config.unclean_leader_election_enable = true;
    static const int32_t replicas[] = {1, 2}, isr[] = {1};
    make_topic(fx, replicas, 2, 1, isr, 1, 4);
    (void)wait_epoch(fx, 4);
    lose_broker(fx, 1);
    const gr_ctl_partition_t *p = wait_epoch(fx, 5);
    assert_int_equal(p->state.leader, 2);
    static const int32_t want_isr[] = {2};
    assert_ids(p->state.isr, p->state.isr_count, want_isr, 1);
    assert_true(gr_test_broker_logged(&fx->tb, "unclean leader election of broker 2"));
}

/* A broker shutting down is not elected and leaves the ISR at the next change. */
static void test_shutting_down_broker_not_elected(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2, 3}, isr[] = {1, 2, 3};
    make_topic(fx, replicas, 3, 1, isr, 3, 0);
    (void)wait_epoch(fx, 0);
    /* The flag a ControlledShutdown sets, set here directly. */
    gr_ctl_broker_t *two = gr_fake_cluster_broker(controller(fx), 2);
    two->shutting_down = true;
    lose_broker(fx, 1);
    const gr_ctl_partition_t *p = wait_epoch(fx, 1);
    assert_int_equal(p->state.leader, 3);
    static const int32_t want_isr[] = {3};
    assert_ids(p->state.isr, p->state.isr_count, want_isr, 1);
}

/* After the change the replicas hear of it: LeaderAndIsr to each live one, UpdateMetadata to all.
 */
static void test_brokers_told_after_change(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2, 3}, isr[] = {1, 2, 3};
    make_topic(fx, replicas, 3, 1, isr, 3, 7);
    (void)wait_epoch(fx, 7);
    lose_broker(fx, 1);
    (void)wait_epoch(fx, 8);
    static const int32_t want_isr[] = {2, 3};
    for (int32_t id = 2; id <= 3; id++) {
        const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s = wait_told(fx, id, 8);
        assert_non_null(s);
        assert_int_equal(s->leader, 2);
        assert_int_equal(s->leader_epoch, 8);
        assert_int_equal(s->controller_epoch, controller(fx)->epoch);
        assert_ids(s->isr, s->isr_count, want_isr, 2);
        assert_ids(s->replicas, s->replicas_count, replicas, 3);
        const gr_leader_and_isr_request_t *r =
            gr_fake_peer_last(&fx->peer, id, GR_API_LEADER_AND_ISR);
        assert_int_equal(r->controller_id, LOCAL);
    }
    /* Broker 0 hosts no replica of it: metadata only, through the in-process path. */
    assert_null(last_leader_and_isr(fx, LOCAL));
    for (int32_t id = 0; id <= 3; id += 3) {
        const gr_update_metadata_request_update_metadata_partition_state_t *u =
            last_update_metadata(fx, id);
        assert_non_null(u);
        assert_int_equal(u->leader, 2);
        assert_int_equal(u->leader_epoch, 8);
        assert_ids(u->isr, u->isr_count, want_isr, 2);
        static const int32_t offline[] = {1};
        assert_ids(u->offline_replicas, u->offline_replicas_count, offline, 1);
    }
    /* The gone broker is told nothing of it. */
    const gr_update_metadata_request_update_metadata_partition_state_t *gone =
        last_update_metadata(fx, 1);
    assert_true(gone == NULL || gone->leader == 1);
}

/*
 * A state write the store refuses (a closed session's answer) loses nothing:
 * the controller retries a moment later and the election happens.
 */
static void test_refused_state_write_retried(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2}, isr[] = {1, 2};
    make_topic(fx, replicas, 2, 1, isr, 2, 0);
    (void)wait_epoch(fx, 0);
    gr_fake_store_fail(&fx->store, GR_FAKE_OP_SET, PATH_STATES, 1, GR_STORE_CLOSING,
                       GR_FAKE_REFUSE);
    lose_broker(fx, 1);
    const gr_ctl_partition_t *p = wait_epoch(fx, 1);
    assert_int_equal(fx->store.failed, 1);
    assert_int_equal(p->state.leader, 2);
    const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s = wait_told(fx, 2, 1);
    assert_int_equal(s->leader, 2);
}

/*
 * A state write that fails in its completion (ZooKeeper's CONNLOSS, or
 * BADVERSION when another controller wrote first): the controller reads
 * the node again before deciding, then writes.
 */
static void test_failed_state_write_reread_and_redone(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2}, isr[] = {1, 2};
    make_topic(fx, replicas, 2, 1, isr, 2, 0);
    (void)wait_epoch(fx, 0);
    gr_fake_store_fail(&fx->store, GR_FAKE_OP_SET, PATH_STATES, 1, GR_STORE_BADVERSION,
                       GR_FAKE_ANSWER);
    lose_broker(fx, 1);
    const gr_ctl_partition_t *p = wait_epoch(fx, 1);
    assert_int_equal(fx->store.failed, 1);
    assert_int_equal(p->state.leader, 2);
    assert_int_equal(p->state.leader_epoch, 1);
    assert_true(gr_test_broker_logged(&fx->tb, "writing the state of " TOPIC "-0: BADVERSION"));
}

static bool held_one(void *arg)
{
    return gr_fake_store_held(arg) > 0;
}

/* While the write is in flight brokers hear nothing of it; once it lands they do. */
static void test_brokers_told_only_after_write_lands(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2}, isr[] = {1, 2};
    make_topic(fx, replicas, 2, 1, isr, 2, 3);
    (void)wait_epoch(fx, 3);
    gr_fake_store_hold(&fx->store, GR_FAKE_OP_SET, PATH_STATES);
    gr_fake_cluster_unregister(fx->b, 1);
    gr_test_wait(fx->loop, held_one, &fx->store, "the state write");
    gr_ctl_partition_t *p = &find_topic(controller(fx), TOPIC)->partitions[0];
    assert_true(p->writing);
    assert_int_equal(p->state.leader_epoch, 3);
    const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s =
        last_leader_and_isr(fx, 2);
    assert_true(s == NULL || s->leader_epoch == 3);
    gr_fake_store_release(&fx->store);
    (void)wait_epoch(fx, 4);
    s = wait_told(fx, 2, 4);
    assert_int_equal(s->leader, 2);
    assert_int_equal(s->leader_epoch, 4);
}

typedef struct told_metadata {
    fixture_t *fx;
    int32_t broker;
} told_metadata_t;

static bool metadata_sent(void *arg)
{
    told_metadata_t *w = arg;
    return gr_fake_peer_count(&w->fx->peer, w->broker, GR_API_UPDATE_METADATA) > 0 &&
           controller_settled(controller(w->fx));
}

/*
 * Makes the controller reconcile once more and waits until it did: a new
 * broker joins, and UpdateMetadata goes to it (from the broadcast that
 * precedes each round's deletion progress).
 */
static void reconcile_once_more(fixture_t *fx, int32_t new_broker)
{
    gr_fake_cluster_join(fx->b, new_broker);
    told_metadata_t w = {fx, new_broker};
    gr_test_wait(fx->loop, metadata_sent, &w, "UpdateMetadata to the new broker");
}

typedef struct topic_wait {
    gr_controller_t *c;
    bool gone;
} topic_wait_t;

static bool topic_gone(void *arg)
{
    topic_wait_t *w = arg;
    return find_topic(w->c, TOPIC) == NULL;
}

static bool stop_sent_to_all(void *arg)
{
    fixture_t *fx = arg;
    for (int32_t id = 1; id <= OTHERS; id++)
        if (gr_fake_peer_count(&fx->peer, id, GR_API_STOP_REPLICA) == 0)
            return false;
    return true;
}

/*
 * Deletion: announced (leader -2), StopReplica with deletion to every
 * replica, and the topic's nodes removed only once all have answered.
 */
static void test_topic_deletion_waits_for_every_replica(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2, 3}, isr[] = {1, 2, 3};
    make_topic(fx, replicas, 3, 1, isr, 3, 0);
    (void)wait_epoch(fx, 0);
    fx->peer.auto_answer = false;
    gr_fake_cluster_create(fx->b, GR_ZK_DELETE_TOPICS_PATH "/" TOPIC, NULL, 0);
    gr_test_wait(fx->loop, stop_sent_to_all, fx, "StopReplica to every replica");
    for (int32_t id = 1; id <= OTHERS; id++) {
        const gr_stop_replica_request_t *r = gr_fake_peer_last(&fx->peer, id, GR_API_STOP_REPLICA);
        assert_int_equal(r->topic_states_count, 1);
        assert_true(gr_str_eq_c(r->topic_states[0].topic_name, TOPIC));
        assert_true(r->topic_states[0].partition_states[0].delete_partition);
        assert_int_equal(r->controller_epoch, controller(fx)->epoch);
    }
    const gr_update_metadata_request_update_metadata_partition_state_t *u =
        last_update_metadata(fx, LOCAL);
    assert_non_null(u);
    assert_int_equal(u->leader, GR_LEADER_DURING_DELETE);
    /* Unanswered, the topic stays, even when the controller reconciles again. */
    reconcile_once_more(fx, OTHERS + 1);
    gr_ctl_topic_t *t = find_topic(controller(fx), TOPIC);
    assert_non_null(t);
    assert_true(t->deleting);
    assert_false(t->znodes_deleting);
    gr_fake_peer_answer(&fx->peer, 0);
    fx->peer.auto_answer = true;
    topic_wait_t w = {controller(fx), true};
    gr_test_wait(fx->loop, topic_gone, &w, "the topic to be deleted");
}

static bool stop_sent_to_one(void *arg)
{
    fixture_t *fx = arg;
    return gr_fake_peer_count(&fx->peer, 1, GR_API_STOP_REPLICA) > 0 &&
           controller_settled(controller(fx));
}

/* A replica on a broker that is down is deleted when it returns; the topic waits for it. */
static void test_topic_deletion_waits_for_down_broker(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2}, isr[] = {1, 2};
    make_topic(fx, replicas, 2, 1, isr, 2, 0);
    (void)wait_epoch(fx, 0);
    lose_broker(fx, 2);
    gr_fake_cluster_create(fx->b, GR_ZK_DELETE_TOPICS_PATH "/" TOPIC, NULL, 0);
    gr_test_wait(fx->loop, stop_sent_to_one, fx, "StopReplica to the live replica");
    /* Broker 1 answered (auto_answer); broker 2's replica is still owed. */
    reconcile_once_more(fx, OTHERS + 1);
    gr_ctl_topic_t *t = find_topic(controller(fx), TOPIC);
    assert_non_null(t);
    assert_false(t->znodes_deleting);
    assert_int_equal(gr_fake_peer_count(&fx->peer, 2, GR_API_STOP_REPLICA), 0);
    gr_fake_cluster_join(fx->b, 2);
    topic_wait_t w = {controller(fx), true};
    gr_test_wait(fx->loop, topic_gone, &w, "the topic to be deleted");
    assert_int_equal(gr_fake_peer_count(&fx->peer, 2, GR_API_STOP_REPLICA), 1);
}

/* LeaderAndIsr requests of type FULL sent to broker. */
static size_t full_leader_and_isr_count(fixture_t *fx, int32_t broker)
{
    size_t n = 0;
    for (size_t i = 0; i < fx->peer.count; i++) {
        const gr_fake_request_t *r = fx->peer.requests[i];
        const gr_leader_and_isr_request_t *req = r->request;
        n += r->broker_id == broker && r->api_key == GR_API_LEADER_AND_ISR &&
             req->type == GR_CONTROL_REQUEST_TYPE_FULL;
    }
    return n;
}

/* An offline partition gets its leader back when an ISR member returns. */
static void test_offline_partition_back_when_isr_member_returns(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2}, isr[] = {1};
    make_topic(fx, replicas, 2, 1, isr, 1, 0);
    (void)wait_epoch(fx, 0);
    lose_broker(fx, 1);
    const gr_ctl_partition_t *p = wait_epoch(fx, 1);
    assert_int_equal(p->state.leader, GR_NO_BROKER);
    size_t full_before = full_leader_and_isr_count(fx, 1);
    gr_fake_cluster_join(fx->b, 1);
    p = wait_epoch(fx, 2);
    assert_int_equal(p->state.leader, 1);
    assert_ids(p->state.isr, p->state.isr_count, isr, 1);
    assert_int_equal(wait_told(fx, 1, 2)->leader, 1);
    /* The returning broker was told everything (a full LeaderAndIsr) on joining. */
    assert_true(full_leader_and_isr_count(fx, 1) > full_before);
}

typedef struct count_wait {
    fixture_t *fx;
    int32_t broker;
    size_t above;
} count_wait_t;

static bool more_leader_and_isr(void *arg)
{
    count_wait_t *w = arg;
    return gr_fake_peer_count(&w->fx->peer, w->broker, GR_API_LEADER_AND_ISR) > w->above;
}

/* A request a broker never answered (connection lost): that broker is sent everything again. */
static void test_failed_send_resends_everything(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2}, isr[] = {1, 2};
    fx->peer.auto_answer = false;
    make_topic(fx, replicas, 2, 1, isr, 2, 0);
    (void)wait_epoch(fx, 0);
    (void)wait_told(fx, 2, 0);
    count_wait_t w = {fx, 2, gr_fake_peer_count(&fx->peer, 2, GR_API_LEADER_AND_ISR)};
    gr_fake_peer_answer(&fx->peer, -ECONNRESET);
    fx->peer.auto_answer = true;
    gr_test_wait(fx->loop, more_leader_and_isr, &w, "LeaderAndIsr sent again");
    const gr_leader_and_isr_request_t *r = gr_fake_peer_last(&fx->peer, 2, GR_API_LEADER_AND_ISR);
    assert_int_equal(r->type, GR_CONTROL_REQUEST_TYPE_FULL);
    const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s =
        last_leader_and_isr(fx, 2);
    assert_non_null(s);
    assert_int_equal(s->leader, 1);
}

static bool active_at(void *arg)
{
    gr_controller_t *c = arg;
    return c->epoch >= 0 && controller_settled(c);
}

/*
 * A controller that resigned drops the completions of what it started (a
 * state write answered late is not taken as its own), and the next one
 * runs at a higher controller epoch, which every request it sends carries.
 */
static void test_new_controller_epoch_and_late_write_dropped(void **state)
{
    fixture_t *fx = *state;
    gr_controller_t *c = controller(fx);
    static const int32_t replicas[] = {1, 2}, isr[] = {1, 2};
    make_topic(fx, replicas, 2, 1, isr, 2, 0);
    (void)wait_epoch(fx, 0);
    int32_t epoch = c->epoch;
    gr_fake_store_hold(&fx->store, GR_FAKE_OP_SET, PATH_STATES);
    gr_fake_cluster_unregister(fx->b, 1);
    gr_test_wait(fx->loop, held_one, &fx->store, "the state write");
    gr_controller_resign(c);
    gr_fake_store_release(&fx->store); /* must not touch the resigned controller's state */
    assert_null(c->topics);
    assert_int_equal(c->writes_pending, 0);
    gr_controller_activate(c);
    gr_test_wait(fx->loop, active_at, c, "the controller to be back");
    assert_int_equal(c->epoch, epoch + 1);
    /* The write did land: the new controller reads it and has nothing more to decide. */
    const gr_ctl_partition_t *p = wait_epoch(fx, 1);
    assert_int_equal(p->state.leader, 2);
    const gr_leader_and_isr_request_t *r;
    const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s = wait_told(fx, 2, 1);
    r = gr_fake_peer_last(&fx->peer, 2, GR_API_LEADER_AND_ISR);
    assert_int_equal(r->controller_epoch, epoch + 1);
    assert_int_equal(s->controller_epoch, epoch + 1);
}

typedef struct elected {
    bool done;
    int16_t error;
} elected_t;

static void on_elected(void *opaque, const gr_election_result_t *results, int32_t count)
{
    elected_t *e = opaque;
    assert_int_equal(count, 1);
    e->error = results[0].error;
    e->done = true;
}

/* A preferred election of TOPIC-0: the partition's outcome. */
static int16_t elect_preferred(fixture_t *fx)
{
    gr_ctl_partition_ref_t ref = {.topic = TOPIC, .index = 0};
    elected_t e = {0};
    assert_int_equal(gr_controller_elect_leaders(controller(fx), GR_ELECTION_TYPE_PREFERRED, &ref,
                                                 1, on_elected, &e),
                     0);
    gr_test_wait_flag(fx->loop, &e.done, "the election's outcome");
    return e.error;
}

/* Preferred election: the first replica leads again when live and in sync, and only then. */
static void test_preferred_replica_elected_when_live_and_in_sync(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2}, in_sync[] = {2, 1};
    make_topic(fx, replicas, 2, 2, in_sync, 2, 4);
    (void)wait_epoch(fx, 4);
    assert_int_equal(elect_preferred(fx), GR_KERR_NONE);
    const gr_ctl_partition_t *p = wait_epoch(fx, 5);
    assert_int_equal(p->state.leader, 1);
    assert_int_equal(wait_told(fx, 2, 5)->leader, 1);
    /* Leading already: nothing to do. */
    assert_int_equal(elect_preferred(fx), GR_KERR_ELECTION_NOT_NEEDED);
}

static void test_preferred_replica_out_of_sync_not_elected(void **state)
{
    fixture_t *fx = *state;
    static const int32_t replicas[] = {1, 2}, isr[] = {2};
    make_topic(fx, replicas, 2, 2, isr, 1, 4);
    (void)wait_epoch(fx, 4);
    assert_int_equal(elect_preferred(fx), GR_KERR_PREFERRED_LEADER_NOT_AVAILABLE);
    gr_fake_cluster_leave(fx->b, 1);
    assert_int_equal(elect_preferred(fx), GR_KERR_PREFERRED_LEADER_NOT_AVAILABLE);
    const gr_ctl_partition_t *p = wait_epoch(fx, 4);
    assert_int_equal(p->state.leader, 2);
    assert_int_equal(p->state.leader_epoch, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dead_leader_gives_way_to_first_live_isr_replica, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_out_of_sync_replica_not_elected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_follower_loss_shrinks_isr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_live_isr_goes_offline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unclean_election_when_enabled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shutting_down_broker_not_elected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_brokers_told_after_change, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_state_write_retried, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_state_write_reread_and_redone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_brokers_told_only_after_write_lands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_topic_deletion_waits_for_every_replica, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_topic_deletion_waits_for_down_broker, setup, teardown),
        cmocka_unit_test_setup_teardown(test_offline_partition_back_when_isr_member_returns, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_failed_send_resends_everything, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preferred_replica_elected_when_live_and_in_sync, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_preferred_replica_out_of_sync_not_elected, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_new_controller_epoch_and_late_write_dropped, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
