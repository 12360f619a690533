/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Handlers' error answers, through the real dispatch: requests encoded by
 * the codec (or raw bytes, for malformed ones) go over a loopback socket to
 * a single-node broker's listener (support/wire_client.h), and the test
 * checks the Kafka error each answer carries, or that the connection was
 * closed where Kafka closes it. Leadership and controllership are edited in
 * the broker's memory for the duration of one request, to reach the paths
 * a follower or a non-controller takes. One broker serves every test of a
 * group; a second group runs a broker with the ACL authorizer on and no
 * ACLs, where everything a client asks is denied.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ev.h>

#include "broker_fixture.h"
#include "loop_wait.h"
#include "topic_wait.h"
#include "wire_client.h"

#include "broker/broker.h"
#include "controller/zk_member.h"
#include "gen/api_versions.h"
#include "gen/create_topics.h"
#include "gen/delete_topics.h"
#include "gen/fetch.h"
#include "gen/list_offsets.h"
#include "gen/metadata.h"
#include "gen/produce.h"
#include "partition/partition.h"
#include "protocol/kerr.h"

#define TOPIC        "handled"
#define MISSING      "nowhere"
#define OTHER_BROKER 1
#define BEYOND_END   1000
#define NO_SUCH_API  999
#define TOO_NEW      99
#define ACKS_ALL     (-1)
#define LIST_LATEST  (-1)

typedef struct fixture {
    gr_test_broker_t tb;
    gr_broker_t *b;
    struct ev_loop *loop;
    gr_topic_t *topic;
    gr_wire_client_t wire;
} fixture_t;

static int start(void **state, const char *name, const char *const *overrides, int count)
{
    fixture_t *fx = calloc(1, sizeof *fx);
    if (!fx || gr_test_broker_make_dir(&fx->tb, name) < 0)
        return -1;
    assert_int_equal(gr_test_broker_start(&fx->tb, overrides, count), 0);
    fx->b = fx->tb.b;
    fx->loop = fx->tb.loop;
    fx->topic = gr_test_create_topic(fx->loop, fx->b, TOPIC, 1, NULL, 0);
    *state = fx;
    return 0;
}

static int setup_group(void **state)
{
    return start(state, "handlers-errors", NULL, 0);
}

static int setup_acl_group(void **state)
{
    static const char *const acl[] = {
        "authorizer.class.name=kafka.security.authorizer.AclAuthorizer"};
    return start(state, "handlers-acl", acl, 1);
}

static int teardown_group(void **state)
{
    fixture_t *fx = *state;
    gr_test_broker_remove(&fx->tb);
    free(fx);
    return 0;
}

/* Every test has its own connection: one a test gets closed does not end the next. */
static int setup(void **state)
{
    fixture_t *fx = *state;
    gr_wire_open(&fx->wire, fx->loop, fx->b->advertised_port);
    return 0;
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    gr_wire_close(&fx->wire);
    return 0;
}

/* ---- requests ------------------------------------------------------------------------------ */

static gr_metadata_response_t metadata_of(fixture_t *fx, const char *topic)
{
    gr_metadata_request_metadata_request_topic_t t;
    gr_metadata_request_metadata_request_topic_init(&t);
    t.name = gr_str(topic);
    gr_metadata_request_t req;
    gr_metadata_request_init(&req);
    req.topics = &t;
    req.topics_count = 1;
    req.allow_auto_topic_creation = false;
    gr_metadata_response_t resp;
    assert_int_equal(gr_wire_call(&fx->wire, GR_API_METADATA, 9, &req, &resp), 0);
    assert_int_equal(resp.topics_count, 1);
    return resp;
}

/* Produce v8 of an empty records field to topic-partition: the partition's error. */
static int16_t produce_to(fixture_t *fx, const char *topic, int32_t partition)
{
    gr_produce_request_partition_produce_data_t pd;
    gr_produce_request_partition_produce_data_init(&pd);
    pd.index = partition;
    pd.records.len = 0;
    gr_produce_request_topic_produce_data_t td;
    gr_produce_request_topic_produce_data_init(&td);
    td.name = gr_str(topic);
    td.partition_data = &pd;
    td.partition_data_count = 1;
    gr_produce_request_t req;
    gr_produce_request_init(&req);
    req.acks = ACKS_ALL;
    req.timeout_ms = 1000;
    req.topic_data = &td;
    req.topic_data_count = 1;
    gr_produce_response_t resp;
    assert_int_equal(gr_wire_call(&fx->wire, GR_API_PRODUCE, 8, &req, &resp), 0);
    assert_int_equal(resp.responses_count, 1);
    assert_int_equal(resp.responses[0].partition_responses_count, 1);
    return resp.responses[0].partition_responses[0].error_code;
}

