/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Completing a transaction: WriteTxnMarkers (v1) to the leader of each of
 * its partitions, this broker included (over its own listener, the same
 * path as any other leader), with the producer's id and epoch and this
 * coordinator's epoch. Once every partition has its marker, the
 * transaction is written CompleteCommit / CompleteAbort.
 *
 * A partition answered NONE is done. A partition whose topic is no longer
 * in the metadata is given up (a deleted topic has no log to mark).
 * INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED mean a newer
 * producer epoch or coordinator has taken over: this coordinator stops
 * sending for the transaction (as Kafka's does). Anything else (no leader,
 * NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, a lost connection) is retried
 * on the marker timer, every GR_TXN_MARKER_RETRY_MS, with the leader looked
 * up again, until it succeeds or this broker stops coordinating the id.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/write_txn_markers.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "net/peer.h"
#include "txn/txn_int.h"

#define GR_TXN_MARKER_RETRY_MS 100
#define GR_TXN_MARKERS_VERSION 1
#define GR_MS_PER_SEC          1000.0

/* One WriteTxnMarkers request out: which of the transaction's markers it carries. */
typedef struct marker_send {
    gr_txn_coordinator_t *co;
    char *id;
    uint32_t serial;
    int32_t count;
    int32_t markers[]; /* indexes into txn->markers */
} marker_send_t;

/* --- peers --------------------------------------------------------------------------- */

/* The connection to leader node_id, at its current address; NULL when unknown now. */
static gr_peer_t *peer_for(gr_txn_coordinator_t *co, int32_t node_id)
{
    gr_broker_t *b = co->broker;
    const char *host = b->advertised_host;
    int32_t port = b->advertised_port;
    if (node_id != b->config.broker_id) {
        const gr_cluster_node_t *node = gr_cluster_view_node(b->cluster, node_id);
        if (!node)
            return NULL;
        host = node->host;
        port = node->port;
    }
    return gr_peer_pool_get(&co->peers, node_id, host, port);
}

/* --- completion ------------------------------------------------------------------------ */

static void retry_later(gr_txn_coordinator_t *co)
{
    co->markers_due = true;
}

/* Every marker is written: the transaction is complete. */
static void complete(gr_txn_coordinator_t *co, gr_txn_t *txn)
{
    gr_txn_image_t im;
    gr_txn_image_init(&im);
    if (gr_txn_image_copy(&im, &txn->cur) < 0) {
        retry_later(co);
        return;
    }
    im.state =
        txn->cur.state == GR_TXN_PREPARE_COMMIT ? GR_TXN_COMPLETE_COMMIT : GR_TXN_COMPLETE_ABORT;
    gr_txn_image_clear_parts(&im);
    im.update_ms = gr_broker_now_ms(co->broker);
    gr_logf(&co->broker->log, GR_LOG_DEBUG, GR_TXN_LOG_TAG, "transactional id %s: %s", txn->key.id,
            gr_txn_state_name(im.state));
    gr_txn_write(co, txn, &im, GR_TXN_AFTER_COMPLETE);
    if (gr_txn_state_preparing(txn->cur.state) && !txn->pending)
        retry_later(co); /* the write failed: the timer writes it again */
}

static void marker_done(gr_txn_t *txn, gr_txn_marker_t *m)
{
    if (m->done)
        return;
    m->done = true;
    txn->markers_left--;
}

/* --- sending ------------------------------------------------------------------------------ */

/* The leader of the marker's partition: a broker id, -1 none now, -2 topic gone. */
static int32_t marker_leader(gr_txn_coordinator_t *co, const gr_txn_tp_t *tp)
{
    gr_topic_t *topic = gr_topics_find(co->broker->topics, tp->topic, strlen(tp->topic));
    if (!topic)
        return -2;
    gr_partition_t *p = gr_topic_partition(topic, tp->partition);
    if (!p)
        return -2;
    return p->leader_id;
}

static void on_markers_answer(void *opaque, int rc, const void *response);

