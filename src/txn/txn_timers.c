/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction coordinator's timers, as Kafka's:
 *  - every transaction.abort.timed.out.transaction.cleanup.interval.ms, an
 *    Ongoing transaction open longer than its timeout is aborted, its
 *    producer fenced (epoch + 1), so a producer that died mid-transaction
 *    stops holding read_committed consumers at the last stable offset;
 *  - every transaction.remove.expired.transaction.cleanup.interval.ms, an
 *    id with no open transaction, unchanged for transactional.id.expiration.ms,
 *    is forgotten: a tombstone is written and the id leaves the table.
 * Ids with a write in flight are left for the next round.
 *
 * Runs on: loop thread.
 */
#include "core/context.h"
#include "txn/txn_int.h"

#define GR_MS_PER_SEC 1000.0

static bool ready(gr_txn_coordinator_t *co, const gr_txn_t *t)
{
    return !t->pending && !t->allocating && !t->waiter && t->cur.producer_id >= 0 &&
           gr_txn_load_state(co, t->key.partition) == GR_COORDINATOR_LOADED;
}

/* The ids to act on are collected first: acting may remove them from the table. */
typedef bool txn_pick_fn(gr_txn_coordinator_t *co, const gr_txn_t *t, int64_t now);
typedef void txn_act_fn(gr_txn_coordinator_t *co, gr_txn_t *t);

static void for_picked(gr_txn_coordinator_t *co, txn_pick_fn *pick, txn_act_fn *act)
{
    int64_t now = gr_broker_now_ms(co->broker);
    gr_txn_t *next;
    for (gr_txn_t *t = gr_txn_first(co); t; t = next) {
        next = gr_txn_next(co, t); /* act may free t, never another id */
        if (ready(co, t) && pick(co, t, now))
            act(co, t);
    }
}

static bool timed_out(gr_txn_coordinator_t *co, const gr_txn_t *t, int64_t now)
{
    (void)co;
    return t->cur.state == GR_TXN_ONGOING && t->cur.start_ms >= 0 &&
           now - t->cur.start_ms > t->cur.timeout_ms;
}

static void abort_timed_out(gr_txn_coordinator_t *co, gr_txn_t *t)
{
    gr_logf(&co->broker->log, GR_LOG_INFO, GR_TXN_LOG_TAG,
            "transactional id %s: transaction open longer than its timeout (%d ms), aborting",
            t->key.id, t->cur.timeout_ms);
    gr_txn_fence_and_abort(co, t);
}

static bool expired(gr_txn_coordinator_t *co, const gr_txn_t *t, int64_t now)
{
    return gr_txn_state_idle(t->cur.state) &&
           now - t->cur.update_ms >= co->broker->config.transactional_id_expiration_ms;
}

static void forget(gr_txn_coordinator_t *co, gr_txn_t *t)
{
    gr_txn_write_tombstone(co, t);
}

static void abort_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    for_picked(w->data, timed_out, abort_timed_out);
}

static void expire_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    for_picked(w->data, expired, forget);
}

/* A repeating timer that alone does not keep the loop running. */
static void start_timer(gr_txn_coordinator_t *co, ev_timer *t,
                        void (*cb)(struct ev_loop *, ev_timer *, int), double every)
{
    ev_timer_init(t, cb, every, every);
    t->data = co;
    ev_timer_start(co->broker->loop, t);
    ev_unref(co->broker->loop);
}

void gr_txn_timers_start(gr_txn_coordinator_t *co)
{
    const gr_config_t *cfg = &co->broker->config;
    start_timer(co, &co->abort_timer, abort_cb,
                cfg->transaction_abort_timed_out_transaction_cleanup_interval_ms / GR_MS_PER_SEC);
    start_timer(co, &co->expire_timer, expire_cb,
                cfg->transaction_remove_expired_transaction_cleanup_interval_ms / GR_MS_PER_SEC);
    ev_timer_start(co->broker->loop, &co->marker_timer);
    ev_unref(co->broker->loop);
}

void gr_txn_timers_stop(gr_txn_coordinator_t *co)
{
    ev_timer *timers[] = {&co->abort_timer, &co->expire_timer, &co->marker_timer};
    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
        if (ev_is_active(timers[i])) {
            ev_ref(co->broker->loop);
            ev_timer_stop(co->broker->loop, timers[i]);
        }
    }
}
