/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replaying the __consumer_offsets partitions this broker was elected for
 * (coordinator_leadership.c): one partition at a time, from its log start
 * offset to the high watermark, at most offsets.load.buffer.size bytes per
 * loop iteration (an ev_idle watcher of the highest priority, so it runs in
 * every iteration, busy or not), so the broker keeps serving while a large
 * partition replays. A partition's groups answer
 * COORDINATOR_LOAD_IN_PROGRESS until its replay ends; a resignation meanwhile
 * unloads what was replayed and the loader moves on.
 *
 * Records apply in log order, so the last one for a key wins, as after
 * compaction: an offset commit sets the offset, its tombstone removes it; a
 * group metadata record replaces the group's generation and members, its
 * tombstone resets the group (which disappears if no offsets, committed or
 * pending, remain). Records of unknown key versions (the new consumer
 * protocol's) are skipped.
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

#include "core/context.h"
#include "group/coordinator.h"
#include "log/log.h"
#include "log/log_replay.h"
#include "metadata/topics.h"
#include "gen/consumer_offsets.h"
#include "group/coordinator_int.h"
#include "group/group_int.h"
#include "protocol/arena.h"
#include "protocol/control_batch.h"
#include "protocol/reader.h"
#include "protocol/records.h"

static gr_group_t *group_for(gr_coordinator_t *co, int32_t partition, gr_str_t id)
{
    return gr_coordinator_get_or_create(co, id, partition);
}

static int apply_offset(gr_coordinator_t *co, const gr_record_origin_t *origin, gr_reader_t *kr,
                        gr_bytes_t value, gr_arena_t *arena)
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
    gr_reader_init(&vr, value.ptr, (size_t)value.len);
    int16_t version = gr_read_int16(&vr);
    gr_offset_commit_value_t val;
    if (vr.err || version < 0 || version > GR_OFFSET_COMMIT_VALUE_MAX_VERSION ||
        gr_offset_commit_value_decode(&vr, version, arena, &val) < 0)
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
    gr_reader_init(&vr, value.ptr, (size_t)value.len);
    int16_t v = gr_read_int16(&vr);
    gr_group_metadata_value_t val;
    if (vr.err || v < 0 || v > GR_GROUP_METADATA_VALUE_MAX_VERSION ||
        gr_group_metadata_value_decode(&vr, v, arena, &val) < 0)
        return -EBADMSG;
    if (!g && !(g = group_for(co, partition, key.group)))
        return -ENOMEM;
    return load_group_value(co, g, &val, arena);
}

int gr_coordinator_apply_record(gr_coordinator_t *co, const gr_record_origin_t *origin,
                                gr_bytes_t key, gr_bytes_t value)
{
    if (key.len < 0)
        return -EBADMSG;
    gr_reader_t kr;
    gr_reader_init(&kr, key.ptr, (size_t)key.len);
    int16_t version = gr_read_int16(&kr);
    if (kr.err)
        return -EBADMSG;
    gr_arena_t arena;
    gr_arena_init(&arena);
    int rc = -EBADMSG;
    if (version == GR_OFFSET_KEY_VERSION_V0 || version == GR_OFFSET_KEY_VERSION)
        rc = apply_offset(co, origin, &kr, value, &arena);
    else if (version == GR_GROUP_KEY_VERSION)
        rc = apply_group(co, origin->partition, &kr, value, &arena);
    gr_arena_fini(&arena);
    return rc;
}

/*
 * A transaction marker: completes (COMMIT) or drops (ABORT, or a control
 * record of another type, as Kafka's loader) the producer's pending offsets.
 */
static void replay_marker(gr_coordinator_t *co, int32_t partition, const uint8_t *batch,
                          size_t size, const gr_batch_header_t *h)
{
    gr_control_marker_t marker;
    if (gr_control_batch_parse(batch, size, h, &marker) < 0) {
        gr_logf(&co->broker->log, GR_LOG_WARN, "group",
                "%s-%d: skipping an unreadable control batch at offset %" PRId64, GR_OFFSETS_TOPIC,
                partition, h->base_offset);
        return;
    }
    gr_coordinator_txn_complete(co, partition, h->producer_id,
                                marker.type == GR_CONTROL_TYPE_COMMIT);
}

