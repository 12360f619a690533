/* SPDX-License-Identifier: Apache-2.0 */
/* Worker pool: see worker.h. */
#include "core/worker.h"

#include <errno.h>
#include <signal.h>
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
    gr_worker_t *w = opaque;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->todo_head && !w->stopping)
            pthread_cond_wait(&w->work, &w->lock);
        if (w->stopping)
            break; /* fini has taken the queued jobs to cancel them */
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
    deliver(a->data);
}

int gr_worker_init(gr_worker_t *w, struct ev_loop *loop, unsigned threads, const gr_logger_t *log)
{
    memset(w, 0, sizeof(*w));
    w->loop = loop;
    w->log = log;
    if (threads < 1)
        threads = 1;
    if (threads > GR_WORKER_MAX_THREADS)
        threads = GR_WORKER_MAX_THREADS;
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
    /* Workers block every signal, so signals reach the loop thread's handlers. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (unsigned i = 0; i < threads; i++) {
        rc = pthread_create(&w->threads[i], NULL, thread_main, w);
        if (rc)
            break;
        w->thread_count++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        gr_worker_fini(w);
        return -rc;
    }
    gr_logf(log, GR_LOG_DEBUG, "worker", "started %u worker threads", w->thread_count);
    return 0;
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
    for (unsigned i = 0; i < w->thread_count; i++)
        pthread_join(w->threads[i], NULL);
    w->thread_count = 0;
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
