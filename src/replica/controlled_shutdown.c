/* SPDX-License-Identifier: Apache-2.0 */
/* Asking the controller to move leadership off this broker; see controlled_shutdown.h. */
#include "replica/controlled_shutdown.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/context.h"
#include "gen/controlled_shutdown.h"
#include "metadata/cluster_view.h"
#include "net/peer.h"
#include "protocol/kerr.h"

#define CONTROLLED_SHUTDOWN_VERSION 3
#define MS_PER_SEC                  1000.0
#define UNKNOWN_BROKER_EPOCH        (-1)

struct gr_controlled_shutdown {
    gr_broker_t *b;
    gr_controlled_shutdown_done_fn *done;
    gr_peer_t *peer; /* to the controller, NULL until needed */
    int32_t peer_id;
    int32_t attempts_left;
    uint64_t attempt; /* answers to older attempts are ignored */
    ev_timer retry;
};

static void attempt(gr_controlled_shutdown_t *cs);

static void finish(gr_controlled_shutdown_t *cs, bool moved)
{
    gr_broker_t *b = cs->b;
    if (ev_is_active(&cs->retry))
        ev_timer_stop(b->loop, &cs->retry);
    if (moved)
        gr_logf(&b->log, GR_LOG_INFO, "broker", "controlled shutdown: leadership moved");
    else
        gr_logf(&b->log, GR_LOG_WARN, "broker",
                "controlled shutdown: partitions still led here after %d attempt(s); stopping "
                "anyway",
                b->config.controlled_shutdown_max_retries);
    gr_controlled_shutdown_done_fn *done = cs->done;
    cs->done = NULL;
    if (done)
        done(b);
}

/* One attempt ended: stop if nothing is left here, else try again later (or give up). */
static void attempt_ended(gr_controlled_shutdown_t *cs, int16_t err, int32_t remaining)
{
    if (!cs->done)
        return;
    if (err == GR_KERR_NONE && remaining == 0)
        return finish(cs, true);
    if (err)
        gr_logf(&cs->b->log, GR_LOG_INFO, "broker", "controlled shutdown attempt failed: %s",
                gr_kerr_name(err));
    else
        gr_logf(&cs->b->log, GR_LOG_INFO, "broker",
                "controlled shutdown attempt: %d partition(s) still led here", remaining);
    if (--cs->attempts_left <= 0)
        return finish(cs, false);
    ev_timer_set(&cs->retry,
                 (double)cs->b->config.controlled_shutdown_retry_backoff_ms / MS_PER_SEC, 0.);
    ev_timer_start(cs->b->loop, &cs->retry);
}

typedef struct attempt_ticket {
    gr_controlled_shutdown_t *cs;
    uint64_t attempt;
} attempt_ticket_t;

static attempt_ticket_t *ticket_new(gr_controlled_shutdown_t *cs)
{
    attempt_ticket_t *t = malloc(sizeof *t);
    if (t)
        *t = (attempt_ticket_t){cs, ++cs->attempt};
    return t;
}

/* The ticket's shutdown, if that attempt is still the current one (frees the ticket). */
static gr_controlled_shutdown_t *ticket_take(attempt_ticket_t *t)
{
    gr_controlled_shutdown_t *cs = t->cs;
    bool current = t->attempt == cs->attempt;
    free(t);
    return current ? cs : NULL;
}

void gr_controlled_shutdown_answered(void *opaque, int16_t err, int32_t remaining)
{
    gr_controlled_shutdown_t *cs = ticket_take(opaque);
    if (cs)
        attempt_ended(cs, err, remaining);
}

static void on_answer(void *opaque, int rc, const void *response)
{
    gr_controlled_shutdown_t *cs = ticket_take(opaque);
    if (!cs)
        return;
    const gr_controlled_shutdown_response_t *r = response;
    if (rc < 0)
        return attempt_ended(cs, GR_KERR_NETWORK_EXCEPTION, -1);
    attempt_ended(cs, r->error_code, r->remaining_partitions_count);
}

