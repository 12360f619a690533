/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Record batches: building, validating and iterating batches for every
 * codec; batches written by other implementations (kafka-python 2.0.2,
 * librdkafka 2.0.2 with every codec); every truncated prefix and every
 * flipped byte of a valid batch; malformed counts, offset deltas and
 * records; the in-place rewrites.
 *
 * Batches under test are copied into exact-size heap buffers, so any read
 * past their end is caught when run under AddressSanitizer.
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

#include "protocol/records.h"

static const gr_compression_t codecs[] = {GR_COMPRESSION_NONE, GR_COMPRESSION_GZIP,
                                          GR_COMPRESSION_SNAPPY, GR_COMPRESSION_LZ4,
                                          GR_COMPRESSION_ZSTD};
#define CODEC_COUNT  (sizeof codecs / sizeof codecs[0])
#define BASE_TS      1700000000000LL
#define RECORD_COUNT 3

/*
 * kafka-python 2.0.2's DefaultRecordBatchBuilder, uncompressed and gzip, with
 * the records of make_records(): (k1, hello, [h1: v1]) at +0 ms,
 * (null, "world" x 10, []) at +5 ms, ("", null, [a: null, bb: ""]) at +9 ms.
 */
static const uint8_t python_plain[] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8c, 0x00, 0x00, 0x00, 0x00,
    0x02, 0x47, 0xdf, 0x9a, 0x55, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x8b, 0xcf,
    0xe5, 0x68, 0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x09, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x03, 0x26, 0x00, 0x00,
    0x00, 0x04, 0x6b, 0x31, 0x0a, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x02, 0x04, 0x68, 0x31, 0x04, 0x76,
    0x31, 0x70, 0x00, 0x0a, 0x02, 0x01, 0x64, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x77, 0x6f, 0x72, 0x6c,
    0x64, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x77, 0x6f, 0x72, 0x6c, 0x64,
    0x77, 0x6f, 0x72, 0x6c, 0x64, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x77,
    0x6f, 0x72, 0x6c, 0x64, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x00, 0x1a, 0x00, 0x12, 0x04, 0x00, 0x01,
    0x04, 0x02, 0x61, 0x01, 0x04, 0x62, 0x62, 0x00};

static const uint8_t python_gzip[] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x74, 0x00, 0x00, 0x00, 0x00,
    0x02, 0xc5, 0x1f, 0x19, 0x90, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x8b, 0xcf,
    0xe5, 0x68, 0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x09, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x03, 0x1f, 0x8b, 0x08,
    0x00, 0x19, 0xfd, 0x0f, 0x6b, 0x02, 0xff, 0x53, 0x63, 0x60, 0x60, 0x60, 0xc9, 0x36, 0xe4, 0xca,
    0x48, 0xcd, 0xc9, 0xc9, 0x67, 0x62, 0xc9, 0x30, 0x64, 0x29, 0x33, 0x2c, 0x60, 0xe0, 0x62, 0x62,
    0x4c, 0x29, 0xcf, 0x2f, 0xca, 0x21, 0x8d, 0x60, 0x90, 0x62, 0x10, 0x62, 0x61, 0x60, 0x64, 0x61,
    0x4a, 0x64, 0x64, 0x49, 0x4a, 0x62, 0x00, 0x00, 0x31, 0x7f, 0xf6, 0x57, 0x5b, 0x00, 0x00, 0x00};

/*
 * Produce batches written by librdkafka 2.0.2 (kcat 1.7.1 -z <codec>, captured on the
 * wire): keys c1, c2, c3; values "<codec> value one", "<codec> value two" and
 * 3000 'x'. Snappy here is raw (librdkafka's framing), not xerial.
 */
