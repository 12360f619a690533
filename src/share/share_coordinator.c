/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share coordinator on its runtime (overview in share_coordinator.h):
 * __share_group_state set up from share.coordinator.state.topic.*, the
 * runtime's record handler (replay into the shard, unload drops a
 * partition's keys), routing, and the state RPCs of one key: check, plan
 * (share_coordinator_shard.c), append one record, apply it to memory. The
 * caller waits for the high watermark to reach the returned end.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "protocol/arena.h"
#include "protocol/records.h"
#include "protocol/uuid.h"
#include "protocol/writer.h"
#include "share/share_coordinator_int.h"

#define GR_SHARE_KEY_TEXT_MAX (GR_SHARE_KEY_GROUP_MAX + GR_SHARE_KEY_TEXT_EXTRA)

/* --- keys -------------------------------------------------------------------------- */

/* "<group>:<topic id>:<partition>" into buf: its length, or -1 (no room, a NUL in group). */
static int key_text(gr_str_t group, gr_uuid_t topic_id, int32_t partition, char *buf, size_t cap)
{
    int glen = group.len > 0 ? group.len : 0;
    if (glen && memchr(group.ptr, '\0', (size_t)glen))
        return -1;
    char uuid[GR_UUID_STRING_CHARS + 1];
    gr_uuid_format(topic_id, uuid);
    int n = snprintf(buf, cap, "%.*s:%s:%" PRId32, glen, glen ? group.ptr : "", uuid, partition);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

int gr_share_coordinator_key_format(const gr_share_key_t *key, char *buf, size_t cap)
{
    return key_text(gr_str(key->group_id), key->topic_id, key->partition, buf, cap);
}

int gr_share_record_key_text(const gr_share_record_t *rec, char *buf, size_t cap)
{
    return key_text(rec->group_id, rec->topic_id, rec->partition, buf, cap);
}

/* --- the runtime's handler ----------------------------------------------------------- */

static int replay(void *owner, const gr_coordinator_record_origin_t *origin, gr_bytes_t key,
                  gr_bytes_t value)
{
    gr_share_coordinator_t *co = owner;
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_share_record_t rec;
    char text[GR_SHARE_KEY_TEXT_MAX];
    int rc = gr_share_record_decode(key, value, &arena, &rec);
    int len = rc ? -1 : gr_share_record_key_text(&rec, text, sizeof text);
    if (!rc && len < 0)
        rc = -EBADMSG;
    rec.log_offset = origin->log_offset; /* one record per batch */
    if (!rc)
        rc = gr_share_shard_apply(&co->shard, origin->partition, (gr_str_t){text, len}, &rec);
    gr_arena_fini(&arena);
    return rc;
}

static void loaded(void *owner, int32_t partition)
{
    gr_share_coordinator_t *co = owner;
    size_t keys = 0;
    for (gr_coordinator_key_t *k = gr_coordinator_keys_first(&co->shard.keys); k;
         k = gr_coordinator_keys_next(&co->shard.keys, k))
        keys += k->partition == partition;
    gr_logf(&co->broker->log, GR_LOG_INFO, GR_SHARE_LOG_TAG,
            "loaded %zu share-partition state(s) from %s-%d (epoch %d)", keys, GR_SHARE_STATE_TOPIC,
            partition, gr_coordinator_runtime_epoch(&co->runtime, partition));
}

static size_t unload(void *owner, int32_t partition)
{
    gr_share_coordinator_t *co = owner;
    return gr_share_shard_drop(&co->shard, partition);
}

static const gr_coordinator_handler_t share_handler = {
    .replay = replay,
    .replay_marker = NULL, /* nothing transactional is written here */
    .loaded = loaded,
    .unload = unload,
};

/* --- pruning ------------------------------------------------------------------------ */

/*
 * Moves the log start of each partition coordinated here up to the oldest
 * snapshot its keys still need (Kafka's share coordinator prunes so too):
 * a key's state is its last snapshot and the updates after it, so nothing
 * below the oldest of those snapshots is read by a replay. Followers take
 * the new log start from the leader's fetch responses.
 */
static void prune(gr_share_coordinator_t *co)
{
    int32_t partitions = co->broker->config.share_coordinator_state_topic_num_partitions;
    gr_topic_t *t = gr_coordinator_runtime_topic(&co->runtime);
    if (t)
        partitions = t->partition_count;
    for (int32_t i = 0; i < partitions; i++) {
        if (gr_coordinator_runtime_state(&co->runtime, i) != GR_COORDINATOR_LOADED)
            continue;
        gr_partition_t *p = gr_share_coordinator_led_partition(co, i);
        if (!p || !p->log)
            continue;
        int64_t hw = gr_log_high_watermark(p->log);
        int64_t point = gr_share_shard_prune_point(&co->shard, i, hw);
        if (point <= gr_log_start_offset(p->log))
            continue;
        int rc = gr_log_delete_records_before(p->log, point, NULL);
        gr_logf(&co->broker->log, rc < 0 ? GR_LOG_WARN : GR_LOG_DEBUG, GR_SHARE_LOG_TAG,
                "pruning %s-%d below %lld: %s", GR_SHARE_STATE_TOPIC, i, (long long)point,
                rc < 0 ? strerror(-rc) : "done");
    }
}

static void on_prune_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    prune(w->data);
}

