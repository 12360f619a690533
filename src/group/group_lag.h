/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Consumer-group lag as the group coordinator sees it: every committed
 * offset of the classic and consumer groups loaded here, next to its
 * partition's high watermark and last stable offset, for the metrics page
 * (observe/metrics_lag.c). Each group is reported by its coordinator alone,
 * so sums across brokers count every group once.
 *
 * Where a partition's ends come from:
 *  - a replica here (leader or follower): its log, read at the scrape;
 *  - otherwise the partition's leader, asked with ListOffsets (latest; once
 *    read_uncommitted for the high watermark, once read_committed for the
 *    last stable offset), one request per leader and isolation level, over
 *    net/peer.h. The answers fill a cache that the scrape reads; a refresh
 *    starts from a scrape at most every GR_GROUP_LAG_REFRESH_MS, and only
 *    when the previous one has ended, so a scrape never waits: it answers
 *    with the last values known. A value older than GR_GROUP_LAG_STALE_MS,
 *    a partition without a known leader, or an error from the leader is
 *    unknown (-1): no lag sample for it.
 *
 * Share groups are left out: their start offsets live in the share
 * coordinator, not in committed offsets.
 *
 * The cache lives in the coordinator (co->lag), made at the first scrape and
 * freed by gr_coordinator_fini.
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_GROUP_LAG_H
#define GR_GROUP_GROUP_LAG_H

#include <stdint.h>

#include "group/group.h"

#define GR_GROUP_LAG_REFRESH_MS 2000  /* at most one round of ListOffsets per this */
#define GR_GROUP_LAG_STALE_MS   60000 /* a remote answer older than this is unknown */

typedef struct gr_coordinator gr_coordinator_t;
typedef struct gr_group_lag gr_group_lag_t;

/* One committed offset with its partition's ends (-1: unknown). */
typedef struct gr_group_lag_row {
    const char *group_id; /* the group's own string: valid until the loop turns */
    const char *topic;    /* likewise */
    int32_t partition;
    int64_t committed;
    int64_t high_watermark;
    int64_t last_stable;
} gr_group_lag_row_t;

/*
 * The committed offsets of every classic and consumer group loaded here,
 * sorted by group id, topic, partition, into *out (the caller frees it;
 * NULL when there are none). Starts a refresh of the remote ends when one
 * is due (see the file comment); never waits for it.
 * Returns the row count, 0 when the coordinator is finished, or -ENOMEM.
 */
int gr_group_lag_rows(gr_coordinator_t *co, gr_group_lag_row_t **out /* out */);

/* The group's members: classic members, or a consumer group's (classic ones included). */
int32_t gr_group_lag_members(const gr_group_t *g);

/* Frees the cache; requests in flight are cancelled first. lag may be NULL. */
void gr_group_lag_free(gr_group_lag_t *lag);

#endif
