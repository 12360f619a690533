/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /admin/reassign_partitions: the reassignment request of older
 * kafka-reassign-partitions.sh (and of operators with zkCli). The
 * controller watches the node; each time it appears or changes, every
 * partition in it starts moving (ctl_reassign_start; a partition already
 * moving to the same target is left as it is), once the controller's reads
 * have settled so that the topics are known. A partition that does not
 * exist or names bad brokers is logged and left out. As Kafka's controller
 * does, the node is rewritten without the partitions that are done (their
 * replicas are the target, saved), left out, or moved otherwise since by
 * AlterPartitionReassignments, and deleted once none is left; an
 * unreadable node is deleted at once. A controller taking over reads the
 * node again and carries on, never replaying what an API request replaced.
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
    gr_zk_move_t asked; /* topic and target, owned */
    uint64_t edit;      /* the topic's edit that carries it */
    bool gone;          /* done, left out or replaced: not in the node any more */
} zk_move_t;

struct ctl_zk_reassign {
    gr_zk_move_t *asked; /* read, started once reads settled (topics known) */
    int32_t asked_count;
    zk_move_t *moves; /* started */
    int32_t count;
    int32_t version; /* of the node as read */
    bool stale;      /* some move is gone: the node is to be rewritten */
    bool writing;    /* rewritten or deleted: the watch reads it again */
};

static void on_node_watch(void *opaque, gr_store_event_t event, const char *path)
{
    (void)event;
    (void)path;
    gr_controller_t *c = opaque;
    if (c->active)
        ctl_load_zk_reassign(c);
}

static void on_node_written(void *opaque, int rc)
{
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    if (rc != GR_STORE_OK && rc != GR_STORE_NONODE && rc != GR_STORE_BADVERSION)
        gr_logf(&op->c->b->log, GR_LOG_WARN, "controller", "cannot update %s: %s",
                GR_ZK_REASSIGN_PATH, gr_store_rc_name(rc));
    free(op);
}

static void on_node_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    on_node_written(opaque, rc);
}

/* Deletes the node if it still has version (as read). Whether the deletion was issued. */
static bool delete_node(gr_controller_t *c, int32_t version)
{
    ctl_op_t *op = ctl_op_new(c);
    if (op && gr_store_delete(c->b->store_session, GR_ZK_REASSIGN_PATH, version, on_node_written,
                              op) == GR_STORE_OK)
        return true;
    free(op);
    ctl_kick_later(c);
    return false;
}

/* Writes the moves not gone back, conditionally on the version read; a newer node wins. */
static void rewrite_node(gr_controller_t *c, ctl_zk_reassign_t *z)
{
    const gr_zk_move_t **left = calloc((size_t)z->count + 1, sizeof *left);
    int32_t n = 0;
    for (int32_t i = 0; left && i < z->count; i++)
        if (!z->moves[i].gone)
            left[n++] = &z->moves[i].asked;
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    const char *text = NULL;
    size_t len = 0;
    ctl_op_t *op = ctl_op_new(c);
    if (!left || !op || gr_zk_doc_moves(&w, left, n) || gr_zk_json_writer_finish(&w, &text, &len) ||
        gr_store_set(c->b->store_session, GR_ZK_REASSIGN_PATH, text, len, z->version, on_node_set,
                     op) != GR_STORE_OK) {
        free(op);
        ctl_kick_later(c); /* still stale: tried again */
    } else {
        z->stale = false;
        z->writing = true;
    }
    gr_zk_json_writer_fini(&w);
    free(left);
}

