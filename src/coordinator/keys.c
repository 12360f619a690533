/* SPDX-License-Identifier: Apache-2.0 */
/* A coordinator's table of keys: see keys.h. Runs on: loop thread. */
#include "coordinator/keys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/hash.h"

int gr_coordinator_keys_init(gr_coordinator_keys_t *t, size_t bucket_count)
{
    memset(t, 0, sizeof *t);
    t->buckets = calloc(bucket_count, sizeof *t->buckets);
    if (!t->buckets)
        return -ENOMEM;
    t->bucket_count = bucket_count;
    return 0;
}

void gr_coordinator_keys_fini(gr_coordinator_keys_t *t)
{
    free(t->buckets);
    memset(t, 0, sizeof *t);
}

static size_t bucket_of(const gr_coordinator_keys_t *t, const char *id)
{
    return gr_coordinator_key_bucket(gr_str(id), t->bucket_count);
}

gr_coordinator_key_t *gr_coordinator_keys_find(const gr_coordinator_keys_t *t, gr_str_t id)
{
    if (!t->buckets)
        return NULL;
    for (gr_coordinator_key_t *k = t->buckets[gr_coordinator_key_bucket(id, t->bucket_count)]; k;
         k = k->next)
        if (gr_str_eq_c(id, k->id))
            return k;
    return NULL;
}

void gr_coordinator_keys_add(gr_coordinator_keys_t *t, gr_coordinator_key_t *k)
{
    size_t b = bucket_of(t, k->id);
    k->next = t->buckets[b];
    t->buckets[b] = k;
    t->count++;
}

void gr_coordinator_keys_remove(gr_coordinator_keys_t *t, gr_coordinator_key_t *k)
{
    for (gr_coordinator_key_t **link = &t->buckets[bucket_of(t, k->id)]; *link;
         link = &(*link)->next) {
        if (*link == k) {
            *link = k->next;
            t->count--;
            return;
        }
    }
}

/* The first key in bucket b or after it, or NULL. */
static gr_coordinator_key_t *first_from(const gr_coordinator_keys_t *t, size_t b)
{
    for (; t->buckets && b < t->bucket_count; b++)
        if (t->buckets[b])
            return t->buckets[b];
    return NULL;
}

gr_coordinator_key_t *gr_coordinator_keys_first(const gr_coordinator_keys_t *t)
{
    return first_from(t, 0);
}

gr_coordinator_key_t *gr_coordinator_keys_next(const gr_coordinator_keys_t *t,
                                               const gr_coordinator_key_t *k)
{
    return k->next ? k->next : first_from(t, bucket_of(t, k->id) + 1);
}

size_t gr_coordinator_keys_drop(gr_coordinator_keys_t *t, int32_t partition,
                                void (*fn)(gr_coordinator_key_t *k, void *arg), void *arg)
{
    size_t n = 0;
    for (size_t b = 0; b < t->bucket_count; b++) {
        gr_coordinator_key_t **link = &t->buckets[b];
        while (*link) {
            gr_coordinator_key_t *k = *link;
            if (partition >= 0 && k->partition != partition) {
                link = &k->next;
                continue;
            }
            *link = k->next;
            t->count--;
            n++;
            fn(k, arg);
        }
    }
    return n;
}
