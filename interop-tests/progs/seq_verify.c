// SPDX-License-Identifier: Apache-2.0
/*
 * seq_verify: reads a whole topic written by seq_producer and checks it
 * against the producer's output file, for the replication tests.
 *
 * Usage:
 *   seq_verify -b bootstrap -t topic -i ackedfile [-n count] [-w seconds] [-X key=value]...
 *
 *   -i  seq_producer's output: one "<seq> <partition> <offset>" line per
 *       acknowledged record
 *   -n  also require every seq 0..count-1 to be in the topic (when the
 *       producer acknowledged them all), and none beyond
 *   -w  deadline in seconds for the watermarks and the reading (default 120)
 *   -X  librdkafka property for the consumer (repeatable)
 *
 * What it reads: the high watermark of every partition is asked first
 * (ListOffsets through rd_kafka_query_watermark_offsets, retried while a
 * leader is not available), then every partition is read from its beginning
 * up to that watermark with the simple (group-less) consumer; records at or
 * beyond it (written after the start) are not looked at. Checks:
 *   - every acknowledged seq is at its acknowledged partition and offset
 *     (value and key the decimal seq): if it was read elsewhere it is
 *     "misplaced", if nowhere "missing" (an acknowledged offset at or above
 *     the high watermark says the log was truncated below an ack);
 *   - no seq is read twice anywhere ("duplicated": the worst bug for an
 *     idempotent producer) and the output file lists no seq twice;
 *   - within a partition seqs increase with the offset ("out of order":
 *     seq_producer writes them in order, and the idempotent producer keeps
 *     per-partition order);
 *   - every record is one of seq_producer's ("foreign" otherwise; with -n,
 *     also a seq >= count);
 *   - with -n, every seq 0..count-1 was read ("missing" otherwise).
 * Records that were written but never acknowledged (a delivery report
 * that failed or timed out after the write) are allowed once each.
 *
 * Prints the first problems on stderr and a summary on stdout:
 *   seq_verify: acked A, read R, missing M, duplicated D, misplaced X,
 *   out of order O, foreign F, partitions P: ok|FAILED
 * Exit status: 0 all checks passed, 1 a check failed, 2 bad usage, an
 * unreadable or malformed output file, or a topic that could not be read to
 * its watermarks by the deadline.
 *
 * Thread: main thread only (librdkafka's own threads aside).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "support/prog_opts.h"
#include "support/rdk_util.h"

#define SV_MAX_EXTRA        64
#define SV_MAX_SEQ          999999999L
#define SV_DEFAULT_WAIT_S   120
#define SV_POLL_MS          200
#define SV_WATERMARK_MS     5000
#define SV_PROBLEMS_PRINTED 20

/* What is known of one seq: where it was acknowledged, where it was read. */
typedef struct sv_seq {
    bool acked;
    bool at_acked; /* read at its acknowledged partition and offset */
    int32_t acked_partition;
    int64_t acked_offset;
    int32_t reads;
    int32_t first_partition; /* where it was read first, when reads > 0 */
    int64_t first_offset;
} sv_seq_t;

/* One partition's reading. */
typedef struct sv_partition {
    int64_t low;
    int64_t high;  /* the high watermark at the start: read below it */
    long last_seq; /* the greatest seq read so far, -1 before the first */
    bool done;     /* every offset below high has been passed */
} sv_partition_t;

typedef struct sv_run {
    const char *bootstrap;
    const char *topic;
    const char *acked_path;
    const char *extra[SV_MAX_EXTRA];
    int extra_count;
    long count; /* -n: every seq below it required; -1 without */
    int wait_s;

    sv_seq_t *seqs; /* indexed by seq, seq_len of them */
    long seq_len;
    sv_partition_t *parts;
    int partitions;

    long acked;
    long read;
    long missing;
    long duplicated;
    long misplaced;
    long out_of_order;
    long foreign;
    long problems; /* lines printed so far */
} sv_run_t;

