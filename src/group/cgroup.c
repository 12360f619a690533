/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A consumer group's whole-group work: its lifecycle, its derived state,
 * the subscribed topics' metadata (whose change bumps the group epoch) and
 * the target assignment the assignor computes when the group epoch has
 * moved past the assignment epoch. The design is in cgroup.h.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "group/assignor.h"
#include "group/cgroup_classic.h"
#include "group/cgroup_int.h"

static const char *const state_names[] = {
    [GR_CGROUP_EMPTY] = "Empty",
    [GR_CGROUP_ASSIGNING] = "Assigning",
    [GR_CGROUP_RECONCILING] = "Reconciling",
    [GR_CGROUP_STABLE] = "Stable",
    [GR_CGROUP_DEAD] = "Dead",
};

const char *gr_cgroup_state_name(gr_cgroup_state_t s)
{
    return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "Unknown";
}

gr_cgroup_t *gr_cgroup_new(gr_group_t *g)
{
    gr_cgroup_t *cg = calloc(1, sizeof(*cg));
    if (!cg)
        return NULL;
    cg->group = g;
    cg->state = GR_CGROUP_EMPTY;
    return cg;
}

void gr_cgroup_free(gr_cgroup_t *cg, gr_group_env_t *env)
{
    if (!cg)
        return;
    while (cg->members) {
        gr_cmember_t *m = cg->members;
        cg->members = m->next;
        gr_cmember_free(m, env);
    }
    gr_group_topics_free(cg->topics, cg->topic_count);
    gr_cgroup_stored(cg);
    gr_cgroup_regexes_free(&cg->regexes);
    free(cg->assignor);
    free(cg);
}

void gr_cgroup_stored(gr_cgroup_t *cg)
{
    for (int32_t i = 0; i < cg->removed_count; i++)
        free(cg->removed[i]);
    free(cg->removed);
    cg->removed = NULL;
    cg->removed_count = 0;
    gr_cgroup_regexes_stored(&cg->regexes);
    cg->dirty = false;
}

int gr_cgroup_note_removed(gr_cgroup_t *cg, const char *member_id)
{
    char **grown = realloc(cg->removed, sizeof(*grown) * (size_t)(cg->removed_count + 1));
    if (!grown)
        return -ENOMEM;
    cg->removed = grown;
    if (!(cg->removed[cg->removed_count] = strdup(member_id)))
        return -ENOMEM;
    cg->removed_count++;
    cg->dirty = true;
    return 0;
}

gr_kerr_t gr_cgroup_store(gr_cgroup_t *cg, gr_group_env_t *env, int64_t *written_end)
{
    *written_end = 0;
    if (!cg->dirty)
        return GR_KERR_NONE;
    if (!env->store_consumer) {
        gr_cgroup_stored(cg);
        return GR_KERR_NONE;
    }
    return env->store_consumer(env->opaque, cg->group, written_end);
}

void gr_cgroup_set_topics(gr_cgroup_t *cg, gr_group_topic_t *topics, int32_t count)
{
    gr_group_topics_free(cg->topics, cg->topic_count);
    cg->topics = topics;
    cg->topic_count = count;
}

gr_kerr_t gr_group_become_consumer(gr_group_t *g, gr_group_env_t *env)
{
    if (g->type == GR_GROUP_TYPE_CONSUMER)
        return GR_KERR_NONE;
    if (g->type == GR_GROUP_TYPE_SHARE) /* never converts */
        return GR_KERR_GROUP_ID_NOT_FOUND;
    if (g->member_count > 0)
        return gr_cgroup_migrate_upgrade(g, env); /* online upgrade (cgroup_migrate.c) */
    if (g->pending_count > 0 || g->state != GR_GROUP_EMPTY)
        return GR_KERR_GROUP_ID_NOT_FOUND;
    gr_cgroup_t *cg = gr_cgroup_new(g);
    if (!cg)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    /* What the classic group knew of its last generation goes with it. */
    free(g->protocol_type);
    free(g->protocol_name);
    g->protocol_type = g->protocol_name = NULL;
    g->generation = 0;
    gr_group_subscriptions_free(g);
    g->type = GR_GROUP_TYPE_CONSUMER;
    g->consumer = cg;
    gr_cgroup_update_state(cg, env->now_ms(env->opaque));
    return GR_KERR_NONE;
}

bool gr_group_become_classic(gr_group_t *g, gr_group_env_t *env)
{
    if (g->type == GR_GROUP_TYPE_CLASSIC)
        return true;
    if (g->type == GR_GROUP_TYPE_SHARE || (g->consumer && g->consumer->member_count > 0))
        return false;
    gr_cgroup_free(g->consumer, env);
    g->consumer = NULL;
    g->type = GR_GROUP_TYPE_CLASSIC;
    g->state = GR_GROUP_EMPTY;
    return true;
}

