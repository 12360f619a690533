/* SPDX-License-Identifier: Apache-2.0 */
#include "txn_util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rdk_util.h"

#define TXN_WAIT_SLICE_MS 100
#define NS_PER_MS         1000000L

int txn_value_format(char *buf, size_t size, const char *label, long txn, long seq)
{
    int len = snprintf(buf, size, "%s-%ld-%ld", label, txn, seq);

    return len < 0 || (size_t)len >= size ? -EINVAL : len;
}

/* Parses the decimal number text[0..len) (no sign, 1 to 9 digits). -1 if not one. */
static long txn_number(const char *text, size_t len)
{
    long value = 0;

    if (len == 0 || len > 9)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

int txn_value_parse(const void *data, size_t len, char label[TXN_LABEL_MAX], long *txn, long *seq)
{
    const char *text = data;
    size_t seq_dash, txn_dash;

    if (!data || len < 5)
        return -EINVAL;
    /* From the right: the label may hold dashes, the numbers do not. */
    for (seq_dash = len; seq_dash > 0 && text[seq_dash - 1] != '-'; seq_dash--)
        ;
    if (seq_dash < 2)
        return -EINVAL;
    for (txn_dash = seq_dash - 1; txn_dash > 0 && text[txn_dash - 1] != '-'; txn_dash--)
        ;
    if (txn_dash < 2 || txn_dash - 1 >= TXN_LABEL_MAX)
        return -EINVAL;
    *txn = txn_number(text + txn_dash, seq_dash - 1 - txn_dash);
    *seq = txn_number(text + seq_dash, len - seq_dash);
    if (*txn < 0 || *seq < 0)
        return -EINVAL;
    memcpy(label, text, txn_dash - 1);
    label[txn_dash - 1] = '\0';
    return 0;
}

void txn_print_error(const char *prog, const char *what, const rd_kafka_error_t *error)
{
    fprintf(stderr, "%s: %s: %s: %s%s%s%s\n", prog, what, rd_kafka_error_name(error),
            rd_kafka_error_string(error), rd_kafka_error_is_fatal(error) ? " [fatal]" : "",
            rd_kafka_error_txn_requires_abort(error) ? " [abortable]" : "",
            rd_kafka_error_is_retriable(error) ? " [retriable]" : "");
}

rd_kafka_error_t *txn_call_retrying(rd_kafka_t *rk, txn_call_fn fn, const char *prog,
                                    const char *what, double deadline)
{
    for (;;) {
        double left = deadline - rdk_now();
        int timeout_ms = left > 1 ? (int)(left * 1000) : 1000;
        rd_kafka_error_t *error = fn(rk, timeout_ms);

        if (!error || !rd_kafka_error_is_retriable(error) || rdk_now() >= deadline)
            return error;
        fprintf(stderr, "%s: %s: %s: %s (retrying)\n", prog, what, rd_kafka_error_name(error),
                rd_kafka_error_string(error));
        rd_kafka_error_destroy(error);
    }
}

int txn_wait_signal(rd_kafka_t *rk, const sigset_t *set)
{
    const struct timespec slice = {0, TXN_WAIT_SLICE_MS * NS_PER_MS};

    for (;;) {
        int signo = sigtimedwait(set, NULL, &slice);

        if (signo > 0)
            return signo;
        if (rk)
            rd_kafka_poll(rk, 0);
    }
}
