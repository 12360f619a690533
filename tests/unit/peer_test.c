/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The inter-broker client (src/net/peer.c) against fake brokers in the same
 * loop: real listeners (src/net/server.c) whose frame handler decodes each
 * request with the generated codec and answers, holds, closes or misbehaves
 * as the test asks. Outcomes are polled under a generous deadline; nothing
 * asserts a duration.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "protocol/frame.h"
#include "gen/api_versions.h"
#include "broker/broker.h"
#include "handlers/request.h"
#include "core/worker.h"
#include "gen/codec_registry.h"
#include "gen/headers.h"
#include "log/log_dir.h"
#include "gen/metadata.h"
#include "net/peer.h"
#include "net/server.h"
#include "gen/update_metadata.h"

#define DEADLINE_SEC   60
#define TICK_SEC       0.005
#define NODE_ID        7
#define CLIENT_ID      "peer-test"
#define TIMEOUT_MS     30000
#define SHORT_TIMEOUT  1000 /* long enough for a loaded machine to answer a live request */
#define MAX_HELD       64
#define MAX_OUTCOMES   256
#define BIG_TOPICS     30000
#define TOPIC_NAME_MAX 128

typedef enum fake_mode {
    FAKE_ANSWER,            /* decode, answer correctly */
    FAKE_HOLD,              /* never answer */
    FAKE_CLOSE,             /* close the connection on the request */
    FAKE_TRUNCATED,         /* right header, body cut short */
    FAKE_OVERSIZED,         /* a size prefix beyond the peer's cap */
    FAKE_NEGATIVE_SIZE,     /* a negative size prefix */
    FAKE_WRONG_CORRELATION, /* a valid response for another correlation id */
    FAKE_EXTRA,             /* a correct answer followed by an unrequested one */
    FAKE_ANSWER_DRAIN,      /* answer, then close the connection once it is sent */
} fake_mode_t;

typedef struct fake_broker {
    gr_server_t srv;
    bool listening;
    uint16_t port;
    fake_mode_t mode;
    size_t frames;
    char client_id[64];
    gr_resp_slot_t *held[MAX_HELD];
    size_t held_count;
    size_t cancelled;
} fake_broker_t;

typedef struct fixture fixture_t;

/* One request's completion, as the callback saw it. */
typedef struct outcome {
    fixture_t *f;
    int calls;
    int rc;
    int tag;   /* what the response carried back, see response_tag */
    int order; /* completion number across the fixture */
    int16_t key;
    bool resend; /* on -ECONNRESET, send a Metadata request from the callback */
} outcome_t;

struct fixture {
    struct ev_loop *loop;
    ev_timer tick;
    gr_logger_t logger;
    FILE *log_file;
    fake_broker_t brokers[2];
    gr_peer_t *peer;
    int completed;
    bool in_send;
    outcome_t out[MAX_OUTCOMES];
    size_t out_count;
};

/* --- the fake broker ------------------------------------------------------ */

static void held_cancelled(gr_resp_slot_t *slot, void *arg)
{
    fake_broker_t *fb = arg;
    for (size_t i = 0; i < fb->held_count; i++)
        if (fb->held[i] == slot)
            fb->held[i] = NULL;
    fb->cancelled++;
}

/* "t12" / "c12" -> 12 (decoded strings are not NUL-terminated). */
static int tag_of(gr_str_t s)
{
    char buf[TOPIC_NAME_MAX];
    if (s.len < 2 || s.len >= (int32_t)sizeof buf)
        return -1;
    memcpy(buf, s.ptr + 1, (size_t)s.len - 1);
    buf[s.len - 1] = '\0';
    return atoi(buf);
}

/* Fills a response carrying the request's tag back. */
static void *build_response(gr_arena_t *a, const gr_api_desc_t *api, const void *req)
{
    void *resp = gr_arena_alloc(a, api->response->struct_size);
    assert_non_null(resp);
    api->response->init(resp);
    if (api->key == GR_API_API_VERSIONS) {
        const gr_api_versions_request_t *rq = req;
        gr_api_versions_response_t *rs = resp;
        rs->api_keys = gr_arena_alloc(a, sizeof(*rs->api_keys));
        rs->api_keys_count = 1;
        rs->api_keys[0].api_key = (int16_t)tag_of(rq->client_software_name);
        rs->api_keys[0].max_version = 3;
    } else if (api->key == GR_API_METADATA) {
        const gr_metadata_request_t *rq = req;
        gr_metadata_response_t *rs = resp;
        rs->topics_count = rq->topics_count;
        rs->topics = gr_arena_alloc(a, sizeof(*rs->topics) * (size_t)rq->topics_count);
        for (int32_t i = 0; i < rq->topics_count; i++) {
            gr_metadata_response_metadata_response_topic_init(&rs->topics[i]);
            rs->topics[i].name = rq->topics[i].name;
            rs->topics[i].partitions_count = 0;
        }
        rs->brokers_count = 0;
        rs->cluster_id = gr_str("fake");
        rs->controller_id = NODE_ID;
    } else if (api->key == GR_API_UPDATE_METADATA) {
        const gr_update_metadata_request_t *rq = req;
        gr_update_metadata_response_t *rs = resp;
        rs->error_code = (int16_t)rq->controller_id;
    } else {
        fail_msg("the fake broker does not answer API %d", api->key);
    }
    return resp;
}

