/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which partition of a coordinator's internal topic holds a key (a group
 * id in __consumer_offsets, a transactional id in __transaction_state):
 * Kafka's Utils.abs(key.hashCode()) % partitions, computed exactly as Java
 * does, so clients and tools that predict the coordinator partition agree
 * with us. The coordinators' key tables hash with it too.
 */
#ifndef GR_COORDINATOR_HASH_H
#define GR_COORDINATOR_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/types.h"

/*
 * Java's String.hashCode of the UTF-8 string id: over UTF-16 code units
 * (code points above U+FFFF count as a surrogate pair), with int32
 * wrap-around. Malformed UTF-8 bytes count as U+FFFD, as Java's decoder
 * substitutes them.
 */
int32_t gr_java_string_hash(const char *id, size_t len);

/* Kafka's Utils.abs: |n|, but 0 for INT32_MIN (whose |n| does not exist). */
int32_t gr_kafka_abs(int32_t n);

/* The bucket of key id in a coordinator's key table of bucket_count (> 0) chains. */
size_t gr_coordinator_key_bucket(gr_str_t id, size_t bucket_count);

/* The coordinator partition of key id among partitions (> 0). */
int32_t gr_coordinator_partition_for(const char *id, size_t len, int32_t partitions);

#endif
