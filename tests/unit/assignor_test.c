/* SPDX-License-Identifier: Apache-2.0 */
/*
 * group/assignor: KIP-848's uniform and range assignors. Fixed cases give
 * the layouts Kafka's assignors give (even and uneven splits, range's
 * co-partitioning and static member order); stickiness is counted in
 * partitions moved (a joining member takes the fewest a balanced result
 * allows, a leaving member's partitions are the only ones to move, added
 * partitions move nothing); racks place partitions locally when balance
 * allows and give way when it does not; random groups over several rounds
 * of churn keep every partition assigned exactly once to a subscriber,
 * within the balance bound, identically on every run.
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

#include "group/assignor.h"

#define MAX_MEMBERS    48
#define MAX_TOPICS     6
#define MAX_PARTITIONS 64
#define MAX_REPLICAS   3
#define ID_LEN         16
#define RANDOM_GROUPS  150
#define RANDOM_ROUNDS  6
#define RANDOM_SEED    848

typedef struct fixture {
    int32_t member_count, topic_count;
    gr_assignor_member_t members[MAX_MEMBERS];
    char ids[MAX_MEMBERS][ID_LEN];
    char instances[MAX_MEMBERS][ID_LEN];
    gr_uuid_t subs[MAX_MEMBERS][MAX_TOPICS];
    gr_assignment_t current[MAX_MEMBERS];
    gr_assignment_t out[MAX_MEMBERS];
    gr_assignor_topic_t topics[MAX_TOPICS];
    const char *replica_racks[MAX_TOPICS][MAX_PARTITIONS][MAX_REPLICAS];
    const char *const *rack_rows[MAX_TOPICS][MAX_PARTITIONS];
    int32_t rack_counts[MAX_TOPICS][MAX_PARTITIONS];
} fixture_t;

static gr_uuid_t topic_id(int32_t t)
{
    gr_uuid_t id = {{0}};
    id.b[0] = (uint8_t)(0x10 * (t + 1));
    id.b[15] = (uint8_t)t;
    return id;
}

static fixture_t *fx_new(void)
{
    fixture_t *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    return fx;
}

static void fx_free(fixture_t *fx)
{
    for (int32_t m = 0; m < MAX_MEMBERS; m++) {
        gr_assignment_free(&fx->current[m]);
        gr_assignment_free(&fx->out[m]);
    }
    free(fx);
}

static int32_t fx_topic(fixture_t *fx, int32_t partitions)
{
    int32_t t = fx->topic_count++;
    fx->topics[t] = (gr_assignor_topic_t){topic_id(t), "t", partitions, NULL, NULL};
    return t;
}

/* Replica racks of partition p of t: racks[0..count). */
static void fx_racks(fixture_t *fx, int32_t t, int32_t p, const char *const *racks, int32_t count)
{
    for (int32_t i = 0; i < count; i++)
        fx->replica_racks[t][p][i] = racks[i];
    fx->rack_rows[t][p] = fx->replica_racks[t][p];
    fx->rack_counts[t][p] = count;
    fx->topics[t].partition_racks = fx->rack_rows[t];
    fx->topics[t].partition_rack_count = fx->rack_counts[t];
}

/* Adds a member named name (callers add in name order), subscribed to nothing yet. */
static int32_t fx_member(fixture_t *fx, const char *name, const char *rack)
{
    int32_t m = fx->member_count++;
    snprintf(fx->ids[m], ID_LEN, "%s", name);
    fx->members[m] = (gr_assignor_member_t){.member_id = fx->ids[m], .rack = rack};
    gr_assignment_clear(&fx->current[m]);
    return m;
}

/* Adds a member whose name sorts before every other: it goes first. */
static int32_t fx_member_first(fixture_t *fx, const char *name)
{
    gr_assignment_t spare = fx->current[fx->member_count];
    for (int32_t i = fx->member_count; i > 0; i--) {
        fx->members[i] = fx->members[i - 1];
        memcpy(fx->ids[i], fx->ids[i - 1], ID_LEN);
        memcpy(fx->subs[i], fx->subs[i - 1], sizeof fx->subs[i]);
        fx->current[i] = fx->current[i - 1];
    }
    fx->current[0] = spare;
    fx->member_count++;
    snprintf(fx->ids[0], ID_LEN, "%s", name);
    fx->members[0] = (gr_assignor_member_t){.member_id = fx->ids[0]};
    gr_assignment_clear(&fx->current[0]);
    return 0;
}

