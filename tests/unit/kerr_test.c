/* SPDX-License-Identifier: Apache-2.0 */
/* Kafka error codes: names, retriable flags, errno mapping. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/kerr.h"

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(gr_kerr_name(GR_KERR_NONE), "NONE");
    assert_string_equal(gr_kerr_name(GR_KERR_UNKNOWN_SERVER_ERROR), "UNKNOWN_SERVER_ERROR");
    assert_string_equal(gr_kerr_name(6), "NOT_LEADER_OR_FOLLOWER");
    assert_string_equal(gr_kerr_name(87), "INVALID_RECORD");
    assert_string_equal(gr_kerr_name(120), "TRANSACTION_ABORTABLE");
    assert_int_equal(GR_KERR_INVALID_REGULAR_EXPRESSION, 128);
    assert_string_equal(gr_kerr_name(GR_KERR_MAX), "SHARE_SESSION_LIMIT_REACHED");
    assert_int_equal(GR_KERR_SHARE_SESSION_LIMIT_REACHED, 133);
    assert_string_equal(gr_kerr_name(GR_KERR_MAX + 1), "UNKNOWN");
    assert_string_equal(gr_kerr_name(-2), "UNKNOWN");
    assert_string_equal(gr_kerr_name(INT16_MIN), "UNKNOWN");
    assert_string_equal(gr_kerr_name(INT16_MAX), "UNKNOWN");
    /* Every known code has a name (no hole in the table). */
    for (int e = GR_KERR_UNKNOWN_SERVER_ERROR; e <= GR_KERR_MAX; e++)
        assert_string_not_equal(gr_kerr_name((gr_kerr_t)e), "UNKNOWN");
}

static void test_codes(void **state)
{
    (void)state;
    assert_int_equal(GR_KERR_CORRUPT_MESSAGE, 2);
    assert_int_equal(GR_KERR_MESSAGE_TOO_LARGE, 10);
    assert_int_equal(GR_KERR_UNSUPPORTED_VERSION, 35);
    assert_int_equal(GR_KERR_KAFKA_STORAGE_ERROR, 56);
    assert_int_equal(GR_KERR_UNSUPPORTED_COMPRESSION_TYPE, 76);
    assert_int_equal(GR_KERR_INVALID_RECORD, 87);
    assert_int_equal(GR_KERR_UNKNOWN_TOPIC_ID, 100);
    assert_int_equal(GR_KERR_TRANSACTION_ABORTABLE, 120);
}

static void test_retriable(void **state)
{
    (void)state;
    assert_true(gr_kerr_retriable(GR_KERR_NOT_LEADER_OR_FOLLOWER));
    assert_true(gr_kerr_retriable(GR_KERR_CORRUPT_MESSAGE));
    assert_true(gr_kerr_retriable(GR_KERR_KAFKA_STORAGE_ERROR));
    assert_true(gr_kerr_retriable(GR_KERR_NOT_ENOUGH_REPLICAS));
    assert_false(gr_kerr_retriable(GR_KERR_NONE));
    assert_false(gr_kerr_retriable(GR_KERR_UNKNOWN_SERVER_ERROR));
    assert_false(gr_kerr_retriable(GR_KERR_MESSAGE_TOO_LARGE));
    assert_false(gr_kerr_retriable(GR_KERR_INVALID_RECORD));
    assert_false(gr_kerr_retriable(GR_KERR_MAX + 1));
}

static void test_from_errno(void **state)
{
    (void)state;
    assert_int_equal(gr_kerr_from_errno(0), GR_KERR_NONE);
    assert_int_equal(gr_kerr_from_errno(-ENOSPC), GR_KERR_KAFKA_STORAGE_ERROR);
    assert_int_equal(gr_kerr_from_errno(-EIO), GR_KERR_KAFKA_STORAGE_ERROR);
    assert_int_equal(gr_kerr_from_errno(-EROFS), GR_KERR_KAFKA_STORAGE_ERROR);
    assert_int_equal(gr_kerr_from_errno(-ENOMEM), GR_KERR_UNKNOWN_SERVER_ERROR);
    assert_int_equal(gr_kerr_from_errno(-EBADMSG), GR_KERR_CORRUPT_MESSAGE);
    assert_int_equal(gr_kerr_from_errno(-EMSGSIZE), GR_KERR_MESSAGE_TOO_LARGE);
    assert_int_equal(gr_kerr_from_errno(-ETIMEDOUT), GR_KERR_REQUEST_TIMED_OUT);
    assert_int_equal(gr_kerr_from_errno(-12345), GR_KERR_UNKNOWN_SERVER_ERROR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_codes),
        cmocka_unit_test(test_retriable),
        cmocka_unit_test(test_from_errno),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
