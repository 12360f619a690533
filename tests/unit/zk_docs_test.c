/* SPDX-License-Identifier: Apache-2.0 */
/*
 * controller/zk_docs: each znode document Gregor writes (broker
 * registration, controller, partition state, assignment, config change)
 * parses back to what was written; documents in the form ZooKeeper-mode
 * Kafka writes them parse; malformed documents (missing keys, wrong types,
 * partition keys other than 0..N-1, bad uuids, truncated text) are refused
 * with -EINVAL and leave nothing allocated (the ASan build checks leaks).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metadata/zk_docs.h"

#define NOW_MS 1700000000123LL

/* Runs a builder's output through parse; the text stays in w until fini. */
static const char *finish(gr_zk_json_writer_t *w, size_t *len)
{
    const char *text = NULL;
    assert_int_equal(gr_zk_json_writer_finish(w, &text, len), 0);
    return text;
}

static void broker_round_trip(const char *host, const char *rack)
{
    gr_cluster_node_t in = {.id = 3, .port = 19092, .rack = (char *)rack, .endpoint_count = 1};
    snprintf(in.host, sizeof in.host, "%s", host);
    in.endpoints[0] = (gr_listener_spec_t){.name = "PLAINTEXT", .port = 19092};
    snprintf(in.endpoints[0].host, sizeof in.endpoints[0].host, "%s", host);
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_zk_doc_broker(&w, &in, NOW_MS), 0);
    size_t len = 0;
    const char *text = finish(&w, &len);
    gr_cluster_node_t out = {.id = 3};
    assert_int_equal(gr_zk_parse_broker(text, len, "PLAINTEXT", &out), 0);
    assert_string_equal(out.host, host);
    assert_int_equal(out.port, 19092);
    if (rack)
        assert_string_equal(out.rack, rack);
    else
        assert_null(out.rack);
    assert_non_null(strstr(text, "\"version\":5"));
    assert_non_null(strstr(text, "\"timestamp\":\"1700000000123\""));
    free(out.rack);
    gr_zk_json_writer_fini(&w);
}

static void test_broker_round_trip(void **state)
{
    (void)state;
    broker_round_trip("127.0.0.1", NULL);
    broker_round_trip("broker-1.example.com", "rack-a");
    broker_round_trip("::1", NULL);
    broker_round_trip("fe80::1:2:3", "eu-west-1b");
}

static void test_broker_ipv6_endpoint_bracketed(void **state)
{
    (void)state;
    gr_cluster_node_t in = {.port = 9092, .endpoint_count = 1};
    snprintf(in.host, sizeof in.host, "::1");
    in.endpoints[0] = (gr_listener_spec_t){.name = "PLAINTEXT", .host = "::1", .port = 9092};
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_zk_doc_broker(&w, &in, NOW_MS), 0);
    size_t len = 0;
    assert_non_null(strstr(finish(&w, &len), "\"PLAINTEXT://[::1]:9092\""));
    gr_zk_json_writer_fini(&w);
}

static int parse_broker_text(const char *text, gr_cluster_node_t *out)
{
    memset(out, 0, sizeof *out);
    return gr_zk_parse_broker(text, strlen(text), "PLAINTEXT", out);
}

/* Several listeners: all are written with their protocols, host/port follow the reader's
 * inter-broker listener. */
