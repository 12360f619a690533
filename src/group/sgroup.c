/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A share group's whole-group work and its members: lifecycle, derived
 * state, the subscribed topics' metadata (whose change bumps the group
 * epoch), the target assignment (sgroup_assignor.c) computed when the
 * group epoch has moved past the assignment epoch, and the session timers
 * that fence silent members. The design is in sgroup.h.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "group/group_int.h"
#include "group/sgroup_int.h"

static const char *const state_names[] = {
    [GR_SGROUP_EMPTY] = "Empty",
    [GR_SGROUP_STABLE] = "Stable",
    [GR_SGROUP_DEAD] = "Dead",
};

const char *gr_sgroup_state_name(gr_sgroup_state_t s)
{
    return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "Unknown";
}

gr_sgroup_t *gr_sgroup_new(gr_group_t *g)
{
    gr_sgroup_t *sg = calloc(1, sizeof(*sg));
    if (!sg)
        return NULL;
    sg->group = g;
    sg->state = GR_SGROUP_EMPTY;
    return sg;
}

void gr_sgroup_free(gr_sgroup_t *sg, gr_group_env_t *env)
{
    if (!sg)
        return;
    while (sg->members) {
        gr_smember_t *m = sg->members;
        sg->members = m->next;
        gr_smember_free(m, env);
    }
    gr_group_topics_free(sg->topics, sg->topic_count);
    gr_assignment_free(&sg->initialized);
    gr_sgroup_stored(sg);
    free(sg);
}

gr_kerr_t gr_group_become_share(gr_group_t *g, gr_group_env_t *env)
{
    if (g->type == GR_GROUP_TYPE_SHARE)
        return GR_KERR_NONE;
    /* Only a group this lookup just made: classic, empty, no offsets, nothing pending. */
    if (g->type != GR_GROUP_TYPE_CLASSIC || g->member_count > 0 || g->pending_count > 0 ||
        g->state != GR_GROUP_EMPTY || g->offset_count > 0 || g->txn_offset_count > 0 ||
        g->protocol_type)
        return GR_KERR_GROUP_ID_NOT_FOUND;
    gr_sgroup_t *sg = gr_sgroup_new(g);
    if (!sg)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    g->type = GR_GROUP_TYPE_SHARE;
    g->share = sg;
    gr_sgroup_update_state(sg, env->now_ms(env->opaque));
    return GR_KERR_NONE;
}

void gr_sgroup_update_state(gr_sgroup_t *sg, int64_t now_ms)
{
    sg->state = sg->member_count == 0 ? GR_SGROUP_EMPTY : GR_SGROUP_STABLE;
    gr_group_state_t coarse = sg->member_count == 0 ? GR_GROUP_EMPTY : GR_GROUP_STABLE;
    if (sg->group->state != coarse) {
        sg->group->state = coarse;
        sg->group->state_timestamp = now_ms;
    }
}

void gr_sgroup_stored(gr_sgroup_t *sg)
{
    for (int32_t i = 0; i < sg->removed_count; i++)
        free(sg->removed[i]);
    free(sg->removed);
    sg->removed = NULL;
    sg->removed_count = 0;
    sg->dirty = false;
}

int gr_sgroup_note_removed(gr_sgroup_t *sg, const char *member_id)
{
    char **grown = realloc(sg->removed, sizeof(*grown) * (size_t)(sg->removed_count + 1));
    if (!grown)
        return -ENOMEM;
    sg->removed = grown;
    if (!(sg->removed[sg->removed_count] = strdup(member_id)))
        return -ENOMEM;
    sg->removed_count++;
    sg->dirty = true;
    return 0;
}

gr_kerr_t gr_sgroup_store(gr_sgroup_t *sg, gr_group_env_t *env, int64_t *written_end)
{
    *written_end = 0;
    if (!sg->dirty)
        return GR_KERR_NONE;
    if (!env->store_share) {
        gr_sgroup_stored(sg);
        return GR_KERR_NONE;
    }
    return env->store_share(env->opaque, sg->group, written_end);
}

void gr_sgroup_set_topics(gr_sgroup_t *sg, gr_group_topic_t *topics, int32_t count)
{
    gr_group_topics_free(sg->topics, sg->topic_count);
    sg->topics = topics;
    sg->topic_count = count;
    sg->metadata_hash = gr_sgroup_topics_hash(topics, count);
}

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

int64_t gr_sgroup_topics_hash(const gr_group_topic_t *topics, int32_t count)
{
    if (count == 0)
        return 0;
    uint64_t h = 14695981039346656037ULL;
    for (int32_t i = 0; i < count; i++) {
        h = fnv(h, topics[i].name, strlen(topics[i].name) + 1);
        h = fnv(h, topics[i].id.b, sizeof topics[i].id.b);
        h = fnv(h, &topics[i].partition_count, sizeof topics[i].partition_count);
    }
    return (int64_t)h;
}

