/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Transaction markers: the control batches that end a transaction in a
 * partition's log (KIP-98). A marker is a v2 batch with the control and
 * transactional attribute bits, the producer's id and epoch, no sequence,
 * and one record:
 *   key   = int16 version (0), int16 type (ABORT 0, COMMIT 1)
 *   value = int16 version (0), int32 coordinator epoch
 * Parsing accepts a higher key/value version (newer brokers may add fields
 * after these) but never a short record.
 *
 * Runs on: any thread (pure functions).
 */
#ifndef GR_PROTOCOL_CONTROL_BATCH_H
#define GR_PROTOCOL_CONTROL_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/records.h"
#include "protocol/writer.h"

#define GR_CONTROL_TYPE_ABORT    0
#define GR_CONTROL_TYPE_COMMIT   1
#define GR_CONTROL_KEY_VERSION   0
#define GR_CONTROL_VALUE_VERSION 0

/* A parsed marker. */
typedef struct gr_control_marker {
    int16_t type;              /* GR_CONTROL_TYPE_* (other values: unknown control records) */
    int32_t coordinator_epoch; /* -1 when the record carries no value */
} gr_control_marker_t;

/*
 * Appends a marker batch to w: base offset 0 (the log assigns it), leader
 * epoch -1, timestamp now_ms. Returns 0 or the writer's -errno.
 */
int gr_control_batch_build(gr_writer_t *w, int64_t producer_id, int16_t producer_epoch,
                           int32_t coordinator_epoch, bool commit, int64_t now_ms);

/*
 * Reads the marker of the control batch at batch (size bytes, a whole batch
 * whose header h says it is a control batch). Returns 0, or -EBADMSG when the
 * batch holds no well-formed control record (compressed control batches are
 * refused: no producer writes them).
 */
int gr_control_batch_parse(const uint8_t *batch, size_t size, const gr_batch_header_t *h,
                           gr_control_marker_t *out);

/* Whether the header is a transaction marker's (control bit set). */
static inline bool gr_batch_is_control(const gr_batch_header_t *h)
{
    return (h->attributes & GR_BATCH_ATTR_CONTROL) != 0;
}

/* Whether the header is part of a transaction (data or marker). */
static inline bool gr_batch_is_transactional(const gr_batch_header_t *h)
{
    return (h->attributes & GR_BATCH_ATTR_TRANSACTIONAL) != 0;
}

#endif
