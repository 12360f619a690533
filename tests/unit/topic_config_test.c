/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the topic config table (broker/topic_config.h): every default is
 * valid for its own key and every primary synonym is a broker key; values
 * are checked and made canonical as Kafka parses them; DescribeConfigs'
 * value, source and synonyms for a topic with and without overrides, with
 * broker keys at their defaults and set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/context.h"
#include "metadata/topics.h"
#include "metadata/topic_config.h"
#include "metadata/broker_config_store.h"

static void test_table_is_consistent(void **state)
{
    (void)state;
    char err[256];
    size_t n = gr_topic_config_def_count();
    assert_int_equal(n, 34);
    for (size_t i = 0; i < n; i++) {
        const gr_topic_config_def_t *def = gr_topic_config_def_at(i);
        if (i > 0)
            assert_true(strcmp(gr_topic_config_def_at(i - 1)->name, def->name) < 0);
        assert_ptr_equal(gr_topic_config_def_find(def->name), def);
        assert_int_equal(gr_topic_config_check(def->name, def->default_value, err, sizeof err),
                         GR_KERR_NONE);
        assert_non_null(def->doc);
        /* Kafka's local.retention.* synonyms exist only with tiered storage configured. */
        if (def->synonyms[0] && strncmp(def->synonyms[0], "log.local.", 10) != 0)
            assert_true(gr_config_find(def->synonyms[0]) >= 0);
    }
    assert_null(gr_topic_config_def_find("log.retention.ms"));
}

/* The keys changed live: Kafka's DynamicLogConfig set, derived from the table, within capacity. */
static void test_dynamic_broker_keys(void **state)
{
    (void)state;
    assert_true(gr_broker_dynamic_count() <= GR_BROKER_DYNAMIC_KEYS);
    assert_null(gr_broker_dynamic_name(gr_broker_dynamic_count()));
    const char *live[] = {"log.roll.ms",
                          "min.insync.replicas",
                          "compression.type",
                          "log.message.timestamp.type",
                          "unclean.leader.election.enable",
                          "log.cleaner.min.cleanable.ratio",
                          "log.flush.interval.ms"};
    for (size_t i = 0; i < sizeof live / sizeof live[0]; i++) {
        int k = gr_broker_dynamic_find(live[i]);
        assert_true(k >= 0);
        assert_string_equal(gr_broker_dynamic_name(k), live[i]);
    }
    /* Kafka keeps these static (only a topic key's primary synonym is live). */
    assert_int_equal(gr_broker_dynamic_find("log.retention.hours"), -1);
    assert_false(gr_broker_dynamic_kafka_allows("log.retention.hours"));
    assert_false(gr_broker_dynamic_kafka_allows("log.message.format.version"));
    /* Kafka's live keys that mean nothing here are refused with a reason. */
    assert_int_equal(gr_broker_dynamic_find("log.preallocate"), -1);
    assert_non_null(gr_broker_dynamic_refusal("log.preallocate"));
}

static void expect_canonical(const char *key, const char *value, const char *want)
{
    char err[256] = "";
    char *out = NULL;
    assert_int_equal(gr_topic_config_normalize(key, value, &out, err, sizeof err), 0);
    assert_string_equal(out, want);
    free(out);
}

static void expect_invalid(const char *key, const char *value)
{
    char err[256] = "";
    assert_int_equal(gr_topic_config_check(key, value, err, sizeof err), GR_KERR_INVALID_CONFIG);
    assert_true(strstr(err, key) != NULL || strstr(err, "Tiered") != NULL);
}

static void test_values(void **state)
{
    (void)state;
    expect_canonical("retention.ms", " 007 ", "7");
    expect_canonical("retention.ms", "-1", "-1");
    expect_canonical("preallocate", "TRUE", "true");
    expect_canonical("cleanup.policy", "compact , delete", "compact,delete");
    expect_canonical("cleanup.policy", "", "");
    expect_canonical("compression.type", " zstd", "zstd");
    expect_canonical("leader.replication.throttled.replicas", "0:1, 1:0", "0:1,1:0");
    expect_canonical("follower.replication.throttled.replicas", "*", "*");
    expect_canonical("message.format.version", "2.8", "2.8");
    expect_canonical("message.format.version", "3.0-IV1", "3.0-IV1");
    expect_canonical("min.cleanable.dirty.ratio", "0.25", "0.25");
    expect_invalid("retention.ms", "-2");
    expect_invalid("retention.ms", "1h");
    expect_invalid("segment.bytes", "13");
    expect_invalid("segment.bytes", "2147483648");
    expect_invalid("min.insync.replicas", "0");
    expect_invalid("cleanup.policy", "compact,sometimes");
    expect_invalid("message.timestamp.type", "createtime");
    expect_invalid("preallocate", "yes");
    expect_invalid("min.cleanable.dirty.ratio", "1.5");
    expect_invalid("leader.replication.throttled.replicas", "0:x");
    expect_invalid("leader.replication.throttled.replicas", "*,0:1");
    expect_invalid("message.format.version", "three");
    expect_invalid("remote.storage.enable", "true");
    expect_invalid("no.such.key", "1");
    char err[256];
    assert_int_equal(gr_topic_config_check("retention.ms", NULL, err, sizeof err),
                     GR_KERR_INVALID_CONFIG);
    gr_topic_config_t lags[] = {{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "5"}};
    assert_int_equal(gr_topic_config_check_set(lags, 2, err, sizeof err), GR_KERR_INVALID_CONFIG);
    assert_int_equal(gr_topic_config_check_set(lags, 1, err, sizeof err), GR_KERR_NONE);
}