/* Prints one problem line on stderr (the first SV_PROBLEMS_PRINTED of them). */
__attribute__((format(printf, 2, 3))) static void sv_problem(sv_run_t *run, const char *fmt, ...)
{
    va_list ap;

    if (++run->problems > SV_PROBLEMS_PRINTED)
        return;
    fputs("seq_verify: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The entry of seq, growing the table. NULL when out of memory. */
static sv_seq_t *sv_seq(sv_run_t *run, long seq)
{
    if (seq >= run->seq_len) {
        long len = run->seq_len ? run->seq_len : 4096;
        sv_seq_t *grown;

        while (len <= seq)
            len *= 2;
        grown = realloc(run->seqs, sizeof(*grown) * (size_t)len);
        if (!grown)
            return NULL;
        memset(grown + run->seq_len, 0, sizeof(*grown) * (size_t)(len - run->seq_len));
        run->seqs = grown;
        run->seq_len = len;
    }
    return &run->seqs[seq];
}

/* Parses a seq: 1 to 9 decimal digits, no sign, no leading zero. -1 if not one. */
static long sv_parse_seq(const void *data, size_t len)
{
    const char *text = data;
    long seq = 0;
    size_t i;

    if (!data || len == 0 || len > 9 || (len > 1 && text[0] == '0'))
        return -1;
    for (i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        seq = seq * 10 + (text[i] - '0');
    }
    return seq;
}

/*
 * Loads seq_producer's output file. Returns 0, or -EINVAL (malformed line,
 * printed) or -errno (unreadable file, printed). A seq listed twice counts
 * as duplicated.
 */
static int sv_load_acked(sv_run_t *run)
{
    FILE *in = fopen(run->acked_path, "r");
    char line[256];
    long lineno = 0;
    int rc = 0;

    if (!in) {
        rc = -errno;
        fprintf(stderr, "seq_verify: %s: %s\n", run->acked_path, strerror(errno));
        return rc;
    }
    while (fgets(line, sizeof(line), in)) {
        long seq;
        int32_t partition;
        int64_t offset;
        char tail;
        sv_seq_t *s;

        lineno++;
        if (sscanf(line, "%ld %" SCNd32 " %" SCNd64 " %c", &seq, &partition, &offset, &tail) != 3 ||
            seq < 0 || seq > SV_MAX_SEQ || partition < 0 || offset < 0) {
            fprintf(stderr, "seq_verify: %s:%ld: not \"<seq> <partition> <offset>\": %s",
                    run->acked_path, lineno, line);
            rc = -EINVAL;
            goto fail;
        }
        s = sv_seq(run, seq);
        if (!s) {
            fprintf(stderr, "seq_verify: out of memory\n");
            rc = -ENOMEM;
            goto fail;
        }
        if (s->acked) {
            run->duplicated++;
            sv_problem(run,
                       "seq %ld acknowledged twice: at %" PRId32 "/%" PRId64 " and %" PRId32
                       "/%" PRId64,
                       seq, s->acked_partition, s->acked_offset, partition, offset);
            continue;
        }
        s->acked = true;
        s->acked_partition = partition;
        s->acked_offset = offset;
        run->acked++;
    }
    if (ferror(in)) {
        rc = -EIO;
        fprintf(stderr, "seq_verify: reading %s failed\n", run->acked_path);
    }
fail:
    fclose(in);
    return rc;
}

/* Asks every partition's watermarks, retrying each until the deadline. 0 or -ETIMEDOUT. */
static int sv_query_watermarks(sv_run_t *run, rd_kafka_t *rk, double deadline)
{
    for (int p = 0; p < run->partitions; p++) {
        sv_partition_t *part = &run->parts[p];
        rd_kafka_resp_err_t err;

        while ((err = rd_kafka_query_watermark_offsets(rk, run->topic, p, &part->low, &part->high,
                                                       SV_WATERMARK_MS)) != 0) {
            if (rdk_now() >= deadline) {
                fprintf(stderr, "seq_verify: watermarks of partition %d: %s\n", p,
                        rd_kafka_err2str(err));
                return -ETIMEDOUT;
            }
            usleep(100 * 1000); /* leader not available yet: ask again shortly */
        }
        part->last_seq = -1;
        part->done = part->high <= part->low;
    }
    return 0;
}

/* Checks one record below its partition's high watermark. */
static void sv_check_record(sv_run_t *run, const rd_kafka_message_t *msg)
{
    int32_t p = msg->partition;
    long seq = sv_parse_seq(msg->payload, msg->len);
    sv_partition_t *part = &run->parts[p];
    sv_seq_t *s;

    run->read++;
    if (seq < 0 || sv_parse_seq(msg->key, msg->key_len) != seq ||
        (run->count >= 0 && seq >= run->count)) {
        run->foreign++;
        sv_problem(run, "%" PRId32 "/%" PRId64 ": not a seq_producer record (value \"%.*s\")", p,
                   msg->offset, (int)(msg->len < 32 ? msg->len : 32),
                   msg->payload ? (const char *)msg->payload : "");
        return;
    }
    s = sv_seq(run, seq);
    if (!s) {
        run->foreign++; /* cannot track it; fail rather than pass unchecked */
        sv_problem(run, "out of memory at seq %ld", seq);
        return;
    }
    if (s->acked && s->acked_partition == p && s->acked_offset == msg->offset)
        s->at_acked = true;
    if (++s->reads > 1) {
        run->duplicated++;
        sv_problem(run, "seq %ld duplicated: at %" PRId32 "/%" PRId64 " and %" PRId32 "/%" PRId64,
                   seq, s->first_partition, s->first_offset, p, msg->offset);
    } else {
        s->first_partition = p;
        s->first_offset = msg->offset;
        if (seq <= part->last_seq) {
            run->out_of_order++;
            sv_problem(run, "seq %ld at %" PRId32 "/%" PRId64 " after seq %ld in that partition",
                       seq, p, msg->offset, part->last_seq);
        }
    }
    if (seq > part->last_seq)
        part->last_seq = seq;
}

static bool sv_all_done(const sv_run_t *run)
{
    for (int p = 0; p < run->partitions; p++)
        if (!run->parts[p].done)
            return false;
    return true;
}

/*
 * Reads every partition from its beginning to its high watermark, checking
 * each record. Returns 0, or -ETIMEDOUT (printed) or -EINVAL (setup).
 */
static int sv_read_topic(sv_run_t *run)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_t *rk = NULL;
    rd_kafka_topic_t *rkt = NULL;
    rd_kafka_queue_t *queue = NULL;
    double deadline = rdk_now() + run->wait_s;
    int started = 0;
    int rc = -EINVAL;
    long errors = 0;
    int p;

    if (rdk_conf_set(conf, "seq_verify", "bootstrap.servers", run->bootstrap) != 0 ||
        rdk_conf_set(conf, "seq_verify", "enable.partition.eof", "true") != 0 ||
        rdk_conf_set(conf, "seq_verify", "log_level", "4") != 0)
        goto fail;
    for (int j = 0; j < run->extra_count; j++)
        if (rdk_conf_set_pair(conf, "seq_verify", run->extra[j]) != 0)
            goto fail;
    rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "seq_verify: consumer: %s\n", errstr);
        goto fail;
    }
    conf = NULL;
    run->partitions = rdk_partition_count(rk, run->topic, deadline);
    if (run->partitions < 0) {
        fprintf(stderr, "seq_verify: no metadata for topic %s\n", run->topic);
        goto fail;
    }
    run->parts = calloc((size_t)run->partitions, sizeof(*run->parts));
    rkt = rd_kafka_topic_new(rk, run->topic, NULL);
    queue = rd_kafka_queue_new(rk);
    if (!run->parts || !rkt || !queue) {
        fprintf(stderr, "seq_verify: consumer setup failed\n");
        goto fail;
    }
    rc = sv_query_watermarks(run, rk, deadline);
    if (rc != 0)
        goto fail;
    rc = -EINVAL;
    for (p = 0; p < run->partitions; p++) {
        if (rd_kafka_consume_start_queue(rkt, p, RD_KAFKA_OFFSET_BEGINNING, queue) != 0) {
            fprintf(stderr, "seq_verify: consume_start partition %d: %s\n", p,
                    rd_kafka_err2str(rd_kafka_last_error()));
            goto fail;
        }
        started = p + 1;
    }

    while (!sv_all_done(run) && rdk_now() < deadline) {
        rd_kafka_message_t *msg = rd_kafka_consume_queue(queue, SV_POLL_MS);
        sv_partition_t *part;

        if (!msg)
            continue;
        p = msg->partition;
        if (p < 0 || p >= run->partitions) {
            rd_kafka_message_destroy(msg);
            continue;
        }
        part = &run->parts[p];
        if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            /* msg->offset is the next offset to fetch */
            if (msg->offset >= part->high)
                part->done = true;
        } else if (msg->err) {
            if (++errors <= SV_PROBLEMS_PRINTED)
                fprintf(stderr, "seq_verify: consume error on partition %d (retried): %s\n", p,
                        rd_kafka_message_errstr(msg));
        } else if (msg->offset < part->high) {
            sv_check_record(run, msg);
            if (msg->offset + 1 >= part->high)
                part->done = true;
        } else {
            part->done = true; /* written after the start: not looked at */
        }
        rd_kafka_message_destroy(msg);
    }
    rc = 0;
    for (p = 0; p < run->partitions; p++) {
        if (!run->parts[p].done) {
            fprintf(stderr,
                    "seq_verify: partition %d not read to its high watermark %" PRId64
                    " within %ds\n",
                    p, run->parts[p].high, run->wait_s);
            rc = -ETIMEDOUT;
        }
    }