/* Fills req with the markers of send (parts sorted by topic: one entry per topic). */
static int build_request(gr_txn_t *txn, const marker_send_t *send,
                         gr_write_txn_markers_request_t *req,
                         gr_write_txn_markers_request_writable_txn_marker_t *marker,
                         gr_write_txn_markers_request_writable_txn_marker_topic_t *topics,
                         int32_t *ids)
{
    gr_write_txn_markers_request_init(req);
    gr_write_txn_markers_request_writable_txn_marker_init(marker);
    marker->producer_id = txn->cur.producer_id;
    marker->producer_epoch = txn->cur.producer_epoch;
    marker->transaction_result = txn->cur.state == GR_TXN_PREPARE_COMMIT;
    marker->coordinator_epoch = gr_txn_coordinator_epoch(txn->co, txn->key.partition);
    marker->topics = topics;
    for (int32_t i = 0; i < send->count; i++) {
        const gr_txn_tp_t *tp = &txn->cur.parts[txn->markers[send->markers[i]].tp];
        gr_write_txn_markers_request_writable_txn_marker_topic_t *t =
            marker->topics_count ? &topics[marker->topics_count - 1] : NULL;
        if (!t || !gr_str_eq_c(t->name, tp->topic)) {
            t = &topics[marker->topics_count++];
            t->name = gr_str(tp->topic);
            t->partition_indexes = &ids[i];
            t->partition_indexes_count = 0;
        }
        t->partition_indexes[t->partition_indexes_count++] = tp->partition;
    }
    req->markers = marker;
    req->markers_count = 1;
    return 0;
}

/* Sends the markers of send to leader; false when it could not go (retried later). */
static bool send_to(gr_txn_coordinator_t *co, gr_txn_t *txn, int32_t leader, marker_send_t *send)
{
    gr_peer_t *peer = peer_for(co, leader);
    gr_write_txn_markers_request_t req;
    gr_write_txn_markers_request_writable_txn_marker_t marker;
    gr_write_txn_markers_request_writable_txn_marker_topic_t *topics =
        calloc((size_t)send->count, sizeof *topics);
    int32_t *ids = calloc((size_t)send->count, sizeof *ids);
    int rc = peer && topics && ids ? build_request(txn, send, &req, &marker, topics, ids) : -ENOMEM;
    if (!rc)
        rc = gr_peer_send(peer, GR_API_WRITE_TXN_MARKERS, GR_TXN_MARKERS_VERSION, &req,
                          on_markers_answer, send);
    free(topics);
    free(ids);
    if (rc)
        return false;
    for (int32_t i = 0; i < send->count; i++)
        txn->markers[send->markers[i]].inflight = true;
    return true;
}

static marker_send_t *send_new(gr_txn_coordinator_t *co, gr_txn_t *txn, int32_t cap)
{
    marker_send_t *send = malloc(sizeof *send + sizeof(int32_t) * (size_t)cap);
    char *id = send ? strdup(txn->key.id) : NULL;
    if (!id) {
        free(send);
        return NULL;
    }
    *send = (marker_send_t){.co = co, .id = id, .serial = txn->marker_serial};
    return send;
}

static void send_free(marker_send_t *send)
{
    free(send->id);
    free(send);
}

/* Sends every marker not done nor out, one request per leader. */
static void send_due(gr_txn_coordinator_t *co, gr_txn_t *txn)
{
    for (int32_t i = 0; i < txn->marker_count; i++) {
        gr_txn_marker_t *m = &txn->markers[i];
        if (m->done || m->inflight)
            continue;
        int32_t leader = marker_leader(co, &txn->cur.parts[m->tp]);
        if (leader == -2) {
            marker_done(txn, m); /* the topic is gone */
            continue;
        }
        if (leader < 0) {
            retry_later(co);
            continue;
        }
        marker_send_t *send = send_new(co, txn, txn->marker_count - i);
        if (!send) {
            retry_later(co);
            return;
        }
        for (int32_t j = i; j < txn->marker_count; j++) {
            gr_txn_marker_t *o = &txn->markers[j];
            if (!o->done && !o->inflight && marker_leader(co, &txn->cur.parts[o->tp]) == leader)
                send->markers[send->count++] = j;
        }
        if (!send_to(co, txn, leader, send)) {
            send_free(send);
            retry_later(co);
        }
    }
    if (txn->markers_left == 0)
        complete(co, txn);
}

