/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin records delete: DeleteRecords, moving partitions' log start
 * offsets. Either one partition on the command line (--topic, --partition,
 * --offset; a table of the new low watermark), or kafka-delete-records.sh's
 * --offset-json-file, printed as that tool prints it:
 *
 *   Executing records delete operation
 *   Records delete operation completed:
 *   partition: T-0	low_watermark: 5
 *   partition: T-1	error: org.apache.kafka.common.errors.<Exception>: <message>
 *
 * Each partition's request goes to its leader (route.c); an error Kafka's
 * client would retry (a leader moving) is retried for a bounded time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/records_json.h"
#include "core/file_read.h"
#include "gen/delete_records.h"

#define DELETE_RECORDS_MAX_V   2
#define RECORDS_TIMEOUT_MS     30000
#define RECORDS_RETRY_MS       15000
#define RECORDS_FILE_MAX       (64 * 1024 * 1024)
#define RECORDS_ERROR_TEXT_MAX 512
#define RECORDS_FILE_ERROR_MAX 1024

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT records delete --topic T\n"
    "           [--partition P] --offset O [--json]\n"
    "       gregor-admin --bootstrap-server HOST:PORT records delete\n"
    "           --offset-json-file FILE [--json]\n"
    "  deletes the records of partition P (default 0) below offset O (-1: all\n"
    "  records up to the high watermark); prints the new low watermark. FILE is\n"
    "  kafka-delete-records.sh's: {\"partitions\":[{\"topic\":T,\"partition\":P,\n"
    "  \"offset\":O}...],\"version\":1}\n";

static const char *const subcommands[] = {"delete", NULL};

/* One partition's outcome: its new low watermark, or an error and its text. */
typedef struct records_result {
    int16_t error;
    int64_t low_watermark;
    char text[RECORDS_ERROR_TEXT_MAX]; /* the error as Kafka's tool prints it */
} records_result_t;

/* Sends DeleteRecords for one partition to the connected broker. 0, or -1 (printed). */
static int send_delete(gr_admin_t *a, const gr_admin_records_target_t *t, records_result_t *out)
{
    int16_t v = gr_admin_version(a, GR_API_DELETE_RECORDS, DELETE_RECORDS_MAX_V);
    if (v < 0)
        return -1;
    gr_delete_records_request_t req;
    gr_delete_records_request_init(&req);
    gr_delete_records_request_delete_records_topic_t topic;
    gr_delete_records_request_delete_records_topic_init(&topic);
    gr_delete_records_request_delete_records_partition_t p;
    gr_delete_records_request_delete_records_partition_init(&p);
    p.partition_index = t->partition;
    p.offset = t->offset;
    topic.name = gr_str(t->topic);
    topic.partitions = &p;
    topic.partitions_count = 1;
    req.topics = &topic;
    req.topics_count = 1;
    req.timeout_ms = RECORDS_TIMEOUT_MS;
    gr_delete_records_response_t resp;
    if (gr_admin_call(a, GR_API_DELETE_RECORDS, v, &req, &resp) || resp.topics_count != 1 ||
        resp.topics[0].partitions_count != 1)
        return -1;
    out->error = resp.topics[0].partitions[0].error_code;
    out->low_watermark = resp.topics[0].partitions[0].low_watermark;
    return 0;
}

/* Kafka's client's text for a topic the leader lookup failed on. */
static void lookup_error_text(const gr_admin_records_target_t *t, records_result_t *out)
{
    char why[RECORDS_ERROR_TEXT_MAX];
    if (out->error == GR_KERR_UNKNOWN_TOPIC_OR_PARTITION)
        snprintf(why, sizeof why,
                 "Failed to fetch metadata for partition %s-%d because metadata for topic `%s` "
                 "could not be found",
                 t->topic, t->partition, t->topic);
    else if (out->error == GR_KERR_TOPIC_AUTHORIZATION_FAILED)
        snprintf(why, sizeof why,
                 "Failed to fetch metadata for partition %s-%d due to topic authorization failure",
                 t->topic, t->partition);
    else if (out->error == GR_KERR_INVALID_TOPIC_EXCEPTION)
        snprintf(why, sizeof why,
                 "Failed to fetch metadata for partition %s-%d due to invalid topic `%s`", t->topic,
                 t->partition, t->topic);
    else
        snprintf(why, sizeof why,
                 "Failed to fetch metadata for partition %s-%d due to unexpected error for topic "
                 "`%s`",
                 t->topic, t->partition, t->topic);
    gr_admin_java_error(out->error, why, out->text, sizeof out->text);
}

/*
 * Deletes one partition's records at its leader, retrying errors Kafka's
 * client retries until RECORDS_RETRY_MS. 0 with *out filled, or -1 (no
 * answer, printed).
 */
static int delete_at_leader(gr_admin_t *a, const gr_admin_records_target_t *t,
                            records_result_t *out)
{
    int64_t deadline = gr_admin_now_ms() + RECORDS_RETRY_MS;
    for (;;) {
        gr_admin_broker_t leader;
        bool topic_error = false;
        if (gr_admin_partition_route(a, t->topic, t->partition, &leader, &out->error, &topic_error))
            return -1;
        if (out->error) {
            if (topic_error)
                lookup_error_text(t, out);
            else
                gr_admin_java_error(out->error, NULL, out->text, sizeof out->text);
            return 0;
        }
        if (gr_admin_move_to(a, leader.addr) || send_delete(a, t, out))
            return -1;
        if (!out->error || !gr_kerr_retriable(out->error) || gr_admin_now_ms() >= deadline) {
            gr_admin_java_error(out->error, NULL, out->text, sizeof out->text);
            return 0;
        }
        gr_admin_backoff();
    }
}

