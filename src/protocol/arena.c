/* SPDX-License-Identifier: Apache-2.0 */
/* Bump allocator: see arena.h. Runs on: any single thread owning the arena. */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GR_ARENA_MIN_BLOCK 4096
#define GR_ARENA_ALIGN     8

struct gr_arena_block {
    gr_arena_block_t *next;
    size_t size;
    _Alignas(GR_ARENA_ALIGN) unsigned char data[];
};

void gr_arena_init(gr_arena_t *a)
{
    a->head = NULL;
    a->used = 0;
}

void gr_arena_fini(gr_arena_t *a)
{
    gr_arena_block_t *b = a->head;
    while (b) {
        gr_arena_block_t *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->used = 0;
}

void gr_arena_reset(gr_arena_t *a)
{
    if (!a->head)
        return;
    /* Keep the most recent (largest) block, free the others. */
    gr_arena_block_t *keep = a->head, *b = keep->next;
    while (b) {
        gr_arena_block_t *next = b->next;
        free(b);
        b = next;
    }
    keep->next = NULL;
    a->head = keep;
    a->used = 0;
}

void *gr_arena_alloc(gr_arena_t *a, size_t n)
{
    size_t need = (n + GR_ARENA_ALIGN - 1) & ~(size_t)(GR_ARENA_ALIGN - 1);
    if (need < n)
        return NULL;
    if (!a->head || a->head->size - a->used < need) {
        size_t size = GR_ARENA_MIN_BLOCK;
        size_t prev = a->head ? a->head->size : 0;
        if (size < prev * 2)
            size = prev * 2;
        if (size < need)
            size = need;
        if (size > SIZE_MAX - sizeof(gr_arena_block_t))
            return NULL;
        gr_arena_block_t *b = malloc(sizeof(*b) + size);
        if (!b)
            return NULL;
        b->size = size;
        b->next = a->head;
        a->head = b;
        a->used = 0;
    }
    void *p = a->head->data + a->used;
    a->used += need;
    memset(p, 0, n);
    return p;
}

void *gr_arena_alloc_array(gr_arena_t *a, int64_t count, size_t size)
{
    if (count <= 0)
        return gr_arena_alloc(a, 0);
    if ((uint64_t)count > SIZE_MAX / size)
        return NULL;
    return gr_arena_alloc(a, (size_t)count * size);
}

char *gr_arena_strndup(gr_arena_t *a, const char *s, size_t len)
{
    char *p = gr_arena_alloc(a, len + 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
