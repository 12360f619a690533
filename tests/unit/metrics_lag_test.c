/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Consumer lag on the metrics page (observe/metrics_lag.c over
 * group/group_lag.c) on a real single-node broker: committed offsets of
 * commit-only groups against the local log's high watermark and last stable
 * offset (an open transaction keeps the latter behind), a commit past the
 * end counting as no lag, and a partition this broker does not know giving a
 * current offset but no lag sample. The remote path (ListOffsets to another
 * leader) is interop-tests/cluster/cluster_prometheus.sh's.
 *
 * Nothing sleeps: the loop runs until topics are open, under a deadline.
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

#include "broker/broker.h"
#include "controller/internal_topic.h"
#include "group/coordinator.h"
#include "metadata/topics.h"
#include "observe/metrics.h"
#include "partition/partition.h"
#include "protocol/records.h"

#define PRODUCER_ID 4242

typedef gr_test_broker_t fixture_t;

static int setup(void **state)
{
    return gr_test_broker_new(state, "metrics-lag");
}

static int teardown(void **state)
{
    return gr_test_broker_free(state);
}

static bool coordinator_loaded(void *arg)
{
    return !gr_coordinator_loading(arg);
}

static bool offsets_topic_hosted(void *arg)
{
    gr_broker_t *b = arg;
    return gr_coordinator_ensure_topic(b->groups) == GR_KERR_NONE &&
           gr_test_hosted_topic(b, GR_OFFSETS_TOPIC);
}

/* A broker with topic t (2 partitions) and __consumer_offsets loaded. */
static void start(fixture_t *fx)
{
    const char *overrides[] = {"offsets.topic.replication.factor=1",
                               "offsets.topic.num.partitions=2"};
    assert_int_equal(gr_test_broker_start(fx, overrides, 2), 0);
    assert_non_null(gr_test_create_topic(fx->loop, fx->b, "t", 2, NULL, 0));
    gr_test_wait(fx->loop, offsets_topic_hosted, fx->b, GR_OFFSETS_TOPIC);
    gr_test_wait(fx->loop, coordinator_loaded, fx->b->groups, "the replay of the groups");
}

/* Appends count records to t-partition, in producer PRODUCER_ID's open transaction if asked. */
static void produce(fixture_t *fx, int32_t partition, int count, bool transactional)
{
    gr_topic_t *t = gr_topics_find(fx->b->topics, "t", 1);
    assert_non_null(t);
    gr_partition_t *p = gr_topic_partition(t, partition);
    assert_non_null(p);
    gr_record_t recs[16];
    assert_true(count <= 16);
    for (int i = 0; i < count; i++)
        recs[i] = (gr_record_t){
            .offset_delta = i, .key = {NULL, GR_NULL_LEN}, .value = {(const uint8_t *)"v", 1}};
    gr_batch_header_t h = {.last_offset_delta = count - 1,
                           .base_timestamp = 1,
                           .max_timestamp = 1,
                           .producer_id = transactional ? PRODUCER_ID : -1,
                           .producer_epoch = transactional ? 0 : -1,
                           .base_sequence = transactional ? 0 : -1,
                           .attributes = transactional ? GR_BATCH_ATTR_TRANSACTIONAL : 0};
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_batch_build(&w, &h, recs, count, GR_COMPRESSION_NONE), 0);
    gr_log_append_info_t info;
    assert_int_equal(gr_partition_append(p, w.buf, w.len, 1, &info), 0);
    gr_writer_fini(&w);
}

