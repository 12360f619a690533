/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Output chain tests: gather writes, sendfile of a temp file, merging of
 * adjacent file ranges, short writes on a tiny non-blocking socket buffer,
 * a file shorter than its range, writer holes, reference counting.
 * Everything runs over socketpair(); nothing waits on the clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/chain.h"
#include "protocol/writer.h"

typedef struct test_file {
    int fd;
    int refs;
    int gets;
} test_file_t;

static void file_get(void *f)
{
    ((test_file_t *)f)->refs++;
    ((test_file_t *)f)->gets++;
}

static void file_put(void *f)
{
    ((test_file_t *)f)->refs--;
}

static const gr_chain_file_ops_t file_ops = {file_get, file_put};

/* A temp file holding bytes i % 251 for i in [0, size). */
static void file_open(test_file_t *tf, size_t size)
{
    char path[] = "/tmp/gr_chain_testXXXXXX";
    tf->fd = mkstemp(path);
    assert_true(tf->fd >= 0);
    unlink(path);
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    for (size_t i = 0; i < size; i++)
        buf[i] = (uint8_t)(i % 251);
    assert_int_equal(write(tf->fd, buf, size), (ssize_t)size);
    free(buf);
    tf->refs = 0;
    tf->gets = 0;
}

static void pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

/* Reads exactly n bytes (the sender is done, so blocking is bounded). */
static void read_all(int fd, uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        assert_true(r > 0);
        got += (size_t)r;
    }
}

static void expect_file_bytes(const uint8_t *p, int64_t off, int64_t len)
{
    for (int64_t i = 0; i < len; i++)
        if (p[i] != (uint8_t)((off + i) % 251))
            fail_msg("file byte %lld differs", (long long)(off + i));
}

static void test_mem_gather(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    gr_chain_t ch;
    gr_chain_init(&ch);
    char *owned = strdup("owned|");
    assert_int_equal(gr_chain_add_mem(&ch, "borrowed|", 9), 0);
    assert_int_equal(gr_chain_add_copy(&ch, "copied|", 7), 0);
    assert_int_equal(gr_chain_add_owned(&ch, owned, 6), 0);
    assert_int_equal(gr_chain_add_mem(&ch, "", 0), 0);
    assert_int_equal(gr_chain_unsent(&ch), 22);
    gr_chain_stats_t st = {0};
    assert_int_equal(gr_chain_send(&ch, sv[0], &st), GR_CHAIN_DONE);
    assert_true(gr_chain_empty(&ch));
    assert_int_equal(gr_chain_unsent(&ch), 0);
    assert_int_equal(st.writev_calls, 1);
    assert_int_equal(st.writev_bytes, 22);
    assert_int_equal(st.sendfile_calls, 0);
    char buf[23] = {0};
    read_all(sv[1], (uint8_t *)buf, 22);
    assert_string_equal(buf, "borrowed|copied|owned|");
    gr_chain_fini(&ch);
    close(sv[0]);
    close(sv[1]);
}

static void test_adjacent_mem_merges(void **state)
{
    (void)state;
    static const char text[] = "abcdefgh";
    gr_chain_t ch;
    gr_chain_init(&ch);
    assert_int_equal(gr_chain_add_mem(&ch, text, 3), 0);
    assert_int_equal(gr_chain_add_mem(&ch, text + 3, 5), 0);
    assert_int_equal(ch.count, 1);
    assert_int_equal(ch.links[0].u.mem.len, 8);
    gr_chain_fini(&ch);
}

static void test_sendfile_between_memory(void **state)
{
    (void)state;
    test_file_t tf;
    file_open(&tf, 4096);
    int sv[2];
    pair(sv);
    gr_chain_t ch;
    gr_chain_init(&ch);
    assert_int_equal(gr_chain_add_mem(&ch, "HEAD", 4), 0);
    assert_int_equal(gr_chain_add_file(&ch, &tf, &file_ops, tf.fd, 10, 1000), 0);
    assert_int_equal(gr_chain_add_mem(&ch, "TAIL", 4), 0);
    assert_int_equal(tf.refs, 1);
    gr_chain_stats_t st = {0};
    assert_int_equal(gr_chain_send(&ch, sv[0], &st), GR_CHAIN_DONE);
    assert_int_equal(tf.refs, 0); /* put as soon as its range is out */
    assert_int_equal(st.sendfile_calls, 1);
    assert_int_equal(st.sendfile_bytes, 1000);
    assert_int_equal(st.writev_bytes, 8);
    uint8_t buf[1008];
    read_all(sv[1], buf, sizeof buf);
    assert_memory_equal(buf, "HEAD", 4);
    expect_file_bytes(buf + 4, 10, 1000);
    assert_memory_equal(buf + 1004, "TAIL", 4);
    gr_chain_fini(&ch);
    close(sv[0]);
    close(sv[1]);
    close(tf.fd);
}

