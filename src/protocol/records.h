/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Record batches (message format v2, "magic 2"), kept as opaque bytes by the
 * codec and handled here: header parsing, validation (lengths, CRC-32C,
 * record count and offset deltas), record iteration, and the in-place rewrites
 * the broker does on append (base offset and partition leader epoch, which the
 * CRC does not cover; LogAppendTime timestamps, which it does).
 *
 * Batch layout (big-endian):
 *   baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 |
 *   magic int8 | crc uint32 | attributes int16 | lastOffsetDelta int32 |
 *   baseTimestamp int64 | maxTimestamp int64 | producerId int64 |
 *   producerEpoch int16 | baseSequence int32 | recordsCount int32 | records
 * batchLength counts from partitionLeaderEpoch to the end; the CRC-32C covers
 * attributes to the end.
 */
#ifndef GR_PROTOCOL_RECORDS_H
#define GR_PROTOCOL_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "kerr.h"
#include "types.h"

#define GR_RECORD_BATCH_HEADER_SIZE      61
#define GR_RECORD_BATCH_LOG_OVERHEAD     12 /* baseOffset + batchLength */
#define GR_RECORD_BATCH_MAGIC_V2         2
#define GR_RECORD_BATCH_OFFSET_BATCH_LEN 8
#define GR_RECORD_BATCH_OFFSET_EPOCH     12
#define GR_RECORD_BATCH_OFFSET_MAGIC     16
#define GR_RECORD_BATCH_OFFSET_CRC       17
#define GR_RECORD_BATCH_OFFSET_ATTRS     21
#define GR_RECORD_BATCH_OFFSET_MAX_TS    35

/* Attribute bits. */
#define GR_BATCH_ATTR_COMPRESSION_MASK 0x07
#define GR_BATCH_ATTR_LOG_APPEND_TIME  0x08
#define GR_BATCH_ATTR_TRANSACTIONAL    0x10
#define GR_BATCH_ATTR_CONTROL          0x20
#define GR_BATCH_ATTR_DELETE_HORIZON   0x40

typedef enum gr_compression {
    GR_COMPRESSION_NONE = 0,
    GR_COMPRESSION_GZIP = 1,
    GR_COMPRESSION_SNAPPY = 2,
    GR_COMPRESSION_LZ4 = 3,
    GR_COMPRESSION_ZSTD = 4,
} gr_compression_t;

typedef struct gr_batch_header {
    int64_t base_offset;
    int32_t batch_length;
    int32_t partition_leader_epoch;
    int8_t magic;
    uint32_t crc;
    int16_t attributes;
    int32_t last_offset_delta;
    int64_t base_timestamp;
    int64_t max_timestamp;
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t records_count;
} gr_batch_header_t;

/*
 * Parses the fixed header of the batch at p (len bytes available; the batch
 * may continue past len). Returns 0, -ENODATA if fewer than
 * GR_RECORD_BATCH_HEADER_SIZE bytes, -EBADMSG if batchLength is impossible.
 * Does not check the CRC or magic.
 */
int gr_batch_header_parse(const uint8_t *p, size_t len, gr_batch_header_t *out);

/* Total size of the batch on the wire: batchLength + 12. */
static inline int64_t gr_batch_size(const gr_batch_header_t *h)
{
    return (int64_t)h->batch_length + GR_RECORD_BATCH_LOG_OVERHEAD;
}

/* CRC-32C of the batch's bytes from attributes to the end. */
uint32_t gr_batch_compute_crc(const uint8_t *batch, size_t size);
/* True when the stored CRC matches the bytes. */
int gr_batch_crc_ok(const uint8_t *batch, size_t size);

/* In-place rewrites on append (no CRC change needed for these two). */
void gr_batch_set_base_offset(uint8_t *batch, int64_t base_offset);
void gr_batch_set_leader_epoch(uint8_t *batch, int32_t epoch);
/* Sets LogAppendTime (attribute bit, max timestamp) and rewrites the CRC. */
void gr_batch_set_log_append_time(uint8_t *batch, size_t size, int64_t timestamp);

/* One record inside an (uncompressed or decompressed) batch. */
typedef struct gr_record {
    int8_t attributes;
    int64_t timestamp_delta;
    int32_t offset_delta;
    gr_bytes_t key;   /* len GR_NULL_LEN for a null key */
    gr_bytes_t value; /* len GR_NULL_LEN for a null value (tombstone) */
    int32_t header_count;
    const uint8_t *headers; /* raw headers, header_count entries */
    size_t headers_len;
} gr_record_t;

/*
 * Iterates the records section of a batch (after the 61-byte header, already
 * decompressed when the batch is compressed).
 */
typedef struct gr_record_iter {
    const uint8_t *p;
    const uint8_t *end;
    int32_t remaining;
} gr_record_iter_t;

void gr_record_iter_init(gr_record_iter_t *it, const uint8_t *records, size_t len, int32_t count);
/* Returns 1 and fills rec, 0 at the end, -EBADMSG on malformed bytes. */
int gr_record_iter_next(gr_record_iter_t *it, gr_record_t *rec);

/*
 * Validates one whole batch of exactly size bytes as the broker does on
 * produce: magic 2, batchLength == size - 12, CRC-32C, records count and
 * offset deltas (0..count-1 in order, lastOffsetDelta == count - 1), record
 * lengths and headers well formed (decompressing when compressed).
 * Returns GR_KERR_NONE, GR_KERR_CORRUPT_MESSAGE, GR_KERR_INVALID_RECORD or
 * GR_KERR_UNSUPPORTED_COMPRESSION_TYPE.
 */
gr_kerr_t gr_batch_validate(const uint8_t *batch, size_t size);

#endif
