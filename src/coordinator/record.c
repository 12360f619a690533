/* SPDX-License-Identifier: Apache-2.0 */
/* A coordinator record's version framing: see record.h. */
#include "coordinator/record.h"

#include <errno.h>

int gr_coordinator_record_open(gr_bytes_t bytes, int16_t max_version, gr_reader_t *r)
{
    if (bytes.len < 0)
        return -EBADMSG;
    gr_reader_init(r, bytes.ptr, (size_t)bytes.len);
    int16_t version = gr_read_int16(r);
    if (r->err || version < 0 || version > max_version)
        return -EBADMSG;
    return version;
}
