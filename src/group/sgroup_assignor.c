/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share-group assignor (Kafka's "simple" one, KIP-932): which members
 * fetch from which partitions. A share-partition may serve several members,
 * so unlike a consumer group's assignors every member gets something as
 * long as its topics have partitions.
 *
 * Members with the same subscription form a class, assigned together over
 * the pooled partitions of their topics (a homogeneous group is one class,
 * which is Kafka's homogeneous case exactly; a heterogeneous group is
 * assigned class by class, so a topic two classes share is shared by both).
 * For M members and P partitions in a class:
 *
 *   sharing  each partition goes to d = ceil(M / P) members
 *   balance  the d * P slots are spread over the members, whose counts
 *            differ by at most one (member i, in member-id order, takes
 *            ceil(dP(i+1)/M) - ceil(dPi/M))
 *   sticky   a member keeps what it had, as far as both limits allow
 *   fill     partitions still short of d members go to members still short
 *            of their count, in turn; a member never gets a partition twice
 *            (should only members holding it be left, the partition stays
 *            short: harmless, as in Kafka)
 *
 * Balance comes before stickiness. N members on a one-partition topic all
 * get the partition; more partitions than members gives each partition to
 * one member.
 *
 * Pure: no clock, no broker. Runs on: any thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "group/sgroup.h"

typedef struct slot {
    int32_t topic; /* index into the input's topics */
    int32_t partition;
    int32_t holders; /* members given it so far */
} slot_t;

/* Do members a and b subscribe to the same topics (as index sets)? */
static bool same_subscription(const gr_sgroup_assign_input_t *in, int32_t a, int32_t b)
{
    if (in->subs_count[a] != in->subs_count[b])
        return false;
    for (int32_t i = 0; i < in->subs_count[a]; i++) {
        bool found = false;
        for (int32_t k = 0; k < in->subs_count[b] && !found; k++)
            found = in->subs[a][i] == in->subs[b][k];
        if (!found)
            return false;
    }
    return true;
}

/* The class's partitions, topic by topic in input order. NULL with *n 0 on none or -ENOMEM. */
static slot_t *class_slots(const gr_sgroup_assign_input_t *in, int32_t member, int32_t *n)
{
    int32_t total = 0;
    for (int32_t i = 0; i < in->subs_count[member]; i++)
        total += in->partition_counts[in->subs[member][i]];
    *n = 0;
    slot_t *s = calloc((size_t)total + 1, sizeof(*s));
    for (int32_t t = 0; s && t < in->topic_count; t++) {
        bool subscribed = false;
        for (int32_t i = 0; i < in->subs_count[member] && !subscribed; i++)
            subscribed = in->subs[member][i] == t;
        for (int32_t p = 0; subscribed && p < in->partition_counts[t]; p++)
            s[(*n)++] = (slot_t){t, p, 0};
    }
    return s;
}

/* Member k of m (in class order) takes ceil(total(k+1)/m) - ceil(total k/m) slots. */
static int32_t quota(int64_t total, int32_t m, int32_t k)
{
    return (int32_t)((total * (k + 1) + m - 1) / m - (total * k + m - 1) / m);
}

/* Assigns one class: members[0..m) (indexes into the input, sorted by id). 0 or -ENOMEM. */
static int assign_class(const gr_sgroup_assign_input_t *in, const int32_t *members, int32_t m,
                        gr_assignment_t *out)
{
    int32_t n;
    slot_t *slots = class_slots(in, members[0], &n);
    int32_t *want = calloc((size_t)m + 1, sizeof(*want));
    int rc = -ENOMEM;
    if (!slots || !want)
        goto fail;
    rc = 0;
    if (n == 0)
        goto fail; /* nothing to assign: everyone gets nothing */
    int32_t sharing = (m + n - 1) / n;
    for (int32_t k = 0; k < m; k++)
        want[k] = quota((int64_t)sharing * n, m, k);
    /* Sticky: what each member had, within its quota and the partition's sharing. */
    for (int32_t k = 0; k < m && !rc; k++) {
        const gr_assignment_t *had = in->current[members[k]];
        for (int32_t i = 0; had && i < n && want[k] > 0 && !rc; i++) {
            if (slots[i].holders >= sharing ||
                !gr_assignment_contains(had, in->topic_ids[slots[i].topic], slots[i].partition))
                continue;
            rc = gr_assignment_add(&out[members[k]], in->topic_ids[slots[i].topic],
                                   slots[i].partition);
            slots[i].holders++;
            want[k]--;
        }
    }
    /* Fill: partitions short of sharing, to members short of their quota, in turn. */
    int32_t next = 0;
    for (int32_t i = 0; i < n && !rc; i++) {
        for (int32_t tried = 0; slots[i].holders < sharing && tried < m && !rc; tried++) {
            int32_t k = (next + tried) % m;
            gr_uuid_t id = in->topic_ids[slots[i].topic];
            if (want[k] == 0 || gr_assignment_contains(&out[members[k]], id, slots[i].partition))
                continue;
            rc = gr_assignment_add(&out[members[k]], id, slots[i].partition);
            slots[i].holders++;
            want[k]--;
            next = (k + 1) % m;
            tried = -1; /* start the turn again from the next member */
        }
    }
fail:
    free(want);
    free(slots);
    return rc;
}

int gr_sgroup_assign(const gr_sgroup_assign_input_t *in, gr_assignment_t *out)
{
    int32_t *members = calloc((size_t)in->member_count + 1, sizeof(*members));
    bool *done = calloc((size_t)in->member_count + 1, sizeof(*done));
    int rc = members && done ? 0 : -ENOMEM;
    for (int32_t i = 0; i < in->member_count && !rc; i++)
        gr_assignment_clear(&out[i]);
    for (int32_t first = 0; first < in->member_count && !rc; first++) {
        if (done[first])
            continue;
        int32_t m = 0;
        for (int32_t i = first; i < in->member_count; i++)
            if (!done[i] && same_subscription(in, first, i)) {
                members[m++] = i;
                done[i] = true;
            }
        if (in->subs_count[first] > 0)
            rc = assign_class(in, members, m, out);
    }
    free(done);
    free(members);
    return rc;
}
