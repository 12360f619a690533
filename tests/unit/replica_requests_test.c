/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller's requests applied to a broker (replica/requests.h), driven
 * directly as gr_replica_call_t on a single-node broker, the way
 * controller_local.c delivers them: LeaderAndIsr making this broker leader
 * then follower of a partition its own controller does not know (so nothing
 * else touches it), leader epoch and controller epoch fencing,
 * UpdateMetadata reaching the cluster view, StopReplica with deletion.
 * Answers may come a few loop turns later (a new topic's configs are read
 * first): the loop runs until done, under a deadline.
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
#include "loop_wait.h"
#include "topic_wait.h"

#include "broker/broker.h"
#include "controller/zk_member.h"
#include "gen/leader_and_isr.h"
#include "gen/stop_replica.h"
#include "gen/update_metadata.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "protocol/kerr.h"
#include "replica/requests.h"

#define TOPIC                   "applied"
#define LOCAL                   0
#define OTHER                   1
#define NEW_BROKER              5
#define NEW_PORT                19092
#define LEADER_AND_ISR_VERSION  7
#define UPDATE_METADATA_VERSION 8
#define STOP_REPLICA_VERSION    4

typedef struct fixture {
    gr_test_broker_t tb;
    gr_broker_t *b;
    struct ev_loop *loop;
    gr_arena_t arena;
} fixture_t;

typedef struct outcome {
    gr_replica_call_t call;
    bool done;
    int rc;
    const void *response;
} outcome_t;

static void on_done(gr_replica_call_t *call, int rc, const void *response)
{
    outcome_t *o = call->opaque;
    o->done = true;
    o->rc = rc;
    o->response = response;
}

static int32_t controller_epoch(fixture_t *fx)
{
    return fx->b->zk->controller.epoch;
}

/* Applies request (api_key at version) and returns the response, living in fx's arena. */
static const void *apply(fixture_t *fx, int16_t api_key, int16_t version, const void *request,
                         bool from_network)
{
    outcome_t o = {.call = {.b = fx->b,
                            .api_key = api_key,
                            .version = version,
                            .from_network = from_network,
                            .request = request,
                            .arena = &fx->arena,
                            .done = on_done}};
    o.call.opaque = &o;
    gr_replica_call_start(&o.call);
    gr_test_wait_flag(fx->loop, &o.done, "the request to be applied");
    assert_int_equal(o.rc, 0);
    return o.response;
}

/* LeaderAndIsr of TOPIC-0 with replicas {0, 1}; the partition's error (or the request's). */
static int16_t leader_and_isr(fixture_t *fx, int32_t ctl_epoch, int32_t leader,
                              int32_t leader_epoch, bool from_network)
{
    static int32_t replicas[] = {LOCAL, OTHER};
    gr_leader_and_isr_request_leader_and_isr_partition_state_t ps;
    gr_leader_and_isr_request_leader_and_isr_partition_state_init(&ps);
    ps.topic_name = gr_str(TOPIC);
    ps.partition_index = 0;
    ps.controller_epoch = ctl_epoch;
    ps.leader = leader;
    ps.leader_epoch = leader_epoch;
    ps.isr = replicas;
    ps.isr_count = 2;
    ps.partition_epoch = leader_epoch;
    ps.replicas = replicas;
    ps.replicas_count = 2;
    gr_leader_and_isr_request_leader_and_isr_topic_state_t ts;
    gr_leader_and_isr_request_leader_and_isr_topic_state_init(&ts);
    ts.topic_name = gr_str(TOPIC);
    memset(ts.topic_id.b, 0x5a, sizeof ts.topic_id.b);
    ts.partition_states = &ps;
    ts.partition_states_count = 1;
    gr_leader_and_isr_request_leader_and_isr_live_leader_t live;
    gr_leader_and_isr_request_leader_and_isr_live_leader_init(&live);
    live.broker_id = leader;
    live.host_name = gr_str("127.0.0.1");
    live.port = leader == LOCAL ? fx->b->advertised_port : 1;
    gr_leader_and_isr_request_t req;
    gr_leader_and_isr_request_init(&req);
    req.controller_id = LOCAL;
    req.controller_epoch = ctl_epoch;
    req.broker_epoch = -1;
    req.topic_states = &ts;
    req.topic_states_count = 1;
    req.live_leaders = &live;
    req.live_leaders_count = 1;
    const gr_leader_and_isr_response_t *resp =
        apply(fx, GR_API_LEADER_AND_ISR, LEADER_AND_ISR_VERSION, &req, from_network);
    if (resp->error_code)
        return resp->error_code;
    assert_int_equal(resp->topics_count, 1);
    assert_int_equal(resp->topics[0].partition_errors_count, 1);
    return resp->topics[0].partition_errors[0].error_code;
}

