/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller's life (activation with a new epoch, resignation) and its
 * reconcile loop; see controller.h.
 */
#include "controller/controller.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "metadata/store.h"

#define CONTROLLER_RETRY_SEC   1.0
#define FIRST_CONTROLLER_EPOCH 1
#define FEATURE_DOC            "{\"features\":{},\"version\":2,\"status\":1}"

static void reconcile(gr_controller_t *c);

static void on_kick(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    reconcile(t->data);
}

void gr_controller_init(gr_controller_t *c, gr_broker_t *b)
{
    memset(c, 0, sizeof *c);
    c->b = b;
    c->epoch = -1;
    ev_timer_init(&c->kick, on_kick, 0., 0.);
    c->kick.data = c;
    ev_timer_init(&c->local_start, NULL, 0., 0.);
    ev_timer_init(&c->rebalance, NULL, 0., 0.);
}

ctl_op_t *ctl_op_new(gr_controller_t *c)
{
    ctl_op_t *op = calloc(1, sizeof *op);
    if (op) {
        op->c = c;
        op->gen = c->gen;
    }
    return op;
}

bool ctl_op_current(ctl_op_t *op)
{
    if (op->c->active && op->gen == op->c->gen)
        return true;
    free(op->data);
    free(op);
    return false;
}

void ctl_kick(gr_controller_t *c)
{
    if (!c->active)
        return;
    if (ev_is_active(&c->kick) && ev_timer_remaining(c->b->loop, &c->kick) <= 0.)
        return;
    ev_timer_stop(c->b->loop, &c->kick);
    ev_timer_set(&c->kick, 0., 0.);
    ev_timer_start(c->b->loop, &c->kick);
}

void ctl_kick_later(gr_controller_t *c)
{
    if (!c->active || ev_is_active(&c->kick))
        return;
    ev_timer_set(&c->kick, CONTROLLER_RETRY_SEC, 0.);
    ev_timer_start(c->b->loop, &c->kick);
}

gr_ctl_broker_t *ctl_broker_find(gr_controller_t *c, int32_t id)
{
    for (size_t i = 0; i < c->broker_count; i++)
        if (c->brokers[i].node.id == id)
            return &c->brokers[i];
    return NULL;
}

gr_ctl_topic_t *ctl_topic_find(gr_controller_t *c, const char *name)
{
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

void ctl_topic_free(gr_ctl_topic_t *t)
{
    for (int32_t i = 0; i < t->partition_count; i++) {
        free(t->partitions[i].replicas);
        ctl_reassign_clear(&t->partitions[i]);
        free(t->partitions[i].dropping);
        free(t->partitions[i].stop_state);
        gr_zk_partition_state_free(&t->partitions[i].state);
    }
    free(t->partitions);
    free(t->name);
    free(t);
}

void ctl_topic_unlink(gr_controller_t *c, gr_ctl_topic_t *t)
{
    for (gr_ctl_topic_t **pp = &c->topics; *pp; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            return;
        }
    }
}

const gr_ctl_broker_t *gr_controller_brokers(const gr_controller_t *c, size_t *count)
{
    *count = c->active ? c->broker_count : 0;
    return c->active ? c->brokers : NULL;
}

/*
 * Tells every broker what changed, once no read or write is outstanding:
 * LeaderAndIsr for the changed partitions to their replicas, UpdateMetadata
 * with the changed partitions to everyone, both whole to a broker that needs
 * everything (it just joined). A change of the brokers or of a topic as a
 * whole (metadata_dirty) sends UpdateMetadata whole to everyone: offline
 * replicas may have moved in every partition.
 */
static void broadcast(gr_controller_t *c)
{
    bool changed = c->metadata_dirty;
    for (gr_ctl_topic_t *t = c->topics; t && !changed; t = t->next)
        for (int32_t i = 0; i < t->partition_count && !changed; i++)
            changed = t->partitions[i].changed;
    for (size_t i = 0; i < c->broker_count; i++) {
        gr_ctl_broker_t *br = &c->brokers[i];
        if (br->needs_full || changed)
            ctl_send_leader_and_isr(c, br, br->needs_full);
    }
    for (size_t i = 0; i < c->broker_count; i++) {
        gr_ctl_broker_t *br = &c->brokers[i];
        if (br->needs_full || changed)
            ctl_send_update_metadata(c, br, br->needs_full || c->metadata_dirty);
    }
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next)
        for (int32_t i = 0; i < t->partition_count; i++)
            t->partitions[i].changed = false;
    for (size_t i = 0; i < c->broker_count; i++)
        c->brokers[i].needs_full = false;
    c->metadata_dirty = false;
}

static void reconcile(gr_controller_t *c)
{
    if (!c->active || c->epoch < 0 || c->reads_pending > 0)
        return;
    if (!c->loaded) {
        c->loaded = true;
        gr_logf(&c->b->log, GR_LOG_INFO, "controller",
                "controller %d at epoch %d: %zu live broker(s)", c->b->config.broker_id, c->epoch,
                c->broker_count);
        ctl_rebalance_start(c);
    }
    ctl_elect_all(c);
    ctl_elections_progress(c);
    ctl_reassign_progress(c);
    if (c->writes_pending > 0)
        return;
    broadcast(c);
    ctl_shutdown_progress(c);
    ctl_elections_report(c);
    ctl_reassign_stop_dropped(c);
    ctl_reassign_report(c);
    ctl_zk_reassign_progress(c);
    ctl_delete_progress(c);
}

