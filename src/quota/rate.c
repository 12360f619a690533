/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sampled rates and throttle times: see rate.h.
 *
 * The ring holds at most `samples` samples; `current` is the newest. A
 * sample is reset (value 0, restarted at now) once it is older than the
 * whole span, as Kafka purges obsolete samples, so after a long idle the
 * oldest sample is young and the padding of the span takes over.
 *
 * Runs on: loop thread.
 */
#include "quota/rate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int gr_quota_rate_init(gr_quota_rate_t *r, int samples, int64_t window_ms)
{
    if (samples < 1 || window_ms < 1)
        return -EINVAL;
    r->ring = calloc((size_t)samples, sizeof *r->ring);
    if (!r->ring)
        return -ENOMEM;
    r->samples = samples;
    r->window_ms = window_ms;
    r->current = 0;
    return 0;
}

void gr_quota_rate_fini(gr_quota_rate_t *r)
{
    free(r->ring);
    r->ring = NULL;
}

void gr_quota_rate_record(gr_quota_rate_t *r, double value, int64_t now_ms)
{
    gr_quota_sample_t *s = &r->ring[r->current];
    if (s->used && now_ms - s->start_ms >= r->window_ms) {
        r->current = (r->current + 1) % r->samples;
        s = &r->ring[r->current];
        s->used = false;
    }
    if (!s->used) {
        s->used = true;
        s->start_ms = now_ms;
        s->value = 0;
    }
    s->value += value;
}

double gr_quota_rate_measure(gr_quota_rate_t *r, int64_t now_ms, int64_t *span_ms)
{
    int64_t whole = (int64_t)r->samples * r->window_ms;
    double total = 0;
    int64_t oldest = now_ms;
    for (int i = 0; i < r->samples; i++) {
        gr_quota_sample_t *s = &r->ring[i];
        if (!s->used)
            continue;
        if (now_ms - s->start_ms >= whole) {
            s->value = 0;
            s->start_ms = now_ms;
        }
        total += s->value;
        if (s->start_ms < oldest)
            oldest = s->start_ms;
    }
    int64_t span = now_ms - oldest;
    int64_t full = span / r->window_ms;
    int64_t min_full = r->samples - 1;
    if (full < min_full)
        span += (min_full - full) * r->window_ms;
    if (span <= 0)
        span = r->window_ms; /* one sample of one window: never divide by zero */
    if (span_ms)
        *span_ms = span;
    return total / ((double)span / GR_QUOTA_MS_PER_SEC);
}

int64_t gr_quota_throttle_ms(double observed, double bound, int64_t span_ms, int64_t max_ms)
{
    if (!(bound > 0) || observed <= bound)
        return 0;
    int64_t ms = llround((observed - bound) / bound * (double)span_ms);
    if (max_ms > 0 && ms > max_ms)
        ms = max_ms;
    return ms;
}
