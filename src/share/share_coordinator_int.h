/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to the share coordinator (share_coordinator*.c) and its unit
 * tests. The shard is the coordinator's memory without the runtime: its
 * keys, their states, the merge of a write, the choice between ShareUpdate
 * and ShareSnapshot, and the application of a record (replayed or just
 * appended: the same function, so memory after an append is what a replay
 * of the log rebuilds).
 *
 * Runs on: loop thread.
 */
#ifndef GR_SHARE_COORDINATOR_INT_H
#define GR_SHARE_COORDINATOR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "coordinator/keys.h"
#include "coordinator/runtime.h"
#include "protocol/arena.h"
#include "protocol/writer.h"
#include "share/share_coordinator.h"

#define GR_SHARE_LOG_TAG "share"

/* The key schema versions of __share_group_state (the record's key version). */
#define GR_SHARE_SNAPSHOT_KEY_VERSION 0
#define GR_SHARE_UPDATE_KEY_VERSION   1
#define GR_SHARE_VALUE_VERSION        0

/* One key's memory. */
typedef struct gr_share_entry {
    gr_coordinator_key_t key;   /* id: "<group>:<topic id>:<partition>" */
    gr_share_state_t state;     /* owns state.batches */
    int32_t snapshot_epoch;     /* of the last ShareSnapshot */
    int64_t snapshot_offset;    /* where the last ShareSnapshot is in the log (pruning) */
    int32_t updates;            /* ShareUpdates since the last ShareSnapshot */
    int32_t fence_leader_epoch; /* the highest leader epoch seen (records and reads) */
    int32_t delivery_complete;  /* the last write's count, or unknown */
} gr_share_entry_t;

/* A ShareSnapshot or ShareUpdate record, decoded or to encode. */
typedef struct gr_share_record {
    int16_t key_version; /* GR_SHARE_SNAPSHOT_KEY_VERSION or GR_SHARE_UPDATE_KEY_VERSION */
    gr_str_t group_id;
    gr_uuid_t topic_id;
    int32_t partition;
    bool tombstone;         /* null value: the key is deleted */
    int64_t log_offset;     /* where the record is (replayed, or just appended) */
    int32_t snapshot_epoch; /* int32 in Kafka 4.x's schema */
    int32_t state_epoch;    /* ShareSnapshot only */
    int32_t leader_epoch;
    int64_t start_offset;            /* ShareUpdate: -1 when not moved */
    int32_t delivery_complete_count; /* or GR_SHARE_DELIVERY_COMPLETE_UNKNOWN */
    const gr_share_state_batch_t *batches;
    int32_t batch_count;
} gr_share_record_t;

typedef struct gr_share_shard {
    gr_coordinator_keys_t keys;
    int32_t updates_per_snapshot; /* share.coordinator.snapshot.update.records.per.snapshot */
} gr_share_shard_t;

/* 0 or -ENOMEM. */
int gr_share_shard_init(gr_share_shard_t *s, int32_t updates_per_snapshot);
/* Frees every entry. */
void gr_share_shard_fini(gr_share_shard_t *s);
/* Drops the entries of partition of T (every one when partition < 0); returns how many. */
size_t gr_share_shard_drop(gr_share_shard_t *s, int32_t partition);
/* The entry of coordinator key id, or NULL. */
gr_share_entry_t *gr_share_shard_find(gr_share_shard_t *s, gr_str_t id);

/*
 * Merges batches (count, in the order given: a later one wins where they
 * overlap) into *state: each replaces the ranges it covers; then, when
 * start_offset >= 0, it becomes the state's start offset and what lies
 * below it is dropped (a batch across it is cut); adjacent batches with
 * the same state and delivery count are joined. state->batches is
 * replaced by a new array (malloc'd). 0 or -ENOMEM (state unchanged).
 */
int gr_share_state_merge(gr_share_state_t *state, const gr_share_state_batch_t *batches,
                         int32_t count, int64_t start_offset);

/*
 * Applies a record of partition (of T) with coordinator key id: a
 * ShareSnapshot replaces the key's state, a ShareUpdate merges into it (an
 * update without a snapshot before it starts from an empty state, as
 * Kafka's replay does), a tombstone forgets the key. 0, -ENOMEM, or
 * -EBADMSG (an impossible record: skipped).
 */
int gr_share_shard_apply(gr_share_shard_t *s, int32_t partition, gr_str_t id,
                         const gr_share_record_t *rec);

/*
 * The record that writes state (the write's epochs, start offset and
 * batches) for key: FENCED_LEADER_EPOCH / FENCED_STATE_EPOCH when older
 * than what the key has seen; otherwise NONE with *rec a ShareUpdate of
 * the write, or a ShareSnapshot of the merged state (new key, or
 * updates_per_snapshot updates since the last snapshot) whose batches are
 * in *scratch (the caller frees scratch->batches). -ENOMEM is
 * UNKNOWN_SERVER_ERROR.
 */
gr_kerr_t gr_share_shard_plan_write(gr_share_shard_t *s, gr_str_t id, const gr_share_key_t *key,
                                    const gr_share_state_t *state, int32_t delivery_complete_count,
                                    gr_share_record_t *rec, gr_share_state_t *scratch);

/* The ShareSnapshot of an Initialize, or FENCED_STATE_EPOCH. */
gr_kerr_t gr_share_shard_plan_initialize(gr_share_shard_t *s, gr_str_t id,
                                         const gr_share_key_t *key, int32_t state_epoch,
                                         int64_t start_offset, gr_share_record_t *rec);

/*
 * Where partition's log may start: the oldest offset of its keys' last
 * snapshots (every later record builds on one of them), or end when it has
 * no key. -1 when a key's last snapshot is at or above end (the high
 * watermark: not replicated yet, so the older records may still be needed).
 */
int64_t gr_share_shard_prune_point(gr_share_shard_t *s, int32_t partition, int64_t end);

/* A read's fencing: FENCED_LEADER_EPOCH when leader_epoch is older; remembers a newer one. */
gr_kerr_t gr_share_shard_fence_read(gr_share_entry_t *e, int32_t leader_epoch, bool remember);

/* Record codec (share_coordinator_records.c). */
/*
 * Encodes rec's key and value (none for a tombstone) after their version
 * int16s; a snapshot's create and write times are now_ms. 0 or -errno.
 */
int gr_share_record_encode(const gr_share_record_t *rec, int64_t now_ms, gr_writer_t *key,
                           gr_writer_t *value);
/*
 * Decodes a record of __share_group_state into *rec (strings and batches in
 * arena). 0, -EBADMSG (not ours, or malformed), -ENOMEM.
 */
int gr_share_record_decode(gr_bytes_t key, gr_bytes_t value, gr_arena_t *arena,
                           gr_share_record_t *rec);
/* The coordinator key text of a decoded record into buf. Its length, or -1. */
int gr_share_record_key_text(const gr_share_record_t *rec, char *buf, size_t cap);

/* The coordinator (share_coordinator.c). */
struct gr_share_coordinator {
    gr_broker_t *broker;
    gr_coordinator_runtime_t runtime;
    gr_share_shard_t shard;
    gr_topic_config_t topic_configs[5];
    ev_timer prune_timer; /* share.coordinator.state.topic.prune.interval.ms */
    char segment_bytes[16];
    char min_isr[16];
};

#endif
