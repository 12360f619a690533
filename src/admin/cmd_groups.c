/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin groups, for classic and KIP-848 consumer groups alike: list
 * (ListGroups, with kafka-consumer-groups.sh's --type and --state filters),
 * describe (cmd_groups_describe.c), delete (DeleteGroups) and reset-offsets
 * (ListOffsets and OffsetFetch to compute the new offsets, OffsetCommit to
 * store them with --execute). Options follow kafka-consumer-groups.sh;
 * reset-offsets is a dry run unless --execute is given, and like Kafka's
 * tool it refuses a group that is not Empty (or Dead) before anything else.
 * Requests go to the bootstrap broker, which is every group's coordinator
 * in single-node mode.
 */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/groups.h"
#include "admin/records_json.h"
#include "gen/delete_groups.h"
#include "gen/list_groups.h"
#include "gen/list_offsets.h"
#include "gen/metadata.h"
#include "gen/offset_commit.h"
#include "gen/offset_fetch.h"

#define LIST_GROUPS_MAX_V    5
#define LIST_GROUPS_TYPE_V   5 /* TypesFilter and GroupType */
#define DELETE_GROUPS_MAX_V  2
#define OFFSET_FETCH_MIN_V   2 /* null topics: every committed offset */
#define OFFSET_FETCH_MAX_V   7 /* one group per request */
#define OFFSET_FETCH_EPOCH_V 5 /* the committed leader epoch */
#define OFFSET_COMMIT_MAX_V  7
#define LIST_OFFSETS_MAX_V   7
#define METADATA_MAX_V       12
#define NO_OFFSET            GR_ADMIN_NO_OFFSET
#define CONSUMER_PROTOCOL    "consumer" /* a consumer group's protocol type */
#define KAFKA_LIST_ID_MIN    15         /* kafka-consumer-groups.sh --list's id column */
#define KAFKA_LIST_GAP       10
#define KAFKA_LIST_COL       20 /* its TYPE and STATE columns */
#define PARTITIONS_MAX       GR_ADMIN_PARTITIONS_MAX
#define KAFKA_ERROR_TEXT_MAX 512
#define MS_PER_SEC           1000LL
#define NS_PER_MS            1000000L

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT groups SUBCOMMAND [options] [--json]\n"
    "  list [--type classic,consumer] [--state S,...]\n"
    "                                every group with its type, state and protocol type\n"
    "  describe (--group G... | --all-groups) [--members | --state] [--verbose]\n"
    "                                committed offsets with their lag and owner (the\n"
    "                                default), the members, or the group's state\n"
    "  delete --group G              delete an empty group and its offsets\n"
    "  delete-offsets --group G --topic T[:p,q...]...\n"
    "                                delete the group's committed offsets of those partitions\n"
    "  reset-offsets --group G (--topic T[:p,q...] | --all-topics)\n"
    "        (--to-earliest | --to-latest | --to-offset N | --to-datetime YYYY-MM-DDTHH:MM:SS\n"
    "         | --by-duration PnDTnHnMnS | --to-current | --shift-by N)\n"
    "        [--dry-run | --execute] [--export]  (--export: topic,partition,offset lines)\n"
    "        the group must have no members; without --execute nothing is changed\n";

static const char *const subcommands[] = {"list",          "describe",       "delete",
                                          "reset-offsets", "delete-offsets", NULL};

/* Kafka's group state names (GroupState), for --state's check. */
static const char *const state_names[] = {
    "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty",
    "Assigning",          "Reconciling",         NULL,
};
/* The group types this broker has (kafka-consumer-groups.sh --type). */
static const char *const type_names[] = {"classic", "consumer", NULL};

static bool known_name(const char *const *names, const char *s, size_t len)
{
    for (int i = 0; names[i]; i++)
        if (strlen(names[i]) == len && strncasecmp(names[i], s, len) == 0)
            return true;
    return false;
}

/*
 * Splits a comma-separated --state or --type value into *out (arena),
 * checking each name as kafka-consumer-groups.sh does. Count, or -1 (printed).
 */
static int split_names(gr_admin_t *a, const char *option, const char *value,
                       const char *const *names, gr_str_t **out)
{
    int n = 1;
    for (const char *p = value; *p; p++)
        n += *p == ',';
    *out = gr_arena_alloc(&a->arena, (size_t)n * sizeof(**out));
    if (!*out)
        return -1;
    int count = 0;
    for (const char *p = value;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len > 0 && *p == ' ')
            p++, len--;
        while (len > 0 && p[len - 1] == ' ')
            len--;
        if (!known_name(names, p, len)) {
            fprintf(stderr, "error: invalid --%s value '%s'; valid: ", option, value);
            for (int i = 0; names[i]; i++)
                fprintf(stderr, "%s%s", i ? ", " : "", names[i]);
            fprintf(stderr, "\n");
            return -1;
        }
        (*out)[count++] = (gr_str_t){p, (int32_t)len};
        if (!end)
            return count;
        p = end + 1;
    }
}

