/* SPDX-License-Identifier: Apache-2.0 */
/* The active controller's view of the cluster, counted; see controller.h. */
#include <string.h>

#include "controller/controller_int.h"

/* Whether p has no live leader (Kafka's OfflinePartition). */
static bool offline(gr_controller_t *c, const gr_ctl_partition_t *p)
{
    return p->has_state &&
           (p->state.leader == GR_NO_BROKER || !ctl_broker_find(c, p->state.leader));
}

void gr_controller_census_take(gr_controller_t *c, gr_controller_census_t *out)
{
    memset(out, 0, sizeof *out);
    out->unclean_elections = c->unclean_elections;
    if (!c->active)
        return;
    out->brokers = (int64_t)c->broker_count;
    for (const gr_ctl_topic_t *t = c->topics; t; t = t->next) {
        out->topics++;
        out->partitions += t->partition_count;
        if (t->deleting)
            continue; /* as Kafka, whose counts leave out topics being deleted */
        for (int32_t i = 0; i < t->partition_count; i++) {
            const gr_ctl_partition_t *p = &t->partitions[i];
            out->offline += offline(c, p);
            out->imbalanced +=
                p->has_state && p->replica_count > 0 && p->state.leader != p->replicas[0];
        }
    }
}
