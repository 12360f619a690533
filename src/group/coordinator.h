/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group coordinator: the broker's groups, their persistence in the
 * internal topic __consumer_offsets, and the event-loop side of the groups'
 * timers.
 *
 It is a coordinator of __consumer_offsets on the coordinator runtime
 * (coordinator/runtime.h), which places group ids on partitions, tracks
 * which partitions are led here (gr_coordinator_partition_elected /
 * _resigned, from LeaderAndIsr and StopReplica in cluster mode; for every
 * partition when the topic opens or is created in single-node mode) and
 * replays an elected partition through this coordinator's record handler
 * (coordinator_load.c). Commits and group metadata
 * are records with Kafka's key/value schemas (offset commit key v1 / value
 * v3, or v1 when an expiry time is set; group metadata key v2 / value v3);
 * deletions are tombstones, written to the log of the group's partition.
 *
 A partition's states are the runtime's (NOT_OURS/RESIGNED, LOADING,
 * LOADED; a new leader epoch of a partition loaded here changes nothing).
 * Requests for a group answer NOT_COORDINATOR while its partition is not
 * ours (or its leader is another broker), COORDINATOR_LOAD_IN_PROGRESS while
 * LOADING (replay runs on the loop, a slice at a time), and are served when
 * LOADED. A resignation unloads the partition's groups.
 *
 * Offsets expire on a timer (offsets.retention.check.interval.ms) by
 * Kafka's rules: for a consumer group that is Empty, retention counts from
 * when it became empty; for a commit-only group, from each commit; a Stable
 * consumer group loses only offsets of topics it no longer subscribes to.
 * An Empty group without offsets is then removed. A deleted topic's
 * offsets go at once (gr_coordinator_topic_deleted), with the same removal.
 * Pending transactional offsets (coordinator_txn.c) never expire, and keep
 * their group from being removed.
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_COORDINATOR_H
#define GR_GROUP_COORDINATOR_H

#include <ev.h>

#include "controller/internal_topic.h"
#include "coordinator/keys.h"
#include "coordinator/runtime.h"
#include "group/group.h"
#include "metadata/topics.h"
#include "protocol/kerr.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_topic gr_topic_t;

/*
 * A producer with pending transactional offsets in a group: the index a
 * marker on the group's partition completes them through.
 */
typedef struct gr_coordinator_txn_group {
    int64_t producer_id;
    int32_t partition; /* of __consumer_offsets */
    char *group_id;
} gr_coordinator_txn_group_t;

typedef struct gr_coordinator {
    gr_broker_t *broker;
    gr_group_env_t env;
    gr_coordinator_keys_t table;      /* the groups of the partitions led here, by id */
    gr_coordinator_runtime_t runtime; /* __consumer_offsets: partitions led here, replay */
    ev_timer retention_timer;
    gr_topic_config_t topic_configs[3];     /* __consumer_offsets' configs */
    char segment_bytes[24];                 /* offsets.topic.segment.bytes, as text */
    gr_coordinator_txn_group_t *txn_groups; /* (producer, group) pairs with pending offsets */
    int32_t txn_group_count;
    int32_t txn_group_cap;
    struct gr_group_lag *lag; /* remote partitions' ends for lag (group_lag.h); NULL before */
} gr_coordinator_t;

/* One offset to commit. */
typedef struct gr_offset_commit {
    gr_str_t topic;
    int32_t partition;
    int64_t offset;
    int32_t leader_epoch;
    gr_str_t metadata;
    int64_t expire_timestamp; /* -1: retention rules */
    gr_kerr_t *error;         /* out: per-partition result, preset by the caller */
} gr_offset_commit_t;

int gr_coordinator_init(gr_coordinator_t *co, gr_broker_t *b);
/*
 * How a JoinGroup or SyncGroup that waited is answered: the group handlers'
 * functions, passed in by the composition root (broker/), since group/ sits
 * below handlers/ and may not call into it. Set before the first request.
 */
typedef void gr_group_respond_join_fn(void *opaque, gr_group_waiter_t *w,
                                      const gr_join_result_t *r);
typedef void gr_group_respond_sync_fn(void *opaque, gr_group_waiter_t *w,
                                      const gr_sync_result_t *r);
void gr_coordinator_set_responders(gr_coordinator_t *co, gr_group_respond_join_fn *join,
                                   gr_group_respond_sync_fn *sync);
/*
 * After topics are loaded: starts the retention timer and, in single-node
 * mode, elects this broker for every partition of __consumer_offsets if the
 * topic exists (cluster mode waits for LeaderAndIsr).
 */
void gr_coordinator_start(gr_coordinator_t *co);
/* Frees every group (waiting requests answered COORDINATOR_NOT_AVAILABLE). */
void gr_coordinator_fini(gr_coordinator_t *co);

/*
 * This broker now leads __consumer_offsets partition `partition` at
 * leader_epoch: replays its log (a slice per loop iteration) to rebuild the
 * partition's groups and offsets; its groups answer
 * COORDINATOR_LOAD_IN_PROGRESS until the replay ends. Ignored when stale
 * (leader_epoch below the last seen, or equal to a resign's), or when the
 * partition is already loading or loaded here (nobody else wrote to it).
 * Precondition: the partition's log is open here (a call without it is
 * logged and ignored).
 */
void gr_coordinator_partition_elected(gr_coordinator_t *co, int32_t partition,
                                      int32_t leader_epoch);
