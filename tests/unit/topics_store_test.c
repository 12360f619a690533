/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Topic persistence in single-node mode, through its own controller over
 * the embedded store: a real broker (gr_broker_init/start on a temporary log
 * dir, listening on an ephemeral localhost port) creates topics as
 * CreateTopics does (controller/zk_admin.c, then the controller's
 * LeaderAndIsr to this broker), the store holds Kafka's JSON documents for
 * them, and a restart (fini, then init and start again on the same dir, each
 * on a fresh loop) brings back names, ids, partition counts and configs;
 * deletion removes both documents. A lost partition dir is created again, a
 * topic written without an id gets one, and an unreadable document is
 * logged and skipped while the other topics are served.
 *
 * Nothing sleeps: the loop runs until a completion arrives, under a deadline.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <ev.h>

#include "broker/broker.h"
#include "controller/zk_admin.h"
#include "metadata/cluster_view.h"
#include "broker_fixture.h"
#include "loop_wait.h"
#include "topic_wait.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "metadata/store.h"
#include "metadata/zk_json.h"
#include "log/log_dir.h"

typedef gr_test_broker_t fixture_t;

/* ---- loop driving ------------------------------------------------------------------ */

/* Runs the loop until *flag is true. */
static void run_until(fixture_t *fx, const bool *flag)
{
    gr_test_wait_flag(fx->loop, flag, "a store completion");
}

/* ---- broker lifecycle -------------------------------------------------------------- */

static int broker_start(fixture_t *fx)
{
    return gr_test_broker_start(fx, NULL, 0);
}

/* Whether the broker logged a line containing text so far. */
static bool logged(fixture_t *fx, const char *text)
{
    return gr_test_broker_logged(fx, text);
}

static void broker_stop(fixture_t *fx)
{
    gr_test_broker_stop(fx);
}

static int setup(void **state)
{
    return gr_test_broker_new(state, "topics-store");
}

static int teardown(void **state)
{
    return gr_test_broker_free(state);
}

/* ---- direct store reads ------------------------------------------------------------ */

typedef struct read_result {
    bool done;
    int rc;
    char data[1024];
} read_result_t;

static void on_get(void *opaque, int rc, const void *data, size_t len, const gr_store_stat_t *st)
{
    (void)st;
    read_result_t *r = opaque;
    r->done = true;
    r->rc = rc;
    if (rc == GR_STORE_OK) {
        assert_true(len < sizeof r->data);
        memcpy(r->data, data, len);
        r->data[len] = '\0';
    }
}

static void on_created(void *opaque, int rc, const char *path)
{
    (void)path;
    read_result_t *r = opaque;
    r->done = true;
    r->rc = rc;
}

static void on_set(void *opaque, int rc, const gr_store_stat_t *st)
{
    (void)st;
    read_result_t *r = opaque;
    r->done = true;
    r->rc = rc;
}

/* Reads path through the broker's store on a session of the test's own. */
static int store_get(fixture_t *fx, const char *path, char *out, size_t outlen)
{
    gr_store_session_t *s = NULL;
    read_result_t r = {0};
    assert_int_equal(gr_store_session_open(fx->b->store, NULL, NULL, &s), GR_STORE_OK);
    assert_int_equal(gr_store_get(s, path, NULL, NULL, on_get, &r), GR_STORE_OK);
    run_until(fx, &r.done);
    gr_store_session_close(s);
    if (out)
        snprintf(out, outlen, "%s", r.data);
    return r.rc;
}

/* Creates (or with set, replaces) path with text on the test's own session. */
static void store_put(fixture_t *fx, const char *path, const char *text, bool set)
{
    gr_store_session_t *s = NULL;
    read_result_t r = {0};
    assert_int_equal(gr_store_session_open(fx->b->store, NULL, NULL, &s), GR_STORE_OK);
    if (set)
        assert_int_equal(gr_store_set(s, path, text, strlen(text), -1, on_set, &r), GR_STORE_OK);
    else
        assert_int_equal(gr_store_create(s, path, text, strlen(text), 0, on_created, &r),
                         GR_STORE_OK);
    run_until(fx, &r.done);
    assert_int_equal(r.rc, GR_STORE_OK);
    gr_store_session_close(s);
}

/* ---- helpers ----------------------------------------------------------------------- */

static gr_topic_t *find(fixture_t *fx, const char *name)
{
    return gr_topics_find(fx->b->topics, name, strlen(name));
}

static gr_topic_t *hosted(fixture_t *fx, const char *name)
{
    return gr_test_hosted_topic(fx->b, name);
}

typedef struct topic_gone {
    fixture_t *fx;
    const char *name;
} topic_gone_t;

static bool is_gone(void *arg)
{
    topic_gone_t *g = arg;
    return find(g->fx, g->name) == NULL;
}

