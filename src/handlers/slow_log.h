/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The slow-request log: a request whose own time (total less remote time,
 * so a long poll or an acks=all wait does not count, only the broker's work
 * and the queue and send around it) reaches gregor.request.slow.log.ms is
 * logged at WARN with its API, version, client id, client address and
 * times. At most one line a second: the lines refused meanwhile are
 * counted, and the next line that goes out says how many there were.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_SLOW_LOG_H
#define GR_HANDLERS_SLOW_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_SLOW_LOG_INTERVAL_NS 1000000000LL /* one line a second at most */
#define GR_SLOW_LOG_LINE_MAX    512

typedef struct gr_slow_log {
    int64_t logged_at_ns; /* the last line's time; 0: none yet */
    uint64_t suppressed;  /* slow requests not logged since that line */
} gr_slow_log_t;

/*
 * Whether a slow request seen at now_ns may be logged. On true, *out_suppressed
 * is how many were refused since the last line (then reset); on false the
 * request is counted as suppressed.
 */
bool gr_slow_log_admit(gr_slow_log_t *l, int64_t now_ns, uint64_t *out_suppressed /* out */);

/* What one slow request was; strings need not be NUL-terminated (lengths given). */
typedef struct gr_slow_request {
    const char *api; /* Kafka's request name, "Produce" */
    int16_t version;
    const char *client_id;
    int client_id_len; /* -1: none (a null client id) */
    const char *peer;
    int64_t total_ns, queue_ns, local_ns, remote_ns, send_ns;
} gr_slow_request_t;

/*
 * Formats the log line into buf (NUL-terminated, cut at size); suppressed
 * (if not 0) is appended. Returns the length written.
 */
size_t gr_slow_log_format(char *buf, size_t size, const gr_slow_request_t *r, int64_t threshold_ms,
                          uint64_t suppressed);

#endif
