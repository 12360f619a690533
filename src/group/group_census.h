/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How many groups the coordinator holds, by type and state, and how many
 * committed offsets: what Kafka's group coordinator gauges report
 * (GroupMetadataManager's NumGroups*, NumOffsets, and Kafka 4's
 * group-coordinator-metrics counts), counted when asked by a walk over the
 * table, so that no state change has to keep a tally. Read-only.
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_GROUP_CENSUS_H
#define GR_GROUP_GROUP_CENSUS_H

#include <stdint.h>

#include "group/cgroup.h"
#include "group/coordinator.h"
#include "group/sgroup.h"

#define GR_GROUP_STATE_COUNT  (GR_GROUP_DEAD + 1)
#define GR_CGROUP_STATE_COUNT (GR_CGROUP_DEAD + 1)
#define GR_SGROUP_STATE_COUNT (GR_SGROUP_DEAD + 1)

typedef struct gr_group_census {
    int32_t partitions;                      /* __consumer_offsets partitions coordinated here */
    int64_t offsets;                         /* committed offsets held, every group type */
    int64_t classic[GR_GROUP_STATE_COUNT];   /* classic groups by gr_group_state_t */
    int64_t consumer[GR_CGROUP_STATE_COUNT]; /* consumer groups by gr_cgroup_state_t */
    int64_t share[GR_SGROUP_STATE_COUNT];    /* share groups by gr_sgroup_state_t */
} gr_group_census_t;

/* Counts the groups of the partitions loaded or loading here into out (zeroed first). */
void gr_group_census_take(const gr_coordinator_t *co, gr_group_census_t *out /* out */);

#endif
