/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client's record batch on append: see batch_timestamps.h.
 *
 * One walk over the records: gr_batch_validate_visit() checks them, keeps
 * the largest timestamp for the header, and shows each record to
 * check_record(), which applies the topic's rules and adds the records
 * breaking one to the batch's record errors. Only once the walk has ended
 * well do those errors count: Kafka's record errors differ in kind, a
 * malformed record aborting the validation (INVALID_RECORD, or
 * CORRUPT_MESSAGE for broken framing) with no record named, while key and
 * timestamp errors are gathered and answered once all records are read.
 * Throwing away what was gathered before a malformed record gives the same
 * answers.
 *
 * Timestamps are client input: their distances to now are taken in
 * uint64_t, where they cannot overflow (now >= 0). Kafka's Java long
 * arithmetic wraps there, which it does not mean to do; what it does mean
 * is that the default limit, Long.MAX_VALUE, refuses nothing, and so does
 * GR_BATCH_TIMESTAMP_NO_LIMIT here (the exact distance would refuse the
 * few timestamps more than INT64_MAX ms before now). For the same reason a
 * window's upper end shown in a reason stops at INT64_MAX where Kafka's
 * wraps to a negative number.
 *
 * Runs on: any thread (a function of the bytes and the policy; the record
 * errors' arena belongs to the caller's thread).
 */
#include "batch_timestamps.h"

#include <inttypes.h>
#include <stdarg.h>
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

/* The walk's state: what check_record needs besides the record. */
typedef struct record_check {
    const gr_batch_timestamp_policy_t *policy;
    const gr_batch_header_t *header;
    gr_record_errors_t *errors;
    char *msg; /* the first reason, if not NULL */
    size_t msglen;
} record_check_t;

/* Refuses the record at index: the first reason also goes to msg. */
static void refuse(record_check_t *c, gr_kerr_t kind, int32_t index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void refuse(record_check_t *c, gr_kerr_t kind, int32_t index, const char *fmt, ...)
{
    va_list ap;
    if (c->msg && c->errors->count == 0) {
        va_start(ap, fmt);
        vsnprintf(c->msg, c->msglen, fmt, ap);
        va_end(ap);
    }
    va_start(ap, fmt);
    gr_record_errors_vaddf(c->errors, kind, index, fmt, ap);
    va_end(ap);
}

/* Kafka's reason for a timestamp out of the window, the record's offset as the client sent it. */
static void refuse_timestamp(record_check_t *c, int64_t ts, int32_t index)
{
    const gr_batch_timestamp_policy_t *p = c->policy;
    int64_t low = p->now_ms - p->before_max_ms; /* >= -INT64_MAX: no overflow */
    int64_t high =
        p->after_max_ms > INT64_MAX - p->now_ms ? INT64_MAX : p->now_ms + p->after_max_ms;
    int64_t offset = (int64_t)((uint64_t)c->header->base_offset + (uint64_t)index);
    refuse(c, GR_KERR_INVALID_TIMESTAMP, index,
           "Timestamp %" PRId64 " of message with offset %" PRId64
           " is out of range. The timestamp should be within [%" PRId64 ", %" PRId64 "]",
           ts, offset, low, high);
}

/* Kafka's reason for a client batch claiming LogAppendTime, naming the record as Java prints it. */
static void refuse_append_time(record_check_t *c, const gr_record_t *rec, int64_t ts, int32_t index)
{
    int64_t offset = (int64_t)((uint64_t)c->header->base_offset + (uint64_t)index);
    refuse(c, GR_KERR_INVALID_TIMESTAMP, index,
           "Invalid timestamp type in message DefaultRecord(offset=%" PRId64 ", timestamp=%" PRId64
           ", key=%d bytes, value=%d bytes). Producer should not set timestamp type to "
           "LogAppendTime.",
           offset, ts, rec->key.len > 0 ? (int)rec->key.len : 0,
           rec->value.len > 0 ? (int)rec->value.len : 0);
}

/* A gr_record_visit_fn: one record against the topic's rules, key first as in Kafka. */
static void check_record(void *arg, int32_t index, const gr_record_t *rec, int64_t ts)
{
    record_check_t *c = arg;
    const gr_batch_timestamp_policy_t *p = c->policy;
    if (p->keys_required && rec->key.len == GR_NULL_LEN) {
        refuse(c, GR_KERR_INVALID_RECORD, index,
               "Compacted topic cannot accept message without key in topic partition %s-%d",
               p->topic ? p->topic : "", (int)p->partition);
        return;
    }
    bool claims_append_time = c->header->attributes & GR_BATCH_ATTR_LOG_APPEND_TIME;
    if (claims_append_time)
        ts = c->header->max_timestamp; /* what Kafka reads as every record's timestamp */
    if (!p->log_append_time && ts != GR_RECORD_NO_TIMESTAMP) {
        if (too_old(p, ts) || too_new(p, ts))
            refuse_timestamp(c, ts, index);
    } else if (claims_append_time) {
        refuse_append_time(c, rec, ts, index);
    }
}

/*
 * Whether check_record could refuse any record of the batch: not under
 * Kafka's defaults (no key rule, both limits unlimited, no LogAppendTime
 * claimed), where the walk then skips the per-record call.
 */
static bool can_refuse(const gr_batch_timestamp_policy_t *p, const gr_batch_header_t *h,
                       bool parsed)
{
    return p->keys_required || p->before_max_ms != GR_BATCH_TIMESTAMP_NO_LIMIT ||
           p->after_max_ms != GR_BATCH_TIMESTAMP_NO_LIMIT ||
           (parsed && (h->attributes & GR_BATCH_ATTR_LOG_APPEND_TIME));
}

gr_kerr_t gr_batch_timestamps_validate(uint8_t *batch, size_t size,
                                       const gr_batch_timestamp_policy_t *policy,
                                       gr_batch_summary_t *out, gr_record_errors_t *errors,
                                       char *msg, size_t msglen)
{
    gr_batch_summary_t sum;
    gr_batch_header_t h;
    gr_record_errors_t count_only;
    if (!errors) {
        gr_record_errors_init(&count_only, NULL);
        errors = &count_only;
    }
    record_check_t check = {
        .policy = policy, .header = &h, .errors = errors, .msg = msg, .msglen = msglen};
    /* Markers are never refused for their records: only their header is set. */
    bool parsed = gr_batch_header_parse(batch, size, &h) == 0;
    bool control = parsed && (h.attributes & GR_BATCH_ATTR_CONTROL);
    gr_kerr_t err = gr_batch_validate_visit(
        batch, size, GR_BATCH_MAX_DECOMPRESSED,
        control || !can_refuse(policy, &h, parsed) ? NULL : check_record, &check, &sum);
    if (err) {
        gr_record_errors_clear(errors);
        if (msg)
            snprintf(msg, msglen, "Record batch failed validation");
        return err;
    }
    err = gr_record_errors_kerr(errors);
    if (err)
        return err;
    if (policy->log_append_time) {
        sum.max_timestamp = sum.min_timestamp = policy->now_ms;
        sum.max_timestamp_index = sum.min_timestamp_index = 0;
    }
    (void)gr_batch_set_max_timestamp(batch, size, policy->log_append_time, sum.max_timestamp);
    if (out)
        *out = sum;
    return GR_KERR_NONE;
}
