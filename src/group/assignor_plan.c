/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The assignors' shared index of their input (see assignor_int.h): global
 * partition numbers, owners, subscriptions as sorted topic indices, and the
 * member racks holding each partition's replicas.
 */
#include "group/assignor_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int uuid_memcmp(gr_uuid_t a, gr_uuid_t b)
{
    return memcmp(a.b, b.b, sizeof a.b);
}

/* One big-endian 64-bit half as Java's signed long. */
static int64_t uuid_half(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return (int64_t)v;
}

int gr_plan_uuid_cmp(gr_uuid_t a, gr_uuid_t b)
{
    for (int half = 0; half < 2; half++) {
        int64_t x = uuid_half(a.b + 8 * half), y = uuid_half(b.b + 8 * half);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static int int32_cmp(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* qsort has no context argument: the topics travel with the indices. */
typedef struct topic_ref {
    gr_uuid_t id;
    int32_t index;
} topic_ref_t;

static int topic_ref_cmp(const void *a, const void *b)
{
    return uuid_memcmp(((const topic_ref_t *)a)->id, ((const topic_ref_t *)b)->id);
}

static int index_topics(gr_plan_t *plan)
{
    const gr_assignor_input_t *in = plan->in;
    topic_ref_t *refs = calloc((size_t)in->topic_count + 1, sizeof *refs);
    if (!refs)
        return -ENOMEM;
    plan->first[0] = 0;
    for (int32_t t = 0; t < in->topic_count; t++) {
        int32_t count = in->topics[t].partition_count > 0 ? in->topics[t].partition_count : 0;
        plan->first[t + 1] = plan->first[t] + count;
        plan->largest = count > plan->largest ? count : plan->largest;
        refs[t] = (topic_ref_t){in->topics[t].id, t};
    }
    qsort(refs, (size_t)in->topic_count, sizeof *refs, topic_ref_cmp);
    for (int32_t t = 0; t < in->topic_count; t++)
        plan->by_id[t] = refs[t].index;
    free(refs);
    plan->total = plan->first[in->topic_count];
    return 0;
}

int32_t gr_plan_topic(const gr_plan_t *plan, gr_uuid_t id)
{
    int32_t lo = 0, hi = plan->topic_count;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int32_t t = plan->by_id[mid];
        int c = uuid_memcmp(plan->in->topics[t].id, id);
        if (c == 0)
            return t;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Each member's subscribed topics as sorted distinct indices; unknown ids dropped. */
static int index_subscriptions(gr_plan_t *plan)
{
    const gr_assignor_input_t *in = plan->in;
    int32_t n = 0;
    for (int32_t m = 0; m < in->member_count; m++)
        n += in->members[m].topic_count;
    plan->sub_topics = malloc(((size_t)n + 1) * sizeof *plan->sub_topics);
    if (!plan->sub_topics)
        return -ENOMEM;
    n = 0;
    for (int32_t m = 0; m < in->member_count; m++) {
        const gr_assignor_member_t *member = &in->members[m];
        int32_t start = n;
        plan->sub_first[m] = start;
        for (int32_t i = 0; i < member->topic_count; i++) {
            int32_t t = gr_plan_topic(plan, member->topics[i]);
            if (t >= 0)
                plan->sub_topics[n++] = t;
        }
        qsort(plan->sub_topics + start, (size_t)(n - start), sizeof *plan->sub_topics, int32_cmp);
        int32_t kept = start;
        for (int32_t i = start; i < n; i++) {
            if (kept == start || plan->sub_topics[kept - 1] != plan->sub_topics[i])
                plan->sub_topics[kept++] = plan->sub_topics[i];
        }
        n = kept;
        for (int32_t i = start; i < n; i++)
            plan->subscribers[plan->sub_topics[i]]++;
    }
    plan->sub_first[in->member_count] = n;
    return 0;
}

bool gr_plan_subscribes(const gr_plan_t *plan, int32_t member, int32_t topic)
{
    const int32_t *base = plan->sub_topics + plan->sub_first[member];
    size_t n = (size_t)(plan->sub_first[member + 1] - plan->sub_first[member]);
    return bsearch(&topic, base, n, sizeof *base, int32_cmp) != NULL;
}

void gr_plan_each_current(gr_plan_t *plan, int32_t member, gr_plan_current_fn *visit, void *ctx)
{
    const gr_assignment_t *current = plan->in->members[member].current;
    for (int32_t i = 0; i < current->topic_count; i++) {
        const gr_assignment_topic_t *topic = &current->topics[i];
        int32_t t = gr_plan_topic(plan, topic->topic_id);
        if (t < 0 || !gr_plan_subscribes(plan, member, t))
            continue;
        for (int32_t j = 0; j < topic->partition_count; j++) {
            int32_t p = topic->partitions[j], g = plan->first[t] + p;
            if (p >= 0 && g < plan->first[t + 1] && !visit(plan, member, g, ctx))
                return;
        }
    }
}

bool gr_plan_homogeneous(const gr_plan_t *plan)
{
    int32_t n0 = plan->sub_first[1] - plan->sub_first[0];
    for (int32_t m = 1; m < plan->member_count; m++) {
        int32_t n = plan->sub_first[m + 1] - plan->sub_first[m];
        if (n != n0 || memcmp(plan->sub_topics + plan->sub_first[m], plan->sub_topics,
                              (size_t)n * sizeof *plan->sub_topics) != 0)
            return false;
    }
    return true;
}

/* The member rack index of name, or GR_PLAN_NO_RACK. */
static int32_t rack_index(const gr_plan_t *plan, const char *name)
{
    if (!name || !*name)
        return GR_PLAN_NO_RACK;
    const char **hit = bsearch(&name, plan->rack_names, (size_t)plan->rack_count,
                               sizeof *plan->rack_names, str_cmp);
    return hit ? (int32_t)(hit - plan->rack_names) : GR_PLAN_NO_RACK;
}

static int index_member_racks(gr_plan_t *plan)
{
    const gr_assignor_input_t *in = plan->in;
    plan->rack_names = malloc(((size_t)in->member_count + 1) * sizeof *plan->rack_names);
    if (!plan->rack_names)
        return -ENOMEM;
    int32_t n = 0;
    for (int32_t m = 0; m < in->member_count; m++) {
        if (in->members[m].rack && *in->members[m].rack)
            plan->rack_names[n++] = in->members[m].rack;
    }
    qsort(plan->rack_names, (size_t)n, sizeof *plan->rack_names, str_cmp);
    plan->rack_count = 0;
    for (int32_t i = 0; i < n; i++) {
        if (plan->rack_count == 0 ||
            strcmp(plan->rack_names[plan->rack_count - 1], plan->rack_names[i]) != 0)
            plan->rack_names[plan->rack_count++] = plan->rack_names[i];
    }
    for (int32_t m = 0; m < in->member_count; m++)
        plan->member_rack[m] = rack_index(plan, in->members[m].rack);
    return 0;
}

/* Appends partition p of topic t's member racks to rack_ids at *n, once each. */
static void index_partition_racks(gr_plan_t *plan, const gr_assignor_topic_t *topic, int32_t p,
                                  int32_t *n)
{
    int32_t start = *n;
    for (int32_t i = 0; i < topic->partition_rack_count[p]; i++) {
        int32_t r = rack_index(plan, topic->partition_racks[p][i]);
        bool seen = r == GR_PLAN_NO_RACK;
        for (int32_t j = start; j < *n && !seen; j++)
            seen = plan->rack_ids[j] == r;
        if (!seen)
            plan->rack_ids[(*n)++] = r;
    }
}

/*
 * Racks matter when some member has one, some partition has replica racks,
 * and some partition lacks a replica in some member's rack: otherwise every
 * choice is as local as any other and the rack-blind result stands.
 */
static int index_racks(gr_plan_t *plan)
{
    const gr_assignor_input_t *in = plan->in;
    if (index_member_racks(plan) < 0)
        return -ENOMEM;
    size_t n = 0;
    for (int32_t t = 0; t < in->topic_count; t++) {
        const gr_assignor_topic_t *topic = &in->topics[t];
        for (int32_t p = 0; topic->partition_racks && p < plan->first[t + 1] - plan->first[t]; p++)
            n += (size_t)topic->partition_rack_count[p];
    }
    if (plan->rack_count == 0 || n == 0)
        return 0;
    plan->rack_first = malloc(((size_t)plan->total + 1) * sizeof *plan->rack_first);
    plan->rack_ids = malloc((n + 1) * sizeof *plan->rack_ids);
    if (!plan->rack_first || !plan->rack_ids)
        return -ENOMEM;
    int32_t k = 0;
    for (int32_t t = 0; t < in->topic_count; t++) {
        for (int32_t p = 0; p < plan->first[t + 1] - plan->first[t]; p++) {
            int32_t g = plan->first[t] + p;
            plan->rack_first[g] = k;
            if (in->topics[t].partition_racks)
                index_partition_racks(plan, &in->topics[t], p, &k);
            plan->racks_on |= k - plan->rack_first[g] < plan->rack_count;
        }
    }
    plan->rack_first[plan->total] = k;
    return 0;
}

bool gr_plan_rack_match(const gr_plan_t *plan, int32_t member, int32_t g)
{
    int32_t r = plan->member_rack[member];
    if (!plan->racks_on || r == GR_PLAN_NO_RACK)
        return false;
    for (int32_t i = plan->rack_first[g]; i < plan->rack_first[g + 1]; i++) {
        if (plan->rack_ids[i] == r)
            return true;
    }
    return false;
}

int gr_plan_init(gr_plan_t *plan, const gr_assignor_input_t *in)
{
    memset(plan, 0, sizeof *plan);
    plan->in = in;
    plan->member_count = in->member_count;
    plan->topic_count = in->topic_count;
    size_t members = (size_t)in->member_count + 1, topics = (size_t)in->topic_count + 1;
    plan->first = malloc(topics * sizeof *plan->first);
    plan->by_id = malloc(topics * sizeof *plan->by_id);
    plan->subscribers = calloc(topics, sizeof *plan->subscribers);
    plan->size = calloc(members, sizeof *plan->size);
    plan->sub_first = malloc(members * sizeof *plan->sub_first);
    plan->member_rack = malloc(members * sizeof *plan->member_rack);
    if (!plan->first || !plan->by_id || !plan->subscribers || !plan->size || !plan->sub_first ||
        !plan->member_rack)
        goto fail;
    if (index_topics(plan) < 0)
        goto fail;
    plan->owner = malloc(((size_t)plan->total + 1) * sizeof *plan->owner);
    if (!plan->owner)
        goto fail;
    for (int32_t g = 0; g < plan->total; g++)
        plan->owner[g] = GR_PLAN_UNOWNED;
    if (index_subscriptions(plan) < 0 || index_racks(plan) < 0)
        goto fail;
    return 0;
fail:
    gr_plan_fini(plan);
    return -ENOMEM;
}

void gr_plan_fini(gr_plan_t *plan)
{
    free(plan->first);
    free(plan->owner);
    free(plan->size);
    free(plan->by_id);
    free(plan->sub_first);
    free(plan->sub_topics);
    free(plan->subscribers);
    free(plan->rack_names);
    free(plan->member_rack);
    free(plan->rack_first);
    free(plan->rack_ids);
    memset(plan, 0, sizeof *plan);
}

void gr_plan_give(gr_plan_t *plan, int32_t g, int32_t member)
{
    plan->owner[g] = member;
    plan->size[member]++;
}

void gr_plan_take(gr_plan_t *plan, int32_t g)
{
    plan->size[plan->owner[g]]--;
    plan->owner[g] = GR_PLAN_UNOWNED;
}

int gr_plan_emit(const gr_plan_t *plan, gr_assignment_t *out)
{
    /* By id, then partition: every add appends. */
    for (int32_t i = 0; i < plan->topic_count; i++) {
        int32_t t = plan->by_id[i];
        for (int32_t g = plan->first[t]; g < plan->first[t + 1]; g++) {
            if (plan->owner[g] == GR_PLAN_UNOWNED)
                continue;
            int rc =
                gr_assignment_add(&out[plan->owner[g]], plan->in->topics[t].id, g - plan->first[t]);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int32_t *gr_plan_rack_buckets(const gr_plan_t *plan, const int32_t *items, int32_t n,
                              gr_plan_rack_keep_fn *keep, const void *ctx, int32_t *offsets)
{
    memset(offsets, 0, ((size_t)plan->rack_count + 1) * sizeof *offsets);
    int32_t *list = NULL;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            for (int32_t r = 0; r < plan->rack_count; r++)
                offsets[r + 1] += offsets[r];
            list = malloc(((size_t)offsets[plan->rack_count] + 1) * sizeof *list);
            if (!list)
                return NULL;
        }
        for (int32_t i = 0; i < n; i++) {
            int32_t g = items[i];
            for (int32_t k = plan->rack_first[g]; k < plan->rack_first[g + 1]; k++) {
                int32_t rack = plan->rack_ids[k];
                if (keep && !keep(ctx, g, rack))
                    continue;
                if (pass == 0)
                    offsets[rack + 1]++;
                else
                    list[offsets[rack]++] = i;
            }
        }
    }
    /* Filling moved each offset to its rack's end, the next one's start: shift back. */
    memmove(offsets + 1, offsets, (size_t)plan->rack_count * sizeof *offsets);
    offsets[0] = 0;
    return list;
}
