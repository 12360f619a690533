/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ConsumerGroupHeartbeat on a consumer group, in Kafka's order:
 *
 *   validate          the request alone (INVALID_REQUEST, UNSUPPORTED_ASSIGNOR)
 *   leave (-1, -2)    fence the member, or keep a static member's place
 *                     (epoch -2) until its session timer fires
 *   find the member   GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID,
 *                     FENCED_INSTANCE_ID, UNRELEASED_INSTANCE_ID, or a new
 *                     member (epoch 0); a static member rejoining after -2
 *                     takes over its predecessor's assignment
 *   check its epoch   FENCED_MEMBER_EPOCH, unless it is the previous epoch
 *                     and it owns a subset of its partitions (a lost response)
 *   update it         a changed subscription (names or regex, a new regex
 *                     checked: INVALID_REGULAR_EXPRESSION), a regex
 *                     resolved to other topics (cgroup_regex.c), or
 *                     changed metadata of the subscribed topics, bumps
 *                     the group epoch
 *   target            recomputed when the group epoch is ahead
 *   reconcile         one step toward its target (cgroup_reconcile.c)
 *
 * A dynamic member that comes back at epoch 0 with the id it already has
 * rejoins from scratch (its partitions released), so a client fenced by
 * FENCED_MEMBER_EPOCH that keeps its id does not wait for its old session
 * to expire.
 *
 * Runs on: loop thread.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "group/assignor.h"
#include "group/cgroup_classic.h"
#include "group/cgroup_int.h"

static bool is_empty(gr_str_t s)
{
    return s.len == 0;
}

static bool assignor_known(const gr_group_env_t *env, gr_str_t name)
{
    for (int32_t i = 0; i < env->consumer_limits.assignor_count; i++)
        if (gr_str_eq_c(name, env->consumer_limits.assignors[i]))
            return true;
    return false;
}

/* Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid. */
gr_kerr_t gr_cgroup_heartbeat_validate(const gr_group_env_t *env,
                                       const gr_cgroup_heartbeat_args_t *a, const char **message)
{
    *message = NULL;
    for (int32_t i = 0; i < a->subscribed_count; i++)
        if (a->subscribed_topics[i].len < 0) {
            *message = "SubscribedTopicNames can't contain null.";
            return GR_KERR_INVALID_REQUEST;
        }
    if (is_empty(a->instance_id))
        *message = "InstanceId can't be empty.";
    else if (is_empty(a->rack_id))
        *message = "RackId can't be empty.";
    else if (a->version >= GR_CGROUP_CLIENT_MEMBER_ID_VERSION && a->member_id.len <= 0)
        *message = "MemberId can't be empty.";
    else if (a->member_epoch > 0 || a->member_epoch == GR_CGROUP_LEAVE_EPOCH) {
        if (a->member_id.len <= 0)
            *message = "MemberId can't be empty.";
    } else if (a->member_epoch == GR_CGROUP_JOIN_EPOCH) {
        if (a->rebalance_timeout_ms == -1)
            *message = "RebalanceTimeoutMs must be provided in first request.";
        else if (!a->owned || !gr_assignment_is_empty(a->owned))
            *message = "TopicPartitions must be empty when (re-)joining.";
        else if (a->subscribed_count < 0 && a->subscribed_regex.len < 0)
            /* Empty names or an empty regex join subscribed to nothing, as in Kafka 4.x. */
            *message = "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null "
                       "when (re-)joining.";
    } else if (a->member_epoch == GR_CGROUP_STATIC_LEAVE_EPOCH) {
        if (a->member_id.len <= 0)
            *message = "MemberId can't be empty.";
        else if (a->instance_id.len < 0)
            *message = "InstanceId can't be null.";
    } else {
        *message = "MemberEpoch is invalid.";
    }
    if (*message)
        return GR_KERR_INVALID_REQUEST;
    if (a->server_assignor.len >= 0 && !assignor_known(env, a->server_assignor)) {
        *message = "ServerAssignor is not supported.";
        return GR_KERR_UNSUPPORTED_ASSIGNOR;
    }
    return GR_KERR_NONE;
}

