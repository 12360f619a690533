/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's BROKER_LOGGER config resource (type 8) over Gregor's loggers
 * (core/logging.h): DescribeConfigs lists "root" and every logger with its
 * effective level; IncrementalAlterConfigs SETs a level or DELETEs a
 * logger's own one (it follows root again). Changes are this broker's only
 * and last until it stops, as Kafka's. configs_admin.c routes the resource
 * type here after its own checks (duplicates, authorization).
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_CONFIGS_BROKER_LOGGER_H
#define GR_HANDLERS_CONFIGS_BROKER_LOGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/context.h"
#include "handlers/admin_common.h"

/* One operation of an IncrementalAlterConfigs resource. */
typedef struct gr_logger_change {
    gr_str_t name;  /* the logger */
    gr_str_t value; /* the level (SET) */
    int8_t op;      /* GR_ALTER_CONFIG_OP_* */
} gr_logger_change_t;

/*
 * Checks that name is this broker's id for DescribeConfigs. NONE, or
 * INVALID_REQUEST with Kafka's message in msg (empty, not an integer,
 * another broker's).
 */
gr_kerr_t gr_broker_logger_describe_check(gr_broker_t *b, gr_str_t name, char *msg, size_t len);

/*
 * Checks every change first (node id, logger names, Kafka's level names,
 * the operations), then applies them unless validate_only. NONE, or the
 * first error (INVALID_REQUEST, INVALID_CONFIG) with Kafka's message in msg
 * and nothing changed.
 */
gr_kerr_t gr_broker_logger_alter(gr_broker_t *b, gr_str_t name, const gr_logger_change_t *changes,
                                 int32_t n, bool validate_only, char *msg, size_t len);

#endif
