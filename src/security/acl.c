/* SPDX-License-Identifier: Apache-2.0 */
/* The ACL decision, filters, validation and binding sets: see acl.h. */
#include "security/acl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BIT(op)         (1 << (op))
#define SET_INITIAL_CAP 16

/* The operations each resource type supports (ALL aside), as bits; Kafka's table. */
static int32_t supported_ops(gr_acl_resource_type_t t)
{
    switch (t) {
    case GR_ACL_RESOURCE_TYPE_TOPIC:
        return BIT(GR_ACL_OPERATION_READ) | BIT(GR_ACL_OPERATION_WRITE) |
               BIT(GR_ACL_OPERATION_CREATE) | BIT(GR_ACL_OPERATION_DESCRIBE) |
               BIT(GR_ACL_OPERATION_DELETE) | BIT(GR_ACL_OPERATION_ALTER) |
               BIT(GR_ACL_OPERATION_DESCRIBE_CONFIGS) | BIT(GR_ACL_OPERATION_ALTER_CONFIGS);
    case GR_ACL_RESOURCE_TYPE_GROUP:
        return BIT(GR_ACL_OPERATION_READ) | BIT(GR_ACL_OPERATION_DESCRIBE) |
               BIT(GR_ACL_OPERATION_DELETE);
    case GR_ACL_RESOURCE_TYPE_CLUSTER:
        return BIT(GR_ACL_OPERATION_CREATE) | BIT(GR_ACL_OPERATION_CLUSTER_ACTION) |
               BIT(GR_ACL_OPERATION_DESCRIBE_CONFIGS) | BIT(GR_ACL_OPERATION_ALTER_CONFIGS) |
               BIT(GR_ACL_OPERATION_IDEMPOTENT_WRITE) | BIT(GR_ACL_OPERATION_ALTER) |
               BIT(GR_ACL_OPERATION_DESCRIBE);
    case GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID:
        return BIT(GR_ACL_OPERATION_DESCRIBE) | BIT(GR_ACL_OPERATION_WRITE);
    case GR_ACL_RESOURCE_TYPE_DELEGATION_TOKEN:
        return BIT(GR_ACL_OPERATION_DESCRIBE);
    case GR_ACL_RESOURCE_TYPE_USER:
        return BIT(GR_ACL_OPERATION_CREATE_TOKENS) | BIT(GR_ACL_OPERATION_DESCRIBE_TOKENS);
    default:
        return 0;
    }
}

/* The operations whose ALLOW also allows op (op itself included). */
static int32_t allowing_ops(gr_acl_operation_t op)
{
    if (op == GR_ACL_OPERATION_DESCRIBE)
        return BIT(GR_ACL_OPERATION_DESCRIBE) | BIT(GR_ACL_OPERATION_READ) |
               BIT(GR_ACL_OPERATION_WRITE) | BIT(GR_ACL_OPERATION_DELETE) |
               BIT(GR_ACL_OPERATION_ALTER);
    if (op == GR_ACL_OPERATION_DESCRIBE_CONFIGS)
        return BIT(GR_ACL_OPERATION_DESCRIBE_CONFIGS) | BIT(GR_ACL_OPERATION_ALTER_CONFIGS);
    return BIT(op);
}

static bool is_super_user(const gr_acl_policy_t *policy, const char *principal)
{
    for (size_t i = 0; i < policy->super_user_count; i++)
        if (strcmp(policy->super_users[i], principal) == 0)
            return true;
    return false;
}

/* Whether a's pattern covers the resource named name (name_len bytes). */
static bool covers(const gr_acl_binding_t *a, gr_acl_resource_type_t type, const char *name,
                   size_t name_len)
{
    if (a->type != type)
        return false;
    size_t len = strlen(a->name);
    if (a->pattern == GR_ACL_PATTERN_PREFIXED)
        return len <= name_len && memcmp(a->name, name, len) == 0;
    if (strcmp(a->name, GR_ACL_WILDCARD) == 0)
        return true;
    return len == name_len && memcmp(a->name, name, len) == 0;
}

static bool entry_applies(const gr_acl_binding_t *a, const gr_acl_query_t *q)
{
    return (strcmp(a->principal, q->principal) == 0 ||
            strcmp(a->principal, GR_ACL_USER_WILDCARD) == 0) &&
           (strcmp(a->host, GR_ACL_WILDCARD) == 0 || strcmp(a->host, q->host) == 0);
}

bool gr_acl_decide(const gr_acl_policy_t *policy, const gr_acl_set_t *set, const gr_acl_query_t *q)
{
    if (is_super_user(policy, q->principal))
        return true;
    bool any_acl = false, allowed = false;
    int32_t allowing = allowing_ops(q->op);
    for (size_t i = 0; i < set->count; i++) {
        const gr_acl_binding_t *a = &set->items[i];
        if (!covers(a, q->type, q->name, q->name_len))
            continue;
        any_acl = true;
        if (!entry_applies(a, q))
            continue;
        bool all = a->op == GR_ACL_OPERATION_ALL;
        if (a->permission == GR_ACL_PERMISSION_DENY && (all || a->op == q->op))
            return false; /* DENY wins over any ALLOW */
        if (a->permission == GR_ACL_PERMISSION_ALLOW && (all || (BIT(a->op) & allowing)))
            allowed = true;
    }
    return any_acl ? allowed : policy->allow_if_no_acl;
}

int32_t gr_acl_authorized_ops(const gr_acl_policy_t *policy, const gr_acl_set_t *set,
                              const gr_acl_query_t *q)
{
    int32_t supported = supported_ops(q->type);
    if (!policy)
        return supported;
    int32_t ops = 0;
    gr_acl_query_t each = *q;
    for (int op = 0; op < GR_ACL_OPERATION_COUNT; op++) {
        each.op = (gr_acl_operation_t)op;
        if ((supported & BIT(op)) && gr_acl_decide(policy, set, &each))
            ops |= BIT(op);
    }
    return ops;
}

