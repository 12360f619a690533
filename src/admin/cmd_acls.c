/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin acls --add | --list | --remove, as kafka-acls.sh has them:
 * resources from --topic, --group, --cluster, --transactional-id (each
 * repeatable) with --resource-pattern-type; entries from --allow-principal /
 * --deny-principal x --allow-host / --deny-host (default *) x --operation
 * (default All); --producer and --consumer add the operations those clients
 * need. --add sends CreateAcls, --remove DeleteAcls (no prompt: Gregor's tool
 * never asks, --force is accepted), --list DescribeAcls; each prints what it
 * did in kafka-acls.sh's format, then the resource's current ACLs.
 */
#include <stdio.h>
#include <string.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "gen/create_acls.h"
#include "gen/delete_acls.h"
#include "gen/describe_acls.h"
#include "security/acl.h"

#define ACLS_MAX_V        3
#define RESOURCES_MAX     32
#define ENTRIES_MAX       256
#define OPTION_VALUES_MAX 32

static const char help[] =
    "usage: gregor-admin --bootstrap-server HOST:PORT acls (--add | --list | --remove)\n"
    "  resources: --topic T | --group G | --cluster | --transactional-id ID (repeatable)\n"
    "             [--resource-pattern-type literal|prefixed (--list/--remove: also any, match)]\n"
    "  entries:   --allow-principal User:NAME [--allow-host H] --deny-principal ... [--deny-host "
    "H]\n"
    "             --operation OP (repeatable; default All) | --producer | --consumer "
    "[--idempotent]\n"
    "  --remove asks nothing (--force is accepted, as kafka-acls.sh takes it)\n";

typedef struct resource {
    gr_acl_resource_type_t type;
    const char *name;
} resource_t;

typedef struct entry {
    const char *principal;
    const char *host;
    gr_acl_operation_t op;
    gr_acl_permission_t permission;
} entry_t;

typedef struct acl_cmd {
    gr_admin_t *a;
    resource_t resources[RESOURCES_MAX];
    int resource_count;
    gr_acl_pattern_t pattern;
    entry_t entries[ENTRIES_MAX];
    int entry_count;
} acl_cmd_t;

static void add_resources(acl_cmd_t *c, const char *option, gr_acl_resource_type_t type)
{
    const char *names[OPTION_VALUES_MAX];
    int n = gr_admin_opt_all(c->a->opts, option, names, OPTION_VALUES_MAX);
    for (int i = 0; i < n && c->resource_count < RESOURCES_MAX; i++)
        c->resources[c->resource_count++] = (resource_t){type, names[i]};
}

static int read_resources(acl_cmd_t *c)
{
    add_resources(c, "topic", GR_ACL_RESOURCE_TYPE_TOPIC);
    add_resources(c, "group", GR_ACL_RESOURCE_TYPE_GROUP);
    add_resources(c, "transactional-id", GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID);
    if (gr_admin_flag(c->a->opts, "cluster") && c->resource_count < RESOURCES_MAX)
        c->resources[c->resource_count++] =
            (resource_t){GR_ACL_RESOURCE_TYPE_CLUSTER, GR_ACL_CLUSTER_NAME};
    const char *pattern = gr_admin_opt(c->a->opts, "resource-pattern-type");
    c->pattern = pattern ? gr_acl_pattern_parse(pattern) : GR_ACL_PATTERN_LITERAL;
    if (c->pattern == GR_ACL_PATTERN_UNKNOWN) {
        fprintf(stderr, "error: --resource-pattern-type %s: use literal or prefixed\n", pattern);
        return -1;
    }
    return 0;
}

static void add_entry(acl_cmd_t *c, const char *principal, const char *host, gr_acl_operation_t op,
                      gr_acl_permission_t permission)
{
    if (c->entry_count < ENTRIES_MAX)
        c->entries[c->entry_count++] = (entry_t){principal, host, op, permission};
}