/* message.format.version: every version Kafka 3.8 knows, in every form it reads. */
static void test_message_format_versions(void **state)
{
    (void)state;
    static const char *const accepted[] = {
        "0.8.0",      "0.8.1",    "0.8.2",      "0.9.0",      "0.10.0",  "0.10.0-IV0", "0.10.0-IV1",
        "0.10.0.0",   "0.10.0.1", "0.10.1-IV0", "0.10.1-IV2", "0.10.1",  "0.10.2-IV0", "0.10.2.2",
        "0.11.0-IV2", "0.11.0.3", "0.8.2.1",    "1.0",        "1.0-IV0", "1.0.2",      "1.1-IV0",
        "2.0-IV1",    "2.1-IV2",  "2.4.1",      "2.7-IV2",    "2.8",     "2.8-IV1",    "2.8.2",
        "3.0",        "3.0-IV0",  "3.0-IV1",    "3.3-IV3",    "3.5-IV2", "3.6-IV2",    "3.7-IV4",
        "3.8",        "3.8-IV0",  " 3.8-IV0 ",
    };
    static const char *const refused[] = {
        "banana",  "three",   "",        "0.10",     "0.10.0-IV2", "0.10.2-IV1", "0.7.0",
        "1.0-IV1", "2.8-IV2", "3.8-IV1", "3.9",      "3.9-IV0",    "4.0",        "2.8.",
        "0.10.0.", "2",       "3.0-iv1", "3.0-IV01", "v3.0",       "3.0 IV1",    ".2.8",
    };
    char err[256];
    for (size_t i = 0; i < sizeof accepted / sizeof *accepted; i++)
        if (gr_topic_config_check("message.format.version", accepted[i], err, sizeof err) !=
            GR_KERR_NONE)
            fail_msg("'%s' refused: %s", accepted[i], err);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        expect_invalid("message.format.version", refused[i]);
    expect_canonical("message.format.version", "0.10.0.0", "0.10.0.0"); /* kept as written */
}

static void broker_with(gr_broker_t *b, const char *const *overrides, int n)
{
    char err[256] = "";
    memset(b, 0, sizeof *b);
    assert_int_equal(gr_config_load(&b->config, NULL, overrides, n, NULL, err, sizeof err), 0);
}

static const gr_config_described_t *describe(gr_broker_t *b, const gr_topic_t *topic,
                                             const char *key, gr_config_described_t *d)
{
    gr_topic_config_describe(b, topic, gr_topic_config_def_find(key), d);
    return d;
}

static void test_describe(void **state)
{
    (void)state;
    gr_broker_t *b = calloc(1, sizeof *b);
    gr_topic_t *topic = calloc(1, sizeof *topic);
    gr_config_described_t d;
    const char *const set[] = {"log.retention.hours=100", "log.segment.bytes=4096",
                               "log.retention.ms=5000"};

    broker_with(b, set, 2);
    describe(b, NULL, "segment.bytes", &d);
    assert_string_equal(d.value, "4096");
    assert_int_equal(d.source, GR_DESCRIBE_CONFIGS_SOURCE_STATIC_BROKER_CONFIG);
    assert_int_equal(d.synonym_count, 2);
    assert_string_equal(d.synonyms[0].name, "log.segment.bytes");
    assert_int_equal(d.synonyms[0].source, GR_DESCRIBE_CONFIGS_SOURCE_STATIC_BROKER_CONFIG);
    assert_int_equal(d.synonyms[1].source, GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG);
    /* Only log.retention.hours is set: Kafka lists no synonym from log.retention.ms on. */
    describe(b, NULL, "retention.ms", &d);
    assert_string_equal(d.value, "360000000");
    assert_int_equal(d.source, GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG);
    assert_int_equal(d.synonym_count, 0);
    describe(b, NULL, "leader.replication.throttled.replicas", &d);
    assert_string_equal(d.value, "");
    assert_int_equal(d.source, GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG);
    gr_config_fini(&b->config);

    broker_with(b, set, 3);
    topic->configs[0] = (gr_topic_config_t){"retention.ms", "1234"};
    topic->config_count = 1;
    describe(b, topic, "retention.ms", &d);
    assert_string_equal(d.value, "1234");
    assert_int_equal(d.source, GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_TOPIC_CONFIG);
    assert_int_equal(d.synonym_count, 4); /* override, ms and hours set, hours' default */
    assert_string_equal(d.synonyms[1].name, "log.retention.ms");
    assert_string_equal(d.synonyms[1].value, "5000");
    assert_string_equal(d.synonyms[2].name, "log.retention.hours");
    assert_int_equal(d.synonyms[2].source, GR_DESCRIBE_CONFIGS_SOURCE_STATIC_BROKER_CONFIG);
    assert_string_equal(d.synonyms[3].value, "168");
    assert_int_equal(d.synonyms[3].source, GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG);
    describe(b, topic, "max.message.bytes", &d);
    assert_string_equal(d.value, "1048588");
    assert_int_equal(d.source, GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG);
    assert_string_equal(d.synonyms[0].name, "message.max.bytes");
    gr_config_fini(&b->config);
    free(topic);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_is_consistent),
        cmocka_unit_test(test_dynamic_broker_keys),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_message_format_versions),
        cmocka_unit_test(test_describe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
