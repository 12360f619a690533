/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group coordinator's side of transactions (KIP-98): offsets a
 * transactional producer commits (TxnOffsetCommit, written by
 * coordinator_records.c) stay pending in their group until the
 * transaction's marker lands on the group's __consumer_offsets partition;
 * COMMIT makes them the committed offsets, ABORT drops them.
 *
 * A pending offset's life:
 *
 *   TxnOffsetCommit appended ──▶ pending (gr_coordinator_txn_pending_set)
 *   pending ──COMMIT marker──▶ committed, unless a commit later in the log
 *             is there (gr_coordinator_txn_complete)
 *   pending ──ABORT marker──▶ dropped (gr_coordinator_txn_complete)
 *   pending ──OffsetDelete / topic deleted / group deleted / partition
 *             unloaded──▶ dropped (as Kafka's removeOffsets; an unload is
 *             rebuilt by the next load's replay)
 *
 * Retention never expires a pending offset, and a group holding one is not
 * removed as empty. Markers come from the live path
 * (gr_coordinator_txn_marker, through the broker's on_txn_marker hook) and
 * from the replay (coordinator_load.c), which applies them in log order; a
 * transaction still open at the end of a replay stays pending.
 *
 * The index txn_groups lists the (producer, group) pairs with pending
 * offsets, so a marker touches only its producer's groups rather than every
 * group of the partition (a replay may meet a marker per transaction).
 * Entries may outlive their group's pending offsets (a deleted group): a
 * marker then finds nothing to do and drops the entry.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "group/coordinator.h"
#include "group/coordinator_int.h"
#include "group/group_int.h"

static bool index_has(const gr_coordinator_t *co, int64_t producer_id, const char *group_id)
{
    for (int32_t i = 0; i < co->txn_group_count; i++)
        if (co->txn_groups[i].producer_id == producer_id &&
            strcmp(co->txn_groups[i].group_id, group_id) == 0)
            return true;
    return false;
}

static int index_add(gr_coordinator_t *co, int64_t producer_id, const gr_group_t *g)
{
    if (index_has(co, producer_id, g->key.id))
        return 0;
    if (co->txn_group_count == co->txn_group_cap) {
        int32_t cap = co->txn_group_cap ? co->txn_group_cap * 2 : 8;
        gr_coordinator_txn_group_t *grown = realloc(co->txn_groups, sizeof(*grown) * (size_t)cap);
        if (!grown)
            return -ENOMEM;
        co->txn_groups = grown;
        co->txn_group_cap = cap;
    }
    char *id = strdup(g->key.id);
    if (!id)
        return -ENOMEM;
    co->txn_groups[co->txn_group_count++] =
        (gr_coordinator_txn_group_t){producer_id, g->key.partition, id};
    return 0;
}

static void index_remove_at(gr_coordinator_t *co, int32_t i)
{
    free(co->txn_groups[i].group_id);
    co->txn_groups[i] = co->txn_groups[--co->txn_group_count];
}

int gr_coordinator_txn_pending_set(gr_coordinator_t *co, gr_group_t *g, int64_t producer_id,
                                   gr_str_t topic, int32_t partition,
                                   const gr_group_offset_value_t *v)
{
    /* Index first: a pending offset the index misses would never complete. */
    int rc = index_add(co, producer_id, g);
    return rc ? rc : gr_group_txn_offset_set(g, producer_id, topic, partition, v);
}

void gr_coordinator_txn_complete(gr_coordinator_t *co, int32_t partition, int64_t producer_id,
                                 bool commit)
{
    for (int32_t i = 0; i < co->txn_group_count;) {
        gr_coordinator_txn_group_t *e = &co->txn_groups[i];
        if (e->producer_id != producer_id || e->partition != partition) {
            i++;
            continue;
        }
        gr_group_t *g = gr_coordinator_find(co, gr_str(e->group_id));
        if (g && g->key.partition == partition &&
            gr_group_txn_offset_complete(g, producer_id, commit) < 0)
            gr_logf(&co->broker->log, GR_LOG_ERROR, "group",
                    "group %s: out of memory committing the offsets of producer %" PRId64,
                    g->key.id, producer_id);
        index_remove_at(co, i); /* slot i now holds another entry */
    }
}

void gr_coordinator_txn_marker(gr_coordinator_t *co, int32_t partition, int64_t producer_id,
                               bool commit)
{
    if (!co->table.buckets || gr_coordinator_load_state(co, partition) != GR_COORDINATOR_LOADED ||
        !gr_coordinator_led_partition(co, partition))
        return;
    gr_coordinator_txn_complete(co, partition, producer_id, commit);
}

void gr_coordinator_txn_forget(gr_coordinator_t *co, int32_t partition, const char *group_id)
{
    for (int32_t i = 0; i < co->txn_group_count;) {
        const gr_coordinator_txn_group_t *e = &co->txn_groups[i];
        if (e->partition == partition && (!group_id || strcmp(e->group_id, group_id) == 0))
            index_remove_at(co, i);
        else
            i++;
    }
}

void gr_coordinator_txn_fini(gr_coordinator_t *co)
{
    while (co->txn_group_count > 0)
        index_remove_at(co, co->txn_group_count - 1);
    free(co->txn_groups);
    co->txn_groups = NULL;
    co->txn_group_cap = 0;
}
