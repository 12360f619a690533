/* SPDX-License-Identifier: Apache-2.0 */
/* The ISR, high-watermark and truncation rules; see isr.h. */
#include "partition/isr.h"

#include <stddef.h>

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

void gr_follower_init(gr_follower_t *f, int32_t id, int64_t now_ms)
{
    f->id = id;
    f->log_end_offset = GR_OFFSET_UNKNOWN;
    /* Kafka's grace: a replica named in sync keeps its place for one lag period. */
    f->last_caught_up_ms = now_ms;
    f->last_fetch_ms = now_ms;
    f->last_fetch_leader_leo = GR_OFFSET_UNKNOWN;
}

void gr_follower_fetched(gr_follower_t *f, int64_t fetch_offset, int64_t leader_leo, int64_t now_ms)
{
    if (fetch_offset >= leader_leo)
        f->last_caught_up_ms = max64(f->last_caught_up_ms, now_ms);
    else if (f->last_fetch_leader_leo >= 0 && fetch_offset >= f->last_fetch_leader_leo)
        f->last_caught_up_ms = max64(f->last_caught_up_ms, f->last_fetch_ms);
    f->log_end_offset = fetch_offset;
    f->last_fetch_ms = now_ms;
    f->last_fetch_leader_leo = leader_leo;
}

bool gr_follower_lagging(const gr_follower_t *f, int64_t leader_leo, int64_t now_ms,
                         int64_t lag_max_ms)
{
    return f->log_end_offset != leader_leo && now_ms - f->last_caught_up_ms > lag_max_ms;
}

bool gr_follower_may_join(const gr_follower_t *f, int64_t high_watermark,
                          int64_t epoch_start_offset)
{
    return f->log_end_offset >= 0 && f->log_end_offset >= high_watermark &&
           f->log_end_offset >= epoch_start_offset;
}

static const gr_follower_t *find(const gr_follower_t *followers, int32_t count, int32_t id)
{
    for (int32_t i = 0; i < count; i++)
        if (followers[i].id == id)
            return &followers[i];
    return NULL;
}

int64_t gr_isr_high_watermark(int64_t current, int32_t leader, int64_t leader_leo,
                              const int32_t *isr, int32_t isr_count, const gr_follower_t *followers,
                              int32_t follower_count)
{
    int64_t hw = leader_leo;
    for (int32_t i = 0; i < isr_count; i++) {
        if (isr[i] == leader)
            continue;
        const gr_follower_t *f = find(followers, follower_count, isr[i]);
        if (!f || f->log_end_offset < 0)
            return current;
        hw = min64(hw, f->log_end_offset);
    }
    return max64(hw, current);
}

gr_truncation_t gr_truncation_decide(int32_t leader_epoch, int64_t leader_end, int32_t local_epoch,
                                     int64_t local_end, int64_t log_end, int64_t high_watermark)
{
    if (leader_epoch < 0 || leader_end < 0) /* the leader has nothing of ours to compare */
        return (gr_truncation_t){min64(high_watermark, log_end), true};
    if (local_epoch < 0) /* our log kept no epochs that old: the leader's end is the bound */
        return (gr_truncation_t){min64(leader_end, log_end), true};
    if (local_epoch != leader_epoch) {
        /* Our log lacks leader_epoch: cut back to where our older epoch ends, ask again. */
        return (gr_truncation_t){min64(local_end, log_end), false};
    }
    return (gr_truncation_t){min64(min64(leader_end, local_end), log_end), true};
}
