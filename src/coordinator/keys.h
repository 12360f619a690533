/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A coordinator's table of keys (group ids, transactional ids): a chained
 * hash table of gr_coordinator_key_t embedded in the owner's entries, each
 * key knowing its partition of T, so a resignation drops a partition's keys
 * (gr_coordinator_keys_drop). Buckets by Java's hash of the id (hash.h).
 * The table never allocates or frees an entry: the owner does, getting from
 * a key to its entry with GR_COORDINATOR_ENTRY.
 *
 * Invariants: an id is in the table at most once (the owner finds before
 * it adds); a key's id and partition do not change while it is in.
 *
 * Runs on: loop thread.
 */
#ifndef GR_COORDINATOR_KEYS_H
#define GR_COORDINATOR_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/types.h"

/* The entry of type `type` whose member `member` is key k. */
#define GR_COORDINATOR_ENTRY(k, type, member) ((type *)(void *)((char *)(k)-offsetof(type, member)))

/* One key, embedded in its entry. */
typedef struct gr_coordinator_key {
    struct gr_coordinator_key *next; /* hash chain */
    char *id;                        /* NUL-terminated; owned by the entry */
    int32_t partition;               /* of T */
} gr_coordinator_key_t;

typedef struct gr_coordinator_keys {
    gr_coordinator_key_t **buckets; /* NULL before init and after fini */
    size_t bucket_count;
    size_t count;
} gr_coordinator_keys_t;

/* 0, or -ENOMEM. */
int gr_coordinator_keys_init(gr_coordinator_keys_t *t, size_t bucket_count);
/* Frees the buckets; the owner has taken every entry out (gr_coordinator_keys_drop). */
void gr_coordinator_keys_fini(gr_coordinator_keys_t *t);

/* The key of id, or NULL (also before init and after fini). */
gr_coordinator_key_t *gr_coordinator_keys_find(const gr_coordinator_keys_t *t, gr_str_t id);
/* Adds k (id and partition set). Precondition: init done, id not in the table. */
void gr_coordinator_keys_add(gr_coordinator_keys_t *t, gr_coordinator_key_t *k);
/* Takes k out. Precondition: k is in the table. */
void gr_coordinator_keys_remove(gr_coordinator_keys_t *t, gr_coordinator_key_t *k);

/*
 * Iteration in bucket order: the first key, or NULL; the key after k, or
 * NULL. Take the next key before removing k.
 */
gr_coordinator_key_t *gr_coordinator_keys_first(const gr_coordinator_keys_t *t);
gr_coordinator_key_t *gr_coordinator_keys_next(const gr_coordinator_keys_t *t,
                                               const gr_coordinator_key_t *k);

/*
 * Takes every key of partition (every key when partition < 0) out, calling
 * fn(k, arg) for each once it is out (fn frees its entry). Returns how many.
 */
size_t gr_coordinator_keys_drop(gr_coordinator_keys_t *t, int32_t partition,
                                void (*fn)(gr_coordinator_key_t *k, void *arg), void *arg);

#endif
