/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Batch codecs: round trips for every codec and level, the max_out bound,
 * truncated and corrupt input, the two snappy framings, and streams written
 * by other implementations.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <snappy-c.h>

#include "protocol/compress.h"

static const gr_compression_t codecs[] = {GR_COMPRESSION_NONE, GR_COMPRESSION_GZIP,
                                          GR_COMPRESSION_SNAPPY, GR_COMPRESSION_LZ4,
                                          GR_COMPRESSION_ZSTD};
#define CODEC_COUNT (sizeof codecs / sizeof codecs[0])

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Half-compressible test data: random words from a small alphabet. */
static uint8_t *make_data(size_t len, uint64_t seed)
{
    uint8_t *p = malloc(len ? len : 1);
    assert_non_null(p);
    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)("abcdefgh \n"[next_rand(&seed) % 10]);
    return p;
}

/* Compresses and decompresses len bytes and checks they come back. */
static void round_trip(gr_compression_t codec, int level, const uint8_t *in, size_t len)
{
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_compress_level(codec, level, in, len, &w), 0);
    uint8_t *out = NULL;
    size_t out_len = 12345;
    /* Copy to an exact-size buffer so a decoder over-read trips ASan. */
    uint8_t *z = malloc(w.len ? w.len : 1);
    assert_non_null(z);
    if (w.len)
        memcpy(z, w.buf, w.len);
    assert_int_equal(gr_decompress(codec, z, w.len, len, &out, &out_len), 0);
    assert_non_null(out);
    assert_int_equal(out_len, len);
    if (len)
        assert_memory_equal(out, in, len);
    free(out);
    /* One byte less than needed is refused. */
    if (len) {
        out = (uint8_t *)&out_len;
        assert_int_equal(gr_decompress(codec, z, w.len, len - 1, &out, &out_len), -EMSGSIZE);
        assert_null(out);
    }
    free(z);
    gr_writer_fini(&w);
}

static void test_round_trip_all_codecs(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 7, 100, 4096, 32 * 1024, 32 * 1024 + 1, 65536, 200000};
    for (size_t c = 0; c < CODEC_COUNT; c++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            uint8_t *data = make_data(sizes[s], 7 + s);
            round_trip(codecs[c], GR_COMPRESS_LEVEL_DEFAULT, data, sizes[s]);
            free(data);
        }
    }
}

static void test_round_trip_incompressible(void **state)
{
    (void)state;
    size_t len = 150000;
    uint8_t *data = malloc(len);
    assert_non_null(data);
    uint64_t seed = 99;
    for (size_t i = 0; i < len; i++)
        data[i] = (uint8_t)next_rand(&seed);
    for (size_t c = 0; c < CODEC_COUNT; c++)
        round_trip(codecs[c], GR_COMPRESS_LEVEL_DEFAULT, data, len);
    free(data);
}

static void test_levels(void **state)
{
    (void)state;
    uint8_t *data = make_data(50000, 3);
    round_trip(GR_COMPRESSION_GZIP, 1, data, 50000);
    round_trip(GR_COMPRESSION_GZIP, 9, data, 50000);
    round_trip(GR_COMPRESSION_LZ4, 1, data, 50000);
    round_trip(GR_COMPRESSION_LZ4, 12, data, 50000);
    round_trip(GR_COMPRESSION_ZSTD, 1, data, 50000);
    round_trip(GR_COMPRESSION_ZSTD, 19, data, 50000);
    round_trip(GR_COMPRESSION_ZSTD, -5, data, 50000);

    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_compress_level(GR_COMPRESSION_GZIP, 0, data, 10, &w), -EINVAL);
    assert_int_equal(gr_compress_level(GR_COMPRESSION_GZIP, 10, data, 10, &w), -EINVAL);
    assert_int_equal(gr_compress_level(GR_COMPRESSION_LZ4, 0, data, 10, &w), -EINVAL);
    assert_int_equal(gr_compress_level(GR_COMPRESSION_LZ4, 18, data, 10, &w), -EINVAL);
    assert_int_equal(gr_compress_level(GR_COMPRESSION_ZSTD, 1000, data, 10, &w), -EINVAL);
    assert_int_equal(w.len, 0);
    gr_writer_fini(&w);
    free(data);
}