/* Reads and checks --offset-json-file. 0, or -1 (Kafka's message printed). */
static int load_targets(gr_admin_t *a, const char *path, gr_admin_records_target_t **targets,
                        int *n)
{
    char *text = NULL;
    size_t len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 ? -errno : gr_file_read_all(fd, RECORDS_FILE_MAX, &text, &len);
    if (fd >= 0)
        close(fd);
    if (rc) {
        fprintf(stderr, "error: cannot read %s: %s\n", path, strerror(-rc));
        return -1;
    }
    char err[RECORDS_FILE_ERROR_MAX];
    rc = gr_admin_records_json_parse(text, len, &a->arena, targets, n, err, sizeof err);
    free(text);
    if (rc == -EINVAL)
        fprintf(stderr, "%s\n", err);
    else if (rc)
        fprintf(stderr, "error: %s: %s\n", path, strerror(-rc));
    return rc ? -1 : 0;
}

static void print_results(gr_admin_t *a, const gr_admin_records_target_t *t,
                          const records_result_t *r, int n)
{
    if (a->json) {
        printf("[");
        for (int i = 0; i < n; i++) {
            printf("%s{\"topic\":", i ? "," : "");
            gr_json_str(stdout, t[i].topic);
            printf(",\"partition\":%d,\"low_watermark\":%lld,\"error\":", t[i].partition,
                   r[i].error ? -1LL : (long long)r[i].low_watermark);
            gr_json_str(stdout, r[i].error ? gr_kerr_name(r[i].error) : NULL);
            printf("}");
        }
        printf("]\n");
        return;
    }
    printf("Records delete operation completed:\n");
    for (int i = 0; i < n; i++)
        if (r[i].error)
            printf("partition: %s-%d\terror: %s\n", t[i].topic, t[i].partition, r[i].text);
        else
            printf("partition: %s-%d\tlow_watermark: %lld\n", t[i].topic, t[i].partition,
                   (long long)r[i].low_watermark);
}

/*
 * records delete --offset-json-file F, as kafka-delete-records.sh. A
 * partition's error is printed on its line; Kafka's tool still exits 0
 * then, and so does kafka-delete-records here (gregor-admin exits 1).
 */
static int delete_from_file(gr_admin_t *a, const char *path)
{
    gr_admin_records_target_t *targets = NULL;
    int n = 0;
    if (load_targets(a, path, &targets, &n))
        return GR_ADMIN_EXIT_FAILED; /* as Kafka's tool, for a file it refuses */
    int rc = gr_admin_open(a);
    if (rc >= 0)
        return rc;
    records_result_t *results = gr_arena_alloc(&a->arena, (size_t)n * sizeof *results + 1);
    if (!results)
        return GR_ADMIN_EXIT_TRANSPORT;
    if (!a->json)
        printf("Executing records delete operation\n");
    bool failed = false;
    for (int i = 0; i < n; i++) {
        if (delete_at_leader(a, &targets[i], &results[i]))
            return GR_ADMIN_EXIT_TRANSPORT;
        failed |= results[i].error != GR_KERR_NONE;
    }
    print_results(a, targets, results, n);
    return failed && !a->kafka_tool ? GR_ADMIN_EXIT_FAILED : GR_ADMIN_EXIT_OK;
}

static void print_one(gr_admin_t *a, const gr_admin_records_target_t *t, const records_result_t *r)
{
    if (a->json) {
        printf("{\"topic\":");
        gr_json_str(stdout, t->topic);
        printf(",\"partition\":%d,\"low_watermark\":%lld,\"error\":", t->partition,
               (long long)r->low_watermark);
        gr_json_str(stdout, r->error ? gr_kerr_name(r->error) : NULL);
        printf("}\n");
        return;
    }
    if (r->error) {
        gr_admin_report(t->topic, r->error, gr_str(NULL));
        return;
    }
    char part[16], low[32];
    snprintf(part, sizeof part, "%d", t->partition);
    snprintf(low, sizeof low, "%lld", (long long)r->low_watermark);
    const char *headers[] = {"TOPIC", "PARTITION", "LOW-WATERMARK"};
    gr_table_t table;
    gr_table_init(&table, headers, 3);
    const char *row[] = {t->topic, part, low};
    gr_table_row(&table, row);
    gr_table_print(&table, stdout);
}

int gr_admin_cmd_records(gr_admin_t *a)
{
    int rc = gr_admin_check(a, help, subcommands);
    if (rc >= 0)
        return rc;
    const char *file = gr_admin_opt(a->opts, "offset-json-file");
    if (file)
        return delete_from_file(a, file);
    if (a->kafka_tool) { /* kafka-delete-records.sh takes the file only */
        fprintf(stderr, "Missing required argument \"[offset-json-file]\"\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    const char *topic = gr_admin_opt(a->opts, "topic");
    int64_t partition = 0, offset = 0;
    if (!topic || gr_admin_opt_long(a->opts, "partition", &partition) < 0 ||
        gr_admin_opt_long(a->opts, "offset", &offset) != 0 || partition < 0 ||
        partition > INT32_MAX) {
        fprintf(stderr, "error: --offset-json-file F, or --topic T and --offset O, are required\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    rc = gr_admin_open(a);
    if (rc >= 0)
        return rc;
    gr_admin_records_target_t t = {topic, (int32_t)partition, offset};
    records_result_t r;
    if (delete_at_leader(a, &t, &r))
        return GR_ADMIN_EXIT_TRANSPORT;
    print_one(a, &t, &r);
    return r.error ? GR_ADMIN_EXIT_FAILED : GR_ADMIN_EXIT_OK;
}
