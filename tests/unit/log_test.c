/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the partition log (src/log/log.c, segment.c, fd_cache.c,
 * epoch_cache.c): append/read, offsets, indexes, rolling, recovery,
 * retention, timestamps, leader epochs, fd cap, I/O faults.
 *
 * Each test works in its own mkdtemp directory under /tmp, removed at the
 * end. Batches are built by a small helper (v2 header + plain records,
 * CRC-32C via gr_crc32c). "Now" is always injected, never read.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "log/log_int.h"
#include "protocol/crc32c.h"
#include "protocol/records.h"

/* ---- helpers ---------------------------------------------------------- */

static size_t put_varint(uint8_t *p, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    while (z >= 0x80) {
        p[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    p[n++] = (uint8_t)z;
    return n;
}

static void put_be(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/*
 * Builds a v2 batch of count records with value_size-byte values; record i
 * has timestamp base_ts + i * ts_step. Returns its size (buf must be large
 * enough: 61 + count * (value_size + 32)).
 */
static size_t build_batch(uint8_t *buf, int count, size_t value_size, int64_t base_ts,
                          int64_t ts_step)
{
    size_t pos = GR_RECORD_BATCH_HEADER_SIZE;
    for (int i = 0; i < count; i++) {
        uint8_t body[64];
        size_t b = 0;
        body[b++] = 0;                          /* attributes */
        b += put_varint(body + b, i * ts_step); /* timestamp delta */
        b += put_varint(body + b, i);           /* offset delta */
        b += put_varint(body + b, -1);          /* null key */
        b += put_varint(body + b, (int64_t)value_size);
        size_t len = b + value_size + 1; /* + header count */
        pos += put_varint(buf + pos, (int64_t)len);
        memcpy(buf + pos, body, b);
        pos += b;
        memset(buf + pos, 'a' + (i % 26), value_size);
        pos += value_size;
        buf[pos++] = 0; /* headers count 0 */
    }
    put_be(buf, 0, 8);
    put_be(buf + 8, pos - 12, 4);
    put_be(buf + 12, (uint64_t)-1, 4);
    buf[16] = GR_RECORD_BATCH_MAGIC_V2;
    put_be(buf + 21, 0, 2);
    put_be(buf + 23, (uint64_t)(count - 1), 4);
    put_be(buf + 27, (uint64_t)base_ts, 8);
    put_be(buf + 35, (uint64_t)(base_ts + (count - 1) * ts_step), 8);
    put_be(buf + 43, (uint64_t)-1, 8);
    put_be(buf + 51, (uint64_t)-1, 2);
    put_be(buf + 53, (uint64_t)-1, 4);
    put_be(buf + 57, (uint64_t)count, 4);
    put_be(buf + 17, gr_crc32c(0, buf + 21, pos - 21), 4);
    return pos;
}

typedef struct fixture {
    char root[64];
    char dir[128];
    gr_fd_cache_t *fds;
    gr_log_config_t cfg;
    gr_log_open_args_t args;
    gr_log_open_stats_t stats;
    gr_log_t *log;
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->root, sizeof f->root, "/tmp/gr_log_test_XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    snprintf(f->dir, sizeof f->dir, "%s/my.topic-name-3", f->root);
    f->fds = gr_fd_cache_new(64);
    gr_log_config_init(&f->cfg);
    f->args.fds = f->fds;
    f->args.clean_shutdown = true;
    f->args.recovery_point = -1;
    f->args.log_start_offset = -1;
    f->args.high_watermark = -1;
    f->args.now_ms = 1000;
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

static void open_log(fixture_t *f)
{
    assert_int_equal(gr_log_open(&f->cfg, f->dir, &f->args, &f->log, &f->stats), 0);
}

static void reopen(fixture_t *f, bool clean)
{
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    f->args.clean_shutdown = clean;
    open_log(f);
}

/* Appends one batch of count records; returns its first offset. */
static int64_t append(fixture_t *f, int count, size_t value_size, int64_t ts, int32_t epoch,
                      int64_t now)
{
    uint8_t *buf = malloc(GR_RECORD_BATCH_HEADER_SIZE + (size_t)count * (value_size + 32));
    size_t len = build_batch(buf, count, value_size, ts, 1);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, buf, len, epoch, now, &info), 0);
    assert_int_equal(info.last_offset - info.first_offset + 1, count);
    free(buf);
    return info.first_offset;
}

/* Reads and checks that the result's first batch contains offset. */
static void check_read(fixture_t *f, int64_t offset)
{
    gr_log_read_result_t r;
    assert_int_equal(gr_log_read(f->log, offset, 1, true, INT64_MAX, &r), 0);
    assert_non_null(r.segment);
    uint8_t hdr[GR_RECORD_BATCH_HEADER_SIZE];
    assert_int_equal(pread(r.fd, hdr, sizeof hdr, r.file_pos), (ssize_t)sizeof hdr);
    gr_batch_header_t h;
    assert_int_equal(gr_batch_header_parse(hdr, sizeof hdr, &h), 0);
    assert_true(h.base_offset <= offset);
    assert_true(h.base_offset + h.last_offset_delta >= offset);
    assert_int_equal(r.first_offset, h.base_offset);
    assert_int_equal(r.len, gr_batch_size(&h));
    gr_segment_put(r.segment);
}

static bool file_exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static off_t file_size(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 ? st.st_size : -1;
}

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = calloc(1, 65536);
    size_t n = fread(buf, 1, 65535, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

/* ---- tests ------------------------------------------------------------ */

static void test_append_read_roundtrip(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    assert_string_equal(gr_log_topic(f->log), "my.topic-name");
    assert_int_equal(gr_log_partition(f->log), 3);
    assert_true(file_exists(f->dir, "00000000000000000000.log"));
    assert_true(file_exists(f->dir, "00000000000000000000.index"));
    assert_true(file_exists(f->dir, "00000000000000000000.timeindex"));

    uint8_t a[1024], b[1024];
    size_t alen = build_batch(a, 5, 10, 100, 1);
    size_t blen = build_batch(b, 3, 20, 200, 1);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, a, alen, 7, 5000, &info), 0);
    assert_int_equal(info.first_offset, 0);
    assert_int_equal(info.last_offset, 4);
    assert_int_equal(info.log_append_time, -1);
    assert_int_equal(info.log_start_offset, 0);
    assert_int_equal(gr_log_append(f->log, b, blen, 7, 5000, &info), 0);
    assert_int_equal(info.first_offset, 5);
    assert_int_equal(info.last_offset, 7);
    assert_int_equal(gr_log_end_offset(f->log), 8);

    /* The buffers were rewritten in place with offsets and epoch. */
    gr_batch_header_t h;
    assert_int_equal(gr_batch_header_parse(b, blen, &h), 0);
    assert_int_equal(h.base_offset, 5);
    assert_int_equal(h.partition_leader_epoch, 7);
    assert_true(gr_batch_crc_ok(b, blen));

    gr_log_read_result_t r;
    assert_int_equal(gr_log_read(f->log, 0, 1 << 20, false, INT64_MAX, &r), 0);
    assert_int_equal(r.file_pos, 0);
    assert_int_equal(r.len, (int32_t)(alen + blen));
    assert_int_equal(r.first_offset, 0);
    assert_int_equal(r.log_end_offset, 8);
    uint8_t got[2048];
    assert_int_equal(pread(r.fd, got, (size_t)r.len, r.file_pos), r.len);
    assert_memory_equal(got, a, alen);
    assert_memory_equal(got + alen, b, blen);
    gr_segment_put(r.segment);

    /* Offset in the middle of the second batch: that whole batch. */
    assert_int_equal(gr_log_read(f->log, 6, 1 << 20, false, INT64_MAX, &r), 0);
    assert_int_equal(r.file_pos, (int64_t)alen);
    assert_int_equal(r.len, (int32_t)blen);
    assert_int_equal(r.first_offset, 5);
    gr_segment_put(r.segment);

    /* At the end: nothing; past it or below start: out of range. */
    assert_int_equal(gr_log_read(f->log, 8, 1 << 20, false, INT64_MAX, &r), 0);
    assert_int_equal(r.len, 0);
    assert_null(r.segment);
    assert_int_equal(gr_log_read(f->log, 9, 1 << 20, false, INT64_MAX, &r), -ERANGE);
    assert_int_equal(gr_log_read(f->log, -1, 1 << 20, false, INT64_MAX, &r), -ERANGE);

    /* max_offset (high watermark) stops before the second batch. */
    assert_int_equal(gr_log_read(f->log, 0, 1 << 20, false, 5, &r), 0);
    assert_int_equal(r.len, (int32_t)alen);
    gr_segment_put(r.segment);
    assert_int_equal(gr_log_read(f->log, 5, 1 << 20, false, 5, &r), 0);
    assert_int_equal(r.len, 0);

    /* KIP-74: max_bytes smaller than a batch. */
    assert_int_equal(gr_log_read(f->log, 0, 10, false, INT64_MAX, &r), 0);
    assert_int_equal(r.len, 0);
    assert_int_equal(gr_log_read(f->log, 0, 10, true, INT64_MAX, &r), 0);
    assert_int_equal(r.len, (int32_t)alen);
    gr_segment_put(r.segment);
    assert_int_equal(gr_log_read(f->log, 0, (int32_t)(alen + blen - 1), true, INT64_MAX, &r), 0);
    assert_int_equal(r.len, (int32_t)alen);
    gr_segment_put(r.segment);

    /* Malformed input is refused without side effects. */
    assert_int_equal(gr_log_append(f->log, a, alen - 1, 7, 5000, &info), -EINVAL);
    assert_int_equal(gr_log_end_offset(f->log), 8);

    /* LogAppendTime: the time stamped in the batch is reported, not the append's clock. */
    uint8_t c[1024];
    size_t clen = build_batch(c, 2, 10, 300, 1);
    gr_batch_set_log_append_time(c, clen, 4990);
    assert_int_equal(gr_log_append(f->log, c, clen, 7, 5000, &info), 0);
    assert_int_equal(info.log_append_time, 4990);
    assert_int_equal(info.max_timestamp, 4990);
}

/* What gr_log_read_batches handed over: each header's base offset and size. */
typedef struct seen_batches {
    int count;
    int64_t base[8];
    int64_t size[8];
} seen_batches_t;

static void see_batch(void *arg, const gr_batch_header_t *h)
{
    seen_batches_t *seen = arg;
    assert_true(seen->count < 8);
    seen->base[seen->count] = h->base_offset;
    seen->size[seen->count] = gr_batch_size(h);
    seen->count++;
}

/* The headers handed over are exactly the batches of the range read, no more. */
static void test_read_batches_headers(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    uint8_t a[1024], b[1024], c[1024];
    size_t alen = build_batch(a, 5, 10, 100, 1);
    size_t blen = build_batch(b, 3, 20, 200, 1);
    size_t clen = build_batch(c, 2, 10, 300, 1);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, a, alen, 7, 5000, &info), 0);
    assert_int_equal(gr_log_append(f->log, b, blen, 7, 5000, &info), 0);
    assert_int_equal(gr_log_append(f->log, c, clen, 7, 5000, &info), 0);

    /* From the middle of the second batch, stopped by max_offset before the third. */
    gr_log_read_result_t r;
    seen_batches_t seen = {0};
    assert_int_equal(gr_log_read_batches(f->log, 6, 1 << 20, false, 8, see_batch, &seen, &r), 0);
    assert_int_equal(r.file_pos, (int64_t)alen);
    assert_int_equal(r.len, (int32_t)blen);
    assert_int_equal(seen.count, 1);
    assert_int_equal(seen.base[0], 5);
    assert_int_equal(seen.size[0], (int64_t)blen);
    gr_segment_put(r.segment);

    /* Stopped by max_bytes: the batches that fit, their sizes adding up to len. */
    memset(&seen, 0, sizeof seen);
    assert_int_equal(gr_log_read_batches(f->log, 0, (int32_t)(alen + blen + clen - 1), true,
                                         INT64_MAX, see_batch, &seen, &r),
                     0);
    assert_int_equal(r.len, (int32_t)(alen + blen));
    assert_int_equal(seen.count, 2);
    assert_int_equal(seen.base[0], 0);
    assert_int_equal(seen.base[1], 5);
    assert_int_equal(seen.size[0] + seen.size[1], (int64_t)r.len);
    gr_segment_put(r.segment);

    /* KIP-74: one batch larger than max_bytes is still handed over; none without min_one. */
    memset(&seen, 0, sizeof seen);
    assert_int_equal(gr_log_read_batches(f->log, 0, 10, true, INT64_MAX, see_batch, &seen, &r), 0);
    assert_int_equal(r.len, (int32_t)alen);
    assert_int_equal(seen.count, 1);
    assert_int_equal(seen.size[0], (int64_t)alen);
    gr_segment_put(r.segment);
    memset(&seen, 0, sizeof seen);
    assert_int_equal(gr_log_read_batches(f->log, 0, 10, false, INT64_MAX, see_batch, &seen, &r), 0);
    assert_int_equal(r.len, 0);
    assert_int_equal(seen.count, 0);

    /* At the end of the log: nothing read, nothing handed over. */
    assert_int_equal(
        gr_log_read_batches(f->log, 10, 1 << 20, true, INT64_MAX, see_batch, &seen, &r), 0);
    assert_int_equal(r.len, 0);
    assert_int_equal(seen.count, 0);
}

