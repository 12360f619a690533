/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Behaviour of the generated codec (tools/gen_codec.py) on the rules of
 * Kafka's schemas, with real messages from proto/ and hand-built bytes:
 * - a field the version lacks, set to a non-default value: encode fails with
 *   -EINVAL unless the field is ignorable, then it is silently dropped;
 * - null in a non-nullable string/array: -EINVAL on encode, -EBADMSG on decode;
 * - tagged fields: unknown tags skipped, known ones round-trip, defaults not
 *   written;
 * - fields absent from the decoded version take their schema defaults;
 * - classic (int16/int32 length) vs compact (uvarint length + 1) encodings,
 *   nullable structs (int8 -1 / 1 marker), null vs empty arrays;
 * - bytes after a body are left unread for the caller to ignore.
 * Inputs are exact-size heap copies, so any overrun trips AddressSanitizer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gen/api_versions.h"
#include "gen/consumer_group_heartbeat.h"
#include "gen/fetch.h"
#include "gen/heartbeat.h"
#include "gen/metadata.h"

#define FETCH_MAX_BYTES_DEFAULT 0x7fffffff

/* Test state: one writer and one arena, fresh for each test. */
typedef struct fixture {
    gr_writer_t w;
    gr_arena_t a;
    uint8_t *input; /* last heap copy given to a reader */
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    gr_writer_init(&f->w);
    gr_arena_init(&f->a);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    free(f->input);
    gr_arena_fini(&f->a);
    gr_writer_fini(&f->w);
    free(f);
    return 0;
}

/* Points r at an exact-size heap copy of the n bytes at p. */
static void reader_on(fixture_t *f, gr_reader_t *r, const void *p, size_t n)
{
    free(f->input);
    f->input = malloc(n ? n : 1);
    assert_non_null(f->input);
    if (n)
        memcpy(f->input, p, n);
    gr_reader_init(r, f->input, n);
}

static void assert_written(const fixture_t *f, const uint8_t *expect, size_t n)
{
    assert_int_equal(f->w.err, 0);
    assert_int_equal(f->w.len, n);
    assert_memory_equal(f->w.buf, expect, n);
}

/* ---- absent fields on encode ------------------------------------------- */

static void test_absent_non_ignorable_fails(void **state)
{
    fixture_t *f = *state;

    /* MetadataRequest AllowAutoTopicCreation: bool 4+, default true. */
    gr_metadata_request_t md;
    gr_metadata_request_init(&md);
    md.allow_auto_topic_creation = false;
    assert_int_equal(gr_metadata_request_encode(&f->w, 3, &md), -EINVAL);
    gr_writer_reset(&f->w);
    assert_int_equal(gr_metadata_request_encode(&f->w, 4, &md), 0);
    gr_writer_reset(&f->w);
    md.allow_auto_topic_creation = true; /* the default is fine anywhere */
    assert_int_equal(gr_metadata_request_encode(&f->w, 3, &md), 0);

    /* HeartbeatRequest GroupInstanceId: string 3+, default null. */
    gr_heartbeat_request_t hb;
    gr_heartbeat_request_init(&hb);
    hb.group_id = gr_str("g");
    hb.member_id = gr_str("m");
    hb.group_instance_id = gr_str("static-1");
    gr_writer_reset(&f->w);
    assert_int_equal(gr_heartbeat_request_encode(&f->w, 2, &hb), -EINVAL);
    gr_writer_reset(&f->w);
    assert_int_equal(gr_heartbeat_request_encode(&f->w, 3, &hb), 0);

    /* FetchRequest ReplicaId: int32 0-14 (a removed field), default -1. */
    gr_fetch_request_t fr;
    gr_fetch_request_init(&fr);
    fr.replica_id = 3;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_fetch_request_encode(&f->w, 15, &fr), -EINVAL);
    gr_writer_reset(&f->w);
    assert_int_equal(gr_fetch_request_encode(&f->w, 14, &fr), 0);

    /* Nested: FetchPartition LastFetchedEpoch, int32 12+, default -1. */
    gr_fetch_request_fetch_partition_t part = {
        .partition = 0,
        .current_leader_epoch = -1,
        .fetch_offset = 10,
        .last_fetched_epoch = 5,
        .log_start_offset = -1,
        .partition_max_bytes = 1024,
    };
    gr_fetch_request_fetch_topic_t topic = {
        .topic = gr_str("t"), .partitions = &part, .partitions_count = 1};
    gr_fetch_request_init(&fr);
    fr.topics = &topic;
    fr.topics_count = 1;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_fetch_request_encode(&f->w, 11, &fr), -EINVAL);
    gr_writer_reset(&f->w);
    assert_int_equal(gr_fetch_request_encode(&f->w, 12, &fr), 0);
}

