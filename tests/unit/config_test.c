/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of server.properties parsing: the properties format, defaults,
 * overrides, Kafka's precedence rules, listeners and error messages.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/config.h"

static int parse(gr_config_t *cfg, const char *text, char *err, size_t errlen)
{
    return gr_config_parse_text(cfg, text, strlen(text), "test.properties", NULL, err, errlen);
}

static void test_defaults(void **state)
{
    gr_config_t cfg;
    char err[256] = "";
    (void)state;

    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.broker_id, 0);
    assert_string_equal(cfg.listeners, "PLAINTEXT://:9092");
    assert_null(cfg.advertised_listeners);
    assert_string_equal(cfg.log_dir, "/tmp/kafka-logs");
    assert_int_equal(cfg.log_dirs.count, 0);
    assert_int_equal(cfg.effective.log_dirs.count, 1);
    assert_string_equal(cfg.effective.log_dirs.items[0], "/tmp/kafka-logs");
    assert_int_equal(cfg.num_partitions, 1);
    assert_int_equal(cfg.default_replication_factor, 1);
    assert_true(cfg.auto_create_topics_enable);
    assert_true(cfg.delete_topic_enable);
    assert_int_equal(cfg.message_max_bytes, 1048588);
    assert_int_equal(cfg.socket_request_max_bytes, 104857600);
    assert_int_equal(cfg.queued_max_requests, 500);
    assert_int_equal(cfg.log_segment_bytes, 1073741824);
    assert_int_equal(cfg.log_roll_hours, 168);
    assert_int_equal(cfg.log_retention_hours, 168);
    assert_int_equal(cfg.log_retention_bytes, -1);
    assert_int_equal(cfg.log_retention_check_interval_ms, 300000);
    assert_int_equal(cfg.log_index_interval_bytes, 4096);
    assert_int_equal(cfg.log_index_size_max_bytes, 10485760);
    assert_true(cfg.log_flush_interval_messages == INT64_MAX);
    assert_int_equal(cfg.log_cleanup_policy.count, 1);
    assert_string_equal(cfg.log_cleanup_policy.items[0], "delete");
    assert_string_equal(cfg.log_message_timestamp_type, "CreateTime");
    assert_string_equal(cfg.compression_type, "producer");
    assert_int_equal(cfg.min_insync_replicas, 1);
    assert_int_equal(cfg.offsets_topic_num_partitions, 50);
    assert_int_equal(cfg.offsets_topic_replication_factor, 3);
    assert_int_equal(cfg.offsets_retention_minutes, 10080);
    assert_int_equal(cfg.group_initial_rebalance_delay_ms, 3000);
    assert_int_equal(cfg.group_min_session_timeout_ms, 6000);
    assert_int_equal(cfg.group_max_session_timeout_ms, 1800000);
    assert_int_equal(cfg.group_consumer_heartbeat_interval_ms, 5000);
    assert_int_equal(cfg.group_consumer_session_timeout_ms, 45000);
    assert_int_equal(cfg.group_consumer_assignors.count, 2);
    assert_string_equal(cfg.group_consumer_assignors.items[0], "uniform");
    assert_int_equal(cfg.zookeeper_session_timeout_ms, 18000);
    assert_null(cfg.zookeeper_connect);
    assert_false(cfg.unclean_leader_election_enable);
    assert_true(cfg.log_cleaner_enable);
    assert_true(cfg.log_cleaner_min_cleanable_ratio == 0.5);
    assert_int_equal(cfg.log_cleaner_dedupe_buffer_size, 134217728);

    /* Effective values from defaults. */
    assert_int_equal(cfg.effective.log_retention_ms, 168LL * 3600000);
    assert_int_equal(cfg.effective.log_roll_ms, 168LL * 3600000);
    assert_true(cfg.effective.log_flush_interval_ms == INT64_MAX);
    assert_int_equal(cfg.effective.zookeeper_connection_timeout_ms, 18000);
    assert_int_equal(cfg.effective.listeners.count, 1);
    assert_string_equal(cfg.effective.listeners.items[0].name, "PLAINTEXT");
    assert_string_equal(cfg.effective.listeners.items[0].host, "");
    assert_int_equal(cfg.effective.listeners.items[0].port, 9092);
    assert_int_equal(cfg.effective.advertised_listeners.count, 1);
    gr_config_fini(&cfg);
}

