/* SPDX-License-Identifier: Apache-2.0 */
/* A transactional id's metadata: see txn_meta.h. */
#include "txn/txn_meta.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[GR_TXN_STATE_COUNT] = {
    [GR_TXN_EMPTY] = "Empty",
    [GR_TXN_ONGOING] = "Ongoing",
    [GR_TXN_PREPARE_COMMIT] = "PrepareCommit",
    [GR_TXN_PREPARE_ABORT] = "PrepareAbort",
    [GR_TXN_COMPLETE_COMMIT] = "CompleteCommit",
    [GR_TXN_COMPLETE_ABORT] = "CompleteAbort",
    [GR_TXN_DEAD] = "Dead",
    [GR_TXN_PREPARE_EPOCH_FENCE] = "PrepareEpochFence",
};

const char *gr_txn_state_name(gr_txn_state_t s)
{
    return (unsigned)s < GR_TXN_STATE_COUNT ? state_names[s] : "Unknown";
}

bool gr_txn_state_parse(gr_str_t name, gr_txn_state_t *out)
{
    for (int i = 0; i < GR_TXN_STATE_COUNT; i++) {
        if (name.len >= 0 && strlen(state_names[i]) == (size_t)name.len &&
            memcmp(state_names[i], name.ptr, (size_t)name.len) == 0) {
            *out = (gr_txn_state_t)i;
            return true;
        }
    }
    return false;
}

bool gr_txn_state_preparing(gr_txn_state_t s)
{
    return s == GR_TXN_PREPARE_COMMIT || s == GR_TXN_PREPARE_ABORT;
}

bool gr_txn_state_idle(gr_txn_state_t s)
{
    return s == GR_TXN_EMPTY || s == GR_TXN_COMPLETE_COMMIT || s == GR_TXN_COMPLETE_ABORT;
}

void gr_txn_image_init(gr_txn_image_t *im)
{
    memset(im, 0, sizeof *im);
    im->producer_id = GR_TXN_NO_PID;
    im->last_producer_id = GR_TXN_NO_PID;
    im->producer_epoch = GR_TXN_NO_EPOCH;
    im->last_producer_epoch = GR_TXN_NO_EPOCH;
    im->state = GR_TXN_EMPTY;
    im->start_ms = -1;
}

void gr_txn_image_clear_parts(gr_txn_image_t *im)
{
    for (int32_t i = 0; i < im->part_count; i++)
        free(im->parts[i].topic);
    im->part_count = 0;
}

void gr_txn_image_fini(gr_txn_image_t *im)
{
    gr_txn_image_clear_parts(im);
    free(im->parts);
    im->parts = NULL;
    im->part_cap = 0;
}

int gr_txn_image_copy(gr_txn_image_t *dst, const gr_txn_image_t *src)
{
    gr_txn_image_fini(dst);
    *dst = *src;
    dst->parts = NULL;
    dst->part_count = dst->part_cap = 0;
    for (int32_t i = 0; i < src->part_count; i++) {
        const gr_txn_tp_t *tp = &src->parts[i];
        if (gr_txn_image_add(dst, gr_str(tp->topic), tp->partition) < 0) {
            gr_txn_image_fini(dst);
            return -ENOMEM;
        }
    }
    return 0;
}

void gr_txn_image_move(gr_txn_image_t *dst, gr_txn_image_t *src)
{
    gr_txn_image_fini(dst);
    *dst = *src;
    src->parts = NULL;
    src->part_count = src->part_cap = 0;
}

/* <0, 0, >0 as (topic, partition) sorts before, equal to, after tp. */
static int tp_cmp(gr_str_t topic, int32_t partition, const gr_txn_tp_t *tp)
{
    size_t len = strlen(tp->topic);
    size_t n = (size_t)topic.len < len ? (size_t)topic.len : len;
    int c = memcmp(topic.ptr, tp->topic, n);
    if (c == 0 && (size_t)topic.len != len)
        c = (size_t)topic.len < len ? -1 : 1;
    if (c == 0)
        c = partition < tp->partition ? -1 : partition > tp->partition;
    return c;
}

/* Index of (topic, partition), or where it would go (*found false). */
static int32_t tp_search(const gr_txn_image_t *im, gr_str_t topic, int32_t partition, bool *found)
{
    int32_t lo = 0, hi = im->part_count;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (tp_cmp(topic, partition, &im->parts[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < im->part_count && tp_cmp(topic, partition, &im->parts[lo]) == 0;
    return lo;
}

bool gr_txn_image_has(const gr_txn_image_t *im, gr_str_t topic, int32_t partition)
{
    bool found;
    (void)tp_search(im, topic, partition, &found);
    return found;
}

int gr_txn_image_add(gr_txn_image_t *im, gr_str_t topic, int32_t partition)
{
    bool found;
    int32_t i = tp_search(im, topic, partition, &found);
    if (found)
        return 0;
    if (im->part_count == im->part_cap) {
        int32_t cap = im->part_cap ? im->part_cap * 2 : 4;
        gr_txn_tp_t *grown = realloc(im->parts, sizeof *grown * (size_t)cap);
        if (!grown)
            return -ENOMEM;
        im->parts = grown;
        im->part_cap = cap;
    }
    char *name = malloc((size_t)topic.len + 1);
    if (!name)
        return -ENOMEM;
    memcpy(name, topic.ptr, (size_t)topic.len);
    name[topic.len] = '\0';
    memmove(&im->parts[i + 1], &im->parts[i], sizeof im->parts[0] * (size_t)(im->part_count - i));
    im->parts[i] = (gr_txn_tp_t){name, partition};
    im->part_count++;
    return 0;
}