static bool name_matches(const gr_acl_filter_t *f, const gr_acl_binding_t *a)
{
    size_t len = strlen(a->name);
    bool equal = len == f->name_len && memcmp(a->name, f->name, len) == 0;
    if (f->pattern != GR_ACL_PATTERN_MATCH || f->pattern == a->pattern)
        return equal;
    if (a->pattern == GR_ACL_PATTERN_PREFIXED)
        return len <= f->name_len && memcmp(a->name, f->name, len) == 0;
    return equal || strcmp(a->name, GR_ACL_WILDCARD) == 0;
}

bool gr_acl_filter_matches(const gr_acl_filter_t *f, const gr_acl_binding_t *a)
{
    if (f->type != GR_ACL_RESOURCE_TYPE_ANY && f->type != a->type)
        return false;
    if (f->pattern != GR_ACL_PATTERN_ANY && f->pattern != GR_ACL_PATTERN_MATCH &&
        f->pattern != a->pattern)
        return false;
    if (f->name && !name_matches(f, a))
        return false;
    if (f->principal && strcmp(f->principal, a->principal) != 0)
        return false;
    if (f->host && strcmp(f->host, a->host) != 0)
        return false;
    if (f->op != GR_ACL_OPERATION_ANY && f->op != a->op)
        return false;
    return f->permission == GR_ACL_PERMISSION_ANY || f->permission == a->permission;
}

const char *gr_acl_binding_invalid(const gr_acl_binding_t *a)
{
    if (a->type <= GR_ACL_RESOURCE_TYPE_ANY || a->type >= GR_ACL_RESOURCE_TYPE_COUNT)
        return "the resource type must be a concrete one";
    if (a->pattern != GR_ACL_PATTERN_LITERAL && a->pattern != GR_ACL_PATTERN_PREFIXED)
        return "the pattern type must be LITERAL or PREFIXED";
    if (a->permission != GR_ACL_PERMISSION_ALLOW && a->permission != GR_ACL_PERMISSION_DENY)
        return "the permission type must be ALLOW or DENY";
    if (a->op != GR_ACL_OPERATION_ALL && !(supported_ops(a->type) & BIT(a->op)))
        return "the operation is not supported on this resource type";
    const char *colon = strchr(a->principal, ':');
    if (!colon || colon == a->principal || !colon[1])
        return "the principal must be Type:name, e.g. User:alice";
    if (!a->name[0])
        return "the resource name must not be empty";
    if (strchr(a->name, '/'))
        return "the resource name must not contain '/'";
    if (a->type == GR_ACL_RESOURCE_TYPE_CLUSTER &&
        (a->pattern != GR_ACL_PATTERN_LITERAL || strcmp(a->name, GR_ACL_CLUSTER_NAME) != 0))
        return "the cluster resource is the literal kafka-cluster";
    if (!a->host[0])
        return "the host must be * or an address";
    return NULL;
}

const char *gr_acl_filter_invalid(const gr_acl_filter_t *f)
{
    if (f->type == GR_ACL_RESOURCE_TYPE_UNKNOWN || f->type >= GR_ACL_RESOURCE_TYPE_COUNT)
        return "unknown resource type";
    if (f->pattern == GR_ACL_PATTERN_UNKNOWN || f->pattern > GR_ACL_PATTERN_PREFIXED)
        return "unknown pattern type";
    if (f->op == GR_ACL_OPERATION_UNKNOWN || f->op >= GR_ACL_OPERATION_COUNT)
        return "unknown operation";
    if (f->permission == GR_ACL_PERMISSION_UNKNOWN || f->permission > GR_ACL_PERMISSION_ALLOW)
        return "unknown permission type";
    return NULL;
}

int gr_acl_set_add(gr_acl_set_t *set, const gr_acl_binding_t *a)
{
    if (set->count == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : SET_INITIAL_CAP;
        gr_acl_binding_t *items = realloc(set->items, cap * sizeof *items);
        if (!items)
            return -ENOMEM;
        set->items = items;
        set->cap = cap;
    }
    gr_acl_binding_t *copy = &set->items[set->count];
    *copy = *a;
    copy->name = strdup(a->name);
    if (!copy->name)
        return -ENOMEM;
    set->count++;
    return 0;
}

void gr_acl_set_remove_resource(gr_acl_set_t *set, gr_acl_resource_type_t type,
                                gr_acl_pattern_t pattern, const char *name)
{
    size_t kept = 0;
    for (size_t i = 0; i < set->count; i++) {
        gr_acl_binding_t *a = &set->items[i];
        if (a->type == type && a->pattern == pattern && strcmp(a->name, name) == 0)
            free(a->name);
        else
            set->items[kept++] = *a;
    }
    set->count = kept;
}

bool gr_acl_binding_equal(const gr_acl_binding_t *x, const gr_acl_binding_t *y)
{
    return x->type == y->type && x->pattern == y->pattern && strcmp(x->name, y->name) == 0 &&
           strcmp(x->principal, y->principal) == 0 && strcmp(x->host, y->host) == 0 &&
           x->op == y->op && x->permission == y->permission;
}

bool gr_acl_set_contains(const gr_acl_set_t *set, const gr_acl_binding_t *a)
{
    for (size_t i = 0; i < set->count; i++)
        if (gr_acl_binding_equal(&set->items[i], a))
            return true;
    return false;
}

void gr_acl_set_clear(gr_acl_set_t *set)
{
    for (size_t i = 0; i < set->count; i++)
        free(set->items[i].name);
    free(set->items);
    *set = (gr_acl_set_t){0};
}
