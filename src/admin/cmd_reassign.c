/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin reassign-partitions: moving partition replicas between
 * brokers, with kafka-reassign-partitions.sh's options, JSON files (plan.h)
 * and output lines.
 *
 *   --generate  Metadata only: the current assignment of the topics listed
 *               and a proposal over --broker-list (plan.c's placement,
 *               deterministic where Kafka's starts at random).
 *   --execute   prints the current assignment (to roll back with), then
 *               AlterPartitionReassignments with the file's targets.
 *   --verify    ListPartitionReassignments and Metadata: complete when the
 *               partition is no longer being reassigned and its replicas
 *               are the target, in order. Exit 0 only when every partition
 *               is complete (Kafka's tool exits 0 either way; scripts poll
 *               on the status instead).
 *   --cancel    AlterPartitionReassignments with null targets.
 *   --list      ListPartitionReassignments for every partition.
 *
 * The reassignment APIs are the controller's: requests go through
 * gr_admin_controller_call. Files are checked before connecting (exit 2).
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/plan.h"
#include "gen/alter_partition_reassignments.h"
#include "gen/list_partition_reassignments.h"
#include "gen/metadata.h"

#define METADATA_MAX_V    12
#define REASSIGN_MAX_V    0
#define REASSIGN_TIMEOUT  30000
#define BROKER_LIST_MAX   1024
#define REASSIGN_MODE_MAX 5

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT reassign-partitions MODE [--json]\n"
    "  --generate --topics-to-move-json-file F --broker-list 1,2,3 [--disable-rack-aware]\n"
    "        prints the current assignment of F's topics and a proposal spreading\n"
    "        their partitions over the brokers listed, each keeping its replication\n"
    "        factor (Kafka's placement from a fixed start: the same input, the same\n"
    "        proposal). F: {\"version\":1,\"topics\":[{\"topic\":\"foo\"}]}\n"
    "  --execute --reassignment-json-file F   starts moving F's partitions to their\n"
    "        replicas; prints the current assignment first (keep it to roll back)\n"
    "  --verify --reassignment-json-file F    exit 0 when every partition of F is\n"
    "        complete (replicas as in F, no reassignment left), 1 otherwise\n"
    "  --cancel --reassignment-json-file F    stops F's reassignments in progress\n"
    "  --list                                 every reassignment in progress\n"
    "  F: {\"version\":1,\"partitions\":[{\"topic\":\"foo\",\"partition\":0,\"replicas\":[1,2],\n"
    "      \"log_dirs\":[\"any\",\"any\"]}]}  (log_dirs optional, only \"any\")\n"
    "  exit 1 when the broker refused a partition (its errors on stderr).\n";

static const char *const modes[REASSIGN_MODE_MAX] = {"generate", "execute", "verify", "cancel",
                                                     "list"};

/* ---- requests ---- */

/* Metadata for the n topics (n 0: none asked, brokers only). */
static int fetch_metadata(gr_admin_t *a, const char *const *topics, size_t n,
                          gr_metadata_response_t *md)
{
    int16_t v = gr_admin_version(a, GR_API_METADATA, METADATA_MAX_V);
    if (v < 0)
        return -1;
    gr_metadata_request_t req;
    gr_metadata_request_init(&req);
    req.topics = gr_arena_alloc(&a->arena, (n ? n : 1) * sizeof *req.topics);
    if (!req.topics)
        return -1;
    for (size_t i = 0; i < n; i++) {
        gr_metadata_request_metadata_request_topic_init(&req.topics[i]);
        req.topics[i].name = gr_str(topics[i]);
    }
    req.topics_count = (int32_t)n;
    req.allow_auto_topic_creation = false;
    return gr_admin_call(a, GR_API_METADATA, v, &req, md);
}

/* Metadata for the topics of plan (sorted). */
static int fetch_plan_metadata(gr_admin_t *a, const gr_admin_plan_t *plan,
                               gr_metadata_response_t *md)
{
    const char **names = gr_arena_alloc(&a->arena, (plan->count + 1) * sizeof *names);
    if (!names)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < plan->count; i++)
        if (i == 0 || strcmp(plan->moves[i].topic, plan->moves[i - 1].topic) != 0)
            names[n++] = plan->moves[i].topic;
    return fetch_metadata(a, names, n, md);
}

