/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client batch's timestamps on append (gr_batch_timestamps_validate): the
 * header's maxTimestamp recomputed from the records when a client sent it
 * unset (-1, 0) or wrong, for every codec, with a valid CRC after and the
 * records' bytes (compressed or not) left as they were; a right header left
 * byte for byte; LogAppendTime; every record's timestamp checked against the
 * before/after window (not just the header's), at the window's edges and at
 * extreme values; batches claiming LogAppendTime; control batches;
 * malformed batches refused with the batch untouched; and the records named
 * when some break a rule (keys on compacted topics, timestamps).
 *
 * Batches are in exact-size heap buffers, so a read past their end is caught
 * under AddressSanitizer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/arena.h"
#include "protocol/batch_timestamps.h"
#include "protocol/record_errors.h"
#include "protocol/records.h"

static const gr_compression_t codecs[] = {GR_COMPRESSION_NONE, GR_COMPRESSION_GZIP,
                                          GR_COMPRESSION_SNAPPY, GR_COMPRESSION_LZ4,
                                          GR_COMPRESSION_ZSTD};
#define CODEC_COUNT (sizeof codecs / sizeof codecs[0])
#define NOW         1700000000000LL
#define HOUR        3600000LL
#define MAX_RECORDS 8

/* A CreateTime topic with a one-hour window either side. */
static const gr_batch_timestamp_policy_t create_time = {
    .log_append_time = false, .before_max_ms = HOUR, .after_max_ms = HOUR, .now_ms = NOW};
/* Kafka's defaults: no window at all. */
static const gr_batch_timestamp_policy_t unlimited = {
    .log_append_time = false, .before_max_ms = INT64_MAX, .after_max_ms = INT64_MAX, .now_ms = NOW};
static const gr_batch_timestamp_policy_t append_time = {
    .log_append_time = true, .before_max_ms = HOUR, .after_max_ms = HOUR, .now_ms = NOW};

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint8_t *copy_exact(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    assert_non_null(c);
    if (n)
        memcpy(c, p, n);
    return c;
}

/*
 * A batch of count records with the given timestamps (the first one is the
 * base timestamp, unless base is given), its header's maxTimestamp set to
 * header_max whatever the records say, and attrs ORed into the attributes.
 * Every record has the key "k" but those whose bit is set in null_keys.
 */
static uint8_t *build_keys(const int64_t *ts, int count, int64_t base, int64_t header_max,
                           int16_t attrs, unsigned null_keys, gr_compression_t codec, size_t *size)
{
    assert_true(count > 0 && count <= MAX_RECORDS);
    static const char *const values[MAX_RECORDS] = {"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"};
    gr_record_t recs[MAX_RECORDS];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < count; i++) {
        recs[i].timestamp_delta = (int64_t)((uint64_t)ts[i] - (uint64_t)base);
        recs[i].offset_delta = i;
        recs[i].key = (null_keys >> i) & 1 ? (gr_bytes_t){NULL, GR_NULL_LEN}
                                           : (gr_bytes_t){(const uint8_t *)"k", 1};
        recs[i].value = (gr_bytes_t){(const uint8_t *)values[i], 2};
    }
    gr_batch_header_t h;
    memset(&h, 0, sizeof h);
    h.attributes = attrs;
    h.last_offset_delta = count - 1;
    h.base_timestamp = base;
    h.max_timestamp = header_max;
    h.producer_id = -1;
    h.producer_epoch = -1;
    h.base_sequence = -1;
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_batch_build(&w, &h, recs, count, codec), 0);
    uint8_t *b = copy_exact(w.buf, w.len);
    *size = w.len;
    gr_writer_fini(&w);
    return b;
}

static uint8_t *build_ts(const int64_t *ts, int count, int64_t base, int64_t header_max,
                         int16_t attrs, gr_compression_t codec, size_t *size)
{
    return build_keys(ts, count, base, header_max, attrs, 0, codec, size);
}

static uint8_t *build_plain(const int64_t *ts, int count, int64_t header_max,
                            gr_compression_t codec, size_t *size)
{
    return build_ts(ts, count, ts[0], header_max, 0, codec, size);
}

