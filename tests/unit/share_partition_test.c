/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The in-memory state of a share-partition (src/share/share_partition*.c):
 * acquisition by several members, acknowledgement types and their errors,
 * lock expiry and renewal, the delivery count limit, transactions and
 * control batches, the start offset, max record locks, batch alignment,
 * the durable export and import, and a randomized run against a plain
 * per-offset model. Time is a number the test passes in.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "share/share_partition.h"
#include "share/share_partition_int.h"

#define LOCK_MS 30000

/* Allocation faults: the test links with --wrap=malloc,calloc,realloc
 * (tests/CMakeLists.txt). When fail_at > 0 the fail_at-th allocation from
 * then on fails. */
static int fail_at;
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);

static bool fail_now(void)
{
    return fail_at > 0 && --fail_at == 0;
}

void *__wrap_malloc(size_t size)
{
    return fail_now() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return fail_now() ? NULL : __real_realloc(p, size);
}

static const gr_share_partition_config_t default_config = {
    .record_lock_duration_ms = LOCK_MS, .delivery_count_limit = 5, .max_record_locks = 2000};

/* The invariants of share_partition_int.h, checked from outside (the
 * library's own asserts are compiled out in release builds), plus full
 * coalescing: no two neighbours are equal. */
static void check_invariants(const gr_share_partition_t *sp)
{
    int64_t next = sp->start_offset, acquired = 0;
    assert_true((sp->count == 0) == (sp->start_offset == sp->end_offset));
    for (int32_t i = 0; i < sp->count; i++) {
        const gr_share_range_t *r = &sp->ranges[i];
        assert_int_equal(r->first, next);
        assert_true(r->first <= r->last);
        assert_true((r->state == GR_SHARE_RECORD_ACQUIRED) == (r->owner != NULL));
        if (r->state == GR_SHARE_RECORD_ACQUIRED)
            acquired += r->last - r->first + 1;
        if (i > 0) {
            const gr_share_range_t *p = &sp->ranges[i - 1];
            assert_false(p->state == r->state && p->delivery_count == r->delivery_count &&
                         p->owner == r->owner && p->deadline == r->deadline);
        }
        next = r->last + 1;
    }
    assert_int_equal(next, sp->end_offset);
    assert_int_equal(acquired, sp->acquired);
    if (sp->count > 0) {
        assert_int_not_equal(sp->ranges[0].state, GR_SHARE_RECORD_ACKNOWLEDGED);
        assert_int_not_equal(sp->ranges[0].state, GR_SHARE_RECORD_ARCHIVED);
    }
    int64_t owned = 0;
    for (int32_t i = 0; i < sp->owner_count; i++) {
        assert_true(sp->owners[i]->records > 0);
        owned += sp->owners[i]->records;
    }
    assert_int_equal(owned, acquired);
}

static gr_share_partition_t *make(const gr_share_partition_config_t *cfg, int64_t start)
{
    gr_share_partition_t *sp = NULL;
    assert_int_equal(gr_share_partition_new(cfg ? cfg : &default_config, NULL, start, &sp), 0);
    return sp;
}

/* A log of plain batches of `size` records from offset 0. */
static gr_share_log_batch_t *plain_log(int32_t batches, int32_t size)
{
    gr_share_log_batch_t *log = calloc((size_t)batches, sizeof(*log));
    for (int32_t i = 0; i < batches; i++)
        log[i] = (gr_share_log_batch_t){.base_offset = (int64_t)i * size,
                                        .last_offset = (int64_t)i * size + size - 1,
                                        .producer_id = -1};
    return log;
}

/* What a log read from the partition's next fetch offset returns: the
 * batch holding it (or the first after) and up to max_batches more. */
static int32_t read_log(const gr_share_partition_t *sp, const gr_share_log_batch_t *log,
                        int32_t log_count, int32_t max_batches, int32_t *first)
{
    int64_t from = gr_share_partition_next_fetch_offset(sp);
    int32_t k = 0;
    while (k < log_count && log[k].last_offset < from)
        k++;
    *first = k;
    int32_t n = log_count - k;
    return n < max_batches ? n : max_batches;
}

typedef struct acq_opts {
    int32_t max_records;
    int32_t max_batches;
    gr_share_acquire_mode_t mode;
    int32_t batch_size;
    bool read_committed;
    const gr_share_aborted_txn_t *aborted;
    int32_t aborted_count;
} acq_opts_t;

/* Reads the log like the caller and acquires; returns the ranges. */
static gr_share_acquired_list_t acquire(gr_share_partition_t *sp, const char *member,
                                        const gr_share_log_batch_t *log, int32_t log_count,
                                        const acq_opts_t *o, int64_t now)
{
    int32_t first = 0;
    int32_t n = read_log(sp, log, log_count, o->max_batches ? o->max_batches : 1000, &first);
    gr_share_acquire_request_t req = {.member_id = member,
                                      .fetch_offset = gr_share_partition_next_fetch_offset(sp),
                                      .batches = log + first,
                                      .batch_count = n,
                                      .read_committed = o->read_committed,
                                      .aborted = o->aborted,
                                      .aborted_count = o->aborted_count,
                                      .max_records = o->max_records,
                                      .mode = o->mode,
                                      .batch_size = o->batch_size,
                                      .now_ms = now};
    gr_share_acquired_list_t out = {0};
    assert_int_equal(gr_share_partition_acquire(sp, &req, &out), 0);
    check_invariants(sp);
    return out;
}

static void expect_one(gr_share_acquired_list_t *l, int64_t first, int64_t last, int16_t dc)
{
    assert_int_equal(l->count, 1);
    assert_int_equal(l->items[0].first_offset, first);
    assert_int_equal(l->items[0].last_offset, last);
    assert_int_equal(l->items[0].delivery_count, dc);
    gr_share_acquired_list_fini(l);
}

static void expect_none(gr_share_acquired_list_t *l)
{
    assert_int_equal(l->count, 0);
    gr_share_acquired_list_fini(l);
}

static gr_kerr_t ack(gr_share_partition_t *sp, const char *member, int64_t first, int64_t last,
                     int8_t type, int64_t now)
{
    gr_share_ack_batch_t b = {first, last, &type, 1};
    gr_kerr_t err = gr_share_partition_acknowledge(sp, member, &b, 1, true, now);
    check_invariants(sp);
    return err;
}

static gr_share_record_state_t state_of(const gr_share_partition_t *sp, int64_t offset, int16_t *dc,
                                        const char **owner)
{
    return gr_share_partition_offset_state(sp, offset, dc, owner);
}

static void test_members_acquire_distinct_records(void **unused)
{
    (void)unused;
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_log_batch_t *log = plain_log(6, 5);
    acq_opts_t o = {.max_records = 10};
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 6, &o, 0);
    expect_one(&a, 0, 9, 1);
    a = acquire(sp, "m2", log, 6, &o, 0);
    expect_one(&a, 10, 19, 1);
    a = acquire(sp, "m3", log, 6, &o, 0);
    expect_one(&a, 20, 29, 1);
    a = acquire(sp, "m4", log, 6, &o, 0);
    expect_none(&a);
    const char *owner = NULL;
    assert_int_equal(state_of(sp, 15, NULL, &owner), GR_SHARE_RECORD_ACQUIRED);
    assert_string_equal(owner, "m2");
    gr_share_partition_stats_t st;
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 0);
    assert_int_equal(st.end_offset, 30);
    assert_int_equal(st.acquired_records, 30);
    assert_int_equal(st.in_flight_records, 30);
    assert_int_equal(gr_share_partition_next_fetch_offset(sp), 30);
    /* Acquisitions alone are not written. */
    assert_false(gr_share_partition_changed(sp));
    free(log);
    gr_share_partition_free(sp);
}