/* --- leaving ------------------------------------------------------------------- */

static void fail(gr_cgroup_heartbeat_result_t *out, gr_kerr_t err, const char *message)
{
    out->error = err;
    out->error_message = message;
}

static void leave(gr_cgroup_t *cg, gr_group_env_t *env, const gr_cgroup_heartbeat_args_t *a,
                  gr_cgroup_heartbeat_result_t *out)
{
    gr_cmember_t *m = a->instance_id.len < 0 ? gr_cgroup_find_member(cg, a->member_id)
                                             : gr_cgroup_find_static(cg, a->instance_id);
    if (!m)
        return fail(out, GR_KERR_UNKNOWN_MEMBER_ID, "Unknown member.");
    if (a->instance_id.len >= 0 && !gr_str_eq_c(a->member_id, m->member_id))
        return fail(out, GR_KERR_FENCED_INSTANCE_ID, "The instance id is owned by another member.");
    out->member_epoch = a->member_epoch;
    if (a->member_epoch == GR_CGROUP_STATIC_LEAVE_EPOCH) {
        /* Its place and assignment wait for it until its session expires. */
        m->member_epoch = GR_CGROUP_STATIC_LEAVE_EPOCH;
        gr_assignment_free(&m->pending_revocation);
        gr_cgroup_touch(cg);
        gr_cgroup_rebalance_timer(m, env);
        gr_cgroup_update_state(cg, env->now_ms(env->opaque));
    } else if (gr_cgroup_fence_member(cg, env, m)) {
        return; /* the group turned classic and was written as such (cgroup_migrate.c) */
    }
    gr_kerr_t stored = gr_cgroup_store(cg, env, &out->written_end);
    if (stored)
        fail(out, stored, "The group could not be written.");
}

/* --- finding the member -------------------------------------------------------- */

/* Kafka's Uuid.toString: 16 random bytes in URL-safe base64 without padding. */
static int new_member_id(char *buf /* 23 bytes at least */)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    uint8_t u[18] = {0};
    if (getrandom(u, 16, 0) != 16)
        return -1;
    int o = 0;
    for (int i = 0; i < 18; i += 3) {
        uint32_t v = (uint32_t)u[i] << 16 | (uint32_t)u[i + 1] << 8 | u[i + 2];
        for (int k = 3; k >= 0; k--)
            if (o < 22 || k == 3)
                buf[o++] = alphabet[(v >> (6 * k)) & 63];
    }
    buf[22] = '\0';
    return 0;
}

/* Kafka's throwIfConsumerGroupMemberEpochIsInvalid. */
static gr_kerr_t check_epoch(const gr_cmember_t *m, int32_t epoch, const gr_assignment_t *owned)
{
    if (epoch > m->member_epoch)
        return GR_KERR_FENCED_MEMBER_EPOCH;
    if (epoch < m->member_epoch) {
        /* The response carrying the new epoch may have been lost. */
        gr_assignment_t extra = GR_ASSIGNMENT_INIT;
        bool subset = owned && gr_assignment_subtract(&extra, owned, &m->assigned) == 0 &&
                      gr_assignment_is_empty(&extra);
        gr_assignment_free(&extra);
        if (epoch != m->previous_epoch || !subset)
            return GR_KERR_FENCED_MEMBER_EPOCH;
    }
    return GR_KERR_NONE;
}

/* The member starts over at epoch 0 owning nothing. */
static void restart(gr_cmember_t *m, gr_group_env_t *env)
{
    gr_cgroup_touch(m->group);
    m->member_epoch = 0;
    m->previous_epoch = 0;
    m->state = GR_CMEMBER_STABLE;
    gr_assignment_free(&m->assigned);
    gr_assignment_free(&m->pending_revocation);
    gr_cgroup_rebalance_timer(m, env);
}

