/* SPDX-License-Identifier: Apache-2.0 */
/* The authorizer's configuration, cache and checks: see authorizer.h. */
#include "security/authorizer.h"
#include "security/authorizer_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "security/acl_znode.h"

#define SUPER_USERS_SEPARATOR ';'

static void free_super_users(gr_authorizer_t *a)
{
    for (size_t i = 0; i < a->policy.super_user_count; i++)
        free(a->super_users[i]);
    free(a->super_users);
    a->super_users = NULL;
    a->policy.super_user_count = 0;
}

/* Splits super.users ("User:a;User:b", items trimmed, empty ones skipped). 0, -EINVAL, -ENOMEM. */
static int parse_super_users(gr_authorizer_t *a, const char *list)
{
    size_t cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == SUPER_USERS_SEPARATOR;
    a->super_users = calloc(cap, sizeof *a->super_users);
    if (!a->super_users)
        return -ENOMEM;
    for (const char *p = list; *p;) {
        while (isspace((unsigned char)*p))
            p++;
        const char *end = strchr(p, SUPER_USERS_SEPARATOR);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t item = len;
        while (item && isspace((unsigned char)p[item - 1]))
            item--;
        if (item && !memchr(p, ':', item))
            return -EINVAL;
        if (item && !(a->super_users[a->policy.super_user_count++] = strndup(p, item)))
            return -ENOMEM;
        p += len + (end != NULL);
    }
    a->policy.super_users = (const char *const *)a->super_users;
    return 0;
}

