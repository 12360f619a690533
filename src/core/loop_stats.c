/* SPDX-License-Identifier: Apache-2.0 */
/* The loop's busy and idle time: see loop_stats.h. */
#include "core/loop_stats.h"

#include <stdlib.h>

#include "core/clock.h"

static void before_poll(struct ev_loop *loop, ev_prepare *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_loop_stats_t *s = w->data;
    int64_t now = gr_clock_mono_ns();
    s->busy_ns += now - s->busy_since_ns;
    s->poll_started_ns = now;
}

static void after_poll(struct ev_loop *loop, ev_check *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_loop_stats_t *s = w->data;
    int64_t now = gr_clock_mono_ns();
    if (s->poll_started_ns)
        s->idle_ns += now - s->poll_started_ns;
    s->poll_started_ns = 0;
    s->busy_since_ns = now;
}

gr_loop_stats_t *gr_loop_stats_new(struct ev_loop *loop)
{
    gr_loop_stats_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->loop = loop;
    s->busy_since_ns = gr_clock_mono_ns();
    s->marked_at_ns = s->busy_since_ns;
    ev_prepare_init(&s->prepare, before_poll);
    s->prepare.data = s;
    ev_check_init(&s->check, after_poll);
    s->check.data = s;
    ev_prepare_start(loop, &s->prepare);
    ev_unref(loop);
    ev_check_start(loop, &s->check);
    ev_unref(loop);
    return s;
}

void gr_loop_stats_free(gr_loop_stats_t *s)
{
    if (!s)
        return;
    /* ev_ref first: stopping an unreferenced watcher unrefs the loop again. */
    ev_ref(s->loop);
    ev_prepare_stop(s->loop, &s->prepare);
    ev_ref(s->loop);
    ev_check_stop(s->loop, &s->check);
    free(s);
}

double gr_loop_stats_idle_ratio(gr_loop_stats_t *s, int64_t now_ns)
{
    if (now_ns - s->marked_at_ns >= GR_LOOP_STATS_WINDOW_NS) {
        s->mark_busy_ns[0] = s->mark_busy_ns[1];
        s->mark_idle_ns[0] = s->mark_idle_ns[1];
        s->mark_busy_ns[1] = s->busy_ns;
        s->mark_idle_ns[1] = s->idle_ns;
        s->marked_at_ns = now_ns;
    }
    int64_t busy = s->busy_ns - s->mark_busy_ns[0];
    int64_t idle = s->idle_ns - s->mark_idle_ns[0];
    if (busy + idle <= 0)
        return 1;
    return (double)idle / (double)(busy + idle);
}
