/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The leader-epoch cache of a partition: which leader epoch started at which
 * offset, persisted in the partition's leader-epoch-checkpoint file
 * ("0\n<count>\n<epoch> <startOffset>\n..."). It answers OffsetForLeaderEpoch
 * and tells a truncating follower where its history diverges.
 *
 * Invariants: entries are strictly increasing in epoch and non-decreasing in
 * start offset. An assign with a lower or equal epoch is ignored; one with
 * a higher epoch but a lower start offset than existing entries removes
 * those entries first (their history was truncated).
 *
 * Runs on: the loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/log_int.h"

#define EPOCH_CHECKPOINT_VERSION 0
#define EPOCH_CHECKPOINT_MAX     (16 * 1024 * 1024)

void gr_epoch_cache_init(gr_epoch_cache_t *c)
{
    memset(c, 0, sizeof *c);
}

void gr_epoch_cache_fini(gr_epoch_cache_t *c)
{
    free(c->entries);
    memset(c, 0, sizeof *c);
}

int32_t gr_epoch_cache_latest(const gr_epoch_cache_t *c)
{
    return c->count ? c->entries[c->count - 1].epoch : GR_LOG_NO_EPOCH;
}

int gr_epoch_cache_assign(gr_epoch_cache_t *c, int32_t epoch, int64_t start_offset)
{
    if (epoch < 0 || start_offset < 0)
        return 0;
    if (c->count && epoch <= c->entries[c->count - 1].epoch)
        return 0;
    while (c->count && c->entries[c->count - 1].start_offset > start_offset)
        c->count--;
    if (c->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4;
        gr_epoch_entry_t *n = realloc(c->entries, cap * sizeof *n);
        if (!n)
            return -ENOMEM;
        c->entries = n;
        c->cap = cap;
    }
    c->entries[c->count].epoch = epoch;
    c->entries[c->count].start_offset = start_offset;
    c->count++;
    return 1;
}

int gr_epoch_cache_truncate_end(gr_epoch_cache_t *c, int64_t end_offset)
{
    size_t before = c->count;
    while (c->count && c->entries[c->count - 1].start_offset >= end_offset)
        c->count--;
    return c->count != before;
}

int gr_epoch_cache_truncate_start(gr_epoch_cache_t *c, int64_t start_offset)
{
    if (c->count == 0)
        return 0;
    /* Keep the last entry starting at or below start_offset, moved up to it. */
    size_t keep = 0;
    while (keep + 1 < c->count && c->entries[keep + 1].start_offset <= start_offset)
        keep++;
    int changed = 0;
    if (keep > 0) {
        memmove(c->entries, c->entries + keep, (c->count - keep) * sizeof *c->entries);
        c->count -= keep;
        changed = 1;
    }
    if (c->entries[0].start_offset < start_offset) {
        c->entries[0].start_offset = start_offset;
        changed = 1;
    }
    return changed;
}

int32_t gr_epoch_cache_epoch_for(const gr_epoch_cache_t *c, int64_t offset)
{
    int32_t epoch = GR_LOG_NO_EPOCH;
    for (size_t i = 0; i < c->count && c->entries[i].start_offset <= offset; i++)
        epoch = c->entries[i].epoch;
    return epoch;
}

void gr_epoch_cache_end_offset_for(const gr_epoch_cache_t *c, int32_t epoch, int64_t log_end,
                                   int32_t *out_epoch, int64_t *out_offset)
{
    *out_epoch = GR_LOG_NO_EPOCH;
    *out_offset = -1;
    if (epoch < 0 || c->count == 0)
        return;
    if (epoch == c->entries[c->count - 1].epoch) {
        *out_epoch = epoch;
        *out_offset = log_end;
        return;
    }
    /* The first entry with a higher epoch ends the requested one. */
    size_t higher = 0;
    while (higher < c->count && c->entries[higher].epoch <= epoch)
        higher++;
    if (higher == c->count)
        return; /* above the latest epoch: unknown */
    *out_offset = c->entries[higher].start_offset;
    /* The largest epoch <= requested, or the requested one if it predates all. */
    *out_epoch = higher > 0 ? c->entries[higher - 1].epoch : epoch;
}

int gr_epoch_cache_read(gr_epoch_cache_t *c, const gr_io_ops_t *io, const char *path)
{
    char *data = NULL;
    int rc = gr_io_read_file(io, path, EPOCH_CHECKPOINT_MAX, &data, NULL);
    c->count = 0;
    if (rc < 0)
        return rc;
    char *p = data, *end;
    long version = strtol(p, &end, 10);
    long count;
    if (end == p || *end != '\n' || version != EPOCH_CHECKPOINT_VERSION)
        goto bad;
    p = end + 1;
    count = strtol(p, &end, 10);
    if (end == p || *end != '\n' || count < 0)
        goto bad;
    p = end + 1;
    for (long i = 0; i < count; i++) {
        long long epoch = strtoll(p, &end, 10);
        if (end == p || *end != ' ' || epoch < 0 || epoch > INT32_MAX)
            goto bad;
        p = end + 1;
        long long off = strtoll(p, &end, 10);
        if (end == p || *end != '\n' || off < 0)
            goto bad;
        p = end + 1;
        if (gr_epoch_cache_assign(c, (int32_t)epoch, off) < 0) {
            free(data);
            return -ENOMEM;
        }
    }
    free(data);
    return 0;
bad:
    free(data);
    c->count = 0;
    return -EINVAL;
}

int gr_epoch_cache_write(const gr_epoch_cache_t *c, const gr_io_ops_t *io, const char *path,
                         bool durable)
{
    size_t cap = 32 + c->count * 48;
    char *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    size_t len = (size_t)snprintf(buf, cap, "%d\n%zu\n", EPOCH_CHECKPOINT_VERSION, c->count);
    for (size_t i = 0; i < c->count; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%" PRId32 " %" PRId64 "\n",
                                c->entries[i].epoch, c->entries[i].start_offset);
    int rc = gr_io_write_file_replace(io, path, buf, len, durable);
    free(buf);
    return rc;
}
