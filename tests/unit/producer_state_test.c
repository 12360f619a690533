/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the idempotent-producer state (src/log/producer_state.c)
 * and its snapshots in the partition log (producer_snapshots.c, log.c):
 * the five-batch window, duplicates, sequence gaps, epochs, wrapping
 * sequences, expiry, the snapshot format, and the state surviving a clean
 * close, a roll, a lost snapshot (rebuilt from the log), a stale snapshot
 * past the log end, and a truncation.
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
#include "protocol/crc32c.h"
#include "protocol/records.h"

#define PID   4242
#define TS    1000000
#define BATCH 3 /* records per test batch */

/* A header as a client sends it: count records from sequence seq. */
static gr_batch_header_t header(int64_t pid, int16_t epoch, int32_t seq, int count)
{
    gr_batch_header_t h;
    memset(&h, 0, sizeof h);
    h.magic = GR_RECORD_BATCH_MAGIC_V2;
    h.producer_id = pid;
    h.producer_epoch = epoch;
    h.base_sequence = seq;
    h.last_offset_delta = count - 1;
    h.records_count = count;
    h.base_timestamp = TS;
    h.max_timestamp = TS;
    return h;
}

/* Appends (to the state only) at offset; returns the header used. */
static gr_batch_header_t appended(gr_producer_state_t *ps, int16_t epoch, int32_t seq,
                                  int64_t offset)
{
    gr_batch_header_t h = header(PID, epoch, seq, BATCH);
    assert_int_equal(gr_producer_state_check(ps, &h, NULL), GR_PRODUCER_APPEND);
    h.base_offset = offset;
    assert_int_equal(gr_producer_state_update(ps, &h, NULL, NULL), 0);
    return h;
}

static void test_window_and_duplicates(void **state)
{
    (void)state;
    gr_producer_state_t ps;
    gr_producer_state_init(&ps);
    for (int i = 0; i < 7; i++)
        appended(&ps, 0, i * BATCH, 100 + i * 10);
    const gr_producer_entry_t *e = gr_producer_state_find(&ps, PID);
    assert_non_null(e);
    assert_int_equal(e->nbatches, GR_PRODUCER_BATCHES_KEPT);
    assert_int_equal(gr_producer_entry_last_seq(e), 7 * BATCH - 1);

    /* The last five batches (2..6) are recognised, with their offsets. */
    for (int i = 2; i < 7; i++) {
        gr_producer_batch_t dup;
        gr_batch_header_t h = header(PID, 0, i * BATCH, BATCH);
        assert_int_equal(gr_producer_state_check(&ps, &h, &dup), GR_PRODUCER_DUPLICATE);
        assert_int_equal(dup.first_offset, 100 + i * 10);
        assert_int_equal(dup.last_offset, 100 + i * 10 + BATCH - 1);
    }
    /* Older ones fell out of the window: a gap now. */
    gr_batch_header_t old = header(PID, 0, BATCH, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &old, NULL), GR_PRODUCER_OUT_OF_ORDER);
    /* Same first sequence, different length: not a duplicate. */
    gr_batch_header_t partial = header(PID, 0, 6 * BATCH, 1);
    assert_int_equal(gr_producer_state_check(&ps, &partial, NULL), GR_PRODUCER_OUT_OF_ORDER);
    /* A gap ahead. */
    gr_batch_header_t gap = header(PID, 0, 7 * BATCH + 1, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &gap, NULL), GR_PRODUCER_OUT_OF_ORDER);
    /* The next one in sequence. */
    gr_batch_header_t next = header(PID, 0, 7 * BATCH, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &next, NULL), GR_PRODUCER_APPEND);
    gr_producer_state_fini(&ps);
}

static void test_epochs(void **state)
{
    (void)state;
    gr_producer_state_t ps;
    gr_producer_state_init(&ps);
    appended(&ps, 3, 0, 0);
    appended(&ps, 3, BATCH, 10);
    gr_batch_header_t stale = header(PID, 2, 2 * BATCH, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &stale, NULL), GR_PRODUCER_STALE_EPOCH);
    /* A duplicate from an older epoch is still stale. */
    gr_batch_header_t stale_dup = header(PID, 2, 0, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &stale_dup, NULL), GR_PRODUCER_STALE_EPOCH);
    /* A new epoch must start at 0. */
    gr_batch_header_t bumped_bad = header(PID, 4, 2 * BATCH, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &bumped_bad, NULL), GR_PRODUCER_OUT_OF_ORDER);
    appended(&ps, 4, 0, 20);
    const gr_producer_entry_t *e = gr_producer_state_find(&ps, PID);
    assert_int_equal(e->epoch, 4);
    assert_int_equal(e->nbatches, 1);
    /* Now epoch 3 is fenced. */
    gr_batch_header_t old = header(PID, 3, 2 * BATCH, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &old, NULL), GR_PRODUCER_STALE_EPOCH);
    /* An unknown producer is accepted at any sequence (Kafka >= 2.5). */
    gr_batch_header_t other = header(PID + 1, 0, 500, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &other, NULL), GR_PRODUCER_APPEND);
    /* No producer id: nothing to check. */
    gr_batch_header_t plain = header(-1, -1, -1, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &plain, NULL), GR_PRODUCER_APPEND);
    assert_int_equal(gr_producer_state_update(&ps, &plain, NULL, NULL), 0);
    assert_int_equal(ps.count, 1);
    gr_producer_state_fini(&ps);
}

