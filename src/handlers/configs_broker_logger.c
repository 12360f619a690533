/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BROKER_LOGGER (see configs_broker_logger.h). Kafka's rules, which this
 * file follows:
 *   resource name    this broker's id as a decimal integer, else
 *                    INVALID_REQUEST
 *   SET              a known logger (else INVALID_CONFIG "Logger x does not
 *                    exist!") and one of FATAL ERROR WARN INFO DEBUG TRACE,
 *                    upper case (else INVALID_CONFIG). Gregor has five
 *                    levels and writes no fatal lines: FATAL is kept as
 *                    ERROR, its strictest threshold, and described so.
 *   DELETE           a known logger other than root (INVALID_REQUEST)
 *   APPEND/SUBTRACT  INVALID_REQUEST
 * Kafka rejects OFF and ALL too (they are log4j levels, not in its list).
 *
 * Runs on: loop thread.
 */
#include "handlers/configs_broker_logger.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/logging.h"
#include "gen/incremental_alter_configs.h"

/* Kafka's LogLevelConfig.VALID_LOG_LEVELS, sorted as its message lists them. */
static const char *const kafka_levels[] = {"DEBUG", "ERROR", "FATAL", "INFO", "TRACE", "WARN"};
#define KAFKA_LEVELS_TEXT "DEBUG, ERROR, FATAL, INFO, TRACE, WARN"

#define STR_ARGS(s) (s).len > 0 ? (int)(s).len : 0, (s).ptr ? (s).ptr : ""

/* Java's Integer.parseInt: optional sign, decimal digits, within int32. 0 or -EINVAL. */
static int parse_node_id(gr_str_t s, int32_t *out)
{
    if (s.len <= 0 || s.ptr == NULL)
        return -EINVAL;
    size_t i = s.ptr[0] == '-' || s.ptr[0] == '+' ? 1 : 0;
    bool negative = s.ptr[0] == '-';
    long long v = 0;
    if (i == (size_t)s.len)
        return -EINVAL;
    for (; i < (size_t)s.len; i++) {
        if (s.ptr[i] < '0' || s.ptr[i] > '9')
            return -EINVAL;
        v = v * 10 + (s.ptr[i] - '0');
        if (v > (long long)INT_MAX + 1)
            return -EINVAL;
    }
    v = negative ? -v : v;
    if (v > INT_MAX)
        return -EINVAL;
    *out = (int32_t)v;
    return 0;
}

gr_kerr_t gr_broker_logger_describe_check(gr_broker_t *b, gr_str_t name, char *msg, size_t len)
{
    int32_t id;
    if (name.len <= 0) {
        snprintf(msg, len, "Broker id must not be empty");
        return GR_KERR_INVALID_REQUEST;
    }
    if (parse_node_id(name, &id)) {
        snprintf(msg, len, "Broker id must be an integer, but it is: %.*s", STR_ARGS(name));
        return GR_KERR_INVALID_REQUEST;
    }
    if (id != b->config.broker_id) {
        snprintf(msg, len, "Unexpected broker id, expected %d but received %.*s",
                 b->config.broker_id, STR_ARGS(name));
        return GR_KERR_INVALID_REQUEST;
    }
    return GR_KERR_NONE;
}

/* Kafka's level name (exactly, upper case) as a Gregor level. 0 or -EINVAL. */
static int kafka_level(gr_str_t value, gr_log_level_t *out)
{
    char text[8];
    if (value.len <= 0 || (size_t)value.len >= sizeof text ||
        memchr(value.ptr, '\0', (size_t)value.len))
        return -EINVAL;
    memcpy(text, value.ptr, (size_t)value.len);
    text[value.len] = '\0';
    for (size_t i = 0; i < sizeof kafka_levels / sizeof kafka_levels[0]; i++)
        if (strcmp(text, kafka_levels[i]) == 0)
            return gr_log_level_parse(text, out);
    return -EINVAL;
}

/* One change's check. NONE or an error with msg; *id and *level for the apply. */
static gr_kerr_t check_change(const gr_logger_t *log, const gr_logger_change_t *c, int *id,
                              gr_log_level_t *level, char *msg, size_t len)
{
    if (c->op == GR_ALTER_CONFIG_OP_APPEND || c->op == GR_ALTER_CONFIG_OP_SUBTRACT) {
        snprintf(msg, len, "%s operation is not allowed for the BROKER_LOGGER resource",
                 c->op == GR_ALTER_CONFIG_OP_APPEND ? "APPEND" : "SUBTRACT");
        return GR_KERR_INVALID_REQUEST;
    }
    if (c->op != GR_ALTER_CONFIG_OP_SET && c->op != GR_ALTER_CONFIG_OP_DELETE) {
        snprintf(msg, len,
                 "Unknown operation type %d is not allowed for the BROKER_LOGGER resource", c->op);
        return GR_KERR_INVALID_REQUEST;
    }
    if (c->op == GR_ALTER_CONFIG_OP_SET && c->value.len == GR_NULL_LEN) {
        snprintf(msg, len, "Null value not supported for : %.*s", STR_ARGS(c->name));
        return GR_KERR_INVALID_REQUEST;
    }
    *id = c->name.len > 0 ? gr_logger_find(log, c->name.ptr, (size_t)c->name.len) : -1;
    if (*id < 0) {
        snprintf(msg, len, "Logger %.*s does not exist!", STR_ARGS(c->name));
        return GR_KERR_INVALID_CONFIG;
    }
    if (c->op == GR_ALTER_CONFIG_OP_DELETE) {
        if (*id == GR_LOGGER_ROOT) {
            snprintf(msg, len, "Removing the log level of the root logger is not allowed");
            return GR_KERR_INVALID_REQUEST;
        }
        return GR_KERR_NONE;
    }
    if (kafka_level(c->value, level)) {
        snprintf(msg, len,
                 "Cannot set the log level of %.*s to %.*s as it is not a supported log level. "
                 "Valid log levels are " KAFKA_LEVELS_TEXT,
                 STR_ARGS(c->name), STR_ARGS(c->value));
        return GR_KERR_INVALID_CONFIG;
    }
    return GR_KERR_NONE;
}

gr_kerr_t gr_broker_logger_alter(gr_broker_t *b, gr_str_t name, const gr_logger_change_t *changes,
                                 int32_t n, bool validate_only, char *msg, size_t len)
{
    int32_t node;
    if (parse_node_id(name, &node)) {
        snprintf(msg, len, "Node id must be an integer, but it is: %.*s", STR_ARGS(name));
        return GR_KERR_INVALID_REQUEST;
    }
    if (node != b->config.broker_id) {
        snprintf(msg, len, "Unexpected node id. Expected %d, but received %d", b->config.broker_id,
                 node);
        return GR_KERR_INVALID_REQUEST;
    }
    int id;
    gr_log_level_t level = GR_LOG_INFO;
    for (int32_t i = 0; i < n; i++) {
        gr_kerr_t err = check_change(&b->log, &changes[i], &id, &level, msg, len);
        if (err)
            return err;
    }
    if (validate_only)
        return GR_KERR_NONE;
    for (int32_t i = 0; i < n; i++) {
        (void)check_change(&b->log, &changes[i], &id, &level, msg, len); /* passed above */
        if (changes[i].op == GR_ALTER_CONFIG_OP_DELETE) {
            gr_logger_unset_level(&b->log, id);
            gr_logf(&b->log, GR_LOG_WARN, "config", "Unset the log level of %s",
                    gr_logger_name(id));
        } else {
            gr_logger_set_level(&b->log, id, level);
            gr_logf(&b->log, GR_LOG_WARN, "config", "Updated the log level of %s to %s",
                    gr_logger_name(id), gr_log_level_name(level));
        }
    }
    return GR_KERR_NONE;
}
