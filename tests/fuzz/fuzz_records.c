/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for record batches (src/protocol/records.c) on arbitrary
 * bytes, read as a log segment would be: batch after batch.
 *
 * For each batch: gr_batch_validate_limit() on exactly its bytes (with a
 * small decompression limit so a compression bomb costs little), and, when
 * the batch is valid, iteration of its records and their headers, which must
 * then succeed, followed by a rebuild with gr_batch_build() that must
 * validate and iterate to the same records. The whole input is also given to
 * gr_batch_validate() as one batch, and the record iterator runs on the raw
 * bytes after the header with whatever count the header claims. Any broken
 * property calls abort().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/records.h"

#define FUZZ_DECOMPRESS_LIMIT (1u << 20)
#define FUZZ_MAX_RECORDS      4096

static void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz_records: %s\n", what);
    abort();
}

/* Walks a record's raw headers; returns how many, or -1 on an error. */
static int fuzz_headers(const gr_record_t *rec)
{
    gr_reader_t r;
    gr_str_t key;
    gr_bytes_t value;
    int n = 0, rc;
    gr_reader_init(&r, rec->headers, rec->headers_len);
    while ((rc = gr_record_header_next(&r, &key, &value)) == 1) {
        if (key.len < 0 || value.len < GR_NULL_LEN)
            fuzz_fail("header with an impossible length");
        n++;
    }
    return rc < 0 ? -1 : n;
}

static bool fuzz_bytes_eq(gr_bytes_t a, gr_bytes_t b)
{
    return gr_bytes_eq(a, b);
}

/*
 * Reads up to max records from a records section into recs (may be NULL);
 * returns the count read, or -1 when the iterator reports an error.
 */
static int fuzz_iterate(const uint8_t *p, size_t len, int32_t count, gr_record_t *recs, int max)
{
    gr_record_iter_t it;
    gr_record_t rec;
    int n = 0, rc;
    gr_record_iter_init(&it, p, len, count);
    while ((rc = gr_record_iter_next(&it, &rec)) == 1) {
        if (it.p < p || it.p > p + len)
            fuzz_fail("iterator left its buffer");
        if (fuzz_headers(&rec) < 0)
            return -1;
        if (recs && n < max)
            recs[n] = rec;
        n++;
    }
    return rc < 0 ? -1 : n;
}

/* A batch that validated: its records must iterate and rebuild. */
static void fuzz_valid_batch(const uint8_t *batch, size_t size)
{
    gr_batch_header_t h;
    if (gr_batch_header_parse(batch, size, &h) != 0)
        fuzz_fail("valid batch whose header does not parse");
    uint8_t *plain = NULL;
    size_t plain_len = 0;
    if (gr_batch_decompress(batch, size, &plain, &plain_len) != 0)
        fuzz_fail("valid batch that does not decompress");
    if (h.records_count > FUZZ_MAX_RECORDS) {
        free(plain);
        return;
    }
    gr_record_t *recs = calloc((size_t)h.records_count, sizeof(*recs));
    if (!recs)
        abort();
    int n = fuzz_iterate(plain, plain_len, h.records_count, recs, h.records_count);
    if (n != h.records_count)
        fuzz_fail("valid batch whose records do not iterate");

    gr_writer_t w;
    gr_writer_init(&w);
    if (gr_batch_build(&w, &h, recs, n, gr_batch_compression(&h)) != 0)
        fuzz_fail("rebuild of a valid batch failed");
    if (gr_batch_validate(w.buf, w.len) != GR_KERR_NONE)
        fuzz_fail("rebuilt batch does not validate");

    uint8_t *plain2 = NULL;
    size_t plain2_len = 0;
    if (gr_batch_decompress(w.buf, w.len, &plain2, &plain2_len) != 0)
        fuzz_fail("rebuilt batch does not decompress");
    gr_record_iter_t it;
    gr_record_t rec;
    gr_record_iter_init(&it, plain2, plain2_len, n);
    for (int i = 0; i < n; i++) {
        if (gr_record_iter_next(&it, &rec) != 1)
            fuzz_fail("rebuilt batch lost a record");
        if (rec.attributes != recs[i].attributes ||
            rec.timestamp_delta != recs[i].timestamp_delta ||
            rec.offset_delta != recs[i].offset_delta || !fuzz_bytes_eq(rec.key, recs[i].key) ||
            !fuzz_bytes_eq(rec.value, recs[i].value) || rec.header_count != recs[i].header_count ||
            rec.headers_len != recs[i].headers_len ||
            memcmp(rec.headers, recs[i].headers, rec.headers_len) != 0)
            fuzz_fail("rebuilt record differs");
    }
    free(plain2);
    gr_writer_fini(&w);
    free(recs);
    free(plain);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gr_batch_header_t h;

    /* The whole input as one batch, as a produce request's records. */
    if (gr_batch_validate_limit(data, size, FUZZ_DECOMPRESS_LIMIT) == GR_KERR_NONE)
        fuzz_valid_batch(data, size);

    /* The records section as is, trusting the header's count. */
    if (gr_batch_header_parse(data, size, &h) == 0)
        (void)fuzz_iterate(data + GR_RECORD_BATCH_HEADER_SIZE, size - GR_RECORD_BATCH_HEADER_SIZE,
                           h.records_count, NULL, 0);

    /* Batch after batch, as in a segment file. */
    size_t pos = 0;
    while (pos < size && gr_batch_header_parse(data + pos, size - pos, &h) == 0) {
        int64_t batch_size = gr_batch_size(&h);
        if (batch_size < GR_RECORD_BATCH_HEADER_SIZE || (uint64_t)batch_size > size - pos)
            break;
        if (gr_batch_validate_limit(data + pos, (size_t)batch_size, FUZZ_DECOMPRESS_LIMIT) ==
            GR_KERR_NONE)
            fuzz_valid_batch(data + pos, (size_t)batch_size);
        pos += (size_t)batch_size;
    }
    return 0;
}
