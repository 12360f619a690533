/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client's record batch on append: validated, its records checked one by
 * one (timestamps against the topic's window; keys, on a compacted topic),
 * and its header's timestamp type and maxTimestamp made to agree with the
 * records, as Kafka's LogValidator does. Clients such as Sarama 1.22 leave
 * maxTimestamp unset (-1 or 0) or wrong; the log's time index, segment
 * rolling and ListOffsets by timestamp read the header, so it must be right
 * before the append.
 *
 * The key rule shares the walk with the timestamps because Kafka checks a
 * record's key and timestamp together and reports every bad record of the
 * batch, with whichever rule it broke first (record_errors.h); one walk also
 * decompresses a compressed batch once.
 */
#ifndef GR_PROTOCOL_BATCH_TIMESTAMPS_H
#define GR_PROTOCOL_BATCH_TIMESTAMPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kerr.h"
#include "record_errors.h"
#include "records.h"

/* A before/after limit that refuses nothing: Kafka's default, Long.MAX_VALUE. */
#define GR_BATCH_TIMESTAMP_NO_LIMIT INT64_MAX

/* The topic's record rules and the clock, for one append. */
typedef struct gr_batch_timestamp_policy {
    bool log_append_time;  /* message.timestamp.type=LogAppendTime */
    int64_t before_max_ms; /* message.timestamp.before.max.ms, >= 0 */
    int64_t after_max_ms;  /* message.timestamp.after.max.ms, >= 0 */
    int64_t now_ms;        /* the broker's time for this append, >= 0 */
    bool keys_required;    /* cleanup.policy includes compact: a record needs a key */
    const char *topic;     /* the topic and partition, named in reasons (NULL: "") */
    int32_t partition;
} gr_batch_timestamp_policy_t;

/*
 * Validates the whole client batch of exactly size bytes as
 * gr_batch_validate() does and checks each of its records, in one walk;
 * then rewrites in place the header's timestamp type and maxTimestamp (and
 * the CRC-32C) where they differ from what they should be: CreateTime, the
 * records' largest timestamp; LogAppendTime, policy->now_ms. Compressed
 * records are decompressed to be read but never recompressed: the CRC does
 * not depend on how the records are compressed. lastOffsetDelta needs no
 * rewrite: validation refuses a batch where it is not count - 1.
 *
 * Each record (not those of control batches, which only have their header
 * set) is refused for the first rule it breaks, in Kafka's order:
 *  - keys_required and the key is null: INVALID_RECORD;
 *  - under CreateTime, a timestamp other than -1 outside
 *    [now - before_max_ms, now + after_max_ms]: INVALID_TIMESTAMP. A batch
 *    claiming LogAppendTime has its maxTimestamp read as every record's
 *    timestamp (as Kafka does), and if it is in the window the batch is
 *    stored as CreateTime like any other;
 *  - a batch claiming LogAppendTime under LogAppendTime, or under CreateTime
 *    with maxTimestamp -1: INVALID_TIMESTAMP.
 * The walk goes on past a bad record, so that errors (if not NULL) lists
 * them all.
 *
 * Returns GR_KERR_NONE (*out, if not NULL, then describes the batch as
 * appended: under LogAppendTime every record has now_ms); one of
 * gr_batch_validate()'s errors (nothing added to errors); or, with records
 * refused, gr_record_errors_kerr(errors): INVALID_TIMESTAMP if any record's
 * timestamp was, else INVALID_RECORD. The batch is untouched on any error.
 * On an error msg, if not NULL, gets a readable reason: the first bad
 * record's, or the batch's. Precondition: errors, if not NULL, is empty.
 */
gr_kerr_t gr_batch_timestamps_validate(uint8_t *batch, size_t size,
                                       const gr_batch_timestamp_policy_t *policy,
                                       gr_batch_summary_t *out /* out, may be NULL */,
                                       gr_record_errors_t *errors /* out, may be NULL */, char *msg,
                                       size_t msglen);

#endif
