/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /admin/reassign_partitions: the reassignment request of older
 * kafka-reassign-partitions.sh (and of operators with zkCli). The
 * controller watches the node; each time it appears or changes, every
 * partition in it starts moving (ctl_reassign_start; a partition already
 * moving to the same target is left as it is). A partition that does not
 * exist or names bad brokers is logged and left out. Once every partition
 * of it is done (its replicas are the target, saved), the node is deleted,
 * as Kafka's controller does; an unreadable node is deleted at once. A
 * controller that takes over reads the node again and carries on.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "metadata/store.h"
#include "protocol/kerr.h"

typedef struct zk_move {
    char topic[GR_TOPIC_NAME_LIMIT + 1];
    int32_t index;
    uint64_t edit;
} zk_move_t;

struct ctl_zk_reassign {
    gr_zk_move_t *asked; /* read, started once reads settled (topics known) */
    int32_t asked_count;
    zk_move_t *moves; /* started */
    int32_t count;
    bool deleting; /* every move is done: the node is being deleted */
};

static void on_node_watch(void *opaque, gr_store_event_t event, const char *path)
{
    (void)event;
    (void)path;
    gr_controller_t *c = opaque;
    if (c->active)
        ctl_load_zk_reassign(c);
}

static void on_node_deleted(void *opaque, int rc)
{
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    if (rc != GR_STORE_OK && rc != GR_STORE_NONODE)
        gr_logf(&op->c->b->log, GR_LOG_WARN, "controller", "cannot delete %s: %s",
                GR_ZK_REASSIGN_PATH, gr_store_rc_name(rc));
    free(op);
}

static void delete_node(gr_controller_t *c)
{
    ctl_op_t *op = ctl_op_new(c);
    if (op && gr_store_delete(c->b->store_session, GR_ZK_REASSIGN_PATH, GR_STORE_ANY_VERSION,
                              on_node_deleted, op) != GR_STORE_OK)
        free(op);
}

/* Starts each move asked; those refused are logged and left out. 0 or -ENOMEM. */
static int start_moves(gr_controller_t *c, ctl_zk_reassign_t *z)
{
    const gr_zk_move_t *moves = z->asked;
    int32_t count = z->asked_count;
    if (!(z->moves = calloc((size_t)count + 1, sizeof *z->moves)))
        return -ENOMEM;
    for (int32_t i = 0; i < count; i++) {
        const gr_zk_move_t *m = &moves[i];
        gr_ctl_topic_t *t =
            strlen(m->topic) <= GR_TOPIC_NAME_LIMIT ? ctl_topic_find(c, m->topic) : NULL;
        int16_t err = !t || t->deleting || m->partition < 0 || m->partition >= t->partition_count
                          ? GR_KERR_UNKNOWN_TOPIC_OR_PARTITION
                          : ctl_reassign_check(c, m->replicas, m->replica_count);
        uint64_t edit = 0;
        if (!err && ctl_reassign_start(c, t, m->partition, m->replicas, m->replica_count, &edit))
            err = GR_KERR_UNKNOWN_SERVER_ERROR;
        if (err) {
            gr_logf(&c->b->log, GR_LOG_WARN, "controller", "%s: %s-%d left out: %s",
                    GR_ZK_REASSIGN_PATH, m->topic, m->partition, gr_kerr_name(err));
            continue;
        }
        zk_move_t *out = &z->moves[z->count++];
        snprintf(out->topic, sizeof out->topic, "%s", m->topic);
        out->index = m->partition;
        out->edit = edit;
    }
    gr_zk_moves_free(z->asked, z->asked_count);
    z->asked = NULL;
    z->asked_count = 0;
    return 0;
}

static void on_node_data(void *opaque, int rc, const void *data, size_t len,
                         const gr_store_stat_t *stat)
{
    (void)stat;
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    free(op);
    if (rc == GR_STORE_NONODE)
        return ctl_zk_reassign_drop(c);
    if (rc != GR_STORE_OK)
        return ctl_kick_later(c);
    gr_zk_move_t *moves = NULL;
    int32_t count = 0;
    if (gr_zk_parse_moves(data, len, &moves, &count) != 0) {
        gr_logf(&c->b->log, GR_LOG_ERROR, "controller", "%s is unreadable: deleting it",
                GR_ZK_REASSIGN_PATH);
        delete_node(c);
        return;
    }
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s asks to move %d partition(s)",
            GR_ZK_REASSIGN_PATH, count);
    ctl_zk_reassign_drop(c);
    if (!(c->zk_reassign = calloc(1, sizeof *c->zk_reassign))) {
        gr_zk_moves_free(moves, count);
        return ctl_kick_later(c);
    }
    c->zk_reassign->asked = moves;
    c->zk_reassign->asked_count = count;
    ctl_kick(c);
}

static void on_node_exists(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    if (rc == GR_STORE_OK && gr_store_get(c->b->store_session, GR_ZK_REASSIGN_PATH, NULL, NULL,
                                          on_node_data, op) == GR_STORE_OK)
        return;
    free(op);
    if (rc == GR_STORE_NONODE)
        ctl_zk_reassign_drop(c);
}

void ctl_load_zk_reassign(gr_controller_t *c)
{
    ctl_op_t *op = ctl_op_new(c);
    if (op && gr_store_exists(c->b->store_session, GR_ZK_REASSIGN_PATH, on_node_watch, c,
                              on_node_exists, op) != GR_STORE_OK) {
        free(op);
        ctl_kick_later(c);
    }
}

/* Whether move m is done: its partition's replicas are the target, saved. */
static bool move_done(gr_controller_t *c, const zk_move_t *m)
{
    gr_ctl_topic_t *t = ctl_topic_find(c, m->topic);
    if (!t || t->deleting || m->index >= t->partition_count)
        return true; /* gone: nothing left to do */
    return !ctl_reassigning(&t->partitions[m->index]) && ctl_topic_saved(t) && m->edit <= t->saved;
}

void ctl_zk_reassign_progress(gr_controller_t *c)
{
    ctl_zk_reassign_t *z = c->zk_reassign;
    if (!z || z->deleting)
        return;
    if (z->asked) { /* reads have settled: the topics it names are known */
        if (start_moves(c, z))
            return ctl_kick_later(c);
        return ctl_kick(c);
    }
    for (int32_t i = 0; i < z->count; i++)
        if (!move_done(c, &z->moves[i]))
            return;
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s: all %d move(s) done, deleting it",
            GR_ZK_REASSIGN_PATH, z->count);
    z->deleting = true;
    delete_node(c);
}

void ctl_zk_reassign_drop(gr_controller_t *c)
{
    if (c->zk_reassign) {
        gr_zk_moves_free(c->zk_reassign->asked, c->zk_reassign->asked_count);
        free(c->zk_reassign->moves);
        free(c->zk_reassign);
        c->zk_reassign = NULL;
    }
}
