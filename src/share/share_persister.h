/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The persister: how a partition leader (share-partitions) and the group
 * coordinator (share-group deletion, admin offsets) reach the durable state
 * of a share-partition that the share coordinator keeps on
 * __share_group_state. Each call names one key (group, topic id,
 * partition), is sent as InitializeShareGroupState (83),
 * ReadShareGroupState (84), WriteShareGroupState (85),
 * DeleteShareGroupState (86) or ReadShareGroupStateSummary (87) to the
 * broker leading the key's __share_group_state partition, this broker
 * included (over its own listener, the same path as any other coordinator,
 * as the transaction coordinator sends its markers), and completes through
 * a callback on the loop thread.
 *
 * A call's life:
 *   QUEUED   the key's coordinator is looked up (the topic created on first
 *            use, coordinator/runtime.h's ensure_topic); calls for the same
 *            coordinator and API may share one request.
 *   SENT     in flight on the peer to that broker.
 *   done     the callback runs once with the key's error code.
 * NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE,
 * an unknown leader and lost connections send the call again after a
 * backoff (GR_SHARE_PERSISTER_BACKOFF_MS, doubling to
 * GR_SHARE_PERSISTER_BACKOFF_MAX_MS), the coordinator looked up afresh,
 * until the call's deadline (request.timeout.ms after the call); then it
 * completes with the last of those errors (REQUEST_TIMED_OUT when none was
 * seen). Every other code is the call's result: FENCED_STATE_EPOCH,
 * FENCED_LEADER_EPOCH, INVALID_REQUEST, GROUP_ID_NOT_FOUND,
 * UNKNOWN_TOPIC_OR_PARTITION, ...
 *
 * A write completes NONE only once the share coordinator has its records on
 * the __share_group_state partition's ISR: a leader answers an
 * acknowledgement after that, so an acknowledged record is never delivered
 * again after a failover.
 *
 * Callbacks run exactly once per accepted call (never from inside the call
 * that queued them), unless cancelled with gr_share_persister_cancel; on
 * gr_share_persister_free the calls still pending complete with
 * COORDINATOR_NOT_AVAILABLE.
 *
 * Runs on: loop thread (every function and every callback).
 */
#ifndef GR_SHARE_PERSISTER_H
#define GR_SHARE_PERSISTER_H

#include <stdint.h>

#include "protocol/kerr.h"
#include "protocol/types.h"
#include "share/share_state.h"

#define GR_SHARE_PERSISTER_BACKOFF_MS     50
#define GR_SHARE_PERSISTER_BACKOFF_MAX_MS 1000

/* The delivery complete count of a write or summary that does not know it (KIP-1226). */
#define GR_SHARE_DELIVERY_COMPLETE_UNKNOWN (-1)

typedef struct gr_broker gr_broker_t;
typedef struct gr_share_persister gr_share_persister_t;

/* A share-partition: one share group's view of one topic partition. */
typedef struct gr_share_key {
    const char *group_id; /* copied by every call */
    gr_uuid_t topic_id;
    int32_t partition;
} gr_share_key_t;

/* What ReadShareGroupStateSummary answers: the state without its batches. */
typedef struct gr_share_summary {
    int32_t state_epoch;
    int32_t leader_epoch;
    int64_t start_offset;            /* GR_SHARE_START_OFFSET_UNINITIALIZED when none */
    int32_t delivery_complete_count; /* or GR_SHARE_DELIVERY_COMPLETE_UNKNOWN */
} gr_share_summary_t;

/* Initialize, write, delete: the key's error code (GR_KERR_NONE when done). */
typedef void gr_share_persister_done_fn(void *opaque, gr_kerr_t err);
/*
 * Read: NONE with the key's state, whose batches live until the callback
 * returns (copy what is kept). A key the coordinator has no state for is
 * NONE with state_epoch GR_SHARE_STATE_EPOCH_NONE, start_offset
 * GR_SHARE_START_OFFSET_UNINITIALIZED and no batches: the leader then
 * resolves the start offset and initializes. state is NULL when err is set.
 */