/* Size prefix, response header (version by the API's rules) and body. */
static void encode_response(gr_writer_t *w, const gr_api_desc_t *api, int16_t version,
                            int32_t correlation_id, const void *resp)
{
    size_t size_pos = gr_write_reserve(w, 4);
    gr_response_header_t h = {.correlation_id = correlation_id};
    assert_int_equal(
        gr_response_header_encode(w, gr_frame_response_header_version(api, version), &h), 0);
    assert_int_equal(api->response->encode(w, version, resp), 0);
    gr_writer_put_int32(w, size_pos, (int32_t)(w->len - 4));
}

static void put_be32(gr_writer_t *w, int32_t v)
{
    size_t pos = gr_write_reserve(w, 4);
    gr_writer_put_int32(w, pos, v);
}

static void fake_on_frame(gr_conn_t *c, gr_resp_slot_t *slot, const uint8_t *frame, size_t len,
                          void *opaque)
{
    fake_broker_t *fb = opaque;
    fb->frames++;
    gr_arena_t *a = gr_resp_slot_arena(slot);
    assert_true(len >= 4);
    int16_t key = (int16_t)(frame[0] << 8 | frame[1]);
    int16_t version = (int16_t)(frame[2] << 8 | frame[3]);
    const gr_api_desc_t *api = gr_api_find(key);
    assert_non_null(api);
    gr_reader_t r;
    gr_reader_init(&r, frame, len);
    gr_request_header_t h;
    assert_int_equal(
        gr_request_header_decode(&r, gr_frame_request_header_version(api, version), a, &h), 0);
    snprintf(fb->client_id, sizeof fb->client_id, "%.*s", h.client_id.len, h.client_id.ptr);
    void *req = gr_arena_alloc(a, api->request->struct_size);
    api->request->init(req);
    assert_int_equal(api->request->decode(&r, version, a, req), 0);
    assert_int_equal(gr_reader_left(&r), 0);

    if (fb->mode == FAKE_HOLD) {
        assert_true(fb->held_count < MAX_HELD);
        fb->held[fb->held_count++] = slot;
        gr_resp_slot_defer(slot, held_cancelled, fb);
        return;
    }
    if (fb->mode == FAKE_CLOSE) {
        gr_conn_close(c, "test: closing on a request");
        return;
    }
    gr_writer_t w;
    gr_writer_init(&w);
    void *resp = build_response(a, api, req);
    switch (fb->mode) {
    case FAKE_TRUNCATED:
        encode_response(&w, api, version, h.correlation_id, resp);
        w.len -= 1;
        gr_writer_put_int32(&w, 0, (int32_t)(w.len - 4));
        break;
    case FAKE_OVERSIZED:
        put_be32(&w, GR_PEER_MAX_RESPONSE_BYTES + 1);
        put_be32(&w, h.correlation_id);
        break;
    case FAKE_NEGATIVE_SIZE:
        put_be32(&w, -5);
        break;
    case FAKE_WRONG_CORRELATION:
        encode_response(&w, api, version, h.correlation_id + 1000, resp);
        break;
    case FAKE_EXTRA:
        encode_response(&w, api, version, h.correlation_id, resp);
        encode_response(&w, api, version, h.correlation_id + 1, resp);
        break;
    default:
        encode_response(&w, api, version, h.correlation_id, resp);
        break;
    }
    assert_int_equal(w.err, 0);
    assert_int_equal(gr_chain_add_copy(gr_resp_slot_chain(slot), w.buf, w.len), 0);
    gr_writer_fini(&w);
    gr_resp_slot_complete(slot, NULL);
    if (fb->mode == FAKE_ANSWER_DRAIN)
        gr_conn_drain(c, "test: idle");
}

/* Listens on loopback port (0: any free one, read back into fb->port). */
static void fake_listen(fake_broker_t *fb, uint16_t port)
{
    assert_int_equal(gr_server_listen(&fb->srv, "127.0.0.1", port, &fb->port), 0);
    fb->listening = true;
}

/* --- fixture -------------------------------------------------------------- */

static void tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
}

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    f->loop = ev_loop_new(EVFLAG_AUTO);
    f->log_file = tmpfile();
    gr_logger_init(&f->logger, f->log_file, GR_LOG_DEBUG);
    for (int i = 0; i < 2; i++) {
        gr_server_config_t cfg = {0};
        cfg.conn.on_frame = fake_on_frame;
        cfg.conn.opaque = &f->brokers[i];
        assert_int_equal(gr_server_init(&f->brokers[i].srv, f->loop, &cfg), 0);
    }
    /* Keeps ev_run(EVRUN_ONCE) returning so the polling loops re-check. */
    ev_timer_init(&f->tick, tick_cb, TICK_SEC, TICK_SEC);
    ev_timer_start(f->loop, &f->tick);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    gr_peer_free(f->peer);
    for (int i = 0; i < 2; i++)
        gr_server_fini(&f->brokers[i].srv);
    ev_timer_stop(f->loop, &f->tick);
    fclose(f->log_file);
    ev_loop_destroy(f->loop);
    free(f);
    return 0;
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs the loop until cond holds, failing after DEADLINE_SEC. */
#define RUN_UNTIL(f, cond)                                                                         \
    do {                                                                                           \
        double until_ = now_sec() + DEADLINE_SEC;                                                  \
        while (!(cond) && now_sec() < until_)                                                      \
            ev_run((f)->loop, EVRUN_ONCE);                                                         \
        assert_true(cond);                                                                         \
    } while (0)

