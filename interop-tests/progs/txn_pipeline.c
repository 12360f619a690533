// SPDX-License-Identifier: Apache-2.0
/*
 * txn_pipeline: an exactly-once consume-transform-produce loop with
 * librdkafka. A read_committed consumer in a group reads topic IN; each
 * batch of records is transformed and written to topic OUT by a
 * transactional producer, and the batch's input offsets are added to the
 * same transaction (send_offsets_to_transaction), which is then committed
 * (or, when asked, aborted and the batch read again). However often
 * batches are aborted or the program dies mid-batch and is started again,
 * OUT read with read_committed holds exactly one transformed record per
 * IN record, and the group's committed offsets end at IN's end.
 *
 * Usage:
 *   txn_pipeline -b bootstrap -g group -i in_topic -o out_topic -T transactional.id
 *                [-B batch] [-a every] [-x batch] [-n records] [-E] [-H] [-w seconds]
 *                [-X key=value]...
 *
 *   -B  records per batch, at most (default 20): a batch also ends when
 *       no record arrives for a moment
 *   -a  abort every this-many-th batch (batches every-1, 2*every-1, ...):
 *       the batch is then read again and goes into the next transaction
 *   -x  die (_exit, nothing ended) after batch K's records and offsets are
 *       in its transaction (K counts from 0 in this run)
 *   -n  stop once this many input records are committed in this run
 *   -E  stop once every assigned partition is at its end (read_committed:
 *       the last stable offset) and everything read is committed
 *   -H  hold: before committing each batch print "holding" and wait for
 *       SIGUSR1 (SIGTERM/SIGINT instead: die without ending it)
 *   -w  give up (exit 1) when nothing was committed for this many seconds
 *       (default 120)
 *   -X  librdkafka property for both the consumer and the producer
 *       (repeatable), e.g. -X session.timeout.ms=6000
 *
 * The transformed record: key as read, value "out:" + the value read, to
 * OUT's partition (in partition) % (OUT's partition count).
 *
 * Output (stdout, a line per step, flushed at once):
 *   holding batch K R       (-H) R input records wait for SIGUSR1
 *   committed batch K R     the batch's records and offsets are committed
 *   aborted batch K R       aborted (asked with -a, or an abortable error)
 *   crashing batch K R      (-x) dying with the transaction open
 *   txn_pipeline: batches=B committed=C aborted=A records=R
 * Exit status: 0 stopped as asked, 1 an error (printed on stderr), 2 bad usage.
 *
 * Thread: main thread only (the rebalance callback runs inside its
 * consumer polls).
 */
#include <errno.h>
#include <inttypes.h>
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

#define PL_PROG           "txn_pipeline"
#define PL_MAX_EXTRA      64
#define PL_MAX_BATCH      10000L
#define PL_MAX_PARTITIONS 1024
#define PL_DEFAULT_BATCH  20
#define PL_DEFAULT_WAIT_S 120
#define PL_POLL_MS        100
#define PL_OUT_PREFIX     "out:"
#define PL_VALUE_MAX      4096
#define PL_EXIT_FAILED    1
#define PL_EXIT_USAGE     2

typedef struct pl_run {
    const char *bootstrap;
    const char *group;
    const char *in_topic;
    const char *out_topic;
    const char *txn_id;
    const char *extra[PL_MAX_EXTRA];
    int extra_count;
    long batch_max;
    long abort_every;
    long crash_at; /* -1: never */
    long stop_after;
    bool stop_at_end;
    bool hold;
    int wait_s;

    rd_kafka_t *consumer;
    rd_kafka_t *producer;
    int out_partitions;
    sigset_t signals;
    bool assigned[PL_MAX_PARTITIONS];
    bool at_end[PL_MAX_PARTITIONS];
    bool revoked; /* partitions were revoked while a batch was being collected */
    long delivery_failures;

    rd_kafka_message_t **batch; /* batch_max entries */
    long batch_len;
    long batches, committed, aborted, records;
} pl_run_t;

