/* SPDX-License-Identifier: Apache-2.0 */
/* Private to the consumer-group files (cgroup*.c). */
#ifndef GR_GROUP_CGROUP_INT_H
#define GR_GROUP_CGROUP_INT_H

#include "group/cgroup.h"
#include "group/assignor.h"
#include "group/group_int.h"

#define gr_cgroup_strdup gr_group_strdup

/* A member with its id, no subscription, epoch 0, state Stable. NULL on -ENOMEM. */
gr_cmember_t *gr_cmember_new(gr_cgroup_t *cg, gr_str_t member_id);
/* Cancels its timers and frees (the caller unlinked it). */
void gr_cmember_free(gr_cmember_t *m, gr_group_env_t *env);
/* Takes topics (count owned strings; NULL, 0 for none), freeing the old ones. */
void gr_cmember_set_subscription(gr_cmember_t *m, char **topics, int32_t count);
void gr_cgroup_link(gr_cgroup_t *cg, gr_cmember_t *m);
void gr_cgroup_unlink(gr_cgroup_t *cg, gr_cmember_t *m);

/* The group changed: it is written before the heartbeat is answered. */
static inline void gr_cgroup_touch(gr_cgroup_t *cg)
{
    cg->dirty = true;
}
/* The group was written: nothing pending. */
void gr_cgroup_stored(gr_cgroup_t *cg);
/* Remembers a departed member's id for its tombstones. 0 or -ENOMEM. */
int gr_cgroup_note_removed(gr_cgroup_t *cg, const char *member_id);
/* Writes the group if it changed (env->store_consumer). NONE or the write's error. */
gr_kerr_t gr_cgroup_store(gr_cgroup_t *cg, gr_group_env_t *env, int64_t *written_end);
/* Replaces the subscribed topics' metadata with topics (count owned entries). */
void gr_cgroup_set_topics(gr_cgroup_t *cg, gr_group_topic_t *topics, int32_t count);

/* group epoch + 1. */
void gr_cgroup_bump_epoch(gr_cgroup_t *cg);
/*
 * Recomputes the subscribed topics' metadata from the members'
 * subscriptions and the broker's topics; true if it changed (the caller
 * bumps the group epoch). On -ENOMEM the old metadata stays.
 */
bool gr_cgroup_refresh_topics(gr_cgroup_t *cg, gr_group_env_t *env);
/*
 * A new target assignment at the group epoch through the group's assignor.
 * NONE or UNKNOWN_SERVER_ERROR (-ENOMEM; targets unchanged).
 */
gr_kerr_t gr_cgroup_update_target(gr_cgroup_t *cg, gr_group_env_t *env);
/* (Re)arms m's session timer: it heartbeated. */
void gr_cgroup_session_timer(gr_cmember_t *m, gr_group_env_t *env);
/* Arms or cancels m's rebalance timer after its state changed. */
void gr_cgroup_rebalance_timer(gr_cmember_t *m, gr_group_env_t *env);

/* The replicas' racks of a target computation (cgroup_racks.c). */
typedef struct gr_cgroup_racks {
    const char **names;          /* GR_CGROUP_RACKS_PER_PARTITION slots per partition */
    const char ***per_partition; /* per partition of every topic, in cg->topics' order */
    int32_t *counts;
} gr_cgroup_racks_t;
/*
 * Sets topics[t].partition_racks (topics[] in cg->topics' order) when some
 * member has a rack and the env reports racks; leaves them NULL otherwise.
 * 0 or -ENOMEM. Free with gr_cgroup_racks_free once the assignor ran.
 */
int gr_cgroup_racks_gather(gr_cgroup_racks_t *r, const gr_cgroup_t *cg, gr_group_env_t *env,
                           gr_assignor_topic_t *topics);
void gr_cgroup_racks_free(gr_cgroup_racks_t *r);

#endif
