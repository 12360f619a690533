/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the librdkafka benchmark programs (bench/progs/bench_*.c):
 * a monotonic clock, client configuration from "key=value" strings, the
 * partition count of a topic, and the reading of a broker's watermarks.
 *
 * The programs print one JSON object as their last stdout line; the driver
 * (bench/run.py) reads that line and nothing else.
 *
 * Thread: callers' own; nothing here keeps state.
 */
#ifndef GR_BENCH_RK_H
#define GR_BENCH_RK_H

#include <stdint.h>

#include <librdkafka/rdkafka.h>

#define BENCH_MAX_CONF 32 /* -X key=value settings per program */

/* A program's librdkafka settings, in the order given. */
typedef struct bench_conf {
    const char *pairs[BENCH_MAX_CONF]; /* "key=value" */
    int count;
} bench_conf_t;

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);

/* Nanoseconds on CLOCK_MONOTONIC (for latency stamps in record values). */
int64_t bench_now_ns(void);

/* Adds "key=value" to conf; returns 0, or -E2BIG when full. */
int bench_conf_add(bench_conf_t *conf, const char *pair);

/*
 * Builds a librdkafka configuration: bootstrap.servers, then the pairs of
 * every given list in order (later ones win). Returns the configuration
 * (caller owns it) or NULL after printing the bad setting on stderr.
 */
rd_kafka_conf_t *bench_conf_build(const char *bootstrap, const bench_conf_t *lists[], int count);

/*
 * Waits up to timeout_s for metadata of topic and returns its partition
 * count, or -1 if the topic is still unknown.
 */
int bench_partition_count(rd_kafka_t *rk, const char *topic, double timeout_s);

/*
 * Reads the low and high watermarks of one partition from the broker.
 * Returns 0, or -1 after printing the error on stderr.
 */
int bench_watermarks(rd_kafka_t *rk, const char *topic, int32_t partition, int64_t *low /* out */,
                     int64_t *high /* out */);

#endif
