/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of the JSON log line: string escaping (quotes, control bytes, invalid UTF-8) and cutting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/logging.h"

static const char *escaped(const char *in, size_t len)
{
    static char out[256];
    gr_log_json_escape(out, sizeof out, in, len, NULL);
    return out;
}

#define ESC(s) escaped((s), sizeof(s) - 1)

static void test_escape_specials(void **state)
{
    (void)state;
    assert_string_equal(ESC("plain text"), "plain text");
    assert_string_equal(ESC("say \"hi\""), "say \\\"hi\\\"");
    assert_string_equal(ESC("a\\b"), "a\\\\b");
    assert_string_equal(ESC("l1\nl2\r\t\b\f"), "l1\\nl2\\r\\t\\b\\f");
    assert_string_equal(ESC("\x01\x1f\x7f"), "\\u0001\\u001f\\u007f");
    assert_string_equal(ESC("nul\0in"), "nul\\u0000in");
    assert_string_equal(ESC("/"), "/");
}

static void test_escape_utf8(void **state)
{
    (void)state;
    /* Valid sequences of 2, 3 and 4 bytes pass as they are. */
    assert_string_equal(ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
                        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    /* A lone continuation byte, a bad lead byte, a cut sequence. */
    assert_string_equal(ESC("a\x80z"), "a\\ufffdz");
    assert_string_equal(ESC("\xff\xfe"), "\\ufffd\\ufffd");
    assert_string_equal(ESC("\xe2\x82"), "\\ufffd\\ufffd");
    /* Overlong '/' (C0 AF, E0 80 AF), a surrogate (ED A0 80), above U+10FFFF (F4 90 80 80). */
    assert_string_equal(ESC("\xc0\xaf"), "\\ufffd\\ufffd");
    assert_string_equal(ESC("\xe0\x80\xaf"), "\\ufffd\\ufffd\\ufffd");
    assert_string_equal(ESC("\xed\xa0\x80"), "\\ufffd\\ufffd\\ufffd");
    assert_string_equal(ESC("\xf4\x90\x80\x80"), "\\ufffd\\ufffd\\ufffd\\ufffd");
}

static void test_escape_never_half(void **state)
{
    char out[8];
    size_t used;
    (void)state;
    /* "ab" fits, the 2-byte escape of '"' then needs 2 more, 1 byte of room is left for NUL. */
    size_t n = gr_log_json_escape(out, 4, "ab\"c", 4, &used);
    assert_int_equal(n, 2);
    assert_int_equal(used, 2);
    assert_string_equal(out, "ab");
    n = gr_log_json_escape(out, sizeof out, "\x01\x02", 2, &used);
    assert_int_equal(n, 6);
    assert_int_equal(used, 1);
    assert_string_equal(out, "\\u0001");
}

static void test_line_fields(void **state)
{
    char buf[512];
    (void)state;
    size_t n = gr_log_json_line(buf, sizeof buf, 1796209154123LL, GR_LOG_WARN, "net", 3,
                                "bad \"client\"", 12);
    assert_int_equal(n, strlen(buf));
    assert_string_equal(buf,
                        "{\"time\":\"2026-12-02T10:59:14.123Z\",\"level\":\"WARN\","
                        "\"logger\":\"net\",\"broker\":3,\"message\":\"bad \\\"client\\\"\"}\n");
    gr_log_json_line(buf, sizeof buf, 0, GR_LOG_INFO, "log", -1, "x", 1);
    assert_string_equal(buf, "{\"time\":\"1970-01-01T00:00:00.000Z\",\"level\":\"INFO\","
                             "\"logger\":\"log\",\"message\":\"x\"}\n");
}

static void test_line_cut_stays_json(void **state)
{
    char buf[256], msg[1000];
    (void)state;
    memset(msg, '"', sizeof msg);
    size_t n = gr_log_json_line(buf, sizeof buf, 0, GR_LOG_INFO, "net", 1, msg, sizeof msg);
    assert_true(n < sizeof buf);
    assert_int_equal(n, strlen(buf));
    assert_string_equal(buf + n - 3, "\"}\n");
    /* Every quote inside the message is escaped whole: an even run of backslash-quote pairs. */
    const char *m = strstr(buf, "\"message\":\"") + strlen("\"message\":\"");
    for (const char *p = m; p < buf + n - 3; p += 2)
        assert_memory_equal(p, "\\\"", 2);
}

static void test_logger_writes_json(void **state)
{
    gr_logger_t log;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    (void)state;
    gr_logger_init(&log, f, GR_LOG_INFO);
    gr_logger_set_format(&log, GR_LOG_FORMAT_JSON);
    gr_logf(&log, GR_LOG_INFO, "net", "client %s said \"%s\"\n", "c\x01", "hi");
    gr_logger_set_broker_id(&log, 7);
    gr_logf(&log, GR_LOG_ERROR, "log", "second");
    fclose(f);
    char *nl = strchr(buf, '\n');
    assert_non_null(nl);
    *nl = '\0';
    assert_non_null(strstr(buf, "\"logger\":\"net\",\"message\":\"client c\\u0001 said "
                                "\\\"hi\\\"\"}"));
    assert_null(strstr(buf, "\"broker\""));
    assert_non_null(strstr(nl + 1, "\"level\":\"ERROR\",\"logger\":\"log\",\"broker\":7,"));
    assert_string_equal(nl + 1 + strlen(nl + 1) - 2, "}\n");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_specials),     cmocka_unit_test(test_escape_utf8),
        cmocka_unit_test(test_escape_never_half),   cmocka_unit_test(test_line_fields),
        cmocka_unit_test(test_line_cut_stays_json), cmocka_unit_test(test_logger_writes_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
