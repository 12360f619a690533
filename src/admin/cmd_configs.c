/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin configs: describe (DescribeConfigs) and alter
 * (IncrementalAlterConfigs) of a topic, a group, a broker or a broker's
 * loggers. Options follow kafka-configs.sh: --entity-type
 * topics|groups|brokers|broker-loggers --entity-name NAME, --add-config
 * k=v,k2=[a,b] and --delete-config k,k2; describe lists the values not at
 * their default unless --all; --entity-default with brokers is the
 * cluster-wide default (name ""). Broker loggers and configs are asked of
 * the broker named, found in the bootstrap broker's Metadata, as Kafka's
 * admin client does: each broker answers only for its own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "admin/config_file.h"
#include "gen/common.h"
#include "gen/describe_configs.h"
#include "gen/incremental_alter_configs.h"

#define CHANGES_MAX    64
#define DESCRIBE_MAX_V 4
#define ALTER_MAX_V    1

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT configs SUBCOMMAND [options] [--json]\n"
    "  describe --entity-type topics|groups|brokers|broker-loggers --entity-name NAME [--all]\n"
    "           (or --topic T / --group G / --broker N / --broker-logger N instead of the two\n"
    "           entity options) values set on the topic, group or broker (--all: every key,\n"
    "           defaults included); broker-loggers: every logger of broker N and its level\n"
    "  alter --entity-type topics|groups|brokers|broker-loggers --entity-name NAME\n"
    "        [--add-config k=v,k2=[a,b] | --add-config-file F] [--delete-config k,k2]\n"
    "        [--validate-only]\n"
    "        (brokers: --entity-default instead of --entity-name for the cluster-wide\n"
    "        default; the keys changed live are listed in docs/operations.md)\n"
    "  alter --entity-type users --entity-name USER\n"
    "        [--add-config 'SCRAM-SHA-256=[iterations=4096,password=P]'] [--delete-config MECH]\n"
    "  describe --entity-type users [--entity-name USER]   SCRAM mechanisms and iterations\n"
    "(--describe / --alter instead of the word, as kafka-configs.sh spells them)\n";

static const char *const subcommands[] = {"describe", "alter", NULL};

static const char *const source_names[] = {
    "UNKNOWN",
    "DYNAMIC_TOPIC_CONFIG",
    "DYNAMIC_BROKER_CONFIG",
    "DYNAMIC_DEFAULT_BROKER_CONFIG",
    "STATIC_BROKER_CONFIG",
    "DEFAULT_CONFIG",
    "DYNAMIC_BROKER_LOGGER_CONFIG",
    "CLIENT_METRICS_CONFIG",
    "GROUP_CONFIG",
};

static const char *source_name(int8_t s)
{
    return s >= 0 && (size_t)s < sizeof source_names / sizeof source_names[0] ? source_names[s]
                                                                              : "UNKNOWN";
}

static int entity(gr_admin_t *a, int8_t *type, const char **name)
{
    /* kafka-configs.sh's shorthands: --topic T, --broker N. */
    if ((*name = gr_admin_opt(a->opts, "topic"))) {
        *type = GR_CONFIG_RESOURCE_TYPE_TOPIC;
        return 0;
    }
    if ((*name = gr_admin_opt(a->opts, "group"))) {
        *type = GR_CONFIG_RESOURCE_TYPE_GROUP;
        return 0;
    }
    if ((*name = gr_admin_opt(a->opts, "broker"))) {
        *type = GR_CONFIG_RESOURCE_TYPE_BROKER;
        return 0;
    }
    if ((*name = gr_admin_opt(a->opts, "broker-logger"))) {
        *type = GR_CONFIG_RESOURCE_TYPE_BROKER_LOGGER;
        return 0;
    }
    const char *t = gr_admin_need(a, "entity-type");
    bool brokers = t && (strcmp(t, "brokers") == 0 || strcmp(t, "broker") == 0);
    /* kafka-configs.sh's --entity-default of brokers: the cluster-wide default, name "". */
    bool dflt = brokers && gr_admin_flag(a->opts, "entity-default");
    *name = dflt ? "" : gr_admin_need(a, "entity-name");
    if (!t || !*name)
        return -1;
    if (strcmp(t, "topics") == 0 || strcmp(t, "topic") == 0)
        *type = GR_CONFIG_RESOURCE_TYPE_TOPIC;
    else if (strcmp(t, "brokers") == 0 || strcmp(t, "broker") == 0)
        *type = GR_CONFIG_RESOURCE_TYPE_BROKER;
    else if (strcmp(t, "groups") == 0 || strcmp(t, "group") == 0)
        *type = GR_CONFIG_RESOURCE_TYPE_GROUP;
    else if (strcmp(t, "broker-loggers") == 0 || strcmp(t, "broker-logger") == 0)
        *type = GR_CONFIG_RESOURCE_TYPE_BROKER_LOGGER;
    else {
        fprintf(stderr,
                "error: --entity-type must be topics, groups, brokers or broker-loggers, got "
                "'%s'\n",
                t);
        return -1;
    }
    return 0;
}

