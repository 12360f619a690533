/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sampled rates and throttle times on a fake clock: the span padding of a
 * first burst, samples sliding out, obsolete samples after an idle spell,
 * and Kafka's throttle formula with and without the request-quota cap.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "quota/rate.h"

#define SAMPLES   11
#define WINDOW_MS 1000
#define EPSILON   1e-9

static void test_first_burst_padded(void **state)
{
    (void)state;
    gr_quota_rate_t r;
    assert_int_equal(gr_quota_rate_init(&r, SAMPLES, WINDOW_MS), 0);
    gr_quota_rate_record(&r, 10000, 0);
    int64_t span;
    /* 10,000 bytes at once: measured over (samples - 1) windows, not 0 ms. */
    double rate = gr_quota_rate_measure(&r, 0, &span);
    assert_int_equal(span, (SAMPLES - 1) * WINDOW_MS);
    assert_true(rate > 1000 - EPSILON && rate < 1000 + EPSILON);
    gr_quota_rate_fini(&r);
}

static void test_steady_rate(void **state)
{
    (void)state;
    gr_quota_rate_t r;
    assert_int_equal(gr_quota_rate_init(&r, SAMPLES, WINDOW_MS), 0);
    /* 500 bytes every 100 ms for 30 s: 5,000 bytes/s. */
    for (int64_t t = 0; t <= 30000; t += 100)
        gr_quota_rate_record(&r, 500, t);
    int64_t span;
    double rate = gr_quota_rate_measure(&r, 30000, &span);
    assert_true(span >= (SAMPLES - 1) * WINDOW_MS && span <= SAMPLES * WINDOW_MS);
    assert_true(rate > 4500 && rate < 5500);
    gr_quota_rate_fini(&r);
}

static void test_idle_forgets(void **state)
{
    (void)state;
    gr_quota_rate_t r;
    assert_int_equal(gr_quota_rate_init(&r, SAMPLES, WINDOW_MS), 0);
    gr_quota_rate_record(&r, 1e9, 0);
    /* Older than the whole span: counts for nothing. */
    double rate = gr_quota_rate_measure(&r, SAMPLES * WINDOW_MS, NULL);
    assert_true(rate < EPSILON);
    gr_quota_rate_record(&r, 100, 100000);
    rate = gr_quota_rate_measure(&r, 100000, NULL);
    assert_true(rate < 100);
    gr_quota_rate_fini(&r);
}

static void test_throttle_formula(void **state)
{
    (void)state;
    /* Twice the bound over 10 s: wait 10 s for the rate to halve. */
    assert_int_equal(gr_quota_throttle_ms(2000, 1000, 10000, 0), 10000);
    assert_int_equal(gr_quota_throttle_ms(1500, 1000, 10000, 0), 5000);
    assert_int_equal(gr_quota_throttle_ms(1000, 1000, 10000, 0), 0);
    assert_int_equal(gr_quota_throttle_ms(10, 1000, 10000, 0), 0);
    /* Request quotas are capped at one window. */
    assert_int_equal(gr_quota_throttle_ms(2000, 1000, 10000, WINDOW_MS), WINDOW_MS);
}

static void test_bad_sizes(void **state)
{
    (void)state;
    gr_quota_rate_t r;
    assert_int_equal(gr_quota_rate_init(&r, 0, WINDOW_MS), -EINVAL);
    assert_int_equal(gr_quota_rate_init(&r, SAMPLES, 0), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_burst_padded), cmocka_unit_test(test_steady_rate),
        cmocka_unit_test(test_idle_forgets),       cmocka_unit_test(test_throttle_formula),
        cmocka_unit_test(test_bad_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
