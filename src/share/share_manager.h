/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share-partitions this broker leads (KIP-932), keyed (group id,
 * topic id, partition), and the share sessions of the members fetching
 * them: what ShareFetch and ShareAcknowledge run on. Kafka's
 * SharePartitionManager.
 *
 * A share-partition's life (share_manager.c):
 *   (none) --first fetch (gr_share_manager_acquire)--> LOADING: its state is
 *          read through the persister; it answers nothing yet (a fetch
 *          gets no records, an acknowledgement INVALID_RECORD_STATE).
 *   LOADING --read done, state found--> READY
 *           --read done, no state--> INITIALIZING: the start offset from
 *             share.auto.offset.reset (latest: the high watermark) is
 *             written by InitializeShareGroupState --done--> READY
 *           --error--> (none): the next fetch loads again.
 *   READY   acquire (records read from the log, share_fetch_read.c),
 *           acknowledge (applied, then written through the persister; the
 *           caller's callback runs once the write is on the
 *           __share_group_state ISR), lock expiry (one ev_timer per
 *           share-partition at its earliest lock deadline; the released
 *           records are written too).
 *   any     --leadership of the partition ends here (resigned, log closed
 *             by a topic deletion)-->
 *           (none): dropped, pending acknowledgements answered
 *           NOT_LEADER_OR_FOLLOWER.
 * Whenever records become acquirable (state loaded, release, expiry) the
 * partition's waiters are woken, so a long-polling ShareFetch looks again.
 *
 * Memory: at most GR_SHARE_MANAGER_MAX_PARTITIONS share-partitions (one
 * more is answered UNKNOWN_SERVER_ERROR), each bounded by
 * group.share.partition.max.record.locks acquired records.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SHARE_MANAGER_H
#define GR_SHARE_MANAGER_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/kerr.h"
#include "protocol/types.h"
#include "share/share_partition.h"
#include "share/share_persister.h"
#include "share/share_session.h"

#define GR_SHARE_MANAGER_MAX_PARTITIONS 100000

typedef struct gr_broker gr_broker_t;
typedef struct gr_partition gr_partition_t;
typedef struct gr_segment gr_segment_t;
typedef struct gr_share_manager gr_share_manager_t;

/* What one acquisition read: a file range of whole batches covering the
 * acquired records, and the acquired ranges. */
typedef struct gr_share_fetched {
    gr_segment_t *segment; /* reference held (put it when sent); NULL when len == 0 */
    int64_t file_pos;
    int32_t len;
    gr_share_acquired_list_t acquired; /* fini it */
} gr_share_fetched_t;

/* How much one acquisition may take (ShareFetch's limits), and the group
 * configs it applies: resolved once per request
 * (gr_share_manager_fetch_limits), not once per partition. */
typedef struct gr_share_fetch_limits {
    int32_t max_bytes;   /* of batches, at least one whole batch */
    int32_t max_records; /* records to acquire (mode as share_partition.h) */
    int32_t batch_size;  /* BatchSize: records per AcquiredRecords entry, 0: any */
    gr_share_acquire_mode_t mode;
    int32_t lock_duration_ms; /* share.record.lock.duration.ms */
    bool read_committed;      /* share.isolation.level is not read_uncommitted */
} gr_share_fetch_limits_t;

/* An acknowledgement's write finished: NONE, or why it was not written. */
typedef void gr_share_ack_done_fn(void *arg, gr_kerr_t err);

/*
 * The manager for broker b, writing through persister (not owned).
 * Returns it or NULL (ENOMEM).
 */
gr_share_manager_t *gr_share_manager_new(gr_broker_t *b, gr_share_persister_t *persister);
/* Drops every share-partition (pending acknowledgements answered) and session. NULL ok. */
void gr_share_manager_free(gr_share_manager_t *m);

/* The share sessions (share_session.h). */
gr_share_sessions_t *gr_share_manager_sessions(gr_share_manager_t *m);

/* The record lock duration a ShareFetch or ShareAcknowledge response of
 * group announces: its share.record.lock.duration.ms (override or broker
 * default). */
int32_t gr_share_manager_lock_duration_ms(const gr_share_manager_t *m, gr_str_t group);

/*
 * The group's configs a fetch applies (override or broker default), set in
 * *out; its other fields zeroed. A changed override reaches later requests.
 */
void gr_share_manager_fetch_limits(const gr_share_manager_t *m, gr_str_t group,
                                   gr_share_fetch_limits_t *out /* out */);

/*
 * Acquires records of partition p (led here) for member of group, reading
 * the log from the share-partition's next fetch offset at
 * limits->read_committed, within limits, locking for
 * limits->lock_duration_ms. Loads the share-partition on first
 * use (then nothing is acquired yet). out is zeroed first.
 * Returns NONE (perhaps nothing acquired) or the partition's error.
 */
gr_kerr_t gr_share_manager_acquire(gr_share_manager_t *m, gr_str_t group, gr_partition_t *p,
                                   gr_str_t member, const gr_share_fetch_limits_t *limits,
                                   gr_share_fetched_t *out /* out */);

/* Puts what gr_share_manager_acquire left in out. */
void gr_share_fetched_fini(gr_share_fetched_t *out);

/*
 * Applies member's acknowledgements to the share-partition of (group, p)
 * and writes its state. Returns an error (no callback: nothing was
 * applied), or NONE: done(arg, err) runs later, once, with the write's
 * result, unless gr_share_manager_forget(m, arg) is called first.
 */
gr_kerr_t gr_share_manager_acknowledge(gr_share_manager_t *m, gr_str_t group, gr_partition_t *p,
                                       gr_str_t member, const gr_share_ack_batch_t *batches,
                                       int32_t batch_count, bool renew, gr_share_ack_done_fn *done,
                                       void *arg);

/* Forgets every pending callback whose arg is arg (its request is gone). */
void gr_share_manager_forget(gr_share_manager_t *m, const void *arg);

/* Releases what member of group holds on the session's partitions (its share session closed). */
void gr_share_manager_release_session(gr_share_manager_t *m, const gr_share_session_t *session);

/* Leadership of p here changed: when it ended, drops p's share-partitions. */
void gr_share_manager_leadership(gr_share_manager_t *m, gr_partition_t *p, bool led_here);

/* Share-partitions kept (tests, metrics). */
int32_t gr_share_manager_count(const gr_share_manager_t *m);

#endif