/* Commits offset for topic-partition as group id (a commit-only group). */
static void commit(fixture_t *fx, const char *id, const char *topic, int32_t partition,
                   int64_t offset)
{
    int32_t coordinator_partition;
    assert_int_equal(gr_coordinator_check(fx->b->groups, gr_str(id), &coordinator_partition),
                     GR_KERR_NONE);
    gr_group_t *g = gr_coordinator_get_or_create(fx->b->groups, gr_str(id), coordinator_partition);
    assert_non_null(g);
    gr_kerr_t err = GR_KERR_NONE;
    gr_offset_commit_t c = {.topic = gr_str(topic),
                            .partition = partition,
                            .offset = offset,
                            .leader_epoch = -1,
                            .metadata = gr_str(""),
                            .expire_timestamp = -1,
                            .error = &err};
    int64_t written_end = 0;
    gr_coordinator_commit(fx->b->groups, g, &c, 1, &written_end);
    assert_int_equal(err, GR_KERR_NONE);
}

/* The /metrics page, NUL-terminated (the caller frees it). */
static char *render(fixture_t *fx)
{
    gr_writer_t w;
    gr_writer_init(&w);
    gr_metrics_render(fx->b, &w);
    assert_int_equal(w.err, 0);
    char *page = malloc(w.len + 1);
    assert_non_null(page);
    memcpy(page, w.buf, w.len);
    page[w.len] = '\0';
    gr_writer_fini(&w);
    return page;
}

/* Whether the page has this exact line. */
static bool has_line(const char *page, const char *line)
{
    size_t len = strlen(line);
    for (const char *p = strstr(page, line); p; p = strstr(p + 1, line))
        if ((p == page || p[-1] == '\n') && p[len] == '\n')
            return true;
    return false;
}

static void expect_line(const char *page, const char *line)
{
    if (!has_line(page, line))
        fail_msg("no line '%s' in the page:\n%s", line, page);
}

static void test_local_lag(void **state)
{
    fixture_t *fx = *state;
    start(fx);
    produce(fx, 0, 7, false);
    produce(fx, 0, 2, true); /* open: the last stable offset stays at 7 */
    commit(fx, "g", "t", 0, 3);
    commit(fx, "g", "t", 1, 0);
    commit(fx, "h", "t", 0, 12); /* past the end: no lag, not a negative one */
    commit(fx, "h", "elsewhere", 0, 5);

    char *page = render(fx);
    expect_line(page, "# TYPE kafka_consumergroup_lag gauge");
    /* promtool keeps _sum for summaries and histograms, but for untyped families. */
    expect_line(page, "# TYPE kafka_consumergroup_lag_sum untyped");
    expect_line(page, "kafka_consumergroup_current_offset{consumergroup=\"g\",topic=\"t\","
                      "partition=\"0\"} 3");
    expect_line(page, "kafka_consumergroup_current_offset_sum{consumergroup=\"g\",topic=\"t\"} 3");
    expect_line(page, "kafka_consumergroup_lag{consumergroup=\"g\",topic=\"t\",partition=\"0\"} 6");
    expect_line(page, "kafka_consumergroup_lag{consumergroup=\"g\",topic=\"t\",partition=\"1\"} 0");
    expect_line(page, "kafka_consumergroup_lag_sum{consumergroup=\"g\",topic=\"t\"} 6");
    expect_line(page, "kafka_consumergroup_lag_stable{consumergroup=\"g\",topic=\"t\","
                      "partition=\"0\"} 4");
    expect_line(page, "kafka_consumergroup_lag{consumergroup=\"h\",topic=\"t\",partition=\"0\"} 0");
    expect_line(page, "kafka_consumergroup_members{consumergroup=\"g\"} 0");
    /* Unknown to this broker, no leader to ask: the commit shows, no lag does. */
    expect_line(page, "kafka_consumergroup_current_offset{consumergroup=\"h\",topic=\"elsewhere\","
                      "partition=\"0\"} 5");
    assert_null(strstr(page, "kafka_consumergroup_lag{consumergroup=\"h\",topic=\"elsewhere\""));
    assert_null(
        strstr(page, "kafka_consumergroup_lag_sum{consumergroup=\"h\",topic=\"elsewhere\""));
    free(page);
    gr_test_broker_stop(fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_local_lag, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
