/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing the coordinator's records to __consumer_offsets: offset commits,
 * group metadata, and their tombstones, each write one uncompressed batch
 * appended to the group's partition, which this broker leads (its only
 * writer).
 *
 * A record's key and value are an int16 schema version followed by the
 * schema's fields (Kafka's layout, so Kafka tools can read our topic).
 * The coordinator's own batches have no producer; a TxnOffsetCommit's
 * batch carries the producer's id and epoch, the transactional bit and no
 * sequence, and its offsets stay pending (coordinator_txn.c). Every stored
 * offset remembers its batch's base offset, which orders a transactional
 * commit against a plain one when its transaction commits.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "group/coordinator.h"
#include "log/log.h"
#include "log/producer_state.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "gen/consumer_offsets.h"
#include "group/cgroup.h"
#include "group/coordinator_int.h"
#include "protocol/arena.h"
#include "protocol/records.h"
#include "protocol/writer.h"

typedef gr_record_set_t record_set_t;

static gr_kerr_t write_error(int rc, bool commit);

static void set_init(record_set_t *s)
{
    memset(s, 0, sizeof(*s));
    gr_writer_init(&s->buf);
}

void gr_record_set_init(gr_record_set_t *s)
{
    set_init(s);
}

static void set_fini(record_set_t *s)
{
    gr_writer_fini(&s->buf);
    free(s->key_pos);
    free(s->key_end);
    free(s->value_pos);
    free(s->value_end);
    free(s->tombstone);
}

void gr_record_set_fini(gr_record_set_t *s)
{
    set_fini(s);
}

static int set_reserve(record_set_t *s)
{
    if (s->count < s->cap)
        return 0;
    int32_t cap = s->cap ? s->cap * 2 : 8;
    size_t **arrays[] = {&s->key_pos, &s->key_end, &s->value_pos, &s->value_end};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        size_t *grown = realloc(*arrays[i], sizeof(size_t) * (size_t)cap);
        if (!grown)
            return -ENOMEM;
        *arrays[i] = grown;
    }
    bool *t = realloc(s->tombstone, sizeof(bool) * (size_t)cap);
    if (!t)
        return -ENOMEM;
    s->tombstone = t;
    s->cap = cap;
    return 0;
}

int gr_record_set_key(gr_record_set_t *s, int16_t key_version)
{
    if (set_reserve(s) < 0)
        return -ENOMEM;
    s->key_pos[s->count] = s->buf.len;
    gr_write_int16(&s->buf, key_version);
    return 0;
}

void gr_record_set_value(gr_record_set_t *s, int16_t value_version, bool tombstone)
{
    int32_t i = s->count;
    s->key_end[i] = s->value_pos[i] = s->buf.len;
    s->tombstone[i] = tombstone;
    if (!tombstone)
        gr_write_int16(&s->buf, value_version);
}

int gr_record_set_done(gr_record_set_t *s)
{
    s->value_end[s->count] = s->buf.len;
    s->count++;
    return s->buf.err;
}

int gr_record_set_group_key(gr_record_set_t *s, int16_t type, const char *group, const char *member,
                            int16_t value_version, bool tombstone)
{
    /* Each of these keys is non-flexible strings only: the group id, then the member id. */
    int rc = gr_record_set_key(s, type);
    if (rc)
        return rc; /* no slot for the record: nothing more may be written */
    gr_write_string(&s->buf, gr_str(group), false);
    if (member)
        gr_write_string(&s->buf, gr_str(member), false);
    gr_record_set_value(s, value_version, tombstone);
    return 0;
}

int gr_record_set_tombstones(gr_record_set_t *s, const int16_t *types, size_t n, const char *group,
                             const char *member)
{
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        if (!(rc = gr_record_set_group_key(s, types[i], group, member, 0, true)))
            rc = gr_record_set_done(s);
    return rc;
}

