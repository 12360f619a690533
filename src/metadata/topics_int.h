/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of the topic table shared by topics.c (single-node topics and
 * the store) and topics_cluster.c (cluster mode, driven by the controller).
 *
 * Runs on: loop thread.
 */
#ifndef GR_METADATA_TOPICS_INT_H
#define GR_METADATA_TOPICS_INT_H

#include "metadata/topics.h"
#include "log/log_dir.h"

/* A topic with partitions zeroed slots (no logs), not in any table; NULL without memory. */
gr_topic_t *gr_topic_new(const char *name, int32_t partitions);
void gr_topic_free(gr_topic_t *topic);
void gr_topics_insert(gr_topics_t *t, gr_topic_t *topic);
void gr_topics_remove(gr_topics_t *t, gr_topic_t *topic);
/* Opens (creating or recovering) partition index's log. 0 or -errno. */
int gr_topic_partition_open(gr_broker_t *b, gr_topic_t *topic, int32_t index);
/*
 * The checkpointed offsets of a partition about to open (-1 for those not
 * checkpointed), into args' recovery_point, log_start_offset and
 * high_watermark.
 */
void gr_topics_checkpoints_find(const gr_topics_t *t, const char *topic, int32_t index,
                                gr_log_open_args_t *args /* out: the three offsets */);
/* Forgets a partition's checkpointed offsets: its log is open (they are its own now) or gone. */
void gr_topics_checkpoints_forget(gr_topics_t *t, const char *topic, int32_t index);
/* Keeps the offsets of log, about to close, for the files and a later reopening. 0 or -ENOMEM. */
int gr_topics_checkpoints_keep(gr_topics_t *t, const char *topic, int32_t index,
                               const gr_log_t *log);
/* Frees the tables (gr_topics_fini). */
void gr_topics_checkpoints_fini(gr_topics_t *t);
/* Adds (or replaces) one override, copying key and value. 0 or -ENOMEM. */
int gr_topic_add_config(gr_topic_t *topic, const char *key, const char *value);
void gr_topic_clear_configs(gr_topic_t *topic);
/*
 * Replaces topic's overrides with fresh's (a calloc'd gr_topic_t holding only
 * configs, freed here) and applies the new settings to its open logs.
 */
void gr_topic_adopt_configs(gr_broker_t *b, gr_topic_t *topic, gr_topic_t *fresh);
/* The directory partitions live in (the first log.dirs entry). */
const char *gr_topics_log_dir(const gr_broker_t *b);

#endif
