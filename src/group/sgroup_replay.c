/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replaying a share group's records (sgroup_records.c has their layout):
 * each record sets its piece of the group, creating the group (as a share
 * group) or the member as needed. A member's metadata tombstone removes
 * the member; the group metadata's tombstone removes the group. Records of
 * a group id a classic or consumer group holds are skipped (a log Gregor
 * wrote never mixes them).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/record.h"
#include "core/context.h"
#include "gen/consumer_offsets.h"
#include "group/coordinator_int.h"
#include "group/group_int.h"
#include "group/sgroup_int.h"

typedef gr_share_group_current_member_assignment_value_share_topic_partitions_t current_tp_t;
typedef gr_share_group_target_assignment_member_value_topic_partition_t target_tp_t;
typedef gr_share_group_state_partition_metadata_value_topic_partitions_info_t state_tp_t;

/* The share group of that id, created; NULL with *rc set (-ENOMEM, or 0: another kind). */
static gr_sgroup_t *replay_group(gr_coordinator_t *co, int32_t partition, gr_str_t id, int *rc)
{
    gr_group_t *g = gr_coordinator_get_or_create(co, id, partition);
    *rc = g ? 0 : -ENOMEM;
    if (!g)
        return NULL;
    gr_kerr_t err = gr_group_become_share(g, &co->env);
    if (err)
        *rc = err == GR_KERR_GROUP_ID_NOT_FOUND ? 0 : -ENOMEM;
    return err ? NULL : g->share;
}

/* dst = the record's partitions (entries of size elem, topic id then partitions). */
static int set_partitions(gr_assignment_t *dst, const void *entries, size_t elem, int32_t count,
                          size_t id_off, size_t parts_off, size_t count_off)
{
    gr_assignment_clear(dst);
    for (int32_t i = 0; i < count; i++) {
        const char *e = (const char *)entries + (size_t)i * elem;
        const gr_uuid_t *id = (const gr_uuid_t *)(e + id_off);
        const int32_t *parts = *(int32_t *const *)(e + parts_off);
        int32_t n = *(const int32_t *)(e + count_off);
        for (int32_t k = 0; k < n; k++)
            if (gr_assignment_add(dst, *id, parts[k]) < 0)
                return -ENOMEM;
    }
    return 0;
}

#define SET_PARTITIONS(dst, arr, n, type)                                                          \
    set_partitions(dst, arr, sizeof(type), n, offsetof(type, topic_id),                            \
                   offsetof(type, partitions), offsetof(type, partitions_count))

static int replay_group_value(gr_sgroup_t *sg, int version, gr_bytes_t value, gr_arena_t *a)
{
    gr_reader_t vr;
    if (version == GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_METADATA) {
        gr_share_group_metadata_value_t v;
        int vv = gr_coordinator_record_open(value, GR_SHARE_GROUP_METADATA_VALUE_MAX_VERSION, &vr);
        if (vv < 0 || gr_share_group_metadata_value_decode(&vr, (int16_t)vv, a, &v) < 0)
            return -EBADMSG;
        sg->group_epoch = v.epoch;
        sg->metadata_hash = v.metadata_hash;
        return 0;
    }
    if (version == GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_TARGET_ASSIGNMENT_METADATA) {
        gr_share_group_target_assignment_metadata_value_t v;
        int vv = gr_coordinator_record_open(
            value, GR_SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE_MAX_VERSION, &vr);
        if (vv < 0 ||
            gr_share_group_target_assignment_metadata_value_decode(&vr, (int16_t)vv, a, &v) < 0)
            return -EBADMSG;
        sg->assignment_epoch = v.assignment_epoch;
        return 0;
    }
    if (version == GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_STATE_PARTITION_METADATA) {
        gr_share_group_state_partition_metadata_value_t v;
        int vv = gr_coordinator_record_open(
            value, GR_SHARE_GROUP_STATE_PARTITION_METADATA_VALUE_MAX_VERSION, &vr);
        if (vv < 0 ||
            gr_share_group_state_partition_metadata_value_decode(&vr, (int16_t)vv, a, &v) < 0)
            return -EBADMSG;
        /* Partitions still initializing (Kafka 4.1+) may have state too: keep them as well. */
        int rc = SET_PARTITIONS(&sg->initialized, v.initialized_topics, v.initialized_topics_count,
                                state_tp_t);
        for (int32_t i = 0; !rc && i < v.initializing_topics_count; i++)
            for (int32_t k = 0; !rc && k < v.initializing_topics[i].partitions_count; k++)
                rc = gr_assignment_add(&sg->initialized, v.initializing_topics[i].topic_id,
                                       v.initializing_topics[i].partitions[k]);
        return rc;
    }
    return 0; /* type 9, partition metadata: Kafka 4.0's, replaced by the hash */
}

static int replay_group_record(gr_coordinator_t *co, int32_t partition, int version,
                               gr_reader_t *kr, gr_bytes_t value, gr_arena_t *a)
{
    gr_share_group_metadata_key_t key;
    if (gr_share_group_metadata_key_decode(kr, GR_SHARE_GROUP_METADATA_KEY_MAX_VERSION, a, &key) <
        0)
        return -EBADMSG;
    if (value.len < 0) {
        gr_group_t *g = gr_coordinator_find(co, key.group_id);
        /* The group metadata's tombstone ends the group; the others come with it. */
        if (g && g->share && version == GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_METADATA)
            gr_coordinator_remove(co, g);
        return 0;
    }
    int rc;
    gr_sgroup_t *sg = replay_group(co, partition, key.group_id, &rc);
    return sg ? replay_group_value(sg, version, value, a) : rc;
}