void gr_cgroup_bump_epoch(gr_cgroup_t *cg)
{
    cg->group_epoch++;
    cg->dirty = true;
}

void gr_cgroup_update_state(gr_cgroup_t *cg, int64_t now_ms)
{
    gr_cgroup_state_t s = GR_CGROUP_STABLE;
    if (cg->member_count == 0)
        s = GR_CGROUP_EMPTY;
    else if (cg->group_epoch > cg->assignment_epoch)
        s = GR_CGROUP_ASSIGNING;
    else
        for (const gr_cmember_t *m = cg->members; m; m = m->next)
            if (m->state != GR_CMEMBER_STABLE || m->member_epoch != cg->assignment_epoch) {
                s = GR_CGROUP_RECONCILING;
                break;
            }
    cg->state = s;
    /* The classic view, for retention and the admin APIs' Empty checks. */
    gr_group_state_t coarse = s == GR_CGROUP_EMPTY ? GR_GROUP_EMPTY : GR_GROUP_STABLE;
    if (cg->group->state != coarse) {
        cg->group->state = coarse;
        cg->group->state_timestamp = now_ms;
    }
}

/* --- subscribed topics -------------------------------------------------------- */

typedef struct topics_acc {
    gr_group_env_t *env;
    gr_group_topic_t *t;
    int32_t n;
    int error;
} topics_acc_t;

/* gr_cmember_foreach_topic's fn: adds a subscribed topic once, if it exists. */
static void collect_topic(void *arg, const char *name)
{
    topics_acc_t *acc = arg;
    if (!acc->error)
        acc->error = gr_group_topics_add(acc->t, &acc->n, acc->env, name);
}

/* The existing topics the members subscribe to (names and regexes), sorted by name. 0 or -ENOMEM.
 */
static int topics_collect(const gr_cgroup_t *cg, gr_group_env_t *env, gr_group_topic_t **out,
                          int32_t *count)
{
    int32_t cap = 0;
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        cap += gr_cmember_subscription_size(cg, m);
    topics_acc_t acc = {.env = env, .t = calloc((size_t)cap + 1, sizeof(gr_group_topic_t))};
    if (!acc.t)
        return -ENOMEM;
    for (const gr_cmember_t *m = cg->members; m && !acc.error; m = m->next)
        gr_cmember_foreach_topic(cg, m, collect_topic, &acc);
    if (acc.error) {
        gr_group_topics_free(acc.t, acc.n);
        return -ENOMEM;
    }
    gr_group_topics_sort(acc.t, acc.n);
    *out = acc.t;
    *count = acc.n;
    return 0;
}

bool gr_cgroup_refresh_topics(gr_cgroup_t *cg, gr_group_env_t *env)
{
    gr_group_topic_t *t;
    int32_t n;
    if (topics_collect(cg, env, &t, &n) < 0)
        return false;
    if (gr_group_topics_equal(t, n, cg->topics, cg->topic_count)) {
        gr_group_topics_free(t, n);
        return false;
    }
    gr_cgroup_set_topics(cg, t, n);
    cg->dirty = true;
    return true;
}

/* --- target assignment -------------------------------------------------------- */

/*
 * Kafka's preferred server assignor: the one most members ask for, the
 * default (first configured) when none asks; ties go to the configured
 * order.
 */
static const char *choose_assignor(const gr_cgroup_t *cg, const gr_cgroup_limits_t *l)
{
    int32_t best = 0, best_votes = 0;
    for (int32_t i = 0; i < l->assignor_count; i++) {
        int32_t votes = 0;
        for (const gr_cmember_t *m = cg->members; m; m = m->next)
            if (m->server_assignor && strcmp(m->server_assignor, l->assignors[i]) == 0)
                votes++;
        if (votes > best_votes) {
            best = i;
            best_votes = votes;
        }
    }
    return l->assignor_count > 0 ? l->assignors[best] : GR_ASSIGNOR_UNIFORM;
}

static int member_cmp(const void *a, const void *b)
{
    return strcmp(((const gr_assignor_member_t *)a)->member_id,
                  ((const gr_assignor_member_t *)b)->member_id);
}

/* Fills in[] with the members' subscriptions as topic ids of cg->topics. 0 or -ENOMEM. */
static int assignor_members(const gr_cgroup_t *cg, gr_assignor_member_t *in, gr_uuid_t *ids)
{
    int32_t i = 0;
    for (const gr_cmember_t *m = cg->members; m; m = m->next, i++) {
        in[i] = (gr_assignor_member_t){.member_id = m->member_id,
                                       .instance_id = m->instance_id,
                                       .rack = m->rack_id,
                                       .topics = ids,
                                       .current = &m->target};
        for (int32_t t = 0; t < cg->topic_count; t++)
            if (gr_cmember_subscribes(cg, m, gr_str(cg->topics[t].name)))
                ids[in[i].topic_count++] = cg->topics[t].id;
        ids += in[i].topic_count;
    }
    return 0;
}

