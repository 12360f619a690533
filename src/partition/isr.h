/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rules a partition leader follows for its in-sync replicas and high
 * watermark, as Kafka's: pure functions over the followers' progress and the
 * caller's clock, so they are tested on a fake one (tests/unit).
 *
 *  - A follower's fetch at offset F tells the leader F is its log end offset.
 *    It is caught up at that moment when F reaches the leader's log end
 *    offset; when F only reaches the leader's log end offset of the
 *    follower's previous fetch, it was caught up at that previous fetch.
 *  - A follower is out of sync when its log end offset differs from the
 *    leader's and it has not been caught up for replica.lag.time.max.ms.
 *  - A follower outside the ISR joins it when its log end offset reaches the
 *    high watermark and the start of the leader's current epoch (so it holds
 *    every record this leader may have acknowledged).
 *  - The high watermark is the smallest log end offset among the ISR (the
 *    leader's own counts), and never moves back while this broker leads.
 *
 * Runs on: any thread (no state of its own).
 */
#ifndef GR_PARTITION_ISR_H
#define GR_PARTITION_ISR_H

#include <stdbool.h>
#include <stdint.h>

#define GR_OFFSET_UNKNOWN (-1LL)

/* What a leader knows of one follower. */
typedef struct gr_follower {
    int32_t id;
    int64_t log_end_offset;        /* its last fetch offset; GR_OFFSET_UNKNOWN before one */
    int64_t last_caught_up_ms;     /* when it last had the leader's whole log */
    int64_t last_fetch_ms;         /* when it last fetched */
    int64_t last_fetch_leader_leo; /* the leader's log end offset at that fetch */
} gr_follower_t;

/* A follower this leader has not heard from yet, counted caught up as of now_ms. */
void gr_follower_init(gr_follower_t *f, int32_t id, int64_t now_ms);

/* Records a fetch at fetch_offset while the leader's log ends at leader_leo. */
void gr_follower_fetched(gr_follower_t *f, int64_t fetch_offset, int64_t leader_leo,
                         int64_t now_ms);

/* Whether f has fallen out of sync (see the file comment). */
bool gr_follower_lagging(const gr_follower_t *f, int64_t leader_leo, int64_t now_ms,
                         int64_t lag_max_ms);

/* Whether f, outside the ISR, may join it. */
bool gr_follower_may_join(const gr_follower_t *f, int64_t high_watermark,
                          int64_t epoch_start_offset);

/*
 * The high watermark given the ISR (ids, the leader among them): the
 * smallest log end offset of its members, leader_leo for the leader. A
 * member with no follower entry or an unknown offset holds it at current.
 * Never below current.
 */
int64_t gr_isr_high_watermark(int64_t current, int32_t leader, int64_t leader_leo,
                              const int32_t *isr, int32_t isr_count, const gr_follower_t *followers,
                              int32_t follower_count);

/*
 * Where a follower truncates after asking its new leader for the end of its
 * latest epoch (OffsetForLeaderEpoch, KIP-101 and KIP-279).
 *   leader_epoch, leader_end   the leader's answer: the largest epoch it has
 *                              at or below the one asked, and where it ends
 *                              (-1, -1: the leader knows no such epoch)
 *   local_epoch, local_end     this log's end of leader_epoch
 *                              (gr_log_end_offset_for_epoch: the largest
 *                              epoch it has at or below, and its end)
 *   log_end, high_watermark    this log's
 * done is false when the logs may still differ below offset: truncate, then
 * ask again with the log's new latest epoch.
 */
typedef struct gr_truncation {
    int64_t offset;
    bool done;
} gr_truncation_t;

gr_truncation_t gr_truncation_decide(int32_t leader_epoch, int64_t leader_end, int32_t local_epoch,
                                     int64_t local_end, int64_t log_end, int64_t high_watermark);

#endif
