/* SPDX-License-Identifier: Apache-2.0 */
/* gregor-admin cluster describe: DescribeCluster (cluster id, controller, brokers). */
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "gen/describe_cluster.h"

#define DESCRIBE_CLUSTER_MAX_V 1

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT cluster describe [--json]\n"
    "  the cluster id, the controller and every broker with its address and rack\n";

static const char *const subcommands[] = {"describe", NULL};

int gr_admin_cmd_cluster(gr_admin_t *a)
{
    int rc = gr_admin_begin(a, help, subcommands);
    if (rc >= 0)
        return rc;
    int16_t v = gr_admin_version(a, GR_API_DESCRIBE_CLUSTER, DESCRIBE_CLUSTER_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_describe_cluster_request_t req;
    gr_describe_cluster_request_init(&req);
    gr_describe_cluster_response_t resp;
    if (gr_admin_call(a, GR_API_DESCRIBE_CLUSTER, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.error_code) {
        gr_admin_report("cluster", resp.error_code, resp.error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    if (a->json) {
        printf("{\"cluster_id\":");
        gr_json_strn(stdout, resp.cluster_id.ptr, resp.cluster_id.len);
        printf(",\"controller\":%d,\"brokers\":[", resp.controller_id);
        for (int32_t i = 0; i < resp.brokers_count; i++) {
            printf("%s{\"id\":%d,\"host\":", i ? "," : "", resp.brokers[i].broker_id);
            gr_json_strn(stdout, resp.brokers[i].host.ptr, resp.brokers[i].host.len);
            printf(",\"port\":%d,\"rack\":", resp.brokers[i].port);
            gr_json_strn(stdout, resp.brokers[i].rack.ptr, resp.brokers[i].rack.len);
            printf("}");
        }
        printf("]}\n");
        return GR_ADMIN_EXIT_OK;
    }
    printf("Cluster ID: %s\nController: %d\n", gr_admin_text(a, resp.cluster_id),
           resp.controller_id);
    const char *headers[] = {"BROKER", "HOST", "PORT", "RACK"};
    gr_table_t table;
    gr_table_init(&table, headers, 4);
    for (int32_t i = 0; i < resp.brokers_count; i++) {
        char id[16], port[16];
        snprintf(id, sizeof id, "%d", resp.brokers[i].broker_id);
        snprintf(port, sizeof port, "%d", resp.brokers[i].port);
        const char *row[] = {id, gr_admin_text(a, resp.brokers[i].host), port,
                             resp.brokers[i].rack.len < 0 ? "-"
                                                          : gr_admin_text(a, resp.brokers[i].rack)};
        gr_table_row(&table, row);
    }
    gr_table_print(&table, stdout);
    return GR_ADMIN_EXIT_OK;
}
