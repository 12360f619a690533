/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The generated codec against the independent oracle fixtures
 * (tests/fixtures/oracle/, format in tests/fixtures/README.md).
 *
 * For every message and every version the oracle encoded: decoding consumes
 * exactly the bytes, the dump equals the oracle's values, re-encoding gives
 * the same bytes, size() equals the length, and every strict prefix of the
 * bytes fails to decode. Also checks that the fixtures cover every message
 * and version the codec knows, so a schema without fixtures is noticed.
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

#include "gen/codec_registry.h"

#define FIXTURE_DIR  GR_TEST_DATA_DIR "/fixtures/oracle"
#define MAX_LINE     (4 * 1024 * 1024)
#define MAX_VERSIONS 64

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes hex into a malloc'd buffer; returns its length or -1. */
static long unhex(const char *hex, uint8_t **out)
{
    size_t n = strlen(hex);
    if (n % 2)
        return -1;
    uint8_t *buf = malloc(n / 2 + 1);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(buf);
            return -1;
        }
        buf[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = buf;
    return (long)(n / 2);
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

/* Checks one fixture: bytes of message desc at version v, expected dump. */
static void check_fixture(const gr_codec_desc_t *desc, int16_t v, const uint8_t *bytes, size_t len,
                          const char *expected)
{
    gr_arena_t arena;
    gr_arena_init(&arena);
    void *msg = gr_arena_alloc(&arena, desc->struct_size);
    gr_reader_t r;
    gr_reader_init(&r, bytes, len);
    int rc = desc->decode(&r, v, &arena, msg);
    if (rc != 0 || gr_reader_left(&r) != 0)
        fail_msg("%s v%d: decode rc=%d, %zu bytes left", desc->name, v, rc, gr_reader_left(&r));

    gr_writer_t text;
    gr_writer_init(&text);
    desc->dump(&text, v, msg);
    gr_write_raw(&text, "", 1);
    if (strcmp((const char *)text.buf, expected) != 0)
        fail_msg("%s v%d: dump differs\n  got:  %s\n  want: %s", desc->name, v,
                 (const char *)text.buf, expected);
    gr_writer_fini(&text);

    gr_writer_t w;
    gr_writer_init(&w);
    rc = desc->encode(&w, v, msg);
    if (rc != 0 || w.len != len || (len && memcmp(w.buf, bytes, len) != 0))
        fail_msg("%s v%d: re-encode rc=%d gives %zu bytes, want %zu", desc->name, v, rc, w.len,
                 len);
    size_t size = desc->size(v, msg);
    if (size != len)
        fail_msg("%s v%d: size() says %zu, encoded %zu", desc->name, v, size, len);
    gr_writer_fini(&w);

    /* Every strict prefix must fail cleanly (the sanitizer build checks bounds). */
    for (size_t cut = 0; cut < len; cut++) {
        gr_arena_reset(&arena);
        void *m = gr_arena_alloc(&arena, desc->struct_size);
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, bytes, cut);
        gr_reader_init(&r, copy, cut);
        rc = desc->decode(&r, v, &arena, m);
        free(copy);
        if (rc == 0)
            fail_msg("%s v%d: a %zu-byte prefix of %zu decoded without error", desc->name, v, cut,
                     len);
    }
    gr_arena_fini(&arena);
}

/* Runs every fixture of one file; marks covered versions. */
static int check_file(const gr_codec_desc_t *desc, bool *covered)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.fix", FIXTURE_DIR, desc->name);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("no fixture file %s", path);
    char *line = malloc(MAX_LINE), *expected = malloc(MAX_LINE);
    int count = 0;
    while (fgets(line, MAX_LINE, f)) {
        chomp(line);
        if (!fgets(expected, MAX_LINE, f))
            fail_msg("%s: fixture without dump line", path);
        chomp(expected);
        char *space = strchr(line, ' ');
        if (line[0] != 'v' || !space)
            fail_msg("%s: bad fixture line", path);
        *space = '\0';
        int v = atoi(line + 1);
        if (v < desc->min_version || v > desc->max_version)
            fail_msg("%s: fixture v%d outside the codec's %d-%d", desc->name, v, desc->min_version,
                     desc->max_version);
        uint8_t *bytes = NULL;
        long len = unhex(space + 1, &bytes);
        if (len < 0)
            fail_msg("%s: bad hex", path);
        check_fixture(desc, (int16_t)v, bytes, (size_t)len, expected);
        free(bytes);
        covered[v] = true;
        count++;
    }
    fclose(f);
    free(line);
    free(expected);
    return count;
}

static void test_every_message_matches_oracle(void **state)
{
    (void)state;
    int total = 0;
    for (size_t i = 0; i < gr_codec_count; i++) {
        const gr_codec_desc_t *desc = gr_codec_all[i];
        bool covered[MAX_VERSIONS] = {false};
        total += check_file(desc, covered);
        for (int v = desc->min_version; v <= desc->max_version; v++)
            if (!covered[v])
                fail_msg("%s v%d has no oracle fixture", desc->name, v);
    }
    print_message("%d fixtures over %zu messages\n", total, gr_codec_count);
}

/* Random bytes never crash a decoder, which answers 0 or a decode error
 * (deeper: the libFuzzer target). */
static void test_garbage_never_crashes(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    uint8_t buf[256];
    gr_arena_t arena;
    gr_arena_init(&arena);
    for (size_t i = 0; i < gr_codec_count; i++) {
        const gr_codec_desc_t *desc = gr_codec_all[i];
        for (int round = 0; round < 50; round++) {
            for (size_t k = 0; k < sizeof buf; k++) {
                seed = seed * 1103515245u + 12345u;
                buf[k] = (uint8_t)(seed >> 16);
            }
            for (int v = desc->min_version; v <= desc->max_version; v++) {
                gr_arena_reset(&arena);
                void *m = gr_arena_alloc(&arena, desc->struct_size);
                gr_reader_t r;
                gr_reader_init(&r, buf, (size_t)(seed % sizeof buf));
                int rc = desc->decode(&r, (int16_t)v, &arena, m);
                if (rc != 0 && rc != -EBADMSG && rc != -ENODATA)
                    fail_msg("%s v%d: decoding garbage returned %d", desc->name, v, rc);
            }
        }
    }
    gr_arena_fini(&arena);
}

static void test_registry_lookup(void **state)
{
    (void)state;
    const gr_api_desc_t *fetch = gr_api_find(1);
    assert_non_null(fetch);
    assert_string_equal(fetch->name, "Fetch");
    assert_string_equal(fetch->request->name, "FetchRequest");
    assert_int_equal(fetch->flexible_min, 12);
    assert_null(gr_api_find(-5));
    assert_non_null(gr_codec_find("RequestHeader"));
    assert_null(gr_codec_find("NoSuchMessage"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_lookup),
        cmocka_unit_test(test_every_message_matches_oracle),
        cmocka_unit_test(test_garbage_never_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
