/* SPDX-License-Identifier: Apache-2.0 */
/* The coordinator's groups counted by type and state; see group_census.h. */
#include "group/group_census.h"

#include <string.h>

static void count_group(const gr_group_t *g, gr_group_census_t *out)
{
    out->offsets += g->offset_count;
    /* A dead group has lost its type's own state (as group_listing.c reads it). */
    if (g->type == GR_GROUP_TYPE_CONSUMER && g->consumer && g->state != GR_GROUP_DEAD)
        out->consumer[g->consumer->state]++;
    else if (g->type == GR_GROUP_TYPE_CONSUMER)
        out->consumer[GR_CGROUP_DEAD]++;
    else if (g->type == GR_GROUP_TYPE_SHARE && g->share && g->state != GR_GROUP_DEAD)
        out->share[g->share->state]++;
    else if (g->type == GR_GROUP_TYPE_SHARE)
        out->share[GR_SGROUP_DEAD]++;
    else
        out->classic[g->state]++;
}

void gr_group_census_take(const gr_coordinator_t *co, gr_group_census_t *out)
{
    memset(out, 0, sizeof *out);
    out->partitions = gr_coordinator_runtime_owned(&co->runtime);
    for (const gr_coordinator_key_t *k = gr_coordinator_keys_first(&co->table); k;
         k = gr_coordinator_keys_next(&co->table, k))
        count_group(GR_COORDINATOR_ENTRY(k, const gr_group_t, key), out);
}
