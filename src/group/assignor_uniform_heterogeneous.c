/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The uniform assignor when members subscribe to different topics, after
 * Kafka's UniformHeterogeneousAssignmentBuilder: balance, then stickiness.
 *
 * 1. Every member keeps its current partitions of topics it still
 *    subscribes to (a partition two members claim goes to the first).
 * 2. Topics are taken most partitions per subscriber first (then fewer
 *    subscribers, then Kafka's topic id order); each free partition goes to
 *    the least loaded subscriber, round robin among equally loaded ones
 *    (the balancer below). When racks matter, the recipients are drawn
 *    first and each takes a partition local to its rack if one is left,
 *    which leaves the counts as they were.
 * 3. Topic by topic, partitions move from a topic's most loaded subscribers
 *    to its least loaded until their counts differ by at most one; the pass
 *    repeats until a whole round over the topics moves nothing, at most
 *    GR_UNIFORM_BALANCE_ROUNDS times (overlapping subscriptions may
 *    converge slowly; each round roughly halves the imbalance).
 */
#include <errno.h>
#include <stdlib.h>

#include "group/assignor_int.h"

#define GR_UNIFORM_BALANCE_ROUNDS 16

/* A topic's subscribers, grouped by load (see the functions below). */
typedef struct balancer {
    const int32_t *size;
    int32_t *members; /* sorted by size, then index, at init */
    int32_t count;
    int32_t low_end, low_level, low_next;                /* least loaded range [0, low_end) */
    int32_t high_start, high_end, high_level, high_next; /* most loaded [high_start, high_end) */
} balancer_t;

typedef struct load_ref {
    int32_t size, member;
} load_ref_t;

static int load_ref_cmp(const void *a, const void *b)
{
    const load_ref_t *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return (x->member > y->member) - (x->member < y->member);
}

/* Sorts members (count > 0) by load; returns most minus least loaded. scratch holds count. */
static int32_t balancer_init(balancer_t *b, const int32_t *members, int32_t count,
                             load_ref_t *scratch)
{
    for (int32_t i = 0; i < count; i++)
        scratch[i] = (load_ref_t){b->size[members[i]], members[i]};
    qsort(scratch, (size_t)count, sizeof *scratch, load_ref_cmp);
    for (int32_t i = 0; i < count; i++)
        b->members[i] = scratch[i].member;
    b->count = count;
    b->low_end = 0;
    b->low_level = scratch[0].size - 1;
    b->low_next = 0;
    b->high_start = b->high_end = count;
    b->high_level = scratch[count - 1].size + 1;
    b->high_next = count - 1;
    return scratch[count - 1].size - scratch[0].size;
}

/*
 * The next least loaded member, assuming it gets one more
 * partition: the range of equally loaded members is served in turn, and
 * once each had one, its level rises and it absorbs the members at that level.
 */
static int32_t balancer_least(balancer_t *b)
{
    if (b->low_next >= b->low_end) {
        b->low_level++;
        while (b->low_end < b->count && b->size[b->members[b->low_end]] == b->low_level)
            b->low_end++;
        b->low_next = 0;
    }
    return b->members[b->low_next++];
}

/* The next most loaded member, assuming it gives one partition up; -1 when none is left. */
static int32_t balancer_most(balancer_t *b)
{
    if (b->high_next < b->high_start) {
        /* The range emptied by exclusions must still widen: restart from its neighbour. */
        if (b->high_end <= b->high_start && b->high_start > 0)
            b->high_level = b->size[b->members[b->high_start - 1]];
        else
            b->high_level--;
        while (b->high_start > 0 && b->size[b->members[b->high_start - 1]] == b->high_level)
            b->high_start--;
        b->high_next = b->high_end - 1;
    }
    if (b->high_next < 0)
        return -1;
    return b->members[b->high_next--];
}

/* Drops the member balancer_most last returned: it has nothing of this topic to give. */
static void balancer_exclude_most(balancer_t *b)
{
    int32_t at = b->high_next + 1, swap = b->members[at];
    b->members[at] = b->members[b->high_end - 1];
    b->members[b->high_end - 1] = swap;
    b->high_end--;
}

static bool balancer_balanced(const balancer_t *b)
{
    return b->high_level - b->low_level <= 1;
}

/* The builder's working state. */
typedef struct hetero {
    gr_plan_t *plan;
    int32_t *tsub_first, *tsub; /* each topic's subscribers, ascending */
    int32_t *order;             /* subscribed topics, in Kafka's topic order */
    int32_t order_count;
    balancer_t balancer;
    load_ref_t *scratch;    /* max(members, largest topic) */
    int32_t *start, *end;   /* per member: its run in the sorted partitions of a topic */
    int32_t *items, *slots; /* a topic's free partitions and their recipients */
    bool *taken;
} hetero_t;

typedef struct topic_key {
    int32_t partitions, subscribers, index;
    gr_uuid_t id;
} topic_key_t;

/* Most partitions per subscriber first, then fewer subscribers, then topic id. */
static int topic_key_cmp(const void *a, const void *b)
{
    const topic_key_t *x = a, *y = b;
    int64_t lx = (int64_t)x->partitions * y->subscribers;
    int64_t ly = (int64_t)y->partitions * x->subscribers;
    if (lx != ly)
        return lx > ly ? -1 : 1;
    if (x->subscribers != y->subscribers)
        return x->subscribers < y->subscribers ? -1 : 1;
    return gr_plan_uuid_cmp(x->id, y->id);
}

static int hetero_index(hetero_t *h)
{
    gr_plan_t *plan = h->plan;
    size_t topics = (size_t)plan->topic_count + 1, members = (size_t)plan->member_count + 1;
    int32_t largest = plan->largest;
    h->tsub_first = calloc(topics, sizeof *h->tsub_first);
    h->tsub = malloc(((size_t)plan->sub_first[plan->member_count] + 1) * sizeof *h->tsub);
    h->order = malloc(topics * sizeof *h->order);
    h->balancer.members = malloc(members * sizeof *h->balancer.members);
    h->scratch =
        malloc(((size_t)(largest > plan->member_count ? largest : plan->member_count) + 1) *
               sizeof *h->scratch);
    h->start = calloc(members, sizeof *h->start);
    h->end = calloc(members, sizeof *h->end);
    h->items = malloc(((size_t)largest + 1) * sizeof *h->items);
    h->slots = malloc(((size_t)largest + 1) * sizeof *h->slots);
    h->taken = malloc(((size_t)largest + 1) * sizeof *h->taken);
    topic_key_t *keys = malloc(topics * sizeof *keys);
    if (!h->items || !h->slots || !h->taken || !h->tsub_first || !h->tsub || !h->order ||
        !h->balancer.members || !h->scratch || !h->start || !h->end || !keys) {
        free(keys);
        return -ENOMEM;
    }
    h->balancer.size = plan->size;
    for (int32_t t = 1; t < plan->topic_count; t++)
        h->tsub_first[t] = h->tsub_first[t - 1] + plan->subscribers[t - 1];
    h->tsub_first[plan->topic_count] = plan->sub_first[plan->member_count];
    h->order_count = 0;
    for (int32_t t = 0; t < plan->topic_count; t++) {
        if (plan->subscribers[t] > 0)
            keys[h->order_count++] = (topic_key_t){plan->first[t + 1] - plan->first[t],
                                                   plan->subscribers[t], t, plan->in->topics[t].id};
    }
    qsort(keys, (size_t)h->order_count, sizeof *keys, topic_key_cmp);
    for (int32_t i = 0; i < h->order_count; i++)
        h->order[i] = keys[i].index;
    free(keys);
    return 0;
}

/* Lists each topic's subscribers in member order (tsub_first must be set). */
static int hetero_subscribers(hetero_t *h)
{
    gr_plan_t *plan = h->plan;
    int32_t *filled = calloc((size_t)plan->topic_count + 1, sizeof *filled);
    if (!filled)
        return -ENOMEM;
    for (int32_t m = 0; m < plan->member_count; m++) {
        for (int32_t i = plan->sub_first[m]; i < plan->sub_first[m + 1]; i++) {
            int32_t t = plan->sub_topics[i];
            h->tsub[h->tsub_first[t] + filled[t]++] = m;
        }
    }
    free(filled);
    return 0;
}

static void hetero_free(hetero_t *h)
{
    free(h->tsub_first);
    free(h->tsub);
    free(h->order);
    free(h->balancer.members);
    free(h->scratch);
    free(h->start);
    free(h->end);
    free(h->items);
    free(h->slots);
    free(h->taken);
}

static bool keep_if_free(gr_plan_t *plan, int32_t m, int32_t g, void *ctx)
{
    (void)ctx;
    if (plan->owner[g] == GR_PLAN_UNOWNED)
        gr_plan_give(plan, g, m);
    return true;
}

/* Step 1: each member keeps its current partitions of the topics it subscribes to. */
static void keep_current(gr_plan_t *plan)
{
    for (int32_t m = 0; m < plan->member_count; m++)
        gr_plan_each_current(plan, m, keep_if_free, NULL);
}

/*
 * Gives items[0..n) to slots[0..n) (members, one partition each): a slot
 * takes a free partition local to its member's rack if one is left, the
 * others the remaining partitions in order. The counts stay the slots'.
 * Consumes slots; taken holds n.
 */
static int give_local_first(gr_plan_t *plan, const int32_t *items, int32_t *slots, int32_t n,
                            bool *taken)
{
    int32_t *offsets = calloc((size_t)plan->rack_count + 1, sizeof *offsets);
    int32_t *list = offsets ? gr_plan_rack_buckets(plan, items, n, NULL, NULL, offsets) : NULL;
    if (!list) {
        free(offsets);
        return -ENOMEM;
    }
    for (int32_t i = 0; i < n; i++)
        taken[i] = false;
    for (int32_t i = 0; i < n; i++) {
        int32_t rack = plan->member_rack[slots[i]], item = -1;
        while (rack != GR_PLAN_NO_RACK && item < 0 && offsets[rack] < offsets[rack + 1]) {
            item = list[offsets[rack]++];
            item = taken[item] ? -1 : item;
        }
        if (item >= 0) {
            taken[item] = true;
            gr_plan_give(plan, items[item], slots[i]);
            slots[i] = GR_PLAN_UNOWNED;
        }
    }
    free(offsets);
    free(list);
    for (int32_t i = 0, next = 0; i < n; i++) {
        if (slots[i] == GR_PLAN_UNOWNED)
            continue;
        while (taken[next])
            next++;
        taken[next] = true;
        gr_plan_give(plan, items[next], slots[i]);
    }
    return 0;
}

/*
 * Step 2: the free partitions, topic by topic, to the least loaded
 * subscribers. Who gets how many depends on the counts alone, so the
 * recipients are drawn first and racks only decide which partition each gets.
 */
static int assign_free(hetero_t *h)
{
    gr_plan_t *plan = h->plan;
    for (int32_t i = 0; i < h->order_count; i++) {
        int32_t t = h->order[i], n = 0;
        for (int32_t g = plan->first[t]; g < plan->first[t + 1]; g++) {
            if (plan->owner[g] == GR_PLAN_UNOWNED)
                h->items[n++] = g;
        }
        if (n == 0)
            continue;
        balancer_init(&h->balancer, h->tsub + h->tsub_first[t], plan->subscribers[t], h->scratch);
        /* The balancer reads only the counts of members it has not served yet. */
        for (int32_t k = 0; k < n; k++)
            h->slots[k] = balancer_least(&h->balancer);
        if (plan->racks_on) {
            if (give_local_first(plan, h->items, h->slots, n, h->taken) < 0)
                return -ENOMEM;
        } else {
            for (int32_t k = 0; k < n; k++)
                gr_plan_give(plan, h->items[k], h->slots[k]);
        }
    }
    return 0;
}

/* Sorts topic t's partitions by owner into scratch and records each owner's run. */
static void group_by_owner(hetero_t *h, int32_t t)
{
    gr_plan_t *plan = h->plan;
    int32_t count = plan->first[t + 1] - plan->first[t];
    for (int32_t i = h->tsub_first[t]; i < h->tsub_first[t + 1]; i++)
        h->start[h->tsub[i]] = h->end[h->tsub[i]] = 0;
    for (int32_t i = 0; i < count; i++) {
        int32_t g = plan->first[t] + i;
        h->scratch[i] = (load_ref_t){plan->owner[g], g};
    }
    qsort(h->scratch, (size_t)count, sizeof *h->scratch, load_ref_cmp);
    for (int32_t i = 0; i < count; i++) {
        int32_t owner = h->scratch[i].size;
        if (i == 0 || h->scratch[i - 1].size != owner)
            h->start[owner] = i;
        h->end[owner] = i + 1;
    }
}

/* Step 3 for one topic: moves partitions from its most to its least loaded subscribers. */
static int32_t balance_topic(hetero_t *h, int32_t t)
{
    gr_plan_t *plan = h->plan;
    balancer_t *b = &h->balancer;
    /* The balancer sorts with scratch, which then holds the partitions: init first. */
    if (balancer_init(b, h->tsub + h->tsub_first[t], plan->subscribers[t], h->scratch) <= 1)
        return 0;
    group_by_owner(h, t);
    int32_t moved = 0;
    while (!balancer_balanced(b)) {
        int32_t most;
        while ((most = balancer_most(b)) >= 0 && h->end[most] <= h->start[most])
            balancer_exclude_most(b);
        if (most < 0)
            break;
        int32_t g = h->scratch[--h->end[most]].member;
        int32_t least = balancer_least(b);
        if (balancer_balanced(b))
            break;
        gr_plan_take(plan, g);
        gr_plan_give(plan, g, least);
        moved++;
    }
    return moved;
}

/* Step 3: rounds over the topics with two subscribers or more until one moves nothing. */
static void balance(hetero_t *h)
{
    int32_t last_moved = -1;
    for (int32_t round = 0; round < GR_UNIFORM_BALANCE_ROUNDS; round++) {
        for (int32_t i = 0; i < h->order_count; i++) {
            int32_t t = h->order[i];
            if (h->plan->subscribers[t] < 2)
                continue;
            if (i == last_moved)
                return;
            if (balance_topic(h, t) > 0 || last_moved == -1)
                last_moved = i;
        }
    }
}

int gr_assignor_uniform_heterogeneous(gr_plan_t *plan)
{
    hetero_t h = {.plan = plan};
    int rc = hetero_index(&h);
    if (rc == 0)
        rc = hetero_subscribers(&h);
    if (rc == 0) {
        keep_current(plan);
        rc = assign_free(&h);
    }
    if (rc == 0) {
        balance(&h);
    }
    hetero_free(&h);
    return rc;
}