static void test_absent_ignorable_dropped(void **state)
{
    fixture_t *f = *state;

    /* FetchRequest IsolationLevel (4+) and RackId (11+) are ignorable. */
    gr_fetch_request_t fr, back;
    gr_fetch_request_init(&fr);
    fr.max_wait_ms = 500;
    fr.min_bytes = 1;
    fr.max_bytes = 1000;
    fr.isolation_level = 1;
    fr.rack_id = gr_str("rack-a");
    assert_int_equal(gr_fetch_request_encode(&f->w, 3, &fr), 0);
    assert_int_equal(f->w.len, gr_fetch_request_size(3, &fr));
    /* v3: ReplicaId, MaxWaitMs, MinBytes, MaxBytes, Topics (empty). */
    static const uint8_t v3[] = {0xff, 0xff, 0xff, 0xff, 0,    0,    0x01, 0xf4, 0, 0,
                                 0,    1,    0,    0,    0x03, 0xe8, 0,    0,    0, 0};
    assert_written(f, v3, sizeof v3);

    gr_reader_t r;
    reader_on(f, &r, f->w.buf, f->w.len);
    assert_int_equal(gr_fetch_request_decode(&r, 3, &f->a, &back), 0);
    assert_int_equal(back.max_bytes, 1000);
    assert_int_equal(back.isolation_level, 0);
    assert_int_equal(back.rack_id.len, 0);

    /* ApiVersionsRequest v0-2 has no fields: the client names vanish. */
    gr_api_versions_request_t av;
    gr_api_versions_request_init(&av);
    av.client_software_name = gr_str("gregor");
    av.client_software_version = gr_str("1.0");
    gr_writer_reset(&f->w);
    assert_int_equal(gr_api_versions_request_encode(&f->w, 2, &av), 0);
    assert_int_equal(f->w.len, 0);
    assert_int_equal(gr_api_versions_request_size(2, &av), 0);
}

/* ---- null where the version does not allow it -------------------------- */

static void test_null_string_non_nullable(void **state)
{
    fixture_t *f = *state;
    gr_heartbeat_request_t hb;
    gr_reader_t r;

    gr_heartbeat_request_init(&hb);
    hb.group_id.ptr = NULL;
    hb.group_id.len = GR_NULL_LEN;
    hb.member_id = gr_str("m");
    assert_int_equal(gr_heartbeat_request_encode(&f->w, 0, &hb), -EINVAL);
    gr_writer_reset(&f->w);
    assert_int_equal(gr_heartbeat_request_encode(&f->w, 4, &hb), -EINVAL);

    /* Classic: GroupId length -1. */
    static const uint8_t classic[] = {0xff, 0xff, 0, 0, 0, 1, 0, 1, 'm'};
    reader_on(f, &r, classic, sizeof classic);
    assert_int_equal(gr_heartbeat_request_decode(&r, 0, &f->a, &hb), -EBADMSG);

    /* Compact: ApiVersionsRequest v3 ClientSoftwareName length 0 (null). */
    static const uint8_t compact[] = {0x00, 0x02, 'v', 0x00};
    gr_api_versions_request_t av;
    reader_on(f, &r, compact, sizeof compact);
    assert_int_equal(gr_api_versions_request_decode(&r, 3, &f->a, &av), -EBADMSG);

    gr_api_versions_request_init(&av);
    av.client_software_name.ptr = NULL;
    av.client_software_name.len = GR_NULL_LEN;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_api_versions_request_encode(&f->w, 3, &av), -EINVAL);

    /* The nullable GroupInstanceId accepts null in both encodings. */
    gr_heartbeat_request_init(&hb);
    hb.group_id = gr_str("g");
    hb.member_id = gr_str("m");
    gr_writer_reset(&f->w);
    assert_int_equal(gr_heartbeat_request_encode(&f->w, 3, &hb), 0);
    static const uint8_t v3[] = {0, 1, 'g', 0, 0, 0, 0, 0, 1, 'm', 0xff, 0xff};
    assert_written(f, v3, sizeof v3);
}

