/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller's requests to brokers: LeaderAndIsr, UpdateMetadata and
 * StopReplica, built from its state and sent through each broker's peer
 * connection. A request that fails (connection lost, timeout) makes the
 * controller resend that broker everything shortly after (needs_full).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "gen/common.h"
#include "gen/leader_and_isr.h"
#include "net/peer.h"
#include "gen/stop_replica.h"
#include "gen/update_metadata.h"

#define LEADER_AND_ISR_VERSION        7
#define UPDATE_METADATA_VERSION       8
#define STOP_REPLICA_VERSION          4
#define LEADER_EPOCH_DURING_DELETE    (-2)
#define CONTROLLER_REQUEST_TIMEOUT_MS 30000

void ctl_broker_drop_peer(gr_ctl_broker_t *br)
{
    if (br->peer) {
        gr_peer_t *p = br->peer;
        br->peer = NULL;
        gr_peer_free(p);
    }
}

static gr_peer_t *broker_peer(gr_controller_t *c, gr_ctl_broker_t *br)
{
    if (!br->peer) {
        char client_id[64];
        snprintf(client_id, sizeof client_id, "gregor-controller-%d", c->b->config.broker_id);
        br->peer = gr_peer_new_to_broker(c->b, br->node.id, br->node.host, br->node.port, client_id,
                                         CONTROLLER_REQUEST_TIMEOUT_MS);
    }
    return br->peer;
}

static bool is_replica(const gr_ctl_partition_t *p, int32_t id)
{
    for (int32_t i = 0; i < p->replica_count; i++)
        if (p->replicas[i] == id)
            return true;
    return false;
}

static gr_str_t str_of(const char *s)
{
    return (gr_str_t){s, (int32_t)strlen(s)};
}

/* A send failed or was refused: tell the broker everything again soon. */
static void on_sent(void *opaque, int rc, const void *response, const char *what)
{
    ctl_op_t *op = opaque;
    (void)response;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    gr_ctl_broker_t *br = ctl_broker_find(c, op->broker_id);
    if (rc < 0 && br) {
        gr_logf(&c->b->log, GR_LOG_WARN, "controller", "%s to broker %d failed: %s", what,
                op->broker_id, strerror(-rc));
        br->needs_full = true;
        ctl_kick_later(c);
    }
    free(op);
}

static void on_leader_and_isr(void *opaque, int rc, const void *response)
{
    const gr_leader_and_isr_response_t *r = response;
    if (rc == 0 && r->error_code)
        rc = -EPROTO;
    on_sent(opaque, rc, response, "LeaderAndIsr");
}

static void on_update_metadata(void *opaque, int rc, const void *response)
{
    const gr_update_metadata_response_t *r = response;
    if (rc == 0 && r->error_code)
        rc = -EPROTO;
    on_sent(opaque, rc, response, "UpdateMetadata");
}

/* Sends over br's peer connection, or in-process when br is this broker. 0 or -errno. */
static int deliver(gr_controller_t *c, gr_ctl_broker_t *br, int16_t key, int16_t version,
                   const void *req, gr_peer_response_fn *cb, ctl_op_t *op)
{
    if (c->tap) {
        int rc = c->tap(c->tap_opaque, br->node.id, key, version, req, cb, op);
        if (rc != GR_CONTROLLER_TAP_PASS)
            return rc;
    }
    if (br->node.id == c->b->config.broker_id)
        return ctl_local_send(c, key, version, req, cb, op);
    gr_peer_t *peer = broker_peer(c, br);
    return peer ? gr_peer_send(peer, key, version, req, cb, op) : -ENOMEM;
}

static void send_request(gr_controller_t *c, gr_ctl_broker_t *br, int16_t key, int16_t version,
                         const void *req, gr_peer_response_fn *cb)
{
    ctl_op_t *op = ctl_op_new(c);
    if (!op || deliver(c, br, key, version, req, cb, op) != 0) {
        free(op);
        br->needs_full = true;
        ctl_kick_later(c);
        return;
    }
    op->broker_id = br->node.id;
}

