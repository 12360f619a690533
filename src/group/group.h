/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One classic consumer group: its members and Kafka's group state machine.
 * Pure logic: no sockets, no event loop, no log. Everything outside comes
 * through gr_group_env_t (clock, timers, persistence, delivering responses),
 * so unit tests drive it with a fake clock.
 *
 * States and the functions doing each transition:
 *
 *   Empty ──join──▶ PreparingRebalance ──all joined / join timer──▶
 *        CompletingRebalance ──leader's SyncGroup stored──▶ Stable
 *   Stable / CompletingRebalance ──join by new member, changed protocols,
 *        leader rejoin, member leaves or expires──▶ PreparingRebalance
 *   PreparingRebalance ──join completes with no member──▶ Empty
 *   Empty ──deleted or offsets expired──▶ Dead (gr_group_mark_dead)
 *   any ──its partition's leadership lost──▶ Dead (gr_group_unload)
 *
 *   prepare_rebalance   → PreparingRebalance (join timer armed: the
 *                         initial delay for an Empty group, else the
 *                         largest rebalance timeout of the members)
 *   complete_join       → CompletingRebalance or Empty, generation + 1;
 *                         members that did not rejoin are removed
 *   gr_group_sync       → Stable when the leader's assignment is stored
 *
 * A member's waiting JoinGroup or SyncGroup request is a gr_group_waiter_t
 * owned by the request; the group links the two and answers through
 * env->respond_join / env->respond_sync exactly once. If the request goes
 * away first (its connection closed), gr_group_waiter_cancel unlinks it and
 * the member stays in the rebalance, as in Kafka.
 *
 * Timers (all owned by the env): each member's session timer (a pending
 * member's too), the group's join timer and its pending-sync timer.
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_GROUP_H
#define GR_GROUP_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "coordinator/keys.h"
#include "protocol/kerr.h"
#include "protocol/types.h"

typedef enum gr_group_state {
    GR_GROUP_EMPTY,
    GR_GROUP_PREPARING_REBALANCE,
    GR_GROUP_COMPLETING_REBALANCE,
    GR_GROUP_STABLE,
    GR_GROUP_DEAD,
} gr_group_state_t;

/* Kafka's state names, as DescribeGroups and ListGroups report them. */
const char *gr_group_state_name(gr_group_state_t s);
/* Parses a state name (case-insensitive, as Kafka's ListGroups filter); -1 if unknown. */
int gr_group_state_parse(gr_str_t name);

typedef enum gr_group_timer_kind {
    GR_GROUP_TIMER_SESSION,            /* a member's heartbeat expiry */
    GR_GROUP_TIMER_PENDING,            /* a pending member (MEMBER_ID_REQUIRED) did not come back */
    GR_GROUP_TIMER_JOIN,               /* the rebalance's join phase ends */
    GR_GROUP_TIMER_SYNC,               /* members that have not synced are removed */
    GR_GROUP_TIMER_CONSUMER_SESSION,   /* a consumer-group member's heartbeat expiry (cgroup.h) */
    GR_GROUP_TIMER_CONSUMER_REBALANCE, /* a consumer-group member did not revoke in time */
    GR_GROUP_TIMER_CONSUMER_JOIN, /* a classic member of a consumer group did not rejoin in time */
    GR_GROUP_TIMER_CONSUMER_SYNC, /* a classic member of a consumer group did not sync in time */
    GR_GROUP_TIMER_SHARE_SESSION, /* a share-group member's heartbeat expiry (sgroup.h) */
} gr_group_timer_kind_t;

typedef struct gr_group_timer {
    ev_timer watcher; /* for the env's use */
    gr_group_timer_kind_t kind;
    /* gr_member_t * (SESSION), gr_pending_member_t * (PENDING), gr_cmember_t * (CONSUMER_*),
     * gr_smember_t * (SHARE_SESSION) or gr_group_t * */
    void *owner;
    bool armed;
    int64_t deadline_ms; /* when armed: now + delay at arming */
} gr_group_timer_t;

typedef struct gr_group gr_group_t;
typedef struct gr_member gr_member_t;
typedef struct gr_cgroup gr_cgroup_t;
typedef struct gr_sgroup gr_sgroup_t;

