/* SPDX-License-Identifier: Apache-2.0 */
/* The request-time histogram: see histogram.h. */
#include "core/histogram.h"

#include <stddef.h>

#define STEPS_PER_DECADE 10
/*
 * The upper bounds in ns: 10 µs, then 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10
 * of each decade up to 100 s. A table so that the binary search of every
 * recorded request compares without dividing.
 */
static const uint64_t bounds_ns[GR_HISTOGRAM_BOUNDS] = {
    10000, /* 10 µs */
    12500,       15000,       20000,       25000,       30000,       40000,       50000,
    60000,       80000,       100000,      125000,      150000,      200000,      250000,
    300000,      400000,      500000,      600000,      800000,      1000000,     1250000,
    1500000,     2000000,     2500000,     3000000,     4000000,     5000000,     6000000,
    8000000,     10000000,    12500000,    15000000,    20000000,    25000000,    30000000,
    40000000,    50000000,    60000000,    80000000,    100000000,   125000000,   150000000,
    200000000,   250000000,   300000000,   400000000,   500000000,   600000000,   800000000,
    1000000000,  1250000000,  1500000000,  2000000000,  2500000000,  3000000000,  4000000000,
    5000000000,  6000000000,  8000000000,  10000000000, 12500000000, 15000000000, 20000000000,
    25000000000, 30000000000, 40000000000, 50000000000, 60000000000, 80000000000, 100000000000,
};
/* Steps exposed to Prometheus: 2.5, 5 and 10 of each decade. */
static const uint8_t exposed_steps[] = {3, 6, 9};
#define EXPOSED_PER_DECADE (sizeof exposed_steps / sizeof exposed_steps[0])

uint64_t gr_histogram_bound_ns(int i)
{
    if (i <= 0)
        return bounds_ns[0];
    return bounds_ns[i < GR_HISTOGRAM_BOUNDS ? i : GR_HISTOGRAM_BOUNDS - 1];
}

int gr_histogram_bucket(uint64_t ns)
{
    /* The first bound >= ns; GR_HISTOGRAM_BOUNDS when there is none. */
    int lo = 0, hi = GR_HISTOGRAM_BOUNDS;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ns <= bounds_ns[mid])
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
