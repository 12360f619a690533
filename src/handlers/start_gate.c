/* SPDX-License-Identifier: Apache-2.0 */
/* The start gate of a cluster broker: see start_gate.h. Runs on: loop thread. */
#include "handlers/start_gate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "controller/zk_member.h"
#include "core/context.h"
#include "gen/alter_partition.h"
#include "gen/api_versions.h"
#include "gen/controlled_shutdown.h"
#include "gen/leader_and_isr.h"
#include "gen/sasl_authenticate.h"
#include "gen/sasl_handshake.h"
#include "gen/stop_replica.h"
#include "gen/update_metadata.h"
#include "handlers/quota_throttle.h"
#include "metadata/cluster_view.h"

/* Beyond an old registration's lifetime: an election and the controller's requests. */
#define START_GATE_SLACK_SEC 60.0
#define MS_PER_SEC           1000.0

typedef struct parked parked_t;

struct parked {
    parked_t *prev;
    parked_t *next;
    gr_start_gate_t *gate;
    gr_request_t *req;
    gr_handler_fn handle;
};

/* Exists while CLOSED: opening frees it, so an open gate costs requests nothing. */
struct gr_start_gate {
    gr_broker_t *b;
    gr_zk_member_state_t logged; /* the last state announced */
    ev_prepare check;            /* while CLOSED: looks at membership each iteration */
    ev_timer deadline;
    ev_tstamp created;
    parked_t *head; /* oldest first */
    parked_t *tail;
    uint64_t held; /* requests parked in all */
};

/* Requests that reach a broker, or make it ready, before it serves clients. */
static bool served_at_once(int16_t api_key)
{
    switch (api_key) {
    case GR_API_API_VERSIONS:
    case GR_API_SASL_HANDSHAKE:
    case GR_API_SASL_AUTHENTICATE:
    case GR_API_LEADER_AND_ISR:
    case GR_API_UPDATE_METADATA:
    case GR_API_STOP_REPLICA:
    case GR_API_CONTROLLED_SHUTDOWN:
    case GR_API_ALTER_PARTITION:
        return true;
    default:
        return false;
    }
}

static void unlink_parked(parked_t *p)
{
    gr_start_gate_t *g = p->gate;
    if (p->prev)
        p->prev->next = p->next;
    else
        g->head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        g->tail = p->prev;
    p->prev = p->next = NULL;
}

/* The connection closed: forget its parked request. */
static void on_parked_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    unlink_parked(arg);
}

static void run_parked(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    parked_t *p = arg;
    gr_request_handle_measured(p->gate->b, p->req, p->handle);
}

/* Stops the watchers; they were started unreferenced (see gr_start_gate_new). */
static void stop_watching(gr_start_gate_t *g)
{
    struct ev_loop *loop = g->b->loop;
    if (ev_is_active(&g->check)) {
        ev_ref(loop);
        ev_prepare_stop(loop, &g->check);
    }
    if (ev_is_active(&g->deadline)) {
        ev_ref(loop);
        ev_timer_stop(loop, &g->deadline);
    }
}

/*
 * CLOSED -> OPEN: the parked requests run, oldest first, then the gate is
 * freed and new requests pass. One at a time from the head: running one may
 * close a connection, whose other parked requests then leave the list
 * (on_parked_cancel). A resumed slot may let its connection read further
 * frames (room under queued.max.requests); those are parked behind the ones
 * still waiting, as the gate stays closed until the list is empty, so each
 * connection's requests still run in the order they came.
 */
static void open_gate(gr_start_gate_t *g)
{
    gr_broker_t *b = g->b;
    stop_watching(g);
    while (g->head) {
        parked_t *p = g->head;
        unlink_parked(p);
        gr_resp_slot_resume(p->req->slot, run_parked, p);
    }
    b->start_gate = NULL;
    free(g);
}

static double waited_sec(const gr_start_gate_t *g)
{
    return ev_now(g->b->loop) - g->created;
}

static void on_check(struct ev_loop *loop, ev_prepare *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_start_gate_t *g = w->data;
    gr_broker_t *b = g->b;
    gr_zk_member_state_t state = gr_zk_member_state(b);
    if (state == g->logged)
        return;
    /* Said even when the metadata came in the same turn: the log tells each step. */
    if (g->logged == GR_ZK_MEMBER_UNREGISTERED)
        gr_logf(&b->log, GR_LOG_INFO, "broker",
                "registered: waiting for metadata from controller before serving clients");
    g->logged = state;
    if (state != GR_ZK_MEMBER_INFORMED)
        return;
    gr_logf(&b->log, GR_LOG_INFO, "broker",
            "metadata from controller %d received after %.1f s: serving clients (%" PRIu64
            " request(s) were held)",
            b->cluster->controller_id, waited_sec(g), g->held);
    open_gate(g);
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_start_gate_t *g = w->data;
    bool registered = gr_zk_member_state(g->b) != GR_ZK_MEMBER_UNREGISTERED;
    gr_logf(&g->b->log, GR_LOG_WARN, "broker",
            "still %s after %.0f s: serving clients anyway (%" PRIu64 " request(s) were held)",
            registered ? "waiting for metadata from controller" : "waiting for registration",
            waited_sec(g), g->held);
    open_gate(g);
}

int gr_start_gate_new(gr_broker_t *b)
{
    gr_start_gate_t *g = calloc(1, sizeof *g);
    if (!g)
        return -ENOMEM;
    g->b = b;
    g->logged = GR_ZK_MEMBER_UNREGISTERED;
    g->created = ev_now(b->loop);
    double max_wait = b->config.zookeeper_session_timeout_ms / MS_PER_SEC + START_GATE_SLACK_SEC;
    ev_prepare_init(&g->check, on_check);
    g->check.data = g;
    ev_prepare_start(b->loop, &g->check);
    ev_unref(b->loop); /* the gate alone does not keep the loop running */
    ev_timer_init(&g->deadline, on_deadline, max_wait, 0.);
    g->deadline.data = g;
    ev_timer_start(b->loop, &g->deadline);
    ev_unref(b->loop);
    b->start_gate = g;
    gr_logf(&b->log, GR_LOG_INFO, "broker",
            "holding client requests until registered and told the cluster by the controller "
            "(at most %.0f s)",
            max_wait);
    return 0;
}

bool gr_start_gate_holds(gr_broker_t *b, gr_request_t *req, gr_handler_fn handle)
{
    gr_start_gate_t *g = b->start_gate;
    if (!g || served_at_once(req->api_key))
        return false;
    parked_t *p = gr_request_alloc(req, sizeof *p);
    if (!p) {
        gr_request_fail(req, "out of memory");
        return true;
    }
    *p = (parked_t){.prev = g->tail, .gate = g, .req = req, .handle = handle};
    if (g->tail)
        g->tail->next = p;
    else
        g->head = p;
    g->tail = p;
    g->held++;
    gr_resp_slot_defer(req->slot, on_parked_cancel, p);
    return true;
}

void gr_start_gate_free(gr_broker_t *b)
{
    gr_start_gate_t *g = b->start_gate;
    if (!g)
        return;
    stop_watching(g);
    while (g->head) {
        parked_t *p = g->head;
        unlink_parked(p);
        gr_request_fail(p->req, "broker stopping before it served clients");
    }
    free(g);
    b->start_gate = NULL;
}