/*
 * A group id is one kind of group: classic (JoinGroup/SyncGroup, this
 * file), consumer (KIP-848's ConsumerGroupHeartbeat, cgroup.h) or share
 * (KIP-932's ShareGroupHeartbeat, sgroup.h). Classic and consumer groups
 * convert into each other; a share group never converts.
 */
typedef enum gr_group_type {
    GR_GROUP_TYPE_CLASSIC,
    GR_GROUP_TYPE_CONSUMER,
    GR_GROUP_TYPE_SHARE,
} gr_group_type_t;

typedef enum gr_group_waiter_kind { GR_WAIT_JOIN, GR_WAIT_SYNC } gr_group_waiter_kind_t;

/* A waiting JoinGroup/SyncGroup request (owned by the request). */
typedef struct gr_group_waiter {
    void *request; /* the env's handle */
    gr_group_waiter_kind_t kind;
    gr_member_t *member; /* set while parked */
} gr_group_waiter_t;

typedef struct gr_group_protocol {
    char *name;
    uint8_t *metadata;
    int32_t metadata_len;
} gr_group_protocol_t;

struct gr_member {
    gr_group_t *group;
    char *member_id;
    char *instance_id; /* NULL for a dynamic member */
    char *client_id;
    char *client_host;
    int32_t session_timeout_ms;
    int32_t rebalance_timeout_ms;
    gr_group_protocol_t *protocols;
    int32_t protocol_count;
    uint8_t *assignment;
    int32_t assignment_len;
    gr_group_waiter_t *join_waiter;
    gr_group_waiter_t *sync_waiter;
    bool awaiting_join; /* joined this rebalance (even if its request went away) */
    bool awaiting_sync;
    bool pending_sync; /* got its join response, has not synced yet */
    bool is_new;       /* joined and waiting for its first generation */
    bool heartbeat_satisfied;
    gr_group_timer_t session_timer;
    gr_member_t *next;
};

/* A member id handed out with MEMBER_ID_REQUIRED, not yet joined. */
typedef struct gr_pending_member {
    char *member_id;
    gr_group_timer_t session_timer;
    gr_group_t *group;
    struct gr_pending_member *next;
} gr_pending_member_t;

/* A committed offset. */
typedef struct gr_group_offset {
    char *topic;
    int32_t partition;
    int64_t offset;
    int32_t leader_epoch;
    char *metadata; /* metadata_len bytes (a Kafka string: may hold NULs), then a NUL */
    int32_t metadata_len;
    int64_t commit_timestamp;
    int64_t expire_timestamp; /* -1: by the retention rules */
    int64_t log_offset; /* base offset of the __consumer_offsets batch holding it, -1 unknown */
} gr_group_offset_t;

/* The offset's commit metadata, exactly as committed (not up to a NUL). */
static inline gr_str_t gr_group_offset_metadata(const gr_group_offset_t *o)
{
    return (gr_str_t){o->metadata, o->metadata_len};
}

/* What an offset commit record sets (gr_group_offset_set copies the strings). */
typedef struct gr_group_offset_value {
    int64_t offset;
    int32_t leader_epoch;
    gr_str_t metadata; /* null stored as "" */
    int64_t commit_timestamp;
    int64_t expire_timestamp; /* -1: by the retention rules */
    int64_t log_offset;       /* as gr_group_offset_t's */
} gr_group_offset_value_t;

/*
 * An offset committed inside a producer's transaction (TxnOffsetCommit),
 * pending until the transaction's marker lands on the group's partition:
 * COMMIT moves it to the committed offsets, ABORT drops it. Its log_offset
 * is the base offset of the transactional batch that wrote it.
 */
typedef struct gr_group_txn_offset {
    int64_t producer_id;
    gr_group_offset_t offset;
} gr_group_txn_offset_t;

