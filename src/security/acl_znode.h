/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ACLs in the metadata store, laid out as Kafka's ZooKeeper mode has them,
 * so that a Kafka cluster's tree and tools work with Gregor's:
 *   /kafka-acl/<Type>/<name>                       LITERAL patterns
 *   /kafka-acl-extended/prefixed/<Type>/<name>     PREFIXED patterns
 * each holding {"version":1,"acls":[{"principal":"User:alice",
 * "permissionType":"Allow","operation":"Read","host":"*"}]} (camel-case
 * names, acl_names.c). A change to a resource's node is announced by a
 * sequential node every broker watches:
 *   /kafka-acl-changes/acl_changes_N           data "TOPIC:name" (literal)
 *   /kafka-acl-extended-changes/acl_changes_N  data {"version":1,
 *       "resourceType":"TOPIC","name":"p","patternType":"PREFIXED"}
 * and each broker then reads that resource's node again.
 *
 * Runs on: any thread; no shared state.
 */
#ifndef GR_SECURITY_ACL_ZNODE_H
#define GR_SECURITY_ACL_ZNODE_H

#include <stddef.h>

#include "metadata/zk_json.h"
#include "security/acl.h"

#define GR_ACL_ZNODE_LITERAL_PATH          "/kafka-acl"
#define GR_ACL_ZNODE_EXTENDED_PATH         "/kafka-acl-extended"
#define GR_ACL_ZNODE_PREFIXED_PATH         "/kafka-acl-extended/prefixed"
#define GR_ACL_ZNODE_LITERAL_CHANGES_PATH  "/kafka-acl-changes"
#define GR_ACL_ZNODE_EXTENDED_CHANGES_PATH "/kafka-acl-extended-changes"
#define GR_ACL_ZNODE_CHANGE_PREFIX         "acl_changes_"
#define GR_ACL_ZNODE_VERSION               1

/* The root of a pattern type's nodes ("/kafka-acl"), NULL for filter-only types. */
const char *gr_acl_znode_root(gr_acl_pattern_t pattern);
/* Its change notifications' parent ("/kafka-acl-changes"), NULL likewise. */
const char *gr_acl_znode_changes_root(gr_acl_pattern_t pattern);

/* The resource's node path into out. 0, or -ENAMETOOLONG / -EINVAL. */
int gr_acl_znode_path(gr_acl_resource_type_t type, gr_acl_pattern_t pattern, const char *name,
                      char *out, size_t out_len);

/*
 * Writes the node data of the bindings in set that belong to the resource
 * (type, pattern, name) into w (initialized by the caller). 0 or -ENOMEM.
 */
int gr_acl_znode_encode(const gr_acl_set_t *set, gr_acl_resource_type_t type,
                        gr_acl_pattern_t pattern, const char *name, gr_zk_json_writer_t *w);

/*
 * Appends the bindings of a resource node's data (len bytes) to out, with
 * the resource (type, pattern, name) its path names. Entries with unknown
 * names are skipped (a newer writer's). 0, -EINVAL for malformed data, -ENOMEM.
 */
int gr_acl_znode_decode(const char *data, size_t len, gr_acl_resource_type_t type,
                        gr_acl_pattern_t pattern, const char *name, gr_acl_set_t *out);

/*
 * The change notification's data for a resource into out (out_cap bytes,
 * NUL-terminated). 0 with *out_len, or -ENAMETOOLONG / -ENOMEM / -EINVAL.
 */
int gr_acl_change_encode(gr_acl_resource_type_t type, gr_acl_pattern_t pattern, const char *name,
                         char *out, size_t out_cap, size_t *out_len /* out */);

/*
 * Reads a change notification of the given pattern family (LITERAL for
 * /kafka-acl-changes, PREFIXED for the extended one). 0 with the resource,
 * name copied into name (name_len bytes with its NUL); -EINVAL.
 */
int gr_acl_change_decode(const char *data, size_t len, gr_acl_pattern_t family,
                         gr_acl_resource_type_t *type /* out */,
                         gr_acl_pattern_t *pattern /* out */, char *name /* out */,
                         size_t name_len);

#endif
