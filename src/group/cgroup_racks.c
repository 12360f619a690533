/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The racks of the subscribed topics' partitions, as the assignors take
 * them (gr_assignor_topic_t's partition_racks), gathered through the env
 * when some member has a rack: the racks of the brokers holding each
 * partition's replicas. Without a member rack, or without any partition
 * rack, the topics get none and the assignors place by balance alone.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>

#include "group/cgroup_int.h"

/* Replicas per partition whose racks are kept (Kafka's replication factors are far below). */
#define GR_CGROUP_RACKS_PER_PARTITION 16

static bool some_member_rack(const gr_cgroup_t *cg)
{
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        if (m->rack_id)
            return true;
    return false;
}

void gr_cgroup_racks_free(gr_cgroup_racks_t *r)
{
    free(r->names);
    free(r->per_partition);
    free(r->counts);
    *r = (gr_cgroup_racks_t){0};
}

/* Fills topics[t].partition_racks for every topic of cg (topics[] in cg->topics' order). */
static void racks_point(gr_cgroup_racks_t *r, const gr_cgroup_t *cg, gr_assignor_topic_t *topics)
{
    int32_t first = 0;
    for (int32_t t = 0; t < cg->topic_count; t++) {
        topics[t].partition_racks = (const char *const *const *)&r->per_partition[first];
        topics[t].partition_rack_count = &r->counts[first];
        first += cg->topics[t].partition_count;
    }
}

int gr_cgroup_racks_gather(gr_cgroup_racks_t *r, const gr_cgroup_t *cg, gr_group_env_t *env,
                           gr_assignor_topic_t *topics)
{
    *r = (gr_cgroup_racks_t){0};
    if (!env->partition_racks || !some_member_rack(cg))
        return 0;
    int32_t total = 0;
    for (int32_t t = 0; t < cg->topic_count; t++)
        total += cg->topics[t].partition_count;
    r->names = calloc((size_t)total * GR_CGROUP_RACKS_PER_PARTITION + 1, sizeof(*r->names));
    r->per_partition = calloc((size_t)total + 1, sizeof(*r->per_partition));
    r->counts = calloc((size_t)total + 1, sizeof(*r->counts));
    if (!r->names || !r->per_partition || !r->counts) {
        gr_cgroup_racks_free(r);
        return -ENOMEM;
    }
    bool any = false;
    for (int32_t t = 0, g = 0; t < cg->topic_count; t++)
        for (int32_t p = 0; p < cg->topics[t].partition_count; p++, g++) {
            r->per_partition[g] = &r->names[(size_t)g * GR_CGROUP_RACKS_PER_PARTITION];
            r->counts[g] = env->partition_racks(env->opaque, cg->topics[t].name, p,
                                                r->per_partition[g], GR_CGROUP_RACKS_PER_PARTITION);
            any = any || r->counts[g] > 0;
        }
    if (!any) {
        gr_cgroup_racks_free(r);
        return 0;
    }
    racks_point(r, cg, topics);
    return 0;
}
