/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fd cache: an LRU of the segments whose .log fd is open, shared by all
 * logs of a broker, so thousands of partitions cost a bounded number of fds.
 *
 * Invariants: cache->open counts every fd opened by gr_segment_fd and not
 * yet closed, including those of detached segments kept open by readers
 * (those are off the list but still counted). The list holds exactly the
 * attached segments with fd >= 0, most recently used first. Eviction
 * (from the tail, when open > max_open) skips segments with readers
 * (refs > 1) and the segment just touched, so the cap is soft.
 *
 * Runs on: the loop thread.
 */
#include <stdlib.h>

#include "log/log_int.h"

gr_fd_cache_t *gr_fd_cache_new(int max_open)
{
    gr_fd_cache_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->max_open = max_open < 1 ? 1 : max_open;
    return c;
}

void gr_fd_cache_free(gr_fd_cache_t *cache)
{
    free(cache);
}

int gr_fd_cache_open_count(const gr_fd_cache_t *cache)
{
    return cache->open;
}

void gr_fd_cache_remove(gr_fd_cache_t *cache, gr_segment_t *seg)
{
    if (!seg->in_lru)
        return;
    if (seg->lru_prev)
        seg->lru_prev->lru_next = seg->lru_next;
    else
        cache->head = seg->lru_next;
    if (seg->lru_next)
        seg->lru_next->lru_prev = seg->lru_prev;
    else
        cache->tail = seg->lru_prev;
    seg->lru_prev = seg->lru_next = NULL;
    seg->in_lru = false;
}

void gr_fd_cache_touch(gr_fd_cache_t *cache, gr_segment_t *seg)
{
    if (cache->head != seg) {
        gr_fd_cache_remove(cache, seg);
        seg->lru_next = cache->head;
        if (cache->head)
            cache->head->lru_prev = seg;
        cache->head = seg;
        if (!cache->tail)
            cache->tail = seg;
        seg->in_lru = true;
    }
    gr_segment_t *victim = cache->tail;
    while (cache->open > cache->max_open && victim) {
        gr_segment_t *prev = victim->lru_prev;
        if (victim != seg && victim->refs <= 1)
            gr_segment_release(victim); /* removes it from the list */
        victim = prev;
    }
}