/* Every table entry: name unique, default valid (init asserts that), source DEFAULT. */
static void test_table(void **state)
{
    gr_config_t cfg;
    (void)state;

    assert_int_equal(gr_config_init(&cfg), 0);
    assert_true(gr_config_key_count() > 100);
    for (size_t i = 0; i < gr_config_key_count(); i++) {
        const gr_config_def_t *d = gr_config_def_at(i);
        gr_config_entry_t e;
        assert_int_equal(gr_config_find(d->name), (int)i);
        for (size_t j = 0; j < i; j++)
            assert_true(gr_config_def_at(j)->offset != d->offset);
        gr_config_entry(&cfg, i, &e);
        assert_ptr_equal(e.def, d);
        assert_int_equal(e.source, GR_CONFIG_SOURCE_DEFAULT);
        if (d->default_value == NULL)
            assert_null(e.value);
        else
            assert_string_equal(e.value, d->default_value);
    }
    assert_int_equal(gr_config_find("no.such.key"), -1);
    assert_true(gr_config_is_null(&cfg, "log.retention.ms"));
    assert_false(gr_config_is_null(&cfg, "log.retention.hours"));
    gr_config_fini(&cfg);
}

static void test_properties_format(void **state)
{
    gr_config_t cfg;
    char err[256] = "";
    (void)state;

    const char *text = "# a comment\n"
                       "! another comment \\\n"
                       "num.partitions=should-not-be-read-comment-does-not-continue\n"
                       "\n"
                       "   \t  \n"
                       "broker.id = 7  \n"
                       "num.partitions:3\n"
                       "log.dir /data/a\n"
                       "  default.replication.factor   2\r\n"
                       "log.dirs=/d1,\\\n"
                       "        /d2 , /d3\r"
                       "listeners = PLAINTEXT://localhost:\\\n"
                       "   9093\n"
                       "broker.rack=rack\\u0041\\tx\n"
                       "log\\u002esegment.bytes=2048\n"
                       "log.message.timestamp.type\\=x=CreateTime\n"
                       "delete.topic.enable=FALSE";
    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(parse(&cfg, text, err, sizeof(err)), 0);
    assert_int_equal(cfg.broker_id, 7);
    assert_int_equal(cfg.num_partitions, 3);
    assert_string_equal(cfg.log_dir, "/data/a");
    assert_int_equal(cfg.default_replication_factor, 2);
    assert_int_equal(cfg.log_dirs.count, 3);
    assert_string_equal(cfg.log_dirs.items[0], "/d1");
    assert_string_equal(cfg.log_dirs.items[1], "/d2");
    assert_string_equal(cfg.log_dirs.items[2], "/d3");
    assert_string_equal(cfg.listeners, "PLAINTEXT://localhost:9093");
    assert_string_equal(cfg.broker_rack, "rackA\tx");
    assert_int_equal(cfg.log_segment_bytes, 2048);
    assert_false(cfg.delete_topic_enable);
    /* "log.message.timestamp.type=x" is an unknown key: ignored. */
    assert_string_equal(cfg.log_message_timestamp_type, "CreateTime");

    gr_config_entry_t e;
    gr_config_entry(&cfg, (size_t)gr_config_find("broker.id"), &e);
    assert_string_equal(e.value, "7");
    assert_int_equal(e.source, GR_CONFIG_SOURCE_FILE);

    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.log_dirs.count, 3);
    assert_string_equal(cfg.effective.log_dirs.items[2], "/d3");
    assert_string_equal(cfg.effective.listeners.items[0].host, "localhost");
    assert_int_equal(cfg.effective.listeners.items[0].port, 9093);
    gr_config_fini(&cfg);
}

static void test_even_backslashes_do_not_continue(void **state)
{
    gr_config_t cfg;
    char err[256] = "";
    (void)state;

    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(parse(&cfg, "broker.rack=a\\\\\nnum.partitions=4\n", err, sizeof(err)), 0);
    assert_string_equal(cfg.broker_rack, "a\\");
    assert_int_equal(cfg.num_partitions, 4);
    /* A backslash at the very end of the text is dropped. */
    assert_int_equal(parse(&cfg, "broker.rack=b\\", err, sizeof(err)), 0);
    assert_string_equal(cfg.broker_rack, "b");
    /* Malformed \u escape. */
    assert_int_equal(parse(&cfg, "broker.rack=\\u12x4\n", err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "\\uXXXX"));
    gr_config_fini(&cfg);
}

