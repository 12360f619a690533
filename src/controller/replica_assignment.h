/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replica placement as Kafka's AdminUtils.assignReplicasToBrokers does it,
 * so a topic lands on the same brokers it would on a Kafka cluster given the
 * same start index and shift.
 *
 * Rack-unaware: partition p's first replica (its preferred leader) is broker
 * (start + p) % n of the id-sorted list; its followers sit at
 * first + 1 + (shift + j) % (n - 1) for j = 0.., and the shift grows by one
 * every n partitions, so a second round of leaders gets different followers.
 *
 * Rack-aware (every broker has a rack): the same walk over a list that
 * alternates racks (racks sorted by name, brokers of a rack by id), with the
 * shift scaled by the rack count; a follower is skipped while its rack
 * already holds a replica and some rack holds none, or while it already
 * holds one and some broker holds none. So replicas cover distinct racks
 * while racks remain, and never share a broker while brokers remain.
 *
 * Randomness is the caller's: the seed carries Kafka's two random numbers
 * (gr_replica_seed_continue derives them for new partitions of a topic), so
 * the module is pure and its layouts testable.
 *
 * Runs on: any thread (no state).
 */
#ifndef GR_CONTROLLER_REPLICA_ASSIGNMENT_H
#define GR_CONTROLLER_REPLICA_ASSIGNMENT_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/kerr.h"

/* A live broker as placement sees it. */
typedef struct gr_replica_broker {
    int32_t id;
    const char *rack; /* NULL: no broker.rack (borrowed) */
} gr_replica_broker_t;

/* Kafka's RackAwareMode: what to do when only some brokers have a rack. */
typedef enum gr_rack_mode {
    GR_RACK_MODE_ENFORCED, /* refuse (CreateTopics, CreatePartitions) */
    GR_RACK_MODE_SAFE,     /* place ignoring racks (auto-creation) */
} gr_rack_mode_t;

typedef struct gr_replica_seed {
    int32_t start_index;     /* first partition's leader: index into the placement list */
    int32_t replica_shift;   /* Kafka's nextReplicaShift */
    int32_t first_partition; /* id of the first partition placed (existing count when growing) */
} gr_replica_seed_t;

/*
 * Checks that factor replicas can be placed on these count brokers in mode.
 * Returns GR_KERR_NONE; INVALID_REPLICATION_FACTOR (factor < 1 or above
 * count); or UNKNOWN_SERVER_ERROR when mode is ENFORCED and only some
 * brokers have a rack (Kafka's AdminOperationException). msg says why.
 */
gr_kerr_t gr_replica_assign_check(const gr_replica_broker_t *brokers, size_t count, int32_t factor,
                                  gr_rack_mode_t mode, char *msg, size_t len);

/*
 * The seed Kafka uses to place new partitions of a topic whose partition 0
 * starts with broker leader0, existing partitions already placed: start and
 * shift both at the first broker with id >= leader0 (0 when none), so the
 * leaders continue the existing round. brokers sorted by id.
 */
gr_replica_seed_t gr_replica_seed_continue(const gr_replica_broker_t *brokers, size_t count,
                                           int32_t leader0, int32_t existing);

/*
 * Places partitions partitions of factor replicas each on the count brokers
 * (sorted by id, ids distinct) into out[p * factor + r] (partition-major,
 * out sized partitions * factor), rack-aware when every broker has a rack
 * and rack-unaware otherwise (check first for ENFORCED's refusal).
 * seed->start_index and replica_shift must be >= 0 (reduced mod count).
 * Returns 0, -EINVAL (partitions < 1, factor outside 1..count) or -ENOMEM.
 */
int gr_replica_assign(const gr_replica_broker_t *brokers, size_t count, int32_t partitions,
                      int32_t factor, const gr_replica_seed_t *seed, int32_t *out);

#endif