static void fx_subscribe(fixture_t *fx, int32_t m, int32_t t)
{
    fx->subs[m][fx->members[m].topic_count++] = topic_id(t);
}

static void fx_subscribe_all(fixture_t *fx, int32_t m)
{
    for (int32_t t = 0; t < fx->topic_count; t++)
        fx_subscribe(fx, m, t);
}

/* Drops member m, as if it left the group. */
static void fx_leave(fixture_t *fx, int32_t m)
{
    gr_assignment_t gone = fx->current[m];
    for (int32_t i = m; i + 1 < fx->member_count; i++) {
        fx->members[i] = fx->members[i + 1];
        memcpy(fx->ids[i], fx->ids[i + 1], ID_LEN);
        memcpy(fx->instances[i], fx->instances[i + 1], ID_LEN);
        memcpy(fx->subs[i], fx->subs[i + 1], sizeof fx->subs[i]);
        fx->current[i] = fx->current[i + 1];
    }
    fx->member_count--;
    fx->current[fx->member_count] = gone;
    gr_assignment_clear(&fx->current[fx->member_count]);
}

static bool subscribes(const fixture_t *fx, int32_t m, int32_t t)
{
    for (int32_t i = 0; i < fx->members[m].topic_count; i++)
        if (memcmp(fx->subs[m][i].b, fx->topics[t].id.b, 16) == 0)
            return true;
    return false;
}

/* Every partition of a subscribed topic exactly once, to a subscriber; nothing else. */
static void check_valid(const fixture_t *fx)
{
    int32_t assigned = 0, expected = 0;
    for (int32_t t = 0; t < fx->topic_count; t++) {
        int32_t subscribers = 0;
        for (int32_t m = 0; m < fx->member_count; m++)
            subscribers += subscribes(fx, m, t);
        for (int32_t p = 0; p < fx->topics[t].partition_count; p++) {
            int32_t owners = 0;
            for (int32_t m = 0; m < fx->member_count; m++) {
                if (gr_assignment_contains(&fx->out[m], fx->topics[t].id, p)) {
                    owners++;
                    assert_true(subscribes(fx, m, t));
                }
            }
            assert_int_equal(owners, subscribers > 0 ? 1 : 0);
            expected += owners;
        }
    }
    for (int32_t m = 0; m < fx->member_count; m++)
        assigned += gr_assignment_size(&fx->out[m]);
    assert_int_equal(assigned, expected); /* nothing outside the topics */
}

static void fx_run(fixture_t *fx, const gr_assignor_t *assignor)
{
    for (int32_t m = 0; m < fx->member_count; m++) {
        fx->members[m].member_id = fx->ids[m];
        fx->members[m].topics = fx->subs[m];
        fx->members[m].current = &fx->current[m];
        gr_assignment_clear(&fx->out[m]);
    }
    gr_assignor_input_t in = {fx->members, fx->member_count, fx->topics, fx->topic_count};
    assert_int_equal(assignor->assign(&in, fx->out), 0);
    check_valid(fx);
}

/* The result becomes the members' current assignment. */
static void fx_settle(fixture_t *fx)
{
    for (int32_t m = 0; m < fx->member_count; m++)
        assert_int_equal(gr_assignment_copy(&fx->current[m], &fx->out[m]), 0);
}

/* Partitions taken from a member that held them. */
static int32_t moved(const fixture_t *fx)
{
    int32_t n = 0;
    gr_assignment_t lost = GR_ASSIGNMENT_INIT;
    for (int32_t m = 0; m < fx->member_count; m++) {
        assert_int_equal(gr_assignment_subtract(&lost, &fx->current[m], &fx->out[m]), 0);
        n += gr_assignment_size(&lost);
    }
    gr_assignment_free(&lost);
    return n;
}

