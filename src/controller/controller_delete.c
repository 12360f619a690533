/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Topic deletion, as ZooKeeper-mode Kafka does it: a topic named under
 * /admin/delete_topics is announced as being deleted (UpdateMetadata with
 * leader -2), each replica gets StopReplica with deletion (a replica on a
 * down broker waits for it to return), and once all have answered the
 * topic's nodes go: partition states, assignment, config, then the request
 * itself. ZooKeeper applies one session's operations in order, so the last
 * completion means all are done.
 */
#include <stdio.h>
#include <stdlib.h>

#include "controller/controller_int.h"
#include "metadata/store.h"

/* Whether every replica of every partition answered StopReplica. */
static bool all_stopped(const gr_ctl_topic_t *t)
{
    for (int32_t i = 0; i < t->partition_count; i++) {
        const gr_ctl_partition_t *p = &t->partitions[i];
        for (int32_t r = 0; r < p->replica_count; r++)
            if (!p->stop_state || p->stop_state[r] != CTL_STOP_DONE)
                return false;
    }
    return true;
}

static void on_node_deleted(void *opaque, int rc)
{
    (void)opaque;
    (void)rc;
}

static void on_request_deleted(void *opaque, int rc)
{
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    gr_ctl_topic_t *t = ctl_topic_find(c, op->name);
    if (rc != GR_STORE_OK && rc != GR_STORE_NONODE)
        gr_logf(&c->b->log, GR_LOG_WARN, "controller", "removing the deletion request of %s: %s",
                op->name, gr_store_rc_name(rc));
    if (t) {
        gr_logf(&c->b->log, GR_LOG_INFO, "controller", "deleted topic %s", t->name);
        ctl_topic_unlink(c, t);
        ctl_topic_free(t);
    }
    free(op);
    ctl_kick(c);
}

static void delete_node(gr_controller_t *c, const char *path)
{
    (void)gr_store_delete(c->b->store_session, path, GR_STORE_ANY_VERSION, on_node_deleted, NULL);
}

static void delete_znodes(gr_controller_t *c, gr_ctl_topic_t *t)
{
    char path[GR_STORE_PATH_MAX + 1];
    const char *base = GR_ZK_BROKER_TOPICS_PATH;
    for (int32_t i = 0; i < t->partition_count; i++) {
        snprintf(path, sizeof path, "%s/%s/partitions/%d/state", base, t->name, i);
        delete_node(c, path);
        snprintf(path, sizeof path, "%s/%s/partitions/%d", base, t->name, i);
        delete_node(c, path);
    }
    snprintf(path, sizeof path, "%s/%s/partitions", base, t->name);
    delete_node(c, path);
    snprintf(path, sizeof path, "%s/%s", base, t->name);
    delete_node(c, path);
    snprintf(path, sizeof path, GR_ZK_CONFIG_TOPICS_PATH "/%s", t->name);
    delete_node(c, path);
    ctl_op_t *op = ctl_op_new(c);
    snprintf(path, sizeof path, GR_ZK_DELETE_TOPICS_PATH "/%s", t->name);
    if (op)
        snprintf(op->name, sizeof op->name, "%s", t->name);
    if (!op || gr_store_delete(c->b->store_session, path, GR_STORE_ANY_VERSION, on_request_deleted,
                               op) != GR_STORE_OK) {
        free(op);
        t->znodes_deleting = false;
        ctl_kick_later(c);
        return;
    }
    t->znodes_deleting = true;
}

void ctl_delete_progress(gr_controller_t *c)
{
    bool waiting = false;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next) {
        if (!t->deleting || t->znodes_deleting)
            continue;
        if (all_stopped(t))
            delete_znodes(c, t);
        else
            waiting = true;
    }
    if (!waiting)
        return;
    for (size_t i = 0; i < c->broker_count; i++)
        ctl_send_stop_replicas(c, &c->brokers[i]);
}