static const gr_metadata_response_metadata_response_partition_t *
find_partition(gr_admin_t *a, const gr_metadata_response_t *md, const char *topic,
               int32_t partition)
{
    for (int32_t t = 0; t < md->topics_count; t++) {
        if (md->topics[t].error_code || strcmp(gr_admin_text(a, md->topics[t].name), topic) != 0)
            continue;
        for (int32_t p = 0; p < md->topics[t].partitions_count; p++)
            if (md->topics[t].partitions[p].partition_index == partition)
                return &md->topics[t].partitions[p];
    }
    return NULL;
}

/* The current replicas of want's partitions (want sorted) into cur. 0 or the exit code. */
static int current_assignment(gr_admin_t *a, const gr_metadata_response_t *md,
                              const gr_admin_plan_t *want, gr_admin_plan_t *cur)
{
    gr_admin_plan_init(cur);
    int rc = 0;
    for (size_t i = 0; i < want->count; i++) {
        const gr_admin_move_t *m = &want->moves[i];
        const gr_metadata_response_metadata_response_partition_t *p =
            find_partition(a, md, m->topic, m->partition);
        if (!p) {
            fprintf(stderr, "error: partition %s-%d does not exist\n", m->topic, m->partition);
            rc = GR_ADMIN_EXIT_FAILED;
        } else if (gr_admin_plan_add(cur, m->topic, (int32_t)strlen(m->topic), m->partition,
                                     p->replica_nodes, p->replica_nodes_count)) {
            rc = GR_ADMIN_EXIT_TRANSPORT;
        }
    }
    if (rc)
        gr_admin_plan_free(cur);
    return rc;
}

static bool broker_live(const gr_metadata_response_t *md, int32_t id)
{
    for (int32_t i = 0; i < md->brokers_count; i++)
        if (md->brokers[i].node_id == id)
            return true;
    return false;
}

/* The whole request's error, else the first partition's (for routing). */
static int16_t alter_error(const void *resp)
{
    const gr_alter_partition_reassignments_response_t *r = resp;
    if (r->error_code)
        return r->error_code;
    if (r->responses_count > 0 && r->responses[0].partitions_count > 0)
        return r->responses[0].partitions[0].error_code;
    return 0;
}

static int16_t list_error(const void *resp)
{
    return ((const gr_list_partition_reassignments_response_t *)resp)->error_code;
}

/* AlterPartitionReassignments for plan (sorted): its replicas, or null ones (cancel). */
static int send_alter(gr_admin_t *a, const gr_admin_plan_t *plan, bool cancel,
                      gr_alter_partition_reassignments_response_t *resp)
{
    gr_alter_partition_reassignments_request_t req;
    gr_alter_partition_reassignments_request_init(&req);
    req.timeout_ms = REASSIGN_TIMEOUT;
    req.topics = gr_arena_alloc(&a->arena, (plan->count ? plan->count : 1) * sizeof *req.topics);
    gr_alter_partition_reassignments_request_reassignable_partition_t *parts =
        gr_arena_alloc(&a->arena, (plan->count ? plan->count : 1) * sizeof *parts);
    if (!req.topics || !parts)
        return -1;
    gr_alter_partition_reassignments_request_reassignable_topic_t *t = NULL;
    for (size_t i = 0; i < plan->count; i++) {
        const gr_admin_move_t *m = &plan->moves[i];
        if (i == 0 || strcmp(m->topic, plan->moves[i - 1].topic) != 0) {
            t = &req.topics[req.topics_count++];
            gr_alter_partition_reassignments_request_reassignable_topic_init(t);
            t->name = gr_str(m->topic);
            t->partitions = &parts[i];
            t->partitions_count = 0;
        }
        gr_alter_partition_reassignments_request_reassignable_partition_init(&parts[i]);
        parts[i].partition_index = m->partition;
        parts[i].replicas = cancel ? NULL : m->replicas;
        parts[i].replicas_count = cancel ? 0 : m->replica_count;
        parts[i].replicas_null = cancel;
        t->partitions_count++;
    }
    return gr_admin_controller_call(a, GR_API_ALTER_PARTITION_REASSIGNMENTS, REASSIGN_MAX_V, &req,
                                    resp, alter_error);
}

