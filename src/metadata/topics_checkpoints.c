/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The log dir's recovery-point, log-start and replication checkpoints, as
 * the topic table keeps them (gr_topics_checkpoints_t in topics.h).
 *
 * Each file is parsed once, at start-up, into a table keyed by
 * topic-partition (log/checkpoint_table.h). Invariant: a partition is in the
 * tables only while its log is not open. gr_topic_partition_open takes its
 * offsets out (the log is their keeper from then on), gr_partition_unhost
 * puts a closing log's offsets back (a later reopening recovers from them)
 * or forgets them with the data, and gr_topics_checkpoint writes the open
 * logs' offsets followed by the tables' (partitions on disk that this
 * broker has not opened yet keep their offsets across a checkpoint written
 * before they open). Opening N partitions costs O(N), not the O(N^2) of
 * re-reading every file per partition.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "log/checkpoint_table.h"
#include "log/log.h"
#include "log/log_dir.h"
#include "metadata/topics.h"
#include "metadata/topics_int.h"

#define CHECKPOINT_KINDS 3
_Static_assert(CHECKPOINT_KINDS ==
                   sizeof(((gr_topics_checkpoints_t *)0)->written_hash) / sizeof(uint64_t),
               "a written_hash per checkpoint file");

static const char *const checkpoint_files[CHECKPOINT_KINDS] = {
    GR_CHECKPOINT_RECOVERY_POINT,
    GR_CHECKPOINT_LOG_START,
    GR_CHECKPOINT_REPLICATION,
};

/* The tables in checkpoint_files' order. */
static void tables_of(gr_topics_checkpoints_t *c, gr_checkpoint_table_t **out[CHECKPOINT_KINDS])
{
    out[0] = &c->recovery;
    out[1] = &c->start;
    out[2] = &c->high_watermark;
}

int gr_topics_checkpoints_load(gr_broker_t *b)
{
    gr_checkpoint_table_t **tables[CHECKPOINT_KINDS];
    tables_of(&b->topics->checkpoints, tables);
    for (int k = 0; k < CHECKPOINT_KINDS; k++) {
        gr_checkpoint_table_free(*tables[k]);
        *tables[k] = NULL;
        int rc = gr_checkpoint_table_read(b->log_dir, checkpoint_files[k], tables[k]);
        if (rc == -ENOMEM)
            return rc;
        if (rc < 0) {
            gr_logf(&b->log, GR_LOG_WARN, "log", "cannot read %s: %s: ignored", checkpoint_files[k],
                    strerror(-rc));
            if (!(*tables[k] = gr_checkpoint_table_new()))
                return -ENOMEM;
        }
    }
    return 0;
}

void gr_topics_checkpoints_fini(gr_topics_t *t)
{
    gr_checkpoint_table_t **tables[CHECKPOINT_KINDS];
    tables_of(&t->checkpoints, tables);
    for (int k = 0; k < CHECKPOINT_KINDS; k++) {
        gr_checkpoint_table_free(*tables[k]);
        *tables[k] = NULL;
    }
}

/* A table not loaded (a broker without a log dir, unit tests) finds nothing. */
static int64_t find(const gr_checkpoint_table_t *table, const char *topic, int32_t index)
{
    return table ? gr_checkpoint_table_find(table, topic, index, -1) : -1;
}

void gr_topics_checkpoints_find(const gr_topics_t *t, const char *topic, int32_t index,
                                gr_log_open_args_t *args)
{
    const gr_topics_checkpoints_t *c = &t->checkpoints;
    args->recovery_point = find(c->recovery, topic, index);
    args->log_start_offset = find(c->start, topic, index);
    args->high_watermark = find(c->high_watermark, topic, index);
}

void gr_topics_checkpoints_forget(gr_topics_t *t, const char *topic, int32_t index)
{
    gr_checkpoint_table_t **tables[CHECKPOINT_KINDS];
    tables_of(&t->checkpoints, tables);
    for (int k = 0; k < CHECKPOINT_KINDS; k++)
        if (*tables[k])
            gr_checkpoint_table_remove(*tables[k], topic, index);
}

int gr_topics_checkpoints_keep(gr_topics_t *t, const char *topic, int32_t index,
                               const gr_log_t *log)
{
    gr_checkpoint_table_t **tables[CHECKPOINT_KINDS];
    tables_of(&t->checkpoints, tables);
    int64_t values[CHECKPOINT_KINDS] = {gr_log_recovery_point(log), gr_log_start_offset(log),
                                        gr_log_high_watermark(log)};
    for (int k = 0; k < CHECKPOINT_KINDS; k++) {
        if (!*tables[k])
            continue;
        int rc = gr_checkpoint_table_set(*tables[k], topic, index, values[k]);
        if (rc < 0) {
            /* None rather than a stale one: the log then recovers in full. */
            gr_topics_checkpoints_forget(t, topic, index);
            return rc;
        }
    }
    return 0;
}

/* ---- writing -------------------------------------------------------------- */

static void collect_open_logs(gr_topic_t *topic, void *arg)
{
    gr_checkpoint_text_t *texts = arg;
    for (int32_t i = 0; i < topic->partition_count; i++) {
        gr_log_t *log = topic->partitions[i].log;
        if (!log)
            continue;
        gr_checkpoint_text_add(&texts[0], topic->name, i, gr_log_recovery_point(log));
        gr_checkpoint_text_add(&texts[1], topic->name, i, gr_log_start_offset(log));
        gr_checkpoint_text_add(&texts[2], topic->name, i, gr_log_high_watermark(log));
    }
}

static void collect_kept(const char *topic, int32_t partition, int64_t offset, void *arg)
{
    gr_checkpoint_text_add(arg, topic, partition, offset);
}

int gr_topics_checkpoint(gr_broker_t *b)
{
    gr_checkpoint_text_t texts[CHECKPOINT_KINDS] = {{0}};
    gr_topics_checkpoints_t *c = &b->topics->checkpoints;
    gr_checkpoint_table_t **tables[CHECKPOINT_KINDS];
    tables_of(c, tables);
    gr_topics_foreach(b->topics, collect_open_logs, texts);
    int rc = 0;
    for (int k = 0; k < CHECKPOINT_KINDS; k++) {
        if (*tables[k])
            gr_checkpoint_table_foreach(*tables[k], collect_kept, &texts[k]);
        int wrc = rc ? 0
                     : gr_log_dir_write_checkpoint_text(b->log_dir, checkpoint_files[k], &texts[k],
                                                        &c->written_hash[k]);
        if (wrc < 0)
            rc = wrc;
        gr_checkpoint_text_fini(&texts[k]);
    }
    return rc;
}
