/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A share group's state in __consumer_offsets, as Kafka's ShareGroup*
 * records (proto/consumer_offsets.gp, key types 10-15):
 *
 *  10 member metadata          a member's rack, client, subscription
 *  11 group metadata           the group epoch and the subscribed topics'
 *                              metadata hash
 *  12 target metadata          the assignment epoch
 *  13 target member            a member's part of the target assignment
 *  14 current assignment       a member's epochs and partitions
 *  15 state partition metadata the share-partitions whose durable state
 *                              may exist (initialized)
 *
 * Type 9 (partition metadata) is Kafka 4.0's; Kafka 4.1+ replaced it by the
 * hash in type 11 and no longer writes it; neither does Gregor, and a
 * replayed one is accepted and ignored.
 *
 * Writing: after a heartbeat, leave or timeout that changed the group
 * (sg->dirty), one batch holds the departed members' tombstones (14, 13,
 * 10) and then the whole group: every member's 10, the 11, every member's
 * 13, the 12, every member's 14, the 15. As for consumer groups
 * (cgroup_records.c) the whole group is written rather than Kafka's
 * deltas: replay gives the same state either way. Deleting a group writes
 * tombstones for every key.
 *
 * Replay: each record sets its piece of the group, creating the group (as
 * a share group) or the member as needed; a member's tombstone (10)
 * removes it, the group metadata's tombstone (11) the group. When the
 * partition is loaded (gr_sgroup_loaded), every member's session timer
 * starts again and the subscribed topics are read from the broker's
 * metadata; a hash other than the one replayed (topics changed meanwhile)
 * bumps the group epoch at the next heartbeat.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/record.h"
#include "core/context.h"
#include "gen/consumer_offsets.h"
#include "group/coordinator_int.h"
#include "group/group_int.h"
#include "group/sgroup_int.h"

#define SG_VALUE_VERSION 0
/* ShareGroupCurrentMemberAssignmentValue.State: share members are always Stable. */
#define SG_MEMBER_STATE_STABLE 0

typedef gr_share_group_current_member_assignment_value_share_topic_partitions_t current_tp_t;
typedef gr_share_group_target_assignment_member_value_topic_partition_t target_tp_t;
typedef gr_share_group_state_partition_metadata_value_topic_partitions_info_t state_tp_t;

/* --- writing --------------------------------------------------------------------- */

/* A member's records, tombstoned in this order (the member metadata, which ends
 * the member on replay, last). */
static const int16_t member_types[] = {
    GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER,
    GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_MEMBER_METADATA};

static int member_tombstones(gr_record_set_t *s, const char *group, const char *member)
{
    return gr_record_set_tombstones(s, member_types, sizeof member_types / sizeof member_types[0],
                                    group, member);
}

