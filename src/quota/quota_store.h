/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quota entities in the metadata store (ZooKeeper in cluster mode, the
 * embedded store in single-node mode; same paths): entity.h has the paths,
 * quota_doc.h the JSON. Every change is followed by a
 * /config/changes/config_change_N notification naming the entity path, on
 * which every broker reads that entity again (b->on_quota_changed, set by
 * the composition root to gr_quota_store_reload).
 *
 * The cache b->quotas is filled from the store at start-up, updated on
 * notifications, and at once by the broker that wrote a change (the
 * broker receiving AlterClientQuotas writes, as in Kafka's ZooKeeper mode).
 *
 * Runs on: loop thread.
 */
#ifndef GR_QUOTA_QUOTA_STORE_H
#define GR_QUOTA_QUOTA_STORE_H

#include <stdbool.h>

#include "core/context.h"
#include "protocol/kerr.h"
#include "quota/quotas.h"

/* Reads every quota entity into b->quotas (async; failures logged). */
void gr_quota_store_load(gr_broker_t *b);

/*
 * Reads the entity at entity_path ("clients/<c>", "users/<u>",
 * "users/<u>/clients/<c>", sanitized) again (async; logged). Other paths are
 * ignored.
 */
void gr_quota_store_reload(gr_broker_t *b, const char *entity_path);

typedef void gr_quota_store_done_fn(void *opaque, gr_kerr_t err);

/*
 * Sets the quotas in set->has and drops those in remove for entity e, keeping
 * the znode's other keys, then notifies the brokers. done gets GR_KERR_NONE
 * or UNKNOWN_SERVER_ERROR (the store failed; logged), never from inside this
 * call. Returns 0, -ENAMETOOLONG (the entity's path is too long), -ENOMEM or
 * -EIO (no store session).
 */
int gr_quota_store_alter(gr_broker_t *b, const gr_quota_entity_t *e, const gr_quota_values_t *set,
                         const bool remove[GR_QUOTA_TYPE_COUNT], gr_quota_store_done_fn *done,
                         void *opaque);

#endif