static void test_broker_listeners(void **state)
{
    (void)state;
    gr_cluster_node_t in = {.id = 1, .port = 9093, .endpoint_count = 2};
    snprintf(in.host, sizeof in.host, "b1");
    in.endpoints[0] = (gr_listener_spec_t){"CLIENT", "b1.example", 9092, GR_SECURITY_SASL_SSL};
    in.endpoints[1] = (gr_listener_spec_t){"INTERNAL", "b1", 9093, GR_SECURITY_SSL};
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_zk_doc_broker(&w, &in, NOW_MS), 0);
    size_t len = 0;
    const char *text = finish(&w, &len);
    assert_non_null(strstr(text, "\"CLIENT\":\"SASL_SSL\""));
    assert_non_null(strstr(text, "\"INTERNAL\":\"SSL\""));
    assert_non_null(strstr(text, "\"CLIENT://b1.example:9092\",\"INTERNAL://b1:9093\""));
    gr_cluster_node_t out;
    memset(&out, 0, sizeof out);
    assert_int_equal(gr_zk_parse_broker(text, len, "INTERNAL", &out), 0);
    assert_string_equal(out.host, "b1");
    assert_int_equal(out.port, 9093);
    assert_int_equal(out.endpoint_count, 2);
    assert_string_equal(out.endpoints[0].name, "CLIENT");
    assert_int_equal(out.endpoints[0].protocol, GR_SECURITY_SASL_SSL);
    assert_int_equal(out.endpoints[1].protocol, GR_SECURITY_SSL);
    assert_non_null(gr_cluster_node_endpoint(&out, "CLIENT"));
    assert_null(gr_cluster_node_endpoint(&out, "OTHER"));
    memset(&out, 0, sizeof out);
    assert_int_equal(gr_zk_parse_broker(text, len, "CLIENT", &out), 0);
    assert_string_equal(out.host, "b1.example");
    assert_int_equal(out.port, 9092);
    gr_zk_json_writer_fini(&w);
}

/* What a Kafka 3.8 broker registers (KafkaZkClient's broker info, version 5). */
static void test_broker_kafka_samples(void **state)
{
    (void)state;
    gr_cluster_node_t n;
    assert_int_equal(
        parse_broker_text(
            "{\"features\":{},\"listener_security_protocol_map\":{\"PLAINTEXT\":\"PLAINTEXT\"},"
            "\"endpoints\":[\"PLAINTEXT://kafka-0.local:9092\"],\"jmx_port\":-1,"
            "\"port\":9092,\"host\":\"kafka-0.local\",\"version\":5,"
            "\"timestamp\":\"1700000000000\"}",
            &n),
        0);
    assert_string_equal(n.host, "kafka-0.local");
    assert_int_equal(n.port, 9092);
    assert_null(n.rack);

    /* Two listeners, a rack, an IPv6 endpoint first; host/port null as Kafka writes them
     * when the first listener is not PLAINTEXT. */
    assert_int_equal(
        parse_broker_text(
            "{\"listener_security_protocol_map\":{\"INTERNAL\":\"PLAINTEXT\",\"SSL\":\"SSL\"},"
            "\"endpoints\":[\"INTERNAL://[2001:db8::7]:9093\",\"SSL://10.0.0.7:9094\"],"
            "\"rack\":\"r2\",\"jmx_port\":9999,\"host\":null,\"port\":-1,"
            "\"timestamp\":\"1700000000000\",\"version\":5}",
            &n),
        0);
    assert_string_equal(n.host, "2001:db8::7");
    assert_int_equal(n.port, 9093);
    assert_string_equal(n.rack, "r2");
    free(n.rack);

    /* An old registration (version 1): host and port only. */
    assert_int_equal(
        parse_broker_text("{\"jmx_port\":-1,\"timestamp\":\"1\",\"host\":\"old\",\"version\":1,"
                          "\"port\":9092}",
                          &n),
        0);
    assert_string_equal(n.host, "old");
    assert_int_equal(n.port, 9092);
}

static void test_broker_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "{",
        "[]",
        "{\"version\":5}",
        "{\"endpoints\":[\"no-scheme:9092\"]}",
        "{\"endpoints\":[\"PLAINTEXT://noport\"]}",
        "{\"endpoints\":[\"PLAINTEXT://h:port\"]}",
        "{\"endpoints\":[\"PLAINTEXT://h:70000\"]}",
        "{\"endpoints\":[9092]}",
        "{\"endpoints\":\"PLAINTEXT://h:9092\"}",
        "{\"host\":\"h\"}",
        "{\"host\":\"h\",\"port\":\"9092\"}",
        "{\"host\":7,\"port\":9092}",
        "{\"endpoints\":[\"PLAINTEXT://h:9092\"],\"rack\":\"r\"",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_cluster_node_t n;
        assert_int_equal(parse_broker_text(bad[i], &n), -EINVAL);
        assert_null(n.rack);
    }
}

