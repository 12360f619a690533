/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ACL authorizer (authorizer.class.name): a cache of every ACL in the
 * metadata store (acl_znode.h), kept current by the change notifications,
 * and the check every handler makes, gr_authorize.
 *
 * Lifecycle: gr_authorizer_open (start-up, after the store is open) reads the
 * configuration; NULL in *out when authorization is off, and then every
 * check allows at once. gr_authorizer_start opens its own store session (so
 * that its watches and reloads do not depend on the membership's), creates
 * Kafka's ACL paths, takes the change lists as the baseline, loads every
 * resource node, and returns once loaded (bounded by the store's connection
 * timeout). On a change notification the named resource's node is read
 * again and replaces that resource's bindings. An expired session is
 * replaced and everything read again.
 *
 * Writes (CreateAcls, DeleteAcls) read the resource's node, change it, write
 * it back conditionally on its version (retrying on a race with another
 * broker), then create the change notification; the cache is updated from
 * the written data at once, so this broker's next request sees the change.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SECURITY_AUTHORIZER_H
#define GR_SECURITY_AUTHORIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/context.h"
#include "protocol/types.h"
#include "security/acl.h"
#include "security/session.h"

#define GR_AUTHORIZER_ACL_CLASS      "kafka.security.authorizer.AclAuthorizer"
#define GR_AUTHORIZER_STANDARD_CLASS "org.apache.kafka.metadata.authorizer.StandardAuthorizer"

typedef struct gr_authorizer gr_authorizer_t;

/*
 * Reads authorizer.class.name, super.users and allow.everyone.if.no.acl.found.
 * Returns 0 with *out NULL (no authorizer: empty class name) or a new one;
 * -EINVAL for an unknown class or a malformed super.users (logged); -ENOMEM.
 */
int gr_authorizer_open(gr_broker_t *b, gr_authorizer_t **out /* out */);

/* Loads the ACLs and starts watching for changes (see above). 0 or -errno (logged). */
int gr_authorizer_start(gr_broker_t *b);

/* Closes the session and frees the cache; NULL is fine. */
void gr_authorizer_free(gr_authorizer_t *a);

/*
 * May the request's principal, from its host, do op on the resource? Always
 * true without an authorizer (b->authorizer NULL), without allocating. A
 * refusal is logged at INFO ("principal User:x denied READ on Topic:t from
 * 1.2.3.4"). session may be NULL (internal requests): the anonymous user.
 */
bool gr_authorize(gr_broker_t *b, const gr_session_t *session, gr_acl_operation_t op,
                  gr_acl_resource_type_t type, const char *name, size_t name_len);

/* As gr_authorize, without logging a refusal (filtering lists, "any topic" checks). */
bool gr_authorize_quiet(gr_broker_t *b, const gr_session_t *session, gr_acl_operation_t op,
                        gr_acl_resource_type_t type, const char *name, size_t name_len);

/* gr_authorize on a resource named by a request string (null: the empty name). */
static inline bool gr_authorize_str(gr_broker_t *b, const gr_session_t *session,
                                    gr_acl_operation_t op, gr_acl_resource_type_t type,
                                    gr_str_t name)
{
    return gr_authorize(b, session, op, type, name.ptr ? name.ptr : "",
                        name.len > 0 ? (size_t)name.len : 0);
}

/* gr_authorize on the cluster resource. */
bool gr_authorize_cluster(gr_broker_t *b, const gr_session_t *session, gr_acl_operation_t op);

/*
 * Kafka's check for an idempotent producer: IDEMPOTENT_WRITE on the cluster,
 * or WRITE allowed on some topic (an ALLOW for WRITE or ALL on any topic
 * pattern for the principal and host; or no ACL at all when
 * allow.everyone.if.no.acl.found). Refusals are logged.
 */
bool gr_authorize_idempotent(gr_broker_t *b, const gr_session_t *session);

/*
 * The authorized_operations bitfield for a resource (every operation its
 * type supports when no authorizer is configured).
 */
int32_t gr_authorized_ops(gr_broker_t *b, const gr_session_t *session, gr_acl_resource_type_t type,
                          const char *name, size_t name_len);

/* The cached bindings (for DescribeAcls and DeleteAcls); NULL without an authorizer. */
const gr_acl_set_t *gr_authorizer_acls(const gr_authorizer_t *a);

/* Completion of a write: GR_KERR_NONE or the error to answer with. */
typedef void gr_authorizer_done_fn(void *opaque, int16_t kerr);

/*
 * Adds binding (valid: gr_acl_binding_invalid is NULL) to its resource's
 * node. done is called exactly once, later, on the loop thread. Returns 0,
 * or -errno when the write could not be started (done not called).
 */
int gr_authorizer_add(gr_authorizer_t *a, const gr_acl_binding_t *binding,
                      gr_authorizer_done_fn *done, void *opaque);

/* Removes binding (an exact one, as the cache holds it) from its node. As gr_authorizer_add. */
int gr_authorizer_remove(gr_authorizer_t *a, const gr_acl_binding_t *binding,
                         gr_authorizer_done_fn *done, void *opaque);

#endif
