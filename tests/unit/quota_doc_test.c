/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quota znode documents: values read from Kafka's format, a rewrite that
 * keeps the SCRAM credentials sharing the node, removal, value formatting.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "quota/quota_doc.h"

#define SCRAM_DOC                                                                                  \
    "{\"version\":1,\"config\":{\"SCRAM-SHA-256\":\"salt=c2FsdA==,iterations=4096\","              \
    "\"producer_byte_rate\":\"1048576\",\"request_percentage\":\"bogus\"}}"

static void test_parse(void **state)
{
    (void)state;
    gr_quota_values_t v;
    assert_int_equal(gr_quota_doc_parse(SCRAM_DOC, strlen(SCRAM_DOC), &v), 0);
    assert_true(v.has[GR_QUOTA_PRODUCE]);
    assert_true(v.value[GR_QUOTA_PRODUCE] == 1048576);
    assert_false(v.has[GR_QUOTA_FETCH]);
    assert_false(v.has[GR_QUOTA_REQUEST]); /* not a number: skipped */
    assert_int_equal(gr_quota_doc_parse("[1]", 3, &v), -EINVAL);
    assert_int_equal(gr_quota_doc_parse(NULL, 0, &v), 0);
}

static void test_build_keeps_other_keys(void **state)
{
    (void)state;
    gr_quota_values_t set = {0};
    bool remove[GR_QUOTA_TYPE_COUNT] = {false};
    set.has[GR_QUOTA_REQUEST] = true;
    set.value[GR_QUOTA_REQUEST] = 25;
    remove[GR_QUOTA_PRODUCE] = true;
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(gr_quota_doc_build(SCRAM_DOC, strlen(SCRAM_DOC), &set, remove, &text, &len),
                     0);
    assert_string_equal(text, "{\"version\":1,\"config\":{\"SCRAM-SHA-256\":\"salt=c2FsdA==,"
                              "iterations=4096\",\"request_percentage\":\"25.0\"}}");
    free(text);
    set.has[GR_QUOTA_REQUEST] = false;
    set.has[GR_QUOTA_FETCH] = true;
    set.value[GR_QUOTA_FETCH] = 2048;
    assert_int_equal(gr_quota_doc_build(NULL, 0, &set, remove, &text, &len), 0);
    assert_string_equal(text, "{\"version\":1,\"config\":{\"consumer_byte_rate\":\"2048\"}}");
    free(text);
}

static void test_format(void **state)
{
    (void)state;
    char text[GR_QUOTA_VALUE_TEXT_MAX];
    gr_quota_value_format(GR_QUOTA_PRODUCE, 1024, text, sizeof text);
    assert_string_equal(text, "1024");
    gr_quota_value_format(GR_QUOTA_REQUEST, 12.5, text, sizeof text);
    assert_string_equal(text, "12.5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_build_keeps_other_keys),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
