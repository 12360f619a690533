/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group coordinator's partition leadership (src/group/coordinator*.c)
 * on a real broker (gr_broker_init/start on a temporary log dir): groups and
 * offsets written to __consumer_offsets, the partition resigned (waiting
 * requests answered NOT_COORDINATOR, groups gone, other partitions
 * untouched), FindCoordinator's lookup following the partition's leader in
 * the topic table and the cluster view, stale epochs ignored, and a new
 * election reloading the groups and offsets from the log, also when a
 * resignation aborted a replay half-way. Also: the partition count comes
 * from the topic, not from this broker's config, and a restart of a
 * single-node broker reloads through the same election path.
 *
 * Nothing sleeps: the loop runs until the replay ends, under a deadline.
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

#include "broker/broker.h"
#include "group/coordinator.h"
#include "group/coordinator_hash.h"
#include "log/log_dir.h"

#define WAIT_DEADLINE_S  20.0
#define OFFSETS_PARTS    3
#define OTHER_BROKER     2
#define UNKNOWN_BROKER   3
#define OTHER_PORT       19093
#define SESSION_MS       30000
#define SMALL_LOAD_BYTES "1" /* offsets.load.buffer.size: one batch per slice */

typedef struct fixture {
    char dir[64];
    struct ev_loop *loop;
    gr_broker_t *b;
    FILE *log_file; /* the broker's log, kept out of the test output */
} fixture_t;

/* A JoinGroup waiting in a group, answered through the env's respond_join. */
typedef struct answer {
    gr_group_waiter_t w;
    bool answered;
    gr_kerr_t error;
    int32_t generation;
    char member_id[128];
} answer_t;

static void record_join(void *opaque, gr_group_waiter_t *w, const gr_join_result_t *r)
{
    (void)opaque;
    answer_t *a = (answer_t *)w;
    assert_false(a->answered);
    a->answered = true;
    a->error = r->error;
    a->generation = r->generation;
    snprintf(a->member_id, sizeof a->member_id, "%s", r->member_id ? r->member_id : "");
}

static void record_sync(void *opaque, gr_group_waiter_t *w, const gr_sync_result_t *r)
{
    (void)opaque;
    answer_t *a = (answer_t *)w;
    assert_false(a->answered);
    a->answered = true;
    a->error = r->error;
}

/* ---- broker lifecycle -------------------------------------------------------------- */

static void broker_start(fixture_t *fx, const char *partitions, const char *load_bytes)
{
    char dirs[128], parts[64], load[64];
    snprintf(dirs, sizeof dirs, "log.dirs=%s", fx->dir);
    snprintf(parts, sizeof parts, "offsets.topic.num.partitions=%s", partitions);
    snprintf(load, sizeof load, "offsets.load.buffer.size=%s", load_bytes);
    const char *overrides[] = {dirs,
                               "listeners=PLAINTEXT://127.0.0.1:0",
                               "offsets.topic.replication.factor=1",
                               "group.initial.rebalance.delay.ms=0",
                               parts,
                               load};
    gr_config_t config;
    char err[256];
    int n = (int)(sizeof overrides / sizeof overrides[0]);
    assert_int_equal(gr_config_load(&config, NULL, overrides, n, NULL, err, sizeof err), 0);
    fx->loop = ev_loop_new(EVFLAG_AUTO);
    assert_non_null(fx->loop);
    fx->b = calloc(1, sizeof(*fx->b));
    assert_non_null(fx->b);
    assert_int_equal(gr_broker_init(fx->b, fx->loop, &config), 0);
    fx->log_file = fopen("/dev/null", "w");
    assert_non_null(fx->log_file);
    fx->b->log.out = fx->log_file;
    assert_int_equal(gr_broker_start(fx->b), 0);
    fx->b->groups.env.respond_join = record_join;
    fx->b->groups.env.respond_sync = record_sync;
}

static void broker_stop(fixture_t *fx)
{
    (void)gr_broker_fini(fx->b);
    free(fx->b);
    fx->b = NULL;
    ev_loop_destroy(fx->loop);
    fx->loop = NULL;
    fclose(fx->log_file);
    fx->log_file = NULL;
}

