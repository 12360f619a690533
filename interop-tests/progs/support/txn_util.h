/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the transaction test programs (txn_producer, txn_pipeline,
 * txn_verify) share: the record values that name their own transaction,
 * librdkafka's transactional calls retried while their error is retriable,
 * and waiting for a signal while librdkafka's queues are served.
 *
 * A transactional record's value is "<label>-<txn>-<seq>": label names the
 * producer run (it may itself hold '-'), txn the transaction's number in
 * that run, seq the record's place in the transaction (0..count-1). The
 * producer prints one status line per step of each transaction (see
 * txn_producer.c); txn_verify reads those lines back as its expectations.
 */
#ifndef GR_INTEROP_TXN_UTIL_H
#define GR_INTEROP_TXN_UTIL_H

#include <signal.h>
#include <stddef.h>

#include <librdkafka/rdkafka.h>

#define TXN_LABEL_MAX 64
#define TXN_VALUE_MAX (TXN_LABEL_MAX + 48)

/* Writes "<label>-<txn>-<seq>" into buf. Returns its length, or -EINVAL
 * when it does not fit. */
int txn_value_format(char *buf, size_t size, const char *label, long txn, long seq);

/*
 * Parses a value written by txn_value_format: label (copied, NUL-ended, at
 * most TXN_LABEL_MAX - 1 bytes) and the two trailing decimal numbers.
 * Returns 0, or -EINVAL when the value is not one.
 */
int txn_value_parse(const void *data, size_t len, char label[TXN_LABEL_MAX], long *txn /* out */,
                    long *seq /* out */);

/* A transactional call of librdkafka's taking (rk, timeout_ms). */
typedef rd_kafka_error_t *(*txn_call_fn)(rd_kafka_t *rk, int timeout_ms);

/*
 * Calls fn until it succeeds, fails with an error that is not retriable, or
 * deadline (rdk_now() seconds) passes; each retriable failure is printed
 * on stderr as "<prog>: <what>: NAME: reason (retrying)". Returns NULL on
 * success, else the last error (the caller destroys it).
 */
rd_kafka_error_t *txn_call_retrying(rd_kafka_t *rk, txn_call_fn fn, const char *prog,
                                    const char *what, double deadline);

/* Prints "<prog>: <what>: NAME: reason [fatal] [abortable] [retriable]" on stderr. */
void txn_print_error(const char *prog, const char *what, const rd_kafka_error_t *error);

/*
 * Waits until one of the signals in set is pending (they must be blocked in
 * every thread, i.e. before rd_kafka_new), serving rk's queue meanwhile
 * (rk may be NULL). Returns the signal taken.
 */
int txn_wait_signal(rd_kafka_t *rk, const sigset_t *set);

#endif
