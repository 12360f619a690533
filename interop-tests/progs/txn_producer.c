// SPDX-License-Identifier: Apache-2.0
/*
 * txn_producer: a librdkafka transactional producer for the transaction
 * tests. It runs transactions one after the other, each writing count
 * records, and ends each as asked: commit, abort, left open (a hanging or
 * dying producer), or, in fence mode, overtaken by a second producer with
 * the same transactional id.
 *
 * Usage:
 *   txn_producer -b bootstrap -t topic -i transactional.id [-n count] [-r txns]
 *                [-s first_txn] [-e endings] [-l label] [-k keys] [-p p,q,...]
 *                [-T transaction.timeout.ms] [-w seconds] [-H] [-A] [-F] [-X key=value]...
 *
 *   -n  records per transaction (default 10)
 *   -r  transactions to run (default 1), numbered first_txn.. (-s, default 0)
 *   -e  how each transaction ends: a string of letters, transaction k of
 *       the run taking letter k modulo its length:
 *         c  commit              a  abort
 *         h  hang: leave it open and wait for SIGTERM/SIGINT, then exit
 *            without ending it (_exit: nothing of librdkafka's shutdown runs)
 *         x  exit at once without ending it (a producer that dies)
 *       or a word: commit (c), abort (a), alternate (ca), hang (h), exit (x).
 *       Default c.
 *   -l  label in the record values (default: the transactional id)
 *   -k  keys: record seq gets key "key-<seq % keys>" (default: the key is
 *       the value itself)
 *   -p  partitions to write to, round robin by seq (default: all of the
 *       topic's, which must exist)
 *   -T  transaction.timeout.ms (default librdkafka's, 60000)
 *   -w  deadline in seconds for each step, retriable errors retried meanwhile
 *       (default 120)
 *   -H  hold: before ending each transaction print "holding" and wait for
 *       SIGUSR1 (SIGTERM/SIGINT instead: exit without ending it)
 *   -A  a commit that fails with an abortable error is aborted and the run
 *       goes on (by default that is a failure: exit 1 after the abort)
 *   -F  fence mode: the first transaction is written by producer A, then a
 *       second producer B initialises the same transactional id, which must
 *       fence A: A writes count more records and commits, and must fail
 *       with a fatal fencing error (_FENCED, PRODUCER_FENCED or
 *       INVALID_PRODUCER_EPOCH). The coordinator aborts A's transaction;
 *       B runs the remaining transactions.
 *   -X  librdkafka property (repeatable), applied after the defaults
 *
 * Transaction txn's record seq (0..count-1) has the value
 * "<label>-<txn>-<seq>" (support/txn_util.h). Status lines on stdout, one
 * per step, flushed at once (scripts wait for them):
 *   open L T N         T's N records are delivered (in the log); not ended
 *   holding L T        (-H) waiting for SIGUSR1 before ending T
 *   committing L T N   commit_transaction called ...
 *   committed L T N    ... and succeeded
 *   aborting L T N / aborted L T N   likewise for abort_transaction
 *   hanging L T N      (h) left open, waiting for a stop signal
 *   exiting L T N      leaving without ending T (x, or a stop signal)
 *   failed L T N ERR   a fatal error ended the run during T; its outcome
 *                      is the coordinator's
 *   fenced L T ERR     (-F) producer A was fenced with ERR; the next line
 *                      is "aborted L T N" (the coordinator aborts it)
 * The last line of a transaction says what a read_committed consumer must
 * see of it (txn_verify reads these lines).
 *
 * Exit status: 0 every transaction ended as asked, 1 an unexpected error
 * (printed on stderr), 2 bad usage, 3 (-F) producer A was not fenced.
 *
 * Thread: main thread only; delivery reports run inside rd_kafka_poll() and
 * rd_kafka_flush() on it. SIGUSR1, SIGTERM and SIGINT are blocked before
 * librdkafka starts its threads and taken with sigtimedwait().
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "support/prog_opts.h"
#include "support/rdk_util.h"
#include "support/txn_util.h"

#define TP_PROG            "txn_producer"
#define TP_MAX_EXTRA       64
#define TP_MAX_PARTITIONS  1024
#define TP_MAX_ENDINGS     64
#define TP_MAX_COUNT       1000000L
#define TP_MAX_TXNS        1000000L
#define TP_DEFAULT_COUNT   10
#define TP_DEFAULT_WAIT_S  120
#define TP_POLL_MS         100
#define TP_KEY_MAX         32
#define TP_EXIT_FAILED     1
#define TP_EXIT_USAGE      2
#define TP_EXIT_NOT_FENCED 3

/* One transaction's delivery reports (the delivery callback's opaque). */
typedef struct tp_txn {
    long delivered;
    long failed;
    rd_kafka_resp_err_t first_error;
} tp_txn_t;