/* ListPartitionReassignments for plan's partitions (sorted), or every one (plan NULL). */
static int send_list(gr_admin_t *a, const gr_admin_plan_t *plan,
                     gr_list_partition_reassignments_response_t *resp)
{
    gr_list_partition_reassignments_request_t req;
    gr_list_partition_reassignments_request_init(&req);
    req.timeout_ms = REASSIGN_TIMEOUT;
    req.topics_null = plan == NULL;
    size_t n = plan ? plan->count : 0;
    req.topics = gr_arena_alloc(&a->arena, (n ? n : 1) * sizeof *req.topics);
    int32_t *indexes = gr_arena_alloc(&a->arena, (n ? n : 1) * sizeof *indexes);
    if (!req.topics || !indexes)
        return -1;
    gr_list_partition_reassignments_request_list_partition_reassignments_topics_t *t = NULL;
    for (size_t i = 0; i < n; i++) {
        const gr_admin_move_t *m = &plan->moves[i];
        if (i == 0 || strcmp(m->topic, plan->moves[i - 1].topic) != 0) {
            t = &req.topics[req.topics_count++];
            gr_list_partition_reassignments_request_list_partition_reassignments_topics_init(t);
            t->name = gr_str(m->topic);
            t->partition_indexes = &indexes[i];
            t->partition_indexes_count = 0;
        }
        indexes[i] = m->partition;
        t->partition_indexes_count++;
    }
    if (gr_admin_controller_call(a, GR_API_LIST_PARTITION_REASSIGNMENTS, REASSIGN_MAX_V, &req, resp,
                                 list_error))
        return -1;
    if (resp->error_code) {
        gr_admin_report("listing reassignments", resp->error_code, resp->error_message);
        return 1;
    }
    return 0;
}

/* ---- output ---- */

static void print_ids(FILE *out, const int32_t *ids, int32_t n, bool json)
{
    fputs(json ? "[" : "", out);
    for (int32_t i = 0; i < n; i++)
        fprintf(out, "%s%d", i ? "," : "", ids[i]);
    fputs(json ? "]" : "", out);
}

/* The plan's JSON (gr_admin_plan_format) to stdout; -1 on ENOMEM. */
static int print_plan(const gr_admin_plan_t *p)
{
    char *text = gr_admin_plan_format(p);
    if (!text)
        return -1;
    fputs(text, stdout);
    free(text);
    return 0;
}

/*
 * Prints the per-partition outcomes of an AlterPartitionReassignments
 * (successes on stdout after done, failures on stderr). Exit code.
 */
