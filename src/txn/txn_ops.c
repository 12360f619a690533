/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction coordinator's operations and their transitions, with the
 * answers Kafka's coordinator gives (txn_meta.h has the states):
 *
 *  InitProducerId  no id yet: a new producer id, epoch 0, Empty.
 *                  Empty/Complete*: epoch + 1 (a new producer id once the
 *                  epoch is exhausted); with the caller's id and epoch
 *                  (KIP-360) the epoch must be the current one, or the one
 *                  before a bump whose answer was lost (same answer again),
 *                  else PRODUCER_FENCED.
 *                  Ongoing: the old producer is fenced (epoch + 1) and its
 *                  transaction aborted; the caller gets CONCURRENT_TRANSACTIONS
 *                  and retries once the abort is written.
 *                  Prepare*: CONCURRENT_TRANSACTIONS.
 *  AddPartitions   producer id and epoch must be the current ones
 *                  (INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED); the
 *                  partitions join, the state becomes Ongoing.
 *  EndTxn          Ongoing -> PrepareCommit/PrepareAbort, answered once
 *                  written; the markers follow, then Complete*. A retry of
 *                  the same end is answered NONE (done) or
 *                  CONCURRENT_TRANSACTIONS (markers still going); the other
 *                  end, or EndTxn without a transaction, INVALID_TXN_STATE.
 * Any request while a transition of its id is being written:
 * CONCURRENT_TRANSACTIONS.
 *
 * Runs on: loop thread.
 */
#include <stddef.h>
#include <stdlib.h>

#include "core/context.h"
#include "txn/txn_int.h"

static int64_t now_ms(gr_txn_coordinator_t *co)
{
    return gr_broker_now_ms(co->broker);
}

static void answer(gr_txn_waiter_t *w, gr_kerr_t err)
{
    w->txn = NULL;
    w->done(w, err, -1, -1);
}

/* Makes w the txn's waiter. */
static void attach(gr_txn_t *txn, gr_txn_waiter_t *w)
{
    txn->waiter = w;
    w->txn = txn;
}

static bool epoch_exhausted(int16_t epoch)
{
    return epoch >= GR_TXN_MAX_EPOCH;
}

/* A copy of txn's current image to change; false (and w answered) when out of memory. */
static bool image_of(gr_txn_t *txn, gr_txn_image_t *im, gr_txn_waiter_t *w)
{
    gr_txn_image_init(im);
    if (gr_txn_image_copy(im, &txn->cur) == 0)
        return true;
    if (w)
        answer(w, GR_KERR_UNKNOWN_SERVER_ERROR);
    return false;
}

/* --- a write's end ---------------------------------------------------------------- */

static void write_failed(gr_txn_coordinator_t *co, gr_txn_t *txn, gr_kerr_t err)
{
    gr_txn_image_fini(&txn->next_image);
    gr_txn_image_init(&txn->next_image);
    gr_logf(&co->broker->log, GR_LOG_DEBUG, GR_TXN_LOG_TAG,
            "transactional id %s: write failed (%s)", txn->key.id, gr_kerr_name(err));
    if (txn->cur.producer_id < 0) { /* its first write: the id never existed */
        gr_txn_remove(co, txn, err);
        return;
    }
    gr_txn_reply(txn, err);
    /* A Prepare* written but not completed is resumed by the marker timer. */
}

void gr_txn_write_done(gr_txn_coordinator_t *co, gr_txn_t *txn, gr_kerr_t err)
{
    txn->pending = false;
    if (err) {
        write_failed(co, txn, err);
        return;
    }
    if (txn->after == GR_TXN_AFTER_FORGET) {
        gr_logf(&co->broker->log, GR_LOG_INFO, GR_TXN_LOG_TAG, "transactional id %s expired",
                txn->key.id);
        gr_txn_remove(co, txn, GR_KERR_NOT_COORDINATOR);
        return;
    }
    gr_txn_image_move(&txn->cur, &txn->next_image);
    gr_txn_image_init(&txn->next_image);
    switch (txn->after) {
    case GR_TXN_AFTER_REPLY:
        gr_txn_reply(txn, GR_KERR_NONE);
        break;
    case GR_TXN_AFTER_MARKERS:
        gr_txn_reply(txn, GR_KERR_NONE);
        gr_txn_markers_start(co, txn);
        break;
    case GR_TXN_AFTER_FENCED:
        gr_txn_reply(txn, GR_KERR_CONCURRENT_TRANSACTIONS);
        gr_txn_markers_start(co, txn);
        break;
    case GR_TXN_AFTER_COMPLETE:
    case GR_TXN_AFTER_FORGET:
        break;
    }
}