/* ---- LeaderAndIsr ----------------------------------------------------------------------- */

static void fill_leader_and_isr_state(gr_controller_t *c, const gr_ctl_partition_t *p,
                                      int32_t index,
                                      gr_leader_and_isr_request_leader_and_isr_partition_state_t *s)
{
    gr_leader_and_isr_request_leader_and_isr_partition_state_init(s);
    s->partition_index = index;
    s->controller_epoch = c->epoch;
    s->leader = p->state.leader;
    s->leader_epoch = p->state.leader_epoch;
    s->isr = p->state.isr;
    s->isr_count = p->state.isr_count;
    s->partition_epoch = p->zk_version;
    s->replicas = p->replicas;
    s->replicas_count = p->replica_count;
    s->adding_replicas = p->adding;
    s->adding_replicas_count = p->adding_count;
    s->removing_replicas = p->removing;
    s->removing_replicas_count = p->removing_count;
}

static bool leader_and_isr_wanted(const gr_ctl_partition_t *p, int32_t broker, bool full)
{
    return p->has_state && (full || p->changed) && is_replica(p, broker);
}

void ctl_send_leader_and_isr(gr_controller_t *c, gr_ctl_broker_t *br, bool full)
{
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_leader_and_isr_request_t req;
    gr_leader_and_isr_request_init(&req);
    req.controller_id = c->b->config.broker_id;
    req.controller_epoch = c->epoch;
    req.broker_epoch = br->czxid;
    req.type = full ? GR_CONTROL_REQUEST_TYPE_FULL : GR_CONTROL_REQUEST_TYPE_INCREMENTAL;
    int32_t topics = 0;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next)
        topics++;
    req.topic_states = gr_arena_alloc(&arena, sizeof *req.topic_states * (size_t)(topics + 1));
    req.live_leaders =
        gr_arena_alloc(&arena, sizeof *req.live_leaders * (size_t)(c->broker_count + 1));
    int32_t partitions = 0;
    for (gr_ctl_topic_t *t = c->topics; t && req.topic_states && req.live_leaders; t = t->next) {
        if (t->deleting)
            continue;
        gr_leader_and_isr_request_leader_and_isr_topic_state_t *ts =
            &req.topic_states[req.topic_states_count];
        gr_leader_and_isr_request_leader_and_isr_topic_state_init(ts);
        ts->topic_name = str_of(t->name);
        ts->topic_id = t->id;
        ts->partition_states =
            gr_arena_alloc(&arena, sizeof *ts->partition_states * (size_t)(t->partition_count + 1));
        if (!ts->partition_states)
            break;
        ts->partition_states_count = 0;
        for (int32_t i = 0; i < t->partition_count; i++)
            if (leader_and_isr_wanted(&t->partitions[i], br->node.id, full))
                fill_leader_and_isr_state(c, &t->partitions[i], i,
                                          &ts->partition_states[ts->partition_states_count++]);
        partitions += ts->partition_states_count;
        if (ts->partition_states_count > 0)
            req.topic_states_count++;
    }
    for (size_t i = 0; req.live_leaders && i < c->broker_count; i++) {
        gr_leader_and_isr_request_leader_and_isr_live_leader_t *l =
            &req.live_leaders[req.live_leaders_count++];
        l->broker_id = c->brokers[i].node.id;
        l->host_name = str_of(c->brokers[i].node.host);
        l->port = c->brokers[i].node.port;
    }
    if (!req.topic_states || !req.live_leaders) {
        br->needs_full = true;
        ctl_kick_later(c);
    } else if (partitions > 0) {
        send_request(c, br, GR_API_LEADER_AND_ISR, LEADER_AND_ISR_VERSION, &req, on_leader_and_isr);
    }
    gr_arena_fini(&arena);
}

/* ---- UpdateMetadata -------------------------------------------------------------------- */