static int add_offset(record_set_t *s, const char *group, gr_str_t topic, int32_t partition,
                      const gr_offset_commit_value_t *value)
{
    if (set_reserve(s) < 0)
        return -ENOMEM;
    int32_t i = s->count;
    gr_offset_commit_key_t key = {.group = gr_str(group), .topic = topic, .partition = partition};
    s->key_pos[i] = s->buf.len;
    gr_write_int16(&s->buf, GR_OFFSET_KEY_VERSION);
    int rc = gr_offset_commit_key_encode(&s->buf, GR_OFFSET_KEY_VERSION, &key);
    s->key_end[i] = s->value_pos[i] = s->buf.len;
    s->tombstone[i] = value == NULL;
    if (value) {
        int16_t v =
            value->expire_timestamp >= 0 ? GR_OFFSET_VALUE_VERSION_EXPIRY : GR_OFFSET_VALUE_VERSION;
        gr_write_int16(&s->buf, v);
        if (!rc)
            rc = gr_offset_commit_value_encode(&s->buf, v, value);
    }
    s->value_end[i] = s->buf.len;
    s->count++;
    return rc ? rc : s->buf.err;
}

static void fill_member(const gr_group_t *g, const gr_member_t *m,
                        gr_group_metadata_value_member_metadata_t *out)
{
    gr_group_metadata_value_member_metadata_init(out);
    out->member_id = gr_str(m->member_id);
    out->group_instance_id = gr_str(m->instance_id);
    out->client_id = gr_str(m->client_id);
    out->client_host = gr_str(m->client_host);
    out->rebalance_timeout = m->rebalance_timeout_ms;
    out->session_timeout = m->session_timeout_ms;
    gr_bytes_t meta = gr_member_metadata(m, g->protocol_name);
    out->subscription = meta.len >= 0 ? meta : (gr_bytes_t){NULL, 0};
    out->assignment = (gr_bytes_t){m->assignment, m->assignment_len};
}

static int add_group(record_set_t *s, const gr_group_t *g, bool tombstone)
{
    if (set_reserve(s) < 0)
        return -ENOMEM;
    int32_t i = s->count;
    gr_group_metadata_key_t key = {.group = gr_str(g->key.id)};
    s->key_pos[i] = s->buf.len;
    gr_write_int16(&s->buf, GR_GROUP_KEY_VERSION);
    int rc = gr_group_metadata_key_encode(&s->buf, GR_GROUP_KEY_VERSION, &key);
    s->key_end[i] = s->value_pos[i] = s->buf.len;
    s->tombstone[i] = tombstone;
    if (!tombstone) {
        gr_group_metadata_value_t value;
        gr_group_metadata_value_init(&value);
        value.protocol_type = gr_str(g->protocol_type ? g->protocol_type : "");
        value.generation = g->generation;
        value.protocol = gr_str(g->protocol_name);
        value.leader = gr_str(g->leader ? g->leader->member_id : NULL);
        value.current_state_timestamp = g->state_timestamp;
        value.members = calloc((size_t)g->member_count + 1, sizeof(*value.members));
        if (!value.members)
            return -ENOMEM;
        for (gr_member_t *m = g->members; m; m = m->next)
            fill_member(g, m, &value.members[value.members_count++]);
        gr_write_int16(&s->buf, GR_GROUP_VALUE_VERSION);
        if (!rc)
            rc = gr_group_metadata_value_encode(&s->buf, GR_GROUP_VALUE_VERSION, &value);
        free(value.members);
    }
    s->value_end[i] = s->buf.len;
    s->count++;
    return rc ? rc : s->buf.err;
}

/*
 * Appends the set as one batch to the group's partition, written for
 * producer (NULL: the coordinator's own). *base: the batch's base offset,
 * *end: past it (each may be NULL). 0 or -errno; -EAGAIN when the ISR is
 * below min.insync.replicas.
 */
