/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The records a batch was refused for (gr_record_errors_*): the batch's
 * error (INVALID_TIMESTAMP wins), Kafka's summaries, equal reasons sharing
 * one copy, the list stopping at GR_RECORD_ERRORS_MAX while the count goes
 * on, a count-only collection, and clearing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/arena.h"
#include "protocol/record_errors.h"

static void addf(gr_record_errors_t *e, gr_kerr_t kind, int32_t index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void addf(gr_record_errors_t *e, gr_kerr_t kind, int32_t index, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gr_record_errors_vaddf(e, kind, index, fmt, ap);
    va_end(ap);
}

/* INVALID_RECORD: the count and the first three entries, as Kafka's RecordError prints them. */
static void test_record_summary(void **state)
{
    (void)state;
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_record_errors_t e;
    gr_record_errors_init(&e, &arena);
    assert_int_equal(gr_record_errors_kerr(&e), GR_KERR_NONE);
    assert_null(gr_record_errors_summary(&e));
    char reason[64];
    snprintf(reason, sizeof reason, "no key");
    gr_record_errors_add(&e, GR_KERR_INVALID_RECORD, 2, reason);
    reason[0] = 'N'; /* the entry holds a copy */
    assert_int_equal(gr_record_errors_kerr(&e), GR_KERR_INVALID_RECORD);
    assert_string_equal(gr_record_errors_summary(&e),
                        "One or more records have been rejected due to 1 record errors in total, "
                        "and only showing the first three errors at most: "
                        "[RecordError(batchIndex=2, message='no key')]");
    gr_record_errors_add(&e, GR_KERR_INVALID_RECORD, 5, "no key");
    addf(&e, GR_KERR_INVALID_RECORD, 7, "bad %d", 7);
    gr_record_errors_add(&e, GR_KERR_INVALID_RECORD, 9, "no key");
    assert_ptr_equal(e.list[0].message, e.list[1].message); /* equal to the previous: shared */
    assert_string_equal(e.list[2].message, "bad 7");
    assert_string_equal(gr_record_errors_summary(&e),
                        "One or more records have been rejected due to 4 record errors in total, "
                        "and only showing the first three errors at most: "
                        "[RecordError(batchIndex=2, message='no key'), "
                        "RecordError(batchIndex=5, message='no key'), "
                        "RecordError(batchIndex=7, message='bad 7')]");
    gr_arena_fini(&arena);
}

/* One timestamp error among others makes the batch's error INVALID_TIMESTAMP. */
static void test_timestamp_wins(void **state)
{
    (void)state;
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_record_errors_t e;
    gr_record_errors_init(&e, &arena);
    gr_record_errors_add(&e, GR_KERR_INVALID_RECORD, 0, "no key");
    addf(&e, GR_KERR_INVALID_TIMESTAMP, 1, "Timestamp %d", 5);
    gr_record_errors_add(&e, GR_KERR_INVALID_RECORD, 2, "no key");
    assert_int_equal(gr_record_errors_kerr(&e), GR_KERR_INVALID_TIMESTAMP);
    assert_string_equal(gr_record_errors_summary(&e),
                        "One or more records have been rejected due to invalid timestamp");
    assert_int_equal(e.listed, 3);
    /* Cleared: nothing, whatever came before. */
    gr_record_errors_clear(&e);
    assert_int_equal(gr_record_errors_kerr(&e), GR_KERR_NONE);
    assert_int_equal(e.listed, 0);
    gr_record_errors_add(&e, GR_KERR_INVALID_RECORD, 4, "no key");
    assert_int_equal(gr_record_errors_kerr(&e), GR_KERR_INVALID_RECORD);
    assert_int_equal(e.list[0].index, 4);
    gr_arena_fini(&arena);
}

/* Past GR_RECORD_ERRORS_MAX entries errors are counted, not listed; the summary counts them all. */
static void test_list_limit(void **state)
{
    (void)state;
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_record_errors_t e;
    gr_record_errors_init(&e, &arena);
    const int32_t total = GR_RECORD_ERRORS_MAX + 5;
    for (int32_t i = 0; i < total; i++)
        addf(&e, GR_KERR_INVALID_RECORD, i, "record %d", (int)i);
    assert_int_equal(e.err, 0);
    assert_int_equal(e.listed, GR_RECORD_ERRORS_MAX);
    assert_int_equal(e.count, total);
    for (int32_t i = 0; i < e.listed; i++) {
        char want[32];
        snprintf(want, sizeof want, "record %d", (int)i);
        assert_int_equal(e.list[i].index, i);
        assert_string_equal(e.list[i].message, want);
    }
    char want[64];
    snprintf(want, sizeof want, "rejected due to %d record errors in total", (int)total);
    assert_non_null(strstr(gr_record_errors_summary(&e), want));
    gr_arena_fini(&arena);
}

/* A smaller budget (what is left of a request's): listing stops there, counting does not. */
static void test_budget(void **state)
{
    (void)state;
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_record_errors_t e;
    gr_record_errors_init(&e, &arena);
    e.max = 2;
    for (int32_t i = 0; i < 5; i++)
        addf(&e, GR_KERR_INVALID_RECORD, i, "record %d", (int)i);
    assert_int_equal(e.listed, 2);
    assert_int_equal(e.count, 5);
    e.max = 0; /* spent */
    gr_record_errors_clear(&e);
    addf(&e, GR_KERR_INVALID_RECORD, 0, "%s", "no key");
    assert_int_equal(e.listed, 0);
    assert_int_equal(e.count, 1);
    assert_non_null(gr_record_errors_summary(&e));
    gr_arena_fini(&arena);
}

/* Without an arena: the error and count only, no list, no summary. */
static void test_count_only(void **state)
{
    (void)state;
    gr_record_errors_t e;
    gr_record_errors_init(&e, NULL);
    gr_record_errors_add(&e, GR_KERR_INVALID_RECORD, 0, "no key");
    addf(&e, GR_KERR_INVALID_TIMESTAMP, 1, "%s", "late");
    assert_int_equal(e.count, 2);
    assert_int_equal(e.listed, 0);
    assert_null(e.list);
    assert_int_equal(gr_record_errors_kerr(&e), GR_KERR_INVALID_TIMESTAMP);
    assert_null(gr_record_errors_summary(&e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_summary), cmocka_unit_test(test_timestamp_wins),
        cmocka_unit_test(test_list_limit),     cmocka_unit_test(test_budget),
        cmocka_unit_test(test_count_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
