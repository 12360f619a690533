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
 * single-node broker reloads through the same election path, and a deleted
 * topic's offsets leave every group for good. Last, the handlers over a
 * socket: FindCoordinator (v3 and batched v4) naming the partition's leader,
 * and OffsetCommit, OffsetFetch, JoinGroup, Heartbeat, DescribeGroups and
 * ListGroups routed by partition leadership.
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

#include <errno.h>
#include <unistd.h>

#include <cmocka.h>
#include <ev.h>

#include "broker_fixture.h"
#include "loop_wait.h"
#include "wire_client.h"
#include "topic_wait.h"

#include "broker/broker.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "gen/codec_registry.h"
#include "gen/describe_groups.h"
#include "gen/find_coordinator.h"
#include "gen/headers.h"
#include "gen/heartbeat.h"
#include "gen/join_group.h"
#include "gen/list_groups.h"
#include "gen/offset_commit.h"
#include "gen/offset_fetch.h"
#include "group/coordinator.h"
#include "coordinator/hash.h"
#include "log/log_dir.h"

#define OFFSETS_PARTS    3
#define OTHER_BROKER     2
#define UNKNOWN_BROKER   3
#define OTHER_PORT       19093
#define SESSION_MS       30000
#define SMALL_LOAD_BYTES "1" /* offsets.load.buffer.size: one batch per slice */
#define MAX_RETRIES      10000

typedef gr_test_broker_t fixture_t;

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
    char parts[64], load[64];
    snprintf(parts, sizeof parts, "offsets.topic.num.partitions=%s", partitions);
    snprintf(load, sizeof load, "offsets.load.buffer.size=%s", load_bytes);
    const char *overrides[] = {"offsets.topic.replication.factor=1",
                               "group.initial.rebalance.delay.ms=0", parts, load};
    int n = (int)(sizeof overrides / sizeof overrides[0]);
    assert_int_equal(gr_test_broker_start(fx, overrides, n), 0);
    fx->b->groups->env.respond_join = record_join;
    fx->b->groups->env.respond_sync = record_sync;
}

static void broker_stop(fixture_t *fx)
{
    gr_test_broker_stop(fx);
}

static int setup(void **state)
{
    return gr_test_broker_new(state, "coordinator");
}

static int teardown(void **state)
{
    return gr_test_broker_free(state);
}

static bool coordinator_loaded(void *arg)
{
    return !gr_coordinator_loading(arg);
}

/* Runs the loop until no partition led here is replaying. */
static void run_until_loaded(fixture_t *fx)
{
    gr_test_wait(fx->loop, coordinator_loaded, fx->b->groups, "the replay of the groups");
}

/* Creates a topic through the controller, as CreateTopics does, and waits until it is open here. */
static gr_topic_t *create_topic(fixture_t *fx, const char *name, int32_t partitions)
{
    return gr_test_create_topic(fx->loop, fx->b, name, partitions, NULL, 0);
}

static bool offsets_topic_hosted(void *arg)
{
    gr_broker_t *b = arg;
    return gr_coordinator_ensure_topic(b->groups) == GR_KERR_NONE &&
           gr_test_hosted_topic(b, GR_OFFSETS_TOPIC);
}

/* Has the coordinator create __consumer_offsets (through the controller) and waits for it. */
static void ensure_offsets_topic(fixture_t *fx)
{
    gr_test_wait(fx->loop, offsets_topic_hosted, fx->b, GR_OFFSETS_TOPIC);
    run_until_loaded(fx);
}

/* ---- helpers ----------------------------------------------------------------------- */

static gr_coordinator_t *co_of(fixture_t *fx)
{
    return fx->b->groups;
}

static gr_topic_t *offsets_topic(fixture_t *fx)
{
    return gr_topics_find(fx->b->topics, GR_OFFSETS_TOPIC, strlen(GR_OFFSETS_TOPIC));
}

/* A group id starting with prefix, of the given coordinator partition (among partitions). */
static void group_on(const char *prefix, int32_t partition, int32_t partitions, char *out,
                     size_t len)
{
    for (int i = 0;; i++) {
        snprintf(out, len, "%s-%d", prefix, i);
        if (gr_coordinator_partition_for(out, strlen(out), partitions) == partition)
            return;
    }
}

static gr_kerr_t check(fixture_t *fx, const char *id)
{
    int32_t partition;
    return gr_coordinator_check(co_of(fx), gr_str(id), &partition);
}

