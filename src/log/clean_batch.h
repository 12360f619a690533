/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compaction of one record batch: what the cleaner keeps of it. (The rule
 * that gives it keys to keep, no record without one on produce, is checked
 * with the other per-record rules: protocol/batch_timestamps.h.)
 *
 * A record survives cleaning when it has a key, no later record of that key
 * is in the key map (its offset is >= the map's), and it is not a tombstone
 * whose delete horizon has passed. Batches keep their base offset, last
 * offset delta, producer id/epoch/base sequence, leader epoch, timestamp type
 * and codec; kept records keep their offsets and timestamps, so gaps appear
 * and consumers skip them. A batch that loses nothing is copied byte for
 * byte; one that loses everything disappears (but the cleaner keeps a
 * producer's last batch, emptied: gr_clean_batch_write_empty).
 *
 * Tombstones (null values) follow Kafka's KIP-534: the first cleaning that
 * keeps a tombstone stamps its batch with a delete horizon (attribute bit
 * 0x40, the horizon stored as the batch's base timestamp, record timestamp
 * deltas rebased so record timestamps do not change) of now +
 * delete.retention.ms; a later cleaning after the horizon drops it.
 *
 * Transactions (clean_txn.h decides, the job applies): a batch of an
 * aborted transaction is discarded whole and never mapped; a committed
 * transactional batch is compacted like any other; a control batch
 * (marker) is never compacted here: it is kept whole, stamped with a delete
 * horizon once its transaction's batches are gone
 * (gr_clean_batch_stamp_horizon), and dropped after it.
 *
 * Runs on: any thread (pure functions over buffers).
 */
#ifndef GR_LOG_CLEAN_BATCH_H
#define GR_LOG_CLEAN_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/log.h"
#include "log/offset_map.h"
#include "protocol/kerr.h"
#include "protocol/records.h"
#include "protocol/writer.h"

typedef struct gr_clean_batch_result {
    int32_t records_in;        /* records in the batch */
    int32_t records_kept;      /* records written to out */
    int32_t tombstones_kept;   /* of those, null values */
    int64_t delete_horizon_ms; /* when a kept tombstone or marker goes; -1 if none */
    int64_t max_timestamp;     /* the written batch's max timestamp */
    int64_t last_offset;       /* the written batch's last offset */
} gr_clean_batch_result_t;

/* True for batches gr_clean_batch keeps whole and never maps: markers. */
static inline bool gr_clean_batch_keeps_whole(const gr_batch_header_t *h)
{
    return (h->attributes & GR_BATCH_ATTR_CONTROL) != 0;
}

/*
 * Puts the keyed records of the whole batch (size bytes) whose offset is >=
 * from into map (records of batches kept whole are not mapped).
 * Precondition: gr_offset_map_room(map, records_count of the batch).
 * Returns the number of records mapped, -EBADMSG (undecodable), -ENOTSUP
 * (unknown codec), -EMSGSIZE or -ENOMEM.
 */
int gr_clean_batch_map(const uint8_t *batch, size_t size, int64_t from, gr_offset_map_t *map);

/*
 * Appends to out what survives of the whole batch (size bytes) against map
 * at now_ms (see the rules above), recompressed with the batch's own codec
 * when rewritten; nothing when no record survives. res is always filled.
 * Returns 0, -EBADMSG, -ENOTSUP, -EMSGSIZE or -ENOMEM (out may then hold a
 * partial batch).
 */
int gr_clean_batch(const uint8_t *batch, size_t size, const gr_offset_map_t *map, int64_t now_ms,
                   int64_t delete_retention_ms, gr_writer_t *out, gr_clean_batch_result_t *res);

/*
 * Appends to out the whole batch (size bytes) with every record kept and
 * its delete horizon set to horizon_ms (attribute bit, base timestamp,
 * record timestamps unchanged): a marker whose transaction is gone. res is
 * filled. 0, -EBADMSG, -ENOTSUP, -EMSGSIZE or -ENOMEM.
 */
int gr_clean_batch_stamp_horizon(const uint8_t *batch, size_t size, int64_t horizon_ms,
                                 gr_writer_t *out, gr_clean_batch_result_t *res);

/*
 * Appends to out the batch (size bytes) emptied: same offsets, producer
 * fields and epoch, no records, uncompressed, both timestamps its max
 * timestamp. The cleaner keeps this in place of an idempotent producer's
 * last batch when all its records were superseded, so the producer's last
 * sequence survives in the log (as Kafka's cleaner does). 0, -EBADMSG or the
 * writer's error.
 */
int gr_clean_batch_write_empty(const uint8_t *batch, size_t size, gr_writer_t *out);

#endif
