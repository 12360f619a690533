/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's classic group state machine (see group.h for the states and the
 * functions doing each transition). Error codes follow Kafka's group
 * coordinator case by case; the comments say where its choices are subtle.
 *
 * Invariants:
 *   awaiting_join_count == number of members with awaiting_join
 *   leader == NULL iff member_count == 0
 *   a waiter is linked to at most one member, and back (w->member == m)
 *   join_timer is armed iff state == PreparingRebalance
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "group/cgroup.h"
#include "group/cgroup_classic.h"
#include "group/sgroup.h"
#include "group/group_int.h"

/* How long a new member may wait in a rebalance before it is dropped (Kafka's 5 min). */
#define GR_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS 300000
#define GR_GROUP_UUID_TEXT_LEN              36

static const char *const state_names[] = {
    [GR_GROUP_EMPTY] = "Empty",
    [GR_GROUP_PREPARING_REBALANCE] = "PreparingRebalance",
    [GR_GROUP_COMPLETING_REBALANCE] = "CompletingRebalance",
    [GR_GROUP_STABLE] = "Stable",
    [GR_GROUP_DEAD] = "Dead",
};

const char *gr_group_state_name(gr_group_state_t s)
{
    return state_names[s];
}

int gr_group_state_parse(gr_str_t name)
{
    for (int s = GR_GROUP_EMPTY; s <= GR_GROUP_DEAD; s++)
        if (name.len >= 0 && strlen(state_names[s]) == (size_t)name.len &&
            strncasecmp(state_names[s], name.ptr, (size_t)name.len) == 0)
            return s;
    return -1;
}

/* --- timers and small helpers -------------------------------------------- */

void gr_group_timer_arm(gr_group_env_t *env, gr_group_timer_t *t, int64_t delay_ms)
{
    gr_group_timer_stop(env, t);
    t->armed = true;
    t->deadline_ms = env->now_ms(env->opaque) + delay_ms;
    env->timer_arm(env->opaque, t, delay_ms);
}

void gr_group_timer_stop(gr_group_env_t *env, gr_group_timer_t *t)
{
    if (t->armed) {
        env->timer_cancel(env->opaque, t);
        t->armed = false;
    }
}

static void set_state(gr_group_t *g, gr_group_env_t *env, gr_group_state_t s)
{
    g->state = s;
    g->state_timestamp = env->now_ms(env->opaque);
}

/* Kafka's completeAndScheduleNextHeartbeatExpiration. */
static void heartbeat_reset(gr_group_env_t *env, gr_member_t *m, int64_t timeout_ms)
{
    m->heartbeat_satisfied = false;
    gr_group_timer_arm(env, &m->session_timer, timeout_ms);
}

static int32_t group_rebalance_timeout(const gr_group_t *g)
{
    int32_t max = 0;
    for (gr_member_t *m = g->members; m; m = m->next)
        if (m->rebalance_timeout_ms > max)
            max = m->rebalance_timeout_ms;
    return max;
}

/* clientId-UUID, as Kafka names members. */
static char *new_member_id(gr_str_t client_id)
{
    uint8_t u[16];
    if (getrandom(u, sizeof u, 0) != (ssize_t)sizeof u)
        return NULL;
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x40); /* version 4 */
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80); /* IETF variant */
    int32_t clen = client_id.len > 0 ? client_id.len : 0;
    char *id = malloc((size_t)clen + 1 + GR_GROUP_UUID_TEXT_LEN + 1);
    if (!id)
        return NULL;
    snprintf(id, (size_t)clen + 2 + GR_GROUP_UUID_TEXT_LEN,
             "%.*s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", clen,
             clen ? client_id.ptr : "", u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
             u[10], u[11], u[12], u[13], u[14], u[15]);
    return id;
}

/* --- answering waiters ---------------------------------------------------- */

static void join_error(gr_group_env_t *env, gr_group_waiter_t *w, gr_kerr_t err,
                       const char *member_id)
{
    gr_join_result_t r = {.error = err, .generation = -1, .leader_id = "", .member_id = member_id};
    env->respond_join(env->opaque, w, &r);
}

static void sync_error(gr_group_env_t *env, gr_group_waiter_t *w, gr_kerr_t err)
{
    gr_sync_result_t r = {.error = err};
    env->respond_sync(env->opaque, w, &r);
}

/* Kafka's maybeInvokeJoinCallback: ends the member's wait, answering its request if any. */
static void invoke_join(gr_group_t *g, gr_group_env_t *env, gr_member_t *m,
                        const gr_join_result_t *r)
{
    if (!m->awaiting_join)
        return;
    m->awaiting_join = false;
    g->awaiting_join_count--;
    gr_group_waiter_t *w = m->join_waiter;
    if (w) {
        m->join_waiter = NULL;
        w->member = NULL;
        env->respond_join(env->opaque, w, r);
    }
}

static void invoke_sync(gr_group_env_t *env, gr_member_t *m, const gr_sync_result_t *r)
{
    if (!m->awaiting_sync)
        return;
    m->awaiting_sync = false;
    gr_group_waiter_t *w = m->sync_waiter;
    if (w) {
        m->sync_waiter = NULL;
        w->member = NULL;
        env->respond_sync(env->opaque, w, r);
    }
}