void gr_sgroup_reloaded(gr_sgroup_t *sg, gr_group_env_t *env)
{
    int64_t replayed = sg->metadata_hash;
    (void)gr_sgroup_refresh_topics(sg, env);
    gr_sgroup_stored(sg); /* what was replayed is what the log holds */
    if (sg->metadata_hash != replayed)
        gr_sgroup_bump_epoch(sg); /* topics changed while nobody led the group */
    for (gr_smember_t *m = sg->members; m; m = m->next)
        gr_sgroup_session_timer(m, env);
    gr_sgroup_update_state(sg, env->now_ms(env->opaque));
}

void gr_sgroup_bump_epoch(gr_sgroup_t *sg)
{
    sg->group_epoch++;
    sg->dirty = true;
}

/* --- members ------------------------------------------------------------------- */

gr_smember_t *gr_sgroup_find_member(const gr_sgroup_t *sg, gr_str_t member_id)
{
    for (gr_smember_t *m = sg->members; m; m = m->next)
        if (gr_str_eq_c(member_id, m->member_id))
            return m;
    return NULL;
}

gr_smember_t *gr_smember_new(gr_sgroup_t *sg, gr_str_t member_id)
{
    gr_smember_t *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    if (!(m->member_id = gr_group_strdup(member_id))) {
        free(m);
        return NULL;
    }
    m->group = sg;
    m->session_timer = (gr_group_timer_t){.kind = GR_GROUP_TIMER_SHARE_SESSION, .owner = m};
    return m;
}

void gr_smember_set_subscription(gr_smember_t *m, char **topics, int32_t count)
{
    for (int32_t i = 0; i < m->subscribed_count; i++)
        free(m->subscribed_topics[i]);
    free(m->subscribed_topics);
    m->subscribed_topics = topics;
    m->subscribed_count = count;
}

void gr_smember_free(gr_smember_t *m, gr_group_env_t *env)
{
    if (!m)
        return;
    gr_group_timer_stop(env, &m->session_timer);
    gr_smember_set_subscription(m, NULL, 0);
    gr_assignment_free(&m->assigned);
    gr_assignment_free(&m->target);
    free(m->member_id);
    free(m->rack_id);
    free(m->client_id);
    free(m->client_host);
    free(m);
}

void gr_sgroup_link(gr_sgroup_t *sg, gr_smember_t *m)
{
    gr_smember_t **pp = &sg->members;
    while (*pp)
        pp = &(*pp)->next;
    m->next = NULL;
    *pp = m;
    sg->member_count++;
}

void gr_sgroup_unlink(gr_sgroup_t *sg, gr_smember_t *m)
{
    for (gr_smember_t **pp = &sg->members; *pp; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            sg->member_count--;
            return;
        }
}

static bool subscribes(const gr_smember_t *m, gr_str_t topic)
{
    for (int32_t i = 0; i < m->subscribed_count; i++)
        if (gr_str_eq_c(topic, m->subscribed_topics[i]))
            return true;
    return false;
}

bool gr_sgroup_subscribed_to(const gr_sgroup_t *sg, gr_str_t topic)
{
    for (const gr_smember_t *m = sg->members; m; m = m->next)
        if (subscribes(m, topic))
            return true;
    return false;
}

void gr_sgroup_fence_member(gr_sgroup_t *sg, gr_group_env_t *env, gr_smember_t *m)
{
    (void)gr_sgroup_note_removed(sg, m->member_id); /* -ENOMEM: its records stay behind */
    gr_sgroup_unlink(sg, m);
    gr_smember_free(m, env);
    gr_sgroup_bump_epoch(sg); /* everyone's target moves */
    gr_sgroup_refresh_topics(sg, env);
    gr_sgroup_update_state(sg, env->now_ms(env->opaque));
}

/* --- subscribed topics -------------------------------------------------------- */

