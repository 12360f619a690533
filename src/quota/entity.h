/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quota entities and their names in the metadata store, as ZooKeeper-mode
 * Kafka keeps them:
 *
 *   /config/clients/<client-id>
 *   /config/users/<user>
 *   /config/users/<user>/clients/<client-id>
 *
 * with "<default>" naming the default user or client id, and each name
 * sanitized (gr_config_entity_sanitize, Kafka's Sanitizer) so any name is one
 * path component and never collides with "<default>". A change notification
 * names the same path without "/config/" (its entity_path).
 *
 * Names here are the client's own (unsanitized) names; only paths carry the
 * sanitized form.
 *
 * Runs on: any thread; no shared state.
 */
#ifndef GR_QUOTA_ENTITY_H
#define GR_QUOTA_ENTITY_H

#include <stdbool.h>
#include <stddef.h>

#define GR_QUOTA_DEFAULT_NAME "<default>"
#define GR_QUOTA_USERS        "users"
#define GR_QUOTA_CLIENTS      "clients"
#define GR_QUOTA_NAME_MAX     256 /* longest user or client id name kept, bytes */
#define GR_QUOTA_PATH_MAX     1024

/* One part of an entity: absent, the default, or a name. */
typedef struct gr_quota_part {
    bool present;
    bool is_default;
    char name[GR_QUOTA_NAME_MAX + 1]; /* "" for the default */
} gr_quota_part_t;

/* A quota entity: a user, a client id, or both (never neither). */
typedef struct gr_quota_entity {
    gr_quota_part_t user;
    gr_quota_part_t client;
} gr_quota_entity_t;

/*
 * The entity path ("users/<u>/clients/<c>", "users/<u>", "clients/<c>") of e
 * into out. Returns 0, -EINVAL (no part) or -ENAMETOOLONG.
 */
int gr_quota_entity_path(const gr_quota_entity_t *e, char *out, size_t out_len);
/* Parses an entity path back into *e. Returns 0 or -EINVAL. */
int gr_quota_entity_parse(const char *path, gr_quota_entity_t *e /* out */);

/* Sets a part to a name (NULL: the default). Returns 0 or -ENAMETOOLONG. */
int gr_quota_part_set(gr_quota_part_t *p, const char *name);
bool gr_quota_entity_eq(const gr_quota_entity_t *a, const gr_quota_entity_t *b);

#endif
