/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A consumer group's state in __consumer_offsets, as Kafka's ConsumerGroup*
 * records (proto/consumer_offsets.gp, key types 3-8):
 *
 *   3 group metadata          the group epoch
 *   4 partition metadata      the subscribed topics as last seen
 *   5 member metadata         a member's subscription, ids, timeouts
 *   6 target metadata         the assignment epoch
 *   7 target member           a member's part of the target assignment
 *   8 current assignment      a member's epochs, state, partitions
 *  16 regular expression      a subscription regex's resolution
 *                             (cgroup_regex_records.c)
 *
 * Writing: after a heartbeat, leave or timeout that changed the group
 * (cg->dirty), one batch holds the departed members' tombstones (8, 7, 5)
 * and then the whole group: every member's 5, the group's 4 and 3, every
 * member's 7, the 6, every member's 8 (Kafka's order for one member's
 * join). Writing the whole group rather than Kafka's deltas keeps the
 * writer simple for the group sizes consumers run; replay gives the same
 * state either way, the last record of each key winning. Deleting a group
 * writes tombstones for every key.
 *
 * Replay: each record sets its piece of the group, creating the group (as
 * a consumer group) or the member as needed; a member's tombstone (5)
 * removes it. When the partition is loaded, every member's session timer
 * starts again (gr_cgroup_loaded): members keep their epochs and
 * assignments and only have to heartbeat.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/record.h"
#include "core/context.h"
#include "gen/consumer_offsets.h"
#include "group/cgroup_classic.h"
#include "group/cgroup_int.h"
#include "group/coordinator_int.h"

#define CG_VALUE_VERSION 0

typedef gr_consumer_group_current_member_assignment_value_topic_partitions_t current_tp_t;
typedef gr_consumer_group_target_assignment_member_value_topic_partition_t target_tp_t;

/* --- writing --------------------------------------------------------------------- */

/* A member's records, tombstoned in this order (the member metadata, which ends
 * the member on replay, last). */
static const int16_t member_types[] = {
    GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_MEMBER_METADATA};

static int member_tombstones(gr_record_set_t *s, const char *group, const char *member)
{
    return gr_record_set_tombstones(s, member_types, sizeof member_types / sizeof member_types[0],
                                    group, member);
}

