/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Subscription regexes (src/group/topic_regex.c): RE2's syntax is accepted,
 * PCRE2-only syntax is refused with a reason, and matching is of the whole
 * topic name, bounded by the match limit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "group/topic_regex.h"

static gr_topic_regex_t *compile_ok(const char *pattern)
{
    char err[GR_TOPIC_REGEX_ERROR_MAX];
    gr_topic_regex_t *re = NULL;
    int rc = gr_topic_regex_compile(pattern, strlen(pattern), &re, err, sizeof err);
    if (rc != 0)
        fail_msg("`%s` refused (%d): %s", pattern, rc, err);
    return re;
}

/* Checks pattern is refused and the reason mentions want. */
static void expect_refused(const char *pattern, const char *want)
{
    char err[GR_TOPIC_REGEX_ERROR_MAX];
    gr_topic_regex_t *re = NULL;
    int rc = gr_topic_regex_compile(pattern, strlen(pattern), &re, err, sizeof err);
    if (rc != -EINVAL)
        fail_msg("`%s` accepted (%d), RE2 refuses it", pattern, rc);
    assert_null(re);
    if (!strstr(err, want))
        fail_msg("`%s`: reason `%s` lacks `%s`", pattern, err, want);
}

static int match(const char *pattern, const char *topic)
{
    gr_topic_regex_t *re = compile_ok(pattern);
    int rc = gr_topic_regex_match(re, topic, strlen(topic));
    gr_topic_regex_free(re);
    return rc;
}

static void test_accepts_re2_syntax(void **state)
{
    (void)state;
    static const char *const valid[] = {
        "",
        "orders",
        "orders-.*",
        "a|b|c",
        "(?:ab)+",
        "(?P<region>eu|us)-events",
        "(?<region>eu|us)-events",
        "(?i)Orders",
        "(?i:a)b",
        "(?s).",
        "(?m)^a$",
        "(?U)a+",
        "(?i-s)a",
        "[a-z0-9._-]+",
        "[^.]+",
        "[]a]",
        "[[:alpha:]]+",
        "[\\d\\w]",
        "\\d+\\.\\w\\s*",
        "a{2}",
        "a{2,}",
        "a{2,5}?",
        "a{1000}",
        "a*?b+?c??",
        "\\Qa.b\\E",
        "\\x41\\x{42}",
        "\\pL\\p{Greek}\\PN",
        "\\bword\\B\\Aa\\z",
        "\\.\\-\\_\\/",
        "x{a}",
        "\\0",
    };
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++)
        gr_topic_regex_free(compile_ok(valid[i]));
}

static void test_refuses_pcre2_only_syntax(void **state)
{
    (void)state;
    /* Backreferences and named references. */
    expect_refused("(a)\\1", "invalid escape sequence: `\\1`");
    expect_refused("(?<n>a)\\k<n>", "invalid escape sequence: `\\k`");
    expect_refused("(a)\\g1", "invalid escape sequence");
    expect_refused("(?P<n>a)(?P=n)", "invalid or unsupported Perl syntax: `(?P=`");
    /* Lookaround and atomic groups. */
    expect_refused("a(?=b)", "invalid or unsupported Perl syntax: `(?=`");
    expect_refused("a(?!b)", "`(?!`");
    expect_refused("(?<=a)b", "`(?<=`");
    expect_refused("(?<!a)b", "`(?<!`");
    expect_refused("(?>a+)b", "`(?>`");
    /* Possessive and doubled quantifiers. */
    expect_refused("a*+", "bad repetition operator: `*+`");
    expect_refused("a++", "bad repetition operator");
    expect_refused("a?+", "bad repetition operator");
    expect_refused("a{2}+", "bad repetition operator");
    expect_refused("a**", "bad repetition operator");
    expect_refused("a{1001}", "bad repetition operator: `{1001}`");
    /* Recursion, subroutines, conditionals, callouts, verbs. */
    expect_refused("(?R)", "`(?R`");
    expect_refused("(a)(?1)", "`(?1`");
    expect_refused("(?<n>a)(?&n)", "`(?&`");
    expect_refused("(?P<n>a)(?P>n)", "`(?P>`");
    expect_refused("(?(1)a|b)", "`(?(`");
    expect_refused("(?C1)a", "`(?C`");
    expect_refused("(*ACCEPT)a", "missing argument to repetition operator");
    /* Other PCRE2-only groups, flags and escapes. */
    expect_refused("(?|a)", "`(?|`");
    expect_refused("(?#note)a", "`(?#`");
    expect_refused("(?x)a b", "`(?x`");
    expect_refused("(?-)a", "invalid or unsupported Perl syntax");
    expect_refused("a\\Cb", "invalid escape sequence: `\\C`");
    expect_refused("a\\Kb", "`\\K`");
    expect_refused("a\\Rb", "`\\R`");
    expect_refused("\\h", "`\\h`");
    expect_refused("a\\Z", "`\\Z`");
    expect_refused("[\\h]", "`\\h`");
    expect_refused("a\\", "trailing backslash");
    /* Refused by both; the reason is PCRE2's. */
    expect_refused("(a", "offset");
    expect_refused("[a", "missing closing ]");
}

