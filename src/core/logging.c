/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Log line formatting and output; see logging.h for the line format. The time
 * comes from CLOCK_REALTIME and is printed in UTC, so lines from brokers in
 * different zones sort together.
 */
#include "core/logging.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* A line is built whole in a stack buffer; longer messages are cut. */
#define GR_LOG_LINE_MAX 8192

static const char *const level_names[] = {
    [GR_LOG_ERROR] = "ERROR", [GR_LOG_WARN] = "WARN",   [GR_LOG_INFO] = "INFO",
    [GR_LOG_DEBUG] = "DEBUG", [GR_LOG_TRACE] = "TRACE",
};

void gr_logger_init(gr_logger_t *log, FILE *out, gr_log_level_t level)
{
    log->out = out;
    log->level = level;
}

bool gr_log_enabled(const gr_logger_t *log, gr_log_level_t level)
{
    return log != NULL && log->out != NULL && level <= log->level;
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
    return -EINVAL;
}

int gr_log_format_prefix(char *buf, size_t size, long long epoch_ms, gr_log_level_t level,
                         const char *subsystem)
{
    time_t secs = (time_t)(epoch_ms / 1000);
    int ms = (int)(epoch_ms % 1000);
    struct tm tm;

    if (ms < 0) { /* times before 1970 still print a valid stamp */
        ms += 1000;
        secs -= 1;
    }
    gmtime_r(&secs, &tm);
    int n = snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %-5s [%s] ", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms,
                     gr_log_level_name(level), subsystem ? subsystem : "-");
    if (n < 0)
        n = 0;
    if (size > 0 && (size_t)n >= size)
        n = (int)size - 1;
    return n;
}

void gr_logv(const gr_logger_t *log, gr_log_level_t level, const char *subsystem, const char *fmt,
             va_list ap)
{
    char line[GR_LOG_LINE_MAX];
    struct timespec ts;

    if (!gr_log_enabled(log, level))
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    size_t n = (size_t)gr_log_format_prefix(line, sizeof(line), ms, level, subsystem);
    int m = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
    if (m > 0)
        n += (size_t)m < sizeof(line) - n ? (size_t)m : sizeof(line) - n - 1;
    /* Keep room for the newline; a cut line still ends with one. */
    if (n > sizeof(line) - 2)
        n = sizeof(line) - 2;
    if (n > 0 && line[n - 1] == '\n')
        n--;
    line[n++] = '\n';
    line[n] = '\0';
    fputs(line, log->out);
    if (level <= GR_LOG_WARN)
        fflush(log->out);
}

void gr_logf(const gr_logger_t *log, gr_log_level_t level, const char *subsystem, const char *fmt,
             ...)
{
    va_list ap;

    if (!gr_log_enabled(log, level))
        return;
    va_start(ap, fmt);
    gr_logv(log, level, subsystem, fmt, ap);
    va_end(ap);
}