/* ---- tagged fields ------------------------------------------------------ */

static void test_unknown_tags_skipped(void **state)
{
    fixture_t *f = *state;
    gr_reader_t r;
    gr_api_versions_request_t av;

    /* ApiVersionsRequest v3: "lib", "1.2", then two unknown tags. */
    static const uint8_t bytes[] = {
        0x04, 'l',  'i',  'b',  0x04, '1', '.', '2', /* compact strings */
        0x02,                                        /* two tagged fields */
        0x05, 0x02, 0xaa, 0xbb,                      /* tag 5, 2 bytes */
        0x7f, 0x00,                                  /* tag 127, empty */
    };
    reader_on(f, &r, bytes, sizeof bytes);
    assert_int_equal(gr_api_versions_request_decode(&r, 3, &f->a, &av), 0);
    assert_int_equal(gr_reader_left(&r), 0);
    assert_true(gr_str_eq_c(av.client_software_name, "lib"));
    assert_true(gr_str_eq_c(av.client_software_version, "1.2"));

    /* Re-encoding drops them. */
    assert_int_equal(gr_api_versions_request_encode(&f->w, 3, &av), 0);
    static const uint8_t clean[] = {0x04, 'l', 'i', 'b', 0x04, '1', '.', '2', 0x00};
    assert_written(f, clean, sizeof clean);

    /* An unknown tag whose size runs past the end is an error. */
    static const uint8_t cut[] = {0x01, 0x01, 0x01, 0x09, 0x05, 0xaa};
    reader_on(f, &r, cut, sizeof cut);
    assert_int_not_equal(gr_api_versions_request_decode(&r, 3, &f->a, &av), 0);
}

static void test_known_tags_roundtrip(void **state)
{
    fixture_t *f = *state;
    gr_reader_t r;
    gr_api_versions_response_t resp, back;

    /* Defaults are not written: the tag section is a single 0. */
    gr_api_versions_response_init(&resp);
    assert_int_equal(gr_api_versions_response_encode(&f->w, 3, &resp), 0);
    static const uint8_t empty[] = {0, 0, 0x01, 0, 0, 0, 0, 0x00};
    assert_written(f, empty, sizeof empty);

    /* FinalizedFeaturesEpoch alone: tag 1, 8 bytes. */
    resp.finalized_features_epoch = 42;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_api_versions_response_encode(&f->w, 3, &resp), 0);
    static const uint8_t epoch[] = {0,    0, 0x01, 0, 0, 0, 0, 0x01, 0x01,
                                    0x08, 0, 0,    0, 0, 0, 0, 0,    42};
    assert_written(f, epoch, sizeof epoch);
    reader_on(f, &r, epoch, sizeof epoch);
    assert_int_equal(gr_api_versions_response_decode(&r, 3, &f->a, &back), 0);
    assert_int_equal(gr_reader_left(&r), 0);
    assert_int_equal(back.finalized_features_epoch, 42);
    assert_int_equal(back.supported_features_count, 0);

    /* SupportedFeatures and the epoch together, with one API key. */
    gr_api_versions_response_api_version_t key = {18, 0, 3};
    gr_api_versions_response_supported_feature_key_t feature = {gr_str("metadata.version"), 1, 20};
    resp.api_keys = &key;
    resp.api_keys_count = 1;
    resp.supported_features = &feature;
    resp.supported_features_count = 1;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_api_versions_response_encode(&f->w, 3, &resp), 0);
    assert_int_equal(f->w.len, gr_api_versions_response_size(3, &resp));
    reader_on(f, &r, f->w.buf, f->w.len);
    assert_int_equal(gr_api_versions_response_decode(&r, 3, &f->a, &back), 0);
    assert_int_equal(gr_reader_left(&r), 0);
    assert_int_equal(back.api_keys_count, 1);
    assert_int_equal(back.api_keys[0].api_key, 18);
    assert_int_equal(back.api_keys[0].max_version, 3);
    assert_int_equal(back.supported_features_count, 1);
    assert_true(gr_str_eq_c(back.supported_features[0].name, "metadata.version"));
    assert_int_equal(back.supported_features[0].min_version, 1);
    assert_int_equal(back.supported_features[0].max_version, 20);
    assert_int_equal(back.finalized_features_epoch, 42);
    assert_int_equal(back.finalized_features_count, 0);

    /* Tagged fields are versioned like others: v2 cannot carry them but they
     * are ignorable, so they vanish. */
    gr_writer_reset(&f->w);
    assert_int_equal(gr_api_versions_response_encode(&f->w, 2, &resp), 0);
    assert_int_equal(f->w.len, 2 + 4 + 6 + 4);

    /* FetchRequest v12 ClusterId: tag 0, a compact nullable string. */
    gr_fetch_request_t fr, fback;
    gr_fetch_request_init(&fr);
    assert_null(fr.cluster_id.ptr);
    assert_int_equal(fr.cluster_id.len, GR_NULL_LEN);
    gr_writer_reset(&f->w);
    assert_int_equal(gr_fetch_request_encode(&f->w, 12, &fr), 0);
    size_t without = f->w.len;
    assert_int_equal(f->w.buf[without - 1], 0x00); /* no tags */

    fr.cluster_id = gr_str("cid");
    gr_writer_reset(&f->w);
    assert_int_equal(gr_fetch_request_encode(&f->w, 12, &fr), 0);
    assert_int_equal(f->w.len, without + 6); /* tag 0, size 4, 0x04 "cid" */
    assert_int_equal(f->w.len, gr_fetch_request_size(12, &fr));
    static const uint8_t tail[] = {0x01, 0x00, 0x04, 0x04, 'c', 'i', 'd'};
    assert_memory_equal(f->w.buf + f->w.len - sizeof tail, tail, sizeof tail);
    reader_on(f, &r, f->w.buf, f->w.len);
    assert_int_equal(gr_fetch_request_decode(&r, 12, &f->a, &fback), 0);
    assert_int_equal(gr_reader_left(&r), 0);
    assert_true(gr_str_eq_c(fback.cluster_id, "cid"));
}

