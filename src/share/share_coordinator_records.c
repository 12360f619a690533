/* SPDX-License-Identifier: Apache-2.0 */
/*
 * __share_group_state records (proto/share_group_state.gp), laid out as
 * Kafka's share coordinator writes them so Kafka's tools read the topic:
 * key = int16 record type (0 ShareSnapshot, 1 ShareUpdate; also the key
 * schema's version) + ShareSnapshotKey / ShareUpdateKey; value = int16
 * version 0 + ShareSnapshotValue / ShareUpdateValue; a tombstone (deleted
 * state) has a null value.
 *
 * Runs on: any thread (pure).
 */
#include <errno.h>
#include <string.h>

#include "coordinator/record.h"
#include "gen/share_group_state.h"
#include "protocol/reader.h"
#include "share/share_coordinator_int.h"

/* --- encoding ---------------------------------------------------------------------- */

static int encode_key(const gr_share_record_t *rec, gr_writer_t *w)
{
    gr_write_int16(w, rec->key_version);
    int rc;
    if (rec->key_version == GR_SHARE_SNAPSHOT_KEY_VERSION) {
        gr_share_snapshot_key_t k;
        gr_share_snapshot_key_init(&k);
        k.group_id = rec->group_id;
        k.topic_id = rec->topic_id;
        k.partition = rec->partition;
        rc = gr_share_snapshot_key_encode(w, GR_SHARE_SNAPSHOT_KEY_VERSION, &k);
    } else {
        gr_share_update_key_t k;
        gr_share_update_key_init(&k);
        k.group_id = rec->group_id;
        k.topic_id = rec->topic_id;
        k.partition = rec->partition;
        rc = gr_share_update_key_encode(w, GR_SHARE_UPDATE_KEY_VERSION, &k);
    }
    return rc ? rc : w->err;
}

/* The generated batch types of both values have the same fields. */
#define COPY_BATCHES(dst, src, n)                                                                  \
    do {                                                                                           \
        for (int32_t i_ = 0; i_ < (n); i_++) {                                                     \
            (dst)[i_].first_offset = (src)[i_].first_offset;                                       \
            (dst)[i_].last_offset = (src)[i_].last_offset;                                         \
            (dst)[i_].delivery_state = (src)[i_].state;                                            \
            (dst)[i_].delivery_count = (src)[i_].delivery_count;                                   \
        }                                                                                          \
    } while (0)

static int encode_snapshot(const gr_share_record_t *rec, int64_t now_ms, gr_arena_t *a,
                           gr_writer_t *w)
{
    gr_share_snapshot_value_t v;
    gr_share_snapshot_value_init(&v);
    v.snapshot_epoch = rec->snapshot_epoch;
    v.state_epoch = rec->state_epoch;
    v.leader_epoch = rec->leader_epoch;
    v.start_offset = rec->start_offset;
    v.delivery_complete_count = rec->delivery_complete_count;
    v.create_timestamp = now_ms;
    v.write_timestamp = now_ms;
    v.state_batches = gr_arena_alloc(a, sizeof *v.state_batches * (size_t)(rec->batch_count + 1));
    if (!v.state_batches)
        return -ENOMEM;
    COPY_BATCHES(v.state_batches, rec->batches, rec->batch_count);
    v.state_batches_count = rec->batch_count;
    return gr_share_snapshot_value_encode(w, GR_SHARE_VALUE_VERSION, &v);
}

static int encode_update(const gr_share_record_t *rec, gr_arena_t *a, gr_writer_t *w)
{
    gr_share_update_value_t v;
    gr_share_update_value_init(&v);
    v.snapshot_epoch = rec->snapshot_epoch;
    v.leader_epoch = rec->leader_epoch;
    v.start_offset = rec->start_offset;
    v.delivery_complete_count = rec->delivery_complete_count;
    v.state_batches = gr_arena_alloc(a, sizeof *v.state_batches * (size_t)(rec->batch_count + 1));
    if (!v.state_batches)
        return -ENOMEM;
    COPY_BATCHES(v.state_batches, rec->batches, rec->batch_count);
    v.state_batches_count = rec->batch_count;
    return gr_share_update_value_encode(w, GR_SHARE_VALUE_VERSION, &v);
}

int gr_share_record_encode(const gr_share_record_t *rec, int64_t now_ms, gr_writer_t *key,
                           gr_writer_t *value)
{
    int rc = encode_key(rec, key);
    if (rc || rec->tombstone)
        return rc;
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_write_int16(value, GR_SHARE_VALUE_VERSION);
    rc = rec->key_version == GR_SHARE_SNAPSHOT_KEY_VERSION
             ? encode_snapshot(rec, now_ms, &arena, value)
             : encode_update(rec, &arena, value);
    gr_arena_fini(&arena);
    return rc ? rc : value->err;
}

