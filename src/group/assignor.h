/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KIP-848 server-side assignors: given the members of a consumer group
 * (their subscriptions, racks and current target assignments) and the
 * subscribed topics (partition counts and the racks of each partition's
 * replicas), compute every member's new target assignment.
 *
 * Kafka's two: "uniform" (the default; balances the partition count per
 * member, heterogeneous subscriptions allowed) and "range" (per topic,
 * contiguous ranges, so members subscribed to co-partitioned topics get the
 * same partition numbers). Both are sticky: a partition stays with the
 * member holding it in its current target assignment unless balance
 * requires a move, so a membership or partition change moves as few
 * partitions as it can. Both are rack-aware: when members and partitions
 * have racks, a partition goes preferably to a member in a rack holding one
 * of its replicas, as long as balance allows.
 *
 * Pure functions: deterministic for a given input (members in the order
 * given, topics in the order given), no clock, no broker.
 *
 * Runs on: any thread.
 */
#ifndef GR_GROUP_ASSIGNOR_H
#define GR_GROUP_ASSIGNOR_H

#include <stdint.h>

#include "group/assignment.h"
#include "protocol/types.h"

#define GR_ASSIGNOR_UNIFORM "uniform"
#define GR_ASSIGNOR_RANGE   "range"

typedef struct gr_assignor_member {
    const char *member_id;
    const char *instance_id; /* NULL for a dynamic member */
    const char *rack;        /* NULL: unknown */
    /* The topics it subscribes to that exist (ids of the input's topics), any order. */
    const gr_uuid_t *topics;
    int32_t topic_count;
    /* Its current target assignment (stickiness); may be empty, never NULL. */
    const gr_assignment_t *current;
} gr_assignor_member_t;

typedef struct gr_assignor_topic {
    gr_uuid_t id;
    const char *name;
    int32_t partition_count;
    /*
     * Racks of each partition's replicas: partition_racks[p] holds
     * partition_rack_count[p] names. NULL when no broker has a rack.
     */
    const char *const *const *partition_racks;
    const int32_t *partition_rack_count;
} gr_assignor_topic_t;

typedef struct gr_assignor_input {
    const gr_assignor_member_t *members; /* sorted by member id */
    int32_t member_count;
    const gr_assignor_topic_t *topics; /* every topic some member subscribes to */
    int32_t topic_count;
} gr_assignor_input_t;

/*
 * Fills out[i] (initialised and empty on entry, member_count of them) with
 * members[i]'s new target assignment. Every partition of a subscribed topic
 * goes to exactly one member subscribed to it (none when nobody is); a
 * member gets only partitions of topics it subscribes to. 0 or -ENOMEM (out
 * then holds partial results the caller frees).
 */
typedef int gr_assignor_fn(const gr_assignor_input_t *in, gr_assignment_t *out);

typedef struct gr_assignor {
    const char *name;
    gr_assignor_fn *assign;
} gr_assignor_t;

extern const gr_assignor_t gr_assignor_uniform;
extern const gr_assignor_t gr_assignor_range;

/* The assignor named name ("uniform", "range"), or NULL. */
const gr_assignor_t *gr_assignor_find(gr_str_t name);

#endif
