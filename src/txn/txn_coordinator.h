/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction coordinator (KIP-98): the transactional ids of the
 * __transaction_state partitions this broker leads, their state machine
 * (txn_meta.h), its persistence in that topic, the transaction markers it
 * has partition leaders write, and its timers.
 *
 It is a coordinator of __transaction_state on the coordinator runtime
 * (coordinator/runtime.h), as the group coordinator is of
 * __consumer_offsets: a transactional id maps to partition
 * abs(javaHash(id)) % partitions of __transaction_state (created on first
 * use with transaction.state.log.* settings), and this broker coordinates
 * the ids of the partitions it leads, told so by gr_txn_partition_elected /
 * _resigned (LeaderAndIsr, StopReplica; every partition at start-up in
 * single-node mode). An elected partition replays its log
 * (COORDINATOR_LOAD_IN_PROGRESS meanwhile) through txn_load.c's record
 * handler and then resumes the markers of every transaction it finds in
 * PrepareCommit or PrepareAbort. The coordinator epoch written into markers
 * is the partition's leader epoch, so a deposed coordinator's markers are
 * refused by the leaders; a new leader epoch of a partition loaded here
 * reloads it, so its markers go out with the new epoch.
 *
 * Files: txn_table.c (ids, partitions, routing), txn_log.c (records and
 * writes), txn_load.c (the replay's record handler), txn_ops.c (the client operations),
 * txn_markers.c (WriteTxnMarkers to the leaders), txn_timers.c (timeouts,
 * expiry).
 *
 * Runs on: loop thread.
 */
#ifndef GR_TXN_TXN_COORDINATOR_H
#define GR_TXN_TXN_COORDINATOR_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "controller/internal_topic.h"
#include "coordinator/keys.h"
#include "coordinator/runtime.h"
#include "metadata/producer_ids.h"
#include "net/peer_pool.h"
#include "partition/partition.h"
#include "protocol/kerr.h"
#include "txn/txn_meta.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_peer gr_peer_t;
typedef struct gr_txn gr_txn_t;
typedef struct gr_txn_waiter gr_txn_waiter_t;

/*
 * An operation's answer: err, and for InitProducerId the producer id and
 * epoch. Called exactly once per started operation unless cancelled, maybe
 * before the starting call returns.
 */
typedef void gr_txn_done_fn(gr_txn_waiter_t *w, gr_kerr_t err, int64_t producer_id,
                            int16_t producer_epoch);

/* A request waiting for its transactional id's write; embedded in the caller's op. */
struct gr_txn_waiter {
    gr_txn_done_fn *done;
    gr_txn_t *txn; /* set while waiting */
};

/* A connection to a partition leader for markers. */
typedef struct gr_txn_coordinator {
    gr_broker_t *broker;
    gr_coordinator_keys_t table; /* the ids of the partitions led here */
    /* __transaction_state: partitions led here (a slot's epoch is the coordinator epoch), replay */
    gr_coordinator_runtime_t runtime;
    gr_topic_config_t topic_configs[5]; /* __transaction_state's configs */
    char segment_bytes[24];
    char min_isr[24];
    ev_timer abort_timer;  /* transaction.abort.timed.out.transaction.cleanup.interval.ms */
    ev_timer expire_timer; /* transaction.remove.expired.transaction.cleanup.interval.ms */
    ev_timer marker_timer; /* resends markers that failed */
    bool markers_due;      /* some transaction waits for the marker timer */
    gr_peer_pool_t peers;  /* to the partition leaders, for markers */
    bool stopped;
} gr_txn_coordinator_t;

int gr_txn_coordinator_init(gr_txn_coordinator_t *co, gr_broker_t *b);
/* After topics are loaded: starts the timers; single-node mode elects every partition. */
void gr_txn_coordinator_start(gr_txn_coordinator_t *co);
/* Answers waiting requests COORDINATOR_NOT_AVAILABLE, closes peers, frees every id. */
void gr_txn_coordinator_fini(gr_txn_coordinator_t *co);

/* Leadership of __transaction_state partitions (as the group coordinator's). */
void gr_txn_partition_elected(gr_txn_coordinator_t *co, int32_t partition, int32_t leader_epoch);
void gr_txn_partition_resigned(gr_txn_coordinator_t *co, int32_t partition, int32_t leader_epoch);

/*
 * FindCoordinator key type 1: the broker leading id's partition (creating
 * the topic on first use). NONE with *out, or COORDINATOR_NOT_AVAILABLE.
 */
gr_kerr_t gr_txn_locate(gr_txn_coordinator_t *co, gr_str_t id, gr_coordinator_node_t *out);
/* Whether the topic is being created (FindCoordinator waits a moment for it). */
bool gr_txn_creating_topic(gr_txn_coordinator_t *co);

/*
 * Can this broker serve id now? NONE with *partition; NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS or COORDINATOR_NOT_AVAILABLE.
 */
gr_kerr_t gr_txn_check(gr_txn_coordinator_t *co, gr_str_t id, int32_t *partition);

/* The current metadata of id, when coordinated and loaded here; else NULL. */
const gr_txn_image_t *gr_txn_find(gr_txn_coordinator_t *co, gr_str_t id);
/* Calls fn for every id of the partitions loaded here (ListTransactions). */
void gr_txn_foreach(gr_txn_coordinator_t *co,
                    void (*fn)(const char *id, const gr_txn_image_t *im, void *arg), void *arg);
/*
 * What the coordinator holds now, for the metrics page: the partitions of
 * __transaction_state coordinated here, and the transactional ids loaded
 * here (those gr_txn_foreach lists) by state.
 */
typedef struct gr_txn_census {
    int32_t partitions;
    int64_t by_state[GR_TXN_STATE_COUNT]; /* by gr_txn_state_t */
} gr_txn_census_t;
void gr_txn_census_take(gr_txn_coordinator_t *co, gr_txn_census_t *out /* out */);
/* Whether some partition led here is still replaying. */
bool gr_txn_loading(const gr_txn_coordinator_t *co);

/* --- the operations (txn_ops.c); errors as Kafka's coordinator answers them --- */

/* InitProducerId with id (v3+: producer_id/epoch of the caller, else -1). */
void gr_txn_init_producer(gr_txn_coordinator_t *co, gr_str_t id, int32_t timeout_ms,
                          int64_t producer_id, int16_t epoch, gr_txn_waiter_t *w);
/* AddPartitionsToTxn / AddOffsetsToTxn: parts (topic names and partitions) join the transaction. */
typedef struct gr_txn_part_ref {
    gr_str_t topic;
    int32_t partition;
} gr_txn_part_ref_t;
void gr_txn_add_partitions(gr_txn_coordinator_t *co, gr_str_t id, int64_t producer_id,
                           int16_t epoch, const gr_txn_part_ref_t *parts, int32_t count,
                           gr_txn_waiter_t *w);
/*
 * KIP-890 verification (AddPartitionsToTxn v4+, verify_only): the id's own
 * error (NONE when the producer matches), and per partition in *part_errors
 * whether it is in the open transaction (NONE) or not (not_in_txn).
 */
gr_kerr_t gr_txn_verify_partitions(gr_txn_coordinator_t *co, gr_str_t id, int64_t producer_id,
                                   int16_t epoch, const gr_txn_part_ref_t *parts, int32_t count,
                                   gr_kerr_t not_in_txn, gr_kerr_t *part_errors);
/* EndTxn. */
void gr_txn_end(gr_txn_coordinator_t *co, gr_str_t id, int64_t producer_id, int16_t epoch,
                bool commit, gr_txn_waiter_t *w);
/* The request went away: w is never called. */
void gr_txn_waiter_cancel(gr_txn_waiter_t *w);

#endif