static int set_member_metadata(gr_smember_t *m, const gr_share_group_member_metadata_value_t *v)
{
    char *rack = gr_group_strdup(v->rack_id), *client = gr_group_strdup(v->client_id),
         *host = gr_group_strdup(v->client_host);
    char **topics = calloc((size_t)v->subscribed_topic_names_count + 1, sizeof(*topics));
    int32_t n = 0;
    while (topics && n < v->subscribed_topic_names_count &&
           (topics[n] = gr_group_strdup(v->subscribed_topic_names[n])))
        n++;
    free(m->rack_id);
    free(m->client_id);
    free(m->client_host);
    m->rack_id = rack;
    m->client_id = client;
    m->client_host = host;
    gr_smember_set_subscription(m, topics, n);
    if ((v->rack_id.len >= 0 && !rack) || !client || !host || !topics ||
        n < v->subscribed_topic_names_count)
        return -ENOMEM;
    return 0;
}

static int replay_member_value(gr_smember_t *m, int version, gr_bytes_t value, gr_arena_t *a)
{
    gr_reader_t vr;
    if (version == GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_MEMBER_METADATA) {
        gr_share_group_member_metadata_value_t v;
        int vv = gr_coordinator_record_open(value, GR_SHARE_GROUP_MEMBER_METADATA_VALUE_MAX_VERSION,
                                            &vr);
        if (vv < 0 || gr_share_group_member_metadata_value_decode(&vr, (int16_t)vv, a, &v) < 0)
            return -EBADMSG;
        return set_member_metadata(m, &v);
    }
    if (version == GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER) {
        gr_share_group_target_assignment_member_value_t v;
        int vv = gr_coordinator_record_open(
            value, GR_SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE_MAX_VERSION, &vr);
        if (vv < 0 ||
            gr_share_group_target_assignment_member_value_decode(&vr, (int16_t)vv, a, &v) < 0)
            return -EBADMSG;
        return SET_PARTITIONS(&m->target, v.topic_partitions, v.topic_partitions_count,
                              target_tp_t);
    }
    gr_share_group_current_member_assignment_value_t v;
    int vv = gr_coordinator_record_open(
        value, GR_SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE_MAX_VERSION, &vr);
    if (vv < 0 ||
        gr_share_group_current_member_assignment_value_decode(&vr, (int16_t)vv, a, &v) < 0)
        return -EBADMSG;
    m->member_epoch = v.member_epoch;
    m->previous_epoch = v.previous_member_epoch;
    return SET_PARTITIONS(&m->assigned, v.assigned_partitions, v.assigned_partitions_count,
                          current_tp_t);
}

static int replay_member_record(gr_coordinator_t *co, int32_t partition, int version,
                                gr_reader_t *kr, gr_bytes_t value, gr_arena_t *a)
{
    gr_share_group_member_metadata_key_t key;
    if (gr_share_group_member_metadata_key_decode(
            kr, GR_SHARE_GROUP_MEMBER_METADATA_KEY_MAX_VERSION, a, &key) < 0)
        return -EBADMSG;
    if (value.len < 0) {
        gr_group_t *g = gr_coordinator_find(co, key.group_id);
        gr_smember_t *m = g && g->share ? gr_sgroup_find_member(g->share, key.member_id) : NULL;
        /* The member metadata's tombstone removes the member (written last of its three). */
        if (m && version == GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_MEMBER_METADATA) {
            gr_sgroup_unlink(g->share, m);
            gr_smember_free(m, &co->env);
        }
        return 0;
    }
    int rc;
    gr_sgroup_t *sg = replay_group(co, partition, key.group_id, &rc);
    if (!sg)
        return rc;
    gr_smember_t *m = gr_sgroup_find_member(sg, key.member_id);
    if (!m) {
        if (!(m = gr_smember_new(sg, key.member_id)))
            return -ENOMEM;
        gr_sgroup_link(sg, m);
    }
    return replay_member_value(m, version, value, a);
}

int gr_sgroup_replay(gr_coordinator_t *co, int32_t partition, int version, gr_reader_t *key,
                     gr_bytes_t value, gr_arena_t *arena)
{
    switch (version) {
    case GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_PARTITION_METADATA:
    case GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_METADATA:
    case GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_TARGET_ASSIGNMENT_METADATA:
    case GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_STATE_PARTITION_METADATA:
        return replay_group_record(co, partition, version, key, value, arena);
    case GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_MEMBER_METADATA:
    case GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER:
    case GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT:
        return replay_member_record(co, partition, version, key, value, arena);
    default:
        return -EBADMSG;
    }
}

void gr_sgroup_loaded(gr_coordinator_t *co, int32_t partition)
{
    for (gr_group_t *g = gr_coordinator_first(co); g; g = gr_coordinator_next(co, g))
        if (g->key.partition == partition && g->share)
            gr_sgroup_reloaded(g->share, &co->env);
}
