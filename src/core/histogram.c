/* SPDX-License-Identifier: Apache-2.0 */
/* The request-time histogram: see histogram.h. */
#include "core/histogram.h"

#include <stddef.h>

#define FIRST_BOUND_NS   10000 /* 10 µs */
#define STEPS_PER_DECADE 10
#define DECADES          7 /* 10 µs .. 100 s */
/* The start of each decade in ns. */
static const uint64_t decades[DECADES] = {10000,     100000,     1000000,    10000000,
                                          100000000, 1000000000, 10000000000};
/* The steps of a decade in hundredths: 1.25 .. 10 (the 1 is the decade before's 10). */
static const uint16_t steps[STEPS_PER_DECADE] = {125, 150, 200, 250, 300, 400, 500, 600, 800, 1000};
#define STEP_SCALE 100
/* Steps exposed to Prometheus: 2.5, 5 and 10 of each decade. */
static const uint8_t exposed_steps[] = {3, 6, 9};
#define EXPOSED_PER_DECADE (sizeof exposed_steps / sizeof exposed_steps[0])

uint64_t gr_histogram_bound_ns(int i)
{
    if (i <= 0)
        return FIRST_BOUND_NS;
    return decades[(i - 1) / STEPS_PER_DECADE] * steps[(i - 1) % STEPS_PER_DECADE] / STEP_SCALE;
}

int gr_histogram_bucket(uint64_t ns)
{
    /* The first bound >= ns; GR_HISTOGRAM_BOUNDS when there is none. */
    int lo = 0, hi = GR_HISTOGRAM_BOUNDS;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ns <= gr_histogram_bound_ns(mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void gr_histogram_record(gr_histogram_t *h, uint64_t ns)
{
    h->counts[gr_histogram_bucket(ns)]++;
    h->count++;
    h->sum_ns += ns;
}

int gr_histogram_exposed_index(int k)
{
    if (k <= 0)
        return 0;
    int decade = (k - 1) / (int)EXPOSED_PER_DECADE;
    return 1 + decade * STEPS_PER_DECADE + exposed_steps[(k - 1) % EXPOSED_PER_DECADE];
}

uint64_t gr_histogram_cumulative(const gr_histogram_t *h, int i)
{
    uint64_t n = 0;
    for (int j = 0; j <= i && j < GR_HISTOGRAM_BUCKETS; j++)
        n += h->counts[j];
    return n;
}

double gr_histogram_quantile(const gr_histogram_t *h, double q)
{
    if (h->count == 0 || h->sum_ns == 0)
        return 0; /* nothing, or only zeros (a time that never happens): not half a bucket */
    if (q < 0)
        q = 0;
    if (q > 1)
        q = 1;
    double rank = q * (double)h->count;
    uint64_t before = 0;
    for (int i = 0; i < GR_HISTOGRAM_BUCKETS; i++) {
        uint64_t n = h->counts[i];
        if (n == 0 || (double)(before + n) < rank) {
            before += n;
            continue;
        }
        if (i == GR_HISTOGRAM_BOUNDS) /* above the last bound: nothing to interpolate to */
            return (double)gr_histogram_bound_ns(GR_HISTOGRAM_BOUNDS - 1);
        double lower = i == 0 ? 0 : (double)gr_histogram_bound_ns(i - 1);
        double upper = (double)gr_histogram_bound_ns(i);
        double within = (rank - (double)before) / (double)n;
        return lower + (upper - lower) * within;
    }
    return (double)gr_histogram_bound_ns(GR_HISTOGRAM_BOUNDS - 1);
}

void gr_histogram_subtract(gr_histogram_t *out, const gr_histogram_t *a, const gr_histogram_t *b)
{
    for (int i = 0; i < GR_HISTOGRAM_BUCKETS; i++)
        out->counts[i] = a->counts[i] - b->counts[i];
    out->count = a->count - b->count;
    out->sum_ns = a->sum_ns - b->sum_ns;
}
