/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker side of the controller's requests (LeaderAndIsr,
 * UpdateMetadata, StopReplica): controller epoch fencing, and what a
 * partition's new placement means for this broker (open its log, move its
 * consumer groups).
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
 * Checks a controller request's epoch: older than the newest seen gives
 * STALE_CONTROLLER_EPOCH; otherwise the sender is recorded as the
 * controller. Single-node brokers (no ZooKeeper) refuse every controller
 * request: they are their own controller (STALE_CONTROLLER_EPOCH too, as a
 * controller unknown to the cluster).
 */
gr_kerr_t gr_controller_request_check(gr_broker_t *b, int32_t controller_id, int32_t epoch);

/*
 * Acts on p's placement, just set from a LeaderAndIsr: a replica here gets
 * its log opened (KAFKA_STORAGE_ERROR if that fails), a partition no longer
 * assigned here is closed; leadership of a __consumer_offsets partition
 * loads or unloads its groups. Returns GR_KERR_NONE or the partition's error.
 */
gr_kerr_t gr_replica_apply(gr_broker_t *b, gr_partition_t *p);

/* Stops this broker's replica of p (StopReplica); deletes its data when delete_data. */
void gr_replica_stop(gr_broker_t *b, gr_partition_t *p, bool delete_data);

/*
 * Why this broker cannot serve p's data to clients, or GR_KERR_NONE:
 * UNKNOWN_TOPIC_OR_PARTITION when p is NULL (or has no log, single-node),
 * NOT_LEADER_OR_FOLLOWER in cluster mode when another broker leads it (or
 * nobody does), so that clients refresh their metadata.
 */
gr_kerr_t gr_partition_serve_error(const gr_broker_t *b, const gr_partition_t *p);

/*
 * Whether topic name has at least partitions partitions in this broker's
 * metadata, each led by a live broker (cluster-mode admin requests wait for it).
 */
bool gr_topic_led(gr_broker_t *b, const char *name, int32_t partitions);

/* Whether this broker leads p: it holds the log and the controller named it leader. */
bool gr_partition_led_here(const gr_broker_t *b, const gr_partition_t *p);

#endif