static void pl_on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque)
{
    pl_run_t *run = opaque;

    (void)rk;
    if (msg->err && run->delivery_failures++ == 0)
        fprintf(stderr, PL_PROG ": delivery failed: %s\n", rd_kafka_err2name(msg->err));
}

static void pl_on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    (void)rk;
    (void)opaque;
    fprintf(stderr, PL_PROG ": error event: %s: %s\n", rd_kafka_err2name((rd_kafka_resp_err_t)err),
            reason);
}

static void pl_mark(pl_run_t *run, const rd_kafka_topic_partition_list_t *parts, bool assigned)
{
    for (int i = 0; i < parts->cnt; i++) {
        int32_t p = parts->elems[i].partition;

        if (p >= 0 && p < PL_MAX_PARTITIONS) {
            run->assigned[p] = assigned;
            run->at_end[p] = false;
        }
    }
}

/*
 * Eager rebalances. The consumer is polled only between transactions, so a
 * revocation never meets an open transaction; it may meet a batch being
 * collected, whose records the partitions' next owner reads again from the
 * committed offsets: the batch is dropped.
 */
static void pl_on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    pl_run_t *run = opaque;

    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        rdk_print_partitions("assigned", parts, false);
        pl_mark(run, parts, true);
        rd_kafka_assign(rk, parts);
        return;
    }
    pl_mark(run, parts, false);
    run->revoked = true;
    rd_kafka_assign(rk, NULL);
}

static int pl_conf_common(const pl_run_t *run, rd_kafka_conf_t *conf)
{
    if (rdk_conf_set(conf, PL_PROG, "bootstrap.servers", run->bootstrap) != 0 ||
        rdk_conf_set(conf, PL_PROG, "log_level", "4") != 0)
        return -EINVAL;
    for (int j = 0; j < run->extra_count; j++)
        if (rdk_conf_set_pair(conf, PL_PROG, run->extra[j]) != 0)
            return -EINVAL;
    rd_kafka_conf_set_error_cb(conf, pl_on_error);
    rd_kafka_conf_set_opaque(conf, (void *)run);
    return 0;
}

/* The consumer, subscribed to IN. 0 or -1 (printed). */
static int pl_consumer_new(pl_run_t *run)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_topic_partition_list_t *topics;
    rd_kafka_resp_err_t err;

    if (rdk_conf_set(conf, PL_PROG, "group.id", run->group) != 0 ||
        rdk_conf_set(conf, PL_PROG, "isolation.level", "read_committed") != 0 ||
        rdk_conf_set(conf, PL_PROG, "enable.auto.commit", "false") != 0 ||
        rdk_conf_set(conf, PL_PROG, "auto.offset.reset", "earliest") != 0 ||
        rdk_conf_set(conf, PL_PROG, "enable.partition.eof", "true") != 0 ||
        pl_conf_common(run, conf) != 0) {
        rd_kafka_conf_destroy(conf);
        return -1;
    }
    rd_kafka_conf_set_rebalance_cb(conf, pl_on_rebalance);
    run->consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!run->consumer) {
        fprintf(stderr, PL_PROG ": consumer: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
        return -1;
    }
    rd_kafka_poll_set_consumer(run->consumer);
    topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, run->in_topic, RD_KAFKA_PARTITION_UA);
    err = rd_kafka_subscribe(run->consumer, topics);
    rd_kafka_topic_partition_list_destroy(topics);
    if (err) {
        fprintf(stderr, PL_PROG ": subscribe: %s\n", rd_kafka_err2name(err));
        return -1;
    }
    return 0;
}

/* The transactional producer, initialised. 0 or -1 (printed). */
static int pl_producer_new(pl_run_t *run)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_error_t *error;

    if (rdk_conf_set(conf, PL_PROG, "transactional.id", run->txn_id) != 0 ||
        pl_conf_common(run, conf) != 0) {
        rd_kafka_conf_destroy(conf);
        return -1;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, pl_on_delivery);
    run->producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!run->producer) {
        fprintf(stderr, PL_PROG ": producer: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
        return -1;
    }
    error = txn_call_retrying(run->producer, rd_kafka_init_transactions, PL_PROG,
                              "init_transactions", rdk_now() + run->wait_s);
    if (error) {
        txn_print_error(PL_PROG, "init_transactions", error);
        rd_kafka_error_destroy(error);
        return -1;
    }
    run->out_partitions =
        rdk_partition_count(run->producer, run->out_topic, rdk_now() + run->wait_s);
    if (run->out_partitions <= 0) {
        fprintf(stderr, PL_PROG ": no metadata for topic %s\n", run->out_topic);
        return -1;
    }
    return 0;
}