static int alter_outcome(gr_admin_t *a, const gr_alter_partition_reassignments_response_t *resp,
                         const char *done, const char *failed)
{
    if (resp->error_code) {
        if (a->json)
            printf("\"error\":\"%s\",\"partitions\":[]}\n", gr_kerr_name(resp->error_code));
        gr_admin_report("reassignment", resp->error_code, resp->error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    int ok = 0, bad = 0;
    if (a->json)
        printf("\"partitions\":[");
    for (int32_t t = 0; t < resp->responses_count; t++) {
        for (int32_t p = 0; p < resp->responses[t].partitions_count; p++) {
            const gr_alter_partition_reassignments_response_reassignable_partition_response_t *r =
                &resp->responses[t].partitions[p];
            const char *topic = gr_admin_text(a, resp->responses[t].name);
            if (a->json) {
                printf("%s{\"topic\":", ok + bad ? "," : "");
                gr_json_str(stdout, topic);
                printf(",\"partition\":%d,\"error\":", r->partition_index);
                gr_json_str(stdout, r->error_code ? gr_kerr_name(r->error_code) : NULL);
                printf(",\"message\":");
                gr_json_strn(stdout, r->error_message.ptr, r->error_message.len);
                printf("}");
            } else if (r->error_code == 0) {
                printf("%s%s-%d", ok ? "," : done, topic, r->partition_index);
            }
            ok += r->error_code == 0;
            bad += r->error_code != 0;
        }
    }
    if (a->json)
        printf("]}\n");
    else if (ok)
        printf("\n");
    if (bad && !a->json) {
        fprintf(stderr, "%s\n", failed);
        for (int32_t t = 0; t < resp->responses_count; t++)
            for (int32_t p = 0; p < resp->responses[t].partitions_count; p++) {
                const gr_alter_partition_reassignments_response_reassignable_partition_response_t
                    *r = &resp->responses[t].partitions[p];
                if (!r->error_code)
                    continue;
                fprintf(stderr, "%s-%d: %s", gr_admin_text(a, resp->responses[t].name),
                        r->partition_index, gr_kerr_name(r->error_code));
                if (r->error_message.len > 0)
                    fprintf(stderr, " (%.*s)", r->error_message.len, r->error_message.ptr);
                fputc('\n', stderr);
            }
    }
    return bad ? GR_ADMIN_EXIT_FAILED : GR_ADMIN_EXIT_OK;
}

/* ---- modes ---- */

/* --broker-list "1,2,3" into ids (sorted, distinct). Count, or -1 (printed). */
static int parse_broker_list(const char *s, int32_t *ids, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end = NULL;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > INT32_MAX || (*end && *end != ',') || n == max) {
            fprintf(stderr, "error: --broker-list wants broker ids like 1,2,3, got '%s'\n", s);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (ids[i] == (int32_t)v) {
                fprintf(stderr, "error: --broker-list names broker %ld twice\n", v);
                return -1;
            }
        ids[n++] = (int32_t)v;
        p = *end ? end + 1 : end;
    }
    for (int i = 1; i < n; i++) /* insertion sort: a handful of ids */
        for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
            int32_t tmp = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = tmp;
        }
    if (n == 0)
        fprintf(stderr, "error: --broker-list is empty\n");
    return n ? n : -1;
}

