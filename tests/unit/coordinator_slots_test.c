/* SPDX-License-Identifier: Apache-2.0 */
/* The leadership rules both coordinators share for their topic's partitions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "group/coordinator_slots.h"

static void test_elect_and_resign_by_epoch(void **state)
{
    (void)state;
    gr_coordinator_slots_t s;
    gr_coordinator_slots_init(&s, "__consumer_offsets", "group", NULL);
    bool moved = false;
    gr_coordinator_partition_t *p = gr_coordinator_slots_elect(&s, 3, 5, &moved);
    assert_non_null(p);
    assert_true(moved);
    assert_int_equal(s.count, 4); /* grown to hold partition 3 */
    assert_int_equal(gr_coordinator_slots_load(&s, 0), GR_LOAD_NONE);
    p->load = GR_LOAD_LOADING;
    assert_true(gr_coordinator_slots_loading(&s));
    assert_int_equal(gr_coordinator_slots_next_loading(&s), 3);
    assert_int_equal(gr_coordinator_slots_epoch(&s, 3), 5);
    assert_int_equal(gr_coordinator_slots_epoch(&s, 7), GR_COORDINATOR_ANY_EPOCH);

    /* The same epoch again: not a move. An older one: stale. */
    assert_non_null(gr_coordinator_slots_elect(&s, 3, 5, &moved));
    assert_false(moved);
    assert_null(gr_coordinator_slots_elect(&s, 3, 4, &moved));

    gr_partition_load_t was;
    assert_false(gr_coordinator_slots_resign(&s, 3, 4, &was)); /* stale */
    assert_true(gr_coordinator_slots_resign(&s, 3, 5, &was));
    assert_int_equal(was, GR_LOAD_LOADING);
    assert_false(gr_coordinator_slots_loading(&s));
    assert_int_equal(gr_coordinator_slots_next_loading(&s), -1);
    /* Resigned at 5 last: an election at 5 came before it. */
    assert_null(gr_coordinator_slots_elect(&s, 3, 5, &moved));
    assert_non_null(gr_coordinator_slots_elect(&s, 3, 6, &moved));
    /* A resignation without an epoch (StopReplica) always applies. */
    assert_true(gr_coordinator_slots_resign(&s, 3, GR_COORDINATOR_ANY_EPOCH, &was));
    assert_int_equal(s.items[3].epoch, GR_COORDINATOR_ANY_EPOCH);
    assert_false(s.items[3].resigned);
    assert_int_equal(gr_coordinator_slots_load(&s, 99), GR_LOAD_NONE);
    gr_coordinator_slots_fini(&s);
}

static void test_replaced_topic(void **state)
{
    (void)state;
    gr_coordinator_slots_t s;
    gr_coordinator_slots_init(&s, "__transaction_state", "txn", NULL);
    gr_uuid_t first = {{1}}, second = {{2}};
    assert_false(gr_coordinator_slots_replaced(&s, &first)); /* the first seen */
    assert_false(gr_coordinator_slots_replaced(&s, &first));
    assert_true(gr_coordinator_slots_replaced(&s, &second)); /* deleted and created again */
    assert_false(gr_coordinator_slots_replaced(&s, &second));
    gr_coordinator_slots_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elect_and_resign_by_epoch),
        cmocka_unit_test(test_replaced_topic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
