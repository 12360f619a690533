// SPDX-License-Identifier: Apache-2.0
/*
 * seq_producer: an idempotent librdkafka producer (enable.idempotence=true,
 * acks=all) writing the sequence numbers 0..N-1, in order, for the
 * replication tests; seq_verify then checks the topic against what it
 * acknowledged.
 *
 * Usage:
 *   seq_producer -b bootstrap -t topic -n count -o outfile [-r rate] [-X key=value]...
 *
 *   -n  records to produce: sequence numbers 0..count-1
 *   -o  file to write one line "<seq> <partition> <offset>" to for every
 *       record whose delivery report succeeded, in report order, flushed
 *       line by line (a test killing brokers meanwhile still has it)
 *   -r  pace in records per second (default 0: as fast as librdkafka takes them)
 *   -X  librdkafka property (repeatable), applied after the defaults, so it
 *       may override them (e.g. -X message.timeout.ms=30000)
 *
 * Record seq has key and value both the decimal seq ("17") and goes to
 * partition seq % P, P being the topic's partition count when the program
 * starts (the topic must exist): the partition of every record is known
 * beforehand, and within a partition the seqs of one run increase with the
 * offset (the idempotent producer keeps per-partition order), which
 * seq_verify checks. message.timeout.ms defaults to 120000 so that records
 * outlive a leader failover; retries are librdkafka's own.
 *
 * SIGUSR1 stops it early: no record is produced after it, the outstanding
 * ones are waited for as at the end, and produced= counts the records
 * handed to librdkafka (seqs 0..produced-1), so that a test can end the
 * producer as soon as it has seen what it wanted.
 *
 * Ends when every record has been acknowledged or has permanently failed,
 * printing "seq_producer: topic=T produced=N acked=A failed=F" on stderr
 * (and the first failures' reasons).
 * Exit status: 0 every record was reported (acked or failed), 1 a fatal
 * error (an idempotent producer's fatal error is printed as
 * "seq_producer: FATAL idempotence error: NAME: reason"), setup failure or
 * an unwritable output file, 2 bad usage.
 *
 * Thread: main thread only; delivery reports and errors arrive inside
 * rd_kafka_poll()/rd_kafka_flush() on the main thread.
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

#define SP_MAX_EXTRA        64
#define SP_MAX_COUNT        999999999L
#define SP_MAX_RATE         10000000L
#define SP_METADATA_WAIT_S  60
#define SP_POLL_MS          100
#define SP_FAILURES_PRINTED 10

/* One run; the delivery and error callbacks get it as their opaque. */
typedef struct sp_run {
    const char *bootstrap;
    const char *topic;
    const char *out_path;
    const char *extra[SP_MAX_EXTRA];
    int extra_count;
    long count;
    long rate; /* records per second, 0 unpaced */

    FILE *out;
    int partitions;
    long produced;
    long acked;
    long failed;
    bool fatal;      /* librdkafka raised a fatal error */
    int write_errno; /* errno of a failed write of the output file, 0 none */
} sp_run_t;

/* Set by SIGUSR1: a signal handler can only reach a static flag. */
static volatile sig_atomic_t sp_stop_requested;

static void sp_on_sigusr1(int sig)
{
    (void)sig;
    sp_stop_requested = 1;
}

/* Delivery report: the acknowledged record's line, or a counted failure. */
static void sp_on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque)
{
    sp_run_t *run = opaque;
    long seq = (long)(intptr_t)msg->_private;

    (void)rk;
    if (msg->err) {
        if (++run->failed <= SP_FAILURES_PRINTED)
            fprintf(stderr, "seq_producer: seq %ld failed: %s (%s)\n", seq,
                    rd_kafka_err2name(msg->err), rd_kafka_err2str(msg->err));
        return;
    }
    run->acked++;
    if (fprintf(run->out, "%ld %" PRId32 " %" PRId64 "\n", seq, msg->partition, msg->offset) < 0 ||
        fflush(run->out) != 0)
        run->write_errno = errno ? errno : EIO;
}

/* Error callback: a fatal error (idempotence broken) ends the run; the rest
 * (brokers going down during a failover) are librdkafka's to retry. */
static void sp_on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    sp_run_t *run = opaque;
    char why[512];

    if (err != RD_KAFKA_RESP_ERR__FATAL) {
        fprintf(stderr, "seq_producer: error (retried by librdkafka): %s: %s\n",
                rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
        return;
    }
    err = rd_kafka_fatal_error(rk, why, sizeof(why));
    fprintf(stderr, "seq_producer: FATAL idempotence error: %s: %s\n",
            rd_kafka_err2name((rd_kafka_resp_err_t)err), why);
    run->fatal = true;
}

/* Applies the defaults, then the -X properties. Returns 0 or -EINVAL. */
static int sp_conf_apply(const sp_run_t *run, rd_kafka_conf_t *conf)
{
    const char *defaults[][2] = {
        {"bootstrap.servers", run->bootstrap},
        {"enable.idempotence", "true"},
        {"acks", "all"},
        {"message.timeout.ms", "120000"},
        {"log_level", "4"},
    };
    size_t i;
    int j;

    for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        if (rdk_conf_set(conf, "seq_producer", defaults[i][0], defaults[i][1]) != 0)
            return -EINVAL;
    for (j = 0; j < run->extra_count; j++)
        if (rdk_conf_set_pair(conf, "seq_producer", run->extra[j]) != 0)
            return -EINVAL;
    return 0;
}

