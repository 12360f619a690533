/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ZooKeeper client library's own lines as broker log lines, for the JSON
 * format (gregor.log.format=json), where a line in the library's format
 * would break every reader of the log. The library writes to one
 * process-wide FILE (zoo_set_log_stream); this file gives it a stdio stream
 * whose writes (fopencookie) are cut into lines, each logged under the
 * "zookeeper" logger at the level its "ZOO_<LEVEL>@" tag names, without the
 * library's own time stamp and thread id. The stream's cookie carries the
 * logger, so nothing of ours is global.
 *
 * Runs on: the client library's threads (stdio locks the FILE around each
 * write, so the cookie sees one writer at a time); open and close on the
 * loop thread, with no ZooKeeper handle open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "metadata/store_zk_int.h"

#define ZK_LOG_LINE_MAX 2048

typedef struct zk_log_cookie {
    const gr_logger_t *log;
    size_t used;
    char line[ZK_LOG_LINE_MAX];
} zk_log_cookie_t;

static const struct {
    const char *tag;
    gr_log_level_t level;
} zk_levels[] = {
    {"ZOO_ERROR@", GR_LOG_ERROR},
    {"ZOO_WARN@", GR_LOG_WARN},
    {"ZOO_INFO@", GR_LOG_INFO},
    {"ZOO_DEBUG@", GR_LOG_DEBUG},
};

/* Logs one library line (NUL-terminated, no newline) from its level tag on. */
static void log_line(const gr_logger_t *log, const char *line)
{
    for (size_t i = 0; i < sizeof zk_levels / sizeof zk_levels[0]; i++) {
        const char *at = strstr(line, zk_levels[i].tag);
        if (at != NULL) {
            gr_logf(log, zk_levels[i].level, "zookeeper", "client: %s",
                    at + strlen(zk_levels[i].tag));
            return;
        }
    }
    if (line[0] != '\0')
        gr_logf(log, GR_LOG_INFO, "zookeeper", "client: %s", line);
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
    zk_log_cookie_t *c = cookie;
    for (size_t i = 0; i < size; i++) {
        bool full = c->used == sizeof c->line - 1;
        if (buf[i] != '\n' && !full) {
            c->line[c->used++] = buf[i];
            continue;
        }
        c->line[c->used] = '\0';
        log_line(c->log, c->line);
        c->used = 0;
        if (full && buf[i] != '\n')
            c->line[c->used++] = buf[i];
    }
    return (ssize_t)size;
}

static int cookie_close(void *cookie)
{
    zk_log_cookie_t *c = cookie;
    if (c->used > 0) {
        c->line[c->used] = '\0';
        log_line(c->log, c->line);
    }
    free(c);
    return 0;
}

FILE *zk_log_stream_open(const gr_logger_t *log)
{
    if (log == NULL || log->format != GR_LOG_FORMAT_JSON)
        return NULL;
    zk_log_cookie_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->log = log;
    cookie_io_functions_t io = {.write = cookie_write, .close = cookie_close};
    FILE *f = fopencookie(c, "w", io);
    if (f == NULL) {
        free(c);
        return NULL;
    }
    setvbuf(f, NULL, _IOLBF, 0); /* each library line reaches the log as it is written */
    zoo_set_log_stream(f);
    return f;
}

void zk_log_stream_close(FILE *f)
{
    if (f == NULL)
        return;
    zoo_set_log_stream(NULL); /* back to stderr */
    fclose(f);
}
