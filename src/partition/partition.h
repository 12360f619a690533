/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A partition as this broker holds it: its log (when a replica is here), its
 * leadership (leader, leader epoch, replicas, ISR, as the controller last
 * said), and the fetches waiting for data on it.
 *
 * Invariants:
 *  - led here  <=>  log != NULL and leader_id == this broker's id; only then
 *    does the data path serve it (gr_partition_serve_error);
 *  - on the leader, the high watermark moves only through
 *    gr_partition_update_high_watermark (after appends, follower fetches and
 *    ISR changes): the smallest log end offset of the ISR, counting a
 *    proposed ISR change's new members at once and its removed ones until
 *    the controller has agreed (Kafka's "maximal ISR"); a follower takes the
 *    leader's, bounded by its own log end offset (replica/fetcher.c);
 *  - a waiter is on at most one partition's list, and is unlinked before its
 *    owner is freed (gr_partition_unwait).
 *
 * Waiting fetches: the fetch handler links one gr_partition_waiter_t per
 * partition it waits on. gr_partition_append wakes the list (data arrived);
 * gr_partition_wake_all is called when the partition goes away (log closed,
 * topic deleted, partition array moved) and repeats until every waiter has
 * unlinked itself. The wake callback is the owner's; it may unlink any
 * waiter, even others on this list (a response that closes a connection),
 * so the walk restarts from the head after each call.
 *
 * Runs on: loop thread.
 */
#ifndef GR_PARTITION_PARTITION_H
#define GR_PARTITION_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/log.h"
#include "partition/isr.h"
#include "protocol/kerr.h"

typedef struct gr_topic gr_topic_t;
typedef struct gr_partition gr_partition_t;
typedef struct gr_partition_waiter gr_partition_waiter_t;

/* A waiter's owner is told that p has news (gone: p is going away). */
typedef void gr_partition_wake_fn(void *owner, gr_partition_t *p, bool gone);

struct gr_partition_waiter {
    gr_partition_t *partition; /* NULL while not linked */
    gr_partition_waiter_t *prev;
    gr_partition_waiter_t *next;
    gr_partition_wake_fn *wake;
    void *owner;
    uint32_t seen_wake; /* the partition's last wake that called it */
};

struct gr_partition {
    gr_topic_t *topic;
    int32_t index;
    gr_log_t *log; /* NULL: no replica here */
    int32_t leader_epoch;
    int32_t leader_id; /* the leading broker, GR_NO_BROKER (-1) while offline */
    int32_t *replicas; /* assigned brokers, preferred leader first */
    int32_t replica_count;
    int32_t *isr; /* in-sync replicas */
    int32_t isr_count;
    int32_t partition_epoch;  /* version of the partition's state in the store */
    int32_t controller_epoch; /* of the controller that set the state */

    /* Led here: the other replicas' progress (replica/leader.c). */
    gr_follower_t *followers;
    int32_t follower_count;
    int64_t epoch_start_offset; /* log end offset when this leader epoch began */
    int32_t *proposed_isr;      /* an AlterPartition in flight, NULL when none */
    int32_t proposed_isr_count;
    int64_t isr_retry_ms; /* no new proposal before (one was refused) */

    gr_partition_waiter_t *waiters;
    uint32_t wake_count; /* wakes so far: tells a walk which waiters it has seen */
    int pending_jobs;    /* produces out on the worker (produce.c) */
};

/* Whether broker id is one of p's assigned replicas. */
static inline bool gr_partition_has_replica(const gr_partition_t *p, int32_t id)
{
    for (int32_t i = 0; i < p->replica_count; i++)
        if (p->replicas[i] == id)
            return true;
    return false;
}

/* Whether broker self leads p: it holds the log and the controller named it leader. */
static inline bool gr_partition_led_by(const gr_partition_t *p, int32_t self)
{
    return p->log != NULL && p->leader_id == self;
}

/*
 * Why broker self cannot serve p's data to clients, or GR_KERR_NONE:
 * UNKNOWN_TOPIC_OR_PARTITION when p is NULL, NOT_LEADER_OR_FOLLOWER when
 * another broker leads it or nobody does (clients refresh their metadata).
 */
gr_kerr_t gr_partition_serve_error(const gr_partition_t *p, int32_t self);

/*
 * Checks a client's view of p's leader epoch (-1: no check). Returns
 * GR_KERR_NONE, FENCED_LEADER_EPOCH when the client's is older, or
 * UNKNOWN_LEADER_EPOCH when it is newer than this broker's.
 */
static inline gr_kerr_t gr_partition_check_leader_epoch(const gr_partition_t *p, int32_t current)
{
    if (current < 0 || current == p->leader_epoch)
        return GR_KERR_NONE;
    return current > p->leader_epoch ? GR_KERR_UNKNOWN_LEADER_EPOCH : GR_KERR_FENCED_LEADER_EPOCH;
}

/*
 * Appends record batches (already validated; their base offsets and leader
 * epochs are rewritten in place) to the leader's log at its
 * leader epoch, moves the high watermark and wakes the waiting fetches.
 * Precondition: p->log != NULL. Returns 0 or the log's -errno (-EMSGSIZE for
 * a batch over segment.bytes). An fsync failing after the write still
 * leaves the batches appended (see gr_log_append): the high watermark and
 * the waiters then move too, and out tells how many records went in.
 */
int gr_partition_append(gr_partition_t *p, uint8_t *data, size_t len, int64_t now_ms,
                        gr_log_append_info_t *out /* out */);

/*
 * Leader: moves the high watermark to what the ISR (see the file comment)
 * has, and wakes the waiters when it moved. Returns whether it moved.
 */
bool gr_partition_update_high_watermark(gr_partition_t *p);

/* Frees p's placement and replication state (not its log). */
void gr_partition_fini(gr_partition_t *p);

/* Forgets the followers' progress and any proposed ISR (leadership here ended). */
void gr_partition_drop_followers(gr_partition_t *p);

/* Whether broker id is in p's ISR. */
bool gr_partition_in_isr(const gr_partition_t *p, int32_t id);

/* Links w (owner and wake set by the caller) on p's list. Precondition: w is not linked. */
void gr_partition_wait(gr_partition_t *p, gr_partition_waiter_t *w);
/* Unlinks w from its partition's list; nothing when not linked. */
void gr_partition_unwait(gr_partition_waiter_t *w);
/* Calls every waiter of p once (data may have arrived). */
void gr_partition_wake(gr_partition_t *p);
/* p is going away: calls waiters (gone = true) until none is left. */
void gr_partition_wake_all(gr_partition_t *p);

#endif