/* A loopback port nobody listens on (bound, read, closed). */
static uint16_t unused_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static size_t log_count(fixture_t *f, const char *a, const char *b)
{
    fflush(f->log_file);
    rewind(f->log_file);
    char line[1024];
    size_t n = 0;
    while (fgets(line, sizeof line, f->log_file))
        if (strstr(line, a) && (!b || strstr(line, b)))
            n++;
    fseek(f->log_file, 0, SEEK_END);
    return n;
}

static gr_peer_t *new_peer(fixture_t *f, const char *host, uint16_t port, int32_t timeout_ms)
{
    f->peer = gr_peer_new(f->loop, NODE_ID, host, port, CLIENT_ID, timeout_ms, &f->logger);
    assert_non_null(f->peer);
    return f->peer;
}

/* --- requests ------------------------------------------------------------ */

static int response_tag(int16_t key, const void *response)
{
    if (key == GR_API_API_VERSIONS) {
        const gr_api_versions_response_t *r = response;
        return r->api_keys_count == 1 ? r->api_keys[0].api_key : -1;
    }
    if (key == GR_API_METADATA) {
        const gr_metadata_response_t *r = response;
        return r->topics_count >= 1 ? tag_of(r->topics[0].name) : -1;
    }
    const gr_update_metadata_response_t *r = response;
    return r->error_code;
}

static int send_request(fixture_t *f, int16_t key, int16_t version, int tag, int32_t topics);

static void on_response(void *opaque, int rc, const void *response)
{
    outcome_t *o = opaque;
    fixture_t *f = o->f;
    assert_false(f->in_send); /* never from inside gr_peer_send */
    o->calls++;
    o->rc = rc;
    o->order = ++f->completed;
    o->tag = -1;
    if (rc == 0) {
        assert_non_null(response);
        o->tag = response_tag(o->key, response);
    } else {
        assert_null(response);
    }
    if (o->resend && rc == -ECONNRESET) {
        o->resend = false;
        f->brokers[0].mode = FAKE_ANSWER;
        assert_int_equal(send_request(f, GR_API_METADATA, 12, 900, 1), 0);
    }
}

static void on_response_free_peer(void *opaque, int rc, const void *response)
{
    outcome_t *o = opaque;
    on_response(opaque, rc, response);
    gr_peer_free(o->f->peer);
    o->f->peer = NULL;
}

/*
 * Sends a request of key/version carrying tag (topics: Metadata topic count,
 * the first named "t<tag>"). The request lives on this stack frame only: the
 * peer must have encoded it before returning. Returns gr_peer_send's code.
 */
static int send_with(fixture_t *f, int16_t key, int16_t version, int tag, int32_t topics,
                     gr_peer_response_fn *cb)
{
    assert_true(f->out_count < MAX_OUTCOMES);
    outcome_t *o = &f->out[f->out_count++];
    memset(o, 0, sizeof(*o));
    o->f = f;
    o->key = key;
    char name[TOPIC_NAME_MAX];
    snprintf(name, sizeof name, "%c%d", key == GR_API_API_VERSIONS ? 'c' : 't', tag);
    int rc;
    f->in_send = true;
    if (key == GR_API_API_VERSIONS) {
        gr_api_versions_request_t req;
        gr_api_versions_request_init(&req);
        req.client_software_name = gr_str(name);
        req.client_software_version = gr_str("1.0");
        rc = gr_peer_send(f->peer, key, version, &req, cb, o);
    } else if (key == GR_API_METADATA) {
        gr_metadata_request_t req;
        gr_metadata_request_init(&req);
        gr_metadata_request_metadata_request_topic_t *t = calloc((size_t)topics, sizeof(*t));
        char(*names)[TOPIC_NAME_MAX] = calloc((size_t)topics, TOPIC_NAME_MAX);
        if (topics > 0 && (!t || !names)) {
            rc = -ENOMEM; /* fails the caller's assert on the return code */
        } else {
            for (int32_t i = 0; i < topics; i++) {
                gr_metadata_request_metadata_request_topic_init(&t[i]);
                if (i == 0)
                    snprintf(names[i], TOPIC_NAME_MAX, "%s", name);
                else
                    snprintf(names[i], TOPIC_NAME_MAX, "filler-topic-with-a-long-name-%06d-%060d",
                             i, 0);
                t[i].name = gr_str(names[i]);
            }
            req.topics = t;
            req.topics_count = topics;
            rc = gr_peer_send(f->peer, key, version, &req, cb, o);
        }
        free(t);
        free(names);
    } else {
        gr_update_metadata_request_t req;
        gr_update_metadata_request_init(&req);
        req.controller_id = tag;
        req.controller_epoch = 1;
        req.broker_epoch = 5;
        req.topic_states_count = 0;
        req.live_brokers_count = 0;
        req.ungrouped_partition_states_count = 0;
        rc = gr_peer_send(f->peer, key, version, &req, cb, o);
    }
    f->in_send = false;
    if (rc)
        f->out_count--;
    return rc;
}

static int send_request(fixture_t *f, int16_t key, int16_t version, int tag, int32_t topics)
{
    return send_with(f, key, version, tag, topics, on_response);
}

