/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JoinGroup, SyncGroup, Heartbeat and LeaveGroup from classic members of a
 * consumer group (Kafka's classicGroup*ToConsumerGroup). The design is in
 * cgroup_classic.h: a classic member reconciles through the same rules as
 * a member using ConsumerGroupHeartbeat (gr_cgroup_reconcile), one step
 * per JoinGroup, and is told to rejoin through Heartbeat and SyncGroup's
 * REBALANCE_IN_PROGRESS.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "group/cgroup_classic.h"
#include "group/cgroup_int.h"

#define MEMBER_ID_LEN 22 /* Kafka's Uuid.toString: 16 bytes in URL-safe base64, unpadded */

/* --- the member's classic data --------------------------------------------------- */

static void protocols_free(gr_cmember_classic_t *c)
{
    for (int32_t i = 0; i < c->protocol_count; i++) {
        free(c->protocols[i].name);
        free(c->protocols[i].metadata);
    }
    free(c->protocols);
    c->protocols = NULL;
    c->protocol_count = 0;
}

void gr_cmember_classic_free(gr_cmember_t *m, gr_group_env_t *env)
{
    gr_cmember_classic_t *c = m->classic;
    if (!c)
        return;
    gr_group_timer_stop(env, &c->join_timer);
    gr_group_timer_stop(env, &c->sync_timer);
    protocols_free(c);
    free(c);
    m->classic = NULL;
}

int32_t gr_cmember_session_timeout(const gr_cmember_t *m, const gr_group_env_t *env)
{
    return m->classic ? m->classic->session_timeout_ms : env->consumer_limits.session_timeout_ms;
}

bool gr_cgroup_is_classic_member(const gr_cgroup_t *cg, gr_str_t member_id)
{
    const gr_cmember_t *m = gr_cgroup_find_member(cg, member_id);
    return m && m->classic;
}

static gr_cmember_classic_t *classic_new(gr_cmember_t *m)
{
    gr_cmember_classic_t *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->join_timer = (gr_group_timer_t){.kind = GR_GROUP_TIMER_CONSUMER_JOIN, .owner = m};
    c->sync_timer = (gr_group_timer_t){.kind = GR_GROUP_TIMER_CONSUMER_SYNC, .owner = m};
    m->classic = c;
    return c;
}

static int classic_set_protocols(gr_cmember_classic_t *c, const gr_join_protocol_t *in,
                                 int32_t count)
{
    gr_group_protocol_t *p = calloc((size_t)count + 1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    int32_t n = 0;
    for (; n < count; n++) {
        int32_t len = in[n].metadata.len > 0 ? in[n].metadata.len : 0;
        p[n].name = gr_group_strdup(in[n].name);
        p[n].metadata = malloc(len ? (size_t)len : 1);
        if (!p[n].name || !p[n].metadata) {
            free(p[n].name);
            free(p[n].metadata);
            break;
        }
        if (len)
            memcpy(p[n].metadata, in[n].metadata.ptr, (size_t)len);
        p[n].metadata_len = len;
    }
    protocols_free(c);
    c->protocols = p;
    c->protocol_count = n;
    return n == count ? 0 : -ENOMEM;
}

int gr_cmember_classic_set(gr_cmember_t *m, int32_t session_timeout_ms,
                           const gr_join_protocol_t *protocols, int32_t count)
{
    if (!m->classic && !classic_new(m))
        return -ENOMEM;
    m->classic->session_timeout_ms = session_timeout_ms;
    return classic_set_protocols(m->classic, protocols, count);
}

/* --- finding the member ---------------------------------------------------------- */

/* Kafka's validateConsumerGroupMember and throwIfMemberDoesNotUseClassicProtocol. */
static gr_cmember_t *find_classic(const gr_cgroup_t *cg, gr_str_t member_id, gr_str_t instance_id,
                                  gr_kerr_t *err)
{
    gr_cmember_t *m = instance_id.len < 0 ? gr_cgroup_find_member(cg, member_id)
                                          : gr_cgroup_find_static(cg, instance_id);
    *err = GR_KERR_UNKNOWN_MEMBER_ID;
    if (!m)
        return NULL;
    if (instance_id.len >= 0 && member_id.len > 0 && !gr_str_eq_c(member_id, m->member_id)) {
        *err = GR_KERR_FENCED_INSTANCE_ID;
        return NULL;
    }
    if (!m->classic)
        return NULL;
    *err = GR_KERR_NONE;
    return m;
}

/* Must the member rejoin (Kafka's classicGroupHeartbeatToConsumerGroup)? */
static bool waiting_on_unreleased(const gr_cgroup_t *cg, const gr_cmember_t *m)
{
    for (int32_t t = 0; t < m->target.topic_count; t++) {
        const gr_assignment_topic_t *topic = &m->target.topics[t];
        for (int32_t i = 0; i < topic->partition_count; i++)
            if (!gr_assignment_contains(&m->assigned, topic->topic_id, topic->partitions[i]) &&
                gr_cgroup_partition_epoch(cg, topic->topic_id, topic->partitions[i]) != -1)
                return true;
    }
    return false;
}

/* The member is told to rejoin: it has its rebalance timeout to do so. */
static void expect_rejoin(gr_cmember_t *m, gr_group_env_t *env)
{
    if (!m->classic->join_timer.armed)
        gr_group_timer_arm(env, &m->classic->join_timer, m->rebalance_timeout_ms);
}

/* --- JoinGroup ----------------------------------------------------------------------- */

static void join_answer(gr_group_env_t *env, gr_group_waiter_t *w, gr_kerr_t err,
                        const char *member_id, int32_t generation, const char *protocol)
{
    gr_join_result_t r = {.error = err,
                          .generation = err ? -1 : generation,
                          .protocol_type = err ? NULL : GR_GROUP_CONSUMER_PROTOCOL_TYPE,
                          .protocol_name = err ? NULL : protocol,
                          .leader_id = "",
                          .member_id = member_id};
    env->respond_join(env->opaque, w, &r);
}

static int new_member_id(char *buf /* MEMBER_ID_LEN + 1 bytes at least */)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    uint8_t u[16];
    if (getrandom(u, sizeof u, 0) != (ssize_t)sizeof u)
        return -1;
    uint32_t bits = 0;
    int have = 0, o = 0;
    for (int i = 0; i < 16; i++) {
        bits = bits << 8 | u[i];
        for (have += 8; have >= 6; have -= 6)
            buf[o++] = alphabet[(bits >> (have - 6)) & 63];
    }
    buf[o++] = alphabet[(bits << (6 - have)) & 63];
    buf[o] = '\0';
    return 0;
}

/* Kafka's ConsumerGroup.supportsClassicProtocols. */
static bool protocols_supported(const gr_cgroup_t *cg, const gr_join_args_t *a)
{
    if (!gr_str_eq_c(a->protocol_type, GR_GROUP_CONSUMER_PROTOCOL_TYPE) || a->protocol_count <= 0)
        return false;
    for (int32_t i = 0; i < a->protocol_count; i++) {
        bool everyone = true;
        for (const gr_cmember_t *m = cg->members; m && everyone; m = m->next) {
            if (!m->classic)
                continue;
            bool has = false;
            for (int32_t k = 0; k < m->classic->protocol_count && !has; k++)
                has = gr_str_eq_c(a->protocols[i].name, m->classic->protocols[k].name);
            everyone = has;
        }
        if (everyone)
            return true;
    }
    return false;
}

/* A new classic member (linked, epoch 0, session timer running). NULL on -ENOMEM. */
static gr_cmember_t *member_add(gr_cgroup_t *cg, gr_group_env_t *env, gr_str_t member_id)
{
    gr_cmember_t *m = gr_cmember_new(cg, member_id);
    if (!m)
        return NULL;
    if (!classic_new(m)) {
        gr_cmember_free(m, env);
        return NULL;
    }
    gr_cgroup_link(cg, m);
    return m;
}

/*
 * A static member rejoining with a new member id takes its predecessor's
 * place and assignment at epoch 0 (Kafka's replacement, whichever protocol
 * the predecessor used); the predecessor goes without a rebalance.
 */
static gr_cmember_t *member_replace(gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *old,
                                    gr_str_t member_id)
{
    gr_cmember_t *m = member_add(cg, env, member_id);
    if (!m)
        return NULL;
    m->member_epoch = m->previous_epoch = 0;
    m->state = old->state;
    m->rebalance_timeout_ms = old->rebalance_timeout_ms;
    if (gr_assignment_copy(&m->assigned, &old->assigned) < 0 ||
        gr_assignment_copy(&m->pending_revocation, &old->pending_revocation) < 0 ||
        gr_assignment_copy(&m->target, &old->target) < 0) {
        gr_cgroup_unlink(cg, m);
        gr_cmember_free(m, env);
        return NULL;
    }
    /* Its subscription goes with it, so an unchanged one moves no epoch. */
    gr_cmember_set_subscription(m, old->subscribed_topics, old->subscribed_count);
    old->subscribed_topics = NULL;
    old->subscribed_count = 0;
    (void)gr_cgroup_note_removed(cg, old->member_id); /* -ENOMEM: its records stay behind */
    gr_cgroup_unlink(cg, old);
    gr_cmember_free(old, env);
    return m;
}

/* Kafka's getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember for a classic join. */
static gr_cmember_t *join_member(gr_cgroup_t *cg, gr_group_env_t *env, const gr_join_args_t *a,
                                 gr_str_t member_id, bool unknown, bool *bump,
                                 bool *replaced_consumer, gr_kerr_t *err)
{
    *err = GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_cmember_t *m;
    if (a->instance_id.len < 0) {
        /* A member known under that id now speaks the classic protocol, as in Kafka. */
        m = gr_cgroup_find_member(cg, member_id);
        if (m && !m->classic && !classic_new(m))
            return NULL;
    } else {
        gr_cmember_t *old = gr_cgroup_find_static(cg, a->instance_id);
        if (old && unknown) {
            *replaced_consumer = !old->classic;
            return member_replace(cg, env, old, member_id);
        }
        if (!old && !unknown) {
            *err = GR_KERR_UNKNOWN_MEMBER_ID;
            return NULL;
        }
        if (old && !gr_str_eq_c(member_id, old->member_id)) {
            *err = GR_KERR_FENCED_INSTANCE_ID;
            return NULL;
        }
        m = old;
    }
    if (!m && (m = member_add(cg, env, member_id)))
        *bump = true;
    return m;
}

static bool same_topics(const gr_cmember_t *m, char **topics, int32_t count)
{
    if (m->subscribed_count != count)
        return false;
    for (int32_t i = 0; i < count; i++)
        if (strcmp(m->subscribed_topics[i], topics[i]) != 0)
            return false;
    return true;
}

static int set_field(char **field, gr_str_t v)
{
    if (v.len < 0 || gr_group_str_is(*field, v))
        return 0;
    char *c = gr_group_strdup(v);
    if (!c)
        return -ENOMEM;
    free(*field);
    *field = c;
    return 0;
}

/* The JoinGroup's fields and subscription onto m; *bump when the subscription changed. */
static int join_update(gr_cmember_t *m, gr_group_env_t *env, const gr_join_args_t *a,
                       gr_assignment_t *owned, bool *bump)
{
    char **topics, *rack;
    int32_t count;
    int rc =
        gr_cgroup_decode_subscription(env, a->protocols[0].metadata, &topics, &count, &rack, owned);
    if (rc < 0)
        return rc;
    if (rack) {
        free(m->rack_id);
        m->rack_id = rack;
    }
    if (same_topics(m, topics, count)) {
        for (int32_t i = 0; i < count; i++)
            free(topics[i]);
        free(topics);
    } else {
        gr_cmember_set_subscription(m, topics, count);
        *bump = true;
    }
    m->rebalance_timeout_ms = a->rebalance_timeout_ms;
    m->classic->session_timeout_ms = a->session_timeout_ms;
    if (set_field(&m->instance_id, a->instance_id) < 0 ||
        set_field(&m->client_id, a->client_id) < 0 ||
        set_field(&m->client_host, a->client_host) < 0)
        return -ENOMEM;
    return classic_set_protocols(m->classic, a->protocols, a->protocol_count);
}

/* Epochs, target and one reconciliation step, as a heartbeat does. */
static gr_kerr_t join_advance(gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *m, bool bump,
                              const gr_assignment_t *owned)
{
    if (gr_cgroup_refresh_topics(cg, env))
        bump = true;
    if (bump)
        gr_cgroup_bump_epoch(cg);
    if (cg->group_epoch > cg->assignment_epoch && gr_cgroup_update_target(cg, env))
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    return gr_cgroup_reconcile(cg, m, cg->assignment_epoch, &m->target, owned);
}

/*
 * The member joined: its timers, and the answer (no leader, generation =
 * its epoch, its first protocol). If it replaced the last member using the
 * consumer protocol, the group turns classic first.
 */
static void join_done(gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *m,
                      const gr_join_args_t *a, bool replaced_consumer, gr_group_waiter_t *w)
{
    gr_group_timer_stop(env, &m->classic->join_timer);
    gr_cgroup_session_timer(m, env);
    gr_group_timer_arm(env, &m->classic->sync_timer, a->rebalance_timeout_ms);
    gr_cgroup_update_state(cg, env->now_ms(env->opaque));
    char *id = strdup(m->member_id), *protocol = strdup(m->classic->protocols[0].name);
    int32_t epoch = m->member_epoch;
    if (!id || !protocol) {
        join_answer(env, w, GR_KERR_UNKNOWN_SERVER_ERROR, m->member_id, 0, NULL);
    } else {
        if (replaced_consumer) /* may free m and cg: the answer uses the copies */
            (void)gr_cgroup_migrate_downgrade_replaced(cg, env);
        join_answer(env, w, GR_KERR_NONE, id, epoch, protocol);
    }
    free(id);
    free(protocol);
}

void gr_cgroup_classic_join(gr_group_t *g, gr_group_env_t *env, const gr_join_args_t *a,
                            gr_group_waiter_t *w)
{
    gr_cgroup_t *cg = g->consumer;
    char id[MEMBER_ID_LEN + 1];
    bool unknown = a->member_id.len <= 0;
    gr_str_t member_id = a->member_id;
    if (unknown) {
        if (new_member_id(id) < 0)
            return join_answer(env, w, GR_KERR_UNKNOWN_SERVER_ERROR, "", 0, NULL);
        member_id = gr_str(id);
    }
    char *echo = gr_group_strdup(member_id); /* the answer's member id, NUL-terminated */
    gr_kerr_t err = echo ? GR_KERR_NONE : GR_KERR_UNKNOWN_SERVER_ERROR;
    if (!err && !gr_cgroup_find_member(cg, member_id) &&
        cg->member_count >= env->consumer_limits.max_size)
        err = GR_KERR_GROUP_MAX_SIZE_REACHED;
    else if (!err && !protocols_supported(cg, a))
        err = GR_KERR_INCONSISTENT_GROUP_PROTOCOL;
    else if (!err && unknown && a->instance_id.len < 0 && a->require_known_member_id)
        err = GR_KERR_MEMBER_ID_REQUIRED; /* KIP-394: the id is handed out, nothing kept */
    bool bump = false, replaced_consumer = false;
    gr_cmember_t *m =
        err ? NULL : join_member(cg, env, a, member_id, unknown, &bump, &replaced_consumer, &err);
    bool created = bump;
    gr_assignment_t owned = GR_ASSIGNMENT_INIT;
    if (m) {
        int rc = join_update(m, env, a, &owned, &bump);
        err = rc == -EBADMSG ? GR_KERR_INCONSISTENT_GROUP_PROTOCOL
              : rc < 0       ? GR_KERR_UNKNOWN_SERVER_ERROR
                             : join_advance(cg, env, m, bump, &owned);
    }
    gr_assignment_free(&owned);
    if (m && !err) {
        int64_t end;
        gr_cgroup_touch(cg);
        err = gr_cgroup_store(cg, env, &end);
    }
    if (m && !err) {
        join_done(cg, env, m, a, replaced_consumer, w);
    } else {
        if (m && created) /* a new member that could not join leaves no trace */
            gr_cgroup_fence_member(cg, env, m);
        join_answer(env, w, err, echo ? echo : "", 0, NULL);
    }
    free(echo);
}

/* --- SyncGroup, Heartbeat, LeaveGroup ------------------------------------------------ */

static void sync_answer(gr_group_env_t *env, gr_group_waiter_t *w, gr_kerr_t err,
                        const char *protocol, const uint8_t *bytes, int32_t len)
{
    gr_sync_result_t r = {.error = err,
                          .protocol_type = err ? NULL : GR_GROUP_CONSUMER_PROTOCOL_TYPE,
                          .protocol_name = err ? NULL : protocol,
                          .assignment = bytes,
                          .assignment_len = len};
    env->respond_sync(env->opaque, w, &r);
}

/* Kafka's checks of a classic SyncGroup on a consumer group. */
static gr_kerr_t sync_check(const gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *m,
                            const gr_sync_args_t *a)
{
    if (a->generation != m->member_epoch)
        return GR_KERR_ILLEGAL_GENERATION;
    if ((a->protocol_type.len >= 0 &&
         !gr_str_eq_c(a->protocol_type, GR_GROUP_CONSUMER_PROTOCOL_TYPE)) ||
        (a->protocol_name.len >= 0 &&
         !gr_str_eq_c(a->protocol_name, m->classic->protocols[0].name)))
        return GR_KERR_INCONSISTENT_GROUP_PROTOCOL;
    /* Behind the group epoch it rejoins first, unless it still owes a revocation. */
    if (cg->group_epoch > m->member_epoch && m->state != GR_CMEMBER_UNREVOKED_PARTITIONS) {
        expect_rejoin(m, env);
        return GR_KERR_REBALANCE_IN_PROGRESS;
    }
    return GR_KERR_NONE;
}

void gr_cgroup_classic_sync(gr_group_t *g, gr_group_env_t *env, const gr_sync_args_t *a,
                            gr_group_waiter_t *w)
{
    gr_cgroup_t *cg = g->consumer;
    gr_kerr_t err;
    gr_cmember_t *m = find_classic(cg, a->member_id, a->instance_id, &err);
    if (m)
        err = sync_check(cg, env, m, a);
    if (err)
        return sync_answer(env, w, err, NULL, NULL, 0);
    const gr_group_protocol_t *p = &m->classic->protocols[0];
    uint8_t *bytes;
    int32_t len;
    if (gr_cgroup_encode_assignment(cg, &m->assigned, (gr_bytes_t){p->metadata, p->metadata_len},
                                    &bytes, &len) < 0)
        return sync_answer(env, w, GR_KERR_UNKNOWN_SERVER_ERROR, NULL, NULL, 0);
    gr_group_timer_stop(env, &m->classic->sync_timer);
    gr_cgroup_session_timer(m, env);
    sync_answer(env, w, GR_KERR_NONE, p->name, bytes, len);
    free(bytes);
}

gr_kerr_t gr_cgroup_classic_heartbeat(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                                      gr_str_t instance_id, int32_t generation)
{
    gr_cgroup_t *cg = g->consumer;
    gr_kerr_t err;
    gr_cmember_t *m = find_classic(cg, member_id, instance_id, &err);
    if (!m)
        return err;
    if (generation != m->member_epoch)
        return GR_KERR_ILLEGAL_GENERATION;
    gr_cgroup_session_timer(m, env);
    if (m->member_epoch < cg->group_epoch || m->state == GR_CMEMBER_UNREVOKED_PARTITIONS ||
        (m->state == GR_CMEMBER_UNRELEASED_PARTITIONS && !waiting_on_unreleased(cg, m))) {
        expect_rejoin(m, env);
        return GR_KERR_REBALANCE_IN_PROGRESS;
    }
    return GR_KERR_NONE;
}

gr_kerr_t gr_cgroup_classic_leave(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                                  gr_str_t instance_id)
{
    gr_cgroup_t *cg = g->consumer;
    gr_kerr_t err;
    gr_cmember_t *m = find_classic(cg, member_id, instance_id, &err);
    if (!m)
        return err;
    gr_cgroup_fence_member(cg, env, m); /* a classic member's leave never downgrades */
    int64_t end;
    return gr_cgroup_store(cg, env, &end);
}
