/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which __consumer_offsets partition coordinates a group: Kafka's
 * Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions, computed
 * exactly as Java does, so clients and tools that predict the coordinator
 * partition agree with us.
 */
#ifndef GR_GROUP_COORDINATOR_HASH_H
#define GR_GROUP_COORDINATOR_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Java's String.hashCode of the UTF-8 string id: over UTF-16 code units
 * (code points above U+FFFF count as a surrogate pair), with int32
 * wrap-around. Malformed UTF-8 bytes count as U+FFFD, as Java's decoder
 * substitutes them.
 */
int32_t gr_java_string_hash(const char *id, size_t len);

/* Kafka's Utils.abs: |n|, but 0 for INT32_MIN (whose |n| does not exist). */
int32_t gr_kafka_abs(int32_t n);

/* The coordinator partition of group id among partitions (> 0). */
int32_t gr_group_partition_for(const char *id, size_t len, int32_t partitions);

#endif
