/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CRC-32C: known vectors, chaining, and the hardware path against the table
 * path on random data of many lengths and alignments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/crc32c.h"

/* Deterministic test data (xorshift64), so failures reproduce. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_known_vectors(void **state)
{
    (void)state;
    static const uint8_t zeros[32];
    uint8_t ones[32], inc[32], dec[32];
    memset(ones, 0xff, sizeof ones);
    for (int i = 0; i < 32; i++) {
        inc[i] = (uint8_t)i;
        dec[i] = (uint8_t)(31 - i);
    }

    /* The check value of CRC-32C and the vectors of RFC 3720, B.4. */
    assert_int_equal(gr_crc32c(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(gr_crc32c_sw(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(gr_crc32c_hw(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(gr_crc32c(0, zeros, 32), 0x8A9136AAu);
    assert_int_equal(gr_crc32c(0, ones, 32), 0x62A8AB43u);
    assert_int_equal(gr_crc32c(0, inc, 32), 0x46DD794Eu);
    assert_int_equal(gr_crc32c(0, dec, 32), 0x113FDB5Cu);
    assert_int_equal(gr_crc32c_sw(0, zeros, 32), 0x8A9136AAu);
    assert_int_equal(gr_crc32c_sw(0, inc, 32), 0x46DD794Eu);
    assert_int_equal(gr_crc32c(0, "", 0), 0u);
    assert_int_equal(gr_crc32c(0x12345678u, NULL, 0), 0x12345678u);
}

static void test_chaining(void **state)
{
    (void)state;
    const char *s = "The quick brown fox jumps over the lazy dog";
    size_t n = strlen(s);
    uint32_t whole = gr_crc32c(0, s, n);
    for (size_t cut = 0; cut <= n; cut++) {
        assert_int_equal(gr_crc32c(gr_crc32c(0, s, cut), s + cut, n - cut), whole);
        assert_int_equal(gr_crc32c_sw(gr_crc32c_sw(0, s, cut), s + cut, n - cut), whole);
    }
    assert_int_equal(whole, 0x22620404u);
}

static void test_hw_matches_sw(void **state)
{
    (void)state;
    enum { MAX_LEN = 1100, MAX_ALIGN = 16 };
    static uint8_t buf[MAX_LEN + MAX_ALIGN];
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)next_rand(&seed);

    if (!gr_crc32c_hw_available())
        print_message("no hardware CRC-32C on this CPU; comparing the fallback with itself\n");
    for (size_t align = 0; align < MAX_ALIGN; align++) {
        for (size_t len = 0; len <= MAX_LEN; len += (len < 80 ? 1 : 37)) {
            uint32_t start = (uint32_t)next_rand(&seed);
            uint32_t sw = gr_crc32c_sw(start, buf + align, len);
            assert_int_equal(gr_crc32c_hw(start, buf + align, len), sw);
            assert_int_equal(gr_crc32c(start, buf + align, len), sw);
        }
    }
}

/*
 * Lengths around whole blocks of the hardware path's three interleaved
 * streams (crc32c.c: 3 x 512 bytes, joined by a shift table), at every
 * alignment, and one long buffer: a wrong join shows here, not above.
 */
static void test_hw_interleaved_blocks(void **state)
{
    (void)state;
    enum { BLOCK = 3 * 512, MAX_BLOCKS = 5, MAX_ALIGN = 8, LONG_LEN = 1 << 20 };
    static uint8_t buf[LONG_LEN + MAX_ALIGN];
    uint64_t seed = 0xC0FFEEull;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)next_rand(&seed);

    for (size_t align = 0; align < MAX_ALIGN; align++) {
        for (size_t blocks = 1; blocks <= MAX_BLOCKS; blocks++) {
            for (size_t extra = 0; extra < 24; extra++) {
                size_t len = blocks * BLOCK - 8 + extra;
                uint32_t start = (uint32_t)next_rand(&seed);
                assert_int_equal(gr_crc32c(start, buf + align, len),
                                 gr_crc32c_sw(start, buf + align, len));
            }
        }
    }
    for (size_t align = 0; align < MAX_ALIGN; align++)
        assert_int_equal(gr_crc32c(0, buf + align, LONG_LEN),
                         gr_crc32c_sw(0, buf + align, LONG_LEN));
    /* Chaining across a cut inside a block. */
    uint32_t whole = gr_crc32c(0, buf, 4 * BLOCK);
    assert_int_equal(gr_crc32c(gr_crc32c(0, buf, BLOCK + 100), buf + BLOCK + 100, 3 * BLOCK - 100),
                     whole);
}

/* A bitwise reference, the definition itself, on a few random buffers. */
static uint32_t crc32c_bitwise(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
}

static void test_against_bitwise(void **state)
{
    (void)state;
    uint8_t buf[300];
    uint64_t seed = 42;
    for (int round = 0; round < 50; round++) {
        size_t len = (size_t)(next_rand(&seed) % sizeof buf);
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)next_rand(&seed);
        assert_int_equal(gr_crc32c(0, buf, len), crc32c_bitwise(buf, len));
        assert_int_equal(gr_crc32c_sw(0, buf, len), crc32c_bitwise(buf, len));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_vectors),   cmocka_unit_test(test_chaining),
        cmocka_unit_test(test_hw_matches_sw),   cmocka_unit_test(test_hw_interleaved_blocks),
        cmocka_unit_test(test_against_bitwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
