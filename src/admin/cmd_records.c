/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin records delete: DeleteRecords, moving a partition's log start
 * offset (kafka-delete-records.sh, with the partition on the command line
 * instead of a JSON file).
 */
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "gen/delete_records.h"

#define DELETE_RECORDS_MAX_V 2
#define RECORDS_TIMEOUT_MS   30000

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT records delete --topic T\n"
    "           [--partition P] --offset O [--json]\n"
    "  deletes the records of partition P (default 0) below offset O (-1: all\n"
    "  records up to the high watermark); prints the new low watermark\n";

static const char *const subcommands[] = {"delete", NULL};

int gr_admin_cmd_records(gr_admin_t *a)
{
    int rc = gr_admin_begin(a, help, subcommands);
    if (rc >= 0)
        return rc;
    const char *topic = gr_admin_need(a, "topic");
    int64_t partition = 0, offset = 0;
    if (!topic || gr_admin_opt_long(a->opts, "partition", &partition) < 0 ||
        gr_admin_opt_long(a->opts, "offset", &offset) != 0) {
        fprintf(stderr, "error: --topic T and --offset O are required\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    int16_t v = gr_admin_version(a, GR_API_DELETE_RECORDS, DELETE_RECORDS_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_delete_records_request_t req;
    gr_delete_records_request_init(&req);
    gr_delete_records_request_delete_records_topic_t t;
    gr_delete_records_request_delete_records_topic_init(&t);
    gr_delete_records_request_delete_records_partition_t p;
    gr_delete_records_request_delete_records_partition_init(&p);
    p.partition_index = (int32_t)partition;
    p.offset = offset;
    t.name = gr_str(topic);
    t.partitions = &p;
    t.partitions_count = 1;
    req.topics = &t;
    req.topics_count = 1;
    req.timeout_ms = RECORDS_TIMEOUT_MS;
    gr_delete_records_response_t resp;
    if (gr_admin_call(a, GR_API_DELETE_RECORDS, v, &req, &resp) || resp.topics_count != 1 ||
        resp.topics[0].partitions_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_delete_records_response_delete_records_partition_result_t *r = &resp.topics[0].partitions[0];
    if (a->json) {
        printf("{\"topic\":");
        gr_json_str(stdout, topic);
        printf(",\"partition\":%d,\"low_watermark\":%lld,\"error\":", r->partition_index,
               (long long)r->low_watermark);
        gr_json_str(stdout, r->error_code ? gr_kerr_name(r->error_code) : NULL);
        printf("}\n");
    } else if (!r->error_code) {
        char part[16], low[32];
        snprintf(part, sizeof part, "%d", r->partition_index);
        snprintf(low, sizeof low, "%lld", (long long)r->low_watermark);
        const char *headers[] = {"TOPIC", "PARTITION", "LOW-WATERMARK"};
        gr_table_t table;
        gr_table_init(&table, headers, 3);
        const char *row[] = {topic, part, low};
        gr_table_row(&table, row);
        gr_table_print(&table, stdout);
    }
    if (r->error_code) {
        if (!a->json)
            gr_admin_report(topic, r->error_code, gr_str(NULL));
        return GR_ADMIN_EXIT_FAILED;
    }
    return GR_ADMIN_EXIT_OK;
}
