/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin leader-election: ElectLeaders (PREFERRED or UNCLEAN) for
 * every partition, one partition, or the partitions of a JSON file, sent to
 * the controller; options and output lines as kafka-leader-election.sh's.
 * A partition whose leader is already the one asked (ELECTION_NOT_NEEDED)
 * is not a failure; any other error is (exit 1).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/plan.h"
#include "gen/elect_leaders.h"

#define ELECT_LEADERS_MAX_V 2
#define ELECT_TIMEOUT_MS    30000

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT leader-election\n"
    "         --election-type PREFERRED|UNCLEAN\n"
    "         (--all-topic-partitions | --topic T --partition P | --path-to-json-file F)\n"
    "         [--json]\n"
    "  elects the preferred replica (the first of the replica list) as leader, or\n"
    "  (UNCLEAN) any live replica of a partition without a leader.\n"
    "  F: {\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}\n"
    "  exit 1 when some partition could not be elected (\"Valid replica already\n"
    "  elected\" is not a failure).\n";

/* One partition's outcome, for sorting and printing. */
typedef struct outcome {
    const char *topic;
    int32_t partition;
    int16_t code;
    gr_str_t message;
} outcome_t;

static int cmp_outcome(const void *x, const void *y)
{
    const outcome_t *a = x, *b = y;
    int c = strcmp(a->topic, b->topic);
    return c ? c : (a->partition > b->partition) - (a->partition < b->partition);
}

/* The whole request's error when set (v1+), else the first partition's. */
static int16_t elect_error(const void *resp)
{
    const gr_elect_leaders_response_t *r = resp;
    if (r->error_code)
        return r->error_code;
    if (r->replica_election_results_count > 0 &&
        r->replica_election_results[0].partition_result_count > 0)
        return r->replica_election_results[0].partition_result[0].error_code;
    return 0;
}

