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
gr_coordinator_load_t gr_coordinator_load_state(const gr_coordinator_t *co, int32_t partition);
/* The runtime's H.unload: frees partition's groups; how many there were. */
size_t gr_coordinator_unload(void *owner, int32_t partition);
/* Iteration over every group in the table (take the next before removing g). */
gr_group_t *gr_coordinator_first(gr_coordinator_t *co);
gr_group_t *gr_coordinator_next(gr_coordinator_t *co, gr_group_t *g);
/* Unlinks and frees g. */
void gr_coordinator_remove(gr_coordinator_t *co, gr_group_t *g);

/* env callback (coordinator_records.c); the responders come from gr_coordinator_set_responders. */
gr_kerr_t gr_coordinator_store_group(void *opaque, gr_group_t *g);

/* Replay (coordinator_load.c): the runtime's record handler (H). */
extern const gr_coordinator_handler_t gr_coordinator_handler;

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
