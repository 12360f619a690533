/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin share-groups, after kafka-share-groups.sh: the share groups
 * (ListGroups v5, type filter "share"), the offsets of a group's
 * share-partitions (DescribeShareGroupOffsets: those --topic names, or
 * every one the group has state for), its members and state
 * (cmd_share_groups_describe.c), their reset (AlterShareGroupOffsets:
 * --to-earliest, --to-latest, --to-datetime, --by-duration; a dry run
 * unless --execute), their deletion (DeleteShareGroupOffsets) and the
 * group's (DeleteGroups). A group's requests go to its coordinator
 * (FindCoordinator); the broker refuses a reset or a deletion while the
 * group has members (NON_EMPTY_GROUP).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/groups.h"
#include "gen/alter_share_group_offsets.h"
#include "gen/delete_share_group_offsets.h"
#include "gen/describe_share_group_offsets.h"
#include "gen/list_groups.h"
#include "gen/list_offsets.h"
#include "metadata/group_config.h"

#define DESCRIBE_MAX_V    1
#define ALTER_MAX_V       0
#define DELETE_MAX_V      0
#define LIST_GROUPS_MIN_V 5 /* the first with TypesFilter */
#define LIST_GROUPS_MAX_V 5
/* ListGroups' type of a share group (Kafka's GroupType.SHARE). */
#define GR_ADMIN_SHARE_GROUP_TYPE "share"

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT share-groups SUBCOMMAND [options] [--json]\n"
    "  list [--state [S,...]]         the share groups (with --state: and their states)\n"
    "  describe --group G [--topic T[:p,q...]] [--offsets | --members | --state] [--verbose]\n"
    "                                each share-partition's start offset and lag (the\n"
    "                                default; every one the group has without --topic),\n"
    "                                the members and their assignments, or the state\n"
    "  delete --group G              delete a share group without members, and its state\n"
    "  reset-offsets --group G --topic T[:p,q...]\n"
    "        (--to-earliest | --to-latest | --to-datetime YYYY-MM-DDTHH:MM:SS\n"
    "         | --by-duration PnDTnHnMn.nS) [--dry-run | --execute]\n"
    "        the group must have no members; without --execute nothing is changed\n"
    "  delete-offsets --group G --topic T\n"
    "        forget the topic's share-partition state (the group must have no members)\n";

static const char *const subcommands[] = {"list",          "describe",       "delete",
                                          "reset-offsets", "delete-offsets", NULL};
/* Kafka's share group states (GroupState), for list --state's check. */
static const char *const state_names[] = {"Empty", "Stable", "Dead", NULL};

typedef gr_admin_part_offsets_t part_t;

/* The partitions --topic names, in a->arena. Count, or an exit code negated. */
static int scope(gr_admin_t *a, part_t **parts)
{
    *parts = gr_arena_alloc(&a->arena, GR_ADMIN_PARTITIONS_MAX * sizeof(**parts));
    int n = *parts ? gr_admin_groups_topic_scope(a, *parts) : -1;
    if (n == -2)
        return -GR_ADMIN_EXIT_USAGE;
    if (n <= 0) {
        if (n == 0)
            fprintf(stderr, "error: no partitions\n");
        return -GR_ADMIN_EXIT_FAILED;
    }
    return n;
}

/*
 * The request for group's offsets: the partitions --topic names, or with
 * no --topic a null topic list (every partition the group has state for).
 * 0, or an exit code.
 */
static int offsets_request(gr_admin_t *a, const char *group,
                           gr_describe_share_group_offsets_request_t *req)
{
    typedef gr_describe_share_group_offsets_request_describe_share_group_offsets_request_topic_t
        topic_t;
    typedef gr_describe_share_group_offsets_request_describe_share_group_offsets_request_group_t
        group_t;
    group_t *g = gr_arena_alloc(&a->arena, sizeof *g);
    if (!g)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_describe_share_group_offsets_request_describe_share_group_offsets_request_group_init(g);
    g->group_id = gr_str(group);
    g->topics_null = true;
    gr_describe_share_group_offsets_request_init(req);
    req->groups = g;
    req->groups_count = 1;
    if (!gr_admin_opt(a->opts, "topic"))
        return 0;
    part_t *parts = NULL;
    int n = scope(a, &parts);
    if (n < 0)
        return -n;
    int32_t *indexes = gr_arena_alloc(&a->arena, (size_t)n * sizeof *indexes);
    topic_t *t = gr_arena_alloc(&a->arena, sizeof *t);
    if (!indexes || !t)
        return GR_ADMIN_EXIT_TRANSPORT;
    for (int i = 0; i < n; i++)
        indexes[i] = parts[i].partition;
    *t = (topic_t){parts[0].topic, indexes, n};
    g->topics = t;
    g->topics_count = 1;
    g->topics_null = false;
    return 0;
}

