/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The I/O seam of the log subsystem: every file operation of src/log/ goes
 * through a gr_io_ops_t, so tests can substitute one that fails the Nth write
 * or fsync (SQLite's faultsim) without test hooks in the core files.
 *
 * All operations return >= 0 on success and -errno on failure (never -1 with
 * errno set). pwrite/pread may be short; gr_io_pwrite_all/gr_io_pread_all
 * loop. ctx is the table's own context pointer, passed back to each call.
 *
 * Runs on: whichever thread calls; the default table has no state.
 */
#ifndef GR_LOG_IO_H
#define GR_LOG_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct gr_io_ops {
    void *ctx;
    /* Returns an fd or -errno. */
    int (*open)(void *ctx, const char *path, int flags, mode_t mode);
    int (*close)(void *ctx, int fd);
    /* Bytes transferred (may be short) or -errno. */
    ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len, int64_t off);
    ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t len, int64_t off);
    int (*fsync)(void *ctx, int fd);
    int (*ftruncate)(void *ctx, int fd, int64_t len);
    /* Size of the open file in bytes, or -errno. */
    int64_t (*fsize)(void *ctx, int fd);
    /* Size and modification time (ms) of the file at path. 0 or -errno. */
    int (*stat)(void *ctx, const char *path, int64_t *out_size, int64_t *out_mtime_ms);
    int (*rename)(void *ctx, const char *from, const char *to);
    int (*unlink)(void *ctx, const char *path);
    int (*mkdir)(void *ctx, const char *path, mode_t mode);
    int (*rmdir)(void *ctx, const char *path);
} gr_io_ops_t;

/* The default table: plain POSIX calls, retried on EINTR. Never NULL. */
const gr_io_ops_t *gr_io_default(void);

/* Writes all len bytes at off. Returns 0 or -errno (-EIO on a zero write). */
int gr_io_pwrite_all(const gr_io_ops_t *io, int fd, const void *buf, size_t len, int64_t off);

/*
 * Reads up to len bytes at off, stopping early only at end of file.
 * Returns the number of bytes read (< len at EOF) or -errno.
 */
ssize_t gr_io_pread_all(const gr_io_ops_t *io, int fd, void *buf, size_t len, int64_t off);

/*
 * Replaces the file at path atomically with len bytes of data: writes
 * "<path>.tmp", fsyncs it, renames it over path and fsyncs the directory.
 * Returns 0 or -errno (the old file is untouched on failure).
 */
int gr_io_write_file_atomic(const gr_io_ops_t *io, const char *path, const void *data, size_t len);

/*
 * As gr_io_write_file_atomic, but without any fsync when !durable: readers
 * never see a torn file while the system runs, but after a machine crash
 * the file may be the old one, the new one, or empty. For files that are
 * rebuilt or rewritten when found missing or unreadable (partition.metadata,
 * leader-epoch-checkpoint between flushes). 0 or -errno.
 */
int gr_io_write_file_replace(const gr_io_ops_t *io, const char *path, const void *data, size_t len,
                             bool durable);

/*
 * Reads a whole (small) file into a NUL-terminated malloc'd buffer the
 * caller frees. Returns 0, -ENOENT, -EFBIG (over max_len) or -errno.
 */
int gr_io_read_file(const gr_io_ops_t *io, const char *path, size_t max_len, char **out_data,
                    size_t *out_len);

/* fsyncs a directory (after creating, renaming or deleting in it). 0 or -errno. */
int gr_io_fsync_dir(const gr_io_ops_t *io, const char *dir);

#endif
