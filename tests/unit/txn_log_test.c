/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of transactions in the partition log: open transactions in the
 * producer state (opening, ending, INVALID_TXN_STATE, marker fencing), the
 * last stable offset against the high watermark, the .txnindex (written by
 * ABORT markers in Kafka's 34-byte format, collected for fetches, cut on
 * truncation, rebuilt when missing and after an unclean shutdown, removed
 * with its segment), and a producer snapshot carrying an open transaction
 * across a restart.
 *
 * Log tests work in their own mkdtemp directory under /tmp, removed at the
 * end. "Now" is always injected, never read.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "log/log.h"
#include "log/log_dir.h"
#include "log/producer_state.h"
#include "protocol/control_batch.h"
#include "protocol/records.h"

#define PID_A      1001
#define PID_B      2002
#define TS         1000000
#define BATCH      3 /* records per data batch */
#define ENTRY_SIZE 34

/* ---- producer state --------------------------------------------------- */

static gr_batch_header_t data_header(int64_t pid, int16_t epoch, int32_t seq, bool txn)
{
    gr_batch_header_t h;
    memset(&h, 0, sizeof h);
    h.magic = GR_RECORD_BATCH_MAGIC_V2;
    h.producer_id = pid;
    h.producer_epoch = epoch;
    h.base_sequence = seq;
    h.last_offset_delta = BATCH - 1;
    h.records_count = BATCH;
    h.base_timestamp = TS;
    h.max_timestamp = TS;
    if (txn)
        h.attributes = GR_BATCH_ATTR_TRANSACTIONAL;
    return h;
}

static void state_data(gr_producer_state_t *ps, int64_t pid, int32_t seq, bool txn, int64_t off)
{
    gr_batch_header_t h = data_header(pid, 0, seq, txn);
    assert_int_equal(gr_producer_state_check(ps, &h, NULL), GR_PRODUCER_APPEND);
    h.base_offset = off;
    assert_int_equal(gr_producer_state_update(ps, &h, NULL, NULL), 0);
}

static gr_txn_end_t state_marker(gr_producer_state_t *ps, int64_t pid, int16_t epoch,
                                 int32_t coordinator_epoch, bool commit, int64_t off)
{
    gr_batch_header_t h;
    memset(&h, 0, sizeof h);
    h.magic = GR_RECORD_BATCH_MAGIC_V2;
    h.attributes = GR_BATCH_ATTR_CONTROL | GR_BATCH_ATTR_TRANSACTIONAL;
    h.producer_id = pid;
    h.producer_epoch = epoch;
    h.base_sequence = -1;
    h.records_count = 1;
    h.base_offset = off;
    h.max_timestamp = TS;
    gr_control_marker_t m = {commit ? GR_CONTROL_TYPE_COMMIT : GR_CONTROL_TYPE_ABORT,
                             coordinator_epoch};
    gr_txn_end_t end;
    assert_int_equal(gr_producer_state_update(ps, &h, &m, &end), 0);
    return end;
}

static void test_state_open_and_end(void **state)
{
    (void)state;
    gr_producer_state_t ps;
    gr_producer_state_init(&ps);
    assert_int_equal(gr_producer_state_first_unstable(&ps, 100), -1);

    state_data(&ps, PID_A, 0, true, 10); /* A opens at 10 */
    state_data(&ps, PID_A, BATCH, true, 13);
    state_data(&ps, PID_B, 0, true, 16); /* B opens at 16 */
    assert_int_equal(gr_producer_state_find(&ps, PID_A)->current_txn_first_offset, 10);
    assert_int_equal(gr_producer_state_first_unstable(&ps, 100), 10);

    /* Non-transactional data inside A's transaction is refused. */
    gr_batch_header_t plain = data_header(PID_A, 0, 2 * BATCH, false);
    assert_int_equal(gr_producer_state_check(&ps, &plain, NULL), GR_PRODUCER_INVALID_TXN_STATE);

    /* A aborts at 19: the entry's LSO is B's first offset (still open). */
    gr_txn_end_t end = state_marker(&ps, PID_A, 0, 5, false, 19);
    assert_true(end.ended);
    assert_true(end.aborted);
    assert_int_equal(end.txn.producer_id, PID_A);
    assert_int_equal(end.txn.first_offset, 10);
    assert_int_equal(end.txn.last_offset, 19);
    assert_int_equal(end.txn.last_stable_offset, 16);
    assert_int_equal(gr_producer_state_find(&ps, PID_A)->current_txn_first_offset, -1);
    assert_int_equal(gr_producer_state_find(&ps, PID_A)->coordinator_epoch, 5);

    /* A's transaction holds the LSO until the high watermark passes its marker. */
    assert_int_equal(gr_producer_state_first_unstable(&ps, 19), 10);
    assert_int_equal(gr_producer_state_first_unstable(&ps, 20), 16);
    gr_producer_state_on_high_watermark(&ps, 20);
    assert_int_equal(ps.txn_count, 1);

    /* B commits: its LSO in an index would be its marker + 1. */
    end = state_marker(&ps, PID_B, 0, 5, true, 20);
    assert_true(end.ended);
    assert_false(end.aborted);
    assert_int_equal(end.txn.last_stable_offset, 21);
    assert_int_equal(gr_producer_state_first_unstable(&ps, 20), 16);
    assert_int_equal(gr_producer_state_first_unstable(&ps, 21), -1);

    /* A marker with nothing open ends nothing. */
    end = state_marker(&ps, PID_A, 0, 5, false, 22);
    assert_false(end.ended);

    /* After the marker, plain data from A is fine again. */
    assert_int_equal(gr_producer_state_check(&ps, &plain, NULL), GR_PRODUCER_APPEND);
    gr_producer_state_fini(&ps);
}