static gr_batch_header_t header_of(const uint8_t *b, size_t size)
{
    gr_batch_header_t h;
    assert_int_equal(gr_batch_header_parse(b, size, &h), 0);
    return h;
}

/* Bytes outside attributes, maxTimestamp and the CRC are as they were. */
static void assert_only_header_changed(const uint8_t *before, const uint8_t *after, size_t size)
{
    assert_memory_equal(before, after, GR_RECORD_BATCH_OFFSET_CRC);
    assert_memory_equal(before + GR_RECORD_BATCH_OFFSET_ATTRS + 2,
                        after + GR_RECORD_BATCH_OFFSET_ATTRS + 2,
                        GR_RECORD_BATCH_OFFSET_MAX_TS - GR_RECORD_BATCH_OFFSET_ATTRS - 2);
    assert_memory_equal(before + GR_RECORD_BATCH_OFFSET_MAX_TS + 8,
                        after + GR_RECORD_BATCH_OFFSET_MAX_TS + 8,
                        size - GR_RECORD_BATCH_OFFSET_MAX_TS - 8);
}

/* Validates b under p, expecting want, and that b is untouched on an error. */
static gr_batch_summary_t validate(uint8_t *b, size_t size, const gr_batch_timestamp_policy_t *p,
                                   gr_kerr_t want)
{
    uint8_t *before = copy_exact(b, size);
    gr_batch_summary_t sum;
    memset(&sum, 0xa5, sizeof sum);
    char msg[200];
    gr_kerr_t err = gr_batch_timestamps_validate(b, size, p, &sum, NULL, msg, sizeof msg);
    if (err != want)
        fail_msg("got error %d, want %d (%s)", err, want, err ? msg : "");
    if (err == GR_KERR_NONE) {
        assert_true(gr_batch_crc_ok(b, size));
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_NONE);
        assert_only_header_changed(before, b, size);
        assert_int_equal(header_of(b, size).max_timestamp, sum.max_timestamp);
    } else {
        assert_memory_equal(before, b, size);
    }
    free(before);
    return sum;
}

/* Unset (-1, 0), too low and too high maxTimestamp: recomputed, CRC rewritten. */
static void test_header_recomputed(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW - 50, NOW - 10, NOW - 30}; /* the max is in the middle */
    const int64_t wrong[] = {-1, 0, NOW - 50, NOW + 1000, INT64_MIN, INT64_MAX};
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
            size_t size;
            uint8_t *b = build_plain(ts, 3, wrong[k], codecs[c], &size);
            uint32_t crc_before = header_of(b, size).crc;
            gr_batch_summary_t sum = validate(b, size, &unlimited, GR_KERR_NONE);
            gr_batch_header_t h = header_of(b, size);
            assert_int_equal(h.max_timestamp, NOW - 10);
            assert_int_equal(h.base_timestamp, NOW - 50);
            assert_int_equal(h.last_offset_delta, 2);
            assert_int_equal(h.attributes, codecs[c]);
            assert_int_not_equal(h.crc, crc_before);
            assert_int_equal(sum.max_timestamp_index, 1);
            assert_int_equal(sum.min_timestamp, NOW - 50);
            assert_int_equal(sum.min_timestamp_index, 0);
            free(b);
        }
    }
}

/* A header that is already right is left byte for byte. */
static void test_right_header_untouched(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW - 5, NOW - 5, NOW - 7, NOW - 1};
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        uint8_t *b = build_plain(ts, 4, NOW - 1, codecs[c], &size);
        uint8_t *before = copy_exact(b, size);
        gr_batch_summary_t sum = validate(b, size, &create_time, GR_KERR_NONE);
        assert_memory_equal(before, b, size);
        assert_int_equal(sum.max_timestamp, NOW - 1);
        assert_int_equal(sum.max_timestamp_index, 3);
        assert_int_equal(sum.min_timestamp, NOW - 7);
        assert_int_equal(sum.min_timestamp_index, 2);
        free(before);
        free(b);
    }
}

