/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A bump allocator for everything decoded from one request and built for its
 * response. Blocks are chained; gr_arena_reset() keeps the first block for
 * reuse, gr_arena_fini() frees all. Allocations are zeroed and 8-aligned.
 */
#ifndef GR_PROTOCOL_ARENA_H
#define GR_PROTOCOL_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct gr_arena_block gr_arena_block_t;

typedef struct gr_arena {
    gr_arena_block_t *head;
    size_t used; /* bytes used in head */
} gr_arena_t;

void gr_arena_init(gr_arena_t *a);
void gr_arena_fini(gr_arena_t *a);
void gr_arena_reset(gr_arena_t *a);

/*
 * Returns n zeroed bytes owned by the arena, or NULL when out of memory.
 * n may be 0: the result is then a valid pointer to no bytes.
 */
void *gr_arena_alloc(gr_arena_t *a, size_t n);

/*
 * count elements of size bytes, zeroed. count often comes from client input:
 * zero or negative (a null array) gives a valid empty allocation, never
 * NULL. Returns NULL only when out of memory or when count * size overflows.
 */
void *gr_arena_alloc_array(gr_arena_t *a, int64_t count, size_t size);

/* Copies s (len bytes) into the arena and NUL-terminates it. */
char *gr_arena_strndup(gr_arena_t *a, const char *s, size_t len);

#endif