/*
 * This broker no longer leads that partition (another broker does, or it
 * stops hosting it): aborts its replay and unloads its groups; requests
 * waiting in them are answered NOT_COORDINATOR and their timers stopped.
 * Ignored when leader_epoch is below the last seen; GR_COORDINATOR_ANY_EPOCH
 * (any negative epoch: StopReplica, a deletion) always applies and forgets
 * the epochs seen. A __consumer_offsets replaced by a new one (another topic
 * id) is noticed by itself: every partition of the old one is resigned.
 */
void gr_coordinator_partition_resigned(gr_coordinator_t *co, int32_t partition,
                                       int32_t leader_epoch);

/*
 * Whether the coordinator has asked the controller to create
 * __consumer_offsets and the topic is not yet here with a leader for every
 * partition (FindCoordinator waits a moment for it).
 */
bool gr_coordinator_creating_topic(gr_coordinator_t *co);

/*
 * Makes sure __consumer_offsets exists: creates it on first use (single-node
 * mode: locally, then elected for each partition). NONE, or
 * COORDINATOR_NOT_AVAILABLE (the topic cannot be created, e.g.
 * offsets.topic.replication.factor above the live brokers).
 */
gr_kerr_t gr_coordinator_ensure_topic(gr_coordinator_t *co);

/*
 * FindCoordinator for group id: ensures the topic, then names the broker
 * leading the group's partition. NONE with *out filled, or
 * COORDINATOR_NOT_AVAILABLE (no topic yet, the partition is offline, or its
 * leader is not a live broker this broker knows).
 */
gr_kerr_t gr_coordinator_locate(gr_coordinator_t *co, gr_str_t id, gr_coordinator_node_t *out);

/*
 * Can this broker serve group id now? NONE with *partition set;
 * COORDINATOR_NOT_AVAILABLE (no topic, or shutting down); NOT_COORDINATOR
 * (another broker leads the group's partition, or nobody does);
 * COORDINATOR_LOAD_IN_PROGRESS (replaying it).
 */
gr_kerr_t gr_coordinator_check(gr_coordinator_t *co, gr_str_t id, int32_t *partition);
/* Is some partition led here still replaying? */
bool gr_coordinator_loading(const gr_coordinator_t *co);

gr_group_t *gr_coordinator_find(gr_coordinator_t *co, gr_str_t id);
/* Find, or create an Empty group. NULL on -ENOMEM. Precondition: check passed. */
gr_group_t *gr_coordinator_get_or_create(gr_coordinator_t *co, gr_str_t id, int32_t partition);
/* Calls fn for every group that is not Dead, of the partitions loaded here. */
void gr_coordinator_foreach(gr_coordinator_t *co, void (*fn)(gr_group_t *, void *), void *arg);

/*
 * Writes the commits (those whose *error is NONE) as one batch and applies
 * them to g. On a write failure every such *error is set to the failure.
 * The caller answers once the ISR has the batch (*written_end).
 */
void gr_coordinator_commit(gr_coordinator_t *co, gr_group_t *g, gr_offset_commit_t *commits,
                           int32_t count, int64_t *written_end /* out: past the batch, 0 none */);

/*
 * TxnOffsetCommit's write: the commits (those whose *error is NONE) as one
 * transactional batch of producer_id at producer_epoch (base sequence -1),
 * held pending in g until the producer's marker lands on g's partition
 * (gr_coordinator_txn_marker). A producer_epoch below the one the
 * partition's log has for producer_id sets every such *error to
 * INVALID_PRODUCER_EPOCH and writes nothing; a write failure sets them as
 * gr_coordinator_commit does. A negative producer_id makes it a plain
 * commit, as in Kafka. The caller answers once the ISR has the batch
 * (*written_end).
 */
void gr_coordinator_txn_commit(gr_coordinator_t *co, gr_group_t *g, int64_t producer_id,
                               int16_t producer_epoch, gr_offset_commit_t *commits, int32_t count,
                               int64_t *written_end /* out: past the batch, 0 none */);

/*
 * A transaction marker for producer_id was appended to __consumer_offsets
 * partition `partition` here as its leader: on commit the producer's
 * pending offsets in that partition's groups become committed (unless a
 * commit written later in the log is there), on abort they are dropped.
 * Ignored unless the partition is loaded here: while it replays, the
 * replay reaches the marker in the log itself.
 */
void gr_coordinator_txn_marker(gr_coordinator_t *co, int32_t partition, int64_t producer_id,
                               bool commit);

/* Partition `partition` of __consumer_offsets when this broker leads it (log open here), else NULL.
 */
gr_partition_t *gr_coordinator_led_partition(gr_coordinator_t *co, int32_t partition);
/* Removes g's offset for each (topic, partition) given, writing tombstones. */
gr_kerr_t gr_coordinator_delete_offsets(gr_coordinator_t *co, gr_group_t *g, const gr_str_t *topics,
                                        const int32_t *partitions, int32_t count);
/* Deletes an Empty group and its offsets (tombstones). NONE or a write error. */
gr_kerr_t gr_coordinator_delete_group(gr_coordinator_t *co, gr_group_t *g);

/* Expires offsets and empty groups now (the retention timer's work). */
void gr_coordinator_expire(gr_coordinator_t *co);
/*
 * Topic `topic` was deleted (Kafka's onPartitionsDeleted, for all its
 * partitions): every group loaded here forgets its committed offsets of it,
 * writing tombstones, and a group left Empty without offsets is deleted, as
 * Kafka's cleanupGroupMetadata does. Idempotent; groups of partitions still
 * loading are not touched (as in Kafka, whose cache holds them only once
 * loaded). Call it once the topic has left this broker's metadata; a topic
 * created again under the same name afterwards starts without offsets.
 */
void gr_coordinator_topic_deleted(gr_coordinator_t *co, gr_str_t topic);

#endif
