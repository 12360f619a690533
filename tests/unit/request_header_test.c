/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Header versions and their quirks, as Kafka has them: request headers are
 * v2 for flexible request versions and v1 otherwise, except ControlledShutdown
 * v0 (v0: no client id); response headers are v1 for flexible versions,
 * except ApiVersions, whose response header is always v0 so that a client can
 * read an error response to a version the broker does not know.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "protocol/frame.h"
#include "handlers/request.h"
#include "gen/codec_registry.h"
#include "gen/headers.h"

#define API_PRODUCE             0
#define API_FETCH               1
#define API_CONTROLLED_SHUTDOWN 7
#define API_API_VERSIONS        18

static void test_request_header_versions(void **state)
{
    (void)state;
    const gr_api_desc_t *cs = gr_api_find(API_CONTROLLED_SHUTDOWN);
    const gr_api_desc_t *fetch = gr_api_find(API_FETCH);
    assert_int_equal(gr_frame_request_header_version(cs, 0), 0);
    assert_int_equal(gr_frame_request_header_version(cs, 1), 1);
    assert_int_equal(gr_frame_request_header_version(cs, 3), 2);
    assert_int_equal(gr_frame_request_header_version(fetch, 11), 1);
    assert_int_equal(gr_frame_request_header_version(fetch, 12), 2);
}

static void test_response_header_versions(void **state)
{
    (void)state;
    const gr_api_desc_t *av = gr_api_find(API_API_VERSIONS);
    const gr_api_desc_t *produce = gr_api_find(API_PRODUCE);
    assert_int_equal(gr_frame_response_header_version(av, 0), 0);
    assert_int_equal(gr_frame_response_header_version(av, 3), 0);
    assert_int_equal(gr_frame_response_header_version(produce, 8), 0);
    assert_int_equal(gr_frame_response_header_version(produce, 9), 1);
}

/* A ControlledShutdown v0 header is key, version and correlation id only. */
static void test_controlled_shutdown_v0_header_has_no_client_id(void **state)
{
    (void)state;
    static const uint8_t bytes[] = {0, 7, 0, 0, 0, 0, 0, 42, 0, 0, 0, 1};
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_reader_t r;
    gr_reader_init(&r, bytes, sizeof bytes);
    gr_request_header_t h;
    int16_t hv = gr_frame_request_header_version(gr_api_find(API_CONTROLLED_SHUTDOWN), 0);
    assert_int_equal(gr_request_header_decode(&r, hv, &arena, &h), 0);
    assert_int_equal(h.correlation_id, 42);
    assert_int_equal(h.client_id.len, 0);    /* default, not read from the wire */
    assert_int_equal(gr_reader_left(&r), 4); /* the body (broker id 1) is untouched */
    gr_arena_fini(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_header_versions),
        cmocka_unit_test(test_response_header_versions),
        cmocka_unit_test(test_controlled_shutdown_v0_header_has_no_client_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