static void test_controller(void **state)
{
    (void)state;
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_zk_doc_controller(&w, 42, NOW_MS), 0);
    size_t len = 0;
    const char *text = finish(&w, &len);
    assert_string_equal(text, "{\"version\":1,\"brokerid\":42,\"timestamp\":\"1700000000123\"}");
    int32_t id = -1;
    assert_int_equal(gr_zk_parse_controller(text, len, &id), 0);
    assert_int_equal(id, 42);
    gr_zk_json_writer_fini(&w);

    /* Kafka 3.8 adds kraftControllerEpoch in migration mode; extra keys are ignored. */
    const char *kafka =
        "{\"version\":2,\"brokerid\":7,\"timestamp\":\"1\",\"kraftControllerEpoch\":-1}";
    assert_int_equal(gr_zk_parse_controller(kafka, strlen(kafka), &id), 0);
    assert_int_equal(id, 7);
    static const char *const bad[] = {
        "{}", "{\"brokerid\":\"1\"}", "{\"brokerid\":1.5}", "{\"brokerid\":4294967296}",
        "1",  "{\"brokerid\":1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gr_zk_parse_controller(bad[i], strlen(bad[i]), &id), -EINVAL);
}

static void test_partition_state(void **state)
{
    (void)state;
    int32_t isr[] = {2, 0, 1};
    gr_zk_partition_state_t in = {
        .leader = 2, .leader_epoch = 17, .controller_epoch = 5, .isr = isr, .isr_count = 3};
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_zk_doc_partition_state(&w, &in), 0);
    size_t len = 0;
    const char *text = finish(&w, &len);
    gr_zk_partition_state_t out;
    assert_int_equal(gr_zk_parse_partition_state(text, len, &out), 0);
    assert_int_equal(out.leader, 2);
    assert_int_equal(out.leader_epoch, 17);
    assert_int_equal(out.controller_epoch, 5);
    assert_int_equal(out.isr_count, 3);
    assert_memory_equal(out.isr, isr, sizeof isr);
    gr_zk_partition_state_free(&out);
    gr_zk_json_writer_fini(&w);

    /* Kafka's form, an offline partition with an empty ISR, and a recovery state key. */
    const char *kafka = "{\"controller_epoch\":3,\"leader\":-1,\"version\":1,\"leader_epoch\":9,"
                        "\"isr\":[],\"leader_recovery_state\":0}";
    assert_int_equal(gr_zk_parse_partition_state(kafka, strlen(kafka), &out), 0);
    assert_int_equal(out.leader, -1);
    assert_int_equal(out.leader_epoch, 9);
    assert_int_equal(out.isr_count, 0);
    gr_zk_partition_state_free(&out);

    static const char *const bad[] = {
        "{\"leader\":1,\"leader_epoch\":1,\"controller_epoch\":1}",
        "{\"leader\":1,\"leader_epoch\":1,\"isr\":[1]}",
        "{\"leader\":\"1\",\"leader_epoch\":1,\"controller_epoch\":1,\"isr\":[1]}",
        "{\"leader\":1,\"leader_epoch\":1,\"controller_epoch\":1,\"isr\":[1,\"2\"]}",
        "{\"leader\":1,\"leader_epoch\":1,\"controller_epoch\":1,\"isr\":{}}",
        "{\"leader\":1,\"leader_epoch\":1,\"controller_epoch\":1,\"isr\":[3000000000]}",
        "{\"leader\":1,\"leader_epoch\":1,\"controller_epoch\":1,\"isr\":[1]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(gr_zk_parse_partition_state(bad[i], strlen(bad[i]), &out), -EINVAL);
        assert_null(out.isr);
    }
}