static void test_state_marker_checks(void **state)
{
    (void)state;
    gr_producer_state_t ps;
    gr_producer_state_init(&ps);
    /* Unknown producer: written (it ends nothing). */
    assert_int_equal(gr_producer_state_check_marker(&ps, PID_A, 0, 0), GR_PRODUCER_APPEND);
    gr_batch_header_t h = data_header(PID_A, 3, 0, true);
    h.base_offset = 0;
    assert_int_equal(gr_producer_state_update(&ps, &h, NULL, NULL), 0);
    state_marker(&ps, PID_A, 3, 7, true, 3);
    assert_int_equal(gr_producer_state_check_marker(&ps, PID_A, 2, 7), GR_PRODUCER_STALE_EPOCH);
    assert_int_equal(gr_producer_state_check_marker(&ps, PID_A, 3, 6),
                     GR_PRODUCER_COORDINATOR_FENCED);
    assert_int_equal(gr_producer_state_check_marker(&ps, PID_A, 3, 7), GR_PRODUCER_APPEND);
    /* A bumped epoch (fencing) from a newer coordinator is fine. */
    assert_int_equal(gr_producer_state_check_marker(&ps, PID_A, 4, 8), GR_PRODUCER_APPEND);
    /* An empty control batch (cleaned) moves the epoch only. */
    gr_batch_header_t empty = h;
    empty.attributes = GR_BATCH_ATTR_CONTROL | GR_BATCH_ATTR_TRANSACTIONAL;
    empty.producer_epoch = 4;
    empty.base_offset = 4;
    gr_txn_end_t end;
    assert_int_equal(gr_producer_state_update(&ps, &empty, NULL, &end), 0);
    assert_false(end.ended);
    assert_int_equal(gr_producer_state_find(&ps, PID_A)->epoch, 4);
    assert_int_equal(gr_producer_state_find(&ps, PID_A)->coordinator_epoch, 7);
    gr_producer_state_fini(&ps);
}

static void test_state_expiry_keeps_open(void **state)
{
    (void)state;
    gr_producer_state_t ps;
    gr_producer_state_init(&ps);
    state_data(&ps, PID_A, 0, true, 0);
    state_data(&ps, PID_B, 0, false, 3);
    assert_int_equal(gr_producer_state_expire(&ps, TS + 1000, 10), 1);
    assert_non_null(gr_producer_state_find(&ps, PID_A));
    assert_null(gr_producer_state_find(&ps, PID_B));
    gr_producer_state_fini(&ps);
}

static void test_state_snapshot_round_trip(void **state)
{
    (void)state;
    char dir[] = "/tmp/gr_txn_snap_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/00000000000000000042.snapshot", dir);
    gr_producer_state_t ps, back;
    gr_producer_state_init(&ps);
    gr_producer_state_init(&back);
    state_data(&ps, PID_B, 0, true, 20); /* B open at 20 */
    state_data(&ps, PID_A, 0, true, 10); /* A open at 10, ended below */
    state_marker(&ps, PID_A, 0, 3, false, 30);
    state_data(&ps, PID_A, BATCH, true, 31); /* A open again at 31 */
    assert_int_equal(gr_producer_state_write(&ps, gr_io_default(), path), 0);
    assert_int_equal(gr_producer_state_read(&back, gr_io_default(), path), 0);
    const gr_producer_entry_t *a = gr_producer_state_find(&back, PID_A);
    assert_non_null(a);
    assert_int_equal(a->current_txn_first_offset, 31);
    assert_int_equal(a->coordinator_epoch, 3);
    assert_int_equal(gr_producer_state_find(&back, PID_B)->current_txn_first_offset, 20);
    /* The open transactions come back, in first-offset order; ended ones do not. */
    assert_int_equal(back.txn_count, 2);
    assert_int_equal(back.txns[0].first_offset, 20);
    assert_int_equal(back.txns[1].first_offset, 31);
    assert_int_equal(gr_producer_state_first_unstable(&back, 100), 20);
    gr_producer_state_fini(&ps);
    gr_producer_state_fini(&back);
    unlink(path);
    rmdir(dir);
}