static const char *const librdkafka_batches[] = {
    /* gzip */
    "00000000000000000000008800000000020069d658000100000002000001a236880a34000001a236880a34ff"
    "ffffffffffffffffffffffffff000000031f8b0800000000000003d36160606049369449afca2c50284bcc29"
    "4d55c8cf4b65d061606062493642162e29cf6768d207aa664936fea057310a46c1281805a360148c8251300a"
    "46c12818f4800100afb09c38f10b0000",
    /* snappy */
    "0000000000000000000000f600000000029a16c586000200000002000001a236881d53000001a236881d53ff"
    "ffffffffffffffffffffffffff00000003f5177c3000000004633120736e617070792076616c7565206f6e65"
    "00300000020463323619003874776f00822f000004046333f02e78fe0100fe0100fe0100fe0100fe0100fe01"
    "00fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe"
    "0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100"
    "fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100fe0100da01000000",
    /* lz4 */
    "00000000000000000000008600000000026641c21a000300000002000001a2368831d5000001a2368831d5ff"
    "ffffffffffffffffffffffffff0000000304224d1860408246000000f70e2a0000000463311a6c7a34207661"
    "6c7565206f6e65002a0000020463321600ff0074776f00822f000004046333f02e780100ffffffffffffffff"
    "ffffffab50787878780000000000",
    /* zstd */
    "000000000000000000000073000000000267280828000400000002000001a2368843e9000001a2368843eaff"
    "ffffffffffffffffffffffffff0000000328b52ffd0058cd0100e4022c0000000463311c7a7374642076616c"
    "7565206f6e65002c00000204633274776f00822f000204046333f02e78000200b4c3f955e5661e",
};
static const gr_compression_t librdkafka_codecs[] = {GR_COMPRESSION_GZIP, GR_COMPRESSION_SNAPPY,
                                                     GR_COMPRESSION_LZ4, GR_COMPRESSION_ZSTD};

/* Raw headers: [h1: v1] and [a: null, bb: ""]. */
static const uint8_t headers0[] = {0x04, 'h', '1', 0x04, 'v', '1'};
static const uint8_t headers2[] = {0x02, 'a', 0x01, 0x04, 'b', 'b', 0x00};
static const char world10[] = "worldworldworldworldworldworldworldworldworldworld";

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static gr_bytes_t bytes_of(const char *s)
{
    gr_bytes_t b = {(const uint8_t *)s, s ? (int32_t)strlen(s) : GR_NULL_LEN};
    return b;
}

static void make_records(gr_record_t recs[RECORD_COUNT])
{
    memset(recs, 0, sizeof(gr_record_t) * RECORD_COUNT);
    recs[0].key = bytes_of("k1");
    recs[0].value = bytes_of("hello");
    recs[0].header_count = 1;
    recs[0].headers = headers0;
    recs[0].headers_len = sizeof headers0;
    recs[1].timestamp_delta = 5;
    recs[1].offset_delta = 1;
    recs[1].key = bytes_of(NULL);
    recs[1].value = bytes_of(world10);
    recs[2].timestamp_delta = 9;
    recs[2].offset_delta = 2;
    recs[2].key = bytes_of("");
    recs[2].value = bytes_of(NULL);
    recs[2].header_count = 2;
    recs[2].headers = headers2;
    recs[2].headers_len = sizeof headers2;
}

/* The header a producer without idempotence sends (as kafka-python does). */
static gr_batch_header_t make_header(int count)
{
    gr_batch_header_t h;
    memset(&h, 0, sizeof h);
    h.last_offset_delta = count - 1;
    h.base_timestamp = BASE_TS;
    h.max_timestamp = BASE_TS + 9;
    h.producer_id = -1;
    h.producer_epoch = -1;
    h.base_sequence = -1;
    return h;
}

static uint8_t *copy_exact(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    assert_non_null(c);
    if (n)
        memcpy(c, p, n);
    return c;
}

/* Builds a batch into an exact-size heap buffer. */
static uint8_t *build(const gr_batch_header_t *h, const gr_record_t *recs, int count,
                      gr_compression_t codec, size_t *size)
{
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_batch_build(&w, h, recs, count, codec), 0);
    uint8_t *b = copy_exact(w.buf, w.len);
    *size = w.len;
    gr_writer_fini(&w);
    return b;
}

static uint8_t *build_test_batch(gr_compression_t codec, size_t *size)
{
    gr_record_t recs[RECORD_COUNT];
    make_records(recs);
    gr_batch_header_t h = make_header(RECORD_COUNT);
    return build(&h, recs, RECORD_COUNT, codec, size);
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

/* A batch of count records whose records section is the given raw bytes. */
static uint8_t *wrap_records(const uint8_t *records, size_t len, int32_t count, size_t *size)
{
    gr_batch_header_t h = make_header(count);
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_batch_build(&w, &h, NULL, 0, GR_COMPRESSION_NONE), 0);
    gr_write_raw(&w, records, len);
    assert_int_equal(w.err, 0);
    put_be32(w.buf + GR_RECORD_BATCH_HEADER_SIZE - 4, (uint32_t)count);
    uint8_t *b = copy_exact(w.buf, w.len);
    *size = w.len;
    gr_writer_fini(&w);
    fix_framing(b, *size);
    return b;
}

