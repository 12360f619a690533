/* SPDX-License-Identifier: Apache-2.0 */
/* The leader's ISR and high-watermark rules and the follower's truncation decision, on a fake
 * clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "partition/isr.h"

#define LAG_MS 30000

static void test_caught_up_when_reaching_leader_end(void **state)
{
    (void)state;
    gr_follower_t f;
    gr_follower_init(&f, 2, 1000);
    gr_follower_fetched(&f, 50, 100, 2000); /* behind */
    assert_int_equal(f.last_caught_up_ms, 1000);
    gr_follower_fetched(&f, 100, 120, 3000); /* reached the leader end of its previous fetch */
    assert_int_equal(f.last_caught_up_ms, 2000);
    gr_follower_fetched(&f, 120, 120, 4000); /* has it all */
    assert_int_equal(f.last_caught_up_ms, 4000);
    assert_int_equal(f.log_end_offset, 120);
}

static void test_lagging_only_after_lag_time(void **state)
{
    (void)state;
    gr_follower_t f;
    gr_follower_init(&f, 2, 0);
    gr_follower_fetched(&f, 10, 10, 0);
    /* Behind, but caught up recently: in sync. */
    assert_false(gr_follower_lagging(&f, 20, LAG_MS, LAG_MS));
    assert_true(gr_follower_lagging(&f, 20, LAG_MS + 1, LAG_MS));
    /* At the leader's end it is never lagging, however long ago it fetched. */
    assert_false(gr_follower_lagging(&f, 10, 10 * LAG_MS, LAG_MS));
    /* A stopped follower (no fetch) falls out once the lag time passes. */
    gr_follower_t stopped;
    gr_follower_init(&stopped, 3, 5000);
    assert_false(gr_follower_lagging(&stopped, 1, 5000 + LAG_MS, LAG_MS));
    assert_true(gr_follower_lagging(&stopped, 1, 5001 + LAG_MS, LAG_MS));
}

static void test_may_join(void **state)
{
    (void)state;
    gr_follower_t f;
    gr_follower_init(&f, 2, 0);
    assert_false(gr_follower_may_join(&f, 0, 0)); /* never fetched */
    gr_follower_fetched(&f, 40, 60, 1);
    assert_false(gr_follower_may_join(&f, 50, 0));  /* below the high watermark */
    assert_false(gr_follower_may_join(&f, 30, 45)); /* below the epoch's start */
    assert_true(gr_follower_may_join(&f, 40, 40));
}

static void test_high_watermark_is_isr_minimum(void **state)
{
    (void)state;
    gr_follower_t fs[2];
    gr_follower_init(&fs[0], 2, 0);
    gr_follower_init(&fs[1], 3, 0);
    int32_t isr[] = {1, 2, 3};
    /* Unknown follower progress holds the watermark where it is. */
    assert_int_equal(gr_isr_high_watermark(5, 1, 100, isr, 3, fs, 2), 5);
    gr_follower_fetched(&fs[0], 80, 100, 1);
    gr_follower_fetched(&fs[1], 60, 100, 1);
    assert_int_equal(gr_isr_high_watermark(5, 1, 100, isr, 3, fs, 2), 60);
    /* Out of the ISR, a slow follower does not hold it back. */
    int32_t two[] = {1, 2};
    assert_int_equal(gr_isr_high_watermark(5, 1, 100, two, 2, fs, 2), 80);
    /* The leader alone: its log end. */
    int32_t alone[] = {1};
    assert_int_equal(gr_isr_high_watermark(5, 1, 100, alone, 1, fs, 2), 100);
    /* Never backwards. */
    assert_int_equal(gr_isr_high_watermark(90, 1, 100, isr, 3, fs, 2), 90);
    /* A member without an entry (no such follower) holds it too. */
    int32_t stranger[] = {1, 7};
    assert_int_equal(gr_isr_high_watermark(5, 1, 100, stranger, 2, fs, 2), 5);
}

static void test_truncation_same_epoch(void **state)
{
    (void)state;
    /* The leader ends epoch 3 at 120, our log has epoch 3 up to 150: cut at 120. */
    gr_truncation_t t = gr_truncation_decide(3, 120, 3, 150, 150, 100);
    assert_int_equal(t.offset, 120);
    assert_true(t.done);
    /* The leader has more of it than we do: nothing to cut. */
    t = gr_truncation_decide(3, 200, 3, 150, 150, 100);
    assert_int_equal(t.offset, 150);
    assert_true(t.done);
}

static void test_truncation_divergent_epoch(void **state)
{
    (void)state;
    /*
     * We led epoch 4 (an acks=1 tail nobody copied) after epoch 2; the new
     * leader never saw 4 and answers its largest at or below: epoch 2 ending
     * at 90. Our epoch 2 ends at 100 (where our 4 began): cut to 90.
     */
    gr_truncation_t t = gr_truncation_decide(2, 90, 2, 100, 130, 80);
    assert_int_equal(t.offset, 90);
    assert_true(t.done);
    /* The leader answers epoch 3, which we lack (ours: 2 ends at 100): cut there, ask again. */
    t = gr_truncation_decide(3, 110, 2, 100, 130, 80);
    assert_int_equal(t.offset, 100);
    assert_false(t.done);
}

static void test_truncation_unknowns(void **state)
{
    (void)state;
    /* The leader knows no such epoch: back to our high watermark. */
    gr_truncation_t t = gr_truncation_decide(-1, -1, -1, -1, 130, 80);
    assert_int_equal(t.offset, 80);
    assert_true(t.done);
    /* Our log has no epoch that old: the leader's end bounds it. */
    t = gr_truncation_decide(1, 50, -1, -1, 130, 80);
    assert_int_equal(t.offset, 50);
    assert_true(t.done);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caught_up_when_reaching_leader_end),
        cmocka_unit_test(test_lagging_only_after_lag_time),
        cmocka_unit_test(test_may_join),
        cmocka_unit_test(test_high_watermark_is_isr_minimum),
        cmocka_unit_test(test_truncation_same_epoch),
        cmocka_unit_test(test_truncation_divergent_epoch),
        cmocka_unit_test(test_truncation_unknowns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
