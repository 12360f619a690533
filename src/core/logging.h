/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broker log lines, one per call, in one of two formats fixed at start
 * (gregor.log.format):
 *
 *   text  2026-12-02T10:59:14.123Z INFO  [net] accepted connection from 127.0.0.1:51234
 *         (UTC time with milliseconds, level padded to five columns, logger in
 *         brackets, message);
 *   json  {"time":"2026-12-02T10:59:14.123Z","level":"INFO","logger":"net",
 *          "broker":1,"message":"accepted connection from 127.0.0.1:51234"}
 *         on one line ("broker" only once the broker id is known; the message
 *         escaped as JSON, invalid UTF-8 as U+FFFD; core/log_json.c).
 *
 * A gr_logger_t is a plain struct owned by whoever owns the broker context;
 * there is no global logger. Each line is formatted into one buffer and
 * written with a single stdio call, so lines from different threads never
 * interleave inside a line (stdio locks the FILE per call).
 *
 * Loggers: every line names its subsystem ("net", "replica"...); the known
 * subsystems are the loggers of a fixed table (core/log_levels.c), "root"
 * first. Each logger has a threshold of its own or follows root's; a name
 * outside the table follows root. Thresholds change at runtime (Kafka's
 * BROKER_LOGGER config resource) and are read by gr_logf() on any thread:
 * they are C11 atomics read relaxed, so a change shows in other threads'
 * lines soon, not in any order with other memory. Changes come from one
 * thread at a time (the loop).
 *
 * The cost of a disabled line: one relaxed load when no logger is that
 * verbose; else a short hash of the subsystem name and one string compare.
 *
 * Runs on: gr_logf/gr_logv/gr_log_enabled* on any thread; the setters on
 * the loop thread (format only before other threads log).
 */
#ifndef GR_CORE_LOGGING_H
#define GR_CORE_LOGGING_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum gr_log_level {
    GR_LOG_ERROR = 0,
    GR_LOG_WARN = 1,
    GR_LOG_INFO = 2,
    GR_LOG_DEBUG = 3,
    GR_LOG_TRACE = 4,
} gr_log_level_t;

typedef enum gr_log_format {
    GR_LOG_FORMAT_TEXT = 0,
    GR_LOG_FORMAT_JSON = 1,
} gr_log_format_t;

/* The root logger's id; the other loggers are 1..gr_logger_count()-1. */
#define GR_LOGGER_ROOT 0
/* Room for the logger table (checked by a static assertion in log_levels.c). */
#define GR_LOGGER_MAX 32
/* Slots of the name hash (a power of two, above twice GR_LOGGER_MAX). */
#define GR_LOGGER_SLOTS 128
/* A logger's level while it follows root's. */
#define GR_LOG_LEVEL_UNSET (-1)

typedef struct gr_logger {
    FILE *out;              /* stderr for the broker; NULL discards everything */
    gr_log_format_t format; /* fixed before the first line from another thread */
    atomic_int broker_id;   /* -1 until known */
    /* Per logger: a gr_log_level_t, or GR_LOG_LEVEL_UNSET (never for root). */
    atomic_schar levels[GR_LOGGER_MAX];
    atomic_schar most_verbose;      /* the highest effective level: the fast no */
    uint8_t slots[GR_LOGGER_SLOTS]; /* name hash -> logger id + 1; 0 = empty */
} gr_logger_t;

/* Sets up a logger writing text to out (may be NULL: discard) with root at level. */
void gr_logger_init(gr_logger_t *log, FILE *out, gr_log_level_t level);

/* The format of later lines; call before other threads log. */
void gr_logger_set_format(gr_logger_t *log, gr_log_format_t format);

/* The broker id later JSON lines carry (-1: none). Any thread. */
void gr_logger_set_broker_id(gr_logger_t *log, int32_t broker_id);

/* True when a line at level would be written for some logger (to skip costly work). */
bool gr_log_enabled(const gr_logger_t *log, gr_log_level_t level);

/* True when a line at level would be written for subsystem. */
bool gr_log_enabled_for(const gr_logger_t *log, gr_log_level_t level, const char *subsystem);

/*
 * Writes one line at level for subsystem (a short word such as "net", "log",
 * "config"; a logger of the table, else it follows root). log may be NULL
 * (nothing is written). A trailing newline in fmt is not needed and, if
 * present, is not doubled. Lines longer than 8 KiB are cut.
 */
