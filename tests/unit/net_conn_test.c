/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Connection tests over socketpair() with a real ev loop driven by
 * ev_run(EVRUN_NOWAIT) in bounded loops: frame reading split at every byte,
 * size limits, in-order responses, empty completions, back-pressure, close
 * with deferred slots, drain. Nothing waits on the clock.
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

#include "loop_wait.h"
#include "net/conn.h"

#define MAX_FRAMES 64
#define SPIN_LIMIT 100000

typedef enum mode {
    MODE_ECHO,  /* respond at once with the frame's bytes */
    MODE_DEFER, /* defer; the test completes later */
    MODE_EMPTY, /* complete with no response */
    MODE_CLOSE, /* close the connection from inside the handler */
    MODE_FORGET /* neither complete nor defer (a handler bug) */
} test_mode_t;

typedef struct fixture {
    struct ev_loop *loop;
    int sv[2];
    gr_conn_t *conn;
    gr_conn_config_t cfg;
    gr_chain_stats_t stats;
    gr_logger_t logger;
    FILE *log_file;
    test_mode_t mode;
    size_t frames;
    const uint8_t *frame_ptr[MAX_FRAMES];
    size_t frame_len[MAX_FRAMES];
    uint8_t *frame_copy[MAX_FRAMES];
    gr_resp_slot_t *slots[MAX_FRAMES];
    int cancelled[MAX_FRAMES];
    size_t cancel_order[MAX_FRAMES];
    size_t cancels;
    int closed;
    int64_t throttle_ms; /* > 0: the handler throttles the connection after frame 0 */
} fixture_t;

static void respond(gr_resp_slot_t *slot, const void *payload, size_t len)
{
    uint8_t size[4] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
                       (uint8_t)len};
    gr_chain_t ch;
    gr_chain_init(&ch);
    assert_int_equal(gr_chain_add_copy(&ch, size, 4), 0);
    assert_int_equal(gr_chain_add_copy(&ch, payload, len), 0);
    gr_resp_slot_complete(slot, &ch);
    assert_true(gr_chain_empty(&ch));
    gr_chain_fini(&ch);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    fixture_t *f = arg;
    for (size_t i = 0; i < f->frames; i++) {
        if (f->slots[i] == slot) {
            f->cancelled[i]++;
            f->cancel_order[f->cancels++] = i;
            f->slots[i] = NULL;
            return;
        }
    }
    fail_msg("cancel for an unknown slot");
}

static void on_frame(gr_conn_t *c, gr_resp_slot_t *slot, const uint8_t *frame, size_t len,
                     void *opaque)
{
    fixture_t *f = opaque;
    assert_ptr_equal(gr_resp_slot_conn(slot), c);
    assert_ptr_equal(gr_conn_opaque(c), f);
    assert_true(f->frames < MAX_FRAMES);
    size_t i = f->frames++;
    f->frame_ptr[i] = frame;
    f->frame_len[i] = len;
    f->frame_copy[i] = malloc(len + 1);
    memcpy(f->frame_copy[i], frame, len);
    /* The arena is usable for the request's lifetime. */
    assert_non_null(gr_arena_alloc(gr_resp_slot_arena(slot), 100));
    switch (f->mode) {
    case MODE_ECHO:
        respond(slot, frame, len);
        break;
    case MODE_DEFER:
        f->slots[i] = slot;
        gr_resp_slot_defer(slot, on_cancel, f);
        break;
    case MODE_EMPTY:
        gr_resp_slot_complete_empty(slot);
        break;
    case MODE_CLOSE:
        gr_conn_close(c, "handler says so");
        break;
    case MODE_FORGET:
        break;
    }
    if (i == 0 && f->throttle_ms > 0 && f->mode != MODE_CLOSE)
        gr_conn_throttle(c, f->throttle_ms);
}

static void on_close(gr_conn_t *c, void *owner)
{
    fixture_t *f = owner;
    assert_ptr_equal(c, f->conn);
    f->closed++;
    f->conn = NULL;
}

