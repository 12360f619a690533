/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share coordinator's memory (share/share_coordinator_int.h): the merge
 * of a write's batches, the choice between ShareUpdate and ShareSnapshot,
 * fencing, and that replaying the records a sequence of writes produced
 * rebuilds the state those writes left (through the record codec too).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/arena.h"
#include "protocol/writer.h"
#include "share/share_coordinator_int.h"

#define AV  GR_SHARE_RECORD_AVAILABLE
#define ACK GR_SHARE_RECORD_ACKNOWLEDGED
#define ARC GR_SHARE_RECORD_ARCHIVED

typedef gr_share_state_batch_t batch_t;

static gr_share_key_t test_key(void)
{
    gr_share_key_t k = {.group_id = "g1", .partition = 3};
    for (int i = 0; i < 16; i++)
        k.topic_id.b[i] = (uint8_t)(i + 1);
    return k;
}

static gr_str_t key_id(const gr_share_key_t *k, char *buf, size_t cap)
{
    int n = gr_share_coordinator_key_format(k, buf, cap);
    assert_true(n > 0);
    return (gr_str_t){buf, n};
}

static void assert_batches(const gr_share_state_t *s, const batch_t *want, int32_t count)
{
    assert_int_equal(s->batch_count, count);
    for (int32_t i = 0; i < count; i++) {
        assert_int_equal(s->batches[i].first_offset, want[i].first_offset);
        assert_int_equal(s->batches[i].last_offset, want[i].last_offset);
        assert_int_equal(s->batches[i].state, want[i].state);
        assert_int_equal(s->batches[i].delivery_count, want[i].delivery_count);
    }
    assert_int_equal(gr_share_state_check(s), 0);
}

/* A write replaces the ranges it covers, splitting what it lands inside. */
static void merge_paints_over(void **st)
{
    (void)st;
    gr_share_state_t s = {.start_offset = 0};
    batch_t first[] = {{0, 99, AV, 1}};
    assert_int_equal(gr_share_state_merge(&s, first, 1, 0), 0);
    batch_t mid[] = {{10, 19, ACK, 1}, {50, 59, ARC, 5}};
    assert_int_equal(gr_share_state_merge(&s, mid, 2, -1), 0);
    batch_t want[] = {
        {0, 9, AV, 1}, {10, 19, ACK, 1}, {20, 49, AV, 1}, {50, 59, ARC, 5}, {60, 99, AV, 1}};
    assert_batches(&s, want, 5);
    assert_int_equal(s.start_offset, 0);
    free(s.batches);
}

/* The start offset drops what is below it and cuts a batch across it. */
static void merge_drops_below_start(void **st)
{
    (void)st;
    gr_share_state_t s = {.start_offset = 0};
    batch_t b[] = {{0, 9, ACK, 1}, {10, 29, AV, 2}, {30, 39, ARC, 1}};
    assert_int_equal(gr_share_state_merge(&s, b, 3, 0), 0);
    assert_int_equal(gr_share_state_merge(&s, NULL, 0, 15), 0);
    batch_t want[] = {{15, 29, AV, 2}, {30, 39, ARC, 1}};
    assert_batches(&s, want, 2);
    assert_int_equal(s.start_offset, 15);
    free(s.batches);
}

/* Neighbours alike are joined; overlapping batches of one write: the later wins. */
static void merge_joins_and_orders(void **st)
{
    (void)st;
    gr_share_state_t s = {.start_offset = 100};
    batch_t b[] = {{100, 104, ACK, 1}, {110, 120, AV, 1}, {105, 109, ACK, 1}, {115, 130, ARC, 2}};
    assert_int_equal(gr_share_state_merge(&s, b, 4, -1), 0);
    batch_t want[] = {{100, 109, ACK, 1}, {110, 114, AV, 1}, {115, 130, ARC, 2}};
    assert_batches(&s, want, 3);
    /* a batch spanning several */
    batch_t wide[] = {{103, 125, AV, 3}};
    assert_int_equal(gr_share_state_merge(&s, wide, 1, -1), 0);
    batch_t want2[] = {{100, 102, ACK, 1}, {103, 125, AV, 3}, {126, 130, ARC, 2}};
    assert_batches(&s, want2, 3);
    free(s.batches);
}