/* ---- defaults for fields the decoded version lacks ----------------------- */

static void test_defaults_for_absent_fields(void **state)
{
    fixture_t *f = *state;
    gr_reader_t r;
    gr_fetch_request_t fr;

    /* v2: ReplicaId, MaxWaitMs, MinBytes, Topics (empty); no MaxBytes. */
    static const uint8_t v2[] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0x01, 0xf4, 0, 0, 0, 1, 0, 0, 0, 0};
    reader_on(f, &r, v2, sizeof v2);
    assert_int_equal(gr_fetch_request_decode(&r, 2, &f->a, &fr), 0);
    assert_int_equal(gr_reader_left(&r), 0);
    assert_int_equal(fr.replica_id, -1);
    assert_int_equal(fr.max_wait_ms, 500);
    assert_int_equal(fr.max_bytes, FETCH_MAX_BYTES_DEFAULT);
    assert_int_equal(fr.isolation_level, 0);
    assert_int_equal(fr.session_id, 0);
    assert_int_equal(fr.session_epoch, -1);
    assert_int_equal(fr.topics_count, 0);
    assert_int_equal(fr.forgotten_topics_data_count, 0);
    assert_int_equal(fr.rack_id.len, 0);
    assert_int_equal(fr.cluster_id.len, GR_NULL_LEN);
    assert_int_equal(fr.replica_state.replica_id, -1);
    assert_int_equal(fr.replica_state.replica_epoch, -1);

    /* v3 carries MaxBytes; IsolationLevel (4+) still takes its default. */
    static const uint8_t v3[] = {0, 0, 0, 2, 0,    0,    0x01, 0xf4, 0, 0,
                                 0, 1, 0, 0, 0x03, 0xe8, 0,    0,    0, 0};
    reader_on(f, &r, v3, sizeof v3);
    assert_int_equal(gr_fetch_request_decode(&r, 3, &f->a, &fr), 0);
    assert_int_equal(fr.replica_id, 2);
    assert_int_equal(fr.max_bytes, 1000);
    assert_int_equal(fr.isolation_level, 0);
    assert_int_equal(fr.session_epoch, -1);

    /* MetadataRequest v3 lacks AllowAutoTopicCreation, which defaults to true. */
    gr_metadata_request_t md;
    static const uint8_t md3[] = {0, 0, 0, 0};
    reader_on(f, &r, md3, sizeof md3);
    assert_int_equal(gr_metadata_request_decode(&r, 3, &f->a, &md), 0);
    assert_true(md.allow_auto_topic_creation);
}

/* ---- encodings ----------------------------------------------------------- */

