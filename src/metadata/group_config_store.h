/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group config overrides in the metadata store (group_config.h has the keys
 * and the cache): /config/groups/<group> holds {"version":1,"config":{..}},
 * the group's name sanitized as Kafka's Sanitizer does (URL-encoded: a
 * group name may hold '/'). A write is followed by a /config/changes
 * notification naming "groups/<sanitized>", on which every broker reads
 * that node again (controller/config_changes.c calls
 * gr_group_config_store_reload).
 *
 * Runs on: loop thread.
 */
#ifndef GR_METADATA_GROUP_CONFIG_STORE_H
#define GR_METADATA_GROUP_CONFIG_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/context.h"
#include "metadata/group_config.h"
#include "protocol/kerr.h"

/* The entity type of group configs in /config and in change notifications. */
#define GR_GROUP_CONFIG_ENTITY_TYPE "groups"

/* Reads every /config/groups node into b->group_configs (async; failures logged). */
void gr_group_config_store_load(gr_broker_t *b);

/*
 * Reads /config/groups/<sanitized> again into the cache (async; logged).
 * sanitized is the node's name, as a change notification carries it.
 */
void gr_group_config_store_reload(gr_broker_t *b, const char *sanitized);

/* Whether the node of group (len bytes, sanitized) fits the store's path limit. */
bool gr_group_config_store_name_fits(const char *group, size_t len);

/*
 * Writes o as the whole override set of group (len bytes) and notifies the
 * brokers, which read it again; the caller has put o in this broker's cache
 * already (the notification only confirms it here). A failure of the store
 * is logged. Returns 0, -ENAMETOOLONG (the group's path is too long for the
 * store), -ENOMEM or -EIO (no store session).
 */
int gr_group_config_store_alter(gr_broker_t *b, const char *group, size_t len,
                                const gr_group_overrides_t *o);

#endif