static void test_index_lookup_many(void **state)
{
    fixture_t *f = *state;
    f->cfg.index_interval_bytes = 200;
    open_log(f);
    int64_t next = 0;
    for (int i = 0; i < 500; i++) {
        int count = 1 + i % 7;
        assert_int_equal(append(f, count, (size_t)(i % 50), 1000 + i, 0, 5000), next);
        next += count;
    }
    gr_segment_t *seg = f->log->segs[0];
    assert_true(seg->oidx_count > 50);
    for (int64_t off = 0; off < next; off += 3)
        check_read(f, off);
    check_read(f, next - 1);

    /* Clean reopen: the index comes from disk and answers the same way. */
    reopen(f, true);
    assert_int_equal(f->stats.segments_recovered, 0);
    assert_int_equal(f->stats.indexes_rebuilt, 0);
    assert_int_equal(gr_log_end_offset(f->log), next);
    assert_true(f->log->segs[0]->oidx_count > 50);
    assert_int_equal(file_size(f->dir, "00000000000000000000.index"),
                     (off_t)(f->log->segs[0]->oidx_count * 8));
    for (int64_t off = 0; off < next; off += 5)
        check_read(f, off);
    assert_int_equal(append(f, 2, 5, 9999, 0, 6000), next);
}

static void test_roll_by_size(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 1000;
    open_log(f);
    uint8_t buf[1024];
    size_t len = build_batch(buf, 3, 60, 100, 1); /* 3 * ~68 + 61 */
    int64_t per = (int64_t)(1000 / len);
    for (int i = 0; i < 20; i++)
        append(f, 3, 60, 100 + i, 0, 5000);
    assert_int_equal(gr_log_segment_count(f->log), (20 + per - 1) / per);
    for (int i = 0; i < gr_log_segment_count(f->log); i++) {
        assert_true(f->log->segs[i]->size <= 1000);
        assert_int_equal(f->log->segs[i]->base_offset, i * per * 3);
    }
    char name[64];
    snprintf(name, sizeof name, "%020" PRId64 ".log", per * 3);
    assert_true(file_exists(f->dir, name));
    for (int64_t off = 0; off < 60; off++)
        check_read(f, off);
    /* A read never spans segments. */
    gr_log_read_result_t r;
    assert_int_equal(gr_log_read(f->log, 0, 1 << 20, false, INT64_MAX, &r), 0);
    assert_int_equal(r.len, (int32_t)(per * (int64_t)len));
    gr_segment_put(r.segment);

    /* A batch larger than segment.bytes is refused. */
    uint8_t big[4096];
    size_t blen = build_batch(big, 20, 60, 0, 1);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, big, blen, 0, 5000, &info), -EMSGSIZE);

    /* Sealed segments got their final time index entry. */
    reopen(f, true);
    assert_int_equal(f->stats.segments_recovered, 0);
    assert_int_equal(gr_log_end_offset(f->log), 60);
    gr_log_offset_ts_t o;
    assert_int_equal(gr_log_offset_for_timestamp(f->log, GR_LOG_TIMESTAMP_MAX, &o), 0);
    assert_int_equal(o.timestamp, 100 + 19 + 2);
    assert_int_equal(o.offset, 59);
}