/* --type and --state of groups list into req. 0, or an exit code. */
static int list_filters(gr_admin_t *a, gr_list_groups_request_t *req)
{
    const char *types = gr_admin_opt(a->opts, "type");
    const char *states = gr_admin_opt(a->opts, "state");
    if (types) {
        req->types_filter_count = split_names(a, "type", types, type_names, &req->types_filter);
        if (req->types_filter_count < 0)
            return GR_ADMIN_EXIT_USAGE;
    }
    if (states && *states) {
        req->states_filter_count =
            split_names(a, "state", states, state_names, &req->states_filter);
        if (req->states_filter_count < 0)
            return GR_ADMIN_EXIT_USAGE;
    }
    return 0;
}

/* Whether a listed group is a consumer group, as Kafka's admin client decides. */
static bool is_consumer_group(gr_str_t protocol_type)
{
    return protocol_type.len <= 0 ||
           (protocol_type.len == (int32_t)strlen(CONSUMER_PROTOCOL) &&
            memcmp(protocol_type.ptr, CONSUMER_PROTOCOL, strlen(CONSUMER_PROTOCOL)) == 0);
}

/*
 * kafka-consumer-groups.sh --list's own output: the consumer groups' ids,
 * one a line; with --type or --state, columns padded as that tool pads
 * them (the id's at least KAFKA_LIST_ID_MIN wide plus KAFKA_LIST_GAP, the
 * others KAFKA_LIST_COL wide) and the type capitalised ("Consumer").
 */
static void print_kafka_list(gr_admin_t *a, const gr_list_groups_response_t *resp, int16_t v)
{
    bool type = gr_admin_opt(a->opts, "type") != NULL, state = gr_admin_flag(a->opts, "state");
    int width = KAFKA_LIST_ID_MIN;
    for (int32_t i = 0; i < resp->groups_count; i++)
        if (is_consumer_group(resp->groups[i].protocol_type) &&
            resp->groups[i].group_id.len > width)
            width = resp->groups[i].group_id.len;
    width += KAFKA_LIST_GAP;
    if (type || state) {
        printf("%-*s", width, "GROUP");
        if (type)
            printf(" %-*s", KAFKA_LIST_COL, "TYPE");
        if (state)
            printf(" %-*s", KAFKA_LIST_COL, "STATE");
        printf("\n");
    }
    for (int32_t i = 0; i < resp->groups_count; i++) {
        gr_list_groups_response_listed_group_t *g = &resp->groups[i];
        if (!is_consumer_group(g->protocol_type))
            continue;
        if (!type && !state) {
            printf("%.*s\n", g->group_id.len, g->group_id.ptr);
            continue;
        }
        printf("%-*s", width, gr_admin_text(a, g->group_id));
        if (type) {
            char *t = v >= LIST_GROUPS_TYPE_V ? gr_admin_text(a, g->group_type) : "classic";
            printf(" %c%-*s", toupper((unsigned char)t[0]), KAFKA_LIST_COL - 1, t[0] ? t + 1 : "");
        }
        if (state)
            printf(" %-*s", KAFKA_LIST_COL, v >= 4 ? gr_admin_text(a, g->group_state) : "Unknown");
        printf("\n");
    }
}

