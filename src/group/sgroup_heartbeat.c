/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ShareGroupHeartbeat on a share group, in Kafka's order:
 *
 *   validate        the request alone (INVALID_REQUEST)
 *   leave (-1)      UNKNOWN_MEMBER_ID, or the member is fenced
 *   find the member GROUP_MAX_SIZE_REACHED for a new one when the group
 *                   has group.share.max.size members; epoch 0 creates it
 *                   (or, for a member already here, rejoins: a member the
 *                   coordinator fenced keeps its client-made id and comes
 *                   back with 0); otherwise UNKNOWN_MEMBER_ID
 *   check its epoch FENCED_MEMBER_EPOCH unless it is the member's epoch or
 *                   the previous one (its last response was lost)
 *   update it       rack, client, subscription; a changed subscription or
 *                   changed metadata of the subscribed topics bumps the
 *                   group epoch
 *   target          recomputed when the group epoch is ahead
 *   take it         the member takes its whole target at the assignment
 *                   epoch (no revocation: share-partitions are shared)
 *
 * The answer carries the assignment on a join or when it changed.
 *
 * Runs on: loop thread.
 */
#include <stdlib.h>
#include <string.h>

#include "group/group_int.h"
#include "group/sgroup_int.h"

/* Kafka's throwIfShareGroupHeartbeatRequestIsInvalid (the group id's check is the handler's). */
gr_kerr_t gr_sgroup_heartbeat_validate(const gr_sgroup_heartbeat_args_t *a, const char **message)
{
    *message = NULL;
    for (int32_t i = 0; i < a->subscribed_count; i++)
        if (a->subscribed_topics[i].len < 0)
            *message = "SubscribedTopicNames can't contain null.";
    if (*message)
        return GR_KERR_INVALID_REQUEST;
    if (a->rack_id.len == 0)
        *message = "RackId can't be empty.";
    else if (a->member_id.len <= 0) /* v1: the client names itself, on every request */
        *message = "MemberId can't be empty.";
    else if (a->member_epoch == GR_SGROUP_JOIN_EPOCH && a->subscribed_count <= 0)
        *message = "SubscribedTopicNames must be set in first request.";
    else if (a->member_epoch < GR_SGROUP_LEAVE_EPOCH)
        *message = "MemberEpoch is invalid.";
    return *message ? GR_KERR_INVALID_REQUEST : GR_KERR_NONE;
}

static void fail(gr_sgroup_heartbeat_result_t *out, gr_kerr_t err, const char *message)
{
    out->error = err;
    out->error_message = message;
}

static void leave(gr_sgroup_t *sg, gr_group_env_t *env, const gr_sgroup_heartbeat_args_t *a,
                  gr_sgroup_heartbeat_result_t *out)
{
    gr_smember_t *m = gr_sgroup_find_member(sg, a->member_id);
    if (!m)
        return fail(out, GR_KERR_UNKNOWN_MEMBER_ID, "Unknown member.");
    gr_sgroup_fence_member(sg, env, m);
    gr_kerr_t stored = gr_sgroup_store(sg, env, &out->written_end);
    if (stored)
        return fail(out, stored, "The group could not be written.");
    out->member_epoch = GR_SGROUP_LEAVE_EPOCH;
}

/* Kafka's throwIfShareGroupMemberEpochIsInvalid. */
static gr_kerr_t check_epoch(const gr_smember_t *m, int32_t epoch)
{
    if (epoch > m->member_epoch)
        return GR_KERR_FENCED_MEMBER_EPOCH;
    if (epoch < m->member_epoch && epoch != m->previous_epoch)
        return GR_KERR_FENCED_MEMBER_EPOCH;
    return GR_KERR_NONE;
}