/*
 * Hands record seq to librdkafka, waiting (serving reports) while its queue
 * is full. Returns 0, or -1 on a fatal error or a refused record.
 */
static int sp_produce_one(sp_run_t *run, rd_kafka_t *rk, long seq)
{
    char text[16];
    int len = snprintf(text, sizeof(text), "%ld", seq);
    rd_kafka_resp_err_t err;

    for (;;) {
        err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(run->topic),
                                RD_KAFKA_V_PARTITION((int32_t)(seq % run->partitions)),
                                RD_KAFKA_V_KEY(text, (size_t)len),
                                RD_KAFKA_V_VALUE(text, (size_t)len),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                RD_KAFKA_V_OPAQUE((void *)(intptr_t)seq), RD_KAFKA_V_END);
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL || run->fatal)
            break;
        rd_kafka_poll(rk, SP_POLL_MS);
    }
    if (run->fatal)
        return -1;
    if (err) {
        fprintf(stderr, "seq_producer: produce call for seq %ld failed: %s (%s)\n", seq,
                rd_kafka_err2name(err), rd_kafka_err2str(err));
        return -1;
    }
    run->produced++;
    return 0;
}

/* Produces the run's records and waits for every report. Returns the exit status. */
static int sp_run(sp_run_t *run)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_t *rk = NULL;
    double start;
    int status = 1;
    long seq;

    if (sp_conf_apply(run, conf) != 0) {
        status = 2;
        goto fail;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, sp_on_delivery);
    rd_kafka_conf_set_error_cb(conf, sp_on_error);
    rd_kafka_conf_set_opaque(conf, run);
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "seq_producer: producer: %s\n", errstr);
        goto fail;
    }
    conf = NULL;
    run->partitions = rdk_partition_count(rk, run->topic, rdk_now() + SP_METADATA_WAIT_S);
    if (run->partitions < 0) {
        fprintf(stderr, "seq_producer: no metadata for topic %s within %ds\n", run->topic,
                SP_METADATA_WAIT_S);
        goto fail;
    }

    start = rdk_now();
    for (seq = 0; seq < run->count && !run->fatal && !run->write_errno && !sp_stop_requested;
         seq++) {
        if (run->rate > 0) {
            double due = start + (double)seq / (double)run->rate;
            double ahead;

            while ((ahead = due - rdk_now()) > 0 && !run->fatal && !sp_stop_requested)
                rd_kafka_poll(rk, ahead > 0.1 ? SP_POLL_MS : (int)(ahead * 1000) + 1);
        }
        if (sp_stop_requested)
            break;
        if (sp_produce_one(run, rk, seq) != 0)
            break;
        rd_kafka_poll(rk, 0);
    }
    /* Every record resolves within message.timeout.ms: wait for all of them. */
    while (rd_kafka_outq_len(rk) > 0 && !run->fatal)
        rd_kafka_flush(rk, SP_POLL_MS);
    if (run->fatal) {
        rd_kafka_flush(rk, SP_POLL_MS * 10); /* the outstanding records' failure reports */
        goto fail;
    }
    if (run->write_errno) {
        fprintf(stderr, "seq_producer: writing %s: %s\n", run->out_path,
                strerror(run->write_errno));
        goto fail;
    }
    if (run->produced == run->count || sp_stop_requested)
        status = 0;
fail:
    if (conf)
        rd_kafka_conf_destroy(conf);
    if (rk)
        rd_kafka_destroy(rk);
    return status;
}

static void sp_usage(void)
{
    fprintf(stderr, "usage: seq_producer -b bootstrap -t topic -n count -o outfile [-r rate] "
                    "[-X key=value]...\n");
}

int main(int argc, char **argv)
{
    sp_run_t run = {.count = -1};
    const prog_opt_t opts[] = {
        PROG_REQUIRED('b', &run.bootstrap),
        PROG_REQUIRED('t', &run.topic),
        PROG_LONG('n', &run.count, 0, SP_MAX_COUNT),
        PROG_REQUIRED('o', &run.out_path),
        PROG_LONG('r', &run.rate, 0, SP_MAX_RATE),
        PROG_OPT_EXTRA(run.extra, &run.extra_count, SP_MAX_EXTRA),
    };
    struct sigaction stop = {.sa_handler = sp_on_sigusr1};
    int status;

    if (sigaction(SIGUSR1, &stop, NULL) != 0) {
        fprintf(stderr, "seq_producer: sigaction: %s\n", strerror(errno));
        return 1;
    }
    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), false) < 0 ||
        run.count < 0)
        goto usage;
    run.out = fopen(run.out_path, "w");
    if (!run.out) {
        fprintf(stderr, "seq_producer: %s: %s\n", run.out_path, strerror(errno));
        return 1;
    }
    status = sp_run(&run);
    if (fclose(run.out) != 0 && status == 0) {
        fprintf(stderr, "seq_producer: closing %s: %s\n", run.out_path, strerror(errno));
        status = 1;
    }
    fprintf(stderr, "seq_producer: topic=%s produced=%ld acked=%ld failed=%ld%s\n", run.topic,
            run.produced, run.acked, run.failed, status == 0 ? "" : " (did not finish)");
    return status;
usage:
    sp_usage();
    return 2;
}
