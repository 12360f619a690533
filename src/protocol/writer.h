/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing Kafka's primitive types into a growing buffer.
 *
 * Like the reader, the error is sticky (-ENOMEM, or -EINVAL when a caller
 * asks to encode something the version cannot carry), so encoders check once.
 *
 * Records that live in a file are not copied: gr_write_records() notes a
 * "file hole" at the current position and the output chain later sends the
 * file range there (see src/net/chain.h). The buffer itself then holds
 * everything but those ranges.
 */
#ifndef GR_PROTOCOL_WRITER_H
#define GR_PROTOCOL_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

typedef struct gr_writer_hole {
    size_t pos; /* offset in the buffer where the file bytes go */
    void *file;
    int64_t file_off;
    int32_t len;
} gr_writer_hole_t;

typedef struct gr_writer {
    uint8_t *buf;
    size_t len;
    size_t cap;
    gr_writer_hole_t *holes;
    size_t hole_count;
    size_t hole_cap;
    int64_t hole_bytes; /* total length of all holes */
    int err;
} gr_writer_t;

void gr_writer_init(gr_writer_t *w);
void gr_writer_fini(gr_writer_t *w);
/* Empties the writer, keeping its memory. */
void gr_writer_reset(gr_writer_t *w);
void gr_writer_fail(gr_writer_t *w, int err);

/* Encoded length so far, file holes included. */
static inline int64_t gr_writer_total(const gr_writer_t *w)
{
    return (int64_t)w->len + w->hole_bytes;
}

void gr_write_raw(gr_writer_t *w, const void *p, size_t n);
/* Reserves n bytes, returning their offset (for a length or CRC patched later). */
size_t gr_write_reserve(gr_writer_t *w, size_t n);
void gr_write_int8(gr_writer_t *w, int8_t v);
void gr_write_int16(gr_writer_t *w, int16_t v);
void gr_write_uint16(gr_writer_t *w, uint16_t v);
void gr_write_int32(gr_writer_t *w, int32_t v);
void gr_write_uint32(gr_writer_t *w, uint32_t v);
void gr_write_int64(gr_writer_t *w, int64_t v);
void gr_write_float64(gr_writer_t *w, double v);
void gr_write_bool(gr_writer_t *w, bool v);
void gr_write_uuid(gr_writer_t *w, gr_uuid_t v);
void gr_write_uvarint(gr_writer_t *w, uint32_t v);
void gr_write_uvarlong(gr_writer_t *w, uint64_t v);
void gr_write_varint(gr_writer_t *w, int32_t v);
void gr_write_varlong(gr_writer_t *w, int64_t v);

/* Big-endian store into already written bytes at pos. */
void gr_writer_put_int32(gr_writer_t *w, size_t pos, int32_t v);

/* Length prefixes: classic int16/int32 or compact uvarint(len + 1). */
void gr_write_string_len(gr_writer_t *w, int32_t len, bool compact);
void gr_write_bytes_len(gr_writer_t *w, int32_t len, bool compact);
void gr_write_array_len(gr_writer_t *w, int32_t len, bool compact);
void gr_write_string(gr_writer_t *w, gr_str_t s, bool compact);
void gr_write_bytes(gr_writer_t *w, gr_bytes_t b, bool compact);
/* Writes records with a bytes prefix; file-backed records become a hole. */
void gr_write_records(gr_writer_t *w, const gr_records_t *rec, bool compact);

/* Sizes of the same encodings, for the generated size functions. */
size_t gr_uvarint_size(uint32_t v);
size_t gr_uvarlong_size(uint64_t v);
size_t gr_varint_size(int32_t v);
size_t gr_varlong_size(int64_t v);
size_t gr_string_len_size(int32_t len, bool compact);
size_t gr_bytes_len_size(int32_t len, bool compact);

#endif
