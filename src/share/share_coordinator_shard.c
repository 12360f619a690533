/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share coordinator's memory (see share_coordinator_int.h): entries per
 * coordinator key, the merge of a write into a state, the fencing of reads
 * and writes, and the choice of record a write or an initialize becomes.
 *
 * The merge paints ranges: each incoming batch cuts what it overlaps out of
 * the batches present and takes its place, so the newest word on an offset
 * wins (a leader writes its current view of the ranges it names). Kafka's
 * combiner ranks overlaps by delivery count then state instead; the two
 * agree for a leader whose writes only move records forward, and painting
 * keeps a reset by the admin (an initialize) or a new leader's rewrite
 * exact. Below the start offset nothing is kept.
 *
 * Invariant: an entry's state passes gr_share_state_check.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "share/share_coordinator_int.h"

#define GR_SHARE_BUCKETS 1024

/* --- entries ----------------------------------------------------------------------- */

static void entry_free(gr_share_entry_t *e)
{
    free(e->key.id);
    free(e->state.batches);
    free(e);
}

static void drop_one(gr_coordinator_key_t *k, void *arg)
{
    (void)arg;
    entry_free(GR_COORDINATOR_ENTRY(k, gr_share_entry_t, key));
}

int gr_share_shard_init(gr_share_shard_t *s, int32_t updates_per_snapshot)
{
    memset(s, 0, sizeof *s);
    s->updates_per_snapshot = updates_per_snapshot;
    return gr_coordinator_keys_init(&s->keys, GR_SHARE_BUCKETS);
}

void gr_share_shard_fini(gr_share_shard_t *s)
{
    if (!s->keys.buckets)
        return;
    (void)gr_share_shard_drop(s, -1);
    gr_coordinator_keys_fini(&s->keys);
}

size_t gr_share_shard_drop(gr_share_shard_t *s, int32_t partition)
{
    return gr_coordinator_keys_drop(&s->keys, partition, drop_one, NULL);
}

gr_share_entry_t *gr_share_shard_find(gr_share_shard_t *s, gr_str_t id)
{
    gr_coordinator_key_t *k = gr_coordinator_keys_find(&s->keys, id);
    return k ? GR_COORDINATOR_ENTRY(k, gr_share_entry_t, key) : NULL;
}

static gr_share_entry_t *entry_add(gr_share_shard_t *s, int32_t partition, gr_str_t id)
{
    gr_share_entry_t *e = calloc(1, sizeof *e);
    char *text = e ? malloc((size_t)id.len + 1) : NULL;
    if (!text) {
        free(e);
        return NULL;
    }
    memcpy(text, id.ptr, (size_t)id.len);
    text[id.len] = '\0';
    e->key.id = text;
    e->key.partition = partition;
    e->state.start_offset = GR_SHARE_START_OFFSET_UNINITIALIZED;
    e->state.leader_epoch = -1;
    e->fence_leader_epoch = -1;
    e->delivery_complete = GR_SHARE_DELIVERY_COMPLETE_UNKNOWN;
    gr_coordinator_keys_add(&s->keys, &e->key);
    return e;
}

/* --- merge ------------------------------------------------------------------------- */

/* An array of n batches (at least one), or NULL. */
static gr_share_state_batch_t *batches_new(int64_t n)
{
    if (n > INT32_MAX)
        return NULL;
    return malloc(sizeof(gr_share_state_batch_t) * (size_t)(n > 0 ? n : 1));
}

/* Paints b over v (sorted, disjoint, *count of them) into out (room for *count + 2). */
static int32_t paint(const gr_share_state_batch_t *v, int32_t count,
                     const gr_share_state_batch_t *b, gr_share_state_batch_t *out)
{
    int32_t n = 0;
    bool placed = false;
    for (int32_t i = 0; i < count; i++) {
        gr_share_state_batch_t cur = v[i];
        if (cur.last_offset < b->first_offset) {
            out[n++] = cur;
            continue;
        }
        if (cur.first_offset < b->first_offset) { /* the part before b */
            gr_share_state_batch_t head = cur;
            head.last_offset = b->first_offset - 1;
            out[n++] = head;
        }
        if (!placed) {
            out[n++] = *b;
            placed = true;
        }
        if (cur.last_offset > b->last_offset) { /* the part after b */
            gr_share_state_batch_t tail = cur;
            if (tail.first_offset <= b->last_offset)
                tail.first_offset = b->last_offset + 1;
            out[n++] = tail;
        }
    }
    if (!placed)
        out[n++] = *b;
    return n;
}

