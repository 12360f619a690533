/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin topics: list, describe (Metadata and the overrides from
 * DescribeConfigs), create (CreateTopics), delete (DeleteTopics), alter /
 * add-partitions (CreatePartitions). Options follow kafka-topics.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "metadata/zk_json.h"
#include "gen/common.h"
#include "gen/create_partitions.h"
#include "gen/create_topics.h"
#include "gen/delete_topics.h"
#include "gen/describe_configs.h"
#include "gen/metadata.h"

#define TOPICS_TIMEOUT_MS   30000
#define CONFIGS_MAX         64
#define METADATA_MAX_V      12
#define CREATE_TOPICS_MAX_V 7
#define DELETE_TOPICS_MAX_V 5 /* names as topic_names; v6 names topics[] */
#define CREATE_PARTS_MAX_V  3
#define DESCRIBE_CONFIGS_V  1
#define MIN_ISR_KEY         "min.insync.replicas"

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT topics SUBCOMMAND [options] [--json]\n"
    "  list                                   every topic with its partition count\n"
    "  describe [--topic T]                   partitions, leaders, replicas, ISR, overrides\n"
    "         [--under-replicated-partitions]  only partitions whose ISR lacks a replica\n"
    "         [--unavailable-partitions]       only partitions without a live leader\n"
    "         [--under-min-isr-partitions]     only partitions whose ISR is below\n"
    "                                          min.insync.replicas (or without a leader)\n"
    "         [--at-min-isr-partitions]        only partitions whose ISR is at it\n"
    "         [--topics-with-overrides]        only topics with configs of their own\n"
    "  create --topic T [--partitions N] [--replication-factor R]\n"
    "         [--config k=v]... [--if-not-exists] [--validate-only]\n"
    "  delete --topic T [--if-exists]\n"
    "  alter --topic T --partitions N         grow to N partitions (also: add-partitions)\n";

static const char *const subcommands[] = {"list",  "describe",       "create", "delete",
                                          "alter", "add-partitions", NULL};

static int fetch_metadata(gr_admin_t *a, const char *topic, gr_metadata_response_t *resp)
{
    int16_t v = gr_admin_version(a, GR_API_METADATA, METADATA_MAX_V);
    if (v < 0)
        return -1;
    gr_metadata_request_t req;
    gr_metadata_request_init(&req);
    gr_metadata_request_metadata_request_topic_t t;
    gr_metadata_request_metadata_request_topic_init(&t);
    t.name = gr_str(topic);
    req.topics = topic ? &t : NULL;
    req.topics_count = topic ? 1 : 0;
    req.topics_null = !topic; /* null: every topic */
    req.allow_auto_topic_creation = false;
    return gr_admin_call(a, GR_API_METADATA, v, &req, resp);
}

static int cmp_topic(const void *x, const void *y)
{
    const gr_metadata_response_metadata_response_topic_t *a = x, *b = y;
    int n = a->name.len < b->name.len ? a->name.len : b->name.len;
    int c = memcmp(a->name.ptr, b->name.ptr, (size_t)(n > 0 ? n : 0));
    return c ? c : a->name.len - b->name.len;
}