static fixture_t *fixture_new(test_mode_t mode, size_t read_block)
{
    fixture_t *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->loop = ev_loop_new(EVFLAG_AUTO);
    assert_non_null(f->loop);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, f->sv), 0);
    assert_int_equal(fcntl(f->sv[1], F_SETFL, O_NONBLOCK), 0);
    f->log_file = tmpfile();
    assert_non_null(f->log_file);
    gr_logger_init(&f->logger, f->log_file, GR_LOG_DEBUG);
    f->mode = mode;
    f->cfg.max_request_bytes = 1000;
    f->cfg.read_block = read_block;
    f->cfg.on_frame = on_frame;
    f->cfg.on_close = on_close;
    f->cfg.opaque = f;
    f->cfg.owner = f;
    f->cfg.stats = &f->stats;
    f->cfg.log = &f->logger;
    f->conn = gr_conn_new(f->loop, f->sv[0], &f->cfg);
    assert_non_null(f->conn);
    assert_string_equal(gr_conn_peer(f->conn), "local");
    return f;
}

/* Replaces the connection with one using f->cfg; sndbuf > 0 shrinks its send buffer. */
static void reconnect(fixture_t *f, int sndbuf)
{
    gr_conn_close(f->conn, "reconfigure");
    assert_int_equal(f->closed, 1);
    f->closed = 0;
    close(f->sv[1]);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, f->sv), 0);
    assert_int_equal(fcntl(f->sv[1], F_SETFL, O_NONBLOCK), 0);
    if (sndbuf > 0)
        assert_int_equal(setsockopt(f->sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf), 0);
    f->conn = gr_conn_new(f->loop, f->sv[0], &f->cfg);
    assert_non_null(f->conn);
}

static void fixture_free(fixture_t *f)
{
    if (f->conn)
        gr_conn_close(f->conn, "test over");
    assert_int_equal(f->closed, 1);
    for (size_t i = 0; i < f->frames; i++)
        free(f->frame_copy[i]);
    close(f->sv[1]);
    fclose(f->log_file);
    ev_loop_destroy(f->loop);
    free(f);
}

/* Runs the loop without blocking until cond(f) holds; fails after SPIN_LIMIT turns. */
static void run_until(fixture_t *f, int (*cond)(fixture_t *, size_t), size_t arg)
{
    for (int i = 0; i < SPIN_LIMIT; i++) {
        if (cond(f, arg))
            return;
        ev_run(f->loop, EVRUN_NOWAIT);
    }
    fail_msg("condition not reached");
}

/* A few turns of the loop, for "nothing more happens" checks. */
static void run_some(fixture_t *f)
{
    for (int i = 0; i < 50; i++)
        ev_run(f->loop, EVRUN_NOWAIT);
}

static int frames_at_least(fixture_t *f, size_t n)
{
    return f->frames >= n;
}

static int is_closed(fixture_t *f, size_t n)
{
    (void)n;
    return f->closed > 0;
}

static void send_bytes(fixture_t *f, const void *p, size_t n)
{
    assert_int_equal(write(f->sv[1], p, n), (ssize_t)n);
}

static size_t put_frame(uint8_t *out, const char *payload)
{
    size_t len = strlen(payload);
    out[0] = (uint8_t)(len >> 24);
    out[1] = (uint8_t)(len >> 16);
    out[2] = (uint8_t)(len >> 8);
    out[3] = (uint8_t)len;
    memcpy(out + 4, payload, len);
    return 4 + len;
}

/* Reads from the peer side until n bytes arrived (running the loop meanwhile). */
static void recv_exact(fixture_t *f, uint8_t *buf, size_t n)
{
    size_t got = 0;
    for (int i = 0; i < SPIN_LIMIT && got < n; i++) {
        ssize_t r = read(f->sv[1], buf + got, n - got);
        if (r > 0)
            got += (size_t)r;
        else if (r == 0)
            fail_msg("unexpected EOF after %zu of %zu bytes", got, n);
        else
            ev_run(f->loop, EVRUN_NOWAIT);
    }
    assert_int_equal(got, n);
}

/* Expects one response frame carrying payload. */
static void expect_response(fixture_t *f, const char *payload)
{
    uint8_t buf[1100];
    size_t len = strlen(payload);
    recv_exact(f, buf, 4 + len);
    uint8_t want[1100];
    put_frame(want, payload);
    assert_memory_equal(buf, want, 4 + len);
}

