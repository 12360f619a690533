/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admin/txn: gregor-admin transactions' abort target is the producer whose
 * open transaction starts exactly at --start-offset (none: refused), with
 * an unknown coordinator epoch (-1) sent as 0 and the epoch given by hand
 * checked to fit an int16; describe's TopicPartitions column is Kafka's
 * "topic-partition" list (cut cleanly when the buffer is short), its time
 * columns "None" without a transaction under way; the command line of
 * each subcommand parses into its words and options.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "admin/admin.h"
#include "admin/txn.h"

static void test_abort_spec_by_start_offset(void **state)
{
    (void)state;
    gr_describe_producers_response_producer_state_t producers[3] = {
        {.producer_id = 7,
         .producer_epoch = 2,
         .coordinator_epoch = 5,
         .current_txn_start_offset = -1},
        {.producer_id = 8,
         .producer_epoch = 3,
         .coordinator_epoch = 4,
         .current_txn_start_offset = 40},
        {.producer_id = 9,
         .producer_epoch = 1,
         .coordinator_epoch = -1,
         .current_txn_start_offset = 12},
    };
    gr_describe_producers_response_partition_response_t part = {.active_producers = producers,
                                                                .active_producers_count = 3};
    gr_admin_abort_spec_t spec = {0};

    assert_int_equal(gr_admin_abort_spec_find(&part, 40, &spec), 0);
    assert_int_equal(spec.producer_id, 8);
    assert_int_equal(spec.producer_epoch, 3);
    assert_int_equal(spec.coordinator_epoch, 4);

    /* No marker from any coordinator yet: epoch 0, below every real one. */
    assert_int_equal(gr_admin_abort_spec_find(&part, 12, &spec), 0);
    assert_int_equal(spec.producer_id, 9);
    assert_int_equal(spec.coordinator_epoch, 0);

    /* Only an exact start matches; a producer without an open one never does. */
    assert_int_equal(gr_admin_abort_spec_find(&part, 41, &spec), -ENOENT);
    assert_int_equal(gr_admin_abort_spec_find(&part, -1, &spec), -ENOENT);
    part.active_producers_count = 0;
    assert_int_equal(gr_admin_abort_spec_find(&part, 40, &spec), -ENOENT);
}

static void test_abort_spec_given(void **state)
{
    (void)state;
    gr_admin_abort_spec_t spec = {0};

    assert_int_equal(gr_admin_abort_spec_given(1000, 4, -1, &spec), 0);
    assert_int_equal(spec.producer_id, 1000);
    assert_int_equal(spec.producer_epoch, 4);
    assert_int_equal(spec.coordinator_epoch, 0);
    assert_int_equal(gr_admin_abort_spec_given(1000, 4, 17, &spec), 0);
    assert_int_equal(spec.coordinator_epoch, 17);

    spec.producer_id = 1;
    assert_int_equal(gr_admin_abort_spec_given(1000, INT16_MAX + 1, 0, &spec), -EINVAL);
    assert_int_equal(gr_admin_abort_spec_given(-1, 0, 0, &spec), -EINVAL);
    assert_int_equal(gr_admin_abort_spec_given(5, -1, 0, &spec), -EINVAL);
    assert_int_equal(spec.producer_id, 1); /* untouched when refused */
}

static void test_partitions_text(void **state)
{
    (void)state;
    int32_t orders[] = {0, 2};
    int32_t audit[] = {5};
    gr_describe_transactions_response_topic_data_t topics[] = {
        {.topic = gr_str("orders"), .partitions = orders, .partitions_count = 2},
        {.topic = gr_str("audit-log"), .partitions = audit, .partitions_count = 1},
    };
    gr_describe_transactions_response_transaction_state_t s = {.topics = topics, .topics_count = 2};
    char out[64];

    assert_int_equal(gr_admin_txn_partitions_text(&s, out, sizeof out),
                     strlen("orders-0,orders-2,audit-log-5"));
    assert_string_equal(out, "orders-0,orders-2,audit-log-5");

    /* Short buffer: NUL-ended, and the length needed is still told. */
    char small[10];
    assert_int_equal(gr_admin_txn_partitions_text(&s, small, sizeof small), 29);
    assert_string_equal(small, "orders-0,");

    s.topics_count = 0;
    assert_int_equal(gr_admin_txn_partitions_text(&s, out, sizeof out), 0);
    assert_string_equal(out, "");
}

static void test_time_columns(void **state)
{
    (void)state;
    char start[GR_ADMIN_TXN_NUMBER_MAX], duration[GR_ADMIN_TXN_NUMBER_MAX];
    char offset[GR_ADMIN_TXN_NUMBER_MAX];

    gr_admin_txn_times(1700000000000LL, 1700000002500LL, start, duration);
    assert_string_equal(start, "1700000000000");
    assert_string_equal(duration, "2500");
    gr_admin_txn_times(-1, 1700000002500LL, start, duration);
    assert_string_equal(start, "None");
    assert_string_equal(duration, "None");

    gr_admin_txn_offset_text(-1, offset);
    assert_string_equal(offset, "None");
    gr_admin_txn_offset_text(1234, offset);
    assert_string_equal(offset, "1234");
}

static void test_command_lines(void **state)
{
    (void)state;
    gr_admin_options_t o;
    int64_t n = -1;
    char *abort_args[] = {"--bootstrap-server", "h:1", "transactions",   "abort", "--topic", "t",
                          "--partition",        "3",   "--start-offset", "42",    "--json"};
    char *describe_args[] = {"transactions", "describe",           "--transactional-id",
                             "app-1",        "--bootstrap-server", "h:1"};

    assert_int_equal(gr_admin_options_parse(&o, 11, abort_args), 0);
    assert_int_equal(o.word_count, 2);
    assert_string_equal(o.words[0], "transactions");
    assert_string_equal(o.words[1], "abort");
    assert_string_equal(gr_admin_opt(&o, "topic"), "t");
    assert_int_equal(gr_admin_opt_long(&o, "partition", &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(gr_admin_opt_long(&o, "start-offset", &n), 0);
    assert_int_equal(n, 42);
    assert_int_equal(gr_admin_opt_long(&o, "producer-id", &n), 1); /* absent */
    assert_true(gr_admin_flag(&o, "json"));

    assert_int_equal(gr_admin_options_parse(&o, 6, describe_args), 0);
    assert_string_equal(o.words[1], "describe");
    assert_string_equal(gr_admin_opt(&o, "transactional-id"), "app-1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abort_spec_by_start_offset),
        cmocka_unit_test(test_abort_spec_given),
        cmocka_unit_test(test_partitions_text),
        cmocka_unit_test(test_time_columns),
        cmocka_unit_test(test_command_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