static void test_assignment_round_trip(void **state)
{
    (void)state;
    int32_t p0[] = {0}, p1[] = {1, 2}, p2[] = {2, 0, 1};
    int32_t *replicas[] = {p0, p1, p2};
    int32_t counts[] = {1, 2, 3};
    gr_zk_assignment_t in = {
        .has_id = true, .partition_count = 3, .replicas = replicas, .replica_counts = counts};
    for (int i = 0; i < 16; i++)
        in.id.b[i] = (uint8_t)(0xf0 ^ i * 13);
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_zk_doc_assignment(&w, &in), 0);
    size_t len = 0;
    const char *text = finish(&w, &len);
    gr_zk_assignment_t out;
    assert_int_equal(gr_zk_parse_assignment(text, len, &out), 0);
    assert_true(out.has_id);
    assert_memory_equal(out.id.b, in.id.b, 16);
    assert_int_equal(out.partition_count, 3);
    for (int p = 0; p < 3; p++) {
        assert_int_equal(out.replica_counts[p], counts[p]);
        assert_memory_equal(out.replicas[p], replicas[p], (size_t)counts[p] * sizeof(int32_t));
    }
    gr_zk_assignment_free(&out);
    gr_zk_json_writer_fini(&w);
}

static void test_assignment_kafka_samples(void **state)
{
    (void)state;
    /* Kafka 3.8's version 3 document, partitions in no particular order. */
    const char *v3 = "{\"partitions\":{\"2\":[1,0],\"0\":[0,1],\"1\":[1,0]},"
                     "\"topic_id\":\"AAECAwQFBgcICQoLDA0ODw\",\"adding_replicas\":{},"
                     "\"removing_replicas\":{},\"version\":3}";
    gr_zk_assignment_t a;
    assert_int_equal(gr_zk_parse_assignment(v3, strlen(v3), &a), 0);
    assert_true(a.has_id);
    for (int i = 0; i < 16; i++)
        assert_int_equal(a.id.b[i], i);
    assert_int_equal(a.partition_count, 3);
    assert_int_equal(a.replicas[2][0], 1);
    assert_int_equal(a.replicas[0][0], 0);
    gr_zk_assignment_free(&a);
    /* An old topic (version 1, before topic ids). */
    const char *v1 = "{\"version\":1,\"partitions\":{\"0\":[5]}}";
    assert_int_equal(gr_zk_parse_assignment(v1, strlen(v1), &a), 0);
    assert_false(a.has_id);
    assert_int_equal(a.partition_count, 1);
    assert_int_equal(a.replicas[0][0], 5);
    gr_zk_assignment_free(&a);
}

