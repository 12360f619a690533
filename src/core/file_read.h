/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading a small file whole (server.properties, the embedded metadata
 * store's tree): one loop that retries EINTR, reports read errors instead of
 * taking them for the end, and bounds the size before allocating.
 */
#ifndef GR_CORE_FILE_READ_H
#define GR_CORE_FILE_READ_H

#include <stddef.h>

/*
 * Reads the open file fd from its current offset to its end into a new
 * NUL-terminated buffer (*out, free() it; *out_len bytes before the NUL).
 * Returns 0, -EFBIG when the file is larger than max_len, -ENOMEM, or the
 * -errno of fstat or read. fd stays open.
 */
int gr_file_read_all(int fd, size_t max_len, char **out, size_t *out_len);

#endif