/* --- decoding ---------------------------------------------------------------------- */

/* A decoded value's batches as gr_share_state_batch_t (both values' batch types alike). */
#define TAKE_BATCHES(out, src, n)                                                                  \
    do {                                                                                           \
        for (int32_t i_ = 0; i_ < (n); i_++)                                                       \
            (out)[i_] =                                                                            \
                (gr_share_state_batch_t){(src)[i_].first_offset, (src)[i_].last_offset,            \
                                         (src)[i_].delivery_state, (src)[i_].delivery_count};      \
    } while (0)

static gr_share_state_batch_t *batches_alloc(gr_arena_t *a, int32_t count)
{
    return gr_arena_alloc(a, sizeof(gr_share_state_batch_t) * (size_t)(count > 0 ? count : 1));
}

static int decode_snapshot(gr_reader_t *r, int16_t version, gr_arena_t *a, gr_share_record_t *rec)
{
    gr_share_snapshot_value_t v;
    if (gr_share_snapshot_value_decode(r, version, a, &v) < 0)
        return -EBADMSG;
    rec->snapshot_epoch = v.snapshot_epoch;
    rec->state_epoch = v.state_epoch;
    rec->leader_epoch = v.leader_epoch;
    rec->start_offset = v.start_offset;
    rec->delivery_complete_count = v.delivery_complete_count;
    gr_share_state_batch_t *out = batches_alloc(a, v.state_batches_count);
    if (!out)
        return -ENOMEM;
    TAKE_BATCHES(out, v.state_batches, v.state_batches_count);
    rec->batches = out;
    rec->batch_count = v.state_batches_count;
    return 0;
}

static int decode_update(gr_reader_t *r, int16_t version, gr_arena_t *a, gr_share_record_t *rec)
{
    gr_share_update_value_t v;
    if (gr_share_update_value_decode(r, version, a, &v) < 0)
        return -EBADMSG;
    rec->snapshot_epoch = v.snapshot_epoch;
    rec->leader_epoch = v.leader_epoch;
    rec->start_offset = v.start_offset;
    rec->delivery_complete_count = v.delivery_complete_count;
    gr_share_state_batch_t *out = batches_alloc(a, v.state_batches_count);
    if (!out)
        return -ENOMEM;
    TAKE_BATCHES(out, v.state_batches, v.state_batches_count);
    rec->batches = out;
    rec->batch_count = v.state_batches_count;
    return 0;
}

static int decode_key(gr_bytes_t key, gr_arena_t *a, gr_share_record_t *rec)
{
    gr_reader_t r;
    int version = gr_coordinator_record_open(key, GR_SHARE_UPDATE_KEY_VERSION, &r);
    if (version < 0)
        return -EBADMSG;
    rec->key_version = (int16_t)version;
    if (version == GR_SHARE_SNAPSHOT_KEY_VERSION) {
        gr_share_snapshot_key_t k;
        if (gr_share_snapshot_key_decode(&r, (int16_t)version, a, &k) < 0)
            return -EBADMSG;
        rec->group_id = k.group_id;
        rec->topic_id = k.topic_id;
        rec->partition = k.partition;
    } else {
        gr_share_update_key_t k;
        if (gr_share_update_key_decode(&r, (int16_t)version, a, &k) < 0)
            return -EBADMSG;
        rec->group_id = k.group_id;
        rec->topic_id = k.topic_id;
        rec->partition = k.partition;
    }
    return rec->group_id.len > 0 && rec->partition >= 0 ? 0 : -EBADMSG;
}

int gr_share_record_decode(gr_bytes_t key, gr_bytes_t value, gr_arena_t *arena,
                           gr_share_record_t *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->delivery_complete_count = GR_SHARE_DELIVERY_COMPLETE_UNKNOWN;
    int rc = decode_key(key, arena, rec);
    if (rc)
        return rc;
    if (value.len < 0) {
        rec->tombstone = true;
        return 0;
    }
    gr_reader_t r;
    int version = gr_coordinator_record_open(value, GR_SHARE_VALUE_VERSION, &r);
    if (version < 0)
        return -EBADMSG;
    return rec->key_version == GR_SHARE_SNAPSHOT_KEY_VERSION
               ? decode_snapshot(&r, (int16_t)version, arena, rec)
               : decode_update(&r, (int16_t)version, arena, rec);
}