static void test_compact_vs_classic_strings(void **state)
{
    fixture_t *f = *state;
    gr_heartbeat_request_t hb, back;
    gr_reader_t r;

    gr_heartbeat_request_init(&hb);
    hb.group_id = gr_str("grp");
    hb.generation_id = 7;
    hb.member_id = gr_str("");

    /* v3 (classic): int16 lengths, -1 for the null instance id. */
    assert_int_equal(gr_heartbeat_request_encode(&f->w, 3, &hb), 0);
    static const uint8_t classic[] = {0, 3, 'g', 'r', 'p', 0, 0, 0, 7, 0, 0, 0xff, 0xff};
    assert_written(f, classic, sizeof classic);

    /* v4 (flexible): uvarint length + 1, 0 for null, then the tag section. */
    hb.group_instance_id = gr_str("i");
    gr_writer_reset(&f->w);
    assert_int_equal(gr_heartbeat_request_encode(&f->w, 4, &hb), 0);
    static const uint8_t compact[] = {0x04, 'g', 'r', 'p', 0, 0, 0, 7, 0x01, 0x02, 'i', 0x00};
    assert_written(f, compact, sizeof compact);
    assert_int_equal(gr_heartbeat_request_size(4, &hb), sizeof compact);

    reader_on(f, &r, compact, sizeof compact);
    assert_int_equal(gr_heartbeat_request_decode(&r, 4, &f->a, &back), 0);
    assert_true(gr_str_eq_c(back.group_id, "grp"));
    assert_int_equal(back.member_id.len, 0);
    assert_true(gr_str_eq_c(back.group_instance_id, "i"));

    /* The same bytes read as classic are garbage, not a crash. */
    reader_on(f, &r, compact, sizeof compact);
    assert_int_not_equal(gr_heartbeat_request_decode(&r, 3, &f->a, &back), 0);
}

static void test_nullable_struct(void **state)
{
    fixture_t *f = *state;
    gr_consumer_group_heartbeat_response_t resp, back;
    gr_reader_t r;

    gr_consumer_group_heartbeat_response_init(&resp);
    assert_null(resp.assignment);
    resp.member_epoch = 3;
    resp.heartbeat_interval_ms = 5000;
    assert_int_equal(gr_consumer_group_heartbeat_response_encode(&f->w, 0, &resp), 0);
    static const uint8_t null_assignment[] = {
        0,    0,    0,    0,    /* ThrottleTimeMs */
        0,    0,                /* ErrorCode */
        0x00, 0x00,             /* ErrorMessage, MemberId: null */
        0,    0,    0,    3,    /* MemberEpoch */
        0,    0,    0x13, 0x88, /* HeartbeatIntervalMs */
        0xff,                   /* Assignment: null */
        0x00,                   /* tags */
    };
    assert_written(f, null_assignment, sizeof null_assignment);
    reader_on(f, &r, null_assignment, sizeof null_assignment);
    assert_int_equal(gr_consumer_group_heartbeat_response_decode(&r, 0, &f->a, &back), 0);
    assert_null(back.assignment);
    assert_int_equal(back.error_message.len, GR_NULL_LEN);

    /* Present (with no partitions): marker 1, then the struct. */
    gr_consumer_group_heartbeat_response_assignment_t assignment = {NULL, 0};
    resp.assignment = &assignment;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_consumer_group_heartbeat_response_encode(&f->w, 0, &resp), 0);
    assert_int_equal(f->w.len, sizeof null_assignment + 2);
    static const uint8_t present[] = {0x01, 0x01, 0x00, 0x00}; /* marker, [], tags, tags */
    assert_memory_equal(f->w.buf + 16, present, sizeof present);
    assert_int_equal(f->w.len, gr_consumer_group_heartbeat_response_size(0, &resp));
    reader_on(f, &r, f->w.buf, f->w.len);
    assert_int_equal(gr_consumer_group_heartbeat_response_decode(&r, 0, &f->a, &back), 0);
    assert_non_null(back.assignment);
    assert_int_equal(back.assignment->topic_partitions_count, 0);
}

