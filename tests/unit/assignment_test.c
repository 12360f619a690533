/* SPDX-License-Identifier: Apache-2.0 */
/*
 * group/assignment: partition sets stay sorted and distinct whatever the
 * order of adds; removing the last partition of a topic drops the topic;
 * copy, intersect, subtract, merge and overlaps agree with a brute-force
 * model on random sets.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "group/assignment.h"

#define TOPICS        4
#define PARTITIONS    16
#define RANDOM_ROUNDS 200
#define RANDOM_SEED   848

static gr_uuid_t topic(int n)
{
    gr_uuid_t id = {{0}};
    id.b[0] = (uint8_t)(0xf0 - n); /* ids in reverse order of n: adds must sort */
    id.b[15] = (uint8_t)n;
    return id;
}

static void check_sorted(const gr_assignment_t *a)
{
    for (int32_t i = 0; i < a->topic_count; i++) {
        const gr_assignment_topic_t *t = &a->topics[i];
        assert_true(t->partition_count > 0);
        if (i > 0)
            assert_true(memcmp(a->topics[i - 1].topic_id.b, t->topic_id.b, 16) < 0);
        for (int32_t j = 1; j < t->partition_count; j++)
            assert_true(t->partitions[j - 1] < t->partitions[j]);
    }
}

static void test_add_remove_contains(void **state)
{
    (void)state;
    gr_assignment_t a = GR_ASSIGNMENT_INIT;
    assert_true(gr_assignment_is_empty(&a));
    static const int order[] = {5, 1, 9, 1, 3, 5, 0};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        assert_int_equal(gr_assignment_add(&a, topic(1), order[i]), 0);
        assert_int_equal(gr_assignment_add(&a, topic(2), order[i]), 0);
    }
    check_sorted(&a);
    assert_int_equal(a.topic_count, 2);
    assert_int_equal(gr_assignment_size(&a), 10);
    const gr_assignment_topic_t *t = gr_assignment_topic(&a, topic(1));
    assert_non_null(t);
    static const int32_t expected[] = {0, 1, 3, 5, 9};
    assert_int_equal(t->partition_count, 5);
    assert_memory_equal(t->partitions, expected, sizeof expected);
    assert_true(gr_assignment_contains(&a, topic(2), 9));
    assert_false(gr_assignment_contains(&a, topic(2), 2));
    assert_false(gr_assignment_contains(&a, topic(3), 0));
    assert_null(gr_assignment_topic(&a, topic(3)));
    assert_true(gr_assignment_remove(&a, topic(2), 9));
    assert_false(gr_assignment_remove(&a, topic(2), 9));
    assert_false(gr_assignment_remove(&a, topic(3), 1));
    for (size_t i = 0; i < 4; i++)
        assert_true(gr_assignment_remove(&a, topic(2), expected[i]));
    assert_null(gr_assignment_topic(&a, topic(2))); /* no empty topic kept */
    gr_assignment_remove_topic(&a, topic(1));
    assert_true(gr_assignment_is_empty(&a));
    assert_int_equal(gr_assignment_add(&a, topic(3), 7), 0);
    gr_assignment_clear(&a);
    assert_true(gr_assignment_is_empty(&a));
    gr_assignment_free(&a);
    gr_assignment_free(&a); /* reusable and idempotent */
    assert_int_equal(a.topic_count, 0);
}

/* A set as a bitmap over TOPICS x PARTITIONS, the model the operations are checked on. */
typedef struct model {
    bool in[TOPICS][PARTITIONS];
} model_t;

static void random_set(gr_assignment_t *a, model_t *m)
{
    memset(m, 0, sizeof *m);
    gr_assignment_clear(a);
    int adds = rand() % (TOPICS * PARTITIONS / 2);
    for (int i = 0; i < adds; i++) {
        int t = rand() % TOPICS, p = rand() % PARTITIONS;
        m->in[t][p] = true;
        assert_int_equal(gr_assignment_add(a, topic(t), p), 0);
    }
}

