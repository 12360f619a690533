/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The KIP-848 consumer-group records of proto/consumer_offsets.gp against
 * byte vectors written by hand from Kafka's schemas: each record's int16
 * prefix (the record type before a key, the version before a value) and
 * fields encode to exactly those bytes, the bytes decode back to the same
 * values (compared through the generated dump), and re-encoding the decoded
 * record gives the bytes again. The tagged fields are checked both absent
 * (at their default) and present, since Kafka releases after 4.0 write
 * them and older ones do not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gen/consumer_offsets.h"
#include "protocol/codec.h"

#define VALUE_VERSION 0

/* Prints both byte strings in hex so a mismatch shows where it starts. */
static void print_hex(const char *label, const uint8_t *p, size_t n)
{
    fprintf(stderr, "  %s (%zu):", label, n);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %02x", p[i]);
    fprintf(stderr, "\n");
}

static void expect_bytes(const gr_writer_t *w, const uint8_t *want, size_t want_len)
{
    if (w->len != want_len || memcmp(w->buf, want, want_len) != 0) {
        print_hex("got ", w->buf, w->len);
        print_hex("want", want, want_len);
        fail_msg("encoded bytes differ");
    }
}

static void dump_of(const gr_codec_desc_t *d, int16_t v, const void *msg, gr_writer_t *text)
{
    gr_writer_init(text);
    d->dump(text, v, msg);
    gr_write_int8(text, 0);
}

/*
 * Encodes msg after the int16 prefix, checks the bytes, decodes them (prefix
 * first), checks the decoded record dumps like msg, and re-encodes it.
 */
static void round_trip(const gr_codec_desc_t *d, int16_t prefix, int16_t v, const void *msg,
                       const uint8_t *want, size_t want_len)
{
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_int16(&w, prefix);
    assert_int_equal(d->encode(&w, v, msg), 0);
    expect_bytes(&w, want, want_len);
    assert_int_equal(d->size(v, msg), want_len - sizeof(int16_t));

    gr_arena_t arena;
    gr_arena_init(&arena);
    void *back = calloc(1, d->struct_size);
    assert_non_null(back);
    d->init(back);
    gr_reader_t r;
    gr_reader_init(&r, want, want_len);
    assert_int_equal(gr_read_int16(&r), prefix);
    assert_int_equal(d->decode(&r, v, &arena, back), 0);
    assert_int_equal(gr_reader_left(&r), 0);

    gr_writer_t a, b;
    dump_of(d, v, msg, &a);
    dump_of(d, v, back, &b);
    assert_string_equal((const char *)a.buf, (const char *)b.buf);
    gr_writer_fini(&a);
    gr_writer_fini(&b);

    gr_writer_reset(&w);
    gr_write_int16(&w, prefix);
    assert_int_equal(d->encode(&w, v, back), 0);
    expect_bytes(&w, want, want_len);

    free(back);
    gr_arena_fini(&arena);
    gr_writer_fini(&w);
}

static const gr_uuid_t TOPIC_A = {{0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a,
                                   0x1b, 0x1c, 0x1d, 0x1e, 0x1f}};
#define TOPIC_A_BYTES                                                                              \
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f

static void test_record_types(void **state)
{
    (void)state;
    /* Kafka's CoordinatorRecordType numbers, which are on disk. */
    assert_int_equal(GR_COORDINATOR_RECORD_TYPE_OFFSET_COMMIT, 1);
    assert_int_equal(GR_COORDINATOR_RECORD_TYPE_GROUP_METADATA, 2);
    assert_int_equal(GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_METADATA, 3);
    assert_int_equal(GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_PARTITION_METADATA, 4);
    assert_int_equal(GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_MEMBER_METADATA, 5);
    assert_int_equal(GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, 6);
    assert_int_equal(GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, 7);
    assert_int_equal(GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, 8);
    assert_int_equal(GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_REGULAR_EXPRESSION, 16);
}

