/* SPDX-License-Identifier: Apache-2.0 */
/*
 * InitProducerId (v0-5) for idempotent producers.
 *
 * No transactional id: always a fresh producer id with epoch 0 from the
 * broker's id blocks (producer_ids.h), whatever id and epoch the request
 * carries. Kafka does the same: an idempotent producer bumps its epoch on
 * its own (KIP-360), and nothing ties a non-transactional id to one client,
 * so honouring a client-supplied id would hand one id to two producers
 * (whose sequences then collide: acknowledged records lost as duplicates).
 * The request waits when a new block has to be claimed from the metadata
 * store. From v3, giving only one of id and epoch is INVALID_REQUEST, as in
 * Kafka.
 *
 * A transactional id goes to the transaction coordinator (txn/), which
 * answers once the new epoch is in __transaction_state's ISR: its errors
 * are Kafka's (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 * CONCURRENT_TRANSACTIONS, INVALID_TRANSACTION_TIMEOUT, PRODUCER_FENCED as
 * INVALID_PRODUCER_EPOCH before v4). An empty one is INVALID_REQUEST.
 *
 * Runs on: loop thread.
 */
#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/request.h"
#include "metadata/producer_ids.h"
#include "handlers/handlers.h"
#include "gen/init_producer_id.h"
#include "txn/txn_coordinator.h"

#define PRODUCER_FENCED_MIN_VERSION 4
#define NO_PRODUCER_ID              (-1)
#define NO_PRODUCER_EPOCH           (-1)

typedef struct init_op {
    gr_producer_id_wait_t wait; /* first: the wait is the op */
    gr_request_t *req;
} init_op_t;

typedef struct txn_init_op {
    gr_txn_waiter_t wait; /* first: the wait is the op */
    gr_request_t *req;
} txn_init_op_t;

/* Before KIP-588 (v4) a fenced producer is told INVALID_PRODUCER_EPOCH. */
static gr_kerr_t fenced_for(const gr_request_t *req, gr_kerr_t err)
{
    if (err == GR_KERR_PRODUCER_FENCED && req->api_version < PRODUCER_FENCED_MIN_VERSION)
        return GR_KERR_INVALID_PRODUCER_EPOCH;
    return err;
}

static void respond(gr_request_t *req, gr_kerr_t err, int64_t producer_id, int16_t epoch)
{
    gr_init_producer_id_response_t resp;
    gr_init_producer_id_response_init(&resp);
    resp.error_code = err;
    resp.producer_id = err ? -1 : producer_id;
    resp.producer_epoch = err ? -1 : epoch;
    gr_request_respond(req, &resp);
}

static void on_producer_id(gr_producer_id_wait_t *w, gr_kerr_t err, int64_t producer_id)
{
    init_op_t *op = (init_op_t *)w;
    respond(op->req, err, producer_id, 0);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    init_op_t *op = arg;
    (void)slot;
    gr_producer_ids_cancel(op->req->broker, &op->wait);
}

/* A fresh id, now or once a block is claimed. */
static void new_producer_id(gr_broker_t *b, gr_request_t *req)
{
    init_op_t *op = gr_request_alloc(req, sizeof *op);
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->req = req;
    gr_resp_slot_defer(req->slot, on_cancel, op);
    gr_producer_ids_request(b, &op->wait, on_producer_id);
}

static void on_txn_init(gr_txn_waiter_t *w, gr_kerr_t err, int64_t producer_id, int16_t epoch)
{
    txn_init_op_t *op = (txn_init_op_t *)w;
    respond(op->req, fenced_for(op->req, err), producer_id, epoch);
}

static void on_txn_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    gr_txn_waiter_cancel(arg);
}

/* InitProducerId with a transactional id: the coordinator answers, now or later. */
static void init_transactional(gr_broker_t *b, gr_request_t *req,
                               const gr_init_producer_id_request_t *in)
{
    txn_init_op_t *op = gr_request_alloc(req, sizeof *op);
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->req = req;
    op->wait.done = on_txn_init;
    gr_resp_slot_defer(req->slot, on_txn_cancel, &op->wait);
    gr_txn_init_producer(b->txns, in->transactional_id, in->transaction_timeout_ms, in->producer_id,
                         in->producer_epoch, &op->wait);
}

void gr_handle_init_producer_id(gr_broker_t *b, gr_request_t *req)
{
    gr_init_producer_id_request_t in;
    if (gr_request_decode(req, &in))
        return;
    if (in.transactional_id.len == 0) {
        respond(req, GR_KERR_INVALID_REQUEST, -1, -1);
        return;
    }
    bool transactional = in.transactional_id.len > 0;
    if (transactional) {
        if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_WRITE,
                              GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID, in.transactional_id)) {
            respond(req, GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, -1);
            return;
        }
    } else if (!gr_authorize_idempotent(b, req->session)) {
        /* Kafka: IDEMPOTENT_WRITE on the cluster or WRITE on a topic. */
        respond(req, GR_KERR_CLUSTER_AUTHORIZATION_FAILED, -1, -1);
        return;
    }
    /* Versions before 3 carry neither field: both decode as "none". */
    bool no_id = in.producer_id == NO_PRODUCER_ID,
         no_epoch = in.producer_epoch == NO_PRODUCER_EPOCH;
    if (no_id != no_epoch) {
        respond(req, GR_KERR_INVALID_REQUEST, -1, -1);
        return;
    }
    if (transactional)
        init_transactional(b, req, &in);
    else
        new_producer_id(b, req);
}