typedef struct tp_run {
    const char *bootstrap;
    const char *topic;
    const char *txn_id;
    const char *label;
    const char *timeout_ms;
    const char *extra[TP_MAX_EXTRA];
    int extra_count;
    char endings[TP_MAX_ENDINGS];
    long count;
    long txns;
    long first_txn;
    long keys;
    int wait_s;
    bool hold;
    bool accept_aborts;
    bool fence;
    int32_t partitions[TP_MAX_PARTITIONS];
    int partition_count;

    sigset_t signals; /* SIGUSR1 (go on) and the stop signals */
    tp_txn_t txn;     /* the transaction being written */
    bool unexpected;  /* something went otherwise than asked */
} tp_run_t;

static void tp_on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque)
{
    tp_run_t *run = opaque;

    (void)rk;
    if (!msg->err) {
        run->txn.delivered++;
        return;
    }
    if (run->txn.failed++ == 0)
        run->txn.first_error = msg->err;
}

static void tp_on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    (void)rk;
    (void)opaque;
    fprintf(stderr, TP_PROG ": error event: %s: %s\n", rd_kafka_err2name((rd_kafka_resp_err_t)err),
            reason);
}

static double tp_deadline(const tp_run_t *run)
{
    return rdk_now() + run->wait_s;
}

/* A transactional producer, initialised (init_transactions succeeded). NULL on failure. */
static rd_kafka_t *tp_producer_new(tp_run_t *run, const char *name)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_t *rk;
    rd_kafka_error_t *error;
    const char *defaults[][2] = {
        {"bootstrap.servers", run->bootstrap},
        {"transactional.id", run->txn_id},
        {"client.id", name},
        {"log_level", "4"},
    };

    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        if (rdk_conf_set(conf, TP_PROG, defaults[i][0], defaults[i][1]) != 0)
            goto fail;
    if (run->timeout_ms &&
        rdk_conf_set(conf, TP_PROG, "transaction.timeout.ms", run->timeout_ms) != 0)
        goto fail;
    for (int j = 0; j < run->extra_count; j++)
        if (rdk_conf_set_pair(conf, TP_PROG, run->extra[j]) != 0)
            goto fail;
    rd_kafka_conf_set_dr_msg_cb(conf, tp_on_delivery);
    rd_kafka_conf_set_error_cb(conf, tp_on_error);
    rd_kafka_conf_set_opaque(conf, run);
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, TP_PROG ": %s: %s\n", name, errstr);
        goto fail;
    }
    error = txn_call_retrying(rk, rd_kafka_init_transactions, TP_PROG, "init_transactions",
                              tp_deadline(run));
    if (error) {
        txn_print_error(TP_PROG, "init_transactions", error);
        rd_kafka_error_destroy(error);
        rd_kafka_destroy(rk);
        return NULL;
    }
    return rk;
fail:
    rd_kafka_conf_destroy(conf);
    return NULL;
}

/* Fills run->partitions with every partition of the topic unless -p named them. 0 or -1. */
static int tp_partitions(tp_run_t *run, rd_kafka_t *rk)
{
    int count;

    if (run->partition_count > 0)
        return 0;
    count = rdk_partition_count(rk, run->topic, tp_deadline(run));
    if (count <= 0 || count > TP_MAX_PARTITIONS) {
        fprintf(stderr, TP_PROG ": no usable metadata for topic %s (partitions %d)\n", run->topic,
                count);
        return -1;
    }
    for (int p = 0; p < count; p++)
        run->partitions[p] = p;
    run->partition_count = count;
    return 0;
}