fail:
    for (p = 0; p < started; p++)
        rd_kafka_consume_stop(rkt, p);
    if (queue)
        rd_kafka_queue_destroy(queue);
    if (rkt)
        rd_kafka_topic_destroy(rkt);
    if (conf)
        rd_kafka_conf_destroy(conf);
    if (rk)
        rd_kafka_destroy(rk);
    return rc;
}

/* After the reading: every acknowledged seq at its place, and with -n every seq read. */
static void sv_check_acked(sv_run_t *run)
{
    long limit = run->count >= 0 ? run->count : run->seq_len;

    if (limit > run->seq_len && !sv_seq(run, limit - 1)) {
        run->missing += limit; /* cannot tell: fail */
        sv_problem(run, "out of memory checking seqs below %ld", limit);
        return;
    }
    for (long seq = 0; seq < run->seq_len; seq++) {
        const sv_seq_t *s = &run->seqs[seq];

        if (s->acked && !s->at_acked) {
            int32_t p = s->acked_partition;
            bool beyond = p < run->partitions && s->acked_offset >= run->parts[p].high;

            if (s->reads == 0) {
                run->missing++;
                sv_problem(run, "seq %ld acknowledged at %" PRId32 "/%" PRId64 " is missing%s", seq,
                           p, s->acked_offset,
                           beyond ? " (offset at or above the high watermark)"
                                  : (p >= run->partitions ? " (no such partition)" : ""));
            } else {
                run->misplaced++;
                sv_problem(run,
                           "seq %ld acknowledged at %" PRId32 "/%" PRId64 " but read at %" PRId32
                           "/%" PRId64,
                           seq, p, s->acked_offset, s->first_partition, s->first_offset);
            }
        } else if (!s->acked && s->reads == 0 && seq < limit && run->count >= 0) {
            run->missing++;
            sv_problem(run, "seq %ld (not acknowledged) was never read", seq);
        }
    }
}

