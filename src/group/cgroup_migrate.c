/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The online migration of a group between the classic protocol and the
 * consumer protocol (KIP-848), as Kafka 4.x does it, and the
 * ConsumerProtocol codec both directions need.
 *
 * Upgrade (gr_cgroup_migrate_upgrade): each classic member becomes a
 * consumer-group member that uses the classic protocol, at member epoch =
 * the classic generation, Stable, with its last assignment (decoded from
 * its ConsumerProtocolAssignment) as both its assigned partitions and its
 * target; group epoch = assignment epoch = the generation. The consumer
 * member whose heartbeat triggered it then joins, which bumps the group
 * epoch, so the classic members learn on their next Heartbeat that they
 * must rejoin. A classic rebalance in progress is abandoned: its waiting
 * JoinGroup/SyncGroup requests get REBALANCE_IN_PROGRESS.
 *
 * Downgrade (gr_cgroup_migrate_downgrade): when the last member using
 * ConsumerGroupHeartbeat goes, the classic members left form a classic
 * group at generation = the group epoch, Stable, each with its target
 * assignment encoded for the protocol the group selects, and a rebalance
 * starts at once (Kafka's convertToClassicGroup).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen/consumer_protocol.h"
#include "group/cgroup_classic.h"
#include "group/cgroup_int.h"
#include "protocol/arena.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

/* --- ConsumerProtocol codec -------------------------------------------------- */

/* The version a metadata or assignment starts with, clamped to what we decode. */
static int16_t embedded_version(gr_reader_t *r, int16_t max)
{
    int16_t v = gr_read_int16(r);
    if (r->err || v < 0)
        return -1;
    return v > max ? max : v;
}

int gr_cgroup_decode_assignment(gr_group_env_t *env, gr_bytes_t bytes, gr_assignment_t *out)
{
    if (bytes.len <= 0)
        return 0;
    gr_reader_t r;
    gr_reader_init(&r, bytes.ptr, (size_t)bytes.len);
    int16_t v = embedded_version(&r, GR_CONSUMER_PROTOCOL_ASSIGNMENT_MAX_VERSION);
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_consumer_protocol_assignment_t in;
    int rc = v < 0 || gr_consumer_protocol_assignment_decode(&r, v, &arena, &in) < 0 ? -EBADMSG : 0;
    for (int32_t t = 0; rc == 0 && t < in.assigned_partitions_count; t++) {
        gr_cgroup_topic_info_t info;
        if (!env->topic_find(env->opaque, in.assigned_partitions[t].topic, &info))
            continue; /* deleted since: nothing to own */
        for (int32_t i = 0; rc == 0 && i < in.assigned_partitions[t].partitions_count; i++)
            rc = gr_assignment_add(out, info.id, in.assigned_partitions[t].partitions[i]);
    }
    gr_arena_fini(&arena);
    return rc;
}

static int dup_topics(const gr_consumer_protocol_subscription_t *in, char ***topics, int32_t *count)
{
    char **t = calloc((size_t)in->topics_count + 1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    for (int32_t i = 0; i < in->topics_count; i++)
        if (!(t[i] = gr_group_strdup(in->topics[i]))) {
            for (int32_t k = 0; k < i; k++)
                free(t[k]);
            free(t);
            return -ENOMEM;
        }
    *topics = t;
    *count = in->topics_count;
    return 0;
}

int gr_cgroup_decode_subscription(gr_group_env_t *env, gr_bytes_t bytes, char ***topics,
                                  int32_t *count, char **rack, gr_assignment_t *owned)
{
    gr_reader_t r;
    gr_reader_init(&r, bytes.ptr, bytes.len > 0 ? (size_t)bytes.len : 0);
    int16_t v = embedded_version(&r, GR_CONSUMER_PROTOCOL_SUBSCRIPTION_MAX_VERSION);
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_consumer_protocol_subscription_t in;
    int rc =
        v < 0 || gr_consumer_protocol_subscription_decode(&r, v, &arena, &in) < 0 ? -EBADMSG : 0;
    *topics = NULL;
    *count = 0;
    *rack = NULL;
    for (int32_t t = 0; rc == 0 && t < in.owned_partitions_count; t++) {
        gr_cgroup_topic_info_t info;
        if (!env->topic_find(env->opaque, in.owned_partitions[t].topic, &info))
            continue;
        for (int32_t i = 0; rc == 0 && i < in.owned_partitions[t].partitions_count; i++)
            rc = gr_assignment_add(owned, info.id, in.owned_partitions[t].partitions[i]);
    }
    if (rc == 0 && in.rack_id.len >= 0 && !(*rack = gr_group_strdup(in.rack_id)))
        rc = -ENOMEM;
    if (rc == 0)
        rc = dup_topics(&in, topics, count);
    if (rc < 0) {
        free(*rack);
        *rack = NULL;
    }
    gr_arena_fini(&arena);
    return rc;
}

static const char *topic_name(const gr_cgroup_t *cg, gr_uuid_t id)
{
    for (int32_t t = 0; t < cg->topic_count; t++)
        if (memcmp(&cg->topics[t].id, &id, sizeof(id)) == 0)
            return cg->topics[t].name;
    return NULL;
}

int gr_cgroup_encode_assignment(const gr_cgroup_t *cg, const gr_assignment_t *a,
                                gr_bytes_t metadata, uint8_t **out, int32_t *out_len)
{
    gr_reader_t r;
    gr_reader_init(&r, metadata.ptr, metadata.len > 0 ? (size_t)metadata.len : 0);
    int16_t v = embedded_version(&r, GR_CONSUMER_PROTOCOL_ASSIGNMENT_MAX_VERSION);
    if (v < 0)
        v = 0;
    gr_consumer_protocol_assignment_t as;
    gr_consumer_protocol_assignment_init(&as);
    gr_consumer_protocol_assignment_topic_partition_t *tp =
        calloc((size_t)a->topic_count + 1, sizeof(*tp));
    if (!tp)
        return -ENOMEM;
    for (int32_t t = 0; t < a->topic_count; t++) {
        const char *name = topic_name(cg, a->topics[t].topic_id);
        if (!name)
            continue; /* deleted: the member cannot fetch it anyway */
        gr_consumer_protocol_assignment_topic_partition_init(&tp[as.assigned_partitions_count]);
        tp[as.assigned_partitions_count] = (gr_consumer_protocol_assignment_topic_partition_t){
            gr_str(name), a->topics[t].partitions, a->topics[t].partition_count};
        as.assigned_partitions_count++;
    }
    as.assigned_partitions = tp;
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_int16(&w, v);
    int rc = gr_consumer_protocol_assignment_encode(&w, v, &as);
    free(tp);
    if (rc < 0 || w.err) {
        gr_writer_fini(&w);
        return -ENOMEM;
    }
    *out = malloc(w.len ? w.len : 1);
    if (*out)
        memcpy(*out, w.buf, w.len);
    *out_len = (int32_t)w.len;
    gr_writer_fini(&w);
    return *out ? 0 : -ENOMEM;
}

/* --- upgrade ---------------------------------------------------------------------- */

static int copy_protocols(gr_cmember_classic_t *c, const gr_member_t *m)
{
    c->protocols = calloc((size_t)m->protocol_count + 1, sizeof(*c->protocols));
    if (!c->protocols)
        return -ENOMEM;
    for (int32_t i = 0; i < m->protocol_count; i++) {
        gr_group_protocol_t *p = &c->protocols[c->protocol_count++];
        int32_t len = m->protocols[i].metadata_len;
        p->name = strdup(m->protocols[i].name);
        p->metadata = malloc(len > 0 ? (size_t)len : 1);
        if (!p->name || !p->metadata)
            return -ENOMEM;
        if (len > 0)
            memcpy(p->metadata, m->protocols[i].metadata, (size_t)len);
        p->metadata_len = len;
    }
    return 0;
}

static int copy_str(char **dst, const char *src)
{
    if (!src)
        return 0;
    *dst = strdup(src);
    return *dst ? 0 : -ENOMEM;
}

/* The consumer-group member standing for classic member m. 0, -EBADMSG or -ENOMEM. */
static int member_from_classic(gr_cgroup_t *cg, gr_group_env_t *env, const gr_group_t *g,
                               const gr_member_t *m)
{
    gr_cmember_t *cm = gr_cmember_new(cg, gr_str(m->member_id));
    if (!cm)
        return -ENOMEM;
    gr_cgroup_link(cg, cm);
    gr_cmember_classic_t *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    cm->classic = c;
    c->session_timeout_ms = m->session_timeout_ms;
    c->join_timer = (gr_group_timer_t){.kind = GR_GROUP_TIMER_CONSUMER_JOIN, .owner = cm};
    c->sync_timer = (gr_group_timer_t){.kind = GR_GROUP_TIMER_CONSUMER_SYNC, .owner = cm};
    if (copy_protocols(c, m) < 0 || copy_str(&cm->instance_id, m->instance_id) < 0 ||
        copy_str(&cm->client_id, m->client_id) < 0 ||
        copy_str(&cm->client_host, m->client_host) < 0)
        return -ENOMEM;
    cm->rebalance_timeout_ms = m->rebalance_timeout_ms;
    cm->member_epoch = cm->previous_epoch = g->generation;
    cm->state = GR_CMEMBER_STABLE;
    /* Before the first generation no protocol is chosen: its first one stands. */
    const char *protocol =
        g->protocol_name ? g->protocol_name : (m->protocol_count ? m->protocols[0].name : "");
    char **topics;
    int32_t count;
    gr_assignment_t owned = GR_ASSIGNMENT_INIT;
    int rc = gr_cgroup_decode_subscription(env, gr_member_metadata(m, protocol), &topics, &count,
                                           &cm->rack_id, &owned);
    gr_assignment_free(&owned);
    if (rc < 0)
        return rc;
    gr_cmember_set_subscription(cm, topics, count);
    rc = gr_cgroup_decode_assignment(env, (gr_bytes_t){m->assignment, m->assignment_len},
                                     &cm->assigned);
    if (rc == 0)
        rc = gr_assignment_copy(&cm->target, &cm->assigned);
    return rc;
}

/* Kafka's validateOnlineUpgrade. */
static bool upgrade_allowed(const gr_group_t *g, const gr_group_env_t *env)
{
    return (env->consumer_limits.migration & GR_CGROUP_MIGRATION_UPGRADE) && g->protocol_type &&
           strcmp(g->protocol_type, GR_GROUP_CONSUMER_PROTOCOL_TYPE) == 0 &&
           g->member_count <= env->consumer_limits.max_size;
}

gr_kerr_t gr_cgroup_migrate_upgrade(gr_group_t *g, gr_group_env_t *env)
{
    if (!upgrade_allowed(g, env))
        return GR_KERR_GROUP_ID_NOT_FOUND;
    gr_cgroup_t *cg = gr_cgroup_new(g);
    if (!cg)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    int rc = 0;
    for (const gr_member_t *m = g->members; m && rc == 0; m = m->next)
        rc = member_from_classic(cg, env, g, m);
    if (rc < 0) {
        gr_cgroup_free(cg, env);
        /* Kafka: a malformed embedded protocol leaves the group classic. */
        return rc == -EBADMSG ? GR_KERR_GROUP_ID_NOT_FOUND : GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    cg->group_epoch = cg->assignment_epoch = g->generation;
    /* The classic rebalance, if one runs, is over: its members rejoin the consumer group. */
    gr_group_remove_all(g, env, GR_KERR_REBALANCE_IN_PROGRESS);
    free(g->protocol_type);
    free(g->protocol_name);
    g->protocol_type = g->protocol_name = NULL;
    gr_group_subscriptions_free(g);
    g->type = GR_GROUP_TYPE_CONSUMER;
    g->consumer = cg;
    for (gr_cmember_t *m = cg->members; m; m = m->next)
        gr_cgroup_session_timer(m, env);
    gr_cgroup_touch(cg); /* written with the joining member's heartbeat */
    gr_cgroup_update_state(cg, env->now_ms(env->opaque));
    return GR_KERR_NONE;
}

/* --- downgrade -------------------------------------------------------------------- */

/* Kafka's validateOnlineDowngradeWithFencedMember. */
static bool downgrade_allowed(const gr_cgroup_t *cg, const gr_group_env_t *env,
                              const gr_cmember_t *leaving)
{
    if (leaving->classic || cg->member_count <= 1)
        return false;
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        if (m != leaving && !m->classic)
            return false;
    return (env->consumer_limits.migration & GR_CGROUP_MIGRATION_DOWNGRADE) &&
           cg->member_count - 1 <= env->limits.max_size;
}

/* The classic member standing for consumer-group member cm. 0 or -ENOMEM. */
static int member_to_classic(gr_group_t *g, gr_group_env_t *env, const gr_cmember_t *cm)
{
    const gr_cmember_classic_t *c = cm->classic;
    gr_bytes_t first = c->protocol_count
                           ? (gr_bytes_t){c->protocols[0].metadata, c->protocols[0].metadata_len}
                           : (gr_bytes_t){NULL, 0};
    gr_member_t *m = gr_group_load_member(
        g, env, cm->member_id, cm->instance_id, cm->client_id ? cm->client_id : "",
        cm->client_host ? cm->client_host : "", c->session_timeout_ms, cm->rebalance_timeout_ms,
        c->protocol_count ? c->protocols[0].name : NULL, first, (gr_bytes_t){NULL, 0});
    if (!m)
        return -ENOMEM;
    gr_join_protocol_t *all = calloc((size_t)c->protocol_count + 1, sizeof(*all));
    if (!all)
        return -ENOMEM;
    for (int32_t i = 0; i < c->protocol_count; i++)
        all[i] = (gr_join_protocol_t){gr_str(c->protocols[i].name),
                                      {c->protocols[i].metadata, c->protocols[i].metadata_len}};
    int rc = gr_member_set_protocols(m, all, c->protocol_count);
    free(all);
    return rc;
}

/* Each classic member's target, encoded for the group's protocol. 0 or -ENOMEM. */
static int set_assignments(gr_group_t *g, const gr_cgroup_t *cg)
{
    for (gr_member_t *m = g->members; m; m = m->next) {
        const gr_cmember_t *cm = gr_cgroup_find_member(cg, gr_str(m->member_id));
        uint8_t *bytes;
        int32_t len;
        if (!cm || gr_cgroup_encode_assignment(
                       cg, &cm->target, gr_member_metadata(m, g->protocol_name), &bytes, &len) < 0)
            return -ENOMEM;
        int rc = gr_member_set_assignment(m, (gr_bytes_t){bytes, len});
        free(bytes);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/*
 * cg becomes a classic group of its members but leaving (NULL: all), each
 * with its target assignment, at generation = the group epoch, Stable; a
 * rebalance starts if asked. cg is freed.
 */
static void convert_to_classic(gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *leaving,
                               bool rebalance)
{
    gr_group_t *g = cg->group;
    int64_t now = env->now_ms(env->opaque), end;
    /* Departures not yet written get their tombstones before the group's own. */
    (void)gr_cgroup_store(cg, env, &end);
    g->type = GR_GROUP_TYPE_CLASSIC;
    g->consumer = NULL;
    g->generation = cg->group_epoch;
    g->protocol_type = strdup(GR_GROUP_CONSUMER_PROTOCOL_TYPE);
    int rc = g->protocol_type ? 0 : -ENOMEM;
    for (gr_cmember_t *cm = cg->members; cm && rc == 0; cm = cm->next)
        if (cm != leaving)
            rc = member_to_classic(g, env, cm);
    g->leader = g->members;
    const char *protocol = rc == 0 ? gr_group_select_protocol(g) : NULL;
    if (protocol && !(g->protocol_name = strdup(protocol)))
        rc = -ENOMEM;
    if (rc == 0)
        rc = set_assignments(g, cg);
    if (rc == 0) {
        gr_group_compute_subscriptions(g);
        g->state = GR_GROUP_STABLE;
        g->state_timestamp = now;
        /* A failed write is healed by the group's next store (a rebalance's, a sync's). */
        (void)(env->store_downgrade ? env->store_downgrade(env->opaque, g, cg)
                                    : env->store_group(env->opaque, g));
    }
    gr_cgroup_free(cg, env);
    if (rc < 0) {
        /* Out of memory halfway: the members rejoin a classic group from scratch. */
        gr_group_remove_all(g, env, GR_KERR_UNKNOWN_MEMBER_ID);
        g->state = GR_GROUP_EMPTY;
        g->state_timestamp = now;
        return;
    }
    if (rebalance)
        gr_group_rebalance(g, env);
}

bool gr_cgroup_migrate_downgrade(gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *leaving)
{
    if (!downgrade_allowed(cg, env, leaving))
        return false;
    convert_to_classic(cg, env, leaving, true);
    return true;
}

bool gr_cgroup_migrate_downgrade_replaced(gr_cgroup_t *cg, gr_group_env_t *env)
{
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        if (!m->classic)
            return false;
    if (!(env->consumer_limits.migration & GR_CGROUP_MIGRATION_DOWNGRADE) ||
        cg->member_count > env->limits.max_size)
        return false;
    /* The joining member took its predecessor's assignment: nobody needs to rejoin. */
    convert_to_classic(cg, env, NULL, false);
    return true;
}