int gr_authorizer_open(gr_broker_t *b, gr_authorizer_t **out)
{
    *out = NULL;
    const char *cls = b->config.authorizer_class_name ? b->config.authorizer_class_name : "";
    if (!cls[0])
        return 0;
    if (strcmp(cls, GR_AUTHORIZER_ACL_CLASS) != 0 &&
        strcmp(cls, GR_AUTHORIZER_STANDARD_CLASS) != 0) {
        gr_logf(&b->log, GR_LOG_ERROR, "acl",
                "authorizer.class.name=%s is not supported: use %s (or leave it empty)", cls,
                GR_AUTHORIZER_ACL_CLASS);
        return -EINVAL;
    }
    gr_authorizer_t *a = calloc(1, sizeof *a);
    if (!a)
        return -ENOMEM;
    a->b = b;
    a->policy.allow_if_no_acl = b->config.allow_everyone_if_no_acl_found;
    a->seen[0] = a->seen[1] = -1;
    int rc = parse_super_users(a, b->config.super_users ? b->config.super_users : "");
    if (rc) {
        if (rc == -EINVAL)
            gr_logf(&b->log, GR_LOG_ERROR, "acl",
                    "super.users=%s: expected principals such as User:admin;User:ops",
                    b->config.super_users);
        gr_authorizer_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

void gr_authorizer_free(gr_authorizer_t *a)
{
    if (!a)
        return;
    a->closing = true;
    if (a->session)
        gr_store_session_close(a->session); /* pending completions see closing */
    a->session = NULL;
    gr_acl_set_clear(&a->acls);
    gr_acl_set_clear(&a->next);
    free_super_users(a);
    free(a);
}

static const char *principal_of(const gr_session_t *session)
{
    return session && session->principal[0] ? session->principal : GR_PRINCIPAL_ANONYMOUS;
}

static const char *host_of(const gr_session_t *session)
{
    return session ? session->host : "";
}

bool gr_authorize_quiet(gr_broker_t *b, const gr_session_t *session, gr_acl_operation_t op,
                        gr_acl_resource_type_t type, const char *name, size_t name_len)
{
    gr_authorizer_t *a = b->authorizer;
    if (!a)
        return true;
    gr_acl_query_t q = {principal_of(session), host_of(session), op, type, name, name_len};
    return gr_acl_decide(&a->policy, &a->acls, &q);
}

bool gr_authorize(gr_broker_t *b, const gr_session_t *session, gr_acl_operation_t op,
                  gr_acl_resource_type_t type, const char *name, size_t name_len)
{
    if (gr_authorize_quiet(b, session, op, type, name, name_len))
        return true;
    gr_logf(&b->log, GR_LOG_INFO, "acl", "principal %s denied %s on %s:%.*s from %s",
            principal_of(session), gr_acl_op_name(op), gr_acl_resource_type_znode(type),
            (int)name_len, name, host_of(session));
    return false;
}

bool gr_authorize_cluster(gr_broker_t *b, const gr_session_t *session, gr_acl_operation_t op)
{
    return gr_authorize(b, session, op, GR_ACL_RESOURCE_TYPE_CLUSTER, GR_ACL_CLUSTER_NAME,
                        strlen(GR_ACL_CLUSTER_NAME));
}

/* Whether some ALLOW binding lets the principal WRITE to some topic (denies aside). */
static bool writes_some_topic(const gr_authorizer_t *a, const char *principal, const char *host)
{
    bool any_topic_acl = false;
    for (size_t i = 0; i < a->acls.count; i++) {
        const gr_acl_binding_t *x = &a->acls.items[i];
        if (x->type != GR_ACL_RESOURCE_TYPE_TOPIC)
            continue;
        any_topic_acl = true;
        bool op = x->op == GR_ACL_OPERATION_WRITE || x->op == GR_ACL_OPERATION_ALL;
        bool who =
            strcmp(x->principal, principal) == 0 || strcmp(x->principal, GR_ACL_USER_WILDCARD) == 0;
        bool where = strcmp(x->host, GR_ACL_WILDCARD) == 0 || strcmp(x->host, host) == 0;
        if (x->permission == GR_ACL_PERMISSION_ALLOW && op && who && where)
            return true;
    }
    return !any_topic_acl && a->policy.allow_if_no_acl;
}

bool gr_authorize_idempotent(gr_broker_t *b, const gr_session_t *session)
{
    gr_authorizer_t *a = b->authorizer;
    if (!a || gr_authorize_quiet(b, session, GR_ACL_OPERATION_IDEMPOTENT_WRITE,
                                 GR_ACL_RESOURCE_TYPE_CLUSTER, GR_ACL_CLUSTER_NAME,
                                 strlen(GR_ACL_CLUSTER_NAME)))
        return true;
    if (writes_some_topic(a, principal_of(session), host_of(session)))
        return true;
    return gr_authorize_cluster(b, session, GR_ACL_OPERATION_IDEMPOTENT_WRITE); /* logs */
}

int32_t gr_authorized_ops(gr_broker_t *b, const gr_session_t *session, gr_acl_resource_type_t type,
                          const char *name, size_t name_len)
{
    gr_authorizer_t *a = b->authorizer;
    gr_acl_query_t q = {
        principal_of(session), host_of(session), GR_ACL_OPERATION_ANY, type, name, name_len};
    return gr_acl_authorized_ops(a ? &a->policy : NULL, a ? &a->acls : NULL, &q);
}

const gr_acl_set_t *gr_authorizer_acls(const gr_authorizer_t *a)
{
    return a ? &a->acls : NULL;
}

void gr_authorizer_apply(gr_authorizer_t *a, gr_acl_resource_type_t type, gr_acl_pattern_t pattern,
                         const char *name, const char *data, size_t len)
{
    gr_acl_set_t fresh = {0};
    int rc = data ? gr_acl_znode_decode(data, len, type, pattern, name, &fresh) : 0;
    if (rc) {
        gr_logf(&a->b->log, GR_LOG_WARN, "acl", "ignoring the unreadable ACLs of %s %s:%s: %s",
                gr_acl_pattern_name(pattern), gr_acl_resource_type_znode(type), name,
                strerror(-rc));
        gr_acl_set_clear(&fresh);
        return;
    }
    gr_acl_set_remove_resource(&a->acls, type, pattern, name);
    for (size_t i = 0; rc == 0 && i < fresh.count; i++)
        rc = gr_acl_set_add(&a->acls, &fresh.items[i]);
    if (rc)
        gr_logf(&a->b->log, GR_LOG_ERROR, "acl", "out of memory applying ACLs of %s", name);
    gr_acl_set_clear(&fresh);
}