static gr_cmember_t *join_new(gr_cgroup_t *cg, gr_group_env_t *env, gr_str_t member_id,
                              bool *epoch_bump)
{
    gr_cmember_t *m = gr_cmember_new(cg, member_id);
    if (m) {
        gr_cgroup_link(cg, m);
        gr_cgroup_session_timer(m, env); /* even if the rest of its join fails */
        *epoch_bump = true;
    }
    return m;
}

/*
 * A static member rejoining after its predecessor left with -2: a new
 * member id takes over the instance's subscription, assignment and target;
 * no rebalance.
 */
static gr_cmember_t *replace_static(gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *old,
                                    gr_str_t member_id)
{
    gr_cmember_t *m = gr_cmember_new(cg, member_id);
    if (!m)
        return NULL;
    gr_cmember_t saved = *m;
    char *id = m->member_id;
    *m = *old;
    m->member_id = id;
    m->session_timer = saved.session_timer;
    m->rebalance_timer = saved.rebalance_timer;
    m->member_epoch = 0;
    m->previous_epoch = 0;
    m->next = NULL;
    /* A classic member's join/sync timers moved with m->classic: they now fire for m. */
    if (m->classic) {
        m->classic->join_timer.owner = m;
        m->classic->sync_timer.owner = m;
    }
    /* old's heap fields now belong to m; free only old's shell. */
    if (old->session_timer.armed)
        env->timer_cancel(env->opaque, &old->session_timer);
    if (old->rebalance_timer.armed)
        env->timer_cancel(env->opaque, &old->rebalance_timer);
    gr_cgroup_unlink(cg, old);
    (void)gr_cgroup_note_removed(cg, old->member_id);
    free(old->member_id);
    free(old);
    gr_cgroup_link(cg, m);
    return m;
}

static gr_cmember_t *find_static(gr_cgroup_t *cg, gr_group_env_t *env,
                                 const gr_cgroup_heartbeat_args_t *a, gr_str_t member_id,
                                 bool *bump, gr_cgroup_heartbeat_result_t *out)
{
    gr_cmember_t *old = gr_cgroup_find_static(cg, a->instance_id);
    if (a->member_epoch == GR_CGROUP_JOIN_EPOCH) {
        if (!old)
            return join_new(cg, env, member_id, bump);
        if (gr_str_eq_c(member_id, old->member_id)) {
            restart(old, env);
            return old;
        }
        if (old->member_epoch != GR_CGROUP_STATIC_LEAVE_EPOCH) {
            fail(out, GR_KERR_UNRELEASED_INSTANCE_ID, "The instance id is still in use.");
            return NULL;
        }
        return replace_static(cg, env, old, member_id);
    }
    if (!old) {
        fail(out, GR_KERR_UNKNOWN_MEMBER_ID, "Unknown static member.");
        return NULL;
    }
    if (!gr_str_eq_c(member_id, old->member_id)) {
        fail(out, GR_KERR_FENCED_INSTANCE_ID, "The instance id is owned by another member.");
        return NULL;
    }
    gr_kerr_t err = check_epoch(old, a->member_epoch, a->owned);
    if (err)
        fail(out, err, "The member epoch is fenced.");
    return err ? NULL : old;
}

static gr_cmember_t *find_dynamic(gr_cgroup_t *cg, gr_group_env_t *env,
                                  const gr_cgroup_heartbeat_args_t *a, gr_str_t member_id,
                                  bool *bump, gr_cgroup_heartbeat_result_t *out)
{
    gr_cmember_t *m = gr_cgroup_find_member(cg, member_id);
    if (a->member_epoch == GR_CGROUP_JOIN_EPOCH) {
        if (!m)
            return join_new(cg, env, member_id, bump);
        restart(m, env);
        return m;
    }
    if (!m) {
        fail(out, GR_KERR_UNKNOWN_MEMBER_ID, "Unknown member.");
        return NULL;
    }
    gr_kerr_t err = check_epoch(m, a->member_epoch, a->owned);
    if (err)
        fail(out, err, "The member epoch is fenced.");
    return err ? NULL : m;
}