/* A write to a new key is a snapshot; then updates until the count; then a snapshot. */
static void plan_snapshot_every_n(void **st)
{
    (void)st;
    gr_share_shard_t shard;
    assert_int_equal(gr_share_shard_init(&shard, 2), 0);
    gr_share_key_t key = test_key();
    char buf[128];
    gr_str_t id = key_id(&key, buf, sizeof buf);
    int16_t kinds[5];
    for (int i = 0; i < 5; i++) {
        batch_t b[] = {{i * 10, i * 10 + 4, ACK, 1}};
        gr_share_state_t w = {.state_epoch = 1,
                              .leader_epoch = 4,
                              .start_offset = i == 0 ? 0 : -1,
                              .batches = b,
                              .batch_count = 1};
        gr_share_record_t rec;
        gr_share_state_t scratch;
        assert_int_equal(gr_share_shard_plan_write(&shard, id, &key, &w, -1, &rec, &scratch),
                         GR_KERR_NONE);
        kinds[i] = rec.key_version;
        assert_int_equal(gr_share_shard_apply(&shard, 7, id, &rec), 0);
        free(scratch.batches);
    }
    assert_int_equal(kinds[0], GR_SHARE_SNAPSHOT_KEY_VERSION);
    assert_int_equal(kinds[1], GR_SHARE_UPDATE_KEY_VERSION);
    assert_int_equal(kinds[2], GR_SHARE_UPDATE_KEY_VERSION);
    assert_int_equal(kinds[3], GR_SHARE_SNAPSHOT_KEY_VERSION);
    assert_int_equal(kinds[4], GR_SHARE_UPDATE_KEY_VERSION);
    gr_share_entry_t *e = gr_share_shard_find(&shard, id);
    assert_non_null(e);
    assert_int_equal(e->snapshot_epoch, 1);
    assert_int_equal(e->key.partition, 7);
    batch_t want[] = {
        {0, 4, ACK, 1}, {10, 14, ACK, 1}, {20, 24, ACK, 1}, {30, 34, ACK, 1}, {40, 44, ACK, 1}};
    assert_batches(&e->state, want, 5);
    gr_share_shard_fini(&shard);
}

/* Older leader or state epochs are fenced; a read remembers a newer leader epoch. */
static void plan_fences(void **st)
{
    (void)st;
    gr_share_shard_t shard;
    assert_int_equal(gr_share_shard_init(&shard, 500), 0);
    gr_share_key_t key = test_key();
    char buf[128];
    gr_str_t id = key_id(&key, buf, sizeof buf);
    gr_share_record_t rec;
    assert_int_equal(gr_share_shard_plan_initialize(&shard, id, &key, 2, 0, &rec), GR_KERR_NONE);
    assert_int_equal(gr_share_shard_apply(&shard, 0, id, &rec), 0);
    assert_int_equal(gr_share_shard_plan_initialize(&shard, id, &key, 1, 0, &rec),
                     GR_KERR_FENCED_STATE_EPOCH);
    gr_share_state_t w = {.state_epoch = 1, .leader_epoch = 5, .start_offset = -1};
    gr_share_state_t scratch;
    assert_int_equal(gr_share_shard_plan_write(&shard, id, &key, &w, -1, &rec, &scratch),
                     GR_KERR_FENCED_STATE_EPOCH);
    gr_share_entry_t *e = gr_share_shard_find(&shard, id);
    assert_int_equal(gr_share_shard_fence_read(e, 6, true), GR_KERR_NONE);
    assert_int_equal(gr_share_shard_fence_read(e, 5, true), GR_KERR_FENCED_LEADER_EPOCH);
    assert_int_equal(gr_share_shard_fence_read(e, -1, false), GR_KERR_NONE);
    w.state_epoch = 2;
    assert_int_equal(gr_share_shard_plan_write(&shard, id, &key, &w, -1, &rec, &scratch),
                     GR_KERR_FENCED_LEADER_EPOCH);
    w.leader_epoch = 6;
    assert_int_equal(gr_share_shard_plan_write(&shard, id, &key, &w, -1, &rec, &scratch),
                     GR_KERR_NONE);
    free(scratch.batches);
    gr_share_shard_fini(&shard);
}

