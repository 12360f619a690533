/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Classic members inside a consumer group, and the conversions between the
 * two kinds of group (KIP-848's online migration).
 *
 * A consumer that still speaks JoinGroup/SyncGroup/Heartbeat/LeaveGroup
 * may be a member of a consumer group: it is a gr_cmember_t like the
 * others (its subscription and owned partitions come from its JoinGroup
 * metadata, its target from the group's server-side assignor), with the
 * classic protocol's data in m->classic. Its member epoch is the
 * generation it sees. It reconciles by rejoining (cgroup_classic.c):
 *
 *   JoinGroup    updates the member, recomputes the target if the group
 *                epoch moved, reconciles one step (gr_cgroup_reconcile) with
 *                the partitions the metadata says it owns; answered at once
 *                with generation = member epoch, no leader, no members
 *   SyncGroup    its assigned partitions as a ConsumerProtocolAssignment,
 *                or REBALANCE_IN_PROGRESS when the group epoch moved on and
 *                it owes no revocation (it must rejoin first)
 *   Heartbeat    REBALANCE_IN_PROGRESS when it must rejoin: behind the
 *                group epoch, owing a revocation, or its unreleased
 *                partitions are free now
 *   LeaveGroup   fenced like a consumer member leaving
 *
 * Its timers: the session timer with its own session timeout, a join timer
 * (its rebalance timeout) armed when it is told to rejoin, a sync timer
 * (the same) between its JoinGroup and SyncGroup; each fences it on expiry.
 *
 * Conversions (cgroup_migrate.c), as group.consumer.migration.policy allows:
 *   upgrade    a joining ConsumerGroupHeartbeat on a non-empty classic
 *              group of protocol type "consumer" (gr_group_become_consumer)
 *   downgrade  the last member using ConsumerGroupHeartbeat leaves or is
 *              fenced while classic members remain (gr_cgroup_fence_member)
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_CGROUP_CLASSIC_H
#define GR_GROUP_CGROUP_CLASSIC_H

#include "gen/consumer_offsets.h"
#include "group/cgroup.h"
#include "group/group.h"
#include "protocol/arena.h"

/* What a classic member of a consumer group keeps beside gr_cmember_t. */
typedef struct gr_cmember_classic {
    int32_t session_timeout_ms;
    gr_group_protocol_t *protocols; /* as its last JoinGroup sent them; the first is used */
    int32_t protocol_count;
    gr_group_timer_t join_timer; /* owner: the gr_cmember_t */
    gr_group_timer_t sync_timer;
} gr_cmember_classic_t;

/* The classic requests on a consumer group (g->consumer set); answered now. */
void gr_cgroup_classic_join(gr_group_t *g, gr_group_env_t *env, const gr_join_args_t *a,
                            gr_group_waiter_t *w);
void gr_cgroup_classic_sync(gr_group_t *g, gr_group_env_t *env, const gr_sync_args_t *a,
                            gr_group_waiter_t *w);
/* NONE, REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID. */
gr_kerr_t gr_cgroup_classic_heartbeat(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                                      gr_str_t instance_id, int32_t generation);
/* NONE, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID. */
gr_kerr_t gr_cgroup_classic_leave(gr_group_t *g, gr_group_env_t *env, gr_str_t member_id,
                                  gr_str_t instance_id);

/*
 * Is member_id a classic member of cg? Such a member may commit with
 * OffsetCommit before v9, and read offsets naming itself with generation -1
 * (classic OffsetFetch carries none; @platformatic/kafka sends its id).
 */
bool gr_cgroup_is_classic_member(const gr_cgroup_t *cg, gr_str_t member_id);
/*
 * Makes m a classic member (or updates it): its session timeout and a copy
 * of its protocols. 0 or -ENOMEM (m->classic then has the protocols copied
 * so far).
 */
int gr_cmember_classic_set(gr_cmember_t *m, int32_t session_timeout_ms,
                           const gr_join_protocol_t *protocols, int32_t count);
/*
 * Records (cgroup_migrate_records.c): m's ClassicMemberMetadata into v
 * (arena-allocated; nothing for a consumer-protocol member), and back from
 * a replayed v. 0 or -ENOMEM.
 */
int gr_cmember_classic_encode(const gr_cmember_t *m, gr_consumer_group_member_metadata_value_t *v,
                              gr_arena_t *a);
int gr_cmember_classic_replay(gr_cmember_t *m, const gr_consumer_group_member_metadata_value_t *v);
/*
 * env->store_downgrade: tombstones for every record of old (the consumer
 * group g was), then g's classic metadata. NONE or the write's error.
 */
gr_kerr_t gr_coordinator_store_downgrade(void *opaque, gr_group_t *g, const gr_cgroup_t *old);
/* Cancels a classic member's timers and frees m->classic (NULL: nothing; env may be NULL
 * when no timer is armed). */
void gr_cmember_classic_free(gr_cmember_t *m, gr_group_env_t *env);
/* The session timeout of m: its classic one, or group.consumer.session.timeout.ms. */
int32_t gr_cmember_session_timeout(const gr_cmember_t *m, const gr_group_env_t *env);

/*
 * The online upgrade of g, a classic group with members: NONE (g is now a
 * consumer group whose members are the classic ones, each at the classic
 * generation with its assignment; waiting JoinGroup/SyncGroup requests were
 * answered REBALANCE_IN_PROGRESS), or GROUP_ID_NOT_FOUND when the policy,
 * the protocol type, group.consumer.max.size or undecodable metadata
 * forbids it (g unchanged), UNKNOWN_SERVER_ERROR on -ENOMEM (g unchanged).
 */
gr_kerr_t gr_cgroup_migrate_upgrade(gr_group_t *g, gr_group_env_t *env);
/*
 * Before leaving is removed from cg: if it is the last member using the
 * consumer protocol, others remain and policy and group.max.size allow it,
 * converts the group to a classic group of the others (their target
 * assignments, generation = the group epoch) and starts a rebalance; cg
 * and leaving are freed then. True if it converted.
 */
bool gr_cgroup_migrate_downgrade(gr_cgroup_t *cg, gr_group_env_t *env, gr_cmember_t *leaving);

/*
 * After a classic static member replaced a member using the consumer
 * protocol (Kafka's validateOnlineDowngradeWithReplacedMemberId): if every
 * member now uses the classic protocol and policy and group.max.size allow,
 * converts the group to a classic one without a rebalance (the newcomer has
 * its predecessor's assignment); cg is freed then. True if it converted.
 */
bool gr_cgroup_migrate_downgrade_replaced(gr_cgroup_t *cg, gr_group_env_t *env);

/*
 * ConsumerProtocol codec between assignments by topic id and the classic
 * protocol's bytes (cgroup_migrate.c). Decoding resolves names through
 * env->topic_find (unknown topics are skipped); empty bytes are an empty
 * assignment. 0, -EBADMSG or -ENOMEM.
 */
int gr_cgroup_decode_assignment(gr_group_env_t *env, gr_bytes_t bytes, gr_assignment_t *out);
/*
 * The subscription's topics (owned strings, *count of them), rack (owned or
 * NULL) and owned partitions. 0, -EBADMSG or -ENOMEM.
 */
int gr_cgroup_decode_subscription(gr_group_env_t *env, gr_bytes_t bytes, char ***topics,
                                  int32_t *count, char **rack, gr_assignment_t *owned);
/*
 * a encoded as a ConsumerProtocolAssignment at the version of the member's
 * subscription metadata (names from cg's topics); *out malloc'ed. 0 or -ENOMEM.
 */
int gr_cgroup_encode_assignment(const gr_cgroup_t *cg, const gr_assignment_t *a,
                                gr_bytes_t metadata, uint8_t **out, int32_t *out_len);

#endif