static void
fill_update_metadata_state(gr_controller_t *c, const gr_ctl_topic_t *t, int32_t index,
                           gr_update_metadata_request_update_metadata_partition_state_t *s,
                           gr_arena_t *arena)
{
    const gr_ctl_partition_t *p = &t->partitions[index];
    gr_update_metadata_request_update_metadata_partition_state_init(s);
    s->partition_index = index;
    s->controller_epoch = c->epoch;
    s->leader =
        t->deleting ? GR_LEADER_DURING_DELETE : (p->has_state ? p->state.leader : GR_NO_BROKER);
    s->leader_epoch =
        t->deleting ? LEADER_EPOCH_DURING_DELETE : (p->has_state ? p->state.leader_epoch : 0);
    s->isr = p->has_state ? p->state.isr : NULL;
    s->isr_count = p->has_state ? p->state.isr_count : 0;
    s->zk_version = p->zk_version;
    s->replicas = p->replicas;
    s->replicas_count = p->replica_count;
    s->offline_replicas = gr_arena_alloc(arena, sizeof(int32_t) * (size_t)(p->replica_count + 1));
    s->offline_replicas_count = 0;
    for (int32_t r = 0; s->offline_replicas && r < p->replica_count; r++)
        if (!ctl_broker_find(c, p->replicas[r]))
            s->offline_replicas[s->offline_replicas_count++] = p->replicas[r];
}

/* Every advertised listener of node (a node registered without any: its host and port). */
static int fill_endpoints(gr_update_metadata_request_update_metadata_broker_t *lb,
                          const gr_cluster_node_t *node, gr_arena_t *arena)
{
    int32_t n = node->endpoint_count > 0 ? node->endpoint_count : 1;
    lb->endpoints = gr_arena_alloc_array(arena, n, sizeof *lb->endpoints);
    if (!lb->endpoints)
        return -ENOMEM;
    lb->endpoints_count = n;
    for (int32_t k = 0; k < n; k++) {
        gr_update_metadata_request_update_metadata_endpoint_t *e = &lb->endpoints[k];
        gr_update_metadata_request_update_metadata_endpoint_init(e);
        if (node->endpoint_count == 0) {
            e->host = str_of(node->host);
            e->port = node->port;
            e->listener = str_of(gr_security_protocol_name(GR_SECURITY_PLAINTEXT));
            e->security_protocol = GR_SECURITY_PLAINTEXT;
            continue;
        }
        e->host = str_of(node->endpoints[k].host);
        e->port = node->endpoints[k].port;
        e->listener = str_of(node->endpoints[k].name);
        e->security_protocol = (int16_t)node->endpoints[k].protocol;
    }
    return 0;
}

static int fill_update_metadata_brokers(gr_controller_t *c, gr_update_metadata_request_t *req,
                                        gr_arena_t *arena)
{
    req->live_brokers =
        gr_arena_alloc(arena, sizeof *req->live_brokers * (size_t)(c->broker_count + 1));
    if (!req->live_brokers)
        return -ENOMEM;
    req->live_brokers_count = (int32_t)c->broker_count;
    for (size_t i = 0; i < c->broker_count; i++) {
        gr_update_metadata_request_update_metadata_broker_t *lb = &req->live_brokers[i];
        gr_update_metadata_request_update_metadata_broker_init(lb);
        lb->id = c->brokers[i].node.id;
        if (fill_endpoints(lb, &c->brokers[i].node, arena))
            return -ENOMEM;
        if (c->brokers[i].node.rack)
            lb->rack = str_of(c->brokers[i].node.rack);
    }
    return 0;
}

/* Whether UpdateMetadata carries p: all of them in a full one, else the changed ones. */
static bool update_metadata_wanted(const gr_ctl_partition_t *p, bool full)
{
    return full || p->changed;
}

