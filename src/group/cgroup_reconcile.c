/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reconciliation of one consumer-group member toward its target
 * assignment (Kafka's CurrentAssignmentBuilder), as a step function over
 * the member's state:
 *
 *   Stable at an older epoch ─┐
 *   UnrevokedPartitions, the  ├─▶ next_assignment(): keep = assigned ∩ target,
 *     member no longer owns   │     revoke = assigned \ target,
 *     what it had to revoke   │     add = target \ assigned, less the
 *   UnreleasedPartitions ─────┘     partitions another member still holds
 *   Unknown (replayed) ──────────▶ as above at the target epoch, if the member
 *                                  rejoins owning nothing; else fenced
 *
 *   next_assignment:
 *     something to revoke that the member still owns
 *          → UnrevokedPartitions, epoch unchanged, assigned = keep
 *     else → Stable (UnreleasedPartitions if some partition of its target
 *            is still held elsewhere), epoch = target epoch,
 *            assigned = keep ∪ the free part of add
 *
 * A partition is thus handed to its new owner only once the old owner has
 * said (in owned partitions) it let it go, or has left.
 *
 * Pure: the group is only read (partition epochs).
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>

#include "group/cgroup.h"

/* Does the member still own one of set? owned NULL (not sent) counts as yes, as in Kafka. */
static bool still_owns(const gr_assignment_t *owned, const gr_assignment_t *set)
{
    if (!owned)
        return true;
    return gr_assignment_overlaps(owned, set);
}

/*
 * *out = the partitions of add no member holds now (their partition epoch
 * is -1); *unreleased tells whether some were held. 0 or -ENOMEM.
 */
static int free_part(const gr_cgroup_t *cg, const gr_assignment_t *add, gr_assignment_t *out,
                     bool *unreleased)
{
    *unreleased = false;
    for (int32_t t = 0; t < add->topic_count; t++) {
        const gr_assignment_topic_t *topic = &add->topics[t];
        for (int32_t i = 0; i < topic->partition_count; i++) {
            int32_t p = topic->partitions[i];
            if (gr_cgroup_partition_epoch(cg, topic->topic_id, p) != -1)
                *unreleased = true;
            else if (gr_assignment_add(out, topic->topic_id, p) < 0)
                return -ENOMEM;
        }
    }
    return 0;
}

static void set_epoch(gr_cmember_t *m, int32_t epoch)
{
    if (epoch != m->member_epoch)
        m->previous_epoch = m->member_epoch;
    m->member_epoch = epoch;
}

static gr_kerr_t next_assignment(const gr_cgroup_t *cg, gr_cmember_t *m, int32_t epoch,
                                 int32_t target_epoch, const gr_assignment_t *target,
                                 const gr_assignment_t *owned)
{
    gr_assignment_t keep = GR_ASSIGNMENT_INIT, revoke = GR_ASSIGNMENT_INIT;
    gr_assignment_t wanted = GR_ASSIGNMENT_INIT, add = GR_ASSIGNMENT_INIT;
    gr_kerr_t err = GR_KERR_UNKNOWN_SERVER_ERROR;
    bool unreleased;
    if (gr_assignment_intersect(&keep, &m->assigned, target) < 0 ||
        gr_assignment_subtract(&revoke, &m->assigned, target) < 0 ||
        gr_assignment_subtract(&wanted, target, &keep) < 0 ||
        free_part(cg, &wanted, &add, &unreleased) < 0)
        goto fail;
    if (!gr_assignment_is_empty(&revoke) && still_owns(owned, &revoke)) {
        m->state = GR_CMEMBER_UNREVOKED_PARTITIONS;
        set_epoch(m, epoch);
        gr_assignment_free(&m->assigned);
        gr_assignment_free(&m->pending_revocation);
        m->assigned = keep;
        m->pending_revocation = revoke;
        gr_assignment_free(&wanted);
        gr_assignment_free(&add);
        return GR_KERR_NONE;
    }
    if (gr_assignment_merge(&keep, &add) < 0)
        goto fail;
    m->state = unreleased ? GR_CMEMBER_UNRELEASED_PARTITIONS : GR_CMEMBER_STABLE;
    set_epoch(m, target_epoch);
    gr_assignment_free(&m->assigned);
    gr_assignment_free(&m->pending_revocation);
    m->assigned = keep;
    keep = (gr_assignment_t)GR_ASSIGNMENT_INIT;
    err = GR_KERR_NONE;
fail:
    gr_assignment_free(&keep);
    gr_assignment_free(&revoke);
    gr_assignment_free(&wanted);
    gr_assignment_free(&add);
    return err;
}

gr_kerr_t gr_cgroup_reconcile(const gr_cgroup_t *cg, gr_cmember_t *m, int32_t target_epoch,
                              const gr_assignment_t *target, const gr_assignment_t *owned)
{
    switch (m->state) {
    case GR_CMEMBER_STABLE:
        if (m->member_epoch == target_epoch)
            return GR_KERR_NONE;
        return next_assignment(cg, m, m->member_epoch, target_epoch, target, owned);
    case GR_CMEMBER_UNREVOKED_PARTITIONS:
        if (still_owns(owned, &m->pending_revocation))
            return GR_KERR_NONE;
        /* Revoked: the next epoch, even if the target moved on meanwhile. */
        return next_assignment(cg, m, m->member_epoch + 1, target_epoch, target, owned);
    case GR_CMEMBER_UNRELEASED_PARTITIONS:
        return next_assignment(cg, m, m->member_epoch, target_epoch, target, owned);
    case GR_CMEMBER_UNKNOWN:
        if (!owned || !gr_assignment_is_empty(owned))
            return GR_KERR_FENCED_MEMBER_EPOCH;
        return next_assignment(cg, m, target_epoch, target_epoch, target, owned);
    }
    return GR_KERR_NONE;
}