/* The member now waits on w for the rebalance's outcome. */
static void park_join(gr_group_t *g, gr_group_env_t *env, gr_member_t *m, gr_group_waiter_t *w)
{
    if (m->join_waiter) {
        /* A second join while the first waits: the first is answered so that
         * responses on its connection stay in order; the client rejoins. */
        gr_group_waiter_t *old = m->join_waiter;
        m->join_waiter = NULL;
        old->member = NULL;
        join_error(env, old, GR_KERR_REBALANCE_IN_PROGRESS, m->member_id);
    }
    m->join_waiter = w;
    w->member = m;
    if (!m->awaiting_join) {
        m->awaiting_join = true;
        g->awaiting_join_count++;
    }
}

static void park_sync(gr_group_env_t *env, gr_member_t *m, gr_group_waiter_t *w)
{
    if (m->sync_waiter) {
        gr_group_waiter_t *old = m->sync_waiter;
        m->sync_waiter = NULL;
        old->member = NULL;
        sync_error(env, old, GR_KERR_REBALANCE_IN_PROGRESS);
    }
    m->sync_waiter = w;
    w->member = m;
    m->awaiting_sync = true;
}

void gr_group_waiter_cancel(gr_group_waiter_t *w)
{
    gr_member_t *m = w->member;
    if (!m)
        return;
    if (m->join_waiter == w)
        m->join_waiter = NULL;
    if (m->sync_waiter == w)
        m->sync_waiter = NULL;
    w->member = NULL;
}

/* --- membership ------------------------------------------------------------ */

static void group_add(gr_group_t *g, gr_group_env_t *env, gr_member_t *m, gr_group_waiter_t *w,
                      gr_str_t protocol_type)
{
    if (g->member_count == 0) {
        free(g->protocol_type);
        g->protocol_type = gr_group_strdup(protocol_type);
    }
    if (!g->leader)
        g->leader = m;
    gr_member_t **tail = &g->members;
    while (*tail)
        tail = &(*tail)->next;
    *tail = m;
    g->member_count++;
    if (w)
        park_join(g, env, m, w);
}

/* Removes m, answering its waiting requests with UNKNOWN_MEMBER_ID. */
static void group_remove(gr_group_t *g, gr_group_env_t *env, gr_member_t *m)
{
    gr_join_result_t jr = {.error = GR_KERR_UNKNOWN_MEMBER_ID,
                           .generation = -1,
                           .leader_id = "",
                           .member_id = m->member_id};
    invoke_join(g, env, m, &jr);
    gr_sync_result_t sr = {.error = GR_KERR_UNKNOWN_MEMBER_ID};
    invoke_sync(env, m, &sr);
    for (gr_member_t **p = &g->members; *p; p = &(*p)->next) {
        if (*p == m) {
            *p = m->next;
            break;
        }
    }
    g->member_count--;
    if (g->leader == m)
        g->leader = g->members;
    gr_group_timer_stop(env, &m->session_timer);
    gr_member_free(m);
}

static gr_pending_member_t *pending_find(gr_group_t *g, gr_str_t member_id)
{
    for (gr_pending_member_t *p = g->pending; p; p = p->next)
        if (gr_group_str_is(p->member_id, member_id))
            return p;
    return NULL;
}

static void pending_remove(gr_group_t *g, gr_group_env_t *env, gr_pending_member_t *pm)
{
    for (gr_pending_member_t **p = &g->pending; *p; p = &(*p)->next) {
        if (*p == pm) {
            *p = pm->next;
            break;
        }
    }
    g->pending_count--;
    gr_group_timer_stop(env, &pm->session_timer);
    free(pm->member_id);
    free(pm);
}

static bool all_members_joined(const gr_group_t *g)
{
    return g->member_count == g->awaiting_join_count && g->pending_count == 0;
}

/* --- rebalance ---------------------------------------------------------- */

static void complete_join(gr_group_t *g, gr_group_env_t *env);

/* Answers every member waiting on SyncGroup, then restarts their sessions. */
static void propagate_assignment(gr_group_t *g, gr_group_env_t *env, gr_kerr_t err)
{
    for (gr_member_t *m = g->members; m; m = m->next) {
        if (!m->awaiting_sync)
            continue;
        gr_sync_result_t r = {.error = err,
                              .protocol_type = err ? NULL : g->protocol_type,
                              .protocol_name = err ? NULL : g->protocol_name,
                              .assignment = m->assignment,
                              .assignment_len = m->assignment_len};
        invoke_sync(env, m, &r);
        heartbeat_reset(env, m, m->session_timeout_ms);
    }
}

static void reset_and_propagate(gr_group_t *g, gr_group_env_t *env, gr_kerr_t err)
{
    for (gr_member_t *m = g->members; m; m = m->next) {
        free(m->assignment);
        m->assignment = NULL;
        m->assignment_len = 0;
    }
    propagate_assignment(g, env, err);
}

static void clear_pending_sync(gr_group_t *g, gr_group_env_t *env)
{
    for (gr_member_t *m = g->members; m; m = m->next)
        m->pending_sync = false;
    gr_group_timer_stop(env, &g->sync_timer);
}

static void try_complete_join(gr_group_t *g, gr_group_env_t *env)
{
    if (g->state == GR_GROUP_PREPARING_REBALANCE && !g->initial_delay && all_members_joined(g)) {
        gr_group_timer_stop(env, &g->join_timer);
        complete_join(g, env);
    }
}

