/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin groups delete-offsets (kafka-consumer-groups.sh
 * --delete-offsets): OffsetDelete at the group's coordinator for the
 * partitions --topic T (every partition) or --topic T:p,q,... names
 * (repeatable), printed as Kafka's tool prints it: a first line (or an
 * "Error: " line on stderr), then a TOPIC / PARTITION / STATUS table in
 * 30/15/15-wide columns, each status "Successful" or "Error: :" and the
 * Java exception's text. A topic the cluster does not have gets one row
 * with partition "Not Provided". Exit 1 when anything failed.
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/groups.h"
#include "gen/metadata.h"
#include "gen/offset_delete.h"

#define OFFSET_DELETE_MAX_V 0
#define DELETE_TOPICS_MAX   64
#define NOT_PROVIDED        (-1) /* Kafka's partition for a topic it could not describe */
#define STATUS_TEXT_MAX     512
#define SORT_KEY_MAX        300

/* One row of the answer. */
typedef struct offset_row {
    const char *topic;
    int32_t partition; /* NOT_PROVIDED: the topic could not be described */
    int16_t error;
} offset_row_t;

/* Adds the partitions spec (T or T:p,q,...) names. Count added, -1 (printed), -2 usage. */
static int add_topic(gr_admin_t *a, const char *spec, offset_row_t *rows, int at, int max)
{
    const char *colon = strchr(spec, ':');
    char *topic = gr_arena_strndup(&a->arena, spec, colon ? (size_t)(colon - spec) : strlen(spec));
    if (!topic)
        return -1;
    int n = 0;
    for (const char *p = colon ? colon + 1 : NULL; p && *p && at + n < max;) {
        char *end = NULL;
        long partition = strtol(p, &end, 10);
        if (end == p || partition < 0 || partition > INT32_MAX || (*end && *end != ',')) {
            fprintf(stderr, "error: --topic wants T or T:p,q,..., got '%s'\n", spec);
            return -2;
        }
        rows[at + n++] = (offset_row_t){topic, (int32_t)partition, GR_KERR_NONE};
        p = *end ? end + 1 : end;
    }
    if (colon)
        return n;
    gr_metadata_response_t md;
    if (gr_admin_topic_metadata(a, gr_str(topic), &md))
        return -1;
    if (md.topics[0].error_code) {
        rows[at] = (offset_row_t){topic, NOT_PROVIDED, md.topics[0].error_code};
        return 1;
    }
    for (int32_t i = 0; i < md.topics[0].partitions_count && at + n < max; i++)
        rows[at + n++] =
            (offset_row_t){topic, md.topics[0].partitions[i].partition_index, GR_KERR_NONE};
    return n;
}

/* Sends OffsetDelete for the rows with a partition; fills their errors. Its group error, or -1. */
static int send_delete(gr_admin_t *a, const char *group, offset_row_t *rows, int n)
{
    int16_t v = gr_admin_version(a, GR_API_OFFSET_DELETE, OFFSET_DELETE_MAX_V);
    if (v < 0)
        return -1;
    gr_offset_delete_request_t req;
    gr_offset_delete_request_init(&req);
    gr_offset_delete_request_offset_delete_request_topic_t *t =
        gr_arena_alloc(&a->arena, (size_t)n * sizeof *t + 1);
    gr_offset_delete_request_offset_delete_request_partition_t *p =
        gr_arena_alloc(&a->arena, (size_t)n * sizeof *p + 1);
    if (!t || !p)
        return -1;
    int count = 0;
    for (int i = 0; i < n; i++) { /* one topic entry per partition, as the groups commit does */
        if (rows[i].partition == NOT_PROVIDED)
            continue;
        gr_offset_delete_request_offset_delete_request_topic_init(&t[count]);
        gr_offset_delete_request_offset_delete_request_partition_init(&p[count]);
        p[count].partition_index = rows[i].partition;
        t[count].name = gr_str(rows[i].topic);
        t[count].partitions = &p[count];
        t[count].partitions_count = 1;
        count++;
    }
    req.group_id = gr_str(group);
    req.topics = t;
    req.topics_count = count;
    gr_offset_delete_response_t resp;
    if (gr_admin_call(a, GR_API_OFFSET_DELETE, v, &req, &resp))
        return -1;
    for (int i = 0; i < n; i++) {
        if (rows[i].partition == NOT_PROVIDED)
            continue;
        rows[i].error = resp.error_code;
        for (int32_t x = 0; x < resp.topics_count && !resp.error_code; x++)
            for (int32_t y = 0; y < resp.topics[x].partitions_count; y++)
                if (resp.topics[x].partitions[y].partition_index == rows[i].partition &&
                    gr_str_eq(resp.topics[x].name, gr_str(rows[i].topic)))
                    rows[i].error = resp.topics[x].partitions[y].error_code;
    }
    return resp.error_code;
}

