/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of log compaction: the key map (src/log/offset_map.c), batch
 * rewriting in every codec (clean_batch.c), and whole cleanings of a log
 * run synchronously (cleaner.c, clean_job.c): last value per key, offsets
 * kept, tombstones and their delete horizon, several passes with a small
 * map, a stale job discarded, the ".swap" step completed at open, and
 * transactions (aborted data removed, markers kept then stamped then
 * dropped, nothing cleaned at or past the last stable offset).
 * "Now" is always injected.
 */
#include <errno.h>
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

#include "log/clean_batch.h"
#include "log/clean_job.h"
#include "log/cleaner.h"
#include "log/log.h"
#include "log/log_dir.h"
#include "log/offset_map.h"
#include "protocol/control_batch.h"

#define NOW       1000000
#define RETENTION 5000
#define KEY_MAX   32

/* ---- helpers ------------------------------------------------------------ */

/* A record for key "k<key>" with value "v<val>", or a tombstone when val < 0. */
static gr_record_t make_record(char *keybuf, char *valbuf, int key, int val, int delta)
{
    gr_record_t r = {0};
    snprintf(keybuf, KEY_MAX, "k%d", key);
    r.key = (gr_bytes_t){(const uint8_t *)keybuf, (int32_t)strlen(keybuf)};
    if (val >= 0) {
        snprintf(valbuf, KEY_MAX, "v%d", val);
        r.value = (gr_bytes_t){(const uint8_t *)valbuf, (int32_t)strlen(valbuf)};
    } else {
        r.value = (gr_bytes_t){NULL, GR_NULL_LEN};
    }
    r.offset_delta = delta;
    r.timestamp_delta = delta * 10;
    return r;
}

/* As build() below, from producer pid (-1: none). */
static void build_pid(gr_writer_t *w, int64_t base, int n, const int *keys, const int *vals,
                      gr_compression_t codec, int16_t attrs, int64_t pid);

/* Builds a batch at base of n records: keys[i] with vals[i] (-1: tombstone). */
static void build(gr_writer_t *w, int64_t base, int n, const int *keys, const int *vals,
                  gr_compression_t codec, int16_t attrs)
{
    build_pid(w, base, n, keys, vals, codec, attrs, -1);
}

static void build_pid(gr_writer_t *w, int64_t base, int n, const int *keys, const int *vals,
                      gr_compression_t codec, int16_t attrs, int64_t pid)
{
    char kb[64][KEY_MAX], vb[64][KEY_MAX];
    gr_record_t recs[64];
    assert_true(n <= 64);
    for (int i = 0; i < n; i++)
        recs[i] = make_record(kb[i], vb[i], keys[i], vals[i], i);
    gr_batch_header_t h = {.base_offset = base,
                           .partition_leader_epoch = 0,
                           .attributes = attrs,
                           .last_offset_delta = n - 1,
                           .base_timestamp = 500000,
                           .max_timestamp = 500000 + (n - 1) * 10,
                           .producer_id = pid,
                           .producer_epoch = pid < 0 ? -1 : 0,
                           .base_sequence = pid < 0 ? -1 : 0};
    assert_int_equal(gr_batch_build(w, &h, recs, n, codec), 0);
}

typedef struct seen {
    int64_t offset;
    int key;
    int val; /* -1 tombstone */
    int64_t timestamp;
} seen_t;

/* Decodes the batches in buf into out (returns the count). */
static int decode(const uint8_t *buf, size_t len, seen_t *out, int max)
{
    int n = 0;
    for (size_t pos = 0; pos < len;) {
        gr_batch_header_t h;
        assert_int_equal(gr_batch_header_parse(buf + pos, len - pos, &h), 0);
        size_t size = (size_t)gr_batch_size(&h);
        assert_true(gr_batch_crc_ok(buf + pos, size));
        uint8_t *records;
        size_t rlen;
        assert_int_equal(gr_batch_decompress(buf + pos, size, &records, &rlen), 0);
        gr_record_iter_t it;
        gr_record_t rec;
        gr_record_iter_init(&it, records, rlen, h.records_count);
        while (gr_record_iter_next(&it, &rec) == 1) {
            assert_true(n < max);
            char key[KEY_MAX] = {0}, val[KEY_MAX] = {0};
            memcpy(key, rec.key.ptr, (size_t)rec.key.len);
            out[n].offset = h.base_offset + rec.offset_delta;
            out[n].key = atoi(key + 1);
            out[n].val = -1;
            if (rec.value.len >= 0) {
                memcpy(val, rec.value.ptr, (size_t)rec.value.len);
                out[n].val = atoi(val + 1);
            }
            out[n].timestamp = h.base_timestamp + rec.timestamp_delta;
            n++;
        }
        free(records);
        pos += size;
    }
    return n;
}

/* ---- the key map ---------------------------------------------------------- */

static void test_offset_map(void **state)
{
    (void)state;
    gr_offset_map_t m;
    assert_int_equal(gr_offset_map_init(&m, 10, 0.9), -EINVAL);
    assert_int_equal(gr_offset_map_init(&m, 1000 * GR_OFFSET_MAP_SLOT_SIZE, 1.0), -EINVAL);
    assert_int_equal(gr_offset_map_init(&m, 1000 * GR_OFFSET_MAP_SLOT_SIZE, 0.5), 0);
    assert_int_equal(m.max_entries, 500);
    char key[32];
    for (int i = 0; i < 500; i++) {
        assert_true(gr_offset_map_room(&m, 1));
        int n = snprintf(key, sizeof key, "key-%d", i);
        gr_offset_map_put(&m, (uint8_t *)key, (size_t)n, i * 2);
    }
    assert_false(gr_offset_map_room(&m, 1));
    for (int i = 0; i < 500; i++) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        assert_int_equal(gr_offset_map_get(&m, (uint8_t *)key, (size_t)n), i * 2);
    }
    assert_int_equal(gr_offset_map_get(&m, (const uint8_t *)"key-500", 7), -1);
    assert_int_equal(gr_offset_map_get(&m, (const uint8_t *)"", 0), -1);
    /* An update keeps one entry and the larger offset. */
    gr_offset_map_put(&m, (const uint8_t *)"key-7", 5, 3);
    gr_offset_map_put(&m, (const uint8_t *)"key-7", 5, 9999);
    assert_int_equal(m.entries, 500);
    assert_int_equal(gr_offset_map_get(&m, (const uint8_t *)"key-7", 5), 9999);
    assert_int_equal(m.latest_offset, 9999);
    gr_offset_map_clear(&m);
    assert_int_equal(m.entries, 0);
    assert_int_equal(gr_offset_map_get(&m, (const uint8_t *)"key-7", 5), -1);
    gr_offset_map_fini(&m);

    /* Keys differing in one bit or only in length hash apart; long keys too. */
    uint64_t a[2], b[2];
    uint8_t long_key[100];
    memset(long_key, 'x', sizeof long_key);
    gr_offset_map_hash(long_key, sizeof long_key, a);
    long_key[57] ^= 1;
    gr_offset_map_hash(long_key, sizeof long_key, b);
    assert_false(a[0] == b[0] && a[1] == b[1]);
    gr_offset_map_hash(long_key, 16, a);
    gr_offset_map_hash(long_key, 17, b);
    assert_false(a[0] == b[0] && a[1] == b[1]);
}

