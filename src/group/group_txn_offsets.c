/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A group's pending transactional offsets (KIP-98): what TxnOffsetCommit
 * wrote for a producer whose transaction has not ended. They are invisible
 * to OffsetFetch (which reads only the committed offsets) until the
 * transaction's marker completes them.
 *
 * Invariants: at most one entry per (producer id, topic, partition); every
 * entry's log_offset is the base offset of the transactional batch that
 * wrote it, so completing a commit can tell which of a pending and a
 * committed offset came later in the log. A small array searched linearly:
 * a group has few producers in flight, each committing the partitions it
 * consumed.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "group/group_int.h"

static gr_group_txn_offset_t *txn_find(const gr_group_t *g, int64_t producer_id, gr_str_t topic,
                                       int32_t partition)
{
    for (int32_t i = 0; i < g->txn_offset_count; i++) {
        gr_group_txn_offset_t *t = &g->txn_offsets[i];
        if (t->producer_id == producer_id && t->offset.partition == partition &&
            gr_group_str_is(t->offset.topic, topic))
            return t;
    }
    return NULL;
}

/* A new zeroed entry holding a copy of topic; NULL on -ENOMEM. */
static gr_group_txn_offset_t *txn_add(gr_group_t *g, int64_t producer_id, gr_str_t topic,
                                      int32_t partition)
{
    if (g->txn_offset_count == g->txn_offset_cap) {
        int32_t cap = g->txn_offset_cap ? g->txn_offset_cap * 2 : 4;
        gr_group_txn_offset_t *grown = realloc(g->txn_offsets, sizeof(*grown) * (size_t)cap);
        if (!grown)
            return NULL;
        g->txn_offsets = grown;
        g->txn_offset_cap = cap;
    }
    gr_group_txn_offset_t *t = &g->txn_offsets[g->txn_offset_count];
    memset(t, 0, sizeof(*t));
    if (!(t->offset.topic = gr_group_strdup(topic)))
        return NULL;
    t->producer_id = producer_id;
    t->offset.partition = partition;
    g->txn_offset_count++;
    return t;
}

/* Frees entry i's strings and fills its slot with the last entry. */
static void txn_remove_at(gr_group_t *g, int32_t i)
{
    free(g->txn_offsets[i].offset.topic);
    free(g->txn_offsets[i].offset.metadata);
    g->txn_offsets[i] = g->txn_offsets[--g->txn_offset_count];
}

int gr_group_txn_offset_set(gr_group_t *g, int64_t producer_id, gr_str_t topic, int32_t partition,
                            const gr_group_offset_value_t *v)
{
    char *meta = gr_group_offset_metadata_dup(v);
    if (!meta)
        return -ENOMEM;
    gr_group_txn_offset_t *t = txn_find(g, producer_id, topic, partition);
    if (!t && !(t = txn_add(g, producer_id, topic, partition))) {
        free(meta);
        return -ENOMEM;
    }
    gr_group_offset_assign(&t->offset, meta, v);
    return 0;
}

bool gr_group_txn_offset_remove(gr_group_t *g, int64_t producer_id, gr_str_t topic,
                                int32_t partition)
{
    gr_group_txn_offset_t *t = txn_find(g, producer_id, topic, partition);
    if (!t)
        return false;
    txn_remove_at(g, (int32_t)(t - g->txn_offsets));
    return true;
}

void gr_group_txn_offset_drop(gr_group_t *g, gr_str_t topic, int32_t partition)
{
    for (int32_t i = 0; i < g->txn_offset_count;) {
        const gr_group_offset_t *o = &g->txn_offsets[i].offset;
        if ((partition < 0 || o->partition == partition) && gr_group_str_is(o->topic, topic))
            txn_remove_at(g, i); /* slot i now holds another entry: look at it again */
        else
            i++;
    }
}

bool gr_group_txn_offset_pending(const gr_group_t *g, gr_str_t topic, int32_t partition)
{
    for (int32_t i = 0; i < g->txn_offset_count; i++) {
        const gr_group_offset_t *o = &g->txn_offsets[i].offset;
        if (o->partition == partition && gr_group_str_is(o->topic, topic))
            return true;
    }
    return false;
}

bool gr_group_txn_offset_has_producer(const gr_group_t *g, int64_t producer_id)
{
    for (int32_t i = 0; i < g->txn_offset_count; i++)
        if (g->txn_offsets[i].producer_id == producer_id)
            return true;
    return false;
}

/* Makes pending offset o the committed one unless the committed one is later in the log. */
static int txn_apply(gr_group_t *g, const gr_group_offset_t *o)
{
    gr_str_t topic = gr_str(o->topic);
    const gr_group_offset_t *current = gr_group_offset_find(g, topic, o->partition);
    if (current && current->log_offset > o->log_offset)
        return 0;
    gr_group_offset_value_t v = {.offset = o->offset,
                                 .leader_epoch = o->leader_epoch,
                                 .metadata = gr_group_offset_metadata(o),
                                 .commit_timestamp = o->commit_timestamp,
                                 .expire_timestamp = o->expire_timestamp,
                                 .log_offset = o->log_offset};
    return gr_group_offset_set(g, topic, o->partition, &v);
}

int gr_group_txn_offset_complete(gr_group_t *g, int64_t producer_id, bool commit)
{
    int rc = 0;
    for (int32_t i = 0; i < g->txn_offset_count;) {
        if (g->txn_offsets[i].producer_id != producer_id) {
            i++;
            continue;
        }
        if (commit && txn_apply(g, &g->txn_offsets[i].offset) < 0)
            rc = -ENOMEM;
        txn_remove_at(g, i);
    }
    return rc;
}

void gr_group_txn_offsets_free(gr_group_t *g)
{
    while (g->txn_offset_count > 0)
        txn_remove_at(g, g->txn_offset_count - 1);
    free(g->txn_offsets);
    g->txn_offsets = NULL;
    g->txn_offset_cap = 0;
}
