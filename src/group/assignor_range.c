/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The range assignor: per topic, each subscriber gets N / S partitions of
 * the topic's N (S subscribers), the first N % S of them one more, as
 * ascending runs in member order, so that topics with the same partition
 * count and the same subscribers (a co-partitioned group) give every member
 * the same partition numbers, which joins over co-partitioned streams need.
 *
 * Member order is Kafka's: static members first by instance id, then the
 * others by member id, so static members keep their ranges across restarts.
 *
 * Sticky, as Kafka's server-side range assignor was before Kafka 4.0 made
 * it stateless: each co-partitioned group of topics is assigned once and
 * the result applied to every topic of the group. A member keeps its
 * current partitions of the group, the lowest first, up to its quota (the
 * first members in order already over quota keep one extra while extras
 * last); then, when racks matter, each member below quota takes the free
 * partitions all of whose group topics have a replica in its rack, lowest
 * first; the rest go, lowest first, to the members below quota in order.
 * A partition's current owner for the group is its owner in the group's
 * first topic that has one, so a topic joining a group takes the group's
 * layout.
 */
#include "group/assignor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "group/assignor_int.h"

typedef struct range {
    gr_plan_t *plan;
    int32_t *rank;              /* per member: its place in Kafka's member order */
    int32_t *tsub_first, *tsub; /* each topic's subscribers, in member order */
    int32_t *claim;             /* per global partition: current owner, or unowned */
    int32_t *group;             /* topics sorted so that a co-partitioned group is a run */
    /* One group's work, sized for the largest topic and the member count: */
    int32_t *group_owner; /* per partition number: current owner for the group */
    int32_t *need;        /* per member: partitions still to give it */
    bool *taken;          /* per partition number */
    int32_t *free_list;   /* global numbers of the lead topic's free partitions */
    int32_t lead;         /* the group's first topic */
    const struct group *current;
} range_t;

typedef struct member_key {
    const gr_assignor_member_t *member;
    int32_t index;
} member_key_t;

static int member_key_cmp(const void *a, const void *b)
{
    const gr_assignor_member_t *x = ((const member_key_t *)a)->member;
    const gr_assignor_member_t *y = ((const member_key_t *)b)->member;
    if (x->instance_id && y->instance_id) {
        int c = strcmp(x->instance_id, y->instance_id);
        if (c != 0)
            return c;
    } else if (x->instance_id || y->instance_id) {
        return x->instance_id ? -1 : 1;
    } else {
        int c = strcmp(x->member_id, y->member_id);
        if (c != 0)
            return c;
    }
    return ((const member_key_t *)a)->index - ((const member_key_t *)b)->index;
}

static int range_rank(range_t *r)
{
    gr_plan_t *plan = r->plan;
    member_key_t *keys = malloc(((size_t)plan->member_count + 1) * sizeof *keys);
    if (!keys)
        return -ENOMEM;
    for (int32_t m = 0; m < plan->member_count; m++)
        keys[m] = (member_key_t){&plan->in->members[m], m};
    qsort(keys, (size_t)plan->member_count, sizeof *keys, member_key_cmp);
    for (int32_t i = 0; i < plan->member_count; i++)
        r->rank[keys[i].index] = i;
    free(keys);
    return 0;
}

/* Each topic's subscribers in member order: members by rank, each appended to its topics. */
static int range_subscribers(range_t *r)
{
    gr_plan_t *plan = r->plan;
    int32_t *by_rank = malloc(((size_t)plan->member_count + 1) * sizeof *by_rank);
    int32_t *filled = calloc((size_t)plan->topic_count + 1, sizeof *filled);
    if (!by_rank || !filled) {
        free(by_rank);
        free(filled);
        return -ENOMEM;
    }
    for (int32_t m = 0; m < plan->member_count; m++)
        by_rank[r->rank[m]] = m;
    for (int32_t t = 0; t < plan->topic_count; t++)
        r->tsub_first[t + 1] = r->tsub_first[t] + plan->subscribers[t];
    for (int32_t i = 0; i < plan->member_count; i++) {
        int32_t m = by_rank[i];
        for (int32_t k = plan->sub_first[m]; k < plan->sub_first[m + 1]; k++) {
            int32_t t = plan->sub_topics[k];
            r->tsub[r->tsub_first[t] + filled[t]++] = m;
        }
    }
    free(by_rank);
    free(filled);
    return 0;
}

static bool claim_first(gr_plan_t *plan, int32_t m, int32_t g, void *ctx)
{
    (void)plan;
    range_t *r = ctx;
    if (r->claim[g] == GR_PLAN_UNOWNED)
        r->claim[g] = m;
    return true;
}

/* claim[g]: the first member (input order) holding g currently and subscribing to its topic. */
static void range_claims(range_t *r)
{
    gr_plan_t *plan = r->plan;
    for (int32_t g = 0; g < plan->total; g++)
        r->claim[g] = GR_PLAN_UNOWNED;
    for (int32_t m = 0; m < plan->member_count; m++)
        gr_plan_each_current(plan, m, claim_first, r);
}