/* Equal maxima: the first record holding the max is the one named. */
static void test_first_record_with_max(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW - 9, NOW - 2, NOW - 2, NOW - 9};
    size_t size;
    uint8_t *b = build_plain(ts, 4, -1, GR_COMPRESSION_LZ4, &size);
    gr_batch_summary_t sum = validate(b, size, &create_time, GR_KERR_NONE);
    assert_int_equal(sum.max_timestamp, NOW - 2);
    assert_int_equal(sum.max_timestamp_index, 1);
    assert_int_equal(sum.min_timestamp_index, 0);
    free(b);
}

/* Records without a timestamp (-1) are not checked, and do not make the max. */
static void test_no_timestamp_records(void **state)
{
    (void)state;
    size_t size;
    /* Every record without: maxTimestamp becomes -1. */
    const int64_t none[] = {-1, -1};
    uint8_t *b = build_plain(none, 2, NOW, GR_COMPRESSION_NONE, &size);
    gr_batch_summary_t sum = validate(b, size, &create_time, GR_KERR_NONE);
    assert_int_equal(header_of(b, size).max_timestamp, -1);
    assert_int_equal(sum.max_timestamp_index, -1);
    assert_int_equal(sum.min_timestamp_index, -1);
    free(b);
    /* Mixed, base timestamp from a record with one. */
    const int64_t mixed[] = {NOW - 3, -1, NOW - 4};
    b = build_ts(mixed, 3, NOW - 3, -1, 0, GR_COMPRESSION_ZSTD, &size);
    sum = validate(b, size, &create_time, GR_KERR_NONE);
    assert_int_equal(header_of(b, size).max_timestamp, NOW - 3);
    assert_int_equal(sum.min_timestamp, NOW - 4);
    assert_int_equal(sum.min_timestamp_index, 2);
    free(b);
    /* Below -1 is a timestamp like any other: checked, and never a max above -1. */
    const int64_t negative[] = {-2, -5};
    b = build_plain(negative, 2, 0, GR_COMPRESSION_NONE, &size);
    validate(b, size, &create_time, GR_KERR_INVALID_TIMESTAMP);
    sum = validate(b, size, &unlimited, GR_KERR_NONE);
    assert_int_equal(header_of(b, size).max_timestamp, -1);
    assert_int_equal(sum.min_timestamp, -5);
    free(b);
}

/*
 * One record out of the window in a batch whose header timestamps (base and
 * max) are inside it: refused, whichever record it is and however compressed.
 */
static void test_each_record_checked(void **state)
{
    (void)state;
    const int64_t bad[] = {NOW - HOUR - 1, NOW + HOUR + 1, INT64_MIN, INT64_MAX, 0};
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            for (int at = 1; at < 4; at++) {
                int64_t ts[] = {NOW, NOW, NOW, NOW};
                ts[at] = bad[k];
                size_t size;
                uint8_t *b = build_ts(ts, 4, NOW, NOW, 0, codecs[c], &size);
                validate(b, size, &create_time, GR_KERR_INVALID_TIMESTAMP);
                free(b);
            }
        }
    }
}

