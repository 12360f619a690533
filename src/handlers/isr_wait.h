/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Waiting for the ISR: a request's appends (a produce with acks=-1, an
 * OffsetCommit's batch) wait until their partition's high watermark covers
 * them (every ISR member has them), as Kafka's delayed produce does. Each
 * wait ends with:
 *   - NONE when the high watermark reaches the batches' end and the ISR has
 *     at least min.insync.replicas members;
 *   - NOT_ENOUGH_REPLICAS_AFTER_APPEND when it reaches them with a smaller ISR;
 *   - NOT_LEADER_OR_FOLLOWER when leadership here ends (the batches may or
 *     may not survive: the client retries);
 *   - REQUEST_TIMED_OUT at the request's timeout_ms.
 * The whole wait lives in the request's arena and ends (done) before the
 * response is sent or the slot cancelled.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_ISR_WAIT_H
#define GR_HANDLERS_ISR_WAIT_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "partition/partition.h"
#include "protocol/kerr.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_request gr_request_t;
typedef struct gr_isr_wait gr_isr_wait_t;

/* One wait's outcome (err NONE: the ISR has it); runs once, before done. */
typedef void gr_isr_settle_fn(void *opaque, gr_kerr_t err);

typedef struct gr_isr_entry {
    gr_partition_waiter_t link;
    gr_isr_wait_t *wait;
    gr_isr_settle_fn *settle;
    void *opaque;
    int64_t required; /* the high watermark that covers the batches */
    int32_t min_isr;
    bool open;
} gr_isr_entry_t;

struct gr_isr_wait {
    gr_broker_t *b;
    ev_timer timer;
    int32_t timeout_ms;
    int pending; /* entries still open */
    void (*done)(void *opaque);
    void *opaque;
    gr_isr_entry_t *entries;
    int32_t count, cap;
};

/* Prepares w for up to cap partitions (arena of req). 0 or -ENOMEM. */
int gr_isr_wait_init(gr_isr_wait_t *w, gr_broker_t *b, gr_request_t *req, int32_t cap,
                     int32_t timeout_ms, void (*done)(void *), void *opaque);

/*
 * Appends ending before offset required on p: settled now when p's high
 * watermark covers it (settle is called, synchronously, only with an
 * error), else waited for (and done runs when the last wait ends). min_isr
 * is the topic's min.insync.replicas.
 */
void gr_isr_wait_add(gr_isr_wait_t *w, gr_partition_t *p, int64_t required, int32_t min_isr,
                     gr_isr_settle_fn *settle, void *opaque);

/* Ends every wait without an answer (the connection closed). */
void gr_isr_wait_cancel(gr_isr_wait_t *w);

#endif
