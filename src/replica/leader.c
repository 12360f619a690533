/* SPDX-License-Identifier: Apache-2.0 */
/* A leader's followers, high watermark and ISR changes; see leader.h. */
#include "replica/leader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "protocol/kerr.h"
#include "replica/alter_partition.h"
#include "replica/replication.h"

static gr_follower_t *follower_find(gr_partition_t *p, int32_t id)
{
    for (int32_t i = 0; i < p->follower_count; i++)
        if (p->followers[i].id == id)
            return &p->followers[i];
    return NULL;
}

int gr_replica_lead(gr_broker_t *b, gr_partition_t *p, int32_t previous_epoch, bool was_leader)
{
    int64_t now = gr_broker_now_ms(b);
    bool same_epoch = was_leader && previous_epoch == p->leader_epoch;
    int32_t others = 0;
    for (int32_t i = 0; i < p->replica_count; i++)
        others += p->replicas[i] != p->leader_id;
    /* Exactly the followers: none (no allocation) for a partition without replicas elsewhere. */
    gr_follower_t *next = others ? calloc((size_t)others, sizeof *next) : NULL;
    if (others && !next)
        return -ENOMEM;
    int32_t n = 0;
    for (int32_t i = 0; i < p->replica_count; i++) {
        if (p->replicas[i] == p->leader_id)
            continue;
        gr_follower_t *old = same_epoch ? follower_find(p, p->replicas[i]) : NULL;
        if (old)
            next[n] = *old;
        else
            gr_follower_init(&next[n], p->replicas[i], now);
        n++;
    }
    if (!same_epoch) {
        gr_partition_drop_followers(p);
        p->epoch_start_offset = gr_log_end_offset(p->log);
    }
    free(p->followers);
    p->followers = next;
    p->follower_count = n;
    (void)gr_partition_update_high_watermark(p);
    return 0;
}

void gr_replica_isr_set(gr_broker_t *b, gr_partition_t *p)
{
    if (gr_partition_led_by(p, b->config.broker_id))
        (void)gr_partition_update_high_watermark(p);
}

/* A copy of the ISR with id added. */
static int32_t *isr_with(const gr_partition_t *p, int32_t id, int32_t *count)
{
    int32_t *isr = malloc(sizeof(int32_t) * ((size_t)p->isr_count + 1));
    if (!isr)
        return NULL;
    memcpy(isr, p->isr, sizeof(int32_t) * (size_t)p->isr_count);
    isr[p->isr_count] = id;
    *count = p->isr_count + 1;
    return isr;
}

int16_t gr_replica_follower_fetch(gr_broker_t *b, gr_partition_t *p, int32_t replica,
                                  int64_t fetch_offset)
{
    gr_follower_t *f = follower_find(p, replica);
    if (!f)
        return GR_KERR_NOT_LEADER_OR_FOLLOWER;
    int64_t leo = gr_log_end_offset(p->log);
    if (fetch_offset > leo || fetch_offset < 0)
        return GR_KERR_NONE; /* the read answers OFFSET_OUT_OF_RANGE */
    gr_follower_fetched(f, fetch_offset, leo, gr_broker_now_ms(b));
    if (!gr_partition_in_isr(p, replica) && !p->proposed_isr &&
        gr_follower_may_join(f, gr_log_high_watermark(p->log), p->epoch_start_offset)) {
        int32_t n = 0;
        int32_t *isr = isr_with(p, replica, &n);
        if (isr)
            gr_replica_propose_isr(b, p, isr, n);
        free(isr);
    }
    (void)gr_partition_update_high_watermark(p);
    return GR_KERR_NONE;
}

/* Proposes the ISR without the followers out of sync, when any is. */
static void check_partition(gr_broker_t *b, gr_partition_t *p, int64_t now)
{
    if (!gr_partition_led_by(p, b->config.broker_id) || p->proposed_isr || p->isr_count <= 1)
        return;
    int64_t leo = gr_log_end_offset(p->log);
    int32_t small[16]; /* no malloc per partition per check for the usual ISR sizes */
    int32_t *isr = p->isr_count <= 16 ? small : malloc(sizeof(int32_t) * (size_t)p->isr_count);
    if (!isr)
        return;
    int32_t n = 0;
    for (int32_t i = 0; i < p->isr_count; i++) {
        const gr_follower_t *f = follower_find(p, p->isr[i]);
        if (p->isr[i] != p->leader_id &&
            (!f || gr_follower_lagging(f, leo, now, b->config.replica_lag_time_max_ms)))
            continue;
        isr[n++] = p->isr[i];
    }
    if (n < p->isr_count)
        gr_replica_propose_isr(b, p, isr, n);
    if (isr != small)
        free(isr);
}

static void check_topic(gr_topic_t *topic, void *arg)
{
    gr_broker_t *b = arg;
    int64_t now = gr_broker_now_ms(b);
    for (int32_t i = 0; i < topic->partition_count; i++)
        check_partition(b, &topic->partitions[i], now);
}

static void on_isr_check(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_broker_t *b = w->data;
    gr_topics_foreach(b->topics, check_topic, b);
}

void gr_replica_leader_start(gr_broker_t *b)
{
    double every = (double)b->config.replica_lag_time_max_ms / 2 / 1000.0;
    if (every <= 0)
        every = 1;
    ev_timer_init(&b->replication->isr_check, on_isr_check, every, every);
    b->replication->isr_check.data = b;
    ev_timer_start(b->loop, &b->replication->isr_check);
    ev_unref(b->loop); /* the loop may end while only this runs */
}

void gr_replica_leader_stop(gr_broker_t *b)
{
    if (!ev_is_active(&b->replication->isr_check))
        return;
    ev_ref(b->loop);
    ev_timer_stop(b->loop, &b->replication->isr_check);
}
