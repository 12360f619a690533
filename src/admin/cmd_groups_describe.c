/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin groups describe, for both kinds of group, in
 * kafka-consumer-groups.sh --describe's three views:
 *
 *   (default, --offsets)  GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET
 *                         LAG CONSUMER-ID HOST CLIENT-ID: each committed or
 *                         assigned partition, its lag and its owner;
 *                         --verbose adds LEADER-EPOCH after PARTITION
 *   --members             GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID
 *                         #PARTITIONS; --verbose adds CURRENT-EPOCH
 *                         CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT
 *                         (KIP-1099; "-" where a classic group has none)
 *   --state               GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE
 *                         #MEMBERS; --verbose adds GROUP-EPOCH and
 *                         TARGET-ASSIGNMENT-EPOCH before #MEMBERS
 *
 * The group is read as Kafka's admin client reads it: FindCoordinator (the
 * requests still go to the bootstrap broker, every group's coordinator on a
 * single node), then ConsumerGroupDescribe
 * (api 69) first; a group that is not a consumer group (GROUP_ID_NOT_FOUND)
 * or a broker without the API falls back to DescribeGroups, whose members'
 * assignments are decoded from the classic consumer protocol. Both end up
 * in one group_view_t the views print. --json prints every view's facts
 * in one object.
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/groups.h"
#include "gen/consumer_group_describe.h"
#include "gen/consumer_protocol.h"
#include "gen/describe_groups.h"
#include "gen/find_coordinator.h"
#include "gen/list_offsets.h"
#include "protocol/reader.h"

#define CONSUMER_GROUP_DESCRIBE_MAX_V 1
#define DESCRIBE_GROUPS_MAX_V         5     /* an unknown group is Dead, not an error */
#define FIND_COORDINATOR_MAX_V        3     /* one key per request */
#define COORDINATOR_WAIT_MS           15000 /* for __consumer_offsets' first leader */
#define MISSING                       "-"   /* Kafka's MISSING_COLUMN_VALUE */
#define CLASSIC_PROTOCOL_TYPE         "consumer"

/* A member's partitions of one topic. */
typedef struct topic_parts {
    gr_str_t topic;
    const int32_t *partitions;
    int32_t count;
} topic_parts_t;

typedef struct assignment_view {
    topic_parts_t *topics;
    int32_t count;
} assignment_view_t;

typedef struct member_view {
    gr_str_t member_id, instance_id, client_id, host;
    int32_t epoch; /* consumer groups only */
    assignment_view_t assigned, target;
} member_view_t;

typedef struct group_view {
    bool consumer;
    gr_str_t state;
    gr_str_t strategy; /* the assignor (consumer) or the chosen protocol (classic) */
    int32_t group_epoch, assignment_epoch;
    member_view_t *members;
    int32_t member_count;
} group_view_t;

/* --- reading the group ---------------------------------------------------------- */

static assignment_view_t
consumer_assignment(gr_admin_t *a, const gr_consumer_group_describe_response_assignment_t *in)
{
    assignment_view_t out = {
        gr_arena_alloc(&a->arena, ((size_t)in->topic_partitions_count + 1) * sizeof(topic_parts_t)),
        0};
    for (int32_t i = 0; out.topics && i < in->topic_partitions_count; i++) {
        const gr_consumer_group_describe_response_topic_partitions_t *t = &in->topic_partitions[i];
        out.topics[out.count++] =
            (topic_parts_t){t->topic_name, t->partitions, t->partitions_count};
    }
    return out;
}