static int topics_list(gr_admin_t *a)
{
    gr_metadata_response_t md;
    if (fetch_metadata(a, NULL, &md))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (md.topics_count > 0)
        qsort(md.topics, (size_t)md.topics_count, sizeof(*md.topics), cmp_topic);
    if (a->json) {
        printf("[");
        for (int32_t i = 0; i < md.topics_count; i++) {
            gr_metadata_response_metadata_response_topic_t *t = &md.topics[i];
            printf("%s{\"topic\":", i ? "," : "");
            gr_json_strn(stdout, t->name.ptr, t->name.len);
            printf(",\"partitions\":%d,\"replication_factor\":%d,\"internal\":%s}",
                   t->partitions_count,
                   t->partitions_count > 0 ? t->partitions[0].replica_nodes_count : 0,
                   t->is_internal ? "true" : "false");
        }
        printf("]\n");
        return GR_ADMIN_EXIT_OK;
    }
    if (a->kafka_tool) { /* kafka-topics.sh --list: the names alone */
        bool exclude_internal = gr_admin_flag(a->opts, "exclude-internal");
        for (int32_t i = 0; i < md.topics_count; i++)
            if (!(exclude_internal && md.topics[i].is_internal))
                printf("%.*s\n", md.topics[i].name.len, md.topics[i].name.ptr);
        return GR_ADMIN_EXIT_OK;
    }
    const char *headers[] = {"TOPIC", "PARTITIONS", "REPLICATION-FACTOR"};
    gr_table_t table;
    gr_table_init(&table, headers, 3);
    for (int32_t i = 0; i < md.topics_count; i++) {
        gr_metadata_response_metadata_response_topic_t *t = &md.topics[i];
        char parts[16], rf[16];
        snprintf(parts, sizeof parts, "%d", t->partitions_count);
        snprintf(rf, sizeof rf, "%d",
                 t->partitions_count > 0 ? t->partitions[0].replica_nodes_count : 0);
        const char *row[] = {gr_admin_text(a, t->name), parts, rf};
        gr_table_row(&table, row);
    }
    gr_table_print(&table, stdout);
    return GR_ADMIN_EXIT_OK;
}

/* The topic's overrides (DescribeConfigs entries with source DYNAMIC_TOPIC_CONFIG). */
static int topic_overrides(gr_admin_t *a, gr_str_t name,
                           gr_describe_configs_response_describe_configs_result_t **out)
{
    int16_t v = gr_admin_version(a, GR_API_DESCRIBE_CONFIGS, DESCRIBE_CONFIGS_V);
    if (v < 0)
        return -1;
    gr_describe_configs_request_t req;
    gr_describe_configs_request_init(&req);
    gr_describe_configs_request_describe_configs_resource_t res;
    gr_describe_configs_request_describe_configs_resource_init(&res);
    res.resource_type = GR_CONFIG_RESOURCE_TYPE_TOPIC;
    res.resource_name = name;
    res.configuration_keys_null = true;
    req.resources = &res;
    req.resources_count = 1;
    gr_describe_configs_response_t *resp = gr_arena_alloc(&a->arena, sizeof(*resp));
    if (!resp || gr_admin_call(a, GR_API_DESCRIBE_CONFIGS, v, &req, resp) ||
        resp->results_count != 1)
        return -1;
    *out = &resp->results[0];
    return 0;
}

static void print_ints(const int32_t *v, int32_t n, char *buf, size_t len, bool json)
{
    size_t used = (size_t)snprintf(buf, len, "%s", json ? "[" : "");
    for (int32_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "", v[i]);
    if (json && used < len)
        snprintf(buf + used, len - used, "]");
}

/* Which partitions describe shows: all, or those --under-replicated-partitions /
 * --unavailable-partitions / --under-min-isr-partitions / --at-min-isr-partitions select. */
typedef struct describe_filter {
    bool under_replicated, unavailable, under_min_isr, at_min_isr;
    int32_t min_isr;                  /* the topic's min.insync.replicas (min-ISR filters) */
    const gr_metadata_response_t *md; /* its brokers are the live ones */
} describe_filter_t;

static bool filter_on(const describe_filter_t *f)
{
    return f->under_replicated || f->unavailable || f->under_min_isr || f->at_min_isr;
}

/* As kafka-topics.sh: under-replicated when the ISR is smaller than the
 * replica list; unavailable when there is no leader or it is not live;
 * under min ISR when there is no leader or the ISR is smaller than
 * min.insync.replicas; at min ISR when it is that size. */
