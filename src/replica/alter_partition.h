/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A leader asks the controller to change a partition's ISR (AlterPartition,
 * as Kafka 3.8 leaders do in ZooKeeper mode): the controller checks the
 * leader and partition epochs, writes the partition's state node and answers
 * with the state written. While the request is out, p->proposed_isr holds
 * the proposal (see partition.h for what the high watermark makes of it).
 * A refused or failed proposal is dropped: the ISR check or the next
 * follower fetch proposes again after GR_ISR_RETRY_MS.
 *
 * Runs on: loop thread.
 */
#ifndef GR_REPLICA_ALTER_PARTITION_H
#define GR_REPLICA_ALTER_PARTITION_H

#include <stdint.h>

typedef struct gr_broker gr_broker_t;
typedef struct gr_partition gr_partition_t;

#define GR_ALTER_PARTITION_VERSION 1 /* topics by name */
#define GR_ISR_RETRY_MS            100

/* Sends isr (copied) as p's new ISR unless a proposal is already out or too recent. */
void gr_replica_propose_isr(gr_broker_t *b, gr_partition_t *p, const int32_t *isr, int32_t count);

/* Closes the controller connection (its pending proposal callbacks run, cancelled). */
void gr_replica_alter_partition_stop(gr_broker_t *b);

#endif