/* Commits offset for topic-partition (a commit-only group if new); asserts it is stored. */
static void commit_to(fixture_t *fx, const char *id, const char *topic, int32_t partition,
                      int64_t offset)
{
    int32_t coordinator_partition;
    assert_int_equal(gr_coordinator_check(co_of(fx), gr_str(id), &coordinator_partition),
                     GR_KERR_NONE);
    gr_group_t *g = gr_coordinator_get_or_create(co_of(fx), gr_str(id), coordinator_partition);
    assert_non_null(g);
    gr_kerr_t err = GR_KERR_NONE;
    gr_offset_commit_t c = {.topic = gr_str(topic),
                            .partition = partition,
                            .offset = offset,
                            .leader_epoch = -1,
                            .metadata = gr_str("m"),
                            .expire_timestamp = -1,
                            .error = &err};
    int64_t written_end = 0;
    gr_coordinator_commit(co_of(fx), g, &c, 1, &written_end);
    assert_int_equal(err, GR_KERR_NONE);
}

/* Commits offset for t-0. */
static void commit(fixture_t *fx, const char *id, int64_t offset)
{
    commit_to(fx, id, "t", 0, offset);
}

/* The committed offset of topic-partition for group id, -1 if none (or no group). */
static int64_t committed_to(fixture_t *fx, const char *id, const char *topic, int32_t partition)
{
    gr_group_t *g = gr_coordinator_find(co_of(fx), gr_str(id));
    gr_group_offset_t *o = g ? gr_group_offset_find(g, gr_str(topic), partition) : NULL;
    return o ? o->offset : -1;
}

/* The committed offset of t-0 for group id, -1 if none (or no group). */
static int64_t committed(fixture_t *fx, const char *id)
{
    return committed_to(fx, id, "t", 0);
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
    gr_test_wait_flag(fx->loop, &a->answered, "an answer");
}

/* Makes id a Stable group of one member (its metadata record written). Returns the group. */
static gr_group_t *stable_group(fixture_t *fx, const char *id)
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
    return g;
}

/*
 * Makes id a Stable group of one member, then has a second member join:
 * that JoinGroup waits for the first to rejoin. Returns the group.
 */
static gr_group_t *stable_group_with_waiter(fixture_t *fx, const char *id, answer_t *waiting)
{
    gr_group_t *g = stable_group(fx, id);
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
    assert_int_equal(gr_cluster_view_set_nodes(fx->b->cluster, nodes, 2), 0);
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
    /* No topic yet: not available; FindCoordinator has the controller create it, then names
     * this broker. */
    assert_int_equal(check(fx, moved), GR_KERR_COORDINATOR_NOT_AVAILABLE);
    gr_coordinator_node_t node;
    assert_int_equal(gr_coordinator_locate(co, gr_str(moved), &node),
                     GR_KERR_COORDINATOR_NOT_AVAILABLE);
    ensure_offsets_topic(fx);
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

    /* The topic deleted and created again elsewhere (a new id): what was loaded is dropped. */
    gr_topic_t *topic = offsets_topic(fx);
    gr_uuid_t id = topic->id;
    topic->id.b[0] ^= 1;
    assert_int_equal(check(fx, stays), GR_KERR_NOT_COORDINATOR);
    assert_null(gr_coordinator_find(co, gr_str(stays)));
    assert_null(gr_coordinator_find(co, gr_str(moved)));
    topic->id = id; /* the id index of the topic table still files it under this one */
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
    ensure_offsets_topic(fx);
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

/* Resigns and re-elects every partition: the groups come back from the log alone. */
static void reload_all(fixture_t *fx)
{
    for (int32_t i = 0; i < OFFSETS_PARTS; i++) {
        gr_coordinator_partition_resigned(co_of(fx), i, GR_COORDINATOR_ANY_EPOCH);
        gr_coordinator_partition_elected(co_of(fx), i, 0);
    }
    run_until_loaded(fx);
}

/*
 * A deleted topic's offsets go from every group (tombstones, so a reload does
 * not bring them back); a group left Empty without offsets goes with them, a
 * group with members stays; other topics' offsets are untouched.
 */
static void test_topic_deleted(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx, "3", "5242880");
    gr_coordinator_t *co = co_of(fx);
    ensure_offsets_topic(fx);
    char both[32], gone_only[32], members[32];
    group_on("both", 0, OFFSETS_PARTS, both, sizeof both);
    group_on("gone-only", 1, OFFSETS_PARTS, gone_only, sizeof gone_only);
    group_on("members", 2, OFFSETS_PARTS, members, sizeof members);
    commit(fx, both, 42);
    commit_to(fx, both, "gone", 0, 5);
    commit_to(fx, both, "gone", 1, 6);
    commit_to(fx, gone_only, "gone", 0, 7);
    gr_group_t *g = stable_group(fx, members);
    commit_to(fx, members, "gone", 0, 8);
    /* Another topic whose name starts alike stays. */
    commit_to(fx, members, "gone2", 0, 9);

    gr_coordinator_topic_deleted(co, gr_str("gone"));
    assert_int_equal(committed(fx, both), 42);
    assert_int_equal(committed_to(fx, both, "gone", 0), -1);
    assert_int_equal(committed_to(fx, both, "gone", 1), -1);
    assert_null(gr_coordinator_find(co, gr_str(gone_only)));
    assert_ptr_equal(gr_coordinator_find(co, gr_str(members)), g);
    assert_int_equal(g->state, GR_GROUP_STABLE);
    assert_int_equal(committed_to(fx, members, "gone", 0), -1);
    assert_int_equal(committed_to(fx, members, "gone2", 0), 9);
    /* Once more changes nothing. */
    gr_coordinator_topic_deleted(co, gr_str("gone"));
    assert_int_equal(committed(fx, both), 42);
    assert_int_equal(committed_to(fx, members, "gone2", 0), 9);

    reload_all(fx);
    assert_int_equal(committed(fx, both), 42);
    assert_int_equal(committed_to(fx, both, "gone", 0), -1);
    assert_int_equal(committed_to(fx, both, "gone", 1), -1);
    assert_null(gr_coordinator_find(co, gr_str(gone_only)));
    assert_int_equal(committed_to(fx, members, "gone", 0), -1);
    assert_int_equal(committed_to(fx, members, "gone2", 0), 9);
}