/* Checks the records of a batch holding make_records()'s records. */
static void check_records(const uint8_t *batch, size_t size)
{
    uint8_t *plain;
    size_t plain_len;
    assert_int_equal(gr_batch_decompress(batch, size, &plain, &plain_len), 0);
    gr_record_iter_t it;
    gr_record_t rec;
    gr_record_iter_init(&it, plain, plain_len, RECORD_COUNT);

    assert_int_equal(gr_record_iter_next(&it, &rec), 1);
    assert_int_equal(rec.offset_delta, 0);
    assert_int_equal(rec.timestamp_delta, 0);
    assert_int_equal(rec.key.len, 2);
    assert_memory_equal(rec.key.ptr, "k1", 2);
    assert_int_equal(rec.value.len, 5);
    assert_memory_equal(rec.value.ptr, "hello", 5);
    assert_int_equal(rec.header_count, 1);
    assert_int_equal(rec.headers_len, sizeof headers0);
    gr_reader_t hr;
    gr_str_t hk;
    gr_bytes_t hv;
    gr_reader_init(&hr, rec.headers, rec.headers_len);
    assert_int_equal(gr_record_header_next(&hr, &hk, &hv), 1);
    assert_true(gr_str_eq_c(hk, "h1"));
    assert_int_equal(hv.len, 2);
    assert_memory_equal(hv.ptr, "v1", 2);
    assert_int_equal(gr_record_header_next(&hr, &hk, &hv), 0);

    assert_int_equal(gr_record_iter_next(&it, &rec), 1);
    assert_int_equal(rec.offset_delta, 1);
    assert_int_equal(rec.timestamp_delta, 5);
    assert_int_equal(rec.key.len, GR_NULL_LEN);
    assert_int_equal(rec.value.len, 50);
    assert_memory_equal(rec.value.ptr, world10, 50);
    assert_int_equal(rec.header_count, 0);
    assert_int_equal(rec.headers_len, 0);

    assert_int_equal(gr_record_iter_next(&it, &rec), 1);
    assert_int_equal(rec.offset_delta, 2);
    assert_int_equal(rec.timestamp_delta, 9);
    assert_int_equal(rec.key.len, 0);
    assert_non_null(rec.key.ptr);
    assert_int_equal(rec.value.len, GR_NULL_LEN);
    assert_int_equal(rec.header_count, 2);
    gr_reader_init(&hr, rec.headers, rec.headers_len);
    assert_int_equal(gr_record_header_next(&hr, &hk, &hv), 1);
    assert_true(gr_str_eq_c(hk, "a"));
    assert_int_equal(hv.len, GR_NULL_LEN);
    assert_int_equal(gr_record_header_next(&hr, &hk, &hv), 1);
    assert_true(gr_str_eq_c(hk, "bb"));
    assert_int_equal(hv.len, 0);
    assert_int_equal(gr_record_header_next(&hr, &hk, &hv), 0);

    assert_int_equal(gr_record_iter_next(&it, &rec), 0);
    assert_int_equal(gr_record_iter_next(&it, &rec), 0);
    assert_ptr_equal(it.p, it.end);
    free(plain);
}

static void test_build_and_validate_each_codec(void **state)
{
    (void)state;
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        uint8_t *b = build_test_batch(codecs[c], &size);
        gr_batch_header_t h;
        assert_int_equal(gr_batch_header_parse(b, size, &h), 0);
        assert_int_equal(gr_batch_size(&h), (int64_t)size);
        assert_int_equal(h.magic, 2);
        assert_int_equal(gr_batch_compression(&h), codecs[c]);
        assert_int_equal(h.records_count, RECORD_COUNT);
        assert_int_equal(h.last_offset_delta, RECORD_COUNT - 1);
        assert_int_equal(h.base_timestamp, BASE_TS);
        assert_int_equal(h.producer_id, -1);
        assert_true(gr_batch_crc_ok(b, size));
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_NONE);
        check_records(b, size);
        free(b);
    }
}