static void expect_nothing_to_read(fixture_t *f)
{
    uint8_t b;
    run_some(f);
    assert_int_equal(read(f->sv[1], &b, 1), -1);
    assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
}

static void expect_eof(fixture_t *f)
{
    uint8_t b;
    run_until(f, is_closed, 0);
    ssize_t r;
    for (int i = 0; i < SPIN_LIMIT; i++) {
        r = read(f->sv[1], &b, 1);
        if (r == 0)
            return;
        assert_true(r < 0);
    }
    fail_msg("no EOF");
}

static int log_contains(fixture_t *f, const char *needle)
{
    char buf[4096];
    fflush(f->log_file);
    rewind(f->log_file);
    size_t n = fread(buf, 1, sizeof buf - 1, f->log_file);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

#define BIG_FRAME "a frame longer than the tiny read block, so it needs its own block"

/* Three frames of different sizes, one of them empty. */
static size_t three_frames(uint8_t *out)
{
    size_t n = put_frame(out, "hello");
    n += put_frame(out + n, "");
    n += put_frame(out + n, BIG_FRAME);
    return n;
}

static void check_three(fixture_t *f)
{
    assert_int_equal(f->frames, 3);
    assert_int_equal(f->frame_len[0], 5);
    assert_memory_equal(f->frame_copy[0], "hello", 5);
    assert_int_equal(f->frame_len[1], 0);
    assert_int_equal(f->frame_len[2], strlen(BIG_FRAME));
    assert_memory_equal(f->frame_copy[2], BIG_FRAME, strlen(BIG_FRAME));
}

static void test_split_at_every_byte(void **state)
{
    (void)state;
    uint8_t stream[256];
    size_t total = three_frames(stream);
    for (size_t cut = 0; cut <= total; cut++) {
        /* Deferred slots keep their frames alive while later bytes are read:
         * their memory must not move under them. */
        fixture_t *f = fixture_new(MODE_DEFER, 16);
        send_bytes(f, stream, cut);
        run_some(f);
        send_bytes(f, stream + cut, total - cut);
        run_until(f, frames_at_least, 3);
        check_three(f);
        for (size_t i = 0; i < 3; i++)
            assert_memory_equal(f->frame_ptr[i], f->frame_copy[i], f->frame_len[i]);
        for (size_t i = 0; i < 3; i++)
            respond(f->slots[i], f->frame_copy[i], f->frame_len[i]);
        expect_response(f, "hello");
        expect_response(f, "");
        expect_response(f, BIG_FRAME);
        fixture_free(f);
    }
}

static void test_one_byte_at_a_time(void **state)
{
    (void)state;
    uint8_t stream[256];
    size_t total = three_frames(stream);
    size_t blocks[] = {4, 5, 16, 4096};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        fixture_t *f = fixture_new(MODE_DEFER, blocks[b]);
        for (size_t i = 0; i < total; i++) {
            send_bytes(f, stream + i, 1);
            ev_run(f->loop, EVRUN_NOWAIT);
        }
        run_until(f, frames_at_least, 3);
        check_three(f);
        for (size_t i = 0; i < 3; i++)
            assert_memory_equal(f->frame_ptr[i], f->frame_copy[i], f->frame_len[i]);
        fixture_free(f);
        /* Closing cancelled the three deferred slots. */
    }
}

static void test_echo_many_pipelined(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_ECHO, 64);
    uint8_t stream[4096];
    size_t n = 0;
    char payload[32];
    for (int i = 0; i < 40; i++) {
        snprintf(payload, sizeof payload, "request-%d", i);
        n += put_frame(stream + n, payload);
    }
    send_bytes(f, stream, n);
    for (int i = 0; i < 40; i++) {
        snprintf(payload, sizeof payload, "request-%d", i);
        expect_response(f, payload);
    }
    assert_int_equal(f->frames, 40);
    assert_true(f->stats.writev_calls > 0);
    fixture_free(f);
}

static void resume_echo(gr_resp_slot_t *slot, void *arg);

/*
 * An idle connection keeps no buffers: neither the read block nor the spare
 * slots of the requests it pipelined. A partial frame keeps its block.
 */