static void test_roll_by_time(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_ms = 1000;
    open_log(f);
    append(f, 1, 10, 10000, 0, 10000);
    append(f, 1, 10, 10900, 0, 10900);
    assert_int_equal(gr_log_segment_count(f->log), 1);
    /* Record timestamps drive it: 11001 - 10000 > 1000. */
    append(f, 1, 10, 11001, 0, 10950);
    assert_int_equal(gr_log_segment_count(f->log), 2);
    assert_int_equal(f->log->segs[1]->base_offset, 2);
    /* Without timestamps, the segment's creation time does. */
    append(f, 1, 10, -1, 0, 11000);
    assert_int_equal(gr_log_segment_count(f->log), 2);
    uint8_t buf[256];
    size_t len = build_batch(buf, 1, 10, 11001, 0);
    put_be(buf + 27, (uint64_t)-1, 8);
    put_be(buf + 35, (uint64_t)-1, 8);
    put_be(buf + 17, gr_crc32c(0, buf + 21, len - 21), 4);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, buf, len, 0, 10950 + 1001, &info), 0);
    assert_int_equal(gr_log_segment_count(f->log), 2); /* first batch has a timestamp */
    assert_int_equal(gr_log_end_offset(f->log), 5);
}

/* Appends n single-record batches and closes the log without flushing. */
static void fill_and_crash(fixture_t *f, int n, size_t *batch_len)
{
    for (int i = 0; i < n; i++)
        append(f, 1, 40, 100 + i, 0, 5000);
    uint8_t buf[256];
    *batch_len = build_batch(buf, 1, 40, 0, 1);
}

static void test_recovery_truncated_tail(void **state)
{
    fixture_t *f = *state;
    f->cfg.index_interval_bytes = 100;
    open_log(f);
    size_t blen;
    fill_and_crash(f, 10, &blen);
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    char path[256];
    snprintf(path, sizeof path, "%s/00000000000000000000.log", f->dir);
    assert_int_equal(truncate(path, (off_t)(10 * blen - 7)), 0);

    f->args.clean_shutdown = false;
    f->args.recovery_point = 0;
    open_log(f);
    assert_int_equal(f->stats.segments_recovered, 1);
    assert_int_equal(f->stats.bytes_truncated, (int64_t)blen - 7);
    assert_int_equal(gr_log_end_offset(f->log), 9);
    assert_int_equal(file_size(f->dir, "00000000000000000000.log"), (off_t)(9 * blen));
    assert_int_equal(gr_log_recovery_point(f->log), 9);
    for (int64_t off = 0; off < 9; off++)
        check_read(f, off);
    assert_int_equal(append(f, 1, 40, 200, 0, 6000), 9);
    check_read(f, 9);
}

static void test_recovery_corrupt_byte(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 5 * 120;
    open_log(f);
    size_t blen;
    fill_and_crash(f, 12, &blen);
    int nsegs = gr_log_segment_count(f->log);
    assert_true(nsegs >= 3);
    int64_t second_base = f->log->segs[1]->base_offset;
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    /* Flip a value byte of the second batch of the second segment. */
    char path[256];
    snprintf(path, sizeof path, "%s/%020" PRId64 ".log", f->dir, second_base);
    int fd = open(path, O_RDWR);
    uint8_t c;
    assert_int_equal(pread(fd, &c, 1, (off_t)(blen + blen - 5)), 1);
    c ^= 0x40;
    assert_int_equal(pwrite(fd, &c, 1, (off_t)(blen + blen - 5)), 1);
    close(fd);

    f->args.clean_shutdown = false;
    f->args.recovery_point = second_base;
    open_log(f);
    assert_int_equal(f->stats.segments_recovered, 1);
    assert_int_equal(f->stats.bytes_truncated, (int64_t)(5 * blen - blen));
    assert_int_equal(f->stats.segments_deleted, nsegs - 2);
    assert_int_equal(gr_log_segment_count(f->log), 2);
    assert_int_equal(gr_log_end_offset(f->log), second_base + 1);
    check_read(f, second_base);
    assert_int_equal(append(f, 1, 40, 300, 0, 6000), second_base + 1);
}

static void test_recovery_missing_index(void **state)
{
    fixture_t *f = *state;
    f->cfg.index_interval_bytes = 100;
    f->cfg.segment_bytes = 2000;
    open_log(f);
    size_t blen;
    fill_and_crash(f, 60, &blen);
    assert_true(gr_log_segment_count(f->log) >= 2);
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    char path[256];
    snprintf(path, sizeof path, "%s/00000000000000000000.index", f->dir);
    off_t before = file_size(f->dir, "00000000000000000000.index");
    assert_true(before > 0);
    assert_int_equal(unlink(path), 0);
    /* And a damaged time index on the same segment. */
    snprintf(path, sizeof path, "%s/00000000000000000000.timeindex", f->dir);
    assert_int_equal(truncate(path, 5), 0);

    open_log(f); /* clean shutdown, but the index is gone */
    assert_int_equal(f->stats.indexes_rebuilt, 1);
    assert_int_equal(f->stats.bytes_truncated, 0);
    assert_int_equal(file_size(f->dir, "00000000000000000000.index"), before);
    assert_int_equal(file_size(f->dir, "00000000000000000000.timeindex") % 12, 0);
    assert_int_equal(gr_log_end_offset(f->log), 60);
    for (int64_t off = 0; off < 60; off++)
        check_read(f, off);
}

