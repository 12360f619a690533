/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Record batches (message format v2, "magic 2"), kept as opaque bytes by the
 * codec and handled here: header parsing, validation (lengths, CRC-32C,
 * record count and offset deltas), record iteration, and the in-place rewrites
 * the broker does on append (base offset and partition leader epoch, which the
 * CRC does not cover; the timestamp type and maxTimestamp, which it does).
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compress.h" /* gr_compression_t */
#include "kerr.h"
#include "reader.h"
#include "types.h"
#include "writer.h"

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
/*
 * Sets the timestamp type (the LogAppendTime attribute bit, on or off) and
 * maxTimestamp of the whole batch of size bytes, rewriting the CRC-32C only
 * when either changes. Precondition: size >= GR_RECORD_BATCH_HEADER_SIZE.
 * Returns true when the batch was changed.
 */
bool gr_batch_set_max_timestamp(uint8_t *batch, size_t size, bool log_append_time,
                                int64_t timestamp);

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
 * Reads the next header from a record's raw headers (a reader over
 * rec->headers, rec->headers_len). Header keys are never null; a value may be
 * (len GR_NULL_LEN). Returns 1 and fills key and value (pointing into the
 * headers), 0 when the reader is empty, -EBADMSG on malformed bytes.
 */
int gr_record_header_next(gr_reader_t *r, gr_str_t *key, gr_bytes_t *value);

/*
 * Decompressed records sections larger than this are refused: a batch of at
 * most message.max.bytes must not expand into unbounded memory.
 */
#define GR_BATCH_MAX_DECOMPRESSED (64u << 20)

/* The codec in a batch's attributes (values above ZSTD are unknown codecs). */
static inline gr_compression_t gr_batch_compression(const gr_batch_header_t *h)
{
    return (gr_compression_t)(h->attributes & GR_BATCH_ATTR_COMPRESSION_MASK);
}

/*
 * Validates one whole batch of exactly size bytes as the broker does on
 * produce: magic 2, batchLength == size - 12, CRC-32C, records count and
 * offset deltas (0..count-1 in order, lastOffsetDelta == count - 1), record
 * lengths and headers well formed (decompressing when compressed).
 * Returns GR_KERR_NONE;
 *   GR_KERR_CORRUPT_MESSAGE for a batch whose framing is broken (short,
 *     batchLength not matching size, unknown magic, CRC mismatch) or whose
 *     compressed bytes do not decompress;
 *   GR_KERR_INVALID_RECORD for a well-framed batch whose contents break the
 *     format (magic 0/1 in a v3+ produce, count <= 0 or not matching
 *     lastOffsetDelta, malformed or misnumbered records, bytes left over),
 *     which is what Kafka 3.x answers for these;
 *   GR_KERR_UNSUPPORTED_COMPRESSION_TYPE for codec ids 5-7;
 *   GR_KERR_MESSAGE_TOO_LARGE if the records decompress to more than
 *     GR_BATCH_MAX_DECOMPRESSED bytes;
 *   GR_KERR_UNKNOWN_SERVER_ERROR if memory runs out.
 * Policy that depends on who sends the batch (control batches or a base
 * sequence from clients, timestamps against the topic's limits) is left to
 * the caller. Never reads outside [batch, batch + size).
 */
gr_kerr_t gr_batch_validate(const uint8_t *batch, size_t size);

/* As gr_batch_validate() with the decompressed-size limit given. */
gr_kerr_t gr_batch_validate_limit(const uint8_t *batch, size_t size, size_t max_decompressed);

/* A record without a timestamp (Kafka's RecordBatch.NO_TIMESTAMP). */
#define GR_RECORD_NO_TIMESTAMP (-1LL)

/*
 * What validating a batch learns of its records' timestamps, each being
 * baseTimestamp + timestampDelta (wrapping as Java's long does), whatever
 * the header's maxTimestamp or timestamp type says. Record indexes are
 * offset deltas (validation checks that they count 0, 1, ...).
 */