struct gr_group {
    /* key.id: the group id; key.partition: of __consumer_offsets; the coordinator's table link */
    gr_coordinator_key_t key;
    gr_group_type_t type;
    gr_cgroup_t *consumer; /* the consumer group's state when type is CONSUMER, else NULL */
    gr_sgroup_t *share;    /* the share group's state when type is SHARE, else NULL */
    gr_group_state_t state;
    int32_t generation;
    char *protocol_type; /* NULL until a member joins (or for commit-only groups) */
    char *protocol_name; /* NULL when no generation is running */
    gr_member_t *leader;
    gr_member_t *members;
    int32_t member_count;
    int32_t awaiting_join_count;
    gr_pending_member_t *pending;
    int32_t pending_count;
    bool new_member_added;        /* during the initial delay */
    bool initial_delay;           /* the join timer is an initial delay */
    int32_t initial_remaining_ms; /* rebalance time left after the delays */
    int64_t state_timestamp;      /* when the state last changed, ms */
    char **subscribed_topics;     /* from members' consumer metadata; NULL: unknown */
    int32_t subscribed_topic_count;
    gr_group_timer_t join_timer;
    gr_group_timer_t sync_timer;
    gr_group_offset_t *offsets;
    int32_t offset_count;
    int32_t offset_cap;
    gr_group_txn_offset_t *txn_offsets; /* pending, at most one per producer and partition */
    int32_t txn_offset_count;
    int32_t txn_offset_cap;
    void *env_data; /* the env's per-group data */
};

typedef struct gr_join_result {
    gr_kerr_t error;
    int32_t generation;
    const char *protocol_type;
    const char *protocol_name;
    const char *leader_id;
    const char *member_id;
    bool skip_assignment;
    gr_member_t *const *members; /* the leader's copy of everyone's metadata */
    int32_t member_count;
} gr_join_result_t;

typedef struct gr_sync_result {
    gr_kerr_t error;
    const char *protocol_type;
    const char *protocol_name;
    const uint8_t *assignment;
    int32_t assignment_len;
} gr_sync_result_t;

typedef struct gr_group_limits {
    int32_t min_session_timeout_ms;
    int32_t max_session_timeout_ms;
    int32_t initial_rebalance_delay_ms;
    int32_t max_size;
} gr_group_limits_t;

/* group.consumer.migration.policy: which non-empty groups convert (cgroup_migrate.c). */
typedef enum gr_cgroup_migration {
    GR_CGROUP_MIGRATION_DISABLED = 0,
    GR_CGROUP_MIGRATION_UPGRADE = 1,   /* classic to consumer */
    GR_CGROUP_MIGRATION_DOWNGRADE = 2, /* consumer to classic */
    GR_CGROUP_MIGRATION_BIDIRECTIONAL = GR_CGROUP_MIGRATION_UPGRADE | GR_CGROUP_MIGRATION_DOWNGRADE,
} gr_cgroup_migration_t;

/* Consumer groups' settings (group.consumer.*). */
typedef struct gr_cgroup_limits {
    gr_cgroup_migration_t migration;
    int32_t heartbeat_interval_ms;
    int32_t session_timeout_ms;
    int32_t max_size;
    const char *const *assignors; /* names; the first is the default */
    int32_t assignor_count;
    int32_t regex_refresh_interval_ms; /* 0: Kafka's default */
} gr_cgroup_limits_t;

/* Share groups' settings (group.share.*). */
typedef struct gr_sgroup_limits {
    int32_t heartbeat_interval_ms;
    int32_t session_timeout_ms;
    int32_t max_size;
} gr_sgroup_limits_t;

/* A topic of the broker's metadata, as the env's topic_find reports it. */
typedef struct gr_cgroup_topic_info {
    gr_uuid_t id;
    int32_t partition_count;
} gr_cgroup_topic_info_t;

/* A subscribed topic as a consumer or share group last saw it (its "partition metadata"). */
typedef struct gr_group_topic {
    gr_uuid_t id;
    char *name;
    int32_t partition_count;
} gr_group_topic_t;