static void test_damaged_index_contents(void **state)
{
    fixture_t *f = *state;
    f->cfg.index_interval_bytes = 100;
    f->cfg.segment_bytes = 2000;
    open_log(f);
    size_t blen;
    fill_and_crash(f, 60, &blen);
    assert_true(gr_log_segment_count(f->log) >= 2);
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    /* Right size, wrong contents: entries out of order, then Kafka-style
     * zero preallocation on the time index. */
    char path[256];
    snprintf(path, sizeof path, "%s/00000000000000000000.index", f->dir);
    off_t size = file_size(f->dir, "00000000000000000000.index");
    assert_true(size >= 16);
    int fd = open(path, O_RDWR);
    uint8_t junk[8] = {0, 0, 0, 9, 0, 0, 0, 1};
    assert_int_equal(pwrite(fd, junk, 8, size - 8), 8);
    close(fd);
    snprintf(path, sizeof path, "%s/00000000000000000000.timeindex", f->dir);
    off_t tsize = file_size(f->dir, "00000000000000000000.timeindex");
    assert_int_equal(truncate(path, tsize + 120), 0);

    open_log(f);
    assert_int_equal(f->stats.indexes_rebuilt, 0); /* sizes look fine: found lazily */
    for (int64_t off = 0; off < 60; off++)
        check_read(f, off);
    gr_log_offset_ts_t o;
    assert_int_equal(gr_log_offset_for_timestamp(f->log, 105, &o), 0);
    assert_int_equal(o.offset, 5);
    /* The rebuilt index was written back. */
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    assert_int_equal(file_size(f->dir, "00000000000000000000.index"), size);
    assert_int_equal(file_size(f->dir, "00000000000000000000.timeindex"), tsize);
}

static void test_clean_restart_no_scan(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 3000;
    f->cfg.index_interval_bytes = 256;
    open_log(f);
    size_t blen;
    fill_and_crash(f, 200, &blen);
    int nsegs = gr_log_segment_count(f->log);
    assert_true(nsegs >= 5);
    reopen(f, true);
    assert_int_equal(f->stats.segments, nsegs);
    assert_int_equal(f->stats.segments_recovered, 0);
    assert_int_equal(f->stats.bytes_scanned, 0);
    assert_int_equal(f->stats.indexes_rebuilt, 0);
    assert_true(f->stats.bytes_read_tail <= 256 + (int64_t)blen);
    assert_int_equal(gr_log_end_offset(f->log), 200);
    /* Inactive indexes are not even loaded until used. */
    assert_false(f->log->segs[0]->index_loaded);
    check_read(f, 3);
    assert_true(f->log->segs[0]->index_loaded);

    /* Unclean with the recovery point in the last segment: one scanned. */
    reopen(f, false);
    f->args.recovery_point = gr_log_recovery_point(f->log);
    reopen(f, false);
    assert_int_equal(f->stats.segments_recovered, 1);
    assert_true(f->stats.bytes_scanned <= 3000);
    /* Unknown recovery point: everything. */
    f->args.recovery_point = -1;
    reopen(f, false);
    assert_int_equal(f->stats.segments_recovered, nsegs);
    assert_int_equal(gr_log_end_offset(f->log), 200);
}

/* The inode of file in the log dir, or 0 when it is missing. */
static ino_t file_inode(fixture_t *f, const char *file)
{
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", f->dir, file);
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* After a crash an empty log has nothing to recover: its files are left as they are. */
static void test_unclean_empty_log_untouched(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    reopen(f, true); /* the epoch checkpoint exists from here on */
    ino_t epochs = file_inode(f, "leader-epoch-checkpoint");
    reopen(f, false);
    assert_int_equal(f->stats.segments_recovered, 0);
    assert_int_equal(f->stats.indexes_rebuilt, 0);
    assert_int_equal(file_inode(f, "leader-epoch-checkpoint"), epochs); /* not rewritten */
    assert_int_equal(gr_log_end_offset(f->log), 0);

    /* An index entry beside an empty .log is stale: that segment is recovered. */
    char path[600];
    snprintf(path, sizeof path, "%s/00000000000000000000.index", f->dir);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite("\0\0\0\0\0\0\0\0", 1, 8, fp), 8);
    fclose(fp);
    reopen(f, false);
    assert_int_equal(f->stats.segments_recovered, 1);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);

    /* Data: recovered as before. */
    append(f, 3, 10, 1000, 0, 1000);
    reopen(f, false);
    assert_int_equal(f->stats.segments_recovered, 1);
    assert_int_equal(gr_log_end_offset(f->log), 3);
}

static void test_retention_time(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 500;
    f->cfg.retention_ms = 1000;
    f->cfg.file_delete_delay_ms = 0;
    open_log(f);
    for (int i = 0; i < 30; i++)
        append(f, 1, 40, 10000 + i * 100, 0, 10000 + i * 100);
    int nsegs = gr_log_segment_count(f->log);
    assert_true(nsegs >= 5);
    gr_log_set_high_watermark(f->log, gr_log_end_offset(f->log));
    /* The first segment's newest record is 10000 + 100k for a small k. */
    assert_int_equal(gr_log_enforce_retention(f->log, 11000), 0);
    /* Delete exactly the segments whose newest record is over a second old. */
    int64_t now = 10000 + 15 * 100 + 1000 + 1;
    int expired = 0;
    while (expired < nsegs - 1 && f->log->segs[expired]->max_timestamp < now - 1000)
        expired++;
    assert_true(expired > 0 && expired < nsegs - 1);
    int deleted = gr_log_enforce_retention(f->log, now);
    assert_int_equal(deleted, expired);
    assert_int_equal(gr_log_segment_count(f->log), nsegs - deleted);
    assert_true(now - f->log->segs[0]->max_timestamp <= 1000);
    assert_false(file_exists(f->dir, "00000000000000000000.log"));
    assert_false(file_exists(f->dir, "00000000000000000000.log.deleted"));
    assert_int_equal(gr_log_start_offset(f->log), f->log->segs[0]->base_offset);
    gr_log_read_result_t r;
    assert_int_equal(gr_log_read(f->log, 0, 100, true, INT64_MAX, &r), -ERANGE);
    /* Far in the future all but the active segment go. */
    gr_log_enforce_retention(f->log, now + 1000000);
    assert_int_equal(gr_log_segment_count(f->log), 1);
    assert_int_equal(gr_log_end_offset(f->log), 30);

    /* retention.ms = -1: never. */
    f->cfg.retention_ms = -1;
    gr_log_set_config(f->log, &f->cfg);
    for (int i = 0; i < 30; i++)
        append(f, 1, 40, 100, 0, now);
    assert_int_equal(gr_log_enforce_retention(f->log, INT64_MAX / 2), 0);
}

static void test_retention_size_and_delay(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 500;
    f->cfg.retention_bytes = 1200;
    f->cfg.file_delete_delay_ms = 60000;
    open_log(f);
    for (int i = 0; i < 30; i++)
        append(f, 1, 40, 10000, 0, 10000);
    gr_log_set_high_watermark(f->log, gr_log_end_offset(f->log));
    int64_t total = gr_log_size(f->log);
    int deleted = gr_log_enforce_retention(f->log, 10000);
    assert_true(deleted > 0);
    assert_true(gr_log_size(f->log) >= 1200 || gr_log_segment_count(f->log) == 1);
    assert_true(gr_log_size(f->log) - f->log->segs[0]->size < 1200);
    assert_true(gr_log_size(f->log) < total);
    /* Deleted files wait for file.delete.delay.ms. */
    assert_true(file_exists(f->dir, "00000000000000000000.log.deleted"));
    assert_true(file_exists(f->dir, "00000000000000000000.index.deleted"));
    gr_log_enforce_retention(f->log, 10000 + 59999);
    assert_true(file_exists(f->dir, "00000000000000000000.log.deleted"));
    gr_log_enforce_retention(f->log, 10000 + 60000);
    assert_false(file_exists(f->dir, "00000000000000000000.log.deleted"));
}