/* The existing topics the members subscribe to, sorted by name. 0 or -ENOMEM. */
static int topics_collect(const gr_sgroup_t *sg, gr_group_env_t *env, gr_group_topic_t **out,
                          int32_t *count)
{
    int32_t cap = 0, n = 0;
    for (const gr_smember_t *m = sg->members; m; m = m->next)
        cap += m->subscribed_count;
    gr_group_topic_t *t = calloc((size_t)cap + 1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    for (const gr_smember_t *m = sg->members; m; m = m->next)
        for (int32_t i = 0; i < m->subscribed_count; i++)
            if (gr_group_topics_add(t, &n, env, m->subscribed_topics[i]) < 0) {
                gr_group_topics_free(t, n);
                return -ENOMEM;
            }
    gr_group_topics_sort(t, n);
    *out = t;
    *count = n;
    return 0;
}

bool gr_sgroup_refresh_topics(gr_sgroup_t *sg, gr_group_env_t *env)
{
    gr_group_topic_t *t;
    int32_t n;
    if (topics_collect(sg, env, &t, &n) < 0)
        return false;
    if (gr_group_topics_equal(t, n, sg->topics, sg->topic_count)) {
        gr_group_topics_free(t, n);
        return false;
    }
    gr_sgroup_set_topics(sg, t, n);
    sg->dirty = true;
    return true;
}

/* --- target assignment -------------------------------------------------------- */

static int member_cmp(const void *a, const void *b)
{
    return strcmp((*(gr_smember_t *const *)a)->member_id, (*(gr_smember_t *const *)b)->member_id);
}

/* The assignor's input over the members (by id) and cg->topics; arrays freed by the caller. */
typedef struct assign_work {
    gr_smember_t **members;
    int32_t **subs;
    int32_t *subs_count;
    const gr_assignment_t **current;
    gr_uuid_t *ids;
    int32_t *partitions;
    gr_assignment_t *out;
} assign_work_t;

static void work_free(assign_work_t *w, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        if (w->subs)
            free(w->subs[i]);
        if (w->out)
            gr_assignment_free(&w->out[i]);
    }
    free(w->members);
    free(w->subs);
    free(w->subs_count);
    free(w->current);
    free(w->ids);
    free(w->partitions);
    free(w->out);
}

static int work_build(assign_work_t *w, const gr_sgroup_t *sg)
{
    size_t n = (size_t)sg->member_count + 1, t = (size_t)sg->topic_count + 1;
    *w = (assign_work_t){calloc(n, sizeof(*w->members)),    calloc(n, sizeof(*w->subs)),
                         calloc(n, sizeof(*w->subs_count)), calloc(n, sizeof(*w->current)),
                         calloc(t, sizeof(*w->ids)),        calloc(t, sizeof(*w->partitions)),
                         calloc(n, sizeof(*w->out))};
    if (!w->members || !w->subs || !w->subs_count || !w->current || !w->ids || !w->partitions ||
        !w->out)
        return -ENOMEM;
    int32_t i = 0;
    for (gr_smember_t *m = sg->members; m; m = m->next)
        w->members[i++] = m;
    /* Member-id order: the assignment does not depend on who joined first. */
    qsort(w->members, (size_t)sg->member_count, sizeof(*w->members), member_cmp);
    for (int32_t k = 0; k < sg->topic_count; k++) {
        w->ids[k] = sg->topics[k].id;
        w->partitions[k] = sg->topics[k].partition_count;
    }
    for (i = 0; i < sg->member_count; i++) {
        const gr_smember_t *m = w->members[i];
        w->current[i] = &m->target;
        if (!(w->subs[i] = calloc((size_t)sg->topic_count + 1, sizeof(int32_t))))
            return -ENOMEM;
        for (int32_t k = 0; k < sg->topic_count; k++)
            if (subscribes(m, gr_str(sg->topics[k].name)))
                w->subs[i][w->subs_count[i]++] = k;
    }
    return 0;
}

gr_kerr_t gr_sgroup_update_target(gr_sgroup_t *sg)
{
    assign_work_t w;
    int32_t n = sg->member_count;
    int rc = work_build(&w, sg);
    if (!rc) {
        gr_sgroup_assign_input_t in = {n,
                                       (const int32_t *const *)w.subs,
                                       w.subs_count,
                                       (const gr_assignment_t *const *)w.current,
                                       sg->topic_count,
                                       w.ids,
                                       w.partitions};
        rc = gr_sgroup_assign(&in, w.out);
    }
    for (int32_t i = 0; !rc && i < n; i++)
        rc = gr_assignment_merge(&sg->initialized, &w.out[i]);
    if (!rc)
        for (int32_t i = 0; i < n; i++) {
            gr_assignment_free(&w.members[i]->target);
            w.members[i]->target = w.out[i];
            gr_assignment_init(&w.out[i]);
        }
    work_free(&w, n);
    if (rc)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    sg->assignment_epoch = sg->group_epoch;
    sg->dirty = true;
    return GR_KERR_NONE;
}

/* --- timers ------------------------------------------------------------------- */

void gr_sgroup_session_timer(gr_smember_t *m, gr_group_env_t *env)
{
    gr_group_timer_arm(env, &m->session_timer, env->share_limits.session_timeout_ms);
}

void gr_sgroup_timer_fired(gr_group_timer_t *t, gr_group_env_t *env)
{
    gr_smember_t *m = t->owner;
    gr_sgroup_t *sg = m->group;
    t->armed = false;
    gr_sgroup_fence_member(sg, env, m);
    /* Nobody waits for this write; a failure leaves the group dirty for the next one. */
    int64_t end;
    (void)gr_sgroup_store(sg, env, &end);
}