static bool shown(const describe_filter_t *f,
                  const gr_metadata_response_metadata_response_partition_t *part)
{
    if (!filter_on(f))
        return true;
    if (f->under_replicated && part->isr_nodes_count < part->replica_nodes_count)
        return true;
    if (f->under_min_isr && (part->leader_id < 0 || part->isr_nodes_count < f->min_isr))
        return true;
    if (f->at_min_isr && part->isr_nodes_count == f->min_isr)
        return true;
    if (!f->unavailable)
        return false;
    bool live = false;
    for (int32_t i = 0; i < f->md->brokers_count && part->leader_id >= 0; i++)
        live |= f->md->brokers[i].node_id == part->leader_id;
    return !live;
}

/* The topic's min.insync.replicas, from its DescribeConfigs (1 when absent). */
static int32_t min_isr_of(const gr_describe_configs_response_describe_configs_result_t *conf)
{
    for (int32_t i = 0; conf && i < conf->configs_count; i++)
        if (conf->configs[i].name.len == (int32_t)strlen(MIN_ISR_KEY) &&
            memcmp(conf->configs[i].name.ptr, MIN_ISR_KEY, strlen(MIN_ISR_KEY)) == 0 &&
            conf->configs[i].value.ptr) {
            char text[16];
            snprintf(text, sizeof text, "%.*s", (int)conf->configs[i].value.len,
                     conf->configs[i].value.ptr);
            return (int32_t)strtol(text, NULL, 10);
        }
    return 1;
}

/* Whether the topic has a config of its own (what --topics-with-overrides lists). */
static bool has_overrides(const gr_describe_configs_response_describe_configs_result_t *conf)
{
    for (int32_t i = 0; conf && i < conf->configs_count; i++)
        if (conf->configs[i].config_source == GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_TOPIC_CONFIG)
            return true;
    return false;
}

static void describe_json(gr_admin_t *a, gr_metadata_response_metadata_response_topic_t *t,
                          gr_describe_configs_response_describe_configs_result_t *conf, bool first,
                          const describe_filter_t *filter)
{
    char uuid[GR_UUID_STRING_CHARS + 1], reps[256], isr[256], offline[256];
    gr_uuid_format(t->topic_id, uuid);
    printf("%s{\"topic\":", first ? "" : ",");
    gr_json_strn(stdout, t->name.ptr, t->name.len);
    printf(",\"topic_id\":\"%s\",\"partitions\":[", uuid);
    int shown_count = 0;
    for (int32_t p = 0; p < t->partitions_count; p++) {
        gr_metadata_response_metadata_response_partition_t *part = &t->partitions[p];
        if (!shown(filter, part))
            continue;
        print_ints(part->replica_nodes, part->replica_nodes_count, reps, sizeof reps, true);
        print_ints(part->isr_nodes, part->isr_nodes_count, isr, sizeof isr, true);
        print_ints(part->offline_replicas, part->offline_replicas_count, offline, sizeof offline,
                   true);
        printf("%s{\"partition\":%d,\"leader\":%d,\"replicas\":%s,\"isr\":%s,\"offline\":%s}",
               shown_count++ ? "," : "", part->partition_index, part->leader_id, reps, isr,
               offline);
    }
    printf("],\"configs\":{");
    int n = 0;
    for (int32_t i = 0; conf && i < conf->configs_count; i++) {
        if (conf->configs[i].config_source != GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_TOPIC_CONFIG)
            continue;
        printf("%s", n++ ? "," : "");
        gr_json_strn(stdout, conf->configs[i].name.ptr, conf->configs[i].name.len);
        printf(":");
        gr_json_strn(stdout, conf->configs[i].value.ptr, conf->configs[i].value.len);
    }
    printf("}}");
    (void)a;
}

static const char *const partition_headers[] = {"TOPIC",    "PARTITION", "LEADER",
                                                "REPLICAS", "ISR",       "OFFLINE"};
#define PARTITION_COLS 6

