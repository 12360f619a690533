/* SPDX-License-Identifier: Apache-2.0 */
/* Kafka's framing and header versions; see frame.h. */
#include "protocol/frame.h"

#include <errno.h>

#include "gen/api_versions.h"
#include "gen/controlled_shutdown.h"
#include "gen/headers.h"

#define REQUEST_HEADER_V0  0
#define REQUEST_HEADER_V1  1
#define REQUEST_HEADER_V2  2
#define RESPONSE_HEADER_V0 0
#define RESPONSE_HEADER_V1 1

static bool is_flexible(const gr_api_desc_t *api, int16_t version)
{
    return api->flexible_min != GR_VERSION_NONE && version >= api->flexible_min;
}

int16_t gr_frame_request_header_version(const gr_api_desc_t *api, int16_t version)
{
    if (api->key == GR_API_CONTROLLED_SHUTDOWN && version == 0)
        return REQUEST_HEADER_V0;
    return is_flexible(api, version) ? REQUEST_HEADER_V2 : REQUEST_HEADER_V1;
}

int16_t gr_frame_response_header_version(const gr_api_desc_t *api, int16_t version)
{
    if (api->key == GR_API_API_VERSIONS)
        return RESPONSE_HEADER_V0;
    return is_flexible(api, version) ? RESPONSE_HEADER_V1 : RESPONSE_HEADER_V0;
}

int gr_frame_encode_request(gr_writer_t *w, const gr_api_desc_t *api, int16_t version,
                            int32_t correlation_id, gr_str_t client_id, const void *msg)
{
    size_t size_pos = gr_write_reserve(w, GR_FRAME_SIZE_BYTES);
    gr_request_header_t h;
    gr_request_header_init(&h);
    h.request_api_key = api->key;
    h.request_api_version = version;
    h.correlation_id = correlation_id;
    h.client_id = client_id;
    int rc = gr_request_header_encode(w, gr_frame_request_header_version(api, version), &h);
    if (rc == 0)
        rc = api->request->encode(w, version, msg);
    if (rc == 0 && w->err)
        rc = w->err;
    /* Records living in files are for responses: a request is all memory. */
    size_t body = w->len - size_pos - GR_FRAME_SIZE_BYTES;
    if (rc == 0 && (w->hole_count || body > INT32_MAX))
        rc = -EINVAL;
    if (rc == 0)
        gr_writer_put_int32(w, size_pos, (int32_t)body);
    return rc;
}

int gr_frame_decode_response(const uint8_t *frame, size_t len, const gr_api_desc_t *api,
                             int16_t version, int32_t expected_correlation_id, gr_arena_t *a,
                             void *msg)
{
    gr_reader_t r;
    gr_reader_init(&r, frame, len);
    gr_response_header_t h;
    int rc = gr_response_header_decode(&r, gr_frame_response_header_version(api, version), a, &h);
    if (rc)
        return rc;
    if (h.correlation_id != expected_correlation_id)
        return -EPROTO;
    api->response->init(msg);
    return api->response->decode(&r, version, a, msg);
}