typedef void gr_share_persister_read_fn(void *opaque, gr_kerr_t err, const gr_share_state_t *state);
/* Read summary: as read, without batches; summary is NULL when err is set. */
typedef void gr_share_persister_summary_fn(void *opaque, gr_kerr_t err,
                                           const gr_share_summary_t *summary);

/*
 * A persister for broker b (its loop, config, cluster view and share
 * coordinator's topic). Returns it, or NULL (ENOMEM).
 */
gr_share_persister_t *gr_share_persister_new(gr_broker_t *b);
/* Completes every pending call with COORDINATOR_NOT_AVAILABLE, closes the peers. NULL ok. */
void gr_share_persister_free(gr_share_persister_t *p);

/*
 * InitializeShareGroupState: the key's state becomes state_epoch (not below
 * the stored one, else FENCED_STATE_EPOCH) and start_offset, with no batches
 * (an admin reset of a group's start offset is an initialize too).
 * Returns 0 (cb will run), or -ENOMEM / -EINVAL (no callback).
 */
int gr_share_persister_initialize(gr_share_persister_t *p, const gr_share_key_t *key,
                                  int32_t state_epoch, int64_t start_offset,
                                  gr_share_persister_done_fn *cb, void *opaque);

/*
 * ReadShareGroupState at leader_epoch (the share-partition's leader epoch:
 * a read at an older one than the coordinator has seen is
 * FENCED_LEADER_EPOCH; a newer one is remembered, fencing the old leader's
 * writes). Returns 0 (cb will run), or -ENOMEM / -EINVAL.
 */
int gr_share_persister_read(gr_share_persister_t *p, const gr_share_key_t *key,
                            int32_t leader_epoch, gr_share_persister_read_fn *cb, void *opaque);

/*
 * WriteShareGroupState: state's state_epoch and leader_epoch fence the
 * write; its start_offset (or GR_SHARE_START_OFFSET_UNINITIALIZED: not
 * moved) and batches (durable states only; acquired records as available
 * with their delivery count) are merged into the stored state: the
 * batches replace the ranges they cover, everything below the start offset
 * is dropped. state is copied. delivery_complete_count is
 * GR_SHARE_DELIVERY_COMPLETE_UNKNOWN when the leader does not count.
 * Returns 0 (cb will run, NONE once on the ISR), or -ENOMEM / -EINVAL
 * (no state, key or callback). Batches the coordinator cannot take (a
 * state not durable, first > last) come back INVALID_REQUEST.
 */
int gr_share_persister_write(gr_share_persister_t *p, const gr_share_key_t *key,
                             const gr_share_state_t *state, int32_t delivery_complete_count,
                             gr_share_persister_done_fn *cb, void *opaque);

/*
 * DeleteShareGroupState: the key's state is gone (a tombstone on the ISR);
 * a key without state is NONE. Returns 0 (cb will run), or -ENOMEM / -EINVAL.
 */
int gr_share_persister_delete(gr_share_persister_t *p, const gr_share_key_t *key,
                              gr_share_persister_done_fn *cb, void *opaque);

/*
 * ReadShareGroupStateSummary at leader_epoch (fenced like a read; the
 * group coordinator, which leads no share-partition, passes -1 so nothing
 * is fenced nor remembered). Returns 0 (cb will run), or -ENOMEM / -EINVAL.
 */
int gr_share_persister_read_summary(gr_share_persister_t *p, const gr_share_key_t *key,
                                    int32_t leader_epoch, gr_share_persister_summary_fn *cb,
                                    void *opaque);

/*
 * Forgets every pending call whose opaque is opaque: their callbacks never
 * run (a share-partition or group going away). A write already sent may
 * still be applied by the coordinator. Returns how many were cancelled.
 */
int gr_share_persister_cancel(gr_share_persister_t *p, const void *opaque);

#endif
