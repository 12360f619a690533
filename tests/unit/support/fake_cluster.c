/* SPDX-License-Identifier: Apache-2.0 */
/* Other brokers and topics in a test broker's store (fake_cluster.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fake_cluster.h"
#include "loop_wait.h"

#include "controller/zk_member.h"
#include "metadata/store.h"
#include "metadata/zk_docs.h"
#include "metadata/zk_json.h"

bool gr_fake_cluster_settled(void *controller)
{
    gr_controller_t *c = controller;
    return c->active && c->loaded && c->writes_pending == 0 && c->reads_pending == 0;
}

gr_ctl_broker_t *gr_fake_cluster_broker(gr_controller_t *c, int32_t id)
{
    for (size_t i = 0; i < c->broker_count; i++)
        if (c->brokers[i].node.id == id)
            return &c->brokers[i];
    return NULL;
}

gr_ctl_topic_t *gr_fake_cluster_topic(gr_controller_t *c, const char *name)
{
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

gr_ctl_partition_t *gr_fake_cluster_partition(gr_controller_t *c, const char *name, int32_t index)
{
    gr_ctl_topic_t *t = gr_fake_cluster_topic(c, name);
    if (!t || index >= t->partition_count)
        return NULL; /* partitions are known once the assignment was read */
    gr_ctl_partition_t *p = &t->partitions[index];
    return p->state_read && p->has_state ? p : NULL;
}

void gr_fake_cluster_create(gr_broker_t *b, const char *path, const char *data, size_t len)
{
    assert_int_equal(gr_store_create(b->store_session, path, data ? data : "", data ? len : 0,
                                     GR_STORE_PERSISTENT, NULL, NULL),
                     GR_STORE_OK);
}

/* Creates path holding json's document. */
static void create_doc(gr_broker_t *b, const char *path, gr_zk_json_writer_t *json)
{
    const char *text = NULL;
    size_t len = 0;
    assert_int_equal(gr_zk_json_writer_finish(json, &text, &len), 0);
    gr_fake_cluster_create(b, path, text, len);
    gr_zk_json_writer_fini(json);
}

typedef struct broker_wait {
    gr_controller_t *c;
    int32_t id;
    bool present;
} broker_wait_t;

static bool broker_as_wanted(void *arg)
{
    broker_wait_t *w = arg;
    return (gr_fake_cluster_broker(w->c, w->id) != NULL) == w->present &&
           gr_fake_cluster_settled(w->c);
}

void gr_fake_cluster_join(gr_broker_t *b, int32_t id)
{
    gr_controller_t *c = &b->zk->controller;
    gr_cluster_node_t node = gr_fake_cluster_broker(c, b->config.broker_id)->node;
    node.id = id;
    node.port = GR_FAKE_CLUSTER_DEAD_PORT;
    node.rack = NULL;
    for (int32_t i = 0; i < node.endpoint_count; i++)
        node.endpoints[i].port = GR_FAKE_CLUSTER_DEAD_PORT;
    gr_zk_json_writer_t json;
    gr_zk_json_writer_init(&json);
    assert_int_equal(gr_zk_doc_broker(&json, &node, 0), 0);
    char path[64];
    snprintf(path, sizeof path, GR_ZK_BROKER_IDS_PATH "/%d", id);
    create_doc(b, path, &json);
    broker_wait_t w = {c, id, true};
    gr_test_wait(b->loop, broker_as_wanted, &w, "the broker's registration");
}

void gr_fake_cluster_unregister(gr_broker_t *b, int32_t id)
{
    char path[64];
    snprintf(path, sizeof path, GR_ZK_BROKER_IDS_PATH "/%d", id);
    assert_int_equal(gr_store_delete(b->store_session, path, GR_STORE_ANY_VERSION, NULL, NULL),
                     GR_STORE_OK);
}

void gr_fake_cluster_leave(gr_broker_t *b, int32_t id)
{
    gr_fake_cluster_unregister(b, id);
    broker_wait_t w = {&b->zk->controller, id, false};
    gr_test_wait(b->loop, broker_as_wanted, &w, "the broker to be gone");
}

void gr_fake_cluster_topic_write(gr_broker_t *b, const char *name, const int32_t *replicas,
                                 int32_t count, int32_t leader, const int32_t *isr,
                                 int32_t isr_count, int32_t leader_epoch)
{
    int32_t *lists[1] = {(int32_t *)replicas};
    int32_t counts[1] = {count};
    gr_zk_assignment_t a = {
        .has_id = true, .partition_count = 1, .replicas = lists, .replica_counts = counts};
    memset(a.id.b, 0x42, sizeof a.id.b);
    a.id.b[0] = (uint8_t)name[0];
    gr_zk_json_writer_t json;
    gr_zk_json_writer_init(&json);
    assert_int_equal(gr_zk_doc_assignment(&json, &a), 0);
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s", name);
    create_doc(b, path, &json);
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s/partitions", name);
    gr_fake_cluster_create(b, path, NULL, 0);
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s/partitions/0", name);
    gr_fake_cluster_create(b, path, NULL, 0);
    gr_zk_partition_state_t st = {.leader = leader,
                                  .leader_epoch = leader_epoch,
                                  .controller_epoch = b->zk->controller.epoch,
                                  .isr = (int32_t *)isr,
                                  .isr_count = isr_count};
    gr_zk_json_writer_init(&json);
    assert_int_equal(gr_zk_doc_partition_state(&json, &st), 0);
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s/partitions/0/state", name);
    create_doc(b, path, &json);
}