/*
 * A broker's loggers and configs are asked of that broker: moves the
 * connection there when name is a broker Metadata lists (else the
 * bootstrap broker answers, with Kafka's error for a name not its own; ""
 * for the cluster default goes to any broker). 0, or -1 (printed).
 */
static int route_broker(gr_admin_t *a, int8_t type, const char *name)
{
    char *end;
    if (type != GR_CONFIG_RESOURCE_TYPE_BROKER_LOGGER && type != GR_CONFIG_RESOURCE_TYPE_BROKER)
        return 0;
    long id = strtol(name, &end, 10);
    if (*name == '\0' || *end != '\0' || id < 0 || id > INT32_MAX)
        return 0;
    gr_admin_broker_t broker;
    if (gr_admin_broker_find(a, (int32_t)id, &broker))
        return -1;
    return gr_admin_move_to(a, broker.addr);
}

static int cmp_entry(const void *x, const void *y)
{
    const gr_describe_configs_response_describe_configs_resource_result_t *a = x, *b = y;
    int n = a->name.len < b->name.len ? a->name.len : b->name.len;
    int c = memcmp(a->name.ptr, b->name.ptr, (size_t)(n > 0 ? n : 0));
    return c ? c : a->name.len - b->name.len;
}

/* The source a key set on this kind of entity has (-1: every source counts). */
static int dynamic_source(int8_t type)
{
    switch (type) {
    case GR_CONFIG_RESOURCE_TYPE_TOPIC:
        return GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_TOPIC_CONFIG;
    case GR_CONFIG_RESOURCE_TYPE_BROKER:
        return GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_BROKER_CONFIG;
    case GR_CONFIG_RESOURCE_TYPE_GROUP:
        return GR_DESCRIBE_CONFIGS_SOURCE_GROUP_CONFIG;
    default:
        return -1;
    }
}

static const char *entity_word(int8_t type)
{
    switch (type) {
    case GR_CONFIG_RESOURCE_TYPE_TOPIC:
        return "topic";
    case GR_CONFIG_RESOURCE_TYPE_BROKER:
        return "broker";
    case GR_CONFIG_RESOURCE_TYPE_GROUP:
        return "group";
    default:
        return "broker-logger";
    }
}

/*
 * kafka-configs.sh --describe's own output: a title line, then
 * "  k=v sensitive=B synonyms={SOURCE:k=v, ...}" per key in name order,
 * only the keys set on the entity itself unless --all.
 */
static void print_kafka_describe(gr_admin_t *a, int8_t type, const char *name,
                                 gr_describe_configs_response_describe_configs_result_t *r)
{
    bool all = gr_admin_flag(a->opts, "all");
    int source = all ? -1 : dynamic_source(type);
    if (type == GR_CONFIG_RESOURCE_TYPE_BROKER && !*name) { /* the cluster-wide default */
        source = all ? -1 : GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG;
        printf("Default configs for brokers in the cluster are:\n");
    } else {
        printf("%s configs for %s %s are:\n", all ? "All" : "Dynamic", entity_word(type), name);
    }
    if (r->configs_count > 0)
        qsort(r->configs, (size_t)r->configs_count, sizeof *r->configs, cmp_entry);
    for (int32_t i = 0; i < r->configs_count; i++) {
        gr_describe_configs_response_describe_configs_resource_result_t *c = &r->configs[i];
        if (source >= 0 && c->config_source != source)
            continue;
        printf("  %s=%s sensitive=%s synonyms={", gr_admin_text(a, c->name),
               c->value.len < 0 ? "null" : gr_admin_text(a, c->value),
               c->is_sensitive ? "true" : "false");
        for (int32_t k = 0; k < c->synonyms_count; k++)
            printf("%s%s:%s=%s", k ? ", " : "", source_name(c->synonyms[k].source),
                   gr_admin_text(a, c->synonyms[k].name),
                   c->synonyms[k].value.len < 0 ? "null" : gr_admin_text(a, c->synonyms[k].value));
        printf("}\n");
    }
}