static void prepare_rebalance(gr_group_t *g, gr_group_env_t *env)
{
    if (g->state == GR_GROUP_COMPLETING_REBALANCE)
        reset_and_propagate(g, env, GR_KERR_REBALANCE_IN_PROGRESS);
    clear_pending_sync(g, env);
    int32_t rebalance_timeout = group_rebalance_timeout(g);
    if (g->state == GR_GROUP_EMPTY) {
        /* A new group waits a little for more members before the first generation. */
        int32_t delay = env->limits.initial_rebalance_delay_ms;
        g->initial_delay = true;
        g->new_member_added = false;
        g->initial_remaining_ms = rebalance_timeout > delay ? rebalance_timeout - delay : 0;
        gr_group_timer_arm(env, &g->join_timer, delay > 0 ? delay : 0);
    } else {
        g->initial_delay = false;
        gr_group_timer_arm(env, &g->join_timer, rebalance_timeout);
    }
    set_state(g, env, GR_GROUP_PREPARING_REBALANCE);
    try_complete_join(g, env);
}

static void maybe_prepare_rebalance(gr_group_t *g, gr_group_env_t *env)
{
    if (g->state == GR_GROUP_STABLE || g->state == GR_GROUP_COMPLETING_REBALANCE ||
        g->state == GR_GROUP_EMPTY)
        prepare_rebalance(g, env);
}

/* Kafka's maybeElectNewJoinedLeader: false if no member rejoined. */
static bool elect_joined_leader(gr_group_t *g)
{
    if (!g->leader)
        return false;
    if (g->leader->awaiting_join)
        return true;
    for (gr_member_t *m = g->members; m; m = m->next) {
        if (m->awaiting_join) {
            g->leader = m;
            return true;
        }
    }
    return false;
}

static void init_next_generation(gr_group_t *g, gr_group_env_t *env)
{
    g->generation++;
    free(g->protocol_name);
    g->protocol_name = NULL;
    if (g->member_count > 0) {
        const char *selected = gr_group_select_protocol(g);
        g->protocol_name = selected ? strdup(selected) : NULL;
        gr_group_compute_subscriptions(g);
        set_state(g, env, GR_GROUP_COMPLETING_REBALANCE);
    } else {
        gr_group_compute_subscriptions(g);
        set_state(g, env, GR_GROUP_EMPTY);
    }
    clear_pending_sync(g, env);
}

/* Answers every joined member with the new generation; the leader gets everyone's metadata. */
static void answer_joined(gr_group_t *g, gr_group_env_t *env)
{
    gr_member_t **all = malloc(sizeof(*all) * (size_t)g->member_count);
    int32_t n = 0;
    for (gr_member_t *m = g->members; m && all; m = m->next)
        all[n++] = m;
    for (gr_member_t *m = g->members; m; m = m->next) {
        bool leader = m == g->leader;
        gr_join_result_t r = {.error = all || !leader ? GR_KERR_NONE : GR_KERR_UNKNOWN_SERVER_ERROR,
                              .generation = g->generation,
                              .protocol_type = g->protocol_type,
                              .protocol_name = g->protocol_name,
                              .leader_id = g->leader->member_id,
                              .member_id = m->member_id,
                              .members = leader ? all : NULL,
                              .member_count = leader ? n : 0};
        invoke_join(g, env, m, &r);
        heartbeat_reset(env, m, m->session_timeout_ms);
        m->is_new = false;
        m->pending_sync = true;
    }
    free(all);
    gr_group_timer_arm(env, &g->sync_timer, group_rebalance_timeout(g));
}

static void complete_join(gr_group_t *g, gr_group_env_t *env)
{
    /* Dynamic members that did not rejoin leave; static ones keep their place. */
    gr_member_t *m = g->members;
    while (m) {
        gr_member_t *next = m->next;
        if (!m->awaiting_join && !m->instance_id)
            group_remove(g, env, m);
        m = next;
    }
    if (g->state == GR_GROUP_DEAD)
        return;
    if (!elect_joined_leader(g) && g->member_count > 0) {
        /* Nobody rejoined: wait another rebalance timeout for sessions to expire. */
        gr_group_timer_arm(env, &g->join_timer, group_rebalance_timeout(g));
        return;
    }
    init_next_generation(g, env);
    if (g->state == GR_GROUP_EMPTY)
        env->store_group(env->opaque, g);
    else
        answer_joined(g, env);
}

/* --- JoinGroup ------------------------------------------------------------ */

static void update_member(gr_group_t *g, gr_group_env_t *env, gr_member_t *m,
                          const gr_join_args_t *a, gr_group_waiter_t *w)
{
    if (gr_member_set_protocols(m, a->protocols, a->protocol_count) < 0) {
        join_error(env, w, GR_KERR_UNKNOWN_SERVER_ERROR, m->member_id);
        return;
    }
    m->session_timeout_ms = a->session_timeout_ms;
    m->rebalance_timeout_ms = a->rebalance_timeout_ms;
    park_join(g, env, m, w);
}

static void add_member_and_rebalance(gr_group_t *g, gr_group_env_t *env, const gr_join_args_t *a,
                                     char *member_id, gr_group_waiter_t *w)
{
    gr_member_t *m = gr_member_new(g, member_id, a->instance_id, a->client_id, a->client_host);
    free(member_id);
    if (!m || gr_member_set_protocols(m, a->protocols, a->protocol_count) < 0) {
        gr_member_free(m);
        join_error(env, w, GR_KERR_UNKNOWN_SERVER_ERROR, "");
        return;
    }
    m->session_timeout_ms = a->session_timeout_ms;
    m->rebalance_timeout_ms = a->rebalance_timeout_ms;
    m->is_new = true;
    if (g->state == GR_GROUP_PREPARING_REBALANCE && g->generation == 0)
        g->new_member_added = true;
    group_add(g, env, m, w, a->protocol_type);
    /* Its session does not run yet (it has no id to heartbeat with); a
     * member that vanished mid-join is dropped after this longer timeout. */
    heartbeat_reset(env, m, GR_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS);
    maybe_prepare_rebalance(g, env);
}