static void test_idle_keeps_no_buffers(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_ECHO, 0); /* the default 64 KiB read block */
    uint8_t stream[256];
    size_t n = put_frame(stream, "api-versions");
    n += put_frame(stream + n, "metadata");
    n += put_frame(stream + n, "produce");
    send_bytes(f, stream, n);
    expect_response(f, "api-versions");
    expect_response(f, "metadata");
    expect_response(f, "produce");
    run_some(f);
    assert_int_equal(gr_conn_buffer_bytes(f->conn), 0);
    n = put_frame(stream, "half a frame");
    send_bytes(f, stream, n / 2);
    run_some(f);
    assert_true(gr_conn_buffer_bytes(f->conn) >= GR_CONN_DEFAULT_READ_BLOCK);
    send_bytes(f, stream + n / 2, n - n / 2);
    expect_response(f, "half a frame");
    run_some(f);
    assert_int_equal(gr_conn_buffer_bytes(f->conn), 0);
    fixture_free(f);
}

/* A deferred slot keeps its frame's block; the connection lets go of it when done. */
static void test_idle_after_deferred(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 0);
    uint8_t stream[64];
    size_t n = put_frame(stream, "later");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 1);
    run_some(f);
    assert_int_equal(gr_conn_buffer_bytes(f->conn), 0); /* the slot holds the block now */
    gr_resp_slot_t *slot = f->slots[0];
    f->slots[0] = NULL;
    gr_resp_slot_resume(slot, resume_echo, "done");
    expect_response(f, "done");
    run_some(f);
    assert_int_equal(gr_conn_buffer_bytes(f->conn), 0);
    fixture_free(f);
}

static void test_large_frame_grows(void **state)
{
    (void)state;
    enum { BIG = 3 * 1024 * 1024 + 17 };
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    f->cfg.max_request_bytes = 4 * 1024 * 1024;
    reconnect(f, 0);
    uint8_t *stream = malloc(BIG + 4 + 9);
    stream[0] = (uint8_t)(BIG >> 24);
    stream[1] = (uint8_t)(BIG >> 16);
    stream[2] = (uint8_t)(BIG >> 8);
    stream[3] = (uint8_t)BIG;
    for (size_t i = 0; i < BIG; i++)
        stream[4 + i] = (uint8_t)(i * 13 + (i >> 11));
    size_t n = BIG + 4;
    n += put_frame(stream + n, "after");
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(f->sv[1], stream + off, n - off);
        if (w > 0)
            off += (size_t)w;
        else
            ev_run(f->loop, EVRUN_NOWAIT);
    }
    run_until(f, frames_at_least, 2);
    assert_int_equal(f->frame_len[0], BIG);
    assert_memory_equal(f->frame_ptr[0], stream + 4, BIG);
    assert_memory_equal(f->frame_ptr[1], "after", 5);
    free(stream);
    fixture_free(f);
}

static void test_oversized_frame_closes(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_ECHO, 64);
    uint8_t size[4] = {0, 0, 0x03, 0xe9}; /* 1001 > max_request_bytes 1000 */
    send_bytes(f, size, 4);
    expect_eof(f);
    assert_int_equal(f->frames, 0);
    assert_true(log_contains(f, "socket.request.max.bytes"));
    fixture_free(f);
}

static void test_limit_frame_accepted(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_EMPTY, 64);
    uint8_t frame[1004] = {0, 0, 0x03, 0xe8}; /* exactly max_request_bytes */
    send_bytes(f, frame, sizeof frame);
    run_until(f, frames_at_least, 1);
    assert_int_equal(f->frame_len[0], 1000);
    assert_int_equal(f->closed, 0);
    fixture_free(f);
}

static void test_negative_size_closes(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_ECHO, 64);
    uint8_t size[4] = {0xff, 0xff, 0xff, 0xfe};
    send_bytes(f, size, 4);
    expect_eof(f);
    assert_int_equal(f->frames, 0);
    assert_true(log_contains(f, "request size -2"));
    fixture_free(f);
}

