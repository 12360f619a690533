/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin configs for client quotas (DescribeClientQuotas,
 * AlterClientQuotas), with kafka-configs.sh's options:
 *
 *   configs --alter --entity-type clients --entity-name C
 *           --add-config 'producer_byte_rate=1024,consumer_byte_rate=2048'
 *   configs --alter --entity-type users --entity-name U [--entity-type clients
 *           --entity-name C] --delete-config producer_byte_rate
 *   configs --describe --entity-type clients [--entity-name C | --entity-default]
 *
 * Each --entity-name or --entity-default belongs to the --entity-type before
 * it; --user U / --client C / --user-defaults / --client-defaults are the
 * shorthands. "describe" and "alter" also work as words, as for topics.
 * Describe prints kafka-configs.sh's lines ("Quota configs for client-id 'C'
 * are producer_byte_rate=1024.0"), one per matching entity.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "gen/alter_client_quotas.h"
#include "gen/describe_client_quotas.h"

#define PARTS_MAX     2 /* user and client id */
#define OPS_MAX       16
#define QUOTA_API_MAX 1
#define MATCH_EXACT   0
#define MATCH_DEFAULT 1
#define MATCH_ANY     2

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT configs --describe|--alter [options]\n"
    "  --entity-type clients|users [--entity-name NAME | --entity-default] (repeatable:\n"
    "  users then clients), or --user U / --client C / --user-defaults / --client-defaults\n"
    "  --alter: [--add-config k=v,...] [--delete-config k,...] [--validate-only]\n"
    "  keys: producer_byte_rate, consumer_byte_rate, request_percentage\n";

static const char *const subcommands[] = {"describe", "alter", NULL};

/* One part of the entity named on the command line. */
typedef struct part {
    const char *type; /* "user" or "client-id" */
    const char *name; /* NULL: the default (is_set) or any (!is_set) */
    bool is_set;      /* a name or the default was given */
} part_t;

static const char *wire_type(const char *entity_type)
{
    if (strcmp(entity_type, "clients") == 0 || strcmp(entity_type, "client") == 0)
        return "client-id";
    if (strcmp(entity_type, "users") == 0 || strcmp(entity_type, "user") == 0)
        return "user";
    return NULL;
}

static int add_part(part_t *parts, int *n, const char *type)
{
    if (*n >= PARTS_MAX || !type) {
        fprintf(stderr, "error: --entity-type must be users or clients, at most once each\n");
        return -1;
    }
    parts[(*n)++] = (part_t){.type = type};
    return 0;
}

/* Reads the entity options in command-line order into parts. Returns the count or -1. */
static int read_parts(const gr_admin_options_t *o, part_t *parts)
{
    int n = 0;
    for (int i = 0; i < o->count; i++) {
        const char *name = o->items[i].name, *value = o->items[i].value;
        part_t *last = n ? &parts[n - 1] : NULL;
        int rc = 0;
        if (strcmp(name, "entity-type") == 0) {
            rc = add_part(parts, &n, value ? wire_type(value) : NULL);
        } else if ((strcmp(name, "entity-name") == 0 || strcmp(name, "entity-default") == 0) &&
                   last && !last->is_set) {
            last->name = value;
            last->is_set = true;
        } else if (strcmp(name, "user") == 0 || strcmp(name, "client") == 0 ||
                   strcmp(name, "user-defaults") == 0 || strcmp(name, "client-defaults") == 0) {
            rc = add_part(parts, &n, name[0] == 'u' ? "user" : "client-id");
            if (rc == 0) {
                parts[n - 1].name = value; /* NULL for the --*-defaults flags */
                parts[n - 1].is_set = true;
            }
        } else if (strcmp(name, "entity-name") == 0 || strcmp(name, "entity-default") == 0) {
            fprintf(stderr, "error: --%s must follow its --entity-type\n", name);
            rc = -1;
        }
        if (rc)
            return -1;
    }
    for (int i = 1; i < n; i++)
        if (strcmp(parts[i].type, parts[0].type) == 0)
            return add_part(parts, &n, NULL);
    return n;
}

