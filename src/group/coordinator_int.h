/* SPDX-License-Identifier: Apache-2.0 */
/* Private to the coordinator's files (coordinator*.c). */
#ifndef GR_GROUP_COORDINATOR_INT_H
#define GR_GROUP_COORDINATOR_INT_H

#include "group/coordinator.h"

/* Record key versions (Kafka's __consumer_offsets schemas). */
#define GR_OFFSET_KEY_VERSION_V0       0
#define GR_OFFSET_KEY_VERSION          1
#define GR_GROUP_KEY_VERSION           2
#define GR_OFFSET_VALUE_VERSION        3 /* with the leader epoch */
#define GR_OFFSET_VALUE_VERSION_EXPIRY 1 /* with an explicit expire timestamp */
#define GR_GROUP_VALUE_VERSION         3

typedef struct gr_partition gr_partition_t;

gr_topic_t *gr_coordinator_topic(gr_coordinator_t *co);

/* Leadership (coordinator_leadership.c). */
gr_partition_load_t gr_coordinator_load_state(const gr_coordinator_t *co, int32_t partition);
/* Unlinks and frees g. */
void gr_coordinator_remove(gr_coordinator_t *co, gr_group_t *g);

/* env callback (coordinator_records.c); the responders come from gr_coordinator_set_responders. */
gr_kerr_t gr_coordinator_store_group(void *opaque, gr_group_t *g);

/* Replay (coordinator_load.c): starts the loader if a partition is LOADING. */
void gr_coordinator_load_begin(gr_coordinator_t *co);
void gr_coordinator_load_stop(gr_coordinator_t *co);
/* Where a replayed record comes from. */
typedef struct gr_record_origin {
    int32_t partition;   /* of __consumer_offsets */
    int64_t producer_id; /* a transactional batch's producer, -1 otherwise */
    int64_t log_offset;  /* the batch's base offset */
} gr_record_origin_t;

/* Applies one record of a replayed batch. 0, or -EBADMSG for a record to skip. */
int gr_coordinator_apply_record(gr_coordinator_t *co, const gr_record_origin_t *origin,
                                gr_bytes_t key, gr_bytes_t value);

/* Transactional offsets (coordinator_txn.c). */
/* Holds v pending in g for producer_id and indexes the pair. 0 or -ENOMEM. */
int gr_coordinator_txn_pending_set(gr_coordinator_t *co, gr_group_t *g, int64_t producer_id,
                                   gr_str_t topic, int32_t partition,
                                   const gr_group_offset_value_t *v);
/* Completes (commit) or drops producer_id's pending offsets in partition's groups. */
void gr_coordinator_txn_complete(gr_coordinator_t *co, int32_t partition, int64_t producer_id,
                                 bool commit);
/* Forgets the index entries of partition (of group_id only, unless NULL). */
void gr_coordinator_txn_forget(gr_coordinator_t *co, int32_t partition, const char *group_id);
void gr_coordinator_txn_fini(gr_coordinator_t *co);

#endif