void ctl_send_update_metadata(gr_controller_t *c, gr_ctl_broker_t *br, bool full)
{
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_update_metadata_request_t req;
    gr_update_metadata_request_init(&req);
    req.controller_id = c->b->config.broker_id;
    req.controller_epoch = c->epoch;
    req.broker_epoch = br->czxid;
    req.type = full ? GR_CONTROL_REQUEST_TYPE_FULL : GR_CONTROL_REQUEST_TYPE_INCREMENTAL;
    int rc = fill_update_metadata_brokers(c, &req, &arena);
    int32_t topics = 0, partitions = 0;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next)
        topics++;
    req.topic_states = gr_arena_alloc(&arena, sizeof *req.topic_states * (size_t)(topics + 1));
    for (gr_ctl_topic_t *t = c->topics; rc == 0 && t; t = t->next) {
        int32_t wanted = 0;
        for (int32_t i = 0; i < t->partition_count; i++)
            wanted += update_metadata_wanted(&t->partitions[i], full);
        if (!req.topic_states || wanted == 0)
            continue;
        gr_update_metadata_request_update_metadata_topic_state_t *ts =
            &req.topic_states[req.topic_states_count++];
        gr_update_metadata_request_update_metadata_topic_state_init(ts);
        ts->topic_name = str_of(t->name);
        ts->topic_id = t->id;
        ts->partition_states =
            gr_arena_alloc(&arena, sizeof *ts->partition_states * (size_t)wanted);
        if (!ts->partition_states) {
            rc = -ENOMEM;
            break;
        }
        for (int32_t i = 0; i < t->partition_count; i++)
            if (update_metadata_wanted(&t->partitions[i], full))
                fill_update_metadata_state(
                    c, t, i, &ts->partition_states[ts->partition_states_count++], &arena);
        partitions += wanted;
    }
    if (rc || !req.topic_states) {
        br->needs_full = true;
        ctl_kick_later(c);
    } else if (full || partitions > 0) {
        send_request(c, br, GR_API_UPDATE_METADATA, UPDATE_METADATA_VERSION, &req,
                     on_update_metadata);
    }
    gr_arena_fini(&arena);
}

/* ---- StopReplica ------------------------------------------------------------------------ */

/* The broker answered (or not) for every partition sent to it (CTL_STOP_SENT at its position). */
static void on_stop_replica(void *opaque, int rc, const void *response)
{
    ctl_op_t *op = opaque;
    const gr_stop_replica_response_t *r = response;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    bool ok = rc == 0 && r->error_code == 0;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next) {
        for (int32_t i = 0; t->deleting && i < t->partition_count; i++) {
            gr_ctl_partition_t *p = &t->partitions[i];
            int32_t at = ctl_replica_position(p, op->broker_id);
            if (at < 0 || !p->stop_state || !(p->stop_state[at] & CTL_STOP_SENT))
                continue;
            p->stop_state[at] = ok ? CTL_STOP_DONE : 0;
        }
    }
    if (!ok)
        gr_logf(&c->b->log, GR_LOG_WARN, "controller", "StopReplica to broker %d failed: %s",
                op->broker_id, rc ? strerror(-rc) : gr_kerr_name(r->error_code));
    free(op);
    if (ok)
        ctl_kick(c);
    else
        ctl_kick_later(c);
}