static int reassign_generate(gr_admin_t *a)
{
    const char *file = gr_admin_need(a, "topics-to-move-json-file");
    const char *list = gr_admin_need(a, "broker-list");
    if (!file || !list)
        return GR_ADMIN_EXIT_USAGE;
    int32_t ids[BROKER_LIST_MAX];
    int count = parse_broker_list(list, ids, BROKER_LIST_MAX);
    if (count < 0)
        return GR_ADMIN_EXIT_USAGE;
    gr_admin_plan_t topics, cur, proposed;
    char err[GR_ADMIN_PLAN_ERR_MAX];
    if (gr_admin_plan_load(GR_ADMIN_PLAN_TOPICS, file, &topics, err, sizeof err)) {
        fprintf(stderr, "error: %s: %s\n", file, err);
        return GR_ADMIN_EXIT_USAGE;
    }
    gr_admin_plan_init(&cur);
    gr_admin_plan_init(&proposed);
    gr_metadata_response_t md;
    int rc = gr_admin_open(a);
    if (rc < 0 && fetch_metadata(a, (const char *const *)topics.topics, topics.topic_count, &md))
        rc = GR_ADMIN_EXIT_TRANSPORT;
    /* The current assignment: every partition of the topics. */
    for (int32_t t = 0; rc < 0 && t < md.topics_count; t++) {
        gr_metadata_response_metadata_response_topic_t *topic = &md.topics[t];
        if (topic->error_code) {
            gr_admin_report(gr_admin_text(a, topic->name), topic->error_code, gr_str(NULL));
            rc = GR_ADMIN_EXIT_FAILED;
        }
        for (int32_t p = 0; rc < 0 && p < topic->partitions_count; p++)
            if (gr_admin_plan_add(
                    &cur, topic->name.ptr, topic->name.len, topic->partitions[p].partition_index,
                    topic->partitions[p].replica_nodes, topic->partitions[p].replica_nodes_count))
                rc = GR_ADMIN_EXIT_TRANSPORT;
    }
    /* The brokers listed, with their racks, as Metadata knows them. */
    gr_replica_broker_t brokers[BROKER_LIST_MAX];
    bool racks = !gr_admin_flag(a->opts, "disable-rack-aware");
    for (int i = 0; rc < 0 && i < count; i++) {
        const gr_metadata_response_metadata_response_broker_t *b = NULL;
        for (int32_t j = 0; j < md.brokers_count; j++)
            if (md.brokers[j].node_id == ids[i])
                b = &md.brokers[j];
        if (!b) {
            fprintf(stderr, "error: broker %d of --broker-list is not a live broker\n", ids[i]);
            rc = GR_ADMIN_EXIT_FAILED;
            break;
        }
        brokers[i].id = ids[i];
        brokers[i].rack = racks && b->rack.len >= 0 ? gr_admin_text(a, b->rack) : NULL;
    }
    if (rc < 0) {
        gr_admin_plan_sort(&cur);
        if (gr_admin_plan_propose(&cur, brokers, (size_t)count, GR_RACK_MODE_ENFORCED, &proposed,
                                  err, sizeof err)) {
            fprintf(stderr, "error: %s\n", err);
            rc = GR_ADMIN_EXIT_FAILED;
        }
    }
    if (rc < 0) {
        printf(a->json ? "{\"current\":" : "Current partition replica assignment\n");
        print_plan(&cur);
        printf(a->json ? ",\"proposed\":" : "\n\nProposed partition reassignment configuration\n");
        print_plan(&proposed);
        printf(a->json ? "}\n" : "\n");
        rc = GR_ADMIN_EXIT_OK;
    }
    gr_admin_plan_free(&topics);
    gr_admin_plan_free(&cur);
    gr_admin_plan_free(&proposed);
    return rc;
}

/* Loads --reassignment-json-file (sorted). 0 or the exit code. */
static int load_reassignment(gr_admin_t *a, gr_admin_plan_t *plan)
{
    gr_admin_plan_init(plan);
    const char *file = gr_admin_need(a, "reassignment-json-file");
    if (!file)
        return GR_ADMIN_EXIT_USAGE;
    char err[GR_ADMIN_PLAN_ERR_MAX];
    if (gr_admin_plan_load(GR_ADMIN_PLAN_REASSIGNMENT, file, plan, err, sizeof err)) {
        fprintf(stderr, "error: %s: %s\n", file, err);
        return GR_ADMIN_EXIT_USAGE;
    }
    gr_admin_plan_sort(plan);
    return 0;
}

