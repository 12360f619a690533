/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conn_load: many clients on one broker. Opens N connections at once
 * (non-blocking connects on one epoll thread), sends each the ApiVersions and
 * Metadata requests a client sends first, keeps them all open and idle for a
 * while, then lets P of them produce one small record every S ms (acks=1)
 * while the rest stay idle, timing each Produce from send to response.
 *
 * Usage:
 *   bench_conn_load -b host:port -n conns [options]
 *     -w window      connections being opened at once (default: all)
 *     -i seconds     idle phase (default 10)
 *     -P producers   connections that produce after the idle phase (default 0)
 *     -S ms          each producer's interval (default 1000)
 *     -d seconds     produce phase (default 10)
 *     -t topic       produce topic, created with -p partitions (default conn-load, 10)
 *     -s bytes       record value size (default 100)
 *     -x pid         the broker's pid: its RSS and CPU time are read from /proc
 *
 * Phases and figures (last stdout line, one JSON object):
 *   open     every connection connected and both first responses read:
 *            open_seconds (the accept storm), open_errors (refused, reset,
 *            broker error codes, or not ready within LOAD_OPEN_TIMEOUT_S),
 *            ready_ms_p50/p99/max (connect to second response, per connection)
 *   idle     nothing sent for -i seconds: the broker's CPU over it
 *   produce  latencies of the Produce requests (p50/p99/max ms); a request
 *            due while the previous one of its producer is unanswered is
 *            skipped and counted as late
 * With -x: rss_kib_before (before the first connect), rss_kib_open (all
 * ready), rss_kib_idle (after the idle phase), idle_cpu_seconds, produce
 * phase cpu. Exit status: 0 when every connection opened and every produce
 * succeeded, 1 otherwise, 2 bad usage.
 *
 * Needs N file descriptors: the soft RLIMIT_NOFILE is raised to fit.
 * Loopback has ~28k ephemeral ports, so N up to ~25k from one address.
 *
 * Thread: one (the epoll loop); responses are decoded in one shared arena.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gen/api_versions.h"
#include "gen/codec_registry.h"
#include "gen/create_topics.h"
#include "gen/headers.h"
#include "gen/metadata.h"
#include "gen/produce.h"
#include "protocol/kerr.h"
#include "protocol/records.h"

#include "load_wire.h"

#define LOAD_API_VERSIONS_VERSION 3
#define LOAD_METADATA_VERSION     12
#define LOAD_PRODUCE_VERSION      9
#define LOAD_CREATE_VERSION       4
#define LOAD_CREATE_TIMEOUT_MS    60000
#define LOAD_PRODUCE_TIMEOUT_MS   30000
#define LOAD_OPEN_TIMEOUT_S       120.0
#define LOAD_CORRELATION_POS      8 /* size(4) api_key(2) api_version(2) */
#define LOAD_FIRST_PRODUCE_ID     1000
#define LOAD_MAX_RESPONSE         (16 << 20)
#define LOAD_EVENTS               256
#define LOAD_FD_SPARE             64

typedef enum conn_state {
    CONN_CONNECTING, /* connect() in progress */
    CONN_OPENING,    /* first two requests sent, waiting for their responses */
    CONN_READY,      /* open and idle (or producing) */
    CONN_FAILED,
} conn_state_t;

typedef struct load_conn {
    int fd;
    conn_state_t state;
    int awaiting;     /* responses still expected */
    int32_t next_id;  /* correlation id of the next produce */
    double opened_at; /* connect() called */
    double sent_at;   /* the produce in flight, 0 when none */
    uint8_t *buf;     /* bytes read and not yet parsed */
    size_t len, cap;
} load_conn_t;

typedef struct load_opts {
    const char *hostport;
    int conns, window, producers, interval_ms, partitions, record_size;
    double idle_s, produce_s;
    const char *topic;
    int broker_pid;
} load_opts_t;

typedef struct load_stats {
    double *v;
    size_t n, cap;
} load_stats_t;

typedef struct load_run {
    const load_opts_t *o;
    load_conn_t *c;
    int ep;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    gr_writer_t hello;     /* ApiVersions + Metadata frames */
    gr_writer_t *produces; /* one Produce frame per partition */
    gr_arena_t arena;
    int started, ready, failed;
    int open_ready; /* ready at the end of the open phase */
    load_stats_t ready_ms, produce_ms;
    long produce_errors, late;
} load_run_t;