/* ConsumerGroupDescribe. *found false when the group is not a consumer group. An exit code. */
static int read_consumer(gr_admin_t *a, const char *group, group_view_t *g, bool *found)
{
    *found = false;
    if (a->max_version[GR_API_CONSUMER_GROUP_DESCRIBE] < 0)
        return GR_ADMIN_EXIT_OK; /* a broker without consumer groups */
    int16_t v = gr_admin_version(a, GR_API_CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_DESCRIBE_MAX_V);
    gr_consumer_group_describe_request_t req;
    gr_consumer_group_describe_request_init(&req);
    gr_str_t name = gr_str(group);
    req.group_ids = &name;
    req.group_ids_count = 1;
    gr_consumer_group_describe_response_t resp;
    if (v < 0 || gr_admin_call(a, GR_API_CONSUMER_GROUP_DESCRIBE, v, &req, &resp) ||
        resp.groups_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    const gr_consumer_group_describe_response_described_group_t *d = &resp.groups[0];
    if (d->error_code == GR_KERR_GROUP_ID_NOT_FOUND)
        return GR_ADMIN_EXIT_OK;
    if (d->error_code) {
        gr_admin_report(group, d->error_code, d->error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    *found = true;
    *g = (group_view_t){
        true, d->group_state, d->assignor_name, d->group_epoch, d->assignment_epoch, NULL, 0};
    g->members = gr_arena_alloc(&a->arena, ((size_t)d->members_count + 1) * sizeof(*g->members));
    if (!g->members)
        return GR_ADMIN_EXIT_TRANSPORT;
    for (int32_t i = 0; i < d->members_count; i++) {
        const gr_consumer_group_describe_response_member_t *m = &d->members[i];
        g->members[g->member_count++] = (member_view_t){
            m->member_id,
            m->instance_id,
            m->client_id,
            m->client_host,
            m->member_epoch,
            consumer_assignment(a, &m->assignment),
            consumer_assignment(a, &m->target_assignment),
        };
    }
    return GR_ADMIN_EXIT_OK;
}

/* A classic consumer's SyncGroup assignment bytes, decoded (empty if they are not one). */
static assignment_view_t classic_assignment(gr_admin_t *a, gr_bytes_t bytes)
{
    assignment_view_t out = {NULL, 0};
    gr_reader_t r;
    gr_reader_init(&r, bytes.ptr, bytes.len > 0 ? (size_t)bytes.len : 0);
    int16_t version = gr_read_int16(&r);
    gr_consumer_protocol_assignment_t in;
    if (bytes.len < 2 || r.err || version < 0 ||
        gr_consumer_protocol_assignment_decode(&r, version > 3 ? 3 : version, &a->arena, &in) < 0)
        return out;
    out.topics = gr_arena_alloc(&a->arena,
                                ((size_t)in.assigned_partitions_count + 1) * sizeof(topic_parts_t));
    for (int32_t i = 0; out.topics && i < in.assigned_partitions_count; i++)
        out.topics[out.count++] =
            (topic_parts_t){in.assigned_partitions[i].topic, in.assigned_partitions[i].partitions,
                            in.assigned_partitions[i].partitions_count};
    return out;
}

/* DescribeGroups. An exit code. */
static int read_classic(gr_admin_t *a, const char *group, group_view_t *g)
{
    int16_t v = gr_admin_version(a, GR_API_DESCRIBE_GROUPS, DESCRIBE_GROUPS_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_describe_groups_request_t req;
    gr_describe_groups_request_init(&req);
    gr_str_t name = gr_str(group);
    req.groups = &name;
    req.groups_count = 1;
    gr_describe_groups_response_t resp;
    if (gr_admin_call(a, GR_API_DESCRIBE_GROUPS, v, &req, &resp) || resp.groups_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    const gr_describe_groups_response_described_group_t *d = &resp.groups[0];
    if (d->error_code) {
        gr_admin_report(group, d->error_code, gr_str(NULL));
        return GR_ADMIN_EXIT_FAILED;
    }
    *g = (group_view_t){false, d->group_state, d->protocol_data, -1, -1, NULL, 0};
    g->members = gr_arena_alloc(&a->arena, ((size_t)d->members_count + 1) * sizeof(*g->members));
    if (!g->members)
        return GR_ADMIN_EXIT_TRANSPORT;
    bool consumer_protocol = gr_str_eq(d->protocol_type, gr_str(CLASSIC_PROTOCOL_TYPE));
    for (int32_t i = 0; i < d->members_count; i++) {
        const gr_describe_groups_response_described_group_member_t *m = &d->members[i];
        assignment_view_t none = {NULL, 0};
        g->members[g->member_count++] = (member_view_t){
            m->member_id, m->group_instance_id,
            m->client_id, m->client_host,
            -1,           consumer_protocol ? classic_assignment(a, m->member_assignment) : none,
            none,
        };
    }
    return GR_ADMIN_EXIT_OK;
}

/*
 * FindCoordinator for group, as Kafka's admin client asks it first (which
 * also has __consumer_offsets created); asked again for a bounded time
 * while the coordinator is not available yet. An exit code.
 */
static int find_coordinator(gr_admin_t *a, const char *group, gr_find_coordinator_response_t *out)
{
    int16_t v = gr_admin_version(a, GR_API_FIND_COORDINATOR, FIND_COORDINATOR_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_find_coordinator_request_t req;
    gr_find_coordinator_request_init(&req);
    req.key = gr_str(group);
    int64_t deadline = gr_admin_now_ms() + COORDINATOR_WAIT_MS;
    for (;;) {
        if (gr_admin_call(a, GR_API_FIND_COORDINATOR, v, &req, out))
            return GR_ADMIN_EXIT_TRANSPORT;
        if (out->error_code != GR_KERR_COORDINATOR_NOT_AVAILABLE || gr_admin_now_ms() >= deadline)
            break;
        gr_admin_backoff();
    }
    if (out->error_code) {
        gr_admin_report(group, out->error_code, out->error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    return GR_ADMIN_EXIT_OK;
}

static int read_group(gr_admin_t *a, const char *group, group_view_t *g,
                      gr_find_coordinator_response_t *coordinator)
{
    bool found;
    int rc = find_coordinator(a, group, coordinator);
    if (!rc)
        rc = read_consumer(a, group, g, &found);
    if (rc || found)
        return rc;
    return read_classic(a, group, g);
}

int gr_admin_groups_state(gr_admin_t *a, const char *group, const char **state)
{
    group_view_t g;
    gr_find_coordinator_response_t coordinator;
    int rc = read_group(a, group, &g, &coordinator);
    *state = rc ? NULL : gr_admin_text(a, g.state);
    return rc;
}

/* --- the views ------------------------------------------------------------------- */

static int32_t partition_count(const assignment_view_t *as)
{
    int32_t n = 0;
    for (int32_t i = 0; i < as->count; i++)
        n += as->topics[i].count;
    return n;
}

static bool assigned(const assignment_view_t *as, gr_str_t topic, int32_t partition)
{
    for (int32_t i = 0; i < as->count; i++)
        if (gr_str_eq(as->topics[i].topic, topic))
            for (int32_t j = 0; j < as->topics[i].count; j++)
                if (as->topics[i].partitions[j] == partition)
                    return true;
    return false;
}

/* The member owning (topic, partition) now, or NULL. */
static const member_view_t *owner(const group_view_t *g, gr_str_t topic, int32_t partition)
{
    for (int32_t i = 0; i < g->member_count; i++)
        if (assigned(&g->members[i].assigned, topic, partition))
            return &g->members[i];
    return NULL;
}

/* "t1:0,1;t2:3" as kafka-consumer-groups.sh (4.x) --verbose writes an assignment; "-" if empty. */
static char *assignment_text(gr_admin_t *a, const assignment_view_t *as)
{
    size_t cap = 2;
    for (int32_t i = 0; i < as->count; i++)
        cap += (size_t)(as->topics[i].topic.len > 0 ? as->topics[i].topic.len : 0) + 2 +
               12 * (size_t)as->topics[i].count;
    char *out = gr_arena_alloc(&a->arena, cap);
    if (!out || as->count == 0)
        return MISSING;
    size_t len = 0;
    for (int32_t i = 0; i < as->count; i++) {
        const topic_parts_t *t = &as->topics[i];
        len += (size_t)snprintf(out + len, cap - len, "%s%.*s:", i ? ";" : "",
                                (int)(t->topic.len > 0 ? t->topic.len : 0), t->topic.ptr);
        for (int32_t j = 0; j < t->count; j++)
            len += (size_t)snprintf(out + len, cap - len, "%s%d", j ? "," : "", t->partitions[j]);
    }
    return out;
}

static char *number(gr_admin_t *a, long long n)
{
    char *s = gr_arena_alloc(&a->arena, 24);
    if (s)
        snprintf(s, 24, "%lld", n);
    return s ? s : MISSING;
}

/*
 * The offsets view's rows: every committed partition, then every assigned
 * partition without a commit (CURRENT-OFFSET "-"), each with its log end.
 * Count, or -1.
 */
static int offset_rows(gr_admin_t *a, const char *group, const group_view_t *g,
                       gr_admin_part_offsets_t **out)
{
    gr_admin_part_offsets_t *parts =
        gr_arena_alloc(&a->arena, GR_ADMIN_PARTITIONS_MAX * sizeof(*parts));
    int n = parts ? gr_admin_groups_committed(a, group, parts, GR_ADMIN_PARTITIONS_MAX) : -1;
    for (int32_t i = 0; n >= 0 && i < g->member_count; i++) {
        const assignment_view_t *as = &g->members[i].assigned;
        for (int32_t t = 0; t < as->count; t++)
            for (int32_t p = 0; p < as->topics[t].count && n < GR_ADMIN_PARTITIONS_MAX; p++) {
                bool seen = false;
                for (int k = 0; k < n && !seen; k++)
                    seen = gr_str_eq(parts[k].topic, as->topics[t].topic) &&
                           parts[k].partition == as->topics[t].partitions[p];
                if (!seen)
                    parts[n++] = (gr_admin_part_offsets_t){as->topics[t].topic,
                                                           as->topics[t].partitions[p],
                                                           GR_ADMIN_NO_OFFSET,
                                                           GR_ADMIN_NO_OFFSET,
                                                           GR_ADMIN_NO_OFFSET,
                                                           GR_ADMIN_NO_OFFSET,
                                                           -1};
            }
    }
    if (n < 0 ||
        gr_admin_groups_list_offsets(a, parts, n, GR_LIST_OFFSETS_TIMESTAMP_LATEST, false) < 0)
        return -1;
    *out = parts;
    return n;
}

static void print_offsets(gr_admin_t *a, const char *group, const group_view_t *g,
                          const gr_admin_part_offsets_t *parts, int n, bool verbose)
{
    /* --verbose adds LEADER-EPOCH, the leader epoch of each commit. */
    const char *full[] = {"GROUP",          "TOPIC",          "PARTITION", "LEADER-EPOCH",
                          "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",       "CONSUMER-ID",
                          "HOST",           "CLIENT-ID"};
    gr_table_t table;
    int skip = verbose ? -1 : 3; /* the column left out without --verbose */
    const char *cols[10];
    int ncols = 0;
    for (int i = 0; i < 10; i++)
        if (i != skip)
            cols[ncols++] = full[i];
    gr_table_init(&table, cols, ncols);
    for (int i = 0; i < n; i++) {
        const gr_admin_part_offsets_t *p = &parts[i];
        const member_view_t *m = owner(g, p->topic, p->partition);
        bool committed = p->committed >= 0;
        const char *cells[] = {
            group,
            gr_admin_text(a, p->topic),
            number(a, p->partition),
            committed && p->leader_epoch >= 0 ? number(a, p->leader_epoch) : MISSING,
            committed ? number(a, p->committed) : MISSING,
            p->latest >= 0 ? number(a, p->latest) : MISSING,
            committed && p->latest >= 0 ? number(a, p->latest - p->committed) : MISSING,
            m ? gr_admin_text(a, m->member_id) : MISSING,
            m ? gr_admin_text(a, m->host) : MISSING,
            m ? gr_admin_text(a, m->client_id) : MISSING};
        const char *row[10];
        int c = 0;
        for (int j = 0; j < 10; j++)
            if (j != skip)
                row[c++] = cells[j];
        gr_table_row(&table, row);
    }
    gr_table_print(&table, stdout);
}

static void print_members(gr_admin_t *a, const char *group, const group_view_t *g, bool verbose)
{
    bool instances = false;
    for (int32_t i = 0; i < g->member_count; i++)
        instances |= g->members[i].instance_id.len > 0;
    const char *headers[GR_TABLE_COLS_MAX];
    int cols = 0;
    headers[cols++] = "GROUP";
    headers[cols++] = "CONSUMER-ID";
    if (instances)
        headers[cols++] = "GROUP-INSTANCE-ID";
    headers[cols++] = "HOST";
    headers[cols++] = "CLIENT-ID";
    headers[cols++] = "#PARTITIONS";
    if (verbose) {
        headers[cols++] = "CURRENT-EPOCH";
        headers[cols++] = "CURRENT-ASSIGNMENT";
        headers[cols++] = "TARGET-EPOCH";
        headers[cols++] = "TARGET-ASSIGNMENT";
    }
    gr_table_t table;
    gr_table_init(&table, headers, cols);
    for (int32_t i = 0; i < g->member_count; i++) {
        const member_view_t *m = &g->members[i];
        const char *row[GR_TABLE_COLS_MAX];
        int c = 0;
        row[c++] = group;
        row[c++] = gr_admin_text(a, m->member_id);
        if (instances)
            row[c++] = m->instance_id.len > 0 ? gr_admin_text(a, m->instance_id) : MISSING;
        row[c++] = gr_admin_text(a, m->host);
        row[c++] = gr_admin_text(a, m->client_id);
        row[c++] = number(a, partition_count(&m->assigned));
        if (verbose) { /* a classic group has no epochs nor target: "-" */
            row[c++] = g->consumer ? number(a, m->epoch) : MISSING;
            row[c++] = assignment_text(a, &m->assigned);
            row[c++] = g->consumer ? number(a, g->assignment_epoch) : MISSING;
            row[c++] = g->consumer ? assignment_text(a, &m->target) : MISSING;
        }
        gr_table_row(&table, row);
    }
    gr_table_print(&table, stdout);
}

/* "host:port  (id)" of the group's coordinator, as Kafka's tool writes it. */
static const char *coordinator_text(gr_admin_t *a, const gr_find_coordinator_response_t *c)
{
    char *s = gr_arena_alloc(&a->arena, (size_t)(c->host.len > 0 ? c->host.len : 0) + 32);
    if (!s)
        return MISSING;
    sprintf(s, "%s:%d  (%d)", gr_admin_text(a, c->host), c->port, c->node_id);
    return s;
}

static void print_state(gr_admin_t *a, const char *group, const group_view_t *g,
                        const gr_find_coordinator_response_t *coordinator, bool verbose)
{
    const char *headers[] = {"GROUP",   "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY",
                             "STATE",   "GROUP-EPOCH",      "TARGET-ASSIGNMENT-EPOCH",
                             "#MEMBERS"};
    const char *group_epoch = g->consumer ? number(a, g->group_epoch) : MISSING;
    const char *target_epoch = g->consumer ? number(a, g->assignment_epoch) : MISSING;
    const char *verbose_row[] = {group,
                                 coordinator_text(a, coordinator),
                                 g->strategy.len > 0 ? gr_admin_text(a, g->strategy) : MISSING,
                                 gr_admin_text(a, g->state),
                                 group_epoch,
                                 target_epoch,
                                 number(a, g->member_count)};
    /* Without --verbose the epochs are left out: the same row without them. */
    const char *plain_headers[] = {headers[0], headers[1], headers[2], headers[3], headers[6]};
    const char *plain_row[] = {verbose_row[0], verbose_row[1], verbose_row[2], verbose_row[3],
                               verbose_row[6]};
    gr_table_t table;
    gr_table_init(&table, verbose ? headers : plain_headers, verbose ? 7 : 5);
    gr_table_row(&table, verbose ? verbose_row : plain_row);
    gr_table_print(&table, stdout);
}

/* --- --json ---------------------------------------------------------------------- */

static void json_assignment(const assignment_view_t *as)
{
    printf("[");
    for (int32_t i = 0; i < as->count; i++) {
        printf("%s{\"topic\":", i ? "," : "");
        gr_json_strn(stdout, as->topics[i].topic.ptr, as->topics[i].topic.len);
        printf(",\"partitions\":[");
        for (int32_t j = 0; j < as->topics[i].count; j++)
            printf("%s%d", j ? "," : "", as->topics[i].partitions[j]);
        printf("]}");
    }
    printf("]");
}

static void json_member(const group_view_t *g, const member_view_t *m)
{
    printf("{\"member_id\":");
    gr_json_strn(stdout, m->member_id.ptr, m->member_id.len);
    printf(",\"instance_id\":");
    gr_json_strn(stdout, m->instance_id.ptr, m->instance_id.len);
    printf(",\"client_id\":");
    gr_json_strn(stdout, m->client_id.ptr, m->client_id.len);
    printf(",\"host\":");
    gr_json_strn(stdout, m->host.ptr, m->host.len);
    printf(",\"partitions\":%d,\"assignment\":", partition_count(&m->assigned));
    json_assignment(&m->assigned);
    if (g->consumer) {
        printf(",\"member_epoch\":%d,\"target_assignment\":", m->epoch);
        json_assignment(&m->target);
    }
    printf("}");
}

static void json_offsets(const char *group, const group_view_t *g,
                         const gr_admin_part_offsets_t *parts, int n)
{
    printf("[");
    for (int i = 0; i < n; i++) {
        const gr_admin_part_offsets_t *p = &parts[i];
        const member_view_t *m = owner(g, p->topic, p->partition);
        printf("%s{\"group\":", i ? "," : "");
        gr_json_str(stdout, group);
        printf(",\"topic\":");
        gr_json_strn(stdout, p->topic.ptr, p->topic.len);
        printf(",\"partition\":%d,\"current_offset\":%lld,\"log_end_offset\":%lld,\"lag\":%lld",
               p->partition, (long long)p->committed, (long long)p->latest,
               (long long)(p->committed >= 0 ? p->latest - p->committed : -1));
        printf(",\"consumer_id\":");
        gr_json_strn(stdout, m ? m->member_id.ptr : NULL, m ? m->member_id.len : -1);
        printf(",\"host\":");
        gr_json_strn(stdout, m ? m->host.ptr : NULL, m ? m->host.len : -1);
        printf(",\"client_id\":");
        gr_json_strn(stdout, m ? m->client_id.ptr : NULL, m ? m->client_id.len : -1);
        printf("}");
    }
    printf("]");
}

static void print_json(const char *group, const group_view_t *g,
                       const gr_admin_part_offsets_t *parts, int n)
{
    printf("{\"group\":");
    gr_json_str(stdout, group);
    printf(",\"type\":\"%s\",\"state\":", g->consumer ? "consumer" : "classic");
    gr_json_strn(stdout, g->state.ptr, g->state.len);
    printf(",\"protocol\":");
    gr_json_strn(stdout, g->strategy.ptr, g->strategy.len);
    if (g->consumer)
        printf(",\"group_epoch\":%d,\"assignment_epoch\":%d", g->group_epoch, g->assignment_epoch);
    printf(",\"members\":[");
    for (int32_t i = 0; i < g->member_count; i++) {
        printf("%s", i ? "," : "");
        json_member(g, &g->members[i]);
    }
    printf("],\"offsets\":");
    json_offsets(group, g, parts, n);
    printf("}\n");
}

int gr_admin_groups_describe(gr_admin_t *a)
{
    const char *group = gr_admin_need(a, "group");
    if (!group)
        return GR_ADMIN_EXIT_USAGE;
    group_view_t g;
    gr_find_coordinator_response_t coordinator;
    int rc = read_group(a, group, &g, &coordinator);
    if (rc)
        return rc;
    bool members = gr_admin_flag(a->opts, "members"), state = gr_admin_flag(a->opts, "state");
    bool verbose = gr_admin_flag(a->opts, "verbose");
    gr_admin_part_offsets_t *parts = NULL;
    int n = 0;
    if ((a->json || (!members && !state)) && (n = offset_rows(a, group, &g, &parts)) < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    if (a->json) {
        print_json(group, &g, parts, n);
        return GR_ADMIN_EXIT_OK;
    }
    const char *s = gr_admin_text(a, g.state);
    if (strcmp(s, "Dead") == 0 && n == 0) {
        fprintf(stderr, "error: consumer group '%s' does not exist.\n", group);
        return GR_ADMIN_EXIT_FAILED;
    }
    if (state) {
        print_state(a, group, &g, &coordinator, verbose);
        return GR_ADMIN_EXIT_OK;
    }
    if (g.member_count == 0)
        printf("Consumer group '%s' has no active members.\n", group);
    if (members) {
        if (g.member_count > 0)
            print_members(a, group, &g, verbose);
        return GR_ADMIN_EXIT_OK;
    }
    print_offsets(a, group, &g, parts, n, verbose);
    return GR_ADMIN_EXIT_OK;
}
