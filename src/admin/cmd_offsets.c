/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin get-offsets (kafka-get-offsets.sh): the offset of --time
 * (latest, earliest, max-timestamp, earliest-local, latest-tiered or a
 * timestamp in ms) of each partition the filter allows (--topic PATTERN
 * with --partitions P,Q..., or --topic-partitions rules; topic_filter.c),
 * internal topics included unless --exclude-internal-topics. Each offset is
 * asked of the partition's leader; the lines "topic:partition:offset" print
 * in Kafka's order (by the "topic-partition" text, so p10 sorts before p2),
 * leaving out a partition with no offset for the time, as Kafka's tool does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/topic_filter.h"
#include "gen/list_offsets.h"
#include "gen/metadata.h"

#define GET_OFFSETS_METADATA_MAX_V     12
#define GET_OFFSETS_LIST_OFFSETS_MAX_V 9 /* the first with LATEST_TIERED */
#define GET_OFFSETS_PARTITIONS_MAX     100000
#define GET_OFFSETS_BROKERS_MAX        256
#define GET_OFFSETS_MESSAGE_MAX        1024
#define TOPIC_PARTITION_TEXT_MAX       300

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT get-offsets [--topic PATTERN]\n"
    "       [--partitions P,Q...] [--topic-partitions T:P,T:N-M,T:N-,T:-M,T...]\n"
    "       [--time latest|-1|earliest|-2|max-timestamp|-3|earliest-local|-4|\n"
    "               latest-tiered|-5|MS] [--exclude-internal-topics]\n"
    "  each partition's offset as topic:partition:offset (kafka-get-offsets.sh);\n"
    "  topic patterns are regular expressions matched against the whole name\n";

/* A partition asked about, and its answer. */
typedef struct offsets_part {
    const char *topic;
    int32_t partition;
    int32_t leader;
    int64_t offset; /* -1: none for the time (not printed) */
} offsets_part_t;

/* Kafka's message prefix for everything its tool refuses. */
#define ERROR_PREFIX "Error occurred: "

/* --time's value as ListOffsets' timestamp. 0, or -1 (Kafka's message printed). */
static int parse_time(const char *text, int64_t *ts)
{
    static const struct {
        const char *name;
        int64_t ts;
    } names[] = {{"latest", GR_LIST_OFFSETS_TIMESTAMP_LATEST},
                 {"earliest", GR_LIST_OFFSETS_TIMESTAMP_EARLIEST},
                 {"max-timestamp", GR_LIST_OFFSETS_TIMESTAMP_MAX_TIMESTAMP},
                 {"earliest-local", GR_LIST_OFFSETS_TIMESTAMP_EARLIEST_LOCAL},
                 {"latest-tiered", GR_LIST_OFFSETS_TIMESTAMP_LATEST_TIERED}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(text, names[i].name) == 0) {
            *ts = names[i].ts;
            return 0;
        }
    char *end = NULL;
    errno = 0;
    long long n = strtoll(text, &end, 10);
    if (end == text || *end || errno) {
        fprintf(stderr,
                ERROR_PREFIX "Malformed time argument %s. Please use -1 or latest / -2 or "
                             "earliest / -3 or max-timestamp / -4 or earliest-local / -5 or "
                             "latest-tiered, or a specified long format timestamp\n",
                text);
        return -1;
    }
    *ts = n;
    return 0;
}

/* The filter the options describe. 0, or -1 (Kafka's message printed). */
static int build_filter(gr_admin_t *a, gr_topic_filter_t *f)
{
    const char *list = gr_admin_opt(a->opts, "topic-partitions");
    const char *topic = gr_admin_opt(a->opts, "topic");
    const char *partitions = gr_admin_opt(a->opts, "partitions");
    char err[GET_OFFSETS_MESSAGE_MAX];
    int rc;
    if (list && (topic || partitions)) {
        snprintf(err, sizeof err, "--topic-partitions cannot be used with --topic or --partitions");
        rc = -1;
    } else if (list) {
        rc = gr_topic_filter_init_list(f, list, err, sizeof err);
    } else {
        rc = gr_topic_filter_init_topic(f, topic, partitions, err, sizeof err);
    }
    if (rc)
        fprintf(stderr, ERROR_PREFIX "%s\n", err);
    return rc;
}