/*
 * The topic was made elsewhere with 5 partitions while this broker's config
 * says 3: groups hash over 5, and partitions above 3 can be elected.
 */
static void test_partition_count_from_topic(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx, "3", "5242880");
    gr_topic_t *topic = create_topic(fx, GR_OFFSETS_TOPIC, 5);
    run_until_loaded(fx);
    char id[32];
    group_on("wide", 4, 5, id, sizeof id);
    /* The controller here elected this broker for all 5. */
    assert_int_equal(check(fx, id), GR_KERR_NONE);
    int32_t epoch = topic->partitions[4].leader_epoch;
    gr_coordinator_partition_resigned(co_of(fx), 4, epoch);
    assert_int_equal(check(fx, id), GR_KERR_NOT_COORDINATOR);
    /* An election the topic table does not back (another leader there) loads nothing. */
    topic->partitions[4].leader_id = OTHER_BROKER;
    gr_coordinator_partition_elected(co_of(fx), 4, epoch + 1);
    assert_int_equal(check(fx, id), GR_KERR_NOT_COORDINATOR);
    topic->partitions[4].leader_id = fx->b->config.broker_id;
    assert_int_equal(check(fx, id), GR_KERR_NOT_COORDINATOR);
    gr_coordinator_partition_elected(co_of(fx), 4, epoch + 2);
    run_until_loaded(fx);
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

/* ---- requests over the wire, to the broker on this loop ------------------------------ */

/* The shared wire client (support/wire_client.h), failing the test on no answer. */
typedef gr_wire_client_t wire_t;

/* Sends one request (api key, version v) and decodes its response into resp. */
static void wire_call(fixture_t *fx, wire_t *c, int16_t key, int16_t v, const void *msg, void *resp)
{
    (void)fx;
    if (gr_wire_call(c, key, v, msg, resp) < 0)
        fail_msg("api %d v%d: no response (connection closed or timed out)", key, v);
}

static void wire_open(fixture_t *fx, wire_t *c)
{
    gr_wire_open(c, fx->loop, fx->b->advertised_port);
}

static void wire_close(wire_t *c)
{
    gr_wire_close(c);
}

static int16_t wire_find_coordinator(fixture_t *fx, wire_t *c, const char *id, int32_t *node_id,
                                     char *host, size_t host_len, int32_t *port)
{
    gr_find_coordinator_request_t req;
    gr_find_coordinator_request_init(&req);
    req.key = gr_str(id);
    gr_find_coordinator_response_t resp;
    wire_call(fx, c, GR_API_FIND_COORDINATOR, 3, &req, &resp);
    *node_id = resp.node_id;
    *port = resp.port;
    snprintf(host, host_len, "%.*s", resp.host.len > 0 ? resp.host.len : 0,
             resp.host.len > 0 ? resp.host.ptr : "");
    return resp.error_code;
}

