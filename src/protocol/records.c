/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Record batches (magic 2): see records.h for the layout.
 *
 * Everything here works on the batch bytes themselves. Parsing goes through
 * gr_reader_t, so a batch or record that lies about its lengths fails with
 * -EBADMSG/-ENODATA instead of reading past its end. Records are:
 *   length varint | attributes int8 | timestampDelta varlong |
 *   offsetDelta varint | keyLength varint | key | valueLength varint | value |
 *   headerCount varint | headers (keyLength varint, key, valueLength varint,
 *   value)
 * with lengths of -1 meaning null (never for header keys), and length
 * covering exactly the bytes after it.
 *
 * Validation order follows Kafka's: the framing (size, magic, CRC) first, so
 * a damaged batch is CORRUPT_MESSAGE; then the contents, which a client
 * wrote wrongly under a correct CRC, INVALID_RECORD.
 */
#include "records.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"

/* Smallest batchLength: the header after baseOffset and batchLength. */
#define BATCH_MIN_LENGTH (GR_RECORD_BATCH_HEADER_SIZE - GR_RECORD_BATCH_LOG_OVERHEAD)
/* Smallest encoded header: key length and value length, one byte each. */
#define RECORD_HEADER_MIN_SIZE 2

static void store_be(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

int gr_batch_header_parse(const uint8_t *p, size_t len, gr_batch_header_t *out)
{
    if (len < GR_RECORD_BATCH_HEADER_SIZE)
        return -ENODATA;
    gr_reader_t r;
    gr_reader_init(&r, p, GR_RECORD_BATCH_HEADER_SIZE);
    out->base_offset = gr_read_int64(&r);
    out->batch_length = gr_read_int32(&r);
    out->partition_leader_epoch = gr_read_int32(&r);
    out->magic = gr_read_int8(&r);
    out->crc = gr_read_uint32(&r);
    out->attributes = gr_read_int16(&r);
    out->last_offset_delta = gr_read_int32(&r);
    out->base_timestamp = gr_read_int64(&r);
    out->max_timestamp = gr_read_int64(&r);
    out->producer_id = gr_read_int64(&r);
    out->producer_epoch = gr_read_int16(&r);
    out->base_sequence = gr_read_int32(&r);
    out->records_count = gr_read_int32(&r);
    if (r.err)
        return r.err; /* cannot happen: the header size was checked */
    if (out->batch_length < BATCH_MIN_LENGTH)
        return -EBADMSG;
    return 0;
}

uint32_t gr_batch_compute_crc(const uint8_t *batch, size_t size)
{
    if (size < GR_RECORD_BATCH_OFFSET_ATTRS)
        return 0;
    return gr_crc32c(0, batch + GR_RECORD_BATCH_OFFSET_ATTRS, size - GR_RECORD_BATCH_OFFSET_ATTRS);
}

int gr_batch_crc_ok(const uint8_t *batch, size_t size)
{
    if (size < GR_RECORD_BATCH_HEADER_SIZE)
        return 0;
    gr_reader_t r;
    gr_reader_init(&r, batch + GR_RECORD_BATCH_OFFSET_CRC, 4);
    return gr_read_uint32(&r) == gr_batch_compute_crc(batch, size);
}

void gr_batch_set_base_offset(uint8_t *batch, int64_t base_offset)
{
    store_be(batch, (uint64_t)base_offset, 8);
}

void gr_batch_set_leader_epoch(uint8_t *batch, int32_t epoch)
{
    store_be(batch + GR_RECORD_BATCH_OFFSET_EPOCH, (uint32_t)epoch, 4);
}

bool gr_batch_set_max_timestamp(uint8_t *batch, size_t size, bool log_append_time,
                                int64_t timestamp)
{
    assert(size >= GR_RECORD_BATCH_HEADER_SIZE);
    gr_reader_t r;
    gr_reader_init(&r, batch + GR_RECORD_BATCH_OFFSET_ATTRS, 2);
    uint16_t attrs = gr_read_uint16(&r);
    uint16_t want = log_append_time ? attrs | GR_BATCH_ATTR_LOG_APPEND_TIME
                                    : attrs & (uint16_t)~GR_BATCH_ATTR_LOG_APPEND_TIME;
    gr_reader_init(&r, batch + GR_RECORD_BATCH_OFFSET_MAX_TS, 8);
    if (want == attrs && gr_read_int64(&r) == timestamp)
        return false;
    store_be(batch + GR_RECORD_BATCH_OFFSET_ATTRS, want, 2);
    store_be(batch + GR_RECORD_BATCH_OFFSET_MAX_TS, (uint64_t)timestamp, 8);
    store_be(batch + GR_RECORD_BATCH_OFFSET_CRC, gr_batch_compute_crc(batch, size), 4);
    return true;
}

void gr_batch_set_log_append_time(uint8_t *batch, size_t size, int64_t timestamp)
{
    (void)gr_batch_set_max_timestamp(batch, size, true, timestamp);
}

/* ---- records ------------------------------------------------------------ */

void gr_record_iter_init(gr_record_iter_t *it, const uint8_t *records, size_t len, int32_t count)
{
    it->p = records;
    it->end = len ? records + len : records; /* records may be NULL when empty */
    it->remaining = count;
}

/* A varint-prefixed byte string; -1 is null, other negatives are errors. */
static gr_bytes_t read_varbytes(gr_reader_t *r)
{
    gr_bytes_t b = {NULL, gr_read_varint(r)};
    if (b.len < GR_NULL_LEN)
        gr_reader_fail(r, -EBADMSG);
    if (r->err)
        return (gr_bytes_t){NULL, 0};
    if (b.len > 0)
        b.ptr = gr_read_raw(r, (size_t)b.len);
    else if (b.len == 0)
        b.ptr = (const uint8_t *)"";
    return b;
}

/* Checks one header's encoding and returns its parts. */
static void read_header(gr_reader_t *r, gr_str_t *key, gr_bytes_t *value)
{
    gr_bytes_t k = read_varbytes(r);
    if (!r->err && k.len == GR_NULL_LEN)
        gr_reader_fail(r, -EBADMSG); /* header keys are never null */
    key->ptr = (const char *)k.ptr;
    key->len = k.len;
    *value = read_varbytes(r);
}

int gr_record_iter_next(gr_record_iter_t *it, gr_record_t *rec)
{
    if (it->remaining <= 0)
        return 0;
    gr_reader_t r;
    gr_reader_init(&r, it->p, (size_t)(it->end - it->p));
    int32_t len = gr_read_varint(&r);
    if (r.err || len < 0 || (size_t)len > gr_reader_left(&r))
        goto fail;

    gr_reader_t body;
    gr_reader_init(&body, r.p, (size_t)len);
    rec->attributes = gr_read_int8(&body);
    rec->timestamp_delta = gr_read_varlong(&body);
    rec->offset_delta = gr_read_varint(&body);
    rec->key = read_varbytes(&body);
    rec->value = read_varbytes(&body);
    rec->header_count = gr_read_varint(&body);
    if (body.err || rec->header_count < 0 ||
        (uint64_t)rec->header_count * RECORD_HEADER_MIN_SIZE > gr_reader_left(&body))
        goto fail;
    rec->headers = body.p;
    for (int32_t i = 0; i < rec->header_count && !body.err; i++) {
        gr_str_t key;
        gr_bytes_t value;
        read_header(&body, &key, &value);
    }
    /* The length must cover exactly the fields, as Kafka checks. */
    if (body.err || gr_reader_left(&body) != 0)
        goto fail;
    rec->headers_len = (size_t)(body.p - rec->headers);
    it->p = body.p;
    it->remaining--;
    return 1;
fail:
    it->p = it->end;
    it->remaining = 0;
    return -EBADMSG;
}

int gr_record_header_next(gr_reader_t *r, gr_str_t *key, gr_bytes_t *value)
{
    if (r->err)
        return -EBADMSG;
    if (gr_reader_left(r) == 0)
        return 0;
    read_header(r, key, value);
    return r->err ? -EBADMSG : 1;
}

/* ---- whole batches ------------------------------------------------------ */

int gr_batch_decompress(const uint8_t *batch, size_t size, uint8_t **out, size_t *out_len)
{
    gr_batch_header_t h;
    *out = NULL;
    *out_len = 0;
    if (gr_batch_header_parse(batch, size, &h) != 0)
        return -EBADMSG;
    return gr_decompress(gr_batch_compression(&h), batch + GR_RECORD_BATCH_HEADER_SIZE,
                         size - GR_RECORD_BATCH_HEADER_SIZE, GR_BATCH_MAX_DECOMPRESSED, out,
                         out_len);
}

/* Java's long addition: wraps instead of overflowing. */
static int64_t add_wrapping(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* What a walk over a batch's records does beside checking them. */
typedef struct record_walk {
    int64_t base_timestamp;
    gr_record_visit_fn visit; /* may be NULL */
    void *arg;
} record_walk_t;

/*
 * Checks count records numbered 0..count-1 filling exactly len bytes, sums
 * up their timestamps (relative to the base timestamp) in *out and shows
 * each well-formed record to the walk's visitor.
 */
static gr_kerr_t validate_records(const uint8_t *records, size_t len, int32_t count,
                                  const record_walk_t *walk, gr_batch_summary_t *out)
{
    gr_record_iter_t it;
    gr_record_t rec;
    out->max_timestamp = GR_RECORD_NO_TIMESTAMP;
    out->max_timestamp_index = -1;
    out->min_timestamp = GR_RECORD_NO_TIMESTAMP;
    out->min_timestamp_index = -1;
    gr_record_iter_init(&it, records, len, count);
    for (int32_t i = 0; i < count; i++) {
        if (gr_record_iter_next(&it, &rec) != 1)
            return GR_KERR_INVALID_RECORD;
        if (rec.offset_delta != i)
            return GR_KERR_INVALID_RECORD;
        int64_t ts = add_wrapping(walk->base_timestamp, rec.timestamp_delta);
        if (walk->visit)
            walk->visit(walk->arg, i, &rec, ts);
        if (ts > out->max_timestamp) {
            out->max_timestamp = ts;
            out->max_timestamp_index = i;
        }
        if (ts != GR_RECORD_NO_TIMESTAMP &&
            (out->min_timestamp_index < 0 || ts < out->min_timestamp)) {
            out->min_timestamp = ts;
            out->min_timestamp_index = i;
        }
    }
    return it.p == it.end ? GR_KERR_NONE : GR_KERR_INVALID_RECORD;
}

gr_kerr_t gr_batch_validate_limit(const uint8_t *batch, size_t size, size_t max_decompressed)
{
    gr_batch_summary_t summary;
    return gr_batch_validate_summary(batch, size, max_decompressed, &summary);
}

gr_kerr_t gr_batch_validate_summary(const uint8_t *batch, size_t size, size_t max_decompressed,
                                    gr_batch_summary_t *out)
{
    return gr_batch_validate_visit(batch, size, max_decompressed, NULL, NULL, out);
}

gr_kerr_t gr_batch_validate_visit(const uint8_t *batch, size_t size, size_t max_decompressed,
                                  gr_record_visit_fn visit, void *arg, gr_batch_summary_t *out)
{
    gr_batch_header_t h;
    if (gr_batch_header_parse(batch, size, &h) != 0)
        return GR_KERR_CORRUPT_MESSAGE;
    if ((uint64_t)gr_batch_size(&h) != size)
        return GR_KERR_CORRUPT_MESSAGE;
    if (h.magic == 0 || h.magic == 1)
        return GR_KERR_INVALID_RECORD; /* old formats are refused in v3+ produces */
    if (h.magic != GR_RECORD_BATCH_MAGIC_V2)
        return GR_KERR_CORRUPT_MESSAGE;
    if (!gr_batch_crc_ok(batch, size))
        return GR_KERR_CORRUPT_MESSAGE;

    gr_compression_t codec = gr_batch_compression(&h);
    if (!gr_compression_name(codec))
        return GR_KERR_UNSUPPORTED_COMPRESSION_TYPE;
    if (h.records_count <= 0 || h.last_offset_delta < 0 ||
        (int64_t)h.last_offset_delta + 1 != h.records_count)
        return GR_KERR_INVALID_RECORD;

    const record_walk_t walk = {.base_timestamp = h.base_timestamp, .visit = visit, .arg = arg};
    const uint8_t *records = batch + GR_RECORD_BATCH_HEADER_SIZE;
    size_t len = size - GR_RECORD_BATCH_HEADER_SIZE;
    if (codec == GR_COMPRESSION_NONE)
        return validate_records(records, len, h.records_count, &walk, out);

    uint8_t *plain;
    size_t plain_len;
    int err = gr_decompress(codec, records, len, max_decompressed, &plain, &plain_len);
    switch (err) {
    case 0:
        break;
    case -EMSGSIZE:
        return GR_KERR_MESSAGE_TOO_LARGE;
    case -ENOMEM:
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    default:
        return GR_KERR_CORRUPT_MESSAGE;
    }
    gr_kerr_t kerr = validate_records(plain, plain_len, h.records_count, &walk, out);
    free(plain);
    return kerr;
}

gr_kerr_t gr_batch_validate(const uint8_t *batch, size_t size)
{
    return gr_batch_validate_limit(batch, size, GR_BATCH_MAX_DECOMPRESSED);
}

/* ---- building ----------------------------------------------------------- */

static size_t varbytes_size(gr_bytes_t b)
{
    return gr_varint_size(b.len) + (b.len > 0 ? (size_t)b.len : 0);
}

static void write_varbytes(gr_writer_t *w, gr_bytes_t b)
{
    gr_write_varint(w, b.len);
    if (b.len > 0)
        gr_write_raw(w, b.ptr, (size_t)b.len);
}

/* Appends one record. Returns 0, -EINVAL or -EMSGSIZE. */
static int write_record(gr_writer_t *w, const gr_record_t *rec)
{
    if (rec->key.len < GR_NULL_LEN || rec->value.len < GR_NULL_LEN || rec->header_count < 0)
        return -EINVAL;
    uint64_t body = 1 + gr_varlong_size(rec->timestamp_delta) + gr_varint_size(rec->offset_delta) +
                    varbytes_size(rec->key) + varbytes_size(rec->value) +
                    gr_varint_size(rec->header_count) + rec->headers_len;
    if (body > INT32_MAX)
        return -EMSGSIZE;
    gr_write_varint(w, (int32_t)body);
    gr_write_int8(w, rec->attributes);
    gr_write_varlong(w, rec->timestamp_delta);
    gr_write_varint(w, rec->offset_delta);
    write_varbytes(w, rec->key);
    write_varbytes(w, rec->value);
    gr_write_varint(w, rec->header_count);
    if (rec->headers_len)
        gr_write_raw(w, rec->headers, rec->headers_len);
    return 0;
}

static int write_records(gr_writer_t *w, const gr_record_t *recs, int count)
{
    for (int i = 0; i < count && !w->err; i++) {
        int err = write_record(w, &recs[i]);
        if (err)
            return err;
    }
    return w->err;
}

/* Positions of the fields patched once a batch's body is written. */
typedef struct batch_frame {
    size_t start;
    size_t length_pos;
    size_t crc_pos;
} batch_frame_t;

static void write_batch_header(gr_writer_t *w, const gr_batch_header_t *h, int count,
                               gr_compression_t codec, batch_frame_t *frame)
{
    int16_t attrs = (int16_t)((h->attributes & ~GR_BATCH_ATTR_COMPRESSION_MASK) | codec);
    frame->start = w->len;
    gr_write_int64(w, h->base_offset);
    frame->length_pos = gr_write_reserve(w, 4);
    gr_write_int32(w, h->partition_leader_epoch);
    gr_write_int8(w, GR_RECORD_BATCH_MAGIC_V2);
    frame->crc_pos = gr_write_reserve(w, 4);
    gr_write_int16(w, attrs);
    gr_write_int32(w, h->last_offset_delta);
    gr_write_int64(w, h->base_timestamp);
    gr_write_int64(w, h->max_timestamp);
    gr_write_int64(w, h->producer_id);
    gr_write_int16(w, h->producer_epoch);
    gr_write_int32(w, h->base_sequence);
    gr_write_int32(w, count);
}

/* Patches batchLength and the CRC once the body is written. */
static int finish_batch(gr_writer_t *w, const batch_frame_t *frame)
{
    if (w->err)
        return w->err;
    size_t size = w->len - frame->start;
    if (size - GR_RECORD_BATCH_LOG_OVERHEAD > INT32_MAX)
        return -EMSGSIZE;
    gr_writer_put_int32(w, frame->length_pos, (int32_t)(size - GR_RECORD_BATCH_LOG_OVERHEAD));
    gr_writer_put_int32(w, frame->crc_pos,
                        (int32_t)gr_batch_compute_crc(w->buf + frame->start, size));
    return 0;
}

int gr_batch_build(gr_writer_t *w, const gr_batch_header_t *h, const gr_record_t *recs, int count,
                   gr_compression_t codec)
{
    if (count < 0)
        return -EINVAL;
    if (!gr_compression_name(codec))
        return -ENOTSUP;
    if (w->err)
        return w->err;
    batch_frame_t frame;
    write_batch_header(w, h, count, codec, &frame);
    int err;
    if (codec == GR_COMPRESSION_NONE) {
        err = write_records(w, recs, count);
    } else {
        gr_writer_t plain;
        gr_writer_init(&plain);
        err = write_records(&plain, recs, count);
        if (!err)
            err = gr_compress(codec, plain.buf, plain.len, w);
        gr_writer_fini(&plain);
    }
    return err ? err : finish_batch(w, &frame);
}

int gr_batch_recompress(const uint8_t *batch, size_t size, gr_compression_t codec, gr_writer_t *w)
{
    gr_batch_header_t h;
    int rc = gr_batch_header_parse(batch, size, &h);
    if (rc)
        return rc;
    if (!gr_compression_name(codec))
        return -ENOTSUP;
    uint8_t *plain = NULL;
    size_t plain_len = 0;
    rc = gr_batch_decompress(batch, size, &plain, &plain_len);
    if (rc)
        return rc;
    batch_frame_t frame;
    write_batch_header(w, &h, h.records_count, codec, &frame);
    if (codec == GR_COMPRESSION_NONE)
        gr_write_raw(w, plain, plain_len);
    else
        rc = gr_compress(codec, plain, plain_len, w);
    free(plain);
    return rc ? rc : finish_batch(w, &frame);
}
