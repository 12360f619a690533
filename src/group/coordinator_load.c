/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group coordinator's record handler (H of coordinator/runtime.h): what
 * a replayed __consumer_offsets record does to the groups. The runtime
 * replays an elected partition a slice (offsets.load.buffer.size) per loop
 * iteration; its groups answer COORDINATOR_LOAD_IN_PROGRESS until the replay
 * ends.
 *
 * Records apply in log order, so the last one for a key wins, as after
 * compaction: an offset commit sets the offset, its tombstone removes it; a
 * group metadata record replaces the group's generation and members, its
 * tombstone resets the group (which disappears if no offsets, committed or
 * pending, remain). The consumer groups' records (key types 3-8 and 16)
 * are cgroup_records.c's, the share groups' (9-15) sgroup_replay.c's;
 * other key types (streams groups) are skipped.
 *
 * Transactions (coordinator_txn.c): offset commits in a transactional batch
 * are held pending for the batch's producer; a marker (control batch)
 * commits or drops that producer's pending offsets of the partition, the
 * committed offset staying when it was written later in the log than the
 * pending one. A transaction still open when the replay ends stays pending
 * until its marker is written.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/record.h"
#include "core/context.h"
#include "group/coordinator.h"
#include "gen/consumer_offsets.h"
#include "group/cgroup.h"
#include "group/coordinator_int.h"
#include "group/group_int.h"
#include "protocol/arena.h"
#include "protocol/reader.h"

static gr_group_t *group_for(gr_coordinator_t *co, int32_t partition, gr_str_t id)
{
    return gr_coordinator_get_or_create(co, id, partition);
}

static int apply_offset(gr_coordinator_t *co, const gr_coordinator_record_origin_t *origin,
                        gr_reader_t *kr, gr_bytes_t value, gr_arena_t *arena)
{
    gr_offset_commit_key_t key;
    if (gr_offset_commit_key_decode(kr, GR_OFFSET_KEY_VERSION, arena, &key) < 0)
        return -EBADMSG;
    bool transactional = origin->producer_id >= 0;
    if (value.len < 0) {
        gr_group_t *g = gr_coordinator_find(co, key.group);
        if (g && transactional)
            gr_group_txn_offset_remove(g, origin->producer_id, key.topic, key.partition);
        else if (g)
            gr_group_offset_remove(g, key.topic, key.partition);
        return 0;
    }
    gr_reader_t vr;
    int version = gr_coordinator_record_open(value, GR_OFFSET_COMMIT_VALUE_MAX_VERSION, &vr);
    gr_offset_commit_value_t val;
    if (version < 0 || gr_offset_commit_value_decode(&vr, (int16_t)version, arena, &val) < 0)
        return -EBADMSG;
    gr_group_t *g = group_for(co, origin->partition, key.group);
    if (!g)
        return -ENOMEM;
    gr_group_offset_value_t set = {.offset = val.offset,
                                   .leader_epoch = val.leader_epoch,
                                   .metadata = val.metadata,
                                   .commit_timestamp = val.commit_timestamp,
                                   .expire_timestamp = val.expire_timestamp,
                                   .log_offset = origin->log_offset};
    int rc = transactional ? gr_coordinator_txn_pending_set(co, g, origin->producer_id, key.topic,
                                                            key.partition, &set)
                           : gr_group_offset_set(g, key.topic, key.partition, &set);
    return rc < 0 ? -ENOMEM : 0;
}

static char *cstr(gr_arena_t *arena, gr_str_t s)
{
    return s.len < 0 ? NULL : gr_arena_strndup(arena, s.ptr, (size_t)s.len);
}

/* Replaces g's generation and members with the record's. */
static int load_group_value(gr_coordinator_t *co, gr_group_t *g, const gr_group_metadata_value_t *v,
                            gr_arena_t *arena)
{
    gr_group_clear(g, &co->env);
    free(g->protocol_type);
    free(g->protocol_name);
    g->protocol_type = v->protocol_type.len > 0 ? gr_group_strdup(v->protocol_type) : NULL;
    g->protocol_name = gr_group_strdup(v->protocol);
    g->generation = v->generation;
    char *leader = cstr(arena, v->leader);
    for (int32_t i = 0; i < v->members_count; i++) {
        const gr_group_metadata_value_member_metadata_t *m = &v->members[i];
        gr_member_t *member = gr_group_load_member(
            g, &co->env, cstr(arena, m->member_id), cstr(arena, m->group_instance_id),
            cstr(arena, m->client_id), cstr(arena, m->client_host), m->session_timeout,
            m->rebalance_timeout, g->protocol_name, m->subscription, m->assignment);
        if (!member)
            return -ENOMEM;
        if (leader && strcmp(leader, member->member_id) == 0)
            g->leader = member;
    }
    if (!g->leader)
        g->leader = g->members;
    g->state = g->member_count > 0 ? GR_GROUP_STABLE : GR_GROUP_EMPTY;
    g->state_timestamp =
        v->current_state_timestamp >= 0 ? v->current_state_timestamp : gr_broker_now_ms(co->broker);
    gr_group_compute_subscriptions(g);
    return 0;
}