/* One co-partitioned group: topics[0..count) share partitions and subscribers. */
typedef struct group group_t;

struct group {
    const int32_t *topics;
    int32_t count;
    int32_t partitions;
    const int32_t *members; /* subscribers in member order */
    int32_t member_count;
};

/* group_owner[p] = the current owner of p in the group's first topic that has one. */
static void group_current(range_t *r, const group_t *grp)
{
    for (int32_t p = 0; p < grp->partitions; p++) {
        r->group_owner[p] = GR_PLAN_UNOWNED;
        for (int32_t i = 0; i < grp->count && r->group_owner[p] == GR_PLAN_UNOWNED; i++)
            r->group_owner[p] = r->claim[r->plan->first[grp->topics[i]] + p];
        r->taken[p] = false;
    }
}

/* Members keep their lowest current partitions up to quota; need[] gets what each still lacks. */
static void group_keep(range_t *r, const group_t *grp)
{
    int32_t min_quota = grp->partitions / grp->member_count;
    int32_t extra = grp->partitions % grp->member_count;
    for (int32_t i = 0; i < grp->member_count; i++)
        r->need[grp->members[i]] = 0;
    for (int32_t p = 0; p < grp->partitions; p++) {
        if (r->group_owner[p] != GR_PLAN_UNOWNED)
            r->need[r->group_owner[p]]++;
    }
    /* need[] holds current counts here and becomes how many to keep. */
    for (int32_t i = 0; i < grp->member_count; i++) {
        int32_t m = grp->members[i], held = r->need[m];
        r->need[m] = held < min_quota ? held : min_quota;
        if (held > min_quota && extra > 0) {
            r->need[m]++;
            extra--;
        }
    }
    for (int32_t p = 0; p < grp->partitions; p++) {
        int32_t m = r->group_owner[p];
        r->group_owner[p] = GR_PLAN_UNOWNED;
        if (m != GR_PLAN_UNOWNED && r->need[m] > 0) {
            r->need[m]--;
            r->group_owner[p] = m;
            r->taken[p] = true;
        }
    }
    /* Kept partitions are counted again to turn need[] into what is missing. */
    for (int32_t p = 0; p < grp->partitions; p++) {
        if (r->taken[p])
            r->need[r->group_owner[p]]++;
    }
    for (int32_t i = 0; i < grp->member_count; i++) {
        int32_t m = grp->members[i], kept = r->need[m];
        int32_t quota = kept > min_quota ? kept : min_quota + (extra > 0);
        if (kept <= min_quota && extra > 0)
            extra--;
        r->need[m] = quota - kept;
    }
}

static void group_give(range_t *r, int32_t p, int32_t m)
{
    r->group_owner[p] = m;
    r->taken[p] = true;
    r->need[m]--;
}

/* Does every topic of the group have a replica of the lead topic's partition g in rack? */
static bool group_rack_has(const void *ctx, int32_t g, int32_t rack)
{
    const range_t *r = ctx;
    const gr_plan_t *plan = r->plan;
    int32_t p = g - plan->first[r->lead];
    for (int32_t i = 0; i < r->current->count; i++) {
        int32_t h = plan->first[r->current->topics[i]] + p;
        bool found = false;
        for (int32_t k = plan->rack_first[h]; k < plan->rack_first[h + 1] && !found; k++)
            found = plan->rack_ids[k] == rack;
        if (!found)
            return false;
    }
    return true;
}

/* Members below quota take free partitions local to their rack, lowest first. */
static int group_by_rack(range_t *r, const group_t *grp)
{
    const gr_plan_t *plan = r->plan;
    if (!plan->racks_on)
        return 0;
    int32_t n = 0, lead = plan->first[grp->topics[0]];
    for (int32_t p = 0; p < grp->partitions; p++) {
        if (!r->taken[p])
            r->free_list[n++] = lead + p;
    }
    r->lead = grp->topics[0];
    r->current = grp;
    int32_t *offsets = calloc((size_t)plan->rack_count + 1, sizeof *offsets);
    int32_t *list =
        offsets ? gr_plan_rack_buckets(plan, r->free_list, n, group_rack_has, r, offsets) : NULL;
    if (!list) {
        free(offsets);
        return -ENOMEM;
    }
    /* offsets[rack] advances as the rack's list is used up. */
    for (int32_t i = 0; i < grp->member_count; i++) {
        int32_t m = grp->members[i], rack = plan->member_rack[m];
        if (rack == GR_PLAN_NO_RACK)
            continue;
        while (r->need[m] > 0 && offsets[rack] < offsets[rack + 1]) {
            int32_t p = r->free_list[list[offsets[rack]++]] - lead;
            if (!r->taken[p])
                group_give(r, p, m);
        }
    }
    free(offsets);
    free(list);
    return 0;
}

