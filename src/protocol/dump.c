/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The canonical text dump of decoded messages (format: tests/fixtures/README.md).
 * Used by codec tests against the oracle fixtures and by debug logging.
 */
#include "codec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void put(gr_writer_t *t, const char *s)
{
    gr_write_raw(t, s, strlen(s));
}

void gr_dump_char(gr_writer_t *t, char c)
{
    gr_write_raw(t, &c, 1);
}

void gr_dump_key(gr_writer_t *t, int *first, const char *name)
{
    if (!*first)
        gr_dump_char(t, ',');
    *first = 0;
    gr_dump_char(t, '"');
    put(t, name);
    put(t, "\":");
}

void gr_dump_int(gr_writer_t *t, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    put(t, buf);
}

void gr_dump_bool(gr_writer_t *t, bool v)
{
    put(t, v ? "true" : "false");
}

void gr_dump_double(gr_writer_t *t, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    put(t, buf);
}

void gr_dump_null(gr_writer_t *t)
{
    put(t, "null");
}

void gr_dump_str(gr_writer_t *t, gr_str_t s)
{
    if (s.len == GR_NULL_LEN) {
        gr_dump_null(t);
        return;
    }
    gr_dump_char(t, '"');
    for (int32_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c == '"' || c == '\\') {
            gr_dump_char(t, '\\');
            gr_dump_char(t, (char)c);
        } else if (c < 0x20) {
            char buf[8];
            snprintf(buf, sizeof buf, "\\u%04x", c);
            put(t, buf);
        } else {
            gr_dump_char(t, (char)c);
        }
    }
    gr_dump_char(t, '"');
}

void gr_dump_hex(gr_writer_t *t, const uint8_t *p, int32_t len)
{
    static const char digits[] = "0123456789abcdef";
    if (len == GR_NULL_LEN) {
        gr_dump_null(t);
        return;
    }
    gr_dump_char(t, '"');
    for (int32_t i = 0; i < len; i++) {
        gr_dump_char(t, digits[p[i] >> 4]);
        gr_dump_char(t, digits[p[i] & 0xf]);
    }
    gr_dump_char(t, '"');
}

void gr_dump_uuid(gr_writer_t *t, gr_uuid_t u)
{
    gr_dump_hex(t, u.b, (int32_t)sizeof u.b);
}