static void test_in_order_when_first_completes_last(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "one");
    n += put_frame(stream + n, "two");
    n += put_frame(stream + n, "three");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 3);
    assert_int_equal(gr_conn_queued(f->conn), 3);
    respond(f->slots[2], "r3", 2);
    expect_nothing_to_read(f);
    respond(f->slots[1], "r2", 2);
    expect_nothing_to_read(f);
    assert_int_equal(gr_conn_unsent(f->conn), 12);
    assert_int_equal(f->stats.writev_calls, 0);
    respond(f->slots[0], "r1", 2);
    expect_response(f, "r1");
    expect_response(f, "r2");
    expect_response(f, "r3");
    /* The three responses left in one gathered write. */
    assert_int_equal(f->stats.writev_calls, 1);
    assert_int_equal(f->stats.writev_bytes, 18);
    assert_int_equal(gr_conn_queued(f->conn), 0);
    assert_int_equal(gr_conn_unsent(f->conn), 0);
    fixture_free(f);
}

static void test_empty_completion(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_EMPTY, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "acks=0 produce");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 1);
    expect_nothing_to_read(f);
    assert_int_equal(gr_conn_queued(f->conn), 0);
    /* Mixed: an empty completion between two responses. */
    f->mode = MODE_DEFER;
    n = put_frame(stream, "a");
    n += put_frame(stream + n, "b");
    n += put_frame(stream + n, "c");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 4);
    respond(f->slots[3], "C", 1);
    gr_resp_slot_complete_empty(f->slots[2]);
    expect_nothing_to_read(f);
    respond(f->slots[1], "A", 1);
    expect_response(f, "A");
    expect_response(f, "C");
    expect_nothing_to_read(f);
    fixture_free(f);
}

static void test_backpressure_inflight(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    f->cfg.max_inflight = 2;
    reconnect(f, 0);
    uint8_t stream[64];
    size_t n = 0;
    const char *names[] = {"0", "1", "2", "3", "4"};
    for (int i = 0; i < 5; i++)
        n += put_frame(stream + n, names[i]);
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 2);
    run_some(f);
    assert_int_equal(f->frames, 2); /* the rest wait in the buffer */
    assert_false(gr_conn_reading(f->conn));
    respond(f->slots[0], "r0", 2);
    expect_response(f, "r0");
    run_until(f, frames_at_least, 3);
    run_some(f);
    assert_int_equal(f->frames, 3);
    assert_false(gr_conn_reading(f->conn));
    respond(f->slots[1], "r1", 2);
    respond(f->slots[2], "r2", 2);
    expect_response(f, "r1");
    expect_response(f, "r2");
    run_until(f, frames_at_least, 5);
    respond(f->slots[3], "r3", 2);
    respond(f->slots[4], "r4", 2);
    expect_response(f, "r3");
    expect_response(f, "r4");
    run_some(f);
    assert_true(gr_conn_reading(f->conn));
    fixture_free(f);
}

static void test_backpressure_unsent_bytes(void **state)
{
    (void)state;
    enum { RESP = 200000 };
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    f->cfg.max_unsent_bytes = 10000;
    reconnect(f, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "big");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 1);
    char *big = malloc(RESP);
    memset(big, 'x', RESP);
    respond(f->slots[0], big, RESP);
    run_some(f);
    n = put_frame(stream, "next");
    send_bytes(f, stream, n);
    run_some(f);
    /* The response does not fit the socket: reading stops, "next" is not dispatched. */
    assert_true(gr_conn_unsent(f->conn) > 10000);
    assert_false(gr_conn_reading(f->conn));
    assert_int_equal(f->frames, 1);
    uint8_t *buf = malloc(RESP + 4);
    recv_exact(f, buf, RESP + 4);
    assert_memory_equal(buf + 4, big, RESP);
    run_until(f, frames_at_least, 2);
    respond(f->slots[1], "ok", 2);
    expect_response(f, "ok");
    assert_true(gr_conn_reading(f->conn));
    free(big);
    free(buf);
    fixture_free(f);
}

static void test_peer_close_cancels_deferred(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "x");
    n += put_frame(stream + n, "y");
    n += put_frame(stream + n, "z");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 3);
    /* The middle one completed: it is dropped, not cancelled. */
    respond(f->slots[1], "ry", 2);
    shutdown(f->sv[1], SHUT_WR);
    run_until(f, is_closed, 0);
    assert_int_equal(f->cancels, 2);
    assert_int_equal(f->cancel_order[0], 0);
    assert_int_equal(f->cancel_order[1], 2);
    assert_int_equal(f->cancelled[1], 0);
    assert_true(log_contains(f, "peer closed"));
    fixture_free(f);
}

