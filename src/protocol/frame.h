/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's framing, for every side that speaks it: the broker answering
 * requests, the broker's own client (gr_peer) and the admin CLI. A frame is
 * a 4-byte big-endian size, then a header, then the message body.
 *
 * Header versions follow the API's flexible versions: request header v2
 * (with tagged fields) for flexible versions, else v1 (v0 only for
 * ControlledShutdown v0); response header v1 for flexible versions, else
 * v0, except ApiVersions, whose response header is always v0 so that a
 * client that does not yet know the broker's versions can read it.
 */
#ifndef GR_PROTOCOL_FRAME_H
#define GR_PROTOCOL_FRAME_H

#include <stdint.h>

#include "protocol/codec.h"

#define GR_FRAME_SIZE_BYTES 4

/* Request header version (0, 1 or 2) for version of api. */
int16_t gr_frame_request_header_version(const gr_api_desc_t *api, int16_t version);
/* Response header version (0 or 1) for version of api. */
int16_t gr_frame_response_header_version(const gr_api_desc_t *api, int16_t version);

/*
 * Appends one whole request frame to w: size, header (correlation_id,
 * client_id) and msg (a struct of api's request type) at version. Returns
 * 0, or -EINVAL when msg cannot be encoded at that version or the frame is
 * over INT32_MAX bytes, or the writer's -errno.
 */
int gr_frame_encode_request(gr_writer_t *w, const gr_api_desc_t *api, int16_t version,
                            int32_t correlation_id, gr_str_t client_id, const void *msg);

/*
 * Decodes a response frame's header and body (the frame without its size)
 * into msg, a struct of api's response type, allocating from a. Returns 0,
 * -EPROTO when the header's correlation id is not expected_correlation_id,
 * or the reader's -errno (-EBADMSG, -ENODATA, -ENOMEM).
 */
int gr_frame_decode_response(const uint8_t *frame, size_t len, const gr_api_desc_t *api,
                             int16_t version, int32_t expected_correlation_id, gr_arena_t *a,
                             void *msg);

#endif