static void test_release_redelivers_with_rising_count(void **unused)
{
    (void)unused;
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_log_batch_t *log = plain_log(2, 5);
    acq_opts_t o = {.max_records = 100};
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 2, &o, 0);
    expect_one(&a, 0, 9, 1);
    assert_int_equal(ack(sp, "m1", 3, 6, GR_SHARE_ACK_RELEASE, 1), GR_KERR_NONE);
    assert_true(gr_share_partition_changed(sp));
    assert_int_equal(gr_share_partition_next_fetch_offset(sp), 3);
    a = acquire(sp, "m2", log, 2, &o, 2);
    expect_one(&a, 3, 6, 2);
    assert_int_equal(ack(sp, "m2", 3, 6, GR_SHARE_ACK_RELEASE, 3), GR_KERR_NONE);
    a = acquire(sp, "m1", log, 2, &o, 4);
    expect_one(&a, 3, 6, 3);
    int16_t dc = 0;
    assert_int_equal(state_of(sp, 5, &dc, NULL), GR_SHARE_RECORD_ACQUIRED);
    assert_int_equal(dc, 3);
    assert_int_equal(state_of(sp, 7, &dc, NULL), GR_SHARE_RECORD_ACQUIRED);
    assert_int_equal(dc, 1);
    free(log);
    gr_share_partition_free(sp);
}

static void test_reject_archives_and_start_advances(void **unused)
{
    (void)unused;
    gr_share_partition_t *sp = make(NULL, 100);
    gr_share_log_batch_t log[] = {{100, 104, -1, false, false}, {105, 109, -1, false, false}};
    acq_opts_t o = {.max_records = 100};
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 2, &o, 0);
    expect_one(&a, 100, 109, 1);
    /* Acknowledged out of order: the start offset waits for the head. */
    assert_int_equal(ack(sp, "m1", 105, 109, GR_SHARE_ACK_ACCEPT, 1), GR_KERR_NONE);
    gr_share_partition_stats_t st;
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 100);
    assert_int_equal(st.delivery_complete_records, 5);
    assert_int_equal(ack(sp, "m1", 100, 101, GR_SHARE_ACK_REJECT, 1), GR_KERR_NONE);
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 102);
    assert_int_equal(state_of(sp, 101, NULL, NULL), GR_SHARE_RECORD_ARCHIVED);
    assert_int_equal(ack(sp, "m1", 102, 104, GR_SHARE_ACK_ACCEPT, 1), GR_KERR_NONE);
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 110);
    assert_int_equal(st.end_offset, 110);
    assert_int_equal(st.ranges, 0); /* forgotten */
    assert_int_equal(st.acquired_records, 0);
    assert_int_equal(sp->owner_count, 0);
    /* Done offsets are skipped, not refused. */
    assert_int_equal(ack(sp, "m1", 100, 104, GR_SHARE_ACK_ACCEPT, 1), GR_KERR_NONE);
    gr_share_partition_free(sp);
}

static void test_lock_expiry_and_renew(void **unused)
{
    (void)unused;
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_log_batch_t *log = plain_log(2, 5);
    acq_opts_t o = {.max_records = 5};
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 2, &o, 1000);
    expect_one(&a, 0, 4, 1);
    a = acquire(sp, "m2", log, 2, &o, 2000);
    expect_one(&a, 5, 9, 1);
    assert_int_equal(gr_share_partition_next_deadline(sp), 1000 + LOCK_MS);
    /* m2 renews (KIP-1222) before its lock runs out. */
    int8_t renew = GR_SHARE_ACK_RENEW;
    gr_share_ack_batch_t b = {5, 9, &renew, 1};
    assert_int_equal(gr_share_partition_acknowledge(sp, "m2", &b, 1, false, 20000),
                     GR_KERR_INVALID_REQUEST);
    assert_int_equal(gr_share_partition_acknowledge(sp, "m2", &b, 1, true, 20000), GR_KERR_NONE);
    assert_false(gr_share_partition_changed(sp));
    assert_int_equal(gr_share_partition_expire(sp, 1000 + LOCK_MS - 1), 0);
    assert_int_equal(gr_share_partition_expire(sp, 1000 + LOCK_MS), 5);
    check_invariants(sp);
    assert_true(gr_share_partition_changed(sp));
    assert_int_equal(gr_share_partition_next_deadline(sp), 20000 + LOCK_MS);
    assert_int_equal(state_of(sp, 2, NULL, NULL), GR_SHARE_RECORD_AVAILABLE);
    assert_int_equal(state_of(sp, 7, NULL, NULL), GR_SHARE_RECORD_ACQUIRED);
    /* The expired member's acknowledgement is refused. */
    assert_int_equal(ack(sp, "m1", 0, 4, GR_SHARE_ACK_ACCEPT, 40000), GR_KERR_INVALID_RECORD_STATE);
    /* A lock past its deadline is gone even before the timer ran. */
    assert_int_equal(ack(sp, "m2", 5, 9, GR_SHARE_ACK_ACCEPT, 20000 + LOCK_MS),
                     GR_KERR_INVALID_RECORD_STATE);
    a = acquire(sp, "m3", log, 2, &(acq_opts_t){.max_records = 100}, 60000);
    expect_one(&a, 0, 9, 2);
    assert_int_equal(gr_share_partition_next_deadline(sp), 60000 + LOCK_MS);
    assert_int_equal(gr_share_partition_release_member(sp, "m3"), 10);
    assert_int_equal(gr_share_partition_next_deadline(sp), GR_SHARE_PARTITION_NO_DEADLINE);
    check_invariants(sp);
    free(log);
    gr_share_partition_free(sp);
}

/* A group's changed share.record.lock.duration.ms reaches the locks taken
 * or renewed afterwards; held locks keep their deadline. */
static void test_lock_duration_change(void **unused)
{
    (void)unused;
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_log_batch_t *log = plain_log(2, 5);
    acq_opts_t o = {.max_records = 5};
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 2, &o, 1000);
    expect_one(&a, 0, 4, 1);
    gr_share_partition_set_lock_duration(sp, 0); /* ignored */
    gr_share_partition_set_lock_duration(sp, 20000);
    assert_int_equal(gr_share_partition_next_deadline(sp), 1000 + LOCK_MS);
    assert_int_equal(gr_share_partition_release_member(sp, "m1"), 5);
    a = acquire(sp, "m2", log, 2, &o, 2000);
    expect_one(&a, 0, 4, 2);
    assert_int_equal(gr_share_partition_next_deadline(sp), 2000 + 20000);
    int8_t renew = GR_SHARE_ACK_RENEW;
    gr_share_ack_batch_t b = {0, 4, &renew, 1};
    gr_share_partition_set_lock_duration(sp, 15000);
    assert_int_equal(gr_share_partition_acknowledge(sp, "m2", &b, 1, true, 3000), GR_KERR_NONE);
    assert_int_equal(gr_share_partition_next_deadline(sp), 3000 + 15000);
    check_invariants(sp);
    free(log);
    gr_share_partition_free(sp);
}

static void test_delivery_count_limit_archives(void **unused)
{
    (void)unused;
    gr_share_partition_config_t cfg = default_config;
    cfg.delivery_count_limit = 2;
    gr_share_partition_t *sp = make(&cfg, 0);
    gr_share_log_batch_t *log = plain_log(1, 4);
    acq_opts_t o = {.max_records = 100};
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 1, &o, 0);
    expect_one(&a, 0, 3, 1);
    assert_int_equal(ack(sp, "m1", 0, 3, GR_SHARE_ACK_RELEASE, 0), GR_KERR_NONE);
    a = acquire(sp, "m1", log, 1, &o, 0);
    expect_one(&a, 0, 3, 2);
    /* Released at the limit: archived, and the start offset moves on. */
    assert_int_equal(ack(sp, "m1", 0, 0, GR_SHARE_ACK_RELEASE, 0), GR_KERR_NONE);
    gr_share_partition_stats_t st;
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 1);
    /* The same by lock expiry and by the member leaving. */
    assert_int_equal(gr_share_partition_expire(sp, LOCK_MS), 3);
    check_invariants(sp);
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 4);
    a = acquire(sp, "m1", log, 1, &o, LOCK_MS);
    expect_none(&a);
    free(log);
    gr_share_partition_free(sp);
}

