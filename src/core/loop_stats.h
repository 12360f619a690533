/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How busy the broker's loop is: an ev_prepare watcher (the loop is about
 * to block in its poll) and an ev_check watcher (the poll returned) split
 * wall time into idle (inside the poll) and busy (everything else: reading,
 * handling, writing, timers). Two monotonic clock reads per turn of the
 * loop. The watchers are unreferenced, so they never keep the loop alive.
 *
 * Gregor's one loop is both Kafka's network processors and its request
 * handler pool, so one ratio stands for both of Kafka's idle figures.
 * The ratio is over a window: the totals less a snapshot rotated every
 * GR_LOOP_STATS_WINDOW_NS when read (the last 30..60 s while reads come at
 * least that often).
 *
 * Runs on: loop thread.
 */
#ifndef GR_CORE_LOOP_STATS_H
#define GR_CORE_LOOP_STATS_H

#include <ev.h>
#include <stdint.h>

#define GR_LOOP_STATS_WINDOW_NS (30LL * 1000000000LL)

struct gr_loop_stats {
    struct ev_loop *loop;
    ev_prepare prepare;
    ev_check check;
    int64_t poll_started_ns; /* 0: not in the poll */
    int64_t busy_since_ns;   /* when the last poll returned */
    int64_t busy_ns;         /* totals since start */
    int64_t idle_ns;
    int64_t mark_busy_ns[2]; /* snapshots: [0] older, [1] newer */
    int64_t mark_idle_ns[2];
    int64_t marked_at_ns;
};
typedef struct gr_loop_stats gr_loop_stats_t;

/* Allocates the stats and starts the watchers on loop. Returns NULL when out of memory. */
gr_loop_stats_t *gr_loop_stats_new(struct ev_loop *loop);
/* Stops the watchers and frees s (NULL is fine). */
void gr_loop_stats_free(gr_loop_stats_t *s);

/*
 * The idle share of the loop's time (0..1) over the window, rotating the
 * snapshots first when due; 1 before any time was measured.
 */
double gr_loop_stats_idle_ratio(gr_loop_stats_t *s, int64_t now_ns);

#endif
