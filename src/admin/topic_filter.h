/* SPDX-License-Identifier: Apache-2.0 */
/* Kafka's tools' topic-partition filters (topic_filter.c). */
#ifndef GR_ADMIN_TOPIC_FILTER_H
#define GR_ADMIN_TOPIC_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_TOPIC_FILTER_RULES_MAX 64

/* One rule: topics whose whole name the pattern matches, partitions in [lower, upper) or set. */
typedef struct gr_topic_filter_rule {
    regex_t topic;
    int32_t lower, upper;
    const char *set; /* --partitions' comma list (the range ignored), or NULL */
} gr_topic_filter_rule_t;

/* Any rule allowing a topic-partition allows it (Kafka's composite filter). */
typedef struct gr_topic_filter {
    gr_topic_filter_rule_t rules[GR_TOPIC_FILTER_RULES_MAX];
    int count;
} gr_topic_filter_t;

/*
 * Builds the filter of kafka-get-offsets.sh's --topic-partitions list
 * ("topic1:1,topic2:0-3,topic3,topic4:5-,topic5:-3": a topic pattern, then
 * a partition, a range with an exclusive upper bound, or nothing for all).
 * 0, or -1 with Kafka's message in err (and nothing to fini).
 */
int gr_topic_filter_init_list(gr_topic_filter_t *f, const char *list, char *err, size_t errlen);

/*
 * Builds the filter of --topic PATTERN (NULL: every topic) and --partitions
 * P,Q,... (NULL or empty: every partition). 0, or -1 with Kafka's message in err.
 */
int gr_topic_filter_init_topic(gr_topic_filter_t *f, const char *topic, const char *partitions,
                               char *err, size_t errlen);

void gr_topic_filter_fini(gr_topic_filter_t *f);

bool gr_topic_filter_topic(const gr_topic_filter_t *f, const char *topic);
bool gr_topic_filter_partition(const gr_topic_filter_t *f, const char *topic, int32_t partition);

#endif
