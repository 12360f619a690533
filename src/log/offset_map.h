/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cleaner's key map: record key → offset of its latest record, in a
 * fixed amount of memory (log.cleaner.dedupe.buffer.size), as Kafka's
 * "skimpy" offset map. Keys are not stored: each slot holds a 128-bit hash of
 * the key and an offset (GR_OFFSET_MAP_SLOT_SIZE bytes), so a map of N bytes
 * holds at most N / 24 * load factor keys whatever their length. Two keys
 * with the same 128-bit hash would be taken for one; at 2^-128 per pair this
 * is the same bet Kafka makes with MD5.
 *
 * Open addressing with linear probing over a power-of-two-free slot count;
 * never shrinks, never grows (a full map ends a cleaning pass, see
 * gr_offset_map_room). Put keeps the larger offset for a key already present.
 *
 * Runs on: whichever thread owns it (a cleaner job on a worker thread).
 */
#ifndef GR_LOG_OFFSET_MAP_H
#define GR_LOG_OFFSET_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_OFFSET_MAP_HASH_SIZE 16
#define GR_OFFSET_MAP_SLOT_SIZE (GR_OFFSET_MAP_HASH_SIZE + 8)

typedef struct gr_offset_map_slot {
    uint64_t hash[2];
    int64_t offset_plus_one; /* 0: empty slot (offsets are >= 0) */
} gr_offset_map_slot_t;

typedef struct gr_offset_map {
    gr_offset_map_slot_t *slots;
    size_t slot_count;
    size_t max_entries; /* slot_count * load factor */
    size_t entries;
    int64_t latest_offset; /* largest offset put, -1 if none */
} gr_offset_map_t;

/*
 * Sizes the map for bytes of memory at load_factor (0 < lf < 1; Kafka's
 * log.cleaner.io.buffer.load.factor). Returns 0, -EINVAL (room for no key at
 * all), or -ENOMEM.
 */
int gr_offset_map_init(gr_offset_map_t *m, size_t bytes, double load_factor);
void gr_offset_map_fini(gr_offset_map_t *m);
/* Empties the map (keeps the memory). */
void gr_offset_map_clear(gr_offset_map_t *m);

/* True when n more distinct keys still fit under the load factor. */
static inline bool gr_offset_map_room(const gr_offset_map_t *m, size_t n)
{
    return m->entries + n <= m->max_entries;
}

/*
 * Records offset (>= 0) for key (len bytes). Precondition: gr_offset_map_room(m, 1).
 * A key already present keeps the larger of its offsets.
 */
void gr_offset_map_put(gr_offset_map_t *m, const uint8_t *key, size_t len, int64_t offset);

/* The offset recorded for key, or -1 if absent. */
int64_t gr_offset_map_get(const gr_offset_map_t *m, const uint8_t *key, size_t len);

/* The 128-bit key hash the map uses (MurmurHash3 x64/128, seed 0). */
void gr_offset_map_hash(const uint8_t *key, size_t len, uint64_t out[2]);

#endif
