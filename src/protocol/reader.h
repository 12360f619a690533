/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bounds-checked reading of Kafka's primitive types from a byte buffer.
 *
 * The error is sticky: the first failed read sets r->err to a negative errno
 * (-EBADMSG for malformed input, -ENODATA for reading past the end) and every
 * later read returns zero values, so a decoder may check once at the end of a
 * structure. Nothing is ever read outside [p, end).
 */
#ifndef GR_PROTOCOL_READER_H
#define GR_PROTOCOL_READER_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

typedef struct gr_reader {
    const uint8_t *p;
    const uint8_t *end;
    int err; /* 0 or negative errno, sticky */
} gr_reader_t;

static inline void gr_reader_init(gr_reader_t *r, const void *buf, size_t len)
{
    r->p = buf;
    r->end = len ? r->p + len : r->p; /* buf may be NULL when len is 0 */
    r->err = 0;
}

static inline size_t gr_reader_left(const gr_reader_t *r)
{
    return (size_t)(r->end - r->p);
}

void gr_reader_fail(gr_reader_t *r, int err);

int8_t gr_read_int8(gr_reader_t *r);
int16_t gr_read_int16(gr_reader_t *r);
uint16_t gr_read_uint16(gr_reader_t *r);
int32_t gr_read_int32(gr_reader_t *r);
uint32_t gr_read_uint32(gr_reader_t *r);
int64_t gr_read_int64(gr_reader_t *r);
double gr_read_float64(gr_reader_t *r);
bool gr_read_bool(gr_reader_t *r);
gr_uuid_t gr_read_uuid(gr_reader_t *r);

/* Unsigned LEB128 varint of at most 5 bytes (32 bits). */
uint32_t gr_read_uvarint(gr_reader_t *r);
/* Zig-zag signed varint (32 bits) and varlong (64 bits). */
int32_t gr_read_varint(gr_reader_t *r);
int64_t gr_read_varlong(gr_reader_t *r);
uint64_t gr_read_uvarlong(gr_reader_t *r);

/* Returns a pointer to the next n bytes and skips them, or NULL on error. */
const uint8_t *gr_read_raw(gr_reader_t *r, size_t n);

/*
 * Length prefixes. Classic: int16 (strings) or int32 (bytes, arrays), -1 is
 * null. Compact: unsigned varint of length + 1, 0 is null. All return
 * GR_NULL_LEN for null, check that the length fits the remaining bytes
 * (elements of arrays take at least one byte each) and fail otherwise.
 */
int32_t gr_read_string_len(gr_reader_t *r, bool compact);
int32_t gr_read_bytes_len(gr_reader_t *r, bool compact);
int32_t gr_read_array_len(gr_reader_t *r, bool compact);

gr_str_t gr_read_string(gr_reader_t *r, bool compact);
gr_bytes_t gr_read_bytes(gr_reader_t *r, bool compact);

/* Skips the tagged-field section of a flexible struct, keeping none. */
void gr_read_skip_tags(gr_reader_t *r);

#endif