static gr_partition_t *partition(fixture_t *fx)
{
    gr_topic_t *t = gr_topics_find(fx->b->topics, TOPIC, strlen(TOPIC));
    assert_non_null(t);
    return &t->partitions[0];
}

static int setup(void **state)
{
    fixture_t *fx = calloc(1, sizeof *fx);
    if (!fx || gr_test_broker_make_dir(&fx->tb, "replica-requests") < 0)
        return -1;
    assert_int_equal(gr_test_broker_start(&fx->tb, NULL, 0), 0);
    fx->b = fx->tb.b;
    fx->loop = fx->tb.loop;
    gr_arena_init(&fx->arena);
    /* Settled: the controller told this broker the cluster (its epoch is in the view). */
    (void)gr_test_create_topic(fx->loop, fx->b, "settled", 1, NULL, 0);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    gr_test_broker_remove(&fx->tb);
    gr_arena_fini(&fx->arena);
    free(fx);
    return 0;
}

/* Leader, then follower at a newer leader epoch: the partition's log is opened, led, then not. */
static void test_become_leader_then_follower(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(leader_and_isr(fx, controller_epoch(fx), LOCAL, 3, false), GR_KERR_NONE);
    gr_partition_t *p = partition(fx);
    assert_non_null(p->log);
    assert_true(gr_partition_led_by(p, LOCAL));
    assert_int_equal(p->leader_epoch, 3);
    assert_int_equal(p->isr_count, 2);
    assert_int_equal(leader_and_isr(fx, controller_epoch(fx), OTHER, 4, false), GR_KERR_NONE);
    p = partition(fx);
    assert_false(gr_partition_led_by(p, LOCAL));
    assert_int_equal(p->leader_id, OTHER);
    assert_int_equal(p->leader_epoch, 4);
}

/* An older leader epoch is refused and changes nothing; the same one is applied again. */
static void test_stale_leader_epoch_refused(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(leader_and_isr(fx, controller_epoch(fx), LOCAL, 3, false), GR_KERR_NONE);
    assert_int_equal(leader_and_isr(fx, controller_epoch(fx), OTHER, 2, false),
                     GR_KERR_STALE_CONTROLLER_EPOCH);
    gr_partition_t *p = partition(fx);
    assert_true(gr_partition_led_by(p, LOCAL));
    assert_int_equal(p->leader_epoch, 3);
    assert_int_equal(leader_and_isr(fx, controller_epoch(fx), LOCAL, 3, false), GR_KERR_NONE);
}

/* A controller older than the newest seen is fenced: the whole request, nothing applied. */
static void test_stale_controller_epoch_fenced(void **state)
{
    fixture_t *fx = *state;
    int32_t epoch = controller_epoch(fx);
    assert_true(epoch >= 1);
    assert_int_equal(leader_and_isr(fx, epoch - 1, LOCAL, 3, false),
                     GR_KERR_STALE_CONTROLLER_EPOCH);
    assert_null(gr_topics_find(fx->b->topics, TOPIC, strlen(TOPIC)));
    assert_true(gr_test_broker_logged(&fx->tb, "ignoring a request of controller"));
    /* A newer controller is followed, and its epoch becomes the one to beat. */
    assert_int_equal(leader_and_isr(fx, epoch + 1, LOCAL, 3, false), GR_KERR_NONE);
    assert_int_equal(fx->b->cluster->controller_epoch, epoch + 1);
}

/* A single-node broker's controller never uses the network: such a request is refused. */
static void test_network_request_refused_in_single_node_mode(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(leader_and_isr(fx, controller_epoch(fx), LOCAL, 3, true),
                     GR_KERR_STALE_CONTROLLER_EPOCH);
    assert_null(gr_topics_find(fx->b->topics, TOPIC, strlen(TOPIC)));
}

