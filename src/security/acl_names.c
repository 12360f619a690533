/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names of the ACL enums (acl.h): Kafka's upper-case names for tools and
 * change notifications, its camel-case ones for the /kafka-acl znodes, and a
 * parser that takes both. Tables are indexed by protocol code.
 */
#include <ctype.h>
#include <stddef.h>

#include "security/acl.h"

typedef struct acl_name {
    const char *upper; /* "DESCRIBE_CONFIGS" */
    const char *camel; /* "DescribeConfigs" */
} acl_name_t;

static const acl_name_t resource_names[GR_ACL_RESOURCE_TYPE_COUNT] = {
    {"UNKNOWN", "Unknown"},
    {"ANY", "Any"},
    {"TOPIC", "Topic"},
    {"GROUP", "Group"},
    {"CLUSTER", "Cluster"},
    {"TRANSACTIONAL_ID", "TransactionalId"},
    {"DELEGATION_TOKEN", "DelegationToken"},
    {"USER", "User"},
};

static const acl_name_t op_names[GR_ACL_OPERATION_COUNT] = {
    {"UNKNOWN", "Unknown"},
    {"ANY", "Any"},
    {"ALL", "All"},
    {"READ", "Read"},
    {"WRITE", "Write"},
    {"CREATE", "Create"},
    {"DELETE", "Delete"},
    {"ALTER", "Alter"},
    {"DESCRIBE", "Describe"},
    {"CLUSTER_ACTION", "ClusterAction"},
    {"DESCRIBE_CONFIGS", "DescribeConfigs"},
    {"ALTER_CONFIGS", "AlterConfigs"},
    {"IDEMPOTENT_WRITE", "IdempotentWrite"},
    {"CREATE_TOKENS", "CreateTokens"},
    {"DESCRIBE_TOKENS", "DescribeTokens"},
};

#define PERMISSION_COUNT 4
static const acl_name_t permission_names[PERMISSION_COUNT] = {
    {"UNKNOWN", "Unknown"},
    {"ANY", "Any"},
    {"DENY", "Deny"},
    {"ALLOW", "Allow"},
};

#define PATTERN_COUNT 5
static const acl_name_t pattern_names[PATTERN_COUNT] = {
    {"UNKNOWN", "Unknown"}, {"ANY", "Any"},           {"MATCH", "Match"},
    {"LITERAL", "Literal"}, {"PREFIXED", "Prefixed"},
};

/* "DESCRIBE_CONFIGS", "DescribeConfigs", "describe-configs", "describeconfigs" are one name. */
static bool same_name(const char *a, const char *b)
{
    for (;;) {
        while (*a == '_' || *a == '-')
            a++;
        while (*b == '_' || *b == '-')
            b++;
        if (!*a || !*b)
            return !*a && !*b;
        if (tolower((unsigned char)*a++) != tolower((unsigned char)*b++))
            return false;
    }
}

static int parse(const acl_name_t *names, int count, const char *s)
{
    for (int i = 1; s && i < count; i++)
        if (same_name(s, names[i].upper))
            return i;
    return 0;
}

static const acl_name_t *at(const acl_name_t *names, int count, int code)
{
    return &names[code >= 0 && code < count ? code : 0];
}

const char *gr_acl_resource_type_name(gr_acl_resource_type_t t)
{
    return at(resource_names, GR_ACL_RESOURCE_TYPE_COUNT, (int)t)->upper;
}

const char *gr_acl_resource_type_znode(gr_acl_resource_type_t t)
{
    return at(resource_names, GR_ACL_RESOURCE_TYPE_COUNT, (int)t)->camel;
}

gr_acl_resource_type_t gr_acl_resource_type_parse(const char *s)
{
    return (gr_acl_resource_type_t)parse(resource_names, GR_ACL_RESOURCE_TYPE_COUNT, s);
}

const char *gr_acl_op_name(gr_acl_operation_t op)
{
    return at(op_names, GR_ACL_OPERATION_COUNT, (int)op)->upper;
}

const char *gr_acl_op_znode(gr_acl_operation_t op)
{
    return at(op_names, GR_ACL_OPERATION_COUNT, (int)op)->camel;
}

gr_acl_operation_t gr_acl_op_parse(const char *s)
{
    return (gr_acl_operation_t)parse(op_names, GR_ACL_OPERATION_COUNT, s);
}

const char *gr_acl_permission_name(gr_acl_permission_t p)
{
    return at(permission_names, PERMISSION_COUNT, (int)p)->upper;
}

const char *gr_acl_permission_znode(gr_acl_permission_t p)
{
    return at(permission_names, PERMISSION_COUNT, (int)p)->camel;
}

gr_acl_permission_t gr_acl_permission_parse(const char *s)
{
    return (gr_acl_permission_t)parse(permission_names, PERMISSION_COUNT, s);
}

const char *gr_acl_pattern_name(gr_acl_pattern_t p)
{
    return at(pattern_names, PATTERN_COUNT, (int)p)->upper;
}

gr_acl_pattern_t gr_acl_pattern_parse(const char *s)
{
    return (gr_acl_pattern_t)parse(pattern_names, PATTERN_COUNT, s);
}
