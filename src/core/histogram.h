/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A latency histogram with fixed buckets, for request times.
 *
 * Buckets: upper bounds (inclusive, as Prometheus' `le`) from 10 µs to
 * 100 s, ten per decade at 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k, so
 * a value is placed within 25% of its size; one more bucket holds what is
 * above 100 s. Recording is a binary search over the 71 bounds (7 integer
 * compares) and three additions: no allocation, no floating point.
 *
 * Quantiles interpolate linearly inside the bucket the rank falls in (the
 * first bucket starts at 0; the overflow bucket reads as 100 s). The bounds
 * exposed as a Prometheus histogram are 10 µs and the 2.5, 5 and 10 of each
 * decade:
 * a subset of the internal ones, so their cumulative counts are exact.
 *
 * A window (the last minute or two) is the difference of two histograms:
 * a snapshot taken earlier subtracted from the running one.
 *
 * Runs on: whatever thread owns the histogram; no locking.
 */
#ifndef GR_CORE_HISTOGRAM_H
#define GR_CORE_HISTOGRAM_H

#include <stdint.h>

#define GR_HISTOGRAM_BOUNDS  71 /* 10 µs, then 7 decades of 10 */
#define GR_HISTOGRAM_BUCKETS (GR_HISTOGRAM_BOUNDS + 1)
#define GR_HISTOGRAM_EXPOSED 22 /* 10 µs, then 2.5, 5, 10 of each decade */

typedef struct gr_histogram {
    uint64_t counts[GR_HISTOGRAM_BUCKETS]; /* per bucket, not cumulative */
    uint64_t count;
    uint64_t sum_ns;
} gr_histogram_t;

/* Adds one value in nanoseconds. */
void gr_histogram_record(gr_histogram_t *h, uint64_t ns);

/* The upper bound of internal bucket i (0 <= i < GR_HISTOGRAM_BOUNDS) in ns. */
uint64_t gr_histogram_bound_ns(int i);

/* The bucket a value falls in: 0..GR_HISTOGRAM_BOUNDS (the last is overflow). */
int gr_histogram_bucket(uint64_t ns);

/* The internal bucket index of exposed bound k (0 <= k < GR_HISTOGRAM_EXPOSED). */
int gr_histogram_exposed_index(int k);

/* Values <= bound of internal bucket i (cumulative count through bucket i). */
uint64_t gr_histogram_cumulative(const gr_histogram_t *h, int i);

/*
 * The q-quantile (0 <= q <= 1) in ns, interpolated within its bucket; 0 for
 * an empty histogram.
 */
double gr_histogram_quantile(const gr_histogram_t *h, double q);

/* out = a - b, bucket by bucket; b must be an earlier snapshot of a. */
void gr_histogram_subtract(gr_histogram_t *out, const gr_histogram_t *a, const gr_histogram_t *b);

#endif