static int32_t spread(const fixture_t *fx)
{
    int32_t lo = INT32_MAX, hi = 0;
    for (int32_t m = 0; m < fx->member_count; m++) {
        int32_t n = gr_assignment_size(&fx->out[m]);
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    return hi - lo;
}

static void assert_partitions(const fixture_t *fx, int32_t m, int32_t t, const int32_t *want,
                              int32_t count)
{
    const gr_assignment_topic_t *got = gr_assignment_topic(&fx->out[m], fx->topics[t].id);
    if (count == 0) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_int_equal(got->partition_count, count);
    assert_memory_equal(got->partitions, want, (size_t)count * sizeof *want);
}

/* The fewest moves a balanced result allows when everyone subscribes to everything. */
static int32_t fewest_moves(const fixture_t *fx)
{
    int32_t total = 0;
    for (int32_t t = 0; t < fx->topic_count; t++)
        total += subscribes(fx, 0, t) ? fx->topics[t].partition_count : 0;
    int32_t min_quota = total / fx->member_count, extra = total % fx->member_count;
    int32_t over = 0, excess = 0;
    for (int32_t m = 0; m < fx->member_count; m++) {
        int32_t held = gr_assignment_size(&fx->current[m]);
        if (held > min_quota) {
            over++;
            excess += held - min_quota;
        }
    }
    return excess - (over < extra ? over : extra);
}

static void test_find(void **state)
{
    (void)state;
    assert_ptr_equal(gr_assignor_find(gr_str("uniform")), &gr_assignor_uniform);
    assert_ptr_equal(gr_assignor_find(gr_str("range")), &gr_assignor_range);
    assert_null(gr_assignor_find(gr_str("sticky")));
    assert_null(gr_assignor_find(gr_str(NULL)));
    assert_string_equal(gr_assignor_uniform.name, GR_ASSIGNOR_UNIFORM);
    assert_string_equal(gr_assignor_range.name, GR_ASSIGNOR_RANGE);
}

static void test_empty_group(void **state)
{
    (void)state;
    const gr_assignor_t *assignors[] = {&gr_assignor_uniform, &gr_assignor_range};
    for (int i = 0; i < 2; i++) {
        fixture_t *fx = fx_new();
        fx_topic(fx, 4);
        fx_run(fx, assignors[i]); /* no member */
        fx_member(fx, "m0", NULL);
        fx_member(fx, "m1", NULL);
        fx_run(fx, assignors[i]); /* members subscribed to nothing */
        assert_true(gr_assignment_is_empty(&fx->out[0]));
        assert_true(gr_assignment_is_empty(&fx->out[1]));
        fx_topic(fx, 0);
        fx_subscribe(fx, 0, 1); /* a topic with no partition */
        fx_run(fx, assignors[i]);
        assert_true(gr_assignment_is_empty(&fx->out[0]));
        fx_free(fx);
    }
}

static void test_one_member_gets_everything(void **state)
{
    (void)state;
    const gr_assignor_t *assignors[] = {&gr_assignor_uniform, &gr_assignor_range};
    static const int32_t all[] = {0, 1, 2, 3, 4};
    for (int i = 0; i < 2; i++) {
        fixture_t *fx = fx_new();
        fx_topic(fx, 5);
        fx_topic(fx, 3);
        fx_subscribe_all(fx, fx_member(fx, "m0", NULL));
        fx_run(fx, assignors[i]);
        assert_partitions(fx, 0, 0, all, 5);
        assert_partitions(fx, 0, 1, all, 3);
        fx_free(fx);
    }
}

/* Kafka's layout from scratch: members in order take runs of the partitions in topic order. */
static void test_uniform_even_and_uneven_splits(void **state)
{
    (void)state;
    fixture_t *fx = fx_new();
    fx_topic(fx, 6);
    fx_topic(fx, 6);
    for (int m = 0; m < 3; m++)
        fx_subscribe_all(fx, fx_member(fx, (const char *[]){"m0", "m1", "m2"}[m], NULL));
    fx_run(fx, &gr_assignor_uniform);
    assert_int_equal(spread(fx), 0);
    assert_int_equal(gr_assignment_size(&fx->out[0]), 4);
    fx_free(fx);

    fx = fx_new();
    fx_topic(fx, 10);
    for (int m = 0; m < 3; m++)
        fx_subscribe_all(fx, fx_member(fx, (const char *[]){"m0", "m1", "m2"}[m], NULL));
    fx_run(fx, &gr_assignor_uniform);
    assert_partitions(fx, 0, 0, (const int32_t[]){0, 1, 2, 3}, 4);
    assert_partitions(fx, 1, 0, (const int32_t[]){4, 5, 6}, 3);
    assert_partitions(fx, 2, 0, (const int32_t[]){7, 8, 9}, 3);
    fx_free(fx);
}

/* m0 {A}, m1 {A, B}, m2 {B}: A first (id order), shared round robin; then B to the least loaded. */
static void test_uniform_heterogeneous_subscriptions(void **state)
{
    (void)state;
    fixture_t *fx = fx_new();
    int32_t a = fx_topic(fx, 4), b = fx_topic(fx, 4);
    fx_subscribe(fx, fx_member(fx, "m0", NULL), a);
    int32_t m1 = fx_member(fx, "m1", NULL);
    fx_subscribe(fx, m1, a);
    fx_subscribe(fx, m1, b);
    fx_subscribe(fx, fx_member(fx, "m2", NULL), b);
    fx_run(fx, &gr_assignor_uniform);
    assert_partitions(fx, 0, a, (const int32_t[]){0, 2}, 2);
    assert_partitions(fx, 1, a, (const int32_t[]){1, 3}, 2);
    assert_partitions(fx, 1, b, (const int32_t[]){3}, 1);
    assert_partitions(fx, 2, b, (const int32_t[]){0, 1, 2}, 3);

    /* m2 now joins A too and holds all of it: balance moves half of A, nothing else. */
    fx_settle(fx);
    gr_assignment_clear(&fx->current[0]);
    gr_assignment_clear(&fx->current[1]);
    for (int32_t p = 0; p < 4; p++)
        assert_int_equal(gr_assignment_add(&fx->current[2], fx->topics[a].id, p), 0);
    fx_subscribe(fx, 2, a);
    fx_run(fx, &gr_assignor_uniform);
    assert_true(spread(fx) <= 1);
    assert_int_equal(gr_assignment_size(&fx->out[0]) + gr_assignment_size(&fx->out[1]) +
                         gr_assignment_size(&fx->out[2]),
                     8);
    fx_free(fx);
}

static fixture_t *uniform_group(int32_t members, const int32_t *partitions, int32_t topics)
{
    fixture_t *fx = fx_new();
    char name[ID_LEN];
    for (int32_t t = 0; t < topics; t++)
        fx_topic(fx, partitions[t]);
    for (int32_t m = 0; m < members; m++) {
        snprintf(name, sizeof name, "m%02d", m);
        fx_subscribe_all(fx, fx_member(fx, name, NULL));
    }
    return fx;
}

/*
 * 10 partitions over 3 (4, 3, 3), then a fourth member sorting first: 2
 * moves. Kafka hands the two extra slots to the first two members in order
 * (the joiner and the one holding 4), so the one holding 3 loses one to
 * make room: 3 moves.
 */
static void test_uniform_member_joins_moves_fewest(void **state)
{
    (void)state;
    fixture_t *fx = uniform_group(3, (const int32_t[]){7, 3}, 2);
    fx_run(fx, &gr_assignor_uniform);
    fx_settle(fx);
    fx_subscribe_all(fx, fx_member_first(fx, "a00"));
    fx_run(fx, &gr_assignor_uniform);
    assert_int_equal(fewest_moves(fx), 2);
    assert_int_equal(moved(fx), 2);
    assert_int_equal(spread(fx), 1);
    assert_int_equal(gr_assignment_size(&fx->out[0]), 2);
    fx_free(fx);
    /* Several joins in a row, uneven sizes. */
    fx = uniform_group(5, (const int32_t[]){11, 12, 0}, 3);
    fx_run(fx, &gr_assignor_uniform);
    for (int i = 0; i < 4; i++) {
        fx_settle(fx);
        char name[ID_LEN];
        snprintf(name, sizeof name, "n%02d", i);
        fx_subscribe_all(fx, fx_member(fx, name, NULL));
        fx_run(fx, &gr_assignor_uniform);
        assert_int_equal(moved(fx), fewest_moves(fx));
        assert_true(spread(fx) <= 1);
    }
    fx_free(fx);
}

/* Only the leaver's partitions move; everyone else keeps all of theirs. */
static void test_uniform_member_leaves_only_its_partitions_move(void **state)
{
    (void)state;
    fixture_t *fx = uniform_group(4, (const int32_t[]){10}, 1);
    fx_run(fx, &gr_assignor_uniform);
    fx_settle(fx);
    fx_leave(fx, 1);
    fx_run(fx, &gr_assignor_uniform);
    assert_int_equal(moved(fx), 0);
    assert_int_equal(spread(fx), 1);
    fx_free(fx);
}

static void test_uniform_partitions_added_move_nothing(void **state)
{
    (void)state;
    fixture_t *fx = uniform_group(3, (const int32_t[]){6}, 1);
    fx_run(fx, &gr_assignor_uniform);
    fx_settle(fx);
    fx->topics[0].partition_count = 9;
    fx_run(fx, &gr_assignor_uniform);
    assert_int_equal(moved(fx), 0);
    assert_int_equal(spread(fx), 0);
    fx_free(fx);
}

/* Everyone drops B: B goes; of A only what balance needs moves. */
static void test_topic_removed_from_subscription(void **state)
{
    (void)state;
    fixture_t *fx = uniform_group(3, (const int32_t[]){6, 6}, 2);
    fx_run(fx, &gr_assignor_uniform);
    fx_settle(fx);
    for (int32_t m = 0; m < 3; m++) {
        fx->members[m].topic_count = 1;
        gr_assignment_remove_topic(&fx->current[m], fx->topics[1].id); /* for the counts below */
    }
    int32_t fewest = fewest_moves(fx);
    fx_run(fx, &gr_assignor_uniform);
    assert_int_equal(moved(fx), fewest);
    assert_int_equal(spread(fx), 0);
    for (int32_t m = 0; m < 3; m++)
        assert_null(gr_assignment_topic(&fx->out[m], fx->topics[1].id));
    fx_free(fx);

    /* One member of a heterogeneous group drops a topic: only it loses that topic. */
    fx = uniform_group(3, (const int32_t[]){6, 6}, 2);
    fx_run(fx, &gr_assignor_uniform);
    fx_settle(fx);
    fx->members[2].topic_count = 1;
    fx_run(fx, &gr_assignor_uniform);
    assert_null(gr_assignment_topic(&fx->out[2], fx->topics[1].id));
    fx_free(fx);
}

/* Equal partition counts, same subscribers: the same numbers on both topics, in Kafka's ranges. */
static void test_range_co_partitioning(void **state)
{
    (void)state;
    fixture_t *fx = uniform_group(3, (const int32_t[]){7, 7, 5}, 3);
    fx_run(fx, &gr_assignor_range);
    static const int32_t first[] = {0, 1, 2}, second[] = {3, 4}, third[] = {5, 6};
    for (int32_t t = 0; t < 2; t++) {
        assert_partitions(fx, 0, t, first, 3);
        assert_partitions(fx, 1, t, second, 2);
        assert_partitions(fx, 2, t, third, 2);
    }
    assert_partitions(fx, 0, 2, (const int32_t[]){0, 1}, 2);
    /* A joiner, then a new co-partitioned topic: the layouts stay equal. */
    for (int round = 0; round < 2; round++) {
        fx_settle(fx);
        if (round == 0) {
            fx_subscribe_all(fx, fx_member(fx, "m03", NULL));
        } else {
            int32_t t = fx_topic(fx, 7);
            for (int32_t m = 0; m < fx->member_count; m++)
                fx_subscribe(fx, m, t);
        }
        fx_run(fx, &gr_assignor_range);
        for (int32_t m = 0; m < fx->member_count; m++) {
            const gr_assignment_topic_t *a = gr_assignment_topic(&fx->out[m], fx->topics[0].id);
            for (int32_t t = 1; t < fx->topic_count; t++) {
                if (fx->topics[t].partition_count != 7)
                    continue;
                const gr_assignment_topic_t *b = gr_assignment_topic(&fx->out[m], fx->topics[t].id);
                assert_int_equal(a->partition_count, b->partition_count);
                assert_memory_equal(a->partitions, b->partitions,
                                    (size_t)a->partition_count * sizeof *a->partitions);
            }
        }
    }
    fx_free(fx);
}

/* Two members with 3 each, a third joins: each keeps its lowest two, 2 moves. */
static void test_range_sticky_on_join(void **state)
{
    (void)state;
    fixture_t *fx = uniform_group(2, (const int32_t[]){6}, 1);
    fx_run(fx, &gr_assignor_range);
    fx_settle(fx);
    fx_subscribe_all(fx, fx_member(fx, "m02", NULL));
    fx_run(fx, &gr_assignor_range);
    assert_partitions(fx, 0, 0, (const int32_t[]){0, 1}, 2);
    assert_partitions(fx, 1, 0, (const int32_t[]){3, 4}, 2);
    assert_partitions(fx, 2, 0, (const int32_t[]){2, 5}, 2);
    assert_int_equal(moved(fx), 2);
    fx_free(fx);
}

/* Static members first, by instance id, then the others by member id. */
static void test_range_static_members_first(void **state)
{
    (void)state;
    fixture_t *fx = uniform_group(3, (const int32_t[]){3}, 1);
    fx->members[1].instance_id = "i2";
    fx->members[2].instance_id = "i1";
    fx_run(fx, &gr_assignor_range);
    assert_partitions(fx, 2, 0, (const int32_t[]){0}, 1);
    assert_partitions(fx, 1, 0, (const int32_t[]){1}, 1);
    assert_partitions(fx, 0, 0, (const int32_t[]){2}, 1);
    fx_free(fx);
}

static const char *const RACK_A[] = {"a"}, *const RACK_B[] = {"b"};
static const char *const RACKS_AB[] = {"a", "b"};

/* Partitions of t: the first half on rack a only, the second on rack b only. */
static void halves(fixture_t *fx, int32_t t, bool swapped)
{
    int32_t n = fx->topics[t].partition_count;
    for (int32_t p = 0; p < n; p++)
        fx_racks(fx, t, p, (p < n / 2) != swapped ? RACK_A : RACK_B, 1);
}

static fixture_t *rack_group(const char *rack0, const char *rack1, int32_t partitions)
{
    fixture_t *fx = fx_new();
    fx_topic(fx, partitions);
    fx_subscribe_all(fx, fx_member(fx, "m0", rack0));
    fx_subscribe_all(fx, fx_member(fx, "m1", rack1));
    return fx;
}

/* m0 in b, m1 in a: rack-blind m0 would take 0 and 1; local placement swaps them. */
static void test_rack_uniform_prefers_local(void **state)
{
    (void)state;
    fixture_t *fx = rack_group("b", "a", 4);
    halves(fx, 0, false);
    fx_run(fx, &gr_assignor_uniform);
    assert_partitions(fx, 0, 0, (const int32_t[]){2, 3}, 2);
    assert_partitions(fx, 1, 0, (const int32_t[]){0, 1}, 2);
    /* Stickiness over racks: held partitions stay, local or not. */
    gr_assignment_clear(&fx->current[0]);
    assert_int_equal(gr_assignment_add(&fx->current[0], fx->topics[0].id, 0), 0);
    fx_run(fx, &gr_assignor_uniform);
    assert_true(gr_assignment_contains(&fx->out[0], fx->topics[0].id, 0));
    assert_int_equal(spread(fx), 0);
    fx_free(fx);

    /* Every partition on every member rack: racks change nothing. */
    fx = rack_group("b", "a", 4);
    for (int32_t p = 0; p < 4; p++)
        fx_racks(fx, 0, p, RACKS_AB, 2);
    fx_run(fx, &gr_assignor_uniform);
    assert_partitions(fx, 0, 0, (const int32_t[]){0, 1}, 2);
    fx_free(fx);
}

/* All three partitions on rack a; balance still gives the rack-b member its one. */
static void test_rack_fallback_when_balance_needs_it(void **state)
{
    (void)state;
    const gr_assignor_t *assignors[] = {&gr_assignor_uniform, &gr_assignor_range};
    for (int i = 0; i < 2; i++) {
        fixture_t *fx = rack_group("b", "a", 3);
        for (int32_t p = 0; p < 3; p++)
            fx_racks(fx, 0, p, RACK_A, 1);
        fx_run(fx, assignors[i]);
        assert_int_equal(gr_assignment_size(&fx->out[0]), 2); /* the first member's extra */
        assert_int_equal(gr_assignment_size(&fx->out[1]), 1);
        fx_free(fx);
        /* A member with no rack takes what no rack claims. */
        fx = rack_group(NULL, "a", 4);
        halves(fx, 0, true);
        fx_run(fx, assignors[i]);
        assert_partitions(fx, 1, 0, (const int32_t[]){2, 3}, 2);
        assert_partitions(fx, 0, 0, (const int32_t[]){0, 1}, 2);
        fx_free(fx);
    }
}

static void test_rack_range_prefers_local_but_keeps_co_partitioning(void **state)
{
    (void)state;
    fixture_t *fx = rack_group("b", "a", 4);
    halves(fx, 0, false);
    fx_run(fx, &gr_assignor_range);
    assert_partitions(fx, 0, 0, (const int32_t[]){2, 3}, 2);
    assert_partitions(fx, 1, 0, (const int32_t[]){0, 1}, 2);
    fx_free(fx);
    /* B's racks are the other way round: no partition number is local to both. */
    fx = rack_group("b", "a", 4);
    fx_topic(fx, 4);
    fx_subscribe(fx, 0, 1);
    fx_subscribe(fx, 1, 1);
    halves(fx, 0, false);
    halves(fx, 1, true);
    fx_run(fx, &gr_assignor_range);
    for (int32_t t = 0; t < 2; t++) {
        assert_partitions(fx, 0, t, (const int32_t[]){0, 1}, 2);
        assert_partitions(fx, 1, t, (const int32_t[]){2, 3}, 2);
    }
    fx_free(fx);
}

/* Different subscriptions (m2 only on B): A's partitions still go to their rack. */
static void test_rack_heterogeneous(void **state)
{
    (void)state;
    fixture_t *fx = rack_group("b", "a", 4);
    int32_t b = fx_topic(fx, 2);
    fx_subscribe(fx, fx_member(fx, "m2", NULL), b);
    halves(fx, 0, false);
    fx_run(fx, &gr_assignor_uniform);
    assert_partitions(fx, 0, 0, (const int32_t[]){2, 3}, 2);
    assert_partitions(fx, 1, 0, (const int32_t[]){0, 1}, 2);
    fx_free(fx);
}

static const char *const RANDOM_RACKS[] = {"r0", "r1", "r2"};
#define RANDOM_RACK_COUNT 3

/* A random group: members subscribe to random topics (or all), random racks. */
static fixture_t *random_group(bool homogeneous)
{
    fixture_t *fx = fx_new();
    int32_t topics = 1 + rand() % MAX_TOPICS, members = 1 + rand() % (MAX_MEMBERS / 2);
    for (int32_t t = 0; t < topics; t++) {
        int32_t n = rand() % (MAX_PARTITIONS / 2);
        fx_topic(fx, n);
        for (int32_t p = 0; rand() % 2 && p < n; p++) {
            int32_t first = rand() % RANDOM_RACK_COUNT, count = 1 + rand() % 2;
            fx_racks(fx, t, p, RANDOM_RACKS + first, first + count > 3 ? 1 : count);
        }
    }
    for (int32_t m = 0; m < members; m++) {
        char name[ID_LEN];
        snprintf(name, sizeof name, "m%03d", m);
        fx_member(fx, name, rand() % 3 ? RANDOM_RACKS[rand() % RANDOM_RACK_COUNT] : NULL);
        for (int32_t t = 0; t < topics; t++) {
            if (homogeneous || rand() % 2)
                fx_subscribe(fx, m, t);
        }
    }
    return fx;
}

/* One random change: a member leaves or joins, a topic grows, or a subscription changes. */
static void random_churn(fixture_t *fx, bool homogeneous, int32_t *next_name)
{
    int32_t kind = rand() % 4;
    if (kind == 0 && fx->member_count > 1) {
        fx_leave(fx, rand() % fx->member_count);
    } else if (kind == 1 && fx->member_count < MAX_MEMBERS) {
        /* Joiners sort last or first (names descending from a999), both in id order. */
        char name[ID_LEN];
        bool first = rand() % 2;
        snprintf(name, sizeof name, "%c%03d", first ? 'a' : 'n',
                 first ? 999 - *next_name : *next_name);
        (*next_name)++;
        int32_t m = first ? fx_member_first(fx, name) : fx_member(fx, name, NULL);
        fx->members[m].rack = RANDOM_RACKS[rand() % RANDOM_RACK_COUNT];
        for (int32_t t = 0; t < fx->topic_count; t++) {
            if (homogeneous || rand() % 2)
                fx_subscribe(fx, m, t);
        }
    } else if (kind == 2) {
        int32_t t = rand() % fx->topic_count;
        if (fx->topics[t].partition_count < MAX_PARTITIONS)
            fx->topics[t].partition_count++;
    } else if (!homogeneous) {
        int32_t m = rand() % fx->member_count;
        fx->members[m].topic_count = 0;
        for (int32_t t = 0; t < fx->topic_count; t++) {
            if (rand() % 2)
                fx_subscribe(fx, m, t);
        }
    }
}

/* Per topic: its subscribers' counts of it differ by at most one (range's bound). */
static void check_range_balance(const fixture_t *fx)
{
    for (int32_t t = 0; t < fx->topic_count; t++) {
        int32_t lo = INT32_MAX, hi = 0;
        for (int32_t m = 0; m < fx->member_count; m++) {
            if (!subscribes(fx, m, t))
                continue;
            const gr_assignment_topic_t *got = gr_assignment_topic(&fx->out[m], fx->topics[t].id);
            int32_t n = got ? got->partition_count : 0;
            lo = n < lo ? n : lo;
            hi = n > hi ? n : hi;
        }
        assert_true(lo == INT32_MAX || hi <= lo + 1);
    }
}

/* Uniform, different subscriptions: no partition could go from a member to one two lighter. */
static void check_uniform_heterogeneous_balance(const fixture_t *fx)
{
    for (int32_t t = 0; t < fx->topic_count; t++) {
        for (int32_t from = 0; from < fx->member_count; from++) {
            if (!gr_assignment_topic(&fx->out[from], fx->topics[t].id))
                continue;
            for (int32_t to = 0; to < fx->member_count; to++) {
                if (subscribes(fx, to, t))
                    assert_true(gr_assignment_size(&fx->out[from]) <=
                                gr_assignment_size(&fx->out[to]) + 1);
            }
        }
    }
}

static void check_random(fixture_t *fx, const gr_assignor_t *assignor, bool homogeneous)
{
    int32_t fewest = fewest_moves(fx);
    fx_run(fx, assignor);
    if (assignor == &gr_assignor_range) {
        check_range_balance(fx);
    } else if (homogeneous) {
        assert_true(spread(fx) <= 1);
        assert_int_equal(moved(fx), fewest);
    } else {
        check_uniform_heterogeneous_balance(fx);
    }
}

static void test_random_groups_keep_invariants(void **state)
{
    (void)state;
    const gr_assignor_t *assignors[] = {&gr_assignor_uniform, &gr_assignor_range};
    srand(RANDOM_SEED);
    for (int32_t group = 0; group < RANDOM_GROUPS; group++) {
        bool homogeneous = group % 2 == 0;
        const gr_assignor_t *assignor = assignors[(group / 2) % 2];
        fixture_t *fx = random_group(homogeneous);
        int32_t next_name = 0;
        for (int32_t round = 0; round < RANDOM_ROUNDS; round++) {
            check_random(fx, assignor, homogeneous);
            fx_settle(fx);
            random_churn(fx, homogeneous, &next_name);
        }
        fx_free(fx);
    }
}

/* Same input, same output; the order of a member's subscriptions does not matter. */
static void test_deterministic(void **state)
{
    (void)state;
    const gr_assignor_t *assignors[] = {&gr_assignor_uniform, &gr_assignor_range};
    for (int i = 0; i < 2; i++) {
        for (int homogeneous = 0; homogeneous < 2; homogeneous++) {
            srand(RANDOM_SEED + i);
            fixture_t *fx = random_group(homogeneous);
            fx_run(fx, assignors[i]);
            fx_settle(fx);
            fx_run(fx, assignors[i]); /* from a non-empty current, too */
            gr_assignment_t first[MAX_MEMBERS];
            for (int32_t m = 0; m < fx->member_count; m++) {
                gr_assignment_init(&first[m]);
                assert_int_equal(gr_assignment_copy(&first[m], &fx->out[m]), 0);
                int32_t n = fx->members[m].topic_count;
                for (int32_t k = 0; k < n / 2; k++) {
                    gr_uuid_t swap = fx->subs[m][k];
                    fx->subs[m][k] = fx->subs[m][n - 1 - k];
                    fx->subs[m][n - 1 - k] = swap;
                }
            }
            fx_run(fx, assignors[i]);
            for (int32_t m = 0; m < fx->member_count; m++) {
                assert_true(gr_assignment_equal(&first[m], &fx->out[m]));
                gr_assignment_free(&first[m]);
            }
            fx_free(fx);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_empty_group),
        cmocka_unit_test(test_one_member_gets_everything),
        cmocka_unit_test(test_uniform_even_and_uneven_splits),
        cmocka_unit_test(test_uniform_heterogeneous_subscriptions),
        cmocka_unit_test(test_uniform_member_joins_moves_fewest),
        cmocka_unit_test(test_uniform_member_leaves_only_its_partitions_move),
        cmocka_unit_test(test_uniform_partitions_added_move_nothing),
        cmocka_unit_test(test_topic_removed_from_subscription),
        cmocka_unit_test(test_range_co_partitioning),
        cmocka_unit_test(test_range_sticky_on_join),
        cmocka_unit_test(test_range_static_members_first),
        cmocka_unit_test(test_rack_uniform_prefers_local),
        cmocka_unit_test(test_rack_fallback_when_balance_needs_it),
        cmocka_unit_test(test_rack_range_prefers_local_but_keeps_co_partitioning),
        cmocka_unit_test(test_rack_heterogeneous),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_random_groups_keep_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