/* A reassignment in progress survives a write and a read: a next controller resumes from it. */
static void test_assignment_reassignment_round_trip(void **state)
{
    (void)state;
    int32_t p0[] = {1, 2, 0}, p1[] = {1, 2};
    int32_t a0[] = {1, 2}, r0[] = {0};
    int32_t *replicas[] = {p0, p1}, *adding[] = {a0, NULL}, *removing[] = {r0, NULL};
    int32_t counts[] = {3, 2}, adding_counts[] = {2, 0}, removing_counts[] = {1, 0};
    gr_zk_assignment_t in = {.has_id = true,
                             .partition_count = 2,
                             .replicas = replicas,
                             .replica_counts = counts,
                             .adding = adding,
                             .adding_counts = adding_counts,
                             .removing = removing,
                             .removing_counts = removing_counts};
    assert_true(gr_zk_assignment_reassigning(&in));
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_zk_doc_assignment(&w, &in), 0);
    size_t len = 0;
    const char *text = finish(&w, &len);
    assert_non_null(strstr(text, "\"adding_replicas\":{\"0\":[1,2]}"));
    assert_non_null(strstr(text, "\"removing_replicas\":{\"0\":[0]}"));
    gr_zk_assignment_t out;
    assert_int_equal(gr_zk_parse_assignment(text, len, &out), 0);
    assert_true(gr_zk_assignment_reassigning(&out));
    assert_int_equal(out.adding_counts[0], 2);
    assert_memory_equal(out.adding[0], a0, sizeof a0);
    assert_int_equal(out.removing_counts[0], 1);
    assert_int_equal(out.removing[0][0], 0);
    assert_int_equal(out.adding_counts[1], 0);
    assert_int_equal(out.removing_counts[1], 0);
    gr_zk_assignment_free(&out);
    gr_zk_json_writer_fini(&w);

    /* Empty objects (Kafka's idle document): nothing in progress. */
    const char *idle = "{\"partitions\":{\"0\":[0]},\"adding_replicas\":{},"
                       "\"removing_replicas\":{},\"version\":3}";
    assert_int_equal(gr_zk_parse_assignment(idle, strlen(idle), &out), 0);
    assert_false(gr_zk_assignment_reassigning(&out));
    gr_zk_assignment_free(&out);
    /* Only one side given: the other is empty. */
    const char *one = "{\"partitions\":{\"0\":[2,0]},\"adding_replicas\":{\"0\":[2]},"
                      "\"version\":3}";
    assert_int_equal(gr_zk_parse_assignment(one, strlen(one), &out), 0);
    assert_true(gr_zk_assignment_reassigning(&out));
    assert_int_equal(out.removing_counts[0], 0);
    gr_zk_assignment_free(&out);
    static const char *const bad[] = {
        "{\"partitions\":{\"0\":[0]},\"adding_replicas\":{\"1\":[1]}}",
        "{\"partitions\":{\"0\":[0]},\"adding_replicas\":[1]}",
        "{\"partitions\":{\"0\":[0]},\"removing_replicas\":{\"0\":[\"x\"]}}",
        "{\"partitions\":{\"0\":[0]},\"removing_replicas\":{\"0\":[1],\"0\":[2]}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(gr_zk_parse_assignment(bad[i], strlen(bad[i]), &out), -EINVAL);
        assert_null(out.adding);
        assert_null(out.removing);
    }
}

/* /admin/reassign_partitions as older kafka-reassign-partitions.sh writes it. */
static void test_moves(void **state)
{
    (void)state;
    const char *doc = "{\"version\":1,\"partitions\":[{\"topic\":\"foo\",\"partition\":1,"
                      "\"replicas\":[2,3],\"log_dirs\":[\"any\",\"any\"]},"
                      "{\"topic\":\"bar\",\"partition\":0,\"replicas\":[1]}]}";
    gr_zk_move_t *moves = NULL;
    int32_t count = 0;
    assert_int_equal(gr_zk_parse_moves(doc, strlen(doc), &moves, &count), 0);
    assert_int_equal(count, 2);
    assert_string_equal(moves[0].topic, "foo");
    assert_int_equal(moves[0].partition, 1);
    assert_int_equal(moves[0].replica_count, 2);
    assert_int_equal(moves[0].replicas[1], 3);
    assert_string_equal(moves[1].topic, "bar");
    assert_int_equal(moves[1].replicas[0], 1);
    /* Written back without the first: what the controller leaves once that move is done. */
    const gr_zk_move_t *left[] = {&moves[1]};
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_zk_doc_moves(&w, left, 1), 0);
    size_t len = 0;
    const char *text = finish(&w, &len);
    assert_string_equal(text, "{\"version\":1,\"partitions\":[{\"topic\":\"bar\","
                              "\"partition\":0,\"replicas\":[1]}]}");
    gr_zk_json_writer_fini(&w);
    gr_zk_moves_free(moves, count);
    static const char *const bad[] = {
        "{\"version\":1}",
        "{\"version\":1,\"partitions\":{}}",
        "{\"version\":1,\"partitions\":[{\"partition\":0,\"replicas\":[1]}]}",
        "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"replicas\":[1]}]}",
        "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}",
        "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[\"1\"]}]}",
        "{\"version\":1,\"partitions\":[{\"topic\":7,\"partition\":0,\"replicas\":[1]}]}",
        "not json",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(gr_zk_parse_moves(bad[i], strlen(bad[i]), &moves, &count), -EINVAL);
        assert_null(moves);
        assert_int_equal(count, 0);
    }
}

