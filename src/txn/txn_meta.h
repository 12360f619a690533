/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One transactional id's metadata, as the transaction coordinator keeps it
 * and as __transaction_state records carry it (Kafka's TransactionMetadata).
 *
 * States and their codes (the codes are the log's TransactionStatus):
 *
 *   Empty ──AddPartitions──▶ Ongoing ──EndTxn──▶ PrepareCommit ──markers──▶ CompleteCommit
 *                               │     ──EndTxn/fence/timeout──▶ PrepareAbort ──markers──▶
 * CompleteAbort Complete* ──AddPartitions──▶ Ongoing;   Empty/Complete* ──InitProducerId──▶ Empty
 * (epoch + 1) Empty/Complete* ──expired──▶ Dead (tombstone written, then forgotten)
 *
 * PrepareEpochFence is the in-memory step of fencing an Ongoing transaction
 * (a new InitProducerId, or a timeout): the epoch is bumped and the
 * transaction aborted with it; it is never written.
 *
 * A change is made in two steps, as in Kafka: the new image is prepared
 * (gr_txn_image_t), written to the log, and only once the ISR has it does it
 * become the current one. Until then the id has a pending transition and
 * every other request for it answers CONCURRENT_TRANSACTIONS.
 *
 * Runs on: loop thread (pure data; no I/O here).
 */
#ifndef GR_TXN_TXN_META_H
#define GR_TXN_TXN_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/types.h"

typedef enum gr_txn_state {
    GR_TXN_EMPTY = 0,
    GR_TXN_ONGOING = 1,
    GR_TXN_PREPARE_COMMIT = 2,
    GR_TXN_PREPARE_ABORT = 3,
    GR_TXN_COMPLETE_COMMIT = 4,
    GR_TXN_COMPLETE_ABORT = 5,
    GR_TXN_DEAD = 6,
    GR_TXN_PREPARE_EPOCH_FENCE = 7,
} gr_txn_state_t;

#define GR_TXN_STATE_COUNT 8
#define GR_TXN_NO_EPOCH    (-1)
#define GR_TXN_NO_PID      (-1LL)
/* Kafka stops bumping at Short.MaxValue - 1 and rotates to a new producer id. */
#define GR_TXN_MAX_EPOCH ((int16_t)32766)

/* Kafka's name of a state ("Ongoing"...), as ListTransactions and DescribeTransactions show it. */
const char *gr_txn_state_name(gr_txn_state_t s);
/* The state named name; false when no state has that name. */
bool gr_txn_state_parse(gr_str_t name, gr_txn_state_t *out);
/* PrepareCommit or PrepareAbort: markers being written. */
bool gr_txn_state_preparing(gr_txn_state_t s);
/* Empty, CompleteCommit or CompleteAbort: no transaction open. */
bool gr_txn_state_idle(gr_txn_state_t s);

/* A partition of a transaction. */
typedef struct gr_txn_tp {
    char *topic;
    int32_t partition;
} gr_txn_tp_t;

/* A transactional id's state: what one __transaction_state value holds, and more. */
typedef struct gr_txn_image {
    int64_t producer_id;
    int64_t last_producer_id; /* before a rotation (epoch exhausted), -1 if none */
    int16_t producer_epoch;
    int16_t last_producer_epoch; /* before the last bump a client asked for, -1 if none */
    int32_t timeout_ms;
    gr_txn_state_t state;
    gr_txn_tp_t *parts; /* the transaction's partitions, sorted by topic then partition */
    int32_t part_count;
    int32_t part_cap;
    int64_t start_ms;  /* when the open transaction began, -1 if none */
    int64_t update_ms; /* last change */
} gr_txn_image_t;

void gr_txn_image_init(gr_txn_image_t *im);
void gr_txn_image_fini(gr_txn_image_t *im);
/* Deep copy into dst (initialised or finished). 0 or -ENOMEM (dst empty then). */
int gr_txn_image_copy(gr_txn_image_t *dst, const gr_txn_image_t *src);
/* Moves src into dst (dst finished first); src is left empty. */
void gr_txn_image_move(gr_txn_image_t *dst, gr_txn_image_t *src);

/* Whether the image's transaction holds topic-partition. */
bool gr_txn_image_has(const gr_txn_image_t *im, gr_str_t topic, int32_t partition);
/* Adds topic-partition (kept sorted; no duplicates). 0 or -ENOMEM. */
int gr_txn_image_add(gr_txn_image_t *im, gr_str_t topic, int32_t partition);
/* Removes every partition. */
void gr_txn_image_clear_parts(gr_txn_image_t *im);

#endif
