/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The in-memory state of one share-partition on its partition leader
 * (KIP-932): which records of the partition a share group has in flight,
 * who holds them, until when, and how often each was delivered. Kafka's
 * SharePartition, as pure logic: no loop, no log reads, no persister.
 * The caller (share_manager) reads the log, arms one timer, writes the
 * exported durable state through the persister and passes the clock in
 * as now_ms.
 *
 * Window. Offsets below start_offset are done (acknowledged or archived)
 * and forgotten. [start_offset, end_offset) is the in-flight window: every
 * offset in it has a state. Offsets at and above end_offset were never
 * fetched for the group (available, delivery count 0).
 *
 * Record states (share_state.h) and the transitions, with the function
 * doing each:
 *
 *   AVAILABLE --acquire--> ACQUIRED (delivery count + 1, locked by a
 *                                    member until now + lock duration)
 *   ACQUIRED --acknowledge ACCEPT--> ACKNOWLEDGED
 *   ACQUIRED --acknowledge REJECT / GAP--> ARCHIVED
 *   ACQUIRED --acknowledge RELEASE, release_member, expire-->
 *            AVAILABLE, or ARCHIVED once the delivery count reached
 *            delivery_count_limit
 *   ACQUIRED --acknowledge RENEW--> ACQUIRED (lock extended, KIP-1222)
 *   AVAILABLE/new --acquire: aborted transaction, control batch, offsets
 *            gone from the log, delivery count already at the limit-->
 *            ARCHIVED (never delivered)
 *   any --advance_log_start--> forgotten (below the new start offset)
 *
 * Durability is the caller's: acquisitions are not written (Kafka's rule);
 * after an acknowledgement, release, expiry or archiving
 * gr_share_partition_changed is true and the caller writes the export
 * before it answers. A failed write leaves memory ahead of the durable
 * state (Kafka rolls the transition back instead); the next successful
 * write carries it, and a new leader meanwhile redelivers those records,
 * which at-least-once delivery allows.
 *
 * ACKNOWLEDGED and ARCHIVED are final. Whenever the head of the window is
 * final the start offset moves past it.
 *
 * Representation: a sorted array of ranges, each (first, last, state,
 * delivery count, owner, lock deadline), split when an operation covers
 * part of one and merged again with equal neighbours, so a run of records
 * acquired or acknowledged together costs one range however long it is.
 *
 * Errors: acknowledge answers Kafka error codes (it ends in a response);
 * everything else returns 0 or -errno (-ENOMEM, -EINVAL).
 *
 * Thread: the owner's (share_manager runs it on the loop thread); no
 * locking inside.
 */
#ifndef GR_SHARE_PARTITION_H
#define GR_SHARE_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/kerr.h"
#include "share/share_state.h"

typedef struct gr_share_partition gr_share_partition_t;

/* No lock is pending (gr_share_partition_next_deadline). */
#define GR_SHARE_PARTITION_NO_DEADLINE INT64_MAX

/* ShareFetch v2's ShareAcquireMode (KIP-1206): how max_records bounds an
 * acquisition. */
typedef enum gr_share_acquire_mode {
    /* max_records is soft: the acquisition runs on to the end of the log
     * batch in which the limit was reached (Kafka's default). */
    GR_SHARE_ACQUIRE_BATCH_OPTIMIZED = 0,
    /* max_records is strict: never more records than that. */
    GR_SHARE_ACQUIRE_RECORD_LIMIT = 1,
} gr_share_acquire_mode_t;

typedef struct gr_share_partition_config {
    int64_t record_lock_duration_ms; /* share.record.lock.duration.ms, > 0 */
    int16_t delivery_count_limit;    /* group.share.delivery.count.limit, > 0 */
    /* group.share.partition.max.record.locks (> 0): as in Kafka, the bound
     * on the in-flight window (end_offset - start_offset). New records are
     * acquired only while the window is smaller; records already in it
     * stay re-acquirable. It bounds the records locked at once and the
     * memory the window may take. */
    int32_t max_record_locks;
} gr_share_partition_config_t;

/* One record batch as the log returned it (header facts only). */
typedef struct gr_share_log_batch {
    int64_t base_offset;
    int64_t last_offset; /* inclusive */
    int64_t producer_id;
    bool is_transactional;
    bool is_control;
} gr_share_log_batch_t;

/* An aborted transaction as a read_committed log read returns it. */
typedef struct gr_share_aborted_txn {
    int64_t producer_id;
    int64_t first_offset;
} gr_share_aborted_txn_t;

/* What the caller read from the log for one acquisition. batches are in
 * offset order, not overlapping; the first may start below the fetch
 * offset (the log returns whole batches). Offsets between batches (records
 * compacted away) are acquired with their neighbours and the client
 * acknowledges them as GAP. */
