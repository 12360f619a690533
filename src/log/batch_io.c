/* SPDX-License-Identifier: Apache-2.0 */
/* Batched fsyncs for bulk log opening and closing: see batch_io.h. */
#include "log/batch_io.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int batch_fsync(void *ctx, int fd)
{
    gr_batch_io_t *bio = ctx;
    if (pthread_equal(pthread_self(), bio->owner) && bio->depth > 0) {
        bio->pending = true;
        return 0;
    }
    const gr_io_ops_t *real = gr_io_default();
    return real->fsync(real->ctx, fd);
}

void gr_batch_io_init(gr_batch_io_t *bio)
{
    /* The default table keeps no state, so its calls ignore the ctx. */
    bio->ops = *gr_io_default();
    bio->ops.ctx = bio;
    bio->ops.fsync = batch_fsync;
    bio->depth = 0;
    bio->pending = false;
    bio->owner = pthread_self();
}

void gr_batch_io_begin(gr_batch_io_t *bio)
{
    bio->depth++;
}

int gr_batch_io_end(gr_batch_io_t *bio, const char *dir)
{
    if (--bio->depth > 0 || !bio->pending)
        return 0;
    bio->pending = false;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = syncfs(fd) == 0 ? 0 : -errno;
    close(fd);
    return rc;
}
