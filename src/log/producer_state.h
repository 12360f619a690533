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
 * Transactions (KIP-98). A transactional data batch opens a transaction for
 * its producer when none is open (current_txn_first_offset := its base
 * offset); a non-transactional data batch while one is open is refused
 * (INVALID_TXN_STATE). A marker (control batch with a COMMIT or ABORT
 * record) ends the open transaction, if any, and records the coordinator
 * epoch; an older producer epoch (STALE_EPOCH) or coordinator epoch
 * (COORDINATOR_FENCED) is refused by gr_producer_state_check_marker.
 * Besides the producers, the state keeps the unstable transactions as
 * spans sorted by first offset: every open one, and every ended one whose
 * marker is not yet below the high watermark (Kafka's "unreplicated"
 * transactions: a consumer must not pass a transaction's data before the
 * marker deciding it is replicated). The first unstable offset, hence the
 * last stable offset, is the first span's first offset: spans ended below
 * the high watermark are dropped by gr_producer_state_on_high_watermark.
 * Open spans are rebuilt from the producers' current_txn_first_offset when
 * a snapshot is read; ended ones are not in snapshots (as in Kafka).
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
#include "protocol/control_batch.h"
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
#define GR_PRODUCER_NO_TXN            (-1LL) /* current_txn_first_offset: none open */
#define GR_PRODUCER_NO_COORDINATOR    (-1)   /* coordinator_epoch: no marker seen */

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

/*
 * A transaction not yet stable: open (last_offset -1) or ended by the
 * marker at last_offset, which the high watermark has not passed yet.
 */
typedef struct gr_txn_span {
    int64_t producer_id;
    int64_t first_offset;
    int64_t last_offset;
} gr_txn_span_t;

/*
 * An aborted transaction as Kafka's .txnindex holds it: its producer, first
 * offset, the offset of its ABORT marker, and the last stable offset when
 * the marker was written (the first offset of the oldest transaction of
 * another producer still open then, else last_offset + 1).
 */
typedef struct gr_aborted_txn {
    int64_t producer_id;
    int64_t first_offset;
    int64_t last_offset;
    int64_t last_stable_offset;
} gr_aborted_txn_t;

/* What a marker ended (gr_producer_state_update). */
typedef struct gr_txn_end {
    bool ended;   /* a transaction was open: txn is filled */
    bool aborted; /* it was an ABORT marker */
    gr_aborted_txn_t txn;
} gr_txn_end_t;

/* The producers of one partition, sorted by producer id, and the unstable transactions. */
typedef struct gr_producer_state {
    gr_producer_entry_t *entries;
    size_t count, cap;
    gr_txn_span_t *txns; /* sorted by first offset */
    size_t txn_count, txn_cap;
} gr_producer_state_t;

typedef enum gr_producer_check {
    GR_PRODUCER_APPEND = 0,         /* in sequence (or no producer id): append it */
    GR_PRODUCER_DUPLICATE,          /* already appended: answer with its offsets */
    GR_PRODUCER_STALE_EPOCH,        /* an older epoch than the producer's */
    GR_PRODUCER_OUT_OF_ORDER,       /* a gap, or a new epoch not starting at 0 */
    GR_PRODUCER_INVALID_TXN_STATE,  /* non-transactional data inside an open transaction */
    GR_PRODUCER_COORDINATOR_FENCED, /* a marker from an older coordinator epoch */
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
 * Checks a transaction marker about to be appended by the leader for
 * producer_id at producer_epoch from a coordinator at coordinator_epoch:
 * APPEND, STALE_EPOCH (epoch below the producer's) or COORDINATOR_FENCED
 * (coordinator epoch below the last one recorded for the producer). A
 * marker for an unknown producer, or one without an open transaction, is
 * appended (it ends nothing).
 */
gr_producer_check_t gr_producer_state_check_marker(const gr_producer_state_t *ps,
                                                   int64_t producer_id, int16_t producer_epoch,
                                                   int32_t coordinator_epoch);

/*
 * Makes room for n more producers (and n more transaction spans), so that
 * the next n updates cannot fail
 * (the log reserves before writing: a batch appended but not recorded would
 * be appended again when retried). Returns 0 or -ENOMEM.
 */
int gr_producer_state_reserve(gr_producer_state_t *ps, size_t n);

/*
 * Records an appended batch (h->base_offset is its assigned offset). Batches
 * without a producer id are ignored. A transactional data batch opens a
 * transaction when none is open. A control batch moves the epoch and
 * timestamp; with its parsed marker (NULL: an empty or unreadable control
 * batch, such as one the cleaner emptied) it also records the coordinator
 * epoch and ends the open transaction, which *end (may be NULL) describes.
 * Returns 0 or -ENOMEM (never after a reserve for it).
 */
int gr_producer_state_update(gr_producer_state_t *ps, const gr_batch_header_t *h,
                             const gr_control_marker_t *marker, gr_txn_end_t *end /* out */);

/*
 * The first unstable offset given the high watermark: the smallest first
 * offset of the open transactions and of the ended ones whose marker is at
 * or above high_watermark; -1 when there is none.
 */
int64_t gr_producer_state_first_unstable(const gr_producer_state_t *ps, int64_t high_watermark);

/* Forgets the ended transactions whose marker is below high_watermark. */
void gr_producer_state_on_high_watermark(gr_producer_state_t *ps, int64_t high_watermark);

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