/* ---- the log ------------------------------------------------------------ */

typedef struct fixture {
    char root[64];
    char dir[128];
    gr_fd_cache_t *fds;
    gr_log_config_t cfg;
    gr_log_open_args_t args;
    gr_log_t *log;
    int32_t seq[2]; /* next sequence of A and B */
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->root, sizeof f->root, "/tmp/gr_txn_log_test_XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    snprintf(f->dir, sizeof f->dir, "%s/txn-0", f->root);
    f->fds = gr_fd_cache_new(64);
    gr_log_config_init(&f->cfg);
    f->args.fds = f->fds;
    f->args.clean_shutdown = true;
    f->args.recovery_point = -1;
    f->args.log_start_offset = -1;
    f->args.high_watermark = -1;
    f->args.now_ms = TS;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    gr_log_close(f->log);
    gr_log_dir_remove_tree(NULL, f->root);
    gr_fd_cache_free(f->fds);
    free(f);
    return 0;
}

static void open_log(fixture_t *f)
{
    assert_int_equal(gr_log_open(&f->cfg, f->dir, &f->args, &f->log, NULL), 0);
}

static void reopen(fixture_t *f, bool clean)
{
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    f->args.clean_shutdown = clean;
    f->args.recovery_point = clean ? -1 : 0;
    open_log(f);
}

/* Appends a data batch of pid (transactional or not); returns its offset. */
static int64_t log_data(fixture_t *f, int64_t pid, bool txn)
{
    int32_t *seq = &f->seq[pid == PID_A ? 0 : 1];
    gr_batch_header_t h = data_header(pid, 0, *seq, txn);
    gr_record_t recs[BATCH];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < BATCH; i++) {
        recs[i].offset_delta = i;
        recs[i].key.ptr = (const uint8_t *)"k";
        recs[i].key.len = 1;
        recs[i].value.ptr = (const uint8_t *)"value";
        recs[i].value.len = 5;
    }
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_batch_build(&w, &h, recs, BATCH, GR_COMPRESSION_NONE), 0);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, w.buf, w.len, 0, TS, &info), 0);
    gr_writer_fini(&w);
    *seq += BATCH;
    return info.first_offset;
}

/* Appends a marker for pid; returns its offset. */
static int64_t log_marker(fixture_t *f, int64_t pid, bool commit)
{
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_control_batch_build(&w, pid, 0, 1, commit, TS), 0);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, w.buf, w.len, 0, TS, &info), 0);
    gr_writer_fini(&w);
    return info.first_offset;
}

static void hw_to_end(fixture_t *f)
{
    gr_log_set_high_watermark(f->log, gr_log_end_offset(f->log));
}

static void txnindex_path(const fixture_t *f, int64_t base, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%020" PRId64 ".txnindex", f->dir, base);
}

static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

static int64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return (int64_t)v;
}

/* Collects over [from, upper) and checks count, and the first entry if any. */
static void assert_aborted(fixture_t *f, int64_t from, int64_t upper, size_t count, int64_t pid,
                           int64_t first)
{
    gr_aborted_txn_t *txns = NULL;
    size_t n = 99;
    assert_int_equal(gr_log_collect_aborted(f->log, from, upper, &txns, &n), 0);
    assert_int_equal(n, count);
    if (count > 0) {
        assert_int_equal(txns[0].producer_id, pid);
        assert_int_equal(txns[0].first_offset, first);
    }
    free(txns);
}