static void test_arrays_null_vs_empty(void **state)
{
    fixture_t *f = *state;
    gr_metadata_request_t md, back;
    gr_reader_t r;

    /* MetadataRequest Topics: nullable from v1; null means all topics. */
    gr_metadata_request_init(&md);
    md.topics = NULL;
    md.topics_null = true;
    assert_int_equal(gr_metadata_request_encode(&f->w, 0, &md), -EINVAL);
    gr_writer_reset(&f->w);
    assert_int_equal(gr_metadata_request_encode(&f->w, 1, &md), 0);
    static const uint8_t v1_null[] = {0xff, 0xff, 0xff, 0xff};
    assert_written(f, v1_null, sizeof v1_null);

    md.topics_null = false;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_metadata_request_encode(&f->w, 1, &md), 0);
    static const uint8_t v1_empty[] = {0, 0, 0, 0};
    assert_written(f, v1_empty, sizeof v1_empty);

    /* v9 (flexible): Topics, AllowAutoTopicCreation, two Include flags, tags. */
    md.topics_null = true;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_metadata_request_encode(&f->w, 9, &md), 0);
    static const uint8_t v9_null[] = {0x00, 0x01, 0x00, 0x00, 0x00};
    assert_written(f, v9_null, sizeof v9_null);
    md.topics_null = false;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_metadata_request_encode(&f->w, 9, &md), 0);
    static const uint8_t v9_empty[] = {0x01, 0x01, 0x00, 0x00, 0x00};
    assert_written(f, v9_empty, sizeof v9_empty);

    reader_on(f, &r, v9_null, sizeof v9_null);
    assert_int_equal(gr_metadata_request_decode(&r, 9, &f->a, &back), 0);
    assert_true(back.topics_null); /* null: the flag, and a count of 0 */
    assert_int_equal(back.topics_count, 0);
    assert_null(back.topics);
    reader_on(f, &r, v9_empty, sizeof v9_empty);
    assert_int_equal(gr_metadata_request_decode(&r, 9, &f->a, &back), 0);
    assert_false(back.topics_null);
    assert_int_equal(back.topics_count, 0);
    reader_on(f, &r, v1_null, sizeof v1_null);
    assert_int_equal(gr_metadata_request_decode(&r, 1, &f->a, &back), 0);
    assert_true(back.topics_null);
    assert_int_equal(back.topics_count, 0);

    /* v0 cannot say null. */
    reader_on(f, &r, v1_null, sizeof v1_null);
    assert_int_equal(gr_metadata_request_decode(&r, 0, &f->a, &back), -EBADMSG);

    /* A non-nullable array (FetchRequest Topics) has no null flag; a negative count is a
     * caller's bug the encoder refuses, and null on the wire is refused. */
    gr_fetch_request_t fr;
    gr_fetch_request_init(&fr);
    fr.topics_count = -1;
    gr_writer_reset(&f->w);
    assert_int_equal(gr_fetch_request_encode(&f->w, 4, &fr), -EINVAL);
    static const uint8_t fetch_null[] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0,    0,    0,    0,   0,
                                         0,    0,    0,    0,    0, 0, 0xff, 0xff, 0xff, 0xff};
    reader_on(f, &r, fetch_null, sizeof fetch_null);
    assert_int_equal(gr_fetch_request_decode(&r, 4, &f->a, &fr), -EBADMSG);
}

/* ---- trailing bytes -------------------------------------------------------- */

static void test_trailing_bytes_left_unread(void **state)
{
    fixture_t *f = *state;
    gr_reader_t r;
    gr_heartbeat_request_t hb;
    gr_api_versions_request_t av;

    static const uint8_t hb_extra[] = {0, 1, 'g', 0, 0, 0, 1, 0, 1, 'm', 0xde, 0xad};
    reader_on(f, &r, hb_extra, sizeof hb_extra);
    assert_int_equal(gr_heartbeat_request_decode(&r, 0, &f->a, &hb), 0);
    assert_int_equal(gr_reader_left(&r), 2);
    assert_int_equal(r.p[0], 0xde);
    assert_true(gr_str_eq_c(hb.member_id, "m"));

    /* An empty v0 body followed by one stray byte. */
    static const uint8_t stray[] = {0x00};
    reader_on(f, &r, stray, sizeof stray);
    assert_int_equal(gr_api_versions_request_decode(&r, 0, &f->a, &av), 0);
    assert_int_equal(gr_reader_left(&r), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_absent_non_ignorable_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_absent_ignorable_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_null_string_non_nullable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_tags_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_known_tags_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_defaults_for_absent_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compact_vs_classic_strings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nullable_struct, setup, teardown),
        cmocka_unit_test_setup_teardown(test_arrays_null_vs_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trailing_bytes_left_unread, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
