/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A rate over a sliding window of samples, measured as Kafka's quota
 * sensors measure it (a sampled Rate): quota.window.num samples, each
 * quota.window.size.seconds long. A value is added to the newest sample; a
 * sample older than its window length gives way to a new one, and samples
 * older than the whole span count as empty. The rate divides the sum of the
 * samples by the time since the oldest sample started, padded to at least
 * (samples - 1) whole windows so a client's first burst is not measured
 * over a few milliseconds.
 *
 * Throttle time (Kafka's QuotaUtils): a client measured at `observed`
 * against `bound` waits (observed - bound) / bound of the measured span, the
 * time that brings its rate back to the bound had it sent nothing more.
 *
 * All times are caller-supplied milliseconds (a fake clock in tests).
 * Runs on: loop thread; no shared state.
 */
#ifndef GR_QUOTA_RATE_H
#define GR_QUOTA_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define GR_QUOTA_MS_PER_SEC 1000.0

typedef struct gr_quota_sample {
    int64_t start_ms; /* when this sample's window opened */
    double value;     /* sum recorded in it */
    bool used;
} gr_quota_sample_t;

typedef struct gr_quota_rate {
    int samples;       /* quota.window.num, >= 1 */
    int64_t window_ms; /* quota.window.size.seconds in ms, >= 1 */
    int current;       /* index of the newest sample */
    gr_quota_sample_t *ring;
} gr_quota_rate_t;

/* Prepares r with samples windows of window_ms. Returns 0 or -ENOMEM (-EINVAL for bad sizes). */
int gr_quota_rate_init(gr_quota_rate_t *r, int samples, int64_t window_ms);
void gr_quota_rate_fini(gr_quota_rate_t *r);

/* Adds value at now_ms. */
void gr_quota_rate_record(gr_quota_rate_t *r, double value, int64_t now_ms);

/* The rate per second at now_ms; *span_ms (may be NULL) gets the span it was measured over. */
double gr_quota_rate_measure(gr_quota_rate_t *r, int64_t now_ms, int64_t *span_ms /* out */);

/*
 * How long a client measured at observed (over span_ms) must wait to be back
 * at bound: 0 when observed <= bound, else rounded ms, capped at max_ms when
 * max_ms > 0 (request quotas cap at one window, byte quotas do not cap).
 */
int64_t gr_quota_throttle_ms(double observed, double bound, int64_t span_ms, int64_t max_ms);

#endif