/* The operations asked for, or those --producer / --consumer imply for a resource type. */
static int operations_for(acl_cmd_t *c, gr_acl_resource_type_t type, gr_acl_operation_t *ops)
{
    const gr_admin_options_t *o = c->a->opts;
    int n = 0;
    bool topic = type == GR_ACL_RESOURCE_TYPE_TOPIC;
    if (gr_admin_flag(o, "producer")) {
        if (topic) {
            ops[n++] = GR_ACL_OPERATION_WRITE;
            ops[n++] = GR_ACL_OPERATION_DESCRIBE;
            ops[n++] = GR_ACL_OPERATION_CREATE;
        } else if (type == GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID) {
            ops[n++] = GR_ACL_OPERATION_WRITE;
            ops[n++] = GR_ACL_OPERATION_DESCRIBE;
        } else if (type == GR_ACL_RESOURCE_TYPE_CLUSTER && gr_admin_flag(o, "idempotent")) {
            ops[n++] = GR_ACL_OPERATION_IDEMPOTENT_WRITE;
        }
    }
    if (gr_admin_flag(o, "consumer")) {
        if (topic) {
            ops[n++] = GR_ACL_OPERATION_READ;
            ops[n++] = GR_ACL_OPERATION_DESCRIBE;
        } else if (type == GR_ACL_RESOURCE_TYPE_GROUP) {
            ops[n++] = GR_ACL_OPERATION_READ;
        }
    }
    if (gr_admin_flag(o, "producer") || gr_admin_flag(o, "consumer"))
        return n;
    const char *names[OPTION_VALUES_MAX];
    int count = gr_admin_opt_all(o, "operation", names, OPTION_VALUES_MAX);
    for (int i = 0; i < count; i++)
        if ((ops[n++] = gr_acl_op_parse(names[i])) <= GR_ACL_OPERATION_ANY) {
            fprintf(stderr, "error: --operation %s is not an ACL operation\n", names[i]);
            return -1;
        }
    if (n == 0)
        ops[n++] = GR_ACL_OPERATION_ALL;
    return n;
}

/* The entries for one resource: principals x hosts x operations, allow then deny. */
static int read_entries(acl_cmd_t *c, gr_acl_resource_type_t type)
{
    static const char *const kinds[] = {"allow", "deny"};
    const gr_acl_permission_t perms[] = {GR_ACL_PERMISSION_ALLOW, GR_ACL_PERMISSION_DENY};
    gr_acl_operation_t ops[OPTION_VALUES_MAX + 8];
    int op_count = operations_for(c, type, ops);
    if (op_count < 0)
        return -1;
    c->entry_count = 0;
    for (int k = 0; k < 2; k++) {
        char option[32];
        const char *principals[OPTION_VALUES_MAX], *hosts[OPTION_VALUES_MAX];
        snprintf(option, sizeof option, "%s-principal", kinds[k]);
        int np = gr_admin_opt_all(c->a->opts, option, principals, OPTION_VALUES_MAX);
        snprintf(option, sizeof option, "%s-host", kinds[k]);
        int nh = gr_admin_opt_all(c->a->opts, option, hosts, OPTION_VALUES_MAX);
        if (nh == 0)
            hosts[nh++] = GR_ACL_WILDCARD;
        for (int p = 0; p < np; p++)
            for (int h = 0; h < nh; h++)
                for (int i = 0; i < op_count; i++)
                    add_entry(c, principals[p], hosts[h], ops[i], perms[k]);
    }
    return 0;
}

static void print_pattern(gr_acl_resource_type_t type, const char *name, gr_acl_pattern_t p)
{
    printf("ResourcePattern(resourceType=%s, name=%s, patternType=%s)",
           gr_acl_resource_type_name(type), name, gr_acl_pattern_name(p));
}

static void print_entry(const char *principal, const char *host, int op, int perm)
{
    printf(" \t(principal=%s, host=%s, operation=%s, permissionType=%s) \n", principal, host,
           gr_acl_op_name(op), gr_acl_permission_name(perm));
}

/* --- --list ---------------------------------------------------------------------------- */

static gr_str_t opt_str(const char *s)
{
    return s ? gr_str(s) : (gr_str_t){NULL, GR_NULL_LEN};
}