static void test_appends_to_writer(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_raw(&w, "prefix", 6);
    const char *msg = "some text some text some text";
    assert_int_equal(gr_compress(GR_COMPRESSION_ZSTD, (const uint8_t *)msg, strlen(msg), &w), 0);
    assert_memory_equal(w.buf, "prefix", 6);
    uint8_t *out;
    size_t out_len;
    assert_int_equal(gr_decompress(GR_COMPRESSION_ZSTD, w.buf + 6, w.len - 6, 100, &out, &out_len),
                     0);
    assert_int_equal(out_len, strlen(msg));
    assert_memory_equal(out, msg, out_len);
    free(out);
    gr_writer_fini(&w);
}

static void test_unknown_codec(void **state)
{
    (void)state;
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_compress((gr_compression_t)5, (const uint8_t *)"x", 1, &w), -ENOTSUP);
    uint8_t *out = (uint8_t *)&w;
    size_t out_len;
    assert_int_equal(
        gr_decompress((gr_compression_t)7, (const uint8_t *)"x", 1, 10, &out, &out_len), -ENOTSUP);
    assert_null(out);
    assert_null(gr_compression_name((gr_compression_t)6));
    assert_string_equal(gr_compression_name(GR_COMPRESSION_LZ4), "lz4");
    gr_writer_fini(&w);
}

/* A zip bomb: 4 MiB of zeros must not be expanded past max_out. */
static void test_max_out_bomb(void **state)
{
    (void)state;
    size_t len = 4u << 20;
    uint8_t *zeros = calloc(1, len);
    assert_non_null(zeros);
    for (size_t c = 1; c < CODEC_COUNT; c++) {
        gr_writer_t w;
        gr_writer_init(&w);
        assert_int_equal(gr_compress(codecs[c], zeros, len, &w), 0);
        assert_true(w.len < len / 16);
        uint8_t *out = NULL;
        size_t out_len = 0;
        assert_int_equal(gr_decompress(codecs[c], w.buf, w.len, 256u << 10, &out, &out_len),
                         -EMSGSIZE);
        assert_null(out);
        assert_int_equal(gr_decompress(codecs[c], w.buf, w.len, len, &out, &out_len), 0);
        assert_int_equal(out_len, len);
        free(out);
        gr_writer_fini(&w);
    }
    free(zeros);
}

/*
 * Every proper prefix of a stream must fail, except that xerial snappy
 * cannot tell a prefix ending between blocks from a shorter stream: such a
 * prefix must then decode to a prefix of the data.
 */
static void test_truncated(void **state)
{
    (void)state;
    size_t len = 40000; /* two xerial blocks */
    uint8_t *data = make_data(len, 11);
    for (size_t c = 1; c < CODEC_COUNT; c++) {
        gr_writer_t w;
        gr_writer_init(&w);
        assert_int_equal(gr_compress(codecs[c], data, len, &w), 0);
        size_t step = w.len > 3000 ? 53 : 1;
        for (size_t cut = 0; cut < w.len; cut += (cut < 64 || w.len - cut < 64) ? 1 : step) {
            uint8_t *prefix = malloc(cut ? cut : 1);
            assert_non_null(prefix);
            memcpy(prefix, w.buf, cut);
            uint8_t *out = NULL;
            size_t out_len = 0;
            int err = gr_decompress(codecs[c], prefix, cut, len, &out, &out_len);
            if (codecs[c] == GR_COMPRESSION_SNAPPY && err == 0) {
                assert_true(out_len < len);
                assert_memory_equal(out, data, out_len);
                free(out);
            } else {
                assert_int_equal(err, -EBADMSG);
                assert_null(out);
            }
            free(prefix);
        }
        gr_writer_fini(&w);
    }
    free(data);
}

/* Flipped bytes are rejected where the format has checksums (gzip, zstd's
 * frame header checks) and never make a decoder misbehave elsewhere. */