static int apply_group(gr_coordinator_t *co, int32_t partition, gr_reader_t *kr, gr_bytes_t value,
                       gr_arena_t *arena)
{
    gr_group_metadata_key_t key;
    if (gr_group_metadata_key_decode(kr, GR_GROUP_KEY_VERSION, arena, &key) < 0)
        return -EBADMSG;
    gr_group_t *g = gr_coordinator_find(co, key.group);
    if (value.len < 0) {
        if (g && g->offset_count == 0 && g->txn_offset_count == 0) {
            gr_coordinator_remove(co, g);
        } else if (g) {
            gr_group_clear(g, &co->env);
            free(g->protocol_type);
            free(g->protocol_name);
            g->protocol_type = g->protocol_name = NULL;
            g->generation = 0;
            g->state = GR_GROUP_EMPTY;
        }
        return 0;
    }
    gr_reader_t vr;
    int v = gr_coordinator_record_open(value, GR_GROUP_METADATA_VALUE_MAX_VERSION, &vr);
    gr_group_metadata_value_t val;
    if (v < 0 || gr_group_metadata_value_decode(&vr, (int16_t)v, arena, &val) < 0)
        return -EBADMSG;
    if (!g && !(g = group_for(co, partition, key.group)))
        return -ENOMEM;
    return load_group_value(co, g, &val, arena);
}

/* Applies one record of a replayed batch (H.replay). 0, -EBADMSG for a record to skip, -ENOMEM. */
static int apply_record(void *owner, const gr_coordinator_record_origin_t *origin, gr_bytes_t key,
                        gr_bytes_t value)
{
    gr_coordinator_t *co = owner;
    gr_reader_t kr;
    int version = gr_coordinator_record_open(key, INT16_MAX, &kr);
    if (version < 0)
        return -EBADMSG;
    gr_arena_t arena;
    gr_arena_init(&arena);
    int rc = -EBADMSG;
    if (version == GR_OFFSET_KEY_VERSION_V0 || version == GR_OFFSET_KEY_VERSION)
        rc = apply_offset(co, origin, &kr, value, &arena);
    else if (version == GR_GROUP_KEY_VERSION)
        rc = apply_group(co, origin->partition, &kr, value, &arena);
    else if (version >= GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_PARTITION_METADATA &&
             version <= GR_COORDINATOR_RECORD_TYPE_SHARE_GROUP_STATE_PARTITION_METADATA)
        rc = gr_sgroup_replay(co, origin->partition, version, &kr, value, &arena);
    else
        rc = gr_cgroup_replay(co, origin->partition, version, &kr, value, &arena);
    gr_arena_fini(&arena);
    return rc;
}

/*
 * A transaction marker (control batch): completes (COMMIT) or drops (ABORT,
 * or a control record of another type, as Kafka's loader) the producer's
 * pending offsets.
 */
static void replay_marker(void *owner, int32_t partition, int64_t producer_id, bool commit)
{
    gr_coordinator_txn_complete(owner, partition, producer_id, commit);
}

static size_t groups_of(gr_coordinator_t *co, int32_t partition)
{
    size_t n = 0;
    for (gr_group_t *g = gr_coordinator_first(co); g; g = gr_coordinator_next(co, g))
        n += g->key.partition == partition;
    return n;
}

static void loaded(void *owner, int32_t partition)
{
    gr_coordinator_t *co = owner;
    gr_cgroup_loaded(co, partition);
    gr_sgroup_loaded(co, partition);
    gr_logf(&co->broker->log, GR_LOG_INFO, "group", "loaded %zu group(s) from %s-%d",
            groups_of(co, partition), GR_OFFSETS_TOPIC, partition);
}

const gr_coordinator_handler_t gr_coordinator_handler = {
    .replay = apply_record,
    .replay_marker = replay_marker,
    .loaded = loaded,
    .unload = gr_coordinator_unload,
};