/* A static member rejoins in Stable: keep the generation if the protocol stays. */
static void rejoin_static_stable(gr_group_t *g, gr_group_env_t *env, gr_member_t *m,
                                 const gr_join_args_t *a, char **old_id, const char *old_leader)
{
    const char *selected = gr_group_select_protocol(g);
    if (!selected || !g->protocol_name || strcmp(selected, g->protocol_name) != 0) {
        maybe_prepare_rebalance(g, env);
        return;
    }
    gr_kerr_t err = env->store_group(env->opaque, g);
    if (err) {
        gr_join_result_t r = {.error = err,
                              .generation = g->generation,
                              .protocol_type = g->protocol_type,
                              .protocol_name = g->protocol_name,
                              .leader_id = old_leader,
                              .member_id = ""};
        /* The old member keeps its place; the caller frees the new id. */
        char *new_id = m->member_id;
        m->member_id = *old_id;
        *old_id = new_id;
        invoke_join(g, env, m, &r);
        return;
    }
    bool leader = g->leader == m;
    bool skip = a->static_leader_skip && leader;
    gr_member_t **all = NULL;
    int32_t n = 0;
    if (skip && (all = malloc(sizeof(*all) * (size_t)g->member_count)))
        for (gr_member_t *x = g->members; x; x = x->next)
            all[n++] = x;
    /* Before v9 the old leader id is returned, so a rejoining leader does
     * not run an assignment the Stable group would ignore. */
    gr_join_result_t r = {.error = GR_KERR_NONE,
                          .generation = g->generation,
                          .protocol_type = g->protocol_type,
                          .protocol_name = g->protocol_name,
                          .leader_id = a->static_leader_skip ? g->leader->member_id : old_leader,
                          .member_id = m->member_id,
                          .skip_assignment = skip,
                          .members = all,
                          .member_count = n};
    invoke_join(g, env, m, &r);
    free(all);
}

static void join_static_known(gr_group_t *g, gr_group_env_t *env, gr_member_t *m,
                              const gr_join_args_t *a, char *new_id, gr_group_waiter_t *w)
{
    char *old_id = m->member_id;
    char *old_leader = strdup(g->leader == m ? old_id : g->leader->member_id);
    /* A previous incarnation still waiting is fenced. */
    gr_join_result_t fenced = {.error = GR_KERR_FENCED_INSTANCE_ID,
                               .generation = -1,
                               .leader_id = "",
                               .member_id = old_id};
    invoke_join(g, env, m, &fenced);
    gr_sync_result_t sync_fenced = {.error = GR_KERR_FENCED_INSTANCE_ID};
    invoke_sync(env, m, &sync_fenced);
    m->member_id = new_id;
    heartbeat_reset(env, m, a->session_timeout_ms);
    update_member(g, env, m, a, w);
    switch (g->state) {
    case GR_GROUP_STABLE:
        rejoin_static_stable(g, env, m, a, &old_id, old_leader ? old_leader : "");
        break;
    case GR_GROUP_COMPLETING_REBALANCE:
        /* The leader may be assigning to the old id: start over. */
        prepare_rebalance(g, env);
        break;
    case GR_GROUP_PREPARING_REBALANCE:
        break;
    default:
        group_remove(g, env, m);
        break;
    }
    free(old_id);
    free(old_leader);
}

static void join_new_member(gr_group_t *g, gr_group_env_t *env, const gr_join_args_t *a,
                            gr_group_waiter_t *w)
{
    if (!gr_group_supports_protocols(g, a->protocol_type, a->protocols, a->protocol_count)) {
        join_error(env, w, GR_KERR_INCONSISTENT_GROUP_PROTOCOL, "");
        return;
    }
    char *id = new_member_id(a->client_id);
    if (!id) {
        join_error(env, w, GR_KERR_UNKNOWN_SERVER_ERROR, "");
        return;
    }
    gr_member_t *old = gr_group_find_static(g, a->instance_id);
    if (old) {
        join_static_known(g, env, old, a, id, w);
    } else if (a->instance_id.len < 0 && a->require_known_member_id) {
        /* v4+: hand out an id first, so a client that never gets this
         * response does not leave a ghost member in the rebalance. */
        gr_pending_member_t *pm = calloc(1, sizeof(*pm));
        if (!pm) {
            free(id);
            join_error(env, w, GR_KERR_UNKNOWN_SERVER_ERROR, "");
            return;
        }
        pm->member_id = id;
        pm->group = g;
        pm->session_timer.kind = GR_GROUP_TIMER_PENDING;
        pm->session_timer.owner = pm;
        pm->next = g->pending;
        g->pending = pm;
        g->pending_count++;
        gr_group_timer_arm(env, &pm->session_timer, a->session_timeout_ms);
        join_error(env, w, GR_KERR_MEMBER_ID_REQUIRED, id);
    } else {
        add_member_and_rebalance(g, env, a, id, w);
    }
}