/* Keys: the record type, then classic (non-flexible) int16-length strings. */
static void test_keys(void **state)
{
    (void)state;
    gr_consumer_group_metadata_key_t gk = {.group_id = gr_str("g1")};
    const uint8_t gk_bytes[] = {0x00, 0x03, 0x00, 0x02, 'g', '1'};
    round_trip(&gr_consumer_group_metadata_key_desc,
               GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_METADATA, 3, &gk, gk_bytes,
               sizeof gk_bytes);

    gr_consumer_group_partition_metadata_key_t pk = {.group_id = gr_str("g1")};
    const uint8_t pk_bytes[] = {0x00, 0x04, 0x00, 0x02, 'g', '1'};
    round_trip(&gr_consumer_group_partition_metadata_key_desc,
               GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_PARTITION_METADATA, 4, &pk, pk_bytes,
               sizeof pk_bytes);

    gr_consumer_group_member_metadata_key_t mk = {.group_id = gr_str("g1"),
                                                  .member_id = gr_str("m1")};
    const uint8_t mk_bytes[] = {0x00, 0x05, 0x00, 0x02, 'g', '1', 0x00, 0x02, 'm', '1'};
    round_trip(&gr_consumer_group_member_metadata_key_desc,
               GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_MEMBER_METADATA, 5, &mk, mk_bytes,
               sizeof mk_bytes);

    gr_consumer_group_target_assignment_metadata_key_t tk = {.group_id = gr_str("g1")};
    const uint8_t tk_bytes[] = {0x00, 0x06, 0x00, 0x02, 'g', '1'};
    round_trip(&gr_consumer_group_target_assignment_metadata_key_desc,
               GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, 6, &tk,
               tk_bytes, sizeof tk_bytes);

    gr_consumer_group_target_assignment_member_key_t tmk = {.group_id = gr_str("g1"),
                                                            .member_id = gr_str("m1")};
    const uint8_t tmk_bytes[] = {0x00, 0x07, 0x00, 0x02, 'g', '1', 0x00, 0x02, 'm', '1'};
    round_trip(&gr_consumer_group_target_assignment_member_key_desc,
               GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, 7, &tmk,
               tmk_bytes, sizeof tmk_bytes);

    gr_consumer_group_current_member_assignment_key_t ck = {.group_id = gr_str("g1"),
                                                            .member_id = gr_str("m1")};
    const uint8_t ck_bytes[] = {0x00, 0x08, 0x00, 0x02, 'g', '1', 0x00, 0x02, 'm', '1'};
    round_trip(&gr_consumer_group_current_member_assignment_key_desc,
               GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, 8, &ck,
               ck_bytes, sizeof ck_bytes);

    gr_consumer_group_regular_expression_key_t rk = {.group_id = gr_str("g1"),
                                                     .regular_expression = gr_str("t.*")};
    const uint8_t rk_bytes[] = {0x00, 0x10, 0x00, 0x02, 'g', '1', 0x00, 0x03, 't', '.', '*'};
    round_trip(&gr_consumer_group_regular_expression_key_desc,
               GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_REGULAR_EXPRESSION, 16, &rk, rk_bytes,
               sizeof rk_bytes);
}

static void test_group_metadata_value(void **state)
{
    (void)state;
    const gr_codec_desc_t *d = &gr_consumer_group_metadata_value_desc;
    gr_consumer_group_metadata_value_t v;
    gr_consumer_group_metadata_value_init(&v);
    assert_int_equal(v.metadata_hash, 0);
    assert_int_equal(v.creation_time_ms, -1);
    v.epoch = 5;
    /* Both tagged fields at their defaults: an empty tag section. */
    const uint8_t plain[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00};
    round_trip(d, VALUE_VERSION, VALUE_VERSION, &v, plain, sizeof plain);

    v.metadata_hash = 0x0102030405060708;
    v.creation_time_ms = 1000;
    const uint8_t tagged[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x05, /* epoch */
                              0x02,                               /* two tags */
                              0x00, 0x08, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                              0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8};
    round_trip(d, VALUE_VERSION, VALUE_VERSION, &v, tagged, sizeof tagged);
}

static void test_partition_metadata_value(void **state)
{
    (void)state;
    gr_str_t racks[] = {gr_str("r1")};
    gr_consumer_group_partition_metadata_value_partition_metadata_t part = {
        .partition = 0, .racks = racks, .racks_count = 1};
    gr_consumer_group_partition_metadata_value_topic_metadata_t topic = {
        .topic_id = TOPIC_A,
        .topic_name = gr_str("t"),
        .num_partitions = 3,
        .partition_metadata = &part,
        .partition_metadata_count = 1};
    gr_consumer_group_partition_metadata_value_t v = {.topics = &topic, .topics_count = 1};
    const uint8_t want[] = {0x00,          0x00,                               /* version */
                            0x02,                                              /* one topic */
                            TOPIC_A_BYTES, 0x02, 't',  0x00, 0x00, 0x00, 0x03, /* partitions */
                            0x02,                            /* one partition entry */
                            0x00,          0x00, 0x00, 0x00, /* partition 0 */
                            0x02,          0x03, 'r',  '1',  /* racks ["r1"] */
                            0x00,                            /* partition entry tags */
                            0x00,                            /* topic tags */
                            0x00};                           /* record tags */
    round_trip(&gr_consumer_group_partition_metadata_value_desc, VALUE_VERSION, VALUE_VERSION, &v,
               want, sizeof want);
}