typedef struct gr_share_acquire_request {
    const char *member_id;
    /* The offset the log read started at (what
     * gr_share_partition_next_fetch_offset returned then). When the first
     * batch begins above it, the offsets in between no longer exist
     * (compacted or deleted): available ones are archived (Kafka's stale
     * batches). Negative: unknown, nothing archived for it. */
    int64_t fetch_offset;
    const gr_share_log_batch_t *batches;
    int32_t batch_count;
    /* read_committed: the batches stop at the last stable offset, and
     * transactional batches of these aborted transactions are archived. */
    bool read_committed;
    const gr_share_aborted_txn_t *aborted;
    int32_t aborted_count;
    int32_t max_records; /* > 0, else nothing is acquired */
    gr_share_acquire_mode_t mode;
    /* ShareFetch v2's BatchSize: in BATCH_OPTIMIZED mode new records are
     * reported in AcquiredRecords entries of about this many records, cut
     * at log batch boundaries. 0: one entry per run. */
    int32_t batch_size;
    int64_t now_ms;
} gr_share_acquire_request_t;

/* One acquired range as ShareFetch's AcquiredRecords carries it. */
typedef struct gr_share_acquired {
    int64_t first_offset;
    int64_t last_offset; /* inclusive */
    int16_t delivery_count;
} gr_share_acquired_t;

/* The result of an acquisition: ranges in offset order. Start zeroed; free
 * with gr_share_acquired_list_fini. */
typedef struct gr_share_acquired_list {
    gr_share_acquired_t *items;
    int32_t count;
    int32_t capacity;
    int64_t records; /* offsets covered by items */
} gr_share_acquired_list_t;

/* One acknowledgement batch of ShareFetch / ShareAcknowledge: types holds
 * either one type for the whole range or one per offset
 * (type_count == last_offset - first_offset + 1). */
typedef struct gr_share_ack_batch {
    int64_t first_offset;
    int64_t last_offset; /* inclusive */
    const int8_t *types; /* gr_share_ack_type_t */
    int32_t type_count;
} gr_share_ack_batch_t;

/* Counters for DescribeShareGroupOffsets, lag and metrics. */
typedef struct gr_share_partition_stats {
    int64_t start_offset;
    int64_t end_offset;        /* first offset never fetched */
    int64_t acquired_records;  /* records ACQUIRED now */
    int64_t in_flight_records; /* end_offset - start_offset */
    /* Records in the window whose delivery is complete (acknowledged or
     * archived): WriteShareGroupState v1's DeliveryCompleteCount (KIP-1226)
     * and what lag subtracts. */
    int64_t delivery_complete_records;
    int32_t ranges; /* ranges kept (memory) */
} gr_share_partition_stats_t;

/*
 * Creates a share-partition from its durable state.
 *
 * state: what the share coordinator returned (ReadShareGroupState), or NULL
 * for a group without state. When state is NULL or its start offset is
 * GR_SHARE_START_OFFSET_UNINITIALIZED, start_offset (which the caller
 * resolved from share.auto.offset.reset) is used and no batch is taken.
 * Batches below the start offset are ignored; records imported AVAILABLE
 * with a delivery count at the limit are archived.
 *
 * Returns 0 and *out (free with gr_share_partition_free), -EINVAL for a
 * bad config, a negative start offset, or batches out of order,
 * overlapping, inverted, in a state that is not durable or with a negative
 * delivery count; -ENOMEM.
 */
int gr_share_partition_new(const gr_share_partition_config_t *config, const gr_share_state_t *state,
                           int64_t start_offset, gr_share_partition_t **out /* out */);

void gr_share_partition_free(gr_share_partition_t *sp);

/* A new record lock duration (> 0, else ignored) for the locks taken or
 * renewed from now on; held locks keep their deadlines (Kafka applies a
 * changed share.record.lock.duration.ms to later acquisitions). */
void gr_share_partition_set_lock_duration(gr_share_partition_t *sp, int64_t ms);

/* Changes the config (group configs are dynamic). A new lock duration
 * applies to locks taken or renewed from now on; a lower lock limit only
 * stops new acquisitions. Returns 0 or -EINVAL. */
int gr_share_partition_set_config(gr_share_partition_t *sp,
                                  const gr_share_partition_config_t *config);

/* The offset the caller should read the log from: the lowest AVAILABLE
 * offset inside the window, else end_offset. */
int64_t gr_share_partition_next_fetch_offset(const gr_share_partition_t *sp);

/* Whether an acquisition could acquire anything: some record in the window
 * is AVAILABLE, or the window is smaller than max_record_locks. The caller
 * skips the log read when this is false. */
bool gr_share_partition_can_acquire(const gr_share_partition_t *sp);