/* OffsetCommit v8 of t-0 outside group management: the partition's error. */
static int16_t wire_commit(fixture_t *fx, wire_t *c, const char *id, int64_t offset)
{
    gr_offset_commit_request_offset_commit_request_partition_t part;
    gr_offset_commit_request_offset_commit_request_partition_init(&part);
    part.partition_index = 0;
    part.committed_offset = offset;
    gr_offset_commit_request_offset_commit_request_topic_t topic;
    gr_offset_commit_request_offset_commit_request_topic_init(&topic);
    topic.name = gr_str("t");
    topic.partitions = &part;
    topic.partitions_count = 1;
    gr_offset_commit_request_t req;
    gr_offset_commit_request_init(&req);
    req.group_id = gr_str(id);
    req.generation_id_or_member_epoch = -1;
    req.member_id = gr_str("");
    req.topics = &topic;
    req.topics_count = 1;
    gr_offset_commit_response_t resp;
    wire_call(fx, c, GR_API_OFFSET_COMMIT, 8, &req, &resp);
    assert_int_equal(resp.topics_count, 1);
    assert_int_equal(resp.topics[0].partitions_count, 1);
    return resp.topics[0].partitions[0].error_code;
}

/* OffsetFetch v5 of t-0: the group's error, and the offset without one. */
static int16_t wire_fetch(fixture_t *fx, wire_t *c, const char *id, int64_t *offset)
{
    int32_t partition = 0;
    gr_offset_fetch_request_offset_fetch_request_topic_t topic;
    gr_offset_fetch_request_offset_fetch_request_topic_init(&topic);
    topic.name = gr_str("t");
    topic.partition_indexes = &partition;
    topic.partition_indexes_count = 1;
    gr_offset_fetch_request_t req;
    gr_offset_fetch_request_init(&req);
    req.group_id = gr_str(id);
    req.topics = &topic;
    req.topics_count = 1;
    gr_offset_fetch_response_t resp;
    wire_call(fx, c, GR_API_OFFSET_FETCH, 5, &req, &resp);
    *offset = resp.topics_count == 1 && resp.topics[0].partitions_count == 1
                  ? resp.topics[0].partitions[0].committed_offset
                  : -2;
    return resp.error_code;
}

static int16_t wire_heartbeat(fixture_t *fx, wire_t *c, const char *id)
{
    gr_heartbeat_request_t req;
    gr_heartbeat_request_init(&req);
    req.group_id = gr_str(id);
    req.generation_id = 1;
    req.member_id = gr_str("someone");
    gr_heartbeat_response_t resp;
    wire_call(fx, c, GR_API_HEARTBEAT, 3, &req, &resp);
    return resp.error_code;
}

static int16_t wire_join(fixture_t *fx, wire_t *c, const char *id)
{
    gr_join_group_request_join_group_request_protocol_t protocol;
    gr_join_group_request_join_group_request_protocol_init(&protocol);
    protocol.name = gr_str("range");
    protocol.metadata = (gr_bytes_t){(const uint8_t *)"m", 1};
    gr_join_group_request_t req;
    gr_join_group_request_init(&req);
    req.group_id = gr_str(id);
    req.session_timeout_ms = SESSION_MS;
    req.rebalance_timeout_ms = SESSION_MS;
    req.member_id = gr_str("");
    req.protocol_type = gr_str("consumer");
    req.protocols = &protocol;
    req.protocols_count = 1;
    gr_join_group_response_t resp;
    wire_call(fx, c, GR_API_JOIN_GROUP, 5, &req, &resp);
    return resp.error_code;
}

/* Every group request for a group led elsewhere gets NOT_COORDINATOR; FindCoordinator names the
 * leader. */
