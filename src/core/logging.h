/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broker log lines, one per call, in the form
 *
 *     2026-12-02T10:59:14.123Z INFO  [net] accepted connection from 127.0.0.1:51234
 *
 * (UTC time with milliseconds, level padded to five columns, subsystem in
 * brackets, message). A gr_logger_t is a plain struct owned by whoever owns the
 * broker context; there is no global logger. Each line is formatted into one
 * buffer and written with a single stdio call, so lines from different threads
 * never interleave inside a line (stdio locks the FILE per call).
 *
 * Runs on: any thread; the logger itself is never modified by gr_logf().
 */
#ifndef GR_CORE_LOGGING_H
#define GR_CORE_LOGGING_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

typedef enum gr_log_level {
    GR_LOG_ERROR = 0,
    GR_LOG_WARN = 1,
    GR_LOG_INFO = 2,
    GR_LOG_DEBUG = 3,
    GR_LOG_TRACE = 4,
} gr_log_level_t;

typedef struct gr_logger {
    FILE *out;            /* stderr for the broker; NULL discards everything */
    gr_log_level_t level; /* lines above this level (more verbose) are dropped */
} gr_logger_t;

/* Sets up a logger writing to out (may be NULL: discard) at the given threshold. */
void gr_logger_init(gr_logger_t *log, FILE *out, gr_log_level_t level);

/* True when a line at level would be written (to skip costly argument building). */
bool gr_log_enabled(const gr_logger_t *log, gr_log_level_t level);

/*
 * Writes one line at level for subsystem (a short word such as "net", "log",
 * "config"). log may be NULL (nothing is written). A trailing newline in fmt is
 * not needed and, if present, is not doubled. Lines longer than 8 KiB are cut.
 */
void gr_logf(const gr_logger_t *log, gr_log_level_t level, const char *subsystem, const char *fmt,
             ...) __attribute__((format(printf, 4, 5)));

/* As gr_logf with a va_list. */
void gr_logv(const gr_logger_t *log, gr_log_level_t level, const char *subsystem, const char *fmt,
             va_list ap) __attribute__((format(printf, 4, 0)));

/* The level's name as printed ("INFO"), or "?" for a value outside the enum. */
const char *gr_log_level_name(gr_log_level_t level);

/*
 * Parses a level name, case-insensitively ("error", "warn"/"warning", "info",
 * "debug", "trace"). Returns 0 and sets *out, or -EINVAL for anything else.
 */
int gr_log_level_parse(const char *name, gr_log_level_t *out /* out */);

/*
 * Formats the line prefix for a time given in milliseconds since the epoch
 * into buf ("2026-12-02T10:59:14.123Z INFO  [net] "). Returns the length
 * written (always < size when size > 0). Exposed for tests.
 */
int gr_log_format_prefix(char *buf, size_t size, long long epoch_ms, gr_log_level_t level,
                         const char *subsystem);

#endif