/* Applies one partition's answer to the marker it answers. Returns false to stop sending. */
static bool apply_result(gr_txn_coordinator_t *co, gr_txn_t *txn, const marker_send_t *send,
                         gr_str_t topic, int32_t partition, gr_kerr_t err)
{
    for (int32_t i = 0; i < send->count; i++) {
        gr_txn_marker_t *m = &txn->markers[send->markers[i]];
        const gr_txn_tp_t *tp = &txn->cur.parts[m->tp];
        if (tp->partition != partition || !gr_str_eq_c(topic, tp->topic))
            continue;
        if (err == GR_KERR_NONE) {
            marker_done(txn, m);
        } else if (err == GR_KERR_INVALID_PRODUCER_EPOCH ||
                   err == GR_KERR_TRANSACTION_COORDINATOR_FENCED) {
            gr_logf(&co->broker->log, GR_LOG_WARN, GR_TXN_LOG_TAG,
                    "transactional id %s: %s-%d refused its marker (%s); a newer producer or "
                    "coordinator took over, stopping",
                    txn->key.id, tp->topic, tp->partition, gr_kerr_name(err));
            return false;
        } else {
            gr_logf(&co->broker->log, GR_LOG_DEBUG, GR_TXN_LOG_TAG,
                    "transactional id %s: marker for %s-%d failed (%s), retrying", txn->key.id,
                    tp->topic, tp->partition, gr_kerr_name(err));
        }
    }
    return true;
}

static void on_markers_answer(void *opaque, int rc, const void *response)
{
    marker_send_t *send = opaque;
    gr_txn_coordinator_t *co = send->co;
    gr_txn_t *txn = co->stopped ? NULL : gr_txn_lookup(co, gr_str(send->id));
    if (!txn || txn->marker_serial != send->serial || !txn->markers) {
        send_free(send);
        return;
    }
    for (int32_t i = 0; i < send->count; i++)
        txn->markers[send->markers[i]].inflight = false;
    bool go_on = true;
    const gr_write_txn_markers_response_t *resp = rc == 0 ? response : NULL;
    for (int32_t i = 0; resp && go_on && i < resp->markers_count; i++) {
        for (int32_t t = 0; go_on && t < resp->markers[i].topics_count; t++) {
            const gr_write_txn_markers_response_writable_txn_marker_topic_result_t *tr =
                &resp->markers[i].topics[t];
            for (int32_t p = 0; go_on && p < tr->partitions_count; p++)
                go_on = apply_result(co, txn, send, tr->name, tr->partitions[p].partition_index,
                                     (gr_kerr_t)tr->partitions[p].error_code);
        }
    }
    send_free(send);
    if (!go_on) {
        gr_txn_markers_drop(co, txn);
        return;
    }
    if (txn->markers_left == 0)
        complete(co, txn);
    else
        retry_later(co); /* what failed goes again on the timer */
}

/* --- lifecycle ------------------------------------------------------------------------------ */

void gr_txn_markers_drop(gr_txn_coordinator_t *co, gr_txn_t *txn)
{
    (void)co;
    free(txn->markers);
    txn->markers = NULL;
    txn->markers_wanted = false;
    txn->marker_count = txn->markers_left = 0;
    txn->marker_serial++;
}

void gr_txn_markers_start(gr_txn_coordinator_t *co, gr_txn_t *txn)
{
    gr_txn_markers_drop(co, txn);
    int32_t n = txn->cur.part_count;
    txn->markers = calloc((size_t)n + 1, sizeof *txn->markers);
    txn->markers_wanted = txn->markers == NULL;
    if (!txn->markers) {
        retry_later(co);
        return;
    }
    for (int32_t i = 0; i < n; i++)
        txn->markers[i].tp = i;
    txn->marker_count = txn->markers_left = n;
    send_due(co, txn);
}

/* Resends what failed, and writes again the completions that failed. */
static void marker_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_txn_coordinator_t *co = w->data;
    if (!co->markers_due)
        return;
    co->markers_due = false;
    for (gr_txn_t *t = gr_txn_first(co); t; t = gr_txn_next(co, t)) {
        if (!gr_txn_state_preparing(t->cur.state) || t->pending ||
            gr_txn_load_state(co, t->key.partition) != GR_COORDINATOR_LOADED)
            continue;
        if (t->markers_wanted)
            gr_txn_markers_start(co, t);
        else if (t->markers) /* NULL: stopped, a newer producer or coordinator has it */
            send_due(co, t);
    }
}

void gr_txn_markers_init(gr_txn_coordinator_t *co)
{
    double every = GR_TXN_MARKER_RETRY_MS / GR_MS_PER_SEC;
    ev_timer_init(&co->marker_timer, marker_timer_cb, every, every);
    co->marker_timer.data = co;
}

void gr_txn_markers_fini(gr_txn_coordinator_t *co)
{
    gr_peer_pool_free(&co->peers); /* answers what is out with -ECANCELED */
}