static void test_requests_routed(void **state)
{
    fixture_t *fx = *state;
    broker_start(fx, "3", "5242880");
    assert_non_null(create_topic(fx, "t", 1));
    ensure_offsets_topic(fx);
    char moved[32], stays[32], host[128];
    group_on("moved", 1, OFFSETS_PARTS, moved, sizeof moved);
    group_on("stays", 2, OFFSETS_PARTS, stays, sizeof stays);
    wire_t c;
    wire_open(fx, &c);
    int32_t node_id, port;
    assert_int_equal(wire_find_coordinator(fx, &c, moved, &node_id, host, sizeof host, &port), 0);
    assert_int_equal(node_id, fx->b->config.broker_id);
    assert_int_equal(port, fx->b->advertised_port);
    assert_int_equal(wire_commit(fx, &c, moved, 42), 0);
    assert_int_equal(wire_commit(fx, &c, stays, 7), 0);

    gr_partition_t *p = gr_topic_partition(offsets_topic(fx), 1);
    p->leader_id = OTHER_BROKER;
    p->leader_epoch = 1;
    set_other_node(fx);
    gr_coordinator_partition_resigned(co_of(fx), 1, 1);

    /* FindCoordinator v4: one key per coordinator. */
    gr_str_t keys[] = {gr_str(moved), gr_str(stays)};
    gr_find_coordinator_request_t find;
    gr_find_coordinator_request_init(&find);
    find.coordinator_keys = keys;
    find.coordinator_keys_count = 2;
    gr_find_coordinator_response_t found;
    wire_call(fx, &c, GR_API_FIND_COORDINATOR, 4, &find, &found);
    assert_int_equal(found.coordinators_count, 2);
    assert_int_equal(found.coordinators[0].error_code, 0);
    assert_int_equal(found.coordinators[0].node_id, OTHER_BROKER);
    assert_true(gr_str_eq_c(found.coordinators[0].host, "other.example"));
    assert_int_equal(found.coordinators[0].port, OTHER_PORT);
    assert_int_equal(found.coordinators[1].error_code, 0);
    assert_int_equal(found.coordinators[1].node_id, fx->b->config.broker_id);

    int64_t offset;
    assert_int_equal(wire_fetch(fx, &c, moved, &offset), GR_KERR_NOT_COORDINATOR);
    assert_int_equal(wire_fetch(fx, &c, stays, &offset), 0);
    assert_int_equal(offset, 7);
    assert_int_equal(wire_commit(fx, &c, moved, 43), GR_KERR_NOT_COORDINATOR);
    assert_int_equal(wire_join(fx, &c, moved), GR_KERR_NOT_COORDINATOR);
    assert_int_equal(wire_heartbeat(fx, &c, moved), GR_KERR_NOT_COORDINATOR);
    gr_describe_groups_request_t describe;
    gr_describe_groups_request_init(&describe);
    describe.groups = keys;
    describe.groups_count = 2;
    gr_describe_groups_response_t described;
    wire_call(fx, &c, GR_API_DESCRIBE_GROUPS, 5, &describe, &described);
    assert_int_equal(described.groups_count, 2);
    assert_int_equal(described.groups[0].error_code, GR_KERR_NOT_COORDINATOR);
    assert_int_equal(described.groups[1].error_code, 0);
    gr_list_groups_request_t list;
    gr_list_groups_request_init(&list);
    gr_list_groups_response_t listed;
    wire_call(fx, &c, GR_API_LIST_GROUPS, 4, &list, &listed);
    assert_int_equal(listed.error_code, 0);
    assert_int_equal(listed.groups_count, 1);
    assert_true(gr_str_eq_c(listed.groups[0].group_id, stays));

    /* Offline: nobody to name. */
    p->leader_id = GR_NO_BROKER;
    assert_int_equal(wire_find_coordinator(fx, &c, moved, &node_id, host, sizeof host, &port),
                     GR_KERR_COORDINATOR_NOT_AVAILABLE);
    assert_int_equal(wire_fetch(fx, &c, moved, &offset), GR_KERR_NOT_COORDINATOR);

    /* Back here: the commit made before is served again once the partition is replayed. */
    p->leader_id = fx->b->config.broker_id;
    p->leader_epoch = 2;
    gr_coordinator_partition_elected(co_of(fx), 1, 2);
    /* Requests keep the loop busy all along: the replay must progress anyway. */
    int16_t e = GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
    for (int i = 0; i < MAX_RETRIES && e == GR_KERR_COORDINATOR_LOAD_IN_PROGRESS; i++)
        e = wire_fetch(fx, &c, moved, &offset);
    assert_int_equal(e, 0);
    assert_int_equal(offset, 42);
    assert_int_equal(wire_find_coordinator(fx, &c, moved, &node_id, host, sizeof host, &port), 0);
    assert_int_equal(node_id, fx->b->config.broker_id);
    wire_close(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_resign_and_reelect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resign_during_replay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_count_from_topic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_topic_deleted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_requests_routed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