static bool assignment_gone(void *arg)
{
    return store_get(arg, "/brokers/topics/alpha", NULL, 0) == GR_STORE_NONODE;
}

static gr_topic_t *create(fixture_t *fx, const char *name, int32_t partitions,
                          const gr_topic_config_t *configs, int count)
{
    return gr_test_create_topic(fx->loop, fx->b, name, partitions, configs, count);
}

static bool dir_exists(fixture_t *fx, const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", fx->dir, name);
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const gr_topic_config_t alpha_configs[] = {
    {(char *)"retention.ms", (char *)"1000"},
    {(char *)"cleanup.policy", (char *)"delete"},
};

/* ---- tests ------------------------------------------------------------------------- */

static void test_documents_and_restart(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(broker_start(fx), 0);
    assert_true(dir_exists(fx, "__gregor_metadata"));
    gr_topic_t *alpha = create(fx, "alpha", 3, alpha_configs, 2);
    gr_topic_t *beta = create(fx, "beta", 1, NULL, 0);
    gr_uuid_t alpha_id = alpha->id, beta_id = beta->id;
    char cluster_id[GR_CLUSTER_ID_MAX];
    snprintf(cluster_id, sizeof cluster_id, "%s", fx->b->cluster_id);

    /* Kafka's documents, byte for byte. */
    char text[1024], want[1024], id[GR_UUID_STRING_CHARS + 1];
    gr_uuid_format(alpha_id, id);
    snprintf(want, sizeof want,
             "{\"partitions\":{\"0\":[%d],\"1\":[%d],\"2\":[%d]},\"topic_id\":\"%s\","
             "\"adding_replicas\":{},\"removing_replicas\":{},\"version\":3}",
             fx->b->config.broker_id, fx->b->config.broker_id, fx->b->config.broker_id, id);
    assert_int_equal(store_get(fx, "/brokers/topics/alpha", text, sizeof text), GR_STORE_OK);
    assert_string_equal(text, want);
    assert_int_equal(store_get(fx, "/config/topics/alpha", text, sizeof text), GR_STORE_OK);
    assert_string_equal(text,
                        "{\"version\":1,\"config\":{\"retention.ms\":\"1000\",\"cleanup.policy\":"
                        "\"delete\"}}");
    assert_int_equal(store_get(fx, "/config/topics/beta", text, sizeof text), GR_STORE_OK);
    assert_string_equal(text, "{\"version\":1,\"config\":{}}");
    assert_int_equal(store_get(fx, "/cluster/id", text, sizeof text), GR_STORE_OK);
    snprintf(want, sizeof want, "{\"version\":\"1\",\"id\":\"%s\"}", cluster_id);
    assert_string_equal(text, want);
    /* The broker's own controller did it: registered, elected, wrote the leaders. */
    assert_int_equal(store_get(fx, "/brokers/ids/0", NULL, 0), GR_STORE_OK);
    assert_int_equal(store_get(fx, "/controller", text, sizeof text), GR_STORE_OK);
    assert_non_null(strstr(text, "\"brokerid\":0"));
    assert_int_equal(store_get(fx, "/controller_epoch", text, sizeof text), GR_STORE_OK);
    assert_string_equal(text, "1");
    assert_int_equal(store_get(fx, "/brokers/topics/alpha/partitions/2/state", text, sizeof text),
                     GR_STORE_OK);
    assert_non_null(strstr(text, "\"leader\":0"));
    assert_int_equal(fx->b->cluster->controller_epoch, 1);
    broker_stop(fx);

    assert_int_equal(broker_start(fx), 0);
    assert_int_equal(fx->b->topics->count, 2);
    assert_int_equal(store_get(fx, "/controller_epoch", text, sizeof text), GR_STORE_OK);
    assert_string_equal(text, "2"); /* a restart is a new controller, as in a cluster */
    assert_int_equal(fx->b->cluster->controller_epoch, 2);
    assert_string_equal(fx->b->cluster_id, cluster_id);
    alpha = find(fx, "alpha");
    assert_non_null(alpha);
    assert_int_equal(alpha->partition_count, 3);
    assert_memory_equal(alpha->id.b, alpha_id.b, sizeof alpha_id.b);
    assert_int_equal(alpha->config_count, 2);
    assert_string_equal(alpha->configs[0].key, "retention.ms");
    assert_string_equal(alpha->configs[0].value, "1000");
    assert_string_equal(alpha->configs[1].key, "cleanup.policy");
    assert_string_equal(alpha->configs[1].value, "delete");
    assert_true(alpha->settings.log.retention_ms == 1000);
    beta = find(fx, "beta");
    assert_non_null(beta);
    assert_int_equal(beta->partition_count, 1);
    assert_memory_equal(beta->id.b, beta_id.b, sizeof beta_id.b);
    assert_int_equal(beta->config_count, 0);
    for (int32_t i = 0; i < 3; i++) {
        gr_uuid_t on_disk;
        assert_true(gr_log_topic_id(alpha->partitions[i].log, &on_disk));
        assert_memory_equal(on_disk.b, alpha_id.b, sizeof on_disk.b);
    }

    /* Deletion removes both documents, for good. */
    assert_int_equal(gr_zk_admin_delete_topic(fx->b, "alpha", NULL, NULL), 0);
    topic_gone_t gone = {fx, "alpha"};
    gr_test_wait(fx->loop, is_gone, &gone, "alpha's deletion");
    /* The controller removes the nodes last. */
    gr_test_wait(fx->loop, assignment_gone, fx, "alpha's assignment node");
    assert_int_equal(store_get(fx, "/brokers/topics/alpha", NULL, 0), GR_STORE_NONODE);
    assert_int_equal(store_get(fx, "/config/topics/alpha", NULL, 0), GR_STORE_NONODE);
    assert_int_equal(store_get(fx, "/brokers/topics/beta", NULL, 0), GR_STORE_OK);
    assert_false(logged(fx, "ERROR"));
    broker_stop(fx);

    assert_int_equal(broker_start(fx), 0);
    assert_int_equal(fx->b->topics->count, 1);
    assert_null(find(fx, "alpha"));
    assert_non_null(find(fx, "beta"));
    assert_false(dir_exists(fx, "alpha-0"));
    assert_false(logged(fx, "WARN"));
}

static void test_lost_partition_dir_recreated(void **state)
{
    fixture_t *fx = *state;
    char path[256];
    assert_int_equal(broker_start(fx), 0);
    create(fx, "alpha", 2, alpha_configs, 1);
    broker_stop(fx);
    snprintf(path, sizeof path, "%s/alpha-1", fx->dir);
    assert_int_equal(gr_log_dir_remove_tree(NULL, path), 0);

    assert_int_equal(broker_start(fx), 0);
    gr_topic_t *alpha = hosted(fx, "alpha");
    assert_non_null(alpha);
    assert_int_equal(alpha->partition_count, 2);
    assert_true(dir_exists(fx, "alpha-1"));
    assert_int_equal(store_get(fx, "/config/topics/alpha", NULL, 0), GR_STORE_OK);
}

static void test_topic_without_id_or_config(void **state)
{
    fixture_t *fx = *state;
    char text[1024];
    assert_int_equal(broker_start(fx), 0);
    /* An assignment as Kafka before 2.8 wrote it: no topic_id, and no config node. */
    store_put(fx, "/brokers/topics/old", "{\"version\":1,\"partitions\":{\"1\":[0],\"0\":[0]}}",
              false);
    broker_stop(fx);
    assert_int_equal(broker_start(fx), 0);
    gr_topic_t *old = hosted(fx, "old");
    assert_non_null(old);
    assert_int_equal(old->partition_count, 2);
    assert_false(gr_uuid_is_zero(old->id));
    /* The id it got is written back. */
    assert_int_equal(store_get(fx, "/brokers/topics/old", text, sizeof text), GR_STORE_OK);
    char id[GR_UUID_STRING_CHARS + 1];
    gr_uuid_format(old->id, id);
    assert_non_null(strstr(text, id));
    gr_uuid_t first = old->id;
    broker_stop(fx);
    assert_int_equal(broker_start(fx), 0);
    old = find(fx, "old");
    assert_non_null(old);
    assert_memory_equal(old->id.b, first.b, sizeof first.b);
}

static void test_corrupt_document_skipped(void **state)
{
    fixture_t *fx = *state;
    static const char *const bad[] = {
        "{\"partitions\":{",                                   /* not JSON */
        "{\"partitions\":{}}",                                 /* no partitions */
        "{\"partitions\":{\"0\":[0],\"2\":[0]}}",              /* a gap */
        "{\"partitions\":{\"00\":[0]}}",                       /* not canonical */
        "{\"partitions\":{\"0\":0}}",                          /* not a replica list */
        "{\"partitions\":{\"0\":[0]},\"topic_id\":\"short\"}", /* bad id */
    };
    assert_int_equal(broker_start(fx), 0);
    create(fx, "alpha", 1, NULL, 0);
    store_put(fx, "/brokers/topics/bad", bad[0], false);
    broker_stop(fx);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(broker_start(fx), 0);
        assert_true(logged(fx, "assignment of bad is unreadable"));
        assert_non_null(hosted(fx, "alpha"));
        assert_null(find(fx, "bad"));
        if (i + 1 < sizeof bad / sizeof bad[0])
            store_put(fx, "/brokers/topics/bad", bad[i + 1], true);
        broker_stop(fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_documents_and_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lost_partition_dir_recreated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_topic_without_id_or_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_document_skipped, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
