/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin's SASL login on a fresh connection (--command-config with
 * security.protocol=SASL_PLAINTEXT or SASL_SSL): SaslHandshake v1 naming the
 * mechanism, then SaslAuthenticate round trips driven by the client exchange
 * of security/sasl_client.h until it is done, as Kafka's clients log in.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "admin/admin.h"
#include "gen/sasl_authenticate.h"
#include "gen/sasl_handshake.h"
#include "protocol/kerr.h"
#include "security/sasl_config.h"
#include "security/sasl_client.h"

#define SASL_HANDSHAKE_VERSION 1 /* then SaslAuthenticate frames, not raw tokens */
#define SASL_AUTHENTICATE_MAX  2

static int handshake(gr_admin_t *a, const char *mechanism)
{
    if (gr_admin_version(a, GR_API_SASL_HANDSHAKE, SASL_HANDSHAKE_VERSION) !=
        SASL_HANDSHAKE_VERSION) {
        fprintf(stderr, "error: %s does not offer SaslHandshake v1 (is it a SASL listener?)\n",
                a->addr);
        return -1;
    }
    gr_sasl_handshake_request_t req;
    gr_sasl_handshake_request_init(&req);
    req.mechanism = gr_str(mechanism);
    gr_sasl_handshake_response_t resp;
    if (gr_admin_call(a, GR_API_SASL_HANDSHAKE, SASL_HANDSHAKE_VERSION, &req, &resp))
        return -1;
    if (resp.error_code) {
        fprintf(stderr, "error: %s refused SASL mechanism %s: %s\n", a->addr, mechanism,
                gr_kerr_name(resp.error_code));
        return -1;
    }
    return 0;
}

/* One token out, the broker's answer in (*in, *in_len point into the arena). */
static int authenticate(gr_admin_t *a, int16_t v, const uint8_t *out, size_t out_len,
                        const uint8_t **in, size_t *in_len)
{
    gr_sasl_authenticate_request_t req;
    gr_sasl_authenticate_request_init(&req);
    req.auth_bytes = (gr_bytes_t){out, (int32_t)out_len};
    gr_sasl_authenticate_response_t resp;
    if (gr_admin_call(a, GR_API_SASL_AUTHENTICATE, v, &req, &resp))
        return -1;
    if (resp.error_code) {
        fprintf(stderr, "error: SASL login to %s failed: %s%s%.*s\n", a->addr,
                gr_kerr_name(resp.error_code), resp.error_message.len > 0 ? ": " : "",
                resp.error_message.len > 0 ? (int)resp.error_message.len : 0,
                resp.error_message.ptr ? resp.error_message.ptr : "");
        return -1;
    }
    *in = resp.auth_bytes.ptr;
    *in_len = resp.auth_bytes.len > 0 ? (size_t)resp.auth_bytes.len : 0;
    return 0;
}

static int exchange(gr_admin_t *a, gr_sasl_client_t *c)
{
    int16_t v = gr_admin_version(a, GR_API_SASL_AUTHENTICATE, SASL_AUTHENTICATE_MAX);
    if (v < 0)
        return -1;
    const uint8_t *in = NULL, *out;
    size_t in_len = 0, out_len;
    for (;;) {
        int rc = gr_sasl_client_step(c, in, in_len, &out, &out_len);
        if (rc == GR_SASL_CLIENT_DONE)
            return 0;
        if (rc < 0) {
            fprintf(stderr, "error: SASL login to %s failed: %s\n", a->addr,
                    rc == -EACCES ? "the broker did not prove it knows the credential"
                                  : strerror(-rc));
            return -1;
        }
        if (authenticate(a, v, out, out_len, &in, &in_len))
            return -1;
    }
}

int gr_admin_sasl_login(gr_admin_t *a)
{
    gr_sasl_mechanism_t m = (gr_sasl_mechanism_t)a->sasl_mechanism;
    if (handshake(a, gr_sasl_mechanism_name(m)))
        return -1;
    gr_sasl_client_t *c = gr_sasl_client_new(m, a->sasl_user, a->sasl_password);
    if (!c) {
        fprintf(stderr, "error: SASL login: out of memory or an over-long user or password\n");
        return -1;
    }
    int rc = exchange(a, c);
    gr_sasl_client_free(c);
    return rc;
}
