/* SPDX-License-Identifier: Apache-2.0 */
#include "handlers/admin_wait.h"

#include <stdlib.h>

#include "core/context.h"
#include "handlers/request.h"

#define MS_PER_SEC 1000.0

struct gr_admin_wait {
    gr_request_t *req; /* NULL once cancelled */
    gr_admin_ready_fn *ready;
    gr_admin_finish_fn *finish;
    void *arg;
    int holds;
    ev_tstamp deadline;
    ev_timer poll;
    struct ev_loop *loop;
};

static void wait_free(gr_admin_wait_t *w)
{
    ev_timer_stop(w->loop, &w->poll);
    free(w);
}

static void check(gr_admin_wait_t *w)
{
    bool ready = w->ready(w->req, w->arg);
    bool late = ev_now(w->loop) >= w->deadline;
    if (!ready && !late) {
        ev_timer_set(&w->poll, GR_ADMIN_WAIT_POLL_SEC, 0.);
        ev_timer_start(w->loop, &w->poll);
        return;
    }
    gr_request_t *req = w->req;
    w->req = NULL;
    w->finish(req, w->arg, !ready);
    wait_free(w);
}

static void on_poll(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    check(t->data);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    gr_admin_wait_t *w = arg;
    w->req = NULL;
    if (w->holds == 0)
        wait_free(w);
    else
        ev_timer_stop(w->loop, &w->poll);
}

gr_admin_wait_t *gr_admin_wait_new(gr_request_t *req, int32_t timeout_ms, gr_admin_ready_fn *ready,
                                   gr_admin_finish_fn *finish, void *arg)
{
    gr_admin_wait_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->req = req;
    w->ready = ready;
    w->finish = finish;
    w->arg = arg;
    w->loop = req->broker->loop;
    w->deadline = ev_now(w->loop) + (timeout_ms > 0 ? timeout_ms : 0) / MS_PER_SEC;
    w->holds = 1; /* the caller's, until it has issued its writes */
    ev_timer_init(&w->poll, on_poll, 0., 0.);
    w->poll.data = w;
    gr_resp_slot_defer(req->slot, on_cancel, w);
    return w;
}

void gr_admin_wait_hold(gr_admin_wait_t *w)
{
    w->holds++;
}

void gr_admin_wait_release(gr_admin_wait_t *w)
{
    if (--w->holds > 0)
        return;
    if (!w->req)
        wait_free(w);
    else
        check(w);
}

gr_request_t *gr_admin_wait_request(gr_admin_wait_t *w)
{
    return w->req;
}