/* ---- activation: a new epoch, then the first reads ------------------------------------ */

static void on_feature_created(void *opaque, int rc, const char *path)
{
    (void)opaque;
    (void)rc;
    (void)path;
}

static void start_loading(gr_controller_t *c)
{
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "broker %d is the controller, epoch %d",
            c->b->config.broker_id, c->epoch);
    (void)gr_store_create(c->b->store_session, GR_ZK_FEATURE_PATH, FEATURE_DOC, strlen(FEATURE_DOC),
                          GR_STORE_PERSISTENT, on_feature_created, NULL);
    /* Issue order matters: deletions are matched against the topic listing before them. */
    ctl_load_brokers(c);
    ctl_load_topics(c);
    ctl_load_deletions(c);
    ctl_load_zk_reassign(c);
}

static void bump_epoch(gr_controller_t *c);

static void on_epoch_written(gr_controller_t *c, ctl_op_t *op, int rc, int32_t version)
{
    if (rc == GR_STORE_OK) {
        c->epoch = op->count;
        c->epoch_version = version;
        free(op);
        start_loading(c);
        return;
    }
    free(op);
    gr_logf(&c->b->log, GR_LOG_WARN, "controller", "controller epoch update lost a race (%s)",
            gr_store_rc_name(rc));
    bump_epoch(c);
}

static void on_epoch_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    ctl_op_t *op = opaque;
    if (ctl_op_current(op))
        on_epoch_written(op->c, op, rc, rc == GR_STORE_OK ? stat->version : -1);
}

static void on_epoch_created(void *opaque, int rc, const char *path)
{
    (void)path;
    ctl_op_t *op = opaque;
    if (ctl_op_current(op))
        on_epoch_written(op->c, op, rc, 0);
}

static void on_epoch_read(void *opaque, int rc, const void *data, size_t len,
                          const gr_store_stat_t *stat)
{
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    char text[16];
    int32_t epoch = 0;
    if (rc == GR_STORE_NONODE) {
        op->count = FIRST_CONTROLLER_EPOCH;
        snprintf(text, sizeof text, "%d", op->count);
        if (gr_store_create(c->b->store_session, GR_ZK_CONTROLLER_EPOCH, text, strlen(text),
                            GR_STORE_PERSISTENT, on_epoch_created, op) == GR_STORE_OK)
            return;
    } else if (rc == GR_STORE_OK && gr_zk_parse_int32(data, len, &epoch) == 0) {
        op->count = epoch + 1;
        snprintf(text, sizeof text, "%d", op->count);
        if (gr_store_set(c->b->store_session, GR_ZK_CONTROLLER_EPOCH, text, strlen(text),
                         stat->version, on_epoch_set, op) == GR_STORE_OK)
            return;
    }
    gr_logf(&c->b->log, GR_LOG_ERROR, "controller", "cannot read %s: %s", GR_ZK_CONTROLLER_EPOCH,
            rc == GR_STORE_OK ? "not a number" : gr_store_rc_name(rc));
    free(op);
    bump_epoch(c); /* the session is still ours: try again */
}

static void bump_epoch(gr_controller_t *c)
{
    ctl_op_t *op = ctl_op_new(c);
    if (!op || gr_store_get(c->b->store_session, GR_ZK_CONTROLLER_EPOCH, NULL, NULL, on_epoch_read,
                            op) != GR_STORE_OK) {
        free(op);
        gr_logf(&c->b->log, GR_LOG_ERROR, "controller", "cannot start the controller epoch read");
    }
}

void gr_controller_activate(gr_controller_t *c)
{
    if (c->active)
        return;
    c->active = true;
    c->gen++;
    c->epoch = -1;
    c->loaded = false;
    bump_epoch(c);
}

static void drop_state(gr_controller_t *c)
{
    ev_timer_stop(c->b->loop, &c->kick);
    ctl_rebalance_stop(c);
    ctl_shutdown_drop(c);
    ctl_elections_drop(c);
    ctl_reassign_drop(c);
    ctl_zk_reassign_drop(c);
    ctl_local_drop(c);
    for (size_t i = 0; i < c->broker_count; i++) {
        ctl_broker_drop_peer(&c->brokers[i]);
        free(c->brokers[i].node.rack);
    }
    free(c->brokers);
    c->brokers = NULL;
    c->broker_count = 0;
    while (c->topics) {
        gr_ctl_topic_t *t = c->topics;
        c->topics = t->next;
        ctl_topic_free(t);
    }
    c->reads_pending = 0;
    c->writes_pending = 0;
}

void gr_controller_resign(gr_controller_t *c)
{
    if (!c->active)
        return;
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "broker %d resigns as controller (epoch %d)",
            c->b->config.broker_id, c->epoch);
    c->active = false;
    c->gen++;
    drop_state(c);
}

void gr_controller_fini(gr_controller_t *c)
{
    c->active = false;
    c->gen++;
    drop_state(c);
}