static int reassign_execute(gr_admin_t *a, const gr_admin_plan_t *plan)
{
    /* Asked first: no rollback text for a request that cannot be sent. */
    if (gr_admin_version(a, GR_API_ALTER_PARTITION_REASSIGNMENTS, REASSIGN_MAX_V) < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_metadata_response_t md;
    if (fetch_plan_metadata(a, plan, &md))
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_admin_plan_t cur;
    int rc = current_assignment(a, &md, plan, &cur);
    if (rc)
        return rc;
    for (size_t i = 0; i < plan->count; i++)
        for (int32_t r = 0; r < plan->moves[i].replica_count; r++)
            if (!broker_live(&md, plan->moves[i].replicas[r])) {
                fprintf(stderr, "error: partition %s-%d: broker %d is not a live broker\n",
                        plan->moves[i].topic, plan->moves[i].partition, plan->moves[i].replicas[r]);
                rc = GR_ADMIN_EXIT_FAILED;
            }
    if (rc) {
        gr_admin_plan_free(&cur);
        return rc;
    }
    printf(a->json ? "{\"current\":" : "Current partition replica assignment\n\n");
    print_plan(&cur);
    printf(a->json ? ","
                   : "\n\nSave this to use as the --reassignment-json-file option during "
                     "rollback\n");
    fflush(stdout);
    gr_admin_plan_free(&cur);
    gr_alter_partition_reassignments_response_t resp;
    if (send_alter(a, plan, false, &resp)) {
        if (a->json)
            printf("\"partitions\":null}\n");
        return GR_ADMIN_EXIT_TRANSPORT;
    }
    return alter_outcome(a, &resp, "Successfully started partition reassignments for ",
                         "Error reassigning partition(s):");
}

static int reassign_cancel(gr_admin_t *a, const gr_admin_plan_t *plan)
{
    gr_alter_partition_reassignments_response_t resp;
    if (send_alter(a, plan, true, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (a->json)
        printf("{");
    return alter_outcome(a, &resp, "Successfully cancelled partition reassignments for: ",
                         "Error cancelling partition reassignment(s):");
}

static const gr_list_partition_reassignments_response_ongoing_partition_reassignment_t *
find_ongoing(gr_admin_t *a, const gr_list_partition_reassignments_response_t *list,
             const char *topic, int32_t partition)
{
    for (int32_t t = 0; t < list->topics_count; t++) {
        if (strcmp(gr_admin_text(a, list->topics[t].name), topic) != 0)
            continue;
        for (int32_t p = 0; p < list->topics[t].partitions_count; p++)
            if (list->topics[t].partitions[p].partition_index == partition)
                return &list->topics[t].partitions[p];
    }
    return NULL;
}

static int reassign_verify(gr_admin_t *a, const gr_admin_plan_t *plan)
{
    gr_list_partition_reassignments_response_t list;
    int rc = send_list(a, plan, &list);
    if (rc)
        return rc < 0 ? GR_ADMIN_EXIT_TRANSPORT : GR_ADMIN_EXIT_FAILED;
    /* Metadata after the list: a move completing in between reads as complete. */
    gr_metadata_response_t md;
    if (fetch_plan_metadata(a, plan, &md))
        return GR_ADMIN_EXIT_TRANSPORT;
    printf(a->json ? "{\"partitions\":[" : "Status of partition reassignment:\n");
    size_t complete = 0;
    for (size_t i = 0; i < plan->count; i++) {
        const gr_admin_move_t *m = &plan->moves[i];
        const gr_metadata_response_metadata_response_partition_t *p =
            find_partition(a, &md, m->topic, m->partition);
        bool ongoing = find_ongoing(a, &list, m->topic, m->partition) != NULL;
        bool same = p && p->replica_nodes_count == m->replica_count &&
                    memcmp(p->replica_nodes, m->replicas,
                           (size_t)m->replica_count * sizeof *m->replicas) == 0;
        const char *status = ongoing ? "in_progress"
                             : !p    ? "unknown"
                             : same  ? "completed"
                                     : "failed";
        complete += !ongoing && same;
        if (a->json) {
            printf("%s{\"topic\":", i ? "," : "");
            gr_json_str(stdout, m->topic);
            printf(",\"partition\":%d,\"status\":\"%s\",\"replicas\":", m->partition, status);
            if (p)
                print_ids(stdout, p->replica_nodes, p->replica_nodes_count, true);
            else
                printf("null");
            printf("}");
        } else if (ongoing) {
            printf("Reassignment of partition %s-%d is still in progress.\n", m->topic,
                   m->partition);
        } else if (!p) {
            printf("Reassignment of partition %s-%d failed: the partition does not exist.\n",
                   m->topic, m->partition);
        } else if (same) {
            printf("Reassignment of partition %s-%d is completed.\n", m->topic, m->partition);
        } else {
            printf("There is no active reassignment of partition %s-%d, but replica set is ",
                   m->topic, m->partition);
            print_ids(stdout, p->replica_nodes, p->replica_nodes_count, false);
            printf(" rather than ");
            print_ids(stdout, m->replicas, m->replica_count, false);
            printf(".\n");
        }
    }
    if (a->json)
        printf("]}\n");
    return complete == plan->count ? GR_ADMIN_EXIT_OK : GR_ADMIN_EXIT_FAILED;
}

static int reassign_list(gr_admin_t *a)
{
    gr_list_partition_reassignments_response_t list;
    int rc = send_list(a, NULL, &list);
    if (rc)
        return rc < 0 ? GR_ADMIN_EXIT_TRANSPORT : GR_ADMIN_EXIT_FAILED;
    /* Sorted through a plan: by topic, then partition. */
    gr_admin_plan_t order;
    gr_admin_plan_init(&order);
    for (int32_t t = 0; t < list.topics_count; t++)
        for (int32_t p = 0; p < list.topics[t].partitions_count; p++)
            if (gr_admin_plan_add(&order, list.topics[t].name.ptr, list.topics[t].name.len,
                                  list.topics[t].partitions[p].partition_index, NULL, 0)) {
                gr_admin_plan_free(&order);
                return GR_ADMIN_EXIT_TRANSPORT;
            }
    gr_admin_plan_sort(&order);
    if (a->json)
        printf("{\"partitions\":[");
    else if (order.count == 0)
        printf("No partition reassignments found.\n");
    else
        printf("Current partition reassignments:\n");
    for (size_t i = 0; i < order.count; i++) {
        const gr_list_partition_reassignments_response_ongoing_partition_reassignment_t *r =
            find_ongoing(a, &list, order.moves[i].topic, order.moves[i].partition);
        if (a->json) {
            printf("%s{\"topic\":", i ? "," : "");
            gr_json_str(stdout, order.moves[i].topic);
            printf(",\"partition\":%d,\"replicas\":", r->partition_index);
            print_ids(stdout, r->replicas, r->replicas_count, true);
            printf(",\"adding\":");
            print_ids(stdout, r->adding_replicas, r->adding_replicas_count, true);
            printf(",\"removing\":");
            print_ids(stdout, r->removing_replicas, r->removing_replicas_count, true);
            printf("}");
            continue;
        }
        printf("%s-%d: replicas: ", order.moves[i].topic, r->partition_index);
        print_ids(stdout, r->replicas, r->replicas_count, false);
        printf(". adding: ");
        print_ids(stdout, r->adding_replicas, r->adding_replicas_count, false);
        printf(". removing: ");
        print_ids(stdout, r->removing_replicas, r->removing_replicas_count, false);
        printf(".\n");
    }
    if (a->json)
        printf("]}\n");
    gr_admin_plan_free(&order);
    return GR_ADMIN_EXIT_OK;
}

int gr_admin_cmd_reassign(gr_admin_t *a)
{
    int rc = gr_admin_check(a, help, NULL);
    if (rc >= 0)
        return rc;
    int mode = -1, given = 0;
    for (int i = 0; i < REASSIGN_MODE_MAX; i++)
        if (gr_admin_flag(a->opts, modes[i])) {
            mode = i;
            given++;
        }
    if (given != 1) {
        fprintf(stderr, "error: give one of --generate, --execute, --verify, --cancel, --list\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    if (strcmp(modes[mode], "generate") == 0)
        return reassign_generate(a);
    if (strcmp(modes[mode], "list") == 0) {
        rc = gr_admin_open(a);
        return rc >= 0 ? rc : reassign_list(a);
    }
    gr_admin_plan_t plan;
    rc = load_reassignment(a, &plan);
    if (rc == 0) {
        rc = gr_admin_open(a);
        if (rc < 0 && strcmp(modes[mode], "execute") == 0)
            rc = reassign_execute(a, &plan);
        else if (rc < 0 && strcmp(modes[mode], "verify") == 0)
            rc = reassign_verify(a, &plan);
        else if (rc < 0)
            rc = reassign_cancel(a, &plan);
    }
    gr_admin_plan_free(&plan);
    return rc;
}