/* --- lifecycle ---------------------------------------------------------------------- */

/*
 * __share_group_state as Kafka creates it: cleanup.policy=delete, not
 * compacted (an update means nothing without the snapshot before it). No
 * time-based retention: a key written once and idle since has only its
 * snapshot, which must outlive any retention.ms; only a pruning of the log
 * start below the oldest snapshot still needed may drop records (not done
 * yet: see src/share/README.md).
 */
static void start_runtime(gr_share_coordinator_t *co)
{
    const gr_config_t *cfg = &co->broker->config;
    snprintf(co->segment_bytes, sizeof co->segment_bytes, "%d",
             cfg->share_coordinator_state_topic_segment_bytes);
    snprintf(co->min_isr, sizeof co->min_isr, "%d", cfg->share_coordinator_state_topic_min_isr);
    co->topic_configs[0] = (gr_topic_config_t){"cleanup.policy", "delete"};
    co->topic_configs[1] = (gr_topic_config_t){"segment.bytes", co->segment_bytes};
    co->topic_configs[2] = (gr_topic_config_t){"min.insync.replicas", co->min_isr};
    co->topic_configs[3] = (gr_topic_config_t){"compression.type", "uncompressed"};
    co->topic_configs[4] = (gr_topic_config_t){"retention.ms", "-1"};
    gr_internal_topic_t topic = {
        .name = GR_SHARE_STATE_TOPIC,
        .factor_key = "share.coordinator.state.topic.replication.factor",
        .log_tag = GR_SHARE_LOG_TAG,
        .partitions = cfg->share_coordinator_state_topic_num_partitions,
        .factor = cfg->share_coordinator_state_topic_replication_factor,
        .configs = co->topic_configs,
        .config_count = (int)(sizeof co->topic_configs / sizeof co->topic_configs[0]),
    };
    gr_coordinator_spec_t spec = {
        .log_tag = GR_SHARE_LOG_TAG,
        .keys = "share-partition state(s)",
        .load_slice = cfg->share_coordinator_load_buffer_size,
        .reload_on_new_epoch = false,
        .serve_failed_replay = false,
    };
    gr_coordinator_runtime_init(&co->runtime, co->broker, &topic, &spec, &share_handler, co);
}

gr_share_coordinator_t *gr_share_coordinator_new(gr_broker_t *b)
{
    gr_share_coordinator_t *co = calloc(1, sizeof *co);
    if (!co)
        return NULL;
    co->broker = b;
    if (gr_share_shard_init(&co->shard,
                            b->config.share_coordinator_snapshot_update_records_per_snapshot)) {
        free(co);
        return NULL;
    }
    start_runtime(co);
    double every = b->config.share_coordinator_state_topic_prune_interval_ms / 1000.0;
    ev_timer_init(&co->prune_timer, on_prune_timer, every, every);
    co->prune_timer.data = co;
    ev_timer_start(b->loop, &co->prune_timer);
    ev_unref(b->loop); /* the timer alone does not keep the loop running */
    return co;
}

void gr_share_coordinator_free(gr_share_coordinator_t *co)
{
    if (!co)
        return;
    if (ev_is_active(&co->prune_timer)) {
        ev_ref(co->broker->loop);
        ev_timer_stop(co->broker->loop, &co->prune_timer);
    }
    gr_coordinator_runtime_fini(&co->runtime);
    gr_share_shard_fini(&co->shard);
    free(co);
}

void gr_share_coordinator_elect(gr_share_coordinator_t *co, int32_t partition, int32_t leader_epoch)
{
    gr_coordinator_runtime_elect(&co->runtime, partition, leader_epoch);
}

void gr_share_coordinator_resign(gr_share_coordinator_t *co, int32_t partition,
                                 int32_t leader_epoch)
{
    gr_coordinator_runtime_resign(&co->runtime, partition, leader_epoch);
}