/* Applies every record of one whole batch. */
static void replay_batch(gr_coordinator_t *co, int32_t partition, const uint8_t *batch, size_t size,
                         const gr_batch_header_t *h)
{
    if (gr_batch_is_control(h)) {
        replay_marker(co, partition, batch, size, h);
        return;
    }
    gr_record_origin_t origin = {
        .partition = partition,
        .producer_id = gr_batch_is_transactional(h) ? h->producer_id : -1,
        .log_offset = h->base_offset,
    };
    uint8_t *records;
    size_t len;
    if (gr_batch_decompress(batch, size, &records, &len) < 0) {
        gr_logf(&co->broker->log, GR_LOG_WARN, "group",
                "%s-%d: skipping an unreadable batch at offset %" PRId64, GR_OFFSETS_TOPIC,
                partition, h->base_offset);
        return;
    }
    gr_record_iter_t it;
    gr_record_iter_init(&it, records, len, h->records_count);
    gr_record_t rec;
    while (gr_record_iter_next(&it, &rec) == 1) {
        int rc = gr_coordinator_apply_record(co, &origin, rec.key, rec.value);
        if (rc == -ENOMEM)
            gr_logf(&co->broker->log, GR_LOG_ERROR, "group", "out of memory replaying %s-%d",
                    GR_OFFSETS_TOPIC, partition);
    }
    free(records);
}

typedef struct replay_target {
    gr_coordinator_t *co;
    int32_t partition;
} replay_target_t;

static void replay_one(void *arg, const uint8_t *batch, size_t size, const gr_batch_header_t *h)
{
    replay_target_t *t = arg;
    replay_batch(t->co, t->partition, batch, size, h);
}

/* One slice of p's log (offsets.load.buffer.size). 1 at its end, 0 for more, or -errno. */
static int replay_slice(gr_coordinator_t *co, gr_partition_t *p)
{
    replay_target_t t = {co, p->index};
    return gr_log_replay_slice(p->log, &co->load_offset,
                               co->broker->config.offsets_load_buffer_size, replay_one, &t);
}

static size_t groups_of(const gr_coordinator_t *co, int32_t partition)
{
    size_t n = 0;
    for (size_t b = 0; b < co->bucket_count; b++)
        for (const gr_group_t *g = co->buckets[b]; g; g = g->next)
            n += g->coordinator_partition == partition;
    return n;
}

/* Picks the partition to replay next; false when none is left (the loader stops). */
static bool pick_partition(gr_coordinator_t *co)
{
    if (co->load_partition >= 0 &&
        gr_coordinator_load_state(co, co->load_partition) == GR_LOAD_LOADING)
        return true;
    co->load_partition = gr_coordinator_slots_next_loading(&co->slots);
    if (co->load_partition < 0)
        return false;
    gr_partition_t *p = gr_coordinator_led_partition(co, co->load_partition);
    co->load_offset = p ? gr_log_start_offset(p->log) : 0;
    return true;
}

static void loader_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
    (void)revents;
    gr_coordinator_t *co = w->data;
    if (!pick_partition(co)) {
        ev_idle_stop(loop, w);
        return;
    }
    int32_t partition = co->load_partition;
    /* Resigned partitions leave LOADING at once; one no longer led here has nothing to read. */
    gr_partition_t *p = gr_coordinator_led_partition(co, partition);
    int rc = p ? replay_slice(co, p) : -ENOENT;
    if (rc == 0)
        return;
    if (rc < 0)
        gr_logf(&co->broker->log, GR_LOG_ERROR, "group", "replaying %s-%d failed: %s",
                GR_OFFSETS_TOPIC, partition, strerror(-rc));
    co->slots.items[partition].load = GR_LOAD_DONE;
    co->load_partition = -1;
    gr_logf(&co->broker->log, GR_LOG_INFO, "group", "loaded %zu group(s) from %s-%d",
            groups_of(co, partition), GR_OFFSETS_TOPIC, partition);
}

void gr_coordinator_load_begin(gr_coordinator_t *co)
{
    if (ev_is_active(&co->loader) || gr_coordinator_slots_next_loading(&co->slots) < 0)
        return;
    ev_idle_init(&co->loader, loader_cb);
    /* At the default priority an idle watcher runs only when no I/O is pending,
     * so a busy broker would never finish a replay: one slice per iteration. */
    ev_set_priority(&co->loader, EV_MAXPRI);
    co->loader.data = co;
    ev_idle_start(co->broker->loop, &co->loader);
}

void gr_coordinator_load_stop(gr_coordinator_t *co)
{
    if (ev_is_active(&co->loader))
        ev_idle_stop(co->broker->loop, &co->loader);
    co->load_partition = -1;
}
