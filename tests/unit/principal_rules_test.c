/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ssl.principal.mapping.rules (security/principal_rules.h): Kafka's rule
 * syntax parsed and applied to RFC 2253 subjects; bad rules rejected with a
 * message; no matching rule is -ENOENT.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "security/principal_rules.h"

#define DN "CN=alice,OU=eng,O=acme"

/* Applies text to dn; returns apply's result, the name in out. */
static int map(const char *text, const char *dn, char *out, size_t size)
{
    char err[256] = "";
    gr_principal_rules_t *rules = NULL;
    int rc = gr_principal_rules_parse(text, &rules, err, sizeof err);
    assert_int_equal(rc, 0);
    rc = gr_principal_rules_apply(rules, dn, out, size);
    gr_principal_rules_free(rules);
    return rc;
}

static void test_default(void **state)
{
    char out[128];
    (void)state;
    assert_int_equal(map(NULL, DN, out, sizeof out), 0);
    assert_string_equal(out, DN);
    assert_int_equal(map("DEFAULT", DN, out, sizeof out), 0);
    assert_string_equal(out, DN);
    assert_int_equal(gr_principal_rules_apply(NULL, DN, out, sizeof out), 0);
    assert_string_equal(out, DN);
}

static void test_rules_in_order(void **state)
{
    char out[128];
    (void)state;
    assert_int_equal(
        map("RULE:^CN=([a-zA-Z]+),.*$/$1/L", "CN=Alice,OU=eng,O=acme", out, sizeof out), 0);
    assert_string_equal(out, "alice");
    assert_int_equal(map("RULE:^CN=(.*),OU=(.*),O=(.*)$/$1@$3/U", DN, out, sizeof out), 0);
    assert_string_equal(out, "ALICE@ACME");
    /* The first rule does not match the whole DN; the second does. Commas in patterns. */
    assert_int_equal(
        map("RULE:^CN=bob,OU=eng$/bob/, RULE:^CN=([^,]+),OU=eng,O=acme$/$1-eng/,DEFAULT", DN, out,
            sizeof out),
        0);
    assert_string_equal(out, "alice-eng");
    /* An escaped slash in the replacement. */
    assert_int_equal(map("RULE:^CN=([a-z]+),.*$/team\\/$1/", DN, out, sizeof out), 0);
    assert_string_equal(out, "team/alice");
    /* A partial match does not apply: Kafka matches the whole DN. */
    assert_int_equal(map("RULE:CN=alice/x/", DN, out, sizeof out), -ENOENT);
    assert_int_equal(map("RULE:^CN=bob.*$/bob/,DEFAULT", DN, out, sizeof out), 0);
    assert_string_equal(out, DN);
}

static void test_too_long(void **state)
{
    char out[8];
    (void)state;
    assert_int_equal(map("DEFAULT", DN, out, sizeof out), -ENAMETOOLONG);
    assert_int_equal(map("RULE:^(.*)$/$1$1/", DN, out, sizeof out), -ENAMETOOLONG);
}

static void test_bad_rules(void **state)
{
    const char *bad[] = {"RULE:^CN=x", "RULE:^CN=x/y", "NOPE",
                         "RULE:(/x/",  "RULE:a/b/Q",   "DEFAULTX"};
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        gr_principal_rules_t *rules = NULL;
        assert_int_equal(gr_principal_rules_parse(bad[i], &rules, err, sizeof err), -EINVAL);
        assert_null(rules);
        assert_non_null(strstr(err, "ssl.principal.mapping.rules"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_rules_in_order),
        cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_bad_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