static void test_adjacent_file_ranges_merge(void **state)
{
    (void)state;
    test_file_t tf;
    file_open(&tf, 4096);
    int sv[2];
    pair(sv);
    /* Merged when added: one link, one reference. */
    gr_chain_t ch;
    gr_chain_init(&ch);
    assert_int_equal(gr_chain_add_file(&ch, &tf, &file_ops, tf.fd, 0, 100), 0);
    assert_int_equal(gr_chain_add_file(&ch, &tf, &file_ops, tf.fd, 100, 50), 0);
    assert_int_equal(ch.count, 1);
    assert_int_equal(tf.refs, 1);
    /* Not adjacent: a second link. */
    assert_int_equal(gr_chain_add_file(&ch, &tf, &file_ops, tf.fd, 200, 10), 0);
    assert_int_equal(ch.count, 2);
    assert_int_equal(tf.refs, 2);
    /* Adjacent only after a move: merged at send time into one sendfile. */
    gr_chain_t other;
    gr_chain_init(&other);
    assert_int_equal(gr_chain_add_file(&other, &tf, &file_ops, tf.fd, 210, 90), 0);
    assert_int_equal(gr_chain_move(&ch, &other), 0);
    assert_true(gr_chain_empty(&other));
    assert_int_equal(ch.count, 3);
    gr_chain_stats_t st = {0};
    assert_int_equal(gr_chain_send(&ch, sv[0], &st), GR_CHAIN_DONE);
    assert_int_equal(st.sendfile_calls, 2); /* [0,150) and [200,300) */
    assert_int_equal(st.sendfile_bytes, 250);
    assert_int_equal(tf.refs, 0);
    uint8_t buf[250];
    read_all(sv[1], buf, sizeof buf);
    expect_file_bytes(buf, 0, 150);
    expect_file_bytes(buf + 150, 200, 100);
    gr_chain_fini(&ch);
    gr_chain_fini(&other);
    close(sv[0]);
    close(sv[1]);
    close(tf.fd);
}

static void test_short_writes(void **state)
{
    (void)state;
    enum { MEM = 300000, FILE_LEN = 500000 };
    test_file_t tf;
    file_open(&tf, FILE_LEN + 1000);
    int sv[2];
    pair(sv);
    int small = 4096;
    assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
    assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
    assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
    uint8_t *mem = malloc(MEM);
    assert_non_null(mem);
    for (size_t i = 0; i < MEM; i++)
        mem[i] = (uint8_t)(i * 7);
    gr_chain_t ch;
    gr_chain_init(&ch);
    assert_int_equal(gr_chain_add_mem(&ch, mem, MEM / 2), 0);
    assert_int_equal(gr_chain_add_file(&ch, &tf, &file_ops, tf.fd, 1000, FILE_LEN / 2), 0);
    assert_int_equal(gr_chain_add_copy(&ch, mem + MEM / 2, MEM / 2), 0);
    assert_int_equal(
        gr_chain_add_file(&ch, &tf, &file_ops, tf.fd, 1000 + FILE_LEN / 2, FILE_LEN / 2), 0);
    size_t total = MEM + FILE_LEN;
    uint8_t *out = malloc(total);
    assert_non_null(out);
    size_t got = 0;
    int agains = 0;
    gr_chain_stats_t st = {0};
    int rc = GR_CHAIN_AGAIN;
    for (int round = 0; round < 1000000 && rc == GR_CHAIN_AGAIN; round++) {
        rc = gr_chain_send(&ch, sv[0], &st);
        assert_true(rc == GR_CHAIN_AGAIN || rc == GR_CHAIN_DONE);
        assert_int_equal(gr_chain_unsent(&ch),
                         (int64_t)(total - st.writev_bytes - st.sendfile_bytes));
        if (rc == GR_CHAIN_AGAIN) {
            agains++;
            ssize_t r = read(sv[1], out + got, total - got < 3000 ? total - got : 3000);
            assert_true(r > 0);
            got += (size_t)r;
        }
    }
    assert_int_equal(rc, GR_CHAIN_DONE);
    assert_true(agains > 10);
    read_all(sv[1], out + got, total - got);
    assert_memory_equal(out, mem, MEM / 2);
    expect_file_bytes(out + MEM / 2, 1000, FILE_LEN / 2);
    assert_memory_equal(out + MEM / 2 + FILE_LEN / 2, mem + MEM / 2, MEM / 2);
    expect_file_bytes(out + MEM + FILE_LEN / 2, 1000 + FILE_LEN / 2, FILE_LEN / 2);
    assert_int_equal(st.writev_bytes, MEM);
    assert_int_equal(st.sendfile_bytes, FILE_LEN);
    assert_int_equal(tf.refs, 0);
    gr_chain_fini(&ch);
    free(mem);
    free(out);
    close(sv[0]);
    close(sv[1]);
    close(tf.fd);
}

