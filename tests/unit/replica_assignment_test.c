/* SPDX-License-Identifier: Apache-2.0 */
/*
 * controller/replica_assignment: the layouts Kafka's AdminUtilsTest and
 * AdminRackAwareTest expect for fixed seeds; for many seeds and sizes every
 * partition gets factor distinct brokers, leaders spread evenly, and with
 * racks each partition's replicas span min(factor, racks) racks; growing a
 * topic continues its placement; the checks give Kafka's errors.
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

#include "controller/replica_assignment.h"

#define MAX_BROKERS    12
#define MAX_PARTITIONS 64
#define MAX_FACTOR     4
#define MSG_MAX        256

static void fill_brokers(gr_replica_broker_t *brokers, size_t n, const char *const *racks)
{
    for (size_t i = 0; i < n; i++)
        brokers[i] = (gr_replica_broker_t){(int32_t)i, racks ? racks[i] : NULL};
}

/* AdminUtilsTest.testReplicaAssignment: 5 brokers, 10 partitions, factor 3, fixed start 0. */
static void test_kafka_unaware_layout(void **state)
{
    (void)state;
    static const int32_t expected[10][3] = {
        {0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1},
        {0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2},
    };
    gr_replica_broker_t brokers[5];
    fill_brokers(brokers, 5, NULL);
    int32_t out[30];
    gr_replica_seed_t seed = {0, 0, 0};
    assert_int_equal(gr_replica_assign(brokers, 5, 10, 3, &seed, out), 0);
    assert_memory_equal(out, expected, sizeof expected);
}

/* AdminRackAwareTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers. */
static void test_kafka_rack_aware_layout(void **state)
{
    (void)state;
    static const char *const racks[] = {"rack1", "rack3", "rack3", "rack2", "rack2", "rack1"};
    static const int32_t expected[7][3] = {
        {0, 3, 1}, {3, 1, 5}, {1, 5, 4}, {5, 4, 2}, {4, 2, 0}, {2, 0, 3}, {0, 4, 2},
    };
    gr_replica_broker_t brokers[6];
    fill_brokers(brokers, 6, racks);
    int32_t out[21];
    gr_replica_seed_t seed = {0, 0, 0};
    assert_int_equal(gr_replica_assign(brokers, 6, 7, 3, &seed, out), 0);
    assert_memory_equal(out, expected, sizeof expected);
}

static size_t distinct_racks(const char *const *racks, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(racks[j], racks[i]) == 0;
        count += !seen;
    }
    return count;
}

/* Every partition: factor distinct brokers; spanning min(factor, racks) racks when racked. */
static void check_layout(const gr_replica_broker_t *brokers, size_t n, const int32_t *out,
                         int32_t partitions, int32_t factor, size_t racks)
{
    int32_t leaders[MAX_BROKERS] = {0};
    for (int32_t p = 0; p < partitions; p++) {
        const int32_t *replicas = &out[p * factor];
        leaders[replicas[0]]++;
        for (int32_t r = 0; r < factor; r++) {
            assert_true(replicas[r] >= 0 && (size_t)replicas[r] < n);
            for (int32_t s = 0; s < r; s++)
                assert_int_not_equal(replicas[r], replicas[s]);
        }
        if (racks == 0)
            continue;
        size_t spanned = 0;
        for (int32_t r = 0; r < factor; r++) {
            bool seen = false;
            for (int32_t s = 0; s < r; s++)
                seen |= strcmp(brokers[replicas[s]].rack, brokers[replicas[r]].rack) == 0;
            spanned += !seen;
        }
        assert_int_equal(spanned, (size_t)factor < racks ? (size_t)factor : racks);
    }
    /* Leaders go round the brokers: counts differ by at most one. */
    int32_t low = partitions, high = 0;
    for (size_t i = 0; i < n; i++) {
        low = leaders[i] < low ? leaders[i] : low;
        high = leaders[i] > high ? leaders[i] : high;
    }
    assert_true(high - low <= 1);
}

