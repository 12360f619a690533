/* SPDX-License-Identifier: Apache-2.0 */
/* A transactional id's metadata: state names, the partition set, copies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "txn/txn_meta.h"

static void test_state_names(void **state)
{
    (void)state;
    for (int i = 0; i < GR_TXN_STATE_COUNT; i++) {
        gr_txn_state_t s;
        assert_true(gr_txn_state_parse(gr_str(gr_txn_state_name((gr_txn_state_t)i)), &s));
        assert_int_equal(s, i);
    }
    gr_txn_state_t s;
    assert_false(gr_txn_state_parse(gr_str("ongoing"), &s));
    assert_false(gr_txn_state_parse(gr_str("Ongoin"), &s));
    assert_string_equal(gr_txn_state_name(GR_TXN_PREPARE_EPOCH_FENCE), "PrepareEpochFence");
    assert_true(gr_txn_state_idle(GR_TXN_COMPLETE_ABORT));
    assert_false(gr_txn_state_idle(GR_TXN_ONGOING));
    assert_true(gr_txn_state_preparing(GR_TXN_PREPARE_COMMIT));
    assert_false(gr_txn_state_preparing(GR_TXN_COMPLETE_COMMIT));
}

static void test_partition_set(void **state)
{
    (void)state;
    gr_txn_image_t im, copy;
    gr_txn_image_init(&im);
    gr_txn_image_init(&copy);
    assert_int_equal(gr_txn_image_add(&im, gr_str("b"), 1), 0);
    assert_int_equal(gr_txn_image_add(&im, gr_str("a"), 7), 0);
    assert_int_equal(gr_txn_image_add(&im, gr_str("ab"), 0), 0);
    assert_int_equal(gr_txn_image_add(&im, gr_str("a"), 2), 0);
    assert_int_equal(gr_txn_image_add(&im, gr_str("a"), 7), 0); /* no duplicate */
    assert_int_equal(im.part_count, 4);
    /* Sorted by topic then partition: the log record groups partitions by topic. */
    assert_string_equal(im.parts[0].topic, "a");
    assert_int_equal(im.parts[0].partition, 2);
    assert_int_equal(im.parts[1].partition, 7);
    assert_string_equal(im.parts[2].topic, "ab");
    assert_string_equal(im.parts[3].topic, "b");
    assert_true(gr_txn_image_has(&im, gr_str("ab"), 0));
    assert_false(gr_txn_image_has(&im, gr_str("ab"), 1));
    assert_false(gr_txn_image_has(&im, gr_str("c"), 0));
    im.producer_id = 42;
    assert_int_equal(gr_txn_image_copy(&copy, &im), 0);
    gr_txn_image_clear_parts(&im);
    assert_false(gr_txn_image_has(&im, gr_str("a"), 2));
    assert_true(gr_txn_image_has(&copy, gr_str("a"), 2));
    assert_int_equal(copy.producer_id, 42);
    gr_txn_image_move(&im, &copy);
    assert_int_equal(im.part_count, 4);
    assert_int_equal(copy.part_count, 0);
    gr_txn_image_fini(&im);
    gr_txn_image_fini(&copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_names),
        cmocka_unit_test(test_partition_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
