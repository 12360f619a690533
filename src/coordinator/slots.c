/* SPDX-License-Identifier: Apache-2.0 */
/* A coordinator's per-partition slots: see slots.h. Runs on: loop thread. */
#include "coordinator/slots.h"

#include <stdlib.h>
#include <string.h>

void gr_coordinator_slots_init(gr_coordinator_slots_t *s, const char *topic, const char *log_tag,
                               const gr_logger_t *log)
{
    memset(s, 0, sizeof *s);
    s->topic = topic;
    s->log_tag = log_tag;
    s->log = log;
}

void gr_coordinator_slots_fini(gr_coordinator_slots_t *s)
{
    free(s->items);
    s->items = NULL;
    s->count = 0;
}

gr_coordinator_partition_t *gr_coordinator_slots_get(gr_coordinator_slots_t *s, int32_t partition)
{
    if (partition < s->count)
        return &s->items[partition];
    int32_t count = partition + 1;
    gr_coordinator_partition_t *grown = realloc(s->items, sizeof(*grown) * (size_t)count);
    if (!grown) {
        gr_logf(s->log, GR_LOG_ERROR, s->log_tag, "%s-%d: out of memory", s->topic, partition);
        return NULL;
    }
    for (int32_t i = s->count; i < count; i++)
        grown[i] = (gr_coordinator_partition_t){GR_COORDINATOR_NOT_OURS, GR_COORDINATOR_ANY_EPOCH};
    s->items = grown;
    s->count = count;
    return &s->items[partition];
}

gr_coordinator_load_t gr_coordinator_slots_state(const gr_coordinator_slots_t *s, int32_t partition)
{
    if (partition < 0 || partition >= s->count)
        return GR_COORDINATOR_NOT_OURS;
    return s->items[partition].state;
}

int32_t gr_coordinator_slots_next_loading(const gr_coordinator_slots_t *s)
{
    for (int32_t i = 0; i < s->count; i++)
        if (s->items[i].state == GR_COORDINATOR_LOADING)
            return i;
    return -1;
}

bool gr_coordinator_slots_loading(const gr_coordinator_slots_t *s)
{
    return gr_coordinator_slots_next_loading(s) >= 0;
}

int32_t gr_coordinator_slots_epoch(const gr_coordinator_slots_t *s, int32_t partition)
{
    if (partition < 0 || partition >= s->count)
        return GR_COORDINATOR_ANY_EPOCH;
    return s->items[partition].epoch;
}

bool gr_coordinator_slots_replaced(gr_coordinator_slots_t *s, const gr_uuid_t *topic_id)
{
    if (memcmp(s->topic_id.b, topic_id->b, sizeof topic_id->b) == 0)
        return false;
    bool replaced = !gr_uuid_is_zero(s->topic_id);
    s->topic_id = *topic_id;
    return replaced;
}

gr_coordinator_partition_t *gr_coordinator_slots_elect(gr_coordinator_slots_t *s, int32_t partition,
                                                       int32_t leader_epoch, bool *epoch_moved)
{
    gr_coordinator_partition_t *slot = gr_coordinator_slots_get(s, partition);
    if (!slot)
        return NULL;
    if (leader_epoch < slot->epoch ||
        (leader_epoch == slot->epoch && slot->state == GR_COORDINATOR_RESIGNED)) {
        gr_logf(s->log, GR_LOG_INFO, s->log_tag,
                "%s-%d: ignoring election at leader epoch %d (already at %d)", s->topic, partition,
                leader_epoch, slot->epoch);
        return NULL;
    }
    *epoch_moved = leader_epoch != slot->epoch;
    slot->epoch = leader_epoch;
    if (slot->state == GR_COORDINATOR_RESIGNED)
        slot->state = GR_COORDINATOR_NOT_OURS;
    return slot;
}

bool gr_coordinator_slots_resign(gr_coordinator_slots_t *s, int32_t partition, int32_t leader_epoch,
                                 gr_coordinator_load_t *was)
{
    gr_coordinator_partition_t *slot = gr_coordinator_slots_get(s, partition);
    if (!slot)
        return false;
    if (leader_epoch >= 0 && leader_epoch < slot->epoch) {
        gr_logf(s->log, GR_LOG_INFO, s->log_tag,
                "%s-%d: ignoring resignation at leader epoch %d (already at %d)", s->topic,
                partition, leader_epoch, slot->epoch);
        return false;
    }
    *was = slot->state;
    slot->epoch = leader_epoch >= 0 ? leader_epoch : GR_COORDINATOR_ANY_EPOCH;
    slot->state = leader_epoch >= 0 ? GR_COORDINATOR_RESIGNED : GR_COORDINATOR_NOT_OURS;
    return true;
}
