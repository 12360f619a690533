/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ControlledShutdown on the controller. Marking the broker as shutting down
 * is the whole decision: the reconcile loop then treats it as not live when
 * electing and when keeping ISRs (controller_elect.c), so its partitions
 * move to in-sync replicas and it leaves the ISRs of the others, with
 * Kafka's state writes. The answer waits for a reconcile that ended with
 * nothing in flight, after which brokers were told (LeaderAndIsr sent).
 */
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "controller/zk_member.h"
#include "protocol/kerr.h"
#include "replica/controlled_shutdown.h"

struct ctl_shutdown_wait {
    int32_t broker;
    gr_controller_shutdown_done_fn *done;
    void *opaque;
    ctl_shutdown_wait_t *next;
};

gr_controller_call_t gr_controller_shutdown_broker(gr_controller_t *c, int32_t id,
                                                   int64_t broker_epoch,
                                                   gr_controller_shutdown_done_fn *done,
                                                   void *opaque)
{
    if (!c->active || !c->loaded)
        return gr_controller_answered(GR_KERR_NOT_CONTROLLER);
    gr_ctl_broker_t *br = ctl_broker_find(c, id);
    if (!br)
        return gr_controller_answered(GR_KERR_BROKER_NOT_AVAILABLE);
    if (broker_epoch >= 0 && broker_epoch < br->czxid) /* a registration since replaced */
        return gr_controller_answered(GR_KERR_STALE_BROKER_EPOCH);
    ctl_shutdown_wait_t *w = calloc(1, sizeof *w);
    if (!w)
        return gr_controller_answered(GR_KERR_UNKNOWN_SERVER_ERROR);
    if (!br->shutting_down)
        gr_logf(&c->b->log, GR_LOG_INFO, "controller", "broker %d: controlled shutdown", id);
    br->shutting_down = true;
    w->broker = id;
    w->done = done;
    w->opaque = opaque;
    ctl_shutdown_wait_t **tail = &c->shutdown_waits;
    while (*tail)
        tail = &(*tail)->next;
    *tail = w;
    ctl_kick(c);
    return gr_controller_pending();
}

/* Partitions broker still leads that another replica could have taken, into out (or counted). */
static int32_t still_led(gr_controller_t *c, int32_t broker, gr_ctl_partition_ref_t *out)
{
    int32_t n = 0;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next) {
        for (int32_t i = 0; !t->deleting && i < t->partition_count; i++) {
            const gr_ctl_partition_t *p = &t->partitions[i];
            if (!p->has_state || p->state.leader != broker || p->replica_count < 2)
                continue;
            if (out)
                out[n] = (gr_ctl_partition_ref_t){t->name, i};
            n++;
        }
    }
    return n;
}

static void answer(gr_controller_t *c, ctl_shutdown_wait_t *w)
{
    int32_t n = still_led(c, w->broker, NULL);
    gr_ctl_partition_ref_t *left = calloc((size_t)n + 1, sizeof *left);
    if (!left) {
        w->done(w->opaque, GR_KERR_UNKNOWN_SERVER_ERROR, NULL, 0);
        return;
    }
    (void)still_led(c, w->broker, left);
    gr_logf(&c->b->log, GR_LOG_INFO, "controller",
            "broker %d: controlled shutdown answered, %d partition(s) still led there", w->broker,
            n);
    w->done(w->opaque, GR_KERR_NONE, left, n);
    free(left);
}

void ctl_shutdown_progress(gr_controller_t *c)
{
    while (c->shutdown_waits) {
        ctl_shutdown_wait_t *w = c->shutdown_waits;
        c->shutdown_waits = w->next;
        answer(c, w);
        free(w);
    }
}

void ctl_shutdown_drop(gr_controller_t *c)
{
    while (c->shutdown_waits) {
        ctl_shutdown_wait_t *w = c->shutdown_waits;
        c->shutdown_waits = w->next;
        w->done(w->opaque, GR_KERR_NOT_CONTROLLER, NULL, 0);
        free(w);
    }
}

static void on_local_done(void *opaque, int16_t err, const gr_ctl_partition_ref_t *remaining,
                          int32_t count)
{
    (void)remaining;
    gr_controlled_shutdown_answered(opaque, err, count);
}

bool gr_controller_shutdown_local(gr_broker_t *b, int32_t id, int64_t broker_epoch, void *opaque)
{
    if (!gr_zk_member_is_controller(b))
        return false;
    gr_controller_call_t call =
        gr_controller_shutdown_broker(&b->zk->controller, id, broker_epoch, on_local_done, opaque);
    if (!call.pending)
        gr_controlled_shutdown_answered(opaque, call.err, -1); /* remaining unknown */
    return true;
}
