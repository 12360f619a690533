/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A partition's idempotent-producer state: for every producer id that wrote
 * to the partition, its epoch and the sequence ranges and offsets of its
 * last GR_PRODUCER_BATCHES_KEPT batches (the window a producer can retry
 * into: clients keep at most five requests in flight per partition).
 *
 * Checks on a new batch (gr_producer_state_check), in Kafka's order:
 *   epoch below the producer's epoch           → STALE_EPOCH
 *   same epoch, same first and last sequence as
 *   a kept batch                                → DUPLICATE (its offsets)
 *   new epoch: the sequence must start at 0     → else OUT_OF_ORDER
 *   same epoch: first sequence must follow the
 *   last one (wrapping after INT32_MAX)         → else OUT_OF_ORDER
 *   unknown producer (never seen, or expired)   → APPEND at any sequence
 *     (Kafka ≥ 2.5 accepts it: the state may have gone with retention)
 * gr_producer_state_update records an appended batch; the log calls it for
 * every batch with a producer id it writes or replays, so the state is a
 * function of the log.
 *
 * Snapshot files ("<20-digit offset>.snapshot" in the partition dir) hold
 * the state as of that offset in Kafka's layout:
 *   int16 version (1), uint32 CRC-32C of what follows, int32 entry count,
 *   entries of { int64 producer id, int16 epoch, int32 last sequence,
 *                int64 last offset, int32 offset delta, int64 timestamp,
 *                int32 coordinator epoch, int64 current txn first offset }
 * all big-endian. Kafka writes one entry per producer (its last batch);
 * Gregor writes one per kept batch, oldest first, so the whole retry window
 * survives a restart. A reader that keeps the last entry per producer (as
 * Kafka's does) gets the same state Kafka would have written.
 *
 * Runs on: the loop thread (owned by the partition's gr_log_t).
 */
#ifndef GR_LOG_PRODUCER_STATE_H
#define GR_LOG_PRODUCER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/io.h"
#include "protocol/records.h"

#define GR_PRODUCER_BATCHES_KEPT      5
#define GR_PRODUCER_NO_ID             (-1LL)
#define GR_PRODUCER_NO_EPOCH          (-1)
#define GR_PRODUCER_NO_SEQUENCE       (-1)
#define GR_PRODUCER_SNAPSHOT_VERSION  1
#define GR_PRODUCER_SNAPSHOT_HEADER   10 /* version, CRC, entry count */
#define GR_PRODUCER_SNAPSHOT_ENTRY    46
#define GR_PRODUCER_SNAPSHOT_SUFFIX   ".snapshot"
#define GR_PRODUCER_SNAPSHOT_MAX_SIZE (64u << 20)

/* One appended batch of a producer. */
typedef struct gr_producer_batch {
    int32_t first_seq;
    int32_t last_seq;
    int64_t first_offset;
    int64_t last_offset;
    int64_t timestamp; /* the batch's max timestamp */
} gr_producer_batch_t;

typedef struct gr_producer_entry {
    int64_t producer_id;
    int16_t epoch;
    int32_t coordinator_epoch;        /* -1: no transaction marker seen */
    int64_t current_txn_first_offset; /* -1: no open transaction */
    int64_t last_timestamp;           /* of the last batch or marker, for expiry */
    int nbatches;                     /* kept batches, oldest first */
    gr_producer_batch_t batches[GR_PRODUCER_BATCHES_KEPT];
} gr_producer_entry_t;

/* The producers of one partition, sorted by producer id. */
typedef struct gr_producer_state {
    gr_producer_entry_t *entries;
    size_t count, cap;
} gr_producer_state_t;

typedef enum gr_producer_check {
    GR_PRODUCER_APPEND = 0,   /* in sequence (or no producer id): append it */
    GR_PRODUCER_DUPLICATE,    /* already appended: answer with its offsets */
    GR_PRODUCER_STALE_EPOCH,  /* an older epoch than the producer's */
    GR_PRODUCER_OUT_OF_ORDER, /* a gap, or a new epoch not starting at 0 */
} gr_producer_check_t;

void gr_producer_state_init(gr_producer_state_t *ps);
void gr_producer_state_fini(gr_producer_state_t *ps);
/* Forgets every producer. */
void gr_producer_state_clear(gr_producer_state_t *ps);

/* The producer's entry, or NULL. */
const gr_producer_entry_t *gr_producer_state_find(const gr_producer_state_t *ps,
                                                  int64_t producer_id);

/*
 * Checks a batch header (as the client sent it) against the state; see the
 * file comment. On DUPLICATE, *dup (may be NULL) gets the original batch.
 */
gr_producer_check_t gr_producer_state_check(const gr_producer_state_t *ps,
                                            const gr_batch_header_t *h,
                                            gr_producer_batch_t *dup /* out */);

/*
 * Makes room for n more producers, so that the next n updates cannot fail
 * (the log reserves before writing: a batch appended but not recorded would
 * be appended again when retried). Returns 0 or -ENOMEM.
 */
int gr_producer_state_reserve(gr_producer_state_t *ps, size_t n);

/*
 * Records an appended batch (h->base_offset is its assigned offset). Batches
 * without a producer id are ignored. A control batch moves only the epoch
 * and timestamp. Returns 0 or -ENOMEM (never after a reserve for it).
 */
int gr_producer_state_update(gr_producer_state_t *ps, const gr_batch_header_t *h);

/*
 * Forgets producers with no open transaction whose last timestamp is
 * expiration_ms or more before now_ms (producer.id.expiration.ms).
 * Returns the number removed.
 */
size_t gr_producer_state_expire(gr_producer_state_t *ps, int64_t now_ms, int64_t expiration_ms);

/* The last sequence of an entry, or -1 if it has no batch. */
int32_t gr_producer_entry_last_seq(const gr_producer_entry_t *e);

/*
 * Writes the state to path (atomically: temp file, fsync, rename, dir
 * fsync). Returns 0 or -errno.
 */
int gr_producer_state_write(const gr_producer_state_t *ps, const gr_io_ops_t *io, const char *path);

/*
 * Replaces the state with the snapshot at path. Returns 0, -ENOENT,
 * -EINVAL (bad version, CRC or length: the state is left empty), -ENOMEM
 * or -errno.
 */
int gr_producer_state_read(gr_producer_state_t *ps, const gr_io_ops_t *io, const char *path);

#endif
