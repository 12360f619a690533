/* SPDX-License-Identifier: Apache-2.0 */
/* Internals shared by the controller's files (controller*.c). Runs on: loop thread. */
#ifndef GR_CONTROLLER_CONTROLLER_INT_H
#define GR_CONTROLLER_CONTROLLER_INT_H

#include "core/context.h"
#include "metadata/topics.h"
#include "controller/controller.h"
#include "net/peer.h"

/* The context of one asynchronous step: dropped if the generation moved on. */
typedef struct ctl_op {
    gr_controller_t *c;
    uint64_t gen;
    char name[GR_TOPIC_NAME_LIMIT + 1];
    int32_t index;
    int32_t broker_id;
    int32_t count;
    void *data;
} ctl_op_t;

/* A new op for the current generation (NULL without memory). */
ctl_op_t *ctl_op_new(gr_controller_t *c);
/* Whether op still belongs to the active controller; frees it if not. */
bool ctl_op_current(ctl_op_t *op);

/* Reconciles soon (coalesced). */
void ctl_kick(gr_controller_t *c);
/* Retries after a failure, a little later. */
void ctl_kick_later(gr_controller_t *c);

gr_ctl_broker_t *ctl_broker_find(gr_controller_t *c, int32_t id);
gr_ctl_topic_t *ctl_topic_find(gr_controller_t *c, const char *name);
void ctl_topic_free(gr_ctl_topic_t *t);
void ctl_topic_unlink(gr_controller_t *c, gr_ctl_topic_t *t);

/* controller_load.c: (re)reads with watches; each completion kicks. */
void ctl_load_brokers(gr_controller_t *c);
void ctl_load_topics(gr_controller_t *c);
void ctl_load_deletions(gr_controller_t *c);
void ctl_load_state(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index);
void ctl_load_assignment(gr_controller_t *c, const char *name);

/* controller_send.c */
void ctl_send_leader_and_isr(gr_controller_t *c, gr_ctl_broker_t *br, bool full);
void ctl_send_update_metadata(gr_controller_t *c, gr_ctl_broker_t *br, bool full);
void ctl_send_stop_replicas(gr_controller_t *c, gr_ctl_broker_t *br);
void ctl_broker_drop_peer(gr_ctl_broker_t *br);

/*
 * controller_local.c: a request to this broker itself, in-process. Returns 0
 * (cb is called once, later, on the loop) or -errno (never called).
 */
int ctl_local_send(gr_controller_t *c, int16_t api_key, int16_t version, const void *request,
                   gr_peer_response_fn *cb, void *opaque);
/* Cancels every local request not answered yet; their callbacks get -ECANCELED. */
void ctl_local_drop(gr_controller_t *c);

/* controller_elect.c: writes of partition states. */
void ctl_elect_all(gr_controller_t *c);

/*
 * A state write ended: err NONE (p's cached state is the one written),
 * INVALID_UPDATE_VERSION (the node changed meanwhile: it is read again),
 * NOT_CONTROLLER or UNKNOWN_TOPIC_OR_PARTITION (p NULL).
 */
typedef void ctl_state_written_fn(void *opaque, int16_t err, const gr_ctl_partition_t *p);

/*
 * Writes state as partition index of t's state node, conditionally on the
 * version read (created when the partition has none). isr is copied.
 * 0 (done, when not NULL, runs once later) or -errno (never runs).
 */
int ctl_write_state(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index,
                    const gr_zk_partition_state_t *state, ctl_state_written_fn *done, void *opaque);

/*
 * A ctl_state_written_fn for a state with an unclean leader (opaque: the
 * controller): counts the election once its write is done, not each time
 * a failed or conflicting write makes the controller decide it again.
 */
void ctl_count_unclean(void *opaque, int16_t err, const gr_ctl_partition_t *p);

/* controller_shutdown.c: answers the ControlledShutdown requests waiting (state settled). */
void ctl_shutdown_progress(gr_controller_t *c);
/* Answers them NOT_CONTROLLER (resigning). */
void ctl_shutdown_drop(gr_controller_t *c);