static int put_member_metadata(gr_record_set_t *s, const char *group, const gr_cmember_t *m,
                               gr_arena_t *a)
{
    gr_consumer_group_member_metadata_value_t v;
    gr_consumer_group_member_metadata_value_init(&v);
    v.instance_id = m->instance_id ? gr_str(m->instance_id) : (gr_str_t){NULL, GR_NULL_LEN};
    v.rack_id = m->rack_id ? gr_str(m->rack_id) : (gr_str_t){NULL, GR_NULL_LEN};
    v.client_id = gr_str(m->client_id ? m->client_id : "");
    v.client_host = gr_str(m->client_host ? m->client_host : "");
    v.subscribed_topic_names = gr_arena_alloc_array(a, m->subscribed_count, sizeof(gr_str_t));
    if (!v.subscribed_topic_names)
        return -ENOMEM;
    for (int32_t i = 0; i < m->subscribed_count; i++)
        v.subscribed_topic_names[i] = gr_str(m->subscribed_topics[i]);
    v.subscribed_topic_names_count = m->subscribed_count;
    v.subscribed_topic_regex =
        m->subscribed_regex ? gr_str(m->subscribed_regex) : (gr_str_t){NULL, GR_NULL_LEN};
    v.rebalance_timeout_ms = m->rebalance_timeout_ms;
    v.server_assignor =
        m->server_assignor ? gr_str(m->server_assignor) : (gr_str_t){NULL, GR_NULL_LEN};
    if (gr_cmember_classic_encode(m, &v, a) < 0) /* cgroup_migrate_records.c */
        return -ENOMEM;
    int rc = gr_record_set_group_key(s, GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_MEMBER_METADATA,
                                     group, m->member_id, CG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_consumer_group_member_metadata_value_encode(&s->buf, CG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

static int put_topics(gr_record_set_t *s, const gr_cgroup_t *cg, gr_arena_t *a)
{
    gr_consumer_group_partition_metadata_value_t v;
    gr_consumer_group_partition_metadata_value_init(&v);
    v.topics = gr_arena_alloc_array(a, cg->topic_count, sizeof(*v.topics));
    if (!v.topics)
        return -ENOMEM;
    for (int32_t i = 0; i < cg->topic_count; i++) {
        gr_consumer_group_partition_metadata_value_topic_metadata_init(&v.topics[i]);
        v.topics[i].topic_id = cg->topics[i].id;
        v.topics[i].topic_name = gr_str(cg->topics[i].name);
        v.topics[i].num_partitions = cg->topics[i].partition_count;
    }
    v.topics_count = cg->topic_count;
    int rc =
        gr_record_set_group_key(s, GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_PARTITION_METADATA,
                                cg->group->key.id, NULL, CG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_consumer_group_partition_metadata_value_encode(&s->buf, CG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

static int put_epoch(gr_record_set_t *s, const gr_cgroup_t *cg)
{
    gr_consumer_group_metadata_value_t v;
    gr_consumer_group_metadata_value_init(&v);
    v.epoch = cg->group_epoch;
    int rc = gr_record_set_group_key(s, GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_METADATA,
                                     cg->group->key.id, NULL, CG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_consumer_group_metadata_value_encode(&s->buf, CG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

static int put_target_epoch(gr_record_set_t *s, const gr_cgroup_t *cg)
{
    gr_consumer_group_target_assignment_metadata_value_t v;
    gr_consumer_group_target_assignment_metadata_value_init(&v);
    v.assignment_epoch = cg->assignment_epoch;
    int rc = gr_record_set_group_key(
        s, GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, cg->group->key.id,
        NULL, CG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_consumer_group_target_assignment_metadata_value_encode(&s->buf, CG_VALUE_VERSION,
                                                                       &v);
    return rc ? rc : gr_record_set_done(s);
}

static int put_target(gr_record_set_t *s, const char *group, const gr_cmember_t *m, gr_arena_t *a)
{
    gr_consumer_group_target_assignment_member_value_t v;
    gr_consumer_group_target_assignment_member_value_init(&v);
    const gr_assignment_t *t = &m->target;
    v.topic_partitions = gr_arena_alloc_array(a, t->topic_count, sizeof(target_tp_t));
    if (!v.topic_partitions)
        return -ENOMEM;
    for (int32_t i = 0; i < t->topic_count; i++) {
        gr_consumer_group_target_assignment_member_value_topic_partition_init(
            &v.topic_partitions[i]);
        v.topic_partitions[i].topic_id = t->topics[i].topic_id;
        v.topic_partitions[i].partitions = t->topics[i].partitions;
        v.topic_partitions[i].partitions_count = t->topics[i].partition_count;
    }
    v.topic_partitions_count = t->topic_count;
    int rc = gr_record_set_group_key(
        s, GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, group, m->member_id,
        CG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_consumer_group_target_assignment_member_value_encode(&s->buf, CG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

static current_tp_t *current_topics(const gr_assignment_t *set, gr_arena_t *a)
{
    current_tp_t *out = gr_arena_alloc_array(a, set->topic_count, sizeof(*out));
    for (int32_t i = 0; out && i < set->topic_count; i++) {
        gr_consumer_group_current_member_assignment_value_topic_partitions_init(&out[i]);
        out[i].topic_id = set->topics[i].topic_id;
        out[i].partitions = set->topics[i].partitions;
        out[i].partitions_count = set->topics[i].partition_count;
        out[i].assignment_epochs_null = true;
    }
    return out;
}

static const int8_t member_states[] = {
    [GR_CMEMBER_STABLE] = GR_CONSUMER_GROUP_MEMBER_STATE_STABLE,
    [GR_CMEMBER_UNREVOKED_PARTITIONS] = GR_CONSUMER_GROUP_MEMBER_STATE_UNREVOKED_PARTITIONS,
    [GR_CMEMBER_UNRELEASED_PARTITIONS] = GR_CONSUMER_GROUP_MEMBER_STATE_UNRELEASED_PARTITIONS,
    [GR_CMEMBER_UNKNOWN] = GR_CONSUMER_GROUP_MEMBER_STATE_UNKNOWN,
};

static int put_current(gr_record_set_t *s, const char *group, const gr_cmember_t *m, gr_arena_t *a)
{
    gr_consumer_group_current_member_assignment_value_t v;
    gr_consumer_group_current_member_assignment_value_init(&v);
    v.member_epoch = m->member_epoch;
    v.previous_member_epoch = m->previous_epoch;
    v.state = member_states[m->state];
    v.assigned_partitions = current_topics(&m->assigned, a);
    v.assigned_partitions_count = m->assigned.topic_count;
    v.partitions_pending_revocation = current_topics(&m->pending_revocation, a);
    v.partitions_pending_revocation_count = m->pending_revocation.topic_count;
    if (!v.assigned_partitions || !v.partitions_pending_revocation)
        return -ENOMEM;
    int rc = gr_record_set_group_key(
        s, GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, group, m->member_id,
        CG_VALUE_VERSION, false);
    if (!rc)
        rc =
            gr_consumer_group_current_member_assignment_value_encode(&s->buf, CG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

/* The whole group, in Kafka's order for a joining member. */
static int put_group(gr_record_set_t *s, const gr_cgroup_t *cg, gr_arena_t *a)
{
    const char *id = cg->group->key.id;
    int rc = 0;
    for (const gr_cmember_t *m = cg->members; m && !rc; m = m->next)
        rc = put_member_metadata(s, id, m, a);
    if (!rc)
        rc = gr_cgroup_regex_records_put(s, cg, a);
    if (!rc)
        rc = put_topics(s, cg, a);
    if (!rc)
        rc = put_epoch(s, cg);
    for (const gr_cmember_t *m = cg->members; m && !rc; m = m->next)
        rc = put_target(s, id, m, a);
    if (!rc)
        rc = put_target_epoch(s, cg);
    for (const gr_cmember_t *m = cg->members; m && !rc; m = m->next)
        rc = put_current(s, id, m, a);
    return rc;
}

gr_kerr_t gr_coordinator_store_consumer(void *opaque, gr_group_t *g, int64_t *written_end)
{
    gr_coordinator_t *co = opaque;
    gr_cgroup_t *cg = g->consumer;
    *written_end = 0;
    if (!cg || !cg->dirty)
        return GR_KERR_NONE;
    gr_record_set_t s;
    gr_record_set_init(&s);
    gr_arena_t arena;
    gr_arena_init(&arena);
    int rc = 0;
    for (int32_t i = 0; i < cg->removed_count && !rc; i++)
        rc = member_tombstones(&s, g->key.id, cg->removed[i]);
    if (!rc)
        rc = gr_cgroup_regex_records_removed(&s, cg);
    if (!rc)
        rc = put_group(&s, cg, &arena);
    if (!rc)
        rc = gr_record_set_append(co, g->key.partition, &s, written_end);
    gr_arena_fini(&arena);
    gr_record_set_fini(&s);
    if (rc)
        return gr_coordinator_write_error(rc);
    gr_cgroup_stored(cg);
    return GR_KERR_NONE;
}

int gr_cgroup_records_tombstones(gr_record_set_t *s, const gr_group_t *g)
{
    const gr_cgroup_t *cg = g->consumer;
    int rc = 0;
    for (const gr_cmember_t *m = cg ? cg->members : NULL; m && !rc; m = m->next)
        rc = member_tombstones(s, g->key.id, m->member_id);
    if (cg && !rc)
        rc = gr_cgroup_regex_records_tombstones(s, cg);
    static const int16_t types[] = {
        GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
        GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_PARTITION_METADATA,
        GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_METADATA};
    return rc ? rc
              : gr_record_set_tombstones(s, types, sizeof types / sizeof types[0], g->key.id, NULL);
}

/* --- replay ---------------------------------------------------------------------- */

/* The consumer group of that id, created (or a replayed empty classic one converted). */
static gr_cgroup_t *replay_group(gr_coordinator_t *co, int32_t partition, gr_str_t id)
{
    gr_group_t *g = gr_coordinator_get_or_create(co, id, partition);
    if (!g)
        return NULL;
    if (g->type == GR_GROUP_TYPE_CLASSIC && (g->member_count > 0 || g->state != GR_GROUP_EMPTY)) {
        /* Classic records earlier in the log: the consumer group's, later, win. */
        gr_group_clear(g, &co->env);
        g->state = GR_GROUP_EMPTY;
    }
    if (gr_group_become_consumer(g, &co->env) != GR_KERR_NONE)
        return NULL;
    return g->consumer;
}

static gr_cmember_t *replay_member(gr_cgroup_t *cg, gr_str_t member_id)
{
    gr_cmember_t *m = gr_cgroup_find_member(cg, member_id);
    if (!m && (m = gr_cmember_new(cg, member_id)))
        gr_cgroup_link(cg, m);
    return m;
}

static int set_member_metadata(gr_cmember_t *m, const gr_consumer_group_member_metadata_value_t *v)
{
    char *fields[] = {
        gr_cgroup_strdup(v->instance_id),     gr_cgroup_strdup(v->rack_id),
        gr_cgroup_strdup(v->client_id),       gr_cgroup_strdup(v->client_host),
        gr_cgroup_strdup(v->server_assignor), gr_cgroup_strdup(v->subscribed_topic_regex)};
    char **topics = calloc((size_t)v->subscribed_topic_names_count + 1, sizeof(*topics));
    int32_t n = 0;
    while (topics && n < v->subscribed_topic_names_count &&
           (topics[n] = gr_cgroup_strdup(v->subscribed_topic_names[n])))
        n++;
    char **dest[] = {&m->instance_id, &m->rack_id,         &m->client_id,
                     &m->client_host, &m->server_assignor, &m->subscribed_regex};
    for (size_t i = 0; i < sizeof dest / sizeof dest[0]; i++) {
        free(*dest[i]);
        *dest[i] = fields[i];
    }
    gr_cmember_set_subscription(m, topics, n);
    m->rebalance_timeout_ms = v->rebalance_timeout_ms;
    const gr_str_t sources[] = {v->instance_id, v->rack_id,         v->client_id,
                                v->client_host, v->server_assignor, v->subscribed_topic_regex};
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++)
        if (sources[i].len >= 0 && !fields[i])
            return -ENOMEM; /* a copy failed: not a null field */
    return topics && n == v->subscribed_topic_names_count ? 0 : -ENOMEM;
}

static int set_assignment(gr_assignment_t *out, const void *topics, size_t stride, int32_t count)
{
    gr_assignment_clear(out);
    for (int32_t i = 0; i < count; i++) {
        /* Both record shapes start with topic_id, partitions, partitions_count. */
        const target_tp_t *t = (const target_tp_t *)((const char *)topics + stride * (size_t)i);
        for (int32_t k = 0; k < t->partitions_count; k++)
            if (gr_assignment_add(out, t->topic_id, t->partitions[k]) < 0)
                return -ENOMEM;
    }
    return 0;
}

static int replay_topics(gr_cgroup_t *cg, const gr_consumer_group_partition_metadata_value_t *v)
{
    gr_group_topic_t *t = calloc((size_t)v->topics_count + 1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    for (int32_t i = 0; i < v->topics_count; i++) {
        t[i].id = v->topics[i].topic_id;
        t[i].partition_count = v->topics[i].num_partitions;
        if (!(t[i].name = gr_cgroup_strdup(v->topics[i].topic_name))) {
            gr_cgroup_set_topics(cg, t, i);
            return -ENOMEM;
        }
    }
    gr_cgroup_set_topics(cg, t, v->topics_count);
    return 0;
}

static gr_cmember_state_t member_state(int8_t s)
{
    switch (s) {
    case GR_CONSUMER_GROUP_MEMBER_STATE_STABLE:
        return GR_CMEMBER_STABLE;
    case GR_CONSUMER_GROUP_MEMBER_STATE_UNREVOKED_PARTITIONS:
        return GR_CMEMBER_UNREVOKED_PARTITIONS;
    case GR_CONSUMER_GROUP_MEMBER_STATE_UNRELEASED_PARTITIONS:
        return GR_CMEMBER_UNRELEASED_PARTITIONS;
    default:
        return GR_CMEMBER_UNKNOWN;
    }
}

static int replay_group_record(gr_coordinator_t *co, int32_t partition, int version,
                               gr_reader_t *kr, gr_bytes_t value, gr_arena_t *a)
{
    gr_consumer_group_metadata_key_t key;
    if (gr_consumer_group_metadata_key_decode(kr, GR_CONSUMER_GROUP_METADATA_KEY_MAX_VERSION, a,
                                              &key) < 0)
        return -EBADMSG;
    if (value.len < 0) {
        gr_group_t *g = gr_coordinator_find(co, key.group_id);
        /* The group metadata's tombstone ends the group; the others come with it. */
        if (g && g->consumer && version == GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_METADATA) {
            (void)gr_group_become_classic(g, &co->env);
            if (g->offset_count == 0 && g->txn_offset_count == 0)
                gr_coordinator_remove(co, g);
        }
        return 0;
    }
    gr_cgroup_t *cg = replay_group(co, partition, key.group_id);
    if (!cg)
        return -ENOMEM;
    if (version == GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_METADATA) {
        gr_consumer_group_metadata_value_t v;
        gr_reader_t vr;
        int vv =
            gr_coordinator_record_open(value, GR_CONSUMER_GROUP_METADATA_VALUE_MAX_VERSION, &vr);
        if (vv < 0 || gr_consumer_group_metadata_value_decode(&vr, (int16_t)vv, a, &v) < 0)
            return -EBADMSG;
        cg->group_epoch = v.epoch;
        return 0;
    }
    if (version == GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA) {
        gr_consumer_group_target_assignment_metadata_value_t v;
        gr_reader_t vr;
        int vv = gr_coordinator_record_open(
            value, GR_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE_MAX_VERSION, &vr);
        if (vv < 0 ||
            gr_consumer_group_target_assignment_metadata_value_decode(&vr, (int16_t)vv, a, &v) < 0)
            return -EBADMSG;
        cg->assignment_epoch = v.assignment_epoch;
        return 0;
    }
    gr_consumer_group_partition_metadata_value_t v;
    gr_reader_t vr;
    int vv = gr_coordinator_record_open(
        value, GR_CONSUMER_GROUP_PARTITION_METADATA_VALUE_MAX_VERSION, &vr);
    if (vv < 0 || gr_consumer_group_partition_metadata_value_decode(&vr, (int16_t)vv, a, &v) < 0)
        return -EBADMSG;
    return replay_topics(cg, &v);
}

static int replay_member_value(gr_cmember_t *m, int version, gr_bytes_t value, gr_arena_t *a)
{
    if (version == GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_MEMBER_METADATA) {
        gr_consumer_group_member_metadata_value_t v;
        gr_reader_t vr;
        int vv = gr_coordinator_record_open(
            value, GR_CONSUMER_GROUP_MEMBER_METADATA_VALUE_MAX_VERSION, &vr);
        if (vv < 0 || gr_consumer_group_member_metadata_value_decode(&vr, (int16_t)vv, a, &v) < 0)
            return -EBADMSG;
        int rc = set_member_metadata(m, &v);
        return rc ? rc : gr_cmember_classic_replay(m, &v); /* cgroup_migrate_records.c */
    }
    if (version == GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER) {
        gr_consumer_group_target_assignment_member_value_t v;
        gr_reader_t vr;
        int vv = gr_coordinator_record_open(
            value, GR_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE_MAX_VERSION, &vr);
        if (vv < 0 ||
            gr_consumer_group_target_assignment_member_value_decode(&vr, (int16_t)vv, a, &v) < 0)
            return -EBADMSG;
        return set_assignment(&m->target, v.topic_partitions, sizeof(target_tp_t),
                              v.topic_partitions_count);
    }
    gr_consumer_group_current_member_assignment_value_t v;
    gr_reader_t vr;
    int vv = gr_coordinator_record_open(
        value, GR_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE_MAX_VERSION, &vr);
    if (vv < 0 ||
        gr_consumer_group_current_member_assignment_value_decode(&vr, (int16_t)vv, a, &v) < 0)
        return -EBADMSG;
    m->member_epoch = v.member_epoch;
    m->previous_epoch = v.previous_member_epoch;
    m->state = member_state(v.state);
    if (set_assignment(&m->assigned, v.assigned_partitions, sizeof(current_tp_t),
                       v.assigned_partitions_count) < 0 ||
        set_assignment(&m->pending_revocation, v.partitions_pending_revocation,
                       sizeof(current_tp_t), v.partitions_pending_revocation_count) < 0)
        return -ENOMEM;
    return 0;
}

static int replay_member_record(gr_coordinator_t *co, int32_t partition, int version,
                                gr_reader_t *kr, gr_bytes_t value, gr_arena_t *a)
{
    gr_consumer_group_member_metadata_key_t key;
    if (gr_consumer_group_member_metadata_key_decode(
            kr, GR_CONSUMER_GROUP_MEMBER_METADATA_KEY_MAX_VERSION, a, &key) < 0)
        return -EBADMSG;
    if (value.len < 0) {
        gr_group_t *g = gr_coordinator_find(co, key.group_id);
        gr_cmember_t *m =
            g && g->consumer ? gr_cgroup_find_member(g->consumer, key.member_id) : NULL;
        /* The member metadata's tombstone removes the member (written last of its three). */
        if (m && version == GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_MEMBER_METADATA) {
            gr_cgroup_unlink(g->consumer, m);
            gr_cmember_free(m, &co->env);
        }
        return 0;
    }
    gr_cgroup_t *cg = replay_group(co, partition, key.group_id);
    gr_cmember_t *m = cg ? replay_member(cg, key.member_id) : NULL;
    if (!m)
        return -ENOMEM;
    return replay_member_value(m, version, value, a);
}

int gr_cgroup_replay(gr_coordinator_t *co, int32_t partition, int version, gr_reader_t *key,
                     gr_bytes_t value, gr_arena_t *arena)
{
    switch (version) {
    case GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_METADATA:
    case GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_PARTITION_METADATA:
    case GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA:
        return replay_group_record(co, partition, version, key, value, arena);
    case GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_MEMBER_METADATA:
    case GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER:
    case GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT:
        return replay_member_record(co, partition, version, key, value, arena);
    case GR_COORDINATOR_RECORD_TYPE_CONSUMER_GROUP_REGULAR_EXPRESSION:
        return gr_cgroup_regex_records_replay(co, partition, key, value, arena);
    default:
        return -EBADMSG; /* streams groups: not Gregor's */
    }
}

void gr_cgroup_loaded(gr_coordinator_t *co, int32_t partition)
{
    int64_t now = gr_broker_now_ms(co->broker);
    for (gr_group_t *g = gr_coordinator_first(co); g; g = gr_coordinator_next(co, g)) {
        if (g->key.partition != partition || !g->consumer)
            continue;
        for (gr_cmember_t *m = g->consumer->members; m; m = m->next) {
            gr_cgroup_session_timer(m, &co->env);
            gr_cgroup_rebalance_timer(m, &co->env);
        }
        gr_cgroup_update_state(g->consumer, now);
        gr_cgroup_stored(g->consumer); /* what was replayed is what the log holds */
    }
}