static bool all_called(const fixture_t *f)
{
    for (size_t i = 0; i < f->out_count; i++)
        if (f->out[i].calls == 0)
            return false;
    return true;
}

static void assert_each_once(const fixture_t *f)
{
    for (size_t i = 0; i < f->out_count; i++)
        assert_int_equal(f->out[i].calls, 1);
}

/* --- tests ---------------------------------------------------------------- */

/* Both header styles, pipelined, answered in order, each with its own response. */
static void test_pipelined_in_order(void **state)
{
    fixture_t *f = *state;
    fake_listen(&f->brokers[0], 0);
    new_peer(f, "127.0.0.1", f->brokers[0].port, TIMEOUT_MS);
    assert_false(gr_peer_connected(f->peer));
    static const struct {
        int16_t key, version;
    } kinds[] = {
        {GR_API_API_VERSIONS, 3}, /* flexible request, v0 response header */
        {GR_API_METADATA, 4},     /* classic headers */
        {GR_API_METADATA, 12},    /* flexible headers */
        {GR_API_UPDATE_METADATA, 8}, {GR_API_UPDATE_METADATA, 5},
    };
    size_t n = 0;
    for (int i = 0; i < 40; i++, n++) {
        size_t k = (size_t)i % (sizeof kinds / sizeof kinds[0]);
        assert_int_equal(send_request(f, kinds[k].key, kinds[k].version, i, 1), 0);
    }
    /* Two requests of several hundred KiB: written in pieces between others. */
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 40, BIG_TOPICS), 0);
    assert_int_equal(send_request(f, GR_API_API_VERSIONS, 3, 41, 0), 0);
    assert_int_equal(send_request(f, GR_API_METADATA, 9, 42, BIG_TOPICS), 0);
    n += 3;
    assert_int_equal(gr_peer_pending(f->peer), n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(f->out[i].calls, 0); /* nothing completes inside send */

    RUN_UNTIL(f, all_called(f));
    assert_each_once(f);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(f->out[i].rc, 0);
        assert_int_equal(f->out[i].tag, (int)i);
        assert_int_equal(f->out[i].order, (int)i + 1);
    }
    assert_int_equal(gr_peer_pending(f->peer), 0);
    assert_int_equal(f->brokers[0].frames, n);
    assert_string_equal(f->brokers[0].client_id, CLIENT_ID);
    assert_true(gr_peer_connected(f->peer));
    assert_int_equal(gr_peer_stats(f->peer)->connections, 1);
    assert_int_equal(gr_peer_stats(f->peer)->responses, n);
    assert_int_equal(gr_peer_node_id(f->peer), NODE_ID);
}

/* GR_PEER_FAIL_UNSENT: a refused connection fails the request; once the broker is up a new one
 * works. */
static void test_refused_then_reconnect(void **state)
{
    fixture_t *f = *state;
    uint16_t port = unused_port();
    new_peer(f, "127.0.0.1", port, TIMEOUT_MS);
    gr_peer_set_unsent(f->peer, GR_PEER_FAIL_UNSENT);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 1, 1), 0);
    assert_int_equal(f->out[0].calls, 0);
    RUN_UNTIL(f, f->out[0].calls == 1);
    assert_int_equal(f->out[0].rc, -ECONNREFUSED);
    assert_int_equal(gr_peer_pending(f->peer), 0);

    fake_listen(&f->brokers[0], port);
    assert_int_equal(send_request(f, GR_API_UPDATE_METADATA, 8, 2, 0), 0);
    RUN_UNTIL(f, f->out[1].calls == 1);
    assert_int_equal(f->out[1].rc, 0);
    assert_int_equal(f->out[1].tag, 2);
    assert_int_equal(log_count(f, "WARN", "cannot connect"), 1);
    assert_int_equal(log_count(f, "INFO", "connected again"), 1);
}

/*
 * Default policy: the request waits through refused attempts (one WARN for
 * the outage, retries quiet) and goes out once the broker listens. "localhost"
 * may resolve to ::1 first, where nothing listens: the next address is tried.
 */
static void test_unsent_waits_for_broker(void **state)
{
    fixture_t *f = *state;
    uint16_t port = unused_port();
    new_peer(f, "localhost", port, TIMEOUT_MS);
    assert_int_equal(send_request(f, GR_API_API_VERSIONS, 3, 5, 0), 0);
    RUN_UNTIL(f, gr_peer_stats(f->peer)->failures >= 3);
    assert_int_equal(f->out[0].calls, 0);
    assert_int_equal(gr_peer_pending(f->peer), 1);
    assert_int_equal(log_count(f, "WARN", "broker 7"), 1);

    fake_listen(&f->brokers[0], port);
    RUN_UNTIL(f, f->out[0].calls == 1);
    assert_int_equal(f->out[0].rc, 0);
    assert_int_equal(f->out[0].tag, 5);
    assert_int_equal(log_count(f, "WARN", "broker 7"), 1);
    assert_int_equal(log_count(f, "INFO", "connected again"), 1);
}

