/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client's record batch on append: see batch_timestamps.h.
 *
 * One walk over the records: gr_batch_validate_summary() checks them and
 * keeps, as it goes, the smallest and the largest timestamp. Checking every
 * record against the window [now - before, now + after] is checking those
 * two, since a record outside the window is either older than the smallest
 * one's lower bound or newer than the largest one's upper bound. The answer
 * is Kafka's record-by-record one, without a second pass (or a second
 * decompression of a compressed batch).
 *
 * Kafka's record errors differ in kind: a malformed record aborts the
 * validation (INVALID_RECORD, or CORRUPT_MESSAGE for broken framing), while
 * timestamp errors are gathered and answered once all records are read. Here
 * the walk comes first, so a malformed batch is refused for that before its
 * timestamps are looked at, which gives the same answers.
 *
 * Timestamps are client input: their distances to now are taken in
 * uint64_t, where they cannot overflow (now >= 0). Kafka's Java long
 * arithmetic wraps there, which it does not mean to do; what it does mean
 * is that the default limit, Long.MAX_VALUE, refuses nothing, and so does
 * GR_BATCH_TIMESTAMP_NO_LIMIT here (the exact distance would refuse the
 * few timestamps more than INT64_MAX ms before now).
 *
 * Runs on: any thread (a function of the bytes and the policy).
 */
#include "batch_timestamps.h"

#include <inttypes.h>
#include <stdio.h>

/* True if ts is more than before_max_ms older than now. */
static bool too_old(const gr_batch_timestamp_policy_t *p, int64_t ts)
{
    return p->before_max_ms != GR_BATCH_TIMESTAMP_NO_LIMIT && ts < p->now_ms &&
           (uint64_t)p->now_ms - (uint64_t)ts > (uint64_t)p->before_max_ms;
}

/* True if ts is more than after_max_ms ahead of now. */
static bool too_new(const gr_batch_timestamp_policy_t *p, int64_t ts)
{
    return p->after_max_ms != GR_BATCH_TIMESTAMP_NO_LIMIT && ts > p->now_ms &&
           (uint64_t)ts - (uint64_t)p->now_ms > (uint64_t)p->after_max_ms;
}

static gr_kerr_t refuse_timestamp(const gr_batch_timestamp_policy_t *p, int64_t ts, int32_t index,
                                  char *msg, size_t msglen)
{
    if (msg) {
        int64_t low = p->now_ms - p->before_max_ms; /* >= -INT64_MAX: no overflow */
        int64_t high =
            p->after_max_ms > INT64_MAX - p->now_ms ? INT64_MAX : p->now_ms + p->after_max_ms;
        snprintf(msg, msglen,
                 "Timestamp %" PRId64 " of message with offset delta %" PRId32
                 " is out of range. The timestamp should be within [%" PRId64 ", %" PRId64 "]",
                 ts, index, low, high);
    }
    return GR_KERR_INVALID_TIMESTAMP;
}

/* Kafka's checks of one batch's timestamps (h its header, sum its records). */
static gr_kerr_t check_timestamps(const gr_batch_timestamp_policy_t *p, const gr_batch_header_t *h,
                                  const gr_batch_summary_t *sum, char *msg, size_t msglen)
{
    if (h->attributes & GR_BATCH_ATTR_LOG_APPEND_TIME) {
        /* Kafka reads maxTimestamp as every record's timestamp here. */
        if (p->log_append_time || h->max_timestamp == GR_RECORD_NO_TIMESTAMP) {
            if (msg)
                snprintf(msg, msglen,
                         "Invalid timestamp type in message: producer should not set timestamp "
                         "type to LogAppendTime.");
            return GR_KERR_INVALID_TIMESTAMP;
        }
        if (too_old(p, h->max_timestamp) || too_new(p, h->max_timestamp))
            return refuse_timestamp(p, h->max_timestamp, 0, msg, msglen);
    }
    if (p->log_append_time)
        return GR_KERR_NONE;
    if (sum->min_timestamp_index >= 0 && too_old(p, sum->min_timestamp))
        return refuse_timestamp(p, sum->min_timestamp, sum->min_timestamp_index, msg, msglen);
    if (too_new(p, sum->max_timestamp)) /* false for GR_RECORD_NO_TIMESTAMP */
        return refuse_timestamp(p, sum->max_timestamp, sum->max_timestamp_index, msg, msglen);
    return GR_KERR_NONE;
}

gr_kerr_t gr_batch_timestamps_validate(uint8_t *batch, size_t size,
                                       const gr_batch_timestamp_policy_t *policy,
                                       gr_batch_summary_t *out, char *msg, size_t msglen)
{
    gr_batch_summary_t sum;
    gr_batch_header_t h;
    gr_kerr_t err = gr_batch_validate_summary(batch, size, GR_BATCH_MAX_DECOMPRESSED, &sum);
    if (err == GR_KERR_NONE && gr_batch_header_parse(batch, size, &h) != 0)
        err = GR_KERR_CORRUPT_MESSAGE; /* cannot happen: the batch was just validated */
    if (err) {
        if (msg)
            snprintf(msg, msglen, "Record batch failed validation");
        return err;
    }
    if (!(h.attributes & GR_BATCH_ATTR_CONTROL)) {
        err = check_timestamps(policy, &h, &sum, msg, msglen);
        if (err)
            return err;
    }
    if (policy->log_append_time) {
        sum.max_timestamp = sum.min_timestamp = policy->now_ms;
        sum.max_timestamp_index = sum.min_timestamp_index = 0;
    }
    (void)gr_batch_set_max_timestamp(batch, size, policy->log_append_time, sum.max_timestamp);
    if (out)
        *out = sum;
    return GR_KERR_NONE;
}