/* --- InitProducerId ------------------------------------------------------------------- */

/* A fresh producer id arrived for txn: epoch 0 under it, Empty. */
static void on_new_id(gr_producer_id_wait_t *wait, gr_kerr_t err, int64_t producer_id)
{
    gr_txn_t *txn = (gr_txn_t *)((char *)wait - offsetof(gr_txn_t, id_wait));
    gr_txn_coordinator_t *co = txn->co;
    txn->allocating = false;
    if (err) {
        if (txn->init_new)
            gr_txn_remove(co, txn, err);
        else
            gr_txn_reply(txn, err);
        return;
    }
    gr_txn_image_t im;
    if (!image_of(txn, &im, NULL)) {
        /* A brand-new id must not stay behind with no producer id. */
        if (txn->init_new)
            gr_txn_remove(co, txn, GR_KERR_UNKNOWN_SERVER_ERROR);
        else
            gr_txn_reply(txn, GR_KERR_UNKNOWN_SERVER_ERROR);
        return;
    }
    im.last_producer_id = txn->init_new ? GR_TXN_NO_PID : txn->cur.producer_id;
    im.producer_id = producer_id;
    im.producer_epoch = 0;
    im.last_producer_epoch = GR_TXN_NO_EPOCH;
    im.timeout_ms = txn->init_timeout_ms;
    im.state = GR_TXN_EMPTY;
    gr_txn_image_clear_parts(&im);
    im.start_ms = -1;
    im.update_ms = now_ms(co);
    gr_txn_write(co, txn, &im, GR_TXN_AFTER_REPLY);
}

static void allocate_id(gr_txn_coordinator_t *co, gr_txn_t *txn, int32_t timeout_ms, bool fresh)
{
    txn->allocating = true;
    txn->init_new = fresh;
    txn->init_timeout_ms = timeout_ms;
    gr_producer_ids_request(co->broker, &txn->id_wait, on_new_id);
}

/*
 * Kafka's rule for the caller's producer id (KIP-360): the current one, or
 * the one before a rotation whose answer was lost, or any while the id has
 * no epoch yet.
 */
static bool valid_caller_id(const gr_txn_t *txn, int64_t producer_id, int16_t epoch)
{
    return txn->cur.producer_epoch == GR_TXN_NO_EPOCH || producer_id == txn->cur.producer_id ||
           (producer_id == txn->cur.last_producer_id && epoch_exhausted(epoch));
}

/* Empty/Complete*: the bumped image, or PRODUCER_FENCED. */
static gr_kerr_t bump_epoch(gr_txn_t *txn, int16_t expected, int32_t timeout_ms, gr_txn_image_t *im)
{
    const gr_txn_image_t *cur = &txn->cur;
    if (expected == GR_TXN_NO_EPOCH) {
        /* A fresh InitProducerId, or its retry: the last epoch stays as it was. */
        im->producer_epoch = (int16_t)(cur->producer_epoch + 1);
    } else if (cur->producer_epoch == GR_TXN_NO_EPOCH || expected == cur->producer_epoch) {
        im->producer_epoch = (int16_t)(cur->producer_epoch + 1);
        im->last_producer_epoch = cur->producer_epoch;
    } else if (expected != cur->last_producer_epoch) {
        return GR_KERR_PRODUCER_FENCED;
    } /* else: a retry of the last bump, answered the same */
    im->timeout_ms = timeout_ms;
    im->state = GR_TXN_EMPTY;
    gr_txn_image_clear_parts(im);
    im->start_ms = -1;
    return GR_KERR_NONE;
}