/* Records encoded, decoded and replayed into a fresh shard give the same state. */
typedef struct logged {
    uint8_t *key, *value;
    size_t key_len, value_len;
    bool tombstone;
} logged_t;

static void log_record(logged_t *l, const gr_share_record_t *rec)
{
    gr_writer_t k, v;
    gr_writer_init(&k);
    gr_writer_init(&v);
    assert_int_equal(gr_share_record_encode(rec, 1000, &k, &v), 0);
    l->key = malloc(k.len);
    memcpy(l->key, k.buf, k.len);
    l->key_len = k.len;
    l->tombstone = rec->tombstone;
    l->value = malloc(v.len + 1);
    if (v.len > 0)
        memcpy(l->value, v.buf, v.len);
    l->value_len = v.len;
    gr_writer_fini(&k);
    gr_writer_fini(&v);
}

static void replay_one(gr_share_shard_t *s, const logged_t *l)
{
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_share_record_t rec;
    gr_bytes_t value = l->tombstone ? (gr_bytes_t){NULL, GR_NULL_LEN}
                                    : (gr_bytes_t){l->value, (int32_t)l->value_len};
    assert_int_equal(
        gr_share_record_decode((gr_bytes_t){l->key, (int32_t)l->key_len}, value, &arena, &rec), 0);
    char buf[128];
    int n = gr_share_record_key_text(&rec, buf, sizeof buf);
    assert_true(n > 0);
    assert_int_equal(gr_share_shard_apply(s, 0, (gr_str_t){buf, n}, &rec), 0);
    gr_arena_fini(&arena);
}

static void replay_rebuilds(void **st)
{
    (void)st;
    gr_share_shard_t live, again;
    assert_int_equal(gr_share_shard_init(&live, 3), 0);
    assert_int_equal(gr_share_shard_init(&again, 3), 0);
    gr_share_key_t key = test_key();
    char buf[128];
    gr_str_t id = key_id(&key, buf, sizeof buf);
    logged_t log[16];
    int n = 0;
    gr_share_record_t rec;
    assert_int_equal(gr_share_shard_plan_initialize(&live, id, &key, 1, 0, &rec), GR_KERR_NONE);
    assert_int_equal(gr_share_shard_apply(&live, 0, id, &rec), 0);
    log_record(&log[n++], &rec);
    for (int i = 0; i < 8; i++) {
        batch_t b[] = {{i * 5, i * 5 + 2, ACK, 1}, {i * 5 + 3, i * 5 + 4, AV, 2}};
        gr_share_state_t w = {.state_epoch = 1,
                              .leader_epoch = 1,
                              .start_offset = i >= 4 ? (i - 3) * 5 : -1,
                              .batches = b,
                              .batch_count = 2};
        gr_share_state_t scratch;
        assert_int_equal(gr_share_shard_plan_write(&live, id, &key, &w, 7, &rec, &scratch),
                         GR_KERR_NONE);
        assert_int_equal(gr_share_shard_apply(&live, 0, id, &rec), 0);
        log_record(&log[n++], &rec);
        free(scratch.batches);
    }
    for (int i = 0; i < n; i++)
        replay_one(&again, &log[i]);
    gr_share_entry_t *a = gr_share_shard_find(&live, id), *b = gr_share_shard_find(&again, id);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->state.start_offset, 20);
    assert_int_equal(b->state.start_offset, a->state.start_offset);
    assert_int_equal(b->state.state_epoch, 1);
    assert_int_equal(b->state.leader_epoch, 1);
    assert_batches(&b->state, a->state.batches, a->state.batch_count);
    assert_int_equal(b->snapshot_epoch, a->snapshot_epoch);
    assert_int_equal(b->updates, a->updates);
    assert_int_equal(b->delivery_complete, 7);
    /* a tombstone forgets the key in both */
    rec = (gr_share_record_t){.key_version = GR_SHARE_SNAPSHOT_KEY_VERSION,
                              .group_id = gr_str(key.group_id),
                              .topic_id = key.topic_id,
                              .partition = key.partition,
                              .tombstone = true};
    log_record(&log[n++], &rec);
    replay_one(&again, &log[n - 1]);
    assert_null(gr_share_shard_find(&again, id));
    for (int i = 0; i < n; i++) {
        free(log[i].key);
        free(log[i].value);
    }
    gr_share_shard_fini(&live);
    gr_share_shard_fini(&again);
}