/* Kafka's validateCurrentMember. */
static gr_kerr_t check_member(const gr_group_t *g, gr_str_t member_id, gr_str_t instance_id)
{
    const gr_member_t *s = gr_group_find_static(g, instance_id);
    if (s && !gr_group_str_is(s->member_id, member_id))
        return GR_KERR_FENCED_INSTANCE_ID;
    if (!gr_group_find_member(g, member_id))
        return GR_KERR_UNKNOWN_MEMBER_ID;
    return GR_KERR_NONE;
}

static void join_known_member(gr_group_t *g, gr_group_env_t *env, const gr_join_args_t *a,
                              gr_group_waiter_t *w)
{
    char id[256];
    snprintf(id, sizeof id, "%.*s", a->member_id.len, a->member_id.ptr);
    if (!gr_group_supports_protocols(g, a->protocol_type, a->protocols, a->protocol_count)) {
        join_error(env, w, GR_KERR_INCONSISTENT_GROUP_PROTOCOL, id);
        return;
    }
    gr_pending_member_t *pm = pending_find(g, a->member_id);
    if (pm) {
        char *mid = strdup(pm->member_id);
        pending_remove(g, env, pm);
        if (!mid) {
            join_error(env, w, GR_KERR_UNKNOWN_SERVER_ERROR, id);
            return;
        }
        add_member_and_rebalance(g, env, a, mid, w);
        return;
    }
    gr_kerr_t err = check_member(g, a->member_id, a->instance_id);
    if (err) {
        join_error(env, w, err, id);
        return;
    }
    gr_member_t *m = gr_group_find_member(g, a->member_id);
    bool same = gr_member_matches(m, a->protocols, a->protocol_count);
    bool answer_current = (g->state == GR_GROUP_COMPLETING_REBALANCE && same) ||
                          (g->state == GR_GROUP_STABLE && same && g->leader != m);
    if (g->state == GR_GROUP_EMPTY || g->state == GR_GROUP_DEAD) {
        join_error(env, w, GR_KERR_UNKNOWN_MEMBER_ID, id);
    } else if (answer_current) {
        /* It missed its join response, or has nothing new: same generation. */
        bool leader = g->leader == m && g->state == GR_GROUP_COMPLETING_REBALANCE;
        gr_member_t **all = leader ? malloc(sizeof(*all) * (size_t)g->member_count) : NULL;
        int32_t n = 0;
        for (gr_member_t *x = g->members; x && all; x = x->next)
            all[n++] = x;
        gr_join_result_t r = {.error = leader && !all ? GR_KERR_UNKNOWN_SERVER_ERROR : GR_KERR_NONE,
                              .generation = g->generation,
                              .protocol_type = g->protocol_type,
                              .protocol_name = g->protocol_name,
                              .leader_id = g->leader->member_id,
                              .member_id = m->member_id,
                              .members = all,
                              .member_count = n};
        env->respond_join(env->opaque, w, &r);
        free(all);
    } else {
        /* A leader's join in Stable forces a rebalance: it may have seen
         * metadata changes that the members' subscriptions do not show. */
        update_member(g, env, m, a, w);
        maybe_prepare_rebalance(g, env);
    }
}

/* Kafka's acceptJoiningMember (group.max.size). */
static bool accept_joining(const gr_group_t *g, const gr_group_env_t *env, gr_str_t member_id)
{
    const gr_member_t *m = gr_group_find_member(g, member_id);
    switch (g->state) {
    case GR_GROUP_PREPARING_REBALANCE:
        return (m && m->awaiting_join) || g->awaiting_join_count < env->limits.max_size;
    case GR_GROUP_COMPLETING_REBALANCE:
    case GR_GROUP_STABLE:
        return m || g->member_count < env->limits.max_size;
    default:
        return true;
    }
}

void gr_group_join(gr_group_t *g, gr_group_env_t *env, const gr_join_args_t *a,
                   gr_group_waiter_t *w)
{
    w->kind = GR_WAIT_JOIN;
    w->member = NULL;
    char id[256];
    snprintf(id, sizeof id, "%.*s", a->member_id.len > 0 ? a->member_id.len : 0,
             a->member_id.len > 0 ? a->member_id.ptr : "");
    if (a->session_timeout_ms < env->limits.min_session_timeout_ms ||
        a->session_timeout_ms > env->limits.max_session_timeout_ms) {
        join_error(env, w, GR_KERR_INVALID_SESSION_TIMEOUT, id);
        return;
    }
    /* An empty consumer group turns classic; one with members takes the joining member as a
     * classic member of the consumer group (cgroup_classic.c). */
    if (g->type == GR_GROUP_TYPE_CONSUMER && g->consumer && !gr_group_become_classic(g, env)) {
        gr_cgroup_classic_join(g, env, a, w);
        return;
    }
    if (g->state == GR_GROUP_DEAD) {
        join_error(env, w, GR_KERR_COORDINATOR_NOT_AVAILABLE, id);
        return;
    }
    if (g->type == GR_GROUP_TYPE_SHARE) { /* Kafka: the id belongs to a group of another kind */
        join_error(env, w, GR_KERR_INCONSISTENT_GROUP_PROTOCOL, "");
        return;
    }
    if (!accept_joining(g, env, a->member_id)) {
        gr_member_t *m = gr_group_find_member(g, a->member_id);
        if (m)
            group_remove(g, env, m);
        join_error(env, w, GR_KERR_GROUP_MAX_SIZE_REACHED, "");
    } else if (a->member_id.len <= 0) {
        join_new_member(g, env, a, w);
    } else {
        join_known_member(g, env, a, w);
    }
    try_complete_join(g, env);
}