/*
 * Fetch (version v) of topic-0 at offset, without waiting, by a consumer
 * that knows leader epoch current (-1: skip the check): the partition's error.
 */
static int16_t fetch_fenced_at(fixture_t *fx, int16_t v, const char *topic, int64_t offset,
                               int32_t current)
{
    gr_fetch_request_fetch_partition_t fp;
    gr_fetch_request_fetch_partition_init(&fp);
    fp.partition = 0;
    fp.current_leader_epoch = current;
    fp.fetch_offset = offset;
    fp.partition_max_bytes = 1024;
    gr_fetch_request_fetch_topic_t ft;
    gr_fetch_request_fetch_topic_init(&ft);
    ft.topic = gr_str(topic);
    ft.partitions = &fp;
    ft.partitions_count = 1;
    gr_fetch_request_t req;
    gr_fetch_request_init(&req);
    req.replica_id = -1;
    req.max_wait_ms = 0;
    req.max_bytes = 1024;
    req.topics = &ft;
    req.topics_count = 1;
    gr_fetch_response_t resp;
    assert_int_equal(gr_wire_call(&fx->wire, GR_API_FETCH, v, &req, &resp), 0);
    assert_int_equal(resp.responses_count, 1);
    assert_int_equal(resp.responses[0].partitions_count, 1);
    return resp.responses[0].partitions[0].error_code;
}

static int16_t fetch_version_at(fixture_t *fx, int16_t v, const char *topic, int64_t offset)
{
    return fetch_fenced_at(fx, v, topic, offset, -1);
}

/* Fetch v11, the first with the consumer's rack (KIP-392). */
static int16_t fetch_at(fixture_t *fx, const char *topic, int64_t offset)
{
    return fetch_version_at(fx, 11, topic, offset);
}

/* CreateTopics v4 of one topic with partitions: its error. */
static int16_t create_topic(fixture_t *fx, const char *topic, int32_t partitions)
{
    gr_create_topics_request_creatable_topic_t t;
    gr_create_topics_request_creatable_topic_init(&t);
    t.name = gr_str(topic);
    t.num_partitions = partitions;
    t.replication_factor = 1;
    gr_create_topics_request_t req;
    gr_create_topics_request_init(&req);
    req.topics = &t;
    req.topics_count = 1;
    req.timeout_ms = 5000;
    gr_create_topics_response_t resp;
    assert_int_equal(gr_wire_call(&fx->wire, GR_API_CREATE_TOPICS, 4, &req, &resp), 0);
    assert_int_equal(resp.topics_count, 1);
    return resp.topics[0].error_code;
}

/* ---- tests --------------------------------------------------------------------------------- */