static void test_whole_name_match(void **state)
{
    (void)state;
    assert_int_equal(match("orders", "orders"), 1);
    assert_int_equal(match("orders", "orders-eu"), 0);
    assert_int_equal(match("orders", "my-orders"), 0);
    assert_int_equal(match("orders.*", "orders-eu"), 1);
    /* Alternatives are tried until one covers the whole name. */
    assert_int_equal(match("a|ab", "ab"), 1);
    assert_int_equal(match("a|ab", "abc"), 0);
    assert_int_equal(match("(?i)ORDERS-[a-z]+", "orders-eu"), 1);
    assert_int_equal(match("topic-\\d{2}", "topic-07"), 1);
    assert_int_equal(match("topic-\\d{2}", "topic-7"), 0);
    assert_int_equal(match("", ""), 1);
    assert_int_equal(match("", "a"), 0);
    /* A name is bytes, not a C string: the length decides. */
    gr_topic_regex_t *re = compile_ok("ab");
    assert_int_equal(gr_topic_regex_match(re, "abc", 2), 1);
    assert_int_equal(gr_topic_regex_match(re, "abc", 3), 0);
    gr_topic_regex_free(re);
}

static void test_pattern_need_not_be_terminated(void **state)
{
    (void)state;
    /* A heartbeat's regex points into the request: no NUL after it. */
    const char buf[] = "t.*)(?=";
    gr_topic_regex_t *re = NULL;
    assert_int_equal(gr_topic_regex_compile(buf, 3, &re, NULL, 0), 0);
    assert_int_equal(gr_topic_regex_match(re, "topic", 5), 1);
    gr_topic_regex_free(re);
    const char cls[] = "[[:alpha:]]x";
    assert_int_equal(gr_topic_regex_compile(cls, 5, &re, NULL, 0), -EINVAL);
}

static void test_match_is_bounded(void **state)
{
    (void)state;
    /* Catastrophic backtracking: the limit stops it with an error. */
    gr_topic_regex_t *re = compile_ok("(a|a)*(b|c)");
    char name[64];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    assert_int_equal(gr_topic_regex_match(re, name, strlen(name)), -E2BIG);
    gr_topic_regex_free(re);
}

static void test_bad_utf8_name(void **state)
{
    (void)state;
    gr_topic_regex_t *re = compile_ok(".*");
    assert_int_equal(gr_topic_regex_match(re, "a\xff", 2), -EILSEQ);
    gr_topic_regex_free(re);
    gr_topic_regex_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_re2_syntax),
        cmocka_unit_test(test_refuses_pcre2_only_syntax),
        cmocka_unit_test(test_whole_name_match),
        cmocka_unit_test(test_pattern_need_not_be_terminated),
        cmocka_unit_test(test_match_is_bounded),
        cmocka_unit_test(test_bad_utf8_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
