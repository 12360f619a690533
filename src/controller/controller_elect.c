/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Partition leadership: a state for partitions that have none, a new leader
 * (or none: offline) for partitions whose leader left, and the leader back
 * when a replica returns. Each change bumps the leader epoch and is written
 * to the partition's state node, conditionally on the version read, so a
 * stale controller cannot overwrite a newer one's decision.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "metadata/store.h"

/* Replicas plus ISR members an election pass holds without allocating. */
#define ELECT_ISR_ON_STACK 32

/* Registered and not shutting down: may lead, may stay in or join an ISR. */
static bool is_live(gr_controller_t *c, int32_t id)
{
    const gr_ctl_broker_t *br = id >= 0 ? ctl_broker_find(c, id) : NULL;
    return br && !br->shutting_down;
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
    gr_zk_partition_state_t state; /* isr points into isr_storage */
    ctl_state_written_fn *done;    /* may be NULL */
    void *opaque;
    int32_t isr_storage[];
} state_write_t;

static void write_done(ctl_op_t *op, int rc, int32_t version)
{
    state_write_t *stale = op->data;
    if (stale->done && !(op->c->active && op->gen == op->c->gen))
        stale->done(stale->opaque, GR_KERR_NOT_CONTROLLER, NULL);
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
            if (w->done)
                w->done(w->opaque, GR_KERR_NONE, p);
        } else {
            if (w->done)
                w->done(w->opaque, GR_KERR_INVALID_UPDATE_VERSION, p);
            /* Someone else wrote it (or it vanished): read it again before deciding. */
            gr_logf(&c->b->log, GR_LOG_WARN, "controller", "writing the state of %s-%d: %s",
                    t->name, op->index, gr_store_rc_name(rc));
            p->state_read = false;
            ctl_load_state(c, t, op->index);
        }
    } else if (w->done)
        w->done(w->opaque, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION, NULL);
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

int ctl_write_state(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index,
                    const gr_zk_partition_state_t *state, ctl_state_written_fn *done, void *opaque)
{
    gr_ctl_partition_t *p = &t->partitions[index];
    ctl_op_t *op = ctl_op_new(c);
    state_write_t *w = calloc(1, sizeof *w + sizeof(int32_t) * (size_t)(state->isr_count + 1));
    gr_zk_json_writer_t json;
    gr_zk_json_writer_init(&json);
    const char *text = NULL;
    size_t len = 0;
    if (!op || !w || gr_zk_doc_partition_state(&json, state) ||
        gr_zk_json_writer_finish(&json, &text, &len)) {
        gr_zk_json_writer_fini(&json);
        free(op);
        free(w);
        ctl_kick_later(c);
        return -ENOMEM;
    }
    w->state = *state;
    memcpy(w->isr_storage, state->isr, sizeof(int32_t) * (size_t)state->isr_count);
    w->state.isr = w->isr_storage;
    w->done = done;
    w->opaque = opaque;
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
        ctl_kick_later(c);
        return -EIO;
    }
    p->writing = true;
    c->writes_pending++;
    return 0;
}

/* The live members of ids (in their order) that are replicas of p, into out. */
static int32_t live_of(gr_controller_t *c, const int32_t *ids, int32_t count,
                       const gr_ctl_partition_t *p, int32_t *out)
{
    int32_t n = 0;
    for (int32_t i = 0; i < count; i++)
        if (first_live(c, &ids[i], 1, p) != GR_NO_BROKER)
            out[n++] = ids[i];
    return n;
}

