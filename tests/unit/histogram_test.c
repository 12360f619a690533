/* SPDX-License-Identifier: Apache-2.0 */
/* core/histogram: bucket edges, exposed bounds, quantiles of known distributions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/histogram.h"

#define US 1000ULL
#define MS 1000000ULL
#define S  1000000000ULL

static void test_bounds(void **state)
{
    (void)state;
    assert_int_equal(gr_histogram_bound_ns(0), 10 * US);
    assert_int_equal(gr_histogram_bound_ns(1), 12500);
    assert_int_equal(gr_histogram_bound_ns(10), 100 * US);
    assert_int_equal(gr_histogram_bound_ns(GR_HISTOGRAM_BOUNDS - 1), 100 * S);
    for (int i = 1; i < GR_HISTOGRAM_BOUNDS; i++)
        assert_true(gr_histogram_bound_ns(i) > gr_histogram_bound_ns(i - 1));
}

/* A value on a bound belongs to that bound's bucket (le is inclusive); one more goes on. */
static void test_bucket_edges(void **state)
{
    (void)state;
    assert_int_equal(gr_histogram_bucket(0), 0);
    for (int i = 0; i < GR_HISTOGRAM_BOUNDS; i++) {
        uint64_t bound = gr_histogram_bound_ns(i);
        assert_int_equal(gr_histogram_bucket(bound), i);
        assert_int_equal(gr_histogram_bucket(bound + 1), i + 1);
        if (i > 0)
            assert_int_equal(gr_histogram_bucket(bound - 1), i);
    }
    assert_int_equal(gr_histogram_bucket(UINT64_MAX), GR_HISTOGRAM_BOUNDS);
}

static void test_exposed_bounds(void **state)
{
    (void)state;
    static const uint64_t want[GR_HISTOGRAM_EXPOSED] = {
        10 * US,   25 * US, 50 * US, 100 * US, 250 * US, 500 * US, 1 * MS,   2500 * US,
        5 * MS,    10 * MS, 25 * MS, 50 * MS,  100 * MS, 250 * MS, 500 * MS, 1 * S,
        2500 * MS, 5 * S,   10 * S,  25 * S,   50 * S,   100 * S};
    for (int k = 0; k < GR_HISTOGRAM_EXPOSED; k++)
        assert_int_equal(gr_histogram_bound_ns(gr_histogram_exposed_index(k)), want[k]);
}

static void test_empty(void **state)
{
    (void)state;
    gr_histogram_t h;
    memset(&h, 0, sizeof h);
    assert_true(gr_histogram_quantile(&h, 0.99) == 0);
    gr_histogram_record(&h, 0); /* a remote time of a request that never waited */
    assert_true(gr_histogram_quantile(&h, 0.99) == 0);
}

/* Within 25% (one bucket's width) of the true quantile. */
static void assert_near(double got, double want)
{
    assert_true(got >= want * 0.75 && got <= want * 1.25);
}

/* 1..10000 µs uniformly: the q-quantile is q x 10 ms. */
static void test_uniform(void **state)
{
    (void)state;
    gr_histogram_t h;
    memset(&h, 0, sizeof h);
    for (uint64_t v = 1; v <= 10000; v++)
        gr_histogram_record(&h, v * US);
    assert_int_equal(h.count, 10000);
    assert_int_equal(h.sum_ns, 10000ULL * 10001 / 2 * US);
    assert_near(gr_histogram_quantile(&h, 0.5), 5 * MS);
    assert_near(gr_histogram_quantile(&h, 0.75), 7.5 * MS);
    assert_near(gr_histogram_quantile(&h, 0.99), 9.9 * MS);
    assert_true(gr_histogram_quantile(&h, 1) <= 10 * MS);
    /* Exposed cumulative counts are exact: 1000 values are <= 1 ms. */
    assert_int_equal(gr_histogram_cumulative(&h, gr_histogram_exposed_index(6)), 1000);
}

/* 99 fast requests and one slow: p50 is fast, p999 is in the slow one's bucket. */
static void test_bimodal(void **state)
{
    (void)state;
    gr_histogram_t h;
    memset(&h, 0, sizeof h);
    for (int i = 0; i < 99; i++)
        gr_histogram_record(&h, 200 * US);
    gr_histogram_record(&h, 3 * S);
    double p50 = gr_histogram_quantile(&h, 0.5);
    assert_true(p50 > 150 * US && p50 <= 200 * US);
    double p999 = gr_histogram_quantile(&h, 0.999);
    assert_true(p999 > 2500 * MS && p999 <= 3 * S);
}

/* Above the last bound the quantile reads as 100 s, not more. */
static void test_overflow(void **state)
{
    (void)state;
    gr_histogram_t h;
    memset(&h, 0, sizeof h);
    gr_histogram_record(&h, 500 * S);
    assert_int_equal(h.counts[GR_HISTOGRAM_BOUNDS], 1);
    assert_true(gr_histogram_quantile(&h, 0.5) == (double)(100 * S));
}

/* A window is the running histogram less an earlier snapshot. */
static void test_subtract_window(void **state)
{
    (void)state;
    gr_histogram_t h, snap, window;
    memset(&h, 0, sizeof h);
    for (int i = 0; i < 1000; i++)
        gr_histogram_record(&h, 1 * S);
    snap = h;
    for (int i = 0; i < 10; i++)
        gr_histogram_record(&h, 1 * MS);
    gr_histogram_subtract(&window, &h, &snap);
    assert_int_equal(window.count, 10);
    assert_int_equal(window.sum_ns, 10 * MS);
    assert_near(gr_histogram_quantile(&window, 0.99), 1 * MS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds),         cmocka_unit_test(test_bucket_edges),
        cmocka_unit_test(test_exposed_bounds), cmocka_unit_test(test_empty),
        cmocka_unit_test(test_uniform),        cmocka_unit_test(test_bimodal),
        cmocka_unit_test(test_overflow),       cmocka_unit_test(test_subtract_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