/* DescribeAcls for a resource (name NULL: every one of the type) and prints the answer. */
static int list(acl_cmd_t *c, gr_acl_resource_type_t type, const char *name, gr_acl_pattern_t p)
{
    int16_t v = gr_admin_version(c->a, GR_API_DESCRIBE_ACLS, ACLS_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    gr_describe_acls_request_t req;
    gr_describe_acls_request_init(&req);
    req.resource_type_filter = (int8_t)type;
    req.resource_name_filter = opt_str(name);
    req.pattern_type_filter = (int8_t)p;
    req.principal_filter = opt_str(NULL);
    req.host_filter = opt_str(NULL);
    req.operation = GR_ACL_OPERATION_ANY;
    req.permission_type = GR_ACL_PERMISSION_ANY;
    gr_describe_acls_response_t resp;
    if (gr_admin_call(c->a, GR_API_DESCRIBE_ACLS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    if (resp.error_code) {
        gr_admin_report("acls", resp.error_code, resp.error_message);
        return GR_ADMIN_EXIT_FAILED;
    }
    for (int32_t i = 0; i < resp.resources_count; i++) {
        const gr_describe_acls_response_describe_acls_resource_t *r = &resp.resources[i];
        printf("Current ACLs for resource `");
        print_pattern(r->resource_type, gr_admin_text(c->a, r->resource_name), r->pattern_type);
        printf("`: \n");
        for (int32_t k = 0; k < r->acls_count; k++)
            print_entry(gr_admin_text(c->a, r->acls[k].principal),
                        gr_admin_text(c->a, r->acls[k].host), r->acls[k].operation,
                        r->acls[k].permission_type);
        printf("\n");
    }
    return GR_ADMIN_EXIT_OK;
}

static int list_all(acl_cmd_t *c)
{
    const char *pattern = gr_admin_opt(c->a->opts, "resource-pattern-type");
    if (c->resource_count == 0)
        return list(c, GR_ACL_RESOURCE_TYPE_ANY, NULL, pattern ? c->pattern : GR_ACL_PATTERN_ANY);
    int rc = GR_ADMIN_EXIT_OK;
    for (int i = 0; i < c->resource_count && rc == GR_ADMIN_EXIT_OK; i++)
        rc = list(c, c->resources[i].type, c->resources[i].name, c->pattern);
    return rc;
}

/* --- --add ----------------------------------------------------------------------------- */

static int add_one(acl_cmd_t *c, const resource_t *r, int16_t v)
{
    gr_create_acls_request_acl_creation_t creations[ENTRIES_MAX];
    printf("Adding ACLs for resource `");
    print_pattern(r->type, r->name, c->pattern);
    printf("`: \n");
    for (int i = 0; i < c->entry_count; i++) {
        const entry_t *e = &c->entries[i];
        gr_create_acls_request_acl_creation_init(&creations[i]);
        creations[i] =
            (gr_create_acls_request_acl_creation_t){.resource_type = (int8_t)r->type,
                                                    .resource_name = gr_str(r->name),
                                                    .resource_pattern_type = (int8_t)c->pattern,
                                                    .principal = gr_str(e->principal),
                                                    .host = gr_str(e->host),
                                                    .operation = (int8_t)e->op,
                                                    .permission_type = (int8_t)e->permission};
        print_entry(e->principal, e->host, e->op, e->permission);
    }
    printf("\n");
    gr_create_acls_request_t req;
    gr_create_acls_request_init(&req);
    req.creations = creations;
    req.creations_count = c->entry_count;
    gr_create_acls_response_t resp;
    if (gr_admin_call(c->a, GR_API_CREATE_ACLS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    int rc = GR_ADMIN_EXIT_OK;
    for (int32_t i = 0; i < resp.results_count; i++)
        if (resp.results[i].error_code) {
            gr_admin_report("acls --add", resp.results[i].error_code,
                            resp.results[i].error_message);
            rc = GR_ADMIN_EXIT_FAILED;
        }
    return rc;
}

/* --- --remove -------------------------------------------------------------------------- */

/* One filter per entry; without principals, one that removes every ACL of the resource. */
static int remove_one(acl_cmd_t *c, const resource_t *r, int16_t v)
{
    gr_delete_acls_request_delete_acls_filter_t filters[ENTRIES_MAX];
    int count = c->entry_count ? c->entry_count : 1;
    for (int i = 0; i < count; i++) {
        const entry_t *e = c->entry_count ? &c->entries[i] : NULL;
        gr_delete_acls_request_delete_acls_filter_init(&filters[i]);
        filters[i].resource_type_filter = (int8_t)r->type;
        filters[i].resource_name_filter = gr_str(r->name);
        filters[i].pattern_type_filter = (int8_t)c->pattern;
        filters[i].principal_filter = opt_str(e ? e->principal : NULL);
        filters[i].host_filter = opt_str(e ? e->host : NULL);
        filters[i].operation = (int8_t)(e ? e->op : GR_ACL_OPERATION_ANY);
        filters[i].permission_type = (int8_t)(e ? e->permission : GR_ACL_PERMISSION_ANY);
    }
    gr_delete_acls_request_t req;
    gr_delete_acls_request_init(&req);
    req.filters = filters;
    req.filters_count = count;
    gr_delete_acls_response_t resp;
    if (gr_admin_call(c->a, GR_API_DELETE_ACLS, v, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    int rc = GR_ADMIN_EXIT_OK;
    for (int32_t i = 0; i < resp.filter_results_count; i++) {
        const gr_delete_acls_response_delete_acls_filter_result_t *f = &resp.filter_results[i];
        if (f->error_code) {
            gr_admin_report("acls --remove", f->error_code, f->error_message);
            rc = GR_ADMIN_EXIT_FAILED;
        }
        for (int32_t k = 0; k < f->matching_acls_count; k++) {
            const gr_delete_acls_response_delete_acls_matching_acl_t *m = &f->matching_acls[k];
            printf("Removed ACL ");
            print_pattern(m->resource_type, gr_admin_text(c->a, m->resource_name), m->pattern_type);
            print_entry(gr_admin_text(c->a, m->principal), gr_admin_text(c->a, m->host),
                        m->operation, m->permission_type);
            if (m->error_code) {
                gr_admin_report("acls --remove", m->error_code, m->error_message);
                rc = GR_ADMIN_EXIT_FAILED;
            }
        }
    }
    return rc;
}

/* --add or --remove on every resource, each followed by its current ACLs. */
static int change_all(acl_cmd_t *c, bool add)
{
    if (c->resource_count == 0) {
        fprintf(stderr, "error: name a resource (--topic, --group, --cluster, "
                        "--transactional-id)\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    int16_t v = gr_admin_version(c->a, add ? GR_API_CREATE_ACLS : GR_API_DELETE_ACLS, ACLS_MAX_V);
    if (v < 0)
        return GR_ADMIN_EXIT_TRANSPORT;
    int rc = GR_ADMIN_EXIT_OK;
    for (int i = 0; i < c->resource_count; i++) {
        if (read_entries(c, c->resources[i].type) < 0)
            return GR_ADMIN_EXIT_USAGE;
        if (add && c->entry_count == 0)
            continue; /* --producer on a group: nothing for it */
        int one = add ? add_one(c, &c->resources[i], v) : remove_one(c, &c->resources[i], v);
        if (one == GR_ADMIN_EXIT_OK)
            one = list(c, c->resources[i].type, c->resources[i].name, c->pattern);
        if (one != GR_ADMIN_EXIT_OK)
            rc = one;
    }
    return rc;
}

int gr_admin_cmd_acls(gr_admin_t *a)
{
    const gr_admin_options_t *o = a->opts;
    int rc = gr_admin_check(a, help, NULL);
    if (rc >= 0)
        return rc;
    int actions = gr_admin_flag(o, "add") + gr_admin_flag(o, "list") + gr_admin_flag(o, "remove");
    acl_cmd_t c = {.a = a};
    if (actions != 1 || read_resources(&c) < 0) {
        fputs(help, stderr);
        return GR_ADMIN_EXIT_USAGE;
    }
    if (gr_admin_flag(o, "add") &&
        (c.pattern != GR_ACL_PATTERN_LITERAL && c.pattern != GR_ACL_PATTERN_PREFIXED)) {
        fprintf(stderr, "error: --add takes --resource-pattern-type literal or prefixed\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    rc = gr_admin_open(a);
    if (rc >= 0)
        return rc;
    if (gr_admin_flag(o, "list"))
        return list_all(&c);
    return change_all(&c, gr_admin_flag(o, "add"));
}