static void check_model(const gr_assignment_t *a, const model_t *m)
{
    check_sorted(a);
    int32_t count = 0;
    for (int t = 0; t < TOPICS; t++) {
        for (int p = 0; p < PARTITIONS; p++) {
            assert_int_equal(gr_assignment_contains(a, topic(t), p), m->in[t][p]);
            count += m->in[t][p];
        }
    }
    assert_int_equal(gr_assignment_size(a), count);
}

static void check_ops_once(gr_assignment_t *a, gr_assignment_t *b, gr_assignment_t *dst)
{
    model_t ma, mb, want;
    random_set(a, &ma);
    random_set(b, &mb);
    bool overlap = false;
    for (int t = 0; t < TOPICS; t++) {
        for (int p = 0; p < PARTITIONS; p++) {
            want.in[t][p] = ma.in[t][p] && mb.in[t][p];
            overlap |= want.in[t][p];
        }
    }
    assert_int_equal(gr_assignment_overlaps(a, b), overlap);
    assert_int_equal(gr_assignment_intersect(dst, a, b), 0);
    check_model(dst, &want);
    for (int t = 0; t < TOPICS; t++)
        for (int p = 0; p < PARTITIONS; p++)
            want.in[t][p] = ma.in[t][p] && !mb.in[t][p];
    assert_int_equal(gr_assignment_subtract(dst, a, b), 0);
    check_model(dst, &want);
    assert_int_equal(gr_assignment_copy(dst, a), 0);
    assert_true(gr_assignment_equal(dst, a));
    assert_int_equal(gr_assignment_merge(dst, b), 0);
    for (int t = 0; t < TOPICS; t++)
        for (int p = 0; p < PARTITIONS; p++)
            want.in[t][p] = ma.in[t][p] || mb.in[t][p];
    check_model(dst, &want);
    assert_int_equal(gr_assignment_equal(dst, a), !memcmp(&want, &ma, sizeof want));
}

static void test_set_operations_match_model(void **state)
{
    (void)state;
    gr_assignment_t a = GR_ASSIGNMENT_INIT, b = GR_ASSIGNMENT_INIT, dst = GR_ASSIGNMENT_INIT;
    srand(RANDOM_SEED);
    for (int round = 0; round < RANDOM_ROUNDS; round++)
        check_ops_once(&a, &b, &dst);
    gr_assignment_free(&a);
    gr_assignment_free(&b);
    gr_assignment_free(&dst);
}

static void test_equal_and_empty_operands(void **state)
{
    (void)state;
    gr_assignment_t a = GR_ASSIGNMENT_INIT, empty = GR_ASSIGNMENT_INIT, dst = GR_ASSIGNMENT_INIT;
    assert_int_equal(gr_assignment_add(&a, topic(0), 1), 0);
    assert_true(gr_assignment_equal(&empty, &dst));
    assert_false(gr_assignment_equal(&a, &empty));
    assert_false(gr_assignment_overlaps(&a, &empty));
    assert_int_equal(gr_assignment_subtract(&dst, &a, &empty), 0);
    assert_true(gr_assignment_equal(&dst, &a));
    assert_int_equal(gr_assignment_intersect(&dst, &a, &empty), 0);
    assert_true(gr_assignment_is_empty(&dst));
    assert_int_equal(gr_assignment_merge(&a, &a), 0); /* self-merge is a no-op */
    assert_int_equal(gr_assignment_size(&a), 1);
    gr_assignment_t other = GR_ASSIGNMENT_INIT;
    assert_int_equal(gr_assignment_add(&other, topic(0), 2), 0);
    assert_false(gr_assignment_equal(&a, &other)); /* same topic, other partition */
    gr_assignment_free(&a);
    gr_assignment_free(&other);
    gr_assignment_free(&dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_remove_contains),
        cmocka_unit_test(test_set_operations_match_model),
        cmocka_unit_test(test_equal_and_empty_operands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