/*
 * groups list: every group of both kinds with its type, state and
 * protocol type; --type and --state filter on the broker (ListGroups v5
 * and v4), as kafka-consumer-groups.sh --list does.
 */
static int groups_list(gr_admin_t *a)
{
    int16_t v = gr_admin_version(a, GR_API_LIST_GROUPS, LIST_GROUPS_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_list_groups_request_t req;
    gr_list_groups_request_init(&req);
    int rc = list_filters(a, &req);
    if (rc)
        return rc;
    if ((req.types_filter_count > 0 && v < LIST_GROUPS_TYPE_V) ||
        (req.states_filter_count > 0 && v < 4)) {
        fprintf(stderr, "error: the broker's ListGroups (v%d) cannot filter by %s\n", v,
                req.types_filter_count > 0 ? "type" : "state");
        return GR_ADMIN_EXIT_TRANSPORT;
    }
    gr_list_groups_response_t resp;
    if (gr_admin_call(a, GR_API_LIST_GROUPS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.error_code) {
        gr_admin_report("groups", resp.error_code, gr_str(NULL));
        return GR_ADMIN_EXIT_FAILED;
    }
    if (a->kafka_tool && !a->json) {
        print_kafka_list(a, &resp, v);
        return GR_ADMIN_EXIT_OK;
    }
    const char *headers[] = {"GROUP", "TYPE", "STATE", "PROTOCOL-TYPE"};
    gr_table_t table;
    gr_table_init(&table, headers, 4);
    if (a->json)
        printf("[");
    for (int32_t i = 0; i < resp.groups_count; i++) {
        gr_list_groups_response_listed_group_t *g = &resp.groups[i];
        /* Before v5 every group is classic: the broker knows no other kind. */
        const char *type = v >= LIST_GROUPS_TYPE_V ? gr_admin_text(a, g->group_type) : "classic";
        if (a->json) {
            printf("%s{\"group\":", i ? "," : "");
            gr_json_strn(stdout, g->group_id.ptr, g->group_id.len);
            printf(",\"type\":");
            gr_json_str(stdout, type);
            printf(",\"state\":");
            gr_json_strn(stdout, g->group_state.ptr, v >= 4 ? g->group_state.len : -1);
            printf(",\"protocol_type\":");
            gr_json_strn(stdout, g->protocol_type.ptr, g->protocol_type.len);
            printf("}");
            continue;
        }
        const char *row[] = {gr_admin_text(a, g->group_id), type,
                             v >= 4 ? gr_admin_text(a, g->group_state) : "-",
                             gr_admin_text(a, g->protocol_type)};
        gr_table_row(&table, row);
    }
    if (a->json)
        printf("]\n");
    else
        gr_table_print(&table, stdout);
    return GR_ADMIN_EXIT_OK;
}

typedef gr_admin_part_offsets_t part_offsets_t;

int gr_admin_groups_committed(gr_admin_t *a, const char *group, part_offsets_t *out, int max)
{
    int16_t v = gr_admin_version(a, GR_API_OFFSET_FETCH, OFFSET_FETCH_MAX_V);
    if (v < OFFSET_FETCH_MIN_V)
        return -1;
    gr_offset_fetch_request_t req;
    gr_offset_fetch_request_init(&req);
    req.group_id = gr_str(group);
    req.topics_null = true;
    gr_offset_fetch_response_t resp;
    if (gr_admin_call(a, GR_API_OFFSET_FETCH, v, &req, &resp))
        return -1;
    if (resp.error_code) {
        gr_admin_report(group, resp.error_code, gr_str(NULL));
        return -1;
    }
    int n = 0;
    for (int32_t t = 0; t < resp.topics_count; t++)
        for (int32_t p = 0; p < resp.topics[t].partitions_count && n < max; p++) {
            gr_offset_fetch_response_offset_fetch_response_partition_t *part =
                &resp.topics[t].partitions[p];
            out[n++] =
                (part_offsets_t){resp.topics[t].name,
                                 part->partition_index,
                                 part->committed_offset,
                                 NO_OFFSET,
                                 NO_OFFSET,
                                 NO_OFFSET,
                                 v >= OFFSET_FETCH_EPOCH_V ? part->committed_leader_epoch : -1};
        }
    return n;
}

int gr_admin_groups_list_offsets(gr_admin_t *a, part_offsets_t *parts, int n, int64_t ts,
                                 bool into_target)
{
    int16_t v = gr_admin_version(a, GR_API_LIST_OFFSETS, LIST_OFFSETS_MAX_V);
    if (v < 1)
        return -1;
    for (int i = 0; i < n; i++) { /* one request per partition: simple, and n is small */
        int64_t off;
        int16_t error;
        if (gr_admin_list_offset(a, v, parts[i].topic, parts[i].partition, ts, &off, &error))
            return -1;
        if (error)
            off = NO_OFFSET;
        if (into_target)
            parts[i].target = off;
        else if (ts == GR_LIST_OFFSETS_TIMESTAMP_EARLIEST)
            parts[i].earliest = off;
        else
            parts[i].latest = off;
    }
    return 0;
}

/*
 * --export: kafka-consumer-groups.sh's CSV of the new offsets, one
 * "topic,partition,offset" line each in the order its Java map iterates
 * them, then the empty line its println adds.
 */
static void print_export(gr_admin_t *a, const part_offsets_t *parts, int n)
{
    gr_admin_records_target_t *lines = gr_arena_alloc(&a->arena, (size_t)n * sizeof *lines + 1);
    if (!lines)
        return;
    for (int i = 0; i < n; i++)
        lines[i] = (gr_admin_records_target_t){gr_admin_text(a, parts[i].topic), parts[i].partition,
                                               parts[i].target};
    gr_admin_records_java_order(lines, n);
    for (int i = 0; i < n; i++)
        printf("%s,%d,%lld\n", lines[i].topic, lines[i].partition, (long long)lines[i].offset);
    printf("\n");
}

/* reset-offsets' answer: each partition's new offset, as kafka-consumer-groups.sh prints it. */
static void print_targets(gr_admin_t *a, const char *group, part_offsets_t *parts, int n)
{
    if (a->json) {
        printf("[");
        for (int i = 0; i < n; i++) {
            printf("%s{\"group\":", i ? "," : "");
            gr_json_str(stdout, group);
            printf(",\"topic\":");
            gr_json_strn(stdout, parts[i].topic.ptr, parts[i].topic.len);
            printf(",\"partition\":%d,\"new_offset\":%lld}", parts[i].partition,
                   (long long)parts[i].target);
        }
        printf("]");
        return;
    }
    if (gr_admin_flag(a->opts, "export")) {
        print_export(a, parts, n);
        return;
    }
    const char *headers[] = {"GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"};
    gr_table_t table;
    gr_table_init(&table, headers, 4);
    for (int i = 0; i < n; i++) {
        char part[16], target[32];
        snprintf(part, sizeof part, "%d", parts[i].partition);
        snprintf(target, sizeof target, "%lld", (long long)parts[i].target);
        const char *row[] = {group, gr_admin_text(a, parts[i].topic), part, target};
        gr_table_row(&table, row);
    }
    gr_table_print(&table, stdout);
}

/* kafka-consumer-groups.sh --delete's lines for one group. */
static void print_kafka_delete(const char *group, int16_t code)
{
    if (!code) {
        printf("Deletion of requested consumer groups ('%s') was successful.\n", group);
        return;
    }
    char text[KAFKA_ERROR_TEXT_MAX];
    gr_admin_java_error(code, NULL, text, sizeof text);
    fprintf(stderr, "\nError: Deletion of some consumer groups failed:\n");
    printf("* Group '%s' could not be deleted due to: java.util.concurrent.ExecutionException: "
           "%s\n",
           group, text);
}

int gr_admin_groups_delete(gr_admin_t *a, const char *group, const char *kind)
{
    int16_t v = gr_admin_version(a, GR_API_DELETE_GROUPS, DELETE_GROUPS_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_delete_groups_request_t req;
    gr_delete_groups_request_init(&req);
    gr_str_t name = gr_str(group);
    req.groups_names = &name;
    req.groups_names_count = 1;
    gr_delete_groups_response_t resp;
    if (gr_admin_call(a, GR_API_DELETE_GROUPS, v, &req, &resp) || resp.results_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    int16_t code = resp.results[0].error_code;
    if (a->json) {
        printf("{\"group\":");
        gr_json_str(stdout, group);
        printf(",\"error\":");
        gr_json_str(stdout, code ? gr_kerr_name(code) : NULL);
        printf("}\n");
    } else if (a->kafka_tool && strcmp(kind, "consumer") == 0) {
        print_kafka_delete(group, code);
        return code ? GR_ADMIN_EXIT_FAILED : GR_ADMIN_EXIT_OK;
    } else if (!code) {
        printf("Deleted %s group %s.\n", kind, group);
    }
    if (code && !a->json)
        gr_admin_report(group, code, gr_str(NULL));
    return code ? GR_ADMIN_EXIT_FAILED : GR_ADMIN_EXIT_OK;
}

static int groups_delete(gr_admin_t *a)
{
    const char *group = gr_admin_need(a, "group");
    return group ? gr_admin_groups_delete(a, group, "consumer") : GR_ADMIN_EXIT_USAGE;
}

/* The partitions of topic, into parts (topic, partition filled). Count, or -1. */
static int topic_partitions(gr_admin_t *a, const char *topic, part_offsets_t *parts, int max)
{
    gr_metadata_response_t resp;
    if (gr_admin_topic_metadata(a, gr_str(topic), &resp))
        return -1;
    if (resp.topics[0].error_code) {
        gr_admin_report(topic, resp.topics[0].error_code, gr_str(NULL));
        return -1;
    }
    int n = 0;
    for (int32_t i = 0; i < resp.topics[0].partitions_count && n < max; i++)
        parts[n++] = (part_offsets_t){gr_str(topic),
                                      resp.topics[0].partitions[i].partition_index,
                                      NO_OFFSET,
                                      NO_OFFSET,
                                      NO_OFFSET,
                                      NO_OFFSET,
                                      -1};
    return n;
}

int64_t gr_admin_groups_parse_datetime(const char *text)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *rest = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest)
        return -1;
    int64_t ms = 0;
    if (*rest == '.')
        ms = strtoll(rest + 1, NULL, 10);
    return (int64_t)timegm(&tm) * 1000 + ms;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Targets from the group's committed offsets: each partition's commit
 * (--to-current), or it moved by shift, kept within the log (--shift-by).
 * A partition without a commit starts from the log's end, as Kafka does.
 * 0 or an exit code.
 */
static int committed_targets(gr_admin_t *a, const char *group, part_offsets_t *parts, int n,
                             int64_t shift, bool clamped)
{
    part_offsets_t *committed = gr_arena_alloc(&a->arena, PARTITIONS_MAX * sizeof(*committed));
    int c = committed ? gr_admin_groups_committed(a, group, committed, PARTITIONS_MAX) : -1;
    if (c < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    for (int i = 0; i < n; i++) {
        int64_t base = parts[i].latest;
        for (int j = 0; j < c; j++)
            if (gr_str_eq(committed[j].topic, parts[i].topic) &&
                committed[j].partition == parts[i].partition && committed[j].committed >= 0)
                base = committed[j].committed;
        parts[i].target = clamped ? clamp(base + shift, parts[i].earliest, parts[i].latest) : base;
    }
    return 0;
}

/* The time --to-datetime or --by-duration (before now) names, in ms; -1 (printed). */
static int64_t reset_time(const gr_admin_options_t *o)
{
    const char *datetime = gr_admin_opt(o, "to-datetime");
    if (datetime) {
        int64_t ts = gr_admin_groups_parse_datetime(datetime);
        if (ts < 0)
            fprintf(stderr, "error: --to-datetime wants YYYY-MM-DDTHH:MM:SS[.mmm]\n");
        return ts;
    }
    int64_t ago = 0;
    if (gr_admin_duration_parse(gr_admin_opt(o, "by-duration"), &ago) < 0) {
        fprintf(stderr, "error: --by-duration wants an ISO-8601 duration such as PT1H30M or "
                        "P1D\n");
        return -1;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t ts = (int64_t)now.tv_sec * MS_PER_SEC + now.tv_nsec / NS_PER_MS - ago;
    return ts < 0 ? 0 : ts;
}

/* Computes every partition's target offset from the chosen --to-* / --shift-by. 0 or exit code. */
static int reset_targets(gr_admin_t *a, const char *group, part_offsets_t *parts, int n)
{
    const gr_admin_options_t *o = a->opts;
    int64_t number = 0;
    if (gr_admin_groups_list_offsets(a, parts, n, GR_LIST_OFFSETS_TIMESTAMP_EARLIEST, false) ||
        gr_admin_groups_list_offsets(a, parts, n, GR_LIST_OFFSETS_TIMESTAMP_LATEST, false))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (gr_admin_flag(o, "to-earliest") || gr_admin_flag(o, "to-latest")) {
        for (int i = 0; i < n; i++)
            parts[i].target = gr_admin_flag(o, "to-earliest") ? parts[i].earliest : parts[i].latest;
    } else if (gr_admin_opt_long(o, "to-offset", &number) == 0) {
        for (int i = 0; i < n; i++)
            parts[i].target = clamp(number, parts[i].earliest, parts[i].latest);
    } else if (gr_admin_opt(o, "to-datetime") || gr_admin_opt(o, "by-duration")) {
        int64_t ts = reset_time(o);
        if (ts < 0)
            return GR_ADMIN_EXIT_USAGE;
        if (gr_admin_groups_list_offsets(a, parts, n, ts, true))
            return GR_ADMIN_EXIT_TRANSPORT;
        for (int i = 0; i < n; i++) /* no record that late: the end */
            if (parts[i].target < 0)
                parts[i].target = parts[i].latest;
    } else if (gr_admin_flag(o, "to-current")) {
        return committed_targets(a, group, parts, n, 0, false);
    } else if (gr_admin_opt_long(o, "shift-by", &number) == 0) {
        return committed_targets(a, group, parts, n, number, true);
    } else {
        fprintf(stderr, "error: give one of --to-earliest, --to-latest, --to-offset N, "
                        "--to-datetime T, --by-duration D, --to-current, --shift-by N\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    return 0;
}

static int commit_targets(gr_admin_t *a, const char *group, part_offsets_t *parts, int n)
{
    int16_t v = gr_admin_version(a, GR_API_OFFSET_COMMIT, OFFSET_COMMIT_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_offset_commit_request_t req;
    gr_offset_commit_request_init(&req);
    /* One topic entry per partition: parts may span topics (--all-topics). */
    gr_offset_commit_request_offset_commit_request_topic_t *t =
        gr_arena_alloc(&a->arena, (size_t)n * sizeof(*t));
    gr_offset_commit_request_offset_commit_request_partition_t *p =
        gr_arena_alloc(&a->arena, (size_t)n * sizeof(*p));
    if (!t || !p)
        return GR_ADMIN_EXIT_TRANSPORT;
    for (int i = 0; i < n; i++) {
        gr_offset_commit_request_offset_commit_request_topic_init(&t[i]);
        gr_offset_commit_request_offset_commit_request_partition_init(&p[i]);
        p[i].partition_index = parts[i].partition;
        p[i].committed_offset = parts[i].target;
        p[i].committed_metadata = gr_str("");
        t[i].name = parts[i].topic;
        t[i].partitions = &p[i];
        t[i].partitions_count = 1;
    }
    req.group_id = gr_str(group);
    req.member_id = gr_str("");
    req.topics = t;
    req.topics_count = n;
    gr_offset_commit_response_t resp;
    if (gr_admin_call(a, GR_API_OFFSET_COMMIT, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    int rc = GR_ADMIN_EXIT_OK;
    for (int32_t i = 0; i < resp.topics_count; i++)
        for (int32_t j = 0; j < resp.topics[i].partitions_count; j++)
            if (resp.topics[i].partitions[j].error_code) {
                gr_admin_report(group, resp.topics[i].partitions[j].error_code, gr_str(NULL));
                rc = GR_ADMIN_EXIT_FAILED;
            }
    return rc;
}

/*
 * The partitions to reset: --all-topics (every partition the group has an
 * offset for) or --topic T / T:p,q,... Count, -1 (failed) or -2 (bad
 * usage), the message printed.
 */
static int reset_scope(gr_admin_t *a, const char *group, part_offsets_t *parts)
{
    if (gr_admin_flag(a->opts, "all-topics"))
        return gr_admin_groups_committed(a, group, parts, PARTITIONS_MAX);
    return gr_admin_groups_topic_scope(a, parts);
}

int gr_admin_groups_topic_scope(gr_admin_t *a, gr_admin_part_offsets_t *parts)
{
    const char *spec = gr_admin_need(a, "topic");
    if (!spec)
        return -2;
    const char *colon = strchr(spec, ':');
    char *topic = gr_arena_strndup(&a->arena, spec, colon ? (size_t)(colon - spec) : strlen(spec));
    int n = topic ? topic_partitions(a, topic, parts, PARTITIONS_MAX) : -1;
    if (n < 0 || !colon)
        return n;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        for (const char *p = colon + 1; *p;) {
            char *end = NULL;
            long want = strtol(p, &end, 10);
            if (end == p) {
                fprintf(stderr, "error: --topic wants T or T:p,q,..., got '%s'\n", spec);
                return -2;
            }
            if (want == parts[i].partition) {
                parts[kept++] = parts[i];
                break;
            }
            p = *end == ',' ? end + 1 : end;
        }
    }
    return kept;
}

static int groups_reset(gr_admin_t *a)
{
    const char *group = gr_admin_need(a, "group");
    if (!group)
        return GR_ADMIN_EXIT_USAGE;
    /* Kafka resets only an inactive group, dry run or not. */
    const char *state;
    int rc = gr_admin_groups_state(a, group, &state);
    if (rc)
        return rc;
    if (strcmp(state, "Empty") != 0 && strcmp(state, "Dead") != 0) {
        fprintf(stderr,
                "error: assignments can only be reset if the group '%s' is inactive, but the "
                "current state is %s.\n",
                group, state);
        return GR_ADMIN_EXIT_FAILED;
    }
    part_offsets_t *parts = gr_arena_alloc(&a->arena, PARTITIONS_MAX * sizeof(*parts));
    int n = parts ? reset_scope(a, group, parts) : -1;
    if (n == -2)
        return GR_ADMIN_EXIT_USAGE;
    if (n <= 0) {
        if (n == 0)
            fprintf(stderr, "error: no partitions to reset\n");
        return GR_ADMIN_EXIT_FAILED;
    }
    rc = reset_targets(a, group, parts, n);
    if (rc)
        return rc;
    if (gr_admin_flag(a->opts, "execute")) {
        rc = commit_targets(a, group, parts, n);
        if (rc)
            return rc;
    }
    print_targets(a, group, parts, n);
    if (a->json)
        printf("\n");
    return GR_ADMIN_EXIT_OK;
}

int gr_admin_cmd_groups(gr_admin_t *a)
{
    int rc = gr_admin_begin(a, help, subcommands);
    if (rc >= 0)
        return rc;
    if (gr_admin_is(a, "list"))
        return groups_list(a);
    if (gr_admin_is(a, "describe"))
        return gr_admin_groups_each(a, gr_admin_groups_describe);
    if (gr_admin_is(a, "delete-offsets"))
        return gr_admin_groups_delete_offsets(a);
    if (gr_admin_is(a, "delete"))
        return groups_delete(a);
    return groups_reset(a);
}