/* Batches from kafka-python validate, and ours are byte-identical to its. */
static void test_other_implementation(void **state)
{
    (void)state;
    uint8_t *plain = copy_exact(python_plain, sizeof python_plain);
    uint8_t *gz = copy_exact(python_gzip, sizeof python_gzip);
    assert_int_equal(gr_batch_validate(plain, sizeof python_plain), GR_KERR_NONE);
    assert_int_equal(gr_batch_validate(gz, sizeof python_gzip), GR_KERR_NONE);
    check_records(plain, sizeof python_plain);
    check_records(gz, sizeof python_gzip);

    size_t size;
    uint8_t *ours = build_test_batch(GR_COMPRESSION_NONE, &size);
    assert_int_equal(size, sizeof python_plain);
    assert_memory_equal(ours, python_plain, size);
    free(ours);
    free(plain);
    free(gz);
}

/* Decodes a hex string into an exact-size heap buffer. */
static uint8_t *from_hex(const char *hex, size_t *len)
{
    size_t n = strlen(hex) / 2;
    uint8_t *p = malloc(n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        p[i] = (uint8_t)v;
    }
    *len = n;
    return p;
}

static void test_librdkafka_batches(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof librdkafka_codecs / sizeof librdkafka_codecs[0]; i++) {
        size_t size;
        uint8_t *b = from_hex(librdkafka_batches[i], &size);
        gr_batch_header_t h;
        assert_int_equal(gr_batch_header_parse(b, size, &h), 0);
        assert_int_equal(gr_batch_compression(&h), librdkafka_codecs[i]);
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_NONE);

        uint8_t *plain;
        size_t plain_len;
        assert_int_equal(gr_batch_decompress(b, size, &plain, &plain_len), 0);
        gr_record_iter_t it;
        gr_record_t rec;
        gr_record_iter_init(&it, plain, plain_len, h.records_count);
        const char *codec = gr_compression_name(librdkafka_codecs[i]);
        char want[64];
        for (int r = 0; r < 3; r++) {
            assert_int_equal(gr_record_iter_next(&it, &rec), 1);
            assert_int_equal(rec.offset_delta, r);
            assert_int_equal(rec.key.len, 2);
            assert_memory_equal(rec.key.ptr, r == 0 ? "c1" : r == 1 ? "c2" : "c3", 2);
            if (r < 2) {
                snprintf(want, sizeof want, "%s value %s", codec, r == 0 ? "one" : "two");
                assert_int_equal(rec.value.len, (int32_t)strlen(want));
                assert_memory_equal(rec.value.ptr, want, strlen(want));
            } else {
                assert_int_equal(rec.value.len, 3000);
                assert_int_equal(rec.value.ptr[2999], 'x');
            }
        }
        assert_int_equal(gr_record_iter_next(&it, &rec), 0);

        /* Recompressing with each codec keeps the records. */
        gr_record_t recs[3];
        gr_record_iter_init(&it, plain, plain_len, h.records_count);
        for (int r = 0; r < 3; r++)
            assert_int_equal(gr_record_iter_next(&it, &recs[r]), 1);
        for (size_t c = 0; c < CODEC_COUNT; c++) {
            size_t size2;
            uint8_t *b2 = build(&h, recs, 3, codecs[c], &size2);
            assert_int_equal(gr_batch_validate(b2, size2), GR_KERR_NONE);
            uint8_t *plain2;
            size_t plain2_len;
            assert_int_equal(gr_batch_decompress(b2, size2, &plain2, &plain2_len), 0);
            assert_int_equal(plain2_len, plain_len);
            assert_memory_equal(plain2, plain, plain_len);
            free(plain2);
            free(b2);
        }
        free(plain);
        free(b);
    }
}

static void test_truncated_prefixes(void **state)
{
    (void)state;
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        uint8_t *b = build_test_batch(codecs[c], &size);
        for (size_t cut = 0; cut < size; cut++) {
            uint8_t *p = copy_exact(b, cut);
            assert_int_equal(gr_batch_validate(p, cut), GR_KERR_CORRUPT_MESSAGE);
            gr_batch_header_t h;
            int err = gr_batch_header_parse(p, cut, &h);
            assert_int_equal(err, cut < GR_RECORD_BATCH_HEADER_SIZE ? -ENODATA : 0);
            uint8_t *out = NULL;
            size_t out_len;
            if (gr_batch_decompress(p, cut, &out, &out_len) == 0)
                free(out);
            free(p);
        }
        free(b);
    }
}