/* The window's edges are inside it; one millisecond further is not. */
static void test_window_edges(void **state)
{
    (void)state;
    const struct {
        int64_t ts;
        gr_kerr_t want;
    } cases[] = {
        {NOW - HOUR, GR_KERR_NONE}, {NOW - HOUR - 1, GR_KERR_INVALID_TIMESTAMP},
        {NOW + HOUR, GR_KERR_NONE}, {NOW + HOUR + 1, GR_KERR_INVALID_TIMESTAMP},
        {NOW, GR_KERR_NONE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t size;
        uint8_t *b = build_plain(&cases[k].ts, 1, -1, GR_COMPRESSION_NONE, &size);
        validate(b, size, &create_time, cases[k].want);
        free(b);
    }
    /* A zero window accepts only now. */
    gr_batch_timestamp_policy_t exact = create_time;
    exact.before_max_ms = exact.after_max_ms = 0;
    const int64_t now[] = {NOW, NOW};
    const int64_t late[] = {NOW, NOW + 1};
    size_t size;
    uint8_t *b = build_plain(now, 2, 0, GR_COMPRESSION_NONE, &size);
    validate(b, size, &exact, GR_KERR_NONE);
    free(b);
    b = build_plain(late, 2, NOW, GR_COMPRESSION_NONE, &size);
    validate(b, size, &exact, GR_KERR_INVALID_TIMESTAMP);
    free(b);
}

/* Extreme timestamps and windows: no overflow, mathematically right answers. */
static void test_extreme_values(void **state)
{
    (void)state;
    const int64_t ts[] = {INT64_MIN, INT64_MAX, 0};
    size_t size;
    uint8_t *b = build_plain(ts, 3, -1, GR_COMPRESSION_NONE, &size);
    gr_batch_summary_t sum = validate(b, size, &unlimited, GR_KERR_NONE);
    assert_int_equal(sum.max_timestamp, INT64_MAX);
    assert_int_equal(sum.min_timestamp, INT64_MIN);
    free(b);
    /* INT64_MIN is more than INT64_MAX - 1 ms before now (now - INT64_MIN overflows int64). */
    gr_batch_timestamp_policy_t p = unlimited;
    p.before_max_ms = INT64_MAX - 1;
    b = build_plain(ts, 3, -1, GR_COMPRESSION_NONE, &size);
    validate(b, size, &p, GR_KERR_INVALID_TIMESTAMP);
    free(b);
    /* Deltas that wrap around (Java's long addition): base INT64_MAX, delta +2. */
    const int64_t wrapped[] = {INT64_MAX, INT64_MIN + 1};
    b = build_ts(wrapped, 2, INT64_MAX, -1, 0, GR_COMPRESSION_NONE, &size);
    sum = validate(b, size, &unlimited, GR_KERR_NONE);
    assert_int_equal(sum.max_timestamp, INT64_MAX);
    assert_int_equal(sum.min_timestamp, INT64_MIN + 1);
    assert_int_equal(sum.min_timestamp_index, 1);
    free(b);
}

/* LogAppendTime: the broker's time and the attribute bit, whatever the records say. */
static void test_log_append_time(void **state)
{
    (void)state;
    const int64_t ts[] = {5, NOW + 10 * HOUR, -1}; /* not checked under LogAppendTime */
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        uint8_t *b = build_plain(ts, 3, -1, codecs[c], &size);
        gr_batch_summary_t sum = validate(b, size, &append_time, GR_KERR_NONE);
        gr_batch_header_t h = header_of(b, size);
        assert_int_equal(h.max_timestamp, NOW);
        assert_int_equal(h.attributes, GR_BATCH_ATTR_LOG_APPEND_TIME | codecs[c]);
        assert_int_equal(h.base_timestamp, 5);
        assert_int_equal(sum.max_timestamp_index, 0);
        assert_int_equal(sum.min_timestamp, NOW);
        free(b);
    }
}

/*
 * A client batch claiming LogAppendTime: Kafka reads its maxTimestamp as
 * every record's timestamp and refuses it on a LogAppendTime topic, or when
 * that timestamp is -1 or out of the window; otherwise it is stored as
 * CreateTime with the records' own max.
 */
static void test_client_claims_log_append_time(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW - 20, NOW - 10};
    size_t size;
    uint8_t *b = build_ts(ts, 2, NOW - 20, NOW - 15, GR_BATCH_ATTR_LOG_APPEND_TIME,
                          GR_COMPRESSION_GZIP, &size);
    validate(b, size, &append_time, GR_KERR_INVALID_TIMESTAMP);
    gr_batch_summary_t sum = validate(b, size, &create_time, GR_KERR_NONE);
    gr_batch_header_t h = header_of(b, size);
    assert_int_equal(h.attributes, GR_COMPRESSION_GZIP);
    assert_int_equal(h.max_timestamp, NOW - 10);
    assert_int_equal(sum.max_timestamp_index, 1);
    free(b);
    const int64_t claims[] = {-1, NOW - 2 * HOUR};
    for (size_t k = 0; k < sizeof claims / sizeof claims[0]; k++) {
        b = build_ts(ts, 2, NOW - 20, claims[k], GR_BATCH_ATTR_LOG_APPEND_TIME, GR_COMPRESSION_NONE,
                     &size);
        validate(b, size, &create_time, GR_KERR_INVALID_TIMESTAMP);
        free(b);
    }
}