static void test_close_from_handler(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "deferred");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 1);
    f->mode = MODE_CLOSE;
    n = put_frame(stream, "bad");
    n += put_frame(stream + n, "never seen");
    send_bytes(f, stream, n);
    expect_eof(f);
    assert_int_equal(f->frames, 2);
    assert_int_equal(f->cancels, 1);
    assert_true(log_contains(f, "handler says so"));
    fixture_free(f);
}

/* What a resumed slot's handling does (gr_resp_slot_resume). */
static void resume_echo(gr_resp_slot_t *slot, void *arg)
{
    respond(slot, arg, strlen(arg));
}

static void resume_defer_again(gr_resp_slot_t *slot, void *arg)
{
    fixture_t *f = arg;
    f->slots[1] = slot;
    gr_resp_slot_defer(slot, on_cancel, f);
}

static void resume_close(gr_resp_slot_t *slot, void *arg)
{
    (void)arg;
    gr_conn_close(gr_resp_slot_conn(slot), "resumed handler says so");
}

static void resume_forget(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    (void)arg;
}

/* A parked request runs later: its response goes out at once, in order. */
static void test_resume_answers_later(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "one");
    n += put_frame(stream + n, "two");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 2);
    gr_resp_slot_t *first = f->slots[0], *second = f->slots[1];
    f->slots[0] = f->slots[1] = NULL; /* the holder forgets them before resuming */
    gr_resp_slot_resume(second, resume_defer_again, f);
    assert_ptr_equal(f->slots[1], second);
    expect_nothing_to_read(f);
    gr_resp_slot_resume(first, resume_echo, "r1");
    expect_response(f, "r1");
    respond(f->slots[1], "r2", 2);
    expect_response(f, "r2");
    assert_int_equal(f->cancels, 0);
    fixture_free(f);
}

/* Closing inside the resumed handling cancels the others; the memory goes after. */
static void test_resume_close_inside(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "one");
    n += put_frame(stream + n, "two");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 2);
    gr_resp_slot_t *first = f->slots[0];
    f->slots[0] = NULL;
    gr_resp_slot_resume(first, resume_close, NULL);
    assert_int_equal(f->closed, 1);
    assert_int_equal(f->cancels, 1);
    assert_int_equal(f->cancel_order[0], 1);
    assert_true(log_contains(f, "resumed handler says so"));
    expect_eof(f);
    fixture_free(f);
}

static void test_resume_forgotten_closes(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "lost later");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 1);
    gr_resp_slot_t *slot = f->slots[0];
    f->slots[0] = NULL;
    gr_resp_slot_resume(slot, resume_forget, NULL);
    expect_eof(f);
    assert_true(log_contains(f, "neither completed nor deferred"));
    fixture_free(f);
}

static void test_forgotten_slot_closes(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_FORGET, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "lost");
    send_bytes(f, stream, n);
    expect_eof(f);
    assert_true(log_contains(f, "neither completed nor deferred"));
    fixture_free(f);
}

static void test_drain_flushes_then_closes(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    uint8_t stream[64];
    size_t n = put_frame(stream, "q");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 1);
    gr_conn_drain(f->conn, "shutting down");
    n = put_frame(stream, "ignored");
    send_bytes(f, stream, n);
    run_some(f);
    assert_int_equal(f->frames, 1);
    assert_int_equal(f->closed, 0);
    respond(f->slots[0], "answer", 6);
    expect_response(f, "answer");
    expect_eof(f);
    assert_true(log_contains(f, "shutting down"));
    assert_int_equal(f->cancels, 0);
    fixture_free(f);
}

