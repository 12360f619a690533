/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admin/records_json and admin/topic_filter: kafka-delete-records.sh's
 * offset file is read as Kafka's tool reads it, refused with Kafka's
 * messages, and its results ordered as the tool's Java HashMap iterates
 * (expected orders computed from Java's String and TopicPartition hashes,
 * including a table grown past 16 buckets and non-ASCII names hashed as
 * UTF-16); kafka-get-offsets.sh's --topic-partitions rules allow what
 * Kafka's grammar says.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "admin/records_json.h"
#include "admin/topic_filter.h"

#define ERR_MAX 512

static int parse(gr_arena_t *arena, const char *text, gr_admin_records_target_t **t, int *n,
                 char *err)
{
    return gr_admin_records_json_parse(text, strlen(text), arena, t, n, err, ERR_MAX);
}

static void test_file_read_in_kafka_order(void **state)
{
    (void)state;
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_admin_records_target_t *t = NULL;
    int n = 0;
    char err[ERR_MAX] = "";
    const char *text = "{\"partitions\": [{\"topic\": \"kt_a\", \"partition\": 0, \"offset\": 2},\n"
                       " {\"topic\": \"kt_a\", \"partition\": 1, \"offset\": -1},\n"
                       " {\"topic\": \"kt_a\", \"partition\": 2, \"offset\": 5},\n"
                       " {\"topic\": \"kt_none\", \"partition\": 0, \"offset\": 1}]}";
    assert_int_equal(parse(&arena, text, &t, &n, err), 0);
    assert_int_equal(n, 4);
    const char *topics[] = {"kt_none", "kt_a", "kt_a", "kt_a"};
    const int32_t partitions[] = {0, 2, 1, 0};
    const int64_t offsets[] = {1, 5, -1, 2};
    for (int i = 0; i < n; i++) {
        assert_string_equal(t[i].topic, topics[i]);
        assert_int_equal(t[i].partition, partitions[i]);
        assert_int_equal(t[i].offset, offsets[i]);
    }
    gr_arena_fini(&arena);
}

static void test_java_order_grown_table(void **state)
{
    (void)state;
    gr_admin_records_target_t t[13];
    for (int i = 0; i < 13; i++)
        t[i] = (gr_admin_records_target_t){"orders", i, 0};
    gr_admin_records_java_order(t, 13); /* 13 > 12: a table of 32 buckets */
    const int32_t want[] = {7, 8, 9, 10, 11, 12, 0, 1, 2, 3, 4, 5, 6};
    for (int i = 0; i < 13; i++)
        assert_int_equal(t[i].partition, want[i]);
    gr_admin_records_target_t u[] = {{"\xc3\xa9", 0, 0}, {"\xf0\x9f\x98\x80", 1, 0}, {"a", 0, 0}};
    gr_admin_records_java_order(u, 3);
    assert_string_equal(u[0].topic, "a");
    assert_string_equal(u[1].topic, "\xf0\x9f\x98\x80");
    assert_string_equal(u[2].topic, "\xc3\xa9");
}

static void expect_refused(const char *text, const char *message)
{
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_admin_records_target_t *t = NULL;
    int n = 0;
    char err[ERR_MAX] = "";
    assert_int_equal(parse(&arena, text, &t, &n, err), -EINVAL);
    assert_string_equal(err, message);
    gr_arena_fini(&arena);
}

static void test_file_refused_with_kafka_messages(void **state)
{
    (void)state;
    expect_refused("{\"partitions\":", "The input string is not a valid JSON");
    expect_refused("[1]", "Expected JSON object, received [1]");
    expect_refused("{\"version\":2,\"partitions\":[]}", "Not supported version field value 2");
    expect_refused("{\"version\":\"1\",\"partitions\":[]}",
                   "Expected `Integer` value, received \"1\"");
    expect_refused("{\"version\":1}", "Missing partitions field");
    expect_refused("{\"partitions\":{\"a\":1}}", "Expected JSON array, received {\"a\":1}");
    expect_refused("{\"partitions\":[{\"topic\":\"a\",\"offset\":1}]}",
                   "No such field exists: `partition`");
    expect_refused("{\"partitions\":[{\"topic\":null,\"partition\":0,\"offset\":1}]}",
                   "Expected `String` value, received null");
    expect_refused("{\"partitions\":[{\"topic\":\"a\",\"partition\":4294967296,\"offset\":1}]}",
                   "Expected `Integer` value, received 4294967296");
    expect_refused("{\"partitions\":[{\"topic\":\"a\",\"partition\":0,\"offset\":true}]}",
                   "Expected `Long` value, received true");
    /* b-1 and a-0 share a bucket: the file's order */
    expect_refused("{\"partitions\":[{\"topic\":\"b\",\"partition\":1,\"offset\":1},"
                   "{\"topic\":\"a\",\"partition\":0,\"offset\":1},"
                   "{\"topic\":\"b\",\"partition\":1,\"offset\":2},"
                   "{\"topic\":\"a\",\"partition\":0,\"offset\":3}]}",
                   "Offset json file contains duplicate topic partitions: b-1,a-0");
}

static void test_topic_partition_rules(void **state)
{
    (void)state;
    gr_topic_filter_t f;
    char err[ERR_MAX] = "";
    assert_int_equal(gr_topic_filter_init_list(&f, "t1:1,t2:0-3,t3,t4:5-,t5:-3,x.*:", err, ERR_MAX),
                     0);
    assert_true(gr_topic_filter_partition(&f, "t1", 1));
    assert_false(gr_topic_filter_partition(&f, "t1", 2));
    assert_true(gr_topic_filter_partition(&f, "t2", 2));
    assert_false(gr_topic_filter_partition(&f, "t2", 3)); /* the upper bound is exclusive */
    assert_true(gr_topic_filter_partition(&f, "t3", 99));
    assert_false(gr_topic_filter_partition(&f, "t4", 4));
    assert_true(gr_topic_filter_partition(&f, "t4", 5000));
    assert_true(gr_topic_filter_partition(&f, "t5", 0));
    assert_false(gr_topic_filter_partition(&f, "t5", 3));
    assert_true(gr_topic_filter_partition(&f, "xyz", 7));
    assert_false(gr_topic_filter_topic(&f, "t10")); /* the whole name must match */
    gr_topic_filter_fini(&f);

    assert_int_equal(gr_topic_filter_init_list(&f, "t:1-2-3", err, ERR_MAX), -1);
    assert_string_equal(err, "Invalid rule specification: t:1-2-3");
    assert_int_equal(gr_topic_filter_init_list(&f, "a:b:c", err, ERR_MAX), -1);
    assert_string_equal(err, "Invalid rule specification: a:b:c");

    assert_int_equal(gr_topic_filter_init_topic(&f, NULL, "0,2", err, ERR_MAX), 0);
    assert_true(gr_topic_filter_partition(&f, "__consumer_offsets", 2));
    assert_false(gr_topic_filter_partition(&f, "anything", 1));
    gr_topic_filter_fini(&f);
    assert_int_equal(gr_topic_filter_init_topic(&f, "a", "0,x", err, ERR_MAX), -1);
    assert_string_equal(err, "--partitions expects a comma separated list of numeric partition "
                             "ids, but received: 0,x");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_read_in_kafka_order),
        cmocka_unit_test(test_java_order_grown_table),
        cmocka_unit_test(test_file_refused_with_kafka_messages),
        cmocka_unit_test(test_topic_partition_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