/* Starts each move asked; those refused are logged and gone. 0 or -ENOMEM. */
static int start_moves(gr_controller_t *c, ctl_zk_reassign_t *z)
{
    if (!(z->moves = calloc((size_t)z->asked_count + 1, sizeof *z->moves)))
        return -ENOMEM;
    for (int32_t i = 0; i < z->asked_count; i++) {
        zk_move_t *out = &z->moves[z->count++];
        out->asked = z->asked[i];
        memset(&z->asked[i], 0, sizeof z->asked[i]); /* owned by out now */
        const gr_zk_move_t *m = &out->asked;
        gr_ctl_topic_t *t =
            strlen(m->topic) <= GR_TOPIC_NAME_LIMIT ? ctl_topic_find(c, m->topic) : NULL;
        int16_t err = !t || t->deleting || m->partition < 0 || m->partition >= t->partition_count
                          ? GR_KERR_UNKNOWN_TOPIC_OR_PARTITION
                          : ctl_reassign_check(c, &t->partitions[m->partition], m->replicas,
                                               m->replica_count);
        if (!err &&
            ctl_reassign_start(c, t, m->partition, m->replicas, m->replica_count, &out->edit))
            err = GR_KERR_UNKNOWN_SERVER_ERROR;
        if (err) {
            gr_logf(&c->b->log, GR_LOG_WARN, "controller", "%s: %s-%d left out: %s",
                    GR_ZK_REASSIGN_PATH, m->topic, m->partition, gr_kerr_name(err));
            out->gone = true;
            z->stale = true;
        }
    }
    gr_zk_moves_free(z->asked, z->asked_count);
    z->asked = NULL;
    z->asked_count = 0;
    return 0;
}

static void on_node_data(void *opaque, int rc, const void *data, size_t len,
                         const gr_store_stat_t *stat)
{
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
    ctl_zk_reassign_drop(c);
    if (gr_zk_parse_moves(data, len, &moves, &count) != 0) {
        gr_logf(&c->b->log, GR_LOG_ERROR, "controller", "%s is unreadable: deleting it",
                GR_ZK_REASSIGN_PATH);
        (void)delete_node(c, stat->version);
        return;
    }
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s asks to move %d partition(s)",
            GR_ZK_REASSIGN_PATH, count);
    if (!(c->zk_reassign = calloc(1, sizeof *c->zk_reassign))) {
        gr_zk_moves_free(moves, count);
        return ctl_kick_later(c);
    }
    c->zk_reassign->asked = moves;
    c->zk_reassign->asked_count = count;
    c->zk_reassign->version = stat->version;
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
    gr_ctl_topic_t *t = ctl_topic_find(c, m->asked.topic);
    if (!t || t->deleting || m->asked.partition >= t->partition_count)
        return true; /* gone: nothing left to do */
    return !ctl_reassigning(&t->partitions[m->asked.partition]) && ctl_topic_saved(t) &&
           m->edit <= t->saved;
}

void ctl_zk_reassign_forget(gr_controller_t *c, const char *topic, int32_t index)
{
    ctl_zk_reassign_t *z = c->zk_reassign;
    for (int32_t i = 0; z && i < z->count; i++) {
        zk_move_t *m = &z->moves[i];
        if (!m->gone && m->asked.partition == index && strcmp(m->asked.topic, topic) == 0) {
            m->gone = true;
            z->stale = true;
        }
    }
    for (int32_t i = 0; z && i < z->asked_count; i++) {
        gr_zk_move_t *m = &z->asked[i];
        if (m->partition == index && strcmp(m->topic, topic) == 0)
            m->partition = -1; /* left out when started, and so dropped from the node */
    }
}

void ctl_zk_reassign_progress(gr_controller_t *c)
{
    ctl_zk_reassign_t *z = c->zk_reassign;
    if (!z || z->writing)
        return;
    if (z->asked) { /* reads have settled: the topics it names are known */
        if (start_moves(c, z))
            return ctl_kick_later(c);
        return ctl_kick(c);
    }
    int32_t left = 0;
    for (int32_t i = 0; i < z->count; i++) {
        zk_move_t *m = &z->moves[i];
        if (!m->gone && move_done(c, m)) {
            m->gone = true;
            z->stale = true;
        }
        left += !m->gone;
    }
    if (left == 0) {
        gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s: all %d move(s) ended, deleting it",
                GR_ZK_REASSIGN_PATH, z->count);
        z->writing = delete_node(c, z->version);
    } else if (z->stale) {
        rewrite_node(c, z);
    }
}

void ctl_zk_reassign_drop(gr_controller_t *c)
{
    ctl_zk_reassign_t *z = c->zk_reassign;
    if (!z)
        return;
    gr_zk_moves_free(z->asked, z->asked_count);
    for (int32_t i = 0; i < z->count; i++) {
        free(z->moves[i].asked.topic);
        free(z->moves[i].asked.replicas);
    }
    free(z->moves);
    free(z);
    c->zk_reassign = NULL;
}
