/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka-consumer-groups.sh --describe over several groups: --all-groups
 * (every consumer group any broker lists) or --group given more than once.
 * Kafka's tool describes them in group id order, each as it describes one,
 * so the command runs once per group with --group set to it.
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/groups.h"
#include "gen/list_groups.h"

#define EACH_GROUPS_MAX        4096
#define EACH_BROKERS_MAX       256
#define EACH_LIST_GROUPS_V     4
#define EACH_CONSUMER_PROTOCOL "consumer"

static bool listed(const char *const *ids, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp(ids[i], id) == 0)
            return true;
    return false;
}

/* Adds the consumer groups the connected broker lists. New count, or -1 (printed). */
static int list_here(gr_admin_t *a, const char **ids, int n)
{
    int16_t v = gr_admin_version(a, GR_API_LIST_GROUPS, EACH_LIST_GROUPS_V);
    if (v < 0)
        return -1;
    gr_list_groups_request_t req;
    gr_list_groups_request_init(&req);
    gr_list_groups_response_t resp;
    if (gr_admin_call(a, GR_API_LIST_GROUPS, v, &req, &resp))
        return -1;
    if (resp.error_code) {
        gr_admin_report("groups", resp.error_code, gr_str(NULL));
        return -1;
    }
    for (int32_t i = 0; i < resp.groups_count && n < EACH_GROUPS_MAX; i++) {
        gr_str_t protocol = resp.groups[i].protocol_type;
        bool consumer = protocol.len <= 0 ||
                        (protocol.len == (int32_t)strlen(EACH_CONSUMER_PROTOCOL) &&
                         memcmp(protocol.ptr, EACH_CONSUMER_PROTOCOL, (size_t)protocol.len) == 0);
        char *id = gr_admin_text(a, resp.groups[i].group_id);
        if (consumer && id && !listed(ids, n, id))
            ids[n++] = id;
    }
    return n;
}

/* Every consumer group of the cluster: each broker lists the groups it coordinates. */
static int all_groups(gr_admin_t *a, const char **ids)
{
    gr_admin_broker_t *brokers = gr_arena_alloc(&a->arena, EACH_BROKERS_MAX * sizeof *brokers);
    int count = brokers ? gr_admin_brokers(a, brokers, EACH_BROKERS_MAX) : -1;
    int n = 0;
    for (int b = 0; b < count && n >= 0; b++)
        n = gr_admin_move_to(a, brokers[b].addr) ? -1 : list_here(a, ids, n);
    return count < 0 ? -1 : n;
}

static int cmp_id(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int gr_admin_groups_each(gr_admin_t *a, int (*run)(gr_admin_t *a))
{
    const char **ids = gr_arena_alloc(&a->arena, EACH_GROUPS_MAX * sizeof *ids);
    if (!ids)
        return GR_ADMIN_EXIT_TRANSPORT;
    bool all = gr_admin_flag(a->opts, "all-groups");
    int n = gr_admin_opt_all(a->opts, "group", ids, EACH_GROUPS_MAX);
    if (all && n > 0) {
        fprintf(stderr, "error: give --all-groups or --group, not both\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    if (!all && n <= 1)
        return run(a);
    if (all && (n = all_groups(a, ids)) < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    qsort(ids, (size_t)n, sizeof *ids, cmp_id);
    const gr_admin_options_t *given = a->opts;
    gr_admin_options_t *each = gr_arena_alloc(&a->arena, sizeof *each);
    if (!each)
        return GR_ADMIN_EXIT_TRANSPORT;
    int rc = GR_ADMIN_EXIT_OK;
    for (int i = 0; i < n; i++) {
        *each = *given;
        bool set = false;
        for (int k = 0; k < each->count; k++)
            if (strcmp(each->items[k].name, "group") == 0) {
                each->items[k].value = ids[i];
                set = true;
            }
        if (!set && each->count < GR_ADMIN_OPTIONS_MAX)
            each->items[each->count++] = (gr_admin_opt_t){"group", ids[i]};
        a->opts = each;
        int one = run(a);
        a->opts = given;
        rc = one > rc ? one : rc;
    }
    return rc;
}
