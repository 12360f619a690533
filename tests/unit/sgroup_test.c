/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KIP-932 share groups (src/group/sgroup*.c). First on a fake env (a
 * hand-advanced clock, timers fired by it, a topic table the test edits):
 * the request checks, joining, several members sharing one partition,
 * balance over more partitions, leaving, session timeouts, the group's
 * size limit, member epochs, and the assignor as a pure function. Then on
 * a real single-node broker: the group written to __consumer_offsets as
 * ShareGroup* records and replayed after a restart, and deleted for good.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "broker_fixture.h"
#include "fake_group_env.h"
#include "loop_wait.h"
#include "topic_wait.h"

#include "broker/broker.h"
#include "group/coordinator.h"
#include "group/group_listing.h"
#include "group/sgroup.h"

#define SESSION_MS   45000
#define HEARTBEAT_MS 5000
#define MAX_SIZE     4

typedef struct fake {
    fake_group_clock_t clock; /* first: the env's opaque is the clock too */
    fake_group_topics_t topics;
    gr_group_env_t env;
    gr_group_t *g;
    int stores;
} fake_t;

static bool fake_topic_find(void *o, gr_str_t name, gr_cgroup_topic_info_t *out)
{
    return fake_group_topic_find(&((fake_t *)o)->topics, name, out);
}

static gr_kerr_t fake_store(void *o, gr_group_t *g, int64_t *written_end)
{
    fake_t *f = o;
    *written_end = 100 + ++f->stores;
    gr_sgroup_stored(g->share);
    return GR_KERR_NONE;
}

static void fake_init(fake_t *f)
{
    memset(f, 0, sizeof(*f));
    f->clock.now = 1000000;
    f->env = (gr_group_env_t){.opaque = f,
                              .now_ms = fake_group_now,
                              .timer_arm = fake_group_arm,
                              .timer_cancel = fake_group_cancel,
                              .topic_find = fake_topic_find,
                              .share_limits = {.heartbeat_interval_ms = HEARTBEAT_MS,
                                               .session_timeout_ms = SESSION_MS,
                                               .max_size = MAX_SIZE},
                              .store_share = fake_store};
    fake_group_add_topic(&f->topics, "one", 1, 1);
    fake_group_add_topic(&f->topics, "four", 2, 4);
    f->g = gr_group_new("g", 1, 0, f->clock.now);
    assert_non_null(f->g);
    assert_int_equal(gr_group_become_share(f->g, &f->env), GR_KERR_NONE);
}

static void fake_fini(fake_t *f)
{
    gr_group_free(f->g, &f->env);
    assert_int_equal(f->clock.timer_count, 0); /* every timer cancelled */
}

typedef struct reply {
    gr_kerr_t error;
    const char *message;
    int32_t epoch;
    bool has_assignment;
    int32_t partitions; /* in the assignment, when it has one */
} reply_t;

/* A heartbeat: topic NULL sends no subscription (unchanged). */
static reply_t beat(fake_t *f, const char *id, int32_t epoch, const char *topic)
{
    gr_str_t t = topic ? gr_str(topic) : (gr_str_t){NULL, GR_NULL_LEN};
    gr_sgroup_heartbeat_args_t a = {.member_id = gr_str(id),
                                    .member_epoch = epoch,
                                    .rack_id = {NULL, GR_NULL_LEN},
                                    .subscribed_topics = &t,
                                    .subscribed_count = topic ? 1 : -1,
                                    .client_id = gr_str("client"),
                                    .client_host = gr_str("/127.0.0.1")};
    reply_t r = {0};
    r.error = gr_sgroup_heartbeat_validate(&a, &r.message);
    if (r.error)
        return r;
    gr_sgroup_heartbeat_result_t out;
    gr_sgroup_heartbeat(f->g, &f->env, &a, &out);
    r.error = out.error;
    r.message = out.error_message;
    r.epoch = out.member_epoch;
    if (out.assignment) {
        r.has_assignment = true;
        r.partitions = gr_assignment_size(out.assignment);
    }
    if (!out.error && epoch >= 0) {
        assert_string_equal(out.member_id, id);
        assert_int_equal(out.heartbeat_interval_ms, HEARTBEAT_MS);
    }
    return r;
}