/*
 * Prefixes whose batchLength and CRC are made to match: the framing is
 * right, so the damage is found in the records themselves.
 */
static void test_truncated_records_with_valid_framing(void **state)
{
    (void)state;
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        uint8_t *b = build_test_batch(codecs[c], &size);
        for (size_t cut = GR_RECORD_BATCH_HEADER_SIZE; cut < size; cut++) {
            uint8_t *p = copy_exact(b, cut);
            fix_framing(p, cut);
            gr_kerr_t err = gr_batch_validate(p, cut);
            if (codecs[c] == GR_COMPRESSION_NONE)
                assert_int_equal(err, GR_KERR_INVALID_RECORD);
            else
                assert_true(err == GR_KERR_CORRUPT_MESSAGE || err == GR_KERR_INVALID_RECORD);
            free(p);
        }
        free(b);
    }
}

static void test_flipped_bytes(void **state)
{
    (void)state;
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        uint8_t *b = build_test_batch(codecs[c], &size);
        for (size_t i = 0; i < size; i++) {
            for (int bit = 0; bit < 8; bit += 3) {
                uint8_t *p = copy_exact(b, size);
                p[i] ^= (uint8_t)(1u << bit);
                gr_kerr_t err = gr_batch_validate(p, size);
                if (i < GR_RECORD_BATCH_OFFSET_BATCH_LEN ||
                    (i >= GR_RECORD_BATCH_OFFSET_EPOCH && i < GR_RECORD_BATCH_OFFSET_MAGIC))
                    assert_int_equal(err, GR_KERR_NONE); /* not covered by the CRC */
                else if (i == GR_RECORD_BATCH_OFFSET_MAGIC && (p[i] == 0 || p[i] == 1))
                    assert_int_equal(err, GR_KERR_INVALID_RECORD);
                else
                    assert_int_equal(err, GR_KERR_CORRUPT_MESSAGE);
                free(p);
            }
        }
        free(b);
    }
}

/*
 * Flipped bytes under a recomputed CRC: no overrun, and since the header and
 * framing stay intact only the contents can be wrong (or, compressed, fail
 * to decompress or decompress to too much).
 */
static void test_flipped_bytes_valid_crc(void **state)
{
    (void)state;
    LargestIntegralType plain[] = {GR_KERR_NONE, GR_KERR_INVALID_RECORD};
    LargestIntegralType compressed[] = {GR_KERR_NONE, GR_KERR_INVALID_RECORD,
                                        GR_KERR_CORRUPT_MESSAGE, GR_KERR_MESSAGE_TOO_LARGE};
    uint64_t seed = 77;
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        uint8_t *b = build_test_batch(codecs[c], &size);
        for (size_t i = GR_RECORD_BATCH_HEADER_SIZE; i < size; i++) {
            for (int round = 0; round < 4; round++) {
                uint8_t *p = copy_exact(b, size);
                p[i] = (uint8_t)next_rand(&seed);
                fix_framing(p, size);
                gr_kerr_t err = gr_batch_validate(p, size);
                if (codecs[c] == GR_COMPRESSION_NONE)
                    assert_in_set(err, plain, sizeof plain / sizeof plain[0]);
                else
                    assert_in_set(err, compressed, sizeof compressed / sizeof compressed[0]);
                free(p);
            }
        }
        free(b);
    }
}

static void test_bad_offset_deltas(void **state)
{
    (void)state;
    static const int32_t bad[][RECORD_COUNT] = {
        {0, 2, 1}, {1, 2, 3}, {0, 0, 1}, {0, 1, 3}, {-1, 0, 1}};
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            gr_record_t recs[RECORD_COUNT];
            make_records(recs);
            for (int i = 0; i < RECORD_COUNT; i++)
                recs[i].offset_delta = bad[k][i];
            gr_batch_header_t h = make_header(RECORD_COUNT);
            size_t size;
            uint8_t *b = build(&h, recs, RECORD_COUNT, codecs[c], &size);
            assert_int_equal(gr_batch_validate(b, size), GR_KERR_INVALID_RECORD);
            free(b);
        }
    }
}

