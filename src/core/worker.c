/* SPDX-License-Identifier: Apache-2.0 */
/* Worker pool: see worker.h. */
#include "core/worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gr_worker_job {
    gr_worker_job_t *next;
    gr_worker_job_fn job;
    gr_worker_done_fn done;
    void *arg;
    int result;
};

static void push(gr_worker_job_t **head, gr_worker_job_t **tail, gr_worker_job_t *j)
{
    j->next = NULL;
    if (*tail)
        (*tail)->next = j;
    else
        *head = j;
    *tail = j;
}

/* Runs on: worker thread. */
static void *thread_main(void *opaque)
{
    gr_worker_slot_t *slot = opaque;
    gr_worker_t *w = slot->pool;
    if (w->name[0])
        (void)pthread_setname_np(pthread_self(), w->name); /* a help to ps, not a need */
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->todo_head && !w->stopping && slot->index < w->wanted)
            pthread_cond_wait(&w->work, &w->lock);
        if (w->stopping)
            break; /* fini has taken the queued jobs to cancel them */
        if (slot->index >= w->wanted) {
            slot->left = true;
            ev_async_send(w->loop, &w->wakeup); /* the loop joins this thread */
            break;
        }
        gr_worker_job_t *j = w->todo_head;
        w->todo_head = j->next;
        if (!w->todo_head)
            w->todo_tail = NULL;
        pthread_mutex_unlock(&w->lock);
        j->result = j->job(j->arg);
        pthread_mutex_lock(&w->lock);
        push(&w->done_head, &w->done_tail, j);
        ev_async_send(w->loop, &w->wakeup); /* thread-safe by libev's contract */
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Joins the threads that left after a resize. Runs on: loop thread. */
static void reap(gr_worker_t *w)
{
    bool left[GR_WORKER_MAX_THREADS];
    pthread_mutex_lock(&w->lock);
    for (unsigned i = 0; i < GR_WORKER_MAX_THREADS; i++) {
        left[i] = w->slots[i].started && w->slots[i].left;
        w->slots[i].left = false;
    }
    pthread_mutex_unlock(&w->lock);
    for (unsigned i = 0; i < GR_WORKER_MAX_THREADS; i++) {
        if (!left[i])
            continue;
        pthread_join(w->slots[i].id, NULL);
        w->slots[i].started = false;
    }
}

/* Runs one finished or cancelled job's done function. Runs on: loop thread. */
static void finish(gr_worker_t *w, gr_worker_job_t *j)
{
    if (--w->outstanding == 0)
        ev_unref(w->loop); /* nothing pending: the pool no longer keeps the loop alive */
    if (j->done)
        j->done(j->arg, j->result);
    free(j);
}

static void deliver(gr_worker_t *w)
{
    pthread_mutex_lock(&w->lock);
    gr_worker_job_t *j = w->done_head;
    w->done_head = w->done_tail = NULL;
    pthread_mutex_unlock(&w->lock);
    while (j) {
        gr_worker_job_t *next = j->next;
        finish(w, j);
        j = next;
    }
}

static void wakeup_cb(struct ev_loop *loop, ev_async *a, int revents)
{
    (void)loop;
    (void)revents;
    reap(a->data);
    deliver(a->data);
}

static unsigned clamp_threads(unsigned threads)
{
    if (threads < 1)
        return 1;
    return threads > GR_WORKER_MAX_THREADS ? GR_WORKER_MAX_THREADS : threads;
}

/* Starts the threads below wanted that do not run. Runs on: loop thread. */
static int start_threads(gr_worker_t *w, unsigned wanted)
{
    /* Workers block every signal, so signals reach the loop thread's handlers. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = 0;
    for (unsigned i = 0; i < wanted && !rc; i++) {
        gr_worker_slot_t *slot = &w->slots[i];
        if (slot->started)
            continue;
        *slot = (gr_worker_slot_t){.pool = w, .index = i};
        rc = pthread_create(&slot->id, NULL, thread_main, slot);
        slot->started = rc == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return -rc;
}

int gr_worker_init(gr_worker_t *w, struct ev_loop *loop, unsigned threads, const gr_logger_t *log)
{
    return gr_worker_init_named(w, loop, threads, NULL, log);
}

int gr_worker_init_named(gr_worker_t *w, struct ev_loop *loop, unsigned threads, const char *name,
                         const gr_logger_t *log)
{
    memset(w, 0, sizeof(*w));
    w->loop = loop;
    w->log = log;
    snprintf(w->name, sizeof w->name, "%s", name ? name : "");
    w->wanted = clamp_threads(threads);
    int rc = pthread_mutex_init(&w->lock, NULL);
    if (rc)
        return -rc;
    rc = pthread_cond_init(&w->work, NULL);
    if (rc) {
        pthread_mutex_destroy(&w->lock);
        return -rc;
    }
    ev_async_init(&w->wakeup, wakeup_cb);
    w->wakeup.data = w;
    ev_async_start(loop, &w->wakeup);
    ev_unref(loop); /* see worker.h: only outstanding jobs keep the loop alive */
    w->started = true;
    rc = start_threads(w, w->wanted);
    if (rc) {
        gr_worker_fini(w);
        return rc;
    }
    gr_logf(log, GR_LOG_DEBUG, "worker", "started %u worker threads", w->wanted);
    return 0;
}

int gr_worker_resize(gr_worker_t *w, unsigned threads)
{
    if (!w->started)
        return -ESHUTDOWN;
    threads = clamp_threads(threads);
    pthread_mutex_lock(&w->lock);
    w->wanted = threads; /* from here no thread below it leaves */
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->lock);
    reap(w); /* so a slot below it that left before is started again */
    return start_threads(w, threads);
}

int gr_worker_submit(gr_worker_t *w, gr_worker_job_fn job, gr_worker_done_fn done, void *arg)
{
    if (!w->started)
        return -ESHUTDOWN;
    gr_worker_job_t *j = calloc(1, sizeof(*j));
    if (!j)
        return -ENOMEM;
    j->job = job;
    j->done = done;
    j->arg = arg;
    if (w->outstanding++ == 0)
        ev_ref(w->loop);
    pthread_mutex_lock(&w->lock);
    push(&w->todo_head, &w->todo_tail, j);
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->lock);
    return 0;
}

void gr_worker_fini(gr_worker_t *w)
{
    if (!w->started)
        return;
    w->started = false; /* done functions run below cannot submit more */
    pthread_mutex_lock(&w->lock);
    gr_worker_job_t *cancelled = w->todo_head;
    w->todo_head = w->todo_tail = NULL;
    w->stopping = true;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->lock);
    for (unsigned i = 0; i < GR_WORKER_MAX_THREADS; i++) {
        if (w->slots[i].started)
            pthread_join(w->slots[i].id, NULL);
        w->slots[i].started = false;
    }
    /* Finished jobs first (they ran before the cancelled ones would have). */
    deliver(w);
    while (cancelled) {
        gr_worker_job_t *next = cancelled->next;
        cancelled->result = -ECANCELED;
        finish(w, cancelled);
        cancelled = next;
    }
    ev_ref(w->loop); /* undo init's unref before stopping the watcher */
    ev_async_stop(w->loop, &w->wakeup);
    pthread_cond_destroy(&w->work);
    pthread_mutex_destroy(&w->lock);
}