/* UpdateMetadata's live brokers become the cluster view. */
static void test_update_metadata_sets_cluster_view(void **state)
{
    fixture_t *fx = *state;
    gr_update_metadata_request_update_metadata_endpoint_t ep[2];
    gr_update_metadata_request_update_metadata_broker_t brokers[2];
    int32_t ids[2] = {LOCAL, NEW_BROKER};
    int32_t ports[2] = {fx->b->advertised_port, NEW_PORT};
    for (int i = 0; i < 2; i++) {
        gr_update_metadata_request_update_metadata_endpoint_init(&ep[i]);
        ep[i].port = ports[i];
        ep[i].host = gr_str("127.0.0.1");
        ep[i].listener = gr_str("PLAINTEXT");
        ep[i].security_protocol = 0;
        gr_update_metadata_request_update_metadata_broker_init(&brokers[i]);
        brokers[i].id = ids[i];
        brokers[i].endpoints = &ep[i];
        brokers[i].endpoints_count = 1;
    }
    gr_update_metadata_request_t req;
    gr_update_metadata_request_init(&req);
    req.controller_id = LOCAL;
    req.controller_epoch = controller_epoch(fx);
    req.broker_epoch = -1;
    req.live_brokers = brokers;
    req.live_brokers_count = 2;
    const gr_update_metadata_response_t *resp =
        apply(fx, GR_API_UPDATE_METADATA, UPDATE_METADATA_VERSION, &req, false);
    assert_int_equal(resp->error_code, GR_KERR_NONE);
    const gr_cluster_node_t *n = gr_cluster_view_node(fx->b->cluster, NEW_BROKER);
    assert_non_null(n);
    assert_int_equal(n->port, NEW_PORT);
    /* A stale controller's UpdateMetadata is refused. */
    req.controller_epoch = controller_epoch(fx) - 1;
    resp = apply(fx, GR_API_UPDATE_METADATA, UPDATE_METADATA_VERSION, &req, false);
    assert_int_equal(resp->error_code, GR_KERR_STALE_CONTROLLER_EPOCH);
}

/* StopReplica with deletion: the partition's log goes, and the topic with its last partition. */
static void test_stop_replica_with_deletion(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(leader_and_isr(fx, controller_epoch(fx), LOCAL, 3, false), GR_KERR_NONE);
    gr_stop_replica_request_stop_replica_partition_state_t ps;
    gr_stop_replica_request_stop_replica_partition_state_init(&ps);
    ps.partition_index = 0;
    ps.leader_epoch = -2; /* the topic is being deleted */
    ps.delete_partition = true;
    gr_stop_replica_request_stop_replica_topic_state_t ts;
    gr_stop_replica_request_stop_replica_topic_state_init(&ts);
    ts.topic_name = gr_str(TOPIC);
    ts.partition_states = &ps;
    ts.partition_states_count = 1;
    gr_stop_replica_request_t req;
    gr_stop_replica_request_init(&req);
    req.controller_id = LOCAL;
    req.controller_epoch = controller_epoch(fx);
    req.broker_epoch = -1;
    req.topic_states = &ts;
    req.topic_states_count = 1;
    const gr_stop_replica_response_t *resp =
        apply(fx, GR_API_STOP_REPLICA, STOP_REPLICA_VERSION, &req, false);
    assert_int_equal(resp->error_code, GR_KERR_NONE);
    for (int32_t i = 0; i < resp->partition_errors_count; i++)
        assert_int_equal(resp->partition_errors[i].error_code, GR_KERR_NONE);
    gr_topic_t *t = gr_topics_find(fx->b->topics, TOPIC, strlen(TOPIC));
    assert_true(t == NULL || t->partitions[0].log == NULL);
    char dir[sizeof fx->tb.dir + 32];
    snprintf(dir, sizeof dir, "%s/" TOPIC "-0", fx->tb.dir);
    FILE *f = fopen(dir, "r");
    assert_null(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_become_leader_then_follower, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_leader_epoch_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_controller_epoch_fenced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_network_request_refused_in_single_node_mode, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_update_metadata_sets_cluster_view, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_replica_with_deletion, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