/* What the group needs from outside. */
typedef struct gr_group_env {
    void *opaque;
    gr_group_limits_t limits;
    int64_t (*now_ms)(void *opaque);
    void (*timer_arm)(void *opaque, gr_group_timer_t *t, int64_t delay_ms);
    void (*timer_cancel)(void *opaque, gr_group_timer_t *t);
    /* Persists the group's metadata record (members and assignments). */
    gr_kerr_t (*store_group)(void *opaque, gr_group_t *g);
    /* Answers a waiter; the result's pointers are valid only during the call. */
    void (*respond_join)(void *opaque, gr_group_waiter_t *w, const gr_join_result_t *r);
    void (*respond_sync)(void *opaque, gr_group_waiter_t *w, const gr_sync_result_t *r);
    /* Consumer groups: their settings, and the broker's topic of that name (false: none). */
    gr_cgroup_limits_t consumer_limits;
    bool (*topic_find)(void *opaque, gr_str_t name, gr_cgroup_topic_info_t *out);
    /*
     * Rack-aware assignment (NULL: no racks): the racks of the brokers
     * holding replicas of topic's partition, at most cap of them in racks
     * (valid until the loop turns); returns how many.
     */
    int32_t (*partition_racks)(void *opaque, const char *topic, int32_t partition,
                               const char **racks, int32_t cap);
    /* Regex subscriptions (NULL: no topic matches): every topic's name, and a
     * counter that moves whenever a topic is created or deleted. */
    void (*topic_foreach)(void *opaque, void (*fn)(void *arg, const char *name), void *arg);
    uint64_t (*topics_generation)(void *opaque);
    /*
     * Writes a changed consumer group (NULL: nothing is stored, as in unit
     * tests). NONE with *written_end past the batch, or the write's error.
     */
    gr_kerr_t (*store_consumer)(void *opaque, gr_group_t *g, int64_t *written_end);
    /* A consumer group old turned classic g: old's tombstones, then g (NULL: store_group). */
    gr_kerr_t (*store_downgrade)(void *opaque, gr_group_t *g, const gr_cgroup_t *old);
    /* Share groups: their settings, and how a changed one is written (as store_consumer). */
    gr_sgroup_limits_t share_limits;
    gr_kerr_t (*store_share)(void *opaque, gr_group_t *g, int64_t *written_end);
} gr_group_env_t;

typedef struct gr_join_protocol {
    gr_str_t name;
    gr_bytes_t metadata;
} gr_join_protocol_t;

typedef struct gr_join_args {
    gr_str_t member_id;
    gr_str_t instance_id; /* null for a dynamic member */
    gr_str_t client_id;
    gr_str_t client_host;
    int32_t session_timeout_ms;
    int32_t rebalance_timeout_ms;
    gr_str_t protocol_type;
    const gr_join_protocol_t *protocols;
    int32_t protocol_count;
    bool require_known_member_id; /* JoinGroup v4+ */
    bool static_leader_skip;      /* JoinGroup v9+: a rejoining static leader skips assigning */
} gr_join_args_t;

typedef struct gr_sync_assignment {
    gr_str_t member_id;
    gr_bytes_t assignment;
} gr_sync_assignment_t;

typedef struct gr_sync_args {
    gr_str_t member_id;
    gr_str_t instance_id;
    int32_t generation;
    gr_str_t protocol_type; /* null unless v5+ */
    gr_str_t protocol_name; /* null unless v5+ */
    const gr_sync_assignment_t *assignments;
    int32_t assignment_count;
} gr_sync_args_t;

/* A new Empty group, generation 0. NULL on -ENOMEM. */
gr_group_t *gr_group_new(const char *id, size_t id_len, int32_t coordinator_partition,
                         int64_t now_ms);
/* Cancels timers, answers waiters with COORDINATOR_NOT_AVAILABLE, frees. */
void gr_group_free(gr_group_t *g, gr_group_env_t *env);

/*
 * JoinGroup. Always answers w through env->respond_join, now or when the
 * rebalance completes. The group must not be Dead.
 */
void gr_group_join(gr_group_t *g, gr_group_env_t *env, const gr_join_args_t *args,
                   gr_group_waiter_t *w);
/* SyncGroup. Always answers w through env->respond_sync, now or later. */
void gr_group_sync(gr_group_t *g, gr_group_env_t *env, const gr_sync_args_t *args,
                   gr_group_waiter_t *w);
/* Heartbeat: NONE, REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, ... */
gr_kerr_t gr_group_heartbeat(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                             gr_str_t instance_id, int32_t generation);
/*
 * LeaveGroup for one member: by member id, or by instance id when member_id
 * is empty. NONE, UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID.
 */
gr_kerr_t gr_group_leave(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                         gr_str_t instance_id);
/*
 * May this member commit offsets now? NONE (and its session is refreshed),
 * or the error for every partition of the commit.
 */