/* Whether ids holds id. */
static bool holds(const int32_t *ids, int32_t count, int32_t id)
{
    for (int32_t i = 0; i < count; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* The first replica in assignment order that is live and in isr (Kafka's election). */
static int32_t elect(const gr_ctl_partition_t *p, const int32_t *live_isr, int32_t live_count)
{
    for (int32_t r = 0; r < p->replica_count; r++)
        if (holds(live_isr, live_count, p->replicas[r]))
            return p->replicas[r];
    return GR_NO_BROKER;
}

/* Whether unclean.leader.election.enable holds for topic name (its config, when known here). */
static bool unclean_allowed(gr_controller_t *c, const char *name)
{
    gr_topic_t *topic = gr_topics_find(c->b->topics, name, strlen(name));
    if (topic && topic->config_known)
        return topic->settings.unclean_leader_election;
    return c->b->config.unclean_leader_election_enable;
}

/*
 * The state p should have now, if it differs from its current one (isr_out
 * has room for every replica). "Live" excludes brokers in a controlled
 * shutdown, so this also moves leadership off them:
 *  - new: the first live replica leads, every live replica is in sync;
 *  - otherwise the ISR loses its dead members, and a dead leader gives way to
 *    the first live ISR member in assignment order (leader epoch + 1); with
 *    none alive the partition goes offline keeping its ISR (those replicas
 *    hold every acknowledged record), unless unclean election allows the
 *    first live replica, alone in its ISR. A leader that is shutting down
 *    with no in-sync successor keeps leading until it is gone. A leader
 *    that is no replica (a reassignment dropped it) is replaced like a dead
 *    one.
 */
static bool desired_state(gr_controller_t *c, const gr_ctl_topic_t *t, const gr_ctl_partition_t *p,
                          gr_zk_partition_state_t *out, int32_t *isr_out, bool *unclean)
{
    *unclean = false;
    out->controller_epoch = c->epoch;
    out->isr = isr_out;
    if (!p->has_state) {
        out->isr_count = live_of(c, p->replicas, p->replica_count, p, isr_out);
        out->leader = out->isr_count > 0 ? isr_out[0] : GR_NO_BROKER;
        out->leader_epoch = 0;
        return out->leader != GR_NO_BROKER; /* stays new until a replica is up */
    }
    const gr_zk_partition_state_t *now = &p->state;
    int32_t live = live_of(c, now->isr, now->isr_count, p, isr_out);
    /* A leader a reassignment dropped is no replica any more: it counts as gone. */
    bool leader_replica = ctl_ids_hold(p->replicas, p->replica_count, now->leader);
    bool leader_live = now->leader != GR_NO_BROKER && leader_replica && is_live(c, now->leader);
    if (leader_live && live == now->isr_count)
        return false;
    out->leader_epoch = now->leader_epoch + 1;
    if (leader_live) { /* followers died: they leave the ISR */
        out->leader = now->leader;
        out->isr_count = live;
        return true;
    }
    out->leader = elect(p, isr_out, live);
    out->isr_count = live;
    if (out->leader == GR_NO_BROKER && leader_replica && ctl_broker_find(c, now->leader))
        return false; /* shutting down, and no one in sync to take over */
    if (out->leader == GR_NO_BROKER && unclean_allowed(c, t->name)) {
        out->leader = first_live(c, p->replicas, p->replica_count, p);
        if (out->leader != GR_NO_BROKER) {
            *unclean = true;
            gr_logf(&c->b->log, GR_LOG_WARN, "controller",
                    "%s: unclean leader election of broker %d (no in-sync replica alive)", t->name,
                    out->leader);
            isr_out[0] = out->leader;
            out->isr_count = 1;
        }
    }
    if (out->leader == GR_NO_BROKER) {
        if (now->leader == GR_NO_BROKER)
            return false; /* offline already */
        memcpy(isr_out, now->isr, sizeof(int32_t) * (size_t)now->isr_count);
        out->isr_count = now->isr_count;
    }
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
            if (!p->state_read || p->writing || p->replica_count == 0)
                continue;
            /* Every partition is looked at on each pass: no allocation for the usual sizes. */
            int32_t room = p->replica_count + (p->has_state ? p->state.isr_count : 0) + 1;
            int32_t small[ELECT_ISR_ON_STACK];
            int32_t *isr =
                room <= ELECT_ISR_ON_STACK ? small : malloc(sizeof(int32_t) * (size_t)room);
            if (!isr) {
                ctl_kick_later(c);
                return;
            }
            bool unclean;
            if (desired_state(c, t, p, &want, isr, &unclean))
                (void)ctl_write_state(c, t, i, &want, unclean ? ctl_count_unclean : NULL, c);
            if (isr != small)
                free(isr);
        }
    }
}
