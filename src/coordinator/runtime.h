/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The coordinator runtime: what every coordinator of an internal topic T
 * with a record handler H shares. The group coordinator is T =
 * __consumer_offsets, the transaction coordinator T = __transaction_state;
 * KIP-848 consumer groups and the KIP-932 share-group coordinator
 * (__share_group_state) are meant to be two more of the same shape. The
 * owner keeps its entries (groups, transactional ids) in a key table
 * (keys.h) and decodes its own record schemas (record.h has the version
 * framing they share); the runtime decides which partitions of T are
 * coordinated here, rebuilds the owner's state of an elected partition by
 * replaying its log through H, and routes a key to its partition and that
 * partition's leader.
 *
 * What the runtime does for its owner:
 *   - slots (slots.h): per partition of T, its state and coordinator epoch;
 *   - placement: a key's partition is abs(javaHash(key)) % partitions of T
 *     as this broker's topic table has it (hash.h), so every broker agrees
 *     even when T was created elsewhere with another partition count;
 *   - routing: gr_coordinator_runtime_check (serve here?) and
 *     gr_coordinator_runtime_locate (FindCoordinator: who leads the key's
 *     partition), creating T on first use through controller/internal_topic.h;
 *   - loading: an elected partition is replayed from its log start to its log
 *     end, at most spec.load_slice bytes per loop iteration (loader.c), each
 *     record given to H.replay and each transaction marker to H.replay_marker;
 *     then H.loaded. The loop keeps serving meanwhile.
 *
 * A partition's states (slots.h) and the function doing each transition:
 *
 *   NOT_OURS/RESIGNED ──elect, log empty──────────────▶ LOADED
 *   NOT_OURS/RESIGNED ──elect──────────────────────────▶ LOADING
 *   LOADING ──loader reaches the log end (H.loaded)───▶ LOADED
 *   LOADING ──replay fails──▶ LOADED (spec.serve_failed_replay, H.loaded) or NOT_OURS
 *   LOADING/LOADED ──elect at a new epoch, spec.reload_on_new_epoch (H.unload)──▶ LOADING
 *   LOADING/LOADED ──resign (H.unload)─────────────────▶ RESIGNED (NOT_OURS without epoch)
 *   any ──T deleted and created again (new topic id)──▶ every slot resigned without epoch
 *
 * elect is gr_coordinator_runtime_elect (LeaderAndIsr making this broker
 * T's partition leader; every partition at start-up in single-node mode),
 * resign is gr_coordinator_runtime_resign (LeaderAndIsr naming another
 * leader, StopReplica, the log closing), the loader is loader.c's idle
 * watcher. Without spec.reload_on_new_epoch an elect of a partition
 * coordinated here only records the epoch: memory matches the log, which
 * only this broker wrote.
 *
 * Invariants:
 *   - a key is served (check == NONE) only when its slot is LOADED and the
 *     topic table has the partition's log open here with this broker as
 *     leader: an election the controller's apply code has not made yet
 *     cannot make this broker serve a partition it does not lead;
 *   - calls are ordered by leader epoch (slots.h): stale ones are ignored;
 *   - H.unload is called exactly once for a partition leaving LOADING or
 *     LOADED, and the owner holds no key of a partition in NOT_OURS or
 *     RESIGNED once it returns; H.loaded once per LOADING → LOADED;
 *   - at most one partition replays at a time, from its log start; a
 *     partition resigned or reloaded mid-replay starts again from its log
 *     start when next elected;
 *   - after gr_coordinator_runtime_fini nothing is called back, and every
 *     routing call answers COORDINATOR_NOT_AVAILABLE.
 *
 * Runs on: loop thread (every function and every callback).
 */
#ifndef GR_COORDINATOR_RUNTIME_H
#define GR_COORDINATOR_RUNTIME_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/internal_topic.h"
#include "coordinator/slots.h"
#include "log/log.h"
#include "protocol/kerr.h"
#include "protocol/records.h"
#include "protocol/types.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_topic gr_topic_t;
typedef struct gr_partition gr_partition_t;

/* The broker coordinating a key, as FindCoordinator names it. */
typedef struct gr_coordinator_node {
    int32_t node_id;
    const char *host; /* owned by the broker's cluster view or config; valid until it changes */
    int32_t port;
} gr_coordinator_node_t;

/* Where a replayed record comes from. */
typedef struct gr_coordinator_record_origin {
    int32_t partition;   /* of the internal topic */
    int64_t producer_id; /* a transactional batch's producer, -1 otherwise */
    int64_t log_offset;  /* the batch's base offset */
} gr_coordinator_record_origin_t;

/* H: the owner's side. owner is the pointer given to gr_coordinator_runtime_init. */
typedef struct gr_coordinator_handler {
    /*
     * Applies one record of a partition being loaded, in log order. 0;
     * -EBADMSG for a record to skip; -ENOMEM (logged by the runtime, the
     * replay goes on).
     */
    int (*replay)(void *owner, const gr_coordinator_record_origin_t *origin, gr_bytes_t key,
                  gr_bytes_t value);
    /*
     * A transaction marker met in the replay: producer_id's transaction
     * committed (commit) or aborted (an abort, or a control record of
     * another type). NULL: control batches are skipped.
     */
    void (*replay_marker)(void *owner, int32_t partition, int64_t producer_id, bool commit);
    /* partition is now LOADED (log its summary, resume its work). */
    void (*loaded)(void *owner, int32_t partition);
    /*
     * partition leaves LOADING/LOADED: drop its keys (waiting requests
     * answered NOT_COORDINATOR). Returns how many keys there were.
     */
    size_t (*unload)(void *owner, int32_t partition);
} gr_coordinator_handler_t;

/* T's policies; the topic itself is gr_coordinator_runtime_init's `topic`. */
typedef struct gr_coordinator_spec {
    const char *log_tag; /* the subsystem in log lines: "group", "txn" */
    const char *keys;    /* what a partition holds, for log lines: "group(s)" */
    int32_t load_slice;  /* bytes replayed per loop iteration (*.load.buffer.size) */
    /*
     * An elect at a new epoch of a partition coordinated here reloads it
     * (the transaction coordinator: its markers carry the coordinator
     * epoch, and its pending completions restart with the new one).
     */
    bool reload_on_new_epoch;
    /*
     * A replay that fails (an unreadable log) still makes the partition
     * LOADED with what was read, as Kafka's group coordinator does; false:
     * it goes back to NOT_OURS, as Kafka's transaction coordinator does.
     */
    bool serve_failed_replay;
} gr_coordinator_spec_t;

typedef struct gr_coordinator_runtime {
    gr_broker_t *broker;
    gr_coordinator_spec_t spec;
    gr_coordinator_handler_t handler;
    void *owner;
    gr_internal_topic_t topic;    /* T, created on first use */
    gr_coordinator_slots_t slots; /* T's partitions; a slot's epoch is the coordinator epoch */
    ev_idle loader;               /* replays LOADING partitions a slice at a time */
    int32_t load_partition;       /* partition being replayed, -1: pick the next */
    int64_t load_offset;          /* next offset to replay */
    bool running;                 /* between init and fini */
} gr_coordinator_runtime_t;

/*
 * Sets rt up for topic (copied; its configs must outlive rt), spec and
 * handler (copied), owner passed to every callback. Cannot fail.
 */
void gr_coordinator_runtime_init(gr_coordinator_runtime_t *rt, gr_broker_t *b,
                                 const gr_internal_topic_t *topic,
                                 const gr_coordinator_spec_t *spec,
                                 const gr_coordinator_handler_t *handler, void *owner);
/*
 * Stops the loader and forgets every slot, without calling H.unload (the
 * owner frees its keys itself). Idempotent.
 */
void gr_coordinator_runtime_fini(gr_coordinator_runtime_t *rt);

/*
 * This broker now leads partition of T at leader_epoch: see the state
 * machine above. Ignored when stale, after fini, or for a negative
 * partition; an elect of a partition whose log is not open here with this
 * broker as leader is logged and leaves it NOT_OURS.
 */
void gr_coordinator_runtime_elect(gr_coordinator_runtime_t *rt, int32_t partition,
                                  int32_t leader_epoch);
/*
 * This broker no longer leads partition: its replay is aborted and H.unload
 * drops its keys. Ignored when leader_epoch is below the last seen;
 * GR_COORDINATOR_ANY_EPOCH always applies and forgets the epochs seen.
 */
void gr_coordinator_runtime_resign(gr_coordinator_runtime_t *rt, int32_t partition,
                                   int32_t leader_epoch);

/* partition's state (NOT_OURS for one never elected). */
gr_coordinator_load_t gr_coordinator_runtime_state(const gr_coordinator_runtime_t *rt,
                                                   int32_t partition);
/* partition's coordinator epoch (its leader epoch as last elected or resigned), or -1. */
int32_t gr_coordinator_runtime_epoch(const gr_coordinator_runtime_t *rt, int32_t partition);
/* How many partitions of T are coordinated here (LOADING or LOADED). */
int32_t gr_coordinator_runtime_owned(const gr_coordinator_runtime_t *rt);
/* Whether some partition is LOADING. */
bool gr_coordinator_runtime_loading(const gr_coordinator_runtime_t *rt);

/* T in this broker's topic table, or NULL. */
gr_topic_t *gr_coordinator_runtime_topic(gr_coordinator_runtime_t *rt);
/* T's partition when this broker leads it per the topic table (log open here), else NULL. */
gr_partition_t *gr_coordinator_runtime_led_partition(gr_coordinator_runtime_t *rt,
                                                     int32_t partition);
/*
 * Appends one record (value GR_NULL_LEN: a tombstone) to partition of T as
 * a batch of its own, without producer (append.c). 0 with *last_offset
 * its offset; -EREMOTE (not led here), -EAGAIN (the ISR below
 * min.insync.replicas), or -errno of the build or the log (the caller
 * logs). The caller waits for the high watermark to pass it before
 * answering.
 */
int gr_coordinator_runtime_append(gr_coordinator_runtime_t *rt, int32_t partition, gr_bytes_t key,
                                  gr_bytes_t value, int64_t *last_offset /* out */);

/* Who a coordinator's batch is written for: itself (id -1), or a transactional producer. */
typedef struct gr_coordinator_producer {
    int64_t id;
    int16_t epoch;
} gr_coordinator_producer_t;

/*
 * As gr_coordinator_runtime_append for count records as one batch, written
 * for producer (transactional, without sequence: Kafka's coordinator writes
 * skip the sequence checks) or for the coordinator itself when producer is
 * NULL. info: the append's offsets.
 */
int gr_coordinator_runtime_append_batch(gr_coordinator_runtime_t *rt, int32_t partition,
                                        const gr_record_t *records, int32_t count,
                                        const gr_coordinator_producer_t *producer,
                                        gr_log_append_info_t *info /* out */);

/*
 * Can this broker serve key now? NONE with *partition set;
 * COORDINATOR_NOT_AVAILABLE (no T yet, or after fini); NOT_COORDINATOR
 * (another broker leads the key's partition, or nobody does);
 * COORDINATOR_LOAD_IN_PROGRESS (LOADING).
 */
gr_kerr_t gr_coordinator_runtime_check(gr_coordinator_runtime_t *rt, gr_str_t key,
                                       int32_t *partition /* out */);

/*
 * FindCoordinator for key: ensures T, then names the broker leading the
 * key's partition. NONE with *out filled, or COORDINATOR_NOT_AVAILABLE (no
 * T yet, the partition is offline, its leader is not a live broker this
 * broker knows, or after fini).
 */
gr_kerr_t gr_coordinator_runtime_locate(gr_coordinator_runtime_t *rt, gr_str_t key,
                                        gr_coordinator_node_t *out /* out */);

/*
 * Makes sure T exists: creates it on first use (single-node mode: locally,
 * then elected for each partition). NONE, or COORDINATOR_NOT_AVAILABLE
 * (after fini, or T cannot be created yet, e.g. its replication factor
 * above the live brokers).
 */
gr_kerr_t gr_coordinator_runtime_ensure_topic(gr_coordinator_runtime_t *rt);

/*
 * Whether T's creation was asked for and T is not yet here with a leader
 * for every partition (FindCoordinator waits a moment for it).
 */
bool gr_coordinator_runtime_creating_topic(gr_coordinator_runtime_t *rt);

#endif