/* The free partitions, lowest first, to the members below quota in order; then to every topic. */
static void group_fill(range_t *r, const group_t *grp)
{
    int32_t p = 0;
    for (int32_t i = 0; i < grp->member_count; i++) {
        int32_t m = grp->members[i];
        while (r->need[m] > 0 && p < grp->partitions) {
            if (!r->taken[p])
                group_give(r, p, m);
            p++;
        }
    }
    for (int32_t i = 0; i < grp->count; i++) {
        int32_t base = r->plan->first[grp->topics[i]];
        for (int32_t q = 0; q < grp->partitions; q++) {
            if (r->group_owner[q] != GR_PLAN_UNOWNED)
                gr_plan_give(r->plan, base + q, r->group_owner[q]);
        }
    }
}

typedef struct topic_key {
    int32_t partitions, subscriber_count, index;
    const int32_t *subscribers;
} topic_key_t;

/* Co-partitioned topics (same partition count, same subscribers) next to each other. */
static int topic_key_cmp(const void *a, const void *b)
{
    const topic_key_t *x = a, *y = b;
    if (x->partitions != y->partitions)
        return x->partitions < y->partitions ? -1 : 1;
    if (x->subscriber_count != y->subscriber_count)
        return x->subscriber_count < y->subscriber_count ? -1 : 1;
    int c = memcmp(x->subscribers, y->subscribers,
                   (size_t)x->subscriber_count * sizeof *x->subscribers);
    if (c != 0)
        return c;
    return (x->index > y->index) - (x->index < y->index);
}

static bool same_group(const topic_key_t *x, const topic_key_t *y)
{
    return x->partitions == y->partitions && x->subscriber_count == y->subscriber_count &&
           memcmp(x->subscribers, y->subscribers,
                  (size_t)x->subscriber_count * sizeof *x->subscribers) == 0;
}

/* Assigns every group of co-partitioned subscribed topics. */
static int range_groups(range_t *r)
{
    gr_plan_t *plan = r->plan;
    topic_key_t *keys = malloc(((size_t)plan->topic_count + 1) * sizeof *keys);
    if (!keys)
        return -ENOMEM;
    int32_t n = 0;
    for (int32_t t = 0; t < plan->topic_count; t++) {
        if (plan->subscribers[t] > 0 && plan->first[t + 1] > plan->first[t])
            keys[n++] = (topic_key_t){plan->first[t + 1] - plan->first[t], plan->subscribers[t], t,
                                      r->tsub + r->tsub_first[t]};
    }
    qsort(keys, (size_t)n, sizeof *keys, topic_key_cmp);
    int rc = 0;
    for (int32_t start = 0, end; rc == 0 && start < n; start = end) {
        for (end = start; end < n && same_group(&keys[start], &keys[end]); end++)
            r->group[end - start] = keys[end].index;
        group_t grp = {r->group, end - start, keys[start].partitions, keys[start].subscribers,
                       keys[start].subscriber_count};
        group_current(r, &grp);
        group_keep(r, &grp);
        rc = group_by_rack(r, &grp);
        if (rc == 0)
            group_fill(r, &grp);
    }
    free(keys);
    return rc;
}

static int range_alloc(range_t *r)
{
    const gr_plan_t *plan = r->plan;
    int32_t largest = plan->largest;
    size_t members = (size_t)plan->member_count + 1, topics = (size_t)plan->topic_count + 1;
    r->rank = malloc(members * sizeof *r->rank);
    r->tsub_first = calloc(topics, sizeof *r->tsub_first);
    r->tsub = malloc(((size_t)plan->sub_first[plan->member_count] + 1) * sizeof *r->tsub);
    r->claim = malloc(((size_t)plan->total + 1) * sizeof *r->claim);
    r->group = malloc(topics * sizeof *r->group);
    r->group_owner = malloc(((size_t)largest + 1) * sizeof *r->group_owner);
    r->need = calloc(members, sizeof *r->need);
    r->taken = malloc(((size_t)largest + 1) * sizeof *r->taken);
    r->free_list = malloc(((size_t)largest + 1) * sizeof *r->free_list);
    if (!r->free_list || !r->rank || !r->tsub_first || !r->tsub || !r->claim || !r->group ||
        !r->group_owner || !r->need || !r->taken)
        return -ENOMEM;
    return 0;
}

static void range_free(range_t *r)
{
    free(r->rank);
    free(r->tsub_first);
    free(r->tsub);
    free(r->claim);
    free(r->group);
    free(r->group_owner);
    free(r->need);
    free(r->taken);
    free(r->free_list);
}

static int assign_range(const gr_assignor_input_t *in, gr_assignment_t *out)
{
    if (in->member_count == 0)
        return 0;
    gr_plan_t plan;
    int rc = gr_plan_init(&plan, in);
    if (rc < 0)
        return rc;
    range_t r = {.plan = &plan};
    rc = range_alloc(&r);
    if (rc == 0)
        rc = range_rank(&r);
    if (rc == 0)
        rc = range_subscribers(&r);
    if (rc == 0) {
        range_claims(&r);
        rc = range_groups(&r);
    }
    if (rc == 0)
        rc = gr_plan_emit(&plan, out);
    range_free(&r);
    gr_plan_fini(&plan);
    return rc;
}

const gr_assignor_t gr_assignor_range = {GR_ASSIGNOR_RANGE, assign_range};
