/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cleaner's transaction tracking; rules and state in clean_txn.h. A
 * pass has few transactions in flight at once, so the per-producer sets
 * are plain arrays searched linearly.
 */
#include "log/clean_txn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void gr_clean_txns_init(gr_clean_txns_t *t, const gr_aborted_txn_t *aborted, size_t count)
{
    memset(t, 0, sizeof *t);
    t->aborted = aborted;
    t->aborted_count = count;
}

void gr_clean_txns_fini(gr_clean_txns_t *t)
{
    free(t->open);
    free(t->committed);
    memset(t, 0, sizeof *t);
}

static gr_clean_txn_open_t *open_find(gr_clean_txns_t *t, int64_t producer_id)
{
    for (size_t i = 0; i < t->open_count; i++)
        if (t->open[i].producer_id == producer_id)
            return &t->open[i];
    return NULL;
}

static void open_remove(gr_clean_txns_t *t, gr_clean_txn_open_t *o)
{
    *o = t->open[--t->open_count];
}

/* Makes the aborted transactions starting at or before offset current. */
static int reach(gr_clean_txns_t *t, int64_t offset)
{
    while (t->next < t->aborted_count && t->aborted[t->next].first_offset <= offset) {
        const gr_aborted_txn_t *a = &t->aborted[t->next];
        if (!open_find(t, a->producer_id)) {
            if (t->open_count == t->open_cap) {
                size_t cap = t->open_cap ? t->open_cap * 2 : 8;
                gr_clean_txn_open_t *more = realloc(t->open, cap * sizeof *more);
                if (!more)
                    return -ENOMEM;
                t->open = more;
                t->open_cap = cap;
            }
            t->open[t->open_count++] = (gr_clean_txn_open_t){a->producer_id, t->next, false};
        }
        t->next++;
    }
    return 0;
}

static bool committed_find(const gr_clean_txns_t *t, int64_t producer_id, size_t *at)
{
    for (size_t i = 0; i < t->committed_count; i++) {
        if (t->committed[i] == producer_id) {
            *at = i;
            return true;
        }
    }
    return false;
}

static int committed_add(gr_clean_txns_t *t, int64_t producer_id)
{
    size_t at;
    if (committed_find(t, producer_id, &at))
        return 0;
    if (t->committed_count == t->committed_cap) {
        size_t cap = t->committed_cap ? t->committed_cap * 2 : 8;
        int64_t *more = realloc(t->committed, cap * sizeof *more);
        if (!more)
            return -ENOMEM;
        t->committed = more;
        t->committed_cap = cap;
    }
    t->committed[t->committed_count++] = producer_id;
    return 0;
}

int gr_clean_txns_on_batch(gr_clean_txns_t *t, const gr_batch_header_t *h)
{
    int rc = reach(t, h->base_offset + h->last_offset_delta);
    if (rc < 0 || !(h->attributes & GR_BATCH_ATTR_TRANSACTIONAL) || h->producer_id < 0)
        return rc;
    gr_clean_txn_open_t *o = open_find(t, h->producer_id);
    if (o) {
        o->seen = true;
        return 1;
    }
    rc = committed_add(t, h->producer_id);
    return rc < 0 ? rc : 0;
}

int gr_clean_txns_on_marker(gr_clean_txns_t *t, const gr_batch_header_t *h,
                            const gr_control_marker_t *marker, bool *index, gr_aborted_txn_t *entry)
{
    if (index)
        *index = false;
    int rc = reach(t, h->base_offset + h->last_offset_delta);
    if (rc < 0)
        return rc;
    if (!marker)
        return 1; /* already emptied by an earlier cleaning */
    if (marker->type == GR_CONTROL_TYPE_ABORT) {
        gr_clean_txn_open_t *o = open_find(t, h->producer_id);
        bool keep = o && o->seen;
        if (keep && index) {
            *index = true;
            *entry = t->aborted[o->aborted];
        }
        if (o)
            open_remove(t, o);
        return keep ? 0 : 1;
    }
    if (marker->type == GR_CONTROL_TYPE_COMMIT) {
        size_t at;
        if (!committed_find(t, h->producer_id, &at))
            return 1;
        t->committed[at] = t->committed[--t->committed_count];
        return 0;
    }
    return 0; /* an unknown control record: kept */
}