/* controller_elections.c: decides or writes what elections asked; reports finished ones. */
void ctl_elections_progress(gr_controller_t *c);
/* Once the writes ended and brokers were told: answers the finished ones. */
void ctl_elections_report(gr_controller_t *c);
void ctl_elections_drop(gr_controller_t *c);
/* controller_rebalance.c: the preferred-leader check, every leader.imbalance.check.interval. */
void ctl_rebalance_start(gr_controller_t *c);
void ctl_rebalance_stop(gr_controller_t *c);

/* Whether ids (count of them) holds id. */
static inline bool ctl_ids_hold(const int32_t *ids, int32_t count, int32_t id)
{
    for (int32_t i = 0; i < count; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* The ids of a that b lacks, in a's order, into out (room for an). Returns their count. */
static inline int32_t ctl_ids_minus(const int32_t *a, int32_t an, const int32_t *b, int32_t bn,
                                    int32_t *out)
{
    int32_t n = 0;
    for (int32_t i = 0; i < an; i++)
        if (!ctl_ids_hold(b, bn, a[i]))
            out[n++] = a[i];
    return n;
}

/* A replica's deletion progress (gr_ctl_partition_t.stop_state). */
#define CTL_STOP_SENT 1
#define CTL_STOP_DONE 2
/* The position of id in p's replicas, or -1. */
static inline int32_t ctl_replica_position(const gr_ctl_partition_t *p, int32_t id)
{
    for (int32_t i = 0; i < p->replica_count; i++)
        if (p->replicas[i] == id)
            return i;
    return -1;
}

/* Whether p is being reassigned (has replicas being added or removed). */
static inline bool ctl_reassigning(const gr_ctl_partition_t *p)
{
    return p->adding_count > 0 || p->removing_count > 0;
}

/* controller_reassign.c: saves edited assignments, bumps epochs, completes moves. */
void ctl_reassign_progress(gr_controller_t *c);
/* Once writes ended and brokers were told: StopReplica to the replicas left out. */
void ctl_reassign_stop_dropped(gr_controller_t *c);
/* The StopReplica of a replica left out was not delivered: owed again if its broker is still
 * registered and not a replica. */
void ctl_reassign_stop_failed(gr_controller_t *c, const char *topic, int32_t index, int32_t broker);
/* Whether every replica-set edit of t is in its node (none being written). */
bool ctl_topic_saved(const gr_ctl_topic_t *t);
/* controller_reassign_requests.c: the requests whose edits up to upto were saved (err NONE) or
 * lost. */
void ctl_reassign_saved(gr_controller_t *c, const char *topic, uint64_t upto, int16_t err);
/* Answers the requests whose partitions are all settled. */
void ctl_reassign_report(gr_controller_t *c);
/* Answers waiting requests NOT_CONTROLLER. */
void ctl_reassign_drop(gr_controller_t *c);
/* Frees a partition's reassignment lists. */
void ctl_reassign_clear(gr_ctl_partition_t *p);
/*
 * Edits t's partition index towards target (count ids, checked by the
 * caller): see controller_reassign.c. 0 with *edit, the edit number whose
 * save carries it (t->saved reaching it), or -ENOMEM.
 */
int ctl_reassign_start(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index, const int32_t *target,
                       int32_t count, uint64_t *edit /* out */);
/* NONE, or why target (count ids) cannot be p's new replica set. */
int16_t ctl_reassign_check(gr_controller_t *c, const gr_ctl_partition_t *p, const int32_t *target,
                           int32_t count);

/* controller_reassign_zk.c: /admin/reassign_partitions (older tools' requests). */
void ctl_load_zk_reassign(gr_controller_t *c);
/* Partitions of it done: rewritten without them, deleted once empty. */
void ctl_zk_reassign_progress(gr_controller_t *c);
/* An API request moved the partition: it leaves the node (Kafka's maybeRemoveFromZkReassignment).
 */
void ctl_zk_reassign_forget(gr_controller_t *c, const char *topic, int32_t index);
void ctl_zk_reassign_drop(gr_controller_t *c);

/*
 * controller_send.c: StopReplica with deletion of one partition to br. 0 (a
 * failed answer is logged, one never delivered goes back to the partition's
 * dropping list: ctl_reassign_stop_failed) or -errno (not sent).
 */
int ctl_send_stop_dropped(gr_controller_t *c, gr_ctl_broker_t *br, const char *topic,
                          int32_t index);

/* controller_delete.c */
void ctl_delete_progress(gr_controller_t *c);

#endif