static void sv_usage(void)
{
    fprintf(stderr, "usage: seq_verify -b bootstrap -t topic -i ackedfile [-n count] "
                    "[-w seconds] [-X key=value]...\n");
}

int main(int argc, char **argv)
{
    sv_run_t run = {.count = -1, .wait_s = SV_DEFAULT_WAIT_S};
    const prog_opt_t opts[] = {
        PROG_REQUIRED('b', &run.bootstrap),
        PROG_REQUIRED('t', &run.topic),
        PROG_REQUIRED('i', &run.acked_path),
        PROG_LONG('n', &run.count, 0, SV_MAX_SEQ + 1),
        PROG_OPT_WAIT_S(&run.wait_s),
        PROG_OPT_EXTRA(run.extra, &run.extra_count, SV_MAX_EXTRA),
    };
    int status = 2;
    bool ok;

    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), false) < 0)
        goto usage;
    if (sv_load_acked(&run) != 0 || sv_read_topic(&run) != 0)
        goto done;
    sv_check_acked(&run);
    ok = !run.missing && !run.duplicated && !run.misplaced && !run.out_of_order && !run.foreign;
    status = ok ? 0 : 1;
done:
    if (run.problems > SV_PROBLEMS_PRINTED)
        fprintf(stderr, "seq_verify: %ld more problem(s) not printed\n",
                run.problems - SV_PROBLEMS_PRINTED);
    printf("seq_verify: acked %ld, read %ld, missing %ld, duplicated %ld, misplaced %ld, "
           "out of order %ld, foreign %ld, partitions %d: %s\n",
           run.acked, run.read, run.missing, run.duplicated, run.misplaced, run.out_of_order,
           run.foreign, run.partitions, status == 0 ? "ok" : "FAILED");
    free(run.seqs);
    free(run.parts);
    return status;
usage:
    sv_usage();
    return 2;
}
