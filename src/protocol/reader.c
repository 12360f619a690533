/* SPDX-License-Identifier: Apache-2.0 */
/* Primitive readers: see reader.h. Pure functions of their reader. */
#include "reader.h"

#include <errno.h>
#include <string.h>

#define GR_UVARINT_MAX_BYTES  5
#define GR_UVARLONG_MAX_BYTES 10

void gr_reader_fail(gr_reader_t *r, int err)
{
    if (!r->err)
        r->err = err;
    r->p = r->end;
}

/* Returns the next n bytes, or NULL (and fails the reader) if fewer remain. */
static const uint8_t *take(gr_reader_t *r, size_t n)
{
    if (r->err)
        return NULL;
    if (gr_reader_left(r) < n) {
        gr_reader_fail(r, -ENODATA);
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    return p;
}

static uint64_t load_be(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

int8_t gr_read_int8(gr_reader_t *r)
{
    const uint8_t *p = take(r, 1);
    return p ? (int8_t)p[0] : 0;
}

int16_t gr_read_int16(gr_reader_t *r)
{
    return (int16_t)gr_read_uint16(r);
}

uint16_t gr_read_uint16(gr_reader_t *r)
{
    const uint8_t *p = take(r, 2);
    return p ? (uint16_t)load_be(p, 2) : 0;
}

int32_t gr_read_int32(gr_reader_t *r)
{
    return (int32_t)gr_read_uint32(r);
}

uint32_t gr_read_uint32(gr_reader_t *r)
{
    const uint8_t *p = take(r, 4);
    return p ? (uint32_t)load_be(p, 4) : 0;
}

int64_t gr_read_int64(gr_reader_t *r)
{
    const uint8_t *p = take(r, 8);
    return p ? (int64_t)load_be(p, 8) : 0;
}

double gr_read_float64(gr_reader_t *r)
{
    uint64_t bits = (uint64_t)gr_read_int64(r);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

bool gr_read_bool(gr_reader_t *r)
{
    return gr_read_int8(r) != 0;
}

gr_uuid_t gr_read_uuid(gr_reader_t *r)
{
    gr_uuid_t u = {{0}};
    const uint8_t *p = take(r, sizeof u.b);
    if (p)
        memcpy(u.b, p, sizeof u.b);
    return u;
}

static uint64_t read_leb128(gr_reader_t *r, int max_bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; i++) {
        const uint8_t *p = take(r, 1);
        if (!p)
            return 0;
        v |= (uint64_t)(*p & 0x7f) << (7 * i);
        if (!(*p & 0x80))
            return v;
    }
    gr_reader_fail(r, -EBADMSG);
    return 0;
}

uint32_t gr_read_uvarint(gr_reader_t *r)
{
    uint64_t v = read_leb128(r, GR_UVARINT_MAX_BYTES);
    if (v > UINT32_MAX) {
        gr_reader_fail(r, -EBADMSG);
        return 0;
    }
    return (uint32_t)v;
}

uint64_t gr_read_uvarlong(gr_reader_t *r)
{
    return read_leb128(r, GR_UVARLONG_MAX_BYTES);
}

int32_t gr_read_varint(gr_reader_t *r)
{
    uint32_t u = gr_read_uvarint(r);
    return (int32_t)((u >> 1) ^ (~(u & 1) + 1));
}

int64_t gr_read_varlong(gr_reader_t *r)
{
    uint64_t u = gr_read_uvarlong(r);
    return (int64_t)((u >> 1) ^ (~(u & 1) + 1));
}

const uint8_t *gr_read_raw(gr_reader_t *r, size_t n)
{
    return take(r, n);
}

/* Checks that len elements of at least min_size bytes can still follow. */
static int32_t check_len(gr_reader_t *r, int64_t len, size_t min_size)
{
    if (r->err)
        return 0;
    if (len < GR_NULL_LEN || len > INT32_MAX) {
        gr_reader_fail(r, -EBADMSG);
        return 0;
    }
    if (len > 0 && (uint64_t)len * min_size > gr_reader_left(r)) {
        gr_reader_fail(r, -ENODATA);
        return 0;
    }
    return (int32_t)len;
}

static int64_t read_compact_len(gr_reader_t *r)
{
    return (int64_t)gr_read_uvarint(r) - 1;
}

int32_t gr_read_string_len(gr_reader_t *r, bool compact)
{
    int64_t len = compact ? read_compact_len(r) : gr_read_int16(r);
    return check_len(r, len, 1);
}

int32_t gr_read_bytes_len(gr_reader_t *r, bool compact)
{
    int64_t len = compact ? read_compact_len(r) : gr_read_int32(r);
    return check_len(r, len, 1);
}

int32_t gr_read_array_len(gr_reader_t *r, bool compact)
{
    int64_t len = compact ? read_compact_len(r) : gr_read_int32(r);
    return check_len(r, len, 1);
}

gr_str_t gr_read_string(gr_reader_t *r, bool compact)
{
    gr_str_t s = {NULL, gr_read_string_len(r, compact)};
    if (r->err)
        s.len = 0;
    if (s.len > 0)
        s.ptr = (const char *)take(r, (size_t)s.len);
    else if (s.len == 0)
        s.ptr = "";
    return s;
}

gr_bytes_t gr_read_bytes(gr_reader_t *r, bool compact)
{
    gr_bytes_t b = {NULL, gr_read_bytes_len(r, compact)};
    if (r->err)
        b.len = 0;
    if (b.len > 0)
        b.ptr = take(r, (size_t)b.len);
    else if (b.len == 0)
        b.ptr = (const uint8_t *)"";
    return b;
}

void gr_read_skip_tags(gr_reader_t *r)
{
    uint32_t count = gr_read_uvarint(r);
    if (count > gr_reader_left(r)) {
        gr_reader_fail(r, -ENODATA);
        return;
    }
    for (uint32_t i = 0; i < count && !r->err; i++) {
        (void)gr_read_uvarint(r); /* tag */
        uint32_t size = gr_read_uvarint(r);
        (void)take(r, size);
    }
}
