/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the generated codec: request and response framing of
 * every API and version.
 *
 * Input layout: api key (int16, big-endian) | version selector (uint16) |
 * message bytes. The key picks the API (an unknown key is folded onto the
 * registry, so no input is wasted); the selector picks a version in the
 * API's codec range, modulo its width. The message bytes are then decoded
 * twice, independently:
 *   - as a request: request header (v0 for ControlledShutdown v0, v2 for
 *     flexible versions, v1 otherwise) followed by the request body;
 *   - as a response: response header (v1 for flexible versions, v0 otherwise
 *     and always for ApiVersions) followed by the response body.
 * Whatever decodes must round-trip: encoding succeeds, size() equals the
 * encoded length, and decoding the encoded bytes consumes them exactly and
 * dumps the same text as the first decode. Any mismatch calls abort().
 * Bytes left after a body are ignored, as the broker ignores them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/codec_registry.h"
#include "gen/headers.h"

#define FUZZ_SELECTOR_SIZE            4
#define FUZZ_API_CONTROLLED_SHUTDOWN  7
#define FUZZ_API_API_VERSIONS         18
#define FUZZ_REQUEST_HEADER_V0        0
#define FUZZ_REQUEST_HEADER_V1        1
#define FUZZ_REQUEST_HEADER_FLEXIBLE  2
#define FUZZ_RESPONSE_HEADER_CLASSIC  0
#define FUZZ_RESPONSE_HEADER_FLEXIBLE 1

/* Prints what went wrong and aborts, so libFuzzer records the input. */
static void fuzz_fail(const char *what, const gr_codec_desc_t *desc, int16_t version,
                      const gr_writer_t *a, const gr_writer_t *b)
{
    fprintf(stderr, "fuzz_request: %s: %s v%d\n", what, desc->name, version);
    if (a)
        fprintf(stderr, "  first : %.*s\n", (int)a->len, (const char *)a->buf);
    if (b)
        fprintf(stderr, "  second: %.*s\n", (int)b->len, (const char *)b->buf);
    abort();
}

/* Encodes msg (decoded at version) and checks the round-trip properties. */
static void fuzz_roundtrip(const gr_codec_desc_t *desc, int16_t version, const void *msg)
{
    gr_writer_t enc, dump1, dump2;
    gr_arena_t arena;
    gr_writer_init(&enc);
    gr_writer_init(&dump1);
    gr_writer_init(&dump2);
    gr_arena_init(&arena);
    void *again = calloc(1, desc->struct_size);
    if (!again)
        abort();

    desc->dump(&dump1, version, msg);
    if (desc->encode(&enc, version, msg) != 0)
        fuzz_fail("encode of a decoded message failed", desc, version, &dump1, NULL);
    if (enc.hole_count != 0)
        fuzz_fail("decoded records became a file hole", desc, version, &dump1, NULL);
    size_t size = desc->size(version, msg);
    if (size != enc.len) {
        fprintf(stderr, "size() %zu, encoded %zu bytes\n", size, enc.len);
        fuzz_fail("size() differs from the encoded length", desc, version, &dump1, NULL);
    }

    /* An empty encoding leaves enc.buf NULL, and NULL + 0 is undefined. */
    static const uint8_t empty[1];
    gr_reader_t r;
    gr_reader_init(&r, enc.buf ? enc.buf : empty, enc.len);
    desc->init(again);
    if (desc->decode(&r, version, &arena, again) != 0)
        fuzz_fail("re-encoded bytes do not decode", desc, version, &dump1, NULL);
    if (gr_reader_left(&r) != 0)
        fuzz_fail("re-encoded bytes not consumed exactly", desc, version, &dump1, NULL);
    desc->dump(&dump2, version, again);
    if (dump1.err || dump2.err)
        abort();
    if (dump1.len != dump2.len || memcmp(dump1.buf, dump2.buf, dump1.len) != 0)
        fuzz_fail("dump differs after re-encoding", desc, version, &dump1, &dump2);

    free(again);
    gr_arena_fini(&arena);
    gr_writer_fini(&dump2);
    gr_writer_fini(&dump1);
    gr_writer_fini(&enc);
}

/* Decodes one message from r; round-trips it when it decodes. */
static int fuzz_message(gr_reader_t *r, const gr_codec_desc_t *desc, int16_t version,
                        gr_arena_t *arena)
{
    if (!desc || version < desc->min_version || version > desc->max_version)
        return -1;
    void *msg = calloc(1, desc->struct_size);
    if (!msg)
        abort();
    desc->init(msg);
    int rc = desc->decode(r, version, arena, msg);
    if (rc == 0)
        fuzz_roundtrip(desc, version, msg);
    free(msg);
    return rc;
}

static int16_t request_header_version(const gr_api_desc_t *api, int16_t version)
{
    if (api->key == FUZZ_API_CONTROLLED_SHUTDOWN && version == 0)
        return FUZZ_REQUEST_HEADER_V0;
    if (api->flexible_min != GR_VERSION_NONE && version >= api->flexible_min)
        return FUZZ_REQUEST_HEADER_FLEXIBLE;
    return FUZZ_REQUEST_HEADER_V1;
}

static int16_t response_header_version(const gr_api_desc_t *api, int16_t version)
{
    if (api->key == FUZZ_API_API_VERSIONS)
        return FUZZ_RESPONSE_HEADER_CLASSIC;
    if (api->flexible_min != GR_VERSION_NONE && version >= api->flexible_min)
        return FUZZ_RESPONSE_HEADER_FLEXIBLE;
    return FUZZ_RESPONSE_HEADER_CLASSIC;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < FUZZ_SELECTOR_SIZE || gr_api_count == 0)
        return 0;
    uint16_t key = (uint16_t)(data[0] << 8 | data[1]);
    uint16_t selector = (uint16_t)(data[2] << 8 | data[3]);
    const gr_api_desc_t *api = gr_api_find((int16_t)key);
    if (!api)
        api = &gr_api_all[key % gr_api_count];
    int width = api->max_version - api->min_version + 1;
    if (width <= 0)
        return 0;
    int16_t version = (int16_t)(api->min_version + selector % width);
    const uint8_t *body = data + FUZZ_SELECTOR_SIZE;
    size_t body_len = size - FUZZ_SELECTOR_SIZE;

    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_reader_t r;

    gr_reader_init(&r, body, body_len);
    if (fuzz_message(&r, &gr_request_header_desc, request_header_version(api, version), &arena) ==
        0)
        fuzz_message(&r, api->request, version, &arena);

    gr_arena_reset(&arena);
    gr_reader_init(&r, body, body_len);
    if (fuzz_message(&r, &gr_response_header_desc, response_header_version(api, version), &arena) ==
        0)
        fuzz_message(&r, api->response, version, &arena);

    gr_arena_fini(&arena);
    return 0;
}
