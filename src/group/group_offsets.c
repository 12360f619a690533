/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A group's committed offsets: a small array searched linearly. A group
 * commits for the partitions it consumes, typically a few hundred at most.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "group/group_int.h"

gr_group_offset_t *gr_group_offset_find(gr_group_t *g, gr_str_t topic, int32_t partition)
{
    for (int32_t i = 0; i < g->offset_count; i++) {
        gr_group_offset_t *o = &g->offsets[i];
        if (o->partition == partition && gr_group_str_is(o->topic, topic))
            return o;
    }
    return NULL;
}

static gr_group_offset_t *offset_add(gr_group_t *g, gr_str_t topic, int32_t partition)
{
    if (g->offset_count == g->offset_cap) {
        int32_t cap = g->offset_cap ? g->offset_cap * 2 : 8;
        gr_group_offset_t *grown = realloc(g->offsets, sizeof(*grown) * (size_t)cap);
        if (!grown)
            return NULL;
        g->offsets = grown;
        g->offset_cap = cap;
    }
    gr_group_offset_t *o = &g->offsets[g->offset_count];
    memset(o, 0, sizeof(*o));
    if (!(o->topic = gr_group_strdup(topic)))
        return NULL;
    o->partition = partition;
    g->offset_count++;
    return o;
}

char *gr_group_offset_metadata_dup(const gr_group_offset_value_t *v)
{
    return gr_group_strdup(v->metadata.len >= 0 ? v->metadata : gr_str(""));
}

void gr_group_offset_assign(gr_group_offset_t *o, char *meta, const gr_group_offset_value_t *v)
{
    free(o->metadata);
    o->metadata = meta;
    o->metadata_len = v->metadata.len >= 0 ? v->metadata.len : 0;
    o->offset = v->offset;
    o->leader_epoch = v->leader_epoch;
    o->commit_timestamp = v->commit_timestamp;
    o->expire_timestamp = v->expire_timestamp;
    o->log_offset = v->log_offset;
}

int gr_group_offset_set(gr_group_t *g, gr_str_t topic, int32_t partition,
                        const gr_group_offset_value_t *v)
{
    char *meta = gr_group_offset_metadata_dup(v);
    if (!meta)
        return -ENOMEM;
    gr_group_offset_t *o = gr_group_offset_find(g, topic, partition);
    if (!o && !(o = offset_add(g, topic, partition))) {
        free(meta);
        return -ENOMEM;
    }
    gr_group_offset_assign(o, meta, v);
    return 0;
}

bool gr_group_offset_remove(gr_group_t *g, gr_str_t topic, int32_t partition)
{
    gr_group_offset_t *o = gr_group_offset_find(g, topic, partition);
    if (!o)
        return false;
    free(o->topic);
    free(o->metadata);
    *o = g->offsets[--g->offset_count];
    return true;
}

void gr_group_offsets_free(gr_group_t *g)
{
    for (int32_t i = 0; i < g->offset_count; i++) {
        free(g->offsets[i].topic);
        free(g->offsets[i].metadata);
    }
    free(g->offsets);
    g->offsets = NULL;
    g->offset_count = g->offset_cap = 0;
}