static int configs_describe(gr_admin_t *a)
{
    int8_t type;
    const char *name;
    if (entity(a, &type, &name))
        return GR_ADMIN_EXIT_USAGE;
    if (route_broker(a, type, name))
        return GR_ADMIN_EXIT_TRANSPORT;
    int16_t v = gr_admin_version(a, GR_API_DESCRIBE_CONFIGS, DESCRIBE_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_describe_configs_request_t req;
    gr_describe_configs_request_init(&req);
    gr_describe_configs_request_describe_configs_resource_t res;
    gr_describe_configs_request_describe_configs_resource_init(&res);
    res.resource_type = type;
    res.resource_name = gr_str(name);
    res.configuration_keys_null = true;
    req.include_synonyms = a->kafka_tool; /* kafka-configs.sh prints them */
    req.resources = &res;
    req.resources_count = 1;
    gr_describe_configs_response_t resp;
    if (gr_admin_call(a, GR_API_DESCRIBE_CONFIGS, v, &req, &resp) || resp.results_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_describe_configs_response_describe_configs_result_t *r = &resp.results[0];
    if (r->error_code) {
        gr_admin_report(name, r->error_code, r->error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    if (a->kafka_tool && !a->json) {
        print_kafka_describe(a, type, name, r);
        return GR_ADMIN_EXIT_OK;
    }
    bool all = gr_admin_flag(a->opts, "all");
    const char *headers[] = {"NAME", "VALUE", "SOURCE", "READ-ONLY"};
    gr_table_t table;
    gr_table_init(&table, headers, 4);
    int n = 0;
    if (a->json)
        printf("[");
    for (int32_t i = 0; i < r->configs_count; i++) {
        gr_describe_configs_response_describe_configs_resource_result_t *c = &r->configs[i];
        if (!all && c->config_source == GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG)
            continue;
        if (a->json) {
            printf("%s{\"name\":", n++ ? "," : "");
            gr_json_strn(stdout, c->name.ptr, c->name.len);
            printf(",\"value\":");
            gr_json_strn(stdout, c->value.ptr, c->value.len);
            printf(",\"source\":\"%s\",\"read_only\":%s,\"sensitive\":%s}",
                   source_name(c->config_source), c->read_only ? "true" : "false",
                   c->is_sensitive ? "true" : "false");
            continue;
        }
        const char *row[] = {gr_admin_text(a, c->name),
                             c->value.len < 0 ? "null" : gr_admin_text(a, c->value),
                             source_name(c->config_source), c->read_only ? "true" : "false"};
        gr_table_row(&table, row);
    }
    if (a->json)
        printf("]\n");
    else
        gr_table_print(&table, stdout);
    return GR_ADMIN_EXIT_OK;
}

/* Splits "k=v,k2=[a,b]" (or "k,k2" when with_values is false) into changes. */
static int split_changes(gr_admin_t *a, const char *spec, int8_t op,
                         gr_incremental_alter_configs_request_alterable_config_t *out, int *n)
{
    char *copy = gr_arena_strndup(&a->arena, spec, strlen(spec));
    char *p = copy;
    while (p && *p) {
        char *end = p;
        int depth = 0;
        while (*end && (*end != ',' || depth)) {
            depth += *end == '[' ? 1 : *end == ']' ? -1 : 0;
            end++;
        }
        char *next = *end ? end + 1 : NULL;
        *end = '\0';
        if (*n >= CHANGES_MAX)
            return -1;
        gr_incremental_alter_configs_request_alterable_config_t *c = &out[(*n)++];
        gr_incremental_alter_configs_request_alterable_config_init(c);
        c->config_operation = op;
        char *eq = strchr(p, '=');
        if (op == GR_ALTER_CONFIG_OP_SET) {
            if (!eq) {
                fprintf(stderr, "error: --add-config wants key=value, got '%s'\n", p);
                return -1;
            }
            *eq = '\0';
            char *value = eq + 1;
            size_t len = strlen(value);
            if (len >= 2 && value[0] == '[' && value[len - 1] == ']') {
                value[len - 1] = '\0';
                value++;
            }
            c->value = gr_str(value);
        } else {
            c->value = gr_str(NULL);
        }
        c->name = gr_str(p);
        p = next;
    }
    return 0;
}

static int configs_alter(gr_admin_t *a)
{
    int8_t type;
    const char *name;
    if (entity(a, &type, &name))
        return GR_ADMIN_EXIT_USAGE;
    gr_incremental_alter_configs_request_alterable_config_t changes[CHANGES_MAX];
    int n = 0;
    const char *add = gr_admin_opt(a->opts, "add-config");
    const char *del = gr_admin_opt(a->opts, "delete-config");
    const char *file = gr_admin_opt(a->opts, "add-config-file");
    if (file && add) { /* Kafka's rule and words */
        fprintf(stderr, "error: Only one of --add-config or --add-config-file must be specified\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    if (file && gr_admin_config_file_changes(a, file, changes, CHANGES_MAX, &n))
        return GR_ADMIN_EXIT_USAGE;
    if ((!add && !del && !file) ||
        (add && split_changes(a, add, GR_ALTER_CONFIG_OP_SET, changes, &n)) ||
        (del && split_changes(a, del, GR_ALTER_CONFIG_OP_DELETE, changes, &n))) {
        fprintf(stderr, "error: give --add-config k=v,... and/or --delete-config k,...\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    if (route_broker(a, type, name))
        return GR_ADMIN_EXIT_TRANSPORT;
    int16_t v = gr_admin_version(a, GR_API_INCREMENTAL_ALTER_CONFIGS, ALTER_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_incremental_alter_configs_request_t req;
    gr_incremental_alter_configs_request_init(&req);
    gr_incremental_alter_configs_request_alter_configs_resource_t res;
    gr_incremental_alter_configs_request_alter_configs_resource_init(&res);
    res.resource_type = type;
    res.resource_name = gr_str(name);
    res.configs = changes;
    res.configs_count = n;
    req.resources = &res;
    req.resources_count = 1;
    req.validate_only = gr_admin_flag(a->opts, "validate-only");
    gr_incremental_alter_configs_response_t resp;
    if (gr_admin_call(a, GR_API_INCREMENTAL_ALTER_CONFIGS, v, &req, &resp) ||
        resp.responses_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    int16_t code = resp.responses[0].error_code;
    if (a->json) {
        printf("{\"entity\":");
        gr_json_str(stdout, name);
        printf(",\"error\":");
        gr_json_str(stdout, code ? gr_kerr_name(code) : NULL);
        printf(",\"message\":");
        gr_json_strn(stdout, resp.responses[0].error_message.ptr,
                     resp.responses[0].error_message.len);
        printf("}\n");
    } else if (!code && type == GR_CONFIG_RESOURCE_TYPE_BROKER && !*name) {
        printf("Completed updating default config for brokers in the cluster.\n");
    } else if (!code) {
        printf("Completed updating config for %s %s.\n",
               type == GR_CONFIG_RESOURCE_TYPE_TOPIC           ? "topic"
               : type == GR_CONFIG_RESOURCE_TYPE_GROUP         ? "group"
               : type == GR_CONFIG_RESOURCE_TYPE_BROKER_LOGGER ? "broker-logger"
                                                               : "broker",
               name);
    }
    if (code) {
        if (!a->json)
            gr_admin_report(name, code, resp.responses[0].error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    return GR_ADMIN_EXIT_OK;
}

int gr_admin_cmd_configs(gr_admin_t *a)
{
    const char *type = gr_admin_opt(a->opts, "entity-type");
    bool users = type && (strcmp(type, "users") == 0 || strcmp(type, "user") == 0);
    if (gr_admin_opt(a->opts, "add-config-file") && (users || gr_admin_configs_is_quota(a))) {
        fprintf(stderr, "error: --add-config-file is taken for topics, brokers, broker-loggers "
                        "and groups only; use --add-config\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    if (gr_admin_configs_is_quota(a))
        return gr_admin_cmd_configs_quotas(a);
    /* Our subcommand words, or kafka-configs.sh's --describe / --alter. */
    const gr_admin_options_t *o = a->opts;
    bool flags = o->word_count == 1 && gr_admin_flag(o, "describe") != gr_admin_flag(o, "alter");
    int rc = gr_admin_begin(a, help, flags ? NULL : subcommands);
    if (rc >= 0)
        return rc;
    bool describe = flags ? gr_admin_flag(o, "describe") : gr_admin_is(a, "describe");
    if (users)
        return gr_admin_configs_users(a, describe);
    return describe ? configs_describe(a) : configs_alter(a);
}