static void test_delete_records(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 500;
    f->cfg.file_delete_delay_ms = 0;
    open_log(f);
    for (int i = 0; i < 30; i++)
        append(f, 1, 40, 10000, i / 10, 10000);
    gr_log_set_high_watermark(f->log, 25);
    int64_t low;
    assert_int_equal(gr_log_delete_records_before(f->log, 26, &low), -ERANGE);
    assert_int_equal(gr_log_delete_records_before(f->log, 12, &low), 0);
    assert_int_equal(low, 12);
    assert_int_equal(gr_log_start_offset(f->log), 12);
    assert_true(f->log->segs[0]->base_offset <= 12);
    assert_true(f->log->nsegs < 2 || f->log->segs[1]->base_offset > 12);
    gr_log_read_result_t r;
    assert_int_equal(gr_log_read(f->log, 11, 100, true, INT64_MAX, &r), -ERANGE);
    check_read(f, 12);
    /* Never backwards. */
    assert_int_equal(gr_log_delete_records_before(f->log, 5, &low), 0);
    assert_int_equal(low, 12);
    /* The epoch cache follows the start offset. */
    int32_t e;
    int64_t end;
    gr_log_end_offset_for_epoch(f->log, 0, &e, &end); /* before the first kept epoch */
    assert_int_equal(e, 0);
    assert_int_equal(end, 12);
    gr_log_end_offset_for_epoch(f->log, 1, &e, &end);
    assert_int_equal(e, 1);
    assert_int_equal(end, 20);
    assert_int_equal(f->log->epochs.count, 2);
    assert_int_equal(f->log->epochs.entries[0].start_offset, 12);
    gr_log_offset_ts_t o;
    assert_int_equal(gr_log_offset_for_timestamp(f->log, GR_LOG_TIMESTAMP_EARLIEST, &o), 0);
    assert_int_equal(o.offset, 12);
    assert_int_equal(o.leader_epoch, 1);
    /* Survives a restart through the caller's checkpoint. */
    f->args.log_start_offset = gr_log_start_offset(f->log);
    reopen(f, true);
    assert_int_equal(gr_log_start_offset(f->log), 12);
}

static void test_timestamp_lookup(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 800;
    f->cfg.index_interval_bytes = 100;
    open_log(f);
    /* Batch i: 4 records, timestamps 1000 + 10i .. 1000 + 10i + 3. */
    for (int i = 0; i < 40; i++)
        append(f, 4, 8, 1000 + 10 * i, i < 20 ? 1 : 2, 5000);
    assert_true(gr_log_segment_count(f->log) > 2);
    gr_log_offset_ts_t o;
    assert_int_equal(gr_log_offset_for_timestamp(f->log, 0, &o), 0);
    assert_int_equal(o.offset, 0);
    assert_int_equal(o.timestamp, 1000);
    assert_int_equal(o.leader_epoch, 1);
    for (int i = 0; i < 40; i++) {
        for (int k = 0; k < 4; k++) {
            int64_t ts = 1000 + 10 * i + k;
            assert_int_equal(gr_log_offset_for_timestamp(f->log, ts, &o), 0);
            assert_int_equal(o.offset, 4 * i + k);
            assert_int_equal(o.timestamp, ts);
            assert_int_equal(o.leader_epoch, i < 20 ? 1 : 2);
        }
        /* Between batches: the next batch's first record. */
        if (i < 39) {
            assert_int_equal(gr_log_offset_for_timestamp(f->log, 1000 + 10 * i + 5, &o), 0);
            assert_int_equal(o.offset, 4 * (i + 1));
        }
    }
    assert_int_equal(gr_log_offset_for_timestamp(f->log, 99999, &o), 0);
    assert_int_equal(o.offset, -1);
    assert_int_equal(gr_log_offset_for_timestamp(f->log, GR_LOG_TIMESTAMP_LATEST, &o), 0);
    assert_int_equal(o.offset, 160);
    assert_int_equal(o.leader_epoch, 2);
    assert_int_equal(gr_log_offset_for_timestamp(f->log, GR_LOG_TIMESTAMP_EARLIEST, &o), 0);
    assert_int_equal(o.offset, 0);
    assert_int_equal(gr_log_offset_for_timestamp(f->log, GR_LOG_TIMESTAMP_MAX, &o), 0);
    assert_int_equal(o.offset, 159);
    assert_int_equal(o.timestamp, 1000 + 390 + 3);

    /* Out-of-order timestamps: max timestamp is the record, not the last. */
    append(f, 1, 8, 5000, 2, 5000);
    append(f, 1, 8, 3000, 2, 5000);
    assert_int_equal(gr_log_offset_for_timestamp(f->log, GR_LOG_TIMESTAMP_MAX, &o), 0);
    assert_int_equal(o.offset, 160);
    assert_int_equal(o.timestamp, 5000);
    assert_int_equal(gr_log_offset_for_timestamp(f->log, 2000, &o), 0);
    assert_int_equal(o.offset, 160);

    /* Same answers after a clean restart (time indexes from disk). */
    reopen(f, true);
    assert_int_equal(gr_log_offset_for_timestamp(f->log, 1000 + 10 * 7 + 2, &o), 0);
    assert_int_equal(o.offset, 4 * 7 + 2);
    assert_int_equal(gr_log_offset_for_timestamp(f->log, GR_LOG_TIMESTAMP_MAX, &o), 0);
    assert_int_equal(o.offset, 160);
}

static void test_leader_epoch_cache(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    append(f, 2, 8, 0, 0, 5000); /* 0-1 epoch 0 */
    append(f, 2, 8, 0, 0, 5000); /* 2-3 */
    append(f, 2, 8, 0, 1, 5000); /* 4-5 epoch 1 */
    append(f, 2, 8, 0, 3, 5000); /* 6-7 epoch 3 */
    assert_int_equal(gr_log_latest_epoch(f->log), 3);
    int32_t e;
    int64_t end;
    gr_log_end_offset_for_epoch(f->log, 0, &e, &end);
    assert_int_equal(e, 0);
    assert_int_equal(end, 4);
    gr_log_end_offset_for_epoch(f->log, 1, &e, &end);
    assert_int_equal(e, 1);
    assert_int_equal(end, 6);
    gr_log_end_offset_for_epoch(f->log, 2, &e, &end); /* unknown in between: floor */
    assert_int_equal(e, 1);
    assert_int_equal(end, 6);
    gr_log_end_offset_for_epoch(f->log, 3, &e, &end);
    assert_int_equal(e, 3);
    assert_int_equal(end, 8);
    gr_log_end_offset_for_epoch(f->log, 4, &e, &end);
    assert_int_equal(e, -1);
    assert_int_equal(end, -1);

    char *text = slurp(f->dir, "leader-epoch-checkpoint");
    assert_non_null(text);
    assert_string_equal(text, "0\n3\n0 0\n1 4\n3 6\n");
    free(text);

    /* Survives restarts, including recovery that rebuilds it. */
    reopen(f, true);
    gr_log_end_offset_for_epoch(f->log, 1, &e, &end);
    assert_int_equal(end, 6);
    char path[256];
    snprintf(path, sizeof path, "%s/leader-epoch-checkpoint", f->dir);
    unlink(path);
    reopen(f, true); /* clean, but the file is gone: rebuilt from batch headers */
    assert_int_equal(f->stats.segments_recovered, 0);
    gr_log_end_offset_for_epoch(f->log, 1, &e, &end);
    assert_int_equal(end, 6);
    text = slurp(f->dir, "leader-epoch-checkpoint");
    assert_string_equal(text, "0\n3\n0 0\n1 4\n3 6\n");
    free(text);
    unlink(path);
    f->args.recovery_point = 0;
    reopen(f, false);
    gr_log_end_offset_for_epoch(f->log, 0, &e, &end);
    assert_int_equal(end, 4);
    assert_int_equal(gr_log_latest_epoch(f->log), 3);

    /* Truncation drops the epochs past the new end. */
    assert_int_equal(gr_log_truncate_to(f->log, 5), 0);
    assert_int_equal(gr_log_end_offset(f->log), 4);   /* cut at the batch boundary */
    assert_int_equal(gr_log_latest_epoch(f->log), 0); /* epoch 1 started at 4 */
    gr_log_end_offset_for_epoch(f->log, 0, &e, &end);
    assert_int_equal(e, 0);
    assert_int_equal(end, 4);
    gr_log_end_offset_for_epoch(f->log, 1, &e, &end);
    assert_int_equal(e, -1);
    text = slurp(f->dir, "leader-epoch-checkpoint");
    assert_string_equal(text, "0\n1\n0 0\n");
    free(text);
}

