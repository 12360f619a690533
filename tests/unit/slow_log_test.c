/* SPDX-License-Identifier: Apache-2.0 */
/* handlers/slow_log: one line a second at most, the suppressed count, the line's content. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "handlers/slow_log.h"

#define MS 1000000LL

static void test_admit_rate(void **state)
{
    (void)state;
    gr_slow_log_t l = {0};
    uint64_t suppressed = 99;
    int64_t t0 = 5000 * MS;
    assert_true(gr_slow_log_admit(&l, t0, &suppressed));
    assert_int_equal(suppressed, 0);
    /* Within the second: refused and counted. */
    assert_false(gr_slow_log_admit(&l, t0 + 1, &suppressed));
    assert_false(gr_slow_log_admit(&l, t0 + 999 * MS, &suppressed));
    assert_int_equal(l.suppressed, 2);
    /* A second later: admitted, with the two refused ones reported and reset. */
    assert_true(gr_slow_log_admit(&l, t0 + 1000 * MS, &suppressed));
    assert_int_equal(suppressed, 2);
    assert_int_equal(l.suppressed, 0);
    assert_false(gr_slow_log_admit(&l, t0 + 1500 * MS, &suppressed));
}

static void test_format(void **state)
{
    (void)state;
    gr_slow_request_t r = {
        .api = "Produce",
        .version = 9,
        .client_id = "rdkafka-xyz",
        .client_id_len = 7, /* not NUL-terminated at its length */
        .peer = "127.0.0.1:5555",
        .total_ns = 1500 * MS,
        .queue_ns = 2 * MS,
        .local_ns = 1200 * MS,
        .remote_ns = 100 * MS,
        .send_ns = 198 * MS,
    };
    char line[GR_SLOW_LOG_LINE_MAX];
    gr_slow_log_format(line, sizeof line, &r, 1000, 0);
    assert_string_equal(line, "slow request: Produce v9 from 127.0.0.1:5555 client_id=\"rdkafka\" "
                              "took 1500.0 ms (over 1000 ms without waits): queue 2.0, local "
                              "1200.0, remote 100.0, send 198.0 ms");
    gr_slow_log_format(line, sizeof line, &r, 1000, 3);
    assert_non_null(strstr(line, "send 198.0 ms (3 more slow requests not logged)"));
    /* A null client id, and a buffer too small: cut, NUL-terminated. */
    r.client_id = NULL;
    r.client_id_len = -1;
    char small[32];
    size_t n = gr_slow_log_format(small, sizeof small, &r, 1000, 3);
    assert_int_equal(n, strlen(small));
    assert_true(n < sizeof small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admit_rate),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