/* "user-principal 'U', client-id 'C'" (kafka-configs.sh's words) into out. */
static void describe_entity(const gr_describe_client_quotas_response_entry_data_t *e, char *out,
                            size_t len)
{
    out[0] = '\0';
    for (int pass = 0; pass < PARTS_MAX; pass++) /* users first, then client ids */
        for (int32_t i = 0; i < e->entity_count; i++) {
            bool user = gr_str_eq_c(e->entity[i].entity_type, "user");
            if (user != (pass == 0))
                continue;
            const char *word = user ? "user-principal" : "client-id";
            size_t used = strlen(out);
            gr_str_t name = e->entity[i].entity_name;
            if (name.ptr)
                snprintf(out + used, len - used, "%s%s '%.*s'", used ? ", " : "", word,
                         (int)name.len, name.ptr);
            else
                snprintf(out + used, len - used, "%sthe default %s", used ? ", " : "", word);
        }
}

static void print_entry(const gr_describe_client_quotas_response_entry_data_t *e)
{
    char who[GR_ADMIN_ADDR_MAX * 2];
    describe_entity(e, who, sizeof who);
    printf("Quota configs for %s are ", who);
    for (int32_t i = 0; i < e->values_count; i++) {
        double v = e->values[i].value;
        /* Java prints a double with at least one decimal: 1024.0 */
        if (v == (double)(long long)v)
            printf("%s%.*s=%.1f", i ? ", " : "", (int)e->values[i].key.len, e->values[i].key.ptr,
                   v);
        else
            printf("%s%.*s=%g", i ? ", " : "", (int)e->values[i].key.len, e->values[i].key.ptr, v);
    }
    printf("\n");
}