static void init_existing(gr_txn_coordinator_t *co, gr_txn_t *txn, int32_t timeout_ms,
                          int64_t producer_id, int16_t epoch, gr_txn_waiter_t *w)
{
    if (txn->pending || txn->allocating || txn->waiter) {
        answer(w, GR_KERR_CONCURRENT_TRANSACTIONS);
        return;
    }
    if (producer_id >= 0 && !valid_caller_id(txn, producer_id, epoch)) {
        answer(w, GR_KERR_PRODUCER_FENCED);
        return;
    }
    if (txn->cur.state == GR_TXN_ONGOING) {
        attach(txn, w);
        gr_txn_fence_and_abort(co, txn);
        return;
    }
    if (!gr_txn_state_idle(txn->cur.state)) {
        answer(w, GR_KERR_CONCURRENT_TRANSACTIONS);
        return;
    }
    if (epoch_exhausted(txn->cur.producer_epoch) &&
        (producer_id < 0 || epoch == txn->cur.producer_epoch)) {
        attach(txn, w);
        allocate_id(co, txn, timeout_ms, false);
        return;
    }
    gr_txn_image_t im;
    if (!image_of(txn, &im, w))
        return;
    gr_kerr_t err = bump_epoch(txn, producer_id >= 0 ? epoch : GR_TXN_NO_EPOCH, timeout_ms, &im);
    if (err) {
        gr_txn_image_fini(&im);
        answer(w, err);
        return;
    }
    im.update_ms = now_ms(co);
    attach(txn, w);
    gr_txn_write(co, txn, &im, GR_TXN_AFTER_REPLY);
}

void gr_txn_init_producer(gr_txn_coordinator_t *co, gr_str_t id, int32_t timeout_ms,
                          int64_t producer_id, int16_t epoch, gr_txn_waiter_t *w)
{
    w->txn = NULL;
    if (timeout_ms <= 0 || timeout_ms > co->broker->config.transaction_max_timeout_ms) {
        answer(w, GR_KERR_INVALID_TRANSACTION_TIMEOUT);
        return;
    }
    int32_t partition;
    gr_kerr_t err = gr_txn_check(co, id, &partition);
    if (err) {
        answer(w, err);
        return;
    }
    gr_txn_t *txn = gr_txn_lookup(co, id);
    if (txn) {
        init_existing(co, txn, timeout_ms, producer_id, epoch, w);
        return;
    }
    txn = gr_txn_insert(co, id, partition);
    if (!txn) {
        answer(w, GR_KERR_UNKNOWN_SERVER_ERROR);
        return;
    }
    txn->cur.timeout_ms = timeout_ms;
    attach(txn, w);
    allocate_id(co, txn, timeout_ms, true);
}

void gr_txn_fence_and_abort(gr_txn_coordinator_t *co, gr_txn_t *txn)
{
    gr_txn_image_t im;
    if (!image_of(txn, &im, NULL)) {
        gr_txn_reply(txn, GR_KERR_UNKNOWN_SERVER_ERROR);
        return;
    }
    /* PrepareEpochFence in Kafka: the bump lives only in this write. */
    if (!epoch_exhausted(im.producer_epoch))
        im.producer_epoch++;
    im.last_producer_epoch = GR_TXN_NO_EPOCH;
    im.state = GR_TXN_PREPARE_ABORT;
    im.update_ms = now_ms(co);
    gr_logf(&co->broker->log, GR_LOG_INFO, GR_TXN_LOG_TAG,
            "transactional id %s: fencing producer %lld epoch %d and aborting its transaction",
            txn->key.id, (long long)txn->cur.producer_id, txn->cur.producer_epoch);
    gr_txn_write(co, txn, &im, txn->waiter ? GR_TXN_AFTER_FENCED : GR_TXN_AFTER_MARKERS);
}

/* --- AddPartitionsToTxn, AddOffsetsToTxn ----------------------------------------------- */

/* The checks every client operation on an existing id makes, in Kafka's order. */
static gr_kerr_t producer_check(gr_txn_t *txn, int64_t producer_id, int16_t epoch)
{
    if (!txn || txn->cur.producer_id < 0 || txn->cur.producer_id != producer_id)
        return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    if (txn->cur.producer_epoch != epoch)
        return GR_KERR_PRODUCER_FENCED;
    if (txn->pending || txn->allocating || txn->waiter)
        return GR_KERR_CONCURRENT_TRANSACTIONS;
    return GR_KERR_NONE;
}

/* The id's own error before its partitions are looked at. */
static gr_kerr_t lookup_checked(gr_txn_coordinator_t *co, gr_str_t id, int64_t producer_id,
                                int16_t epoch, gr_txn_t **out)
{
    int32_t partition;
    gr_kerr_t err = gr_txn_check(co, id, &partition);
    *out = err ? NULL : gr_txn_lookup(co, id);
    return err ? err : producer_check(*out, producer_id, epoch);
}

static bool all_in(const gr_txn_image_t *im, const gr_txn_part_ref_t *parts, int32_t count)
{
    for (int32_t i = 0; i < count; i++)
        if (!gr_txn_image_has(im, parts[i].topic, parts[i].partition))
            return false;
    return true;
}