/* ---- batch rewriting ------------------------------------------------------ */

static void check_clean_codec(gr_compression_t codec)
{
    int keys[] = {1, 2, 3, 4, 5};
    int vals[] = {10, 20, -1, 40, 50};
    gr_writer_t in, out, again;
    gr_writer_init(&in);
    gr_writer_init(&out);
    gr_writer_init(&again);
    build(&in, 100, 5, keys, vals, codec, 0);

    gr_offset_map_t m;
    assert_int_equal(gr_offset_map_init(&m, 4096, 0.75), 0);
    gr_offset_map_put(&m, (const uint8_t *)"k2", 2, 200); /* superseded later */
    gr_offset_map_put(&m, (const uint8_t *)"k4", 2, 103); /* this very record */
    gr_offset_map_put(&m, (const uint8_t *)"k3", 2, 102); /* the tombstone is the latest */

    gr_clean_batch_result_t res;
    assert_int_equal(gr_clean_batch(in.buf, in.len, &m, NOW, RETENTION, &out, &res), 0);
    assert_int_equal(res.records_in, 5);
    assert_int_equal(res.records_kept, 4);
    assert_int_equal(res.tombstones_kept, 1);
    assert_int_equal(res.delete_horizon_ms, NOW + RETENTION);
    gr_batch_header_t h;
    assert_int_equal(gr_batch_header_parse(out.buf, out.len, &h), 0);
    assert_int_equal(gr_batch_size(&h), (int64_t)out.len);
    assert_int_equal(h.base_offset, 100);
    assert_int_equal(h.last_offset_delta, 4); /* kept, as Kafka does */
    assert_int_equal(gr_batch_compression(&h), codec);
    assert_true(h.attributes & GR_BATCH_ATTR_DELETE_HORIZON);
    assert_int_equal(h.base_timestamp, NOW + RETENTION);
    assert_int_equal(h.max_timestamp, 500040);
    assert_int_equal(h.records_count, 4);

    seen_t s[8];
    assert_int_equal(decode(out.buf, out.len, s, 8), 4);
    int64_t want_off[] = {100, 102, 103, 104};
    int want_key[] = {1, 3, 4, 5}, want_val[] = {10, -1, 40, 50};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(s[i].offset, want_off[i]);
        assert_int_equal(s[i].key, want_key[i]);
        assert_int_equal(s[i].val, want_val[i]);
        assert_int_equal(s[i].timestamp, 500000 + (want_off[i] - 100) * 10); /* unchanged */
    }

    /* Before the horizon nothing changes: the batch is copied as is. */
    assert_int_equal(
        gr_clean_batch(out.buf, out.len, &m, NOW + RETENTION - 1, RETENTION, &again, &res), 0);
    assert_int_equal(again.len, out.len);
    assert_memory_equal(again.buf, out.buf, out.len);
    /* At the horizon the tombstone goes; the horizon stays on the batch. */
    gr_writer_reset(&again);
    assert_int_equal(gr_clean_batch(out.buf, out.len, &m, NOW + RETENTION, RETENTION, &again, &res),
                     0);
    assert_int_equal(res.records_kept, 3);
    assert_int_equal(res.tombstones_kept, 0);
    /* Nothing left for the horizon to delete: no horizon to wait for. */
    assert_int_equal(res.delete_horizon_ms, GR_LOG_NO_TIMESTAMP);
    assert_int_equal(decode(again.buf, again.len, s, 8), 3);
    assert_int_equal(s[1].offset, 103);
    assert_int_equal(s[1].timestamp, 500030);
    /* Cleaned again, that batch (stamped, tombstone-free) is copied as is, still without one. */
    gr_writer_t third;
    gr_writer_init(&third);
    assert_int_equal(
        gr_clean_batch(again.buf, again.len, &m, NOW + 2 * RETENTION, RETENTION, &third, &res), 0);
    assert_int_equal(third.len, again.len);
    assert_memory_equal(third.buf, again.buf, again.len);
    assert_int_equal(res.delete_horizon_ms, GR_LOG_NO_TIMESTAMP);
    gr_writer_fini(&third);

    /* Everything superseded: nothing written. */
    gr_offset_map_clear(&m);
    for (int k = 1; k <= 5; k++) {
        char key[8];
        int n = snprintf(key, sizeof key, "k%d", k);
        gr_offset_map_put(&m, (uint8_t *)key, (size_t)n, 1000);
    }
    gr_writer_reset(&again);
    assert_int_equal(gr_clean_batch(in.buf, in.len, &m, NOW, RETENTION, &again, &res), 0);
    assert_int_equal(again.len, 0);
    assert_int_equal(res.records_kept, 0);

    gr_offset_map_fini(&m);
    gr_writer_fini(&in);
    gr_writer_fini(&out);
    gr_writer_fini(&again);
}

static void test_clean_batch_codecs(void **state)
{
    (void)state;
    check_clean_codec(GR_COMPRESSION_NONE);
    check_clean_codec(GR_COMPRESSION_GZIP);
    check_clean_codec(GR_COMPRESSION_SNAPPY);
    check_clean_codec(GR_COMPRESSION_LZ4);
    check_clean_codec(GR_COMPRESSION_ZSTD);
}

