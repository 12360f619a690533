/* SPDX-License-Identifier: Apache-2.0 */
/* Slice-at-a-time replay of a log: see log_replay.h. */
#include "log/log_replay.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int gr_log_replay_slice(gr_log_t *log, int64_t *offset, int32_t slice, gr_log_replay_fn *fn,
                        void *arg)
{
    gr_log_read_result_t r;
    int rc = gr_log_read(log, *offset, slice, true, gr_log_end_offset(log), &r);
    if (rc == -ERANGE && *offset < gr_log_start_offset(log)) {
        *offset = gr_log_start_offset(log);
        return 0;
    }
    if (rc < 0)
        return rc;
    if (r.len == 0)
        return 1;
    uint8_t *buf = malloc((size_t)r.len);
    ssize_t got = buf ? pread(r.fd, buf, (size_t)r.len, r.file_pos) : -1;
    gr_segment_put(r.segment);
    if (got != r.len) {
        free(buf);
        return buf ? -EIO : -ENOMEM;
    }
    size_t pos = 0;
    gr_batch_header_t h;
    while (pos < (size_t)r.len && gr_batch_header_parse(buf + pos, (size_t)r.len - pos, &h) == 0) {
        size_t size = (size_t)gr_batch_size(&h);
        if (size > (size_t)r.len - pos)
            break;
        if (h.base_offset + h.last_offset_delta >= *offset)
            fn(arg, buf + pos, size, &h);
        *offset = h.base_offset + h.last_offset_delta + 1;
        pos += size;
    }
    free(buf);
    return 0;
}
