/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Log sink for src/net/ and the worker pool: a callback and its argument
 * carried in each owner's config, so there is no global logger. A zero
 * gr_net_log_t writes to stderr. When src/broker/logging.h lands, the broker
 * passes a callback forwarding to it.
 */
#ifndef GR_NET_NET_LOG_H
#define GR_NET_NET_LOG_H

typedef enum gr_net_log_level {
    GR_NET_LOG_ERROR,
    GR_NET_LOG_WARN,
    GR_NET_LOG_INFO,
    GR_NET_LOG_DEBUG,
} gr_net_log_level_t;

/* Receives one formatted line without the trailing newline. */
typedef void (*gr_net_log_fn)(void *opaque, gr_net_log_level_t level, const char *line);

typedef struct gr_net_log {
    gr_net_log_fn fn; /* NULL: stderr */
    void *opaque;
} gr_net_log_t;

/* Formats and emits one line. log may be NULL (stderr). */
void gr_net_logf(const gr_net_log_t *log, gr_net_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