/* Control batches have their header set but their timestamps are not checked. */
static void test_control_batch(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW - 10 * HOUR};
    size_t size;
    uint8_t *b = build_ts(ts, 1, ts[0], -1, GR_BATCH_ATTR_CONTROL | GR_BATCH_ATTR_TRANSACTIONAL,
                          GR_COMPRESSION_NONE, &size);
    validate(b, size, &create_time, GR_KERR_NONE);
    assert_int_equal(header_of(b, size).max_timestamp, ts[0]);
    assert_int_equal(header_of(b, size).attributes,
                     GR_BATCH_ATTR_CONTROL | GR_BATCH_ATTR_TRANSACTIONAL);
    free(b);
}

/* The reason names the record and the window; msg may be NULL. */
static void test_messages(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW, NOW + 2 * HOUR};
    size_t size;
    uint8_t *b = build_plain(ts, 2, NOW, GR_COMPRESSION_NONE, &size);
    char msg[200];
    assert_int_equal(
        gr_batch_timestamps_validate(b, size, &create_time, NULL, NULL, msg, sizeof msg),
        GR_KERR_INVALID_TIMESTAMP);
    char want[200];
    snprintf(want, sizeof want,
             "Timestamp %lld of message with offset 1 is out of range. The timestamp "
             "should be within [%lld, %lld]",
             (long long)(NOW + 2 * HOUR), (long long)(NOW - HOUR), (long long)(NOW + HOUR));
    assert_string_equal(msg, want);
    assert_int_equal(gr_batch_timestamps_validate(b, size, &create_time, NULL, NULL, NULL, 0),
                     GR_KERR_INVALID_TIMESTAMP);
    /* An unbounded window's upper end saturates instead of overflowing. */
    gr_batch_timestamp_policy_t p = create_time;
    p.after_max_ms = INT64_MAX;
    const int64_t old[] = {NOW, 0};
    free(b);
    b = build_plain(old, 2, NOW, GR_COMPRESSION_NONE, &size);
    assert_int_equal(gr_batch_timestamps_validate(b, size, &p, NULL, NULL, msg, sizeof msg),
                     GR_KERR_INVALID_TIMESTAMP);
    assert_non_null(strstr(msg, "9223372036854775807]"));
    assert_non_null(strstr(msg, "Timestamp 0 of message with offset 1 "));
    free(b);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Makes batchLength and the CRC agree with size, as a careful forger would. */
static void fix_framing(uint8_t *b, size_t size)
{
    put_be32(b + GR_RECORD_BATCH_OFFSET_BATCH_LEN, (uint32_t)(size - GR_RECORD_BATCH_LOG_OVERHEAD));
    put_be32(b + GR_RECORD_BATCH_OFFSET_CRC, gr_batch_compute_crc(b, size));
}

/*
 * Truncated batches (CORRUPT_MESSAGE), truncated records under a fixed CRC
 * (INVALID_RECORD, or CORRUPT_MESSAGE for compressed bytes that no longer
 * decompress), under every policy: refused, untouched, no overrun.
 */
static void test_truncated(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW - 3, NOW - 1, NOW - 2};
    const gr_batch_timestamp_policy_t *policies[] = {&create_time, &append_time};
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        uint8_t *b = build_plain(ts, 3, -1, codecs[c], &size);
        for (size_t k = 0; k < 2; k++) {
            for (size_t cut = 0; cut < size; cut++) {
                uint8_t *p = copy_exact(b, cut);
                validate(p, cut, policies[k], GR_KERR_CORRUPT_MESSAGE);
                if (cut >= GR_RECORD_BATCH_HEADER_SIZE) {
                    fix_framing(p, cut);
                    uint8_t *before = copy_exact(p, cut);
                    gr_kerr_t err =
                        gr_batch_timestamps_validate(p, cut, policies[k], NULL, NULL, NULL, 0);
                    if (codecs[c] == GR_COMPRESSION_NONE)
                        assert_int_equal(err, GR_KERR_INVALID_RECORD);
                    else
                        assert_true(err == GR_KERR_CORRUPT_MESSAGE ||
                                    err == GR_KERR_INVALID_RECORD);
                    assert_memory_equal(before, p, cut);
                    free(before);
                }
                free(p);
            }
        }
        free(b);
    }
}