/* Moves each out[i] to the member named by in[i] (in[] was sorted). */
static void assign_targets(gr_cgroup_t *cg, const gr_assignor_member_t *in, gr_assignment_t *out)
{
    for (int32_t i = 0; i < cg->member_count; i++) {
        gr_cmember_t *m = gr_cgroup_find_member(cg, gr_str(in[i].member_id));
        if (!m) /* cannot happen: in[] was built from the members */
            continue;
        gr_assignment_free(&m->target);
        m->target = out[i];
        gr_assignment_init(&out[i]);
    }
}

gr_kerr_t gr_cgroup_update_target(gr_cgroup_t *cg, gr_group_env_t *env)
{
    const char *name = choose_assignor(cg, &env->consumer_limits);
    const gr_assignor_t *assignor = gr_assignor_find(gr_str(name));
    int32_t n = cg->member_count, subs = 0;
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        subs += gr_cmember_subscription_size(cg, m);
    gr_assignor_member_t *in = calloc((size_t)n + 1, sizeof(*in));
    gr_uuid_t *ids = calloc((size_t)subs + 1, sizeof(*ids));
    gr_assignor_topic_t *topics = calloc((size_t)cg->topic_count + 1, sizeof(*topics));
    gr_assignment_t *out = calloc((size_t)n + 1, sizeof(*out));
    char *assignor_name = strdup(name);
    gr_cgroup_racks_t racks = {0};
    gr_kerr_t err = GR_KERR_UNKNOWN_SERVER_ERROR;
    if (!assignor || !in || !ids || !topics || !out || !assignor_name)
        goto fail;
    assignor_members(cg, in, ids);
    qsort(in, (size_t)n, sizeof(*in), member_cmp);
    for (int32_t t = 0; t < cg->topic_count; t++)
        topics[t] = (gr_assignor_topic_t){.id = cg->topics[t].id,
                                          .name = cg->topics[t].name,
                                          .partition_count = cg->topics[t].partition_count};
    for (int32_t i = 0; i < n; i++)
        gr_assignment_init(&out[i]);
    if (gr_cgroup_racks_gather(&racks, cg, env, topics) < 0)
        goto fail;
    gr_assignor_input_t input = {in, n, topics, cg->topic_count};
    if (assignor->assign(&input, out) < 0)
        goto fail;
    assign_targets(cg, in, out);
    free(cg->assignor);
    cg->assignor = assignor_name;
    assignor_name = NULL;
    cg->assignment_epoch = cg->group_epoch;
    cg->dirty = true;
    err = GR_KERR_NONE;
fail:
    for (int32_t i = 0; out && i < n; i++)
        gr_assignment_free(&out[i]);
    free(out);
    gr_cgroup_racks_free(&racks);
    free(topics);
    free(ids);
    free(in);
    free(assignor_name);
    return err;
}

/* --- timers ------------------------------------------------------------------- */

void gr_cgroup_session_timer(gr_cmember_t *m, gr_group_env_t *env)
{
    gr_group_timer_arm(env, &m->session_timer, gr_cmember_session_timeout(m, env));
}

void gr_cgroup_rebalance_timer(gr_cmember_t *m, gr_group_env_t *env)
{
    if (m->state == GR_CMEMBER_UNREVOKED_PARTITIONS) {
        /* Armed once per epoch: a member revoking at the same epoch keeps its deadline. */
        if (m->rebalance_timer.armed && m->rebalance_epoch == m->member_epoch)
            return;
        m->rebalance_epoch = m->member_epoch;
        gr_group_timer_arm(env, &m->rebalance_timer, m->rebalance_timeout_ms);
    } else {
        gr_group_timer_stop(env, &m->rebalance_timer);
    }
}

void gr_cgroup_timer_fired(gr_group_timer_t *t, gr_group_env_t *env)
{
    gr_cmember_t *m = t->owner;
    gr_cgroup_t *cg = m->group;
    t->armed = false;
    /* A rebalance timer of an epoch the member has left behind is stale. */
    if (t->kind == GR_GROUP_TIMER_CONSUMER_REBALANCE && m->member_epoch != m->rebalance_epoch)
        return;
    if (gr_cgroup_fence_member(cg, env, m))
        return; /* the group turned classic (cgroup_migrate.c) */
    /* Nobody waits for this write; a failure leaves the group dirty for the next one. */
    int64_t end;
    (void)gr_cgroup_store(cg, env, &end);
}