static void test_epoch_cache_unit(void **state)
{
    fixture_t *f = *state;
    gr_epoch_cache_t c;
    gr_epoch_cache_init(&c);
    assert_int_equal(gr_epoch_cache_assign(&c, 0, 0), 1);
    assert_int_equal(gr_epoch_cache_assign(&c, 0, 5), 0); /* same epoch */
    assert_int_equal(gr_epoch_cache_assign(&c, 2, 10), 1);
    assert_int_equal(gr_epoch_cache_assign(&c, 1, 20), 0); /* lower epoch */
    assert_int_equal(gr_epoch_cache_assign(&c, 5, 30), 1);
    /* A higher epoch starting earlier replaces the later history. */
    assert_int_equal(gr_epoch_cache_assign(&c, 6, 12), 1);
    assert_int_equal(c.count, 3);
    assert_int_equal(c.entries[2].epoch, 6);
    assert_int_equal(gr_epoch_cache_epoch_for(&c, 11), 2);
    assert_int_equal(gr_epoch_cache_epoch_for(&c, 12), 6);
    /* Start exactly at an entry: the ones before go. */
    assert_int_equal(gr_epoch_cache_truncate_start(&c, 10), 1);
    assert_int_equal(c.count, 2);
    assert_int_equal(c.entries[0].epoch, 2);
    assert_int_equal(c.entries[0].start_offset, 10);
    assert_int_equal(gr_epoch_cache_truncate_start(&c, 10), 0);
    assert_int_equal(gr_epoch_cache_truncate_start(&c, 11), 1);
    assert_int_equal(c.entries[0].start_offset, 11);
    assert_int_equal(gr_epoch_cache_truncate_end(&c, 12), 1);
    assert_int_equal(c.count, 1);
    int32_t e;
    int64_t off;
    gr_epoch_cache_end_offset_for(&c, 2, 50, &e, &off);
    assert_int_equal(e, 2);
    assert_int_equal(off, 50);
    gr_epoch_cache_end_offset_for(&c, -1, 50, &e, &off);
    assert_int_equal(e, -1);
    assert_int_equal(off, -1);

    /* The checkpoint file: round trip, and garbage refused. */
    char path[256];
    assert_int_equal(mkdir(f->dir, 0755), 0);
    snprintf(path, sizeof path, "%s/leader-epoch-checkpoint", f->dir);
    assert_int_equal(gr_epoch_cache_write(&c, gr_io_default(), path, true), 0);
    gr_epoch_cache_t d;
    gr_epoch_cache_init(&d);
    assert_int_equal(gr_epoch_cache_read(&d, gr_io_default(), path), 0);
    assert_int_equal(d.count, 1);
    assert_int_equal(d.entries[0].epoch, 2);
    assert_int_equal(d.entries[0].start_offset, 11);
    FILE *fp = fopen(path, "w");
    fputs("0\n2\n1 5\n", fp);
    fclose(fp);
    assert_int_equal(gr_epoch_cache_read(&d, gr_io_default(), path), -EINVAL);
    assert_int_equal(d.count, 0);
    unlink(path);
    assert_int_equal(gr_epoch_cache_read(&d, gr_io_default(), path), -ENOENT);
    gr_epoch_cache_fini(&d);
    gr_epoch_cache_fini(&c);
}

static void test_truncate_to(void **state)
{
    fixture_t *f = *state;
    f->cfg.segment_bytes = 500;
    f->cfg.index_interval_bytes = 100;
    open_log(f);
    for (int i = 0; i < 40; i++)
        append(f, 1, 40, 1000 + i, 0, 5000);
    int nsegs = gr_log_segment_count(f->log);
    assert_true(nsegs >= 4);
    int64_t target = f->log->segs[1]->base_offset + 2;
    assert_int_equal(gr_log_truncate_to(f->log, target), 0);
    assert_int_equal(gr_log_end_offset(f->log), target);
    assert_int_equal(gr_log_segment_count(f->log), 2);
    assert_true(f->log->segs[1]->active);
    check_read(f, target - 1);
    gr_log_read_result_t r;
    assert_int_equal(gr_log_read(f->log, target + 1, 100, true, INT64_MAX, &r), -ERANGE);
    assert_int_equal(append(f, 1, 40, 5000, 0, 5000), target);
    reopen(f, true);
    assert_int_equal(gr_log_end_offset(f->log), target + 1);
    gr_log_offset_ts_t o;
    assert_int_equal(gr_log_offset_for_timestamp(f->log, GR_LOG_TIMESTAMP_MAX, &o), 0);
    assert_int_equal(o.offset, target);
    /* Below the first segment: starts over there. */
    assert_int_equal(gr_log_truncate_to(f->log, 0), 0);
    assert_int_equal(gr_log_end_offset(f->log), 0);
    assert_int_equal(gr_log_segment_count(f->log), 1);
    assert_int_equal(append(f, 1, 40, 5000, 0, 5000), 0);
}

static void test_follower_append(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    uint8_t buf[512];
    size_t len = build_batch(buf, 3, 8, 100, 1);
    put_be(buf, 10, 8);
    put_be(buf + 12, 4, 4);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append_as_follower(f->log, buf, len, 5000, &info), 0);
    assert_int_equal(info.first_offset, 10);
    assert_int_equal(gr_log_end_offset(f->log), 13);
    assert_int_equal(gr_log_latest_epoch(f->log), 4);
    /* Going backwards is refused. */
    put_be(buf, 12, 8);
    assert_int_equal(gr_log_append_as_follower(f->log, buf, len, 5000, &info), -EINVAL);
    check_read(f, 11);
}

