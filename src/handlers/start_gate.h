/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The start gate of a cluster broker: client requests wait until this
 * broker has registered in ZooKeeper and the controller has described the
 * cluster to that registration, so a restarted broker never answers from
 * an empty view ("no brokers, no controller, your topic does not exist").
 *
 * Why. After kill -9 the old process's ephemeral /brokers/ids/<id> lives
 * on until its ZooKeeper session expires (up to zookeeper.session.timeout.ms).
 * The new process cannot register before that, and no controller tells it
 * the cluster before it has registered; answering clients meanwhile would
 * tell them existing topics are unknown, and producers fail queued records
 * on that. Kafka too starts processing requests only at the end of its
 * start-up, after registering.
 *
 * Design, and why it cannot deadlock. The listeners accept from the start,
 * and every request passes gr_start_gate_holds before its handler runs:
 *  - served at once: what the controller and the other brokers need to reach
 *    this broker and make it ready: ApiVersions, SaslHandshake,
 *    SaslAuthenticate, LeaderAndIsr, UpdateMetadata, StopReplica; and the
 *    requests brokers send a controller (ControlledShutdown, AlterPartition),
 *    answered from the controller's own state, not from this broker's view;
 *  - parked: everything else (Metadata, Produce, Fetch - followers' too -,
 *    groups, admin): the slot is deferred, in arrival order.
 * Readiness (gr_zk_member_state INFORMED) depends only on ZooKeeper and on
 * the requests served at once, whose handling waits on nothing parked
 * (LeaderAndIsr waits at most for topic configs read from ZooKeeper), so
 * the gate opens whatever clients send. It gates requests, not listeners,
 * because the inter-broker listener may be the client listener too, and the
 * controller's connection to it must work while clients wait. (Single-node
 * mode's controller runs in-process and needs no socket, so broker.c keeps
 * its listeners paused until its metadata is applied instead.) A deadline
 * bounds the wait in any case.
 *
 * States (created CLOSED by gr_start_gate_new; on_check runs before the
 * loop blocks, each iteration, while CLOSED):
 *   CLOSED -> OPEN  membership INFORMED: logged, parked requests run in
 *                   arrival order (gr_resp_slot_resume; frames read
 *                   meanwhile queue behind them), then the gate is freed:
 *                   b->start_gate NULL, later requests pass untouched;
 *   CLOSED -> OPEN  the deadline (zookeeper.session.timeout.ms + 60 s): a
 *                   WARN naming what was still missing, then as above;
 *   CLOSED -> freed gr_start_gate_free (broker stop): the connections of
 *                   requests still parked are closed.
 * What it waits for is logged as it changes: registration (zk_member.c says
 * when an old session still holds /brokers/ids/<id>), then the controller's
 * metadata. A connection that closes drops its parked requests (cancel).
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_START_GATE_H
#define GR_HANDLERS_START_GATE_H

#include <stdbool.h>

#include "handlers/request.h"

/*
 * Creates b->start_gate, CLOSED, and starts watching for readiness. For a
 * cluster broker, before its listeners open. 0 or -ENOMEM.
 */
int gr_start_gate_new(gr_broker_t *b);

/*
 * Whether the gate took req: parked until the gate opens, then run with
 * handle (or ended, out of memory). false: run it now (no gate: none in
 * single-node mode, none once open; or an API served at once). Call after
 * the request header is decoded.
 */
bool gr_start_gate_holds(gr_broker_t *b, gr_request_t *req, gr_handler_fn handle);

/*
 * Stops the gate and frees it (b->start_gate becomes NULL): the connections
 * of requests still parked are closed, so a stopping broker drains no
 * request that will never be answered. Does nothing without a gate.
 */
void gr_start_gate_free(gr_broker_t *b);

#endif