/* Hands records first_seq..first_seq+n-1 of txn to librdkafka. 0, or -1 (printed). */
static int tp_produce(tp_run_t *run, rd_kafka_t *rk, long txn, long first_seq, long n)
{
    for (long seq = first_seq; seq < first_seq + n; seq++) {
        char value[TXN_VALUE_MAX], key[TP_KEY_MAX];
        int value_len = txn_value_format(value, sizeof(value), run->label, txn, seq);
        const char *key_ptr;
        int key_len;
        rd_kafka_resp_err_t err;

        if (value_len < 0)
            return -1;
        /* With -k the keys repeat (compaction keeps the last of each);
         * without, the key is the value itself. */
        if (run->keys > 0) {
            key_len = snprintf(key, sizeof(key), "key-%ld", seq % run->keys);
            key_ptr = key;
        } else {
            key_len = value_len;
            key_ptr = value;
        }
        for (;;) {
            err =
                rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(run->topic),
                                  RD_KAFKA_V_PARTITION(run->partitions[seq % run->partition_count]),
                                  RD_KAFKA_V_KEY(key_ptr, (size_t)key_len),
                                  RD_KAFKA_V_VALUE(value, (size_t)value_len),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
            if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
                break;
            rd_kafka_poll(rk, TP_POLL_MS);
        }
        if (err) {
            fprintf(stderr, TP_PROG ": produce of %s: %s\n", value, rd_kafka_err2name(err));
            return -1;
        }
    }
    return 0;
}

/* Waits for every record handed over to be reported. 0, or -1 at the deadline. */
static int tp_flush(tp_run_t *run, rd_kafka_t *rk)
{
    double deadline = tp_deadline(run);

    while (rd_kafka_outq_len(rk) > 0 && rdk_now() < deadline)
        rd_kafka_flush(rk, TP_POLL_MS);
    return rd_kafka_outq_len(rk) > 0 ? -1 : 0;
}

static void tp_status(const char *what, const tp_run_t *run, long txn, long n)
{
    printf("%s %s %ld %ld\n", what, run->label, txn, n);
    fflush(stdout);
}

/* Aborts the current transaction. 0, or -1 (printed; "failed" line). */
static int tp_abort(tp_run_t *run, rd_kafka_t *rk, long txn)
{
    rd_kafka_error_t *error;

    tp_status("aborting", run, txn, run->count);
    error = txn_call_retrying(rk, rd_kafka_abort_transaction, TP_PROG, "abort_transaction",
                              tp_deadline(run));
    if (error) {
        txn_print_error(TP_PROG, "abort_transaction", error);
        printf("failed %s %ld %ld %s\n", run->label, txn, run->count, rd_kafka_error_name(error));
        fflush(stdout);
        rd_kafka_error_destroy(error);
        return -1;
    }
    tp_status("aborted", run, txn, run->count);
    return 0;
}

/* Commits the current transaction (aborting it if the commit says so). 0 or -1. */
static int tp_commit(tp_run_t *run, rd_kafka_t *rk, long txn)
{
    rd_kafka_error_t *error;

    tp_status("committing", run, txn, run->count);
    error = txn_call_retrying(rk, rd_kafka_commit_transaction, TP_PROG, "commit_transaction",
                              tp_deadline(run));
    if (!error) {
        tp_status("committed", run, txn, run->count);
        return 0;
    }
    txn_print_error(TP_PROG, "commit_transaction", error);
    if (rd_kafka_error_txn_requires_abort(error)) {
        rd_kafka_error_destroy(error);
        if (!run->accept_aborts)
            run->unexpected = true;
        return tp_abort(run, rk, txn);
    }
    printf("failed %s %ld %ld %s\n", run->label, txn, run->count, rd_kafka_error_name(error));
    fflush(stdout);
    rd_kafka_error_destroy(error);
    return -1;
}

/* Leaves without ending txn: the process ends here, as a producer that dies. */
static void tp_die(const tp_run_t *run, long txn)
{
    tp_status("exiting", run, txn, run->count);
    _exit(0);
}

/*
 * Begins txn and writes its records. 0 when every record was delivered
 * ("open" printed), -1 on a failure (printed; the transaction is then
 * aborted if librdkafka allows it).
 */
static int tp_write(tp_run_t *run, rd_kafka_t *rk, long txn)
{
    rd_kafka_error_t *error = rd_kafka_begin_transaction(rk);

    if (error) {
        txn_print_error(TP_PROG, "begin_transaction", error);
        rd_kafka_error_destroy(error);
        return -1;
    }
    run->txn = (tp_txn_t){0};
    if (tp_produce(run, rk, txn, 0, run->count) != 0 || tp_flush(run, rk) != 0 ||
        run->txn.delivered != run->count) {
        fprintf(stderr, TP_PROG ": transaction %ld: %ld of %ld records delivered (%s)\n", txn,
                run->txn.delivered, run->count,
                run->txn.failed ? rd_kafka_err2name(run->txn.first_error) : "not all reported");
        tp_abort(run, rk, txn);
        return -1;
    }
    tp_status("open", run, txn, run->count);
    return 0;
}