static void test_fd_cache_cap(void **state)
{
    fixture_t *f = *state;
    gr_fd_cache_free(f->fds);
    f->fds = gr_fd_cache_new(2);
    f->args.fds = f->fds;
    f->cfg.segment_bytes = 300;
    f->cfg.file_delete_delay_ms = 0;
    open_log(f);
    for (int i = 0; i < 20; i++)
        append(f, 1, 40, 1000, 0, 5000);
    int nsegs = gr_log_segment_count(f->log);
    assert_true(nsegs >= 6);
    assert_true(gr_fd_cache_open_count(f->fds) <= 2);
    /* Hold a reference on every segment: none may be closed. */
    gr_log_read_result_t held[64];
    for (int i = 0; i < nsegs; i++) {
        assert_int_equal(
            gr_log_read(f->log, f->log->segs[i]->base_offset, 10, true, INT64_MAX, &held[i]), 0);
        assert_true(held[i].fd >= 0);
    }
    assert_int_equal(gr_fd_cache_open_count(f->fds), nsegs);
    /* Retention deletes the first segments; the held fds still read. */
    gr_log_set_high_watermark(f->log, gr_log_end_offset(f->log));
    gr_log_delete_records_before(f->log, f->log->segs[3]->base_offset, NULL);
    assert_false(file_exists(f->dir, "00000000000000000000.log"));
    for (int i = 0; i < nsegs; i++) {
        uint8_t hdr[GR_RECORD_BATCH_HEADER_SIZE];
        assert_int_equal(pread(held[i].fd, hdr, sizeof hdr, held[i].file_pos), (ssize_t)sizeof hdr);
        gr_batch_header_t h;
        assert_int_equal(gr_batch_header_parse(hdr, sizeof hdr, &h), 0);
        assert_int_equal(h.base_offset, held[i].first_offset);
    }
    for (int i = 0; i < nsegs; i++)
        gr_segment_put(held[i].segment);
    /* Back under the cap once something touches the cache. */
    check_read(f, gr_log_start_offset(f->log));
    assert_true(gr_fd_cache_open_count(f->fds) <= 2);
    /* Two logs share the cache. */
    fixture_t g = *f;
    snprintf(g.dir, sizeof g.dir, "%s/other-0", f->root);
    g.log = NULL;
    open_log(&g);
    for (int i = 0; i < 5; i++)
        append(&g, 1, 40, 1000, 0, 5000);
    check_read(f, gr_log_end_offset(f->log) - 1);
    check_read(&g, 0);
    assert_true(gr_fd_cache_open_count(f->fds) <= 2);
    /* A reader outlives its log's close, under fd pressure. */
    gr_log_read_result_t r;
    assert_int_equal(gr_log_read(g.log, 0, 10, true, INT64_MAX, &r), 0);
    assert_int_equal(gr_log_close(g.log), 0);
    for (int64_t off = gr_log_start_offset(f->log); off < gr_log_end_offset(f->log); off++)
        check_read(f, off);
    uint8_t hdr[GR_RECORD_BATCH_HEADER_SIZE];
    assert_int_equal(pread(r.fd, hdr, sizeof hdr, r.file_pos), (ssize_t)sizeof hdr);
    /* The held fd counts against the cap but is never the one closed. */
    assert_int_equal(gr_fd_cache_open_count(f->fds), 2);
    gr_segment_put(r.segment);
    assert_int_equal(gr_fd_cache_open_count(f->fds), 1);
}

/* An I/O table failing the Nth pwrite or fsync. */
typedef struct fault_io {
    gr_io_ops_t ops;
    int writes, fail_write_at;
    int fsyncs, fail_fsync_at;
    int err;
} fault_io_t;

static ssize_t fault_pwrite(void *ctx, int fd, const void *buf, size_t len, int64_t off)
{
    fault_io_t *io = ctx;
    if (++io->writes == io->fail_write_at) {
        /* A torn write: half lands, then the error. */
        gr_io_default()->pwrite(NULL, fd, buf, len / 2, off);
        return -io->err;
    }
    return gr_io_default()->pwrite(NULL, fd, buf, len, off);
}

static int fault_fsync(void *ctx, int fd)
{
    fault_io_t *io = ctx;
    (void)fd;
    if (++io->fsyncs == io->fail_fsync_at)
        return -io->err;
    return 0; /* durability is not under test: keep the suite fast */
}

static void fault_init(fault_io_t *io)
{
    memset(io, 0, sizeof *io);
    io->ops = *gr_io_default();
    io->ops.ctx = io;
    io->ops.pwrite = fault_pwrite;
    io->ops.fsync = fault_fsync;
    io->err = ENOSPC;
}

static void test_io_fault_write(void **state)
{
    fixture_t *f = *state;
    fault_io_t io;
    fault_init(&io);
    f->args.io = &io.ops;
    f->cfg.index_interval_bytes = 100;
    open_log(f);
    for (int i = 0; i < 5; i++)
        append(f, 2, 40, 1000 + i, 0, 5000);
    int64_t size = gr_log_size(f->log);
    size_t oidx = f->log->segs[0]->oidx_count;

    io.fail_write_at = io.writes + 1;
    uint8_t buf[512];
    size_t len = build_batch(buf, 2, 40, 2000, 1);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(f->log, buf, len, 0, 5000, &info), -ENOSPC);
    assert_int_equal(gr_log_end_offset(f->log), 10);
    assert_int_equal(gr_log_size(f->log), size);
    assert_int_equal(f->log->segs[0]->oidx_count, oidx);
    assert_int_equal(file_size(f->dir, "00000000000000000000.log"), (off_t)size);
    gr_log_read_result_t r;
    assert_int_equal(gr_log_read(f->log, 10, 1000, true, INT64_MAX, &r), 0);
    assert_int_equal(r.len, 0);

    /* The next append works and lands where the failed one would have. */
    len = build_batch(buf, 2, 40, 2000, 1);
    assert_int_equal(gr_log_append(f->log, buf, len, 0, 5000, &info), 0);
    assert_int_equal(info.first_offset, 10);
    check_read(f, 11);

    /* A failing fsync is reported by the flush policy and by flush. */
    f->cfg.flush_messages = 1;
    gr_log_set_config(f->log, &f->cfg);
    io.fail_fsync_at = io.fsyncs + 1;
    len = build_batch(buf, 1, 40, 2000, 1);
    assert_int_equal(gr_log_append(f->log, buf, len, 0, 5000, &info), -ENOSPC);
    int64_t rp = gr_log_recovery_point(f->log);
    assert_true(rp < gr_log_end_offset(f->log));
    assert_int_equal(gr_log_flush(f->log), 0);
    assert_int_equal(gr_log_recovery_point(f->log), gr_log_end_offset(f->log));

    /* An unclean restart finds a consistent log. */
    int64_t leo = gr_log_end_offset(f->log);
    f->args.recovery_point = 0;
    reopen(f, false);
    assert_int_equal(f->stats.bytes_truncated, 0);
    assert_int_equal(gr_log_end_offset(f->log), leo);
    for (int64_t off = 0; off < leo; off++)
        check_read(f, off);
    /* io lives on this stack frame: close before returning. */
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
}

static void test_io_fault_every_write(void **state)
{
    /* Fail each write of a sequence of appends and rolls in turn. */
    fixture_t *f = *state;
    for (int n = 1; n < 40; n++) {
        fault_io_t io;
        fault_init(&io);
        f->args.io = &io.ops;
        f->cfg.segment_bytes = 400;
        f->cfg.index_interval_bytes = 50;
        f->args.clean_shutdown = false;
        f->args.recovery_point = 0;
        snprintf(f->dir, sizeof f->dir, "%s/fault-%d", f->root, n);
        open_log(f);
        io.fail_write_at = io.writes + n;
        int64_t expect = gr_log_end_offset(f->log);
        for (int i = 0; i < 10; i++) {
            uint8_t buf[512];
            size_t len = build_batch(buf, 1, 40, 1000 + i, 1);
            gr_log_append_info_t info;
            int rc = gr_log_append(f->log, buf, len, 0, 5000, &info);
            if (rc == 0)
                expect++;
            assert_int_equal(gr_log_end_offset(f->log), expect);
        }
        int64_t leo = gr_log_end_offset(f->log);
        gr_log_close(f->log);
        f->log = NULL;
        io.fail_write_at = 0;
        open_log(f);
        assert_int_equal(gr_log_end_offset(f->log), leo);
        for (int64_t off = gr_log_start_offset(f->log); off < leo; off++)
            check_read(f, off);
        gr_log_close(f->log);
        f->log = NULL;
        gr_log_dir_remove_tree(NULL, f->dir);
    }
    f->args.io = NULL;
}