/* The member the request names, created on a join. NULL with *out's error set. */
static gr_smember_t *find_member(gr_sgroup_t *sg, gr_group_env_t *env,
                                 const gr_sgroup_heartbeat_args_t *a, bool *bump,
                                 gr_sgroup_heartbeat_result_t *out)
{
    gr_smember_t *m = gr_sgroup_find_member(sg, a->member_id);
    if (!m && sg->member_count >= env->share_limits.max_size) {
        fail(out, GR_KERR_GROUP_MAX_SIZE_REACHED,
             "The share group has reached its maximum capacity.");
        return NULL;
    }
    if (a->member_epoch == GR_SGROUP_JOIN_EPOCH) {
        if (m)
            return m; /* a rejoin: it gets its whole assignment again */
        if (!(m = gr_smember_new(sg, a->member_id))) {
            fail(out, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory.");
            return NULL;
        }
        gr_sgroup_link(sg, m);
        gr_sgroup_session_timer(m, env); /* even if the rest of its join fails */
        *bump = true;
        return m;
    }
    if (!m) {
        fail(out, GR_KERR_UNKNOWN_MEMBER_ID, "Unknown member.");
        return NULL;
    }
    gr_kerr_t err = check_epoch(m, a->member_epoch);
    if (err)
        fail(out, err, "The member epoch is fenced: the member must rejoin.");
    return err ? NULL : m;
}

/* Sets *field to v unless v is null (unchanged); 1 when it changed, 0 not, -1 on -ENOMEM. */
static int set_str(char **field, gr_str_t v)
{
    if (v.len < 0 || gr_group_str_is(*field, v))
        return 0;
    char *c = gr_group_strdup(v);
    if (!c)
        return -1;
    free(*field);
    *field = c;
    return 1;
}

static bool same_subscription(const gr_smember_t *m, const gr_sgroup_heartbeat_args_t *a)
{
    if (a->subscribed_count != m->subscribed_count)
        return false;
    for (int32_t i = 0; i < a->subscribed_count; i++)
        if (!gr_str_eq_c(a->subscribed_topics[i], m->subscribed_topics[i]))
            return false;
    return true;
}

/* Applies the request's fields; *bump set when the subscription changed. 0 or -1 (-ENOMEM). */
static int update_member(gr_smember_t *m, const gr_sgroup_heartbeat_args_t *a, bool *bump)
{
    int changed[] = {set_str(&m->rack_id, a->rack_id), set_str(&m->client_id, a->client_id),
                     set_str(&m->client_host, a->client_host)};
    for (size_t i = 0; i < sizeof changed / sizeof changed[0]; i++) {
        if (changed[i] < 0)
            return -1;
        if (changed[i] > 0)
            gr_sgroup_touch(m->group);
    }
    if (a->subscribed_count < 0 || same_subscription(m, a))
        return 0;
    char **topics = calloc((size_t)a->subscribed_count + 1, sizeof(*topics));
    if (!topics)
        return -1;
    for (int32_t i = 0; i < a->subscribed_count; i++)
        if (!(topics[i] = gr_group_strdup(a->subscribed_topics[i]))) {
            for (int32_t k = 0; k < i; k++)
                free(topics[k]);
            free(topics);
            return -1;
        }
    gr_smember_set_subscription(m, topics, a->subscribed_count);
    gr_sgroup_touch(m->group);
    *bump = true;
    return 0;
}

/* Kafka's ShareGroupAssignmentBuilder: the member takes its target whole. -1 on -ENOMEM. */
static int take_target(gr_sgroup_t *sg, gr_smember_t *m, bool *changed)
{
    *changed = !gr_assignment_equal(&m->assigned, &m->target);
    if (m->member_epoch == sg->assignment_epoch && !*changed)
        return 0;
    if (*changed && gr_assignment_copy(&m->assigned, &m->target) < 0)
        return -1;
    if (m->member_epoch != sg->assignment_epoch) {
        m->previous_epoch = m->member_epoch;
        m->member_epoch = sg->assignment_epoch;
    }
    gr_sgroup_touch(sg);
    return 0;
}

static void advance(gr_sgroup_t *sg, gr_group_env_t *env, gr_smember_t *m,
                    const gr_sgroup_heartbeat_args_t *a, bool bump,
                    gr_sgroup_heartbeat_result_t *out)
{
    /* Topics created, deleted or grown since the last heartbeat count like a new subscription. */
    if (gr_sgroup_refresh_topics(sg, env))
        bump = true;
    if (bump)
        gr_sgroup_bump_epoch(sg);
    if (sg->group_epoch > sg->assignment_epoch && gr_sgroup_update_target(sg))
        return fail(out, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory.");
    bool changed;
    if (take_target(sg, m, &changed) < 0)
        return fail(out, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory.");
    gr_sgroup_session_timer(m, env);
    gr_sgroup_update_state(sg, env->now_ms(env->opaque));
    gr_kerr_t stored = gr_sgroup_store(sg, env, &out->written_end);
    if (stored)
        return fail(out, stored, "The group could not be written.");
    out->member_id = m->member_id;
    out->member_epoch = m->member_epoch;
    if (a->member_epoch == GR_SGROUP_JOIN_EPOCH || changed)
        out->assignment = &m->assigned;
}

void gr_sgroup_heartbeat(gr_group_t *g, gr_group_env_t *env, const gr_sgroup_heartbeat_args_t *a,
                         gr_sgroup_heartbeat_result_t *out)
{
    gr_sgroup_t *sg = g->share;
    *out = (gr_sgroup_heartbeat_result_t){.member_epoch = a->member_epoch,
                                          .heartbeat_interval_ms =
                                              env->share_limits.heartbeat_interval_ms};
    if (a->member_epoch == GR_SGROUP_LEAVE_EPOCH)
        return leave(sg, env, a, out);
    bool bump = false;
    gr_smember_t *m = find_member(sg, env, a, &bump, out);
    if (!m)
        return;
    if (update_member(m, a, &bump) < 0)
        return fail(out, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory.");
    advance(sg, env, m, a, bump, out);
}
