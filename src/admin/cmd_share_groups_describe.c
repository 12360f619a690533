/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin share-groups describe --members / --state, in
 * kafka-share-groups.sh's columns, from ShareGroupDescribe (api 77):
 *
 *   --members  GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS ASSIGNMENT
 *              (the assignment as topic:p,q;topic2:r); --verbose adds
 *              MEMBER-EPOCH
 *   --state    GROUP COORDINATOR (ID) ASSIGNOR STATE GROUP-EPOCH
 *              ASSIGNMENT-EPOCH #MEMBERS
 *
 * The connection is already at the group's coordinator (cmd_share_groups.c
 * moved it there). A group that is not a share group, or none, is the
 * broker's GROUP_ID_NOT_FOUND, printed. --json prints the group as one
 * object with its members.
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/groups.h"
#include "gen/share_group_describe.h"

#define SHARE_DESCRIBE_MIN_V 1 /* Kafka 4.1's first served version */
#define SHARE_DESCRIBE_MAX_V 1

typedef gr_share_group_describe_response_described_group_t described_t;
typedef gr_share_group_describe_response_member_t member_t;

static const char *number(gr_admin_t *a, int64_t n)
{
    char *s = gr_arena_alloc(&a->arena, 24);
    if (s)
        snprintf(s, 24, "%lld", (long long)n);
    return s ? s : "-";
}

/* "topic:0,1;other:2", in a->arena ("-" for none), and the partition count. */
static const char *assignment_text(gr_admin_t *a, const member_t *m, int32_t *count)
{
    const gr_share_group_describe_response_assignment_t *as = &m->assignment;
    size_t len = 2;
    *count = 0;
    for (int32_t i = 0; i < as->topic_partitions_count; i++)
        len += (size_t)as->topic_partitions[i].topic_name.len + 2 +
               12 * (size_t)as->topic_partitions[i].partitions_count;
    char *s = gr_arena_alloc(&a->arena, len);
    if (!s)
        return "-";
    size_t at = 0;
    for (int32_t i = 0; i < as->topic_partitions_count; i++) {
        const gr_share_group_describe_response_topic_partitions_t *t = &as->topic_partitions[i];
        at += (size_t)snprintf(s + at, len - at, "%s%.*s:", i ? ";" : "", (int)t->topic_name.len,
                               t->topic_name.ptr);
        for (int32_t k = 0; k < t->partitions_count; k++)
            at += (size_t)snprintf(s + at, len - at, "%s%d", k ? "," : "", t->partitions[k]);
        *count += t->partitions_count;
    }
    return at ? s : "-";
}

static void print_members(gr_admin_t *a, const char *group, const described_t *d, bool verbose)
{
    const char *headers[] = {"GROUP",       "CONSUMER-ID", "HOST",        "CLIENT-ID",
                             "#PARTITIONS", "ASSIGNMENT",  "MEMBER-EPOCH"};
    gr_table_t table;
    gr_table_init(&table, headers, verbose ? 7 : 6);
    for (int32_t i = 0; i < d->members_count; i++) {
        const member_t *m = &d->members[i];
        int32_t count;
        const char *assignment = assignment_text(a, m, &count);
        const char *row[] = {group,
                             gr_admin_text(a, m->member_id),
                             gr_admin_text(a, m->client_host),
                             gr_admin_text(a, m->client_id),
                             number(a, count),
                             assignment,
                             number(a, m->member_epoch)};
        gr_table_row(&table, row);
    }
    gr_table_print(&table, stdout);
}

