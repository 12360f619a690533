/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The authorizer's state, shared by authorizer.c (configuration, checks),
 * authorizer_load.c (session, initial load, change notifications) and
 * authorizer_write.c (CreateAcls / DeleteAcls writes). Private to security/.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SECURITY_AUTHORIZER_INT_H
#define GR_SECURITY_AUTHORIZER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "metadata/store.h"
#include "security/authorizer.h"

/* The two notification families: literal (/kafka-acl-changes) and prefixed. */
#define GR_ACL_FAMILIES 2

struct gr_authorizer {
    gr_broker_t *b;
    gr_acl_policy_t policy;
    char **super_users; /* policy.super_users points here */
    gr_acl_set_t acls;  /* every binding, as last read */
    gr_acl_set_t next;  /* a full load in progress, swapped in when complete */
    gr_store_session_t *session;
    uint64_t gen; /* bumped with every new session: late completions are dropped */
    int loading;  /* reads of the current full load still out */
    bool load_failed;
    bool loaded;                   /* the first full load completed */
    bool closing;                  /* being freed: completions only release their state */
    int64_t seen[GR_ACL_FAMILIES]; /* highest acl_changes_ sequence handled, -1 none */
    bool primed[GR_ACL_FAMILIES];  /* the first listing was taken as the baseline */
};

/* The family index of a pattern type (LITERAL 0, PREFIXED 1). */
static inline int gr_acl_family(gr_acl_pattern_t pattern)
{
    return pattern == GR_ACL_PATTERN_PREFIXED ? 1 : 0;
}

/* Opens the session and starts the full load (authorizer_load.c). 0 or -errno. */
int gr_authorizer_load_begin(gr_authorizer_t *a);

/*
 * Replaces the cached bindings of one resource with those of its node's data
 * (NULL data: the node is gone). Logs malformed data and keeps the old ones.
 */
void gr_authorizer_apply(gr_authorizer_t *a, gr_acl_resource_type_t type, gr_acl_pattern_t pattern,
                         const char *name, const char *data, size_t len);

/*
 * Deletes the expired notifications among names (children of family's
 * changes node), as every broker does whenever it lists them (authorizer_purge.c).
 */
void gr_authorizer_purge(gr_authorizer_t *a, gr_acl_pattern_t family, const char *const *names,
                         size_t count);

#endif