static void test_bad_counts(void **state)
{
    (void)state;
    gr_record_t recs[RECORD_COUNT];
    make_records(recs);
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        /* lastOffsetDelta not matching the count. */
        gr_batch_header_t h = make_header(RECORD_COUNT);
        h.last_offset_delta = RECORD_COUNT;
        uint8_t *b = build(&h, recs, RECORD_COUNT, codecs[c], &size);
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_INVALID_RECORD);
        free(b);
        /* An empty batch. */
        h = make_header(0);
        b = build(&h, recs, 0, codecs[c], &size);
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_INVALID_RECORD);
        free(b);
        /* Fewer records than there are (bytes left over), and more. */
        for (int32_t count = 1; count <= RECORD_COUNT + 2; count++) {
            if (count == RECORD_COUNT)
                continue;
            b = build_test_batch(codecs[c], &size);
            put_be32(b + GR_RECORD_BATCH_HEADER_SIZE - 4, (uint32_t)count);
            put_be32(b + 23, (uint32_t)(count - 1)); /* lastOffsetDelta */
            fix_framing(b, size);
            assert_int_equal(gr_batch_validate(b, size), GR_KERR_INVALID_RECORD);
            free(b);
        }
        /* A huge count over three records must not loop or allocate. */
        b = build_test_batch(codecs[c], &size);
        put_be32(b + GR_RECORD_BATCH_HEADER_SIZE - 4, INT32_MAX);
        put_be32(b + 23, INT32_MAX - 1);
        fix_framing(b, size);
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_INVALID_RECORD);
        free(b);
    }
}

/* Records written by hand, each wrong in one way. */
static void test_bad_record_structure(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        uint8_t bytes[16];
        size_t len;
    } cases[] = {
        /* len 7: attrs, ts, od, key -1, value len 1 "x", 0 headers */
        {"valid", {0x0e, 0, 0, 0, 0x01, 0x02, 'x', 0x00}, 8},
        {"length one too long", {0x10, 0, 0, 0, 0x01, 0x02, 'x', 0x00, 0x00}, 9},
        {"length one too short", {0x0c, 0, 0, 0, 0x01, 0x02, 'x', 0x00}, 8},
        {"length past the end", {0x20, 0, 0, 0, 0x01, 0x02, 'x', 0x00}, 8},
        {"negative length", {0x01, 0, 0, 0, 0x01, 0x02, 'x', 0x00}, 8},
        {"key length -2", {0x0e, 0, 0, 0, 0x03, 0x02, 'x', 0x00}, 8},
        {"value past record", {0x0e, 0, 0, 0, 0x01, 0x04, 'x', 0x00}, 8},
        {"negative header count", {0x0e, 0, 0, 0, 0x01, 0x02, 'x', 0x01}, 8},
        {"null header key", {0x12, 0, 0, 0, 0x01, 0x02, 'x', 0x02, 0x01, 0x01}, 10},
        {"header value -2", {0x14, 0, 0, 0, 0x01, 0x02, 'x', 0x02, 0x02, 'k', 0x03}, 11},
        {"header count too big", {0x12, 0, 0, 0, 0x01, 0x02, 'x', 0x04, 0x02, 'k', 0x01}, 11},
        {"overlong varint", {0x0e, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01}, 10},
        {"no bytes", {0}, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t size;
        uint8_t *b = wrap_records(cases[k].bytes, cases[k].len, 1, &size);
        gr_kerr_t want = k == 0 ? GR_KERR_NONE : GR_KERR_INVALID_RECORD;
        if (gr_batch_validate(b, size) != want)
            fail_msg("case '%s': got %d", cases[k].what, gr_batch_validate(b, size));
        free(b);
    }
}