/* A records count that does not match the records: INVALID_RECORD, untouched. */
static void test_count_mismatch(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW - 3, NOW - 1, NOW - 2};
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        for (int32_t count = 1; count <= 5; count++) {
            if (count == 3)
                continue;
            size_t size;
            uint8_t *b = build_plain(ts, 3, -1, codecs[c], &size);
            put_be32(b + GR_RECORD_BATCH_HEADER_SIZE - 4, (uint32_t)count);
            put_be32(b + GR_RECORD_BATCH_OFFSET_ATTRS + 2, (uint32_t)(count - 1));
            fix_framing(b, size);
            validate(b, size, &create_time, GR_KERR_INVALID_RECORD);
            /* lastOffsetDelta alone wrong */
            put_be32(b + GR_RECORD_BATCH_HEADER_SIZE - 4, 3);
            fix_framing(b, size);
            validate(b, size, &create_time, GR_KERR_INVALID_RECORD);
            free(b);
        }
    }
}

/* Random records sections and flipped bytes under valid framing: no crash, no overrun. */
static void test_garbage(void **state)
{
    (void)state;
    uint64_t seed = 4242;
    for (int round = 0; round < 3000; round++) {
        uint8_t buf[64];
        size_t len = (size_t)(next_rand(&seed) % sizeof buf);
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)next_rand(&seed);
        const int64_t ts[] = {NOW};
        size_t size;
        uint8_t *one = build_plain(ts, 1, NOW, GR_COMPRESSION_NONE, &size);
        size = GR_RECORD_BATCH_HEADER_SIZE + len;
        uint8_t *b = malloc(size);
        assert_non_null(b);
        memcpy(b, one, GR_RECORD_BATCH_HEADER_SIZE);
        memcpy(b + GR_RECORD_BATCH_HEADER_SIZE, buf, len);
        int32_t count = (int32_t)(1 + next_rand(&seed) % 4);
        put_be32(b + GR_RECORD_BATCH_HEADER_SIZE - 4, (uint32_t)count);
        put_be32(b + GR_RECORD_BATCH_OFFSET_ATTRS + 2, (uint32_t)(count - 1));
        fix_framing(b, size);
        uint8_t *before = copy_exact(b, size);
        gr_kerr_t err = gr_batch_timestamps_validate(b, size, &create_time, NULL, NULL, NULL, 0);
        assert_true(err == GR_KERR_NONE || err == GR_KERR_INVALID_RECORD ||
                    err == GR_KERR_INVALID_TIMESTAMP);
        if (err)
            assert_memory_equal(before, b, size);
        else
            assert_true(gr_batch_crc_ok(b, size));
        free(before);
        free(b);
        free(one);
    }
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        const int64_t ts[] = {NOW - 3, NOW - 1, NOW - 2};
        size_t size;
        uint8_t *b = build_plain(ts, 3, -1, codecs[c], &size);
        for (size_t i = GR_RECORD_BATCH_HEADER_SIZE; i < size; i++) {
            uint8_t *p = copy_exact(b, size);
            p[i] = (uint8_t)next_rand(&seed);
            fix_framing(p, size);
            (void)gr_batch_timestamps_validate(p, size, &create_time, NULL, NULL, NULL, 0);
            assert_true(gr_batch_crc_ok(p, size));
            free(p);
        }
        free(b);
    }
}

/* A CreateTime topic with a one-hour window that is also compacted. */
static const gr_batch_timestamp_policy_t compacted = {.log_append_time = false,
                                                      .before_max_ms = HOUR,
                                                      .after_max_ms = HOUR,
                                                      .now_ms = NOW,
                                                      .keys_required = true,
                                                      .topic = "t",
                                                      .partition = 3};