static void test_assignment_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "{\"version\":3}",
        "{\"partitions\":{}}",
        "{\"partitions\":[[0]]}",
        "{\"partitions\":{\"1\":[0]}}",
        "{\"partitions\":{\"0\":[0],\"2\":[0]}}",
        "{\"partitions\":{\"0\":[0],\"0\":[1]}}",
        "{\"partitions\":{\"0\":[0],\"01\":[1]}}",
        "{\"partitions\":{\"-1\":[0],\"0\":[1]}}",
        "{\"partitions\":{\"x\":[0]}}",
        "{\"partitions\":{\"0\":[0],\"1\":\"1\"}}",
        "{\"partitions\":{\"0\":[0],\"1\":[true]}}",
        "{\"partitions\":{\"0\":[0]},\"topic_id\":\"short\"}",
        "{\"partitions\":{\"0\":[0]},\"topic_id\":\"AAECAwQFBgcICQoLDA0OD!\"}",
        "{\"partitions\":{\"0\":[0],\"1\":[1]},\"topic_id\":\"AAECAwQFBgcICQoLDA0ODw\"",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_zk_assignment_t a;
        assert_int_equal(gr_zk_parse_assignment(bad[i], strlen(bad[i]), &a), -EINVAL);
        assert_null(a.replicas);
        assert_null(a.replica_counts);
    }
}

static void test_config_change(void **state)
{
    (void)state;
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    assert_int_equal(gr_zk_doc_config_change(&w, "orders.v2"), 0);
    size_t len = 0;
    const char *text = finish(&w, &len);
    assert_string_equal(text, "{\"version\":2,\"entity_path\":\"topics/orders.v2\"}");
    char topic[256];
    assert_int_equal(gr_zk_parse_config_change(text, len, topic, sizeof topic), 0);
    assert_string_equal(topic, "orders.v2");
    gr_zk_json_writer_fini(&w);

    const char *kafka = "{\"entity_path\":\"topics/t_1\",\"version\":2}";
    assert_int_equal(gr_zk_parse_config_change(kafka, strlen(kafka), topic, sizeof topic), 0);
    assert_string_equal(topic, "t_1");
    /* Other entities, missing or mistyped keys, too long a name: refused. */
    static const char *const bad[] = {
        "{\"version\":2,\"entity_path\":\"brokers/1\"}",
        "{\"version\":2,\"entity_path\":\"clients/c\"}",
        "{\"version\":2,\"entity_path\":\"topics/\"}",
        "{\"version\":2}",
        "{\"version\":2,\"entity_path\":7}",
        "{\"version\":2,\"entity_path\":\"topics/t\"",
        "{\"version\":2,\"entity_path\":\"topics/abcdefgh\"}",
    };
    char small[8];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gr_zk_parse_config_change(bad[i], strlen(bad[i]), small, sizeof small),
                         -EINVAL);
}

static void test_int32(void **state)
{
    (void)state;
    int32_t v = 0;
    assert_int_equal(gr_zk_parse_int32("17", 2, &v), 0);
    assert_int_equal(v, 17);
    assert_int_equal(gr_zk_parse_int32("-1", 2, &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(gr_zk_parse_int32("", 0, &v), -EINVAL);
    assert_int_equal(gr_zk_parse_int32("12x", 3, &v), -EINVAL);
    assert_int_equal(gr_zk_parse_int32("2147483648", 10, &v), -EINVAL);
    assert_int_equal(gr_zk_parse_int32("12345678901234567890", 20, &v), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broker_round_trip),
        cmocka_unit_test(test_broker_ipv6_endpoint_bracketed),
        cmocka_unit_test(test_broker_kafka_samples),
        cmocka_unit_test(test_broker_listeners),
        cmocka_unit_test(test_broker_malformed),
        cmocka_unit_test(test_controller),
        cmocka_unit_test(test_partition_state),
        cmocka_unit_test(test_assignment_round_trip),
        cmocka_unit_test(test_assignment_kafka_samples),
        cmocka_unit_test(test_assignment_malformed),
        cmocka_unit_test(test_assignment_reassignment_round_trip),
        cmocka_unit_test(test_moves),
        cmocka_unit_test(test_config_change),
        cmocka_unit_test(test_int32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