/* --- updating it --------------------------------------------------------------- */

/* Sets *field to v unless v is null (unchanged); 1 when it changed, 0 not, -1 on -ENOMEM. */
static int set_str(char **field, gr_str_t v)
{
    if (v.len < 0 || gr_group_str_is(*field, v))
        return 0;
    char *c = gr_cgroup_strdup(v);
    if (!c)
        return -1;
    free(*field);
    *field = c;
    return 1;
}

static bool same_subscription(const gr_cmember_t *m, const gr_cgroup_heartbeat_args_t *a)
{
    if (a->subscribed_count != m->subscribed_count)
        return false;
    for (int32_t i = 0; i < a->subscribed_count; i++)
        if (!gr_str_eq_c(a->subscribed_topics[i], m->subscribed_topics[i]))
            return false;
    return true;
}

/*
 * Kafka checks a regex the group does not have yet once the member is
 * found (a join: before it is created, so a refused join leaves nothing).
 * True when it failed, with *out filled.
 */
static bool regex_refused(gr_cgroup_t *cg, const gr_cgroup_heartbeat_args_t *a,
                          gr_cgroup_heartbeat_result_t *out)
{
    gr_kerr_t err =
        gr_cgroup_regex_check(cg, a->subscribed_regex, out->message_buf, sizeof out->message_buf);
    if (err)
        fail(out, err,
             err == GR_KERR_INVALID_REGULAR_EXPRESSION ? out->message_buf : "Out of memory.");
    return err != GR_KERR_NONE;
}

/* Applies the request's fields; *bump set when the subscription changed. 0 or -1 (-ENOMEM). */
static int update_member(gr_cmember_t *m, const gr_cgroup_heartbeat_args_t *a, bool *bump)
{
    int changed[] = {set_str(&m->instance_id, a->instance_id), set_str(&m->rack_id, a->rack_id),
                     set_str(&m->server_assignor, a->server_assignor),
                     set_str(&m->client_id, a->client_id),
                     set_str(&m->client_host, a->client_host)};
    for (size_t i = 0; i < sizeof changed / sizeof changed[0]; i++) {
        if (changed[i] < 0)
            return -1;
        if (changed[i] > 0)
            gr_cgroup_touch(m->group);
    }
    if (a->rebalance_timeout_ms != -1 && a->rebalance_timeout_ms != m->rebalance_timeout_ms) {
        m->rebalance_timeout_ms = a->rebalance_timeout_ms;
        gr_cgroup_touch(m->group);
    }
    if (gr_cmember_set_regex(m, a->subscribed_regex, bump) < 0)
        return -1;
    if (a->subscribed_count < 0 || same_subscription(m, a))
        return 0;
    char **topics = calloc((size_t)a->subscribed_count + 1, sizeof(*topics));
    if (!topics)
        return -1;
    for (int32_t i = 0; i < a->subscribed_count; i++)
        if (!(topics[i] = gr_cgroup_strdup(a->subscribed_topics[i]))) {
            gr_cmember_set_subscription(m, NULL, 0);
            for (int32_t k = 0; k < i; k++)
                free(topics[k]);
            free(topics);
            return -1;
        }
    gr_cmember_set_subscription(m, topics, a->subscribed_count);
    *bump = true;
    return 0;
}

static bool full_request(const gr_cgroup_heartbeat_args_t *a)
{
    return a->member_epoch == GR_CGROUP_JOIN_EPOCH ||
           (a->rebalance_timeout_ms != -1 &&
            (a->subscribed_count >= 0 || a->subscribed_regex.len >= 0) && a->owned);
}