static gr_smember_t *member(fake_t *f, const char *id)
{
    gr_smember_t *m = gr_sgroup_find_member(f->g->share, gr_str(id));
    assert_non_null(m);
    return m;
}

/* --- the request's checks ----------------------------------------------------------- */

static void test_validate(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r = beat(&f, "", 0, "one");
    assert_int_equal(r.error, GR_KERR_INVALID_REQUEST); /* v1: the client names itself */
    assert_string_equal(r.message, "MemberId can't be empty.");
    r = beat(&f, "m1", 0, NULL);
    assert_int_equal(r.error, GR_KERR_INVALID_REQUEST);
    assert_string_equal(r.message, "SubscribedTopicNames must be set in first request.");
    r = beat(&f, "m1", -2, NULL);
    assert_int_equal(r.error, GR_KERR_INVALID_REQUEST);
    assert_string_equal(r.message, "MemberEpoch is invalid.");
    assert_int_equal(f.g->share->member_count, 0);
    fake_fini(&f);
}

/* --- joining and sharing ------------------------------------------------------------ */

static void test_join_gets_every_partition(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    reply_t r = beat(&f, "m1", 0, "four");
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(r.epoch, 1);
    assert_true(r.has_assignment);
    assert_int_equal(r.partitions, 4);
    assert_int_equal(f.g->share->group_epoch, 1);
    assert_int_equal(f.g->share->assignment_epoch, 1);
    assert_string_equal(gr_group_listed_state(f.g), "Stable");
    assert_string_equal(gr_group_type_name(f.g), "share");
    assert_string_equal(gr_group_listed_protocol_type(f.g), "share");
    assert_int_equal(f.stores, 1); /* written before it is answered */
    /* A heartbeat that changes nothing gives no assignment and writes nothing. */
    r = beat(&f, "m1", 1, NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_false(r.has_assignment);
    assert_int_equal(f.stores, 1);
    fake_fini(&f);
}

/* N members on a one-partition topic: all N get the partition, at once. */
static void test_members_share_one_partition(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    const char *ids[] = {"m1", "m2", "m3"};
    for (int i = 0; i < 3; i++) {
        reply_t r = beat(&f, ids[i], 0, "one");
        assert_int_equal(r.error, GR_KERR_NONE);
        assert_int_equal(r.epoch, i + 1);
        assert_int_equal(r.partitions, 1);
    }
    /* The earlier members take the new epoch, keeping their partition. */
    reply_t r = beat(&f, "m1", 1, NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(r.epoch, 3);
    assert_false(r.has_assignment); /* the same partition: nothing to send */
    for (int i = 0; i < 3; i++)
        assert_true(gr_assignment_contains(&member(&f, ids[i])->target, fake_group_topic_id(1), 0));
    fake_fini(&f);
}

/* More partitions than members: each partition to one member, counts balanced. */
static void test_partitions_spread(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    assert_int_equal(beat(&f, "m1", 0, "four").partitions, 4);
    reply_t r = beat(&f, "m2", 0, "four");
    assert_int_equal(r.partitions, 2);
    /* m1 gives two up at once: no revocation step in a share group. */
    r = beat(&f, "m1", 1, NULL);
    assert_int_equal(r.epoch, 2);
    assert_true(r.has_assignment);
    assert_int_equal(r.partitions, 2);
    assert_false(gr_assignment_overlaps(&member(&f, "m1")->assigned, &member(&f, "m2")->assigned));
    fake_fini(&f);
}

/* --- leaving, timeouts, limits, epochs ---------------------------------------------- */

static void test_leave(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    beat(&f, "m1", 0, "four");
    beat(&f, "m2", 0, "four");
    assert_int_equal(beat(&f, "m1", 1, NULL).partitions, 2);
    reply_t r = beat(&f, "m2", -1, NULL);
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(r.epoch, -1);
    assert_int_equal(f.g->share->member_count, 1);
    assert_int_equal(f.g->share->group_epoch, 3);
    assert_int_equal(f.g->share->removed_count, 0); /* its tombstones were written */
    r = beat(&f, "m1", 2, NULL);
    assert_int_equal(r.epoch, 3);
    assert_int_equal(r.partitions, 4); /* everything back to the one left */
    assert_int_equal(beat(&f, "m2", -1, NULL).error, GR_KERR_UNKNOWN_MEMBER_ID);
    assert_int_equal(beat(&f, "m1", -1, NULL).error, GR_KERR_NONE);
    assert_string_equal(gr_group_listed_state(f.g), "Empty");
    fake_fini(&f);
}

static void test_session_timeout(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    beat(&f, "m1", 0, "one");
    beat(&f, "m2", 0, "one");
    fake_group_advance(&f.clock, &f.env, SESSION_MS - 1000);
    beat(&f, "m2", 2, NULL); /* m2 heartbeats, m1 stays silent */
    int stores = f.stores;
    fake_group_advance(&f.clock, &f.env, 2000);
    assert_null(gr_sgroup_find_member(f.g->share, gr_str("m1")));
    assert_non_null(gr_sgroup_find_member(f.g->share, gr_str("m2")));
    assert_int_equal(f.g->share->group_epoch, 3);
    assert_int_equal(f.stores, stores + 1); /* the fencing is written */
    assert_int_equal(beat(&f, "m1", 1, NULL).error, GR_KERR_UNKNOWN_MEMBER_ID);
    fake_fini(&f);
}

static void test_max_size(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    char id[8];
    for (int i = 0; i < MAX_SIZE; i++) {
        snprintf(id, sizeof id, "m%d", i);
        assert_int_equal(beat(&f, id, 0, "one").error, GR_KERR_NONE);
    }
    reply_t r = beat(&f, "late", 0, "one");
    assert_int_equal(r.error, GR_KERR_GROUP_MAX_SIZE_REACHED);
    assert_int_equal(f.g->share->member_count, MAX_SIZE);
    /* A member already in keeps heartbeating, and may rejoin. */
    assert_int_equal(beat(&f, "m0", 0, "one").error, GR_KERR_NONE);
    fake_fini(&f);
}

static void test_epochs(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    beat(&f, "m1", 0, "one");
    beat(&f, "m2", 0, "one");
    assert_int_equal(beat(&f, "m1", 1, NULL).epoch, 2); /* previous epoch 1 */
    /* The response carrying epoch 2 was lost: the previous epoch is accepted. */
    assert_int_equal(beat(&f, "m1", 1, NULL).error, GR_KERR_NONE);
    assert_int_equal(beat(&f, "m1", 5, NULL).error, GR_KERR_FENCED_MEMBER_EPOCH);
    beat(&f, "m3", 0, "one");
    assert_int_equal(beat(&f, "m1", 2, NULL).epoch, 3);
    assert_int_equal(beat(&f, "m1", 1, NULL).error, GR_KERR_FENCED_MEMBER_EPOCH);
    assert_int_equal(beat(&f, "nobody", 1, NULL).error, GR_KERR_UNKNOWN_MEMBER_ID);
    /* A fenced member comes back with 0 and its own id, and gets its assignment again. */
    reply_t r = beat(&f, "m1", 0, "one");
    assert_int_equal(r.error, GR_KERR_NONE);
    assert_int_equal(r.epoch, 3);
    assert_true(r.has_assignment);
    /* A new subscription bumps the group epoch. */
    r = beat(&f, "m1", 3, "four");
    assert_int_equal(r.epoch, 4);
    assert_int_equal(r.partitions, 4);
    fake_fini(&f);
}

/* A topic growing counts like a new subscription. */
static void test_topic_grows(void **state)
{
    (void)state;
    fake_t f;
    fake_init(&f);
    beat(&f, "m1", 0, "one");
    f.topics.topics[0].partitions = 3;
    reply_t r = beat(&f, "m1", 1, NULL);
    assert_int_equal(r.epoch, 2);
    assert_int_equal(r.partitions, 3);
    fake_fini(&f);
}

/* --- the assignor ------------------------------------------------------------------- */

static void assign(int32_t members, int32_t partitions, gr_assignment_t *out)
{
    static const int32_t topic0[] = {0};
    const int32_t *subs[8];
    int32_t counts[8];
    const gr_assignment_t *current[8] = {0};
    for (int32_t i = 0; i < members; i++) {
        subs[i] = topic0;
        counts[i] = 1;
        gr_assignment_init(&out[i]);
    }
    gr_uuid_t id = fake_group_topic_id(7);
    gr_sgroup_assign_input_t in = {members, subs, counts, current, 1, &id, &partitions};
    assert_int_equal(gr_sgroup_assign(&in, out), 0);
}

static void test_assignor_balance(void **state)
{
    (void)state;
    gr_assignment_t out[8];
    /* 5 members on 2 partitions: each partition shared by 3 (6 slots), every member gets some. */
    assign(5, 2, out);
    int holders[2] = {0, 0};
    for (int i = 0; i < 5; i++) {
        int32_t n = gr_assignment_size(&out[i]);
        assert_true(n == 1 || n == 2);
        for (int32_t p = 0; p < 2; p++)
            holders[p] += gr_assignment_contains(&out[i], fake_group_topic_id(7), p);
        gr_assignment_free(&out[i]);
    }
    assert_int_equal(holders[0], 3);
    assert_int_equal(holders[1], 3);
    /* 3 members on 7 partitions: 3, 2, 2 and every partition once. */
    assign(3, 7, out);
    int total = 0;
    for (int i = 0; i < 3; i++) {
        int32_t n = gr_assignment_size(&out[i]);
        assert_true(n == 2 || n == 3);
        total += n;
    }
    assert_int_equal(total, 7);
    for (int i = 0; i < 3; i++)
        gr_assignment_free(&out[i]);
}

/* --- records, on a real broker -------------------------------------------------------- */

typedef gr_test_broker_t fixture_t;

static int setup(void **state)
{
    return gr_test_broker_new(state, "sgroup");
}

static int teardown(void **state)
{
    return gr_test_broker_free(state);
}

static void start(fixture_t *fx)
{
    const char *overrides[] = {"offsets.topic.replication.factor=1",
                               "offsets.topic.num.partitions=2"};
    assert_int_equal(gr_test_broker_start(fx, overrides, 2), 0);
}

static bool loaded(void *arg)
{
    gr_broker_t *b = arg;
    return gr_coordinator_ensure_topic(b->groups) == GR_KERR_NONE &&
           gr_test_hosted_topic(b, GR_OFFSETS_TOPIC) && !gr_coordinator_loading(b->groups);
}

static gr_group_t *share_group(fixture_t *fx)
{
    int32_t partition;
    gr_coordinator_t *co = fx->b->groups;
    assert_int_equal(gr_coordinator_check(co, gr_str("q"), &partition), GR_KERR_NONE);
    gr_group_t *g = gr_coordinator_get_or_create(co, gr_str("q"), partition);
    assert_non_null(g);
    assert_int_equal(gr_group_become_share(g, &co->env), GR_KERR_NONE);
    return g;
}

/* A heartbeat through the coordinator's env; returns where its write ended (0: none). */
static int64_t broker_beat(fixture_t *fx, gr_group_t *g, const char *id, int32_t epoch)
{
    gr_str_t t = gr_str("queue");
    gr_sgroup_heartbeat_args_t a = {.member_id = gr_str(id),
                                    .member_epoch = epoch,
                                    .rack_id = gr_str("rack-a"),
                                    .subscribed_topics = &t,
                                    .subscribed_count = epoch == 0 ? 1 : -1,
                                    .client_id = gr_str("c"),
                                    .client_host = gr_str("/127.0.0.1")};
    gr_sgroup_heartbeat_result_t out;
    gr_sgroup_heartbeat(g, &fx->b->groups->env, &a, &out);
    assert_int_equal(out.error, GR_KERR_NONE);
    return out.written_end;
}

static void test_records_replayed(void **state)
{
    fixture_t *fx = *state;
    start(fx);
    gr_test_create_topic(fx->loop, fx->b, "queue", 1, NULL, 0);
    gr_test_wait(fx->loop, loaded, fx->b, "__consumer_offsets");
    gr_group_t *g = share_group(fx);
    assert_true(broker_beat(fx, g, "m1", 0) > 0); /* answered once written */
    broker_beat(fx, g, "m2", 0);
    broker_beat(fx, g, "m3", 0);
    broker_beat(fx, g, "m1", 1);
    assert_int_equal(broker_beat(fx, g, "m3", 0), 0); /* a rejoin that changes nothing */
    broker_beat(fx, g, "m2", -1);                     /* its tombstones go to the log */

    gr_test_broker_stop(fx);
    start(fx);
    gr_test_wait(fx->loop, loaded, fx->b, "the replay");
    g = gr_coordinator_find(fx->b->groups, gr_str("q"));
    assert_non_null(g);
    assert_int_equal(g->type, GR_GROUP_TYPE_SHARE);
    gr_sgroup_t *sg = g->share;
    assert_int_equal(sg->member_count, 2);
    assert_int_equal(sg->group_epoch, 4);
    assert_int_equal(sg->assignment_epoch, 3);
    assert_null(gr_sgroup_find_member(sg, gr_str("m2")));
    gr_smember_t *m1 = gr_sgroup_find_member(sg, gr_str("m1"));
    assert_non_null(m1);
    assert_int_equal(m1->member_epoch, 3);
    assert_int_equal(m1->previous_epoch, 1);
    assert_string_equal(m1->rack_id, "rack-a");
    assert_string_equal(m1->client_id, "c");
    assert_int_equal(m1->subscribed_count, 1);
    assert_string_equal(m1->subscribed_topics[0], "queue");
    assert_int_equal(gr_assignment_size(&m1->assigned), 1);
    assert_int_equal(gr_assignment_size(&m1->target), 1);
    assert_int_equal(gr_assignment_size(&sg->initialized), 1);
    assert_true(m1->session_timer.armed); /* the sessions start again */
    assert_string_equal(gr_group_listed_state(g), "Stable");
    /* The members carry on at their epochs. */
    broker_beat(fx, g, "m1", 3);

    /* Deleted (once Empty): gone after the next restart too. */
    broker_beat(fx, g, "m1", -1);
    broker_beat(fx, g, "m3", -1);
    assert_int_equal(gr_coordinator_delete_group(fx->b->groups, g), GR_KERR_NONE);
    gr_test_broker_stop(fx);
    start(fx);
    gr_test_wait(fx->loop, loaded, fx->b, "the replay");
    assert_null(gr_coordinator_find(fx->b->groups, gr_str("q")));
    gr_test_broker_stop(fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_join_gets_every_partition),
        cmocka_unit_test(test_members_share_one_partition),
        cmocka_unit_test(test_partitions_spread),
        cmocka_unit_test(test_leave),
        cmocka_unit_test(test_session_timeout),
        cmocka_unit_test(test_max_size),
        cmocka_unit_test(test_epochs),
        cmocka_unit_test(test_topic_grows),
        cmocka_unit_test(test_assignor_balance),
        cmocka_unit_test_setup_teardown(test_records_replayed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
