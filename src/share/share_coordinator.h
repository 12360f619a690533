/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share coordinator (KIP-932): the durable state of the share-partitions
 * whose keys hash to the __share_group_state partitions this broker leads,
 * the third coordinator on coordinator/runtime.h (after the group and the
 * transaction coordinators). A key is "<group>:<topic id>:<partition>"
 * (gr_share_coordinator_key_format); its partition of __share_group_state
 * is the runtime's hash of that string.
 *
 * Per key it keeps a gr_share_state_t (state epoch, leader epoch, start
 * offset, batches), the number of ShareUpdate records since its last
 * ShareSnapshot, and answers the five state RPCs:
 *   - Initialize: a ShareSnapshot with the new state epoch and start offset,
 *     no batches (FENCED_STATE_EPOCH when the stored epoch is higher);
 *   - Write: fenced by leader epoch (FENCED_LEADER_EPOCH) and state epoch
 *     (FENCED_STATE_EPOCH); merged into the state (the write's batches
 *     replace what they cover; what lies below the new start offset is
 *     dropped); logged as a ShareUpdate carrying the write, or as a
 *     ShareSnapshot of the merged state for a new key and every
 *     share.coordinator.snapshot.update.records.per.snapshot updates;
 *   - Delete: a tombstone; the key is forgotten;
 *   - Read / ReadSummary: from memory; a read at a newer leader epoch
 *     remembers it (fencing the older leader), an older one is
 *     FENCED_LEADER_EPOCH.
 * Records are applied to memory as they are appended; the answer to
 * Initialize, Write and Delete waits until the high watermark covers them
 * (the handler's ISR wait on gr_share_coordinator_led_partition). Election
 * replays the partition (ShareSnapshot replaces a key's state, ShareUpdate
 * merges into it, a tombstone forgets it), so a restarted or new leader
 * answers what the old one had on the ISR.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SHARE_COORDINATOR_H
#define GR_SHARE_COORDINATOR_H

#include <stddef.h>
#include <stdint.h>

#include "coordinator/runtime.h"
#include "metadata/topics.h" /* GR_SHARE_STATE_TOPIC */
#include "protocol/kerr.h"
#include "protocol/types.h"
#include "share/share_persister.h"
#include "share/share_state.h"

/* A coordinator key's longest text: a group id of up to this many bytes fits. */
#define GR_SHARE_KEY_GROUP_MAX 32767
/* A key's text beyond its group id: ':', 22 uuid characters, ':', an int32, NUL. */
#define GR_SHARE_KEY_TEXT_EXTRA 40

typedef struct gr_share_coordinator gr_share_coordinator_t;
typedef struct gr_partition gr_partition_t;

/*
 * The coordinator of broker b, its topic configured from b's config
 * (share.coordinator.state.topic.*). Returns it, or NULL (ENOMEM).
 */
gr_share_coordinator_t *gr_share_coordinator_new(gr_broker_t *b);
/* Stops the runtime and frees every key. NULL ok. */
void gr_share_coordinator_free(gr_share_coordinator_t *co);

/* Leadership of __share_group_state's partition: see coordinator/runtime.h. */
void gr_share_coordinator_elect(gr_share_coordinator_t *co, int32_t partition,
                                int32_t leader_epoch);
void gr_share_coordinator_resign(gr_share_coordinator_t *co, int32_t partition,
                                 int32_t leader_epoch);

/*
 * "<group>:<topic id as Kafka's Uuid.toString, base64url without
 * padding>:<partition>" into buf (cap bytes). Returns its length, or -1
 * when it does not fit.
 */
int gr_share_coordinator_key_format(const gr_share_key_t *key, char *buf, size_t cap);

/*
 * FindCoordinator key type SHARE: INVALID_REQUEST when key is not
 * "<group>:<topic id>:<partition>" (as Kafka's SharePartitionKey parses
 * it), else see gr_coordinator_runtime_locate.
 */
gr_kerr_t gr_share_coordinator_locate(gr_share_coordinator_t *co, gr_str_t key,
                                      gr_coordinator_node_t *out /* out */);
/* Whether __share_group_state is being created (FindCoordinator waits a moment). */
bool gr_share_coordinator_creating_topic(gr_share_coordinator_t *co);
/* The runtime (the persister ensures the topic and locates keys through it). */
gr_coordinator_runtime_t *gr_share_coordinator_runtime(gr_share_coordinator_t *co);

/* __share_group_state's partition when this broker leads it, else NULL (for the ISR wait). */
gr_partition_t *gr_share_coordinator_led_partition(gr_share_coordinator_t *co, int32_t partition);

/*
 * The state RPCs of one key. Each first checks the key can be served here
 * (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE)
 * and its fields (INVALID_REQUEST: empty group, zero topic id, negative
 * partition, batches that fail gr_share_state_check). The writing ones
 * append their record and set *partition and *end: the answer is NONE once
 * the high watermark of that partition reaches end; an append refused (an
 * ISR below min.insync.replicas, the log) is COORDINATOR_NOT_AVAILABLE or
 * NOT_COORDINATOR, as Kafka's runtime maps it.
 */
gr_kerr_t gr_share_coordinator_initialize(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                          int32_t state_epoch, int64_t start_offset,
                                          int32_t *partition /* out */, int64_t *end /* out */);
gr_kerr_t gr_share_coordinator_write(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                     const gr_share_state_t *state, int32_t delivery_complete_count,
                                     int32_t *partition /* out */, int64_t *end /* out */);
/* A key without state is NONE with *end 0 (nothing to wait for). */
gr_kerr_t gr_share_coordinator_delete(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                      int32_t *partition /* out */, int64_t *end /* out */);
/*
 * *out's batches point into the coordinator's memory, valid until the next
 * call on it. A key without state is NONE with state epoch 0, start offset
 * -1 and no batches.
 */
gr_kerr_t gr_share_coordinator_read(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                    int32_t leader_epoch, gr_share_state_t *out /* out */);
/* leader_epoch -1: no fencing (an admin's summary). */
gr_kerr_t gr_share_coordinator_read_summary(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                            int32_t leader_epoch,
                                            gr_share_summary_t *out /* out */);

#endif