/* The topic's partitions that filter shows, as rows of table. */
static void partition_rows(gr_admin_t *a, gr_metadata_response_metadata_response_topic_t *t,
                           const describe_filter_t *filter, gr_table_t *table)
{
    for (int32_t p = 0; p < t->partitions_count; p++) {
        gr_metadata_response_metadata_response_partition_t *part = &t->partitions[p];
        if (!shown(filter, part))
            continue;
        char idx[16], leader[16], reps[256], isr[256], offline[256];
        snprintf(idx, sizeof idx, "%d", part->partition_index);
        if (part->leader_id < 0)
            snprintf(leader, sizeof leader, "Offline");
        else
            snprintf(leader, sizeof leader, "%d", part->leader_id);
        print_ints(part->replica_nodes, part->replica_nodes_count, reps, sizeof reps, false);
        print_ints(part->isr_nodes, part->isr_nodes_count, isr, sizeof isr, false);
        print_ints(part->offline_replicas, part->offline_replicas_count, offline, sizeof offline,
                   false);
        if (a->kafka_tool) { /* kafka-topics.sh's line (ELR: none in ZooKeeper mode) */
            printf("\tTopic: %s\tPartition: %s\tLeader: %s\tReplicas: %s\tIsr: %s"
                   "\tElr: N/A\tLastKnownElr: N/A\n",
                   gr_admin_text(a, t->name), idx, part->leader_id < 0 ? "none" : leader, reps,
                   isr);
            continue;
        }
        const char *row[] = {gr_admin_text(a, t->name), idx, leader, reps, isr, offline};
        gr_table_row(table, row);
    }
}

static void describe_table(gr_admin_t *a, gr_metadata_response_metadata_response_topic_t *t,
                           gr_describe_configs_response_describe_configs_result_t *conf,
                           bool partitions)
{
    char uuid[GR_UUID_STRING_CHARS + 1];
    gr_uuid_format(t->topic_id, uuid);
    printf("Topic: %s\tTopicId: %s\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: ",
           gr_admin_text(a, t->name), uuid, t->partitions_count,
           t->partitions_count > 0 ? t->partitions[0].replica_nodes_count : 0);
    int n = 0;
    for (int32_t i = 0; conf && i < conf->configs_count; i++)
        if (conf->configs[i].config_source == GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_TOPIC_CONFIG)
            printf("%s%s=%s", n++ ? "," : "", gr_admin_text(a, conf->configs[i].name),
                   gr_admin_text(a, conf->configs[i].value));
    printf("\n");
    if (!partitions) /* --topics-with-overrides: the topic lines alone */
        return;
    gr_table_t table;
    gr_table_init(&table, partition_headers, PARTITION_COLS);
    describe_filter_t all = {.md = NULL};
    partition_rows(a, t, &all, &table);
    if (!a->kafka_tool) /* (its lines printed: the table has no rows, nothing allocated) */
        gr_table_print(&table, stdout);
}

