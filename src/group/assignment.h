/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A set of partitions named by topic id: what a KIP-848 consumer-group
 * member owns, is assigned, or is to revoke, and what an assignor computes.
 * Topics are kept sorted by id and each topic's partitions sorted and
 * distinct, so two sets compare, diff and encode in one pass. A topic is
 * never kept with no partition.
 *
 * Pure data: no clock, no log, no broker.
 *
 * Runs on: any thread (no shared state).
 */
#ifndef GR_GROUP_ASSIGNMENT_H
#define GR_GROUP_ASSIGNMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/types.h"

typedef struct gr_assignment_topic {
    gr_uuid_t topic_id;
    int32_t *partitions; /* sorted, distinct */
    int32_t partition_count;
    int32_t partition_cap;
} gr_assignment_topic_t;

typedef struct gr_assignment {
    gr_assignment_topic_t *topics; /* sorted by topic id (memcmp order) */
    int32_t topic_count;
    int32_t topic_cap;
} gr_assignment_t;

#define GR_ASSIGNMENT_INIT                                                                         \
    {                                                                                              \
        0                                                                                          \
    }

void gr_assignment_init(gr_assignment_t *a);
void gr_assignment_free(gr_assignment_t *a); /* leaves a empty and reusable */
void gr_assignment_clear(gr_assignment_t *a);

/* Adds one partition (no-op if present). 0 or -ENOMEM. */
int gr_assignment_add(gr_assignment_t *a, gr_uuid_t topic_id, int32_t partition);
/* Removes one partition; true if it was there. */
bool gr_assignment_remove(gr_assignment_t *a, gr_uuid_t topic_id, int32_t partition);
bool gr_assignment_contains(const gr_assignment_t *a, gr_uuid_t topic_id, int32_t partition);
/* The topic's entry, or NULL. */
const gr_assignment_topic_t *gr_assignment_topic(const gr_assignment_t *a, gr_uuid_t topic_id);
/* Drops every partition of topic_id. */
void gr_assignment_remove_topic(gr_assignment_t *a, gr_uuid_t topic_id);

/* Total number of partitions. */
int32_t gr_assignment_size(const gr_assignment_t *a);
bool gr_assignment_is_empty(const gr_assignment_t *a);
bool gr_assignment_equal(const gr_assignment_t *a, const gr_assignment_t *b);

/* *dst = copy of src (dst's old content freed). 0 or -ENOMEM (dst left empty). */
int gr_assignment_copy(gr_assignment_t *dst, const gr_assignment_t *src);
/* *dst = a ∩ b. 0 or -ENOMEM. dst must not alias a or b. */
int gr_assignment_intersect(gr_assignment_t *dst, const gr_assignment_t *a,
                            const gr_assignment_t *b);
/* *dst = a \ b. 0 or -ENOMEM. dst must not alias a or b. */
int gr_assignment_subtract(gr_assignment_t *dst, const gr_assignment_t *a,
                           const gr_assignment_t *b);
/* a ∪= b. 0 or -ENOMEM. */
int gr_assignment_merge(gr_assignment_t *a, const gr_assignment_t *b);
/* Does a share a partition with b? */
bool gr_assignment_overlaps(const gr_assignment_t *a, const gr_assignment_t *b);

#endif