/* Whether key reads as Kafka's SharePartitionKey parses it: "<group>:<topic id>:<partition>". */
static bool key_text_valid(gr_str_t key)
{
    int32_t last = -1, prev = -1;
    for (int32_t i = 0; i < key.len; i++)
        if (key.ptr[i] == ':') {
            prev = last;
            last = i;
        }
    if (prev <= 0 || last - prev - 1 != GR_UUID_STRING_CHARS || last + 1 >= key.len)
        return false;
    gr_uuid_t id;
    if (gr_uuid_parse(key.ptr + prev + 1, GR_UUID_STRING_CHARS, &id) < 0)
        return false;
    int64_t partition = 0;
    for (int32_t i = last + 1; i < key.len; i++) {
        if (key.ptr[i] < '0' || key.ptr[i] > '9' || partition > INT32_MAX / 10)
            return false;
        partition = partition * 10 + (key.ptr[i] - '0');
    }
    return partition <= INT32_MAX;
}

gr_kerr_t gr_share_coordinator_locate(gr_share_coordinator_t *co, gr_str_t key,
                                      gr_coordinator_node_t *out)
{
    if (!key_text_valid(key))
        return GR_KERR_INVALID_REQUEST;
    return gr_coordinator_runtime_locate(&co->runtime, key, out);
}

bool gr_share_coordinator_creating_topic(gr_share_coordinator_t *co)
{
    return gr_coordinator_runtime_creating_topic(&co->runtime);
}

gr_coordinator_runtime_t *gr_share_coordinator_runtime(gr_share_coordinator_t *co)
{
    return &co->runtime;
}

gr_partition_t *gr_share_coordinator_led_partition(gr_share_coordinator_t *co, int32_t partition)
{
    return gr_coordinator_runtime_led_partition(&co->runtime, partition);
}

/* --- the state RPCs ------------------------------------------------------------------ */

/* A key this broker may serve now, its text in buf: NONE with *partition set. */
static gr_kerr_t check_key(gr_share_coordinator_t *co, const gr_share_key_t *key, char *buf,
                           size_t cap, gr_str_t *id, int32_t *partition)
{
    if (!key->group_id || !key->group_id[0] || strlen(key->group_id) > GR_SHARE_KEY_GROUP_MAX ||
        gr_uuid_is_zero(key->topic_id) || key->partition < 0)
        return GR_KERR_INVALID_REQUEST;
    int len = gr_share_coordinator_key_format(key, buf, cap);
    if (len < 0)
        return GR_KERR_INVALID_REQUEST;
    *id = (gr_str_t){buf, len};
    return gr_coordinator_runtime_check(&co->runtime, *id, partition);
}

/* Kafka's runtime answers a failed append so: the client finds the coordinator again. */
static gr_kerr_t append_error(int rc)
{
    return rc == -EREMOTE ? GR_KERR_NOT_COORDINATOR : GR_KERR_COORDINATOR_NOT_AVAILABLE;
}

/* Appends rec to partition, then applies it to memory. 0 with *end, or -errno. */
static int append_record(gr_share_coordinator_t *co, int32_t partition, gr_str_t id,
                         const gr_share_record_t *rec, int64_t *end)
{
    gr_writer_t k, v;
    gr_writer_init(&k);
    gr_writer_init(&v);
    int rc = gr_share_record_encode(rec, gr_broker_now_ms(co->broker), &k, &v);
    gr_share_record_t placed = *rec;
    if (!rc)
        rc = gr_coordinator_runtime_append(
            &co->runtime, partition, (gr_bytes_t){k.buf, (int32_t)k.len},
            rec->tombstone ? (gr_bytes_t){NULL, GR_NULL_LEN} : (gr_bytes_t){v.buf, (int32_t)v.len},
            &placed.log_offset);
    gr_writer_fini(&k);
    gr_writer_fini(&v);
    if (!rc) {
        *end = placed.log_offset + 1;
        rc = gr_share_shard_apply(&co->shard, partition, id, &placed);
    }
    if (rc && rc != -EAGAIN && rc != -EREMOTE)
        gr_logf(&co->broker->log, GR_LOG_ERROR, GR_SHARE_LOG_TAG, "writing to %s-%d failed: %s",
                GR_SHARE_STATE_TOPIC, partition, strerror(-rc));
    return rc;
}

gr_kerr_t gr_share_coordinator_initialize(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                          int32_t state_epoch, int64_t start_offset,
                                          int32_t *partition, int64_t *end)
{
    char buf[GR_SHARE_KEY_TEXT_MAX];
    gr_str_t id;
    gr_kerr_t err = check_key(co, key, buf, sizeof buf, &id, partition);
    if (err)
        return err;
    if (start_offset < GR_SHARE_START_OFFSET_UNINITIALIZED)
        return GR_KERR_INVALID_REQUEST;
    gr_share_record_t rec;
    err = gr_share_shard_plan_initialize(&co->shard, id, key, state_epoch, start_offset, &rec);
    if (err)
        return err;
    int rc = append_record(co, *partition, id, &rec, end);
    return rc ? append_error(rc) : GR_KERR_NONE;
}