static void test_file_shorter_than_range(void **state)
{
    (void)state;
    test_file_t tf;
    file_open(&tf, 100);
    int sv[2];
    pair(sv);
    gr_chain_t ch;
    gr_chain_init(&ch);
    assert_int_equal(gr_chain_add_file(&ch, &tf, &file_ops, tf.fd, 50, 200), 0);
    assert_int_equal(gr_chain_send(&ch, sv[0], NULL), -ENODATA);
    assert_int_equal(tf.refs, 1);
    gr_chain_fini(&ch);
    assert_int_equal(tf.refs, 0);
    close(sv[0]);
    close(sv[1]);
    close(tf.fd);
}

static void test_fini_puts_unsent_files(void **state)
{
    (void)state;
    test_file_t a, b;
    file_open(&a, 10);
    file_open(&b, 10);
    gr_chain_t ch;
    gr_chain_init(&ch);
    assert_int_equal(gr_chain_add_file(&ch, &a, &file_ops, a.fd, 0, 5), 0);
    assert_int_equal(gr_chain_add_file(&ch, &b, &file_ops, b.fd, 5, 5), 0);
    assert_int_equal(gr_chain_add_file(&ch, &a, &file_ops, a.fd, 5, 5), 0);
    assert_int_equal(gr_chain_add_file(&ch, &a, &file_ops, a.fd, -1, 5), -EINVAL);
    assert_int_equal(a.refs, 2);
    assert_int_equal(b.refs, 1);
    gr_chain_fini(&ch);
    assert_int_equal(a.refs, 0);
    assert_int_equal(b.refs, 0);
    close(a.fd);
    close(b.fd);
}

typedef struct resolver {
    test_file_t *file;
    int fail;
} resolver_t;

static int resolve(void *opaque, void *file, int *out_fd, const gr_chain_file_ops_t **out_ops)
{
    resolver_t *r = opaque;
    if (r->fail)
        return r->fail;
    assert_ptr_equal(file, r->file);
    *out_fd = r->file->fd;
    *out_ops = &file_ops;
    return 0;
}