static void test_metadata_unknown_topic(void **state)
{
    fixture_t *fx = *state;
    gr_metadata_response_t resp = metadata_of(fx, MISSING);
    assert_int_equal(resp.topics[0].error_code, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    resp = metadata_of(fx, TOPIC);
    assert_int_equal(resp.topics[0].error_code, GR_KERR_NONE);
}

static void test_produce_unknown_topic_and_partition(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(produce_to(fx, MISSING, 0), GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    assert_int_equal(produce_to(fx, TOPIC, 7), GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
}

/* A produce carrying no record batch is corrupt (Kafka: CORRUPT_MESSAGE), on the leader. */
static void test_produce_without_batches_is_corrupt(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(produce_to(fx, TOPIC, 0), GR_KERR_CORRUPT_MESSAGE);
}

/* A follower refuses writes, before looking at the records. */
static void test_produce_to_follower(void **state)
{
    fixture_t *fx = *state;
    gr_partition_t *p = &fx->topic->partitions[0];
    int32_t leader = p->leader_id;
    p->leader_id = OTHER_BROKER; /* as a LeaderAndIsr making this broker a follower would */
    int16_t err = produce_to(fx, TOPIC, 0);
    p->leader_id = leader;
    assert_int_equal(err, GR_KERR_NOT_LEADER_OR_FOLLOWER);
}

static void test_fetch_out_of_range_and_follower(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(fetch_at(fx, TOPIC, 0), GR_KERR_NONE);
    assert_int_equal(fetch_at(fx, TOPIC, BEYOND_END), GR_KERR_OFFSET_OUT_OF_RANGE);
    assert_int_equal(fetch_at(fx, MISSING, 0), GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    gr_partition_t *p = &fx->topic->partitions[0];
    int32_t leader = p->leader_id;
    /* Before KIP-392 (v10) a consumer reads only from the leader. */
    p->leader_id = OTHER_BROKER;
    int16_t err = fetch_version_at(fx, 10, TOPIC, 0);
    p->leader_id = leader;
    assert_int_equal(err, GR_KERR_NOT_LEADER_OR_FOLLOWER);
}

/* A consumer behind the leader epoch is fenced; one ahead of it is told the epoch is unknown. */
static void test_fetch_leader_epoch_fencing(void **state)
{
    fixture_t *fx = *state;
    gr_partition_t *p = &fx->topic->partitions[0];
    int32_t epoch = p->leader_epoch;
    assert_int_equal(fetch_fenced_at(fx, 12, TOPIC, 0, epoch), GR_KERR_NONE);
    assert_int_equal(fetch_fenced_at(fx, 12, TOPIC, 0, epoch + 1), GR_KERR_UNKNOWN_LEADER_EPOCH);
    p->leader_epoch = epoch + 2; /* as after two leader changes */
    int16_t err = fetch_fenced_at(fx, 12, TOPIC, 0, epoch + 1);
    p->leader_epoch = epoch;
    assert_int_equal(err, GR_KERR_FENCED_LEADER_EPOCH);
}

static void test_list_offsets_unknown_partition(void **state)
{
    fixture_t *fx = *state;
    gr_list_offsets_request_list_offsets_partition_t lp[2];
    for (int i = 0; i < 2; i++) {
        gr_list_offsets_request_list_offsets_partition_init(&lp[i]);
        lp[i].partition_index = i == 0 ? 0 : 5;
        lp[i].timestamp = LIST_LATEST;
    }
    gr_list_offsets_request_list_offsets_topic_t lt;
    gr_list_offsets_request_list_offsets_topic_init(&lt);
    lt.name = gr_str(TOPIC);
    lt.partitions = lp;
    lt.partitions_count = 2;
    gr_list_offsets_request_t req;
    gr_list_offsets_request_init(&req);
    req.replica_id = -1;
    req.topics = &lt;
    req.topics_count = 1;
    gr_list_offsets_response_t resp;
    assert_int_equal(gr_wire_call(&fx->wire, GR_API_LIST_OFFSETS, 5, &req, &resp), 0);
    assert_int_equal(resp.topics[0].partitions_count, 2);
    assert_int_equal(resp.topics[0].partitions[0].error_code, GR_KERR_NONE);
    assert_int_equal(resp.topics[0].partitions[0].offset, 0);
    assert_int_equal(resp.topics[0].partitions[1].error_code, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
}

static void test_create_topics_errors(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(create_topic(fx, TOPIC, 1), GR_KERR_TOPIC_ALREADY_EXISTS);
    assert_int_equal(create_topic(fx, "bad/name", 1), GR_KERR_INVALID_TOPIC_EXCEPTION);
    assert_int_equal(create_topic(fx, "zero-partitions", 0), GR_KERR_INVALID_PARTITIONS);
}

/* Only the controller creates topics: NOT_CONTROLLER elsewhere, so clients go find it. */
static void test_create_topics_not_controller(void **state)
{
    fixture_t *fx = *state;
    fx->b->zk->controller.active = false; /* as after losing /controller */
    int16_t err = create_topic(fx, "not-here", 1);
    fx->b->zk->controller.active = true;
    assert_int_equal(err, GR_KERR_NOT_CONTROLLER);
}

static void test_delete_unknown_topic(void **state)
{
    fixture_t *fx = *state;
    gr_str_t name = gr_str(MISSING);
    gr_delete_topics_request_t req;
    gr_delete_topics_request_init(&req);
    req.topic_names = &name;
    req.topic_names_count = 1;
    req.timeout_ms = 1000;
    gr_delete_topics_response_t resp;
    assert_int_equal(gr_wire_call(&fx->wire, GR_API_DELETE_TOPICS, 4, &req, &resp), 0);
    assert_int_equal(resp.responses_count, 1);
    assert_int_equal(resp.responses[0].error_code, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
}

/* ApiVersions of a version it does not know: answered at v0, UNSUPPORTED_VERSION and the list. */
static void test_api_versions_too_new(void **state)
{
    fixture_t *fx = *state;
    size_t len = 0;
    const uint8_t *body = gr_wire_call_raw(&fx->wire, GR_API_API_VERSIONS, TOO_NEW, NULL, 0, &len);
    assert_non_null(body);
    gr_reader_t r;
    gr_reader_init(&r, body, len);
    gr_api_versions_response_t resp;
    assert_int_equal(gr_api_versions_response_decode(&r, 0, &fx->wire.arena, &resp), 0);
    assert_int_equal(resp.error_code, GR_KERR_UNSUPPORTED_VERSION);
    assert_true(resp.api_keys_count > 0);
}

/* Another API at a version it does not serve, or an unknown key: the connection closes. */
static void test_unsupported_version_and_unknown_api_close(void **state)
{
    fixture_t *fx = *state;
    size_t len = 0;
    assert_null(gr_wire_call_raw(&fx->wire, GR_API_METADATA, TOO_NEW, NULL, 0, &len));
    gr_wire_close(&fx->wire);
    gr_wire_open(&fx->wire, fx->loop, fx->b->advertised_port);
    assert_null(gr_wire_call_raw(&fx->wire, NO_SUCH_API, 0, NULL, 0, &len));
}

/* A body cut short: the connection closes (Kafka fails the request's parse the same way). */
static void test_truncated_body_closes(void **state)
{
    fixture_t *fx = *state;
    static const uint8_t half_array[] = {0x00, 0x00, 0x00, 0x05, 0x00}; /* 5 topics, then nothing */
    size_t len = 0;
    /* v8: the last version before flexible ones, so the array count is an int32. */
    assert_null(
        gr_wire_call_raw(&fx->wire, GR_API_METADATA, 8, half_array, sizeof half_array, &len));
    assert_true(gr_test_broker_logged(&fx->tb, "malformed"));
}

/* ---- with the ACL authorizer and no ACLs ---------------------------------------------------- */

static void test_acl_denies_metadata_produce_fetch_create(void **state)
{
    fixture_t *fx = *state;
    gr_metadata_response_t resp = metadata_of(fx, TOPIC);
    assert_int_equal(resp.topics[0].error_code, GR_KERR_TOPIC_AUTHORIZATION_FAILED);
    assert_int_equal(produce_to(fx, TOPIC, 0), GR_KERR_TOPIC_AUTHORIZATION_FAILED);
    assert_int_equal(fetch_at(fx, TOPIC, 0), GR_KERR_TOPIC_AUTHORIZATION_FAILED);
    assert_int_equal(create_topic(fx, "denied", 1), GR_KERR_TOPIC_AUTHORIZATION_FAILED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_metadata_unknown_topic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_produce_unknown_topic_and_partition, setup, teardown),
        cmocka_unit_test_setup_teardown(test_produce_without_batches_is_corrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_produce_to_follower, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fetch_out_of_range_and_follower, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fetch_leader_epoch_fencing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_offsets_unknown_partition, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_topics_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_topics_not_controller, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_unknown_topic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_api_versions_too_new, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsupported_version_and_unknown_api_close, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_truncated_body_closes, setup, teardown),
    };
    const struct CMUnitTest acl_tests[] = {
        cmocka_unit_test_setup_teardown(test_acl_denies_metadata_produce_fetch_create, setup,
                                        teardown),
    };
    int failed = cmocka_run_group_tests_name("handlers", tests, setup_group, teardown_group);
    failed += cmocka_run_group_tests_name("handlers with ACLs", acl_tests, setup_acl_group,
                                          teardown_group);
    return failed;
}
