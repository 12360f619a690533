/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka_consumergroup_*: consumer-group lag under kafka-exporter's names
 * (Kafka has no MBean for it), from the group coordinator (group/group_lag.h):
 * every classic and consumer group is reported by the broker coordinating
 * it, and only there. A partition whose end this broker does not know yet
 * gets a current offset but no lag sample; the sums add the partitions
 * known.
 *
 * Runs on: the loop thread.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "group/coordinator.h"
#include "group/group_lag.h"
#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"

#define PARTITION_TEXT_MAX 12 /* an int32 in decimal, with its sign and NUL */

/* Which value of a row a family shows. */
typedef enum lag_value {
    VALUE_COMMITTED,
    VALUE_LAG,        /* high watermark - committed */
    VALUE_LAG_STABLE, /* last stable offset - committed */
} lag_value_t;

/* The value, or -1 when the end it needs is unknown. Never negative otherwise. */
static int64_t row_value(const gr_group_lag_row_t *r, lag_value_t which)
{
    int64_t end = which == VALUE_LAG ? r->high_watermark : r->last_stable;
    if (which == VALUE_COMMITTED)
        return r->committed;
    if (end < 0)
        return -1;
    /* A commit past the end (a truncated log, a follower's stale end) is no lag. */
    return end > r->committed ? end - r->committed : 0;
}

/* name{consumergroup,topic,partition} for every row with a known value. */
static void write_partitions(gr_writer_t *out, const char *name, const char *help,
                             const gr_group_lag_row_t *rows, int count, lag_value_t which)
{
    gr_prom_family(out, name, GR_PROM_GAUGE, help);
    for (int i = 0; i < count; i++) {
        int64_t v = row_value(&rows[i], which);
        if (v < 0)
            continue;
        char partition[PARTITION_TEXT_MAX];
        snprintf(partition, sizeof partition, "%" PRId32, rows[i].partition);
        gr_prom_label_t labels[] = {GR_PROM_LABEL("consumergroup", rows[i].group_id),
                                    GR_PROM_LABEL("topic", rows[i].topic),
                                    GR_PROM_LABEL("partition", partition)};
        gr_prom_sample_u64(out, name, NULL, labels, 3, (uint64_t)v);
    }
}

/*
 * name{consumergroup,topic}: the sum over the topic's partitions with a known
 * value. kafka-exporter's names end in _sum, which Prometheus' linter keeps
 * for summaries and histograms unless the family is untyped (read as a
 * gauge), so untyped it is: the names dashboards use, and a clean lint.
 */
static void write_sums(gr_writer_t *out, const char *name, const char *help,
                       const gr_group_lag_row_t *rows, int count, lag_value_t which)
{
    gr_prom_family(out, name, GR_PROM_UNTYPED, help);
    for (int i = 0; i < count;) {
        uint64_t sum = 0;
        bool known = false;
        int j = i;
        /* Rows are sorted by group then topic: a (group, topic) is a run. */
        for (; j < count && rows[j].group_id == rows[i].group_id &&
               strcmp(rows[j].topic, rows[i].topic) == 0;
             j++) {
            int64_t v = row_value(&rows[j], which);
            if (v >= 0) {
                sum += (uint64_t)v;
                known = true;
            }
        }
        if (known) {
            gr_prom_label_t labels[] = {GR_PROM_LABEL("consumergroup", rows[i].group_id),
                                        GR_PROM_LABEL("topic", rows[i].topic)};
            gr_prom_sample_u64(out, name, NULL, labels, 2, sum);
        }
        i = j;
    }
}

static void write_members(gr_group_t *g, void *arg)
{
    if (g->type == GR_GROUP_TYPE_SHARE)
        return;
    gr_prom_label_t label = GR_PROM_LABEL("consumergroup", g->key.id);
    gr_prom_sample_u64(arg, "kafka_consumergroup_members", NULL, &label, 1,
                       (uint64_t)gr_group_lag_members(g));
}

void gr_metrics_collect_lag(gr_broker_t *b, gr_writer_t *out)
{
    if (!b->groups)
        return;
    gr_group_lag_row_t *rows = NULL;
    int count = gr_group_lag_rows(b->groups, &rows);
    if (count < 0)
        return; /* -ENOMEM: the page goes out without lag this time */
    write_partitions(
        out, "kafka_consumergroup_current_offset",
        "Committed offset of a consumer group in a partition (its coordinator's view).", rows,
        count, VALUE_COMMITTED);
    write_sums(out, "kafka_consumergroup_current_offset_sum",
               "Committed offsets of a consumer group in a topic, summed over its partitions.",
               rows, count, VALUE_COMMITTED);
    write_partitions(out, "kafka_consumergroup_lag",
                     "High watermark minus committed offset (0 when past it); absent while the "
                     "high watermark is unknown.",
                     rows, count, VALUE_LAG);
    write_sums(out, "kafka_consumergroup_lag_sum",
               "Lag of a consumer group in a topic, summed over its partitions with a known "
               "high watermark.",
               rows, count, VALUE_LAG);
    write_partitions(out, "kafka_consumergroup_lag_stable",
                     "Last stable offset minus committed offset (what a read_committed consumer "
                     "can still read); absent while unknown.",
                     rows, count, VALUE_LAG_STABLE);
    free(rows);
    gr_prom_family(out, "kafka_consumergroup_members", GR_PROM_GAUGE,
                   "Members of a consumer group (classic or consumer protocol).");
    if (b->groups->table.buckets)
        gr_coordinator_foreach(b->groups, write_members, out);
}