static int set_append(gr_coordinator_t *co, int32_t partition, record_set_t *s,
                      const gr_coordinator_producer_t *producer, int64_t *base, int64_t *end)
{
    if (!gr_coordinator_topic(co))
        return -ENOENT;
    if (s->count == 0)
        return gr_coordinator_led_partition(co, partition) ? 0 : -EREMOTE;
    gr_record_t *recs = calloc((size_t)s->count, sizeof(*recs));
    if (!recs)
        return -ENOMEM;
    for (int32_t i = 0; i < s->count; i++) {
        recs[i].offset_delta = i;
        recs[i].key =
            (gr_bytes_t){s->buf.buf + s->key_pos[i], (int32_t)(s->key_end[i] - s->key_pos[i])};
        recs[i].value = s->tombstone[i]
                            ? (gr_bytes_t){NULL, GR_NULL_LEN}
                            : (gr_bytes_t){s->buf.buf + s->value_pos[i],
                                           (int32_t)(s->value_end[i] - s->value_pos[i])};
    }
    gr_log_append_info_t info;
    int rc = gr_coordinator_runtime_append_batch(&co->runtime, partition, recs, s->count, producer,
                                                 &info);
    free(recs);
    if (rc == 0 && base)
        *base = info.first_offset;
    if (rc == 0 && end)
        *end = info.last_offset + 1;
    if (rc && rc != -EREMOTE && rc != -EAGAIN)
        gr_logf(&co->broker->log, GR_LOG_ERROR, "group", "writing to %s-%d failed: %s",
                GR_OFFSETS_TOPIC, partition, strerror(-rc));
    return rc;
}

int gr_record_set_append(gr_coordinator_t *co, int32_t partition, gr_record_set_t *s, int64_t *end)
{
    return set_append(co, partition, s, NULL, NULL, end);
}

/* Kafka's mapping of a failed coordinator write. */
gr_kerr_t gr_coordinator_write_error(int rc)
{
    return write_error(rc, false);
}

static gr_kerr_t write_error(int rc, bool commit)
{
    if (rc == -EMSGSIZE)
        return commit ? GR_KERR_INVALID_COMMIT_OFFSET_SIZE : GR_KERR_UNKNOWN_SERVER_ERROR;
    if (rc == -ENOENT || rc == -EAGAIN) /* no topic yet; the ISR below min.insync.replicas */
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    return GR_KERR_NOT_COORDINATOR;
}

gr_kerr_t gr_coordinator_store_group(void *opaque, gr_group_t *g)
{
    gr_coordinator_t *co = opaque;
    record_set_t s;
    set_init(&s);
    int rc = add_group(&s, g, false);
    if (!rc)
        rc = set_append(co, g->key.partition, &s, NULL, NULL, NULL);
    set_fini(&s);
    return rc ? write_error(rc, false) : GR_KERR_NONE;
}

/* Stores one written commit in g: committed, or pending in the producer's transaction. */
static int commit_apply(gr_coordinator_t *co, gr_group_t *g,
                        const gr_coordinator_producer_t *producer, const gr_offset_commit_t *c,
                        int64_t now, int64_t log_offset)
{
    gr_group_offset_value_t v = {.offset = c->offset,
                                 .leader_epoch = c->leader_epoch,
                                 .metadata = c->metadata,
                                 .commit_timestamp = now,
                                 .expire_timestamp = c->expire_timestamp,
                                 .log_offset = log_offset};
    if (producer) /* a transactional commit: pending until its marker */
        return gr_coordinator_txn_pending_set(co, g, producer->id, c->topic, c->partition, &v);
    return gr_group_offset_set(g, c->topic, c->partition, &v);
}

/* Writes the commits whose *error is NONE as one batch, then stores them in g. */
static void commit_write(gr_coordinator_t *co, gr_group_t *g,
                         const gr_coordinator_producer_t *producer, gr_offset_commit_t *commits,
                         int32_t count, int64_t *written_end)
{
    *written_end = 0;
    int64_t now = gr_broker_now_ms(co->broker);
    record_set_t s;
    set_init(&s);
    int rc = 0;
    for (int32_t i = 0; i < count && !rc; i++) {
        if (*commits[i].error)
            continue;
        gr_offset_commit_value_t v = {.offset = commits[i].offset,
                                      .leader_epoch = commits[i].leader_epoch,
                                      .metadata = commits[i].metadata.len >= 0 ? commits[i].metadata
                                                                               : gr_str(""),
                                      .commit_timestamp = now,
                                      .expire_timestamp = commits[i].expire_timestamp};
        rc = add_offset(&s, g->key.id, commits[i].topic, commits[i].partition, &v);
    }
    int64_t base = -1;
    if (!rc)
        rc = set_append(co, g->key.partition, &s, producer, &base, written_end);
    set_fini(&s);
    for (int32_t i = 0; i < count; i++) {
        gr_offset_commit_t *c = &commits[i];
        if (*c->error)
            continue;
        if (rc)
            *c->error = write_error(rc, true);
        else if (commit_apply(co, g, producer, c, now, base) < 0)
            *c->error = GR_KERR_UNKNOWN_SERVER_ERROR;
    }
}