static void test_magic_and_codec(void **state)
{
    (void)state;
    size_t size;
    uint8_t *b = build_test_batch(GR_COMPRESSION_NONE, &size);
    b[GR_RECORD_BATCH_OFFSET_MAGIC] = 1;
    assert_int_equal(gr_batch_validate(b, size), GR_KERR_INVALID_RECORD);
    b[GR_RECORD_BATCH_OFFSET_MAGIC] = 3;
    assert_int_equal(gr_batch_validate(b, size), GR_KERR_CORRUPT_MESSAGE);
    b[GR_RECORD_BATCH_OFFSET_MAGIC] = 2;
    for (uint8_t codec = 5; codec <= 7; codec++) {
        b[GR_RECORD_BATCH_OFFSET_ATTRS + 1] = codec;
        fix_framing(b, size);
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_UNSUPPORTED_COMPRESSION_TYPE);
        uint8_t *out;
        size_t out_len;
        assert_int_equal(gr_batch_decompress(b, size, &out, &out_len), -ENOTSUP);
    }
    /* Plain records labelled as compressed do not decompress. */
    for (uint8_t codec = 1; codec <= 4; codec++) {
        b[GR_RECORD_BATCH_OFFSET_ATTRS + 1] = codec;
        fix_framing(b, size);
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_CORRUPT_MESSAGE);
    }
    free(b);
    /* A batchLength smaller than a header. */
    b = build_test_batch(GR_COMPRESSION_NONE, &size);
    put_be32(b + GR_RECORD_BATCH_OFFSET_BATCH_LEN, 10);
    gr_batch_header_t h;
    assert_int_equal(gr_batch_header_parse(b, size, &h), -EBADMSG);
    assert_int_equal(gr_batch_validate(b, size), GR_KERR_CORRUPT_MESSAGE);
    put_be32(b + GR_RECORD_BATCH_OFFSET_BATCH_LEN, 0xffffffffu);
    assert_int_equal(gr_batch_validate(b, size), GR_KERR_CORRUPT_MESSAGE);
    free(b);
}

/* A small batch that decompresses beyond the limit is refused. */
static void test_decompression_bomb(void **state)
{
    (void)state;
    size_t big = 2u << 20;
    uint8_t *zeros = calloc(1, big);
    assert_non_null(zeros);
    gr_record_t rec;
    memset(&rec, 0, sizeof rec);
    rec.key.len = GR_NULL_LEN;
    rec.value.ptr = zeros;
    rec.value.len = (int32_t)big;
    gr_batch_header_t h = make_header(1);
    size_t size;
    uint8_t *b = build(&h, &rec, 1, GR_COMPRESSION_ZSTD, &size);
    assert_true(size < 4096);
    assert_int_equal(gr_batch_validate_limit(b, size, 1u << 20), GR_KERR_MESSAGE_TOO_LARGE);
    assert_int_equal(gr_batch_validate(b, size), GR_KERR_NONE);
    free(b);
    free(zeros);
}

static void test_rewrites(void **state)
{
    (void)state;
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        size_t size;
        uint8_t *b = build_test_batch(codecs[c], &size);
        uint32_t crc = gr_batch_compute_crc(b, size);
        gr_batch_set_base_offset(b, 0x0102030405060708LL);
        gr_batch_set_leader_epoch(b, 42);
        assert_int_equal(gr_batch_compute_crc(b, size), crc);
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_NONE);
        gr_batch_header_t h;
        assert_int_equal(gr_batch_header_parse(b, size, &h), 0);
        assert_int_equal(h.base_offset, 0x0102030405060708LL);
        assert_int_equal(h.partition_leader_epoch, 42);

        gr_batch_set_log_append_time(b, size, BASE_TS + 1000);
        assert_int_equal(gr_batch_validate(b, size), GR_KERR_NONE);
        assert_int_equal(gr_batch_header_parse(b, size, &h), 0);
        assert_int_equal(h.max_timestamp, BASE_TS + 1000);
        assert_int_equal(h.base_timestamp, BASE_TS);
        assert_true(h.attributes & GR_BATCH_ATTR_LOG_APPEND_TIME);
        assert_int_equal(gr_batch_compression(&h), codecs[c]);
        free(b);
    }
}