static void test_gathered_short_writes(void **state)
{
    (void)state;
    enum { SLOTS = 8, RESP = 30000 };
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    reconnect(f, 4096);
    uint8_t stream[128];
    size_t n = 0;
    for (int i = 0; i < SLOTS; i++)
        n += put_frame(stream + n, "r");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, SLOTS);
    static uint8_t body[SLOTS][RESP];
    for (int i = SLOTS - 1; i >= 0; i--) {
        for (size_t j = 0; j < RESP; j++)
            body[i][j] = (uint8_t)(i * 31 + j);
        respond(f->slots[i], body[i], RESP);
    }
    static uint8_t got[RESP + 4];
    for (int i = 0; i < SLOTS; i++) {
        recv_exact(f, got, RESP + 4);
        assert_int_equal(got[2], (RESP >> 8) & 0xff);
        assert_memory_equal(got + 4, body[i], RESP);
    }
    assert_int_equal(gr_conn_queued(f->conn), 0);
    assert_int_equal(gr_conn_unsent(f->conn), 0);
    assert_int_equal(f->stats.writev_bytes, SLOTS * (RESP + 4));
    fixture_free(f);
}

typedef struct segment {
    int fd;
    int refs;
} segment_t;

static void segment_get(void *p)
{
    ((segment_t *)p)->refs++;
}

static void segment_put(void *p)
{
    ((segment_t *)p)->refs--;
}

static const gr_chain_file_ops_t segment_ops = {segment_get, segment_put};

static void segment_open(segment_t *seg, const char *text)
{
    char path[] = "/tmp/gr_conn_testXXXXXX";
    seg->fd = mkstemp(path);
    assert_true(seg->fd >= 0);
    unlink(path);
    assert_int_equal(write(seg->fd, text, strlen(text)), (ssize_t)strlen(text));
    seg->refs = 0;
}

static void test_file_response(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    segment_t seg;
    segment_open(&seg, "....record bytes....");
    uint8_t stream[16];
    size_t n = put_frame(stream, "fetch");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 1);
    gr_chain_t *ch = gr_resp_slot_chain(f->slots[0]);
    assert_int_equal(gr_chain_add_copy(ch, "\0\0\0\x0c", 4), 0);
    assert_int_equal(gr_chain_add_file(ch, &seg, &segment_ops, seg.fd, 4, 12), 0);
    assert_int_equal(seg.refs, 1);
    gr_resp_slot_complete(f->slots[0], NULL);
    expect_response(f, "record bytes");
    assert_int_equal(f->stats.sendfile_bytes, 12);
    assert_int_equal(seg.refs, 0);
    close(seg.fd);
    fixture_free(f);
}

static void test_short_file_closes(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    segment_t seg;
    segment_open(&seg, "short");
    uint8_t stream[16];
    size_t n = put_frame(stream, "fetch");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 1);
    gr_chain_t *ch = gr_resp_slot_chain(f->slots[0]);
    assert_int_equal(gr_chain_add_copy(ch, "\0\0\0\x64", 4), 0);
    assert_int_equal(gr_chain_add_file(ch, &seg, &segment_ops, seg.fd, 0, 100), 0);
    gr_resp_slot_complete(f->slots[0], NULL);
    uint8_t buf[9];
    recv_exact(f, buf, 9); /* what was sent before the file ran out */
    expect_eof(f);
    assert_int_equal(seg.refs, 0);
    assert_true(log_contains(f, "shorter than the promised range"));
    close(seg.fd);
    fixture_free(f);
}

static void test_send_error_cancels_rest(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    uint8_t stream[32];
    size_t n = put_frame(stream, "a");
    n += put_frame(stream + n, "b");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 2);
    /* The peer stops reading: our next write fails with EPIPE. */
    assert_int_equal(shutdown(f->sv[1], SHUT_RD), 0);
    respond(f->slots[0], "ra", 2);
    run_until(f, is_closed, 0);
    assert_int_equal(f->cancels, 1);
    assert_int_equal(f->cancel_order[0], 1);
    assert_true(log_contains(f, "sending a response failed"));
    fixture_free(f);
}

/* --- throttling (quotas) ----------------------------------------------------------------- */

#define LONG_THROTTLE_MS  60000 /* never ends within a test */
#define SHORT_THROTTLE_MS 1

static bool two_frames(void *arg)
{
    return ((fixture_t *)arg)->frames >= 2;
}

