// SPDX-License-Identifier: Apache-2.0
/*
 * txn_verify: reads a topic with isolation.level read_committed or
 * read_uncommitted and checks which transactions' records it sees against
 * what txn_producer said it did with each transaction.
 *
 * Usage:
 *   txn_verify -b bootstrap -t topic -i producer_output [-i ...] [-I isolation]
 *              [-f foreign] [-w seconds] [-X key=value]...
 *
 *   -i  a txn_producer's stdout (repeatable): its status lines, the last
 *       one of each transaction deciding what must be seen of it
 *   -I  read_committed (default) or read_uncommitted
 *   -f  exactly this many records that are not txn_producer records of the
 *       listed labels must be seen (default: any number)
 *   -w  deadline in seconds for the watermarks and the reading (default 120)
 *   -X  librdkafka consumer property (repeatable)
 *
 * Every partition is read from its beginning up to the end offset that
 * ListOffsets answers for the isolation level when the program starts: the
 * high watermark for read_uncommitted, the last stable offset for
 * read_committed (librdkafka asks ListOffsets with its isolation.level).
 *
 * What must be seen of transaction T of label L with N records, by the
 * last status line txn_producer printed for it:
 *   committed                     every record, once: read_committed and
 *                                 read_uncommitted alike
 *   aborted, open, holding,       nothing with read_committed; every
 *   hanging, exiting              record, once, with read_uncommitted
 *   committing, aborting, failed  (the outcome was not known to the
 *                                 producer) with read_committed every
 *                                 record or none; with read_uncommitted
 *                                 every record, once
 * A record of a listed label that no listed transaction holds (another
 * transaction number, a seq >= N), a record seen twice, or records of one
 * transaction out of seq order within a partition are failures.
 *
 * Output (stdout):
 *   txn L T STATUS seen K of N: ok | BAD (why)
 *   foreign F                       records of no listed label
 *   end P OFFSET                    each partition's end offset read up to
 *   txn_verify: isolation=I txns=X records=R foreign=F bad=B: ok|FAILED
 * Exit status: 0 everything as expected, 1 a check failed, 2 bad usage or
 * an unreadable input, 3 the topic could not be read to its end in time.
 *
 * Thread: main thread only.
 */
#include <errno.h>
#include <inttypes.h>
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

#define TV_PROG           "txn_verify"
#define TV_MAX_EXTRA      64
#define TV_MAX_INPUTS     32
#define TV_MAX_COUNT      1000000L
#define TV_DEFAULT_WAIT_S 120
#define TV_POLL_MS        200
#define TV_WATERMARK_MS   5000
#define TV_ERRORS_PRINTED 20
#define TV_EXIT_BAD       1
#define TV_EXIT_USAGE     2
#define TV_EXIT_UNREAD    3

/* What a read_committed consumer must see of a transaction. */
typedef enum tv_class {
    TV_COMMITTED, /* all of it */
    TV_HIDDEN,    /* nothing: aborted, or still open */
    TV_UNDECIDED, /* all or nothing */
} tv_class_t;

typedef struct tv_txn {
    char label[TXN_LABEL_MAX];
    long txn;
    long count;
    char status[16]; /* the last status word */
    tv_class_t cls;
    unsigned char *seen; /* count entries: times each seq was read */
    long *last_seq;      /* per partition: greatest seq read, -1 none */
    long present;        /* distinct seqs read */
    long duplicates;
    long out_of_order;
} tv_txn_t;

typedef struct tv_run {
    const char *bootstrap;
    const char *topic;
    const char *isolation;
    const char *inputs[TV_MAX_INPUTS];
    int input_count;
    const char *extra[TV_MAX_EXTRA];
    int extra_count;
    long want_foreign; /* -1: any */
    int wait_s;

    tv_txn_t *txns;
    int txn_count, txn_cap;
    int partitions;
    int64_t *high; /* per partition: the end offset read up to */
    bool *done;
    long records;
    long foreign;
    long unexpected; /* records of a listed label no listed transaction holds */
} tv_run_t;

static bool tv_committed(const tv_run_t *run)
{
    return strcmp(run->isolation, "read_committed") == 0;
}

/* The transaction (label, txn), or NULL. */
static tv_txn_t *tv_find(tv_run_t *run, const char *label, long txn)
{
    for (int i = 0; i < run->txn_count; i++)
        if (run->txns[i].txn == txn && strcmp(run->txns[i].label, label) == 0)
            return &run->txns[i];
    return NULL;
}