static int quotas_describe(gr_admin_t *a, const part_t *parts, int n)
{
    gr_describe_client_quotas_request_component_data_t comps[PARTS_MAX];
    for (int i = 0; i < n; i++) {
        gr_describe_client_quotas_request_component_data_init(&comps[i]);
        comps[i].entity_type = gr_str(parts[i].type);
        comps[i].match_type = !parts[i].is_set ? MATCH_ANY
                              : parts[i].name  ? MATCH_EXACT
                                               : MATCH_DEFAULT;
        comps[i].match = gr_str(parts[i].is_set ? parts[i].name : NULL);
    }
    int16_t v = gr_admin_version(a, GR_API_DESCRIBE_CLIENT_QUOTAS, QUOTA_API_MAX);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_describe_client_quotas_request_t req;
    gr_describe_client_quotas_request_init(&req);
    req.components = comps;
    req.components_count = n;
    req.strict = true; /* kafka-configs.sh's ClientQuotaFilter.containsOnly */
    gr_describe_client_quotas_response_t resp;
    if (gr_admin_call(a, GR_API_DESCRIBE_CLIENT_QUOTAS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.error_code) {
        gr_admin_report("quotas", resp.error_code, resp.error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    for (int32_t i = 0; i < resp.entries_count; i++)
        print_entry(&resp.entries[i]);
    return GR_ADMIN_EXIT_OK;
}

/* Splits "k=v,k2=v2" (set) or "k,k2" (remove) into ops. Returns 0 or -1 (message printed). */
static int split_ops(gr_admin_t *a, const char *spec, bool remove,
                     gr_alter_client_quotas_request_op_data_t *ops, int *n)
{
    char *copy = gr_arena_strndup(&a->arena, spec, strlen(spec));
    for (char *p = copy, *next; p && *p; p = next) {
        next = strchr(p, ',');
        if (next)
            *next++ = '\0';
        if (*n >= OPS_MAX) {
            fprintf(stderr, "error: too many quota changes\n");
            return -1;
        }
        gr_alter_client_quotas_request_op_data_t *op = &ops[(*n)++];
        gr_alter_client_quotas_request_op_data_init(op);
        op->remove = remove;
        char *eq = strchr(p, '=');
        if (!remove) {
            char *end = NULL;
            if (eq)
                op->value = strtod(eq + 1, &end);
            if (!eq || end == eq + 1 || *end) {
                fprintf(stderr, "error: --add-config wants key=number, got '%s'\n", p);
                return -1;
            }
            *eq = '\0';
        }
        op->key = gr_str(p);
    }
    return 0;
}

static void print_altered(const gr_alter_client_quotas_response_entry_data_t *e)
{
    gr_describe_client_quotas_response_entry_data_t d = {0};
    gr_describe_client_quotas_response_entity_data_t parts[PARTS_MAX];
    for (int32_t i = 0; i < e->entity_count && i < PARTS_MAX; i++) {
        parts[i].entity_type = e->entity[i].entity_type;
        parts[i].entity_name = e->entity[i].entity_name;
        d.entity_count++;
    }
    d.entity = parts;
    char who[GR_ADMIN_ADDR_MAX * 2];
    describe_entity(&d, who, sizeof who);
    printf("Completed updating config for %s.\n", who);
}

static int quotas_alter(gr_admin_t *a, const part_t *parts, int n)
{
    gr_alter_client_quotas_request_op_data_t ops[OPS_MAX];
    int count = 0;
    const char *add = gr_admin_opt(a->opts, "add-config");
    const char *del = gr_admin_opt(a->opts, "delete-config");
    if ((!add && !del) || (add && split_ops(a, add, false, ops, &count)) ||
        (del && split_ops(a, del, true, ops, &count))) {
        fprintf(stderr, "error: give --add-config k=v,... and/or --delete-config k,...\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    gr_alter_client_quotas_request_entity_data_t entity[PARTS_MAX];
    for (int i = 0; i < n; i++) {
        if (!parts[i].is_set) {
            fprintf(stderr, "error: --alter needs --entity-name or --entity-default\n");
            return GR_ADMIN_EXIT_USAGE;
        }
        entity[i].entity_type = gr_str(parts[i].type);
        entity[i].entity_name = gr_str(parts[i].name);
    }
    int16_t v = gr_admin_version(a, GR_API_ALTER_CLIENT_QUOTAS, QUOTA_API_MAX);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_alter_client_quotas_request_entry_data_t entry = {
        .entity = entity, .entity_count = n, .ops = ops, .ops_count = count};
    gr_alter_client_quotas_request_t req;
    gr_alter_client_quotas_request_init(&req);
    req.entries = &entry;
    req.entries_count = 1;
    req.validate_only = gr_admin_flag(a->opts, "validate-only");
    gr_alter_client_quotas_response_t resp;
    if (gr_admin_call(a, GR_API_ALTER_CLIENT_QUOTAS, v, &req, &resp) || resp.entries_count != 1)
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.entries[0].error_code) {
        gr_admin_report("quotas", resp.entries[0].error_code, resp.entries[0].error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    print_altered(&resp.entries[0]);
    return GR_ADMIN_EXIT_OK;
}

bool gr_admin_configs_is_quota(const gr_admin_t *a)
{
    const gr_admin_options_t *o = a->opts;
    const char *add = gr_admin_opt(o, "add-config");
    const char *del = gr_admin_opt(o, "delete-config");
    /* SCRAM credentials of users are another command's (cmd_configs_users.c). */
    if ((add && strstr(add, "SCRAM-")) || (del && strstr(del, "SCRAM-")))
        return false;
    for (int i = 0; i < o->count; i++) {
        const char *name = o->items[i].name, *value = o->items[i].value;
        if ((strcmp(name, "entity-type") == 0 && value && wire_type(value)) ||
            strcmp(name, "user") == 0 || strcmp(name, "client") == 0 ||
            strcmp(name, "user-defaults") == 0 || strcmp(name, "client-defaults") == 0)
            return true;
    }
    return false;
}

int gr_admin_cmd_configs_quotas(gr_admin_t *a)
{
    /* kafka-configs.sh style (--describe / --alter) or ours (a subcommand word). */
    bool flags = a->opts->word_count == 1;
    int rc = gr_admin_begin(a, help, flags ? NULL : subcommands);
    if (rc >= 0)
        return rc;
    bool describe = flags ? gr_admin_flag(a->opts, "describe") : gr_admin_is(a, "describe");
    bool alter = flags ? gr_admin_flag(a->opts, "alter") : gr_admin_is(a, "alter");
    part_t parts[PARTS_MAX];
    int n = read_parts(a->opts, parts);
    if (n <= 0 || describe == alter) {
        fputs(help, stderr);
        return GR_ADMIN_EXIT_USAGE;
    }
    if (!describe)
        return quotas_alter(a, parts, n);
    rc = quotas_describe(a, parts, n);
    /* kafka-configs.sh shows a user's SCRAM credentials beside its quotas. */
    bool users_only = n == 1 && strcmp(parts[0].type, "user") == 0;
    if (rc == GR_ADMIN_EXIT_OK && users_only && !(parts[0].is_set && !parts[0].name))
        rc = gr_admin_configs_users(a, true);
    return rc;
}