/* The broker closes with requests in flight: each fails with -ECONNRESET; later sends work. */
static void test_closed_mid_request(void **state)
{
    fixture_t *f = *state;
    fake_listen(&f->brokers[0], 0);
    f->brokers[0].mode = FAKE_CLOSE;
    new_peer(f, "127.0.0.1", f->brokers[0].port, TIMEOUT_MS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(send_request(f, GR_API_METADATA, 12, i, 1), 0);
    RUN_UNTIL(f, all_called(f));
    assert_each_once(f);
    for (size_t i = 0; i < f->out_count; i++)
        assert_int_equal(f->out[i].rc, -ECONNRESET);

    f->brokers[0].mode = FAKE_ANSWER;
    assert_int_equal(send_request(f, GR_API_METADATA, 4, 10, 1), 0);
    RUN_UNTIL(f, f->out[3].calls == 1);
    assert_int_equal(f->out[3].rc, 0);
    assert_int_equal(f->out[3].tag, 10);
}

/* The broker dropping an idle connection is no outage: no WARN, and the next request reconnects. */
static void test_idle_close_is_quiet(void **state)
{
    fixture_t *f = *state;
    fake_listen(&f->brokers[0], 0);
    f->brokers[0].mode = FAKE_ANSWER_DRAIN;
    new_peer(f, "127.0.0.1", f->brokers[0].port, TIMEOUT_MS);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 1, 1), 0);
    RUN_UNTIL(f, f->out[0].calls == 1 && !gr_peer_connected(f->peer));
    assert_int_equal(f->out[0].rc, 0);
    f->brokers[0].mode = FAKE_ANSWER;
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 2, 1), 0);
    RUN_UNTIL(f, f->out[1].calls == 1);
    assert_int_equal(f->out[1].rc, 0);
    assert_int_equal(f->out[1].tag, 2);
    assert_int_equal(gr_peer_stats(f->peer)->failures, 0);
    assert_int_equal(gr_peer_stats(f->peer)->connections, 2);
    assert_int_equal(log_count(f, "WARN", NULL), 0);
    assert_int_equal(log_count(f, "idle connection closed", NULL), 1);
}

/* A callback resends after -ECONNRESET (what the controller does). */
static void test_resend_from_callback(void **state)
{
    fixture_t *f = *state;
    fake_listen(&f->brokers[0], 0);
    f->brokers[0].mode = FAKE_CLOSE;
    new_peer(f, "127.0.0.1", f->brokers[0].port, TIMEOUT_MS);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 1, 1), 0);
    f->out[0].resend = true;
    RUN_UNTIL(f, f->out_count == 2 && f->out[1].calls == 1);
    assert_int_equal(f->out[0].rc, -ECONNRESET);
    assert_int_equal(f->out[1].rc, 0);
    assert_int_equal(f->out[1].tag, 900);
}

/* No response within the timeout: -ETIMEDOUT, the connection is dropped, then recovers. */
static void test_request_timeout(void **state)
{
    fixture_t *f = *state;
    fake_listen(&f->brokers[0], 0);
    f->brokers[0].mode = FAKE_HOLD;
    new_peer(f, "127.0.0.1", f->brokers[0].port, SHORT_TIMEOUT);
    assert_int_equal(send_request(f, GR_API_UPDATE_METADATA, 8, 0, 0), 0);
    RUN_UNTIL(f, all_called(f));
    assert_int_equal(f->out[0].rc, -ETIMEDOUT);

    assert_int_equal(send_request(f, GR_API_UPDATE_METADATA, 8, 1, 0), 0);
    assert_int_equal(send_request(f, GR_API_UPDATE_METADATA, 8, 2, 0), 0);
    RUN_UNTIL(f, all_called(f));
    assert_each_once(f);
    assert_int_equal(f->out[1].rc, -ETIMEDOUT);
    assert_int_equal(f->out[2].rc, -ECONNRESET);
    assert_int_equal(log_count(f, "WARN", "no UpdateMetadata v8 response within 1000 ms"), 2);
    /* The fake broker sees the connections go and cancels what it held. */
    RUN_UNTIL(f, f->brokers[0].cancelled == 3);

    f->brokers[0].mode = FAKE_ANSWER;
    assert_int_equal(send_request(f, GR_API_UPDATE_METADATA, 8, 3, 0), 0);
    RUN_UNTIL(f, f->out[3].calls == 1);
    assert_int_equal(f->out[3].rc, 0);
    assert_int_equal(f->out[3].tag, 3);
}

/*
 * A connect that never completes times out too. The listener's backlog is
 * filled so the kernel drops our SYN; should the kernel accept it anyway,
 * nobody answers and the request times out instead: -ETIMEDOUT either way.
 */
static void test_connect_timeout(void **state)
{
    fixture_t *f = *state;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lfd, 0), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &len), 0);
    int fillers[4];
    for (int i = 0; i < 4; i++) {
        fillers[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        (void)connect(fillers[i], (struct sockaddr *)&a, sizeof a);
    }
    new_peer(f, "127.0.0.1", ntohs(a.sin_port), SHORT_TIMEOUT);
    gr_peer_set_unsent(f->peer, GR_PEER_FAIL_UNSENT);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 1, 1), 0);
    RUN_UNTIL(f, f->out[0].calls == 1);
    assert_int_equal(f->out[0].rc, -ETIMEDOUT);
    for (int i = 0; i < 4; i++)
        close(fillers[i]);
    close(lfd);
}

/*
 * A broker that stops reading: the request never gets fully written, and
 * still times out (its clock starts with its first byte). The listener is
 * never accepted from and has a tiny receive buffer.
 */
