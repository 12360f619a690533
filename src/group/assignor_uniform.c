/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The uniform assignor (Kafka's default for KIP-848 groups): balance first,
 * then stickiness, then racks. Members with the same subscriptions take the
 * quota path below; different subscriptions go to
 * assignor_uniform_heterogeneous.c.
 *
 * Same subscriptions: total partitions T over M members gives each
 * T / M, and T % M of them one more. Each member keeps its current
 * partitions up to T / M + 1 (its rack-local ones first when racks matter);
 * the extra slots go, in member order, first to members that already hold
 * T / M + 1 (Kafka hands them out by member order alone, which can take a
 * partition from one member only to give another one: we keep it where it
 * is), then to the rest in member order; a member holding one too many
 * gives back the last it kept. The freed and new partitions go, when racks
 * matter, to a member of a rack holding a replica (round robin within the
 * rack) while it is below quota, and the rest, in topic and partition
 * order, to the members below quota in member order, each a run in turn.
 */
#include "group/assignor.h"

#include <errno.h>
#include <stdlib.h>

#include "group/assignor_int.h"

typedef struct keep_pass {
    bool local_only; /* the first pass with racks: partitions with a replica in m's rack */
    int32_t limit;
    int32_t *last;
} keep_pass_t;

static bool keep_one(gr_plan_t *plan, int32_t m, int32_t g, void *ctx)
{
    keep_pass_t *k = ctx;
    if (plan->owner[g] != GR_PLAN_UNOWNED || (k->local_only && !gr_plan_rack_match(plan, m, g)))
        return true;
    if (plan->size[m] >= k->limit)
        return false;
    gr_plan_give(plan, g, m);
    *k->last = g;
    return true;
}

/* Member m keeps its current partitions of subscribed topics, up to limit, local ones first. */
static void keep_current(gr_plan_t *plan, int32_t m, int32_t limit, int32_t *last)
{
    for (int pass = plan->racks_on ? 0 : 1; pass < 2; pass++) {
        keep_pass_t k = {pass == 0, limit, last};
        gr_plan_each_current(plan, m, keep_one, &k);
        if (plan->size[m] >= limit)
            return;
    }
}

/* Sets quota[m] for every member after each kept what it could (see the file comment). */
static void set_quotas(gr_plan_t *plan, int32_t min_quota, int32_t extra, const int32_t *last,
                       int32_t *quota)
{
    for (int32_t m = 0; m < plan->member_count; m++) {
        quota[m] = -1;
        if (plan->size[m] <= min_quota)
            continue;
        if (extra > 0) {
            extra--;
            quota[m] = min_quota + 1;
        } else {
            gr_plan_take(plan, last[m]);
            quota[m] = min_quota;
        }
    }
    for (int32_t m = 0; m < plan->member_count; m++) {
        if (quota[m] >= 0)
            continue;
        quota[m] = min_quota + (extra > 0);
        extra -= extra > 0;
    }
}

/* The rack queues: per rack, the members below quota, served round robin. */
typedef struct rack_queues {
    int32_t *first, *alive, *cursor; /* per rack */
    int32_t *members;
} rack_queues_t;

static int rack_queues_init(rack_queues_t *q, const gr_plan_t *plan, const int32_t *quota)
{
    size_t racks = (size_t)plan->rack_count + 1;
    q->first = calloc(racks, sizeof *q->first);
    q->alive = calloc(racks, sizeof *q->alive);
    q->cursor = calloc(racks, sizeof *q->cursor);
    q->members = malloc(((size_t)plan->member_count + 1) * sizeof *q->members);
    if (!q->first || !q->alive || !q->cursor || !q->members)
        return -ENOMEM;
    for (int32_t m = 0; m < plan->member_count; m++) {
        if (plan->member_rack[m] != GR_PLAN_NO_RACK && plan->size[m] < quota[m])
            q->alive[plan->member_rack[m]]++;
    }
    for (int32_t r = 1; r < plan->rack_count; r++)
        q->first[r] = q->first[r - 1] + q->alive[r - 1];
    for (int32_t m = 0; m < plan->member_count; m++) {
        int32_t r = plan->member_rack[m];
        if (r != GR_PLAN_NO_RACK && plan->size[m] < quota[m])
            q->members[q->first[r] + q->cursor[r]++] = m;
    }
    for (int32_t r = 0; r < plan->rack_count; r++)
        q->cursor[r] = 0;
    return 0;
}

static void rack_queues_fini(rack_queues_t *q)
{
    free(q->first);
    free(q->alive);
    free(q->cursor);
    free(q->members);
}

/* Gives g to the next member of rack r below quota; false if there is none. */
static bool rack_queues_give(rack_queues_t *q, gr_plan_t *plan, int32_t r, int32_t g,
                             const int32_t *quota)
{
    if (q->alive[r] == 0)
        return false;
    int32_t *slot = &q->members[q->first[r] + q->cursor[r]];
    int32_t m = *slot;
    gr_plan_give(plan, g, m);
    if (plan->size[m] >= quota[m]) {
        *slot = q->members[q->first[r] + --q->alive[r]];
        if (q->cursor[r] >= q->alive[r])
            q->cursor[r] = 0;
    } else {
        q->cursor[r] = (q->cursor[r] + 1) % q->alive[r];
    }
    return true;
}

/* Gives what it can of free[0..*n) to rack-local members; leaves the rest in free. */
static int fill_by_rack(gr_plan_t *plan, const int32_t *quota, int32_t *free_list, int32_t *n)
{
    rack_queues_t q = {0};
    if (rack_queues_init(&q, plan, quota) < 0) {
        rack_queues_fini(&q);
        return -ENOMEM;
    }
    int32_t left = 0;
    for (int32_t i = 0; i < *n; i++) {
        int32_t g = free_list[i];
        bool given = false;
        for (int32_t k = plan->rack_first[g]; k < plan->rack_first[g + 1] && !given; k++)
            given = rack_queues_give(&q, plan, plan->rack_ids[k], g, quota);
        if (!given)
            free_list[left++] = g;
    }
    *n = left;
    rack_queues_fini(&q);
    return 0;
}

/* Every partition nobody kept, to the members below quota. */
static int fill(gr_plan_t *plan, const int32_t *quota)
{
    int32_t *free_list = malloc(((size_t)plan->total + 1) * sizeof *free_list);
    if (!free_list)
        return -ENOMEM;
    int32_t n = 0;
    for (int32_t i = plan->sub_first[0]; i < plan->sub_first[1]; i++) {
        int32_t t = plan->sub_topics[i];
        for (int32_t g = plan->first[t]; g < plan->first[t + 1]; g++) {
            if (plan->owner[g] == GR_PLAN_UNOWNED)
                free_list[n++] = g;
        }
    }
    int rc = plan->racks_on ? fill_by_rack(plan, quota, free_list, &n) : 0;
    int32_t next = 0;
    for (int32_t m = 0; rc == 0 && m < plan->member_count; m++) {
        while (plan->size[m] < quota[m] && next < n)
            gr_plan_give(plan, free_list[next++], m);
    }
    free(free_list);
    return rc;
}

static int assign_homogeneous(gr_plan_t *plan)
{
    int32_t total = 0;
    for (int32_t i = plan->sub_first[0]; i < plan->sub_first[1]; i++) {
        int32_t t = plan->sub_topics[i];
        total += plan->first[t + 1] - plan->first[t];
    }
    if (total == 0)
        return 0;
    int32_t min_quota = total / plan->member_count, extra = total % plan->member_count;
    int32_t *last = malloc((size_t)plan->member_count * sizeof *last);
    int32_t *quota = malloc((size_t)plan->member_count * sizeof *quota);
    int rc = -ENOMEM;
    if (last && quota) {
        for (int32_t m = 0; m < plan->member_count; m++)
            keep_current(plan, m, min_quota + 1, &last[m]);
        set_quotas(plan, min_quota, extra, last, quota);
        rc = fill(plan, quota);
    }
    free(last);
    free(quota);
    return rc;
}

static int assign_uniform(const gr_assignor_input_t *in, gr_assignment_t *out)
{
    if (in->member_count == 0)
        return 0;
    gr_plan_t plan;
    int rc = gr_plan_init(&plan, in);
    if (rc < 0)
        return rc;
    if (gr_plan_homogeneous(&plan))
        rc = assign_homogeneous(&plan);
    else
        rc = gr_assignor_uniform_heterogeneous(&plan);
    if (rc == 0)
        rc = gr_plan_emit(&plan, out);
    gr_plan_fini(&plan);
    return rc;
}

const gr_assignor_t gr_assignor_uniform = {GR_ASSIGNOR_UNIFORM, assign_uniform};
