/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's I/O table for the logs: the default POSIX calls, except that
 * inside a batch (gr_batch_io_begin/end) fsyncs are only noted and replaced
 * by one syncfs() of the log dir's filesystem at the end. Creating a topic
 * of 5,000 partitions makes some 20,000 files and directory entries that
 * each want an fsync; one syncfs makes them all durable at once, before the
 * creation is acknowledged.
 *
 * A batch is open only inside one call on the loop thread that opens many
 * logs (a LeaderAndIsr request naming new or recovering replicas) or closes
 * them all (shutdown). Only the loop thread's fsyncs are deferred: a worker
 * thread's (a cleaning) is done at once, since the batch may end before it.
 *
 * Runs on: loop thread (fsync from any thread).
 */
#ifndef GR_LOG_BATCH_IO_H
#define GR_LOG_BATCH_IO_H

#include <pthread.h>
#include <stdbool.h>

#include "log/io.h"

typedef struct gr_batch_io {
    gr_io_ops_t ops; /* what the logs use; ops.ctx points back here */
    int depth;       /* nesting of open batches; loop thread only */
    bool pending;    /* an fsync was skipped in the current batch; loop thread only */
    pthread_t owner; /* the loop thread (gr_batch_io_init's caller) */
} gr_batch_io_t;

void gr_batch_io_init(gr_batch_io_t *bio);
void gr_batch_io_begin(gr_batch_io_t *bio);
/*
 * Ends a batch; the outermost end syncs the filesystem holding dir when any
 * fsync was skipped. Returns 0 or -errno.
 */
int gr_batch_io_end(gr_batch_io_t *bio, const char *dir);

#endif
