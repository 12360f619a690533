/* SPDX-License-Identifier: Apache-2.0 */
/* Kafka's string form of a uuid; see uuid.h. */
#include "protocol/uuid.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

static const char base64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void gr_uuid_format(gr_uuid_t id, char out[GR_UUID_STRING_CHARS + 1])
{
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < sizeof id.b; i++) {
        acc = acc << 8 | id.b[i];
        bits += 8;
        while (bits >= 6) {
            out[n++] = base64url[(acc >> (bits - 6)) & 63];
            bits -= 6;
        }
    }
    if (bits > 0)
        out[n++] = base64url[(acc << (6 - bits)) & 63];
    out[n] = '\0';
}

int gr_uuid_parse(const char *s, size_t len, gr_uuid_t *out)
{
    if (len != GR_UUID_STRING_CHARS)
        return -EINVAL;
    gr_uuid_t id;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        const char *hit = s[i] ? strchr(base64url, s[i]) : NULL;
        if (!hit)
            return -EINVAL;
        acc = acc << 6 | (uint32_t)(hit - base64url);
        bits += 6;
        if (bits >= 8) {
            id.b[n++] = (uint8_t)(acc >> (bits - 8));
            bits -= 8;
        }
    }
    /* 22 characters carry 132 bits: the 4 left over must be zero (canonical form). */
    if (acc & ((1u << bits) - 1))
        return -EINVAL;
    *out = id;
    return 0;
}