/*
 * Validates b under p into a fresh record error list in arena, expecting
 * want with exactly the records in bad (a bit per index) listed, in order;
 * b is untouched on an error.
 */
static gr_record_errors_t validate_errors(uint8_t *b, size_t size,
                                          const gr_batch_timestamp_policy_t *p, gr_arena_t *arena,
                                          gr_kerr_t want, unsigned bad)
{
    uint8_t *before = copy_exact(b, size);
    gr_record_errors_t errors;
    gr_record_errors_init(&errors, arena);
    char msg[200] = "";
    assert_int_equal(gr_batch_timestamps_validate(b, size, p, NULL, &errors, msg, sizeof msg),
                     want);
    if (want)
        assert_memory_equal(before, b, size);
    unsigned listed = 0;
    for (int32_t i = 0; i < errors.listed; i++) {
        assert_true(errors.list[i].index >= 0 && errors.list[i].index < MAX_RECORDS);
        assert_true(i == 0 || errors.list[i].index > errors.list[i - 1].index);
        listed |= 1u << errors.list[i].index;
    }
    assert_int_equal(listed, bad);
    assert_int_equal(errors.count, errors.listed);
    /* msg holds the first bad record's reason. */
    if (errors.listed)
        assert_string_equal(msg, errors.list[0].message);
    free(before);
    return errors;
}

/* Records without a key on a compacted topic: each named, one shared reason, any codec. */
static void test_record_errors_keys(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW, NOW, NOW, NOW, NOW, NOW, NOW};
    const unsigned nulls = (1u << 1) | (1u << 4) | (1u << 6);
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        gr_arena_t arena;
        gr_arena_init(&arena);
        size_t size;
        uint8_t *b = build_keys(ts, 7, NOW, NOW, 0, nulls, codecs[c], &size);
        gr_record_errors_t e =
            validate_errors(b, size, &compacted, &arena, GR_KERR_INVALID_RECORD, nulls);
        for (int32_t i = 0; i < e.listed; i++)
            assert_string_equal(e.list[i].message, "Compacted topic cannot accept message "
                                                   "without key in topic partition t-3");
        assert_ptr_equal(e.list[0].message, e.list[2].message);
        /* Not compacted: the same batch is fine. */
        validate_errors(b, size, &create_time, &arena, GR_KERR_NONE, 0);
        free(b);
        gr_arena_fini(&arena);
    }
}

/*
 * Both rules broken: INVALID_TIMESTAMP, every bad record named, a record
 * breaking both named for its key (Kafka checks the key first); the offset
 * in a timestamp reason is the client's base offset plus the record's delta.
 */
static void test_record_errors_mixed(void **state)
{
    (void)state;
    gr_arena_t arena;
    gr_arena_init(&arena);
    const int64_t ts[] = {NOW, NOW, NOW + 2 * HOUR, NOW, NOW, NOW - 2 * HOUR};
    size_t size;
    uint8_t *b = build_keys(ts, 6, NOW, NOW, 0, (1u << 1) | (1u << 2), GR_COMPRESSION_ZSTD, &size);
    gr_batch_set_base_offset(b, 40); /* outside the CRC */
    gr_record_errors_t e = validate_errors(b, size, &compacted, &arena, GR_KERR_INVALID_TIMESTAMP,
                                           (1u << 1) | (1u << 2) | (1u << 5));
    assert_non_null(strstr(e.list[1].message, "without key in topic partition t-3"));
    char want[200];
    snprintf(want, sizeof want,
             "Timestamp %lld of message with offset 45 is out of range. The timestamp should be "
             "within [%lld, %lld]",
             (long long)(NOW - 2 * HOUR), (long long)(NOW - HOUR), (long long)(NOW + HOUR));
    assert_string_equal(e.list[2].message, want);
    free(b);
    gr_arena_fini(&arena);
}

/* A client batch claiming LogAppendTime on a LogAppendTime topic: every record, as Java prints it.
 */
