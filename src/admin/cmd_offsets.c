/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin get-offsets (kafka-get-offsets.sh): each partition's offset
 * for --time (latest, earliest, max-timestamp or a timestamp in ms), asked
 * of the partition's leader, printed "topic:partition:offset" in Kafka's
 * order (by the "topic-partition" text, so p10 sorts before p2).
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/groups.h"
#include "gen/list_offsets.h"

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT get-offsets --topic T\n"
    "       [--partitions P,Q...] [--time latest|-1|earliest|-2|max-timestamp|-3|MS]\n"
    "  each partition's offset as topic:partition:offset (kafka-get-offsets.sh)\n";

/* --time's value as ListOffsets' timestamp. 0, or -1 (printed). */
static int parse_time(const char *text, int64_t *ts)
{
    static const struct {
        const char *name;
        int64_t ts;
    } names[] = {{"latest", GR_LIST_OFFSETS_TIMESTAMP_LATEST},
                 {"earliest", GR_LIST_OFFSETS_TIMESTAMP_EARLIEST},
                 {"max-timestamp", GR_LIST_OFFSETS_TIMESTAMP_MAX_TIMESTAMP}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(text, names[i].name) == 0) {
            *ts = names[i].ts;
            return 0;
        }
    char *end = NULL;
    long long n = strtoll(text, &end, 10);
    if (end == text || *end || n < GR_LIST_OFFSETS_TIMESTAMP_MAX_TIMESTAMP) {
        fprintf(stderr,
                "error: --time wants latest, earliest, max-timestamp, -1, -2, -3 or a "
                "timestamp in ms, got '%s'\n",
                text);
        return -1;
    }
    *ts = n;
    return 0;
}

/* Whether --partitions (a comma list; absent: every one) names partition. */
static bool wanted(const char *list, int32_t partition)
{
    for (const char *p = list; p && *p;) {
        char *end = NULL;
        long n = strtol(p, &end, 10);
        if (end == p)
            return false;
        if (n == partition)
            return true;
        p = *end == ',' ? end + 1 : end;
    }
    return !list;
}

static int cmp_kafka_order(const void *x, const void *y)
{
    const gr_admin_part_offsets_t *a = x, *b = y;
    char ka[16], kb[16];
    snprintf(ka, sizeof ka, "%d", a->partition);
    snprintf(kb, sizeof kb, "%d", b->partition);
    return strcmp(ka, kb);
}

int gr_admin_cmd_get_offsets(gr_admin_t *a)
{
    int rc = gr_admin_check(a, help, NULL);
    if (rc >= 0)
        return rc;
    int64_t ts = GR_LIST_OFFSETS_TIMESTAMP_LATEST;
    const char *time = gr_admin_opt(a->opts, "time");
    if (time && parse_time(time, &ts) < 0)
        return GR_ADMIN_EXIT_USAGE;
    rc = gr_admin_open(a);
    if (rc >= 0)
        return rc;
    gr_admin_part_offsets_t *parts =
        gr_arena_alloc(&a->arena, GR_ADMIN_PARTITIONS_MAX * sizeof *parts);
    int n = parts ? gr_admin_groups_topic_scope(a, parts) : -1;
    if (n < 0)
        return n == -2 ? GR_ADMIN_EXIT_USAGE : GR_ADMIN_EXIT_FAILED;
    const char *list = gr_admin_opt(a->opts, "partitions");
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (wanted(list, parts[i].partition))
            parts[kept++] = parts[i];
    qsort(parts, (size_t)kept, sizeof *parts, cmp_kafka_order);
    rc = GR_ADMIN_EXIT_OK;
    for (int i = 0; i < kept; i++) {
        gr_admin_broker_t leader;
        char *topic = gr_admin_text(a, parts[i].topic);
        if (gr_admin_partition_leader(a, topic, parts[i].partition, &leader) < 0 ||
            gr_admin_move_to(a, leader.addr) < 0 ||
            gr_admin_groups_list_offsets(a, &parts[i], 1, ts, true) < 0) {
            fprintf(stderr, "Skip getting offsets for topic-partition %s-%d\n", topic,
                    parts[i].partition);
            rc = GR_ADMIN_EXIT_FAILED;
            continue;
        }
        printf("%s:%d:%lld\n", topic, parts[i].partition, (long long)parts[i].target);
    }
    return rc;
}