static void pl_batch_clear(pl_run_t *run)
{
    for (long i = 0; i < run->batch_len; i++)
        rd_kafka_message_destroy(run->batch[i]);
    run->batch_len = 0;
}

static bool pl_all_at_end(const pl_run_t *run)
{
    bool any = false;

    for (int p = 0; p < PL_MAX_PARTITIONS; p++) {
        if (run->assigned[p] && !run->at_end[p])
            return false;
        any |= run->assigned[p];
    }
    return any;
}

/* Polls records into the batch until it is full or none came for a moment. */
static void pl_collect(pl_run_t *run)
{
    while (run->batch_len < run->batch_max) {
        rd_kafka_message_t *msg = rd_kafka_consumer_poll(run->consumer, PL_POLL_MS);
        int32_t p;

        if (run->revoked) {
            pl_batch_clear(run);
            run->revoked = false;
        }
        if (!msg)
            return;
        p = msg->partition;
        if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            if (p >= 0 && p < PL_MAX_PARTITIONS)
                run->at_end[p] = true;
            rd_kafka_message_destroy(msg);
            continue;
        }
        if (msg->err) {
            fprintf(stderr, PL_PROG ": consume: %s\n", rd_kafka_message_errstr(msg));
            rd_kafka_message_destroy(msg);
            continue;
        }
        if (p >= 0 && p < PL_MAX_PARTITIONS)
            run->at_end[p] = false;
        run->batch[run->batch_len++] = msg;
    }
}

/*
 * The batch's offsets: per partition, with offset the first read (first)
 * or one past the last read (next). The caller destroys the list.
 */
static rd_kafka_topic_partition_list_t *pl_batch_offsets(const pl_run_t *run, bool first)
{
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(16);

    for (long i = 0; i < run->batch_len; i++) {
        const rd_kafka_message_t *msg = run->batch[i];
        rd_kafka_topic_partition_t *tp =
            rd_kafka_topic_partition_list_find(list, rd_kafka_topic_name(msg->rkt), msg->partition);

        if (!tp) {
            tp = rd_kafka_topic_partition_list_add(list, rd_kafka_topic_name(msg->rkt),
                                                   msg->partition);
            tp->offset = first ? msg->offset : msg->offset + 1;
        } else if (first && msg->offset < tp->offset) {
            tp->offset = msg->offset;
        } else if (!first && msg->offset + 1 > tp->offset) {
            tp->offset = msg->offset + 1;
        }
    }
    return list;
}

/* Seeks the batch's partitions back to its first records: they are read again. 0 or -1. */
static int pl_rewind(pl_run_t *run)
{
    rd_kafka_topic_partition_list_t *list = pl_batch_offsets(run, true);
    rd_kafka_error_t *error = rd_kafka_seek_partitions(run->consumer, list, run->wait_s * 1000);
    int rc = 0;

    if (error) {
        txn_print_error(PL_PROG, "seek back after an abort", error);
        rd_kafka_error_destroy(error);
        rc = -1;
    }
    for (int i = 0; i < list->cnt && rc == 0; i++) {
        if (list->elems[i].err) {
            fprintf(stderr, PL_PROG ": seek back of partition %" PRId32 ": %s\n",
                    list->elems[i].partition, rd_kafka_err2name(list->elems[i].err));
            rc = -1;
        } else if (list->elems[i].partition < PL_MAX_PARTITIONS) {
            run->at_end[list->elems[i].partition] = false;
        }
    }
    rd_kafka_topic_partition_list_destroy(list);
    return rc;
}