static void test_flush_policy(void **state)
{
    fixture_t *f = *state;
    f->cfg.flush_messages = 5;
    open_log(f);
    gr_log_append_info_t info;
    uint8_t buf[512];
    for (int i = 0; i < 4; i++) {
        size_t len = build_batch(buf, 1, 8, 0, 1);
        assert_int_equal(gr_log_append(f->log, buf, len, 0, 5000, &info), 0);
        assert_false(info.flushed);
    }
    assert_int_equal(gr_log_recovery_point(f->log), 0);
    size_t len = build_batch(buf, 1, 8, 0, 1);
    assert_int_equal(gr_log_append(f->log, buf, len, 0, 5000, &info), 0);
    assert_true(info.flushed);
    assert_int_equal(gr_log_recovery_point(f->log), 5);

    f->cfg.flush_messages = INT64_MAX;
    f->cfg.flush_ms = 1000;
    gr_log_set_config(f->log, &f->cfg);
    len = build_batch(buf, 1, 8, 0, 1);
    assert_int_equal(gr_log_append(f->log, buf, len, 0, 5500, &info), 0);
    assert_false(info.flushed);
    assert_int_equal(gr_log_maybe_flush(f->log, 5900), 0);
    assert_int_equal(gr_log_maybe_flush(f->log, 6000), 1);
    assert_int_equal(gr_log_recovery_point(f->log), 6);
    assert_int_equal(gr_log_maybe_flush(f->log, 7500), 0); /* nothing new */
}

/*
 * The flush set holds only the logs with data awaiting flush.ms: a tick
 * flushes the due ones, and a log that is clean, has flush.ms off, or was
 * closed or deleted is not in it (the tick never visits it, nor a freed log).
 */
static void test_flush_set(void **state)
{
    fixture_t *f = *state;
    gr_log_flush_set_t set;
    gr_log_flush_set_init(&set);
    f->cfg.flush_ms = 1000;
    f->args.flush_set = &set;
    open_log(f);
    char dir[sizeof f->root + 16];
    gr_log_t *other;
    snprintf(dir, sizeof dir, "%s/other-0", f->root);
    assert_int_equal(gr_log_open(&f->cfg, dir, &f->args, &other, NULL), 0);
    assert_int_equal(gr_log_flush_set_count(&set), 0); /* both opened clean */
    assert_int_equal(gr_log_flush_set_run(&set, 3000, NULL, NULL), 0);

    append(f, 1, 8, 0, 0, 5000); /* clean until now: flush.ms counts from here */
    assert_int_equal(gr_log_flush_set_count(&set), 1);
    assert_int_equal(gr_log_flush_set_run(&set, 5900, NULL, NULL), 0);
    assert_int_equal(gr_log_recovery_point(f->log), 0);
    assert_int_equal(gr_log_flush_set_run(&set, 6000, NULL, NULL), 1);
    assert_int_equal(gr_log_recovery_point(f->log), 1);
    assert_int_equal(gr_log_flush_set_count(&set), 0);

    /* flush.ms off: appended data stays out; turned back on, the log joins. */
    f->cfg.flush_ms = INT64_MAX;
    gr_log_set_config(f->log, &f->cfg);
    append(f, 1, 8, 0, 0, 7000);
    assert_int_equal(gr_log_flush_set_count(&set), 0);
    f->cfg.flush_ms = 500;
    gr_log_set_config(f->log, &f->cfg);
    assert_int_equal(gr_log_flush_set_count(&set), 1);
    assert_int_equal(gr_log_flush_set_run(&set, 7100, NULL, NULL), 1); /* 1100 ms since 6000 */
    assert_int_equal(gr_log_recovery_point(f->log), 2);

    /* Closed or deleted while in the set: out of it (ASan sees any later touch). */
    append(f, 1, 8, 0, 0, 8000);
    gr_log_set_config(other, &f->cfg);
    uint8_t buf[512];
    size_t len = build_batch(buf, 1, 8, 0, 1);
    gr_log_append_info_t info;
    assert_int_equal(gr_log_append(other, buf, len, 0, 8000, &info), 0);
    assert_int_equal(gr_log_flush_set_count(&set), 2);
    assert_int_equal(gr_log_delete(other), 0);
    assert_int_equal(gr_log_flush_set_count(&set), 1);
    assert_int_equal(gr_log_close(f->log), 0);
    f->log = NULL;
    assert_int_equal(gr_log_flush_set_count(&set), 0);
    assert_int_equal(gr_log_flush_set_run(&set, 9000, NULL, NULL), 0);
}

static void test_partition_metadata_and_delete(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    gr_uuid_t id, got;
    for (int i = 0; i < 16; i++)
        id.b[i] = (uint8_t)(i * 17 + 3);
    assert_false(gr_log_topic_id(f->log, &got));
    assert_int_equal(gr_log_set_topic_id(f->log, id), 0);
    char *text = slurp(f->dir, "partition.metadata");
    assert_non_null(text);
    assert_int_equal(strncmp(text, "version: 0\ntopic_id: ", 21), 0);
    assert_int_equal(strlen(text), 21 + 22 + 1);
    free(text);
    append(f, 3, 8, 0, 0, 5000);
    reopen(f, true);
    assert_true(gr_log_topic_id(f->log, &got));
    assert_memory_equal(got.b, id.b, 16);

    /* Delete while a reader holds a segment. */
    gr_log_read_result_t r;
    assert_int_equal(gr_log_read(f->log, 0, 100, true, INT64_MAX, &r), 0);
    assert_int_equal(gr_log_delete(f->log), 0);
    f->log = NULL;
    struct stat st;
    assert_int_not_equal(stat(f->dir, &st), 0);
    uint8_t hdr[GR_RECORD_BATCH_HEADER_SIZE];
    assert_int_equal(pread(r.fd, hdr, sizeof hdr, 0), (ssize_t)sizeof hdr);
    gr_segment_put(r.segment);
    /* The partition can be created again. */
    open_log(f);
    assert_int_equal(gr_log_end_offset(f->log), 0);
}

static void test_open_leftovers(void **state)
{
    fixture_t *f = *state;
    open_log(f);
    append(f, 3, 8, 0, 0, 5000);
    gr_log_close(f->log);
    f->log = NULL;
    /* Leftovers a crash may leave. */
    char path[256];
    const char *junk[] = {"00000000000000000099.log.deleted", "00000000000000000050.index",
                          "partition.metadata.tmp"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", f->dir, junk[i]);
        close(open(path, O_CREAT | O_WRONLY, 0644));
    }
    open_log(f);
    for (size_t i = 0; i < 3; i++)
        assert_false(file_exists(f->dir, junk[i]));
    assert_int_equal(gr_log_end_offset(f->log), 3);
    /* A bad directory name is refused. */
    gr_log_t *bad;
    char dir[256];
    snprintf(dir, sizeof dir, "%s/nodash", f->root);
    assert_int_equal(gr_log_open(&f->cfg, dir, &f->args, &bad, NULL), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_append_read_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_batches_headers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_lookup_many, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unclean_empty_log_untouched, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roll_by_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roll_by_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovery_truncated_tail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovery_corrupt_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovery_missing_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_index_contents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clean_restart_no_scan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retention_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retention_size_and_delay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timestamp_lookup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_leader_epoch_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_epoch_cache_unit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncate_to, setup, teardown),
        cmocka_unit_test_setup_teardown(test_follower_append, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fd_cache_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_io_fault_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_io_fault_every_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flush_policy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flush_set, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_metadata_and_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_leftovers, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