/* Steps 4-6: epochs, target, reconciliation; fills the answer. */
static void advance(gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *m,
                    const gr_cgroup_heartbeat_args_t *a, bool bump,
                    gr_cgroup_heartbeat_result_t *out)
{
    /* Regexes resolved again (new ones, topics created or deleted): their matches moved. */
    if (gr_cgroup_regex_refresh(cg, env, a->topic_allowed, a->topic_allowed_ctx))
        bump = true;
    /* Topics created, deleted or grown since the last heartbeat count like a new subscription. */
    if (gr_cgroup_refresh_topics(cg, env))
        bump = true;
    if (bump)
        gr_cgroup_bump_epoch(cg);
    if (cg->group_epoch > cg->assignment_epoch && gr_cgroup_update_target(cg, env))
        return fail(out, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory.");
    gr_assignment_t before = GR_ASSIGNMENT_INIT;
    if (gr_assignment_copy(&before, &m->assigned) < 0)
        return fail(out, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory.");
    int32_t epoch = m->member_epoch, previous = m->previous_epoch;
    gr_cmember_state_t state = m->state;
    int32_t pending = gr_assignment_size(&m->pending_revocation);
    gr_kerr_t err = gr_cgroup_reconcile(cg, m, cg->assignment_epoch, &m->target, a->owned);
    bool changed = !gr_assignment_equal(&before, &m->assigned);
    gr_assignment_free(&before);
    if (changed || epoch != m->member_epoch || previous != m->previous_epoch || state != m->state ||
        pending != gr_assignment_size(&m->pending_revocation))
        gr_cgroup_touch(cg);
    if (err)
        return fail(out, err, "The member must rejoin.");
    gr_cgroup_rebalance_timer(m, env);
    gr_cgroup_session_timer(m, env);
    gr_cgroup_update_state(cg, env->now_ms(env->opaque));
    gr_kerr_t stored = gr_cgroup_store(cg, env, &out->written_end);
    if (stored)
        return fail(out, stored, "The group could not be written.");
    out->member_id = m->member_id;
    out->member_epoch = m->member_epoch;
    if (full_request(a) || changed)
        out->assignment = &m->assigned;
}

void gr_cgroup_heartbeat(gr_group_t *g, gr_group_env_t *env, const gr_cgroup_heartbeat_args_t *a,
                         gr_cgroup_heartbeat_result_t *out)
{
    gr_cgroup_t *cg = g->consumer;
    *out = (gr_cgroup_heartbeat_result_t){.member_epoch = a->member_epoch,
                                          .heartbeat_interval_ms =
                                              env->consumer_limits.heartbeat_interval_ms};
    if (a->member_id.len > 0)
        out->member_id = NULL; /* the handler echoes the request's id on errors */
    if (a->member_epoch == GR_CGROUP_LEAVE_EPOCH || a->member_epoch == GR_CGROUP_STATIC_LEAVE_EPOCH)
        return leave(cg, env, a, out);
    gr_str_t member_id = a->member_id;
    if (member_id.len <= 0) { /* v0 join: the coordinator names it */
        if (new_member_id(out->member_id_buf) < 0)
            return fail(out, GR_KERR_UNKNOWN_SERVER_ERROR, "No random member id.");
        member_id = gr_str(out->member_id_buf);
    }
    bool known = gr_cgroup_find_member(cg, member_id) != NULL;
    if (cg->member_count >= env->consumer_limits.max_size && !known)
        return fail(out, GR_KERR_GROUP_MAX_SIZE_REACHED, "The group is full.");
    bool bump = false;
    if (a->member_epoch == GR_CGROUP_JOIN_EPOCH && regex_refused(cg, a, out))
        return;
    gr_cmember_t *m = a->instance_id.len < 0 ? find_dynamic(cg, env, a, member_id, &bump, out)
                                             : find_static(cg, env, a, member_id, &bump, out);
    if (!m) {
        if (!out->error)
            fail(out, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory.");
        return;
    }
    if (a->member_epoch != GR_CGROUP_JOIN_EPOCH && regex_refused(cg, a, out))
        return;
    if (update_member(m, a, &bump) < 0)
        return fail(out, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory.");
    advance(cg, env, m, a, bump, out);
}