static void test_member_metadata_value(void **state)
{
    (void)state;
    const gr_codec_desc_t *d = &gr_consumer_group_member_metadata_value_desc;
    gr_str_t topics[] = {gr_str("a"), gr_str("b")};
    gr_consumer_group_member_metadata_value_t v;
    gr_consumer_group_member_metadata_value_init(&v);
    assert_int_equal(v.rebalance_timeout_ms, -1);
    assert_null(v.classic_member_metadata);
    v.instance_id = gr_str(NULL);
    v.rack_id = gr_str("r");
    v.client_id = gr_str("c");
    v.client_host = gr_str("/h");
    v.subscribed_topic_names = topics;
    v.subscribed_topic_names_count = 2;
    v.subscribed_topic_regex = gr_str(NULL);
    v.rebalance_timeout_ms = 30000;
    v.server_assignor = gr_str("uniform");
    const uint8_t plain[] = {0x00, 0x00,                                 /* version */
                             0x00,                                       /* instance id: null */
                             0x02, 'r',                                  /* rack */
                             0x02, 'c',                                  /* client id */
                             0x03, '/',  'h',                            /* client host */
                             0x03, 0x02, 'a',  0x02, 'b',                /* subscribed names */
                             0x00,                                       /* regex: null */
                             0x00, 0x00, 0x75, 0x30,                     /* rebalance timeout */
                             0x08, 'u',  'n',  'i',  'f', 'o', 'r', 'm', /* assignor */
                             0x00};                                      /* no tags */
    round_trip(d, VALUE_VERSION, VALUE_VERSION, &v, plain, sizeof plain);

    /* A member that joined with the classic protocol: tag 0, a nullable struct. */
    uint8_t meta[] = {0x01, 0x02};
    gr_consumer_group_member_metadata_value_classic_protocol_t proto = {.name = gr_str("range"),
                                                                        .metadata = {meta, 2}};
    gr_consumer_group_member_metadata_value_classic_member_metadata_t classic = {
        .session_timeout_ms = 10000, .supported_protocols = &proto, .supported_protocols_count = 1};
    v.classic_member_metadata = &classic;
    v.subscribed_topic_names_count = 0;
    v.subscribed_topic_regex = gr_str("a|b");
    v.server_assignor = gr_str(NULL);
    const uint8_t tagged[] = {
        0x00, 0x00, 0x00, 0x02, 'r',  0x02, 'c',  0x03, '/',  'h',  0x01, /* no subscribed names */
        0x04, 'a',  '|',  'b',                                            /* regex */
        0x00, 0x00, 0x75, 0x30, 0x00,                               /* timeout, assignor null */
        0x01,                                                       /* one tag */
        0x00, 0x11,                                                 /* tag 0, 17 bytes */
        0x01,                                                       /* present */
        0x00, 0x00, 0x27, 0x10,                                     /* session timeout */
        0x02,                                                       /* one protocol */
        0x06, 'r',  'a',  'n',  'g',  'e',  0x03, 0x01, 0x02, 0x00, /* protocol tags */
        0x00};                                                      /* classic struct tags */
    round_trip(d, VALUE_VERSION, VALUE_VERSION, &v, tagged, sizeof tagged);
}

