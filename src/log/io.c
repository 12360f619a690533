/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The default I/O table (plain POSIX, EINTR retried, -errno results) and the
 * helpers built on any table: full reads/writes, atomic file replacement,
 * small whole-file reads, directory fsync. See io.h.
 *
 * Runs on: any thread; no state.
 */
#include "log/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int io_open(void *ctx, const char *path, int flags, mode_t mode)
{
    (void)ctx;
    int fd;
    do
        fd = open(path, flags | O_CLOEXEC, mode);
    while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

static int io_close(void *ctx, int fd)
{
    (void)ctx;
    /* Linux releases the fd even when close fails with EINTR: no retry. */
    return close(fd) < 0 && errno != EINTR ? -errno : 0;
}

static ssize_t io_pread(void *ctx, int fd, void *buf, size_t len, int64_t off)
{
    (void)ctx;
    ssize_t n;
    do
        n = pread(fd, buf, len, (off_t)off);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : n;
}

static ssize_t io_pwrite(void *ctx, int fd, const void *buf, size_t len, int64_t off)
{
    (void)ctx;
    ssize_t n;
    do
        n = pwrite(fd, buf, len, (off_t)off);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : n;
}

static int io_fsync(void *ctx, int fd)
{
    (void)ctx;
    int rc;
    do
        rc = fsync(fd);
    while (rc < 0 && errno == EINTR);
    return rc < 0 ? -errno : 0;
}

static int io_ftruncate(void *ctx, int fd, int64_t len)
{
    (void)ctx;
    int rc;
    do
        rc = ftruncate(fd, (off_t)len);
    while (rc < 0 && errno == EINTR);
    return rc < 0 ? -errno : 0;
}

static int64_t io_fsize(void *ctx, int fd)
{
    (void)ctx;
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    return (int64_t)st.st_size;
}

static int io_stat(void *ctx, const char *path, int64_t *out_size, int64_t *out_mtime_ms)
{
    (void)ctx;
    struct stat st;
    if (stat(path, &st) < 0)
        return -errno;
    if (out_size)
        *out_size = (int64_t)st.st_size;
    if (out_mtime_ms)
        *out_mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    return 0;
}

static int io_rename(void *ctx, const char *from, const char *to)
{
    (void)ctx;
    return rename(from, to) < 0 ? -errno : 0;
}

static int io_unlink(void *ctx, const char *path)
{
    (void)ctx;
    return unlink(path) < 0 ? -errno : 0;
}

static int io_mkdir(void *ctx, const char *path, mode_t mode)
{
    (void)ctx;
    return mkdir(path, mode) < 0 ? -errno : 0;
}

static int io_rmdir(void *ctx, const char *path)
{
    (void)ctx;
    return rmdir(path) < 0 ? -errno : 0;
}

static const gr_io_ops_t io_default = {
    .ctx = NULL,
    .open = io_open,
    .close = io_close,
    .pread = io_pread,
    .pwrite = io_pwrite,
    .fsync = io_fsync,
    .ftruncate = io_ftruncate,
    .fsize = io_fsize,
    .stat = io_stat,
    .rename = io_rename,
    .unlink = io_unlink,
    .mkdir = io_mkdir,
    .rmdir = io_rmdir,
};

const gr_io_ops_t *gr_io_default(void)
{
    return &io_default;
}

int gr_io_pwrite_all(const gr_io_ops_t *io, int fd, const void *buf, size_t len, int64_t off)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = io->pwrite(io->ctx, fd, p, len, off);
        if (n < 0)
            return (int)n;
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
        off += n;
    }
    return 0;
}

ssize_t gr_io_pread_all(const gr_io_ops_t *io, int fd, void *buf, size_t len, int64_t off)
{
    uint8_t *p = buf;
    size_t done = 0;
    while (done < len) {
        ssize_t n = io->pread(io->ctx, fd, p + done, len - done, off + (int64_t)done);
        if (n < 0)
            return n;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

/* Copies the directory part of path into buf ("." when there is none). */
static void io_dirname(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(buf, size, ".");
    } else if (slash == path) {
        snprintf(buf, size, "/");
    } else {
        snprintf(buf, size, "%.*s", (int)(slash - path), path);
    }
}

int gr_io_fsync_dir(const gr_io_ops_t *io, const char *dir)
{
    int fd = io->open(io->ctx, dir, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0)
        return fd;
    int rc = io->fsync(io->ctx, fd);
    io->close(io->ctx, fd);
    return rc;
}

int gr_io_write_file_replace(const gr_io_ops_t *io, const char *path, const void *data, size_t len,
                             bool durable)
{
    char tmp[4096], dir[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return -ENAMETOOLONG;
    int fd = io->open(io->ctx, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return fd;
    int rc = gr_io_pwrite_all(io, fd, data, len, 0);
    if (rc == 0 && durable)
        rc = io->fsync(io->ctx, fd);
    int crc = io->close(io->ctx, fd);
    if (rc == 0)
        rc = crc;
    if (rc == 0)
        rc = io->rename(io->ctx, tmp, path);
    if (rc < 0) {
        io->unlink(io->ctx, tmp);
        return rc;
    }
    if (!durable)
        return 0;
    io_dirname(path, dir, sizeof dir);
    return gr_io_fsync_dir(io, dir);
}

int gr_io_write_file_atomic(const gr_io_ops_t *io, const char *path, const void *data, size_t len)
{
    return gr_io_write_file_replace(io, path, data, len, true);
}

int gr_io_read_file(const gr_io_ops_t *io, const char *path, size_t max_len, char **out_data,
                    size_t *out_len)
{
    int fd = io->open(io->ctx, path, O_RDONLY, 0);
    if (fd < 0)
        return fd;
    char *buf = NULL;
    int rc;
    int64_t size = io->fsize(io->ctx, fd);
    if (size < 0) {
        rc = (int)size;
        goto fail;
    }
    if ((uint64_t)size > max_len) {
        rc = -EFBIG;
        goto fail;
    }
    buf = malloc((size_t)size + 1);
    if (!buf) {
        rc = -ENOMEM;
        goto fail;
    }
    ssize_t n = gr_io_pread_all(io, fd, buf, (size_t)size, 0);
    if (n < 0) {
        rc = (int)n;
        goto fail;
    }
    buf[n] = '\0';
    io->close(io->ctx, fd);
    *out_data = buf;
    if (out_len)
        *out_len = (size_t)n;
    return 0;
fail:
    free(buf);
    io->close(io->ctx, fd);
    return rc;
}