static void sweep(const char *const *racks)
{
    gr_replica_broker_t brokers[MAX_BROKERS];
    int32_t out[MAX_PARTITIONS * MAX_FACTOR];
    for (size_t n = 1; n <= MAX_BROKERS; n++) {
        fill_brokers(brokers, n, racks);
        size_t rack_count = racks ? distinct_racks(racks, n) : 0;
        for (int32_t factor = 1; factor <= MAX_FACTOR && (size_t)factor <= n; factor++) {
            for (int32_t seed_value = 0; seed_value < (int32_t)n; seed_value++) {
                gr_replica_seed_t seed = {seed_value, (int32_t)n - 1 - seed_value, 0};
                int32_t partitions = (int32_t)(n * 3 + 1);
                assert_int_equal(gr_replica_assign(brokers, n, partitions, factor, &seed, out), 0);
                check_layout(brokers, n, out, partitions, factor, rack_count);
            }
        }
    }
}

static void test_unaware_invariants(void **state)
{
    (void)state;
    sweep(NULL);
}

static void test_rack_aware_invariants(void **state)
{
    (void)state;
    /* Uneven racks, named out of order, so interleaving and skipping both matter. */
    static const char *const racks[MAX_BROKERS] = {"c", "a", "b", "a", "c", "a",
                                                   "b", "a", "a", "c", "a", "b"};
    sweep(racks);
}

/* Growing 5 partitions of factor 3 on 5 brokers to 10 continues Kafka's layout. */
static void test_continue_existing(void **state)
{
    (void)state;
    gr_replica_broker_t brokers[5];
    fill_brokers(brokers, 5, NULL);
    int32_t all[30], grown[15];
    gr_replica_seed_t seed = {0, 0, 0};
    assert_int_equal(gr_replica_assign(brokers, 5, 10, 3, &seed, all), 0);
    seed = gr_replica_seed_continue(brokers, 5, all[0], 5);
    assert_int_equal(seed.start_index, 0);
    assert_int_equal(seed.first_partition, 5);
    assert_int_equal(gr_replica_assign(brokers, 5, 5, 3, &seed, grown), 0);
    assert_memory_equal(grown, &all[15], sizeof grown);
    /* A leader id no longer registered: the next higher id, else the first. */
    brokers[2].id = 7;
    assert_int_equal(gr_replica_seed_continue(brokers, 5, 5, 1).start_index, 2);
    assert_int_equal(gr_replica_seed_continue(brokers, 5, 99, 1).start_index, 0);
}

static void test_checks(void **state)
{
    (void)state;
    static const char *const some[] = {"a", NULL, "b"};
    gr_replica_broker_t brokers[3];
    char msg[MSG_MAX];
    fill_brokers(brokers, 3, NULL);
    assert_int_equal(gr_replica_assign_check(brokers, 3, 3, GR_RACK_MODE_ENFORCED, msg, sizeof msg),
                     GR_KERR_NONE);
    assert_int_equal(gr_replica_assign_check(brokers, 3, 4, GR_RACK_MODE_ENFORCED, msg, sizeof msg),
                     GR_KERR_INVALID_REPLICATION_FACTOR);
    assert_string_equal(msg, "Replication factor: 4 larger than available brokers: 3.");
    assert_int_equal(gr_replica_assign_check(brokers, 3, 0, GR_RACK_MODE_SAFE, msg, sizeof msg),
                     GR_KERR_INVALID_REPLICATION_FACTOR);
    fill_brokers(brokers, 3, some);
    assert_int_equal(gr_replica_assign_check(brokers, 3, 2, GR_RACK_MODE_ENFORCED, msg, sizeof msg),
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    assert_int_equal(gr_replica_assign_check(brokers, 3, 2, GR_RACK_MODE_SAFE, msg, sizeof msg),
                     GR_KERR_NONE);
    /* Safe mode places ignoring racks: the rack-unaware layout. */
    int32_t out[6];
    gr_replica_seed_t seed = {0, 0, 0};
    assert_int_equal(gr_replica_assign(brokers, 3, 3, 2, &seed, out), 0);
    static const int32_t expected[6] = {0, 1, 1, 2, 2, 0};
    assert_memory_equal(out, expected, sizeof expected);
    assert_int_equal(gr_replica_assign(brokers, 3, 3, 4, &seed, out), -EINVAL);
    assert_int_equal(gr_replica_assign(brokers, 3, 0, 1, &seed, out), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kafka_unaware_layout), cmocka_unit_test(test_kafka_rack_aware_layout),
        cmocka_unit_test(test_unaware_invariants),   cmocka_unit_test(test_rack_aware_invariants),
        cmocka_unit_test(test_continue_existing),    cmocka_unit_test(test_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
