/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The /metrics page's cluster-state families (observe/metrics_replica.c,
 * metrics_controller.c, metrics_log.c, metrics_zookeeper.c,
 * metrics_coordinators.c) rendered from a real single-node broker: the
 * partitions it holds and leads, its own controller, its logs; and, with
 * broker 1 as a fake follower (support/fake_cluster.h, as in
 * replica_isr_test.c), the ISR shrinking and growing again as the
 * under-replicated count and the ISR counters see it. Waits for outcomes,
 * never for durations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <ev.h>

#include "broker_fixture.h"
#include "fake_cluster.h"
#include "fake_peer.h"
#include "loop_wait.h"
#include "topic_wait.h"

#include "broker/broker.h"
#include "controller/zk_member.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "observe/metrics.h"
#include "partition/partition.h"
#include "protocol/kerr.h"
#include "replica/leader.h"

#define TOPIC    "state"
#define LOCAL    0
#define FOLLOWER 1

typedef struct fixture {
    gr_test_broker_t tb;
    gr_broker_t *b;
    struct ev_loop *loop;
    gr_fake_peer_t peer;
    bool peer_installed;
    gr_writer_t page;
} fixture_t;

static gr_controller_t *controller(fixture_t *fx)
{
    return &fx->b->zk->controller;
}

static int start(void **state, const char *const *overrides, int count, bool follower)
{
    fixture_t *fx = calloc(1, sizeof *fx);
    if (!fx || gr_test_broker_make_dir(&fx->tb, "metrics-state") < 0)
        return -1;
    assert_int_equal(gr_test_broker_start(&fx->tb, overrides, count), 0);
    fx->b = fx->tb.b;
    fx->loop = fx->tb.loop;
    gr_writer_init(&fx->page);
    gr_test_wait(fx->loop, gr_fake_cluster_settled, controller(fx), "the controller to settle");
    if (follower) {
        gr_fake_peer_install(&fx->peer, controller(fx), fx->loop, LOCAL, true);
        fx->peer_installed = true;
        gr_fake_cluster_join(fx->b, FOLLOWER);
    }
    *state = fx;
    return 0;
}

static int setup_alone(void **state)
{
    return start(state, NULL, 0, false);
}

/* Followers that do not fetch for this long leave the ISR (the check runs every half of it). */
static int setup_follower(void **state)
{
    static const char *const lag[] = {"replica.lag.time.max.ms=200"};
    return start(state, lag, 1, true);
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    gr_writer_fini(&fx->page);
    if (fx->peer_installed)
        gr_fake_peer_remove(&fx->peer);
    gr_test_broker_remove(&fx->tb);
    free(fx);
    return 0;
}

/* Renders the page, NUL-terminated, into fx->page. */
static const char *render(fixture_t *fx)
{
    gr_writer_reset(&fx->page);
    gr_metrics_render(fx->b, &fx->page);
    gr_write_raw(&fx->page, "", 1);
    assert_int_equal(fx->page.err, 0);
    return (const char *)fx->page.buf;
}

/* The value of series (name with its labels, as written) on a fresh page; -1 when absent. */
static double value_of(fixture_t *fx, const char *series)
{
    const char *page = render(fx);
    char line[256];
    snprintf(line, sizeof line, "\n%s ", series);
    const char *at = strstr(page, line);
    return at ? strtod(at + strlen(line), NULL) : -1;
}

/* promtool, when installed (ci/install-deps.sh installs it), accepts the page. */
static void check_with_promtool(fixture_t *fx)
{
    const char *page = render(fx);
    FILE *tool = popen("promtool check metrics >/dev/null 2>&1", "w");
    assert_non_null(tool);
    fputs(page, tool);
    int status = pclose(tool);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return; /* not installed */
    assert_int_equal(status, 0);
}

typedef struct series_wait {
    fixture_t *fx;
    const char *series;
    double want;
} series_wait_t;

static bool series_is(void *arg)
{
    series_wait_t *w = arg;
    return value_of(w->fx, w->series) == w->want;
}

static void wait_value(fixture_t *fx, const char *series, double want)
{
    series_wait_t w = {fx, series, want};
    gr_test_wait(fx->loop, series_is, &w, series);
}