/*
 * A write's batches each make sense (first <= last, a durable state, a
 * count >= 0). They may overlap or come unsorted, as Kafka accepts them:
 * the merge paints them in order.
 */
static bool write_valid(const gr_share_state_t *state)
{
    if (state->start_offset < GR_SHARE_START_OFFSET_UNINITIALIZED || state->batch_count < 0 ||
        (state->batch_count > 0 && !state->batches))
        return false;
    for (int32_t i = 0; i < state->batch_count; i++) {
        const gr_share_state_batch_t *b = &state->batches[i];
        if (b->first_offset < 0 || b->first_offset > b->last_offset ||
            !gr_share_record_state_durable(b->state) || b->delivery_count < 0)
            return false;
    }
    return true;
}

gr_kerr_t gr_share_coordinator_write(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                     const gr_share_state_t *state, int32_t delivery_complete_count,
                                     int32_t *partition, int64_t *end)
{
    char buf[GR_SHARE_KEY_TEXT_MAX];
    gr_str_t id;
    gr_kerr_t err = check_key(co, key, buf, sizeof buf, &id, partition);
    if (err)
        return err;
    if (!write_valid(state))
        return GR_KERR_INVALID_REQUEST;
    gr_share_record_t rec;
    gr_share_state_t scratch;
    err = gr_share_shard_plan_write(&co->shard, id, key, state, delivery_complete_count, &rec,
                                    &scratch);
    if (!err) {
        int rc = append_record(co, *partition, id, &rec, end);
        err = rc ? append_error(rc) : GR_KERR_NONE;
    }
    free(scratch.batches);
    return err;
}

gr_kerr_t gr_share_coordinator_delete(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                      int32_t *partition, int64_t *end)
{
    char buf[GR_SHARE_KEY_TEXT_MAX];
    gr_str_t id;
    gr_kerr_t err = check_key(co, key, buf, sizeof buf, &id, partition);
    *end = 0;
    if (err || !gr_share_shard_find(&co->shard, id))
        return err;
    gr_share_record_t rec = {.key_version = GR_SHARE_SNAPSHOT_KEY_VERSION,
                             .group_id = gr_str(key->group_id),
                             .topic_id = key->topic_id,
                             .partition = key->partition,
                             .tombstone = true,
                             .delivery_complete_count = GR_SHARE_DELIVERY_COMPLETE_UNKNOWN};
    int rc = append_record(co, *partition, id, &rec, end);
    return rc ? append_error(rc) : GR_KERR_NONE;
}

/*
 * The entry a read answers from, fenced at leader_epoch (remembered when
 * remember): NONE with *e, NULL for a key without state.
 */
static gr_kerr_t read_entry(gr_share_coordinator_t *co, const gr_share_key_t *key,
                            int32_t leader_epoch, bool remember, gr_share_entry_t **e)
{
    char buf[GR_SHARE_KEY_TEXT_MAX];
    gr_str_t id;
    int32_t partition;
    gr_kerr_t err = check_key(co, key, buf, sizeof buf, &id, &partition);
    *e = err ? NULL : gr_share_shard_find(&co->shard, id);
    return err || !*e ? err : gr_share_shard_fence_read(*e, leader_epoch, remember);
}

gr_kerr_t gr_share_coordinator_read(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                    int32_t leader_epoch, gr_share_state_t *out)
{
    gr_share_entry_t *e;
    gr_kerr_t err = read_entry(co, key, leader_epoch, true, &e);
    if (!err)
        *out = e ? e->state
                 : (gr_share_state_t){.state_epoch = GR_SHARE_STATE_EPOCH_NONE,
                                      .leader_epoch = -1,
                                      .start_offset = GR_SHARE_START_OFFSET_UNINITIALIZED};
    return err;
}

gr_kerr_t gr_share_coordinator_read_summary(gr_share_coordinator_t *co, const gr_share_key_t *key,
                                            int32_t leader_epoch, gr_share_summary_t *out)
{
    gr_share_entry_t *e;
    gr_kerr_t err = read_entry(co, key, leader_epoch, false, &e);
    if (err)
        return err;
    *out = (gr_share_summary_t){.state_epoch = GR_SHARE_STATE_EPOCH_NONE,
                                .leader_epoch = -1,
                                .start_offset = GR_SHARE_START_OFFSET_UNINITIALIZED,
                                .delivery_complete_count = GR_SHARE_DELIVERY_COMPLETE_UNKNOWN};
    if (e)
        *out = (gr_share_summary_t){.state_epoch = e->state.state_epoch,
                                    .leader_epoch = e->state.leader_epoch,
                                    .start_offset = e->state.start_offset,
                                    .delivery_complete_count = e->delivery_complete};
    return GR_KERR_NONE;
}