static void test_transactions_and_control_never_acquired(void **unused)
{
    (void)unused;
    /* pid 7 aborts 0-4 (marker 5), pid 8 commits 6-9 (marker 10), 11-12
     * plain. */
    gr_share_log_batch_t log[] = {
        {0, 4, 7, true, false},  {5, 5, 7, true, true},      {6, 9, 8, true, false},
        {10, 10, 8, true, true}, {11, 12, -1, false, false},
    };
    gr_share_aborted_txn_t aborted[] = {{7, 0}};
    gr_share_partition_t *sp = make(NULL, 0);
    acq_opts_t o = {
        .max_records = 100, .read_committed = true, .aborted = aborted, .aborted_count = 1};
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 5, &o, 0);
    assert_int_equal(a.count, 2);
    assert_int_equal(a.items[0].first_offset, 6);
    assert_int_equal(a.items[0].last_offset, 9);
    assert_int_equal(a.items[1].first_offset, 11);
    assert_int_equal(a.items[1].last_offset, 12);
    assert_int_equal(a.records, 6);
    gr_share_acquired_list_fini(&a);
    gr_share_partition_stats_t st;
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 6); /* the aborted head is done */
    assert_int_equal(state_of(sp, 10, NULL, NULL), GR_SHARE_RECORD_ARCHIVED);
    assert_true(gr_share_partition_changed(sp));
    /* Acknowledging an archived marker is refused. */
    assert_int_equal(ack(sp, "m1", 10, 10, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_INVALID_RECORD_STATE);
    gr_share_partition_free(sp);

    /* read_uncommitted: the aborted records are delivered, the markers
     * still are not. */
    sp = make(NULL, 0);
    o = (acq_opts_t){.max_records = 100};
    a = acquire(sp, "m1", log, 5, &o, 0);
    assert_int_equal(a.count, 3);
    assert_int_equal(a.items[0].first_offset, 0);
    assert_int_equal(a.items[0].last_offset, 4);
    assert_int_equal(a.items[1].first_offset, 6);
    assert_int_equal(a.items[1].last_offset, 9);
    assert_int_equal(a.items[2].first_offset, 11);
    gr_share_acquired_list_fini(&a);
    gr_share_partition_free(sp);
}

static void test_max_record_locks(void **unused)
{
    (void)unused;
    gr_share_partition_config_t cfg = default_config;
    cfg.max_record_locks = 8;
    gr_share_partition_t *sp = make(&cfg, 0);
    gr_share_log_batch_t *log = plain_log(6, 5);
    acq_opts_t o = {.max_records = 100};
    /* Room for 8: the batch holding the 8th record is taken whole. */
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 6, &o, 0);
    expect_one(&a, 0, 9, 1);
    assert_false(gr_share_partition_can_acquire(sp));
    a = acquire(sp, "m2", log, 6, &o, 0);
    expect_none(&a);
    /* Released records inside the window are acquirable, nothing past
     * its end. */
    assert_int_equal(ack(sp, "m1", 3, 4, GR_SHARE_ACK_RELEASE, 0), GR_KERR_NONE);
    assert_true(gr_share_partition_can_acquire(sp));
    a = acquire(sp, "m2", log, 6, &o, 0);
    expect_one(&a, 3, 4, 2);
    /* A full window takes nothing past its end, even where the batch
     * holding the released record goes on. */
    assert_int_equal(ack(sp, "m2", 4, 4, GR_SHARE_ACK_RELEASE, 0), GR_KERR_NONE);
    gr_share_log_batch_t wide[] = {{0, 14, -1, false, false}};
    a = acquire(sp, "m3", wide, 1, &(acq_opts_t){.max_records = 1}, 0);
    expect_one(&a, 4, 4, 3);
    /* The window shrinks as the head is acknowledged: 3-9 leave room for
     * one more. */
    assert_int_equal(ack(sp, "m1", 0, 2, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_NONE);
    assert_true(gr_share_partition_can_acquire(sp));
    a = acquire(sp, "m2", log, 6,
                &(acq_opts_t){.max_records = 2, .mode = GR_SHARE_ACQUIRE_RECORD_LIMIT}, 0);
    expect_one(&a, 10, 10, 1);
    assert_false(gr_share_partition_can_acquire(sp));
    free(log);
    gr_share_partition_free(sp);
}

static void test_max_records_and_batch_alignment(void **unused)
{
    (void)unused;
    gr_share_log_batch_t *log = plain_log(4, 5);
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 4, &(acq_opts_t){.max_records = 7}, 0);
    expect_one(&a, 0, 9, 1); /* on to the end of the batch */
    gr_share_partition_free(sp);

    sp = make(NULL, 0);
    acq_opts_t strict = {.max_records = 7, .mode = GR_SHARE_ACQUIRE_RECORD_LIMIT};
    a = acquire(sp, "m1", log, 4, &strict, 0);
    expect_one(&a, 0, 6, 1);
    assert_int_equal(gr_share_partition_next_fetch_offset(sp), 7);
    /* The next read starts inside the batch 5-9. */
    a = acquire(sp, "m2", log, 4, &strict, 0);
    expect_one(&a, 7, 13, 1);
    /* Re-acquisition inside the window obeys the limit too. */
    assert_int_equal(ack(sp, "m1", 0, 6, GR_SHARE_ACK_RELEASE, 0), GR_KERR_NONE);
    a = acquire(sp, "m3", log, 4,
                &(acq_opts_t){.max_records = 3, .mode = GR_SHARE_ACQUIRE_RECORD_LIMIT}, 0);
    expect_one(&a, 0, 2, 2);
    gr_share_partition_free(sp);

    /* batch_size cuts new records at log batch boundaries. */
    sp = make(NULL, 0);
    a = acquire(sp, "m1", log, 4, &(acq_opts_t){.max_records = 100, .batch_size = 8}, 0);
    assert_int_equal(a.count, 2);
    assert_int_equal(a.items[0].first_offset, 0);
    assert_int_equal(a.items[0].last_offset, 9);
    assert_int_equal(a.items[1].first_offset, 10);
    assert_int_equal(a.items[1].last_offset, 19);
    gr_share_acquired_list_fini(&a);
    gr_share_partition_free(sp);
    free(log);
}