typedef struct gr_batch_summary {
    /* Largest timestamp above GR_RECORD_NO_TIMESTAMP, else GR_RECORD_NO_TIMESTAMP (Kafka's
     * running maximum starts at -1), and the first record holding it, else -1. */
    int64_t max_timestamp;
    int32_t max_timestamp_index;
    /* Smallest timestamp other than GR_RECORD_NO_TIMESTAMP and the first record holding it,
     * -1 if every record has none: with max_timestamp, the two records that can break a
     * before/after window. */
    int64_t min_timestamp;
    int32_t min_timestamp_index;
} gr_batch_summary_t;

/*
 * As gr_batch_validate_limit(), in the same single walk over the records
 * (decompressed once when the batch is compressed), filling *out when the
 * batch is valid (GR_KERR_NONE); *out is undefined otherwise.
 */
gr_kerr_t gr_batch_validate_summary(const uint8_t *batch, size_t size, size_t max_decompressed,
                                    gr_batch_summary_t *out /* out */);

/*
 * Shown each record of a batch as validation walks it, in order, once the
 * record itself is well formed and numbered right: index is its offset
 * delta, timestamp its own (baseTimestamp + timestampDelta, wrapping). rec
 * and what it points to are valid only during the call. A later record may
 * still make the batch invalid: what a visitor gathers counts only if the
 * walk answers GR_KERR_NONE.
 */
typedef void (*gr_record_visit_fn)(void *arg, int32_t index, const gr_record_t *rec,
                                   int64_t timestamp);

/*
 * As gr_batch_validate_summary(), calling visit(arg, ...) for every record
 * on the way (the batch decompressed once, when compressed). visit may be
 * NULL. A control batch's records are shown too.
 */
gr_kerr_t gr_batch_validate_visit(const uint8_t *batch, size_t size, size_t max_decompressed,
                                  gr_record_visit_fn visit, void *arg,
                                  gr_batch_summary_t *out /* out */);

/*
 * Copies the records section (what follows the 61-byte header) of a whole
 * batch of size bytes into a new buffer, decompressing it when the batch is
 * compressed; at most GR_BATCH_MAX_DECOMPRESSED bytes. Does not check the CRC.
 * Returns 0 with *out malloc'd (caller frees) and *out_len set; -EBADMSG if
 * size is below the header size or the records do not decompress, -ENOTSUP
 * for an unknown codec, -EMSGSIZE if too large, -ENOMEM.
 */
int gr_batch_decompress(const uint8_t *batch, size_t size, uint8_t **out, size_t *out_len);

/*
 * Appends a complete v2 batch holding count records to w, compressed with
 * codec. From h it takes base_offset, partition_leader_epoch, attributes
 * (but for the codec bits, which become codec), last_offset_delta,
 * base_timestamp, max_timestamp, producer_id, producer_epoch and
 * base_sequence; batch_length, magic, crc and records_count are computed.
 * Records are written as given (offset deltas included); their headers are
 * copied raw. Returns 0, -EINVAL for count < 0 or a record with a key/value
 * length below -1 or a negative header count, -ENOTSUP for an unknown codec,
 * -EMSGSIZE if the batch exceeds 2 GiB, or the writer's or codec's error
 * (then w holds a partial batch: reset or discard it).
 */
int gr_batch_build(gr_writer_t *w, const gr_batch_header_t *h, const gr_record_t *recs, int count,
                   gr_compression_t codec);

/*
 * Appends to w the batch of size bytes rewritten with codec: same header
 * fields (offsets, timestamps, producer fields, control and transactional
 * bits) and the same records, recompressed. Returns 0, or as
 * gr_batch_decompress / gr_batch_build.
 */
int gr_batch_recompress(const uint8_t *batch, size_t size, gr_compression_t codec, gr_writer_t *w);

#endif