/* A single broker holds, leads and controls its topic's partitions; its logs are listed. */
static void test_single_broker_state(void **state)
{
    fixture_t *fx = *state;
    gr_test_create_topic(fx->loop, fx->b, TOPIC, 3, NULL, 0);
    assert_true(value_of(fx, "kafka_server_replicamanager_partitioncount") >= 3);
    assert_true(value_of(fx, "kafka_server_replicamanager_leadercount") ==
                value_of(fx, "kafka_server_replicamanager_partitioncount"));
    assert_true(value_of(fx, "kafka_server_replicamanager_underreplicatedpartitions") == 0);
    assert_true(value_of(fx, "kafka_server_replicamanager_offlinereplicacount") == 0);
    assert_true(value_of(fx, "kafka_controller_kafkacontroller_activecontrollercount") == 1);
    assert_true(value_of(fx, "kafka_controller_kafkacontroller_activebrokercount") == 1);
    assert_true(value_of(fx, "kafka_controller_kafkacontroller_offlinepartitionscount") == 0);
    assert_true(value_of(fx, "kafka_controller_kafkacontroller_globalpartitioncount") >= 3);
    assert_true(value_of(fx, "kafka_log_log_size{topic=\"" TOPIC "\",partition=\"2\"}") == 0);
    assert_true(value_of(fx, "kafka_log_log_numlogsegments{topic=\"" TOPIC "\",partition=\"0\"}") ==
                1);
    assert_true(value_of(fx, "kafka_log_log_logendoffset{topic=\"" TOPIC "\",partition=\"1\"}") ==
                0);
    assert_true(value_of(fx, "kafka_coordinator_group_groupmetadatamanager_numgroups") == 0);
    const char *page = render(fx);
    /* No ZooKeeper here: no session families. */
    assert_null(strstr(page, "sessionexpirelistener"));
    assert_non_null(strstr(page, "# TYPE kafka_server_replicamanager_isrshrinks_total counter\n"));
    check_with_promtool(fx);
}

static gr_partition_t *lead(fixture_t *fx, const int32_t *isr, int32_t isr_count)
{
    static const int32_t replicas[] = {LOCAL, FOLLOWER};
    gr_fake_cluster_topic_write(fx->b, TOPIC, replicas, 2, LOCAL, isr, isr_count, 0);
    wait_value(fx, "kafka_server_replicamanager_leadercount", 1);
    gr_partition_t *p = &gr_test_hosted_topic(fx->b, TOPIC)->partitions[0];
    assert_true(gr_partition_led_by(p, LOCAL));
    return p;
}

typedef struct fetching {
    fixture_t *fx;
    gr_partition_t *p;
} fetching_t;

/* The follower fetches up to the leader's end; true once the expansion is counted. */
static bool fetch_until_expanded(void *arg)
{
    fetching_t *f = arg;
    assert_int_equal(
        gr_replica_follower_fetch(f->fx->b, f->p, FOLLOWER, gr_log_end_offset(f->p->log)),
        GR_KERR_NONE);
    return value_of(f->fx, "kafka_server_replicamanager_isrexpands_total") == 1;
}

/* A silent follower leaves the ISR (a shrink, under-replicated), and joins it again (an expand). */
static void test_isr_shrink_and_expand(void **state)
{
    fixture_t *fx = *state;
    static const int32_t isr[] = {LOCAL, FOLLOWER};
    gr_partition_t *p = lead(fx, isr, 2);
    assert_true(value_of(fx, "kafka_server_replicamanager_isrshrinks_total") == 0);
    wait_value(fx, "kafka_server_replicamanager_isrshrinks_total", 1);
    wait_value(fx, "kafka_server_replicamanager_underreplicatedpartitions", 1);
    assert_true(value_of(fx, "kafka_server_replicamanager_isrexpands_total") == 0);

    /* The follower fetches as followers do, again and again: a leader proposes no ISR
     * change within GR_ISR_RETRY_MS of the last answer. */
    fetching_t f = {fx, p};
    gr_test_wait(fx->loop, fetch_until_expanded, &f, "the follower to join the ISR again");
    wait_value(fx, "kafka_server_replicamanager_underreplicatedpartitions", 0);
    assert_true(value_of(fx, "kafka_server_replicamanager_failedisrupdates_total") == 0);
    assert_true(value_of(fx, "kafka_controller_kafkacontroller_activebrokercount") == 2);
    check_with_promtool(fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_single_broker_state, setup_alone, teardown),
        cmocka_unit_test_setup_teardown(test_isr_shrink_and_expand, setup_follower, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