static void test_clean_batch_map_and_whole(void **state)
{
    (void)state;
    int keys[] = {1, 2, 1};
    int vals[] = {1, 2, 3};
    gr_writer_t w, out;
    gr_writer_init(&w);
    gr_writer_init(&out);
    gr_offset_map_t m;
    assert_int_equal(gr_offset_map_init(&m, 4096, 0.75), 0);

    build(&w, 10, 3, keys, vals, GR_COMPRESSION_ZSTD, 0);
    assert_int_equal(gr_clean_batch_map(w.buf, w.len, 11, &m), 2); /* offset 10 is below from */
    assert_int_equal(gr_offset_map_get(&m, (const uint8_t *)"k1", 2), 12);
    assert_int_equal(gr_offset_map_get(&m, (const uint8_t *)"k2", 2), 11);

    /* Control batches (markers) are neither mapped nor filtered here. */
    gr_writer_reset(&w);
    gr_writer_reset(&out);
    gr_offset_map_clear(&m);
    build(&w, 0, 3, keys, vals, GR_COMPRESSION_NONE,
          GR_BATCH_ATTR_TRANSACTIONAL | GR_BATCH_ATTR_CONTROL);
    assert_int_equal(gr_clean_batch_map(w.buf, w.len, 0, &m), 0);
    gr_offset_map_put(&m, (const uint8_t *)"k1", 2, 99);
    gr_clean_batch_result_t whole;
    assert_int_equal(gr_clean_batch(w.buf, w.len, &m, NOW, RETENTION, &out, &whole), 0);
    assert_int_equal(out.len, w.len);
    assert_memory_equal(out.buf, w.buf, w.len);

    /* A (committed) transactional batch is mapped and compacted like any other. */
    gr_writer_reset(&w);
    gr_writer_reset(&out);
    gr_offset_map_clear(&m);
    build(&w, 0, 3, keys, vals, GR_COMPRESSION_NONE, GR_BATCH_ATTR_TRANSACTIONAL);
    assert_int_equal(gr_clean_batch_map(w.buf, w.len, 0, &m), 3);
    assert_int_equal(gr_clean_batch(w.buf, w.len, &m, NOW, RETENTION, &out, &whole), 0);
    assert_int_equal(whole.records_kept, 2);

    /* A record without a key is dropped by cleaning (produce refuses it: batch_timestamps_test). */
    gr_writer_reset(&w);
    gr_writer_reset(&out);
    gr_offset_map_clear(&m);
    gr_record_t recs[2];
    char kb[KEY_MAX], vb[2][KEY_MAX];
    recs[0] = make_record(kb, vb[0], 1, 1, 0);
    recs[1] = make_record(kb, vb[1], 1, 2, 1);
    recs[1].key = (gr_bytes_t){NULL, GR_NULL_LEN};
    gr_batch_header_t h = {.base_offset = 0,
                           .last_offset_delta = 1,
                           .producer_id = -1,
                           .producer_epoch = -1,
                           .base_sequence = -1};
    assert_int_equal(gr_batch_build(&w, &h, recs, 2, GR_COMPRESSION_LZ4), 0);
    gr_clean_batch_result_t res;
    assert_int_equal(gr_clean_batch(w.buf, w.len, &m, NOW, RETENTION, &out, &res), 0);
    assert_int_equal(res.records_kept, 1);

    gr_offset_map_fini(&m);
    gr_writer_fini(&w);
    gr_writer_fini(&out);
}

/* ---- whole cleanings ------------------------------------------------------ */

/* An I/O table failing the Nth rename. */
typedef struct rename_fault {
    gr_io_ops_t ops;
    int renames, fail_at;
} rename_fault_t;

static int fault_rename(void *ctx, const char *from, const char *to)
{
    rename_fault_t *io = ctx;
    if (++io->renames == io->fail_at)
        return -EIO;
    return gr_io_default()->rename(NULL, from, to);
}

