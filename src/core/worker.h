/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small thread pool for work that blocks (start-up recovery, fsync,
 * recompression, compaction), whose results come back to the loop thread.
 *
 * gr_worker_submit queues a job; a worker thread runs job(arg); its result
 * is put on a completion queue and the loop is woken with an ev_async; the
 * loop thread then runs done(arg, result). Job functions must not touch
 * loop-owned state (they get only arg); done functions may (they run on the
 * loop thread, like every handler).
 *
 * Both queues are protected by one mutex; the pool's other fields belong to
 * the loop thread. The ev_async does not keep ev_run alive by itself, only
 * while jobs are outstanding, so a loop with nothing else to do returns once
 * every done function has run.
 *
 * Lifecycle: gr_worker_init (threads started) -> submits -> gr_worker_fini:
 * queued jobs that never started are cancelled (done(arg, -ECANCELED)),
 * running ones finish, threads are joined, and every outstanding done
 * function has run by the time fini returns.
 *
 * gr_worker_resize changes the number of threads while jobs run: new
 * threads start at once; threads beyond the new count leave when idle (a
 * running job finishes first) and are joined by the loop thread once they
 * have left, so a resize never blocks the loop.
 *
 * Runs on: init, submit, fini and done functions on the loop thread; job
 * functions on the pool's threads.
 */
#ifndef GR_CORE_WORKER_H
#define GR_CORE_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <ev.h>

#include "core/logging.h"

#define GR_WORKER_MAX_THREADS 16
#define GR_WORKER_NAME_MAX    16 /* a Linux thread name, its NUL included */

/* Runs on a worker thread. Returns 0 or -errno, handed to the done function. */
typedef int (*gr_worker_job_fn)(void *arg);
/* Runs on the loop thread with the job's result, or -ECANCELED if it never ran. */
typedef void (*gr_worker_done_fn)(void *arg, int result);

typedef struct gr_worker_job gr_worker_job_t;
typedef struct gr_worker gr_worker_t;

/* One thread's slot; index i of the pool's slots. */
typedef struct gr_worker_slot {
    gr_worker_t *pool;
    pthread_t id;
    unsigned index;
    bool started; /* loop thread only: created, not yet joined */
    bool left;    /* guarded by lock: the thread has returned (resized away) */
} gr_worker_slot_t;

struct gr_worker {
    struct ev_loop *loop;
    ev_async wakeup;
    pthread_mutex_t lock;
    pthread_cond_t work; /* signalled when todo gains a job, stopping or wanted changes */
    gr_worker_slot_t slots[GR_WORKER_MAX_THREADS];
    char name[GR_WORKER_NAME_MAX]; /* the threads' name, "" for the process's */
    /* Guarded by lock: */
    gr_worker_job_t *todo_head, *todo_tail;
    gr_worker_job_t *done_head, *done_tail;
    unsigned wanted; /* threads of index >= wanted leave when idle */
    bool stopping;
    /* Loop thread only: */
    size_t outstanding; /* submitted, done function not yet run */
    bool started;
    const gr_logger_t *log;
};

/*
 * Starts threads (clamped to 1..GR_WORKER_MAX_THREADS) feeding loop. log may
 * be NULL. Returns 0 or -errno from pthread (nothing left running on error).
 */
int gr_worker_init(gr_worker_t *w, struct ev_loop *loop, unsigned threads, const gr_logger_t *log);

/* gr_worker_init with the threads named name (cut to 15 bytes), as ps -L shows them. */
int gr_worker_init_named(gr_worker_t *w, struct ev_loop *loop, unsigned threads, const char *name,
                         const gr_logger_t *log);

/*
 * Runs threads (clamped to 1..GR_WORKER_MAX_THREADS) from now on; see the
 * top of this file. Returns 0 or -errno from pthread (the threads started
 * before the error go on).
 */
int gr_worker_resize(gr_worker_t *w, unsigned threads);

/*
 * Queues job(arg) for a worker thread; done(arg, result) then runs on the
 * loop thread (done may be NULL). The caller keeps arg alive until done runs.
 * Returns 0, -ENOMEM, or -ESHUTDOWN after gr_worker_fini.
 */
int gr_worker_submit(gr_worker_t *w, gr_worker_job_fn job, gr_worker_done_fn done, void *arg);

/* Jobs submitted whose done function has not run yet. */
static inline size_t gr_worker_outstanding(const gr_worker_t *w)
{
    return w->outstanding;
}

/* Cancels queued jobs, waits for running ones, joins, runs every pending done. */
void gr_worker_fini(gr_worker_t *w);

#endif