static void test_stalled_write_times_out(void **state)
{
    fixture_t *f = *state;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 4096;
    assert_int_equal(setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lfd, 8), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &len), 0);
    new_peer(f, "127.0.0.1", ntohs(a.sin_port), SHORT_TIMEOUT);
    gr_peer_set_unsent(f->peer, GR_PEER_FAIL_UNSENT);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 1, BIG_TOPICS), 0);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 2, 1), 0);
    RUN_UNTIL(f, all_called(f));
    assert_true(gr_peer_connected(f->peer) == false);
    assert_int_equal(gr_peer_stats(f->peer)->connections, 1);
    assert_int_equal(f->out[0].rc, -ETIMEDOUT);
    assert_int_equal(f->out[1].rc, -ECONNRESET);
    close(lfd);
}

/* Freeing with requests in flight and queued: all get -ECANCELED, in order, before free returns. */
static void test_free_with_pending(void **state)
{
    fixture_t *f = *state;
    fake_listen(&f->brokers[0], 0);
    f->brokers[0].mode = FAKE_HOLD;
    new_peer(f, "127.0.0.1", f->brokers[0].port, TIMEOUT_MS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(send_request(f, GR_API_METADATA, 12, i, 1), 0);
    RUN_UNTIL(f, f->brokers[0].frames == 3);
    for (int i = 3; i < 5; i++) /* still queued: the loop has not run since */
        assert_int_equal(send_request(f, GR_API_API_VERSIONS, 3, i, 0), 0);
    assert_int_equal(gr_peer_pending(f->peer), 5);
    gr_peer_free(f->peer);
    f->peer = NULL;
    assert_each_once(f);
    for (size_t i = 0; i < f->out_count; i++) {
        assert_int_equal(f->out[i].rc, -ECANCELED);
        assert_int_equal(f->out[i].order, (int)i + 1);
    }
    RUN_UNTIL(f, f->brokers[0].cancelled == 3);
}

/* A callback frees its own peer: the rest are cancelled, nothing is touched after. */
static void test_free_from_callback(void **state)
{
    fixture_t *f = *state;
    fake_listen(&f->brokers[0], 0);
    new_peer(f, "127.0.0.1", f->brokers[0].port, TIMEOUT_MS);
    assert_int_equal(send_with(f, GR_API_METADATA, 12, 0, 1, on_response_free_peer), 0);
    for (int i = 1; i < 4; i++)
        assert_int_equal(send_request(f, GR_API_METADATA, 12, i, 1), 0);
    RUN_UNTIL(f, all_called(f));
    assert_null(f->peer);
    assert_each_once(f);
    assert_int_equal(f->out[0].rc, 0);
    for (size_t i = 1; i < f->out_count; i++)
        assert_int_equal(f->out[i].rc, -ECANCELED);
}

/* Misbehaving brokers: the request fails with -EBADMSG, no crash, and the next connection works. */
static void check_bad_response(fixture_t *f, fake_mode_t mode, int first_rc)
{
    fake_broker_t *fb = &f->brokers[0];
    if (!fb->listening)
        fake_listen(fb, 0);
    if (!f->peer)
        new_peer(f, "127.0.0.1", fb->port, TIMEOUT_MS);
    size_t base = f->out_count;
    uint64_t failures = gr_peer_stats(f->peer)->failures;
    fb->mode = mode;
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 1, 1), 0);
    RUN_UNTIL(f, f->out[base].calls == 1 && gr_peer_stats(f->peer)->failures > failures);
    assert_int_equal(f->out[base].rc, first_rc);
    fb->mode = FAKE_ANSWER;
    assert_int_equal(send_request(f, GR_API_UPDATE_METADATA, 8, 2, 0), 0);
    RUN_UNTIL(f, f->out[base + 1].calls == 1);
    assert_int_equal(f->out[base + 1].rc, 0);
    assert_int_equal(f->out[base + 1].tag, 2);
}

static void test_bad_responses(void **state)
{
    fixture_t *f = *state;
    check_bad_response(f, FAKE_TRUNCATED, -EBADMSG);
    check_bad_response(f, FAKE_OVERSIZED, -EBADMSG);
    check_bad_response(f, FAKE_NEGATIVE_SIZE, -EBADMSG);
    check_bad_response(f, FAKE_WRONG_CORRELATION, -EBADMSG);
    /* The answer itself is fine; the unrequested one after it drops the connection. */
    check_bad_response(f, FAKE_EXTRA, 0);
    assert_int_equal(log_count(f, "WARN", "malformed Metadata v12 response"), 1);
    assert_int_equal(log_count(f, "WARN", "response size"), 2);
    assert_int_equal(log_count(f, "WARN", "Metadata v12 response with correlation id"), 1);
    assert_int_equal(log_count(f, "WARN", "response with no request in flight"), 1);
}

/* A new address: in-flight requests are cancelled, queued ones go to the new broker. */
static void test_set_address(void **state)
{
    fixture_t *f = *state;
    fake_listen(&f->brokers[0], 0);
    fake_listen(&f->brokers[1], 0);
    f->brokers[0].mode = FAKE_HOLD;
    new_peer(f, "127.0.0.1", f->brokers[0].port, TIMEOUT_MS);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 0, 1), 0);
    RUN_UNTIL(f, f->brokers[0].frames == 1);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 1, 1), 0); /* queued */
    assert_int_equal(gr_peer_set_address(f->peer, "127.0.0.1", f->brokers[1].port), 0);
    assert_int_equal(f->out[0].calls, 1);
    assert_int_equal(f->out[0].rc, -ECANCELED);
    RUN_UNTIL(f, f->out[1].calls == 1);
    assert_int_equal(f->out[1].rc, 0);
    assert_int_equal(f->out[1].tag, 1);
    assert_int_equal(f->brokers[1].frames, 1);
    assert_int_equal(f->brokers[0].frames, 1);
    /* The same address again changes nothing. */
    assert_int_equal(gr_peer_set_address(f->peer, "127.0.0.1", f->brokers[1].port), 0);
    assert_true(gr_peer_connected(f->peer));
}