typedef struct fixture {
    char root[64];
    char dir[128];
    gr_fd_cache_t *fds;
    gr_log_config_t cfg;
    gr_log_open_args_t args;
    gr_log_t *log;
    /* For args.io, which the log keeps until closed (log.h): here it
     * outlives f->log even when a failed assert skips the test's end. */
    rename_fault_t rename_io;
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->root, sizeof f->root, "/tmp/gr_cleaner_test_XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    snprintf(f->dir, sizeof f->dir, "%s/table-0", f->root);
    f->fds = gr_fd_cache_new(64);
    gr_log_config_init(&f->cfg);
    f->cfg.cleanup_compact = true;
    f->cfg.cleanup_delete = false;
    f->cfg.segment_bytes = 512;
    f->cfg.index_interval_bytes = 128;
    f->cfg.delete_retention_ms = RETENTION;
    f->cfg.file_delete_delay_ms = 0;
    f->cfg.min_cleanable_dirty_ratio = 0.01;
    f->args.fds = f->fds;
    f->args.clean_shutdown = true;
    f->args.recovery_point = -1;
    f->args.log_start_offset = -1;
    f->args.high_watermark = -1;
    f->args.now_ms = NOW;
    assert_int_equal(gr_log_open(&f->cfg, f->dir, &f->args, &f->log, NULL), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    gr_log_close(f->log);
    gr_log_dir_remove_tree(NULL, f->root);
    assert_int_equal(gr_fd_cache_open_count(f->fds), 0);
    gr_fd_cache_free(f->fds);
    free(f);
    return 0;
}

static void reopen(fixture_t *f)
{
    assert_int_equal(gr_log_close(f->log), 0);
    assert_int_equal(gr_log_open(&f->cfg, f->dir, &f->args, &f->log, NULL), 0);
}

/* Appends rounds x keys updates (value = round), 4 records a batch. */
static void append_rounds(fixture_t *f, int rounds, int nkeys, gr_compression_t codec)
{
    for (int r = 1; r <= rounds; r++) {
        for (int k = 0; k < nkeys; k += 4) {
            int keys[4], vals[4], n = 0;
            for (; n < 4 && k + n < nkeys; n++) {
                keys[n] = k + n;
                vals[n] = r;
            }
            gr_writer_t w;
            gr_writer_init(&w);
            build(&w, 0, n, keys, vals, codec, 0);
            assert_int_equal(gr_log_append(f->log, w.buf, w.len, 0, NOW, NULL), 0);
            gr_writer_fini(&w);
        }
    }
    gr_log_set_high_watermark(f->log, gr_log_end_offset(f->log));
}

static void append_one(fixture_t *f, int key, int val)
{
    gr_writer_t w;
    gr_writer_init(&w);
    build(&w, 0, 1, &key, &val, GR_COMPRESSION_NONE, 0);
    assert_int_equal(gr_log_append(f->log, w.buf, w.len, 0, NOW, NULL), 0);
    gr_writer_fini(&w);
    gr_log_set_high_watermark(f->log, gr_log_end_offset(f->log));
}

/*
 * Appends one-record batches of distinct keys (1000, 1001, ...) until
 * everything before them has left the active segment. Returns how many.
 */
static int append_fillers(fixture_t *f)
{
    int64_t last = gr_log_end_offset(f->log) - 1;
    int n = 0;
    while (f->log->segs[f->log->nsegs - 1]->base_offset <= last)
        append_one(f, 1000 + n++, 1);
    return n;
}

/* Reads the whole log into out; returns the count. */
static int read_all(fixture_t *f, seen_t *out, int max)
{
    int n = 0;
    int64_t offset = gr_log_start_offset(f->log);
    for (;;) {
        gr_log_read_result_t r;
        assert_int_equal(gr_log_read(f->log, offset, 1 << 20, true, INT64_MAX, &r), 0);
        if (r.len == 0)
            return n;
        uint8_t *buf = malloc((size_t)r.len);
        assert_int_equal(pread(r.fd, buf, (size_t)r.len, r.file_pos), r.len);
        int got = decode(buf, (size_t)r.len, out + n, max - n);
        gr_batch_header_t h;
        size_t pos = 0;
        while (pos < (size_t)r.len) {
            gr_batch_header_parse(buf + pos, (size_t)r.len - pos, &h);
            pos += (size_t)gr_batch_size(&h);
        }
        offset = h.base_offset + h.last_offset_delta + 1;
        n += got;
        free(buf);
        gr_segment_put(r.segment);
    }
}

/* Runs one cleaning synchronously. Returns finish's result, or 1 if nothing was due. */
static int clean_once(fixture_t *f, int64_t now, size_t map_bytes, gr_clean_stats_t *st)
{
    gr_clean_params_t p = {
        .now_ms = now, .map_bytes = map_bytes, .map_load_factor = 0.9, .io_buffer_size = 4096};
    gr_clean_job_t *job;
    int rc = gr_log_clean_begin(f->log, &p, &job);
    assert_true(rc >= 0);
    if (rc == 0)
        return 1;
    return gr_clean_job_finish(job, gr_clean_job_run(job), st, NULL);
}

/* Each key once with value want_val (and offsets increasing). */
static void check_last_values(fixture_t *f, int nkeys, int want_val, int extra)
{
    seen_t *s = calloc(4096, sizeof *s);
    int n = read_all(f, s, 4096);
    assert_int_equal(n, nkeys + extra);
    int *count = calloc((size_t)nkeys, sizeof *count);
    for (int i = 0; i < n; i++) {
        if (i > 0)
            assert_true(s[i].offset > s[i - 1].offset);
        if (s[i].key < nkeys) {
            count[s[i].key]++;
            assert_int_equal(s[i].val, want_val);
        }
    }
    for (int k = 0; k < nkeys; k++)
        assert_int_equal(count[k], 1);
    free(count);
    free(s);
}

static void test_clean_log(void **state)
{
    fixture_t *f = *state;
    append_rounds(f, 6, 20, GR_COMPRESSION_GZIP);
    int fillers = append_fillers(f); /* keys of their own in the active segment */
    int segs = gr_log_segment_count(f->log);
    int64_t size = gr_log_size(f->log);
    assert_true(segs > 4);
    gr_segment_t *active = f->log->segs[f->log->nsegs - 1];
    int64_t active_size = active->size;
    assert_true(gr_log_clean_priority(f->log, NOW) > 0);
    gr_clean_stats_t st;
    assert_int_equal(clean_once(f, NOW, 1 << 20, &st), 0);
    assert_int_equal(st.first_dirty, 0);
    assert_int_equal(st.end_offset, active->base_offset);
    assert_int_equal(gr_log_clean_checkpoint(f->log), active->base_offset);
    assert_true(gr_log_size(f->log) < size / 3);
    assert_ptr_equal(f->log->segs[f->log->nsegs - 1], active); /* untouched */
    assert_int_equal(active->size, active_size);
    check_last_values(f, 20, 6, fillers);
    /* Nothing dirty now: not due. */
    assert_true(gr_log_clean_priority(f->log, NOW) == 0);
    assert_int_equal(clean_once(f, NOW, 1 << 20, &st), 1);
    reopen(f);
    check_last_values(f, 20, 6, fillers);
    struct stat sb;
    char path[256];
    snprintf(path, sizeof path, "%s/%020d.log.cleaned", f->dir, 0);
    assert_int_not_equal(stat(path, &sb), 0);
}

static void test_tombstones_and_horizon(void **state)
{
    fixture_t *f = *state;
    append_rounds(f, 3, 8, GR_COMPRESSION_NONE);
    int keys[] = {2, 5}, vals[] = {-1, -1};
    gr_writer_t w;
    gr_writer_init(&w);
    build(&w, 0, 2, keys, vals, GR_COMPRESSION_LZ4, 0);
    assert_int_equal(gr_log_append(f->log, w.buf, w.len, 0, NOW, NULL), 0);
    gr_writer_fini(&w);
    for (int i = 0; i < 40; i++)
        append_one(f, 100 + i, 1); /* roll the tombstones out of the active segment */
    gr_clean_stats_t st;
    assert_int_equal(clean_once(f, NOW, 1 << 20, &st), 0);
    seen_t s[256];
    int n = read_all(f, s, 256);
    int tombstones = 0;
    for (int i = 0; i < n; i++)
        tombstones += s[i].val < 0;
    assert_int_equal(tombstones, 2);
    /* Not due before the horizon; due at it, and then the tombstones go. */
    assert_true(gr_log_clean_priority(f->log, NOW + RETENTION - 1) == 0);
    assert_true(gr_log_clean_priority(f->log, NOW + RETENTION) >= 1);
    assert_int_equal(clean_once(f, NOW + RETENTION, 1 << 20, &st), 0);
    n = read_all(f, s, 256);
    for (int i = 0; i < n; i++) {
        assert_true(s[i].val >= 0);
        assert_true(s[i].key != 2 && s[i].key != 5);
    }
    assert_int_equal(n, 6 + 40);
}

/*
 * A batch holding a tombstone and a live record: past the horizon the
 * tombstone goes but the batch stays (stamped). Nothing is left to clean, so
 * the log must not be due again (it was, at every tick: a cleaner spinning
 * on the same segment).
 */
static void test_horizon_passed_not_due_again(void **state)
{
    fixture_t *f = *state;
    append_rounds(f, 2, 8, GR_COMPRESSION_NONE);
    int keys[] = {2, 7}, vals[] = {-1, 99};
    gr_writer_t w;
    gr_writer_init(&w);
    build(&w, 0, 2, keys, vals, GR_COMPRESSION_NONE, 0);
    assert_int_equal(gr_log_append(f->log, w.buf, w.len, 0, NOW, NULL), 0);
    gr_writer_fini(&w);
    append_fillers(f);
    gr_clean_stats_t st;
    assert_int_equal(clean_once(f, NOW, 1 << 20, &st), 0);
    assert_true(gr_log_clean_priority(f->log, NOW + RETENTION - 1) == 0);
    assert_int_equal(clean_once(f, NOW + RETENTION, 1 << 20, &st), 0);
    seen_t s[256];
    int n = read_all(f, s, 256), sevens = 0;
    for (int i = 0; i < n; i++) {
        assert_true(s[i].val >= 0 && s[i].key != 2);
        sevens += s[i].key == 7 && s[i].val == 99;
    }
    assert_int_equal(sevens, 1);
    /* Clean, no tombstone left, nothing appended: never due again. */
    assert_true(gr_log_clean_priority(f->log, NOW + RETENTION + 1) == 0);
    assert_true(gr_log_clean_priority(f->log, NOW + 100 * RETENTION) == 0);
    assert_int_equal(clean_once(f, NOW + 100 * RETENTION, 1 << 20, &st), 1);
}

static void test_multi_pass(void **state)
{
    fixture_t *f = *state;
    append_rounds(f, 4, 60, GR_COMPRESSION_ZSTD);
    int fillers = append_fillers(f);
    /* Room for 36 keys a pass: several passes, each ending where the map filled. */
    size_t map_bytes = 40 * GR_OFFSET_MAP_SLOT_SIZE;
    gr_clean_stats_t st;
    int passes = 0;
    int64_t prev_end = 0;
    while (clean_once(f, NOW, map_bytes, &st) == 0) {
        assert_int_equal(st.first_dirty, prev_end);
        assert_true(st.end_offset > st.first_dirty);
        assert_true(st.keys_mapped <= 36);
        prev_end = st.end_offset;
        passes++;
        assert_true(passes < 50);
    }
    assert_true(passes >= 3);
    check_last_values(f, 60, 4, fillers);
}

static void test_stale_job_discarded(void **state)
{
    fixture_t *f = *state;
    append_rounds(f, 4, 20, GR_COMPRESSION_SNAPPY);
    append_one(f, 1000, 1);
    seen_t *before = calloc(1024, sizeof *before);
    int n = read_all(f, before, 1024);
    gr_clean_params_t p = {
        .now_ms = NOW, .map_bytes = 1 << 20, .map_load_factor = 0.9, .io_buffer_size = 4096};
    gr_clean_job_t *job;
    assert_int_equal(gr_log_clean_begin(f->log, &p, &job), 1);
    assert_true(gr_log_clean_priority(f->log, NOW) == 0); /* one job per log */
    assert_int_equal(gr_clean_job_run(job), 0);
    /* The log loses its tail while the job ran (follower truncation). */
    assert_int_equal(gr_log_truncate_to(f->log, f->log->segs[1]->base_offset + 1), 0);
    assert_int_equal(gr_clean_job_finish(job, 0, NULL, NULL), -ESTALE);
    char path[256];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%020d.log.cleaned", f->dir, 0);
    assert_int_not_equal(stat(path, &sb), 0);
    seen_t *after = calloc(1024, sizeof *after);
    int m = read_all(f, after, 1024);
    assert_true(m < n);
    assert_memory_equal(after, before, (size_t)m * sizeof *after); /* nothing else changed */

    /* A job whose log closes while it runs is discarded too. */
    append_rounds(f, 2, 20, GR_COMPRESSION_NONE);
    assert_int_equal(gr_log_clean_begin(f->log, &p, &job), 1);
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    assert_int_equal(gr_clean_job_run(job), 0);
    gr_log_t *log = (gr_log_t *)1;
    assert_int_equal(gr_clean_job_finish(job, 0, NULL, &log), -ESTALE);
    assert_null(log);
    assert_int_not_equal(stat(path, &sb), 0);
    free(before);
    free(after);
    assert_int_equal(gr_log_open(&f->cfg, f->dir, &f->args, &f->log, NULL), 0);
}

static void test_swap_completed_at_open(void **state)
{
    fixture_t *f = *state;
    append_rounds(f, 5, 16, GR_COMPRESSION_LZ4);
    int fillers = append_fillers(f);
    int segs = gr_log_segment_count(f->log);
    gr_clean_params_t p = {
        .now_ms = NOW, .map_bytes = 1 << 20, .map_load_factor = 0.9, .io_buffer_size = 4096};
    gr_clean_job_t *job;
    assert_int_equal(gr_log_clean_begin(f->log, &p, &job), 1);
    assert_int_equal(gr_clean_job_run(job), 0);
    /* A crash right after the commit points: the outputs are ".swap", with
     * their sources still in place. */
    char from[256], to[256];
    const char *exts[] = {".index", ".timeindex", ".log"};
    assert_true(job->noutputs > 1);
    for (size_t i = 0; i < job->noutputs; i++) {
        for (int e = 0; e < 3; e++) {
            gr_clean_file(f->dir, job->outputs[i].base, exts[e], GR_CLEANED_SUFFIX, from,
                          sizeof from);
            gr_clean_file(f->dir, job->outputs[i].base, exts[e], GR_SWAP_SUFFIX, to, sizeof to);
            assert_int_equal(rename(from, to), 0);
        }
    }
    assert_int_equal(gr_clean_job_finish(job, -ECANCELED, NULL, NULL), -ECANCELED);
    f->args.clean_shutdown = false;
    reopen(f);
    assert_true(gr_log_segment_count(f->log) <= segs);
    check_last_values(f, 16, 5, fillers);
    struct stat sb;
    assert_int_not_equal(stat(to, &sb), 0);
    /* And a crash with only ".cleaned" files: they are dropped, the log is as it was. */
    append_rounds(f, 1, 16, GR_COMPRESSION_NONE);
    assert_int_equal(gr_log_clean_begin(f->log, &p, &job), 1);
    assert_int_equal(gr_clean_job_run(job), 0);
    gr_clean_file(f->dir, job->outputs[0].base, ".log", GR_CLEANED_SUFFIX, from, sizeof from);
    char keep[300];
    snprintf(keep, sizeof keep, "%s.keep", from);
    assert_int_equal(link(from, keep), 0);
    assert_int_equal(gr_clean_job_finish(job, -ECANCELED, NULL, NULL), -ECANCELED);
    assert_int_equal(rename(keep, from), 0);
    reopen(f);
    assert_int_not_equal(stat(from, &sb), 0);
}

/* Reads every batch header of the log into out; returns the count. */
static int read_headers(fixture_t *f, gr_batch_header_t *out, int max)
{
    int n = 0;
    int64_t offset = gr_log_start_offset(f->log);
    for (;;) {
        gr_log_read_result_t r;
        assert_int_equal(gr_log_read(f->log, offset, 1 << 20, true, INT64_MAX, &r), 0);
        if (r.len == 0)
            return n;
        uint8_t *buf = malloc((size_t)r.len);
        assert_int_equal(pread(r.fd, buf, (size_t)r.len, r.file_pos), r.len);
        for (size_t pos = 0; pos < (size_t)r.len; n++) {
            assert_true(n < max);
            assert_int_equal(gr_batch_header_parse(buf + pos, (size_t)r.len - pos, &out[n]), 0);
            assert_true(gr_batch_crc_ok(buf + pos, (size_t)gr_batch_size(&out[n])));
            pos += (size_t)gr_batch_size(&out[n]);
            offset = out[n].base_offset + out[n].last_offset_delta + 1;
        }
        free(buf);
        gr_segment_put(r.segment);
    }
}

static void test_producer_last_batch_kept(void **state)
{
    fixture_t *f = *state;
    int k12[] = {1, 2}, k34[] = {3, 4}, k1234[] = {1, 2, 3, 4}, v[] = {1, 1, 2, 2};
    gr_writer_t w;
    gr_writer_init(&w);
    build_pid(&w, 0, 2, k12, v, GR_COMPRESSION_GZIP, 0, 7);   /* offsets 0-1 */
    build_pid(&w, 0, 2, k34, v, GR_COMPRESSION_GZIP, 0, 7);   /* 2-3: producer 7's last */
    build_pid(&w, 0, 4, k1234, v, GR_COMPRESSION_NONE, 0, 8); /* 4-7 supersede both */
    for (size_t pos = 0; pos < w.len;) {
        gr_batch_header_t h;
        gr_batch_header_parse(w.buf + pos, w.len - pos, &h);
        assert_int_equal(
            gr_log_append(f->log, w.buf + pos, (size_t)gr_batch_size(&h), 0, NOW, NULL), 0);
        pos += (size_t)gr_batch_size(&h);
    }
    gr_writer_fini(&w);
    append_fillers(f);
    gr_clean_stats_t st;
    assert_int_equal(clean_once(f, NOW, 1 << 20, &st), 0);
    gr_batch_header_t h[64];
    int n = read_headers(f, h, 64);
    assert_true(n >= 2);
    /* Producer 7's last batch stays, emptied, with its offsets and sequence. */
    assert_int_equal(h[0].base_offset, 2);
    assert_int_equal(h[0].last_offset_delta, 1);
    assert_int_equal(h[0].records_count, 0);
    assert_int_equal(h[0].producer_id, 7);
    assert_int_equal(h[0].base_sequence, 0);
    assert_int_equal(gr_batch_compression(&h[0]), GR_COMPRESSION_NONE);
    assert_int_equal(h[1].base_offset, 4);
    assert_int_equal(h[1].records_count, 4);
    assert_int_equal(h[1].producer_id, 8);
}

static void test_due_rules(void **state)
{
    fixture_t *f = *state;
    /* Record timestamps are 500000 and up (build_pid). */
    f->cfg.min_compaction_lag_ms = 100000;
    gr_log_set_config(f->log, &f->cfg);
    append_rounds(f, 4, 20, GR_COMPRESSION_NONE);
    append_fillers(f);
    assert_true(gr_log_clean_priority(f->log, 550000) == 0); /* younger than the lag */
    assert_true(gr_log_clean_priority(f->log, NOW) > 0);
    gr_clean_stats_t st;
    assert_int_equal(clean_once(f, NOW, 1 << 20, &st), 0);

    /* A little dirty data is below min.cleanable.dirty.ratio ... */
    f->cfg.min_compaction_lag_ms = 0;
    f->cfg.min_cleanable_dirty_ratio = 0.9;
    gr_log_set_config(f->log, &f->cfg);
    append_rounds(f, 1, 20, GR_COMPRESSION_NONE);
    append_fillers(f);
    double ratio = gr_log_clean_priority(f->log, NOW);
    assert_true(ratio == 0);
    /* ... until max.compaction.lag.ms makes it due anyway. */
    f->cfg.max_compaction_lag_ms = 1000;
    gr_log_set_config(f->log, &f->cfg);
    assert_true(gr_log_clean_priority(f->log, NOW) > 1);
    /* Or the ratio is lowered under the dirty share. */
    f->cfg.max_compaction_lag_ms = INT64_MAX;
    f->cfg.min_cleanable_dirty_ratio = 0.1;
    gr_log_set_config(f->log, &f->cfg);
    ratio = gr_log_clean_priority(f->log, NOW);
    assert_true(ratio >= 0.1 && ratio < 1);
    assert_int_equal(clean_once(f, NOW, 1 << 20, &st), 0);
    seen_t *s = calloc(1024, sizeof *s);
    int n = read_all(f, s, 1024), count[20] = {0};
    for (int i = 0; i < n; i++) {
        if (s[i].key < 20) {
            count[s[i].key]++;
            assert_int_equal(s[i].val, 1);
        }
    }
    for (int k = 0; k < 20; k++)
        assert_int_equal(count[k], 1);
    free(s);
}

/* An I/O table failing the Nth pwrite or fsync. */
typedef struct fault_io {
    gr_io_ops_t ops;
    int writes, fail_write_at;
    int fsyncs, fail_fsync_at;
} fault_io_t;

static ssize_t fault_pwrite(void *ctx, int fd, const void *buf, size_t len, int64_t off)
{
    fault_io_t *io = ctx;
    if (++io->writes == io->fail_write_at) {
        gr_io_default()->pwrite(NULL, fd, buf, len / 2, off); /* torn */
        return -ENOSPC;
    }
    return gr_io_default()->pwrite(NULL, fd, buf, len, off);
}

static int fault_fsync(void *ctx, int fd)
{
    fault_io_t *io = ctx;
    (void)fd;
    return ++io->fsyncs == io->fail_fsync_at ? -EIO : 0;
}

static bool dir_has_cleaned(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '\\.cleaned$'", dir);
    return system(cmd) == 0;
}

/* Every write and every fsync of a cleaning failing in turn: the log never changes. */
static void test_io_faults(void **state)
{
    fixture_t *f = *state;
    append_rounds(f, 3, 12, GR_COMPRESSION_GZIP);
    append_fillers(f);
    seen_t *before = calloc(1024, sizeof *before), *after = calloc(1024, sizeof *after);
    int n = read_all(f, before, 1024);
    fault_io_t io = {.ops = *gr_io_default()};
    io.ops.ctx = &io;
    io.ops.pwrite = fault_pwrite;
    io.ops.fsync = fault_fsync;
    gr_clean_params_t p = {.now_ms = NOW,
                           .map_bytes = 1 << 20,
                           .map_load_factor = 0.9,
                           .io_buffer_size = 4096,
                           .io = &io.ops};
    gr_clean_job_t *job;
    assert_int_equal(gr_log_clean_begin(f->log, &p, &job), 1);
    assert_int_equal(gr_clean_job_run(job), 0);
    int writes = io.writes, fsyncs = io.fsyncs;
    assert_true(writes > 2 && fsyncs > 2);
    assert_int_equal(gr_clean_job_finish(job, -ECANCELED, NULL, NULL), -ECANCELED);
    for (int k = 1; k <= writes + fsyncs; k++) {
        io.writes = io.fsyncs = 0;
        io.fail_write_at = k <= writes ? k : 0;
        io.fail_fsync_at = k > writes ? k - writes : 0;
        assert_int_equal(gr_log_clean_begin(f->log, &p, &job), 1);
        int rc = gr_clean_job_run(job);
        assert_int_equal(rc, k <= writes ? -ENOSPC : -EIO);
        assert_int_equal(gr_clean_job_finish(job, rc, NULL, NULL), rc);
        assert_false(dir_has_cleaned(f->dir));
        assert_int_equal(read_all(f, after, 1024), n);
        assert_memory_equal(after, before, (size_t)n * sizeof *after);
    }
    /* Without faults it then cleans. */
    io.fail_write_at = io.fail_fsync_at = 0;
    assert_int_equal(gr_log_clean_begin(f->log, &p, &job), 1);
    assert_int_equal(gr_clean_job_finish(job, gr_clean_job_run(job), NULL, NULL), 0);
    assert_true(read_all(f, after, 1024) < n);
    free(before);
    free(after);
}

/* Each key's last record carries want_val; offsets increase; nothing is left over. */
static void check_consistent(fixture_t *f, int nkeys, int want_val)
{
    seen_t *s = calloc(4096, sizeof *s);
    int n = read_all(f, s, 4096), *last = calloc((size_t)nkeys, sizeof *last);
    for (int i = 0; i < n; i++) {
        if (i > 0)
            assert_true(s[i].offset > s[i - 1].offset);
        if (s[i].key < nkeys)
            last[s[i].key] = s[i].val;
    }
    for (int k = 0; k < nkeys; k++)
        assert_int_equal(last[k], want_val);
    free(last);
    free(s);
}

/*
 * A rename of the swap failing at each step in turn, then an unclean
 * reopen (as after a crash there): the log is consistent, with every key's
 * last value, whichever side of the commit point the failure fell.
 */
static void test_swap_rename_faults(void **state)
{
    fixture_t *f = *state;
    rename_fault_t *io = &f->rename_io;
    io->ops = *gr_io_default();
    io->ops.ctx = io;
    io->ops.rename = fault_rename;
    f->args.io = &io->ops;
    for (int k = 1;; k++) {
        gr_log_close(f->log);
        f->log = NULL;
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
        assert_int_equal(system(cmd), 0);
        f->args.clean_shutdown = true;
        io->fail_at = 0;
        assert_int_equal(gr_log_open(&f->cfg, f->dir, &f->args, &f->log, NULL), 0);
        append_rounds(f, 3, 16, GR_COMPRESSION_LZ4);
        append_fillers(f);
        io->renames = 0;
        io->fail_at = k;
        gr_clean_stats_t st;
        int rc = clean_once(f, NOW, 1 << 20, &st);
        bool done = io->renames < k; /* no rename failed: every step has been tried */
        assert_int_equal(rc, done ? 0 : -EIO);
        io->fail_at = 0;
        f->args.clean_shutdown = false;
        f->args.recovery_point = 0;
        reopen(f);
        assert_false(dir_has_cleaned(f->dir));
        check_consistent(f, 16, 3);
        if (done)
            break;
        assert_true(k < 200);
    }
}

/* A map too small for one batch fails the cleaning and stops retrying (Kafka's uncleanable). */
static void test_map_too_small(void **state)
{
    fixture_t *f = *state;
    append_rounds(f, 3, 12, GR_COMPRESSION_NONE);
    append_fillers(f);
    gr_clean_stats_t st;
    assert_int_equal(clean_once(f, NOW, 2 * GR_OFFSET_MAP_SLOT_SIZE, &st), -ENOBUFS);
    assert_true(gr_log_clean_priority(f->log, NOW) == 0);
    seen_t *s = calloc(1024, sizeof *s);
    assert_int_equal(read_all(f, s, 1024), gr_log_end_offset(f->log)); /* all still there */
    free(s);
}

/* ---- transactions ---------------------------------------------------------- */

/* Appends one batch of producer pid (attrs: GR_BATCH_ATTR_TRANSACTIONAL or 0); returns its offset.
 */
static int64_t append_pid(fixture_t *f, int64_t pid, int n, const int *keys, const int *vals,
                          int16_t attrs)
{
    gr_writer_t w;
    gr_writer_init(&w);
    build_pid(&w, 0, n, keys, vals, GR_COMPRESSION_NONE, attrs, pid);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, w.buf, w.len, 0, NOW, &info), 0);
    gr_writer_fini(&w);
    gr_log_set_high_watermark(f->log, gr_log_end_offset(f->log));
    return info.first_offset;
}

