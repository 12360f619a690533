/* SPDX-License-Identifier: Apache-2.0 */
/* The unit tests' Kafka client connection (wire_client.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop_wait.h"
#include "wire_client.h"

#include "gen/codec_registry.h"
#include "gen/headers.h"
#include "protocol/frame.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

void gr_wire_open(gr_wire_client_t *c, struct ev_loop *loop, int32_t port)
{
    memset(c, 0, sizeof *c);
    c->loop = loop;
    gr_arena_init(&c->arena);
    c->sock = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(c->sock >= 0);
    struct sockaddr_in addr = {.sin_family = AF_INET,
                               .sin_port = htons((uint16_t)port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    /* The listener's backlog completes the handshake without the loop. */
    assert_int_equal(connect(c->sock, (struct sockaddr *)&addr, sizeof addr), 0);
}

void gr_wire_close(gr_wire_client_t *c)
{
    close(c->sock);
    gr_arena_fini(&c->arena);
}

static void on_readable(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    ev_io_stop(loop, w);
    *(bool *)w->data = true;
}

/* Reads exactly n bytes, running the loop while none are there. -1 on EOF or the deadline. */
static int read_exactly(gr_wire_client_t *c, uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t got = recv(c->sock, p, n, MSG_DONTWAIT);
        if (got > 0) {
            p += got;
            n -= (size_t)got;
            continue;
        }
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            return -1;
        bool readable = false;
        ev_io io;
        ev_io_init(&io, on_readable, c->sock, EV_READ);
        io.data = &readable;
        ev_io_start(c->loop, &io);
        bool came =
            gr_test_run_until(c->loop, gr_test_flag_is_set, &readable, GR_TEST_WAIT_DEADLINE_S);
        ev_io_stop(c->loop, &io);
        if (!came)
            return -1;
    }
    return 0;
}

/* Sends the frame, reads the response frame into the arena; NULL on close. */
static const uint8_t *exchange(gr_wire_client_t *c, const gr_writer_t *w, size_t *len_out)
{
    assert_int_equal(send(c->sock, w->buf, w->len, 0), (ssize_t)w->len);
    uint8_t size_buf[4];
    if (read_exactly(c, size_buf, 4) < 0)
        return NULL;
    uint32_t size =
        (uint32_t)size_buf[0] << 24 | size_buf[1] << 16 | size_buf[2] << 8 | size_buf[3];
    uint8_t *buf = gr_arena_alloc(&c->arena, size ? size : 1);
    assert_non_null(buf);
    if (read_exactly(c, buf, size) < 0)
        return NULL;
    *len_out = size;
    return buf;
}

int gr_wire_call(gr_wire_client_t *c, int16_t key, int16_t v, const void *msg, void *resp)
{
    const gr_api_desc_t *api = gr_api_find(key);
    assert_non_null(api);
    gr_writer_t w;
    gr_writer_init(&w);
    assert_int_equal(
        gr_frame_encode_request(&w, api, v, ++c->correlation_id, gr_str("wire-test"), msg), 0);
    size_t len = 0;
    const uint8_t *frame = exchange(c, &w, &len);
    gr_writer_fini(&w);
    if (!frame)
        return -1;
    assert_int_equal(
        gr_frame_decode_response(frame, len, api, v, c->correlation_id, &c->arena, resp), 0);
    return 0;
}

const uint8_t *gr_wire_call_raw(gr_wire_client_t *c, int16_t key, int16_t v, const uint8_t *body,
                                size_t len, size_t *len_out)
{
    const gr_api_desc_t *api = gr_api_find(key);
    int16_t header_version = api ? gr_frame_request_header_version(api, v) : 1;
    gr_writer_t w;
    gr_writer_init(&w);
    size_t size_pos = gr_write_reserve(&w, 4);
    gr_request_header_t h;
    gr_request_header_init(&h);
    h.request_api_key = key;
    h.request_api_version = v;
    h.correlation_id = ++c->correlation_id;
    h.client_id = gr_str("wire-test");
    assert_int_equal(gr_request_header_encode(&w, header_version, &h), 0);
    gr_write_raw(&w, body, len);
    gr_writer_put_int32(&w, size_pos, (int32_t)(w.len - 4));
    assert_false(w.err);
    size_t got = 0;
    const uint8_t *frame = exchange(c, &w, &got);
    gr_writer_fini(&w);
    if (!frame)
        return NULL;
    /* The response header: correlation id, then tagged fields when flexible (v1). */
    gr_reader_t r;
    gr_reader_init(&r, frame, got);
    gr_response_header_t rh;
    int16_t rhv = api ? gr_frame_response_header_version(api, v) : 0;
    assert_int_equal(gr_response_header_decode(&r, rhv, &c->arena, &rh), 0);
    assert_int_equal(rh.correlation_id, c->correlation_id);
    *len_out = (size_t)(r.end - r.p);
    return r.p;
}
