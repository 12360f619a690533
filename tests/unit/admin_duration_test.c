/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admin/duration: --by-duration's ISO-8601 durations read as Java's
 * Duration.parse reads them, and what it refuses refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "admin/admin.h"

static int64_t ms(const char *text)
{
    int64_t out = 0;
    assert_int_equal(gr_admin_duration_parse(text, &out), 0);
    return out;
}

static void test_durations_read(void **state)
{
    (void)state;
    assert_int_equal(ms("P1D"), 86400000);
    assert_int_equal(ms("PT1H30M"), 5400000);
    assert_int_equal(ms("pt0.5s"), 500);
    assert_int_equal(ms("PT0S"), 0);
    assert_int_equal(ms("-PT6H"), -21600000);
    assert_int_equal(ms("P2DT3H4M5.006S"), 2 * 86400000LL + 3 * 3600000 + 4 * 60000 + 5006);
    assert_int_equal(ms("PT-1M"), -60000);
}

static void test_durations_refused(void **state)
{
    (void)state;
    const char *bad[] = {"",       "P",      "PT",   "1H",    "PT1D", "P1H",
                         "PT1M1H", "PT1S1S", "P1DT", "PT1.5", "PTxS"};
    int64_t out = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gr_admin_duration_parse(bad[i], &out), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations_read),
        cmocka_unit_test(test_durations_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