gr_kerr_t gr_group_check_commit(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                                gr_str_t instance_id, int32_t generation);
/*
 * May a transactional producer commit offsets for this group now
 * (TxnOffsetCommit)? As Kafka 3.8: an Empty group takes a commit without
 * generation; a commit naming a member, an instance or a generation must
 * match the group (FENCED_INSTANCE_ID, UNKNOWN_MEMBER_ID,
 * ILLEGAL_GENERATION); one naming none is accepted in any state. Unlike
 * OffsetCommit, a rebalance does not refuse it and it is no heartbeat.
 * COORDINATOR_NOT_AVAILABLE for a Dead group.
 */
gr_kerr_t gr_group_check_txn_commit(const gr_group_t *g, gr_str_t member_id, gr_str_t instance_id,
                                    int32_t generation);
/* A request holding w is going away: forget it, keep the member. */
void gr_group_waiter_cancel(gr_group_waiter_t *w);
/* A timer armed through env fired. */
void gr_group_timer_fired(gr_group_timer_t *t, gr_group_env_t *env);
/* The group leaves the coordinator (deleted, expired): state Dead. */
void gr_group_mark_dead(gr_group_t *g, gr_group_env_t *env);
/*
 * The coordinator gave the group's partition up (another broker leads it
 * now): waiting JoinGroup/SyncGroup requests are answered NOT_COORDINATOR,
 * members and timers dropped, state Dead. Offsets stay until the group is
 * freed.
 */
void gr_group_unload(gr_group_t *g, gr_group_env_t *env);

/* The member's metadata for the group's chosen protocol (len -1 if none). */
gr_bytes_t gr_member_metadata(const gr_member_t *m, const char *protocol);
gr_member_t *gr_group_find_member(const gr_group_t *g, gr_str_t member_id);
/* Is topic among the topics the members subscribe to (true when unknown)? */
bool gr_group_subscribed_to(const gr_group_t *g, gr_str_t topic);

/* Restores a member from a loaded group metadata record (state set by the caller). */
gr_member_t *gr_group_load_member(gr_group_t *g, gr_group_env_t *env, const char *member_id,
                                  const char *instance_id, const char *client_id,
                                  const char *client_host, int32_t session_timeout_ms,
                                  int32_t rebalance_timeout_ms, const char *protocol,
                                  gr_bytes_t subscription, gr_bytes_t assignment);

/* Committed offsets. find returns NULL when none. */
gr_group_offset_t *gr_group_offset_find(gr_group_t *g, gr_str_t topic, int32_t partition);
/* Sets (or adds) an offset; copies strings. 0 or -ENOMEM. */
int gr_group_offset_set(gr_group_t *g, gr_str_t topic, int32_t partition,
                        const gr_group_offset_value_t *v);
/* Removes an offset; true if there was one. */
bool gr_group_offset_remove(gr_group_t *g, gr_str_t topic, int32_t partition);

/*
 * Pending transactional offsets (group_txn_offsets.c). set replaces the
 * producer's pending offset of that partition (a transaction may commit a
 * partition twice); 0 or -ENOMEM.
 */
int gr_group_txn_offset_set(gr_group_t *g, int64_t producer_id, gr_str_t topic, int32_t partition,
                            const gr_group_offset_value_t *v);
/* Drops the producer's pending offset of that partition; true if there was one. */
bool gr_group_txn_offset_remove(gr_group_t *g, int64_t producer_id, gr_str_t topic,
                                int32_t partition);
/* Drops every producer's pending offset of topic-partition (partition -1: all of topic). */
void gr_group_txn_offset_drop(gr_group_t *g, gr_str_t topic, int32_t partition);
/* Does some producer hold a pending offset for topic-partition? */
bool gr_group_txn_offset_pending(const gr_group_t *g, gr_str_t topic, int32_t partition);
/* Does producer_id hold pending offsets in g? */
bool gr_group_txn_offset_has_producer(const gr_group_t *g, int64_t producer_id);
/*
 * The producer's transaction ended: on commit each of its pending offsets
 * becomes the committed one unless the committed one was written later in
 * the log (a larger log_offset: Kafka keeps the later record); on abort
 * they are dropped. 0, or -ENOMEM (offsets that could not be moved are
 * lost; the log still holds them for the next load).
 */
int gr_group_txn_offset_complete(gr_group_t *g, int64_t producer_id, bool commit);

#endif
