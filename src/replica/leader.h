/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A partition leader's side of replication: the followers' progress from
 * their fetches, the high watermark it moves, and the ISR changes it asks
 * the controller for (replica/alter_partition.h) as Kafka's leaders do:
 *  - shrink: every replica.lag.time.max.ms / 2, followers out of sync
 *    (partition/isr.h) leave the ISR;
 *  - expand: a follower outside the ISR whose fetch shows it has caught up
 *    joins it.
 * One change per partition is in flight at a time; the high watermark counts
 * it as partition.h says. The answer (or the controller's next LeaderAndIsr
 * or UpdateMetadata) sets the ISR.
 *
 * Runs on: loop thread.
 */
#ifndef GR_REPLICA_LEADER_H
#define GR_REPLICA_LEADER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gr_broker gr_broker_t;
typedef struct gr_partition gr_partition_t;

/*
 * p is led here from now on (LeaderAndIsr): keeps the followers' progress
 * when the leader epoch is the one already led (a repeated state), starts it
 * afresh otherwise. Returns 0 or -ENOMEM.
 */
int gr_replica_lead(gr_broker_t *b, gr_partition_t *p, int32_t previous_epoch, bool was_leader);

/* p's ISR was set by the controller (any request): the watermark may move. */
void gr_replica_isr_set(gr_broker_t *b, gr_partition_t *p);

/*
 * A follower's fetch of p at fetch_offset (Fetch with replica_id). Returns
 * GR_KERR_NONE, or NOT_LEADER_OR_FOLLOWER when replica is no replica of p.
 */
int16_t gr_replica_follower_fetch(gr_broker_t *b, gr_partition_t *p, int32_t replica,
                                  int64_t fetch_offset);

/* Starts / stops the periodic ISR check over the partitions led here. */
void gr_replica_leader_start(gr_broker_t *b);
void gr_replica_leader_stop(gr_broker_t *b);

#endif
