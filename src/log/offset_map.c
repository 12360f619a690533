/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cleaner's bounded key → offset map (see offset_map.h). The hash is
 * MurmurHash3's x64 128-bit variant (public domain, Austin Appleby): fast,
 * well distributed, and wide enough that collisions are not a concern.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log/offset_map.h"

#define MURMUR_C1 0x87c37b91114253d5ULL
#define MURMUR_C2 0x4cf5ad432745937fULL

static inline uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The partial last block, little-endian, of n < 8 bytes. */
static inline uint64_t load_tail(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i > 0; i--)
        v = v << 8 | p[i - 1];
    return v;
}

void gr_offset_map_hash(const uint8_t *key, size_t len, uint64_t out[2])
{
    uint64_t h1 = 0, h2 = 0;
    size_t blocks = len / 16;
    for (size_t i = 0; i < blocks; i++) {
        uint64_t k1 = load_le64(key + i * 16), k2 = load_le64(key + i * 16 + 8);
        k1 *= MURMUR_C1;
        k1 = rotl64(k1, 31);
        k1 *= MURMUR_C2;
        h1 ^= k1;
        h1 = rotl64(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        k2 *= MURMUR_C2;
        k2 = rotl64(k2, 33);
        k2 *= MURMUR_C1;
        h2 ^= k2;
        h2 = rotl64(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
    }
    const uint8_t *tail = key + blocks * 16;
    size_t rest = len & 15;
    if (rest > 8) {
        uint64_t k2 = load_tail(tail + 8, rest - 8);
        k2 *= MURMUR_C2;
        k2 = rotl64(k2, 33);
        k2 *= MURMUR_C1;
        h2 ^= k2;
    }
    if (rest > 0) {
        uint64_t k1 = load_tail(tail, rest > 8 ? 8 : rest);
        k1 *= MURMUR_C1;
        k1 = rotl64(k1, 31);
        k1 *= MURMUR_C2;
        h1 ^= k1;
    }
    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

int gr_offset_map_init(gr_offset_map_t *m, size_t bytes, double load_factor)
{
    memset(m, 0, sizeof *m);
    if (!(load_factor > 0 && load_factor < 1))
        return -EINVAL;
    size_t slots = bytes / GR_OFFSET_MAP_SLOT_SIZE;
    size_t max_entries = (size_t)((double)slots * load_factor);
    if (max_entries == 0)
        return -EINVAL;
    /* Zeroed memory is an empty map: the pages of a large map that no key
     * hashes to are never touched, so a small log's cleaning stays small. */
    m->slots = calloc(slots, sizeof *m->slots);
    if (!m->slots)
        return -ENOMEM;
    m->slot_count = slots;
    m->max_entries = max_entries;
    m->latest_offset = -1;
    return 0;
}

void gr_offset_map_fini(gr_offset_map_t *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

void gr_offset_map_clear(gr_offset_map_t *m)
{
    memset(m->slots, 0, m->slot_count * sizeof *m->slots);
    m->entries = 0;
    m->latest_offset = -1;
}

/* The slot holding hash, or the empty slot where it would go. */
static gr_offset_map_slot_t *map_probe(const gr_offset_map_t *m, const uint64_t hash[2])
{
    size_t i = (size_t)(hash[0] % m->slot_count);
    for (;;) {
        gr_offset_map_slot_t *s = &m->slots[i];
        if (s->offset_plus_one == 0 || (s->hash[0] == hash[0] && s->hash[1] == hash[1]))
            return s;
        if (++i == m->slot_count)
            i = 0; /* terminates: the load factor keeps an empty slot */
    }
}

void gr_offset_map_put(gr_offset_map_t *m, const uint8_t *key, size_t len, int64_t offset)
{
    uint64_t hash[2];
    gr_offset_map_hash(key, len, hash);
    gr_offset_map_slot_t *s = map_probe(m, hash);
    if (s->offset_plus_one == 0) {
        s->hash[0] = hash[0];
        s->hash[1] = hash[1];
        s->offset_plus_one = offset + 1;
        m->entries++;
    } else if (offset + 1 > s->offset_plus_one) {
        s->offset_plus_one = offset + 1;
    }
    if (offset > m->latest_offset)
        m->latest_offset = offset;
}

int64_t gr_offset_map_get(const gr_offset_map_t *m, const uint8_t *key, size_t len)
{
    uint64_t hash[2];
    gr_offset_map_hash(key, len, hash);
    return map_probe(m, hash)->offset_plus_one - 1;
}