static bool tv_label_known(const tv_run_t *run, const char *label)
{
    for (int i = 0; i < run->txn_count; i++)
        if (strcmp(run->txns[i].label, label) == 0)
            return true;
    return false;
}

/* The class of a status word; -1 for a line that decides nothing ("fenced"). */
static int tv_class_of(const char *status)
{
    static const struct {
        const char *word;
        tv_class_t cls;
    } classes[] = {
        {"committed", TV_COMMITTED},  {"aborted", TV_HIDDEN},     {"open", TV_HIDDEN},
        {"holding", TV_HIDDEN},       {"hanging", TV_HIDDEN},     {"exiting", TV_HIDDEN},
        {"committing", TV_UNDECIDED}, {"aborting", TV_UNDECIDED}, {"failed", TV_UNDECIDED},
    };

    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
        if (strcmp(status, classes[i].word) == 0)
            return (int)classes[i].cls;
    return -1;
}

/* Records one status line "WORD L T [N ...]". 0, or -EINVAL / -ENOMEM (printed). */
static int tv_status_line(tv_run_t *run, const char *path, long lineno, const char *line)
{
    char word[16], label[TXN_LABEL_MAX];
    long txn, count = -1;
    int fields = sscanf(line, "%15s %63s %ld %ld", word, label, &txn, &count);
    int cls;
    tv_txn_t *t;

    if (fields < 3)
        return 0; /* not a status line (a summary, a blank line) */
    cls = tv_class_of(word);
    if (cls < 0)
        return 0;
    if (fields < 4 || txn < 0 || count < 0 || count > TV_MAX_COUNT) {
        if (strcmp(word, "holding") == 0)
            count = -1; /* "holding L T" has no count: keep the one known */
        else {
            fprintf(stderr, TV_PROG ": %s:%ld: malformed status line: %s", path, lineno, line);
            return -EINVAL;
        }
    }
    t = tv_find(run, label, txn);
    if (!t) {
        if (run->txn_count == run->txn_cap) {
            int cap = run->txn_cap ? run->txn_cap * 2 : 64;
            tv_txn_t *grown = realloc(run->txns, sizeof(*grown) * (size_t)cap);

            if (!grown)
                return -ENOMEM;
            run->txns = grown;
            run->txn_cap = cap;
        }
        t = &run->txns[run->txn_count++];
        memset(t, 0, sizeof(*t));
        snprintf(t->label, sizeof(t->label), "%s", label);
        t->txn = txn;
        t->count = -1;
    }
    if (count >= 0)
        t->count = count;
    snprintf(t->status, sizeof(t->status), "%s", word);
    t->cls = (tv_class_t)cls;
    return 0;
}

static int tv_load(tv_run_t *run, const char *path)
{
    FILE *in = fopen(path, "r");
    char line[512];
    long lineno = 0;
    int rc = 0;

    if (!in) {
        fprintf(stderr, TV_PROG ": %s: %s\n", path, strerror(errno));
        return -errno;
    }
    while (rc == 0 && fgets(line, sizeof(line), in))
        rc = tv_status_line(run, path, ++lineno, line);
    fclose(in);
    return rc;
}

/* Allocates each transaction's tables once the partition count is known. 0 or -ENOMEM. */
static int tv_prepare(tv_run_t *run)
{
    for (int i = 0; i < run->txn_count; i++) {
        tv_txn_t *t = &run->txns[i];

        if (t->count < 0) {
            fprintf(stderr, TV_PROG ": transaction %s %ld has no record count\n", t->label, t->txn);
            return -EINVAL;
        }
        t->seen = calloc((size_t)t->count + 1, 1);
        t->last_seq = malloc(sizeof(*t->last_seq) * (size_t)run->partitions);
        if (!t->seen || !t->last_seq)
            return -ENOMEM;
        for (int p = 0; p < run->partitions; p++)
            t->last_seq[p] = -1;
    }
    return 0;
}

