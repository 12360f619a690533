/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka_log_log_* (Kafka's Log gauges, one sample per partition with a log
 * on this broker): size in bytes, segments, log start and end offsets,
 * read from each open log at scrape time. One walk over the topic table
 * per family, since a family's samples must be contiguous.
 */
#include <stdio.h>

#include "metadata/topics.h"
#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"

typedef int64_t log_figure_fn(const gr_log_t *log);

typedef struct log_family {
    const char *name;
    const char *help;
    log_figure_fn *figure;
} log_family_t;

static int64_t segment_count(const gr_log_t *log)
{
    return gr_log_segment_count(log);
}

static const log_family_t log_families[] = {
    {"kafka_log_log_size", "Bytes of the partition's log segments on this broker.", gr_log_size},
    {"kafka_log_log_numlogsegments", "Segments of the partition's log on this broker.",
     segment_count},
    {"kafka_log_log_logstartoffset", "First offset of the partition's log on this broker.",
     gr_log_start_offset},
    {"kafka_log_log_logendoffset", "Offset after the last record of the partition's log here.",
     gr_log_end_offset},
};

typedef struct log_walk {
    gr_writer_t *out;
    const log_family_t *family;
} log_walk_t;

static void write_topic(gr_topic_t *t, void *arg)
{
    const log_walk_t *walk = arg;
    for (int32_t i = 0; i < t->partition_count; i++) {
        const gr_log_t *log = t->partitions[i].log;
        if (!log)
            continue;
        char index[16];
        snprintf(index, sizeof index, "%d", t->partitions[i].index);
        gr_prom_label_t labels[] = {GR_PROM_LABEL("topic", t->name),
                                    GR_PROM_LABEL("partition", index)};
        gr_prom_sample(walk->out, walk->family->name, NULL, labels, 2,
                       (double)walk->family->figure(log));
    }
}

void gr_metrics_collect_log(gr_broker_t *b, gr_writer_t *out)
{
    if (!b->topics)
        return;
    for (size_t f = 0; f < sizeof log_families / sizeof log_families[0]; f++) {
        log_walk_t walk = {out, &log_families[f]};
        gr_prom_family(out, log_families[f].name, GR_PROM_GAUGE, log_families[f].help);
        gr_topics_foreach(b->topics, write_topic, &walk);
    }
}