/* Host names go to the resolver's thread; the answer comes back on the loop. */
static void test_resolver(void **state)
{
    fixture_t *f = *state;
    gr_worker_t resolver;
    assert_int_equal(gr_worker_init(&resolver, f->loop, 1, NULL), 0);
    fake_listen(&f->brokers[0], 0);
    new_peer(f, "localhost", f->brokers[0].port, TIMEOUT_MS);
    gr_peer_set_resolver(f->peer, &resolver);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 3, 1), 0);
    RUN_UNTIL(f, f->out[0].calls == 1);
    assert_int_equal(f->out[0].rc, 0);
    assert_int_equal(f->out[0].tag, 3);
    assert_int_equal(gr_peer_stats(f->peer)->lookups, 1);

    /* Freed while a lookup may be under way: its late completion is dropped. */
    gr_peer_set_address(f->peer, "localhost", unused_port());
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 4, 1), 0);
    RUN_UNTIL(f, gr_peer_stats(f->peer)->lookups == 2);
    gr_peer_free(f->peer);
    f->peer = NULL;
    assert_int_equal(f->out[1].rc, -ECANCELED);

    /* A name that does not resolve fails the attempt (how depends on the DNS at hand). */
    new_peer(f, "no-such-host.invalid", 9092, SHORT_TIMEOUT * 10);
    gr_peer_set_resolver(f->peer, &resolver);
    gr_peer_set_unsent(f->peer, GR_PEER_FAIL_UNSENT);
    assert_int_equal(send_request(f, GR_API_METADATA, 12, 5, 1), 0);
    RUN_UNTIL(f, f->out[2].calls == 1);
    assert_true(f->out[2].rc == -ENOENT || f->out[2].rc == -EAGAIN || f->out[2].rc == -ETIMEDOUT);
    gr_peer_free(f->peer);
    f->peer = NULL;
    gr_worker_fini(&resolver);
}

/* A broker on a loop of its own, so that only the peer is left on the test's loop. */
typedef struct remote_broker {
    struct ev_loop *loop;
    fake_broker_t fb;
    ev_async stop;
    pthread_t thread;
} remote_broker_t;

static void remote_stop_cb(struct ev_loop *loop, ev_async *w, int revents)
{
    (void)revents;
    remote_broker_t *rb = w->data;
    gr_server_fini(&rb->fb.srv);
    ev_async_stop(loop, w);
}

static void *remote_main(void *arg)
{
    remote_broker_t *rb = arg;
    ev_run(rb->loop, 0);
    return NULL;
}

/* An idle connection does not keep ev_run going; a pending request does. */
static void test_idle_connection_lets_loop_end(void **state)
{
    fixture_t *f = *state;
    remote_broker_t rb = {.loop = ev_loop_new(EVFLAG_AUTO)};
    gr_server_config_t cfg = {0};
    cfg.conn.on_frame = fake_on_frame;
    cfg.conn.opaque = &rb.fb;
    assert_int_equal(gr_server_init(&rb.fb.srv, rb.loop, &cfg), 0);
    assert_int_equal(gr_server_listen(&rb.fb.srv, "127.0.0.1", 0, &rb.fb.port), 0);
    ev_async_init(&rb.stop, remote_stop_cb);
    rb.stop.data = &rb;
    ev_async_start(rb.loop, &rb.stop);
    assert_int_equal(pthread_create(&rb.thread, NULL, remote_main, &rb), 0);

    new_peer(f, "127.0.0.1", rb.fb.port, TIMEOUT_MS);
    assert_int_equal(send_request(f, GR_API_API_VERSIONS, 3, 1, 0), 0);
    ev_timer_stop(f->loop, &f->tick);
    ev_run(f->loop, 0); /* returns once the response is in and nothing is pending */
    assert_int_equal(f->out[0].calls, 1);
    assert_int_equal(f->out[0].rc, 0);
    assert_true(gr_peer_connected(f->peer));
    assert_int_equal(send_request(f, GR_API_API_VERSIONS, 3, 2, 0), 0);
    ev_run(f->loop, 0);
    assert_int_equal(f->out[1].calls, 1);
    assert_int_equal(f->out[1].tag, 2);
    assert_int_equal(gr_peer_stats(f->peer)->connections, 1);

    ev_async_send(rb.loop, &rb.stop);
    assert_int_equal(pthread_join(rb.thread, NULL), 0);
    ev_loop_destroy(rb.loop);
}

/* What the real broker answered, checked after the loop ran. */
typedef struct real_answer {
    int calls;
    int rc;
    int16_t error_code;
    int32_t count;       /* ApiVersions: APIs listed; Metadata: brokers */
    int32_t port;        /* Metadata: the broker's advertised port */
    int16_t topic_error; /* Metadata: the one topic asked for */
    bool topic_named;    /* Metadata: the topic came back under its name */
} real_answer_t;