void ctl_send_stop_replicas(gr_controller_t *c, gr_ctl_broker_t *br)
{
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_stop_replica_request_t req;
    gr_stop_replica_request_init(&req);
    req.controller_id = c->b->config.broker_id;
    req.controller_epoch = c->epoch;
    req.broker_epoch = br->czxid;
    int32_t topics = 0;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next)
        topics++;
    req.topic_states = gr_arena_alloc(&arena, sizeof *req.topic_states * (size_t)(topics + 1));
    int32_t partitions = 0;
    for (gr_ctl_topic_t *t = c->topics; req.topic_states && t; t = t->next) {
        if (!t->deleting || t->znodes_deleting)
            continue;
        gr_stop_replica_request_stop_replica_topic_state_t *ts =
            &req.topic_states[req.topic_states_count];
        gr_stop_replica_request_stop_replica_topic_state_init(ts);
        ts->topic_name = str_of(t->name);
        ts->partition_states =
            gr_arena_alloc(&arena, sizeof *ts->partition_states * (size_t)(t->partition_count + 1));
        if (!ts->partition_states)
            break;
        for (int32_t i = 0; i < t->partition_count; i++) {
            gr_ctl_partition_t *p = &t->partitions[i];
            int32_t at = ctl_replica_position(p, br->node.id);
            if (at >= 0 && !p->stop_state)
                p->stop_state = calloc((size_t)p->replica_count, sizeof *p->stop_state);
            if (at < 0 || !p->stop_state || p->stop_state[at])
                continue; /* not a replica here, sent or done (or no memory: next round) */
            gr_stop_replica_request_stop_replica_partition_state_t *ps =
                &ts->partition_states[ts->partition_states_count++];
            gr_stop_replica_request_stop_replica_partition_state_init(ps);
            ps->partition_index = i;
            ps->leader_epoch = LEADER_EPOCH_DURING_DELETE;
            ps->delete_partition = true;
            p->stop_state[at] = CTL_STOP_SENT;
        }
        partitions += ts->partition_states_count;
        if (ts->partition_states_count > 0)
            req.topic_states_count++;
    }
    if (partitions > 0) {
        ctl_op_t *op = ctl_op_new(c);
        if (op)
            op->broker_id = br->node.id;
        if (!op || deliver(c, br, GR_API_STOP_REPLICA, STOP_REPLICA_VERSION, &req, on_stop_replica,
                           op) != 0) {
            if (op)
                on_stop_replica(op, -ENOMEM, NULL);
        }
    }
    gr_arena_fini(&arena);
}

static void on_stop_dropped(void *opaque, int rc, const void *response)
{
    ctl_op_t *op = opaque;
    const gr_stop_replica_response_t *r = response;
    int16_t err = rc == 0 ? r->error_code : GR_KERR_NONE;
    for (int32_t i = 0; rc == 0 && !err && i < r->partition_errors_count; i++)
        err = r->partition_errors[i].error_code;
    if (ctl_op_current(op)) {
        if (rc || err)
            gr_logf(&op->c->b->log, GR_LOG_WARN, "controller",
                    "deleting the replica of %s-%d on broker %d failed: %s", op->name, op->index,
                    op->broker_id, rc ? strerror(-rc) : gr_kerr_name(err));
        if (rc < 0) /* not delivered (a frozen broker times out): again while it is registered */
            ctl_reassign_stop_failed(op->c, op->name, op->index, op->broker_id);
        free(op);
    }
}

int ctl_send_stop_dropped(gr_controller_t *c, gr_ctl_broker_t *br, const char *topic, int32_t index)
{
    gr_stop_replica_request_stop_replica_partition_state_t ps;
    gr_stop_replica_request_stop_replica_partition_state_init(&ps);
    ps.partition_index = index;
    ps.leader_epoch = LEADER_EPOCH_DURING_DELETE;
    ps.delete_partition = true;
    gr_stop_replica_request_stop_replica_topic_state_t ts;
    gr_stop_replica_request_stop_replica_topic_state_init(&ts);
    ts.topic_name = str_of(topic);
    ts.partition_states = &ps;
    ts.partition_states_count = 1;
    gr_stop_replica_request_t req;
    gr_stop_replica_request_init(&req);
    req.controller_id = c->b->config.broker_id;
    req.controller_epoch = c->epoch;
    req.broker_epoch = br->czxid;
    req.topic_states = &ts;
    req.topic_states_count = 1;
    ctl_op_t *op = ctl_op_new(c);
    if (!op)
        return -ENOMEM;
    op->broker_id = br->node.id;
    op->index = index;
    snprintf(op->name, sizeof op->name, "%s", topic);
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s-%d: deleting the replica on broker %d",
            topic, index, br->node.id);
    int rc = deliver(c, br, GR_API_STOP_REPLICA, STOP_REPLICA_VERSION, &req, on_stop_dropped, op);
    if (rc)
        free(op);
    return rc;
}
