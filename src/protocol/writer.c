/* SPDX-License-Identifier: Apache-2.0 */
/* Primitive writers: see writer.h. */
#include "writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GR_WRITER_MIN_CAP 256

void gr_writer_init(gr_writer_t *w)
{
    memset(w, 0, sizeof(*w));
}

void gr_writer_fini(gr_writer_t *w)
{
    free(w->buf);
    free(w->holes);
    memset(w, 0, sizeof(*w));
}

void gr_writer_reset(gr_writer_t *w)
{
    w->len = 0;
    w->hole_count = 0;
    w->hole_bytes = 0;
    w->err = 0;
}

void gr_writer_fail(gr_writer_t *w, int err)
{
    if (!w->err)
        w->err = err;
}

/* Makes room for n more bytes; returns where they go, or NULL on failure or n == 0. */
static uint8_t *grow(gr_writer_t *w, size_t n)
{
    if (w->err || n == 0)
        return NULL; /* n == 0: nothing to place, and buf may still be NULL */
    if (w->cap - w->len < n) {
        size_t cap = w->cap ? w->cap : GR_WRITER_MIN_CAP;
        while (cap - w->len < n) {
            if (cap > SIZE_MAX / 2) {
                gr_writer_fail(w, -ENOMEM);
                return NULL;
            }
            cap *= 2;
        }
        uint8_t *buf = realloc(w->buf, cap);
        if (!buf) {
            gr_writer_fail(w, -ENOMEM);
            return NULL;
        }
        w->buf = buf;
        w->cap = cap;
    }
    uint8_t *p = w->buf + w->len;
    w->len += n;
    return p;
}

static void store_be(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static void write_be(gr_writer_t *w, uint64_t v, size_t n)
{
    uint8_t *p = grow(w, n);
    if (p)
        store_be(p, v, n);
}

void gr_write_raw(gr_writer_t *w, const void *src, size_t n)
{
    uint8_t *p = grow(w, n);
    if (p && n)
        memcpy(p, src, n);
}

size_t gr_write_reserve(gr_writer_t *w, size_t n)
{
    size_t pos = w->len;
    uint8_t *p = grow(w, n);
    if (p)
        memset(p, 0, n);
    return pos;
}

void gr_write_int8(gr_writer_t *w, int8_t v)
{
    write_be(w, (uint8_t)v, 1);
}

void gr_write_int16(gr_writer_t *w, int16_t v)
{
    write_be(w, (uint16_t)v, 2);
}

void gr_write_uint16(gr_writer_t *w, uint16_t v)
{
    write_be(w, v, 2);
}

void gr_write_int32(gr_writer_t *w, int32_t v)
{
    write_be(w, (uint32_t)v, 4);
}

void gr_write_uint32(gr_writer_t *w, uint32_t v)
{
    write_be(w, v, 4);
}

void gr_write_int64(gr_writer_t *w, int64_t v)
{
    write_be(w, (uint64_t)v, 8);
}

void gr_write_float64(gr_writer_t *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    write_be(w, bits, 8);
}

void gr_write_bool(gr_writer_t *w, bool v)
{
    write_be(w, v ? 1 : 0, 1);
}

void gr_write_uuid(gr_writer_t *w, gr_uuid_t v)
{
    gr_write_raw(w, v.b, sizeof v.b);
}

void gr_write_uvarlong(gr_writer_t *w, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    gr_write_raw(w, tmp, n);
}

void gr_write_uvarint(gr_writer_t *w, uint32_t v)
{
    gr_write_uvarlong(w, v);
}

void gr_write_varint(gr_writer_t *w, int32_t v)
{
    gr_write_uvarint(w, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}

void gr_write_varlong(gr_writer_t *w, int64_t v)
{
    gr_write_uvarlong(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void gr_writer_put_int32(gr_writer_t *w, size_t pos, int32_t v)
{
    if (!w->err && pos + 4 <= w->len)
        store_be(w->buf + pos, (uint32_t)v, 4);
}

void gr_write_string_len(gr_writer_t *w, int32_t len, bool compact)
{
    if (compact)
        gr_write_uvarint(w, (uint32_t)(len + 1));
    else if (len > INT16_MAX)
        gr_writer_fail(w, -EINVAL);
    else
        gr_write_int16(w, (int16_t)len);
}

void gr_write_bytes_len(gr_writer_t *w, int32_t len, bool compact)
{
    if (compact)
        gr_write_uvarint(w, (uint32_t)(len + 1));
    else
        gr_write_int32(w, len);
}

void gr_write_array_len(gr_writer_t *w, int32_t len, bool compact)
{
    gr_write_bytes_len(w, len, compact);
}

void gr_write_string(gr_writer_t *w, gr_str_t s, bool compact)
{
    gr_write_string_len(w, s.len, compact);
    if (s.len > 0)
        gr_write_raw(w, s.ptr, (size_t)s.len);
}

void gr_write_bytes(gr_writer_t *w, gr_bytes_t b, bool compact)
{
    gr_write_bytes_len(w, b.len, compact);
    if (b.len > 0)
        gr_write_raw(w, b.ptr, (size_t)b.len);
}

static void add_hole(gr_writer_t *w, const gr_records_t *rec)
{
    if (w->err)
        return;
    if (w->hole_count == w->hole_cap) {
        size_t cap = w->hole_cap ? w->hole_cap * 2 : 8;
        gr_writer_hole_t *h = realloc(w->holes, cap * sizeof(*h));
        if (!h) {
            gr_writer_fail(w, -ENOMEM);
            return;
        }
        w->holes = h;
        w->hole_cap = cap;
    }
    gr_writer_hole_t *h = &w->holes[w->hole_count++];
    h->pos = w->len;
    h->file = rec->file;
    h->file_off = rec->file_off;
    h->len = rec->len;
    w->hole_bytes += rec->len;
}

void gr_write_records(gr_writer_t *w, const gr_records_t *rec, bool compact)
{
    gr_write_bytes_len(w, rec->len, compact);
    if (rec->len <= 0)
        return;
    if (rec->file)
        add_hole(w, rec);
    else
        gr_write_raw(w, rec->ptr, (size_t)rec->len);
}

size_t gr_uvarlong_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t gr_uvarint_size(uint32_t v)
{
    return gr_uvarlong_size(v);
}

size_t gr_varint_size(int32_t v)
{
    return gr_uvarint_size(((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}

size_t gr_varlong_size(int64_t v)
{
    return gr_uvarlong_size(((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

size_t gr_string_len_size(int32_t len, bool compact)
{
    return compact ? gr_uvarint_size((uint32_t)(len + 1)) : 2;
}

size_t gr_bytes_len_size(int32_t len, bool compact)
{
    return compact ? gr_uvarint_size((uint32_t)(len + 1)) : 4;
}
