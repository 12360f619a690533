/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What gregor-admin's groups subcommands share (cmd_groups.c: list,
 * delete, reset-offsets and the offset look-ups; cmd_groups_describe.c:
 * describe of either kind of group, classic or KIP-848 consumer), and
 * share-groups describe's member and state views (cmd_share_groups_describe.c).
 */
#ifndef GR_ADMIN_GROUPS_H
#define GR_ADMIN_GROUPS_H

#include "admin/admin.h"

#define GR_ADMIN_NO_OFFSET      (-1LL)
#define GR_ADMIN_PARTITIONS_MAX 10000

/* One partition's offsets: committed (-1 none), log start and end, the reset target. */
typedef struct gr_admin_part_offsets {
    gr_str_t topic;
    int32_t partition;
    int64_t committed;
    int64_t earliest;
    int64_t latest;
    int64_t target;
    int32_t leader_epoch; /* of the commit; read only when committed >= 0 (-1: none) */
} gr_admin_part_offsets_t;

/* The group's committed offsets (all topics), up to max. Count, or -1 (printed). */
int gr_admin_groups_committed(gr_admin_t *a, const char *group, gr_admin_part_offsets_t *out,
                              int max);
/*
 * Fills earliest or latest (ts: GR_LIST_OFFSETS_TIMESTAMP_*), or with
 * into_target the offset of time ts, of each of n partitions. 0 or -1.
 */
int gr_admin_groups_list_offsets(gr_admin_t *a, gr_admin_part_offsets_t *parts, int n, int64_t ts,
                                 bool into_target);

/*
 * The partitions --topic T / T:p,q,... names, up to GR_ADMIN_PARTITIONS_MAX.
 * Count, -1 (failed) or -2 (bad usage), the message printed.
 */
int gr_admin_groups_topic_scope(gr_admin_t *a, gr_admin_part_offsets_t *parts);
/* Parses YYYY-MM-DDTHH:MM:SS[.mmm] (UTC) into ms since the epoch; -1 if invalid. */
int64_t gr_admin_groups_parse_datetime(const char *text);

/*
 * DeleteGroups of group, on the broker the connection is at; prints
 * "Deleted <kind> group G." (or the JSON object, or the error). An exit code.
 */
int gr_admin_groups_delete(gr_admin_t *a, const char *group, const char *kind);

/* groups describe (--offsets, the default; --members; --state; --verbose). An exit code. */
int gr_admin_groups_describe(gr_admin_t *a);
/*
 * Runs run once per group when --all-groups or several --group are given
 * (in group id order, --group set to each; cmd_groups_each.c), else once.
 * The worst exit code.
 */
int gr_admin_groups_each(gr_admin_t *a, int (*run)(gr_admin_t *a));
/* groups delete-offsets (cmd_groups_offsets.c): OffsetDelete, as kafka-consumer-groups.sh. */
int gr_admin_groups_delete_offsets(gr_admin_t *a);
/*
 * The group's state as Kafka's admin client reads it: ConsumerGroupDescribe
 * first, DescribeGroups when the group is not a consumer group ("Dead" for
 * no group). 0, or an exit code (printed). *state lives in a->arena.
 */
int gr_admin_groups_state(gr_admin_t *a, const char *group, const char **state);

/*
 * share-groups describe --members / --state (cmd_share_groups_describe.c),
 * on a connection already at the group's coordinator. An exit code.
 */
int gr_admin_share_groups_describe_group(gr_admin_t *a, const char *group,
                                         const gr_admin_broker_t *coordinator);

#endif
