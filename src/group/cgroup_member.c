/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Consumer-group members: lookup, the partition epochs reconciliation
 * reads, fencing, and the member checks of OffsetCommit and OffsetFetch.
 *
 * A member's partitions (assigned and pending revocation) are owned at its
 * member epoch; the group's partition epochs are read off the members
 * rather than kept in a second index, since groups are small and a
 * heartbeat looks at each partition once.
 *
 * Runs on: loop thread.
 */
#include <stdlib.h>

#include "group/cgroup_classic.h"
#include "group/cgroup_int.h"

gr_cmember_t *gr_cgroup_find_member(const gr_cgroup_t *cg, gr_str_t member_id)
{
    for (gr_cmember_t *m = cg->members; m; m = m->next)
        if (gr_str_eq_c(member_id, m->member_id))
            return m;
    return NULL;
}

gr_cmember_t *gr_cgroup_find_static(const gr_cgroup_t *cg, gr_str_t instance_id)
{
    if (instance_id.len < 0)
        return NULL;
    for (gr_cmember_t *m = cg->members; m; m = m->next)
        if (m->instance_id && gr_str_eq_c(instance_id, m->instance_id))
            return m;
    return NULL;
}

int32_t gr_cgroup_partition_epoch(const gr_cgroup_t *cg, gr_uuid_t topic, int32_t partition)
{
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        if (gr_assignment_contains(&m->assigned, topic, partition) ||
            gr_assignment_contains(&m->pending_revocation, topic, partition))
            return m->member_epoch;
    return -1;
}

gr_cmember_t *gr_cmember_new(gr_cgroup_t *cg, gr_str_t member_id)
{
    gr_cmember_t *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->member_id = gr_cgroup_strdup(member_id);
    if (!m->member_id) {
        free(m);
        return NULL;
    }
    m->group = cg;
    m->rebalance_timeout_ms = -1;
    m->state = GR_CMEMBER_STABLE;
    m->session_timer = (gr_group_timer_t){.kind = GR_GROUP_TIMER_CONSUMER_SESSION, .owner = m};
    m->rebalance_timer = (gr_group_timer_t){.kind = GR_GROUP_TIMER_CONSUMER_REBALANCE, .owner = m};
    return m;
}

void gr_cmember_set_subscription(gr_cmember_t *m, char **topics, int32_t count)
{
    for (int32_t i = 0; i < m->subscribed_count; i++)
        free(m->subscribed_topics[i]);
    free(m->subscribed_topics);
    m->subscribed_topics = topics;
    m->subscribed_count = count;
}

void gr_cmember_free(gr_cmember_t *m, gr_group_env_t *env)
{
    if (!m)
        return;
    if (m->session_timer.armed)
        env->timer_cancel(env->opaque, &m->session_timer);
    if (m->rebalance_timer.armed)
        env->timer_cancel(env->opaque, &m->rebalance_timer);
    gr_cmember_classic_free(m, env);
    gr_cmember_set_subscription(m, NULL, 0);
    free(m->subscribed_regex);
    gr_assignment_free(&m->assigned);
    gr_assignment_free(&m->pending_revocation);
    gr_assignment_free(&m->target);
    free(m->member_id);
    free(m->instance_id);
    free(m->rack_id);
    free(m->client_id);
    free(m->client_host);
    free(m->server_assignor);
    free(m);
}

void gr_cgroup_unlink(gr_cgroup_t *cg, gr_cmember_t *m)
{
    for (gr_cmember_t **pp = &cg->members; *pp; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            cg->member_count--;
            return;
        }
}

void gr_cgroup_link(gr_cgroup_t *cg, gr_cmember_t *m)
{
    gr_cmember_t **pp = &cg->members;
    while (*pp)
        pp = &(*pp)->next;
    m->next = NULL;
    *pp = m;
    cg->member_count++;
}

bool gr_cgroup_fence_member(gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *m)
{
    if (gr_cgroup_migrate_downgrade(cg, env, m)) /* cg and m are gone: the group is classic */
        return true;
    (void)gr_cgroup_note_removed(cg, m->member_id); /* -ENOMEM: its records stay behind */
    gr_cgroup_unlink(cg, m);
    gr_cmember_free(m, env);
    /* The leaving member's partitions are free now; everyone's target moves. */
    gr_cgroup_bump_epoch(cg);
    gr_cgroup_regex_prune(cg); /* a regex nobody else uses goes with it */
    gr_cgroup_refresh_topics(cg, env);
    gr_cgroup_update_state(cg, env->now_ms(env->opaque));
    return false;
}

/* Kafka's validateMemberEpoch: a newer epoch is fenced, an older one stale. */
static gr_kerr_t check_member(const gr_cgroup_t *cg, gr_str_t member_id, int32_t member_epoch)
{
    const gr_cmember_t *m = gr_cgroup_find_member(cg, member_id);
    if (!m)
        return GR_KERR_UNKNOWN_MEMBER_ID;
    if (m->classic) /* a classic member's epoch is its generation */
        return member_epoch != m->member_epoch ? GR_KERR_ILLEGAL_GENERATION : GR_KERR_NONE;
    if (member_epoch > m->member_epoch)
        return GR_KERR_FENCED_MEMBER_EPOCH;
    if (member_epoch < m->member_epoch)
        return GR_KERR_STALE_MEMBER_EPOCH;
    return GR_KERR_NONE;
}

gr_kerr_t gr_cgroup_check_commit(const gr_cgroup_t *cg, gr_str_t member_id, int32_t member_epoch)
{
    /* An admin's commit (no member, no epoch): only while nobody consumes. */
    if (member_epoch < 0 && member_id.len <= 0)
        return cg->member_count == 0 ? GR_KERR_NONE : GR_KERR_UNKNOWN_MEMBER_ID;
    return check_member(cg, member_id, member_epoch);
}

gr_kerr_t gr_cgroup_check_fetch(const gr_cgroup_t *cg, gr_str_t member_id, int32_t member_epoch)
{
    if (member_id.len < 0 && member_epoch < 0)
        return GR_KERR_NONE;
    if (member_epoch < 0 && gr_cgroup_is_classic_member(cg, member_id)) /* cgroup_classic.c */
        return GR_KERR_NONE;
    return check_member(cg, member_id, member_epoch);
}

bool gr_cgroup_subscribed_to(const gr_cgroup_t *cg, gr_str_t topic)
{
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        if (gr_cmember_subscribes(cg, m, topic))
            return true;
    return false;
}