static void test_writer_holes(void **state)
{
    (void)state;
    test_file_t tf;
    file_open(&tf, 1000);
    gr_writer_t w;
    gr_writer_init(&w);
    gr_write_int32(&w, 0x01020304);
    gr_records_t rec = {.ptr = NULL, .len = 300, .file = &tf, .file_off = 100};
    gr_write_records(&w, &rec, false); /* int32 length, then a hole */
    gr_write_int16(&w, 7);
    gr_records_t rec2 = {.ptr = NULL, .len = 200, .file = &tf, .file_off = 400};
    gr_write_records(&w, &rec2, true); /* uvarint length, a hole adjacent in the file */
    int64_t total = gr_writer_total(&w);
    assert_int_equal(total, 4 + 4 + 300 + 2 + 2 + 200);

    gr_chain_t ch;
    gr_chain_init(&ch);
    resolver_t bad = {&tf, -EBADF};
    assert_int_equal(gr_chain_add_writer(&ch, &w, resolve, &bad), -EBADF);
    assert_true(gr_chain_empty(&ch));
    assert_non_null(w.buf);
    assert_int_equal(tf.refs, 0);
    assert_int_equal(gr_chain_add_writer(&ch, &w, NULL, NULL), -EINVAL);

    uint8_t *taken = w.buf;
    resolver_t good = {&tf, 0};
    assert_int_equal(gr_chain_add_writer(&ch, &w, resolve, &good), 0);
    assert_null(w.buf);
    assert_int_equal(w.len, 0);
    assert_int_equal(gr_chain_unsent(&ch), total);
    /* mem(8) file(300) mem(4) file(200): the memory links point into the taken buffer. */
    assert_int_equal(ch.count, 4);
    assert_int_equal(ch.links[0].kind, GR_LINK_MEM);
    assert_ptr_equal(ch.links[0].u.mem.ptr, taken);
    assert_int_equal(ch.links[1].kind, GR_LINK_FILE);
    assert_int_equal(ch.links[2].kind, GR_LINK_MEM);
    assert_int_equal(ch.links[3].kind, GR_LINK_FILE);
    assert_int_equal(tf.refs, 2);

    int sv[2];
    pair(sv);
    assert_int_equal(gr_chain_send(&ch, sv[0], NULL), GR_CHAIN_DONE);
    uint8_t buf[512];
    read_all(sv[1], buf, (size_t)total);
    assert_memory_equal(buf, "\x01\x02\x03\x04\x00\x00\x01\x2c", 8);
    expect_file_bytes(buf + 8, 100, 300);
    assert_memory_equal(buf + 308, "\x00\x07\xc9\x01", 4);
    expect_file_bytes(buf + 312, 400, 200);
    assert_int_equal(tf.refs, 0);

    /* The writer is reusable; a sticky error is reported and nothing taken. */
    gr_write_int8(&w, 1);
    gr_writer_fail(&w, -ENOMEM);
    assert_int_equal(gr_chain_add_writer(&ch, &w, resolve, &good), -ENOMEM);
    gr_writer_fini(&w);
    gr_chain_fini(&ch);
    close(sv[0]);
    close(sv[1]);
    close(tf.fd);
}

static void test_iov_and_consume(void **state)
{
    (void)state;
    test_file_t tf;
    file_open(&tf, 100);
    gr_chain_t ch;
    gr_chain_init(&ch);
    assert_int_equal(gr_chain_add_copy(&ch, "abc", 3), 0);
    assert_int_equal(gr_chain_add_copy(&ch, "defg", 4), 0);
    assert_int_equal(gr_chain_add_file(&ch, &tf, &file_ops, tf.fd, 0, 10), 0);
    assert_int_equal(gr_chain_links(&ch), 3);
    struct iovec iov[4];
    assert_int_equal(gr_chain_iov(&ch, iov, 4), 2); /* stops at the file link */
    assert_int_equal(gr_chain_iov(&ch, iov, 1), 1);
    assert_int_equal(gr_chain_consume(&ch, 5), 5);
    assert_int_equal(gr_chain_links(&ch), 2);
    assert_int_equal(gr_chain_iov(&ch, iov, 4), 1);
    assert_int_equal(iov[0].iov_len, 2);
    assert_memory_equal(iov[0].iov_base, "fg", 2);
    /* Consuming stops at the file link. */
    assert_int_equal(gr_chain_consume(&ch, 100), 2);
    assert_int_equal(gr_chain_unsent(&ch), 10);
    assert_int_equal(tf.refs, 1);
    gr_chain_fini(&ch);
    assert_int_equal(tf.refs, 0);
    close(tf.fd);
}

static void test_peer_gone(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    close(sv[1]);
    gr_chain_t ch;
    gr_chain_init(&ch);
    assert_int_equal(gr_chain_add_mem(&ch, "x", 1), 0);
    assert_int_equal(gr_chain_send(&ch, sv[0], NULL), -EPIPE);
    gr_chain_fini(&ch);
    close(sv[0]);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_gather),
        cmocka_unit_test(test_adjacent_mem_merges),
        cmocka_unit_test(test_sendfile_between_memory),
        cmocka_unit_test(test_adjacent_file_ranges_merge),
        cmocka_unit_test(test_short_writes),
        cmocka_unit_test(test_file_shorter_than_range),
        cmocka_unit_test(test_fini_puts_unsent_files),
        cmocka_unit_test(test_writer_holes),
        cmocka_unit_test(test_iov_and_consume),
        cmocka_unit_test(test_peer_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