static int share_describe(gr_admin_t *a)
{
    const char *group = gr_admin_need(a, "group");
    if (!group)
        return GR_ADMIN_EXIT_USAGE;
    gr_describe_share_group_offsets_request_t req;
    bool offsets = !gr_admin_flag(a->opts, "members") && !gr_admin_flag(a->opts, "state");
    int rc = offsets ? offsets_request(a, group, &req) : 0;
    if (rc)
        return rc;
    gr_admin_broker_t coordinator;
    if (gr_admin_group_coordinator(a, group, &coordinator))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (!offsets)
        return gr_admin_share_groups_describe_group(a, group, &coordinator);
    int16_t v = gr_admin_version(a, GR_API_DESCRIBE_SHARE_GROUP_OFFSETS, DESCRIBE_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_describe_share_group_offsets_response_t resp;
    if (gr_admin_call(a, GR_API_DESCRIBE_SHARE_GROUP_OFFSETS, v, &req, &resp) ||
        resp.groups_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.groups[0].error_code) {
        gr_admin_report(group, resp.groups[0].error_code, resp.groups[0].error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    const char *headers[] = {"GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LAG"};
    gr_table_t table;
    gr_table_init(&table, headers, 5);
    int rows = 0;
    rc = GR_ADMIN_EXIT_OK;
    if (a->json)
        printf("[");
    for (int32_t i = 0; i < resp.groups[0].topics_count; i++) {
        const char *topic = gr_admin_text(a, resp.groups[0].topics[i].topic_name);
        for (int32_t k = 0; k < resp.groups[0].topics[i].partitions_count; k++) {
            const gr_describe_share_group_offsets_response_describe_share_group_offsets_response_partition_t
                *p = &resp.groups[0].topics[i].partitions[k];
            if (p->error_code) {
                gr_admin_report(topic, p->error_code, p->error_message);
                rc = GR_ADMIN_EXIT_FAILED;
                continue;
            }
            char part[16], start[24], lag[24];
            snprintf(part, sizeof part, "%d", p->partition_index);
            snprintf(start, sizeof start, "%lld", (long long)p->start_offset);
            snprintf(lag, sizeof lag, "%lld", (long long)p->lag);
            if (a->json) {
                printf("%s{\"group\":", rows++ ? "," : "");
                gr_json_str(stdout, group);
                printf(",\"topic\":");
                gr_json_str(stdout, topic);
                printf(",\"partition\":%s,\"start_offset\":%s,\"lag\":%s}", part, start, lag);
                continue;
            }
            const char *row[] = {group, topic, part, p->start_offset < 0 ? "-" : start,
                                 p->lag < 0 ? "-" : lag};
            gr_table_row(&table, row);
        }
    }
    if (a->json)
        printf("]\n");
    else
        gr_table_print(&table, stdout);
    return rc;
}

static int64_t wall_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Each partition's new start offset from the chosen --to-* / --by-duration. 0 or exit code. */
static int reset_targets(gr_admin_t *a, part_t *parts, int n)
{
    const gr_admin_options_t *o = a->opts;
    int64_t ts = -1;
    if (gr_admin_flag(o, "to-earliest") || gr_admin_flag(o, "to-latest")) {
        bool earliest = gr_admin_flag(o, "to-earliest");
        if (gr_admin_groups_list_offsets(a, parts, n,
                                         earliest ? GR_LIST_OFFSETS_TIMESTAMP_EARLIEST
                                                  : GR_LIST_OFFSETS_TIMESTAMP_LATEST,
                                         false))
            return GR_ADMIN_EXIT_TRANSPORT;
        for (int i = 0; i < n; i++)
            parts[i].target = earliest ? parts[i].earliest : parts[i].latest;
        return 0;
    }
    int64_t back_ms = 0;
    if (gr_admin_opt(o, "to-datetime")) {
        ts = gr_admin_groups_parse_datetime(gr_admin_opt(o, "to-datetime"));
    } else if (gr_admin_opt(o, "by-duration")) {
        if (gr_group_config_parse_duration(gr_admin_opt(o, "by-duration"), &back_ms) == 0)
            ts = wall_ms() - back_ms;
    } else {
        fprintf(stderr, "error: give one of --to-earliest, --to-latest, --to-datetime T, "
                        "--by-duration D\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    if (ts < 0) {
        fprintf(stderr, "error: --to-datetime wants YYYY-MM-DDTHH:MM:SS[.mmm], --by-duration "
                        "an ISO-8601 duration (PT1H)\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    if (gr_admin_groups_list_offsets(a, parts, n, GR_LIST_OFFSETS_TIMESTAMP_LATEST, false) ||
        gr_admin_groups_list_offsets(a, parts, n, ts, true))
        return GR_ADMIN_EXIT_TRANSPORT;
    for (int i = 0; i < n; i++) /* no record that late: the end */
        if (parts[i].target < 0)
            parts[i].target = parts[i].latest;
    return 0;
}

/*
 * Moves the connection to group's coordinator and picks api's version
 * there (up to max_v). The version, or -1 (printed).
 */
static int16_t at_coordinator(gr_admin_t *a, const char *group, int16_t api, int16_t max_v)
{
    gr_admin_broker_t coordinator;
    if (gr_admin_group_coordinator(a, group, &coordinator))
        return -1;
    return gr_admin_version(a, api, max_v);
}

static int alter_targets(gr_admin_t *a, const char *group, part_t *parts, int n)
{
    int16_t v = at_coordinator(a, group, GR_API_ALTER_SHARE_GROUP_OFFSETS, ALTER_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_alter_share_group_offsets_request_alter_share_group_offsets_request_partition_t *p =
        gr_arena_alloc(&a->arena, (size_t)n * sizeof *p);
    if (!p)
        return GR_ADMIN_EXIT_TRANSPORT;
    for (int i = 0; i < n; i++)
        p[i] = (gr_alter_share_group_offsets_request_alter_share_group_offsets_request_partition_t){
            parts[i].partition, parts[i].target};
    gr_alter_share_group_offsets_request_alter_share_group_offsets_request_topic_t t = {
        parts[0].topic, p, n};
    gr_alter_share_group_offsets_request_t req = {gr_str(group), &t, 1};
    gr_alter_share_group_offsets_response_t resp;
    if (gr_admin_call(a, GR_API_ALTER_SHARE_GROUP_OFFSETS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.error_code) {
        gr_admin_report(group, resp.error_code, resp.error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    int rc = GR_ADMIN_EXIT_OK;
    for (int32_t i = 0; i < resp.responses_count; i++)
        for (int32_t k = 0; k < resp.responses[i].partitions_count; k++)
            if (resp.responses[i].partitions[k].error_code) {
                gr_admin_report(gr_admin_text(a, resp.responses[i].topic_name),
                                resp.responses[i].partitions[k].error_code,
                                resp.responses[i].partitions[k].error_message);
                rc = GR_ADMIN_EXIT_FAILED;
            }
    return rc;
}

static int share_reset(gr_admin_t *a)
{
    const char *group = gr_admin_need(a, "group");
    part_t *parts = NULL;
    int n = group ? scope(a, &parts) : -GR_ADMIN_EXIT_USAGE;
    if (n < 0)
        return -n;
    int rc = reset_targets(a, parts, n);
    if (!rc && gr_admin_flag(a->opts, "execute"))
        rc = alter_targets(a, group, parts, n);
    if (rc)
        return rc;
    const char *headers[] = {"GROUP", "TOPIC", "PARTITION", "NEW-START-OFFSET"};
    gr_table_t table;
    gr_table_init(&table, headers, 4);
    for (int i = 0; i < n; i++) {
        char part[16], target[24];
        snprintf(part, sizeof part, "%d", parts[i].partition);
        snprintf(target, sizeof target, "%lld", (long long)parts[i].target);
        const char *row[] = {group, gr_admin_text(a, parts[i].topic), part, target};
        gr_table_row(&table, row);
    }
    gr_table_print(&table, stdout);
    return GR_ADMIN_EXIT_OK;
}

static int share_delete_offsets(gr_admin_t *a)
{
    const char *group = gr_admin_need(a, "group");
    const char *topic = gr_admin_need(a, "topic");
    if (!group || !topic)
        return GR_ADMIN_EXIT_USAGE;
    int16_t v = at_coordinator(a, group, GR_API_DELETE_SHARE_GROUP_OFFSETS, DELETE_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_delete_share_group_offsets_request_delete_share_group_offsets_request_topic_t t = {
        gr_str(topic)};
    gr_delete_share_group_offsets_request_t req = {gr_str(group), &t, 1};
    gr_delete_share_group_offsets_response_t resp;
    if (gr_admin_call(a, GR_API_DELETE_SHARE_GROUP_OFFSETS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    int16_t code = resp.error_code;
    gr_str_t msg = resp.error_message;
    if (!code && resp.responses_count == 1) {
        code = resp.responses[0].error_code;
        msg = resp.responses[0].error_message;
    }
    if (code) {
        gr_admin_report(group, code, msg);
        return GR_ADMIN_EXIT_FAILED;
    }
    printf("Deleted the share-partition state of topic %s in share group %s.\n", topic, group);
    return GR_ADMIN_EXIT_OK;
}

/*
 * --state's value (a filter: S,... of state_names) into req; the flag
 * alone only shows the states. 0, or an exit code (printed).
 */
static int list_state_filter(gr_admin_t *a, gr_list_groups_request_t *req)
{
    const char *value = gr_admin_opt(a->opts, "state");
    if (!value || !*value)
        return 0;
    int n = 1;
    for (const char *p = value; *p; p++)
        n += *p == ',';
    req->states_filter = gr_arena_alloc(&a->arena, (size_t)n * sizeof *req->states_filter);
    if (!req->states_filter)
        return GR_ADMIN_EXIT_TRANSPORT;
    for (const char *p = value;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int k = 0;
        while (state_names[k] && (strlen(state_names[k]) != len || strncmp(state_names[k], p, len)))
            k++;
        if (!state_names[k]) {
            fprintf(stderr, "error: invalid --state value '%s'; valid: Empty, Stable, Dead\n",
                    value);
            return GR_ADMIN_EXIT_USAGE;
        }
        req->states_filter[req->states_filter_count++] = gr_str(state_names[k]);
        if (!end)
            return 0;
        p = end + 1;
    }
}

/* list: the share groups' ids, with --state their states too (ListGroups v5). */
static int share_list(gr_admin_t *a)
{
    int16_t v = gr_admin_version(a, GR_API_LIST_GROUPS, LIST_GROUPS_MAX_V);
    if (v < LIST_GROUPS_MIN_V) {
        if (v >= 0)
            fprintf(stderr, "error: the broker's ListGroups (v%d) cannot filter by type\n", v);
        return GR_ADMIN_EXIT_TRANSPORT;
    }
    gr_list_groups_request_t req;
    gr_list_groups_request_init(&req);
    gr_str_t type = gr_str(GR_ADMIN_SHARE_GROUP_TYPE);
    req.types_filter = &type;
    req.types_filter_count = 1;
    int rc = list_state_filter(a, &req);
    if (rc)
        return rc;
    gr_list_groups_response_t resp;
    if (gr_admin_call(a, GR_API_LIST_GROUPS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.error_code) {
        gr_admin_report("share groups", resp.error_code, gr_str(NULL));
        return GR_ADMIN_EXIT_FAILED;
    }
    bool states = gr_admin_flag(a->opts, "state");
    const char *headers[] = {"GROUP", "STATE"};
    gr_table_t table;
    gr_table_init(&table, headers, 2);
    if (a->json)
        printf("[");
    for (int32_t i = 0; i < resp.groups_count; i++) {
        const gr_list_groups_response_listed_group_t *g = &resp.groups[i];
        if (a->json) {
            printf("%s{\"group\":", i ? "," : "");
            gr_json_strn(stdout, g->group_id.ptr, g->group_id.len);
            printf(",\"state\":");
            gr_json_strn(stdout, g->group_state.ptr, g->group_state.len);
            printf("}");
        } else if (states) {
            const char *row[] = {gr_admin_text(a, g->group_id), gr_admin_text(a, g->group_state)};
            gr_table_row(&table, row);
        } else {
            printf("%s\n", gr_admin_text(a, g->group_id));
        }
    }
    if (a->json)
        printf("]\n");
    else if (states)
        gr_table_print(&table, stdout);
    return GR_ADMIN_EXIT_OK;
}

/* delete: DeleteGroups at the coordinator (NON_EMPTY_GROUP while members remain). */
static int share_delete(gr_admin_t *a)
{
    const char *group = gr_admin_need(a, "group");
    if (!group)
        return GR_ADMIN_EXIT_USAGE;
    gr_admin_broker_t coordinator;
    if (gr_admin_group_coordinator(a, group, &coordinator))
        return GR_ADMIN_EXIT_TRANSPORT;
    return gr_admin_groups_delete(a, group, "share");
}

int gr_admin_cmd_share_groups(gr_admin_t *a)
{
    int rc = gr_admin_begin(a, help, subcommands);
    if (rc >= 0)
        return rc;
    if (gr_admin_is(a, "list"))
        return share_list(a);
    if (gr_admin_is(a, "describe"))
        return share_describe(a);
    if (gr_admin_is(a, "delete"))
        return share_delete(a);
    if (gr_admin_is(a, "reset-offsets"))
        return share_reset(a);
    return share_delete_offsets(a);
}