static void test_corrupt(void **state)
{
    (void)state;
    size_t len = 1500;
    uint8_t *data = make_data(len, 5);
    for (size_t c = 1; c < CODEC_COUNT; c++) {
        gr_writer_t w;
        gr_writer_init(&w);
        assert_int_equal(gr_compress(codecs[c], data, len, &w), 0);
        uint8_t *z = malloc(w.len);
        assert_non_null(z);
        int failures = 0;
        for (size_t i = 0; i < w.len; i++) {
            memcpy(z, w.buf, w.len);
            z[i] ^= 0x5a;
            uint8_t *out = NULL;
            size_t out_len = 0;
            int err = gr_decompress(codecs[c], z, w.len, 2 * len, &out, &out_len);
            if (err) {
                assert_true(err == -EBADMSG || err == -EMSGSIZE);
                assert_null(out);
                failures++;
            } else {
                assert_true(out_len <= 2 * len);
                free(out);
            }
        }
        if (codecs[c] == GR_COMPRESSION_GZIP)
            assert_true(failures >= (int)w.len - 10); /* CRC-32 and length trailer */
        else
            assert_true(failures > 0);
        free(z);
        gr_writer_fini(&w);
    }
    free(data);
}

static void test_garbage(void **state)
{
    (void)state;
    static const char *const junk[] = {"",
                                       "x",
                                       "hello, this is not compressed at all",
                                       "\x1f\x8b\x08\x00garbage",
                                       "\x04\x22\x4d\x18garbage",
                                       "\x28\xb5\x2f\xfdgarbage"};
    for (size_t c = 1; c < CODEC_COUNT; c++) {
        for (size_t j = 0; j < sizeof junk / sizeof junk[0]; j++) {
            size_t n = strlen(junk[j]);
            uint8_t *p = malloc(n ? n : 1);
            assert_non_null(p);
            memcpy(p, junk[j], n);
            uint8_t *out = NULL;
            size_t out_len = 0;
            assert_int_equal(gr_decompress(codecs[c], p, n, 1000, &out, &out_len), -EBADMSG);
            assert_null(out);
            free(p);
        }
    }
    /* Random input of many lengths: any answer but a crash or overrun. */
    uint64_t seed = 1234;
    for (int round = 0; round < 2000; round++) {
        size_t n = (size_t)(next_rand(&seed) % 200);
        uint8_t *p = malloc(n ? n : 1);
        assert_non_null(p);
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)next_rand(&seed);
        gr_compression_t codec = codecs[1 + round % (CODEC_COUNT - 1)];
        uint8_t *out = NULL;
        size_t out_len = 0;
        if (gr_decompress(codec, p, n, 4096, &out, &out_len) == 0) {
            assert_true(out_len <= 4096);
            free(out);
        }
        free(p);
    }
}

/* The xerial framing as Java's snappy-java writes it, built by hand. */
static void test_snappy_xerial_vector(void **state)
{
    (void)state;
    static const uint8_t xerial[] = {
        0x82, 'S',  'N',  'A',  'P', 'P', 'Y', 0x00, /* magic */
        0x00, 0x00, 0x00, 0x01,                      /* version */
        0x00, 0x00, 0x00, 0x01,                      /* compatible version */
        0x00, 0x00, 0x00, 0x05,                      /* block 1: 5 bytes */
        0x03, 0x08, 'a',  'b',  'c',                 /* raw snappy: len 3, literal "abc" */
        0x00, 0x00, 0x00, 0x04,                      /* block 2: 4 bytes */
        0x02, 0x04, 'd',  'e',                       /* raw snappy: len 2, literal "de" */
    };
    uint8_t *out;
    size_t out_len;
    assert_int_equal(
        gr_decompress(GR_COMPRESSION_SNAPPY, xerial, sizeof xerial, 100, &out, &out_len), 0);
    assert_int_equal(out_len, 5);
    assert_memory_equal(out, "abcde", 5);
    free(out);

    /* The header alone is an empty stream; a cut length word is not. */
    assert_int_equal(gr_decompress(GR_COMPRESSION_SNAPPY, xerial, 16, 100, &out, &out_len), 0);
    assert_int_equal(out_len, 0);
    free(out);
    assert_int_equal(gr_decompress(GR_COMPRESSION_SNAPPY, xerial, 18, 100, &out, &out_len),
                     -EBADMSG);
    assert_int_equal(gr_decompress(GR_COMPRESSION_SNAPPY, xerial, 12, 100, &out, &out_len),
                     -EBADMSG);
    /* Output limit applies across blocks. */
    assert_int_equal(gr_decompress(GR_COMPRESSION_SNAPPY, xerial, sizeof xerial, 4, &out, &out_len),
                     -EMSGSIZE);

    /* What we write carries the same header. */
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_compress(GR_COMPRESSION_SNAPPY, (const uint8_t *)"abc", 3, &w), 0);
    assert_true(w.len > 16);
    assert_memory_equal(w.buf, xerial, 16);
    /* Even empty input gets a block, so readers that need more than the
     * header to detect the framing (librdkafka) still see it. */
    gr_writer_reset(&w);
    assert_int_equal(gr_compress(GR_COMPRESSION_SNAPPY, NULL, 0, &w), 0);
    assert_true(w.len > 16 + 4);
    assert_memory_equal(w.buf, xerial, 16);
    gr_writer_fini(&w);
}

