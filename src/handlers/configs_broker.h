/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AlterConfigs and IncrementalAlterConfigs on a BROKER resource (KIP-226):
 * the keys Gregor applies live are checked as the broker's file would be
 * and handed to metadata/broker_config_store.h (stored, notified, applied);
 * keys Kafka refuses to change live are refused with Kafka's error and
 * message, and keys Kafka changes live but Gregor cannot yet are refused
 * saying so (never stored and ignored). configs_admin.c routes the
 * resource type here after its own checks (duplicates, authorization).
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_CONFIGS_BROKER_H
#define GR_HANDLERS_CONFIGS_BROKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/context.h"
#include "handlers/admin_common.h"

/* One key of a resource: its value (SET) and operation (legacy AlterConfigs: SET). */
typedef struct gr_broker_config_change {
    gr_str_t key;
    gr_str_t value;
    int8_t op; /* GR_ALTER_CONFIG_OP_* */
} gr_broker_config_change_t;

/*
 * Checks every change of resource name ("" for the cluster default, else
 * this broker's id), then applies them unless validate_only. incremental:
 * the changes edit the level's current set; else they replace it. NONE, or
 * the first error (INVALID_REQUEST, INVALID_CONFIG) with Kafka's message in
 * msg and nothing changed.
 */
gr_kerr_t gr_broker_configs_alter(gr_broker_t *b, gr_str_t name,
                                  const gr_broker_config_change_t *changes, int32_t n,
                                  bool incremental, bool validate_only, char *msg, size_t len);

#endif