static void test_duplicates_last_wins(void **state)
{
    gr_config_t cfg;
    char err[256] = "";
    (void)state;

    assert_int_equal(gr_config_init(&cfg), 0);
    /* The bad first value is replaced before validation, as in Kafka. */
    assert_int_equal(parse(&cfg, "num.partitions=bad\nnum.partitions=5\n", err, sizeof(err)), 0);
    assert_int_equal(cfg.num_partitions, 5);
    gr_config_fini(&cfg);
}

static void test_precedence(void **state)
{
    gr_config_t cfg;
    char err[256] = "";
    (void)state;

    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(
        parse(&cfg, "log.retention.hours=1\nlog.retention.minutes=2\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.log_retention_ms, 2 * 60000);
    assert_int_equal(parse(&cfg, "log.retention.ms=1234\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.log_retention_ms, 1234);
    assert_int_equal(parse(&cfg, "log.retention.ms=-5\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.log_retention_ms, -1);

    assert_int_equal(parse(&cfg, "log.roll.hours=2\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.log_roll_ms, 2 * 3600000LL);
    assert_int_equal(parse(&cfg, "log.roll.ms=999\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.log_roll_ms, 999);

    assert_int_equal(parse(&cfg, "log.dir=/one\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_string_equal(cfg.effective.log_dirs.items[0], "/one");
    assert_int_equal(parse(&cfg, "log.dirs=/two,/three\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.log_dirs.count, 2);
    assert_string_equal(cfg.effective.log_dirs.items[0], "/two");

    assert_int_equal(parse(&cfg, "log.flush.scheduler.interval.ms=77\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.log_flush_interval_ms, 77);
    assert_int_equal(parse(&cfg, "log.flush.interval.ms=5\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.log_flush_interval_ms, 5);

    assert_int_equal(parse(&cfg, "zookeeper.connection.timeout.ms=600\n", err, sizeof(err)), 0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.zookeeper_connection_timeout_ms, 600);
    gr_config_fini(&cfg);
}

/* Each bad value fails with a message naming the key and the value. */
static void test_invalid_values(void **state)
{
    static const struct {
        const char *line, *key, *value;
    } cases[] = {
        {"num.partitions=abc", "num.partitions", "abc"},
        {"num.partitions=0", "num.partitions", "0"},
        {"num.partitions=", "num.partitions", "''"},
        {"num.partitions=1.5", "num.partitions", "1.5"},
        {"num.partitions=2147483648", "num.partitions", "2147483648"},
        {"log.retention.bytes=9223372036854775808", "log.retention.bytes", "9223372036854775808"},
        {"offsets.topic.replication.factor=40000", "offsets.topic.replication.factor", "40000"},
        {"auto.create.topics.enable=yes", "auto.create.topics.enable", "yes"},
        {"compression.type=brotli", "compression.type", "brotli"},
        {"compression.type=GZIP", "compression.type", "GZIP"},
        {"log.cleanup.policy=delete,shred", "log.cleanup.policy", "shred"},
        {"log.message.timestamp.type=Now", "log.message.timestamp.type", "Now"},
        {"log.cleaner.min.cleanable.ratio=1.5", "log.cleaner.min.cleanable.ratio", "1.5"},
        {"log.cleaner.min.cleanable.ratio=half", "log.cleaner.min.cleanable.ratio", "half"},
        {"log.segment.bytes=10", "log.segment.bytes", "10"},
        {"broker.id=-2", "broker.id", "-2"},
        {"compression.gzip.level=0", "compression.gzip.level", "0"},
        {"compression.gzip.level=10", "compression.gzip.level", "10"},
        {"log.message.format.version=banana", "log.message.format.version", "banana"},
        {"inter.broker.protocol.version=3.9", "inter.broker.protocol.version", "3.9"},
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gr_config_t cfg;
        char err[256] = "";
        assert_int_equal(gr_config_init(&cfg), 0);
        assert_int_equal(parse(&cfg, cases[i].line, err, sizeof(err)), -EINVAL);
        if (strstr(err, cases[i].key) == NULL ||
            (strcmp(cases[i].value, "''") != 0 && strstr(err, cases[i].value) == NULL))
            fail_msg("case '%s': message '%s'", cases[i].line, err);
        gr_config_fini(&cfg);
    }
}

static void test_valid_edge_values(void **state)
{
    gr_config_t cfg;
    char err[256] = "";
    (void)state;

    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(parse(&cfg,
                           "log.cleanup.policy=compact, delete\n"
                           "compression.type=zstd\n"
                           "log.retention.bytes=-9223372036854775808\n"
                           "auto.create.topics.enable=False\n"
                           "log.cleaner.min.cleanable.ratio=0.25\n"
                           "num.partitions=+12\n"
                           "compression.gzip.level=9\n"
                           "log.message.format.version=0.10.0.0\n"
                           "inter.broker.protocol.version=2.8-IV1\n"
                           "advertised.listeners=\n",
                           err, sizeof(err)),
                     0);
    assert_int_equal(cfg.log_cleanup_policy.count, 2);
    assert_string_equal(cfg.log_cleanup_policy.items[0], "compact");
    assert_string_equal(cfg.log_cleanup_policy.items[1], "delete");
    assert_string_equal(cfg.compression_type, "zstd");
    assert_true(cfg.log_retention_bytes == INT64_MIN);
    assert_false(cfg.auto_create_topics_enable);
    assert_true(cfg.log_cleaner_min_cleanable_ratio == 0.25);
    assert_int_equal(cfg.num_partitions, 12);
    assert_null(cfg.advertised_listeners); /* empty = unset */
    assert_string_equal(cfg.log_message_format_version, "0.10.0.0");
    assert_string_equal(cfg.inter_broker_protocol_version, "2.8-IV1");
    gr_config_fini(&cfg);
}

static void test_overrides(void **state)
{
    gr_config_t cfg;
    char err[256] = "";
    char path[] = "/tmp/gr_config_test_XXXXXX";
    int fd = mkstemp(path);
    const char *text = "broker.id=3\nnum.partitions=bad\nlog.dirs=/from/file\n";
    const char *overrides[] = {"num.partitions=9", " log.dirs =/from/override", "foo.bar=1"};
    (void)state;

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);

    /* The file's bad num.partitions is replaced by the override before validation. */
    assert_int_equal(gr_config_load(&cfg, path, overrides, 3, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.broker_id, 3);
    assert_int_equal(cfg.num_partitions, 9);
    assert_string_equal(cfg.effective.log_dirs.items[0], "/from/override");
    gr_config_entry_t e;
    gr_config_entry(&cfg, (size_t)gr_config_find("num.partitions"), &e);
    assert_int_equal(e.source, GR_CONFIG_SOURCE_OVERRIDE);
    gr_config_entry(&cfg, (size_t)gr_config_find("broker.id"), &e);
    assert_int_equal(e.source, GR_CONFIG_SOURCE_FILE);
    gr_config_entry(&cfg, (size_t)gr_config_find("num.io.threads"), &e);
    assert_int_equal(e.source, GR_CONFIG_SOURCE_DEFAULT);

    /* gr_config_override on its own. */
    assert_int_equal(gr_config_override(&cfg, "num.partitions = 11", NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.num_partitions, 11);
    assert_int_equal(gr_config_override(&cfg, "no.such=1", NULL, err, sizeof(err)), 1);
    assert_int_equal(gr_config_override(&cfg, "noequals", NULL, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "noequals"));
    assert_int_equal(gr_config_override(&cfg, "num.partitions=x", NULL, err, sizeof(err)), -EINVAL);
    assert_int_equal(cfg.num_partitions, 11); /* old value kept */
    gr_config_fini(&cfg);

    /* A bad override fails the load. */
    const char *bad[] = {"num.partitions=-1"};
    assert_int_equal(gr_config_load(&cfg, path, bad, 1, NULL, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "num.partitions"));
    assert_non_null(strstr(err, "-1"));
    unlink(path);

    /* A missing file fails the load. */
    assert_int_equal(gr_config_load(&cfg, path, NULL, 0, NULL, err, sizeof(err)), -ENOENT);
    assert_non_null(strstr(err, path));
}

static void test_unknown_key_warns(void **state)
{
    gr_config_t cfg;
    gr_logger_t log;
    char err[256] = "", *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    (void)state;

    gr_logger_init(&log, f, GR_LOG_INFO);
    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(
        gr_config_parse_text(&cfg, "bogus.key=1\n", 12, "x.properties", &log, err, sizeof(err)), 0);
    fclose(f);
    assert_non_null(strstr(buf, "WARN"));
    assert_non_null(strstr(buf, "bogus.key"));
    free(buf);
    gr_config_fini(&cfg);
}

/* Resolves text over fresh defaults; err holds the reason when it fails. */
static int resolve_text(const char *text, int32_t *broker_id, char *err, size_t errlen)
{
    gr_config_t cfg;
    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(parse(&cfg, text, err, errlen), 0);
    int rc = gr_config_resolve(&cfg, NULL, err, errlen);
    *broker_id = cfg.broker_id;
    gr_config_fini(&cfg);
    return rc;
}

/* broker.id=-1 asks for a generated id (both modes); configured ids stay below the generated. */
static void test_broker_id_generation_rules(void **state)
{
    char err[256] = "";
    int32_t id = 0;
    (void)state;

    assert_int_equal(resolve_text("broker.id=-1\n", &id, err, sizeof err), 0);
    assert_int_equal(id, -1); /* generated at start-up, not here */
    assert_int_equal(
        resolve_text("broker.id=-1\nzookeeper.connect=localhost:2181\n", &id, err, sizeof err), 0);
    assert_int_equal(id, -1);
    assert_int_equal(resolve_text("broker.id=1000\n", &id, err, sizeof err), 0);
    assert_int_equal(id, 1000);

    assert_int_equal(resolve_text("broker.id=1001\n", &id, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "reserved.broker.max.id"));
    assert_int_equal(
        resolve_text("broker.id=1001\nreserved.broker.max.id=2000\n", &id, err, sizeof err), 0);
    assert_int_equal(resolve_text("broker.id=5\nreserved.broker.max.id=4\n", &id, err, sizeof err),
                     -EINVAL);
    /* Without generation no id is reserved for it. */
    assert_int_equal(
        resolve_text("broker.id=1001\nbroker.id.generation.enable=false\n", &id, err, sizeof err),
        0);

    err[0] = '\0';
    assert_int_equal(
        resolve_text("broker.id=-1\nbroker.id.generation.enable=false\n", &id, err, sizeof err),
        -EINVAL);
    assert_non_null(strstr(err, "broker.id.generation.enable"));
}

/* Gregor's own key for the /config/changes purge: Kafka's 15 minutes unless set. */
static void test_config_change_expiration(void **state)
{
    gr_config_t cfg;
    char err[256] = "";
    (void)state;

    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(cfg.gregor_config_change_expiration_ms, 15 * 60 * 1000);
    assert_int_equal(parse(&cfg, "gregor.config.change.expiration.ms=2500\n", err, sizeof err), 0);
    assert_int_equal(cfg.gregor_config_change_expiration_ms, 2500);
    assert_int_not_equal(parse(&cfg, "gregor.config.change.expiration.ms=0\n", err, sizeof err), 0);
    gr_config_fini(&cfg);
}

/* gregor.http.listener: one http:// or https:// address, the scheme giving the protocol. */
static void test_http_listener(void **state)
{
    gr_listener_spec_t spec;
    char err[256] = "";
    (void)state;

    assert_int_equal(gr_http_listener_parse("http://127.0.0.1:9644", &spec, err, sizeof err), 0);
    assert_string_equal(spec.host, "127.0.0.1");
    assert_int_equal(spec.port, 9644);
    assert_int_equal(spec.protocol, GR_SECURITY_PLAINTEXT);
    assert_int_equal(gr_http_listener_parse("HTTPS://[::1]:0", &spec, err, sizeof err), 0);
    assert_string_equal(spec.host, "::1");
    assert_int_equal(spec.port, 0);
    assert_int_equal(spec.protocol, GR_SECURITY_SSL);
    assert_int_equal(gr_http_listener_parse("http://:9644", &spec, err, sizeof err), 0);
    assert_string_equal(spec.host, "");

    static const char *const bad[] = {"ftp://x:1",   "127.0.0.1:9644",        "http://x",
                                      "http://x:-1", "http://a:1,http://b:2", "https://"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(gr_http_listener_parse(bad[i], &spec, err, sizeof err), -EINVAL);
        assert_non_null(strstr(err, "expected http://HOST:PORT or https://HOST:PORT"));
    }

    /* A bad value stops the broker at load, not once it has registered. */
    gr_config_t cfg;
    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(parse(&cfg, "gregor.http.listener=127.0.0.1:9644\n", err, sizeof err), 0);
    err[0] = '\0';
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "expected http://HOST:PORT or https://HOST:PORT"));
    gr_config_fini(&cfg);
}

static void test_listeners(void **state)
{
    gr_listener_list_t l;
    char err[256] = "";
    (void)state;

    assert_int_equal(gr_config_listeners_parse("PLAINTEXT://:9092, internal://10.0.0.1:0,"
                                               "V6://[::1]:19092",
                                               "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,"
                                               "v6:plaintext",
                                               &l, err, sizeof(err)),
                     0);
    assert_int_equal(l.count, 3);
    assert_string_equal(l.items[0].name, "PLAINTEXT");
    assert_string_equal(l.items[0].host, "");
    assert_int_equal(l.items[0].port, 9092);
    assert_string_equal(l.items[1].name, "INTERNAL");
    assert_string_equal(l.items[1].host, "10.0.0.1");
    assert_int_equal(l.items[1].port, 0);
    assert_string_equal(l.items[2].host, "::1");
    assert_int_equal(l.items[2].port, 19092);
    assert_int_equal(l.items[2].protocol, GR_SECURITY_PLAINTEXT);
    gr_config_listeners_free(&l);

    static const struct {
        const char *list, *map, *needle;
    } bad[] = {
        {"CLIENT://:9093", NULL, "CLIENT"},
        {"CLIENT://:9093", "CLIENT:BOGUS", "BOGUS"},
        {"CLIENT://:9093", "CLIENT", "NAME:PROTOCOL"},
        {"localhost:9092", NULL, "localhost:9092"},
        {"PLAINTEXT://host", NULL, "port"},
        {"PLAINTEXT://host:99999", NULL, "port"},
        {"PLAINTEXT://host:x", NULL, "port"},
        {"PLAINTEXT://:1,plaintext://:2", NULL, "more than once"},
        {"PLAINTEXT://[::1:9092", NULL, "ipv6"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(gr_config_listeners_parse(bad[i].list, bad[i].map, &l, err, sizeof(err)),
                         -EINVAL);
        if (strstr(err, bad[i].needle) == NULL)
            fail_msg("case '%s': message '%s'", bad[i].list, err);
    }
}

static void test_resolve_listener_rules(void **state)
{
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"listeners=SSL://:9093\n", "inter-broker listener PLAINTEXT"},
        {"listeners=\n", "listeners"},
        {"advertised.listeners=PLAINTEXT://0.0.0.0:9092\n", "0.0.0.0"},
        {"advertised.listeners=OTHER://h:1\nlistener.security.protocol.map=OTHER:PLAINTEXT,"
         "PLAINTEXT:PLAINTEXT\n",
         "OTHER"},
        {"inter.broker.listener.name=NOPE\n", "NOPE"},
        {"log.dirs=\nlog.dir=\n", "log"},
        {"group.min.session.timeout.ms=10\ngroup.max.session.timeout.ms=5\n", "group.min"},
        {"group.consumer.session.timeout.ms=30000\n", "group.consumer.min.session.timeout.ms"},
        {"group.consumer.heartbeat.interval.ms=20000\n", "group.consumer.max.heartbeat"},
        {"group.consumer.min.session.timeout.ms=1000\ngroup.consumer.session.timeout.ms=4000\n",
         "must be less than group.consumer.session.timeout.ms"},
        {"security.inter.broker.protocol=SSL\n", "inter-broker listener SSL"},
    };
    (void)state;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        gr_config_t cfg;
        char err[256] = "";
        assert_int_equal(gr_config_init(&cfg), 0);
        assert_int_equal(parse(&cfg, bad[i].text, err, sizeof(err)), 0);
        assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), -EINVAL);
        if (strstr(err, bad[i].needle) == NULL)
            fail_msg("case '%s': message '%s'", bad[i].text, err);
        gr_config_fini(&cfg);
    }

    gr_config_t cfg;
    char err[256] = "";
    assert_int_equal(gr_config_init(&cfg), 0);
    assert_int_equal(parse(&cfg,
                           "listeners=PLAINTEXT://:9092,REPL://127.0.0.1:9094\n"
                           "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,REPL:PLAINTEXT\n"
                           "advertised.listeners=PLAINTEXT://broker1:9092,REPL://127.0.0.1:9094\n"
                           "inter.broker.listener.name=repl\n",
                           err, sizeof(err)),
                     0);
    assert_int_equal(gr_config_resolve(&cfg, NULL, err, sizeof(err)), 0);
    assert_int_equal(cfg.effective.listeners.count, 2);
    assert_string_equal(cfg.effective.advertised_listeners.items[0].host, "broker1");
    gr_config_fini(&cfg);
}

/* The shipped config/server.properties loads cleanly. */
static void test_shipped_file(void **state)
{
    gr_config_t cfg;
    gr_logger_t log;
    char err[256] = "", *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    (void)state;

    gr_logger_init(&log, f, GR_LOG_WARN);
    int rc = gr_config_load(&cfg, GR_TEST_DATA_DIR "/../config/server.properties", NULL, 0, &log,
                            err, sizeof(err));
    fclose(f);
    if (rc != 0)
        fail_msg("%s", err);
    assert_string_equal(buf, ""); /* no unknown keys */
    free(buf);
    assert_string_equal(cfg.effective.listeners.items[0].host, "localhost");
    assert_int_equal(cfg.effective.listeners.items[0].port, 9092);
    assert_string_equal(cfg.effective.log_dirs.items[0], "/tmp/gregor-logs");
    gr_config_fini(&cfg);
}

/*
 * Kafka 4.x's group protocol keys: classic cannot be disabled, the policy is
 * one of four; share groups on by default, their settings within Kafka's bounds.
 */
static void test_group_protocol_keys(void **state)
{
    gr_config_t cfg;
    char err[256] = "";
    char path[] = "/tmp/gr_config_protocols_XXXXXX";
    int fd = mkstemp(path);
    const char *text = "broker.id=1\nlog.dirs=/tmp/x\n";
    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);

    assert_int_equal(gr_config_load(&cfg, path, NULL, 0, NULL, err, sizeof(err)), 0);
    assert_string_equal(cfg.group_consumer_migration_policy, "bidirectional");
    assert_true(gr_config_rebalance_protocol_enabled(&cfg, "classic"));
    assert_true(gr_config_rebalance_protocol_enabled(&cfg, "consumer"));
    assert_true(gr_config_rebalance_protocol_enabled(&cfg, "share")); /* Kafka 4.2: on */
    assert_int_equal(cfg.group_share_heartbeat_interval_ms, 5000);
    assert_int_equal(cfg.group_share_session_timeout_ms, 45000);
    assert_int_equal(cfg.group_share_max_size, 200);
    gr_config_fini(&cfg);

    const char *classic_only[] = {"group.coordinator.rebalance.protocols=classic",
                                  "group.consumer.migration.policy=upgrade"};
    assert_int_equal(gr_config_load(&cfg, path, classic_only, 2, NULL, err, sizeof(err)), 0);
    assert_false(gr_config_rebalance_protocol_enabled(&cfg, "consumer"));
    assert_string_equal(cfg.group_consumer_migration_policy, "upgrade");
    gr_config_fini(&cfg);

    const char *no_classic[] = {"group.coordinator.rebalance.protocols=consumer"};
    assert_int_equal(gr_config_load(&cfg, path, no_classic, 1, NULL, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "'classic'"));
    const char *bad_policy[] = {"group.consumer.migration.policy=sideways"};
    assert_int_equal(gr_config_load(&cfg, path, bad_policy, 1, NULL, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "group.consumer.migration.policy"));
    /* Share groups' bounds, as Kafka 4.2 checks them. */
    const char *short_session[] = {"group.share.session.timeout.ms=30000"};
    assert_int_equal(gr_config_load(&cfg, path, short_session, 1, NULL, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "group.share.min.session.timeout.ms"));
    const char *slow_heartbeat[] = {"group.share.heartbeat.interval.ms=20000"};
    assert_int_equal(gr_config_load(&cfg, path, slow_heartbeat, 1, NULL, err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "group.share.max.heartbeat.interval.ms"));
    const char *tiny[] = {"group.share.max.size=5"};
    assert_int_equal(gr_config_load(&cfg, path, tiny, 1, NULL, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "group.share.max.size"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_properties_format),
        cmocka_unit_test(test_even_backslashes_do_not_continue),
        cmocka_unit_test(test_duplicates_last_wins),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_invalid_values),
        cmocka_unit_test(test_valid_edge_values),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_unknown_key_warns),
        cmocka_unit_test(test_broker_id_generation_rules),
        cmocka_unit_test(test_config_change_expiration),
        cmocka_unit_test(test_listeners),
        cmocka_unit_test(test_http_listener),
        cmocka_unit_test(test_resolve_listener_rules),
        cmocka_unit_test(test_shipped_file),
        cmocka_unit_test(test_group_protocol_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