/* Ends txn as its letter says. 0, or -1 on a failure (printed). */
static int tp_end(tp_run_t *run, rd_kafka_t *rk, long txn, char ending)
{
    if (run->hold && (ending == 'c' || ending == 'a')) {
        printf("holding %s %ld\n", run->label, txn);
        fflush(stdout);
        if (txn_wait_signal(rk, &run->signals) != SIGUSR1)
            tp_die(run, txn);
    }
    switch (ending) {
    case 'c':
        return tp_commit(run, rk, txn);
    case 'a':
        return tp_abort(run, rk, txn);
    case 'h':
        tp_status("hanging", run, txn, run->count);
        while (txn_wait_signal(rk, &run->signals) == SIGUSR1)
            ; /* only a stop signal ends a hang */
        tp_die(run, txn);
        return -1;
    default:
        tp_die(run, txn);
        return -1;
    }
}

static bool tp_fencing_error(rd_kafka_resp_err_t err)
{
    return err == RD_KAFKA_RESP_ERR__FENCED || err == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
           err == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
}

/*
 * Fence mode's first transaction: producer A writes it, producer B
 * initialises the same transactional id, then A writes more and commits,
 * which must fail fatally with a fencing error. Returns B (initialised),
 * or NULL with *status set.
 */
static rd_kafka_t *tp_fence(tp_run_t *run, rd_kafka_t *first, long txn, int *status)
{
    rd_kafka_t *second;
    rd_kafka_error_t *error;
    char reason[512];
    rd_kafka_resp_err_t fatal;

    if (tp_write(run, first, txn) != 0) {
        *status = TP_EXIT_FAILED;
        return NULL;
    }
    second = tp_producer_new(run, "txn-producer-B");
    if (!second) {
        *status = TP_EXIT_FAILED;
        return NULL;
    }
    /* A goes on as if nothing happened: more records, then the commit. */
    if (tp_produce(run, first, txn, run->count, run->count) == 0)
        tp_flush(run, first);
    error = rd_kafka_commit_transaction(first, run->wait_s * 1000);
    fatal = rd_kafka_fatal_error(first, reason, sizeof(reason));
    if (error)
        txn_print_error(TP_PROG, "producer A's commit after B's init", error);
    if (!error || !rd_kafka_error_is_fatal(error) ||
        !tp_fencing_error(rd_kafka_error_code(error)) || !tp_fencing_error(fatal)) {
        fprintf(stderr, TP_PROG ": producer A was not fenced (commit: %s, fatal error: %s)\n",
                error ? rd_kafka_error_name(error) : "succeeded", rd_kafka_err2name(fatal));
        if (error)
            rd_kafka_error_destroy(error);
        rd_kafka_destroy(second);
        *status = TP_EXIT_NOT_FENCED;
        return NULL;
    }
    printf("fenced %s %ld %s\n", run->label, txn, rd_kafka_error_name(error));
    tp_status("aborted", run, txn, run->count);
    rd_kafka_error_destroy(error);
    return second;
}

/* Runs every transaction. Returns the exit status. */
static int tp_run(tp_run_t *run)
{
    rd_kafka_t *rk = tp_producer_new(run, "txn-producer-A");
    size_t endings = strlen(run->endings);
    int status = TP_EXIT_FAILED;
    long k = 0;

    if (!rk || tp_partitions(run, rk) != 0)
        goto done;
    if (run->fence) {
        rd_kafka_t *second = tp_fence(run, rk, run->first_txn, &status);

        /* A is fenced: its destruction must not wait on anything. */
        rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
        rk = second;
        if (!rk)
            goto done;
        k = 1;
    }
    for (; k < run->txns; k++) {
        long txn = run->first_txn + k;

        if (tp_write(run, rk, txn) != 0 || tp_end(run, rk, txn, run->endings[k % endings]) != 0)
            goto done;
    }
    status = run->unexpected ? TP_EXIT_FAILED : 0;
done:
    if (rk)
        rd_kafka_destroy(rk);
    return status;
}