static int topics_describe(gr_admin_t *a)
{
    const char *name = gr_admin_opt(a->opts, "topic");
    gr_metadata_response_t md;
    if (fetch_metadata(a, name, &md))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (md.topics_count > 0)
        qsort(md.topics, (size_t)md.topics_count, sizeof(*md.topics), cmp_topic);
    describe_filter_t filter = {
        .under_replicated = gr_admin_flag(a->opts, "under-replicated-partitions"),
        .unavailable = gr_admin_flag(a->opts, "unavailable-partitions"),
        .under_min_isr = gr_admin_flag(a->opts, "under-min-isr-partitions"),
        .at_min_isr = gr_admin_flag(a->opts, "at-min-isr-partitions"),
        .md = &md,
    };
    bool overrides_only = gr_admin_flag(a->opts, "topics-with-overrides");
    /* Filtered, as kafka-topics.sh: only the partitions, in one table. */
    gr_table_t selected;
    gr_table_init(&selected, partition_headers, PARTITION_COLS);
    int rc = GR_ADMIN_EXIT_OK;
    if (a->json)
        printf("[");
    bool first = true;
    for (int32_t i = 0; i < md.topics_count; i++) {
        gr_metadata_response_metadata_response_topic_t *t = &md.topics[i];
        if (t->error_code) {
            gr_admin_report(gr_admin_text(a, t->name), t->error_code, gr_str(NULL));
            rc = GR_ADMIN_EXIT_FAILED;
            continue;
        }
        gr_describe_configs_response_describe_configs_result_t *conf = NULL;
        bool min_isr = filter.under_min_isr || filter.at_min_isr;
        if ((min_isr || overrides_only || !filter_on(&filter) || a->json) &&
            topic_overrides(a, t->name, &conf))
            return GR_ADMIN_EXIT_TRANSPORT;
        filter.min_isr = min_isr_of(conf);
        bool any = false;
        for (int32_t p = 0; p < t->partitions_count; p++)
            any |= shown(&filter, &t->partitions[p]);
        if (!any && filter_on(&filter))
            continue;
        if (!a->json && filter_on(&filter)) {
            partition_rows(a, t, &filter, &selected);
            continue;
        }
        if (overrides_only && !has_overrides(conf))
            continue;
        if (a->json)
            describe_json(a, t, conf, first, &filter);
        else
            describe_table(a, t, conf, !overrides_only);
        first = false;
    }
    if (a->json)
        printf("]\n");
    else if (selected.count > 0) /* (no rows: nothing allocated) */
        gr_table_print(&selected, stdout);
    return rc;
}

/* Prints one per-topic outcome; returns the exit code it implies. */
static int topic_outcome(gr_admin_t *a, const char *topic, int16_t code, gr_str_t msg,
                         const char *done, int16_t tolerated)
{
    bool ok = code == 0 || code == tolerated;
    if (a->json) {
        printf("{\"topic\":");
        gr_json_str(stdout, topic);
        printf(",\"error\":");
        gr_json_str(stdout, code ? gr_kerr_name(code) : NULL);
        printf(",\"message\":");
        gr_json_strn(stdout, msg.ptr, msg.len);
        printf("}\n");
    } else if (code == 0 && (!a->kafka_tool || strcmp(done, "Created") == 0)) {
        /* kafka-topics.sh confirms a creation only; --delete and --alter print nothing. */
        printf("%s topic %s.\n", done, topic);
    }
    if (!ok && !a->json)
        gr_admin_report(topic, code, msg);
    return ok ? GR_ADMIN_EXIT_OK : GR_ADMIN_EXIT_FAILED;
}

/* The first topic's error code, which tells whether the request reached the controller. */
static int16_t create_error(const void *resp)
{
    const gr_create_topics_response_t *r = resp;
    return r->topics_count > 0 ? r->topics[0].error_code : 0;
}

static int16_t delete_error(const void *resp)
{
    const gr_delete_topics_response_t *r = resp;
    return r->responses_count > 0 ? r->responses[0].error_code : 0;
}

static int16_t grow_error(const void *resp)
{
    const gr_create_partitions_response_t *r = resp;
    return r->results_count > 0 ? r->results[0].error_code : 0;
}

