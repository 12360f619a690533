/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topic table in cluster mode, shaped by the controller: every topic of
 * the cluster is known (UpdateMetadata, LeaderAndIsr), with each
 * partition's leader, replicas and ISR; only the partitions this broker is
 * a replica of have a log (opened when the controller says so, closed or
 * deleted by StopReplica). Topic configs come from /config/topics/T.
 *
 * Runs on: loop thread.
 */
#ifndef GR_METADATA_TOPICS_CLUSTER_H
#define GR_METADATA_TOPICS_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "metadata/topics.h"

/*
 * The topic named name, added to the table (no logs, every partition offline)
 * when unknown, and grown to partition_count partitions when it has fewer.
 * A known topic with another id is replaced (a topic deleted and created again
 * while this broker was away); one known without an id (from an old request
 * version) takes this one. NULL when out of memory.
 */
gr_topic_t *gr_topics_learn(gr_broker_t *b, const char *name, size_t name_len, gr_uuid_t id,
                            int32_t partition_count);

/* Sets a partition's placement (arrays copied). 0 or -ENOMEM (unchanged). */
int gr_partition_set_placement(gr_partition_t *p, int32_t leader, int32_t leader_epoch,
                               const int32_t *replicas, int32_t replica_count, const int32_t *isr,
                               int32_t isr_count, int32_t partition_epoch);

/* Opens the partition's log here (creating or recovering it) unless open. 0 or -errno (logged). */
int gr_partition_host(gr_broker_t *b, gr_partition_t *p);

/* Closes the partition's log here; deletes its data when delete_data. */
void gr_partition_unhost(gr_broker_t *b, gr_partition_t *p, bool delete_data);

/* Deletes the directory of a partition this broker does not have open (StopReplica). */
void gr_partition_dir_delete(gr_broker_t *b, const char *topic, size_t topic_len, int32_t index);

/* Drops the topic from the table, closing its logs (deleting them when delete_data). */
void gr_topics_forget(gr_broker_t *b, gr_topic_t *topic, bool delete_data);

/*
 * Whether topic name has at least partitions partitions in this broker's
 * metadata, each led by a live broker (admin requests wait for it).
 */
bool gr_topic_led(gr_broker_t *b, const char *name, int32_t partitions);

#endif