/* Raw snappy, as librdkafka writes it, is accepted too. */
static void test_snappy_raw(void **state)
{
    (void)state;
    size_t len = 100000;
    uint8_t *data = make_data(len, 17);
    size_t zlen = snappy_max_compressed_length(len);
    char *z = malloc(zlen);
    assert_non_null(z);
    assert_int_equal(snappy_compress((const char *)data, len, z, &zlen), SNAPPY_OK);
    uint8_t *out;
    size_t out_len;
    assert_int_equal(
        gr_decompress(GR_COMPRESSION_SNAPPY, (const uint8_t *)z, zlen, len, &out, &out_len), 0);
    assert_int_equal(out_len, len);
    assert_memory_equal(out, data, len);
    free(out);
    assert_int_equal(
        gr_decompress(GR_COMPRESSION_SNAPPY, (const uint8_t *)z, zlen, len - 1, &out, &out_len),
        -EMSGSIZE);
    assert_int_equal(
        gr_decompress(GR_COMPRESSION_SNAPPY, (const uint8_t *)z, zlen - 1, len, &out, &out_len),
        -EBADMSG);
    free(z);
    free(data);
}

/* gzip written by Python's gzip module: "hello hello hello\n", twice as two
 * members (gzip(1) and Java read concatenated members as one stream). */
static void test_gzip_vector(void **state)
{
    (void)state;
    static const uint8_t member[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff,
                                     0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x90, 0x5c,
                                     0x00, 0x3b, 0x7c, 0x8a, 0xdf, 0x12, 0x00, 0x00, 0x00};
    uint8_t two[2 * sizeof member];
    memcpy(two, member, sizeof member);
    memcpy(two + sizeof member, member, sizeof member);
    uint8_t *out;
    size_t out_len;
    assert_int_equal(gr_decompress(GR_COMPRESSION_GZIP, member, sizeof member, 100, &out, &out_len),
                     0);
    assert_int_equal(out_len, 18);
    assert_memory_equal(out, "hello hello hello\n", 18);
    free(out);
    assert_int_equal(gr_decompress(GR_COMPRESSION_GZIP, two, sizeof two, 100, &out, &out_len), 0);
    assert_int_equal(out_len, 36);
    assert_memory_equal(out + 18, "hello hello hello\n", 18);
    free(out);
    /* Trailing bytes that are not a member are refused. */
    uint8_t tail[sizeof member + 3];
    memcpy(tail, member, sizeof member);
    memcpy(tail + sizeof member, "abc", 3);
    assert_int_equal(gr_decompress(GR_COMPRESSION_GZIP, tail, sizeof tail, 100, &out, &out_len),
                     -EBADMSG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_all_codecs),
        cmocka_unit_test(test_round_trip_incompressible),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_appends_to_writer),
        cmocka_unit_test(test_unknown_codec),
        cmocka_unit_test(test_max_out_bomb),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_snappy_xerial_vector),
        cmocka_unit_test(test_snappy_raw),
        cmocka_unit_test(test_gzip_vector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