void gr_logf(const gr_logger_t *log, gr_log_level_t level, const char *subsystem, const char *fmt,
             ...) __attribute__((format(printf, 4, 5)));

/* As gr_logf with a va_list. */
void gr_logv(const gr_logger_t *log, gr_log_level_t level, const char *subsystem, const char *fmt,
             va_list ap) __attribute__((format(printf, 4, 0)));

/* The level's name as printed ("INFO"), or "?" for a value outside the enum. */
const char *gr_log_level_name(gr_log_level_t level);

/*
 * Parses a level name, case-insensitively: "error", "warn"/"warning",
 * "info", "debug", "trace", and Kafka's "fatal" (Gregor writes no fatal
 * lines; its strictest threshold, ERROR, stands for it). Returns 0 and sets
 * *out, or -EINVAL for anything else.
 */
int gr_log_level_parse(const char *name, gr_log_level_t *out /* out */);

/*
 * Parses a format name ("text" or "json", case-insensitively). Returns 0 and
 * sets *out, or -EINVAL.
 */
int gr_log_format_parse(const char *name, gr_log_format_t *out /* out */);

/* ---- Loggers (core/log_levels.c) ---- */

/* Number of loggers, root included. */
int gr_logger_count(void);

/* Logger id's name ("root", "net"...); id < gr_logger_count(). */
const char *gr_logger_name(int id);

/* The id of the logger named by len bytes at name, or -1 when there is none. */
int gr_logger_find(const gr_logger_t *log, const char *name, size_t len);

/* Logger id's effective threshold (its own, else root's). */
gr_log_level_t gr_logger_level(const gr_logger_t *log, int id);

/* Whether logger id has a threshold of its own (root always has). */
bool gr_logger_level_is_set(const gr_logger_t *log, int id);

/* Gives logger id (root included) its own threshold. Loop thread. */
void gr_logger_set_level(gr_logger_t *log, int id, gr_log_level_t level);

/* Makes logger id follow root again; no effect on root. Loop thread. */
void gr_logger_unset_level(gr_logger_t *log, int id);

/*
 * Applies a gregor.log.levels value, "logger=LEVEL" items separated by
 * commas (spaces around items allowed; "root=WARN" sets root): all or
 * nothing. log may be NULL to check only. Returns 0, or -EINVAL with a
 * message naming the bad item in err.
 */
int gr_logger_apply_levels(gr_logger_t *log, const char *spec, char *err, size_t errlen);

struct gr_config;
/*
 * Applies a loaded configuration's gregor.log.format, gregor.log.levels and
 * broker.id (when set) to log. The configuration was checked by
 * gr_config_resolve, so this cannot fail. Loop thread, before other threads log.
 */
void gr_logger_configure(gr_logger_t *log, const struct gr_config *cfg);

/* ---- Line formatting, exposed for tests ---- */

/*
 * Formats the text line prefix for a time given in milliseconds since the
 * epoch into buf ("2026-12-02T10:59:14.123Z INFO  [net] "). Returns the
 * length written (always < size when size > 0).
 */
int gr_log_format_prefix(char *buf, size_t size, long long epoch_ms, gr_log_level_t level,
                         const char *subsystem);

/*
 * Room for a stamp as the compiler bounds it: every struct tm field at its
 * widest int, not the 24 characters a real date takes (gcc's
 * -Wformat-truncation counts the former).
 */
#define GR_LOG_STAMP_MAX 80

/* The time stamp alone ("2026-12-02T10:59:14.123Z") into buf (GR_LOG_STAMP_MAX bytes). */
void gr_log_format_time(char *buf, size_t size, long long epoch_ms);

/*
 * Writes len bytes of in to out as the inside of a JSON string: '"', '\\'
 * and control characters escaped, valid UTF-8 kept, every byte of an
 * invalid or overlong sequence (or a surrogate) as \ufffd. Stops before an
 * escape that would not fit whole. Returns the bytes written (out is
 * NUL-terminated when size > 0); *consumed (may be NULL) says how much of
 * in was written.
 */
size_t gr_log_json_escape(char *out, size_t size, const char *in, size_t len,
                          size_t *consumed /* out */);

/*
 * Formats one JSON line (with its '\n') for the message text msg (len bytes)
 * into buf; the message is cut, still as valid JSON, to fit. Returns the
 * length written (< size). size must be at least 256.
 */
size_t gr_log_json_line(char *buf, size_t size, long long epoch_ms, gr_log_level_t level,
                        const char *subsystem, int32_t broker_id, const char *msg, size_t len);

#endif