/* The partitions of every topic the filter allows (Metadata for all topics). Count, or -1. */
static int list_partitions(gr_admin_t *a, const gr_topic_filter_t *f, offsets_part_t *out, int max)
{
    int16_t v = gr_admin_version(a, GR_API_METADATA, GET_OFFSETS_METADATA_MAX_V);
    if (v < 0)
        return -1;
    gr_metadata_request_t req;
    gr_metadata_request_init(&req);
    req.topics_null = true; /* every topic */
    req.allow_auto_topic_creation = false;
    gr_metadata_response_t md;
    if (gr_admin_call(a, GR_API_METADATA, v, &req, &md))
        return -1;
    bool exclude_internal = gr_admin_flag(a->opts, "exclude-internal-topics");
    int n = 0;
    for (int32_t i = 0; i < md.topics_count; i++) {
        const gr_metadata_response_metadata_response_topic_t *t = &md.topics[i];
        char *name = gr_admin_text(a, t->name);
        if (!name || t->error_code || (exclude_internal && t->is_internal) ||
            !gr_topic_filter_topic(f, name))
            continue;
        for (int32_t p = 0; p < t->partitions_count && n < max; p++)
            if (gr_topic_filter_partition(f, name, t->partitions[p].partition_index))
                out[n++] = (offsets_part_t){name, t->partitions[p].partition_index,
                                            t->partitions[p].leader_id, -1};
    }
    return n;
}

/* The offset of time ts in part, asked of the connected broker. Its error, or -1 (printed). */
static int list_offset(gr_admin_t *a, offsets_part_t *part, int64_t ts, int16_t *error)
{
    int16_t v = gr_admin_version(a, GR_API_LIST_OFFSETS, GET_OFFSETS_LIST_OFFSETS_MAX_V);
    if (v < 1)
        return -1;
    return gr_admin_list_offset(a, v, gr_str(part->topic), part->partition, ts, &part->offset,
                                error);
}

/* Asks each partition's leader. 0, or 1 when some partition was skipped (printed). */
static int ask_leaders(gr_admin_t *a, offsets_part_t *parts, int n, int64_t ts)
{
    gr_admin_broker_t *brokers =
        gr_arena_alloc(&a->arena, GET_OFFSETS_BROKERS_MAX * sizeof *brokers);
    int count = brokers ? gr_admin_brokers(a, brokers, GET_OFFSETS_BROKERS_MAX) : -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        int16_t error = GR_KERR_LEADER_NOT_AVAILABLE;
        for (int b = 0; b < count; b++)
            if (brokers[b].node_id == parts[i].leader &&
                (gr_admin_move_to(a, brokers[b].addr) || list_offset(a, &parts[i], ts, &error)))
                error = GR_KERR_LEADER_NOT_AVAILABLE; /* (no answer: printed) */
        if (error) {
            char text[GET_OFFSETS_MESSAGE_MAX];
            gr_admin_java_error(error, NULL, text, sizeof text);
            fprintf(stderr, "Skip getting offsets for topic-partition %s-%d due to error: %s\n",
                    parts[i].topic, parts[i].partition, text);
            rc = 1;
        }
    }
    return rc;
}

static int cmp_kafka_order(const void *x, const void *y)
{
    const offsets_part_t *a = x, *b = y;
    char ka[TOPIC_PARTITION_TEXT_MAX], kb[TOPIC_PARTITION_TEXT_MAX];
    snprintf(ka, sizeof ka, "%s-%d", a->topic, a->partition);
    snprintf(kb, sizeof kb, "%s-%d", b->topic, b->partition);
    return strcmp(ka, kb);
}

int gr_admin_cmd_get_offsets(gr_admin_t *a)
{
    int rc = gr_admin_check(a, help, NULL);
    if (rc >= 0)
        return rc;
    int64_t ts = GR_LIST_OFFSETS_TIMESTAMP_LATEST;
    const char *time = gr_admin_opt(a->opts, "time");
    gr_topic_filter_t filter;
    if ((time && parse_time(time, &ts) < 0) || build_filter(a, &filter) < 0)
        return GR_ADMIN_EXIT_USAGE;
    rc = gr_admin_open(a);
    offsets_part_t *parts =
        rc < 0 ? gr_arena_alloc(&a->arena, GET_OFFSETS_PARTITIONS_MAX * sizeof *parts) : NULL;
    int n = parts ? list_partitions(a, &filter, parts, GET_OFFSETS_PARTITIONS_MAX) : -1;
    gr_topic_filter_fini(&filter);
    if (n < 0)
        return rc >= 0 ? rc : GR_ADMIN_EXIT_TRANSPORT;
    if (n == 0) {
        fprintf(stderr, ERROR_PREFIX "Could not match any topic-partitions with the specified "
                                     "filters\n");
        return GR_ADMIN_EXIT_FAILED;
    }
    bool skipped = ask_leaders(a, parts, n, ts) != 0;
    qsort(parts, (size_t)n, sizeof *parts, cmp_kafka_order);
    for (int i = 0; i < n; i++)
        if (parts[i].offset >= 0)
            printf("%s:%d:%lld\n", parts[i].topic, parts[i].partition, (long long)parts[i].offset);
    /* Kafka's tool exits 0 having skipped a partition; gregor-admin says so with 1. */
    return skipped && !a->kafka_tool ? GR_ADMIN_EXIT_FAILED : GR_ADMIN_EXIT_OK;
}