/* Kafka's line for the outcome as a whole (its first error decides). */
static void print_outcome(const char *group, int16_t error, const char *const *topics, int count)
{
    if (error == GR_KERR_NONE) {
        printf("Request succeed for deleting offsets with topic ");
        for (int i = 0; i < count; i++)
            printf("%s%s", i ? ", " : "", topics[i]);
        printf(" group %s\n", group);
        return;
    }
    fprintf(stderr, "\nError: ");
    if (error == GR_KERR_INVALID_GROUP_ID)
        fprintf(stderr, "'%s' is not valid.\n", group);
    else if (error == GR_KERR_GROUP_ID_NOT_FOUND)
        fprintf(stderr, "'%s' does not exist.\n", group);
    else if (error == GR_KERR_GROUP_AUTHORIZATION_FAILED)
        fprintf(stderr, "Access to '%s' is not authorized.\n", group);
    else if (error == GR_KERR_NON_EMPTY_GROUP)
        fprintf(stderr,
                "Deleting offsets of a consumer group '%s' is forbidden if the group is not "
                "empty.\n",
                group);
    else if (error == GR_KERR_GROUP_SUBSCRIBED_TO_TOPIC ||
             error == GR_KERR_TOPIC_AUTHORIZATION_FAILED ||
             error == GR_KERR_UNKNOWN_TOPIC_OR_PARTITION)
        fprintf(stderr, "Encounter some partition level error, see the follow-up details:\n");
    else
        fprintf(stderr, "Encounter some unknown error: %s\n", gr_kerr_name(error));
}

/* Kafka sorts the rows by the topic and partition written together ("t10" before "t2"). */
static int cmp_row(const void *x, const void *y)
{
    const offset_row_t *a = x, *b = y;
    char ka[SORT_KEY_MAX], kb[SORT_KEY_MAX];
    snprintf(ka, sizeof ka, "%s%d", a->topic, a->partition);
    snprintf(kb, sizeof kb, "%s%d", b->topic, b->partition);
    return strcmp(ka, kb);
}

static void print_rows(offset_row_t *rows, int n)
{
    qsort(rows, (size_t)n, sizeof *rows, cmp_row);
    printf("\n%-30s %-15s %-15s", "TOPIC", "PARTITION", "STATUS");
    for (int i = 0; i < n; i++) {
        char partition[16], status[STATUS_TEXT_MAX] = "Successful";
        snprintf(partition, sizeof partition, "%d", rows[i].partition);
        if (rows[i].error) {
            char text[STATUS_TEXT_MAX - 16];
            gr_admin_java_error(rows[i].error, NULL, text, sizeof text);
            snprintf(status, sizeof status, "Error: :%s", text);
        }
        printf("\n%-30s %-15s %-15s", rows[i].topic,
               rows[i].partition == NOT_PROVIDED ? "Not Provided" : partition, status);
    }
    printf("\n");
}

int gr_admin_groups_delete_offsets(gr_admin_t *a)
{
    const char *group = gr_admin_need(a, "group");
    const char *topics[DELETE_TOPICS_MAX];
    int topic_count = gr_admin_opt_all(a->opts, "topic", topics, DELETE_TOPICS_MAX);
    if (!group || topic_count == 0) {
        if (group)
            fprintf(stderr, "error: --topic T[:p,q,...] is required (repeatable)\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    offset_row_t *rows = gr_arena_alloc(&a->arena, GR_ADMIN_PARTITIONS_MAX * sizeof *rows);
    if (!rows)
        return GR_ADMIN_EXIT_TRANSPORT;
    int n = 0;
    for (int i = 0; i < topic_count; i++) {
        int added = add_topic(a, topics[i], rows, n, GR_ADMIN_PARTITIONS_MAX);
        if (added < 0)
            return added == -2 ? GR_ADMIN_EXIT_USAGE : GR_ADMIN_EXIT_TRANSPORT;
        n += added;
    }
    gr_admin_broker_t coordinator;
    if (gr_admin_group_coordinator(a, group, &coordinator))
        return GR_ADMIN_EXIT_TRANSPORT;
    int error = send_delete(a, group, rows, n);
    if (error < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    for (int i = 0; i < n && !error; i++) /* no group error: the first partition's decides */
        if (rows[i].partition != NOT_PROVIDED)
            error = rows[i].error;
    print_outcome(group, (int16_t)error, topics, topic_count);
    print_rows(rows, n);
    bool failed = error != GR_KERR_NONE;
    for (int i = 0; i < n; i++)
        failed |= rows[i].error != GR_KERR_NONE;
    return failed ? GR_ADMIN_EXIT_FAILED : GR_ADMIN_EXIT_OK;
}
