/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The slots of a coordinator runtime (runtime.h): per partition of its
 * internal topic, whether this broker coordinates it and how far it has
 * loaded, at which leader epoch (the coordinator epoch), plus the id of the
 * topic the elections were for, which tells a topic deleted and created
 * again from the one loaded.
 *
 * A slot's states (the runtime moves a slot between NOT_OURS and
 * LOADING/LOADED; the slots themselves only order the calls by epoch):
 *
 *   NOT_OURS / RESIGNED ──gr_coordinator_slots_elect──▶ NOT_OURS (epoch set; the runtime
 *                                                      then makes it LOADING or LOADED)
 *   any ──gr_coordinator_slots_resign(epoch)──▶ RESIGNED at that epoch
 *   any ──gr_coordinator_slots_resign(ANY_EPOCH)──▶ NOT_OURS, epoch forgotten
 *
 * Invariants: an epoch only grows, except through a resignation without an
 * epoch (StopReplica, the log closing), which always applies and forgets
 * it. An election or resignation at an older epoch than the slot's is stale
 * and ignored (logged); so is an election at the epoch of a RESIGNED slot
 * (the resignation came last).
 *
 * Runs on: loop thread.
 */
#ifndef GR_COORDINATOR_SLOTS_H
#define GR_COORDINATOR_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/logging.h"
#include "protocol/uuid.h"

/* gr_coordinator_slots_resign's epoch for "whatever was seen" (StopReplica). */
#define GR_COORDINATOR_ANY_EPOCH (-1)

typedef enum gr_coordinator_load {
    GR_COORDINATOR_NOT_OURS, /* not coordinated here (never elected, or resigned without epoch) */
    GR_COORDINATOR_RESIGNED, /* not coordinated here; the last word at `epoch` was a resignation */
    GR_COORDINATOR_LOADING,  /* elected; the replay of its log is under way */
    GR_COORDINATOR_LOADED,   /* elected and replayed: its keys are served */
} gr_coordinator_load_t;

/* Whether a slot in state s is coordinated here (LOADING or LOADED). */
static inline bool gr_coordinator_load_ours(gr_coordinator_load_t s)
{
    return s == GR_COORDINATOR_LOADING || s == GR_COORDINATOR_LOADED;
}

/* What a coordinator knows of one partition of its topic. */
typedef struct gr_coordinator_partition {
    gr_coordinator_load_t state;
    int32_t epoch; /* highest leader epoch of an elect/resign, -1 before any */
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

/* partition's state (NOT_OURS for one never seen). */
gr_coordinator_load_t gr_coordinator_slots_state(const gr_coordinator_slots_t *s,
                                                 int32_t partition);

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
 * of memory; else the slot, its epoch set (a RESIGNED slot becomes
 * NOT_OURS, a LOADING/LOADED one keeps its state), and *epoch_moved whether
 * the epoch changed.
 */
gr_coordinator_partition_t *gr_coordinator_slots_elect(gr_coordinator_slots_t *s, int32_t partition,
                                                       int32_t leader_epoch,
                                                       bool *epoch_moved /* out */);

/*
 * A resignation of partition at leader_epoch (GR_COORDINATOR_ANY_EPOCH:
 * whatever was seen). false when stale (logged) or out of memory; else the
 * slot is RESIGNED (NOT_OURS without an epoch) and *was is what it was.
 */
bool gr_coordinator_slots_resign(gr_coordinator_slots_t *s, int32_t partition, int32_t leader_epoch,
                                 gr_coordinator_load_t *was /* out */);

#endif