/* --- SyncGroup ------------------------------------------------------------ */

static gr_kerr_t check_sync(const gr_group_t *g, const gr_sync_args_t *a)
{
    if (g->state == GR_GROUP_DEAD)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    gr_kerr_t err = check_member(g, a->member_id, a->instance_id);
    if (err)
        return err;
    if (a->generation != g->generation)
        return GR_KERR_ILLEGAL_GENERATION;
    if (a->protocol_type.len >= 0 && !gr_group_str_is(g->protocol_type, a->protocol_type))
        return GR_KERR_INCONSISTENT_GROUP_PROTOCOL;
    if (a->protocol_name.len >= 0 && !gr_group_str_is(g->protocol_name, a->protocol_name))
        return GR_KERR_INCONSISTENT_GROUP_PROTOCOL;
    return GR_KERR_NONE;
}

static void synced(gr_group_t *g, gr_group_env_t *env, gr_member_t *m)
{
    m->pending_sync = false;
    for (gr_member_t *x = g->members; x; x = x->next)
        if (x->pending_sync)
            return;
    gr_group_timer_stop(env, &g->sync_timer);
}

/* The leader's assignment: stored, then handed to every waiting member. */
static void apply_leader_assignment(gr_group_t *g, gr_group_env_t *env, const gr_sync_args_t *a)
{
    gr_kerr_t err = GR_KERR_NONE;
    for (gr_member_t *m = g->members; m && !err; m = m->next) {
        gr_bytes_t given = {NULL, 0};
        for (int32_t i = 0; i < a->assignment_count; i++)
            if (gr_group_str_is(m->member_id, a->assignments[i].member_id))
                given = a->assignments[i].assignment;
        if (gr_member_set_assignment(m, given) < 0)
            err = GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (!err)
        err = env->store_group(env->opaque, g);
    if (err) {
        reset_and_propagate(g, env, err);
        maybe_prepare_rebalance(g, env);
        return;
    }
    set_state(g, env, GR_GROUP_STABLE);
    propagate_assignment(g, env, GR_KERR_NONE);
}

void gr_group_sync(gr_group_t *g, gr_group_env_t *env, const gr_sync_args_t *a,
                   gr_group_waiter_t *w)
{
    w->kind = GR_WAIT_SYNC;
    w->member = NULL;
    if (g->type == GR_GROUP_TYPE_CONSUMER && g->consumer) {
        gr_cgroup_classic_sync(g, env, a, w);
        return;
    }
    gr_kerr_t err = g->type != GR_GROUP_TYPE_CLASSIC ? GR_KERR_UNKNOWN_MEMBER_ID : check_sync(g, a);
    if (!err && g->state == GR_GROUP_EMPTY)
        err = GR_KERR_UNKNOWN_MEMBER_ID;
    if (!err && g->state == GR_GROUP_PREPARING_REBALANCE)
        err = GR_KERR_REBALANCE_IN_PROGRESS;
    if (err) {
        sync_error(env, w, err);
        return;
    }
    gr_member_t *m = gr_group_find_member(g, a->member_id);
    synced(g, env, m);
    if (g->state == GR_GROUP_STABLE) {
        gr_sync_result_t r = {.protocol_type = g->protocol_type,
                              .protocol_name = g->protocol_name,
                              .assignment = m->assignment,
                              .assignment_len = m->assignment_len};
        env->respond_sync(env->opaque, w, &r);
        heartbeat_reset(env, m, m->session_timeout_ms);
        return;
    }
    park_sync(env, m, w);
    if (g->leader == m)
        apply_leader_assignment(g, env, a);
}

/* --- Heartbeat, LeaveGroup, commits ---------------------------------------- */

gr_kerr_t gr_group_heartbeat(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                             gr_str_t instance_id, int32_t generation)
{
    if (g->state == GR_GROUP_DEAD)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    if (g->type == GR_GROUP_TYPE_CONSUMER)
        return g->consumer ? gr_cgroup_classic_heartbeat(g, env, member_id, instance_id, generation)
                           : GR_KERR_UNKNOWN_MEMBER_ID;
    if (g->type == GR_GROUP_TYPE_SHARE)
        return GR_KERR_UNKNOWN_MEMBER_ID;
    gr_kerr_t err = check_member(g, member_id, instance_id);
    if (err)
        return err;
    if (generation != g->generation)
        return GR_KERR_ILLEGAL_GENERATION;
    if (g->state == GR_GROUP_EMPTY)
        return GR_KERR_UNKNOWN_MEMBER_ID;
    gr_member_t *m = gr_group_find_member(g, member_id);
    heartbeat_reset(env, m, m->session_timeout_ms);
    return g->state == GR_GROUP_PREPARING_REBALANCE ? GR_KERR_REBALANCE_IN_PROGRESS : GR_KERR_NONE;
}

static void remove_and_update(gr_group_t *g, gr_group_env_t *env, gr_member_t *m)
{
    group_remove(g, env, m);
    if (g->state == GR_GROUP_STABLE || g->state == GR_GROUP_COMPLETING_REBALANCE)
        maybe_prepare_rebalance(g, env);
    else if (g->state == GR_GROUP_PREPARING_REBALANCE)
        try_complete_join(g, env);
}

gr_kerr_t gr_group_leave(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                         gr_str_t instance_id)
{
    if (g->type == GR_GROUP_TYPE_CONSUMER)
        return g->consumer ? gr_cgroup_classic_leave(g, env, member_id, instance_id)
                           : GR_KERR_UNKNOWN_MEMBER_ID;
    if (g->type == GR_GROUP_TYPE_SHARE)
        return GR_KERR_UNKNOWN_MEMBER_ID;
    if (member_id.len <= 0) {
        /* Administrative removal by instance id. */
        gr_member_t *m = gr_group_find_static(g, instance_id);
        if (!m)
            return GR_KERR_UNKNOWN_MEMBER_ID;
        remove_and_update(g, env, m);
        return GR_KERR_NONE;
    }
    gr_pending_member_t *pm = pending_find(g, member_id);
    if (pm) {
        pending_remove(g, env, pm);
        try_complete_join(g, env);
        return GR_KERR_NONE;
    }
    gr_kerr_t err = check_member(g, member_id, instance_id);
    if (err)
        return err;
    remove_and_update(g, env, gr_group_find_member(g, member_id));
    return GR_KERR_NONE;
}

gr_kerr_t gr_group_check_commit(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                                gr_str_t instance_id, int32_t generation)
{
    if (g->state == GR_GROUP_DEAD)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    if (g->type == GR_GROUP_TYPE_CONSUMER) /* the generation is the member epoch */
        return gr_cgroup_check_commit(g->consumer, member_id, generation);
    if (g->type == GR_GROUP_TYPE_SHARE) /* Kafka: a share group has no offsets to commit */
        return GR_KERR_GROUP_ID_NOT_FOUND;
    if (generation >= 0 || member_id.len > 0 || instance_id.len >= 0) {
        gr_kerr_t err = check_member(g, member_id, instance_id);
        if (err)
            return err;
        if (generation != g->generation)
            return GR_KERR_ILLEGAL_GENERATION;
    } else if (g->state != GR_GROUP_EMPTY) {
        /* Only members commit for a group that has some. */
        return GR_KERR_UNKNOWN_MEMBER_ID;
    }
    if (g->state == GR_GROUP_COMPLETING_REBALANCE)
        return GR_KERR_REBALANCE_IN_PROGRESS;
    if (g->state != GR_GROUP_EMPTY) {
        /* Commits count as heartbeats, also while a rebalance is prepared. */
        gr_member_t *m = gr_group_find_member(g, member_id);
        heartbeat_reset(env, m, m->session_timeout_ms);
    }
    return GR_KERR_NONE;
}

gr_kerr_t gr_group_check_txn_commit(const gr_group_t *g, gr_str_t member_id, gr_str_t instance_id,
                                    int32_t generation)
{
    if (g->state == GR_GROUP_DEAD)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    if (g->type == GR_GROUP_TYPE_SHARE)
        return GR_KERR_GROUP_ID_NOT_FOUND;
    if (g->type == GR_GROUP_TYPE_CONSUMER)
        return generation < 0 && member_id.len <= 0
                   ? GR_KERR_NONE
                   : gr_cgroup_check_commit(g->consumer, member_id, generation);
    if (generation < 0 && g->state == GR_GROUP_EMPTY)
        return GR_KERR_NONE;
    /* A producer that names no member (TxnOffsetCommit v0-2, or a producer
     * outside the group) may commit whatever the group's state. */
    if (generation < 0 && member_id.len <= 0 && instance_id.len < 0)
        return GR_KERR_NONE;
    gr_kerr_t err = check_member(g, member_id, instance_id);
    if (err)
        return err;
    return generation != g->generation ? GR_KERR_ILLEGAL_GENERATION : GR_KERR_NONE;
}

/* --- timers ------------------------------------------------------------------ */

static void session_expired(gr_group_env_t *env, gr_group_timer_t *t)
{
    gr_member_t *m = t->owner;
    gr_group_t *g = m->group;
    /* A member parked in a rebalance is waited for by the rebalance timers
     * instead, unless it is new and its join outlived the new-member timeout. */
    if (!m->is_new && (m->awaiting_join || m->awaiting_sync))
        return;
    remove_and_update(g, env, m);
}

static void pending_expired(gr_group_env_t *env, gr_pending_member_t *pm)
{
    gr_group_t *g = pm->group;
    pending_remove(g, env, pm);
    try_complete_join(g, env);
}

static void join_timer_fired(gr_group_t *g, gr_group_env_t *env)
{
    if (g->initial_delay && g->new_member_added && g->initial_remaining_ms > 0) {
        /* Members keep arriving: extend the delay, within the rebalance timeout. */
        int32_t delay = env->limits.initial_rebalance_delay_ms;
        if (delay > g->initial_remaining_ms)
            delay = g->initial_remaining_ms;
        g->new_member_added = false;
        g->initial_remaining_ms -= delay;
        gr_group_timer_arm(env, &g->join_timer, delay);
        return;
    }
    g->initial_delay = false;
    complete_join(g, env);
}

static void sync_timer_fired(gr_group_t *g, gr_group_env_t *env)
{
    if (g->state != GR_GROUP_COMPLETING_REBALANCE && g->state != GR_GROUP_STABLE)
        return;
    gr_member_t *m = g->members;
    while (m) {
        gr_member_t *next = m->next;
        if (m->pending_sync)
            group_remove(g, env, m);
        m = next;
    }
    maybe_prepare_rebalance(g, env);
}

void gr_group_timer_fired(gr_group_timer_t *t, gr_group_env_t *env)
{
    t->armed = false;
    switch (t->kind) {
    case GR_GROUP_TIMER_SESSION:
        session_expired(env, t);
        break;
    case GR_GROUP_TIMER_PENDING:
        pending_expired(env, t->owner);
        break;
    case GR_GROUP_TIMER_JOIN:
        join_timer_fired(t->owner, env);
        break;
    case GR_GROUP_TIMER_SYNC:
        sync_timer_fired(t->owner, env);
        break;
    case GR_GROUP_TIMER_CONSUMER_SESSION:
    case GR_GROUP_TIMER_CONSUMER_REBALANCE:
    case GR_GROUP_TIMER_CONSUMER_JOIN:
    case GR_GROUP_TIMER_CONSUMER_SYNC:
        gr_cgroup_timer_fired(t, env);
        break;
    case GR_GROUP_TIMER_SHARE_SESSION:
        gr_sgroup_timer_fired(t, env);
        break;
    }
}

/* --- lifecycle -------------------------------------------------------------- */

gr_group_t *gr_group_new(const char *id, size_t id_len, int32_t coordinator_partition,
                         int64_t now_ms)
{
    gr_group_t *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    g->key.id = malloc(id_len + 1);
    if (!g->key.id) {
        free(g);
        return NULL;
    }
    memcpy(g->key.id, id, id_len);
    g->key.id[id_len] = '\0';
    g->key.partition = coordinator_partition;
    g->state = GR_GROUP_EMPTY;
    g->state_timestamp = now_ms;
    g->join_timer.kind = GR_GROUP_TIMER_JOIN;
    g->join_timer.owner = g;
    g->sync_timer.kind = GR_GROUP_TIMER_SYNC;
    g->sync_timer.owner = g;
    return g;
}

static void remove_everyone(gr_group_t *g, gr_group_env_t *env, gr_kerr_t err)
{
    while (g->members) {
        gr_member_t *m = g->members;
        gr_join_result_t jr = {
            .error = err, .generation = -1, .leader_id = "", .member_id = m->member_id};
        invoke_join(g, env, m, &jr);
        gr_sync_result_t sr = {.error = err};
        invoke_sync(env, m, &sr);
        group_remove(g, env, m);
    }
    while (g->pending)
        pending_remove(g, env, g->pending);
    gr_group_timer_stop(env, &g->join_timer);
    gr_group_timer_stop(env, &g->sync_timer);
}

void gr_group_clear(gr_group_t *g, gr_group_env_t *env)
{
    remove_everyone(g, env, GR_KERR_COORDINATOR_NOT_AVAILABLE);
}

void gr_group_remove_all(gr_group_t *g, gr_group_env_t *env, gr_kerr_t err)
{
    remove_everyone(g, env, err);
}

void gr_group_rebalance(gr_group_t *g, gr_group_env_t *env)
{
    maybe_prepare_rebalance(g, env);
}

/* A consumer or share group's members go with it (their next heartbeat finds no group). */
static void drop_consumer_state(gr_group_t *g, gr_group_env_t *env)
{
    gr_cgroup_free(g->consumer, env);
    g->consumer = NULL;
    gr_sgroup_free(g->share, env);
    g->share = NULL;
}

void gr_group_mark_dead(gr_group_t *g, gr_group_env_t *env)
{
    remove_everyone(g, env, GR_KERR_COORDINATOR_NOT_AVAILABLE);
    drop_consumer_state(g, env);
    set_state(g, env, GR_GROUP_DEAD);
}

void gr_group_unload(gr_group_t *g, gr_group_env_t *env)
{
    /* NOT_COORDINATOR sends the members to FindCoordinator, which names the new leader. */
    remove_everyone(g, env, GR_KERR_NOT_COORDINATOR);
    drop_consumer_state(g, env);
    set_state(g, env, GR_GROUP_DEAD);
}

void gr_group_free(gr_group_t *g, gr_group_env_t *env)
{
    if (!g)
        return;
    remove_everyone(g, env, GR_KERR_COORDINATOR_NOT_AVAILABLE);
    drop_consumer_state(g, env);
    gr_group_offsets_free(g);
    gr_group_txn_offsets_free(g);
    gr_group_subscriptions_free(g);
    free(g->protocol_type);
    free(g->protocol_name);
    free(g->key.id);
    free(g);
}

gr_member_t *gr_group_load_member(gr_group_t *g, gr_group_env_t *env, const char *member_id,
                                  const char *instance_id, const char *client_id,
                                  const char *client_host, int32_t session_timeout_ms,
                                  int32_t rebalance_timeout_ms, const char *protocol,
                                  gr_bytes_t subscription, gr_bytes_t assignment)
{
    gr_member_t *m =
        gr_member_new(g, member_id, instance_id ? gr_str(instance_id) : (gr_str_t){NULL, -1},
                      gr_str(client_id), gr_str(client_host));
    gr_join_protocol_t p = {gr_str(protocol ? protocol : ""), subscription};
    if (!m || gr_member_set_protocols(m, &p, protocol ? 1 : 0) < 0 ||
        gr_member_set_assignment(m, assignment) < 0) {
        gr_member_free(m);
        return NULL;
    }
    m->session_timeout_ms = session_timeout_ms;
    m->rebalance_timeout_ms = rebalance_timeout_ms;
    gr_member_t **tail = &g->members;
    while (*tail)
        tail = &(*tail)->next;
    *tail = m;
    g->member_count++;
    heartbeat_reset(env, m, session_timeout_ms);
    return m;
}
