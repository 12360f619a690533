/* SPDX-License-Identifier: Apache-2.0 */
/*
 * auto.leader.rebalance.enable: every leader.imbalance.check.interval.seconds
 * the controller counts, per broker, the partitions whose preferred replica
 * (the first of the assignment) it is but which another broker leads. A
 * broker over leader.imbalance.per.broker.percentage gets its partitions
 * back through a preferred election, for those where it is live and in
 * sync (Kafka's check, which also skips topics being deleted).
 */
#include <stdlib.h>

#include "controller/controller_int.h"
#include "gen/elect_leaders.h"

#define PERCENT 100

static bool is_live(gr_controller_t *c, int32_t id)
{
    const gr_ctl_broker_t *br = id >= 0 ? ctl_broker_find(c, id) : NULL;
    return br && !br->shutting_down;
}

static bool in_isr(const gr_ctl_partition_t *p, int32_t id)
{
    for (int32_t i = 0; i < p->state.isr_count; i++)
        if (p->state.isr[i] == id)
            return true;
    return false;
}

/* Whether p's preferred replica is broker and someone else leads it. */
static bool led_elsewhere(const gr_ctl_partition_t *p, int32_t broker)
{
    return p->has_state && p->replica_count > 0 && p->replicas[0] == broker &&
           p->state.leader != broker && !ctl_reassigning(p); /* Kafka skips moving ones */
}

/* The partitions to give back to broker (into out when not NULL), if it is over the limit. */
static int32_t give_back(gr_controller_t *c, int32_t broker, gr_ctl_partition_ref_t *out)
{
    int32_t preferred = 0, elsewhere = 0, n = 0;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next) {
        for (int32_t i = 0; !t->deleting && i < t->partition_count; i++) {
            const gr_ctl_partition_t *p = &t->partitions[i];
            if (!p->has_state || p->replica_count == 0 || p->replicas[0] != broker)
                continue;
            preferred++;
            elsewhere += led_elsewhere(p, broker);
        }
    }
    if (preferred == 0 ||
        (int64_t)elsewhere * PERCENT <=
            (int64_t)preferred * c->b->config.leader_imbalance_per_broker_percentage)
        return 0;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next) {
        for (int32_t i = 0; !t->deleting && i < t->partition_count; i++) {
            const gr_ctl_partition_t *p = &t->partitions[i];
            if (!led_elsewhere(p, broker) || !in_isr(p, broker) || p->writing)
                continue;
            if (out)
                out[n] = (gr_ctl_partition_ref_t){t->name, i};
            n++;
        }
    }
    return n;
}

static void check_imbalance(gr_controller_t *c)
{
    for (size_t b = 0; b < c->broker_count; b++) {
        int32_t id = c->brokers[b].node.id;
        int32_t n = is_live(c, id) ? give_back(c, id, NULL) : 0;
        gr_ctl_partition_ref_t *refs = n > 0 ? calloc((size_t)n, sizeof *refs) : NULL;
        if (!refs)
            continue;
        (void)give_back(c, id, refs);
        gr_logf(&c->b->log, GR_LOG_INFO, "controller",
                "leader imbalance: %d partition(s) go back to their preferred replica %d", n, id);
        (void)gr_controller_elect_leaders(c, GR_ELECTION_TYPE_PREFERRED, refs, n, NULL, NULL);
        free(refs);
    }
}

static void on_rebalance(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    gr_controller_t *c = t->data;
    if (c->active && c->loaded && !c->elections)
        check_imbalance(c);
}

void ctl_rebalance_start(gr_controller_t *c)
{
    if (!c->b->config.auto_leader_rebalance_enable || ev_is_active(&c->rebalance))
        return;
    double every = (double)c->b->config.leader_imbalance_check_interval_seconds;
    ev_timer_init(&c->rebalance, on_rebalance, every, every);
    c->rebalance.data = c;
    ev_timer_start(c->b->loop, &c->rebalance);
    ev_unref(c->b->loop); /* the check alone keeps no loop running */
}

void ctl_rebalance_stop(gr_controller_t *c)
{
    if (!ev_is_active(&c->rebalance))
        return;
    ev_ref(c->b->loop);
    ev_timer_stop(c->b->loop, &c->rebalance);
}
