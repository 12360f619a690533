/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What DescribeClientQuotas and AlterClientQuotas share: the entity types
 * of the wire ("user", "client-id"). Runs on: loop thread.
 */
#ifndef GR_HANDLERS_CLIENT_QUOTAS_H
#define GR_HANDLERS_CLIENT_QUOTAS_H

#include "protocol/types.h"

#define GR_CLIENT_QUOTA_USER            "user"
#define GR_CLIENT_QUOTA_CLIENT_ID       "client-id"
#define GR_CLIENT_QUOTA_INITIAL_ENTRIES 16

enum { GR_CLIENT_QUOTA_PART_USER = 0, GR_CLIENT_QUOTA_PART_CLIENT, GR_CLIENT_QUOTA_PART_COUNT };

/* The part an entity type names (GR_CLIENT_QUOTA_PART_*), or -1 for any other type. */
int gr_client_quota_entity_type(gr_str_t type);

#endif
