/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A share-partition's life and what can be read from it: creation from the
 * durable state, config, where to fetch next, lock deadlines, log start
 * moves, the durable export and counters (share_partition.h). Acquisition
 * is share_partition_acquire.c, acknowledgement, release and lock expiry
 * share_partition_ack.c, the range array share_partition_range.c.
 *
 * Thread: the partition owner's.
 */
#include "share/share_partition_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool config_valid(const gr_share_partition_config_t *c)
{
    return c->record_lock_duration_ms > 0 && c->delivery_count_limit > 0 && c->max_record_locks > 0;
}

/* The imported batches: ordered, not overlapping, durable states. Batches
 * below the start offset are tolerated (skipped), unlike
 * gr_share_state_check, since a coordinator may keep them until its next
 * snapshot. */
static bool import_valid(const gr_share_state_t *state)
{
    if (state->batch_count < 0 || (state->batch_count > 0 && !state->batches))
        return false;
    int64_t next = INT64_MIN;
    for (int32_t i = 0; i < state->batch_count; i++) {
        const gr_share_state_batch_t *b = &state->batches[i];
        if (b->first_offset > b->last_offset || b->first_offset < next || b->first_offset < 0)
            return false;
        if (!gr_share_record_state_durable(b->state) || b->delivery_count < 0)
            return false;
        next = b->last_offset + 1;
    }
    return true;
}

/* Fills the window from the durable batches: gaps between them are
 * available and never delivered; an available record already delivered as
 * often as the limit allows is archived (the limit may have been lowered). */
static int import_batches(gr_share_partition_t *sp, const gr_share_state_t *state)
{
    if (gr_share_partition_reserve(sp, 2 * (int64_t)state->batch_count) < 0)
        return -ENOMEM;
    for (int32_t i = 0; i < state->batch_count; i++) {
        const gr_share_state_batch_t *b = &state->batches[i];
        if (b->last_offset < sp->start_offset)
            continue;
        int64_t first = b->first_offset > sp->start_offset ? b->first_offset : sp->start_offset;
        if (first > sp->end_offset)
            gr_share_partition_append(sp, sp->end_offset, first - 1);
        int32_t at = gr_share_partition_append(sp, first, b->last_offset);
        int8_t st = b->state;
        if (st == GR_SHARE_RECORD_AVAILABLE && b->delivery_count >= sp->config.delivery_count_limit)
            st = GR_SHARE_RECORD_ARCHIVED;
        gr_share_partition_set(sp, at, st, b->delivery_count, NULL, 0);
    }
    gr_share_partition_coalesce(sp, 0, sp->count);
    gr_share_partition_trim_head(sp);
    return 0;
}

void gr_share_partition_set_lock_duration(gr_share_partition_t *sp, int64_t ms)
{
    if (ms > 0)
        sp->config.record_lock_duration_ms = ms;
}

int gr_share_partition_new(const gr_share_partition_config_t *config, const gr_share_state_t *state,
                           int64_t start_offset, gr_share_partition_t **out)
{
    *out = NULL;
    if (!config_valid(config))
        return -EINVAL;
    bool fresh = !state || state->start_offset == GR_SHARE_START_OFFSET_UNINITIALIZED;
    int64_t start = fresh ? start_offset : state->start_offset;
    if (start < 0 || (!fresh && !import_valid(state)))
        return -EINVAL;
    gr_share_partition_t *sp = calloc(1, sizeof(*sp));
    if (!sp)
        return -ENOMEM;
    sp->config = *config;
    sp->start_offset = start;
    sp->end_offset = start;
    if (state) {
        sp->state_epoch = state->state_epoch;
        sp->leader_epoch = state->leader_epoch;
    }
    if (!fresh && import_batches(sp, state) < 0) {
        gr_share_partition_free(sp);
        return -ENOMEM;
    }
    /* Importing moved nothing that needs writing back. */
    sp->changed = false;
    gr_share_partition_check(sp);
    *out = sp;
    return 0;
}

void gr_share_partition_free(gr_share_partition_t *sp)
{
    if (!sp)
        return;
    for (int32_t i = 0; i < sp->owner_count; i++)
        free(sp->owners[i]);
    free(sp->owners);
    free(sp->ranges);
    free(sp);
}

int gr_share_partition_set_config(gr_share_partition_t *sp,
                                  const gr_share_partition_config_t *config)
{
    if (!config_valid(config))
        return -EINVAL;
    sp->config = *config;
    return 0;
}

int64_t gr_share_partition_next_fetch_offset(const gr_share_partition_t *sp)
{
    for (int32_t i = 0; i < sp->count; i++)
        if (sp->ranges[i].state == GR_SHARE_RECORD_AVAILABLE)
            return sp->ranges[i].first;
    return sp->end_offset;
}

bool gr_share_partition_can_acquire(const gr_share_partition_t *sp)
{
    if (sp->end_offset - sp->start_offset < sp->config.max_record_locks)
        return true;
    return gr_share_partition_next_fetch_offset(sp) < sp->end_offset;
}

