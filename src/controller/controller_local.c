/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller's requests to the broker it runs on, delivered in-process:
 * no socket, the same replica/requests.c code a request from the network
 * takes. Each request is copied through the wire codec (encoded, then
 * decoded into the call's own arena), so it outlives the controller's
 * building arena and carries exactly what the wire would. Calls start in
 * the order sent, from a zero timer, so the controller's callbacks never
 * run inside the send that caused them, as with gr_peer.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen/codec_registry.h"
#include "controller/controller_int.h"
#include "protocol/reader.h"
#include "protocol/writer.h"
#include "replica/requests.h"

struct ctl_local_call {
    gr_controller_t *c;
    gr_replica_call_t call;
    gr_arena_t arena;
    gr_peer_response_fn *cb;
    void *opaque;
    bool started;
    ctl_local_call_t *next;
};

static void unlink_call(gr_controller_t *c, ctl_local_call_t *lc)
{
    for (ctl_local_call_t **pp = &c->local_calls; *pp; pp = &(*pp)->next) {
        if (*pp == lc) {
            *pp = lc->next;
            return;
        }
    }
}

static void free_call(ctl_local_call_t *lc)
{
    gr_arena_fini(&lc->arena);
    free(lc);
}

static void on_applied(gr_replica_call_t *call, int rc, const void *response)
{
    ctl_local_call_t *lc = call->opaque;
    unlink_call(lc->c, lc);
    lc->cb(lc->opaque, rc, response);
    free_call(lc);
}

static void on_start(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    gr_controller_t *c = t->data;
    /* From the head again after each start: a call may end, and others join, inside it. */
    for (;;) {
        ctl_local_call_t *next = c->local_calls;
        while (next && next->started)
            next = next->next;
        if (!next)
            return;
        next->started = true;
        gr_replica_call_start(&next->call);
    }
}

/* Copies request into lc's arena through the codec; 0 or -errno. */
static int copy_request(ctl_local_call_t *lc, const gr_api_desc_t *api, int16_t version,
                        const void *request)
{
    gr_writer_t w;
    gr_writer_init(&w);
    int rc = api->request->encode(&w, version, request);
    if (rc == 0 && w.err)
        rc = w.err;
    /* Decoded strings point into the bytes: they live in the arena too. */
    void *copy = rc == 0 ? gr_arena_alloc(&lc->arena, api->request->struct_size) : NULL;
    uint8_t *bytes = rc == 0 ? gr_arena_alloc(&lc->arena, w.len) : NULL;
    if (rc == 0 && (!copy || !bytes))
        rc = -ENOMEM;
    if (rc == 0) {
        memcpy(bytes, w.buf, w.len);
        gr_reader_t r;
        gr_reader_init(&r, bytes, w.len);
        rc = api->request->decode(&r, version, &lc->arena, copy);
    }
    gr_writer_fini(&w);
    lc->call.request = copy;
    return rc;
}

int ctl_local_send(gr_controller_t *c, int16_t api_key, int16_t version, const void *request,
                   gr_peer_response_fn *cb, void *opaque)
{
    const gr_api_desc_t *api = gr_api_find(api_key);
    if (!api || !gr_replica_call_handles(api_key))
        return -EPROTONOSUPPORT;
    ctl_local_call_t *lc = calloc(1, sizeof *lc);
    if (!lc)
        return -ENOMEM;
    gr_arena_init(&lc->arena);
    int rc = copy_request(lc, api, version, request);
    if (rc) {
        free_call(lc);
        return rc;
    }
    lc->c = c;
    lc->cb = cb;
    lc->opaque = opaque;
    lc->call.b = c->b;
    lc->call.api_key = api_key;
    lc->call.version = version;
    lc->call.arena = &lc->arena;
    lc->call.done = on_applied;
    lc->call.opaque = lc;
    ctl_local_call_t **tail = &c->local_calls;
    while (*tail)
        tail = &(*tail)->next;
    *tail = lc; /* oldest first: they start in the order sent */
    if (!ev_is_active(&c->local_start)) {
        ev_timer_init(&c->local_start, on_start, 0., 0.);
        c->local_start.data = c;
        ev_timer_start(c->b->loop, &c->local_start);
    }
    return 0;
}

void ctl_local_drop(gr_controller_t *c)
{
    ev_timer_stop(c->b->loop, &c->local_start);
    while (c->local_calls) {
        ctl_local_call_t *lc = c->local_calls;
        c->local_calls = lc->next;
        if (lc->started)
            gr_replica_call_cancel(&lc->call);
        lc->cb(lc->opaque, -ECANCELED, NULL);
        free_call(lc);
    }
}