static void test_acknowledge_errors(void **unused)
{
    (void)unused;
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_log_batch_t *log = plain_log(4, 5);
    /* Nothing fetched yet: Kafka answers INVALID_RECORD_STATE. */
    assert_int_equal(ack(sp, "m1", 0, 4, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_INVALID_RECORD_STATE);
    acq_opts_t o = {.max_records = 5};
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 4, &o, 0);
    expect_one(&a, 0, 4, 1);
    a = acquire(sp, "m2", log, 4, &o, 0);
    expect_one(&a, 5, 9, 1);
    assert_int_equal(ack(sp, "m1", 0, 1, GR_SHARE_ACK_RELEASE, 0), GR_KERR_NONE);
    /* Available, never acquired by it, held by another member, unknown
     * member. */
    assert_int_equal(ack(sp, "m1", 0, 0, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_INVALID_RECORD_STATE);
    assert_int_equal(ack(sp, "m1", 4, 5, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_INVALID_RECORD_STATE);
    assert_int_equal(ack(sp, "m9", 5, 5, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_INVALID_RECORD_STATE);
    /* Past the window's end, inverted, bad types and type counts. */
    assert_int_equal(ack(sp, "m2", 9, 10, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_INVALID_REQUEST);
    assert_int_equal(ack(sp, "m2", 9, 8, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_INVALID_REQUEST);
    assert_int_equal(ack(sp, "m2", 5, 5, 7, 0), GR_KERR_INVALID_REQUEST);
    int8_t two[] = {1, 1};
    gr_share_ack_batch_t b = {5, 7, two, 2};
    assert_int_equal(gr_share_partition_acknowledge(sp, "m2", &b, 1, true, 0),
                     GR_KERR_INVALID_REQUEST);
    /* Already acknowledged. */
    assert_int_equal(ack(sp, "m2", 9, 9, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_NONE);
    assert_int_equal(ack(sp, "m2", 9, 9, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_INVALID_RECORD_STATE);
    /* All or nothing: a good batch before a bad one is not applied. */
    int8_t accept = GR_SHARE_ACK_ACCEPT;
    gr_share_ack_batch_t two_batches[] = {{5, 6, &accept, 1}, {8, 9, &accept, 1}};
    assert_int_equal(gr_share_partition_acknowledge(sp, "m2", two_batches, 2, false, 0),
                     GR_KERR_INVALID_RECORD_STATE);
    assert_int_equal(state_of(sp, 5, NULL, NULL), GR_SHARE_RECORD_ACQUIRED);
    /* Overlapping or unordered batches. */
    gr_share_ack_batch_t overlap[] = {{5, 6, &accept, 1}, {6, 7, &accept, 1}};
    assert_int_equal(gr_share_partition_acknowledge(sp, "m2", overlap, 2, false, 0),
                     GR_KERR_INVALID_REQUEST);
    gr_share_ack_batch_t fine[] = {{5, 6, &accept, 1}, {7, 8, &accept, 1}};
    assert_int_equal(gr_share_partition_acknowledge(sp, "m2", fine, 2, false, 0), GR_KERR_NONE);
    check_invariants(sp);
    free(log);
    gr_share_partition_free(sp);
}

static void test_gaps(void **unused)
{
    (void)unused;
    /* 3-4 were compacted away: acquired with their neighbours. */
    gr_share_log_batch_t log[] = {{0, 2, -1, false, false}, {5, 7, -1, false, false}};
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 2, &(acq_opts_t){.max_records = 100}, 0);
    expect_one(&a, 0, 7, 1);
    int8_t types[] = {1, 1, 1, 0, 0, 1, 3, 1};
    gr_share_ack_batch_t b = {0, 7, types, 8};
    assert_int_equal(gr_share_partition_acknowledge(sp, "m1", &b, 1, false, 0), GR_KERR_NONE);
    check_invariants(sp);
    gr_share_partition_stats_t st;
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 8);
    gr_share_partition_free(sp);
}

static void expect_batches(const gr_share_state_t *st, const gr_share_state_batch_t *want,
                           int32_t count)
{
    assert_int_equal(st->batch_count, count);
    for (int32_t i = 0; i < count; i++) {
        assert_int_equal(st->batches[i].first_offset, want[i].first_offset);
        assert_int_equal(st->batches[i].last_offset, want[i].last_offset);
        assert_int_equal(st->batches[i].state, want[i].state);
        assert_int_equal(st->batches[i].delivery_count, want[i].delivery_count);
    }
}

static void test_export_import_round_trip(void **unused)
{
    (void)unused;
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_log_batch_t *log = plain_log(4, 5);
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 4, &(acq_opts_t){.max_records = 100}, 0);
    expect_one(&a, 0, 19, 1);
    int8_t types[] = {2, 2, 1, 1, 3};
    gr_share_ack_batch_t b = {5, 9, types, 5};
    assert_int_equal(gr_share_partition_acknowledge(sp, "m1", &b, 1, false, 0), GR_KERR_NONE);
    assert_int_equal(ack(sp, "m1", 12, 14, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_NONE);
    assert_true(gr_share_partition_changed(sp));
    gr_share_state_t st;
    assert_int_equal(gr_share_partition_export(sp, &st), 0);
    assert_false(gr_share_partition_changed(sp));
    /* 0-4 acquired -> available/1; 5-6 released; 7-8 acknowledged; 9
     * archived; 10-11 acquired; 12-14 acknowledged; 15-19 acquired. */
    const gr_share_state_batch_t want[] = {
        {0, 6, GR_SHARE_RECORD_AVAILABLE, 1},      {7, 8, GR_SHARE_RECORD_ACKNOWLEDGED, 1},
        {9, 9, GR_SHARE_RECORD_ARCHIVED, 1},       {10, 11, GR_SHARE_RECORD_AVAILABLE, 1},
        {12, 14, GR_SHARE_RECORD_ACKNOWLEDGED, 1}, {15, 19, GR_SHARE_RECORD_AVAILABLE, 1}};
    assert_int_equal(st.start_offset, 0);
    expect_batches(&st, want, 6);
    assert_int_equal(gr_share_state_check(&st), 0);

    gr_share_partition_t *back = NULL;
    st.state_epoch = 3;
    assert_int_equal(gr_share_partition_new(&default_config, &st, 999, &back), 0);
    check_invariants(back);
    assert_false(gr_share_partition_changed(back));
    assert_int_equal(gr_share_partition_next_fetch_offset(back), 0);
    gr_share_state_t again;
    assert_int_equal(gr_share_partition_export(back, &again), 0);
    assert_int_equal(again.state_epoch, 3);
    expect_batches(&again, want, 6);
    free(again.batches);
    /* The new leader redelivers what was in flight, with its count. */
    a = acquire(back, "m2", log, 4, &(acq_opts_t){.max_records = 100}, 0);
    assert_int_equal(a.count, 3);
    assert_int_equal(a.items[0].first_offset, 0);
    assert_int_equal(a.items[0].last_offset, 6);
    assert_int_equal(a.items[0].delivery_count, 2);
    assert_int_equal(a.items[1].first_offset, 10);
    assert_int_equal(a.items[2].first_offset, 15);
    gr_share_acquired_list_fini(&a);
    gr_share_partition_free(back);

    /* Gaps between durable batches are never-delivered records; batches
     * below the start are skipped; a count at the limit is archived. */
    gr_share_state_batch_t in[] = {{0, 9, GR_SHARE_RECORD_ACKNOWLEDGED, 1},
                                   {12, 13, GR_SHARE_RECORD_AVAILABLE, 5},
                                   {20, 21, GR_SHARE_RECORD_AVAILABLE, 2}};
    gr_share_state_t s2 = {.state_epoch = 1, .start_offset = 10, .batches = in, .batch_count = 3};
    assert_int_equal(gr_share_partition_new(&default_config, &s2, 0, &back), 0);
    check_invariants(back);
    assert_int_equal(gr_share_partition_next_fetch_offset(back), 10);
    assert_int_equal(state_of(back, 12, NULL, NULL), GR_SHARE_RECORD_ARCHIVED);
    gr_share_partition_stats_t stats;
    gr_share_partition_stats(back, &stats);
    assert_int_equal(stats.end_offset, 22);
    /* Exported again: the never-delivered gaps stay unnamed. */
    gr_share_state_t gaps;
    assert_int_equal(gr_share_partition_export(back, &gaps), 0);
    const gr_share_state_batch_t want_gaps[] = {{12, 13, GR_SHARE_RECORD_ARCHIVED, 5},
                                                {20, 21, GR_SHARE_RECORD_AVAILABLE, 2}};
    assert_int_equal(gaps.start_offset, 10);
    expect_batches(&gaps, want_gaps, 2);
    free(gaps.batches);
    gr_share_partition_free(back);
    /* Invalid input. */
    gr_share_state_batch_t bad[] = {{5, 9, GR_SHARE_RECORD_ACQUIRED, 1}};
    gr_share_state_t s3 = {.start_offset = 0, .batches = bad, .batch_count = 1};
    assert_int_equal(gr_share_partition_new(&default_config, &s3, 0, &back), -EINVAL);
    gr_share_state_t fresh = {.start_offset = GR_SHARE_START_OFFSET_UNINITIALIZED};
    assert_int_equal(gr_share_partition_new(&default_config, &fresh, 42, &back), 0);
    assert_int_equal(gr_share_partition_next_fetch_offset(back), 42);
    gr_share_partition_free(back);
    free(st.batches);
    free(log);
    gr_share_partition_free(sp);
}

static void test_poison_records_are_isolated(void **unused)
{
    (void)unused;
    gr_share_log_batch_t *log = plain_log(2, 5);
    /* Delivered 4 times of 5: the last attempt goes alone. */
    gr_share_state_batch_t in[] = {{0, 9, GR_SHARE_RECORD_AVAILABLE, 4}};
    gr_share_state_t s = {.start_offset = 0, .batches = in, .batch_count = 1};
    gr_share_partition_t *sp = NULL;
    assert_int_equal(gr_share_partition_new(&default_config, &s, 0, &sp), 0);
    acq_opts_t o = {.max_records = 100};
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 2, &o, 0);
    expect_one(&a, 0, 0, 5);
    a = acquire(sp, "m1", log, 2, &o, 0);
    expect_one(&a, 1, 1, 5);
    gr_share_partition_free(sp);
    /* Delivered 3 times (>= the throttle, ceil(5 / 2)): half the run. */
    in[0].delivery_count = 3;
    assert_int_equal(gr_share_partition_new(&default_config, &s, 0, &sp), 0);
    a = acquire(sp, "m1", log, 2, &o, 0);
    expect_one(&a, 0, 4, 4);
    a = acquire(sp, "m1", log, 2, &o, 0);
    expect_one(&a, 5, 6, 4);
    gr_share_partition_free(sp);
    /* A high limit: the run shrinks to one record, no shift past 63. */
    gr_share_partition_config_t high = default_config;
    high.delivery_count_limit = 1000;
    in[0].delivery_count = 998;
    assert_int_equal(gr_share_partition_new(&high, &s, 0, &sp), 0);
    a = acquire(sp, "m1", log, 2, &o, 0);
    expect_one(&a, 0, 0, 999);
    gr_share_partition_free(sp);
    free(log);
}

static void test_log_start_moves(void **unused)
{
    (void)unused;
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_log_batch_t *log = plain_log(4, 5);
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 4, &(acq_opts_t){.max_records = 10}, 0);
    expect_one(&a, 0, 9, 1);
    assert_int_equal(gr_share_partition_advance_log_start(sp, 7), 0);
    check_invariants(sp);
    gr_share_partition_stats_t st;
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 7);
    assert_int_equal(st.acquired_records, 3);
    /* Acknowledging the forgotten part is skipped, the rest applied. */
    assert_int_equal(ack(sp, "m1", 0, 9, GR_SHARE_ACK_ACCEPT, 0), GR_KERR_NONE);
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, 10);
    assert_int_equal(gr_share_partition_advance_log_start(sp, 50), 0);
    check_invariants(sp);
    assert_int_equal(gr_share_partition_next_fetch_offset(sp), 50);
    free(log);
    gr_share_partition_free(sp);
}

/* ---- randomized comparison with a per-offset model ---- */

#define M_SPAN    400 /* offsets of the fake log */
#define M_MEMBERS 4

typedef struct model {
    int64_t start, end;
    int8_t state[M_SPAN + 64];
    int16_t dc[M_SPAN + 64];
    int8_t owner[M_SPAN + 64]; /* member index, -1 */
    int64_t deadline[M_SPAN + 64];
    gr_share_partition_config_t cfg;
} model_t;

typedef struct fake_log {
    gr_share_log_batch_t batches[M_SPAN];
    bool archived_rc[M_SPAN]; /* archived under read_committed */
    int32_t count;
    gr_share_aborted_txn_t aborted[M_SPAN];
    int64_t aborted_end[M_SPAN]; /* marker offset */
    int32_t aborted_count;
} fake_log_t;

static const char *const members[M_MEMBERS] = {"alpha", "beta", "gamma", "delta"};

/* Batches of 1-6 records, holes, transactions of producers 1-3 that
 * commit or abort with a marker, plain batches in between. */
static void fake_log_build(fake_log_t *l, unsigned *seed)
{
    memset(l, 0, sizeof(*l));
    int64_t open_first[4] = {-1, -1, -1, -1};
    bool open_abort[4] = {false};
    int64_t o = 0;
    while (o < M_SPAN - 8) {
        int r = rand_r(seed) % 10;
        if (r == 0)
            o += 1 + rand_r(seed) % 3; /* a hole */
        gr_share_log_batch_t *b = &l->batches[l->count];
        int64_t size = 1 + rand_r(seed) % 6;
        int pid = 1 + rand_r(seed) % 3;
        bool archived = false;
        if (r < 5) {
            *b = (gr_share_log_batch_t){o, o + size - 1, -1, false, false};
        } else if (r < 8 || open_first[pid] < 0) {
            if (open_first[pid] < 0) {
                open_first[pid] = o;
                open_abort[pid] = rand_r(seed) % 2;
            }
            *b = (gr_share_log_batch_t){o, o + size - 1, pid, true, false};
            archived = open_abort[pid];
        } else {
            *b = (gr_share_log_batch_t){o, o, pid, true, true};
            if (open_abort[pid]) {
                l->aborted[l->aborted_count] = (gr_share_aborted_txn_t){pid, open_first[pid]};
                l->aborted_end[l->aborted_count++] = o;
            }
            open_first[pid] = -1;
        }
        l->archived_rc[l->count++] = archived || b->is_control;
        o = b->last_offset + 1;
    }
    /* Transactions still open are aborted at the end of the log. */
    for (int pid = 1; pid <= 3; pid++) {
        if (open_first[pid] < 0)
            continue;
        l->batches[l->count] = (gr_share_log_batch_t){o, o, pid, true, true};
        l->archived_rc[l->count++] = true;
        if (open_abort[pid]) {
            l->aborted[l->aborted_count] = (gr_share_aborted_txn_t){pid, open_first[pid]};
            l->aborted_end[l->aborted_count++] = o;
        }
        o++;
    }
}

static bool model_final(int8_t s)
{
    return s == GR_SHARE_RECORD_ACKNOWLEDGED || s == GR_SHARE_RECORD_ARCHIVED;
}

static void model_trim(model_t *m)
{
    while (m->start < m->end && model_final(m->state[m->start]))
        m->start++;
}

static void model_release(model_t *m, int64_t o)
{
    m->state[o] = m->dc[o] >= m->cfg.delivery_count_limit ? GR_SHARE_RECORD_ARCHIVED
                                                          : GR_SHARE_RECORD_AVAILABLE;
    m->owner[o] = -1;
    m->deadline[o] = 0;
}

static void model_expire(model_t *m, int64_t now)
{
    for (int64_t o = m->start; o < m->end; o++)
        if (m->state[o] == GR_SHARE_RECORD_ACQUIRED && m->deadline[o] <= now)
            model_release(m, o);
    model_trim(m);
}

static int64_t model_next_fetch(const model_t *m)
{
    for (int64_t o = m->start; o < m->end; o++)
        if (m->state[o] == GR_SHARE_RECORD_AVAILABLE)
            return o;
    return m->end;
}

/* The length of the run of available records with o's delivery count
 * that holds o. */
static int64_t model_run(const model_t *m, int64_t o)
{
    int64_t a = o, b = o;
    while (a - 1 >= m->start && m->state[a - 1] == GR_SHARE_RECORD_AVAILABLE &&
           m->dc[a - 1] == m->dc[o])
        a--;
    while (b + 1 < m->end && m->state[b + 1] == GR_SHARE_RECORD_AVAILABLE &&
           m->dc[b + 1] == m->dc[o])
        b++;
    return b - a + 1;
}

typedef struct model_walk {
    int64_t acquired, new_room, stop_at;
    bool done;
    int16_t throttle;
    /* a throttled run in progress: its delivery count, cap, taken */
    bool in_throttle;
    int64_t cap, taken;
    int16_t throttle_dc;
    bool new_started; /* the current piece already went past the end */
} model_walk_t;

/* One offset of the walk; the rules of share_partition_acquire.c spelled
 * out per offset. */
static void model_acquire_offset(model_t *m, model_walk_t *w, int64_t o, int64_t piece_last,
                                 bool archive, int member, int32_t max_records,
                                 gr_share_acquire_mode_t mode, int64_t now, int8_t *got)
{
    int16_t limit = m->cfg.delivery_count_limit;
    if (o < m->end) {
        if (m->state[o] != GR_SHARE_RECORD_AVAILABLE) {
            if (w->in_throttle)
                w->done = true;
            return;
        }
        if (archive || m->dc[o] >= limit) {
            if (w->in_throttle) {
                w->done = true;
                return;
            }
            m->state[o] = GR_SHARE_RECORD_ARCHIVED;
            return;
        }
        int16_t dc = m->dc[o];
        if (w->in_throttle) {
            /* A throttled run stays inside its range and piece. */
            if (dc != w->throttle_dc || w->taken == w->cap) {
                w->done = true;
                return;
            }
        } else {
            bool last_attempt = limit > 2 && dc == limit - 1;
            bool throttled = dc >= w->throttle;
            if ((last_attempt || throttled) && w->acquired > 0) {
                w->done = true;
                return;
            }
            if (last_attempt || throttled) {
                w->in_throttle = true;
                w->throttle_dc = dc;
                w->taken = 0;
                w->cap = last_attempt ? 1 : model_run(m, o) >> (dc - w->throttle + 1);
                if (w->cap < 1)
                    w->cap = 1;
            }
        }
        if (w->stop_at == INT64_MAX) {
            if (max_records - w->acquired <= 0) {
                w->done = true;
                return;
            }
            if (w->acquired + 1 == max_records)
                w->stop_at = mode == GR_SHARE_ACQUIRE_RECORD_LIMIT ? o : piece_last;
        }
        m->state[o] = GR_SHARE_RECORD_ACQUIRED;
        m->dc[o] = dc + 1;
        m->owner[o] = (int8_t)member;
        m->deadline[o] = now + m->cfg.record_lock_duration_ms;
        got[o] = (int8_t)(dc + 1);
        w->acquired++;
        if (w->in_throttle)
            w->taken++;
        return;
    }
    assert_int_equal(o, m->end);
    if (w->in_throttle) {
        w->done = true;
        return;
    }
    /* Each piece's new part starts only with room in the window. */
    if (!w->new_started) {
        if (w->new_room <= 0) {
            w->done = true;
            return;
        }
        w->new_started = true;
    }
    if (w->stop_at == INT64_MAX) {
        int64_t room = archive
                           ? w->new_room
                           : (max_records - w->acquired < w->new_room ? max_records - w->acquired
                                                                      : w->new_room);
        if (room <= 0) {
            w->done = true;
            return;
        }
        if (!archive && room == 1)
            w->stop_at = mode == GR_SHARE_ACQUIRE_RECORD_LIMIT ? o : piece_last;
    }
    m->end++;
    w->new_room--;
    m->dc[o] = 0;
    if (archive) {
        m->state[o] = GR_SHARE_RECORD_ARCHIVED;
        m->owner[o] = -1;
        m->deadline[o] = 0;
        return;
    }
    m->state[o] = GR_SHARE_RECORD_ACQUIRED;
    m->dc[o] = 1;
    m->owner[o] = (int8_t)member;
    m->deadline[o] = now + m->cfg.record_lock_duration_ms;
    got[o] = 1;
    w->acquired++;
}

static void model_piece(model_t *m, model_walk_t *w, int64_t first, int64_t last, bool archive,
                        int member, int32_t max_records, gr_share_acquire_mode_t mode, int64_t now,
                        int8_t *got)
{
    int64_t o = first > m->start ? first : m->start;
    if (o > m->end && !w->done && o <= w->stop_at) {
        /* The read began above the window's end: the hole is archived. */
        int64_t hole_last = o - 1;
        w->new_started = false;
        for (int64_t h = m->end; h <= hole_last && !w->done && h <= w->stop_at; h++) {
            w->in_throttle = false;
            model_acquire_offset(m, w, h, hole_last, true, member, max_records, mode, now, got);
        }
        if (m->end != o)
            return;
    }
    w->new_started = false;
    /* A throttled run never crosses a piece boundary. */
    if (w->in_throttle && o <= last)
        w->done = true;
    for (; o <= last && !w->done && o <= w->stop_at; o++)
        model_acquire_offset(m, w, o, last, archive, member, max_records, mode, now, got);
}

static void compare(const model_t *m, const gr_share_partition_t *sp)
{
    check_invariants(sp);
    gr_share_partition_stats_t st;
    gr_share_partition_stats(sp, &st);
    assert_int_equal(st.start_offset, m->start);
    assert_int_equal(st.end_offset, m->end);
    int64_t acquired = 0;
    for (int64_t o = m->start; o < m->end; o++) {
        int16_t dc;
        const char *owner;
        gr_share_record_state_t s = gr_share_partition_offset_state(sp, o, &dc, &owner);
        assert_int_equal(s, m->state[o]);
        assert_int_equal(dc, m->dc[o]);
        if (s == GR_SHARE_RECORD_ACQUIRED) {
            acquired++;
            assert_string_equal(owner, members[(int)m->owner[o]]);
            const gr_share_range_t *r = &sp->ranges[gr_share_partition_find(sp, o)];
            assert_int_equal(r->deadline, m->deadline[o]);
        }
    }
    assert_int_equal(st.acquired_records, acquired);
    int64_t complete = 0;
    for (int64_t o = m->start; o < m->end; o++)
        complete += model_final(m->state[o]);
    assert_int_equal(st.delivery_complete_records, complete);
    assert_int_equal(gr_share_partition_next_fetch_offset(sp), model_next_fetch(m));
}

static void random_acquire(model_t *m, gr_share_partition_t *sp, const fake_log_t *l,
                           unsigned *seed, int64_t now)
{
    int member = rand_r(seed) % M_MEMBERS;
    bool rc = rand_r(seed) % 4 != 0;
    int32_t max_records = 1 + rand_r(seed) % 30;
    gr_share_acquire_mode_t mode = rand_r(seed) % 2;
    int32_t max_batches = 1 + rand_r(seed) % 8;
    model_expire(m, now);
    int64_t from = model_next_fetch(m);
    int32_t k = 0;
    while (k < l->count && l->batches[k].last_offset < from)
        k++;
    int32_t n = l->count - k < max_batches ? l->count - k : max_batches;
    /* The aborted transactions overlapping the read, as the log gives. */
    gr_share_aborted_txn_t aborted[M_SPAN];
    int32_t an = 0;
    if (n > 0) {
        for (int32_t i = 0; i < l->aborted_count; i++)
            if (l->aborted_end[i] >= l->batches[k].base_offset &&
                l->aborted[i].first_offset <= l->batches[k + n - 1].last_offset)
                aborted[an++] = l->aborted[i];
    }
    gr_share_acquire_request_t req = {.member_id = members[member],
                                      .fetch_offset = from,
                                      .batches = l->batches + k,
                                      .batch_count = n,
                                      .read_committed = rc,
                                      .aborted = aborted,
                                      .aborted_count = an,
                                      .max_records = max_records,
                                      .mode = mode,
                                      .batch_size = rand_r(seed) % 3 == 0 ? 4 : 0,
                                      .now_ms = now};
    gr_share_acquired_list_t out = {0};
    assert_int_equal(gr_share_partition_acquire(sp, &req, &out), 0);

    int8_t got[M_SPAN + 64] = {0};
    int16_t half = (int16_t)((m->cfg.delivery_count_limit + 1) / 2);
    model_walk_t w = {.new_room = m->cfg.max_record_locks - (m->end - m->start),
                      .stop_at = INT64_MAX,
                      .throttle = half > 2 ? half : 2};
    if (n > 0 && from < l->batches[k].base_offset)
        model_piece(m, &w, from, l->batches[k].base_offset - 1, true, member, max_records, mode,
                    now, got);
    for (int32_t i = 0; i < n && !w.done; i++) {
        const gr_share_log_batch_t *b = &l->batches[k + i];
        if (i > 0 && b->base_offset > l->batches[k + i - 1].last_offset + 1)
            model_piece(m, &w, l->batches[k + i - 1].last_offset + 1, b->base_offset - 1, false,
                        member, max_records, mode, now, got);
        if (!w.done && b->base_offset <= w.stop_at) {
            bool archive = rc ? l->archived_rc[k + i] : b->is_control;
            model_piece(m, &w, b->base_offset, b->last_offset, archive, member, max_records, mode,
                        now, got);
        }
    }
    model_trim(m);

    /* The same offsets with the same counts, in order, not overlapping. */
    int8_t seen[M_SPAN + 64] = {0};
    int64_t prev = -1, records = 0;
    for (int32_t i = 0; i < out.count; i++) {
        const gr_share_acquired_t *a = &out.items[i];
        assert_true(a->first_offset > prev && a->first_offset <= a->last_offset);
        for (int64_t o = a->first_offset; o <= a->last_offset; o++)
            seen[o] = (int8_t)a->delivery_count;
        records += a->last_offset - a->first_offset + 1;
        prev = a->last_offset;
    }
    assert_int_equal(records, out.records);
    assert_memory_equal(seen, got, sizeof(got));
    gr_share_acquired_list_fini(&out);
}

static void random_ack(model_t *m, gr_share_partition_t *sp, unsigned *seed, int64_t now)
{
    int member = rand_r(seed) % M_MEMBERS;
    bool renew_allowed = rand_r(seed) % 2;
    model_expire(m, now);
    /* Mostly a run the member holds, sometimes anything. */
    int64_t first = m->start - 2 + rand_r(seed) % (m->end - m->start + 5);
    if (rand_r(seed) % 4 != 0) {
        for (int64_t o = m->start; o < m->end; o++) {
            if (m->state[o] == GR_SHARE_RECORD_ACQUIRED && m->owner[o] == member &&
                rand_r(seed) % 3 == 0) {
                first = o;
                break;
            }
        }
    }
    if (first < 0)
        first = 0;
    int64_t last = first + rand_r(seed) % 8;
    /* Usually within what the member holds from first on. */
    if (first >= m->start && first < m->end && m->state[first] == GR_SHARE_RECORD_ACQUIRED &&
        m->owner[first] == member && rand_r(seed) % 4 != 0) {
        last = first;
        while (last + 1 < m->end && last - first < 7 && m->owner[last + 1] == member &&
               m->state[last + 1] == GR_SHARE_RECORD_ACQUIRED && rand_r(seed) % 8 != 0)
            last++;
    }
    int64_t len = last - first + 1;
    int8_t types[16];
    int32_t type_count = rand_r(seed) % 2 ? 1 : (int32_t)len;
    for (int32_t i = 0; i < type_count; i++)
        types[i] = (int8_t)(rand_r(seed) % (renew_allowed ? 5 : 4));
    if (rand_r(seed) % 50 == 0)
        types[0] = 9;
    gr_share_ack_batch_t b = {first, last, types, type_count};
    gr_kerr_t got = gr_share_partition_acknowledge(sp, members[member], &b, 1, renew_allowed, now);

    gr_kerr_t want = GR_KERR_NONE;
    for (int32_t i = 0; i < type_count; i++)
        if (!gr_share_ack_type_valid(types[i], renew_allowed))
            want = GR_KERR_INVALID_REQUEST;
    if (want == GR_KERR_NONE && last >= m->start) {
        if (last >= m->end) {
            want = m->start == m->end ? GR_KERR_INVALID_RECORD_STATE : GR_KERR_INVALID_REQUEST;
        } else {
            for (int64_t o = first > m->start ? first : m->start; o <= last; o++)
                if (m->state[o] != GR_SHARE_RECORD_ACQUIRED || m->owner[o] != member)
                    want = GR_KERR_INVALID_RECORD_STATE;
        }
    }
    assert_int_equal(got, want);
    if (want != GR_KERR_NONE)
        return;
    for (int64_t o = first > m->start ? first : m->start; o <= last; o++) {
        int8_t t = type_count == 1 ? types[0] : types[o - first];
        switch (t) {
        case GR_SHARE_ACK_ACCEPT:
            m->state[o] = GR_SHARE_RECORD_ACKNOWLEDGED;
            break;
        case GR_SHARE_ACK_RELEASE:
            model_release(m, o);
            continue;
        case GR_SHARE_ACK_RENEW:
            m->deadline[o] = now + m->cfg.record_lock_duration_ms;
            continue;
        default:
            m->state[o] = GR_SHARE_RECORD_ARCHIVED;
        }
        m->owner[o] = -1;
        m->deadline[o] = 0;
    }
    model_trim(m);
}

/* Exports, checks the batches against the model, and replaces the
 * partition by one imported from them (a new leader). */
static gr_share_partition_t *round_trip(model_t *m, gr_share_partition_t *sp)
{
    gr_share_state_t st;
    assert_int_equal(gr_share_partition_export(sp, &st), 0);
    assert_int_equal(gr_share_state_check(&st), 0);
    assert_int_equal(st.start_offset, m->start);
    int32_t i = 0;
    for (int64_t o = m->start; o < m->end; o++) {
        int8_t s =
            m->state[o] == GR_SHARE_RECORD_ACQUIRED ? GR_SHARE_RECORD_AVAILABLE : m->state[o];
        if (s == GR_SHARE_RECORD_AVAILABLE && m->dc[o] == 0)
            continue;
        assert_true(i < st.batch_count);
        const gr_share_state_batch_t *b = &st.batches[i];
        assert_true(o >= b->first_offset && o <= b->last_offset);
        assert_int_equal(b->state, s);
        assert_int_equal(b->delivery_count, m->dc[o]);
        if (o == b->last_offset)
            i++;
    }
    assert_int_equal(i, st.batch_count);
    for (int32_t k = 1; k < st.batch_count; k++) {
        const gr_share_state_batch_t *p = &st.batches[k - 1], *b = &st.batches[k];
        assert_false(p->last_offset + 1 == b->first_offset && p->state == b->state &&
                     p->delivery_count == b->delivery_count);
    }
    gr_share_partition_t *back = NULL;
    assert_int_equal(gr_share_partition_new(&m->cfg, &st, 0, &back), 0);
    free(st.batches);
    gr_share_partition_free(sp);
    /* The model as a new leader sees it. */
    int64_t end = m->start;
    for (int64_t o = m->start; o < m->end; o++) {
        if (m->state[o] == GR_SHARE_RECORD_ACQUIRED) {
            m->state[o] = GR_SHARE_RECORD_AVAILABLE;
            m->owner[o] = -1;
            m->deadline[o] = 0;
        }
        if (m->state[o] == GR_SHARE_RECORD_AVAILABLE && m->dc[o] >= m->cfg.delivery_count_limit)
            m->state[o] = GR_SHARE_RECORD_ARCHIVED;
        if (m->state[o] != GR_SHARE_RECORD_AVAILABLE || m->dc[o] > 0)
            end = o + 1;
    }
    m->end = end;
    model_trim(m);
    return back;
}

static void random_run(unsigned seed)
{
    fake_log_t *l = malloc(sizeof(*l));
    model_t *m = calloc(1, sizeof(*m));
    fake_log_build(l, &seed);
    m->cfg = (gr_share_partition_config_t){.record_lock_duration_ms = LOCK_MS,
                                           .delivery_count_limit = (int16_t)(2 + rand_r(&seed) % 5),
                                           .max_record_locks = 5 + rand_r(&seed) % 60};
    memset(m->owner, -1, sizeof(m->owner));
    gr_share_partition_t *sp = NULL;
    assert_int_equal(gr_share_partition_new(&m->cfg, NULL, 0, &sp), 0);
    int64_t now = 0;
    for (int step = 0; step < 1500; step++) {
        now += rand_r(&seed) % 4000;
        int op = rand_r(&seed) % 100;
        if (op < 45) {
            random_acquire(m, sp, l, &seed, now);
        } else if (op < 85) {
            random_ack(m, sp, &seed, now);
        } else if (op < 90) {
            int member = rand_r(&seed) % M_MEMBERS;
            int64_t want = 0;
            for (int64_t o = m->start; o < m->end; o++) {
                if (m->state[o] == GR_SHARE_RECORD_ACQUIRED && m->owner[o] == member) {
                    model_release(m, o);
                    want++;
                }
            }
            model_trim(m);
            assert_int_equal(gr_share_partition_release_member(sp, members[member]), want);
        } else if (op < 95) {
            int64_t want = 0, next = GR_SHARE_PARTITION_NO_DEADLINE;
            for (int64_t o = m->start; o < m->end; o++) {
                if (m->state[o] == GR_SHARE_RECORD_ACQUIRED && m->deadline[o] < next)
                    next = m->deadline[o];
                if (m->state[o] == GR_SHARE_RECORD_ACQUIRED && m->deadline[o] <= now)
                    want++;
            }
            assert_int_equal(gr_share_partition_next_deadline(sp), next);
            model_expire(m, now);
            assert_int_equal(gr_share_partition_expire(sp, now), want);
        } else if (op < 97) {
            int64_t to = m->start + rand_r(&seed) % 12;
            if (to > m->start) {
                for (int64_t o = m->start; o < to && o < m->end; o++)
                    m->state[o] = GR_SHARE_RECORD_ARCHIVED;
                if (to > m->end) {
                    for (int64_t o = m->end; o < to; o++)
                        m->state[o] = GR_SHARE_RECORD_ARCHIVED;
                    m->end = to;
                }
                m->start = to;
                model_trim(m);
            }
            assert_int_equal(gr_share_partition_advance_log_start(sp, to), 0);
        } else {
            sp = round_trip(m, sp);
        }
        compare(m, sp);
        if (m->end >= M_SPAN)
            break;
    }
    gr_share_partition_free(sp);
    free(m);
    free(l);
}

static void test_randomized_against_model(void **unused)
{
    (void)unused;
    for (unsigned seed = 1; seed <= 60; seed++)
        random_run(seed);
}

/* Everything observable about a partition, to tell that a failed call
 * changed nothing. */
typedef struct snapshot {
    gr_share_partition_stats_t stats;
    bool changed;
    int64_t deadline;
    int8_t state[64];
    int16_t dc[64];
    char owner[64][8];
} snapshot_t;

static void snap(const gr_share_partition_t *sp, snapshot_t *s)
{
    memset(s, 0, sizeof(*s));
    gr_share_partition_stats(sp, &s->stats);
    s->changed = gr_share_partition_changed(sp);
    s->deadline = gr_share_partition_next_deadline(sp);
    for (int64_t o = 0; o < 64; o++) {
        const char *owner = NULL;
        s->state[o] = (int8_t)gr_share_partition_offset_state(sp, o, &s->dc[o], &owner);
        if (owner)
            snprintf(s->owner[o], sizeof(s->owner[o]), "%s", owner);
    }
}

static void expect_unchanged(const gr_share_partition_t *sp, const snapshot_t *before)
{
    snapshot_t after;
    snap(sp, &after);
    assert_memory_equal(&after, before, sizeof(after));
}

/* Fails each allocation of an acquisition, an acknowledgement, a log start
 * move, an export and a creation in turn: each fails cleanly and leaves
 * the partition as it was, then succeeds. */
static void test_out_of_memory_changes_nothing(void **unused)
{
    (void)unused;
    gr_share_log_batch_t log[] = {{0, 4, -1, false, false},
                                  {5, 9, 3, true, false},
                                  {10, 10, 3, true, true},
                                  {12, 19, -1, false, false},
                                  {20, 29, -1, false, false}};
    gr_share_aborted_txn_t aborted[] = {{3, 5}};
    gr_share_partition_t *sp = make(NULL, 0);
    gr_share_acquired_list_t a = acquire(sp, "m1", log, 1, &(acq_opts_t){.max_records = 5}, 0);
    expect_one(&a, 0, 4, 1);
    int8_t types[] = {1, 2, 3, 1, 4};
    gr_share_ack_batch_t b = {0, 4, types, 5};
    gr_share_acquire_request_t req = {.member_id = "m2",
                                      .fetch_offset = 5,
                                      .batches = log + 1,
                                      .batch_count = 4,
                                      .read_committed = true,
                                      .aborted = aborted,
                                      .aborted_count = 1,
                                      .max_records = 12,
                                      .now_ms = 1};
    int failures = 0;
    for (int n = 1;; n++) {
        snapshot_t before;
        snap(sp, &before);
        gr_share_acquired_list_t out = {0};
        fail_at = n;
        int rc = gr_share_partition_acquire(sp, &req, &out);
        fail_at = 0;
        check_invariants(sp);
        if (rc == 0) {
            assert_int_equal(out.count, 1);
            assert_int_equal(out.items[0].first_offset, 11); /* the hole 11 with its neighbours */
            assert_int_equal(out.items[0].last_offset, 29);
            gr_share_acquired_list_fini(&out);
            break;
        }
        assert_int_equal(rc, -ENOMEM);
        expect_unchanged(sp, &before);
        gr_share_acquired_list_fini(&out);
        failures++;
    }
    for (int n = 1;; n++) {
        snapshot_t before;
        snap(sp, &before);
        fail_at = n;
        gr_kerr_t err = gr_share_partition_acknowledge(sp, "m1", &b, 1, true, 2);
        fail_at = 0;
        check_invariants(sp);
        if (err == GR_KERR_NONE)
            break;
        assert_int_equal(err, GR_KERR_UNKNOWN_SERVER_ERROR);
        expect_unchanged(sp, &before);
        failures++;
    }
    assert_int_equal(state_of(sp, 1, NULL, NULL), GR_SHARE_RECORD_AVAILABLE);
    assert_int_equal(state_of(sp, 4, NULL, NULL), GR_SHARE_RECORD_ACQUIRED);
    for (int n = 1;; n++) {
        snapshot_t before;
        snap(sp, &before);
        fail_at = n;
        int rc = gr_share_partition_advance_log_start(sp, 15);
        fail_at = 0;
        check_invariants(sp);
        if (rc == 0)
            break;
        assert_int_equal(rc, -ENOMEM);
        expect_unchanged(sp, &before);
        failures++;
    }
    gr_share_state_t st;
    fail_at = 1;
    assert_int_equal(gr_share_partition_export(sp, &st), -ENOMEM);
    fail_at = 0;
    assert_true(gr_share_partition_changed(sp));
    assert_int_equal(gr_share_partition_export(sp, &st), 0);
    for (int n = 1;; n++) {
        gr_share_partition_t *back = NULL;
        fail_at = n;
        int rc = gr_share_partition_new(&default_config, &st, 0, &back);
        fail_at = 0;
        if (rc == 0) {
            check_invariants(back);
            gr_share_partition_free(back);
            break;
        }
        assert_int_equal(rc, -ENOMEM);
        assert_null(back);
        failures++;
    }
    assert_true(failures >= 4);
    free(st.batches);
    gr_share_partition_free(sp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_members_acquire_distinct_records),
        cmocka_unit_test(test_release_redelivers_with_rising_count),
        cmocka_unit_test(test_reject_archives_and_start_advances),
        cmocka_unit_test(test_lock_expiry_and_renew),
        cmocka_unit_test(test_lock_duration_change),
        cmocka_unit_test(test_delivery_count_limit_archives),
        cmocka_unit_test(test_transactions_and_control_never_acquired),
        cmocka_unit_test(test_max_record_locks),
        cmocka_unit_test(test_max_records_and_batch_alignment),
        cmocka_unit_test(test_acknowledge_errors),
        cmocka_unit_test(test_gaps),
        cmocka_unit_test(test_export_import_round_trip),
        cmocka_unit_test(test_poison_records_are_isolated),
        cmocka_unit_test(test_log_start_moves),
        cmocka_unit_test(test_randomized_against_model),
        cmocka_unit_test(test_out_of_memory_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