int64_t gr_share_partition_next_deadline(const gr_share_partition_t *sp)
{
    int64_t next = GR_SHARE_PARTITION_NO_DEADLINE;
    for (int32_t i = 0; i < sp->count; i++)
        if (sp->ranges[i].state == GR_SHARE_RECORD_ACQUIRED && sp->ranges[i].deadline < next)
            next = sp->ranges[i].deadline;
    return next;
}

int gr_share_partition_advance_log_start(gr_share_partition_t *sp, int64_t log_start_offset)
{
    if (log_start_offset <= sp->start_offset)
        return 0;
    if (log_start_offset >= sp->end_offset) {
        for (int32_t i = 0; i < sp->count; i++)
            gr_share_partition_set(sp, i, GR_SHARE_RECORD_ARCHIVED, 0, NULL, 0);
        sp->count = 0;
        sp->end_offset = log_start_offset;
    } else {
        if (gr_share_partition_reserve(sp, 1) < 0)
            return -ENOMEM;
        int32_t n = gr_share_partition_split(sp, log_start_offset);
        for (int32_t i = 0; i < n; i++)
            gr_share_partition_set(sp, i, GR_SHARE_RECORD_ARCHIVED, 0, NULL, 0);
        memmove(&sp->ranges[0], &sp->ranges[n], (size_t)(sp->count - n) * sizeof(sp->ranges[0]));
        sp->count -= n;
    }
    sp->start_offset = log_start_offset;
    gr_share_partition_trim_head(sp);
    sp->changed = true;
    gr_share_partition_check(sp);
    return 0;
}

/* The durable form of a range: ACQUIRED is written AVAILABLE. */
static int8_t durable_state(const gr_share_range_t *r)
{
    return r->state == GR_SHARE_RECORD_ACQUIRED ? GR_SHARE_RECORD_AVAILABLE : r->state;
}

int gr_share_partition_export(gr_share_partition_t *sp, gr_share_state_t *out)
{
    *out = (gr_share_state_t){.state_epoch = sp->state_epoch,
                              .leader_epoch = sp->leader_epoch,
                              .start_offset = sp->start_offset};
    if (sp->count > 0) {
        out->batches = malloc((size_t)sp->count * sizeof(*out->batches));
        if (!out->batches)
            return -ENOMEM;
    }
    int32_t n = 0;
    for (int32_t i = 0; i < sp->count; i++) {
        const gr_share_range_t *r = &sp->ranges[i];
        int8_t st = durable_state(r);
        /* Never delivered and available: what no batch means. */
        if (st == GR_SHARE_RECORD_AVAILABLE && r->delivery_count == 0)
            continue;
        gr_share_state_batch_t *prev = n > 0 ? &out->batches[n - 1] : NULL;
        if (prev && prev->last_offset + 1 == r->first && prev->state == st &&
            prev->delivery_count == r->delivery_count) {
            prev->last_offset = r->last;
            continue;
        }
        out->batches[n++] = (gr_share_state_batch_t){.first_offset = r->first,
                                                     .last_offset = r->last,
                                                     .state = st,
                                                     .delivery_count = r->delivery_count};
    }
    out->batch_count = n;
    if (n == 0) {
        free(out->batches);
        out->batches = NULL;
    }
    sp->changed = false;
    return 0;
}

bool gr_share_partition_changed(const gr_share_partition_t *sp)
{
    return sp->changed;
}

void gr_share_partition_mark_changed(gr_share_partition_t *sp)
{
    sp->changed = true;
}

void gr_share_partition_stats(const gr_share_partition_t *sp, gr_share_partition_stats_t *out)
{
    int64_t complete = 0;
    for (int32_t i = 0; i < sp->count; i++)
        if (sp->ranges[i].state == GR_SHARE_RECORD_ACKNOWLEDGED ||
            sp->ranges[i].state == GR_SHARE_RECORD_ARCHIVED)
            complete += gr_share_range_len(&sp->ranges[i]);
    *out = (gr_share_partition_stats_t){.start_offset = sp->start_offset,
                                        .end_offset = sp->end_offset,
                                        .acquired_records = sp->acquired,
                                        .in_flight_records = sp->end_offset - sp->start_offset,
                                        .delivery_complete_records = complete,
                                        .ranges = sp->count};
}

gr_share_record_state_t gr_share_partition_offset_state(const gr_share_partition_t *sp,
                                                        int64_t offset, int16_t *delivery_count,
                                                        const char **owner)
{
    gr_share_record_state_t st = GR_SHARE_RECORD_AVAILABLE;
    int16_t dc = 0;
    const char *who = NULL;
    if (offset < sp->start_offset) {
        st = GR_SHARE_RECORD_ARCHIVED;
    } else if (offset < sp->end_offset) {
        const gr_share_range_t *r = &sp->ranges[gr_share_partition_find(sp, offset)];
        st = (gr_share_record_state_t)r->state;
        dc = r->delivery_count;
        who = r->owner ? r->owner->id : NULL;
    }
    if (delivery_count)
        *delivery_count = dc;
    if (owner)
        *owner = who;
    return st;
}
