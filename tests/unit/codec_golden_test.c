/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The generated codec against wire captures of real clients and of
 * librdkafka's mock cluster (tests/golden/captures/, see its README).
 *
 * For every capture in manifest.txt: the header decodes at the listed header
 * version to the correlation id and client id in headers.txt and takes the
 * listed number of bytes; the body decodes to exactly the values in the
 * capture's .expected dump (made by the independent oracle decoder);
 * re-encoding header and body gives back the captured bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gen/codec_registry.h"
#include "gen/headers.h"

#define CAPTURE_DIR  GR_TEST_DATA_DIR "/golden/captures"
#define MAX_HEX      (8 * 1024 * 1024)
#define MIN_CAPTURES 15
#define NAME_MAX_LEN 256

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = malloc(MAX_HEX);
    size_t n = fread(buf, 1, MAX_HEX - 1, f);
    buf[n] = '\0';
    fclose(f);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    return buf;
}

static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        unsigned int byte;
        if (sscanf(hex, "%2x", &byte) != 1)
            fail_msg("bad hex");
        out[n++] = (uint8_t)byte;
    }
    return n;
}

typedef struct header_facts {
    int32_t correlation_id;
    char client_id[NAME_MAX_LEN]; /* "-" for none (responses) */
    size_t header_len;
} header_facts_t;

static bool find_header_facts(const char *file, header_facts_t *out)
{
    FILE *f = fopen(CAPTURE_DIR "/headers.txt", "r");
    if (!f)
        fail_msg("no headers.txt");
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char name[NAME_MAX_LEN], client[NAME_MAX_LEN];
        int corr, hlen;
        if (sscanf(line, "%255s %d %255s %d", name, &corr, client, &hlen) != 4)
            continue;
        if (strcmp(name, file) != 0)
            continue;
        out->correlation_id = corr;
        /* client ids are quoted in the file */
        size_t cl = strlen(client);
        if (client[0] == '"' && cl >= 2) {
            memcpy(out->client_id, client + 1, cl - 2);
            out->client_id[cl - 2] = '\0';
        } else {
            snprintf(out->client_id, sizeof out->client_id, "%s", client);
        }
        out->header_len = (size_t)hlen;
        found = true;
    }
    fclose(f);
    return found;
}

/* Decodes the header; returns the correlation id and checks the client id. */
static void check_header(gr_reader_t *r, bool request, int16_t hv, const header_facts_t *facts,
                         gr_arena_t *arena, gr_writer_t *w, const char *file)
{
    const uint8_t *start = r->p;
    if (request) {
        gr_request_header_t h;
        assert_int_equal(gr_request_header_decode(r, hv, arena, &h), 0);
        assert_int_equal(h.correlation_id, facts->correlation_id);
        if (hv >= 1 && strcmp(facts->client_id, "-") != 0 &&
            !gr_str_eq_c(h.client_id, facts->client_id))
            fail_msg("%s: client id %.*s, want %s", file, h.client_id.len, h.client_id.ptr,
                     facts->client_id);
        assert_int_equal(gr_request_header_encode(w, hv, &h), 0);
    } else {
        gr_response_header_t h;
        assert_int_equal(gr_response_header_decode(r, hv, arena, &h), 0);
        assert_int_equal(h.correlation_id, facts->correlation_id);
        assert_int_equal(gr_response_header_encode(w, hv, &h), 0);
    }
    if ((size_t)(r->p - start) != facts->header_len)
        fail_msg("%s: header took %zu bytes, want %zu", file, (size_t)(r->p - start),
                 facts->header_len);
}

static void check_capture(const char *file, const char *kind, int version, const char *message,
                          int header_version)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CAPTURE_DIR, file);
    char *hex = read_text(path);
    if (!hex)
        fail_msg("missing capture %s", path);
    uint8_t *bytes = malloc(strlen(hex) / 2 + 1);
    size_t len = unhex(hex, bytes);
    free(hex);
    const gr_codec_desc_t *desc = gr_codec_find(message);
    if (!desc)
        fail_msg("%s: unknown message %s", file, message);
    header_facts_t facts;
    if (!find_header_facts(file, &facts))
        fail_msg("%s: not in headers.txt", file);

    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_writer_t w;
    gr_writer_init(&w);
    gr_reader_t r;
    gr_reader_init(&r, bytes, len);
    check_header(&r, strcmp(kind, "request") == 0, (int16_t)header_version, &facts, &arena, &w,
                 file);
    void *msg = gr_arena_alloc(&arena, desc->struct_size);
    int rc = desc->decode(&r, (int16_t)version, &arena, msg);
    if (rc != 0 || gr_reader_left(&r) != 0)
        fail_msg("%s: body decode rc=%d with %zu bytes left", file, rc, gr_reader_left(&r));

    snprintf(path, sizeof path, "%s/%s.expected", CAPTURE_DIR, file);
    char *expected = read_text(path);
    if (expected) {
        gr_writer_t text;
        gr_writer_init(&text);
        desc->dump(&text, (int16_t)version, msg);
        gr_write_raw(&text, "", 1);
        if (strcmp((const char *)text.buf, expected) != 0)
            fail_msg("%s: decoded values differ\n got:  %s\n want: %s", file,
                     (const char *)text.buf, expected);
        gr_writer_fini(&text);
        free(expected);
    }
    assert_int_equal(desc->encode(&w, (int16_t)version, msg), 0);
    if (w.len != len || memcmp(w.buf, bytes, len) != 0)
        fail_msg("%s: re-encoded %zu bytes differ from the %zu captured", file, w.len, len);
    gr_writer_fini(&w);
    gr_arena_fini(&arena);
    free(bytes);
}

static void test_captures_round_trip(void **state)
{
    (void)state;
    FILE *f = fopen(CAPTURE_DIR "/manifest.txt", "r");
    assert_non_null(f);
    char line[1024];
    int count = 0, with_expected = 0;
    while (fgets(line, sizeof line, f)) {
        char file[NAME_MAX_LEN], kind[16], message[NAME_MAX_LEN];
        int key, version, hv;
        if (line[0] == '#' || sscanf(line, "%255s %15s %d %d %255s %d", file, kind, &key, &version,
                                     message, &hv) != 6)
            continue;
        check_capture(file, kind, version, message, hv);
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.expected", CAPTURE_DIR, file);
        FILE *e = fopen(path, "r");
        if (e) {
            with_expected++;
            fclose(e);
        }
        count++;
    }
    fclose(f);
    print_message("%d captures, %d with oracle-decoded values\n", count, with_expected);
    assert_true(count >= MIN_CAPTURES);
    assert_true(with_expected >= MIN_CAPTURES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captures_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
