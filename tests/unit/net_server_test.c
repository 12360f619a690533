/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Server and listener tests on loopback: ephemeral port, IPv4 and IPv6,
 * max_connections pausing the accept loop, running out of descriptors,
 * graceful stop (drain, then close) and the stop deadline. The loop is
 * driven with ev_run(EVRUN_NOWAIT) in bounded loops; nothing sleeps.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/server.h"

#define SPIN_LIMIT 200000

typedef struct fixture {
    struct ev_loop *loop;
    gr_server_t srv;
    gr_logger_t logger;
    FILE *log_file;
    bool defer;
    gr_resp_slot_t *deferred[8];
    size_t deferred_count;
    size_t cancels;
    size_t frames;
    int stopped;
} fixture_t;

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    fixture_t *f = arg;
    for (size_t i = 0; i < f->deferred_count; i++)
        if (f->deferred[i] == slot)
            f->deferred[i] = NULL;
    f->cancels++;
}

/* Echoes each frame back with its size prefix, or defers it. */
static void on_frame(gr_conn_t *c, gr_resp_slot_t *slot, const uint8_t *frame, size_t len,
                     void *opaque)
{
    (void)c;
    fixture_t *f = opaque;
    f->frames++;
    if (f->defer) {
        f->deferred[f->deferred_count++] = slot;
        gr_resp_slot_defer(slot, on_cancel, f);
        return;
    }
    gr_chain_t *ch = gr_resp_slot_chain(slot);
    assert_int_equal(gr_chain_add_copy(ch, frame - 4, len + 4), 0);
    gr_resp_slot_complete(slot, NULL);
}

static fixture_t *fixture_new(uint32_t max_connections)
{
    fixture_t *f = calloc(1, sizeof(*f));
    f->loop = ev_loop_new(EVFLAG_AUTO);
    f->log_file = tmpfile();
    gr_logger_init(&f->logger, f->log_file, GR_LOG_DEBUG);
    gr_server_config_t cfg = {0};
    cfg.conn.on_frame = on_frame;
    cfg.conn.opaque = f;
    cfg.conn.log = &f->logger;
    cfg.max_connections = max_connections;
    assert_int_equal(gr_server_init(&f->srv, f->loop, &cfg), 0);
    return f;
}

static void fixture_free(fixture_t *f)
{
    gr_server_fini(&f->srv);
    assert_int_equal(gr_server_conn_count(&f->srv), 0);
    fclose(f->log_file);
    ev_loop_destroy(f->loop);
    free(f);
}

static int log_contains(fixture_t *f, const char *needle)
{
    static char buf[16384];
    fflush(f->log_file);
    rewind(f->log_file);
    size_t n = fread(buf, 1, sizeof buf - 1, f->log_file);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

static void run_some(fixture_t *f)
{
    for (int i = 0; i < 50; i++)
        ev_run(f->loop, EVRUN_NOWAIT);
}

static void run_until_conns(fixture_t *f, size_t n)
{
    for (int i = 0; i < SPIN_LIMIT && gr_server_conn_count(&f->srv) != n; i++)
        ev_run(f->loop, EVRUN_NOWAIT);
    assert_int_equal(gr_server_conn_count(&f->srv), n);
}

static void run_until_frames(fixture_t *f, size_t n)
{
    for (int i = 0; i < SPIN_LIMIT && f->frames < n; i++)
        ev_run(f->loop, EVRUN_NOWAIT);
    assert_int_equal(f->frames, n);
}

/* A non-blocking client connected (or connecting) to family's loopback:port. */
static int client(int family, uint16_t port)
{
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK, 0);
    assert_true(fd >= 0);
    int rc;
    if (family == AF_INET6) {
        struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
        a.sin6_addr = in6addr_loopback;
        rc = connect(fd, (struct sockaddr *)&a, sizeof a);
    } else {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        rc = connect(fd, (struct sockaddr *)&a, sizeof a);
    }
    assert_true(rc == 0 || errno == EINPROGRESS);
    return fd;
}

static void send_frame(int fd, const char *payload)
{
    uint8_t buf[256];
    size_t len = strlen(payload);
    buf[0] = buf[1] = buf[2] = 0;
    buf[3] = (uint8_t)len;
    memcpy(buf + 4, payload, len);
    /* Loopback connect finishes at once; retry briefly while it does. */
    ssize_t w = -1;
    for (int i = 0; i < SPIN_LIMIT && w < 0; i++)
        w = write(fd, buf, len + 4);
    assert_int_equal(w, (ssize_t)(len + 4));
}

/* Reads n bytes, running the loop while waiting. Returns bytes read before EOF. */
static size_t recv_some(fixture_t *f, int fd, uint8_t *buf, size_t n)
{
    size_t got = 0;
    for (int i = 0; i < SPIN_LIMIT && got < n; i++) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r > 0)
            got += (size_t)r;
        else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            break;
        else
            ev_run(f->loop, EVRUN_NOWAIT);
    }
    return got;
}

