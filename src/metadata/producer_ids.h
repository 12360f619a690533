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
 * Epoch bumps (KIP-360, InitProducerId v3+ with an id and epoch): the
 * broker remembers the ids it issued and their epochs for
 * producer.id.expiration.ms. The current epoch is bumped by one; the epoch
 * before a bump gets the bumped one again (a retried bump); any other is
 * fenced. An id it does not know (issued before a restart, or idle too
 * long) gets a fresh id, which is what Kafka gives every non-transactional
 * producer.
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
#define GR_PRODUCER_EPOCH_MAX        INT16_MAX
#define GR_PRODUCER_IDS_REMEMBERED   100000

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

/* An id this broker issued, for epoch bumps. */
typedef struct gr_producer_issued {
    int64_t producer_id;
    int16_t epoch;
    int16_t prev_epoch; /* before the last bump, -1 if none */
    int64_t used_ms;
} gr_producer_issued_t;

typedef struct gr_producer_ids {
    int64_t next; /* next id of the current block */
    int64_t end;  /* last id of the current block; next > end: none left */
    bool claiming;
    int claim_retries;
    gr_producer_id_wait_t *head, *tail;
    gr_producer_issued_t *issued;
    size_t issued_count, issued_cap;
    ev_timer expiry_timer;
} gr_producer_ids_t;

/* Empty: the first request claims a block. */
void gr_producer_ids_init(gr_producer_ids_t *ids);
/* Starts the producer.id.expiration.check.interval.ms timer (unreferenced). */
void gr_producer_ids_start(gr_broker_t *b);
/* Stops the timer. */
void gr_producer_ids_stop(gr_broker_t *b);
/* Frees the issued list. Precondition: no request waiting. */
void gr_producer_ids_fini(gr_producer_ids_t *ids);

/*
 * Asks for a fresh producer id: w->done is called now when the block has
 * one, else when the next claim completes (or fails: COORDINATOR_LOAD_IN_PROGRESS,
 * which clients retry). The id is remembered with epoch 0.
 */
void gr_producer_ids_request(gr_broker_t *b, gr_producer_id_wait_t *w, gr_producer_id_fn done);
/* Forgets a waiting request (its connection closed); done is not called. */
void gr_producer_ids_cancel(gr_broker_t *b, gr_producer_id_wait_t *w);

/*
 * Bumps the epoch of an issued id (see the file comment). Returns NONE with
 * *out_epoch, INVALID_PRODUCER_EPOCH (fenced: the caller maps it by
 * version), or UNKNOWN_PRODUCER_ID (unknown, or out of epochs: issue a new id).
 */
gr_kerr_t gr_producer_ids_bump(gr_broker_t *b, int64_t producer_id, int16_t epoch,
                               int16_t *out_epoch /* out */);

#endif