static double load_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int stats_add(load_stats_t *s, double v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        double *nv = realloc(s->v, cap * sizeof(*nv));
        if (!nv)
            return -ENOMEM;
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = v;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of s (sorted by the first call); 0 when empty. */
static double stats_q(load_stats_t *s, double q)
{
    if (s->n == 0)
        return 0;
    qsort(s->v, s->n, sizeof(double), cmp_double);
    size_t i = (size_t)(q * (double)(s->n - 1) + 0.5);
    return s->v[i];
}

/* The broker's resident set (KiB) and user+system CPU seconds; -1 without -x. */
static void broker_sample(int pid, long *rss_kib, double *cpu_s)
{
    char path[64], line[1024];
    *rss_kib = -1;
    *cpu_s = -1;
    if (pid <= 0)
        return;
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", rss_kib) == 1)
            break;
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    f = fopen(path, "r");
    if (f && fgets(line, sizeof line, f)) {
        /* Fields after the ")" closing the command: state is field 3, utime 14, stime 15. */
        const char *p = strrchr(line, ')');
        unsigned long ut, st;
        if (p &&
            sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
            *cpu_s = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
    }
    if (f)
        fclose(f);
}

static int resolve(load_run_t *r)
{
    char host[256];
    const char *colon = strrchr(r->o->hostport, ':');
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    if (!colon || (size_t)(colon - r->o->hostport) >= sizeof host)
        return -EINVAL;
    memcpy(host, r->o->hostport, (size_t)(colon - r->o->hostport));
    host[colon - r->o->hostport] = '\0';
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -EHOSTUNREACH;
    memcpy(&r->addr, res->ai_addr, res->ai_addrlen);
    r->addrlen = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

/* The first two requests of a client: ApiVersions, then Metadata (the topic, or none). */
static int build_hello(load_run_t *r)
{
    gr_api_versions_request_t av;
    gr_metadata_request_t md;
    gr_metadata_request_metadata_request_topic_t t;
    gr_api_versions_request_init(&av);
    av.client_software_name = gr_str("gregor-conn-load");
    av.client_software_version = gr_str("1");
    gr_metadata_request_init(&md);
    gr_metadata_request_metadata_request_topic_init(&t);
    md.topics_null = false;
    md.allow_auto_topic_creation = false;
    if (r->o->producers > 0) {
        t.name = gr_str(r->o->topic);
        md.topics = &t;
        md.topics_count = 1;
    }
    gr_writer_init(&r->hello);
    if (load_wire_frame(&r->hello, GR_API_API_VERSIONS, LOAD_API_VERSIONS_VERSION, 1, &av) != 0 ||
        load_wire_frame(&r->hello, GR_API_METADATA, LOAD_METADATA_VERSION, 2, &md) != 0)
        return -EINVAL;
    return 0;
}

/* One Produce frame (acks=1, one record) per partition; the correlation id is patched per send. */
static int build_produces(load_run_t *r)
{
    const load_opts_t *o = r->o;
    gr_writer_t batch;
    gr_record_t rec;
    gr_batch_header_t h;
    uint8_t *value = calloc(1, (size_t)o->record_size + 1);
    r->produces = calloc((size_t)o->partitions, sizeof(*r->produces));
    if (!value || !r->produces) {
        free(value);
        return -ENOMEM;
    }
    memset(value, 'v', (size_t)o->record_size);
    memset(&h, 0, sizeof h);
    memset(&rec, 0, sizeof rec);
    h.base_timestamp = h.max_timestamp = (int64_t)time(NULL) * 1000;
    h.producer_id = -1;
    h.producer_epoch = -1;
    h.base_sequence = -1;
    rec.key.len = GR_NULL_LEN;
    rec.value.ptr = value;
    rec.value.len = o->record_size;
    gr_writer_init(&batch);
    int rc = gr_batch_build(&batch, &h, &rec, 1, GR_COMPRESSION_NONE);
    for (int p = 0; rc == 0 && p < o->partitions; p++) {
        gr_produce_request_t req;
        gr_produce_request_topic_produce_data_t t;
        gr_produce_request_partition_produce_data_t pd;
        gr_produce_request_init(&req);
        gr_produce_request_topic_produce_data_init(&t);
        gr_produce_request_partition_produce_data_init(&pd);
        pd.index = p;
        pd.records.ptr = batch.buf;
        pd.records.len = (int32_t)batch.len;
        t.name = gr_str(o->topic);
        t.partition_data = &pd;
        t.partition_data_count = 1;
        req.acks = 1;
        req.timeout_ms = LOAD_PRODUCE_TIMEOUT_MS;
        req.topic_data = &t;
        req.topic_data_count = 1;
        gr_writer_init(&r->produces[p]);
        rc = load_wire_frame(&r->produces[p], GR_API_PRODUCE, LOAD_PRODUCE_VERSION, 0, &req);
    }
    gr_writer_fini(&batch);
    free(value);
    return rc;
}

/* Creates the produce topic with a blocking connection; an existing one is fine. */
static int create_topic(const load_opts_t *o)
{
    load_wire_t wire;
    gr_create_topics_request_t req;
    gr_create_topics_request_creatable_topic_t t;
    gr_create_topics_response_t resp;
    int rc = -1;
    if (load_wire_open(&wire, o->hostport) != 0)
        goto out;
    gr_create_topics_request_init(&req);
    gr_create_topics_request_creatable_topic_init(&t);
    t.name = gr_str(o->topic);
    t.num_partitions = o->partitions;
    t.replication_factor = 1;
    req.topics = &t;
    req.topics_count = 1;
    req.timeout_ms = LOAD_CREATE_TIMEOUT_MS;
    if (load_wire_call(&wire, GR_API_CREATE_TOPICS, LOAD_CREATE_VERSION, &req, &resp) != 0 ||
        resp.topics_count != 1)
        goto out;
    if (resp.topics[0].error_code == GR_KERR_NONE ||
        resp.topics[0].error_code == GR_KERR_TOPIC_ALREADY_EXISTS)
        rc = 0;
    else
        fprintf(stderr, "conn_load: create %s: error %d\n", o->topic, resp.topics[0].error_code);
out:
    load_wire_close(&wire);
    return rc;
}

static void conn_fail(load_run_t *r, load_conn_t *c, const char *why, int err)
{
    if (c->state == CONN_FAILED)
        return;
    if (r->failed < 5)
        fprintf(stderr, "conn_load: connection %d: %s (%s)\n", (int)(c - r->c), why, strerror(err));
    if (c->state == CONN_READY)
        r->ready--;
    c->state = CONN_FAILED;
    r->failed++;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
}

static int conn_send(load_conn_t *c, const uint8_t *p, size_t n)
{
    /* Small frames on an idle socket: a short write means the broker stopped reading. */
    ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
    if (w == (ssize_t)n)
        return 0;
    return w < 0 ? -errno : -EAGAIN;
}

static void conn_start(load_run_t *r, load_conn_t *c)
{
    c->opened_at = load_now();
    c->fd = socket(r->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0) {
        conn_fail(r, c, "socket", errno);
        return;
    }
    int one = 1;
    (void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->state = CONN_CONNECTING;
    if (connect(c->fd, (struct sockaddr *)&r->addr, r->addrlen) != 0 && errno != EINPROGRESS) {
        conn_fail(r, c, "connect", errno);
        return;
    }
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    if (epoll_ctl(r->ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
        conn_fail(r, c, "epoll_ctl", errno);
}

/* The connect finished: send the hello requests, wait for input only. */
static void conn_connected(load_run_t *r, load_conn_t *c)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
        conn_fail(r, c, "connect", err ? err : errno);
        return;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    int rc = conn_send(c, r->hello.buf, r->hello.len);
    if (rc != 0 || epoll_ctl(r->ep, EPOLL_CTL_MOD, c->fd, &ev) != 0) {
        conn_fail(r, c, "sending ApiVersions and Metadata", rc ? -rc : errno);
        return;
    }
    c->state = CONN_OPENING;
    c->awaiting = 2;
}

/* Decodes one response body of api key; returns its first error code, or -1 if undecodable. */
static int decode_error(load_run_t *r, int16_t key, int16_t version, const uint8_t *p, size_t n)
{
    const gr_api_desc_t *api = gr_api_find(key);
    /* ApiVersions responses keep header v0 in every version (clients parse it before knowing). */
    bool flexible = key != GR_API_API_VERSIONS && api->flexible_min != GR_VERSION_NONE &&
                    version >= api->flexible_min;
    gr_response_header_t h;
    gr_reader_t rd;
    union {
        gr_api_versions_response_t av;
        gr_metadata_response_t md;
        gr_produce_response_t pr;
    } u;
    gr_arena_reset(&r->arena);
    gr_reader_init(&rd, p, n);
    if (gr_response_header_decode(&rd, flexible ? 1 : 0, &r->arena, &h) != 0 ||
        api->response->decode(&rd, version, &r->arena, &u) != 0)
        return -1;
    if (key == GR_API_API_VERSIONS)
        return u.av.error_code;
    if (key == GR_API_METADATA)
        return u.md.topics_count > 0 ? u.md.topics[0].error_code : 0;
    if (u.pr.responses_count != 1 || u.pr.responses[0].partition_responses_count != 1)
        return -1;
    return u.pr.responses[0].partition_responses[0].error_code;
}

static int32_t load_be32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

/* One complete response frame (without its size) on c. */
static void conn_response(load_run_t *r, load_conn_t *c, const uint8_t *p, size_t n)
{
    int32_t id = n >= 4 ? load_be32(p) : -1;
    double now = load_now();
    if (c->state == CONN_OPENING && (id == 1 || id == 2)) {
        int16_t key = id == 1 ? GR_API_API_VERSIONS : GR_API_METADATA;
        int16_t version = id == 1 ? LOAD_API_VERSIONS_VERSION : LOAD_METADATA_VERSION;
        int err = decode_error(r, key, version, p, n);
        if (err != 0) {
            conn_fail(r, c, id == 1 ? "ApiVersions error" : "Metadata error", EPROTO);
            return;
        }
        if (--c->awaiting == 0) {
            c->state = CONN_READY;
            r->ready++;
            stats_add(&r->ready_ms, (now - c->opened_at) * 1000);
        }
        return;
    }
    if (c->state != CONN_READY || c->sent_at == 0 || id != c->next_id - 1) {
        conn_fail(r, c, "unexpected response", EPROTO);
        return;
    }
    if (decode_error(r, GR_API_PRODUCE, LOAD_PRODUCE_VERSION, p, n) != 0)
        r->produce_errors++;
    stats_add(&r->produce_ms, (now - c->sent_at) * 1000);
    c->sent_at = 0;
}

static void conn_readable(load_run_t *r, load_conn_t *c)
{
    for (;;) {
        if (c->cap - c->len < 4096) {
            size_t cap = c->cap ? 2 * c->cap : 8192;
            uint8_t *nb = cap <= LOAD_MAX_RESPONSE ? realloc(c->buf, cap) : NULL;
            if (!nb) {
                conn_fail(r, c, "response too big", ENOMEM);
                return;
            }
            c->buf = nb;
            c->cap = cap;
        }
        ssize_t got = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN)
            break;
        if (got <= 0) {
            conn_fail(r, c, "closed by the broker", got == 0 ? ECONNRESET : errno);
            return;
        }
        c->len += (size_t)got;
    }
    size_t pos = 0;
    while (c->state != CONN_FAILED && c->len - pos >= 4) {
        int32_t size = load_be32(c->buf + pos);
        if (size < 0) {
            conn_fail(r, c, "bad response size", EPROTO);
            return;
        }
        if (c->len - pos < 4 + (size_t)size)
            break;
        conn_response(r, c, c->buf + pos + 4, (size_t)size);
        pos += 4 + (size_t)size;
    }
    if (c->state == CONN_FAILED)
        return;
    memmove(c->buf, c->buf + pos, c->len - pos);
    c->len -= pos;
    if (c->len == 0) {
        /* An idle client keeps no buffer, as a real one would not hold 8 KiB per socket. */
        free(c->buf);
        c->buf = NULL;
        c->cap = 0;
    }
}

/* Waits up to timeout_ms for events and handles them. */
static void poll_once(load_run_t *r, int timeout_ms)
{
    struct epoll_event evs[LOAD_EVENTS];
    int n = epoll_wait(r->ep, evs, LOAD_EVENTS, timeout_ms);
    for (int i = 0; i < n; i++) {
        load_conn_t *c = evs[i].data.ptr;
        if (c->state == CONN_CONNECTING)
            conn_connected(r, c);
        else if (c->state != CONN_FAILED)
            conn_readable(r, c);
    }
}

/* Opens every connection, at most window of them in flight. Returns the seconds it took. */
static double phase_open(load_run_t *r)
{
    double start = load_now();
    while (r->ready + r->failed < r->o->conns && load_now() - start < LOAD_OPEN_TIMEOUT_S) {
        while (r->started < r->o->conns && r->started - r->ready - r->failed < r->o->window)
            conn_start(r, &r->c[r->started++]);
        poll_once(r, 100);
    }
    double took = load_now() - start;
    for (int i = 0; i < r->o->conns; i++)
        if (r->c[i].state != CONN_READY && r->c[i].state != CONN_FAILED)
            conn_fail(r, &r->c[i], "not ready in time", ETIMEDOUT);
    return took;
}

/* Nothing is sent; events are still read (a close by the broker is an error). */
static void phase_idle(load_run_t *r, double seconds)
{
    double end = load_now() + seconds;
    for (double now = load_now(); now < end; now = load_now())
        poll_once(r, (int)((end - now) * 1000) + 1);
}

/* Producer k sends at start + k*S/P + round*S, one request outstanding at most. */
static void phase_produce(load_run_t *r)
{
    const load_opts_t *o = r->o;
    double start = load_now(), end = start + o->produce_s;
    double step = (double)o->interval_ms / 1000.0 / o->producers;
    long next = 0; /* index of the next send: producer next % P, round next / P */
    for (int k = 0; k < o->producers; k++)
        r->c[k].next_id = LOAD_FIRST_PRODUCE_ID;
    for (double now = start; now < end; now = load_now()) {
        double due = start + (double)next * step;
        while (due <= now && due < end) {
            load_conn_t *c = &r->c[next % o->producers];
            if (c->state != CONN_READY || c->sent_at != 0) {
                r->late += c->state == CONN_READY;
            } else {
                gr_writer_t *f = &r->produces[(next % o->producers) % o->partitions];
                uint8_t *id = f->buf + LOAD_CORRELATION_POS;
                int32_t corr = c->next_id++;
                id[0] = (uint8_t)(corr >> 24);
                id[1] = (uint8_t)(corr >> 16);
                id[2] = (uint8_t)(corr >> 8);
                id[3] = (uint8_t)corr;
                c->sent_at = load_now();
                int rc = conn_send(c, f->buf, f->len);
                if (rc != 0)
                    conn_fail(r, c, "sending Produce", -rc);
            }
            due = start + (double)++next * step;
        }
        double wait = (due < end ? due : end) - load_now();
        poll_once(r, wait > 0 ? (int)(wait * 1000) + 1 : 0);
    }
    /* Answers still out: give them a moment, then count them as errors. */
    double grace = load_now() + 5;
    for (bool out = true; out && load_now() < grace;) {
        out = false;
        for (int k = 0; k < o->producers; k++)
            out |= r->c[k].state == CONN_READY && r->c[k].sent_at != 0;
        if (out)
            poll_once(r, 10);
    }
    for (int k = 0; k < o->producers; k++)
        if (r->c[k].state == CONN_READY && r->c[k].sent_at != 0)
            r->produce_errors++;
}

static int raise_nofile(int conns)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)conns + LOAD_FD_SPARE;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -errno;
    if (rl.rlim_cur >= want)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
        return -EMFILE;
    rl.rlim_cur = want;
    return setrlimit(RLIMIT_NOFILE, &rl) == 0 ? 0 : -errno;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_conn_load -b host:port -n conns [-w window] [-i idle_s] "
                    "[-P producers] [-S interval_ms] [-d produce_s] [-t topic] [-p partitions] "
                    "[-s record_size] [-x broker_pid]\n");
    return 2;
}

static int parse(int argc, char **argv, load_opts_t *o)
{
    *o = (load_opts_t){.idle_s = 10,
                       .produce_s = 10,
                       .interval_ms = 1000,
                       .partitions = 10,
                       .record_size = 100,
                       .topic = "conn-load"};
    int opt;
    while ((opt = getopt(argc, argv, "b:n:w:i:P:S:d:t:p:s:x:")) != -1) {
        switch (opt) {
        case 'b':
            o->hostport = optarg;
            break;
        case 'n':
            o->conns = atoi(optarg);
            break;
        case 'w':
            o->window = atoi(optarg);
            break;
        case 'i':
            o->idle_s = atof(optarg);
            break;
        case 'P':
            o->producers = atoi(optarg);
            break;
        case 'S':
            o->interval_ms = atoi(optarg);
            break;
        case 'd':
            o->produce_s = atof(optarg);
            break;
        case 't':
            o->topic = optarg;
            break;
        case 'p':
            o->partitions = atoi(optarg);
            break;
        case 's':
            o->record_size = atoi(optarg);
            break;
        case 'x':
            o->broker_pid = atoi(optarg);
            break;
        default:
            return -1;
        }
    }
    if (!o->hostport || o->conns <= 0 || o->producers < 0 || o->producers > o->conns ||
        o->interval_ms <= 0 || o->partitions <= 0 || o->record_size < 0)
        return -1;
    if (o->window <= 0)
        o->window = o->conns;
    return 0;
}

static void print_result(load_run_t *r, double open_s, const long rss[3], const double cpu[5])
{
    const load_opts_t *o = r->o;
    printf("{\"conns\":%d,\"ready\":%d,\"open_errors\":%d,\"open_seconds\":%.3f,"
           "\"ready_ms_p50\":%.2f,\"ready_ms_p99\":%.2f,\"ready_ms_max\":%.2f,"
           "\"idle_seconds\":%.1f,\"producers\":%d,\"interval_ms\":%d,\"produce_seconds\":%.1f,"
           "\"produced\":%zu,\"produce_errors\":%ld,\"late\":%ld,"
           "\"produce_ms_p50\":%.2f,\"produce_ms_p99\":%.2f,\"produce_ms_max\":%.2f",
           o->conns, r->ready, o->conns - r->open_ready, open_s, stats_q(&r->ready_ms, 0.5),
           stats_q(&r->ready_ms, 0.99), stats_q(&r->ready_ms, 1.0), o->idle_s, o->producers,
           o->interval_ms, o->produce_s, r->produce_ms.n, r->produce_errors, r->late,
           stats_q(&r->produce_ms, 0.5), stats_q(&r->produce_ms, 0.99),
           stats_q(&r->produce_ms, 1.0));
    if (o->broker_pid > 0 && rss[0] >= 0)
        printf(",\"rss_kib_before\":%ld,\"rss_kib_open\":%ld,\"rss_kib_idle\":%ld,"
               "\"rss_bytes_per_conn\":%.0f,\"open_cpu_seconds\":%.3f,\"idle_cpu_seconds\":%.3f,"
               "\"idle_cpu_us_per_conn_s\":%.3f,\"produce_cpu_seconds\":%.3f",
               rss[0], rss[1], rss[2], r->ready ? (double)(rss[2] - rss[0]) * 1024.0 / r->ready : 0,
               cpu[0] - cpu[4], cpu[1] - cpu[0],
               r->ready && o->idle_s > 0 ? (cpu[1] - cpu[0]) * 1e6 / o->idle_s / r->ready : 0,
               cpu[3] - cpu[2]);
    printf("}\n");
}

int main(int argc, char **argv)
{
    load_opts_t o;
    load_run_t r;
    long rss[3] = {-1, -1, -1};
    double cpu[5] = {0, 0, 0, 0, 0}; /* open end, idle end, produce start/end, start */
    if (parse(argc, argv, &o) != 0)
        return usage();
    memset(&r, 0, sizeof r);
    r.o = &o;
    gr_arena_init(&r.arena);
    int rc = raise_nofile(o.conns);
    if (rc != 0) {
        fprintf(stderr, "conn_load: RLIMIT_NOFILE for %d connections: %s\n", o.conns,
                strerror(-rc));
        return 1;
    }
    r.c = calloc((size_t)o.conns, sizeof(*r.c));
    r.ep = epoll_create1(EPOLL_CLOEXEC);
    if (!r.c || r.ep < 0 || resolve(&r) != 0 || build_hello(&r) != 0 ||
        (o.producers > 0 && (create_topic(&o) != 0 || build_produces(&r) != 0))) {
        fprintf(stderr, "conn_load: setting up failed\n");
        return 1;
    }
    for (int i = 0; i < o.conns; i++)
        r.c[i].fd = -1;
    long rss_tmp;
    broker_sample(o.broker_pid, &rss[0], &cpu[4]);
    double open_s = phase_open(&r);
    r.open_ready = r.ready;
    broker_sample(o.broker_pid, &rss[1], &cpu[0]);
    phase_idle(&r, o.idle_s);
    broker_sample(o.broker_pid, &rss[2], &cpu[1]);
    broker_sample(o.broker_pid, &rss_tmp, &cpu[2]);
    if (o.producers > 0)
        phase_produce(&r);
    broker_sample(o.broker_pid, &rss_tmp, &cpu[3]);
    print_result(&r, open_s, rss, cpu);
    return r.ready == o.conns && r.produce_errors == 0 ? 0 : 1;
}