static void expect_echo(fixture_t *f, int fd, const char *payload)
{
    uint8_t buf[256];
    size_t len = strlen(payload);
    assert_int_equal(recv_some(f, fd, buf, len + 4), len + 4);
    assert_memory_equal(buf + 4, payload, len);
}

/* Waits for EOF (or a reset) on fd. */
static void expect_closed(fixture_t *f, int fd)
{
    uint8_t b;
    for (int i = 0; i < SPIN_LIMIT; i++) {
        ssize_t r = read(fd, &b, 1);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
            return;
        assert_true(r < 0);
        ev_run(f->loop, EVRUN_NOWAIT);
    }
    fail_msg("connection not closed");
}

static void test_ipv4_ephemeral_echo(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(0);
    uint16_t port = 0;
    assert_int_equal(gr_server_listen(&f->srv, "127.0.0.1", 0, &port), 0);
    assert_true(port > 0);
    assert_int_equal(gr_listener_port(&f->srv.listeners[0]), port);
    int fd = client(AF_INET, port);
    run_until_conns(f, 1);
    send_frame(fd, "ping");
    expect_echo(f, fd, "ping");
    assert_true(f->srv.stats.writev_bytes >= 8);
    assert_true(log_contains(f, "accepted connection from 127.0.0.1:"));
    /* The same port again is in use. */
    assert_int_equal(gr_server_listen(&f->srv, "127.0.0.1", port, NULL), -EADDRINUSE);
    close(fd);
    run_until_conns(f, 0);
    fixture_free(f);
}

static void test_ipv6_and_any(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(0);
    uint16_t port = 0;
    int rc = gr_server_listen(&f->srv, "[::1]", 0, &port);
    if (rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT) {
        fixture_free(f);
        skip();
    }
    assert_int_equal(rc, 0);
    int fd = client(AF_INET6, port);
    run_until_conns(f, 1);
    send_frame(fd, "six");
    expect_echo(f, fd, "six");
    close(fd);
    run_until_conns(f, 0);
    /* Every interface: IPv4 clients get in through the dual-stack socket. */
    uint16_t any_port = 0;
    assert_int_equal(gr_server_listen(&f->srv, NULL, 0, &any_port), 0);
    fd = client(AF_INET, any_port);
    run_until_conns(f, 1);
    /* Logged as plain IPv4, not as an IPv4-mapped IPv6 address. */
    assert_true(log_contains(f, "accepted connection from 127.0.0.1:"));
    assert_false(log_contains(f, "::ffff:"));
    send_frame(fd, "four");
    expect_echo(f, fd, "four");
    close(fd);
    assert_int_equal(gr_server_listen(&f->srv, "no.such.host.invalid", 0, NULL) < 0, 1);
    fixture_free(f);
}

static void test_max_connections_pauses_accept(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(1);
    uint16_t port;
    assert_int_equal(gr_server_listen(&f->srv, "127.0.0.1", 0, &port), 0);
    int a = client(AF_INET, port);
    run_until_conns(f, 1);
    int b = client(AF_INET, port); /* completes in the kernel backlog */
    send_frame(b, "waiting");
    run_some(f);
    assert_int_equal(gr_server_conn_count(&f->srv), 1);
    assert_int_equal(f->srv.accepted, 1);
    assert_int_equal(f->frames, 0);
    close(a);
    run_until_frames(f, 1);
    assert_int_equal(f->srv.accepted, 2);
    expect_echo(f, b, "waiting");
    close(b);
    fixture_free(f);
}

static void test_out_of_descriptors(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(0);
    uint16_t port;
    assert_int_equal(gr_server_listen(&f->srv, "127.0.0.1", 0, &port), 0);
    int fd = client(AF_INET, port);
    /* Fill every free descriptor below fd, then cap the limit at fd + 1. */
    int fillers[1024];
    size_t nfill = 0;
    for (;;) {
        int d = dup(0);
        assert_true(d >= 0);
        if (d > fd) {
            close(d);
            break;
        }
        assert_true(nfill < 1024);
        fillers[nfill++] = d;
    }
    struct rlimit saved, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
    low = saved;
    low.rlim_cur = (rlim_t)fd + 1;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    for (int i = 0; i < 1000 && !log_contains(f, "out of file descriptors"); i++)
        ev_run(f->loop, EVRUN_NOWAIT);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
    for (size_t i = 0; i < nfill; i++)
        close(fillers[i]);
    assert_true(log_contains(f, "out of file descriptors"));
    assert_int_equal(gr_server_conn_count(&f->srv), 0);
    expect_closed(f, fd);
    close(fd);
    /* The listener still works afterwards. */
    fd = client(AF_INET, port);
    run_until_conns(f, 1);
    send_frame(fd, "again");
    expect_echo(f, fd, "again");
    close(fd);
    fixture_free(f);
}

