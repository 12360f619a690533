/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Producer ids for InitProducerId, and the idle-producer expiry timer.
 *
 * Ids come in blocks of GR_PRODUCER_ID_BLOCK_SIZE claimed from the metadata
 * store's /latest_producer_id_block node, in Kafka's ZooKeeper layout
 * ({"version":1,"broker":N,"block_start":"S","block_end":"E"}): a claim
 * reads the node and writes the next block with a version check (retrying
 * on a concurrent claim), so ids stay unique across restarts and, in a
 * cluster, across brokers. A request that finds the block used up waits
 * (gr_producer_ids_request) until the next claim completes.
 *
 * Only ids are issued here: an idempotent producer's epoch starts at 0 and
 * is bumped by the producer itself (KIP-360), so the broker keeps nothing
 * per issued id (transactional ids keep theirs in txn/).
 *
 * Runs on: the loop thread.
 */
#ifndef GR_METADATA_PRODUCER_IDS_H
#define GR_METADATA_PRODUCER_IDS_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/kerr.h"

#define GR_PRODUCER_ID_BLOCK_SIZE    1000
#define GR_PRODUCER_ID_BLOCK_PATH    "/latest_producer_id_block"
#define GR_PRODUCER_ID_BLOCK_VERSION 1

typedef struct gr_broker gr_broker_t;
typedef struct gr_producer_id_wait gr_producer_id_wait_t;

/* A request's outcome: err NONE and a fresh id, or an error. */
typedef void (*gr_producer_id_fn)(gr_producer_id_wait_t *w, gr_kerr_t err, int64_t producer_id);

/* A waiting request; embedded in the caller's state, linked while waiting. */
struct gr_producer_id_wait {
    gr_producer_id_fn done;
    gr_producer_id_wait_t *next;
    gr_producer_id_wait_t *prev;
};

typedef struct gr_producer_ids {
    int64_t next; /* next id of the current block */
    int64_t end;  /* last id of the current block; next > end: none left */
    bool claiming;
    int claim_retries;
    gr_producer_id_wait_t *head, *tail;
    ev_timer expiry_timer;
} gr_producer_ids_t;

/* Empty: the first request claims a block. */
void gr_producer_ids_init(gr_producer_ids_t *ids);
/* Starts the producer.id.expiration.check.interval.ms timer (unreferenced). */
void gr_producer_ids_start(gr_broker_t *b);
/* Stops the timer. */
void gr_producer_ids_stop(gr_broker_t *b);
/*
 * Asks for a fresh producer id: w->done is called now when the block has
 * one, else when the next claim completes (or fails: COORDINATOR_LOAD_IN_PROGRESS,
 * which clients retry).
 */
void gr_producer_ids_request(gr_broker_t *b, gr_producer_id_wait_t *w, gr_producer_id_fn done);
/* Forgets a waiting request (its connection closed); done is not called. */
void gr_producer_ids_cancel(gr_broker_t *b, gr_producer_id_wait_t *w);

#endif