static void test_sequence_wraps(void **state)
{
    (void)state;
    gr_producer_state_t ps;
    gr_producer_state_init(&ps);
    appended(&ps, 0, INT32_MAX - 1, 0); /* INT32_MAX-1, INT32_MAX, 0 */
    const gr_producer_entry_t *e = gr_producer_state_find(&ps, PID);
    assert_int_equal(gr_producer_entry_last_seq(e), 0);
    gr_batch_header_t next = header(PID, 0, 1, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &next, NULL), GR_PRODUCER_APPEND);
    gr_batch_header_t dup = header(PID, 0, INT32_MAX - 1, BATCH);
    assert_int_equal(gr_producer_state_check(&ps, &dup, NULL), GR_PRODUCER_DUPLICATE);
    gr_producer_state_fini(&ps);
}

static void test_expiry(void **state)
{
    (void)state;
    gr_producer_state_t ps;
    gr_producer_state_init(&ps);
    for (int64_t pid = 1; pid <= 4; pid++) {
        gr_batch_header_t h = header(pid, 0, 0, 1);
        h.max_timestamp = TS + pid * 100;
        h.base_offset = pid;
        assert_int_equal(gr_producer_state_update(&ps, &h, NULL, NULL), 0);
    }
    /* Producers 1 and 2 are idle for >= 250 ms at TS + 450. */
    assert_int_equal(gr_producer_state_expire(&ps, TS + 450, 250), 2);
    assert_null(gr_producer_state_find(&ps, 1));
    assert_null(gr_producer_state_find(&ps, 2));
    assert_non_null(gr_producer_state_find(&ps, 3));
    assert_non_null(gr_producer_state_find(&ps, 4));
    /* Expired, it is unknown again: any sequence goes. */
    gr_batch_header_t h = header(1, 0, 77, 1);
    assert_int_equal(gr_producer_state_check(&ps, &h, NULL), GR_PRODUCER_APPEND);
    gr_producer_state_fini(&ps);
}

/* ---- snapshots ---------------------------------------------------------- */

typedef struct fixture {
    char root[64];
    char dir[128];
    gr_fd_cache_t *fds;
    gr_log_config_t cfg;
    gr_log_open_args_t args;
    gr_log_t *log;
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->root, sizeof f->root, "/tmp/gr_producer_test_XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    snprintf(f->dir, sizeof f->dir, "%s/idem-0", f->root);
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

static void snapshot_file(const fixture_t *f, int64_t offset, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%020" PRId64 ".snapshot", f->dir, offset);
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Appends one idempotent batch of BATCH records through the log; returns its offset. */
static int64_t log_produce(fixture_t *f, int64_t pid, int16_t epoch, int32_t seq)
{
    gr_batch_header_t h = header(pid, epoch, seq, BATCH);
    gr_record_t recs[BATCH];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < BATCH; i++) {
        recs[i].offset_delta = i;
        recs[i].key.len = GR_NULL_LEN;
        recs[i].value.ptr = (const uint8_t *)"value";
        recs[i].value.len = 5;
    }
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_batch_build(&w, &h, recs, BATCH, GR_COMPRESSION_NONE), 0);
    assert_int_equal(gr_producer_state_check(gr_log_producer_state(f->log), &h, NULL),
                     GR_PRODUCER_APPEND);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, w.buf, w.len, 0, TS, &info), 0);
    gr_writer_fini(&w);
    return info.first_offset;
}

static void assert_duplicate(fixture_t *f, int64_t pid, int16_t epoch, int32_t seq, int64_t offset)
{
    gr_producer_batch_t dup;
    gr_batch_header_t h = header(pid, epoch, seq, BATCH);
    assert_int_equal(gr_producer_state_check(gr_log_producer_state(f->log), &h, &dup),
                     GR_PRODUCER_DUPLICATE);
    assert_int_equal(dup.first_offset, offset);
}

