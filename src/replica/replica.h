/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a partition's placement, set by the controller's requests
 * (replica/requests.h), means for this broker: open or close its log, lead
 * it or follow its leader, and tell the layer above (b->on_leadership: the
 * group coordinator) when its leadership here begins or ends.
 *
 * Runs on: loop thread.
 */
#ifndef GR_REPLICA_REPLICA_H
#define GR_REPLICA_REPLICA_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/kerr.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_partition gr_partition_t;

/*
 * Acts on p's placement, just set from a LeaderAndIsr (previous_epoch and
 * was_leader: what it was before): a replica here gets its log opened
 * (KAFKA_STORAGE_ERROR if that fails) and leads (replica/leader.h) or
 * follows (replica/fetcher.h); a partition no longer assigned here is
 * closed; leadership of a __consumer_offsets partition loads or unloads its
 * groups. Returns GR_KERR_NONE or the partition's error.
 */
gr_kerr_t gr_replica_apply(gr_broker_t *b, gr_partition_t *p, int32_t previous_epoch,
                           bool was_leader);

/* Stops this broker's replica of p (StopReplica); deletes its data when delete_data. */
void gr_replica_stop(gr_broker_t *b, gr_partition_t *p, bool delete_data);

#endif
