/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ApiVersions: the advertised API table. v3 replies carry the tagged
 * feature fields as a ZooKeeper-mode Kafka 3.8 broker does: no supported or
 * finalized features, and finalized features epoch -1.
 *
 * v4 only lets a supported feature's minimum version be 0 (KAFKA-17011);
 * with no features listed its answer is v3's. Without a finalized
 * transaction.version, clients keep to transactions v1 (KIP-890 part 2 is
 * not offered), which is what lets Produce v12+ be served as v11.
 */
#include "gen/api_versions.h"
#include "core/context.h"
#include "handlers/handlers.h"
#include "handlers/request.h"

void gr_broker_fill_api_versions(gr_broker_t *b, gr_request_t *req,
                                 gr_api_versions_response_t *resp)
{
    (void)b;
    resp->api_keys = gr_request_alloc(req, gr_api_handler_count * sizeof(*resp->api_keys));
    if (!resp->api_keys) {
        resp->api_keys_count = 0;
        resp->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        return;
    }
    resp->api_keys_count = (int32_t)gr_api_handler_count;
    for (size_t i = 0; i < gr_api_handler_count; i++) {
        resp->api_keys[i].api_key = gr_api_handlers[i].key;
        resp->api_keys[i].min_version = gr_api_handlers[i].min_version;
        resp->api_keys[i].max_version = gr_api_handlers[i].max_version;
    }
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * Kafka's rule for client software names and versions (v3+): letters and
 * digits, with '-' and '.' allowed inside but not at either end.
 */
static bool software_field_ok(gr_str_t s)
{
    if (s.len <= 0 || !is_alnum(s.ptr[0]) || !is_alnum(s.ptr[s.len - 1]))
        return false;
    for (int32_t i = 0; i < s.len; i++)
        if (!is_alnum(s.ptr[i]) && s.ptr[i] != '-' && s.ptr[i] != '.')
            return false;
    return true;
}

void gr_handle_api_versions(gr_broker_t *b, gr_request_t *req)
{
    gr_api_versions_request_t request;
    if (gr_request_decode(req, &request))
        return;
    gr_api_versions_response_t resp;
    gr_api_versions_response_init(&resp);
    gr_broker_fill_api_versions(b, req, &resp);
    if (req->api_version >= 3 && (!software_field_ok(request.client_software_name) ||
                                  !software_field_ok(request.client_software_version))) {
        resp.error_code = GR_KERR_INVALID_REQUEST;
        resp.api_keys_count = 0; /* Kafka's error response lists no APIs */
    }
    gr_request_respond(req, &resp);
}