static void print_state(gr_admin_t *a, const char *group, const described_t *d,
                        const gr_admin_broker_t *coordinator)
{
    const char *headers[] = {"GROUP",       "COORDINATOR (ID)", "ASSIGNOR", "STATE",
                             "GROUP-EPOCH", "ASSIGNMENT-EPOCH", "#MEMBERS"};
    char where[GR_ADMIN_ADDR_MAX + 16];
    snprintf(where, sizeof where, "%s  (%d)", coordinator->addr, coordinator->node_id);
    const char *row[] = {group,
                         where,
                         d->assignor_name.len > 0 ? gr_admin_text(a, d->assignor_name) : "-",
                         gr_admin_text(a, d->group_state),
                         number(a, d->group_epoch),
                         number(a, d->assignment_epoch),
                         number(a, d->members_count)};
    gr_table_t table;
    gr_table_init(&table, headers, 7);
    gr_table_row(&table, row);
    gr_table_print(&table, stdout);
}

static void print_json(const described_t *d, const gr_admin_broker_t *coordinator)
{
    printf("{\"group\":");
    gr_json_strn(stdout, d->group_id.ptr, d->group_id.len);
    printf(",\"coordinator\":%d,\"state\":", coordinator->node_id);
    gr_json_strn(stdout, d->group_state.ptr, d->group_state.len);
    printf(",\"group_epoch\":%d,\"assignment_epoch\":%d,\"assignor\":", d->group_epoch,
           d->assignment_epoch);
    gr_json_strn(stdout, d->assignor_name.ptr, d->assignor_name.len);
    printf(",\"members\":[");
    for (int32_t i = 0; i < d->members_count; i++) {
        const member_t *m = &d->members[i];
        printf("%s{\"member_id\":", i ? "," : "");
        gr_json_strn(stdout, m->member_id.ptr, m->member_id.len);
        printf(",\"client_id\":");
        gr_json_strn(stdout, m->client_id.ptr, m->client_id.len);
        printf(",\"host\":");
        gr_json_strn(stdout, m->client_host.ptr, m->client_host.len);
        printf(",\"member_epoch\":%d,\"assignment\":[", m->member_epoch);
        const gr_share_group_describe_response_assignment_t *as = &m->assignment;
        for (int32_t k = 0; k < as->topic_partitions_count; k++) {
            printf("%s{\"topic\":", k ? "," : "");
            gr_json_strn(stdout, as->topic_partitions[k].topic_name.ptr,
                         as->topic_partitions[k].topic_name.len);
            printf(",\"partitions\":[");
            for (int32_t p = 0; p < as->topic_partitions[k].partitions_count; p++)
                printf("%s%d", p ? "," : "", as->topic_partitions[k].partitions[p]);
            printf("]}");
        }
        printf("]}");
    }
    printf("]}\n");
}

int gr_admin_share_groups_describe_group(gr_admin_t *a, const char *group,
                                         const gr_admin_broker_t *coordinator)
{
    int16_t v = gr_admin_version(a, GR_API_SHARE_GROUP_DESCRIBE, SHARE_DESCRIBE_MAX_V);
    if (v < SHARE_DESCRIBE_MIN_V) {
        if (v >= 0)
            fprintf(stderr, "error: the broker's ShareGroupDescribe is too old (v%d)\n", v);
        return GR_ADMIN_EXIT_TRANSPORT;
    }
    gr_share_group_describe_request_t req;
    gr_share_group_describe_request_init(&req);
    gr_str_t id = gr_str(group);
    req.group_ids = &id;
    req.group_ids_count = 1;
    gr_share_group_describe_response_t resp;
    if (gr_admin_call(a, GR_API_SHARE_GROUP_DESCRIBE, v, &req, &resp) || resp.groups_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    const described_t *d = &resp.groups[0];
    if (d->error_code) {
        gr_admin_report(group, d->error_code, d->error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    if (a->json) {
        print_json(d, coordinator);
        return GR_ADMIN_EXIT_OK;
    }
    if (gr_admin_flag(a->opts, "state")) {
        print_state(a, group, d, coordinator);
        return GR_ADMIN_EXIT_OK;
    }
    if (d->members_count == 0) {
        printf("Share group '%s' has no active members.\n", group);
        return GR_ADMIN_EXIT_OK;
    }
    print_members(a, group, d, gr_admin_flag(a->opts, "verbose"));
    return GR_ADMIN_EXIT_OK;
}
