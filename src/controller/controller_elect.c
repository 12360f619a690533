/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Partition leadership: a state for partitions that have none, a new leader
 * (or none: offline) for partitions whose leader left, and the leader back
 * when a replica returns. Each change bumps the leader epoch and is written
 * to the partition's state node, conditionally on the version read, so a
 * stale controller cannot overwrite a newer one's decision.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "metadata/store.h"

static bool is_live(gr_controller_t *c, int32_t id)
{
    return id >= 0 && ctl_broker_find(c, id) != NULL;
}

/* The first live broker of ids that is also a replica, or GR_NO_BROKER. */
static int32_t first_live(gr_controller_t *c, const int32_t *ids, int32_t count,
                          const gr_ctl_partition_t *p)
{
    for (int32_t i = 0; i < count; i++) {
        if (!is_live(c, ids[i]))
            continue;
        for (int32_t r = 0; r < p->replica_count; r++)
            if (p->replicas[r] == ids[i])
                return ids[i];
    }
    return GR_NO_BROKER;
}

typedef struct state_write {
    gr_zk_partition_state_t state;
    int32_t isr_storage[1];
} state_write_t;

static void write_done(ctl_op_t *op, int rc, int32_t version)
{
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    state_write_t *w = op->data;
    gr_ctl_topic_t *t = ctl_topic_find(c, op->name);
    c->writes_pending--;
    if (t && op->index < t->partition_count) {
        gr_ctl_partition_t *p = &t->partitions[op->index];
        p->writing = false;
        if (rc == GR_STORE_OK) {
            gr_zk_partition_state_free(&p->state);
            p->state = w->state;
            p->state.isr = malloc(sizeof(int32_t) * (size_t)(w->state.isr_count + 1));
            if (p->state.isr)
                memcpy(p->state.isr, w->state.isr, sizeof(int32_t) * (size_t)w->state.isr_count);
            else
                p->state.isr_count = 0;
            p->has_state = true;
            p->zk_version = version;
            p->changed = true;
            gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s-%d: leader %d, leader epoch %d",
                    t->name, op->index, w->state.leader, w->state.leader_epoch);
        } else {
            /* Someone else wrote it (or it vanished): read it again before deciding. */
            gr_logf(&c->b->log, GR_LOG_WARN, "controller", "writing the state of %s-%d: %s",
                    t->name, op->index, gr_store_rc_name(rc));
            p->state_read = false;
            ctl_load_state(c, t, op->index);
        }
    }
    free(op->data);
    free(op);
    ctl_kick(c);
}

static void on_state_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    write_done(opaque, rc, rc == GR_STORE_OK ? stat->version : -1);
}

static void on_state_created(void *opaque, int rc, const char *path)
{
    (void)path;
    write_done(opaque, rc, 0);
}

static void on_parent_created(void *opaque, int rc, const char *path)
{
    (void)opaque;
    (void)rc;
    (void)path;
}

/* Writes state for p (creating the node and its parents when the partition has none). */
static void write_state(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index,
                        const gr_zk_partition_state_t *state)
{
    gr_ctl_partition_t *p = &t->partitions[index];
    ctl_op_t *op = ctl_op_new(c);
    state_write_t *w = calloc(1, sizeof *w);
    gr_zk_json_writer_t json;
    gr_zk_json_writer_init(&json);
    const char *text = NULL;
    size_t len = 0;
    if (!op || !w || gr_zk_doc_partition_state(&json, state) ||
        gr_zk_json_writer_finish(&json, &text, &len)) {
        gr_zk_json_writer_fini(&json);
        free(op);
        free(w);
        return ctl_kick_later(c);
    }
    w->state = *state;
    w->isr_storage[0] = state->isr_count > 0 ? state->isr[0] : GR_NO_BROKER;
    w->state.isr = w->isr_storage;
    w->state.isr_count = state->isr_count > 0 ? 1 : 0;
    op->data = w;
    op->index = index;
    snprintf(op->name, sizeof op->name, "%s", t->name);
    char path[GR_STORE_PATH_MAX + 1];
    gr_store_session_t *s = c->b->store_session;
    int rc;
    if (p->has_state) {
        snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s/partitions/%d/state", t->name,
                 index);
        rc = gr_store_set(s, path, text, len, p->zk_version, on_state_set, op);
    } else {
        snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s/partitions", t->name);
        (void)gr_store_create(s, path, NULL, 0, GR_STORE_PERSISTENT, on_parent_created, NULL);
        snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s/partitions/%d", t->name, index);
        (void)gr_store_create(s, path, NULL, 0, GR_STORE_PERSISTENT, on_parent_created, NULL);
        snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s/partitions/%d/state", t->name,
                 index);
        rc = gr_store_create(s, path, text, len, GR_STORE_PERSISTENT, on_state_created, op);
    }
    gr_zk_json_writer_fini(&json);
    if (rc != GR_STORE_OK) {
        free(w);
        free(op);
        return ctl_kick_later(c);
    }
    p->writing = true;
    c->writes_pending++;
}

/* The state p should have now, if it differs from its current one. */
static bool desired_state(gr_controller_t *c, const gr_ctl_partition_t *p,
                          gr_zk_partition_state_t *out, int32_t *isr_one)
{
    out->controller_epoch = c->epoch;
    out->isr = isr_one;
    if (!p->has_state) {
        int32_t leader = first_live(c, p->replicas, p->replica_count, p);
        if (leader == GR_NO_BROKER)
            return false; /* stays new until a replica is up */
        *isr_one = leader;
        out->leader = leader;
        out->leader_epoch = 0;
        out->isr_count = 1;
        return true;
    }
    const gr_zk_partition_state_t *now = &p->state;
    if (now->leader != GR_NO_BROKER && is_live(c, now->leader))
        return false;
    int32_t leader = first_live(c, now->isr, now->isr_count, p);
    if (leader == GR_NO_BROKER && now->leader == GR_NO_BROKER)
        return false;
    out->leader = leader;
    out->leader_epoch = now->leader_epoch + 1;
    /* Offline, the ISR keeps its last member: that replica has every acknowledged record. */
    *isr_one = leader != GR_NO_BROKER ? leader : (now->isr_count > 0 ? now->isr[0] : leader);
    out->isr_count = *isr_one == GR_NO_BROKER ? 0 : 1;
    return true;
}

void ctl_elect_all(gr_controller_t *c)
{
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next) {
        if (t->deleting)
            continue;
        for (int32_t i = 0; i < t->partition_count; i++) {
            gr_ctl_partition_t *p = &t->partitions[i];
            gr_zk_partition_state_t want;
            int32_t isr_one = GR_NO_BROKER;
            if (!p->state_read || p->writing || p->replica_count == 0)
                continue;
            if (desired_state(c, p, &want, &isr_one))
                write_state(c, t, i, &want);
        }
    }
}
