/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cluster controller (ZooKeeper mode), active on the one broker that won
 * /controller. It keeps the cluster's state read from ZooKeeper (live
 * brokers under /brokers/ids, topic assignments under /brokers/topics, each
 * partition's leader and ISR in its state node, topics queued under
 * /admin/delete_topics), watches it, and after every change reconciles:
 *  - partitions without a state get one (leader: the first live replica);
 *  - partitions whose leader is gone get the next live ISR member, or go
 *    offline (leader -1), and back to their replica when it returns, each
 *    change with a new leader epoch written conditionally on the node's
 *    version;
 *  - brokers hear of it: LeaderAndIsr to the replicas of changed partitions
 *    (everything to a broker that just (re)joined), UpdateMetadata to all;
 *  - topics being deleted are announced (leader -2), their replicas get
 *    StopReplica with deletion, and once every replica has answered (a down
 *    broker's when it returns) their nodes are removed.
 * Its requests go over each other broker's listener through gr_peer, and
 * to the broker it runs on in-process (controller_local.c); one that fails
 * makes the controller resend that broker everything a moment later.
 *
 * Every asynchronous step carries the generation it was issued in: after
 * the controller resigns (lost session, /controller gone), late completions
 * are dropped.
 *
 * Runs on: loop thread.
 */
#ifndef GR_CONTROLLER_CONTROLLER_H
#define GR_CONTROLLER_CONTROLLER_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "metadata/cluster_view.h"
#include "metadata/zk_docs.h"
#include "protocol/types.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_peer gr_peer_t;
typedef struct ctl_local_call ctl_local_call_t;

typedef struct gr_ctl_partition {
    int32_t *replicas;
    int32_t replica_count;
    bool state_read; /* the state node was read (has_state tells whether it exists) */
    bool has_state;
    gr_zk_partition_state_t state;
    int32_t zk_version;
    bool writing; /* a state write is in flight */
    bool changed; /* state changed since brokers were last told */
    /* Deletion: per replica position, CTL_STOP_SENT (StopReplica in flight)
     * or CTL_STOP_DONE (answered); malloc'd on first use. */
    uint8_t *stop_state;
    /* Reassignment (controller_reassign.c): replicas is then the target
     * followed by the original replicas not in it. */
    int32_t *adding; /* target minus original, malloc'd (NULL when none) */
    int32_t adding_count;
    int32_t *removing; /* original minus target */
    int32_t removing_count;
    bool reassign_bump; /* the new replica set is saved: leader epoch + 1 owed */
    int32_t *dropping;  /* replicas left out: StopReplica with deletion owed */
    int32_t dropping_count;
} gr_ctl_partition_t;

typedef struct gr_ctl_topic {
    char *name;
    gr_uuid_t id;
    int32_t partition_count;
    gr_ctl_partition_t *partitions;
    bool deleting;
    bool znodes_deleting;       /* deletion done on brokers, nodes being removed */
    bool seen;                  /* present in the latest /brokers/topics listing */
    int32_t assignment_version; /* of /brokers/topics/T, as read or written */
    /* Replica-set edits (reassignments) are numbered; saved: the last one in
     * the node, or dropped by a failed write (the node is read again). */
    uint64_t edits, saved;
    bool assignment_writing;
    struct gr_ctl_topic *next;
} gr_ctl_topic_t;

typedef struct gr_ctl_broker {
    gr_cluster_node_t node;
    int64_t czxid; /* of its registration: a new one means it restarted */
    gr_peer_t *peer;
    bool needs_full;    /* tell it everything (joined, or a request to it failed) */
    bool shutting_down; /* asked for a controlled shutdown: leads nothing, joins no ISR */
} gr_ctl_broker_t;

typedef struct ctl_shutdown_wait ctl_shutdown_wait_t;
typedef struct ctl_election ctl_election_t;
typedef struct ctl_reassign ctl_reassign_t;
typedef struct ctl_zk_reassign ctl_zk_reassign_t;

/*
 * A tap on the controller's requests to brokers (LeaderAndIsr,
 * UpdateMetadata, StopReplica), for unit tests: NULL in a running broker.
 * It sees each request (a struct of the API's request type, valid only
 * during the call) for broker_id and returns GR_CONTROLLER_TAP_PASS to
 * deliver it as usual, 0 when it took the request (then cb(cb_opaque, ...)
 * must run exactly once, later, on the loop, as gr_peer's would), or a
 * -errno (not sent; cb never runs).
 */
#define GR_CONTROLLER_TAP_PASS 1
typedef int gr_controller_tap_fn(void *opaque, int32_t broker_id, int16_t api_key, int16_t version,
                                 const void *request,
                                 void (*cb)(void *cb_opaque, int rc, const void *response),
                                 void *cb_opaque);

typedef struct gr_controller {
    gr_broker_t *b;
    bool active;
    uint64_t gen;
    int32_t epoch;
    int32_t epoch_version;
    gr_ctl_broker_t *brokers; /* live brokers, sorted by id */
    size_t broker_count;
    gr_ctl_topic_t *topics;
    int reads_pending; /* store reads whose results reconciling waits for */
    int writes_pending;
    bool metadata_dirty;                 /* UpdateMetadata owed to every broker */
    bool loaded;                         /* the initial read completed */
    ev_timer kick;                       /* reconciles soon (after changes, or to retry) */
    ctl_local_call_t *local_calls;       /* requests to this broker itself, oldest first */
    ev_timer local_start;                /* starts the local calls queued */
    ctl_shutdown_wait_t *shutdown_waits; /* ControlledShutdown requests being served */
    ctl_election_t *elections;           /* leader elections asked for, oldest first */
    ev_timer rebalance;                  /* the preferred-leader check (auto.leader.rebalance) */
    ctl_reassign_t *reassigns;           /* AlterPartitionReassignments waiting, oldest first */
    ctl_zk_reassign_t *zk_reassign;      /* partitions /admin/reassign_partitions asked for */
    uint64_t unclean_elections;          /* leaders chosen outside the ISR (observe/ reads it) */
    gr_controller_tap_fn *tap;           /* tests only (see above); NULL */
    void *tap_opaque;
} gr_controller_t;

/*
 * The cluster as the active controller sees it (Kafka's KafkaController
 * gauges and ControllerStats' unclean elections; controller_census.c). On a
 * broker that is not the active controller every count is 0, as in Kafka,
 * except unclean_elections: those this broker's controller made so far.
 */
typedef struct gr_controller_census {
    int64_t brokers;            /* live brokers */
    int64_t topics;             /* topics, those being deleted included */
    int64_t partitions;         /* their partitions */
    int64_t offline;            /* partitions without a live leader (not being deleted) */
    int64_t imbalanced;         /* partitions led by another than their preferred replica */
    uint64_t unclean_elections; /* leaders chosen from outside the ISR */
} gr_controller_census_t;
void gr_controller_census_take(gr_controller_t *c, gr_controller_census_t *out /* out */);

void gr_controller_init(gr_controller_t *c, gr_broker_t *b);
/* Becomes the active controller (this broker won /controller): bumps the epoch, loads, reconciles.
 */
void gr_controller_activate(gr_controller_t *c);
/* Stops being the controller: drops state, peers and pending work. */
void gr_controller_resign(gr_controller_t *c);
void gr_controller_fini(gr_controller_t *c);

/*
 * How a controller call that may finish later went: answered at once (err
 * is the answer, NONE included, and done never runs) or pending (done runs
 * exactly once, later). A flag rather than a reserved error value, so that
 * no Kafka error (UNKNOWN_SERVER_ERROR is -1) can read as "pending".
 */
typedef struct gr_controller_call {
    bool pending;
    int16_t err; /* the answer when !pending */
} gr_controller_call_t;

static inline gr_controller_call_t gr_controller_answered(int16_t err)
{
    return (gr_controller_call_t){.pending = false, .err = err};
}

static inline gr_controller_call_t gr_controller_pending(void)
{
    return (gr_controller_call_t){.pending = true, .err = 0};
}

/*
 * AlterPartition (controller_alter.c): leader broker asks for p's ISR to be
 * isr (count members), at its leader epoch and the partition epoch it knows.
 * Answers at once with an error (NOT_CONTROLLER, UNKNOWN_TOPIC_OR_PARTITION,
 * OPERATION_NOT_ATTEMPTED while another write is out, NOT_LEADER_OR_FOLLOWER,
 * FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, INELIGIBLE_REPLICA,
 * INVALID_REQUEST, UNKNOWN_SERVER_ERROR when out of memory or the store
 * refused the write), with NONE and *state filled when the ISR is that
 * already, or pending: done runs once later with the outcome (state and
 * partition epoch written on NONE).
 */
typedef void gr_controller_alter_done_fn(void *opaque, int16_t err,
                                         const gr_zk_partition_state_t *state,
                                         int32_t partition_epoch);
typedef struct gr_alter_partition_ask {
    int32_t broker;
    const char *topic;
    int32_t index;
    int32_t leader_epoch;
    int32_t partition_epoch;
    const int32_t *isr;
    int32_t isr_count;
} gr_alter_partition_ask_t;
gr_controller_call_t gr_controller_alter_partition(gr_controller_t *c,
                                                   const gr_alter_partition_ask_t *ask,
                                                   gr_zk_partition_state_t *state,
                                                   int32_t *partition_epoch,
                                                   gr_controller_alter_done_fn *done, void *opaque);

/*
 * ControlledShutdown (controller_shutdown.c): broker id (at broker_epoch, -1
 * when unknown) is stopping. It leads nothing more and leaves every ISR
 * where another in-sync replica can take over; done runs once those state
 * writes ended and brokers were told, with the partitions it still leads
 * (with more than one replica: no in-sync replica could take them). Answers
 * an error at once (NOT_CONTROLLER, BROKER_NOT_AVAILABLE, STALE_BROKER_EPOCH,
 * UNKNOWN_SERVER_ERROR when out of memory) or is pending. The references
 * passed to done live only during the call.
 */
typedef struct gr_ctl_partition_ref {
    const char *topic;
    int32_t index;
} gr_ctl_partition_ref_t;
typedef void gr_controller_shutdown_done_fn(void *opaque, int16_t err,
                                            const gr_ctl_partition_ref_t *remaining, int32_t count);
gr_controller_call_t gr_controller_shutdown_broker(gr_controller_t *c, int32_t id,
                                                   int64_t broker_epoch,
                                                   gr_controller_shutdown_done_fn *done,
                                                   void *opaque);
/*
 * The same asked by this broker of its own controller, in-process: the
 * b->ask_own_controller_shutdown hook (core/context.h has the contract; the
 * answer goes to gr_controlled_shutdown_answered in replica/). False when
 * this broker is not the active controller.
 */
bool gr_controller_shutdown_local(gr_broker_t *b, int32_t id, int64_t broker_epoch, void *opaque);

/*
 * ElectLeaders (controller_elections.c): type GR_ELECTION_TYPE_* (gen/elect_leaders.h), a preferred
 * (leader := first replica, when it is live and in sync) or unclean (a partition without a live
 * leader gets one, from outside the ISR if need be) election for count partitions, or every
 * partition when asks is NULL. done (may be NULL) runs once every partition has an outcome: NONE,
 * ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE,
 * UNKNOWN_TOPIC_OR_PARTITION or NOT_CONTROLLER; results live only during
 * the call. 0, or a Kafka error for the whole request (NOT_CONTROLLER,
 * UNKNOWN_SERVER_ERROR) and done never runs.
 */
typedef struct gr_election_result {
    gr_ctl_partition_ref_t partition;
    int16_t error;
} gr_election_result_t;
typedef void gr_controller_elect_done_fn(void *opaque, const gr_election_result_t *results,
                                         int32_t count);
int gr_controller_elect_leaders(gr_controller_t *c, int8_t type, const gr_ctl_partition_ref_t *asks,
                                int32_t count, gr_controller_elect_done_fn *done, void *opaque);

/*
 * AlterPartitionReassignments (controller_reassign.c): moves each asked
 * partition to its target replicas (count ids), or cancels its reassignment
 * (cancel: back to the original replicas). done runs once every
 * partition's new replica set is saved in the store or refused: NONE,
 * UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT (empty, repeated or
 * unregistered brokers), NO_REASSIGNMENT_IN_PROGRESS (cancel with none),
 * NOT_CONTROLLER, UNKNOWN_SERVER_ERROR (the save lost a race); the moves go
 * on after. Returns 0 or a Kafka error for the whole request (done never
 * runs). Results live only during the call.
 */
typedef struct gr_reassign_ask {
    gr_ctl_partition_ref_t partition;
    bool cancel;           /* back to the original replicas (target unused) */
    const int32_t *target; /* count ids (count 0: an empty list, refused) */
    int32_t count;
} gr_reassign_ask_t;
typedef void gr_controller_reassign_done_fn(void *opaque, const gr_election_result_t *results,
                                            int32_t count);
int gr_controller_reassign(gr_controller_t *c, const gr_reassign_ask_t *asks, int32_t count,
                           gr_controller_reassign_done_fn *done, void *opaque);

/* Calls fn for each partition being reassigned (ListPartitionReassignments); NOT_CONTROLLER or 0.
 */
typedef void gr_controller_reassigning_fn(void *opaque, const gr_ctl_topic_t *t, int32_t index);
int gr_controller_list_reassignments(gr_controller_t *c, gr_controller_reassigning_fn *fn,
                                     void *opaque);

/* The live broker ids the controller knows (for assignments), or NULL when inactive. */
const gr_ctl_broker_t *gr_controller_brokers(const gr_controller_t *c, size_t *count /* out */);

#endif
