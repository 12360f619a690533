/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Worker pool tests: jobs run off the loop thread, completions come back on
 * it, done functions may submit more, fini cancels queued jobs and runs every
 * done function before returning. Waiting is ev_run(EVRUN_ONCE) on the
 * pool's own wake-ups, in bounded loops; nothing sleeps.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/worker.h"

#define JOBS       200
#define TURN_LIMIT 100000

typedef struct job {
    pthread_t loop_thread;
    pthread_t ran_on;
    int input;
    int started; /* set atomically when the job begins */
    int result;
    int done_calls;
    bool done_on_loop;
    sem_t *block; /* when set, the job waits on it */
    gr_worker_t *pool;
    int *chain_left; /* done submits the job again while > 0 */
} job_t;

static int job_run(void *arg)
{
    job_t *j = arg;
    j->ran_on = pthread_self();
    __atomic_store_n(&j->started, 1, __ATOMIC_RELEASE);
    if (j->block)
        while (sem_wait(j->block) < 0 && errno == EINTR)
            ;
    return j->input * 2;
}

static void job_done(void *arg, int result)
{
    job_t *j = arg;
    j->done_calls++;
    j->result = result;
    j->done_on_loop = pthread_equal(pthread_self(), j->loop_thread);
    if (j->chain_left && *j->chain_left > 0) {
        (*j->chain_left)--;
        j->input++;
        assert_int_equal(gr_worker_submit(j->pool, job_run, job_done, j), 0);
    }
}

static int count_done(job_t *jobs, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += jobs[i].done_calls;
    return c;
}

static void test_completions_on_loop_thread(void **state)
{
    (void)state;
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    gr_worker_t w;
    assert_int_equal(gr_worker_init(&w, loop, 2, NULL), 0);
    static job_t jobs[JOBS];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < JOBS; i++) {
        jobs[i].loop_thread = pthread_self();
        jobs[i].input = i;
        assert_int_equal(gr_worker_submit(&w, job_run, job_done, &jobs[i]), 0);
    }
    assert_int_equal(gr_worker_outstanding(&w), JOBS);
    for (int t = 0; t < TURN_LIMIT && count_done(jobs, JOBS) < JOBS; t++)
        ev_run(loop, EVRUN_ONCE);
    assert_int_equal(count_done(jobs, JOBS), JOBS);
    assert_int_equal(gr_worker_outstanding(&w), 0);
    for (int i = 0; i < JOBS; i++) {
        assert_int_equal(jobs[i].done_calls, 1);
        assert_int_equal(jobs[i].result, 2 * i);
        assert_true(jobs[i].done_on_loop);
        assert_false(pthread_equal(jobs[i].ran_on, pthread_self()));
    }
    /* With nothing outstanding the pool does not keep ev_run alive. */
    ev_run(loop, 0);
    gr_worker_fini(&w);
    assert_int_equal(gr_worker_submit(&w, job_run, job_done, &jobs[0]), -ESHUTDOWN);
    ev_loop_destroy(loop);
}

static void test_done_submits_more(void **state)
{
    (void)state;
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    gr_worker_t w;
    assert_int_equal(gr_worker_init(&w, loop, 1, NULL), 0);
    int left = 10;
    job_t j = {.loop_thread = pthread_self(), .input = 0, .pool = &w, .chain_left = &left};
    assert_int_equal(gr_worker_submit(&w, job_run, job_done, &j), 0);
    /* ev_run returns once the chain is over: outstanding jobs keep it alive. */
    ev_run(loop, 0);
    assert_int_equal(j.done_calls, 11);
    assert_int_equal(j.result, 20);
    assert_int_equal(left, 0);
    gr_worker_fini(&w);
    ev_loop_destroy(loop);
}

typedef struct releaser {
    gr_worker_t *pool;
    sem_t *block;
} releaser_t;

/* Lets the blocked job finish once fini has taken the queue. */
static void *release_when_stopping(void *arg)
{
    releaser_t *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->pool->lock);
        bool stopping = r->pool->stopping;
        pthread_mutex_unlock(&r->pool->lock);
        if (stopping)
            break;
        sched_yield();
    }
    sem_post(r->block);
    return NULL;
}

