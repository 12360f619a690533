/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Log line formatting and output; see logging.h for the formats. The time
 * comes from CLOCK_REALTIME and is printed in UTC, so lines from brokers in
 * different zones sort together. The thresholds live in log_levels.c, the
 * JSON line in log_json.c.
 */
#include "core/logging.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/logging_int.h"

/* A line is built whole in a stack buffer; longer messages are cut. */
#define GR_LOG_LINE_MAX 8192

static const char *const level_names[] = {
    [GR_LOG_ERROR] = "ERROR", [GR_LOG_WARN] = "WARN",   [GR_LOG_INFO] = "INFO",
    [GR_LOG_DEBUG] = "DEBUG", [GR_LOG_TRACE] = "TRACE",
};

void gr_logger_init(gr_logger_t *log, FILE *out, gr_log_level_t level)
{
    log->out = out;
    log->format = GR_LOG_FORMAT_TEXT;
    atomic_init(&log->broker_id, -1);
    gr_log_levels_init(log, level);
}

void gr_logger_set_format(gr_logger_t *log, gr_log_format_t format)
{
    log->format = format;
}

void gr_logger_set_broker_id(gr_logger_t *log, int32_t broker_id)
{
    atomic_store_explicit(&log->broker_id, broker_id, memory_order_relaxed);
}

bool gr_log_enabled(const gr_logger_t *log, gr_log_level_t level)
{
    return log != NULL && log->out != NULL &&
           (int)level <= atomic_load_explicit(&log->most_verbose, memory_order_relaxed);
}

bool gr_log_enabled_for(const gr_logger_t *log, gr_log_level_t level, const char *subsystem)
{
    if (!gr_log_enabled(log, level))
        return false;
    int id = subsystem ? gr_logger_find(log, subsystem, strlen(subsystem)) : -1;
    return level <= gr_logger_level(log, id < 0 ? GR_LOGGER_ROOT : id);
}

const char *gr_log_level_name(gr_log_level_t level)
{
    if ((unsigned)level >= sizeof(level_names) / sizeof(level_names[0]))
        return "?";
    return level_names[level];
}

int gr_log_level_parse(const char *name, gr_log_level_t *out)
{
    for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
        if (strcasecmp(name, level_names[i]) == 0) {
            *out = (gr_log_level_t)i;
            return 0;
        }
    }
    if (strcasecmp(name, "warning") == 0) {
        *out = GR_LOG_WARN;
        return 0;
    }
    if (strcasecmp(name, "fatal") == 0) {
        *out = GR_LOG_ERROR;
        return 0;
    }
    return -EINVAL;
}

int gr_log_format_parse(const char *name, gr_log_format_t *out)
{
    if (strcasecmp(name, "text") == 0)
        *out = GR_LOG_FORMAT_TEXT;
    else if (strcasecmp(name, "json") == 0)
        *out = GR_LOG_FORMAT_JSON;
    else
        return -EINVAL;
    return 0;
}

void gr_log_format_time(char *buf, size_t size, long long epoch_ms)
{
    time_t secs = (time_t)(epoch_ms / 1000);
    int ms = (int)(epoch_ms % 1000);
    struct tm tm;

    if (ms < 0) { /* times before 1970 still print a valid stamp */
        ms += 1000;
        secs -= 1;
    }
    gmtime_r(&secs, &tm);
    snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

int gr_log_format_prefix(char *buf, size_t size, long long epoch_ms, gr_log_level_t level,
                         const char *subsystem)
{
    char stamp[GR_LOG_STAMP_MAX];
    gr_log_format_time(stamp, sizeof stamp, epoch_ms);
    int n = snprintf(buf, size, "%s %-5s [%s] ", stamp, gr_log_level_name(level),
                     subsystem ? subsystem : "-");
    if (n < 0)
        n = 0;
    if (size > 0 && (size_t)n >= size)
        n = (int)size - 1;
    return n;
}

/* The text line: prefix, message, one newline. Returns its length. */
static size_t text_line(char *line, size_t size, long long ms, gr_log_level_t level,
                        const char *subsystem, const char *fmt, va_list ap)
{
    size_t n = (size_t)gr_log_format_prefix(line, size, ms, level, subsystem);
    int m = vsnprintf(line + n, size - n, fmt, ap);
    if (m > 0)
        n += (size_t)m < size - n ? (size_t)m : size - n - 1;
    /* Keep room for the newline; a cut line still ends with one. */
    if (n > size - 2)
        n = size - 2;
    if (n > 0 && line[n - 1] == '\n')
        n--;
    line[n++] = '\n';
    line[n] = '\0';
    return n;
}

/* The JSON line: the message formatted alone, then escaped into the object. */
static size_t json_line(const gr_logger_t *log, char *line, size_t size, long long ms,
                        gr_log_level_t level, const char *subsystem, const char *fmt, va_list ap)
{
    char msg[GR_LOG_LINE_MAX];
    int m = vsnprintf(msg, sizeof msg, fmt, ap);
    size_t len = m < 0 ? 0 : (size_t)m < sizeof msg ? (size_t)m : sizeof msg - 1;
    if (len > 0 && msg[len - 1] == '\n')
        len--;
    int32_t id = atomic_load_explicit(&log->broker_id, memory_order_relaxed);
    return gr_log_json_line(line, size, ms, level, subsystem, id, msg, len);
}

void gr_logv(const gr_logger_t *log, gr_log_level_t level, const char *subsystem, const char *fmt,
             va_list ap)
{
    char line[GR_LOG_LINE_MAX];
    struct timespec ts;

    if (!gr_log_enabled_for(log, level, subsystem))
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (log->format == GR_LOG_FORMAT_JSON)
        json_line(log, line, sizeof line, ms, level, subsystem, fmt, ap);
    else
        text_line(line, sizeof line, ms, level, subsystem, fmt, ap);
    fputs(line, log->out);
    if (level <= GR_LOG_WARN)
        fflush(log->out);
}

void gr_logf(const gr_logger_t *log, gr_log_level_t level, const char *subsystem, const char *fmt,
             ...)
{
    va_list ap;

    if (!gr_log_enabled(log, level)) /* the fast no; gr_logv asks the subsystem's threshold */
        return;
    va_start(ap, fmt);
    gr_logv(log, level, subsystem, fmt, ap);
    va_end(ap);
}