static void on_real_api_versions(void *opaque, int rc, const void *response)
{
    real_answer_t *a = opaque;
    a->calls++;
    a->rc = rc;
    if (rc == 0) {
        const gr_api_versions_response_t *r = response;
        a->error_code = r->error_code;
        a->count = r->api_keys_count;
    }
}

static void on_real_metadata(void *opaque, int rc, const void *response)
{
    real_answer_t *a = opaque;
    a->calls++;
    a->rc = rc;
    if (rc == 0) {
        const gr_metadata_response_t *r = response;
        a->count = r->brokers_count;
        a->port = r->brokers_count > 0 ? r->brokers[0].port : -1;
        a->topic_error = r->topics_count == 1 ? r->topics[0].error_code : -1;
        a->topic_named = r->topics_count == 1 && gr_str_eq_c(r->topics[0].name, "peer-topic");
    }
}

/* The real broker's dispatch and handlers, on the same loop: both header styles decode. */
static void test_real_broker(void **state)
{
    fixture_t *f = *state;
    char dir[] = "/tmp/gr-peer-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char dirs[128];
    snprintf(dirs, sizeof dirs, "log.dirs=%s", dir);
    const char *overrides[] = {dirs, "listeners=PLAINTEXT://127.0.0.1:0",
                               "auto.create.topics.enable=false"};
    gr_config_t config;
    char err[256];
    assert_int_equal(gr_config_load(&config, NULL, overrides, 3, NULL, err, sizeof err), 0);
    gr_broker_t *b = calloc(1, sizeof(*b));
    assert_int_equal(gr_broker_init(b, f->loop, &config), 0);
    b->log.out = f->log_file;
    assert_int_equal(gr_broker_start(b), 0);

    new_peer(f, "127.0.0.1", b->advertised_port, TIMEOUT_MS);
    real_answer_t answers[4] = {{0}};
    gr_api_versions_request_t av;
    gr_api_versions_request_init(&av);
    av.client_software_name = gr_str("gregor-peer");
    av.client_software_version = gr_str("1");
    gr_metadata_request_metadata_request_topic_t topic;
    gr_metadata_request_metadata_request_topic_init(&topic);
    topic.name = gr_str("peer-topic");
    gr_metadata_request_t md;
    gr_metadata_request_init(&md);
    md.topics = &topic;
    md.topics_count = 1;
    assert_int_equal(
        gr_peer_send(f->peer, GR_API_API_VERSIONS, 3, &av, on_real_api_versions, &answers[0]), 0);
    assert_int_equal(
        gr_peer_send(f->peer, GR_API_API_VERSIONS, 0, &av, on_real_api_versions, &answers[1]), 0);
    assert_int_equal(gr_peer_send(f->peer, GR_API_METADATA, 12, &md, on_real_metadata, &answers[2]),
                     0);
    assert_int_equal(gr_peer_send(f->peer, GR_API_METADATA, 4, &md, on_real_metadata, &answers[3]),
                     0);
    RUN_UNTIL(f, answers[0].calls && answers[1].calls && answers[2].calls && answers[3].calls);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(answers[i].calls, 1);
        assert_int_equal(answers[i].rc, 0);
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(answers[i].error_code, 0);
        assert_true(answers[i].count > 10);
    }
    for (int i = 2; i < 4; i++) {
        assert_int_equal(answers[i].count, 1);
        assert_int_equal(answers[i].port, b->advertised_port);
        assert_int_equal(answers[i].topic_error, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
        assert_true(answers[i].topic_named);
    }

    gr_peer_free(f->peer);
    f->peer = NULL;
    (void)gr_broker_fini(b);
    free(b);
    gr_log_dir_remove_tree(NULL, dir);
}

static void test_send_rejects_bad_requests(void **state)
{
    fixture_t *f = *state;
    new_peer(f, "127.0.0.1", unused_port(), TIMEOUT_MS);
    gr_metadata_request_t req;
    gr_metadata_request_init(&req);
    assert_int_equal(gr_peer_send(f->peer, 9999, 0, &req, on_response, NULL), -EINVAL);
    assert_int_equal(gr_peer_send(f->peer, GR_API_METADATA, 99, &req, on_response, NULL), -EINVAL);
    /* Metadata v0 cannot say "all topics" (null array): an encode failure. */
    req.topics = NULL;
    req.topics_null = true;
    assert_int_equal(gr_peer_send(f->peer, GR_API_METADATA, 0, &req, on_response, NULL), -EINVAL);
    assert_int_equal(gr_peer_pending(f->peer), 0);
    assert_null(gr_peer_new(f->loop, 1, "127.0.0.1", 0, CLIENT_ID, TIMEOUT_MS, NULL));
    assert_null(gr_peer_new(f->loop, 1, "127.0.0.1", 9092, CLIENT_ID, 0, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pipelined_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_then_reconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsent_waits_for_broker, setup, teardown),
        cmocka_unit_test_setup_teardown(test_closed_mid_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idle_close_is_quiet, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resend_from_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_request_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connect_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stalled_write_times_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_with_pending, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_from_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_responses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolver, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idle_connection_lets_loop_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_real_broker, setup, teardown),
        cmocka_unit_test_setup_teardown(test_send_rejects_bad_requests, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
