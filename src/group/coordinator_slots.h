/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The leadership of an internal topic's partitions as a coordinator follows
 * it (the group coordinator on __consumer_offsets, the transaction
 * coordinator on __transaction_state): per partition, whether it is led here
 * and loaded, at which leader epoch, and whether the last word at that epoch
 * was a resignation; plus the id of the topic the elections were for, which
 * tells a topic deleted and created again from the one loaded.
 *
 * The rules both coordinators share: an election or resignation at an older
 * epoch than seen is stale and ignored; an election at the epoch of a
 * resignation is too (the resignation came last); a resignation without an
 * epoch (StopReplica, the log closing) always applies.
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_COORDINATOR_SLOTS_H
#define GR_GROUP_COORDINATOR_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/logging.h"
#include "protocol/uuid.h"

/* gr_coordinator_partition_resigned's epoch for "whatever was seen" (StopReplica). */
#define GR_COORDINATOR_ANY_EPOCH (-1)

typedef enum gr_partition_load {
    GR_LOAD_NONE,    /* not led here */
    GR_LOAD_LOADING, /* replay in progress */
    GR_LOAD_DONE,
} gr_partition_load_t;

/* What a coordinator knows of one partition of its topic. */
typedef struct gr_coordinator_partition {
    gr_partition_load_t load;
    int32_t epoch; /* highest leader epoch of an elected/resigned, -1 before any */
    bool resigned; /* the last call at that epoch was resigned */
} gr_coordinator_partition_t;

typedef struct gr_coordinator_slots {
    gr_coordinator_partition_t *items; /* by partition */
    int32_t count;
    gr_uuid_t topic_id; /* of the topic whose partitions were elected; zero before */
    const char *topic;  /* for log lines */
    const char *log_tag;
    const gr_logger_t *log;
} gr_coordinator_slots_t;

void gr_coordinator_slots_init(gr_coordinator_slots_t *s, const char *topic, const char *log_tag,
                               const gr_logger_t *log);
void gr_coordinator_slots_fini(gr_coordinator_slots_t *s);

/* The slot of partition, growing the table; NULL when out of memory (logged). */
gr_coordinator_partition_t *gr_coordinator_slots_get(gr_coordinator_slots_t *s, int32_t partition);

/* partition's load state (NONE for one never seen). */
gr_partition_load_t gr_coordinator_slots_load(const gr_coordinator_slots_t *s, int32_t partition);

/* The first partition being replayed, or -1. */
int32_t gr_coordinator_slots_next_loading(const gr_coordinator_slots_t *s);

/* Whether any partition is being replayed. */
bool gr_coordinator_slots_loading(const gr_coordinator_slots_t *s);

/* partition's leader epoch as last elected or resigned (the coordinator epoch), or -1. */
int32_t gr_coordinator_slots_epoch(const gr_coordinator_slots_t *s, int32_t partition);

/*
 * Records topic's id; true when the slots were elected for another topic of
 * that name (the caller then resigns every slot: nothing loaded holds).
 */
bool gr_coordinator_slots_replaced(gr_coordinator_slots_t *s, const gr_uuid_t *topic_id);

/*
 * An election of partition at leader_epoch. NULL when stale (logged) or out
 * of memory; else the slot, its epoch set, and *epoch_moved whether the
 * epoch changed.
 */
gr_coordinator_partition_t *gr_coordinator_slots_elect(gr_coordinator_slots_t *s, int32_t partition,
                                                       int32_t leader_epoch,
                                                       bool *epoch_moved /* out */);

/*
 * A resignation of partition at leader_epoch (GR_COORDINATOR_ANY_EPOCH:
 * whatever was seen). false when stale (logged) or out of memory; else the
 * slot is no longer loaded and *was is what it was.
 */
bool gr_coordinator_slots_resign(gr_coordinator_slots_t *s, int32_t partition, int32_t leader_epoch,
                                 gr_partition_load_t *was /* out */);

#endif