/*
 * Acquires for req->member_id the acquirable records among the batches the
 * caller read: AVAILABLE records inside the window and new records from
 * end_offset on. At most max_records (see gr_share_acquire_mode_t); new
 * records only while the window is below max_record_locks (a log batch
 * may carry it past in BATCH_OPTIMIZED mode, as in Kafka). Control
 * batches, and with read_committed the batches of aborted transactions,
 * are archived, not acquired (they do not count against max_records).
 * Each acquired record's delivery count is incremented and it is locked
 * until now_ms + record_lock_duration_ms. Locks already past at now_ms are
 * expired first.
 *
 * Poison records (Kafka 4.2): a record on its last delivery attempt
 * (delivery count limit - 1 before this one, limit > 2) is acquired alone;
 * records delivered at least max(2, ceil(limit / 2)) times are acquired in
 * smaller and smaller runs and never together with other records, so one
 * bad record cannot drag a whole batch to the limit.
 *
 * Appends the acquired ranges to *out (adjacent ranges with equal delivery
 * counts merged). Returns 0 (perhaps nothing acquired); -EINVAL for no
 * member id or batches out of order, overlapping or inverted; -ENOMEM
 * (then only the expiry happened).
 */
int gr_share_partition_acquire(gr_share_partition_t *sp, const gr_share_acquire_request_t *req,
                               gr_share_acquired_list_t *out /* out: appended */);

void gr_share_acquired_list_fini(gr_share_acquired_list_t *list);

/*
 * Applies a member's acknowledgements, all or nothing: when any batch
 * fails, nothing changes. Locks past their deadline at now_ms are expired
 * first (the timer may not have run yet).
 *
 * Returns GR_KERR_NONE;
 * GR_KERR_INVALID_REQUEST for a batch with first > last, batches out of
 * order or overlapping, a type_count neither 1 nor the range's length, a
 * type not valid (RENEW only with renew_allowed), or offsets past the
 * window's end (never fetched; INVALID_RECORD_STATE when the window is
 * empty, as Kafka answers);
 * GR_KERR_INVALID_RECORD_STATE when an offset in the window is not
 * ACQUIRED by member_id (available, acknowledged, archived, held by
 * another member or its lock expired);
 * GR_KERR_UNKNOWN_SERVER_ERROR when out of memory.
 * Offsets below the start offset are done already and skipped.
 */
gr_kerr_t gr_share_partition_acknowledge(gr_share_partition_t *sp, const char *member_id,
                                         const gr_share_ack_batch_t *batches, int32_t batch_count,
                                         bool renew_allowed, int64_t now_ms);

/* Releases every record member_id holds (its share session closed or it
 * left the group): AVAILABLE again, or ARCHIVED at the delivery count
 * limit. Returns the number of records released. */
int64_t gr_share_partition_release_member(gr_share_partition_t *sp, const char *member_id);

/* Releases the records whose lock deadline is <= now_ms as
 * release_member does. Returns the number of records released. */
int64_t gr_share_partition_expire(gr_share_partition_t *sp, int64_t now_ms);

/* The earliest lock deadline, or GR_SHARE_PARTITION_NO_DEADLINE: the caller
 * arms one timer for it and calls gr_share_partition_expire when it fires.
 */
int64_t gr_share_partition_next_deadline(const gr_share_partition_t *sp);

/* Moves the start offset up to log_start_offset when the log lost records
 * below it (retention, DeleteRecords): everything below is forgotten,
 * acquired records included (their acknowledgements are then skipped).
 * No-op when log_start_offset <= start offset. Returns 0 or -ENOMEM. */
int gr_share_partition_advance_log_start(gr_share_partition_t *sp, int64_t log_start_offset);

/*
 * Exports the durable state for WriteShareGroupState: the start offset and
 * batches for every range in the window that is not AVAILABLE with
 * delivery count 0; ACQUIRED is written as AVAILABLE with its delivery
 * count; adjacent equal batches merged. state_epoch and leader_epoch are
 * those of the imported state (the caller sets what it sends).
 *
 * out->batches is malloc'ed (free it); NULL when there is none. Clears the
 * changed flag (gr_share_partition_changed). Returns 0 or -ENOMEM.
 */
int gr_share_partition_export(gr_share_partition_t *sp, gr_share_state_t *out /* out */);

/* Whether the durable state changed since the last export: an
 * acknowledgement, release, lock expiry, archiving or start offset move.
 * Acquisitions alone are not written (Kafka's rule). */
bool gr_share_partition_changed(const gr_share_partition_t *sp);

/* Marks the durable state changed, e.g. after a failed write the caller
 * wants to retry with a fresh export. */
void gr_share_partition_mark_changed(gr_share_partition_t *sp);

void gr_share_partition_stats(const gr_share_partition_t *sp,
                              gr_share_partition_stats_t *out /* out */);

/* The state of one offset (for describe and tests): its record state,
 * delivery count and, when ACQUIRED, its owner (borrowed, valid until the
 * next call that changes the partition; NULL otherwise). Offsets below the
 * start offset report ARCHIVED, offsets from end_offset AVAILABLE/0. */
gr_share_record_state_t gr_share_partition_offset_state(const gr_share_partition_t *sp,
                                                        int64_t offset,
                                                        int16_t *delivery_count /* out, or NULL */,
                                                        const char **owner /* out, or NULL */);

#endif
