/* SPDX-License-Identifier: Apache-2.0 */
/* Waiting for the ISR; see isr_wait.h. */
#include "handlers/isr_wait.h"

#include <errno.h>

#include "core/context.h"
#include "handlers/request.h"

#define MS_PER_SEC 1000.0

static void entry_close(gr_isr_entry_t *e, gr_kerr_t err)
{
    gr_partition_unwait(&e->link);
    e->open = false;
    e->wait->pending--;
    if (err)
        e->settle(e->opaque, err);
}

static void maybe_done(gr_isr_wait_t *w)
{
    if (w->pending > 0)
        return;
    ev_timer_stop(w->b->loop, &w->timer);
    if (w->done)
        w->done(w->opaque);
}

/* The entry's outcome now, or -1 while it waits. */
static int entry_outcome(const gr_isr_entry_t *e, const gr_partition_t *p, int32_t self)
{
    /*
     * Leadership lost is seen at once (the change wakes every waiter); a new
     * epoch of the same leader (a follower left the ISR) keeps the records.
     */
    if (!gr_partition_led_by(p, self))
        return GR_KERR_NOT_LEADER_OR_FOLLOWER;
    if (gr_log_high_watermark(p->log) < e->required)
        return -1;
    int32_t isr = p->isr_count > 0 ? p->isr_count : 1;
    return isr < e->min_isr ? GR_KERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND : GR_KERR_NONE;
}

static void on_wake(void *owner, gr_partition_t *p, bool gone)
{
    gr_isr_entry_t *e = owner;
    gr_isr_wait_t *w = e->wait;
    int outcome =
        gone ? GR_KERR_NOT_LEADER_OR_FOLLOWER : entry_outcome(e, p, w->b->config.broker_id);
    if (outcome < 0)
        return;
    entry_close(e, (gr_kerr_t)outcome);
    maybe_done(w);
}

static void on_timeout(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    gr_isr_wait_t *w = t->data;
    for (int32_t i = 0; i < w->count; i++)
        if (w->entries[i].open)
            entry_close(&w->entries[i], GR_KERR_REQUEST_TIMED_OUT);
    maybe_done(w);
}

int gr_isr_wait_init(gr_isr_wait_t *w, gr_broker_t *b, gr_request_t *req, int32_t cap,
                     int32_t timeout_ms, void (*done)(void *), void *opaque)
{
    w->b = b;
    w->timeout_ms = timeout_ms;
    w->pending = 0;
    w->done = done;
    w->opaque = opaque;
    w->count = 0;
    w->cap = cap;
    w->entries = gr_request_alloc_array(req, cap, sizeof *w->entries);
    ev_timer_init(&w->timer, on_timeout, 0, 0);
    w->timer.data = w;
    return w->entries || cap == 0 ? 0 : -ENOMEM;
}

void gr_isr_wait_add(gr_isr_wait_t *w, gr_partition_t *p, int64_t required, int32_t min_isr,
                     gr_isr_settle_fn *settle, void *opaque)
{
    if (gr_log_high_watermark(p->log) >= required) {
        int32_t isr = p->isr_count > 0 ? p->isr_count : 1;
        if (isr < min_isr)
            settle(opaque, GR_KERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        return; /* the ISR has it already (a leader alone in its ISR) */
    }
    if (w->count == w->cap) {
        settle(opaque, GR_KERR_UNKNOWN_SERVER_ERROR);
        return;
    }
    gr_isr_entry_t *e = &w->entries[w->count++];
    e->wait = w;
    e->settle = settle;
    e->opaque = opaque;
    e->required = required;
    e->min_isr = min_isr;
    e->open = true;
    e->link.partition = NULL;
    e->link.owner = e;
    e->link.wake = on_wake;
    gr_partition_wait(p, &e->link);
    if (w->pending++ == 0) {
        double after = (w->timeout_ms > 0 ? w->timeout_ms : 0) / MS_PER_SEC;
        ev_timer_set(&w->timer, after, 0);
        ev_timer_start(w->b->loop, &w->timer);
    }
}

void gr_isr_wait_cancel(gr_isr_wait_t *w)
{
    ev_timer_stop(w->b->loop, &w->timer);
    for (int32_t i = 0; i < w->count; i++)
        if (w->entries[i].open) {
            gr_partition_unwait(&w->entries[i].link);
            w->entries[i].open = false;
        }
    w->pending = 0;
}