static int put_member_metadata(gr_record_set_t *s, const char *group, const gr_smember_t *m,
                               gr_arena_t *a)
{
    gr_share_group_member_metadata_value_t v;
    gr_share_group_member_metadata_value_init(&v);
    v.rack_id = m->rack_id ? gr_str(m->rack_id) : (gr_str_t){NULL, GR_NULL_LEN};
    v.client_id = gr_str(m->client_id ? m->client_id : "");
    v.client_host = gr_str(m->client_host ? m->client_host : "");
    v.subscribed_topic_names = gr_arena_alloc_array(a, m->subscribed_count, sizeof(gr_str_t));
    if (!v.subscribed_topic_names)
        return -ENOMEM;
    for (int32_t i = 0; i < m->subscribed_count; i++)
        v.subscribed_topic_names[i] = gr_str(m->subscribed_topics[i]);
    v.subscribed_topic_names_count = m->subscribed_count;
    int rc = gr_record_set_group_key(s, GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_MEMBER_METADATA,
                                     group, m->member_id, SG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_share_group_member_metadata_value_encode(&s->buf, SG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

static int put_epoch(gr_record_set_t *s, const gr_sgroup_t *sg)
{
    gr_share_group_metadata_value_t v;
    gr_share_group_metadata_value_init(&v);
    v.epoch = sg->group_epoch;
    v.metadata_hash = sg->metadata_hash;
    int rc = gr_record_set_group_key(s, GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_METADATA,
                                     sg->group->key.id, NULL, SG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_share_group_metadata_value_encode(&s->buf, SG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

static int put_target_epoch(gr_record_set_t *s, const gr_sgroup_t *sg)
{
    gr_share_group_target_assignment_metadata_value_t v;
    gr_share_group_target_assignment_metadata_value_init(&v);
    v.assignment_epoch = sg->assignment_epoch;
    int rc = gr_record_set_group_key(
        s, GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_TARGET_ASSIGNMENT_METADATA, sg->group->key.id,
        NULL, SG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_share_group_target_assignment_metadata_value_encode(&s->buf, SG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

static int put_target(gr_record_set_t *s, const char *group, const gr_smember_t *m, gr_arena_t *a)
{
    gr_share_group_target_assignment_member_value_t v;
    gr_share_group_target_assignment_member_value_init(&v);
    const gr_assignment_t *t = &m->target;
    v.topic_partitions = gr_arena_alloc_array(a, t->topic_count, sizeof(target_tp_t));
    if (!v.topic_partitions)
        return -ENOMEM;
    for (int32_t i = 0; i < t->topic_count; i++) {
        gr_share_group_target_assignment_member_value_topic_partition_init(&v.topic_partitions[i]);
        v.topic_partitions[i].topic_id = t->topics[i].topic_id;
        v.topic_partitions[i].partitions = t->topics[i].partitions;
        v.topic_partitions[i].partitions_count = t->topics[i].partition_count;
    }
    v.topic_partitions_count = t->topic_count;
    int rc =
        gr_record_set_group_key(s, GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER,
                                group, m->member_id, SG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_share_group_target_assignment_member_value_encode(&s->buf, SG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

static int put_current(gr_record_set_t *s, const char *group, const gr_smember_t *m, gr_arena_t *a)
{
    gr_share_group_current_member_assignment_value_t v;
    gr_share_group_current_member_assignment_value_init(&v);
    v.member_epoch = m->member_epoch;
    v.previous_member_epoch = m->previous_epoch;
    v.state = SG_MEMBER_STATE_STABLE;
    const gr_assignment_t *set = &m->assigned;
    v.assigned_partitions = gr_arena_alloc_array(a, set->topic_count, sizeof(current_tp_t));
    if (!v.assigned_partitions)
        return -ENOMEM;
    for (int32_t i = 0; i < set->topic_count; i++) {
        gr_share_group_current_member_assignment_value_share_topic_partitions_init(
            &v.assigned_partitions[i]);
        v.assigned_partitions[i].topic_id = set->topics[i].topic_id;
        v.assigned_partitions[i].partitions = set->topics[i].partitions;
        v.assigned_partitions[i].partitions_count = set->topics[i].partition_count;
    }
    v.assigned_partitions_count = set->topic_count;
    int rc =
        gr_record_set_group_key(s, GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT,
                                group, m->member_id, SG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_share_group_current_member_assignment_value_encode(&s->buf, SG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

/* The topic's name as the group last saw it ("" once it left the subscriptions). */
static const char *topic_name(const gr_sgroup_t *sg, gr_uuid_t id)
{
    for (int32_t i = 0; i < sg->topic_count; i++)
        if (memcmp(&sg->topics[i].id, &id, sizeof id) == 0)
            return sg->topics[i].name;
    return "";
}

static int put_state_partitions(gr_record_set_t *s, const gr_sgroup_t *sg, gr_arena_t *a)
{
    gr_share_group_state_partition_metadata_value_t v;
    gr_share_group_state_partition_metadata_value_init(&v);
    const gr_assignment_t *set = &sg->initialized;
    v.initialized_topics = gr_arena_alloc_array(a, set->topic_count, sizeof(state_tp_t));
    v.initializing_topics = gr_arena_alloc_array(a, 0, sizeof(state_tp_t));
    v.deleting_topics = gr_arena_alloc_array(a, 0, sizeof(*v.deleting_topics));
    if (!v.initialized_topics || !v.initializing_topics || !v.deleting_topics)
        return -ENOMEM;
    for (int32_t i = 0; i < set->topic_count; i++) {
        state_tp_t *t = &v.initialized_topics[i];
        gr_share_group_state_partition_metadata_value_topic_partitions_info_init(t);
        t->topic_id = set->topics[i].topic_id;
        t->topic_name = gr_str(topic_name(sg, set->topics[i].topic_id));
        t->partitions = set->topics[i].partitions;
        t->partitions_count = set->topics[i].partition_count;
    }
    v.initialized_topics_count = set->topic_count;
    int rc =
        gr_record_set_group_key(s, GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_STATE_PARTITION_METADATA,
                                sg->group->key.id, NULL, SG_VALUE_VERSION, false);
    if (!rc)
        rc = gr_share_group_state_partition_metadata_value_encode(&s->buf, SG_VALUE_VERSION, &v);
    return rc ? rc : gr_record_set_done(s);
}

/* The whole group, in Kafka's order for a joining member. */
static int put_group(gr_record_set_t *s, const gr_sgroup_t *sg, gr_arena_t *a)
{
    const char *id = sg->group->key.id;
    int rc = 0;
    for (const gr_smember_t *m = sg->members; m && !rc; m = m->next)
        rc = put_member_metadata(s, id, m, a);
    if (!rc)
        rc = put_epoch(s, sg);
    for (const gr_smember_t *m = sg->members; m && !rc; m = m->next)
        rc = put_target(s, id, m, a);
    if (!rc)
        rc = put_target_epoch(s, sg);
    for (const gr_smember_t *m = sg->members; m && !rc; m = m->next)
        rc = put_current(s, id, m, a);
    if (!rc)
        rc = put_state_partitions(s, sg, a);
    return rc;
}

gr_kerr_t gr_coordinator_store_share(void *opaque, gr_group_t *g, int64_t *written_end)
{
    gr_coordinator_t *co = opaque;
    gr_sgroup_t *sg = g->share;
    *written_end = 0;
    if (!sg || !sg->dirty)
        return GR_KERR_NONE;
    gr_record_set_t s;
    gr_record_set_init(&s);
    gr_arena_t arena;
    gr_arena_init(&arena);
    int rc = 0;
    for (int32_t i = 0; i < sg->removed_count && !rc; i++)
        rc = member_tombstones(&s, g->key.id, sg->removed[i]);
    if (!rc)
        rc = put_group(&s, sg, &arena);
    if (!rc)
        rc = gr_record_set_append(co, g->key.partition, &s, written_end);
    gr_arena_fini(&arena);
    gr_record_set_fini(&s);
    if (rc)
        return gr_coordinator_write_error(rc);
    gr_sgroup_stored(sg);
    return GR_KERR_NONE;
}

int gr_sgroup_records_tombstones(gr_record_set_t *s, const gr_group_t *g)
{
    const gr_sgroup_t *sg = g->share;
    int rc = 0;
    for (const gr_smember_t *m = sg ? sg->members : NULL; m && !rc; m = m->next)
        rc = member_tombstones(s, g->key.id, m->member_id);
    static const int16_t types[] = {
        GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_STATE_PARTITION_METADATA,
        GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_TARGET_ASSIGNMENT_METADATA,
        GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_PARTITION_METADATA,
        GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_METADATA};
    return rc ? rc
              : gr_record_set_tombstones(s, types, sizeof types / sizeof types[0], g->key.id, NULL);
}
