/* SPDX-License-Identifier: Apache-2.0 */
/* The slow-request log's rate limit and line: see slow_log.h. */
#include "handlers/slow_log.h"

#include <inttypes.h>
#include <stdio.h>

#define NS_PER_MS       1e6
#define CLIENT_ID_SHOWN 128 /* a client id is cut here in the line */

bool gr_slow_log_admit(gr_slow_log_t *l, int64_t now_ns, uint64_t *out_suppressed)
{
    if (l->logged_at_ns != 0 && now_ns - l->logged_at_ns < GR_SLOW_LOG_INTERVAL_NS) {
        l->suppressed++;
        return false;
    }
    *out_suppressed = l->suppressed;
    l->suppressed = 0;
    l->logged_at_ns = now_ns;
    return true;
}

size_t gr_slow_log_format(char *buf, size_t size, const gr_slow_request_t *r, int64_t threshold_ms,
                          uint64_t suppressed)
{
    int id_len = r->client_id_len < 0                 ? 0
                 : r->client_id_len > CLIENT_ID_SHOWN ? CLIENT_ID_SHOWN
                                                      : r->client_id_len;
    int n = snprintf(buf, size,
                     "slow request: %s v%d from %s client_id=\"%.*s\" took %.1f ms (over %" PRId64
                     " ms without waits): queue %.1f, local %.1f, remote %.1f, send %.1f ms",
                     r->api, r->version, r->peer, id_len, r->client_id ? r->client_id : "",
                     r->total_ns / NS_PER_MS, threshold_ms, r->queue_ns / NS_PER_MS,
                     r->local_ns / NS_PER_MS, r->remote_ns / NS_PER_MS, r->send_ns / NS_PER_MS);
    if (n < 0)
        n = 0;
    size_t len = (size_t)n < size ? (size_t)n : size - 1;
    if (suppressed && len < size - 1) {
        n = snprintf(buf + len, size - len, " (%" PRIu64 " more slow requests not logged)",
                     suppressed);
        if (n > 0)
            len += (size_t)n < size - len ? (size_t)n : size - len - 1;
    }
    return len;
}