static void test_snapshot_round_trip(void **state)
{
    (void)state;
    char path[] = "/tmp/gr_producer_snapshot_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    gr_producer_state_t ps, back;
    gr_producer_state_init(&ps);
    gr_producer_state_init(&back);
    for (int i = 0; i < 7; i++)
        appended(&ps, 2, i * BATCH, i * 10);
    gr_batch_header_t other = header(PID + 1, 0, 0, 1);
    other.base_offset = 1000;
    assert_int_equal(gr_producer_state_update(&ps, &other, NULL, NULL), 0);
    assert_int_equal(gr_producer_state_write(&ps, gr_io_default(), path), 0);
    assert_int_equal(gr_producer_state_read(&back, gr_io_default(), path), 0);
    assert_int_equal(back.count, 2);
    assert_int_equal(back.entries[0].nbatches, GR_PRODUCER_BATCHES_KEPT);
    assert_memory_equal(back.entries[0].batches, ps.entries[0].batches,
                        sizeof ps.entries[0].batches);
    assert_int_equal(back.entries[0].epoch, 2);
    assert_int_equal(back.entries[1].producer_id, PID + 1);

    /* Kafka's layout: version 1, then CRC-32C of the rest, then 6 entries. */
    FILE *fp = fopen(path, "r+b");
    uint8_t head[10];
    assert_int_equal(fread(head, 1, sizeof head, fp), sizeof head);
    assert_int_equal(head[0] << 8 | head[1], 1);
    assert_int_equal(head[6] << 24 | head[7] << 16 | head[8] << 8 | head[9], 6);
    /* A flipped byte fails the CRC and leaves the state empty. */
    fseek(fp, 20, SEEK_SET);
    fputc(0x7f, fp);
    fclose(fp);
    assert_int_equal(gr_producer_state_read(&back, gr_io_default(), path), -EINVAL);
    assert_int_equal(back.count, 0);
    unlink(path);
    assert_int_equal(gr_producer_state_read(&back, gr_io_default(), path), -ENOENT);
    gr_producer_state_fini(&ps);
    gr_producer_state_fini(&back);
}

static void test_log_clean_restart(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    int64_t offsets[7];
    for (int i = 0; i < 7; i++)
        offsets[i] = log_produce(f, PID, 0, i * BATCH);
    int64_t leo = gr_log_end_offset(f->log);
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    char path[256];
    snapshot_file(f, leo, path, sizeof path);
    assert_true(file_exists(path));
    open_log(f);
    /* The whole window came back from the snapshot. */
    for (int i = 2; i < 7; i++)
        assert_duplicate(f, PID, 0, i * BATCH, offsets[i]);
    log_produce(f, PID, 0, 7 * BATCH);
}

static void test_log_rebuilt_after_crash(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 400; /* a roll every few batches */
    open_log(f);
    int64_t offsets[12];
    for (int i = 0; i < 12; i++)
        offsets[i] = log_produce(f, PID, 1, i * BATCH);
    assert_true(gr_log_segment_count(f->log) > 2);
    int64_t leo = gr_log_end_offset(f->log);
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    /* A crash before the close's snapshot: only the rolls' ones remain. */
    char path[256];
    snapshot_file(f, leo, path, sizeof path);
    assert_int_equal(unlink(path), 0);
    f->args.clean_shutdown = false;
    f->args.recovery_point = 0;
    open_log(f);
    for (int i = 7; i < 12; i++)
        assert_duplicate(f, PID, 1, i * BATCH, offsets[i]);
    gr_batch_header_t stale = header(PID, 0, 12 * BATCH, BATCH);
    assert_int_equal(gr_producer_state_check(gr_log_producer_state(f->log), &stale, NULL),
                     GR_PRODUCER_STALE_EPOCH);
    log_produce(f, PID, 1, 12 * BATCH);
}

static void test_log_rebuilt_without_snapshots(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    int64_t offsets[4];
    for (int i = 0; i < 4; i++)
        offsets[i] = log_produce(f, PID, 2, i * BATCH);
    int64_t leo = gr_log_end_offset(f->log);
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    char path[256], stale[256];
    snapshot_file(f, leo, path, sizeof path);
    /* A snapshot past the log end (the log lost its tail) must not be used. */
    snapshot_file(f, leo + 100, stale, sizeof stale);
    assert_int_equal(rename(path, stale), 0);
    f->args.clean_shutdown = false;
    f->args.recovery_point = 0;
    open_log(f);
    assert_false(file_exists(stale));
    for (int i = 0; i < 4; i++)
        assert_duplicate(f, PID, 2, i * BATCH, offsets[i]);
}

static void test_log_truncation_drops_state(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 400;
    open_log(f);
    int64_t offsets[12];
    for (int i = 0; i < 12; i++)
        offsets[i] = log_produce(f, PID, 0, i * BATCH);
    assert_int_equal(gr_log_truncate_to(f->log, offsets[6]), 0);
    /* Batch 6 and later are gone: 5 is the last, 6 comes next. */
    assert_duplicate(f, PID, 0, 5 * BATCH, offsets[5]);
    const gr_producer_entry_t *e = gr_producer_state_find(gr_log_producer_state(f->log), PID);
    assert_int_equal(gr_producer_entry_last_seq(e), 6 * BATCH - 1);
    log_produce(f, PID, 0, 6 * BATCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_and_duplicates),
        cmocka_unit_test(test_epochs),
        cmocka_unit_test(test_sequence_wraps),
        cmocka_unit_test(test_expiry),
        cmocka_unit_test(test_snapshot_round_trip),
        cmocka_unit_test_setup_teardown(test_log_clean_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_rebuilt_after_crash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_rebuilt_without_snapshots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_truncation_drops_state, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
