/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Primitive reader and writer: fixed-width integers, zig-zag varints and
 * varlongs at their edge values, unsigned varint overflow, classic and
 * compact strings, bytes and arrays with null lengths, tagged fields, and
 * reads past the end (sticky -ENODATA, never an out-of-bounds read: inputs
 * live in exact-size heap buffers so AddressSanitizer catches any overrun).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/reader.h"
#include "protocol/writer.h"

/* An exact-size heap copy of n bytes (caller frees), so overruns trip ASan. */
static uint8_t *heap_copy(const void *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    assert_non_null(c);
    if (n)
        memcpy(c, p, n);
    return c;
}

typedef struct varint_case {
    int64_t value;
    uint8_t bytes[10];
    size_t len;
} varint_case_t;

static const varint_case_t varint_cases[] = {
    {0, {0x00}, 1},
    {-1, {0x01}, 1},
    {1, {0x02}, 1},
    {63, {0x7e}, 1},
    {-64, {0x7f}, 1},
    {64, {0x80, 0x01}, 2},
    {-65, {0x81, 0x01}, 2},
    {150, {0xac, 0x02}, 2},
    {INT32_MAX, {0xfe, 0xff, 0xff, 0xff, 0x0f}, 5},
    {INT32_MIN, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
};

static const varint_case_t varlong_cases[] = {
    {0, {0x00}, 1},
    {-1, {0x01}, 1},
    {1, {0x02}, 1},
    {INT32_MAX, {0xfe, 0xff, 0xff, 0xff, 0x0f}, 5},
    {INT32_MIN, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
    {(int64_t)INT32_MAX + 1, {0x80, 0x80, 0x80, 0x80, 0x10}, 5},
    {INT64_MAX, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
    {INT64_MIN, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
};

static void test_varint_edges(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof varint_cases / sizeof varint_cases[0]; i++) {
        const varint_case_t *c = &varint_cases[i];
        gr_writer_t w;
        gr_writer_init(&w);
        gr_write_varint(&w, (int32_t)c->value);
        assert_int_equal(w.err, 0);
        assert_int_equal(w.len, c->len);
        assert_memory_equal(w.buf, c->bytes, c->len);
        assert_int_equal(gr_varint_size((int32_t)c->value), c->len);
        gr_writer_fini(&w);

        uint8_t *p = heap_copy(c->bytes, c->len);
        gr_reader_t r;
        gr_reader_init(&r, p, c->len);
        assert_int_equal(gr_read_varint(&r), (int32_t)c->value);
        assert_int_equal(r.err, 0);
        assert_int_equal(gr_reader_left(&r), 0);
        free(p);
    }
}

static void test_varlong_edges(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof varlong_cases / sizeof varlong_cases[0]; i++) {
        const varint_case_t *c = &varlong_cases[i];
        gr_writer_t w;
        gr_writer_init(&w);
        gr_write_varlong(&w, c->value);
        assert_int_equal(w.len, c->len);
        assert_memory_equal(w.buf, c->bytes, c->len);
        assert_int_equal(gr_varlong_size(c->value), c->len);
        gr_writer_fini(&w);

        uint8_t *p = heap_copy(c->bytes, c->len);
        gr_reader_t r;
        gr_reader_init(&r, p, c->len);
        assert_true(gr_read_varlong(&r) == c->value);
        assert_int_equal(r.err, 0);
        assert_int_equal(gr_reader_left(&r), 0);
        free(p);
    }
}

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_varint_round_trip(void **state)
{
    (void)state;
    uint64_t seed = 5;
    gr_writer_t w;
    gr_writer_init(&w);
    enum { N = 5000 };
    static int32_t v32[N];
    static int64_t v64[N];
    static uint32_t u32[N];
    size_t expect = 0;
    for (int i = 0; i < N; i++) {
        uint64_t x = next_rand(&seed);
        int shift = (int)(x % 64);
        v64[i] = (int64_t)(next_rand(&seed) >> shift) * ((x & 64) ? -1 : 1);
        v32[i] = (int32_t)(v64[i] >> 32);
        u32[i] = (uint32_t)v64[i];
        gr_write_varint(&w, v32[i]);
        gr_write_varlong(&w, v64[i]);
        gr_write_uvarint(&w, u32[i]);
        expect += gr_varint_size(v32[i]) + gr_varlong_size(v64[i]) + gr_uvarint_size(u32[i]);
    }
    assert_int_equal(w.err, 0);
    assert_int_equal(w.len, expect);
    gr_reader_t r;
    gr_reader_init(&r, w.buf, w.len);
    for (int i = 0; i < N; i++) {
        assert_int_equal(gr_read_varint(&r), v32[i]);
        assert_true(gr_read_varlong(&r) == v64[i]);
        assert_int_equal(gr_read_uvarint(&r), u32[i]);
    }
    assert_int_equal(r.err, 0);
    assert_int_equal(gr_reader_left(&r), 0);
    gr_writer_fini(&w);
}

/* Reads one varint of the given kind from bytes; returns the reader error. */
static int read_err(int kind, const uint8_t *bytes, size_t len, uint64_t *value)
{
    uint8_t *p = heap_copy(bytes, len);
    gr_reader_t r;
    gr_reader_init(&r, p, len);
    switch (kind) {
    case 0:
        *value = gr_read_uvarint(&r);
        break;
    case 1:
        *value = (uint64_t)(int64_t)gr_read_varint(&r);
        break;
    case 2:
        *value = gr_read_uvarlong(&r);
        break;
    default:
        *value = (uint64_t)gr_read_varlong(&r);
        break;
    }
    free(p);
    return r.err;
}

static void test_varint_overflow(void **state)
{
    (void)state;
    uint64_t v;
    static const uint8_t max32[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    static const uint8_t over32[] = {0xff, 0xff, 0xff, 0xff, 0x10};
    static const uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t max64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t cut[] = {0x80, 0x80};

    assert_int_equal(read_err(0, max32, sizeof max32, &v), 0);
    assert_int_equal(v, UINT32_MAX);
    assert_int_equal(read_err(0, over32, sizeof over32, &v), -EBADMSG);
    assert_int_equal(v, 0);
    assert_int_equal(read_err(1, over32, sizeof over32, &v), -EBADMSG);
    assert_int_equal(read_err(0, six, sizeof six, &v), -EBADMSG);
    assert_int_equal(read_err(1, six, sizeof six, &v), -EBADMSG);
    assert_int_equal(read_err(2, six, sizeof six, &v), 0); /* fine as a varlong */
    assert_int_equal(read_err(2, max64, sizeof max64, &v), 0);
    assert_true(v == UINT64_MAX);
    assert_int_equal(read_err(2, eleven, sizeof eleven, &v), -EBADMSG);
    assert_int_equal(read_err(3, eleven, sizeof eleven, &v), -EBADMSG);
    for (int kind = 0; kind < 4; kind++) {
        assert_int_equal(read_err(kind, cut, sizeof cut, &v), -ENODATA);
        assert_int_equal(read_err(kind, cut, 0, &v), -ENODATA);
    }
}

static void test_fixed_width(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_int8(&w, -2);
    gr_write_int16(&w, INT16_MIN);
    gr_write_uint16(&w, 0xbeef);
    gr_write_int32(&w, INT32_MIN);
    gr_write_uint32(&w, 0xdeadbeefu);
    gr_write_int64(&w, INT64_MIN);
    gr_write_float64(&w, -1.5);
    gr_write_bool(&w, true);
    gr_uuid_t u;
    for (int i = 0; i < 16; i++)
        u.b[i] = (uint8_t)(i * 17);
    gr_write_uuid(&w, u);
    assert_int_equal(w.len, 1 + 2 + 2 + 4 + 4 + 8 + 8 + 1 + 16);
    static const uint8_t head[] = {0xfe, 0x80, 0x00, 0xbe, 0xef, 0x80, 0x00, 0x00, 0x00, 0xde,
                                   0xad, 0xbe, 0xef, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x00, 0xbf, 0xf8, 0,    0,    0,    0,    0,    0};
    assert_memory_equal(w.buf, head, sizeof head);

    uint8_t *p = heap_copy(w.buf, w.len);
    gr_reader_t r;
    gr_reader_init(&r, p, w.len);
    assert_int_equal(gr_read_int8(&r), -2);
    assert_int_equal(gr_read_int16(&r), INT16_MIN);
    assert_int_equal(gr_read_uint16(&r), 0xbeef);
    assert_int_equal(gr_read_int32(&r), INT32_MIN);
    assert_int_equal(gr_read_uint32(&r), 0xdeadbeefu);
    assert_true(gr_read_int64(&r) == INT64_MIN);
    assert_true(gr_read_float64(&r) == -1.5);
    assert_true(gr_read_bool(&r));
    gr_uuid_t got = gr_read_uuid(&r);
    assert_memory_equal(got.b, u.b, 16);
    assert_int_equal(r.err, 0);
    assert_int_equal(gr_reader_left(&r), 0);
    /* One more read: past the end. */
    assert_int_equal(gr_read_int8(&r), 0);
    assert_int_equal(r.err, -ENODATA);
    free(p);
    gr_writer_fini(&w);
}

static void test_strings(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        bool compact;
        uint8_t bytes[8];
        size_t len;
    } cases[] = {
        {"abc", false, {0x00, 0x03, 'a', 'b', 'c'}, 5},
        {"", false, {0x00, 0x00}, 2},
        {NULL, false, {0xff, 0xff}, 2},
        {"abc", true, {0x04, 'a', 'b', 'c'}, 4},
        {"", true, {0x01}, 1},
        {NULL, true, {0x00}, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gr_writer_t w;
        gr_writer_init(&w);
        gr_str_t s = gr_str(cases[i].s);
        gr_write_string(&w, s, cases[i].compact);
        assert_int_equal(w.len, cases[i].len);
        assert_memory_equal(w.buf, cases[i].bytes, cases[i].len);
        assert_int_equal(gr_string_len_size(s.len, cases[i].compact) + (s.len > 0 ? s.len : 0),
                         cases[i].len);
        gr_writer_fini(&w);

        uint8_t *p = heap_copy(cases[i].bytes, cases[i].len);
        gr_reader_t r;
        gr_reader_init(&r, p, cases[i].len);
        gr_str_t got = gr_read_string(&r, cases[i].compact);
        assert_int_equal(r.err, 0);
        assert_true(gr_str_eq(got, s));
        if (!cases[i].s)
            assert_int_equal(got.len, GR_NULL_LEN);
        else
            assert_non_null(got.ptr);
        free(p);

        /* Every proper prefix fails with -ENODATA. */
        for (size_t cut = 0; cut < cases[i].len; cut++) {
            p = heap_copy(cases[i].bytes, cut);
            gr_reader_init(&r, p, cut);
            got = gr_read_string(&r, cases[i].compact);
            assert_int_equal(r.err, -ENODATA);
            assert_int_equal(got.len, 0);
            free(p);
        }
    }
}

static void test_bytes_and_arrays(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_bytes_t null_bytes = {NULL, GR_NULL_LEN};
    gr_bytes_t some = {(const uint8_t *)"\x00\x01\x02", 3};
    gr_write_bytes(&w, null_bytes, false);
    gr_write_bytes(&w, null_bytes, true);
    gr_write_bytes(&w, some, false);
    gr_write_bytes(&w, some, true);
    gr_write_array_len(&w, GR_NULL_LEN, false);
    gr_write_array_len(&w, GR_NULL_LEN, true);
    gr_write_array_len(&w, 2, true);
    gr_write_int8(&w, 1);
    gr_write_int8(&w, 2);
    static const uint8_t expect[] = {0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
                                     0x03, 0,    1,    2,    0x04, 0,    1,    2,
                                     0xff, 0xff, 0xff, 0xff, 0x00, 0x03, 1,    2};
    assert_int_equal(w.len, sizeof expect);
    assert_memory_equal(w.buf, expect, sizeof expect);

    uint8_t *p = heap_copy(w.buf, w.len);
    gr_reader_t r;
    gr_reader_init(&r, p, w.len);
    assert_int_equal(gr_read_bytes(&r, false).len, GR_NULL_LEN);
    assert_int_equal(gr_read_bytes(&r, true).len, GR_NULL_LEN);
    assert_true(gr_bytes_eq(gr_read_bytes(&r, false), some));
    assert_true(gr_bytes_eq(gr_read_bytes(&r, true), some));
    assert_int_equal(gr_read_array_len(&r, false), GR_NULL_LEN);
    assert_int_equal(gr_read_array_len(&r, true), GR_NULL_LEN);
    assert_int_equal(gr_read_array_len(&r, true), 2);
    assert_int_equal(gr_read_int8(&r), 1);
    assert_int_equal(gr_read_int8(&r), 2);
    assert_int_equal(r.err, 0);
    free(p);
    gr_writer_fini(&w);
}

static void test_bad_lengths(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        int kind; /* 0 string, 1 bytes, 2 array */
        bool compact;
        uint8_t bytes[8];
        size_t len;
        int err;
    } cases[] = {
        {"classic string -2", 0, false, {0xff, 0xfe}, 2, -EBADMSG},
        {"classic string past end", 0, false, {0x00, 0x05, 'a'}, 3, -ENODATA},
        {"classic string INT16_MAX", 0, false, {0x7f, 0xff}, 2, -ENODATA},
        {"compact string past end", 0, true, {0x06, 'a', 'b'}, 3, -ENODATA},
        {"compact string 2^32-1", 0, true, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5, -EBADMSG},
        {"classic bytes -2", 1, false, {0xff, 0xff, 0xff, 0xfe}, 4, -EBADMSG},
        {"classic bytes INT32_MIN", 1, false, {0x80, 0, 0, 0}, 4, -EBADMSG},
        {"classic bytes INT32_MAX", 1, false, {0x7f, 0xff, 0xff, 0xff}, 4, -ENODATA},
        {"compact bytes overlong", 1, true, {0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 6, -EBADMSG},
        {"array larger than input", 2, false, {0x00, 0x00, 0x10, 0x00, 1, 2}, 6, -ENODATA},
        {"compact array larger than input", 2, true, {0x7f, 1, 2}, 3, -ENODATA},
        {"array -5", 2, false, {0xff, 0xff, 0xff, 0xfb}, 4, -EBADMSG},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *p = heap_copy(cases[i].bytes, cases[i].len);
        gr_reader_t r;
        gr_reader_init(&r, p, cases[i].len);
        switch (cases[i].kind) {
        case 0:
            (void)gr_read_string(&r, cases[i].compact);
            break;
        case 1:
            (void)gr_read_bytes(&r, cases[i].compact);
            break;
        default:
            (void)gr_read_array_len(&r, cases[i].compact);
            break;
        }
        if (r.err != cases[i].err)
            fail_msg("%s: err %d, want %d", cases[i].what, r.err, cases[i].err);
        /* Sticky: nothing more is read once failed. */
        assert_int_equal(gr_read_int8(&r), 0);
        assert_int_equal(r.err, cases[i].err);
        assert_int_equal(gr_reader_left(&r), 0);
        free(p);
    }
}

/* A mixed structure: each proper prefix fails cleanly, in bounds. */
static void test_every_prefix(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_int16(&w, 3);
    gr_write_string(&w, gr_str("client-1"), true);
    gr_write_varlong(&w, INT64_MIN);
    gr_write_bytes(&w, (gr_bytes_t){(const uint8_t *)"payload", 7}, false);
    gr_write_uvarint(&w, 1); /* one tagged field */
    gr_write_uvarint(&w, 0);
    gr_write_uvarint(&w, 3);
    gr_write_raw(&w, "tag", 3);
    gr_write_uuid(&w, (gr_uuid_t){{1, 2, 3}});
    gr_write_int64(&w, 42);
    assert_int_equal(w.err, 0);

    for (size_t cut = 0; cut <= w.len; cut++) {
        uint8_t *p = heap_copy(w.buf, cut);
        gr_reader_t r;
        gr_reader_init(&r, p, cut);
        int16_t a = gr_read_int16(&r);
        gr_str_t s = gr_read_string(&r, true);
        int64_t v = gr_read_varlong(&r);
        gr_bytes_t b = gr_read_bytes(&r, false);
        gr_read_skip_tags(&r);
        gr_uuid_t u = gr_read_uuid(&r);
        int64_t last = gr_read_int64(&r);
        if (cut < w.len) {
            assert_int_equal(r.err, -ENODATA);
            assert_int_equal(last, 0);
        } else {
            assert_int_equal(r.err, 0);
            assert_int_equal(a, 3);
            assert_true(gr_str_eq_c(s, "client-1"));
            assert_true(v == INT64_MIN);
            assert_int_equal(b.len, 7);
            assert_int_equal(u.b[2], 3);
            assert_int_equal(last, 42);
        }
        free(p);
    }
    gr_writer_fini(&w);
}

static void test_skip_tags(void **state)
{
    (void)state;
    static const uint8_t tags[] = {0x02, 0x00, 0x03, 'a', 'b', 'c', 0x05, 0x00, 0x7e};
    uint8_t *p = heap_copy(tags, sizeof tags);
    gr_reader_t r;
    gr_reader_init(&r, p, sizeof tags);
    gr_read_skip_tags(&r);
    assert_int_equal(r.err, 0);
    assert_int_equal(gr_read_int8(&r), 0x7e);
    free(p);

    static const uint8_t too_many[] = {0x05, 0x00, 0x00};
    p = heap_copy(too_many, sizeof too_many);
    gr_reader_init(&r, p, sizeof too_many);
    gr_read_skip_tags(&r);
    assert_int_equal(r.err, -ENODATA);
    free(p);

    static const uint8_t long_tag[] = {0x01, 0x00, 0x7f, 'x'};
    p = heap_copy(long_tag, sizeof long_tag);
    gr_reader_init(&r, p, sizeof long_tag);
    gr_read_skip_tags(&r);
    assert_int_equal(r.err, -ENODATA);
    free(p);
}

static void test_raw_and_fail(void **state)
{
    (void)state;
    uint8_t *p = heap_copy("abcd", 4);
    gr_reader_t r;
    gr_reader_init(&r, p, 4);
    assert_ptr_equal(gr_read_raw(&r, 0), p);
    assert_ptr_equal(gr_read_raw(&r, 3), p);
    assert_null(gr_read_raw(&r, 2));
    assert_int_equal(r.err, -ENODATA);
    gr_reader_fail(&r, -EBADMSG); /* the first error stays */
    assert_int_equal(r.err, -ENODATA);
    free(p);

    p = heap_copy("abcd", 4);
    gr_reader_init(&r, p, 4);
    gr_reader_fail(&r, -EBADMSG);
    assert_int_equal(gr_reader_left(&r), 0);
    assert_int_equal(gr_read_int32(&r), 0);
    assert_int_equal(r.err, -EBADMSG);
    free(p);
}

static void test_writer(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    size_t pos = gr_write_reserve(&w, 4);
    gr_write_raw(&w, "body", 4);
    gr_writer_put_int32(&w, pos, 0x01020304);
    assert_memory_equal(w.buf,
                        "\x01\x02\x03\x04"
                        "body",
                        8);
    /* Growth across many writes keeps earlier bytes. */
    for (int i = 0; i < 10000; i++)
        gr_write_int32(&w, i);
    assert_int_equal(w.len, 8 + 40000);
    gr_reader_t r;
    gr_reader_init(&r, w.buf + 8, w.len - 8);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(gr_read_int32(&r), i);

    /* File-backed records become a hole counted in the total only. */
    gr_writer_reset(&w);
    int file_token;
    gr_records_t rec = {NULL, 1000, &file_token, 4096};
    gr_write_records(&w, &rec, true);
    assert_int_equal(w.len, gr_uvarint_size(1001));
    assert_int_equal(w.hole_count, 1);
    assert_int_equal(gr_writer_total(&w), (int64_t)w.len + 1000);

    /* A classic string longer than int16 cannot be written. */
    gr_writer_reset(&w);
    gr_write_string_len(&w, INT16_MAX + 1, false);
    assert_int_equal(w.err, -EINVAL);
    gr_write_int8(&w, 1);
    assert_int_equal(w.err, -EINVAL);
    gr_writer_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint_edges),      cmocka_unit_test(test_varlong_edges),
        cmocka_unit_test(test_varint_round_trip), cmocka_unit_test(test_varint_overflow),
        cmocka_unit_test(test_fixed_width),       cmocka_unit_test(test_strings),
        cmocka_unit_test(test_bytes_and_arrays),  cmocka_unit_test(test_bad_lengths),
        cmocka_unit_test(test_every_prefix),      cmocka_unit_test(test_skip_tags),
        cmocka_unit_test(test_raw_and_fail),      cmocka_unit_test(test_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
