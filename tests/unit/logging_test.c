/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of the broker's log line format and level threshold. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/logging.h"

static void test_prefix(void **state)
{
    char buf[128];
    (void)state;

    /* 2026-12-02T10:59:14.123Z */
    int n = gr_log_format_prefix(buf, sizeof(buf), 1796209154123LL, GR_LOG_INFO, "net");
    assert_string_equal(buf, "2026-12-02T10:59:14.123Z INFO  [net] ");
    assert_int_equal(n, (int)strlen(buf));
    gr_log_format_prefix(buf, sizeof(buf), 0, GR_LOG_ERROR, "log");
    assert_string_equal(buf, "1970-01-01T00:00:00.000Z ERROR [log] ");
    gr_log_format_prefix(buf, sizeof(buf), 5, GR_LOG_WARN, NULL);
    assert_string_equal(buf, "1970-01-01T00:00:00.005Z WARN  [-] ");
    /* Truncation keeps the result a terminated string. */
    n = gr_log_format_prefix(buf, 10, 0, GR_LOG_INFO, "net");
    assert_int_equal(n, 9);
    assert_int_equal(strlen(buf), 9);
}

static void test_lines_and_threshold(void **state)
{
    gr_logger_t log;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    (void)state;

    gr_logger_init(&log, f, GR_LOG_INFO);
    assert_true(gr_log_enabled(&log, GR_LOG_WARN));
    assert_false(gr_log_enabled(&log, GR_LOG_DEBUG));
    gr_logf(&log, GR_LOG_INFO, "net", "listening on %s:%d", "localhost", 9092);
    gr_logf(&log, GR_LOG_DEBUG, "net", "hidden");
    gr_logf(&log, GR_LOG_ERROR, "log", "with newline\n");
    gr_logf(NULL, GR_LOG_ERROR, "log", "no logger");
    fclose(f);

    char *first = buf, *nl = strchr(first, '\n');
    assert_non_null(nl);
    *nl = '\0';
    assert_int_equal(strlen(first), strlen("2026-12-02T10:59:14.123Z INFO  [net] ") +
                                        strlen("listening on localhost:9092"));
    assert_non_null(strstr(first, "Z INFO  [net] listening on localhost:9092"));
    char *second = nl + 1;
    assert_non_null(strstr(second, "Z ERROR [log] with newline\n"));
    assert_null(strstr(second, "\n\n"));
    assert_null(strstr(second + strlen(second) - 1, "hidden"));
    assert_null(strstr(buf, "hidden"));
    free(buf);

    /* A NULL FILE discards. */
    gr_logger_init(&log, NULL, GR_LOG_TRACE);
    assert_false(gr_log_enabled(&log, GR_LOG_ERROR));
    gr_logf(&log, GR_LOG_ERROR, "x", "dropped");
}

static void test_long_line_cut(void **state)
{
    gr_logger_t log;
    char *buf = NULL, big[20000];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    (void)state;

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    gr_logger_init(&log, f, GR_LOG_INFO);
    gr_logf(&log, GR_LOG_INFO, "t", "%s", big);
    fclose(f);
    assert_true(len < 8192);
    assert_int_equal(buf[len - 1], '\n');
    free(buf);
}

static void test_level_parse(void **state)
{
    gr_log_level_t l;
    (void)state;

    assert_int_equal(gr_log_level_parse("debug", &l), 0);
    assert_int_equal(l, GR_LOG_DEBUG);
    assert_int_equal(gr_log_level_parse("WARNING", &l), 0);
    assert_int_equal(l, GR_LOG_WARN);
    assert_int_equal(gr_log_level_parse("Trace", &l), 0);
    assert_int_equal(l, GR_LOG_TRACE);
    assert_int_equal(gr_log_level_parse("loud", &l), -EINVAL);
    assert_string_equal(gr_log_level_name(GR_LOG_INFO), "INFO");
    assert_string_equal(gr_log_level_name((gr_log_level_t)42), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix),
        cmocka_unit_test(test_lines_and_threshold),
        cmocka_unit_test(test_long_line_cut),
        cmocka_unit_test(test_level_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
