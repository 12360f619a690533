/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to src/group/: member and protocol helpers shared by group.c,
 * group_member.c and group_offsets.c.
 */
#ifndef GR_GROUP_GROUP_INT_H
#define GR_GROUP_GROUP_INT_H

#include "group/group.h"

/* The protocol type of Kafka's consumers (their metadata can be decoded). */
#define GR_GROUP_CONSUMER_PROTOCOL_TYPE "consumer"

/* (Re)arms t to fire delay_ms from now (any earlier arming cancelled). */
void gr_group_timer_arm(gr_group_env_t *env, gr_group_timer_t *t, int64_t delay_ms);
/* Cancels t if armed. */
void gr_group_timer_stop(gr_group_env_t *env, gr_group_timer_t *t);

/*
 * A consumer or share group's subscribed topics (group_topics.c): freed
 * (count entries, NULL ok); name added at topics[*count] (room for it
 * assumed) unless already there or no topic of env, 0 or -ENOMEM; sorted
 * by name; compared (names, ids, partition counts).
 */
void gr_group_topics_free(gr_group_topic_t *topics, int32_t count);
int gr_group_topics_add(gr_group_topic_t *topics, int32_t *count, gr_group_env_t *env,
                        const char *name);
void gr_group_topics_sort(gr_group_topic_t *topics, int32_t count);
bool gr_group_topics_equal(const gr_group_topic_t *a, int32_t an, const gr_group_topic_t *b,
                           int32_t bn);

/* A NUL-terminated copy (NULL for a null string or on -ENOMEM). */
char *gr_group_strdup(gr_str_t s);
/* v's metadata as an owned copy (null as empty, NULs kept); NULL on -ENOMEM. */
char *gr_group_offset_metadata_dup(const gr_group_offset_value_t *v);
/* Stores v in o, which takes meta (from gr_group_offset_metadata_dup) and frees its old one. */
void gr_group_offset_assign(gr_group_offset_t *o, char *meta, const gr_group_offset_value_t *v);
/* Does the C string equal s (NULL equals null)? */
bool gr_group_str_is(const char *c, gr_str_t s);

gr_member_t *gr_member_new(gr_group_t *g, const char *member_id, gr_str_t instance_id,
                           gr_str_t client_id, gr_str_t client_host);
void gr_member_free(gr_member_t *m);
/* Replaces the member's protocols with copies. 0 or -ENOMEM. */
int gr_member_set_protocols(gr_member_t *m, const gr_join_protocol_t *in, int32_t count);
/* Same protocols, same order, same metadata? */
bool gr_member_matches(const gr_member_t *m, const gr_join_protocol_t *in, int32_t count);
bool gr_member_supports(const gr_member_t *m, const char *protocol);
int gr_member_set_assignment(gr_member_t *m, gr_bytes_t assignment);

gr_member_t *gr_group_find_static(const gr_group_t *g, gr_str_t instance_id);
bool gr_group_supports_protocols(const gr_group_t *g, gr_str_t protocol_type,
                                 const gr_join_protocol_t *protocols, int32_t count);
/* The protocol the members agree on (owned by a member), NULL if none. */
const char *gr_group_select_protocol(const gr_group_t *g);
/* Recomputes g->subscribed_topics for the chosen protocol. */
void gr_group_compute_subscriptions(gr_group_t *g);
void gr_group_subscriptions_free(gr_group_t *g);
void gr_group_offsets_free(gr_group_t *g);
void gr_group_txn_offsets_free(gr_group_t *g);
/* Drops every member and pending member (replay replaces them); keeps offsets. */
void gr_group_clear(gr_group_t *g, gr_group_env_t *env);
/* Drops every member and pending member, answering waiting requests with err (a conversion). */
void gr_group_remove_all(gr_group_t *g, gr_group_env_t *env, gr_kerr_t err);
/* Starts a rebalance if the group is Stable, CompletingRebalance or Empty (a conversion). */
void gr_group_rebalance(gr_group_t *g, gr_group_env_t *env);

#endif
