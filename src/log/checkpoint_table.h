/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One offset checkpoint file (log_dir.h) held in memory as a hash table
 * keyed by topic-partition, so that a broker with N partitions parses each
 * file once at start-up and then finds each partition's offset in O(1),
 * instead of re-reading the whole file per partition (N^2 at start-up).
 *
 * The table owns its entries (one allocation each, sized to the topic name);
 * removing one frees it. No order is kept: a writer sorts if it cares.
 *
 * Runs on: the loop thread (or start-up before the loop runs).
 */
#ifndef GR_LOG_CHECKPOINT_TABLE_H
#define GR_LOG_CHECKPOINT_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "log/log_dir.h"

typedef struct gr_checkpoint_table gr_checkpoint_table_t;

/* An empty table; NULL without memory. */
gr_checkpoint_table_t *gr_checkpoint_table_new(void);
/* NULL is a no-op. */
void gr_checkpoint_table_free(gr_checkpoint_table_t *t);

/*
 * Reads checkpoint file name of d into a new table (*out, caller frees). A
 * missing file is an empty table. When a topic-partition is listed twice the
 * last line wins. Returns 0, -EINVAL (malformed), -ENOMEM or -errno.
 */
int gr_checkpoint_table_read(gr_log_dir_t *d, const char *name, gr_checkpoint_table_t **out);

/* The offset of topic/partition, or dflt when the table has none. */
int64_t gr_checkpoint_table_find(const gr_checkpoint_table_t *t, const char *topic,
                                 int32_t partition, int64_t dflt);
/* Adds or replaces the offset of topic/partition. 0 or -ENOMEM. */
int gr_checkpoint_table_set(gr_checkpoint_table_t *t, const char *topic, int32_t partition,
                            int64_t offset);
/* Removes topic/partition (absent is a no-op). */
void gr_checkpoint_table_remove(gr_checkpoint_table_t *t, const char *topic, int32_t partition);
size_t gr_checkpoint_table_count(const gr_checkpoint_table_t *t);

/* Calls fn for each entry (any order); fn must not change the table. */
void gr_checkpoint_table_foreach(const gr_checkpoint_table_t *t,
                                 void (*fn)(const char *topic, int32_t partition, int64_t offset,
                                            void *arg),
                                 void *arg);

#endif