/* The log may start at the oldest last snapshot of a partition's keys, once replicated. */
static void prune_point_oldest_snapshot(void **st)
{
    (void)st;
    gr_share_shard_t shard;
    assert_int_equal(gr_share_shard_init(&shard, 1), 0);
    gr_share_key_t a = test_key(), b = test_key();
    b.group_id = "g2";
    char abuf[128], bbuf[128];
    gr_str_t aid = key_id(&a, abuf, sizeof abuf), bid = key_id(&b, bbuf, sizeof bbuf);
    assert_int_equal(gr_share_shard_prune_point(&shard, 0, 50), 50); /* no key: everything */
    gr_share_record_t rec;
    assert_int_equal(gr_share_shard_plan_initialize(&shard, aid, &a, 1, 0, &rec), GR_KERR_NONE);
    rec.log_offset = 10;
    assert_int_equal(gr_share_shard_apply(&shard, 0, aid, &rec), 0);
    assert_int_equal(gr_share_shard_plan_initialize(&shard, bid, &b, 1, 0, &rec), GR_KERR_NONE);
    rec.log_offset = 20;
    assert_int_equal(gr_share_shard_apply(&shard, 0, bid, &rec), 0);
    assert_int_equal(gr_share_shard_prune_point(&shard, 0, 50), 10);
    assert_int_equal(gr_share_shard_prune_point(&shard, 1, 50), 50); /* another partition */
    /* an update keeps the snapshot it builds on */
    gr_share_state_t w = {.state_epoch = 1, .leader_epoch = 1, .start_offset = -1};
    gr_share_state_t scratch;
    assert_int_equal(gr_share_shard_plan_write(&shard, aid, &a, &w, -1, &rec, &scratch),
                     GR_KERR_NONE);
    assert_int_equal(rec.key_version, GR_SHARE_UPDATE_KEY_VERSION);
    rec.log_offset = 30;
    assert_int_equal(gr_share_shard_apply(&shard, 0, aid, &rec), 0);
    free(scratch.batches);
    assert_int_equal(gr_share_shard_prune_point(&shard, 0, 50), 10);
    /* a new snapshot of a moves the point to b's */
    assert_int_equal(gr_share_shard_plan_write(&shard, aid, &a, &w, -1, &rec, &scratch),
                     GR_KERR_NONE);
    assert_int_equal(rec.key_version, GR_SHARE_SNAPSHOT_KEY_VERSION);
    rec.log_offset = 40;
    assert_int_equal(gr_share_shard_apply(&shard, 0, aid, &rec), 0);
    free(scratch.batches);
    assert_int_equal(gr_share_shard_prune_point(&shard, 0, 50), 20);
    /* a snapshot not yet under the high watermark: no pruning */
    assert_int_equal(gr_share_shard_prune_point(&shard, 0, 40), -1);
    gr_share_shard_fini(&shard);
}

static void key_text_is_kafkas(void **st)
{
    (void)st;
    gr_share_key_t key = {.group_id = "grp", .partition = 12};
    char buf[64];
    assert_int_equal(gr_share_coordinator_key_format(&key, buf, sizeof buf),
                     (int)strlen("grp:AAAAAAAAAAAAAAAAAAAAAA:12"));
    assert_string_equal(buf, "grp:AAAAAAAAAAAAAAAAAAAAAA:12");
    assert_int_equal(gr_share_coordinator_key_format(&key, buf, 8), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merge_paints_over),
        cmocka_unit_test(merge_drops_below_start),
        cmocka_unit_test(merge_joins_and_orders),
        cmocka_unit_test(plan_snapshot_every_n),
        cmocka_unit_test(plan_fences),
        cmocka_unit_test(replay_rebuilds),
        cmocka_unit_test(prune_point_oldest_snapshot),
        cmocka_unit_test(key_text_is_kafkas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