static void tv_record(tv_run_t *run, const rd_kafka_message_t *msg)
{
    char label[TXN_LABEL_MAX];
    long txn, seq;
    tv_txn_t *t;

    run->records++;
    if (txn_value_parse(msg->payload, msg->len, label, &txn, &seq) != 0 ||
        !tv_label_known(run, label)) {
        run->foreign++;
        return;
    }
    t = tv_find(run, label, txn);
    if (!t || seq >= t->count) {
        if (++run->unexpected <= TV_ERRORS_PRINTED)
            fprintf(stderr, TV_PROG ": %" PRId32 "/%" PRId64 ": %.*s is in no listed transaction\n",
                    msg->partition, msg->offset, (int)msg->len, (const char *)msg->payload);
        return;
    }
    if (t->seen[seq]++ > 0) {
        t->duplicates++;
        return;
    }
    t->present++;
    if (seq < t->last_seq[msg->partition])
        t->out_of_order++;
    else
        t->last_seq[msg->partition] = seq;
}

/* Asks each partition's end offset (for the isolation level), retrying until the deadline. */
static int tv_watermarks(tv_run_t *run, rd_kafka_t *rk, double deadline)
{
    for (int p = 0; p < run->partitions; p++) {
        int64_t low;
        rd_kafka_resp_err_t err;

        while ((err = rd_kafka_query_watermark_offsets(rk, run->topic, p, &low, &run->high[p],
                                                       TV_WATERMARK_MS)) != 0) {
            if (rdk_now() >= deadline) {
                fprintf(stderr, TV_PROG ": watermarks of partition %d: %s\n", p,
                        rd_kafka_err2name(err));
                return -ETIMEDOUT;
            }
            usleep(100 * 1000); /* no leader yet: ask again shortly */
        }
        run->done[p] = run->high[p] <= low;
    }
    return 0;
}

static bool tv_all_done(const tv_run_t *run)
{
    for (int p = 0; p < run->partitions; p++)
        if (!run->done[p])
            return false;
    return true;
}

/* Reads every partition to its end offset. 0, -ETIMEDOUT or -EINVAL (printed). */
static int tv_read(tv_run_t *run, rd_kafka_t *rk)
{
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, run->topic, NULL);
    rd_kafka_queue_t *queue = rd_kafka_queue_new(rk);
    double deadline = rdk_now() + run->wait_s;
    int started = 0, rc = -EINVAL;
    long errors = 0;

    if (!rkt || !queue)
        goto fail;
    for (; started < run->partitions; started++)
        if (rd_kafka_consume_start_queue(rkt, started, RD_KAFKA_OFFSET_BEGINNING, queue) != 0)
            goto fail;
    while (!tv_all_done(run) && rdk_now() < deadline) {
        rd_kafka_message_t *msg = rd_kafka_consume_queue(queue, TV_POLL_MS);
        int32_t p;

        if (!msg)
            continue;
        p = msg->partition;
        if (p >= 0 && p < run->partitions && !run->done[p]) {
            if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                run->done[p] = msg->offset >= run->high[p];
            } else if (msg->err) {
                if (++errors <= TV_ERRORS_PRINTED)
                    fprintf(stderr, TV_PROG ": partition %d: %s (retried)\n", p,
                            rd_kafka_message_errstr(msg));
            } else if (msg->offset < run->high[p]) {
                tv_record(run, msg);
                run->done[p] = msg->offset + 1 >= run->high[p];
            } else {
                run->done[p] = true;
            }
        }
        rd_kafka_message_destroy(msg);
    }
    rc = 0;
    for (int p = 0; p < run->partitions; p++) {
        if (!run->done[p]) {
            fprintf(stderr, TV_PROG ": partition %d not read to %" PRId64 " within %ds\n", p,
                    run->high[p], run->wait_s);
            rc = -ETIMEDOUT;
        }
    }
fail:
    if (rc == -EINVAL)
        fprintf(stderr, TV_PROG ": consumer setup failed: %s\n",
                rd_kafka_err2str(rd_kafka_last_error()));
    for (int p = 0; p < started; p++)
        rd_kafka_consume_stop(rkt, p);
    if (queue)
        rd_kafka_queue_destroy(queue);
    if (rkt)
        rd_kafka_topic_destroy(rkt);
    return rc;
}

/* Checks one transaction against what must be seen of it; prints its line. True if ok. */
static bool tv_check_txn(const tv_run_t *run, const tv_txn_t *t)
{
    bool all = t->present == t->count, none = t->present == 0;
    const char *why = NULL;

    if (t->duplicates)
        why = "records seen twice";
    else if (t->out_of_order)
        why = "records out of order within a partition";
    else if (!tv_committed(run) || t->cls == TV_COMMITTED)
        why = all ? NULL : "records missing";
    else if (t->cls == TV_HIDDEN)
        why = none ? NULL : "records of a transaction not committed are visible";
    else
        why = all || none ? NULL : "partly visible";
    printf("txn %s %ld %s seen %ld of %ld: %s%s%s\n", t->label, t->txn, t->status, t->present,
           t->count, why ? "BAD (" : "ok", why ? why : "", why ? ")" : "");
    return !why;
}