static int setup(void **state)
{
    fixture_t *fx = calloc(1, sizeof(*fx));
    snprintf(fx->dir, sizeof fx->dir, "/tmp/gr-coordinator-XXXXXX");
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

static void on_deadline(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    *(bool *)t->data = true;
}

/* Runs the loop until no partition led here is replaying. */
static void run_until_loaded(fixture_t *fx)
{
    bool expired = false;
    ev_timer deadline;
    ev_timer_init(&deadline, on_deadline, WAIT_DEADLINE_S, 0.);
    deadline.data = &expired;
    ev_timer_start(fx->loop, &deadline);
    while (!expired && gr_coordinator_loading(&fx->b->groups))
        ev_run(fx->loop, EVRUN_ONCE);
    ev_timer_stop(fx->loop, &deadline);
    if (expired)
        fail_msg("the replay did not end within %.0f s", WAIT_DEADLINE_S);
}

/* ---- helpers ----------------------------------------------------------------------- */

static gr_coordinator_t *co_of(fixture_t *fx)
{
    return &fx->b->groups;
}

static gr_topic_t *offsets_topic(fixture_t *fx)
{
    return gr_topics_find(&fx->b->topics, GR_OFFSETS_TOPIC, strlen(GR_OFFSETS_TOPIC));
}

/* A group id starting with prefix, of the given coordinator partition (among partitions). */
static void group_on(const char *prefix, int32_t partition, int32_t partitions, char *out,
                     size_t len)
{
    for (int i = 0;; i++) {
        snprintf(out, len, "%s-%d", prefix, i);
        if (gr_group_partition_for(out, strlen(out), partitions) == partition)
            return;
    }
}

static gr_kerr_t check(fixture_t *fx, const char *id)
{
    int32_t partition;
    return gr_coordinator_check(co_of(fx), gr_str(id), &partition);
}

/* Commits offset for t-0 (a commit-only group if new); asserts it is stored. */
static void commit(fixture_t *fx, const char *id, int64_t offset)
{
    int32_t partition;
    assert_int_equal(gr_coordinator_check(co_of(fx), gr_str(id), &partition), GR_KERR_NONE);
    gr_group_t *g = gr_coordinator_get_or_create(co_of(fx), gr_str(id), partition);
    assert_non_null(g);
    gr_kerr_t err = GR_KERR_NONE;
    gr_offset_commit_t c = {.topic = gr_str("t"),
                            .partition = 0,
                            .offset = offset,
                            .leader_epoch = -1,
                            .metadata = gr_str("m"),
                            .expire_timestamp = -1,
                            .error = &err};
    gr_coordinator_commit(co_of(fx), g, &c, 1);
    assert_int_equal(err, GR_KERR_NONE);
}

/* The committed offset of t-0 for group id, -1 if none (or no group). */
static int64_t committed(fixture_t *fx, const char *id)
{
    gr_group_t *g = gr_coordinator_find(co_of(fx), gr_str(id));
    gr_group_offset_t *o = g ? gr_group_offset_find(g, gr_str("t"), 0) : NULL;
    return o ? o->offset : -1;
}

static const gr_join_protocol_t range_protocol[] = {{{"range", 5}, {(const uint8_t *)"m", 1}}};

static void join(fixture_t *fx, gr_group_t *g, const char *member_id, answer_t *a)
{
    gr_join_args_t args = {.member_id = gr_str(member_id),
                           .instance_id = {NULL, GR_NULL_LEN},
                           .client_id = gr_str("client"),
                           .client_host = gr_str("/127.0.0.1"),
                           .session_timeout_ms = SESSION_MS,
                           .rebalance_timeout_ms = SESSION_MS,
                           .protocol_type = gr_str("consumer"),
                           .protocols = range_protocol,
                           .protocol_count = 1};
    memset(a, 0, sizeof(*a));
    gr_group_join(g, &co_of(fx)->env, &args, &a->w);
}

/* Runs the loop until a (a JoinGroup completing on a timer) is answered. */
static void run_until_answered(fixture_t *fx, const answer_t *a)
{
    bool expired = false;
    ev_timer deadline;
    ev_timer_init(&deadline, on_deadline, WAIT_DEADLINE_S, 0.);
    deadline.data = &expired;
    ev_timer_start(fx->loop, &deadline);
    while (!expired && !a->answered)
        ev_run(fx->loop, EVRUN_ONCE);
    ev_timer_stop(fx->loop, &deadline);
    if (expired)
        fail_msg("no answer within %.0f s", WAIT_DEADLINE_S);
}

/*
 * Makes id a Stable group of one member (its metadata record written),
 * then has a second member join: that JoinGroup waits for the first to
 * rejoin. Returns the group.
 */
static gr_group_t *stable_group_with_waiter(fixture_t *fx, const char *id, answer_t *waiting)
{
    int32_t partition;
    assert_int_equal(gr_coordinator_check(co_of(fx), gr_str(id), &partition), GR_KERR_NONE);
    gr_group_t *g = gr_coordinator_get_or_create(co_of(fx), gr_str(id), partition);
    answer_t first, sync;
    join(fx, g, "", &first);
    run_until_answered(fx, &first);
    assert_int_equal(first.error, GR_KERR_NONE);
    gr_sync_args_t args = {.member_id = gr_str(first.member_id),
                           .instance_id = {NULL, GR_NULL_LEN},
                           .generation = first.generation,
                           .protocol_type = {NULL, GR_NULL_LEN},
                           .protocol_name = {NULL, GR_NULL_LEN}};
    memset(&sync, 0, sizeof sync);
    gr_group_sync(g, &co_of(fx)->env, &args, &sync.w);
    assert_true(sync.answered);
    assert_int_equal(sync.error, GR_KERR_NONE);
    assert_int_equal(g->state, GR_GROUP_STABLE);
    join(fx, g, "", waiting);
    assert_false(waiting->answered);
    assert_int_equal(g->state, GR_GROUP_PREPARING_REBALANCE);
    return g;
}

static void set_other_node(fixture_t *fx)
{
    gr_cluster_node_t nodes[] = {
        {.id = fx->b->config.broker_id, .port = fx->b->advertised_port},
        {.id = OTHER_BROKER, .host = "other.example", .port = OTHER_PORT},
    };
    snprintf(nodes[0].host, sizeof nodes[0].host, "%s", fx->b->advertised_host);
    assert_int_equal(gr_cluster_view_set_nodes(&fx->b->cluster, nodes, 2), 0);
}

/* ---- tests ------------------------------------------------------------------------- */

static void test_resign_and_reelect(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx, "3", "5242880");
    gr_coordinator_t *co = co_of(fx);
    char moved[32], stays[32];
    group_on("moved", 1, OFFSETS_PARTS, moved, sizeof moved);
    group_on("stays", 2, OFFSETS_PARTS, stays, sizeof stays);
    /* No topic yet: not available; FindCoordinator creates it and names this broker. */
    assert_int_equal(check(fx, moved), GR_KERR_COORDINATOR_NOT_AVAILABLE);
    gr_coordinator_node_t node;
    assert_int_equal(gr_coordinator_locate(co, gr_str(moved), &node), GR_KERR_NONE);
    assert_int_equal(node.node_id, fx->b->config.broker_id);
    assert_string_equal(node.host, fx->b->advertised_host);
    assert_int_equal(node.port, fx->b->advertised_port);
    assert_non_null(offsets_topic(fx));

    commit(fx, moved, 42);
    commit(fx, stays, 7);
    answer_t waiting;
    char member_group[32];
    group_on("members", 1, OFFSETS_PARTS, member_group, sizeof member_group);
    stable_group_with_waiter(fx, member_group, &waiting);

    /* Another broker becomes leader of partition 1 at epoch 1. */
    gr_partition_t *p = gr_topic_partition(offsets_topic(fx), 1);
    p->leader_id = OTHER_BROKER;
    p->leader_epoch = 1;
    set_other_node(fx);
    gr_coordinator_partition_resigned(co, 1, 1);
    assert_true(waiting.answered);
    assert_int_equal(waiting.error, GR_KERR_NOT_COORDINATOR);
    assert_null(gr_coordinator_find(co, gr_str(moved)));
    assert_null(gr_coordinator_find(co, gr_str(member_group)));
    assert_int_equal(check(fx, moved), GR_KERR_NOT_COORDINATOR);
    assert_int_equal(check(fx, stays), GR_KERR_NONE);
    assert_int_equal(committed(fx, stays), 7);
    /* A write for the lost partition is refused too. */
    gr_group_t *g = gr_group_new(moved, strlen(moved), 1, 0);
    assert_int_equal(co->env.store_group(co, g), GR_KERR_NOT_COORDINATOR);
    gr_group_free(g, &co->env);

    /* FindCoordinator follows the topic table and the cluster view. */
    assert_int_equal(gr_coordinator_locate(co, gr_str(moved), &node), GR_KERR_NONE);
    assert_int_equal(node.node_id, OTHER_BROKER);
    assert_string_equal(node.host, "other.example");
    assert_int_equal(node.port, OTHER_PORT);
    assert_int_equal(gr_coordinator_locate(co, gr_str(stays), &node), GR_KERR_NONE);
    assert_int_equal(node.node_id, fx->b->config.broker_id);
    p->leader_id = UNKNOWN_BROKER;
    assert_int_equal(gr_coordinator_locate(co, gr_str(moved), &node),
                     GR_KERR_COORDINATOR_NOT_AVAILABLE);
    p->leader_id = GR_NO_BROKER;
    assert_int_equal(gr_coordinator_locate(co, gr_str(moved), &node),
                     GR_KERR_COORDINATOR_NOT_AVAILABLE);

    /* Stale calls change nothing: an election at the resign's epoch, or older. */
    p->leader_id = fx->b->config.broker_id;
    gr_coordinator_partition_elected(co, 1, 1);
    gr_coordinator_partition_elected(co, 1, 0);
    assert_int_equal(check(fx, moved), GR_KERR_NOT_COORDINATOR);

    /* Leadership comes back at epoch 2: the groups and offsets come back from the log. */
    p->leader_epoch = 2;
    gr_coordinator_partition_elected(co, 1, 2);
    assert_int_equal(check(fx, moved), GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
    assert_int_equal(check(fx, stays), GR_KERR_NONE);
    run_until_loaded(fx);
    assert_int_equal(check(fx, moved), GR_KERR_NONE);
    assert_int_equal(committed(fx, moved), 42);
    assert_int_equal(committed(fx, stays), 7);
    g = gr_coordinator_find(co, gr_str(member_group));
    assert_non_null(g);
    assert_int_equal(g->state, GR_GROUP_STABLE);
    assert_int_equal(g->member_count, 1);
    assert_int_equal(g->generation, 1);

    /* An older resignation after the new election is ignored. */
    gr_coordinator_partition_resigned(co, 1, 1);
    assert_int_equal(check(fx, moved), GR_KERR_NONE);
    /* StopReplica without an epoch always applies. */
    gr_coordinator_partition_resigned(co, 1, -1);
    assert_int_equal(check(fx, moved), GR_KERR_NOT_COORDINATOR);
    gr_coordinator_partition_elected(co, 1, 0);
    run_until_loaded(fx);
    assert_int_equal(committed(fx, moved), 42);
}

static void count_group(gr_group_t *g, void *arg)
{
    (void)g;
    (*(int *)arg)++;
}

/* A resignation in the middle of a replay aborts it; a later election replays from the start. */
static void test_resign_during_replay(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx, "3", SMALL_LOAD_BYTES);
    gr_coordinator_t *co = co_of(fx);
    assert_int_equal(gr_coordinator_ensure_topic(co), GR_KERR_NONE);
    char ids[8][32];
    for (int i = 0; i < 8; i++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "replayed%d", i);
        group_on(prefix, 0, OFFSETS_PARTS, ids[i], sizeof ids[i]);
        commit(fx, ids[i], 100 + i);
    }
    gr_coordinator_partition_resigned(co, 0, 1);
    gr_coordinator_partition_elected(co, 0, 2);
    assert_true(gr_coordinator_loading(co));
    ev_run(fx->loop, EVRUN_NOWAIT); /* one slice: one batch, one group */
    assert_true(gr_coordinator_loading(co));
    gr_coordinator_partition_resigned(co, 0, 3);
    assert_false(gr_coordinator_loading(co));
    for (int i = 0; i < 8; i++)
        assert_null(gr_coordinator_find(co, gr_str(ids[i])));
    for (int i = 0; i < 4; i++)
        ev_run(fx->loop, EVRUN_NOWAIT);
    for (int i = 0; i < 8; i++)
        assert_null(gr_coordinator_find(co, gr_str(ids[i])));
    assert_int_equal(check(fx, ids[0]), GR_KERR_NOT_COORDINATOR);

    gr_coordinator_partition_elected(co, 0, 4);
    run_until_loaded(fx);
    for (int i = 0; i < 8; i++)
        assert_int_equal(committed(fx, ids[i]), 100 + i);
    int listed = 0;
    gr_coordinator_foreach(co, count_group, &listed);
    assert_int_equal(listed, 8);
    gr_coordinator_partition_resigned(co, 0, 5);
    listed = 0;
    gr_coordinator_foreach(co, count_group, &listed);
    assert_int_equal(listed, 0);
}

