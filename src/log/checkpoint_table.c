/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A checkpoint file as a hash table (see checkpoint_table.h): separate
 * chaining over a power-of-two bucket array that doubles when the entries
 * outnumber the buckets, so chains stay short whatever the partition count.
 *
 * Runs on: the loop thread (or start-up before the loop runs).
 */
#include "log/checkpoint_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_MIN_BUCKETS 64

typedef struct entry {
    struct entry *next;
    int32_t partition;
    int64_t offset;
    char topic[]; /* NUL-terminated */
} entry_t;

struct gr_checkpoint_table {
    entry_t **buckets;
    size_t bucket_count; /* a power of two */
    size_t count;
};

static size_t hash_key(const char *topic, int32_t partition)
{
    size_t h = 5381;
    for (const char *c = topic; *c; c++)
        h = h * 33 + (unsigned char)*c;
    return h * 31 + (uint32_t)partition;
}

static entry_t **slot_of(const gr_checkpoint_table_t *t, const char *topic, int32_t partition)
{
    entry_t **pp = &t->buckets[hash_key(topic, partition) & (t->bucket_count - 1)];
    while (*pp && ((*pp)->partition != partition || strcmp((*pp)->topic, topic) != 0))
        pp = &(*pp)->next;
    return pp;
}

gr_checkpoint_table_t *gr_checkpoint_table_new(void)
{
    gr_checkpoint_table_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->bucket_count = TABLE_MIN_BUCKETS;
    t->buckets = calloc(t->bucket_count, sizeof *t->buckets);
    if (!t->buckets) {
        free(t);
        return NULL;
    }
    return t;
}

void gr_checkpoint_table_free(gr_checkpoint_table_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->bucket_count; i++) {
        for (entry_t *e = t->buckets[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    }
    free(t->buckets);
    free(t);
}

/* Doubles the buckets; on failure the table stays as it was (only slower). */
static void grow(gr_checkpoint_table_t *t)
{
    size_t count = t->bucket_count * 2;
    entry_t **buckets = calloc(count, sizeof *buckets);
    if (!buckets)
        return;
    for (size_t i = 0; i < t->bucket_count; i++) {
        for (entry_t *e = t->buckets[i], *next; e; e = next) {
            next = e->next;
            entry_t **head = &buckets[hash_key(e->topic, e->partition) & (count - 1)];
            e->next = *head;
            *head = e;
        }
    }
    free(t->buckets);
    t->buckets = buckets;
    t->bucket_count = count;
}

int gr_checkpoint_table_set(gr_checkpoint_table_t *t, const char *topic, int32_t partition,
                            int64_t offset)
{
    entry_t **pp = slot_of(t, topic, partition);
    if (*pp) {
        (*pp)->offset = offset;
        return 0;
    }
    size_t len = strlen(topic);
    entry_t *e = malloc(sizeof *e + len + 1);
    if (!e)
        return -ENOMEM;
    memcpy(e->topic, topic, len + 1);
    e->partition = partition;
    e->offset = offset;
    e->next = NULL;
    *pp = e;
    if (++t->count > t->bucket_count)
        grow(t);
    return 0;
}

int64_t gr_checkpoint_table_find(const gr_checkpoint_table_t *t, const char *topic,
                                 int32_t partition, int64_t dflt)
{
    entry_t *e = *slot_of(t, topic, partition);
    return e ? e->offset : dflt;
}

void gr_checkpoint_table_remove(gr_checkpoint_table_t *t, const char *topic, int32_t partition)
{
    entry_t **pp = slot_of(t, topic, partition);
    entry_t *e = *pp;
    if (!e)
        return;
    *pp = e->next;
    free(e);
    t->count--;
}

size_t gr_checkpoint_table_count(const gr_checkpoint_table_t *t)
{
    return t->count;
}

void gr_checkpoint_table_foreach(const gr_checkpoint_table_t *t,
                                 void (*fn)(const char *topic, int32_t partition, int64_t offset,
                                            void *arg),
                                 void *arg)
{
    for (size_t i = 0; i < t->bucket_count; i++)
        for (const entry_t *e = t->buckets[i]; e; e = e->next)
            fn(e->topic, e->partition, e->offset, arg);
}

int gr_checkpoint_table_read(gr_log_dir_t *d, const char *name, gr_checkpoint_table_t **out)
{
    gr_checkpoint_entry_t *entries = NULL;
    size_t count = 0;
    *out = NULL;
    int rc = gr_log_dir_read_checkpoint(d, name, &entries, &count);
    if (rc < 0)
        return rc;
    gr_checkpoint_table_t *t = gr_checkpoint_table_new();
    rc = t ? 0 : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < count; i++)
        rc = gr_checkpoint_table_set(t, entries[i].topic, entries[i].partition, entries[i].offset);
    free(entries);
    if (rc < 0) {
        gr_checkpoint_table_free(t);
        return rc;
    }
    *out = t;
    return 0;
}