static void test_build_header_fields(void **state)
{
    (void)state;
    gr_record_t recs[RECORD_COUNT];
    make_records(recs);
    gr_batch_header_t h = make_header(RECORD_COUNT);
    h.base_offset = 100;
    h.partition_leader_epoch = 3;
    h.attributes = GR_BATCH_ATTR_TRANSACTIONAL | GR_COMPRESSION_GZIP; /* codec bits replaced */
    h.producer_id = 9000;
    h.producer_epoch = 2;
    h.base_sequence = 17;
    size_t size;
    uint8_t *b = build(&h, recs, RECORD_COUNT, GR_COMPRESSION_LZ4, &size);
    gr_batch_header_t got;
    assert_int_equal(gr_batch_header_parse(b, size, &got), 0);
    assert_int_equal(got.base_offset, 100);
    assert_int_equal(got.partition_leader_epoch, 3);
    assert_int_equal(got.attributes, GR_BATCH_ATTR_TRANSACTIONAL | GR_COMPRESSION_LZ4);
    assert_int_equal(got.producer_id, 9000);
    assert_int_equal(got.producer_epoch, 2);
    assert_int_equal(got.base_sequence, 17);
    assert_int_equal(got.max_timestamp, BASE_TS + 9);
    assert_int_equal(gr_batch_validate(b, size), GR_KERR_NONE);
    free(b);

    /* Appending after other bytes leaves them alone and still frames right. */
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_raw(&w, "xyz", 3);
    assert_int_equal(gr_batch_build(&w, &h, recs, RECORD_COUNT, GR_COMPRESSION_ZSTD), 0);
    assert_memory_equal(w.buf, "xyz", 3);
    b = copy_exact(w.buf + 3, w.len - 3);
    assert_int_equal(gr_batch_validate(b, w.len - 3), GR_KERR_NONE);
    free(b);

    /* Refused inputs. */
    assert_int_equal(gr_batch_build(&w, &h, recs, -1, GR_COMPRESSION_NONE), -EINVAL);
    assert_int_equal(gr_batch_build(&w, &h, recs, 1, (gr_compression_t)6), -ENOTSUP);
    recs[0].key.len = -2;
    assert_int_equal(gr_batch_build(&w, &h, recs, 1, GR_COMPRESSION_NONE), -EINVAL);
    gr_writer_fini(&w);
}

static void test_iter_edges(void **state)
{
    (void)state;
    gr_record_iter_t it;
    gr_record_t rec;
    gr_record_iter_init(&it, NULL, 0, 0);
    assert_int_equal(gr_record_iter_next(&it, &rec), 0);
    gr_record_iter_init(&it, NULL, 0, 1);
    assert_int_equal(gr_record_iter_next(&it, &rec), -EBADMSG);
    assert_int_equal(gr_record_iter_next(&it, &rec), 0); /* stops after an error */

    uint8_t junk[3] = {0x7f, 0x7f, 0x7f};
    uint8_t *p = copy_exact(junk, sizeof junk);
    gr_record_iter_init(&it, p, sizeof junk, 5);
    assert_int_equal(gr_record_iter_next(&it, &rec), -EBADMSG);
    free(p);

    gr_reader_t r;
    gr_str_t k;
    gr_bytes_t v;
    uint8_t bad_header[] = {0x04, 'h'};
    gr_reader_init(&r, bad_header, sizeof bad_header);
    assert_int_equal(gr_record_header_next(&r, &k, &v), -EBADMSG);
}

/* Random records sections with valid framing: no crash, no overrun. */
static void test_random_records(void **state)
{
    (void)state;
    uint64_t seed = 2024;
    for (int round = 0; round < 3000; round++) {
        uint8_t buf[64];
        size_t len = (size_t)(next_rand(&seed) % sizeof buf);
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)next_rand(&seed);
        size_t size;
        uint8_t *b = wrap_records(buf, len, (int32_t)(1 + next_rand(&seed) % 4), &size);
        gr_kerr_t err = gr_batch_validate(b, size);
        assert_true(err == GR_KERR_NONE || err == GR_KERR_INVALID_RECORD);
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_validate_each_codec),
        cmocka_unit_test(test_other_implementation),
        cmocka_unit_test(test_librdkafka_batches),
        cmocka_unit_test(test_truncated_prefixes),
        cmocka_unit_test(test_truncated_records_with_valid_framing),
        cmocka_unit_test(test_flipped_bytes),
        cmocka_unit_test(test_flipped_bytes_valid_crc),
        cmocka_unit_test(test_bad_offset_deltas),
        cmocka_unit_test(test_bad_counts),
        cmocka_unit_test(test_bad_record_structure),
        cmocka_unit_test(test_magic_and_codec),
        cmocka_unit_test(test_decompression_bomb),
        cmocka_unit_test(test_rewrites),
        cmocka_unit_test(test_build_header_fields),
        cmocka_unit_test(test_iter_edges),
        cmocka_unit_test(test_random_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