static void test_record_errors_append_time(void **state)
{
    (void)state;
    gr_arena_t arena;
    gr_arena_init(&arena);
    const int64_t ts[] = {NOW - 1, NOW};
    size_t size;
    uint8_t *b =
        build_ts(ts, 2, NOW - 1, NOW, GR_BATCH_ATTR_LOG_APPEND_TIME, GR_COMPRESSION_NONE, &size);
    gr_record_errors_t e =
        validate_errors(b, size, &append_time, &arena, GR_KERR_INVALID_TIMESTAMP, 3);
    char want[200];
    snprintf(want, sizeof want,
             "Invalid timestamp type in message DefaultRecord(offset=1, timestamp=%lld, key=1 "
             "bytes, value=2 bytes). Producer should not set timestamp type to LogAppendTime.",
             (long long)NOW);
    assert_string_equal(e.list[1].message, want);
    free(b);
    gr_arena_fini(&arena);
}

/*
 * A malformed record after bad ones: the batch is refused for its format
 * and no record is named (Kafka names none for a malformed batch); a
 * control batch's records are not checked at all.
 */
static void test_record_errors_dropped(void **state)
{
    (void)state;
    gr_arena_t arena;
    gr_arena_init(&arena);
    const int64_t ts[] = {NOW, NOW, NOW};
    size_t size;
    uint8_t *b = build_keys(ts, 3, NOW, NOW, 0, 1u, GR_COMPRESSION_NONE, &size);
    fix_framing(b, size - 1); /* the last record cut short */
    gr_record_errors_t e =
        validate_errors(b, size - 1, &compacted, &arena, GR_KERR_INVALID_RECORD, 0);
    assert_int_equal(e.count, 0);
    free(b);
    b = build_keys(ts, 1, NOW, NOW, GR_BATCH_ATTR_CONTROL | GR_BATCH_ATTR_TRANSACTIONAL, 1u,
                   GR_COMPRESSION_NONE, &size);
    validate_errors(b, size, &compacted, &arena, GR_KERR_NONE, 0);
    free(b);
    gr_arena_fini(&arena);
}

/* gr_batch_set_max_timestamp changes only what differs, CRC included. */
static void test_set_max_timestamp(void **state)
{
    (void)state;
    const int64_t ts[] = {NOW - 1, NOW};
    size_t size;
    uint8_t *b = build_plain(ts, 2, NOW, GR_COMPRESSION_SNAPPY, &size);
    uint8_t *before = copy_exact(b, size);
    assert_false(gr_batch_set_max_timestamp(b, size, false, NOW));
    assert_memory_equal(before, b, size);
    assert_true(gr_batch_set_max_timestamp(b, size, true, NOW));
    assert_true(gr_batch_crc_ok(b, size));
    assert_int_equal(header_of(b, size).attributes,
                     GR_BATCH_ATTR_LOG_APPEND_TIME | GR_COMPRESSION_SNAPPY);
    assert_true(gr_batch_set_max_timestamp(b, size, false, NOW));
    assert_memory_equal(before, b, size);
    assert_true(gr_batch_set_max_timestamp(b, size, false, -1));
    assert_true(gr_batch_crc_ok(b, size));
    assert_int_equal(header_of(b, size).max_timestamp, -1);
    free(before);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_recomputed),
        cmocka_unit_test(test_right_header_untouched),
        cmocka_unit_test(test_first_record_with_max),
        cmocka_unit_test(test_no_timestamp_records),
        cmocka_unit_test(test_each_record_checked),
        cmocka_unit_test(test_window_edges),
        cmocka_unit_test(test_extreme_values),
        cmocka_unit_test(test_log_append_time),
        cmocka_unit_test(test_client_claims_log_append_time),
        cmocka_unit_test(test_control_batch),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_count_mismatch),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_record_errors_keys),
        cmocka_unit_test(test_record_errors_mixed),
        cmocka_unit_test(test_record_errors_append_time),
        cmocka_unit_test(test_record_errors_dropped),
        cmocka_unit_test(test_set_max_timestamp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
