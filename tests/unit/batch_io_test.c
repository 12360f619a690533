/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the batched-fsync I/O table (src/log/batch_io.c): inside a
 * batch the loop thread's fsyncs are deferred to one syncfs, and any other
 * thread's fsync (a cleaning on a worker) is still done at once. An fsync of
 * a bad fd tells the two apart: done, it fails with -EBADF; deferred, it
 * "succeeds".
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "log/batch_io.h"

#define BAD_FD (-1)

static void test_loop_thread_fsync_deferred(void **state)
{
    (void)state;
    gr_batch_io_t bio;
    gr_batch_io_init(&bio);
    assert_int_equal(bio.ops.fsync(bio.ops.ctx, BAD_FD), -EBADF); /* no batch: done */
    gr_batch_io_begin(&bio);
    assert_int_equal(bio.ops.fsync(bio.ops.ctx, BAD_FD), 0);
    assert_true(bio.pending);
    assert_int_equal(gr_batch_io_end(&bio, "/tmp"), 0);
    assert_false(bio.pending);
}

static void *worker_fsync(void *arg)
{
    gr_batch_io_t *bio = arg;
    intptr_t rc = bio->ops.fsync(bio->ops.ctx, BAD_FD);
    return (void *)rc;
}

static void test_worker_fsync_not_deferred(void **state)
{
    (void)state;
    gr_batch_io_t bio;
    gr_batch_io_init(&bio);
    gr_batch_io_begin(&bio);
    pthread_t th;
    void *ret;
    assert_int_equal(pthread_create(&th, NULL, worker_fsync, &bio), 0);
    assert_int_equal(pthread_join(th, &ret), 0);
    assert_int_equal((intptr_t)ret, -EBADF);
    assert_false(bio.pending);
    assert_int_equal(gr_batch_io_end(&bio, "/tmp"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_thread_fsync_deferred),
        cmocka_unit_test(test_worker_fsync_not_deferred),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
