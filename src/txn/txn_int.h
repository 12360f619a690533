/* SPDX-License-Identifier: Apache-2.0 */
/* Private to the transaction coordinator's files (txn_*.c). */
#ifndef GR_TXN_TXN_INT_H
#define GR_TXN_TXN_INT_H

#include "txn/txn_coordinator.h"

#define GR_TXN_LOG_TAG "txn"

/* What follows a pending write once the ISR has it. */
typedef enum gr_txn_after {
    GR_TXN_AFTER_REPLY,    /* answer the waiter with the new producer id and epoch */
    GR_TXN_AFTER_MARKERS,  /* answer the waiter, then have the markers written */
    GR_TXN_AFTER_FENCED,   /* answer CONCURRENT_TRANSACTIONS (a fence), then markers */
    GR_TXN_AFTER_COMPLETE, /* markers done: nothing more */
    GR_TXN_AFTER_FORGET,   /* a tombstone: the id goes */
} gr_txn_after_t;

/* One partition's marker of a transaction being completed. */
typedef struct gr_txn_marker {
    int32_t tp; /* index into the image's parts */
    bool done;
    bool inflight;
} gr_txn_marker_t;

struct gr_txn {
    gr_coordinator_key_t key; /* the transactional id, its __transaction_state partition */
    gr_txn_coordinator_t *co;
    gr_txn_image_t cur;

    /* A transition in flight: next becomes cur once the write is in the ISR. */
    bool pending;
    gr_txn_image_t next_image;
    gr_txn_after_t after;
    gr_txn_waiter_t *waiter;
    gr_partition_waiter_t hw_wait; /* on the __transaction_state partition */
    int64_t write_end;             /* the high watermark that covers the write */
    bool allocating;               /* waiting for a new producer id */
    gr_producer_id_wait_t id_wait;
    int32_t init_timeout_ms; /* of the InitProducerId waiting for an id */
    bool init_new;           /* that InitProducerId created the id */

    /* Markers of a PrepareCommit/PrepareAbort transaction (txn_markers.c). */
    gr_txn_marker_t *markers;
    int32_t marker_count;
    int32_t markers_left;
    bool markers_wanted;    /* gr_txn_markers_start could not allocate: the timer starts again */
    uint32_t marker_serial; /* tells a response to markers since dropped */
};

/* txn_table.c */
gr_partition_t *gr_txn_led_partition(gr_txn_coordinator_t *co, int32_t partition);
gr_coordinator_load_t gr_txn_load_state(const gr_txn_coordinator_t *co, int32_t partition);
int32_t gr_txn_coordinator_epoch(const gr_txn_coordinator_t *co, int32_t partition);
gr_txn_t *gr_txn_lookup(gr_txn_coordinator_t *co, gr_str_t id);
/* Iteration over every id in the table (take the next before removing t). */
gr_txn_t *gr_txn_first(gr_txn_coordinator_t *co);
gr_txn_t *gr_txn_next(gr_txn_coordinator_t *co, gr_txn_t *t);
/* A new id (Empty, no producer id yet) in partition; NULL on -ENOMEM. */
gr_txn_t *gr_txn_insert(gr_txn_coordinator_t *co, gr_str_t id, int32_t partition);
/* The runtime's H.unload: frees partition's ids (waiters answered NOT_COORDINATOR); how many. */
size_t gr_txn_unload(void *owner, int32_t partition);
/* Unlinks and frees txn (its waiter answered err, its writes and markers dropped). */
void gr_txn_remove(gr_txn_coordinator_t *co, gr_txn_t *txn, gr_kerr_t err);
/* Answers txn's waiter (if any) and detaches it. */
void gr_txn_reply(gr_txn_t *txn, gr_kerr_t err);

/* txn_log.c: records and writes */
/*
 * Writes im as txn's next state (im is moved in), then does `after` once
 * the ISR has it. A write that cannot start ends at once through
 * gr_txn_write_done with the error.
 */
void gr_txn_write(gr_txn_coordinator_t *co, gr_txn_t *txn, gr_txn_image_t *im,
                  gr_txn_after_t after);
/* Writes txn's tombstone (expiry). */
void gr_txn_write_tombstone(gr_txn_coordinator_t *co, gr_txn_t *txn);
/* Ends txn's pending write (txn_ops.c applies it or rolls back). */
void gr_txn_write_done(gr_txn_coordinator_t *co, gr_txn_t *txn, gr_kerr_t err);
/* Drops a pending write's wait (the id goes away). */
void gr_txn_write_abandon(gr_txn_t *txn);
/*
 * Applies one __transaction_state record (replay): 0, or -EBADMSG for a
 * record to skip, -ENOMEM.
 */
int gr_txn_apply_record(gr_txn_coordinator_t *co, int32_t partition, gr_bytes_t key,
                        gr_bytes_t value);

/* txn_load.c: the runtime's record handler (H). */
extern const gr_coordinator_handler_t gr_txn_handler;

/* txn_ops.c */
/* Fences txn's producer and aborts its open transaction (a timeout or a new producer). */
void gr_txn_fence_and_abort(gr_txn_coordinator_t *co, gr_txn_t *txn);

/* txn_markers.c */
/* Starts writing txn's markers (state PrepareCommit/PrepareAbort). */
void gr_txn_markers_start(gr_txn_coordinator_t *co, gr_txn_t *txn);
/* Forgets txn's markers (responses still out are ignored). */
void gr_txn_markers_drop(gr_txn_coordinator_t *co, gr_txn_t *txn);
void gr_txn_markers_init(gr_txn_coordinator_t *co);
void gr_txn_markers_fini(gr_txn_coordinator_t *co);

/* txn_timers.c */
void gr_txn_timers_start(gr_txn_coordinator_t *co);
void gr_txn_timers_stop(gr_txn_coordinator_t *co);

#endif
