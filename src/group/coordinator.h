/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group coordinator: the broker's groups, their persistence in the
 * internal topic __consumer_offsets, and the event-loop side of the groups'
 * timers.
 *
 * Group ids map to a __consumer_offsets partition (coordinator_hash.h);
 * this broker leads every partition in single-node mode, so it coordinates
 * every group once the topic exists. Commits and group metadata are records
 * with Kafka's key/value schemas (offset commit key v1 / value v3, or v1
 * when an expiry time is set; group metadata key v2 / value v3); deletions
 * are tombstones. At start-up each partition is replayed to rebuild the
 * groups; until its replay ends, requests for its groups are answered
 * COORDINATOR_LOAD_IN_PROGRESS (replay runs on the loop, a slice at a time).
 *
 * Offsets expire on a timer (offsets.retention.check.interval.ms) by
 * Kafka's rules: for a consumer group that is Empty, retention counts from
 * when it became empty; for a commit-only group, from each commit; a Stable
 * consumer group loses only offsets of topics it no longer subscribes to.
 * An Empty group without offsets is then removed.
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_COORDINATOR_H
#define GR_GROUP_COORDINATOR_H

#include <ev.h>

#include "group/group.h"
#include "protocol/kerr.h"

#define GR_OFFSETS_TOPIC           "__consumer_offsets"
#define GR_TRANSACTION_STATE_TOPIC "__transaction_state" /* the transaction coordinator's */

typedef struct gr_broker gr_broker_t;
typedef struct gr_topic gr_topic_t;

typedef enum gr_partition_load {
    GR_LOAD_NONE,    /* not owned (no topic yet) */
    GR_LOAD_LOADING, /* replay in progress */
    GR_LOAD_DONE,
} gr_partition_load_t;

typedef struct gr_coordinator {
    gr_broker_t *broker;
    gr_group_env_t env;
    gr_group_t **buckets;
    size_t bucket_count;
    size_t count;
    int32_t partition_count; /* offsets.topic.num.partitions, or the topic's */
    uint8_t *load_state;     /* gr_partition_load_t per partition, NULL without the topic */
    ev_idle loader;          /* replays partitions a slice at a time */
    int32_t load_partition;  /* partition being replayed */
    int64_t load_offset;     /* next offset to replay */
    ev_timer retention_timer;
    bool warned_replication; /* logged why the topic cannot be created */
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
/* After topics are loaded: starts replaying __consumer_offsets if it exists. */
void gr_coordinator_start(gr_coordinator_t *co);
/* Frees every group (waiting requests answered COORDINATOR_NOT_AVAILABLE). */
void gr_coordinator_fini(gr_coordinator_t *co);

/*
 * FindCoordinator for a group: creates __consumer_offsets on first use.
 * NONE, or COORDINATOR_NOT_AVAILABLE (the topic cannot be created, e.g.
 * offsets.topic.replication.factor above the live brokers).
 */
gr_kerr_t gr_coordinator_ensure_topic(gr_coordinator_t *co);

/*
 * Can this broker serve group id now? NONE with *partition set,
 * COORDINATOR_NOT_AVAILABLE (no topic), COORDINATOR_LOAD_IN_PROGRESS.
 */
gr_kerr_t gr_coordinator_check(gr_coordinator_t *co, gr_str_t id, int32_t *partition);

gr_group_t *gr_coordinator_find(gr_coordinator_t *co, gr_str_t id);
/* Find, or create an Empty group. NULL on -ENOMEM. Precondition: check passed. */
gr_group_t *gr_coordinator_get_or_create(gr_coordinator_t *co, gr_str_t id, int32_t partition);
/* Calls fn for every group that is not Dead. */
void gr_coordinator_foreach(gr_coordinator_t *co, void (*fn)(gr_group_t *, void *), void *arg);

/*
 * Writes the commits (those whose *error is NONE) as one batch and applies
 * them to g. On a write failure every such *error is set to the failure.
 */
void gr_coordinator_commit(gr_coordinator_t *co, gr_group_t *g, gr_offset_commit_t *commits,
                           int32_t count);
/* Removes g's offset for each (topic, partition) given, writing tombstones. */
gr_kerr_t gr_coordinator_delete_offsets(gr_coordinator_t *co, gr_group_t *g, const gr_str_t *topics,
                                        const int32_t *partitions, int32_t count);
/* Deletes an Empty group and its offsets (tombstones). NONE or a write error. */
gr_kerr_t gr_coordinator_delete_group(gr_coordinator_t *co, gr_group_t *g);

/* Expires offsets and empty groups now (the retention timer's work). */
void gr_coordinator_expire(gr_coordinator_t *co);

#endif