/* Drops what lies below start, joins neighbours alike; in place. Returns the new count. */
static int32_t trim_and_join(gr_share_state_batch_t *v, int32_t count, int64_t start)
{
    int32_t n = 0;
    for (int32_t i = 0; i < count; i++) {
        gr_share_state_batch_t b = v[i];
        if (start >= 0 && b.last_offset < start)
            continue;
        if (start >= 0 && b.first_offset < start)
            b.first_offset = start;
        if (n > 0 && v[n - 1].last_offset + 1 == b.first_offset && v[n - 1].state == b.state &&
            v[n - 1].delivery_count == b.delivery_count) {
            v[n - 1].last_offset = b.last_offset;
            continue;
        }
        v[n++] = b;
    }
    return n;
}

int gr_share_state_merge(gr_share_state_t *state, const gr_share_state_batch_t *batches,
                         int32_t count, int64_t start_offset)
{
    int32_t n = state->batch_count;
    /* Each painted batch splits at most one present batch in two. */
    int64_t need = (int64_t)n + 2 * (int64_t)count + 1;
    gr_share_state_batch_t *a = batches_new(need), *b = batches_new(need);
    if (!a || !b) {
        free(a);
        free(b);
        return -ENOMEM;
    }
    if (n > 0)
        memcpy(a, state->batches, sizeof *a * (size_t)n);
    for (int32_t i = 0; i < count; i++) {
        n = paint(a, n, &batches[i], b);
        gr_share_state_batch_t *t = a;
        a = b;
        b = t;
    }
    free(b);
    if (start_offset >= 0)
        state->start_offset = start_offset;
    n = trim_and_join(a, n, state->start_offset);
    free(state->batches);
    state->batches = a;
    state->batch_count = n;
    return 0;
}

/* --- records ----------------------------------------------------------------------- */

static int apply_snapshot(gr_share_entry_t *e, const gr_share_record_t *rec)
{
    gr_share_state_t fresh = {.state_epoch = rec->state_epoch,
                              .leader_epoch = rec->leader_epoch,
                              .start_offset = rec->start_offset};
    if (gr_share_state_merge(&fresh, rec->batches, rec->batch_count, rec->start_offset))
        return -ENOMEM;
    free(e->state.batches);
    e->state = fresh;
    e->snapshot_epoch = rec->snapshot_epoch;
    e->snapshot_offset = rec->log_offset;
    e->updates = 0;
    return 0;
}

static int apply_update(gr_share_entry_t *e, const gr_share_record_t *rec)
{
    if (gr_share_state_merge(&e->state, rec->batches, rec->batch_count, rec->start_offset))
        return -ENOMEM;
    if (rec->leader_epoch >= 0)
        e->state.leader_epoch = rec->leader_epoch;
    e->updates++;
    return 0;
}

int gr_share_shard_apply(gr_share_shard_t *s, int32_t partition, gr_str_t id,
                         const gr_share_record_t *rec)
{
    if (id.len <= 0 || (rec->key_version != GR_SHARE_SNAPSHOT_KEY_VERSION &&
                        rec->key_version != GR_SHARE_UPDATE_KEY_VERSION))
        return -EBADMSG;
    gr_share_entry_t *e = gr_share_shard_find(s, id);
    if (rec->tombstone) {
        if (e) {
            gr_coordinator_keys_remove(&s->keys, &e->key);
            entry_free(e);
        }
        return 0;
    }
    if (!e && !(e = entry_add(s, partition, id)))
        return -ENOMEM;
    int rc = rec->key_version == GR_SHARE_SNAPSHOT_KEY_VERSION ? apply_snapshot(e, rec)
                                                               : apply_update(e, rec);
    if (rc == 0)
        e->delivery_complete = rec->delivery_complete_count;
    if (rc == 0 && rec->leader_epoch > e->fence_leader_epoch)
        e->fence_leader_epoch = rec->leader_epoch;
    return rc;
}