static void on_stopped(gr_server_t *srv, void *arg)
{
    fixture_t *f = arg;
    assert_ptr_equal(srv, &f->srv);
    f->stopped++;
}

static void test_graceful_stop(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(0);
    uint16_t port;
    assert_int_equal(gr_server_listen(&f->srv, "127.0.0.1", 0, &port), 0);
    int idle = client(AF_INET, port);
    int busy = client(AF_INET, port);
    run_until_conns(f, 2);
    f->defer = true;
    send_frame(busy, "slow");
    run_until_frames(f, 1);
    gr_server_stop(&f->srv, 60., on_stopped, f);
    /* The idle connection closes at once; the busy one waits for its response. */
    run_until_conns(f, 1);
    expect_closed(f, idle);
    assert_int_equal(f->stopped, 0);
    /* Not listening any more. */
    int late = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(late, (struct sockaddr *)&a, sizeof a), -1);
    assert_int_equal(errno, ECONNREFUSED);
    close(late);
    gr_resp_slot_t *slot = f->deferred[0];
    assert_int_equal(gr_chain_add_copy(gr_resp_slot_chain(slot), "\0\0\0\4done", 8), 0);
    gr_resp_slot_complete(slot, NULL);
    expect_echo(f, busy, "done");
    expect_closed(f, busy);
    run_until_conns(f, 0);
    assert_int_equal(f->stopped, 1);
    assert_int_equal(f->cancels, 0);
    close(idle);
    close(busy);
    fixture_free(f);
}

static void test_stop_deadline_cancels(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(0);
    uint16_t port;
    assert_int_equal(gr_server_listen(&f->srv, "127.0.0.1", 0, &port), 0);
    int fd = client(AF_INET, port);
    run_until_conns(f, 1);
    f->defer = true;
    send_frame(fd, "never answered");
    run_until_frames(f, 1);
    /* A zero deadline expires on the next loop turn. */
    gr_server_stop(&f->srv, 0., on_stopped, f);
    for (int i = 0; i < SPIN_LIMIT && !f->stopped; i++)
        ev_run(f->loop, EVRUN_NOWAIT);
    assert_int_equal(f->stopped, 1);
    assert_int_equal(f->cancels, 1);
    assert_int_equal(gr_server_conn_count(&f->srv), 0);
    expect_closed(f, fd);
    close(fd);
    fixture_free(f);
}

static void test_fini_with_live_connections(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(0);
    uint16_t port;
    assert_int_equal(gr_server_listen(&f->srv, "127.0.0.1", 0, &port), 0);
    int a = client(AF_INET, port);
    int b = client(AF_INET, port);
    run_until_conns(f, 2);
    f->defer = true;
    send_frame(a, "x");
    run_until_frames(f, 1);
    gr_server_fini(&f->srv);
    assert_int_equal(f->cancels, 1);
    assert_int_equal(gr_server_conn_count(&f->srv), 0);
    close(a);
    close(b);
    fixture_free(f);
}

static void tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
}

/*
 * connections.max.idle.ms: a silent connection is closed; one with a request
 * in progress (a long-poll fetch) is not, however long it waits.
 */
static void test_idle_connection_closed(void **state)
{
    (void)state;
    fixture_t *f = fixture_new(0);
    f->srv.cfg.max_idle_sec = 0.1;
    uint16_t port;
    assert_int_equal(gr_server_listen(&f->srv, "127.0.0.1", 0, &port), 0);
    int busy = client(AF_INET, port);
    run_until_conns(f, 1);
    f->defer = true;
    send_frame(busy, "long poll");
    run_until_frames(f, 1);
    int silent = client(AF_INET, port);
    run_until_conns(f, 2);
    /* A ticker so that a missing idle timer fails the test instead of hanging it. */
    ev_timer tick;
    ev_timer_init(&tick, tick_cb, 0.05, 0.05);
    ev_timer_start(f->loop, &tick);
    for (int i = 0; i < 200 && gr_server_conn_count(&f->srv) == 2; i++)
        ev_run(f->loop, EVRUN_ONCE);
    ev_timer_stop(f->loop, &tick);
    assert_int_equal(gr_server_conn_count(&f->srv), 1);
    assert_int_equal(f->srv.idle_closed, 1);
    assert_int_equal(f->cancels, 0); /* the busy one kept its deferred request */
    assert_true(log_contains(f, "idle for connections.max.idle.ms"));
    char byte;
    assert_int_equal(read(silent, &byte, 1), 0); /* EOF: the broker closed it */
    close(silent);
    close(busy);
    fixture_free(f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipv4_ephemeral_echo),
        cmocka_unit_test(test_ipv6_and_any),
        cmocka_unit_test(test_max_connections_pauses_accept),
        cmocka_unit_test(test_out_of_descriptors),
        cmocka_unit_test(test_graceful_stop),
        cmocka_unit_test(test_stop_deadline_cancels),
        cmocka_unit_test(test_fini_with_live_connections),
        cmocka_unit_test(test_idle_connection_closed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
