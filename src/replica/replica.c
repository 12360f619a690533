/* SPDX-License-Identifier: Apache-2.0 */
#include "replica/replica.h"

#include <string.h>

#include "core/context.h"
#include "metadata/topics_cluster.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "replica/fetcher.h"
#include "replica/leader.h"

static void tell_leadership(gr_broker_t *b, gr_partition_t *p, bool led_here, int32_t epoch)
{
    if (b->on_leadership)
        b->on_leadership(b, p, led_here, epoch);
}

/* Leads or follows p here, as its placement says. */
static gr_kerr_t take_role(gr_broker_t *b, gr_partition_t *p, int32_t previous_epoch,
                           bool was_leader)
{
    if (!gr_partition_led_by(p, b->config.broker_id)) {
        gr_partition_drop_followers(p);
        gr_replica_follow(b, p);
        return GR_KERR_NONE;
    }
    gr_replica_unfollow(b, p);
    if (gr_replica_lead(b, p, previous_epoch, was_leader)) {
        gr_logf(&b->log, GR_LOG_ERROR, "replica", "out of memory leading %s-%d", p->topic->name,
                p->index);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    return GR_KERR_NONE;
}

gr_kerr_t gr_replica_apply(gr_broker_t *b, gr_partition_t *p, int32_t previous_epoch,
                           bool was_leader)
{
    int32_t self = b->config.broker_id;
    if (!gr_partition_has_replica(p, self)) {
        gr_replica_stop(b, p, false);
        return GR_KERR_NONE;
    }
    int rc = gr_partition_host(b, p);
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "controller", "cannot host %s-%d: %s", p->topic->name,
                p->index, strerror(-rc));
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    gr_kerr_t err = take_role(b, p, previous_epoch, was_leader);
    if (err)
        return err;
    bool led_here = gr_partition_led_by(p, self);
    if (led_here != was_leader || previous_epoch != p->leader_epoch)
        gr_partition_wake(p); /* waiting produces and fetches see the change */
    tell_leadership(b, p, led_here, p->leader_epoch);
    return GR_KERR_NONE;
}

void gr_replica_stop(gr_broker_t *b, gr_partition_t *p, bool delete_data)
{
    gr_replica_unfollow(b, p);
    gr_partition_drop_followers(p);
    gr_partition_unhost(b, p, delete_data);
}