static int64_t append_marker(fixture_t *f, int64_t pid, bool commit)
{
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(gr_control_batch_build(&w, pid, 0, 0, commit, NOW), 0);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, w.buf, w.len, 0, NOW, &info), 0);
    gr_writer_fini(&w);
    gr_log_set_high_watermark(f->log, gr_log_end_offset(f->log));
    return info.first_offset;
}

/* The header of the batch of pid at offset, or NULL when it is gone. */
static const gr_batch_header_t *find_batch(const gr_batch_header_t *h, int n, int64_t offset)
{
    for (int i = 0; i < n; i++)
        if (h[i].base_offset == offset)
            return &h[i];
    return NULL;
}

/* Whether key has value val at offset in the log. */
static bool has_record(fixture_t *f, int64_t offset, int key, int val)
{
    seen_t *s = calloc(4096, sizeof *s);
    int n = read_all(f, s, 4096);
    bool found = false;
    for (int i = 0; i < n; i++)
        found |= s[i].offset == offset && s[i].key == key && s[i].val == val;
    free(s);
    return found;
}

static size_t aborted_count(fixture_t *f)
{
    gr_aborted_txn_t *txns = NULL;
    size_t n = 0;
    assert_int_equal(gr_log_collect_aborted(f->log, 0, gr_log_end_offset(f->log), &txns, &n), 0);
    free(txns);
    return n;
}