/* --- planning ---------------------------------------------------------------------- */

static void record_key(gr_share_record_t *rec, int16_t version, const gr_share_key_t *key)
{
    memset(rec, 0, sizeof *rec);
    rec->key_version = version;
    rec->group_id = gr_str(key->group_id);
    rec->topic_id = key->topic_id;
    rec->partition = key->partition;
    rec->delivery_complete_count = GR_SHARE_DELIVERY_COMPLETE_UNKNOWN;
}

gr_kerr_t gr_share_shard_plan_write(gr_share_shard_t *s, gr_str_t id, const gr_share_key_t *key,
                                    const gr_share_state_t *state, int32_t delivery_complete_count,
                                    gr_share_record_t *rec, gr_share_state_t *scratch)
{
    gr_share_entry_t *e = gr_share_shard_find(s, id);
    memset(scratch, 0, sizeof *scratch);
    if (e && e->fence_leader_epoch > state->leader_epoch)
        return GR_KERR_FENCED_LEADER_EPOCH;
    if (e && e->state.state_epoch > state->state_epoch)
        return GR_KERR_FENCED_STATE_EPOCH;
    bool snapshot = !e || e->updates >= s->updates_per_snapshot;
    const gr_share_state_t *logged = state; /* an update carries the write itself */
    if (snapshot) {
        /* A snapshot of what the state becomes: the merge applied to a copy. */
        scratch->start_offset = e ? e->state.start_offset : GR_SHARE_START_OFFSET_UNINITIALIZED;
        if ((e && gr_share_state_merge(scratch, e->state.batches, e->state.batch_count, -1)) ||
            gr_share_state_merge(scratch, state->batches, state->batch_count, state->start_offset))
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        logged = scratch;
    }
    record_key(rec, snapshot ? GR_SHARE_SNAPSHOT_KEY_VERSION : GR_SHARE_UPDATE_KEY_VERSION, key);
    rec->snapshot_epoch = !e ? 0 : e->snapshot_epoch + (snapshot ? 1 : 0);
    rec->state_epoch = state->state_epoch; /* a snapshot's only */
    rec->leader_epoch = state->leader_epoch;
    rec->start_offset = logged->start_offset;
    rec->batches = logged->batches;
    rec->batch_count = logged->batch_count;
    rec->delivery_complete_count = delivery_complete_count;
    return GR_KERR_NONE;
}

gr_kerr_t gr_share_shard_plan_initialize(gr_share_shard_t *s, gr_str_t id,
                                         const gr_share_key_t *key, int32_t state_epoch,
                                         int64_t start_offset, gr_share_record_t *rec)
{
    gr_share_entry_t *e = gr_share_shard_find(s, id);
    if (e && e->state.state_epoch > state_epoch)
        return GR_KERR_FENCED_STATE_EPOCH;
    record_key(rec, GR_SHARE_SNAPSHOT_KEY_VERSION, key);
    rec->snapshot_epoch = e ? e->snapshot_epoch + 1 : 0;
    rec->state_epoch = state_epoch;
    rec->leader_epoch = -1;
    rec->start_offset = start_offset;
    return GR_KERR_NONE;
}

int64_t gr_share_shard_prune_point(gr_share_shard_t *s, int32_t partition, int64_t end)
{
    int64_t point = end;
    for (gr_coordinator_key_t *k = gr_coordinator_keys_first(&s->keys); k;
         k = gr_coordinator_keys_next(&s->keys, k)) {
        if (k->partition != partition)
            continue;
        int64_t at = GR_COORDINATOR_ENTRY(k, gr_share_entry_t, key)->snapshot_offset;
        if (at >= end)
            return -1;
        if (at < point)
            point = at;
    }
    return point;
}

gr_kerr_t gr_share_shard_fence_read(gr_share_entry_t *e, int32_t leader_epoch, bool remember)
{
    if (leader_epoch < 0)
        return GR_KERR_NONE;
    if (e->fence_leader_epoch > leader_epoch)
        return GR_KERR_FENCED_LEADER_EPOCH;
    if (remember)
        e->fence_leader_epoch = leader_epoch;
    return GR_KERR_NONE;
}