/*
 * The topic was made elsewhere with 5 partitions while this broker's config
 * says 3: groups hash over 5, and partitions above 3 can be elected.
 */
static void test_partition_count_from_topic(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx, "3", "5242880");
    gr_topic_t *topic = NULL;
    char err[256];
    assert_int_equal(gr_topics_create(fx->b, GR_OFFSETS_TOPIC, 5, NULL, 0, &topic, err, sizeof err),
                     GR_KERR_NONE);
    char id[32];
    group_on("wide", 4, 5, id, sizeof id);
    assert_int_equal(check(fx, id), GR_KERR_NOT_COORDINATOR); /* nobody elected it yet */
    gr_coordinator_partition_elected(co_of(fx), 4, 0);
    int32_t partition;
    assert_int_equal(gr_coordinator_check(co_of(fx), gr_str(id), &partition), GR_KERR_NONE);
    assert_int_equal(partition, 4);
    commit(fx, id, 9);
    /* The same broker restarted: single-node start-up elects every partition and reloads. */
    broker_stop(fx);
    broker_start(fx, "3", "5242880");
    run_until_loaded(fx);
    assert_int_equal(check(fx, id), GR_KERR_NONE);
    assert_int_equal(committed(fx, id), 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_resign_and_reelect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resign_during_replay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_count_from_topic, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