static int tv_run(tv_run_t *run)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_t *rk = NULL;
    double deadline = rdk_now() + run->wait_s;
    int status = TV_EXIT_USAGE, bad = 0;

    if (rdk_conf_set(conf, TV_PROG, "bootstrap.servers", run->bootstrap) != 0 ||
        rdk_conf_set(conf, TV_PROG, "isolation.level", run->isolation) != 0 ||
        rdk_conf_set(conf, TV_PROG, "enable.partition.eof", "true") != 0 ||
        rdk_conf_set(conf, TV_PROG, "log_level", "4") != 0)
        goto fail;
    for (int j = 0; j < run->extra_count; j++)
        if (rdk_conf_set_pair(conf, TV_PROG, run->extra[j]) != 0)
            goto fail;
    rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, TV_PROG ": %s\n", errstr);
        goto fail;
    }
    conf = NULL;
    status = TV_EXIT_UNREAD;
    run->partitions = rdk_partition_count(rk, run->topic, deadline);
    if (run->partitions <= 0) {
        fprintf(stderr, TV_PROG ": no metadata for topic %s\n", run->topic);
        goto fail;
    }
    run->high = calloc((size_t)run->partitions, sizeof(*run->high));
    run->done = calloc((size_t)run->partitions, sizeof(*run->done));
    if (!run->high || !run->done || tv_prepare(run) != 0 || tv_watermarks(run, rk, deadline) != 0 ||
        tv_read(run, rk) != 0)
        goto fail;
    for (int i = 0; i < run->txn_count; i++)
        bad += !tv_check_txn(run, &run->txns[i]);
    printf("foreign %ld\n", run->foreign);
    if (run->want_foreign >= 0 && run->foreign != run->want_foreign) {
        fprintf(stderr, TV_PROG ": %ld foreign records, want %ld\n", run->foreign,
                run->want_foreign);
        bad++;
    }
    if (run->unexpected)
        bad++;
    for (int p = 0; p < run->partitions; p++)
        printf("end %d %" PRId64 "\n", p, run->high[p]);
    printf(TV_PROG ": isolation=%s txns=%d records=%ld foreign=%ld bad=%d: %s\n", run->isolation,
           run->txn_count, run->records, run->foreign, bad, bad ? "FAILED" : "ok");
    status = bad ? TV_EXIT_BAD : 0;
fail:
    if (conf)
        rd_kafka_conf_destroy(conf);
    if (rk)
        rd_kafka_destroy(rk);
    return status;
}

static void tv_usage(void)
{
    fprintf(stderr, "usage: " TV_PROG " -b bootstrap -t topic -i producer_output [-i ...] "
                    "[-I read_committed|read_uncommitted]\n"
                    "       [-f foreign] [-w seconds] [-X key=value]...\n");
}

int main(int argc, char **argv)
{
    static const char *const isolations[] = {"read_committed", "read_uncommitted", NULL};
    tv_run_t run = {.isolation = "read_committed", .want_foreign = -1, .wait_s = TV_DEFAULT_WAIT_S};
    const prog_opt_t opts[] = {
        PROG_REQUIRED('b', &run.bootstrap),
        PROG_REQUIRED('t', &run.topic),
        PROG_LIST('i', run.inputs, &run.input_count, TV_MAX_INPUTS),
        {.letter = 'I', .kind = PROG_OPT_STRING, .out = &run.isolation, .choices = isolations},
        PROG_LONG('f', &run.want_foreign, 0, INT32_MAX),
        PROG_OPT_WAIT_S(&run.wait_s),
        PROG_OPT_EXTRA(run.extra, &run.extra_count, TV_MAX_EXTRA),
    };
    int status;

    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), false) < 0)
        goto usage;
    for (int i = 0; i < run.input_count; i++)
        if (tv_load(&run, run.inputs[i]) != 0)
            return TV_EXIT_USAGE;
    status = tv_run(&run);
    for (int i = 0; i < run.txn_count; i++) {
        free(run.txns[i].seen);
        free(run.txns[i].last_seq);
    }
    free(run.txns);
    free(run.high);
    free(run.done);
    return status;
usage:
    tv_usage();
    return TV_EXIT_USAGE;
}
