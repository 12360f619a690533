/* SPDX-License-Identifier: Apache-2.0 */
#include "core/file_read.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int gr_file_read_all(int fd, size_t max_len, char **out, size_t *out_len)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (st.st_size < 0 || (unsigned long long)st.st_size > max_len)
        return -EFBIG;
    size_t size = (size_t)st.st_size, used = 0;
    char *buf = malloc(size + 1);
    if (buf == NULL)
        return -ENOMEM;
    while (used < size) {
        ssize_t n = read(fd, buf + used, size - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int rc = -errno;
            free(buf);
            return rc;
        }
        if (n == 0)
            break; /* shrank meanwhile: what is there */
        used += (size_t)n;
    }
    buf[used] = '\0';
    *out = buf;
    *out_len = used;
    return 0;
}
