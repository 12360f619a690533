/* SPDX-License-Identifier: Apache-2.0 */
/* The fake peer (fake_peer.h): records the controller's requests, answers on demand. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_peer.h"

#include "gen/codec_registry.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

/* A copy of request through the codec, in fp's arena; NULL on failure. */
static void *copy_request(gr_fake_peer_t *fp, const gr_api_desc_t *api, int16_t version,
                          const void *request)
{
    gr_writer_t w;
    gr_writer_init(&w);
    void *copy = NULL;
    if (api->request->encode(&w, version, request) == 0 && !w.err) {
        uint8_t *bytes = gr_arena_alloc(&fp->arena, w.len);
        copy = gr_arena_alloc(&fp->arena, api->request->struct_size);
        gr_reader_t r;
        if (bytes && copy) {
            memcpy(bytes, w.buf, w.len);
            gr_reader_init(&r, bytes, w.len);
            if (api->request->decode(&r, version, &fp->arena, copy) != 0)
                copy = NULL;
        }
    }
    gr_writer_fini(&w);
    return copy;
}

static void answer_one(gr_fake_request_t *r, int rc)
{
    const gr_api_desc_t *api = gr_api_find(r->api_key);
    void *response = NULL;
    if (rc == 0) {
        response = calloc(1, api->response->struct_size);
        if (!response)
            rc = -ENOMEM;
        else
            api->response->init(response);
    }
    r->waiting = false;
    r->cb(r->cb_opaque, rc, response);
    free(response);
}

void gr_fake_peer_answer(gr_fake_peer_t *fp, int rc)
{
    /* Answers may send more (resends): only those waiting now. */
    size_t n = fp->count;
    for (size_t i = 0; i < n; i++)
        if (fp->requests[i]->waiting)
            answer_one(fp->requests[i], rc);
}

static void on_answer_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop, (void)revents;
    gr_fake_peer_answer(t->data, 0);
}

static int tap(void *opaque, int32_t broker_id, int16_t api_key, int16_t version,
               const void *request, gr_fake_peer_cb_fn *cb, void *cb_opaque)
{
    gr_fake_peer_t *fp = opaque;
    const gr_api_desc_t *api = gr_api_find(api_key);
    if (!api)
        return -EPROTONOSUPPORT;
    if (fp->count == fp->cap) {
        size_t cap = fp->cap ? fp->cap * 2 : 16;
        gr_fake_request_t **grown = realloc(fp->requests, cap * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        fp->requests = grown;
        fp->cap = cap;
    }
    gr_fake_request_t *r = gr_arena_alloc(&fp->arena, sizeof *r);
    void *copy = r ? copy_request(fp, api, version, request) : NULL;
    if (!copy)
        return -ENOMEM;
    *r = (gr_fake_request_t){.broker_id = broker_id,
                             .api_key = api_key,
                             .version = version,
                             .request = copy,
                             .cb = cb,
                             .cb_opaque = cb_opaque};
    fp->requests[fp->count++] = r;
    if (broker_id == fp->pass_broker)
        return GR_CONTROLLER_TAP_PASS;
    r->waiting = true;
    if (fp->auto_answer && !ev_is_active(&fp->answer_timer))
        ev_timer_start(fp->loop, &fp->answer_timer);
    return 0;
}

void gr_fake_peer_install(gr_fake_peer_t *fp, gr_controller_t *c, struct ev_loop *loop,
                          int32_t pass_broker, bool auto_answer)
{
    memset(fp, 0, sizeof *fp);
    fp->c = c;
    fp->loop = loop;
    fp->pass_broker = pass_broker;
    fp->auto_answer = auto_answer;
    gr_arena_init(&fp->arena);
    ev_timer_init(&fp->answer_timer, on_answer_timer, 0., 0.);
    fp->answer_timer.data = fp;
    c->tap = tap;
    c->tap_opaque = fp;
}

void gr_fake_peer_remove(gr_fake_peer_t *fp)
{
    ev_timer_stop(fp->loop, &fp->answer_timer);
    gr_fake_peer_answer(fp, -ECANCELED);
    fp->c->tap = NULL;
    fp->c->tap_opaque = NULL;
    free(fp->requests);
    gr_arena_fini(&fp->arena);
}

static bool matches(const gr_fake_request_t *r, int32_t broker, int16_t api_key)
{
    return r->api_key == api_key && (broker < 0 || r->broker_id == broker);
}

size_t gr_fake_peer_count(const gr_fake_peer_t *fp, int32_t broker, int16_t api_key)
{
    size_t n = 0;
    for (size_t i = 0; i < fp->count; i++)
        n += matches(fp->requests[i], broker, api_key);
    return n;
}

const void *gr_fake_peer_last(const gr_fake_peer_t *fp, int32_t broker, int16_t api_key)
{
    for (size_t i = fp->count; i > 0; i--)
        if (matches(fp->requests[i - 1], broker, api_key))
            return fp->requests[i - 1]->request;
    return NULL;
}
