/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's RequestMetrics for Gregor: per API key, requests by version,
 * errors by code and five time histograms, recorded once a response has
 * gone out in full (the connection's on_sent, as Kafka updates its request
 * metrics when the response is sent). Allocated once with the broker, so
 * recording allocates nothing and reads no clock: the times come from the
 * connection (net/conn.h, "Timing").
 *
 * What each time means for Gregor's single loop:
 *   total   from the read that completed the frame to its response's last
 *           byte handed to the kernel;
 *   queue   from that read to the dispatch: the time the frame waited
 *           behind earlier requests of its connection (back-pressure,
 *           throttling, or those read in the same turn of the loop);
 *   remote  the time the request was deferred: acks=all waiting for the
 *           ISR, a Fetch's long poll, a coordinator's or the store's answer;
 *   local   dispatch to completion less remote: the broker's own work;
 *   send    completion to the last byte written: waiting for earlier
 *           responses of the connection and for the socket.
 * The quantiles (metrics_requests.c) are over a window of the last 30 to 60
 * seconds: the running histogram less a snapshot rotated at scrape time.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_REQUEST_STATS_H
#define GR_HANDLERS_REQUEST_STATS_H

#include <stdint.h>

#include "core/histogram.h"
#include "handlers/slow_log.h"
#include "net/conn.h"
#include "protocol/kerr.h"

#define GR_REQUEST_STATS_APIS     128 /* API keys 0..127 */
#define GR_REQUEST_STATS_VERSIONS 32  /* versions 0..31 */
/* Error slots: code + 1 (UNKNOWN_SERVER_ERROR is -1), then one for codes above GR_KERR_MAX. */
#define GR_REQUEST_STATS_ERRORS    (GR_KERR_MAX + 3)
#define GR_REQUEST_STATS_WINDOW_NS (30LL * 1000000000LL) /* snapshot rotation */
#define GR_NS_PER_MS               1000000LL

typedef enum gr_request_time {
    GR_REQUEST_TIME_TOTAL,
    GR_REQUEST_TIME_QUEUE,
    GR_REQUEST_TIME_LOCAL,
    GR_REQUEST_TIME_REMOTE,
    GR_REQUEST_TIME_SEND,
    GR_REQUEST_TIMES
} gr_request_time_t;

typedef struct gr_request_api_stats {
    uint64_t requests[GR_REQUEST_STATS_VERSIONS];
    uint64_t errors[GR_REQUEST_STATS_ERRORS];
    gr_histogram_t times[GR_REQUEST_TIMES];
    gr_histogram_t marks[2][GR_REQUEST_TIMES]; /* snapshots: [0] older, [1] newer */
} gr_request_api_stats_t;

typedef struct gr_request_stats gr_request_stats_t;
struct gr_request_stats {
    gr_request_api_stats_t apis[GR_REQUEST_STATS_APIS];
    int64_t marked_at_ns; /* the last snapshot rotation */
    gr_slow_log_t slow_log;
};

/* Returns zeroed stats or NULL (out of memory). */
gr_request_stats_t *gr_request_stats_new(void);
void gr_request_stats_free(gr_request_stats_t *s);

/* The five times of a request from its connection's timestamps. */
void gr_request_stats_times(const gr_slot_times_t *t, int64_t out_ns[GR_REQUEST_TIMES]);

/* One response sent for API key at version, with its five times. */
void gr_request_stats_record(gr_request_stats_t *s, int16_t key, int16_t version,
                             const int64_t times_ns[GR_REQUEST_TIMES]);

/* One error code in a response of API key (Kafka counts every error_code field, NONE too). */
void gr_request_stats_error(gr_request_stats_t *s, int16_t key, gr_kerr_t err);

/* The error code of error slot i (see GR_REQUEST_STATS_ERRORS); GR_KERR_MAX + 1 for the last. */
gr_kerr_t gr_request_stats_error_code(int i);

/*
 * The window of API key's time histogram into out: the running histogram
 * less the older snapshot. Rotates the snapshots first when the last
 * rotation is GR_REQUEST_STATS_WINDOW_NS old (so the window covers the last
 * 30..60 s while scrapes come at least that often, else since the scrape
 * before the last).
 */
void gr_request_stats_window(gr_request_stats_t *s, int16_t key, gr_request_time_t time,
                             int64_t now_ns, gr_histogram_t *out /* out */);

#endif