static gr_peer_t *controller_peer(gr_controlled_shutdown_t *cs, const gr_cluster_node_t *node)
{
    gr_broker_t *b = cs->b;
    if (cs->peer && cs->peer_id != node->id) {
        gr_peer_t *old = cs->peer;
        cs->peer = NULL;
        gr_peer_free(old);
    }
    if (!cs->peer) {
        char client_id[64];
        snprintf(client_id, sizeof client_id, "gregor-shutdown-%d", b->config.broker_id);
        cs->peer = gr_peer_new_to_broker(b, node->id, node->host, node->port, client_id,
                                         b->config.replica_socket_timeout_ms);
        /* A controller that is gone fails the attempt now: the next asks the new one. */
        if (cs->peer)
            gr_peer_set_unsent(cs->peer, GR_PEER_FAIL_UNSENT);
        cs->peer_id = node->id;
    }
    return cs->peer;
}

static int send_to(gr_controlled_shutdown_t *cs, int32_t controller)
{
    gr_broker_t *b = cs->b;
    attempt_ticket_t *t = ticket_new(cs);
    if (!t)
        return -ENOMEM;
    int rc;
    /* The answer, now or later, comes through gr_controlled_shutdown_answered. */
    if (controller == b->config.broker_id && b->ask_own_controller_shutdown &&
        b->ask_own_controller_shutdown(b, b->config.broker_id, UNKNOWN_BROKER_EPOCH, t))
        return 0;
    const gr_cluster_node_t *node = gr_cluster_view_node(b->cluster, controller);
    gr_peer_t *peer = node ? controller_peer(cs, node) : NULL;
    gr_controlled_shutdown_request_t req;
    gr_controlled_shutdown_request_init(&req);
    req.broker_id = b->config.broker_id;
    req.broker_epoch = UNKNOWN_BROKER_EPOCH;
    rc = peer ? gr_peer_send(peer, GR_API_CONTROLLED_SHUTDOWN, CONTROLLED_SHUTDOWN_VERSION, &req,
                             on_answer, t)
              : -ENOENT;
    if (rc)
        free(t);
    return rc;
}

static void attempt(gr_controlled_shutdown_t *cs)
{
    int32_t controller = cs->b->cluster->controller_id;
    if (controller == GR_NO_BROKER || send_to(cs, controller) != 0)
        attempt_ended(cs, GR_KERR_NOT_CONTROLLER, -1);
}

static void on_retry(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    attempt(t->data);
}

bool gr_controlled_shutdown_wanted(const gr_broker_t *b)
{
    return b->config.zookeeper_connect && b->config.controlled_shutdown_enable &&
           b->config.controlled_shutdown_max_retries > 0;
}

int gr_controlled_shutdown_start(gr_broker_t *b, gr_controlled_shutdown_done_fn *done)
{
    if (b->controlled_shutdown)
        return -EALREADY;
    gr_controlled_shutdown_t *cs = calloc(1, sizeof *cs);
    if (!cs)
        return -ENOMEM;
    cs->b = b;
    cs->done = done;
    cs->attempts_left = b->config.controlled_shutdown_max_retries;
    ev_timer_init(&cs->retry, on_retry, 0., 0.);
    cs->retry.data = cs;
    b->controlled_shutdown = cs;
    gr_logf(&b->log, GR_LOG_INFO, "broker", "controlled shutdown: asking the controller (%d)",
            b->cluster->controller_id);
    attempt(cs);
    return 0;
}

bool gr_controlled_shutdown_running(const gr_broker_t *b)
{
    return b->controlled_shutdown && b->controlled_shutdown->done;
}

void gr_controlled_shutdown_cancel(gr_broker_t *b)
{
    gr_controlled_shutdown_t *cs = b->controlled_shutdown;
    if (!cs)
        return;
    cs->done = NULL;
    cs->attempt++; /* answers still to come are dropped */
    if (ev_is_active(&cs->retry))
        ev_timer_stop(b->loop, &cs->retry);
}

void gr_controlled_shutdown_fini(gr_broker_t *b)
{
    gr_controlled_shutdown_t *cs = b->controlled_shutdown;
    if (!cs)
        return;
    gr_controlled_shutdown_cancel(b);
    if (cs->peer)
        gr_peer_free(cs->peer); /* its callbacks run now, with -ECANCELED */
    b->controlled_shutdown = NULL;
    free(cs);
}