void gr_coordinator_commit(gr_coordinator_t *co, gr_group_t *g, gr_offset_commit_t *commits,
                           int32_t count, int64_t *written_end)
{
    commit_write(co, g, NULL, commits, count, written_end);
}

/* Is producer_epoch older than the epoch the group's partition has for producer_id? */
static bool producer_fenced(gr_coordinator_t *co, const gr_group_t *g, int64_t producer_id,
                            int16_t producer_epoch)
{
    gr_partition_t *p = gr_coordinator_led_partition(co, g->key.partition);
    const gr_producer_entry_t *e =
        p ? gr_producer_state_find(gr_log_producer_state(p->log), producer_id) : NULL;
    return e && producer_epoch < e->epoch;
}

void gr_coordinator_txn_commit(gr_coordinator_t *co, gr_group_t *g, int64_t producer_id,
                               int16_t producer_epoch, gr_offset_commit_t *commits, int32_t count,
                               int64_t *written_end)
{
    *written_end = 0;
    if (producer_fenced(co, g, producer_id, producer_epoch)) {
        for (int32_t i = 0; i < count; i++)
            if (!*commits[i].error)
                *commits[i].error = GR_KERR_INVALID_PRODUCER_EPOCH;
        return;
    }
    /* Without a producer id Kafka stores a plain commit; so do we. */
    gr_coordinator_producer_t producer = {producer_id, producer_epoch};
    commit_write(co, g, producer_id >= 0 ? &producer : NULL, commits, count, written_end);
}

gr_kerr_t gr_coordinator_delete_offsets(gr_coordinator_t *co, gr_group_t *g, const gr_str_t *topics,
                                        const int32_t *partitions, int32_t count)
{
    record_set_t s;
    set_init(&s);
    int rc = 0;
    for (int32_t i = 0; i < count && !rc; i++)
        if (gr_group_offset_find(g, topics[i], partitions[i]))
            rc = add_offset(&s, g->key.id, topics[i], partitions[i], NULL);
    if (!rc)
        rc = set_append(co, g->key.partition, &s, NULL, NULL, NULL);
    if (!rc) {
        gr_arena_t arena;
        gr_arena_init(&arena);
        /* Copy names first: removing an offset frees the name a caller may pass in. */
        for (int32_t i = 0; i < s.count; i++) {
            gr_reader_t r;
            gr_reader_init(&r, s.buf.buf + s.key_pos[i] + sizeof(int16_t),
                           s.key_end[i] - s.key_pos[i] - sizeof(int16_t));
            gr_offset_commit_key_t key;
            if (gr_offset_commit_key_decode(&r, GR_OFFSET_KEY_VERSION, &arena, &key) == 0)
                gr_group_offset_remove(g, key.topic, key.partition);
        }
        gr_arena_fini(&arena);
    }
    set_fini(&s);
    return rc ? write_error(rc, false) : GR_KERR_NONE;
}

gr_kerr_t gr_coordinator_delete_group(gr_coordinator_t *co, gr_group_t *g)
{
    record_set_t s;
    set_init(&s);
    int rc = 0;
    for (int32_t i = 0; i < g->offset_count && !rc; i++)
        rc = add_offset(&s, g->key.id, gr_str(g->offsets[i].topic), g->offsets[i].partition, NULL);
    if (!rc)
        rc = g->consumer                      ? gr_cgroup_records_tombstones(&s, g)
             : g->type == GR_GROUP_TYPE_SHARE ? gr_sgroup_records_tombstones(&s, g)
                                              : add_group(&s, g, true);
    if (!rc)
        rc = set_append(co, g->key.partition, &s, NULL, NULL, NULL);
    set_fini(&s);
    if (rc)
        return write_error(rc, false);
    gr_group_mark_dead(g, &co->env);
    gr_coordinator_remove(co, g);
    return GR_KERR_NONE;
}