/* Parses "-p 0,2,5" into the run OUT. 0 or -EINVAL. */
static int tp_parse_partitions(void *out, const char *text)
{
    tp_run_t *run = out;
    char *end = NULL;

    run->partition_count = 0;
    while (*text && run->partition_count < TP_MAX_PARTITIONS) {
        long p = strtol(text, &end, 10);

        if (end == text || p < 0 || p > INT32_MAX || (*end && *end != ','))
            return -EINVAL;
        run->partitions[run->partition_count++] = (int32_t)p;
        text = *end ? end + 1 : end;
    }
    return run->partition_count > 0 && !*text ? 0 : -EINVAL;
}

/* Parses -e into the run OUT: letters from "chax", or one of the words. 0 or
 * -EINVAL. */
static int tp_parse_endings(void *out, const char *text)
{
    tp_run_t *run = out;
    static const char *const words[][2] = {
        {"commit", "c"}, {"abort", "a"}, {"alternate", "ca"}, {"hang", "h"}, {"exit", "x"},
    };

    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strcmp(text, words[i][0]) == 0)
            text = words[i][1];
    if (!*text || strlen(text) >= sizeof(run->endings) || strspn(text, "cahx") != strlen(text))
        return -EINVAL;
    strcpy(run->endings, text);
    return 0;
}

static void tp_usage(void)
{
    fprintf(stderr, "usage: " TP_PROG " -b bootstrap -t topic -i transactional.id [-n count] "
                    "[-r txns] [-s first_txn]\n"
                    "       [-e c|a|h|x letters, or commit|abort|alternate|hang|exit] [-l label] "
                    "[-k keys]\n"
                    "       [-p p,q,...] [-T transaction.timeout.ms] [-w seconds] [-H] [-A] [-F] "
                    "[-X key=value]...\n");
}

/* -T: transaction.timeout.ms, a positive int32, handed on as given. */
static int tp_parse_timeout(void *out, const char *arg)
{
    long number;

    if (rdk_parse_long(arg, 1, INT32_MAX, &number) != 0)
        return -EINVAL;
    *(const char **)out = arg;
    return 0;
}

int main(int argc, char **argv)
{
    tp_run_t run = {.count = TP_DEFAULT_COUNT, .txns = 1, .wait_s = TP_DEFAULT_WAIT_S};
    const prog_opt_t opts[] = {
        PROG_REQUIRED('b', &run.bootstrap),
        PROG_REQUIRED('t', &run.topic),
        PROG_REQUIRED('i', &run.txn_id),
        PROG_LONG('n', &run.count, 1, TP_MAX_COUNT),
        PROG_LONG('r', &run.txns, 1, TP_MAX_TXNS),
        PROG_LONG('s', &run.first_txn, 0, TP_MAX_TXNS),
        PROG_CUSTOM('e', &run, tp_parse_endings),
        PROG_STRING('l', &run.label),
        PROG_LONG('k', &run.keys, 1, TP_MAX_COUNT),
        PROG_CUSTOM('p', &run, tp_parse_partitions),
        PROG_CUSTOM('T', &run.timeout_ms, tp_parse_timeout),
        PROG_OPT_WAIT_S(&run.wait_s),
        PROG_FLAG('H', &run.hold),
        PROG_FLAG('A', &run.accept_aborts),
        PROG_FLAG('F', &run.fence),
        PROG_OPT_EXTRA(run.extra, &run.extra_count, TP_MAX_EXTRA),
    };

    strcpy(run.endings, "c");
    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), false) < 0 ||
        (run.fence && run.txns < 2))
        goto usage;
    if (!run.label)
        run.label = run.txn_id;
    if (strlen(run.label) >= TXN_LABEL_MAX) {
        fprintf(stderr, TP_PROG ": label longer than %d bytes\n", TXN_LABEL_MAX - 1);
        goto usage;
    }
    sigemptyset(&run.signals);
    sigaddset(&run.signals, SIGUSR1);
    sigaddset(&run.signals, SIGTERM);
    sigaddset(&run.signals, SIGINT);
    /* Before rd_kafka_new: librdkafka's threads inherit the mask. */
    if (sigprocmask(SIG_BLOCK, &run.signals, NULL) != 0) {
        perror(TP_PROG ": sigprocmask");
        return TP_EXIT_FAILED;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    return tp_run(&run);
usage:
    tp_usage();
    return TP_EXIT_USAGE;
}
