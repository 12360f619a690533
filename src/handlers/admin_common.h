/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small helpers shared by the admin handlers (configs_admin.c,
 * cluster_admin.c): request strings as C strings and response messages; the
 * config APIs' resource types come with it from gen/common.h. Runs on: loop thread.
 */
#ifndef GR_HANDLERS_ADMIN_COMMON_H
#define GR_HANDLERS_ADMIN_COMMON_H

#include "gen/common.h"
#include "handlers/request.h"

#define GR_ADMIN_MSG_MAX 512

/*
 * The operations (bit 1 << operation) reported as authorized when no
 * authorizer is configured: Metadata, DescribeCluster and DescribeGroups.
 */
#define GR_ACL_OPS_ALL_TOPIC                                                                       \
    (1 << GR_ACL_OPERATION_READ | 1 << GR_ACL_OPERATION_WRITE | 1 << GR_ACL_OPERATION_CREATE |     \
     1 << GR_ACL_OPERATION_DELETE | 1 << GR_ACL_OPERATION_ALTER | 1 << GR_ACL_OPERATION_DESCRIBE | \
     1 << GR_ACL_OPERATION_DESCRIBE_CONFIGS | 1 << GR_ACL_OPERATION_ALTER_CONFIGS)
#define GR_ACL_OPS_ALL_CLUSTER                                                                     \
    (1 << GR_ACL_OPERATION_CREATE | 1 << GR_ACL_OPERATION_ALTER | 1 << GR_ACL_OPERATION_DESCRIBE | \
     1 << GR_ACL_OPERATION_CLUSTER_ACTION | 1 << GR_ACL_OPERATION_DESCRIBE_CONFIGS |               \
     1 << GR_ACL_OPERATION_ALTER_CONFIGS | 1 << GR_ACL_OPERATION_IDEMPOTENT_WRITE)
#define GR_ACL_OPS_ALL_GROUP                                                                       \
    (1 << GR_ACL_OPERATION_READ | 1 << GR_ACL_OPERATION_DELETE | 1 << GR_ACL_OPERATION_DESCRIBE)
/* The request did not ask for them. */
#define GR_ACL_OPS_UNKNOWN INT32_MIN

/* A NUL-terminated copy of s in the request's arena ("" for null), or NULL (out of memory). */
char *gr_admin_cstr(gr_request_t *req, gr_str_t s);

/* msg copied into the request's arena as a response string (null if out of memory). */
gr_str_t gr_admin_message(gr_request_t *req, const char *msg);

/*
 * Whether name (a broker resource's name) is this broker: its id in
 * decimal. *is_default is set when name is "" (the cluster-wide default).
 */
bool gr_admin_is_this_broker(gr_broker_t *b, gr_str_t name, bool *is_default);

/* One name of a request array, for finding repeats in O(n log n). */
typedef struct gr_admin_key {
    int8_t type; /* resource type, or 0 */
    gr_str_t name;
    int32_t index; /* position in the request array */
} gr_admin_key_t;

/* Sorts keys (n of them) and sets dup[index] of every (type, name) that appears twice. */
void gr_admin_mark_repeats(gr_admin_key_t *keys, int32_t n, bool *dup);

/*
 * IncrementalAlterConfigs' APPEND (items of value not yet in base added at
 * the end) or SUBTRACT (items of value removed from base) on a
 * comma-separated list, written to out, which has room for
 * gr_admin_list_edit_size(base, value) bytes. Topic and broker configs.
 */
void gr_admin_list_edit(char *out, const char *base, const char *value, bool append);
size_t gr_admin_list_edit_size(const char *base, const char *value);

/* Orders protocol strings by length, then bytes (for qsort and bsearch). */
int gr_admin_str_cmp(const void *a, const void *b);

#endif
