/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A KIP-932 share group: the state a gr_group_t of type GR_GROUP_TYPE_SHARE
 * holds in g->share. Its members consume records of the same partitions
 * cooperatively (the partition leaders' share-partitions hand each record
 * to one of them); the group coordinator only decides which members fetch
 * from which partitions. A share group has no committed offsets here (its
 * progress is the share coordinator's durable state) and never converts to
 * or from another kind of group.
 *
 * Epochs, as KIP-848's but without a revocation dance: a share-partition
 * may have several members at once, so a new assignment applies at once.
 *
 *   group epoch       bumped when a member joins or leaves, a subscription
 *                     changes, or a subscribed topic appears, disappears or
 *                     grows (sgroup.c: gr_sgroup_refresh_topics)
 *   assignment epoch  the group epoch the target assignment was computed
 *                     at (sgroup.c: gr_sgroup_update_target, through the
 *                     simple assignor, sgroup_assignor.c)
 *   member epoch      the assignment epoch a member last took its target
 *                     at: its next heartbeat after a new target takes it
 *                     whole (sgroup_heartbeat.c)
 *
 * Group states (Kafka's ShareGroupState): Empty without members, Stable
 * with some, Dead once unloaded or deleted. g->state mirrors them
 * (GR_GROUP_EMPTY, GR_GROUP_STABLE, GR_GROUP_DEAD) for the code shared
 * with the other kinds.
 *
 * Members join with epoch 0 and a member id of their own (ShareGroupHeartbeat
 * v1), leave with epoch -1, and are fenced when their session timer
 * (group.share.session.timeout.ms since their last heartbeat) fires.
 *
 * Durability: a heartbeat, leave or timeout that changed the group writes
 * it through env->store_share (sgroup_records.c, Kafka's ShareGroup*
 * records) before it is answered; a replayed group keeps its members'
 * epochs and assignments. The partitions ever assigned are kept as the
 * group's initialized share-partitions (ShareGroupStatePartitionMetadata):
 * their leaders initialize the durable state lazily on first fetch, and a
 * deleted group deletes the state of these.
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_SGROUP_H
#define GR_GROUP_SGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "group/assignment.h"
#include "group/group.h"
#include "protocol/kerr.h"
#include "protocol/types.h"

/* Member epochs with a meaning of their own (KIP-932). */
#define GR_SGROUP_JOIN_EPOCH  0
#define GR_SGROUP_LEAVE_EPOCH (-1)

/* Kafka's share-group assignor, the only one (group.share.assignors' default). */
#define GR_SGROUP_ASSIGNOR_SIMPLE "simple"
/* The protocol type of a share group (Kafka's ShareGroup.PROTOCOL_TYPE). */
#define GR_SGROUP_PROTOCOL_TYPE "share"

typedef enum gr_sgroup_state {
    GR_SGROUP_EMPTY,
    GR_SGROUP_STABLE,
    GR_SGROUP_DEAD,
} gr_sgroup_state_t;

/* Kafka's names: "Empty", "Stable", "Dead". */
const char *gr_sgroup_state_name(gr_sgroup_state_t s);

typedef struct gr_smember {
    gr_sgroup_t *group;
    char *member_id;
    char *rack_id; /* NULL: none */
    char *client_id;
    char *client_host;
    char **subscribed_topics; /* names, as the member sent them */
    int32_t subscribed_count;
    int32_t member_epoch;
    int32_t previous_epoch;
    gr_assignment_t assigned; /* partitions it fetches from now */
    gr_assignment_t target;   /* its part of the target assignment */
    gr_group_timer_t session_timer;
    struct gr_smember *next;
} gr_smember_t;

struct gr_sgroup {
    gr_group_t *group;
    gr_sgroup_state_t state;
    int32_t group_epoch;
    int32_t assignment_epoch;
    gr_smember_t *members; /* in join order */
    int32_t member_count;
    gr_group_topic_t *topics; /* the subscribed topics that exist, sorted by name */
    int32_t topic_count;
    int64_t metadata_hash; /* of topics (gr_sgroup_topics_hash), as the group record holds it */
    gr_assignment_t initialized; /* share-partitions ever assigned (their state may exist) */
    /* Changed since last written (sgroup_records.c), and the members that left meanwhile. */
    bool dirty;
    char **removed;
    int32_t removed_count;
};

/* The request, as the handler decoded it (strings valid during the call). */
typedef struct gr_sgroup_heartbeat_args {
    gr_str_t member_id;
    int32_t member_epoch;
    gr_str_t rack_id; /* null: unchanged */
    const gr_str_t *subscribed_topics;
    int32_t subscribed_count; /* -1: null (unchanged) */
    gr_str_t client_id;
    gr_str_t client_host;
} gr_sgroup_heartbeat_args_t;

typedef struct gr_sgroup_heartbeat_result {
    gr_kerr_t error;
    const char *error_message; /* static text or NULL */
    int64_t written_end; /* past the batch that stored the change, 0 none: answer once replicated */
    const char *member_id; /* NULL on errors (valid until the next call on the group) */
    int32_t member_epoch;
    int32_t heartbeat_interval_ms;
    const gr_assignment_t *assignment; /* NULL: unchanged (valid as member_id) */
} gr_sgroup_heartbeat_result_t;

/*
 * Kafka's checks of a heartbeat before any group is looked at (the group
 * id's is the handler's): INVALID_REQUEST with *message set, or NONE.
 */
gr_kerr_t gr_sgroup_heartbeat_validate(const gr_sgroup_heartbeat_args_t *a, const char **message);

/*
 * g, a classic group with nothing in it (no member, no offset: a group
 * only created by this lookup), becomes a share group: NONE;
 * GROUP_ID_NOT_FOUND when it is another kind of group in use;
 * UNKNOWN_SERVER_ERROR on -ENOMEM. A share group already: NONE.
 */
gr_kerr_t gr_group_become_share(gr_group_t *g, gr_group_env_t *env);

/* New share state for g (g->type set by the caller). NULL on -ENOMEM. */
gr_sgroup_t *gr_sgroup_new(gr_group_t *g);
/* Cancels every timer and frees. NULL ok. */
void gr_sgroup_free(gr_sgroup_t *sg, gr_group_env_t *env);

/*
 * ShareGroupHeartbeat for the share group g (not Dead), validated. Fills
 * *out: a leave (epoch -1), a join (epoch 0: GROUP_MAX_SIZE_REACHED when
 * full) or a heartbeat (UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH), the
 * change written through env->store_share before it is answered.
 */
void gr_sgroup_heartbeat(gr_group_t *g, gr_group_env_t *env, const gr_sgroup_heartbeat_args_t *a,
                         gr_sgroup_heartbeat_result_t *out);

/* A share-group session timer fired: the member is fenced. */
void gr_sgroup_timer_fired(gr_group_timer_t *t, gr_group_env_t *env);

gr_smember_t *gr_sgroup_find_member(const gr_sgroup_t *sg, gr_str_t member_id);
/* Is topic among the members' subscriptions? */
bool gr_sgroup_subscribed_to(const gr_sgroup_t *sg, gr_str_t topic);

/* Recomputes sg->state (and g->state) from its members. */
void gr_sgroup_update_state(gr_sgroup_t *sg, int64_t now_ms);

/* Members and records, for sgroup_records.c's replay. */
gr_smember_t *gr_smember_new(gr_sgroup_t *sg, gr_str_t member_id);
void gr_smember_free(gr_smember_t *m, gr_group_env_t *env);
void gr_sgroup_link(gr_sgroup_t *sg, gr_smember_t *m);
void gr_sgroup_unlink(gr_sgroup_t *sg, gr_smember_t *m);
/* Takes topics (count owned strings; NULL, 0 for none), freeing the old ones. */
void gr_smember_set_subscription(gr_smember_t *m, char **topics, int32_t count);
/* Replaces the subscribed topics' metadata with topics (count owned entries). */
void gr_sgroup_set_topics(gr_sgroup_t *sg, gr_group_topic_t *topics, int32_t count);
/* The group was written: nothing pending. */
void gr_sgroup_stored(gr_sgroup_t *sg);
/* A hash of the topics' names, ids and partition counts (0 for none): what changes it bumps. */
int64_t gr_sgroup_topics_hash(const gr_group_topic_t *topics, int32_t count);
/*
 * After replay: reads the subscribed topics from the broker's metadata; a
 * hash other than the replayed one bumps the group epoch (written at the
 * next change). Starts every member's session timer.
 */
void gr_sgroup_reloaded(gr_sgroup_t *sg, gr_group_env_t *env);
/* (Re)arms m's session timer (group.share.session.timeout.ms). */
void gr_sgroup_session_timer(gr_smember_t *m, gr_group_env_t *env);

/*
 * Kafka's share-group SimpleAssignor (sgroup_assignor.c), as a pure
 * function: members[i] subscribes to the topics whose indexes are in
 * subs[i] (subs_count[i] of them); topics[t] has partition_counts[t]
 * partitions. current[i] is member i's current target (kept where balance
 * allows), out[i] receives its new one. Every partition of a subscribed
 * topic goes to at least one subscriber; with fewer partitions than
 * members they are shared (N members on one partition: all N get it);
 * members' counts differ by at most one. 0 or -ENOMEM.
 */
typedef struct gr_sgroup_assign_input {
    int32_t member_count;
    const int32_t *const *subs; /* per member: indexes into topics */
    const int32_t *subs_count;
    const gr_assignment_t *const *current;
    int32_t topic_count;
    const gr_uuid_t *topic_ids;
    const int32_t *partition_counts;
} gr_sgroup_assign_input_t;
int gr_sgroup_assign(const gr_sgroup_assign_input_t *in, gr_assignment_t *out);

#endif