static void test_fini_cancels_queued(void **state)
{
    (void)state;
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    gr_worker_t w;
    assert_int_equal(gr_worker_init(&w, loop, 1, NULL), 0);
    sem_t block;
    sem_init(&block, 0, 0);
    job_t jobs[6];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 6; i++) {
        jobs[i].loop_thread = pthread_self();
        jobs[i].input = i + 1;
    }
    jobs[0].block = &block;
    for (int i = 0; i < 6; i++)
        assert_int_equal(gr_worker_submit(&w, job_run, job_done, &jobs[i]), 0);
    /* Wait until the single thread is inside job 0, so 1..5 are still queued. */
    for (long t = 0; t < 1000000000L && !__atomic_load_n(&jobs[0].started, __ATOMIC_ACQUIRE); t++)
        sched_yield();
    assert_true(__atomic_load_n(&jobs[0].started, __ATOMIC_ACQUIRE));
    releaser_t r = {&w, &block};
    pthread_t helper;
    assert_int_equal(pthread_create(&helper, NULL, release_when_stopping, &r), 0);
    gr_worker_fini(&w);
    pthread_join(helper, NULL);
    assert_int_equal(jobs[0].done_calls, 1);
    assert_int_equal(jobs[0].result, 2);
    for (int i = 1; i < 6; i++) {
        assert_int_equal(jobs[i].done_calls, 1);
        assert_int_equal(jobs[i].result, -ECANCELED);
        assert_true(jobs[i].done_on_loop);
    }
    assert_int_equal(gr_worker_outstanding(&w), 0);
    sem_destroy(&block);
    ev_loop_destroy(loop);
}

static bool wait_started(job_t *j)
{
    for (long t = 0; t < 1000000000L && !__atomic_load_n(&j->started, __ATOMIC_ACQUIRE); t++)
        sched_yield();
    return __atomic_load_n(&j->started, __ATOMIC_ACQUIRE);
}

/* Two blocking jobs run at once only when the pool has two threads. */
static void run_two_at_once(gr_worker_t *w, struct ev_loop *loop)
{
    sem_t block;
    sem_init(&block, 0, 0);
    job_t jobs[2];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 2; i++) {
        jobs[i] = (job_t){.loop_thread = pthread_self(), .input = i, .block = &block};
        assert_int_equal(gr_worker_submit(w, job_run, job_done, &jobs[i]), 0);
    }
    assert_true(wait_started(&jobs[0]) && wait_started(&jobs[1]));
    assert_int_equal(gr_worker_resize(w, 1), 0); /* both finish first */
    sem_post(&block);
    sem_post(&block);
    for (int t = 0; t < TURN_LIMIT && count_done(jobs, 2) < 2; t++)
        ev_run(loop, EVRUN_ONCE);
    assert_int_equal(count_done(jobs, 2), 2);
    sem_destroy(&block);
}

static void test_resize(void **state)
{
    (void)state;
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    gr_worker_t w;
    assert_int_equal(gr_worker_init_named(&w, loop, 1, "gr-test", NULL), 0);
    assert_int_equal(gr_worker_resize(&w, 2), 0);
    run_two_at_once(&w, loop); /* ends resized back to 1 */
    job_t jobs[JOBS];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < JOBS; i++) {
        jobs[i].loop_thread = pthread_self();
        assert_int_equal(gr_worker_submit(&w, job_run, job_done, &jobs[i]), 0);
    }
    for (int t = 0; t < TURN_LIMIT && count_done(jobs, JOBS) < JOBS; t++)
        ev_run(loop, EVRUN_ONCE);
    assert_int_equal(count_done(jobs, JOBS), JOBS);
    /* A thread that left is started again. */
    assert_int_equal(gr_worker_resize(&w, 2), 0);
    run_two_at_once(&w, loop);
    gr_worker_fini(&w);
    assert_int_equal(gr_worker_resize(&w, 2), -ESHUTDOWN);
    ev_loop_destroy(loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_completions_on_loop_thread),
        cmocka_unit_test(test_done_submits_more),
        cmocka_unit_test(test_fini_cancels_queued),
        cmocka_unit_test(test_resize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
