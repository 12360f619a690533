/* SPDX-License-Identifier: Apache-2.0 */
/* Private to the share-group files (sgroup*.c). */
#ifndef GR_GROUP_SGROUP_INT_H
#define GR_GROUP_SGROUP_INT_H

#include "group/sgroup.h"

/* The group changed: it is written before the heartbeat is answered. */
static inline void gr_sgroup_touch(gr_sgroup_t *sg)
{
    sg->dirty = true;
}
/* Remembers a departed member's id for its tombstones. 0 or -ENOMEM. */
int gr_sgroup_note_removed(gr_sgroup_t *sg, const char *member_id);
/* Writes the group if it changed (env->store_share). NONE or the write's error. */
gr_kerr_t gr_sgroup_store(gr_sgroup_t *sg, gr_group_env_t *env, int64_t *written_end);
/* group epoch + 1. */
void gr_sgroup_bump_epoch(gr_sgroup_t *sg);
/*
 * Recomputes the subscribed topics' metadata from the members'
 * subscriptions and the broker's topics; true if it changed (the caller
 * bumps the group epoch). On -ENOMEM the old metadata stays.
 */
bool gr_sgroup_refresh_topics(gr_sgroup_t *sg, gr_group_env_t *env);
/*
 * A new target assignment at the group epoch (sgroup_assignor.c); the
 * partitions it names join sg->initialized. NONE or UNKNOWN_SERVER_ERROR
 * (-ENOMEM; targets unchanged).
 */
gr_kerr_t gr_sgroup_update_target(gr_sgroup_t *sg);
/* Removes m (left or expired): its tombstones noted, group epoch bumped, topics refreshed. */
void gr_sgroup_fence_member(gr_sgroup_t *sg, gr_group_env_t *env, gr_smember_t *m);

#endif