/* Writes the batch's transformed records into the open transaction. 0 or -1. */
static int pl_produce(pl_run_t *run)
{
    char value[PL_VALUE_MAX];

    for (long i = 0; i < run->batch_len; i++) {
        const rd_kafka_message_t *msg = run->batch[i];
        int len = snprintf(value, sizeof(value), PL_OUT_PREFIX "%.*s", (int)msg->len,
                           msg->payload ? (const char *)msg->payload : "");
        rd_kafka_resp_err_t err;

        if (len < 0 || (size_t)len >= sizeof(value)) {
            fprintf(stderr, PL_PROG ": a record of %zu bytes is too long\n", msg->len);
            return -1;
        }
        do {
            err = rd_kafka_producev(run->producer, RD_KAFKA_V_TOPIC(run->out_topic),
                                    RD_KAFKA_V_PARTITION(msg->partition % run->out_partitions),
                                    RD_KAFKA_V_KEY(msg->key, msg->key_len),
                                    RD_KAFKA_V_VALUE(value, (size_t)len),
                                    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
            if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL)
                rd_kafka_poll(run->producer, PL_POLL_MS);
        } while (err == RD_KAFKA_RESP_ERR__QUEUE_FULL);
        if (err) {
            fprintf(stderr, PL_PROG ": produce: %s\n", rd_kafka_err2name(err));
            return -1;
        }
    }
    /* Every record in the log before the offsets go in: a crash then
     * leaves a transaction with data to abort. */
    rd_kafka_flush(run->producer, run->wait_s * 1000);
    return 0;
}

/* Adds the batch's next offsets to the transaction. NULL or the error. */
static rd_kafka_error_t *pl_send_offsets(pl_run_t *run)
{
    rd_kafka_topic_partition_list_t *offsets = pl_batch_offsets(run, false);
    rd_kafka_consumer_group_metadata_t *cgmd = rd_kafka_consumer_group_metadata(run->consumer);
    rd_kafka_error_t *error =
        rd_kafka_send_offsets_to_transaction(run->producer, offsets, cgmd, run->wait_s * 1000);

    rd_kafka_consumer_group_metadata_destroy(cgmd);
    rd_kafka_topic_partition_list_destroy(offsets);
    return error;
}

static void pl_step(const char *what, const pl_run_t *run)
{
    printf("%s batch %ld %ld\n", what, run->batches, run->batch_len);
    fflush(stdout);
}

/* Aborts the open transaction and rewinds to the batch. 0 or -1. */
static int pl_abort(pl_run_t *run)
{
    rd_kafka_error_t *error = txn_call_retrying(run->producer, rd_kafka_abort_transaction, PL_PROG,
                                                "abort_transaction", rdk_now() + run->wait_s);

    if (error) {
        txn_print_error(PL_PROG, "abort_transaction", error);
        rd_kafka_error_destroy(error);
        return -1;
    }
    pl_step("aborted", run);
    run->aborted++;
    return pl_rewind(run);
}

/*
 * The end of a step that failed with error: an abortable error aborts and
 * rewinds (0), anything else is the end of the run (-1). Destroys error.
 */
static int pl_failed(pl_run_t *run, const char *what, rd_kafka_error_t *error)
{
    bool abortable = rd_kafka_error_txn_requires_abort(error);

    txn_print_error(PL_PROG, what, error);
    rd_kafka_error_destroy(error);
    return abortable ? pl_abort(run) : -1;
}

/* Runs one transaction over the collected batch. 0 or -1. */
static int pl_transaction(pl_run_t *run)
{
    rd_kafka_error_t *error = rd_kafka_begin_transaction(run->producer);
    bool abort_it = run->abort_every > 0 && run->batches % run->abort_every == run->abort_every - 1;

    if (error) {
        txn_print_error(PL_PROG, "begin_transaction", error);
        rd_kafka_error_destroy(error);
        return -1;
    }
    if (pl_produce(run) != 0) {
        pl_abort(run);
        return -1;
    }
    error = pl_send_offsets(run);
    if (error)
        return pl_failed(run, "send_offsets_to_transaction", error);
    if (run->crash_at == run->batches) {
        pl_step("crashing", run);
        _exit(0);
    }
    if (run->hold) {
        pl_step("holding", run);
        if (txn_wait_signal(run->producer, &run->signals) != SIGUSR1) {
            pl_step("crashing", run);
            _exit(0);
        }
    }
    if (abort_it)
        return pl_abort(run);
    error = txn_call_retrying(run->producer, rd_kafka_commit_transaction, PL_PROG,
                              "commit_transaction", rdk_now() + run->wait_s);
    if (error)
        return pl_failed(run, "commit_transaction", error);
    pl_step("committed", run);
    run->committed++;
    run->records += run->batch_len;
    return 0;
}

