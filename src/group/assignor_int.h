/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the assignors share (private to src/group/): a plan, the input
 * indexed for the lookups every assignor does.
 *
 * Every partition of the input has a global number g: first[t] + p for
 * partition p of topics[t]. owner[g] is the index of the member it is
 * given to, or GR_PLAN_UNOWNED; size[m] counts member m's partitions. An
 * assignor fills owner with gr_plan_give/take and gr_plan_emit turns it
 * into the output sets, so every partition has at most one owner by
 * construction.
 *
 * Racks: when at least one member has a rack and some partition lacks a
 * replica in some member's rack (so the choice of member can matter),
 * racks_on is set, member_rack[m] is an index into the sorted distinct
 * member racks (or GR_PLAN_NO_RACK), and the member racks holding a replica
 * of partition g are rack_ids[rack_first[g] .. rack_first[g + 1]).
 *
 * Runs on: any thread (the plan is the caller's).
 */
#ifndef GR_GROUP_ASSIGNOR_INT_H
#define GR_GROUP_ASSIGNOR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "group/assignor.h"

#define GR_PLAN_UNOWNED (-1)
#define GR_PLAN_NO_RACK (-1)

typedef struct gr_plan {
    const gr_assignor_input_t *in;
    int32_t member_count;
    int32_t topic_count;
    int32_t total;        /* partitions of all topics */
    int32_t largest;      /* partitions of the biggest topic */
    int32_t *first;       /* topic_count + 1 offsets */
    int32_t *owner;       /* total entries */
    int32_t *size;        /* member_count entries */
    int32_t *by_id;       /* topic indices sorted by id, for lookup */
    int32_t *sub_first;   /* member_count + 1 offsets into sub_topics */
    int32_t *sub_topics;  /* each member's topic indices, ascending, distinct */
    int32_t *subscribers; /* per topic: number of subscribed members */
    bool racks_on;
    int32_t rack_count;
    const char **rack_names; /* sorted distinct member racks */
    int32_t *member_rack;    /* member_count entries */
    int32_t *rack_first;     /* total + 1 offsets into rack_ids */
    int32_t *rack_ids;
} gr_plan_t;

/* Indexes in. 0 or -ENOMEM (plan then freed). */
int gr_plan_init(gr_plan_t *plan, const gr_assignor_input_t *in);
void gr_plan_fini(gr_plan_t *plan);

/* The index of the input topic with this id, or -1. */
int32_t gr_plan_topic(const gr_plan_t *plan, gr_uuid_t id);
bool gr_plan_subscribes(const gr_plan_t *plan, int32_t member, int32_t topic);
/*
 * Calls visit(plan, member, g, ctx) for each partition g of member's current
 * target assignment that still exists, in a topic member subscribes to, in
 * the order of that assignment; stops when visit returns false.
 */
typedef bool gr_plan_current_fn(gr_plan_t *plan, int32_t member, int32_t g, void *ctx);
void gr_plan_each_current(gr_plan_t *plan, int32_t member, gr_plan_current_fn *visit, void *ctx);
/* Do all members subscribe to the same topics? */
bool gr_plan_homogeneous(const gr_plan_t *plan);
/* Is a replica of partition g in member's rack? False without racks. */
bool gr_plan_rack_match(const gr_plan_t *plan, int32_t member, int32_t g);

/* May a partition g count as local to rack? (NULL: always.) */
typedef bool gr_plan_rack_keep_fn(const void *ctx, int32_t g, int32_t rack);
/*
 * Buckets items[0..n) (global partition numbers) by the member racks holding
 * a replica: rack r's are list[offsets[r] .. offsets[r + 1]), as indices
 * into items, ascending. offsets holds rack_count + 1. Needs racks_on.
 * Returns the list (caller frees) or NULL on ENOMEM.
 */
int32_t *gr_plan_rack_buckets(const gr_plan_t *plan, const int32_t *items, int32_t n,
                              gr_plan_rack_keep_fn *keep, const void *ctx, int32_t *offsets);

/* owner[g] = member (g unowned). */
void gr_plan_give(gr_plan_t *plan, int32_t g, int32_t member);
/* owner[g] = unowned (g owned). */
void gr_plan_take(gr_plan_t *plan, int32_t g);

/* Adds every owned partition to out[owner]. 0 or -ENOMEM. */
int gr_plan_emit(const gr_plan_t *plan, gr_assignment_t *out);

/* Kafka's Uuid order (two signed 64-bit halves), for its tie-breaks. */
int gr_plan_uuid_cmp(gr_uuid_t a, gr_uuid_t b);

/* Uniform's builder for members with different subscriptions. */
int gr_assignor_uniform_heterogeneous(gr_plan_t *plan);

#endif