static void test_target_assignment_values(void **state)
{
    (void)state;
    gr_consumer_group_target_assignment_metadata_value_t m;
    gr_consumer_group_target_assignment_metadata_value_init(&m);
    m.assignment_epoch = 7;
    const uint8_t plain[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00};
    round_trip(&gr_consumer_group_target_assignment_metadata_value_desc, VALUE_VERSION,
               VALUE_VERSION, &m, plain, sizeof plain);
    m.assignment_timestamp = 0x100;
    const uint8_t stamped[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x01, 0x00, 0x08,
                               0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00};
    round_trip(&gr_consumer_group_target_assignment_metadata_value_desc, VALUE_VERSION,
               VALUE_VERSION, &m, stamped, sizeof stamped);

    int32_t parts[] = {0, 2};
    gr_consumer_group_target_assignment_member_value_topic_partition_t tp = {
        .topic_id = TOPIC_A, .partitions = parts, .partitions_count = 2};
    gr_consumer_group_target_assignment_member_value_t v = {.topic_partitions = &tp,
                                                            .topic_partitions_count = 1};
    const uint8_t want[] = {0x00, 0x00, 0x02, TOPIC_A_BYTES, 0x03, 0x00, 0x00, 0x00,
                            0x00, 0x00, 0x00, 0x00,          0x02, 0x00, 0x00};
    round_trip(&gr_consumer_group_target_assignment_member_value_desc, VALUE_VERSION, VALUE_VERSION,
               &v, want, sizeof want);
}

static void test_current_member_assignment_value(void **state)
{
    (void)state;
    const gr_codec_desc_t *d = &gr_consumer_group_current_member_assignment_value_desc;
    int32_t owned[] = {1};
    int32_t epochs[] = {4};
    gr_consumer_group_current_member_assignment_value_topic_partitions_t tp;
    gr_consumer_group_current_member_assignment_value_topic_partitions_init(&tp);
    /* Kafka's schema gives no default, so the default is an empty array and
     * a null one is written out (tag 0 holding a null array). */
    assert_false(tp.assignment_epochs_null);
    tp.topic_id = TOPIC_A;
    tp.partitions = owned;
    tp.partitions_count = 1;
    gr_consumer_group_current_member_assignment_value_t v;
    gr_consumer_group_current_member_assignment_value_init(&v);
    v.member_epoch = 4;
    v.previous_member_epoch = 3;
    v.state = GR_CONSUMER_GROUP_MEMBER_STATE_UNREVOKED_PARTITIONS;
    v.assigned_partitions = &tp;
    v.assigned_partitions_count = 1;
    const uint8_t plain[] = {
        0x00, 0x00,          0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x01, /* state */
        0x02, TOPIC_A_BYTES, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, /* nothing pending revocation
                                                                        */
        0x00};                                                         /* record tags */
    round_trip(d, VALUE_VERSION, VALUE_VERSION, &v, plain, sizeof plain);

    /* Kafka 4.3's per-partition assignment epochs: tag 0 of the topic entry. */
    tp.assignment_epochs = epochs;
    tp.assignment_epochs_count = 1;
    tp.assignment_epochs_null = false;
    const uint8_t tagged[] = {
        0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x01, 0x02, TOPIC_A_BYTES, 0x02,
        0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x05, 0x02, 0x00, 0x00, 0x00, 0x04, /* epochs [4] */
        0x01, 0x00};
    round_trip(d, VALUE_VERSION, VALUE_VERSION, &v, tagged, sizeof tagged);

    tp.assignment_epochs = NULL;
    tp.assignment_epochs_count = 0;
    tp.assignment_epochs_null = true;
    const uint8_t
        null_epochs[] = {0x00, 0x00, 0x00, 0x00, 0x00,          0x04, 0x00, 0x00,
                         0x00, 0x03, 0x01, 0x02, TOPIC_A_BYTES, 0x02, 0x00, 0x00,
                         0x00, 0x01, 0x01, 0x00, 0x01,          0x00, /* tag 0: a null array */
                         0x01, 0x00};
    round_trip(d, VALUE_VERSION, VALUE_VERSION, &v, null_epochs, sizeof null_epochs);
}

static void test_regular_expression_value(void **state)
{
    (void)state;
    gr_str_t topics[] = {gr_str("t1")};
    gr_consumer_group_regular_expression_value_t v = {
        .topics = topics, .topics_count = 1, .version = 42, .timestamp = 0x0102};
    const uint8_t want[] = {0x00, 0x00, 0x02, 0x03, 't',  '1',  0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                            0x00, 0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00};
    round_trip(&gr_consumer_group_regular_expression_value_desc, VALUE_VERSION, VALUE_VERSION, &v,
               want, sizeof want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_types),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_group_metadata_value),
        cmocka_unit_test(test_partition_metadata_value),
        cmocka_unit_test(test_member_metadata_value),
        cmocka_unit_test(test_target_assignment_values),
        cmocka_unit_test(test_current_member_assignment_value),
        cmocka_unit_test(test_regular_expression_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