static int topics_create(gr_admin_t *a)
{
    const char *topic = gr_admin_need(a, "topic");
    int64_t parts = -1, rf = -1;
    if (!topic || gr_admin_opt_long(a->opts, "partitions", &parts) < 0 ||
        gr_admin_opt_long(a->opts, "replication-factor", &rf) < 0)
        return GR_ADMIN_EXIT_USAGE;
    const char *pairs[CONFIGS_MAX];
    int n = gr_admin_opt_all(a->opts, "config", pairs, CONFIGS_MAX);
    gr_create_topics_request_createable_topic_config_t configs[CONFIGS_MAX];
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(pairs[i], '=');
        if (!eq) {
            fprintf(stderr, "error: --config wants key=value, got '%s'\n", pairs[i]);
            return GR_ADMIN_EXIT_USAGE;
        }
        configs[i].name = (gr_str_t){pairs[i], (int32_t)(eq - pairs[i])};
        configs[i].value = gr_str(eq + 1);
    }
    if (strpbrk(topic, "._"))
        fprintf(stderr, "WARNING: topic names with a period ('.') or underscore ('_') may "
                        "collide (metric names treat them alike); avoid mixing both.\n");
    gr_create_topics_request_t req;
    gr_create_topics_request_init(&req);
    gr_create_topics_request_creatable_topic_t t;
    gr_create_topics_request_creatable_topic_init(&t);
    t.name = gr_str(topic);
    t.num_partitions = (int32_t)parts;
    t.replication_factor = (int16_t)rf;
    t.configs = configs;
    t.configs_count = n;
    req.topics = &t;
    req.topics_count = 1;
    req.timeout_ms = TOPICS_TIMEOUT_MS;
    req.validate_only = gr_admin_flag(a->opts, "validate-only");
    gr_create_topics_response_t resp;
    if (gr_admin_controller_call(a, GR_API_CREATE_TOPICS, CREATE_TOPICS_MAX_V, &req, &resp,
                                 create_error) ||
        resp.topics_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    return topic_outcome(a, topic, resp.topics[0].error_code, resp.topics[0].error_message,
                         req.validate_only ? "Validated" : "Created",
                         gr_admin_flag(a->opts, "if-not-exists") ? GR_KERR_TOPIC_ALREADY_EXISTS
                                                                 : 0);
}

static int topics_delete(gr_admin_t *a)
{
    const char *topic = gr_admin_need(a, "topic");
    if (!topic)
        return GR_ADMIN_EXIT_USAGE;
    gr_delete_topics_request_t req;
    gr_delete_topics_request_init(&req);
    gr_str_t name = gr_str(topic);
    req.topic_names = &name;
    req.topic_names_count = 1;
    req.timeout_ms = TOPICS_TIMEOUT_MS;
    gr_delete_topics_response_t resp;
    if (gr_admin_controller_call(a, GR_API_DELETE_TOPICS, DELETE_TOPICS_MAX_V, &req, &resp,
                                 delete_error) ||
        resp.responses_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    return topic_outcome(
        a, topic, resp.responses[0].error_code, resp.responses[0].error_message, "Deleted",
        gr_admin_flag(a->opts, "if-exists") ? GR_KERR_UNKNOWN_TOPIC_OR_PARTITION : 0);
}

static int topics_grow(gr_admin_t *a)
{
    const char *topic = gr_admin_need(a, "topic");
    int64_t count = -1;
    if (!topic || gr_admin_opt_long(a->opts, "partitions", &count) != 0) {
        fprintf(stderr, "error: --topic T --partitions N are required\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    gr_create_partitions_request_t req;
    gr_create_partitions_request_init(&req);
    gr_create_partitions_request_create_partitions_topic_t t;
    gr_create_partitions_request_create_partitions_topic_init(&t);
    t.name = gr_str(topic);
    t.count = (int32_t)count;
    t.assignments_null = true;
    req.topics = &t;
    req.topics_count = 1;
    req.timeout_ms = TOPICS_TIMEOUT_MS;
    req.validate_only = gr_admin_flag(a->opts, "validate-only");
    gr_create_partitions_response_t resp;
    if (gr_admin_controller_call(a, GR_API_CREATE_PARTITIONS, CREATE_PARTS_MAX_V, &req, &resp,
                                 grow_error) ||
        resp.results_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    return topic_outcome(a, topic, resp.results[0].error_code, resp.results[0].error_message,
                         "Added partitions to", 0);
}

int gr_admin_cmd_topics(gr_admin_t *a)
{
    int rc = gr_admin_begin(a, help, subcommands);
    if (rc >= 0)
        return rc;
    if (gr_admin_is(a, "list"))
        return topics_list(a);
    if (gr_admin_is(a, "describe"))
        return topics_describe(a);
    if (gr_admin_is(a, "create"))
        return topics_create(a);
    if (gr_admin_is(a, "delete"))
        return topics_delete(a);
    return topics_grow(a);
}
