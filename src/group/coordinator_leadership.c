/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which groups this broker coordinates, on the coordinator runtime
 * (coordinator/runtime.h, T = __consumer_offsets): the elections and
 * resignations it is told of, the groups a resigned partition unloads, the
 * routing checks the group handlers make, and FindCoordinator's answer for a
 * group.
 *
 * Runs on: loop thread.
 */
#include "group/coordinator.h"
#include "group/coordinator_int.h"
#include "group/group_int.h"

gr_coordinator_load_t gr_coordinator_load_state(const gr_coordinator_t *co, int32_t partition)
{
    return gr_coordinator_runtime_state(&co->runtime, partition);
}

gr_partition_t *gr_coordinator_led_partition(gr_coordinator_t *co, int32_t partition)
{
    return gr_coordinator_runtime_led_partition(&co->runtime, partition);
}

void gr_coordinator_partition_elected(gr_coordinator_t *co, int32_t partition, int32_t leader_epoch)
{
    gr_coordinator_runtime_elect(&co->runtime, partition, leader_epoch);
}

void gr_coordinator_partition_resigned(gr_coordinator_t *co, int32_t partition,
                                       int32_t leader_epoch)
{
    gr_coordinator_runtime_resign(&co->runtime, partition, leader_epoch);
}

/* gr_coordinator_keys_drop's fn: unloads and frees the group. */
static void unload_group(gr_coordinator_key_t *k, void *arg)
{
    gr_coordinator_t *co = arg;
    gr_group_t *g = GR_COORDINATOR_ENTRY(k, gr_group_t, key);
    gr_group_unload(g, &co->env);
    gr_group_free(g, &co->env);
}

size_t gr_coordinator_unload(void *owner, int32_t partition)
{
    gr_coordinator_t *co = owner;
    size_t n = gr_coordinator_keys_drop(&co->table, partition, unload_group, co);
    gr_coordinator_txn_forget(co, partition, NULL); /* the next load rebuilds pending offsets */
    return n;
}

gr_kerr_t gr_coordinator_check(gr_coordinator_t *co, gr_str_t id, int32_t *partition)
{
    return gr_coordinator_runtime_check(&co->runtime, id, partition);
}

bool gr_coordinator_loading(const gr_coordinator_t *co)
{
    return gr_coordinator_runtime_loading(&co->runtime);
}

gr_kerr_t gr_coordinator_locate(gr_coordinator_t *co, gr_str_t id, gr_coordinator_node_t *out)
{
    return gr_coordinator_runtime_locate(&co->runtime, id, out);
}