void gr_txn_add_partitions(gr_txn_coordinator_t *co, gr_str_t id, int64_t producer_id,
                           int16_t epoch, const gr_txn_part_ref_t *parts, int32_t count,
                           gr_txn_waiter_t *w)
{
    gr_txn_t *txn;
    w->txn = NULL;
    gr_kerr_t err = lookup_checked(co, id, producer_id, epoch, &txn);
    if (!err && gr_txn_state_preparing(txn->cur.state))
        err = GR_KERR_CONCURRENT_TRANSACTIONS;
    else if (!err && !gr_txn_state_idle(txn->cur.state) && txn->cur.state != GR_TXN_ONGOING)
        err = GR_KERR_INVALID_TXN_STATE;
    if (err || (txn->cur.state == GR_TXN_ONGOING && all_in(&txn->cur, parts, count))) {
        answer(w, err);
        return;
    }
    gr_txn_image_t im;
    if (!image_of(txn, &im, w))
        return;
    if (im.state != GR_TXN_ONGOING) {
        gr_txn_image_clear_parts(&im);
        im.start_ms = now_ms(co);
    }
    for (int32_t i = 0; i < count; i++) {
        if (gr_txn_image_add(&im, parts[i].topic, parts[i].partition) < 0) {
            gr_txn_image_fini(&im);
            answer(w, GR_KERR_UNKNOWN_SERVER_ERROR);
            return;
        }
    }
    im.state = GR_TXN_ONGOING;
    im.update_ms = now_ms(co);
    attach(txn, w);
    gr_txn_write(co, txn, &im, GR_TXN_AFTER_REPLY);
}

gr_kerr_t gr_txn_verify_partitions(gr_txn_coordinator_t *co, gr_str_t id, int64_t producer_id,
                                   int16_t epoch, const gr_txn_part_ref_t *parts, int32_t count,
                                   gr_kerr_t not_in_txn, gr_kerr_t *part_errors)
{
    gr_txn_t *txn;
    gr_kerr_t err = lookup_checked(co, id, producer_id, epoch, &txn);
    if (err == GR_KERR_CONCURRENT_TRANSACTIONS)
        err = GR_KERR_NONE; /* verification reads the current state */
    for (int32_t i = 0; i < count; i++) {
        bool in = !err && txn->cur.state == GR_TXN_ONGOING &&
                  gr_txn_image_has(&txn->cur, parts[i].topic, parts[i].partition);
        part_errors[i] = err ? err : in ? GR_KERR_NONE : not_in_txn;
    }
    return err;
}

/* --- EndTxn -------------------------------------------------------------------------- */

/* The answer to EndTxn in a state other than Ongoing. */
static gr_kerr_t end_answer(gr_txn_state_t state, bool commit)
{
    switch (state) {
    case GR_TXN_COMPLETE_COMMIT:
        return commit ? GR_KERR_NONE : GR_KERR_INVALID_TXN_STATE;
    case GR_TXN_COMPLETE_ABORT:
        return commit ? GR_KERR_INVALID_TXN_STATE : GR_KERR_NONE;
    case GR_TXN_PREPARE_COMMIT:
        return commit ? GR_KERR_CONCURRENT_TRANSACTIONS : GR_KERR_INVALID_TXN_STATE;
    case GR_TXN_PREPARE_ABORT:
        return commit ? GR_KERR_INVALID_TXN_STATE : GR_KERR_CONCURRENT_TRANSACTIONS;
    default:
        return GR_KERR_INVALID_TXN_STATE;
    }
}

void gr_txn_end(gr_txn_coordinator_t *co, gr_str_t id, int64_t producer_id, int16_t epoch,
                bool commit, gr_txn_waiter_t *w)
{
    gr_txn_t *txn;
    w->txn = NULL;
    gr_kerr_t err = lookup_checked(co, id, producer_id, epoch, &txn);
    if (!err && txn->cur.state != GR_TXN_ONGOING)
        err = end_answer(txn->cur.state, commit);
    if (err || txn->cur.state != GR_TXN_ONGOING) {
        answer(w, err);
        return;
    }
    gr_txn_image_t im;
    if (!image_of(txn, &im, w))
        return;
    im.state = commit ? GR_TXN_PREPARE_COMMIT : GR_TXN_PREPARE_ABORT;
    im.update_ms = now_ms(co);
    attach(txn, w);
    gr_txn_write(co, txn, &im, GR_TXN_AFTER_MARKERS);
}
