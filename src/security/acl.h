/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's ACL model and the pure access decision over a set of bindings.
 *
 * A binding is a resource pattern (type, name, LITERAL or PREFIXED) with an
 * entry (principal, host, operation, ALLOW or DENY). The protocol codes of
 * every enum are Kafka's, so requests carry them as they are.
 *
 * The decision (gr_acl_decide), as Kafka's ZooKeeper-mode authorizer makes it:
 *   1. a super user may do anything;
 *   2. the bindings whose pattern covers the resource are those with a
 *      LITERAL name equal to it or "*", and PREFIXED ones it starts with;
 *   3. none at all: allowed only if allow.everyone.if.no.acl.found;
 *   4. a DENY for the principal (or User:*), host (or *) and operation
 *      (or ALL) refuses, whatever allows it;
 *   5. else an ALLOW for the operation, or ALL, or one that implies it
 *      (READ, WRITE, DELETE, ALTER imply DESCRIBE; ALTER_CONFIGS implies
 *      DESCRIBE_CONFIGS) allows; nothing else does.
 *
 * Runs on: any thread; no shared state (a set is owned by its caller).
 */
#ifndef GR_SECURITY_ACL_H
#define GR_SECURITY_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/common.h" /* gr_acl_resource_type_t, gr_acl_operation_t */

#define GR_ACL_HOST_MAX        64
#define GR_ACL_PRINCIPAL_MAX   256
#define GR_ACL_WILDCARD        "*"      /* any resource name, host */
#define GR_ACL_USER_WILDCARD   "User:*" /* any principal */
#define GR_ACL_CLUSTER_NAME    "kafka-cluster"
#define GR_ACL_OPS_UNSPECIFIED INT32_MIN /* authorized_operations not asked for */

#define GR_ACL_RESOURCE_TYPE_COUNT 8

typedef enum gr_acl_pattern {
    GR_ACL_PATTERN_UNKNOWN = 0,
    GR_ACL_PATTERN_ANY = 1,   /* filters: any pattern type, name equal */
    GR_ACL_PATTERN_MATCH = 2, /* filters: every pattern that covers the name */
    GR_ACL_PATTERN_LITERAL = 3,
    GR_ACL_PATTERN_PREFIXED = 4,
} gr_acl_pattern_t;

#define GR_ACL_OPERATION_COUNT 15

typedef enum gr_acl_permission {
    GR_ACL_PERMISSION_UNKNOWN = 0,
    GR_ACL_PERMISSION_ANY = 1, /* filters only */
    GR_ACL_PERMISSION_DENY = 2,
    GR_ACL_PERMISSION_ALLOW = 3,
} gr_acl_permission_t;

/* One ACL: a resource pattern and an entry. name is owned by the set holding it. */
typedef struct gr_acl_binding {
    gr_acl_resource_type_t type;
    gr_acl_pattern_t pattern;
    char *name;
    char principal[GR_ACL_PRINCIPAL_MAX];
    char host[GR_ACL_HOST_MAX];
    gr_acl_operation_t op;
    gr_acl_permission_t permission;
} gr_acl_binding_t;

/* A filter (DescribeAcls, DeleteAcls): NULL strings and ANY codes match everything. */
typedef struct gr_acl_filter {
    gr_acl_resource_type_t type;
    gr_acl_pattern_t pattern;
    const char *name; /* NULL: any */
    size_t name_len;
    const char *principal; /* NULL: any */
    const char *host;      /* NULL: any */
    gr_acl_operation_t op;
    gr_acl_permission_t permission;
} gr_acl_filter_t;

/* A growable array of bindings; zero-initialized is empty. */
typedef struct gr_acl_set {
    gr_acl_binding_t *items;
    size_t count, cap;
} gr_acl_set_t;

/* What the decision needs besides the bindings (authorizer configuration). */
typedef struct gr_acl_policy {
    const char *const *super_users; /* principals, "User:name" */
    size_t super_user_count;
    bool allow_if_no_acl; /* allow.everyone.if.no.acl.found */
} gr_acl_policy_t;

/* One question: may principal, from host, do op on the resource? */
typedef struct gr_acl_query {
    const char *principal;
    const char *host;
    gr_acl_operation_t op;
    gr_acl_resource_type_t type;
    const char *name;
    size_t name_len;
} gr_acl_query_t;

/* The decision described above. */
bool gr_acl_decide(const gr_acl_policy_t *policy, const gr_acl_set_t *set, const gr_acl_query_t *q);

/*
 * The authorized_operations bitfield (bit 1 << op) of q's resource type,
 * every operation the type supports checked with gr_acl_decide (q->op is
 * ignored). policy NULL: no authorizer, every supported operation.
 */
int32_t gr_acl_authorized_ops(const gr_acl_policy_t *policy, const gr_acl_set_t *set,
                              const gr_acl_query_t *q);

/* Whether filter f selects binding a (Kafka's AclBindingFilter.matches). */
bool gr_acl_filter_matches(const gr_acl_filter_t *f, const gr_acl_binding_t *a);

/*
 * Checks a binding to create: concrete type, pattern (LITERAL or PREFIXED),
 * operation and permission; a "Type:name" principal; a non-empty name (the
 * cluster's is "kafka-cluster", literal); an operation the type supports.
 * NULL when valid, else why not (a static string).
 */
const char *gr_acl_binding_invalid(const gr_acl_binding_t *a);

/* Checks a filter's codes: UNKNOWN anywhere is invalid. NULL or why. */
const char *gr_acl_filter_invalid(const gr_acl_filter_t *f);

/* Appends a copy of a (its name duplicated). 0 or -ENOMEM. */
int gr_acl_set_add(gr_acl_set_t *set, const gr_acl_binding_t *a);
/* Removes the bindings of one resource pattern (type, pattern, name). */
void gr_acl_set_remove_resource(gr_acl_set_t *set, gr_acl_resource_type_t type,
                                gr_acl_pattern_t pattern, const char *name);
/* Whether the set holds a binding equal to a. */
bool gr_acl_set_contains(const gr_acl_set_t *set, const gr_acl_binding_t *a);
/* Frees every binding and the array; the set is empty again. */
void gr_acl_set_clear(gr_acl_set_t *set);

/* Same resource pattern and entry. */
bool gr_acl_binding_equal(const gr_acl_binding_t *x, const gr_acl_binding_t *y);

/*
 * Names. The upper-case forms are kafka-acls.sh's and the change
 * notifications' ("TOPIC", "DESCRIBE_CONFIGS", "ALLOW", "PREFIXED"); the
 * camel-case forms are the znodes' ("Topic", "DescribeConfigs", "Allow").
 * Unknown codes give "UNKNOWN". Parsers take either form, in any case,
 * with or without underscores, and return UNKNOWN (0) for anything else.
 */
const char *gr_acl_resource_type_name(gr_acl_resource_type_t t);
const char *gr_acl_resource_type_znode(gr_acl_resource_type_t t);
gr_acl_resource_type_t gr_acl_resource_type_parse(const char *s);
const char *gr_acl_op_name(gr_acl_operation_t op);
const char *gr_acl_op_znode(gr_acl_operation_t op);
gr_acl_operation_t gr_acl_op_parse(const char *s);
const char *gr_acl_permission_name(gr_acl_permission_t p);
const char *gr_acl_permission_znode(gr_acl_permission_t p);
gr_acl_permission_t gr_acl_permission_parse(const char *s);
const char *gr_acl_pattern_name(gr_acl_pattern_t p);
gr_acl_pattern_t gr_acl_pattern_parse(const char *s);

#endif