static int pl_loop(pl_run_t *run)
{
    double last_progress = rdk_now();

    for (;;) {
        if (run->stop_after > 0 && run->records >= run->stop_after)
            return 0;
        pl_collect(run);
        if (run->batch_len == 0) {
            if (run->stop_at_end && pl_all_at_end(run))
                return 0;
        } else {
            long committed_before = run->committed;
            int rc = pl_transaction(run);

            run->batches++;
            pl_batch_clear(run);
            if (rc != 0)
                return -1;
            if (run->committed != committed_before)
                last_progress = rdk_now();
        }
        if (rdk_now() - last_progress > run->wait_s) {
            fprintf(stderr, PL_PROG ": nothing committed for %ds\n", run->wait_s);
            return -1;
        }
    }
}

static int pl_run(pl_run_t *run)
{
    int status = PL_EXIT_FAILED;

    run->batch = calloc((size_t)run->batch_max, sizeof(*run->batch));
    if (!run->batch || pl_producer_new(run) != 0 || pl_consumer_new(run) != 0)
        goto done;
    if (pl_loop(run) == 0)
        status = 0;
    rd_kafka_consumer_close(run->consumer);
done:
    printf(PL_PROG ": batches=%ld committed=%ld aborted=%ld records=%ld\n", run->batches,
           run->committed, run->aborted, run->records);
    if (run->consumer)
        rd_kafka_destroy(run->consumer);
    if (run->producer)
        rd_kafka_destroy(run->producer);
    free(run->batch);
    return status;
}

static void pl_usage(void)
{
    fprintf(stderr, "usage: " PL_PROG " -b bootstrap -g group -i in_topic -o out_topic "
                    "-T transactional.id\n"
                    "       [-B batch] [-a every] [-x batch] [-n records] [-E] [-H] [-w seconds] "
                    "[-X key=value]...\n");
}

int main(int argc, char **argv)
{
    pl_run_t run = {.batch_max = PL_DEFAULT_BATCH, .crash_at = -1, .wait_s = PL_DEFAULT_WAIT_S};
    const prog_opt_t opts[] = {
        PROG_REQUIRED('b', &run.bootstrap),
        PROG_REQUIRED('g', &run.group),
        PROG_REQUIRED('i', &run.in_topic),
        PROG_REQUIRED('o', &run.out_topic),
        PROG_REQUIRED('T', &run.txn_id),
        PROG_LONG('B', &run.batch_max, 1, PL_MAX_BATCH),
        PROG_LONG('a', &run.abort_every, 1, INT32_MAX),
        PROG_LONG('x', &run.crash_at, 0, INT32_MAX),
        PROG_LONG('n', &run.stop_after, 1, INT32_MAX),
        PROG_FLAG('E', &run.stop_at_end),
        PROG_FLAG('H', &run.hold),
        PROG_OPT_WAIT_S(&run.wait_s),
        PROG_OPT_EXTRA(run.extra, &run.extra_count, PL_MAX_EXTRA),
    };

    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), false) < 0 ||
        (!run.stop_after && !run.stop_at_end))
        goto usage;
    sigemptyset(&run.signals);
    sigaddset(&run.signals, SIGUSR1);
    sigaddset(&run.signals, SIGTERM);
    sigaddset(&run.signals, SIGINT);
    if (sigprocmask(SIG_BLOCK, &run.signals, NULL) != 0) {
        perror(PL_PROG ": sigprocmask");
        return PL_EXIT_FAILED;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    return pl_run(&run);
usage:
    pl_usage();
    return PL_EXIT_USAGE;
}
