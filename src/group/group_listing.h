/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How the admin APIs (ListGroups, DescribeGroups, DeleteGroups,
 * OffsetDelete) see a group of any kind, classic, KIP-848 consumer or
 * KIP-932 share, as Kafka's group coordinator shows them: its type name,
 * its state name (a consumer group's own states: Empty, Assigning,
 * Reconciling, Stable, Dead; a share group's: Empty, Stable, Dead), its
 * protocol type, and the filters ListGroups v4-5 apply. Read-only views
 * over gr_group_t, gr_cgroup_t and gr_sgroup_t; nothing here changes a
 * group.
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_GROUP_LISTING_H
#define GR_GROUP_GROUP_LISTING_H

#include <stdbool.h>
#include <stdint.h>

#include "group/group.h"
#include "protocol/types.h"

/* Kafka's GroupType names. */
#define GR_GROUP_TYPE_NAME_CLASSIC  "classic"
#define GR_GROUP_TYPE_NAME_CONSUMER "consumer"
#define GR_GROUP_TYPE_NAME_SHARE    "share"
/* The protocol type of a consumer group (Kafka's ConsumerProtocol.PROTOCOL_TYPE). */
#define GR_GROUP_PROTOCOL_TYPE_CONSUMER "consumer"

/* "classic", "consumer" or "share". */
const char *gr_group_type_name(const gr_group_t *g);
/*
 * A ListGroups TypesFilter entry, case-insensitive as Kafka's
 * GroupType.parse: GR_GROUP_TYPE_*, or -1 for any other name (Kafka's
 * "unknown", which no group here has: "streams", typos).
 */
int gr_group_type_parse(gr_str_t name);
/* The state as Kafka names it: a classic group's, or a consumer group's own. */
const char *gr_group_listed_state(const gr_group_t *g);
/*
 * The protocol type: a classic group's own ("" when it has none), "consumer"
 * for a consumer group, "share" for a share group.
 */
const char *gr_group_listed_protocol_type(const gr_group_t *g);
/*
 * ListGroups' filters: true when g's state is one of states (compared
 * case-insensitively, as Kafka lower-cases and trims both sides; an empty
 * list matches everything) and its type one of types (same rule).
 */
bool gr_group_listing_wanted(const gr_group_t *g, const gr_str_t *states, int32_t state_count,
                             const gr_str_t *types, int32_t type_count);
/*
 * OffsetDelete's rule (Kafka's isSubscribedToTopic): does a member of g
 * subscribe to topic? A consumer group answers from its members'
 * subscriptions, a classic one from its members' protocol metadata.
 */
bool gr_group_listing_subscribed(const gr_group_t *g, gr_str_t topic);

#endif
