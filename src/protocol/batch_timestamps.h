/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client's record batch on append: validated, its timestamps checked
 * record by record against the topic's window, and its header's timestamp
 * type and maxTimestamp made to agree with the records, as Kafka's
 * LogValidator does. Clients such as Sarama 1.22 leave maxTimestamp unset
 * (-1 or 0) or wrong; the log's time index, segment rolling and ListOffsets
 * by timestamp read the header, so it must be right before the append.
 */
#ifndef GR_PROTOCOL_BATCH_TIMESTAMPS_H
#define GR_PROTOCOL_BATCH_TIMESTAMPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kerr.h"
#include "records.h"

/* A before/after limit that refuses nothing: Kafka's default, Long.MAX_VALUE. */
#define GR_BATCH_TIMESTAMP_NO_LIMIT INT64_MAX

/* The topic's timestamp settings and the clock, for one append. */
typedef struct gr_batch_timestamp_policy {
    bool log_append_time;  /* message.timestamp.type=LogAppendTime */
    int64_t before_max_ms; /* message.timestamp.before.max.ms, >= 0 */
    int64_t after_max_ms;  /* message.timestamp.after.max.ms, >= 0 */
    int64_t now_ms;        /* the broker's time for this append, >= 0 */
} gr_batch_timestamp_policy_t;

/*
 * Validates the whole client batch of exactly size bytes as
 * gr_batch_validate() does and checks its timestamps, in one walk over the
 * records; then rewrites in place the header's timestamp type and
 * maxTimestamp (and the CRC-32C) where they differ from what they should be:
 * CreateTime, the records' largest timestamp; LogAppendTime, policy->now_ms.
 * Compressed records are decompressed to be read but never recompressed: the
 * CRC does not depend on how the records are compressed. lastOffsetDelta
 * needs no rewrite: validation refuses a batch where it is not count - 1.
 *
 * Timestamps (skipped for control batches, which only have their header
 * set): under CreateTime every record's timestamp other than -1 must lie in
 * [now - before_max_ms, now + after_max_ms]; a batch claiming LogAppendTime
 * is refused under LogAppendTime, and under CreateTime unless its
 * maxTimestamp (which Kafka reads as every record's timestamp) is in that
 * window too, after which it is stored as CreateTime like any other.
 *
 * Returns GR_KERR_NONE (*out, if not NULL, then describes the batch as
 * appended: under LogAppendTime every record has now_ms), one of
 * gr_batch_validate()'s errors (the batch untouched), or
 * GR_KERR_INVALID_TIMESTAMP (the batch untouched). On an error msg, if not
 * NULL, gets a readable reason (for INVALID_TIMESTAMP naming a record out of
 * the window).
 */
gr_kerr_t gr_batch_timestamps_validate(uint8_t *batch, size_t size,
                                       const gr_batch_timestamp_policy_t *policy,
                                       gr_batch_summary_t *out /* out, may be NULL */, char *msg,
                                       size_t msglen);

#endif
