/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AlterPartition: a leader's ISR change, checked against the controller's
 * state and written to the partition's state node with the leader epoch
 * unchanged (Kafka 3.8's ZooKeeper-mode controller). The write makes the
 * partition "changed", so every broker hears of the new ISR.
 */
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "protocol/kerr.h"

typedef struct alter_op {
    gr_controller_alter_done_fn *done;
    void *opaque;
} alter_op_t;

static bool holds(const int32_t *ids, int32_t count, int32_t id)
{
    for (int32_t i = 0; i < count; i++)
        if (ids[i] == id)
            return true;
    return false;
}

static bool same_members(const int32_t *a, int32_t an, const int32_t *b, int32_t bn)
{
    if (an != bn)
        return false;
    for (int32_t i = 0; i < an; i++)
        if (!holds(b, bn, a[i]))
            return false;
    return true;
}

static gr_kerr_t check_isr(gr_controller_t *c, const gr_ctl_partition_t *p,
                           const gr_alter_partition_ask_t *ask)
{
    if (!holds(ask->isr, ask->isr_count, ask->broker))
        return GR_KERR_INVALID_REQUEST; /* a leader is always in sync with itself */
    for (int32_t i = 0; i < ask->isr_count; i++) {
        const gr_ctl_broker_t *br = ctl_broker_find(c, ask->isr[i]);
        if (!holds(p->replicas, p->replica_count, ask->isr[i]) || !br ||
            (br->shutting_down && !holds(p->state.isr, p->state.isr_count, ask->isr[i])) ||
            holds(ask->isr, i, ask->isr[i]))
            return GR_KERR_INELIGIBLE_REPLICA; /* dead, stopping, or listed twice */
    }
    return GR_KERR_NONE;
}

static void on_written(void *opaque, int16_t err, const gr_ctl_partition_t *p)
{
    alter_op_t *op = opaque;
    op->done(op->opaque, err, p && !err ? &p->state : NULL, p && !err ? p->zk_version : -1);
    free(op);
}

/*
 * The checks before a write, in Kafka's order: NONE with *already set when
 * the ISR is the asked one already (*state and *partition_epoch filled), NONE
 * when a write is needed, else the answer.
 */
static gr_kerr_t check_ask(gr_controller_t *c, const gr_alter_partition_ask_t *ask,
                           gr_ctl_topic_t **out_topic, bool *already,
                           gr_zk_partition_state_t *state, int32_t *partition_epoch)
{
    *already = false;
    if (!c->active || !c->loaded)
        return GR_KERR_NOT_CONTROLLER;
    gr_ctl_topic_t *t = ctl_topic_find(c, ask->topic);
    if (!t || t->deleting || ask->index < 0 || ask->index >= t->partition_count ||
        !t->partitions[ask->index].has_state)
        return GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
    gr_ctl_partition_t *p = &t->partitions[ask->index];
    if (p->writing)
        return GR_KERR_OPERATION_NOT_ATTEMPTED;
    if (p->state.leader != ask->broker)
        return GR_KERR_NOT_LEADER_OR_FOLLOWER;
    if (ask->leader_epoch != p->state.leader_epoch)
        return GR_KERR_FENCED_LEADER_EPOCH;
    if (same_members(ask->isr, ask->isr_count, p->state.isr, p->state.isr_count)) {
        *state = p->state; /* a repeat of a change already made */
        *partition_epoch = p->zk_version;
        *already = true;
        return GR_KERR_NONE;
    }
    if (ask->partition_epoch != p->zk_version)
        return GR_KERR_INVALID_UPDATE_VERSION;
    *out_topic = t;
    return check_isr(c, p, ask);
}

gr_controller_call_t gr_controller_alter_partition(gr_controller_t *c,
                                                   const gr_alter_partition_ask_t *ask,
                                                   gr_zk_partition_state_t *state,
                                                   int32_t *partition_epoch,
                                                   gr_controller_alter_done_fn *done, void *opaque)
{
    gr_ctl_topic_t *t = NULL;
    bool already;
    gr_kerr_t err = check_ask(c, ask, &t, &already, state, partition_epoch);
    if (err || already)
        return gr_controller_answered(err);
    alter_op_t *op = calloc(1, sizeof *op);
    if (!op)
        return gr_controller_answered(GR_KERR_UNKNOWN_SERVER_ERROR);
    op->done = done;
    op->opaque = opaque;
    const gr_ctl_partition_t *p = &t->partitions[ask->index];
    gr_zk_partition_state_t want = p->state;
    want.controller_epoch = c->epoch;
    want.isr = (int32_t *)ask->isr; /* copied by the write */
    want.isr_count = ask->isr_count;
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s-%d: ISR %d -> %d member(s), asked by %d",
            t->name, ask->index, p->state.isr_count, ask->isr_count, ask->broker);
    if (ctl_write_state(c, t, ask->index, &want, on_written, op)) {
        free(op);
        return gr_controller_answered(GR_KERR_UNKNOWN_SERVER_ERROR);
    }
    return gr_controller_pending();
}
