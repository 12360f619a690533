/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the librdkafka test programs share: a monotonic clock, sorted
 * partition lists printed as the scripts parse them, config setting with a
 * message (also from a -X "key=value" argument), a topic's partition count
 * waited for, stop signals polled, and bounded number parsing.
 */
#ifndef GR_INTEROP_RDK_UTIL_H
#define GR_INTEROP_RDK_UTIL_H

#include <signal.h>
#include <stdbool.h>

#include <librdkafka/rdkafka.h>

/* Seconds on the monotonic clock. */
double rdk_now(void);

/* qsort order of rd_kafka_topic_partition_t: by topic, then partition. */
int rdk_compare_partitions(const void *a, const void *b);

/* Prints "<label> [<count> ]t:p,t:p" (or "-" for none), sorted, on one line. */
void rdk_print_partitions(const char *label, const rd_kafka_topic_partition_list_t *parts,
                          bool with_count);

/* rd_kafka_conf_set, printing "<prog>: key=value: why" on failure. 0 or -EINVAL. */
int rdk_conf_set(rd_kafka_conf_t *conf, const char *prog, const char *key, const char *value);

/* rdk_conf_set of a "key=value" argument (a -X option). 0, or -EINVAL after
 * printing why (no '=', empty or overlong key, or the value refused). */
int rdk_conf_set_pair(rd_kafka_conf_t *conf, const char *prog, const char *pair);

/*
 * The partition count of TOPIC from rk's metadata, asked every 100 ms until
 * deadline (rdk_now() seconds) while the topic is unknown or leaderless (being
 * created, or a failover under way). Never auto-creates it beyond what rk's
 * own config asks. Returns the count, or -1 at the deadline.
 */
int rdk_partition_count(rd_kafka_t *rk, const char *topic, double deadline);

/* True when a stop signal is pending (it is taken off the pending set). */
bool rdk_stop_requested(const sigset_t *stop_signals);

/* Parses a decimal long in [min, max]. Returns 0 and sets *out, or -EINVAL. */
int rdk_parse_long(const char *text, long min, long max, long *out /* out */);

#endif