static void test_transactions(void **state)
{
    fixture_t *f = *state;
    const int16_t txn = GR_BATCH_ATTR_TRANSACTIONAL;
    int k12[] = {1, 2}, v11[] = {1, 1}, v22[] = {2, 2}, v55[] = {5, 5};
    int k5 = 5, k6 = 6, k4 = 4, one = 1, two = 2;
    int64_t a_data = append_pid(f, 7, 2, k12, v11, txn); /* aborted */
    int64_t a_marker = append_marker(f, 7, false);
    int64_t b_data = append_pid(f, 8, 2, k12, v22, txn); /* committed */
    int64_t b_marker = append_marker(f, 8, true);
    int64_t old5 = append_pid(f, -1, 1, &k5, &one, 0);
    append_fillers(f);
    int64_t c_data = append_pid(f, 9, 1, &k6, &one, txn); /* left open */
    append_pid(f, -1, 1, &k5, &two, 0);                   /* beyond the LSO */
    append_fillers(f);
    assert_int_equal(gr_log_last_stable_offset(f->log), c_data);
    assert_int_equal(aborted_count(f), 1);

    /* 1: the aborted data goes, both markers stay (their data was met);
     * nothing at or past the LSO is looked at: key 5's first value stays. */
    gr_clean_stats_t st;
    assert_int_equal(clean_once(f, NOW, 1 << 20, &st), 0);
    gr_batch_header_t h[256];
    int n = read_headers(f, h, 256);
    assert_null(find_batch(h, n, a_data));
    assert_non_null(find_batch(h, n, a_marker));
    assert_false(find_batch(h, n, a_marker)->attributes & GR_BATCH_ATTR_DELETE_HORIZON);
    assert_int_equal(find_batch(h, n, b_data)->records_count, 2);
    assert_non_null(find_batch(h, n, b_marker));
    assert_true(has_record(f, old5, 5, 1));
    assert_non_null(find_batch(h, n, c_data));
    assert_int_equal(aborted_count(f), 1); /* the kept marker keeps its index entry */
    reopen(f);
    gr_log_set_high_watermark(f->log, gr_log_end_offset(f->log));
    assert_int_equal(aborted_count(f), 1);

    /* 2: C commits; later values supersede B's and key 5's. A's marker,
     * whose data is gone, is stamped with a delete horizon. */
    int64_t c_marker = append_marker(f, 9, true);
    int64_t a_plain = append_pid(f, 7, 1, &k4, &one, 0);
    append_pid(f, -1, 2, k12, v55, 0);
    append_fillers(f);
    assert_int_equal(gr_log_last_stable_offset(f->log), gr_log_end_offset(f->log));
    assert_int_equal(clean_once(f, NOW, 1 << 20, &st), 0);
    n = read_headers(f, h, 256);
    const gr_batch_header_t *am = find_batch(h, n, a_marker);
    assert_non_null(am);
    assert_true(am->attributes & GR_BATCH_ATTR_DELETE_HORIZON);
    assert_int_equal(am->base_timestamp, NOW + RETENTION);
    assert_int_equal(aborted_count(f), 0);
    assert_null(find_batch(h, n, b_data));
    assert_non_null(find_batch(h, n, b_marker)); /* B's batch was still met this pass */
    assert_false(has_record(f, old5, 5, 1));
    assert_true(has_record(f, c_data, 6, 1)); /* committed, never superseded */
    assert_non_null(find_batch(h, n, c_marker));

    /* 3: past the horizon A's marker is gone; B's, now without data, is stamped. */
    int64_t later = NOW + RETENTION + 1;
    assert_int_equal(clean_once(f, later, 1 << 20, &st), 0);
    n = read_headers(f, h, 256);
    assert_null(find_batch(h, n, a_marker));
    assert_non_null(find_batch(h, n, a_plain)); /* offsets unchanged */
    const gr_batch_header_t *bm = find_batch(h, n, b_marker);
    assert_non_null(bm);
    assert_int_equal(bm->base_timestamp, later + RETENTION);
    assert_true(gr_batch_is_control(bm));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_map),
        cmocka_unit_test(test_clean_batch_codecs),
        cmocka_unit_test(test_clean_batch_map_and_whole),
        cmocka_unit_test_setup_teardown(test_clean_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tombstones_and_horizon, setup, teardown),
        cmocka_unit_test_setup_teardown(test_horizon_passed_not_due_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_multi_pass, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_job_discarded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_swap_completed_at_open, setup, teardown),
        cmocka_unit_test_setup_teardown(test_producer_last_batch_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_due_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_io_faults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map_too_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transactions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_swap_rename_faults, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