/* The partitions asked for, from --topic/--partition or the file. 0, or the exit code. */
static int partitions_asked(gr_admin_t *a, gr_admin_plan_t *plan)
{
    gr_admin_plan_init(plan); /* freed by the caller whatever the outcome */
    const gr_admin_options_t *o = a->opts;
    const char *file = gr_admin_opt(o, "path-to-json-file");
    const char *topic = gr_admin_opt(o, "topic");
    bool all = gr_admin_flag(o, "all-topic-partitions");
    int64_t partition = -1;
    int has_partition = gr_admin_opt_long(o, "partition", &partition);
    if (has_partition < 0)
        return GR_ADMIN_EXIT_USAGE;
    if (all + (file != NULL) + (topic != NULL) != 1) {
        fprintf(stderr, "error: give one of --all-topic-partitions, --topic with --partition, "
                        "--path-to-json-file\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    if ((topic != NULL) != (has_partition == 0)) {
        fprintf(stderr, "error: --topic and --partition go together\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    if (topic) {
        if (partition < 0 || partition > INT32_MAX) {
            fprintf(stderr, "error: --partition must be an index (>= 0)\n");
            return GR_ADMIN_EXIT_USAGE;
        }
        return gr_admin_plan_add(plan, topic, (int32_t)strlen(topic), (int32_t)partition, NULL, 0)
                   ? GR_ADMIN_EXIT_TRANSPORT
                   : 0;
    }
    if (file) {
        char err[GR_ADMIN_PLAN_ERR_MAX];
        if (gr_admin_plan_load(GR_ADMIN_PLAN_ELECTION, file, plan, err, sizeof err)) {
            fprintf(stderr, "error: %s: %s\n", file, err);
            return GR_ADMIN_EXIT_USAGE;
        }
        gr_admin_plan_sort(plan);
    }
    return 0;
}

/* The request's topics: the plan's partitions grouped by topic (plan sorted). */
static int build_request(gr_admin_t *a, const gr_admin_plan_t *plan,
                         gr_elect_leaders_request_t *req)
{
    size_t topics = 0;
    for (size_t i = 0; i < plan->count; i++)
        topics += i == 0 || strcmp(plan->moves[i].topic, plan->moves[i - 1].topic) != 0;
    req->topic_partitions =
        gr_arena_alloc(&a->arena, (topics ? topics : 1) * sizeof *req->topic_partitions);
    int32_t *indexes = gr_arena_alloc(&a->arena, (plan->count ? plan->count : 1) * sizeof *indexes);
    if (!req->topic_partitions || !indexes)
        return -1;
    req->topic_partitions_count = 0;
    gr_elect_leaders_request_topic_partitions_t *t = NULL;
    for (size_t i = 0; i < plan->count; i++) {
        if (i == 0 || strcmp(plan->moves[i].topic, plan->moves[i - 1].topic) != 0) {
            t = &req->topic_partitions[req->topic_partitions_count++];
            gr_elect_leaders_request_topic_partitions_init(t);
            t->topic = gr_str(plan->moves[i].topic);
            t->partitions = &indexes[i];
            t->partitions_count = 0;
        }
        indexes[i] = plan->moves[i].partition;
        t->partitions_count++;
    }
    return 0;
}

/* Prints "PREFIX t-0, t-1" for the outcomes whose class is want (0 elected, 1 not needed). */
static void print_class(const outcome_t *out, size_t n, int want, const char *prefix)
{
    int printed = 0;
    for (size_t i = 0; i < n; i++) {
        int cls = out[i].code == 0 ? 0 : out[i].code == GR_KERR_ELECTION_NOT_NEEDED ? 1 : 2;
        if (cls != want)
            continue;
        printf("%s%s-%d", printed++ ? ", " : prefix, out[i].topic, out[i].partition);
    }
    if (printed)
        printf("\n");
}

static int report(gr_admin_t *a, const char *type, outcome_t *out, size_t n)
{
    qsort(out, n, sizeof *out, cmp_outcome);
    size_t failed = 0;
    for (size_t i = 0; i < n; i++)
        failed += out[i].code != 0 && out[i].code != GR_KERR_ELECTION_NOT_NEEDED;
    if (a->json) {
        printf("{\"election_type\":\"%s\",\"partitions\":[", type);
        for (size_t i = 0; i < n; i++) {
            printf("%s{\"topic\":", i ? "," : "");
            gr_json_str(stdout, out[i].topic);
            printf(",\"partition\":%d,\"error\":", out[i].partition);
            gr_json_str(stdout, out[i].code ? gr_kerr_name(out[i].code) : NULL);
            printf(",\"message\":");
            gr_json_strn(stdout, out[i].message.ptr, out[i].message.len);
            printf("}");
        }
        printf("]}\n");
    } else {
        char prefix[128];
        snprintf(prefix, sizeof prefix,
                 "Successfully completed leader election (%s) for partitions ", type);
        print_class(out, n, 0, prefix);
        print_class(out, n, 1, "Valid replica already elected for partitions ");
        for (size_t i = 0; i < n; i++) {
            if (out[i].code == 0 || out[i].code == GR_KERR_ELECTION_NOT_NEEDED)
                continue;
            printf("Error completing leader election (%s) for partition: %s-%d: %s", type,
                   out[i].topic, out[i].partition, gr_kerr_name(out[i].code));
            if (out[i].message.len > 0)
                printf(" (%.*s)", out[i].message.len, out[i].message.ptr);
            printf("\n");
        }
        if (n == 0)
            printf("No partition needed a leader election (%s)\n", type);
    }
    if (failed)
        fprintf(stderr, "error: %zu replica(s) could not be elected\n", failed);
    return failed ? GR_ADMIN_EXIT_FAILED : GR_ADMIN_EXIT_OK;
}

int gr_admin_cmd_election(gr_admin_t *a)
{
    int rc = gr_admin_check(a, help, NULL);
    if (rc >= 0)
        return rc;
    const char *type = gr_admin_need(a, "election-type");
    if (!type)
        return GR_ADMIN_EXIT_USAGE;
    bool unclean = strcasecmp(type, "UNCLEAN") == 0;
    if (!unclean && strcasecmp(type, "PREFERRED") != 0) {
        fprintf(stderr, "error: --election-type is PREFERRED or UNCLEAN, not '%s'\n", type);
        return GR_ADMIN_EXIT_USAGE;
    }
    const char *type_name = unclean ? "UNCLEAN" : "PREFERRED";
    gr_admin_plan_t plan;
    rc = partitions_asked(a, &plan);
    if (rc) {
        gr_admin_plan_free(&plan);
        return rc;
    }
    gr_elect_leaders_request_t req;
    gr_elect_leaders_request_init(&req);
    req.election_type = unclean ? GR_ELECTION_TYPE_UNCLEAN : GR_ELECTION_TYPE_PREFERRED;
    req.timeout_ms = ELECT_TIMEOUT_MS;
    req.topic_partitions_null = gr_admin_flag(a->opts, "all-topic-partitions");
    gr_elect_leaders_response_t resp;
    rc = gr_admin_open(a);
    if (rc < 0 && !req.topic_partitions_null && build_request(a, &plan, &req))
        rc = GR_ADMIN_EXIT_TRANSPORT;
    if (rc < 0 && unclean && a->max_version[GR_API_ELECT_LEADERS] < 1) {
        fprintf(stderr, "error: the broker does not support UNCLEAN elections (ElectLeaders v1)\n");
        rc = GR_ADMIN_EXIT_TRANSPORT;
    }
    if (rc < 0 && gr_admin_controller_call(a, GR_API_ELECT_LEADERS, ELECT_LEADERS_MAX_V, &req,
                                           &resp, elect_error))
        rc = GR_ADMIN_EXIT_TRANSPORT;
    gr_admin_plan_free(&plan);
    if (rc >= 0)
        return rc;
    if (resp.error_code) {
        gr_admin_report("leader election", resp.error_code, gr_str(NULL));
        return GR_ADMIN_EXIT_FAILED;
    }
    size_t n = 0;
    for (int32_t t = 0; t < resp.replica_election_results_count; t++)
        n += (size_t)resp.replica_election_results[t].partition_result_count;
    outcome_t *out = gr_arena_alloc(&a->arena, (n ? n : 1) * sizeof *out);
    if (!out)
        return GR_ADMIN_EXIT_TRANSPORT;
    n = 0;
    for (int32_t t = 0; t < resp.replica_election_results_count; t++) {
        gr_elect_leaders_response_replica_election_result_t *r = &resp.replica_election_results[t];
        for (int32_t p = 0; p < r->partition_result_count; p++)
            out[n++] = (outcome_t){gr_admin_text(a, r->topic), r->partition_result[p].partition_id,
                                   r->partition_result[p].error_code,
                                   r->partition_result[p].error_message};
    }
    return report(a, type_name, out, n);
}