static void test_log_lso_and_index(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    int64_t a0 = log_data(f, PID_A, true); /* 0-2 */
    log_data(f, PID_B, false);             /* 3-5, plain */
    hw_to_end(f);
    assert_int_equal(gr_log_last_stable_offset(f->log), a0);
    int64_t b0 = log_data(f, PID_B, true); /* 6-8 */
    int64_t abort_a = log_marker(f, PID_A, false);
    /* The marker is not below the high watermark yet: A still holds the LSO. */
    assert_int_equal(gr_log_last_stable_offset(f->log), a0);
    hw_to_end(f);
    assert_int_equal(gr_log_last_stable_offset(f->log), b0);
    int64_t commit_b = log_marker(f, PID_B, true);
    hw_to_end(f);
    assert_int_equal(gr_log_last_stable_offset(f->log), gr_log_end_offset(f->log));

    /* One entry, in Kafka's layout. */
    char path[256];
    txnindex_path(f, 0, path, sizeof path);
    assert_int_equal(file_size(path), ENTRY_SIZE);
    FILE *fp = fopen(path, "rb");
    uint8_t e[ENTRY_SIZE];
    assert_int_equal(fread(e, 1, sizeof e, fp), sizeof e);
    fclose(fp);
    assert_int_equal(e[0] << 8 | e[1], 0);
    assert_int_equal(be64(e + 2), PID_A);
    assert_int_equal(be64(e + 10), a0);
    assert_int_equal(be64(e + 18), abort_a);
    assert_int_equal(be64(e + 26), b0); /* B was open then */

    /* Collected for ranges it overlaps only. */
    assert_aborted(f, 0, 3, 1, PID_A, a0);
    assert_aborted(f, abort_a, commit_b, 1, PID_A, a0);
    assert_aborted(f, abort_a + 1, commit_b + 1, 0, 0, 0);

    /* Truncating below the marker cuts the entry and reopens A's transaction. */
    assert_int_equal(gr_log_truncate_to(f->log, abort_a), 0);
    assert_int_equal(file_size(path), 0);
    assert_int_equal(gr_log_last_stable_offset(f->log), a0);
    assert_int_equal(
        gr_producer_state_find(gr_log_producer_state(f->log), PID_A)->current_txn_first_offset, a0);
}

static void test_log_index_survives_and_rebuilds(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 300; /* a roll every few batches */
    open_log(f);
    int64_t a0 = log_data(f, PID_A, true);
    log_data(f, PID_A, true);
    int64_t b0 = log_data(f, PID_B, true);
    int64_t abort_a = log_marker(f, PID_A, false);
    log_data(f, PID_B, true);
    log_marker(f, PID_B, false);
    int64_t a1 = log_data(f, PID_A, true);
    log_data(f, PID_A, true);
    hw_to_end(f);
    assert_true(gr_log_segment_count(f->log) > 2);
    int64_t lso = gr_log_last_stable_offset(f->log);
    assert_int_equal(lso, a1);
    int64_t leo = gr_log_end_offset(f->log);

    /* Clean restart: the open transaction comes back from the snapshot. */
    reopen(f, true);
    gr_log_set_high_watermark(f->log, leo);
    assert_int_equal(gr_log_last_stable_offset(f->log), a1);
    assert_aborted(f, 0, leo, 2, PID_A, a0);

    /* Every .txnindex removed: rebuilt from the log at open. */
    for (int64_t base = 0; base < leo; base++) {
        char path[256];
        txnindex_path(f, base, path, sizeof path);
        unlink(path);
    }
    reopen(f, true);
    char first_index[256];
    txnindex_path(f, 0, first_index, sizeof first_index);
    assert_true(file_size(first_index) >= 0);
    gr_log_set_high_watermark(f->log, leo);
    assert_aborted(f, 0, leo, 2, PID_A, a0);
    assert_aborted(f, abort_a + 1, leo, 1, PID_B, b0);
    assert_int_equal(gr_log_last_stable_offset(f->log), a1);

    /* Unclean: every segment rescanned, indexes rebuilt, state replayed. */
    reopen(f, false);
    gr_log_set_high_watermark(f->log, leo);
    assert_aborted(f, 0, leo, 2, PID_A, a0);
    assert_int_equal(gr_log_last_stable_offset(f->log), a1);
    assert_int_equal(
        gr_producer_state_find(gr_log_producer_state(f->log), PID_A)->current_txn_first_offset, a1);
}

static void test_log_retention_removes_index(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 300;
    f->cfg.file_delete_delay_ms = 0;
    open_log(f);
    log_data(f, PID_A, true);
    log_data(f, PID_A, true);
    log_marker(f, PID_A, false);
    for (int i = 0; i < 6; i++)
        log_data(f, PID_B, false);
    hw_to_end(f);
    char path[256];
    txnindex_path(f, 0, path, sizeof path);
    assert_int_equal(file_size(path), ENTRY_SIZE);
    int64_t second = -1;
    for (int64_t off = 1; off < gr_log_end_offset(f->log) && second < 0; off++) {
        char p2[256];
        txnindex_path(f, off, p2, sizeof p2);
        if (file_size(p2) >= 0)
            second = off;
    }
    assert_true(second > 0);
    int64_t low;
    assert_int_equal(gr_log_delete_records_before(f->log, second, &low), 0);
    gr_log_enforce_retention(f->log, TS + 1);
    assert_int_equal(file_size(path), -1);
    assert_aborted(f, second, gr_log_end_offset(f->log), 0, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_open_and_end),
        cmocka_unit_test(test_state_marker_checks),
        cmocka_unit_test(test_state_expiry_keeps_open),
        cmocka_unit_test(test_state_snapshot_round_trip),
        cmocka_unit_test_setup_teardown(test_log_lso_and_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_index_survives_and_rebuilds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_retention_removes_index, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