/* The response goes out at once; the next frame waits for the throttle to end. */
static void test_throttle_sends_then_mutes(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_ECHO, 4096);
    f->throttle_ms = LONG_THROTTLE_MS;
    uint8_t stream[64];
    size_t n = put_frame(stream, "a");
    n += put_frame(stream + n, "b");
    send_bytes(f, stream, n);
    expect_response(f, "a");
    run_some(f);
    assert_int_equal(f->frames, 1); /* "b" is buffered, not dispatched */
    assert_true(gr_conn_throttled(f->conn));
    assert_false(gr_conn_reading(f->conn));
    gr_conn_throttle(f->conn, SHORT_THROTTLE_MS); /* a shorter mute does not cut it short */
    run_some(f);
    assert_int_equal(f->frames, 1);
    assert_true(gr_conn_throttled(f->conn));
    fixture_free(f); /* close stops the timer: nothing fires on freed memory */
}

static void test_throttle_ends_and_resumes(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_ECHO, 4096);
    f->throttle_ms = SHORT_THROTTLE_MS;
    uint8_t stream[64];
    size_t n = put_frame(stream, "a");
    n += put_frame(stream + n, "b");
    send_bytes(f, stream, n);
    expect_response(f, "a");
    gr_test_wait(f->loop, two_frames, f, "the frame buffered while throttled");
    expect_response(f, "b");
    assert_false(gr_conn_throttled(f->conn));
    assert_true(gr_conn_reading(f->conn));
    fixture_free(f);
}

static bool throttle_over(void *arg)
{
    return !gr_conn_throttled(((fixture_t *)arg)->conn);
}

/* Back-pressure still holds reading off after a throttle ends. */
static void test_throttle_with_backpressure(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_DEFER, 4096);
    f->cfg.max_inflight = 1;
    reconnect(f, 0);
    f->throttle_ms = SHORT_THROTTLE_MS;
    uint8_t stream[64];
    size_t n = put_frame(stream, "a");
    n += put_frame(stream + n, "b");
    send_bytes(f, stream, n);
    run_until(f, frames_at_least, 1);
    gr_test_wait(f->loop, throttle_over, f, "the end of the throttle");
    assert_false(gr_conn_reading(f->conn)); /* one request in flight: still the limit */
    assert_int_equal(f->frames, 1);
    respond(f->slots[0], "r0", 2);
    expect_response(f, "r0");
    run_until(f, frames_at_least, 2);
    respond(f->slots[1], "r1", 2);
    expect_response(f, "r1");
    fixture_free(f);
}

/* A draining connection closes once sent, throttled or not. */
static void test_throttle_then_drain(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(MODE_ECHO, 4096);
    f->throttle_ms = LONG_THROTTLE_MS;
    uint8_t stream[16];
    size_t n = put_frame(stream, "a");
    send_bytes(f, stream, n);
    expect_response(f, "a");
    gr_conn_drain(f->conn, "stopping");
    expect_eof(f);
    fixture_free(f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_at_every_byte),
        cmocka_unit_test(test_one_byte_at_a_time),
        cmocka_unit_test(test_echo_many_pipelined),
        cmocka_unit_test(test_idle_keeps_no_buffers),
        cmocka_unit_test(test_idle_after_deferred),
        cmocka_unit_test(test_large_frame_grows),
        cmocka_unit_test(test_oversized_frame_closes),
        cmocka_unit_test(test_limit_frame_accepted),
        cmocka_unit_test(test_negative_size_closes),
        cmocka_unit_test(test_in_order_when_first_completes_last),
        cmocka_unit_test(test_empty_completion),
        cmocka_unit_test(test_backpressure_inflight),
        cmocka_unit_test(test_backpressure_unsent_bytes),
        cmocka_unit_test(test_peer_close_cancels_deferred),
        cmocka_unit_test(test_close_from_handler),
        cmocka_unit_test(test_forgotten_slot_closes),
        cmocka_unit_test(test_resume_answers_later),
        cmocka_unit_test(test_resume_close_inside),
        cmocka_unit_test(test_resume_forgotten_closes),
        cmocka_unit_test(test_drain_flushes_then_closes),
        cmocka_unit_test(test_gathered_short_writes),
        cmocka_unit_test(test_file_response),
        cmocka_unit_test(test_short_file_closes),
        cmocka_unit_test(test_send_error_cancels_rest),
        cmocka_unit_test(test_throttle_sends_then_mutes),
        cmocka_unit_test(test_throttle_ends_and_resumes),
        cmocka_unit_test(test_throttle_with_backpressure),
        cmocka_unit_test(test_throttle_then_drain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
