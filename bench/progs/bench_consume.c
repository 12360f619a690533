/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_consume: a librdkafka consumer reading a topic's records back as fast
 * as the broker serves them (the consume-throughput scenario).
 *
 * Usage:
 *   bench_consume -b bootstrap -t topic [-l last] [-r passes] [-X key=value]...
 *
 *   -l  read only the last `last` records of each partition (default 0: all
 *       of it, from the low watermark); fails if a partition holds fewer,
 *       which is how a window larger than the mock's retention shows
 *   -r  read the range this many times (default 1), restarting each
 *       partition at its first offset, so a small window still takes long
 *       enough to time
 *   -X  librdkafka setting (repeatable)
 *
 * The group-less consumer (rd_kafka_consume_start_queue) is used: no group
 * coordinator is involved. The clock runs from the first start to the last
 * record of the last pass.
 *
 * Last stdout line:
 *   {"records":N,"bytes":B,"seconds":S,"window":W}
 * where W is the smallest per-partition range read. Exit status: 0 when
 * every pass read every record of the range, 1 otherwise, 2 bad usage.
 *
 * Thread: main thread only (librdkafka's own threads aside).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_rk.h"

#define CONSUME_POLL_MS    200
#define CONSUME_DEADLINE_S 600.0
#define CONSUME_META_S     30.0

typedef struct consume_part {
    int64_t first; /* first offset of the range */
    int64_t end;   /* high watermark: one past the range */
    int64_t next;  /* next offset this pass still needs */
} consume_part_t;

typedef struct consume_run {
    const char *topic;
    long last;
    int passes;
    int partitions;
    consume_part_t *parts;
    long records;
    long bytes;
} consume_run_t;

/* Sets each partition's range from the broker's watermarks; 0 or -1. */
static int consume_plan(rd_kafka_t *rk, consume_run_t *run, int64_t *window /* out */)
{
    *window = INT64_MAX;
    for (int p = 0; p < run->partitions; p++) {
        consume_part_t *part = &run->parts[p];
        int64_t low, high;

        if (bench_watermarks(rk, run->topic, p, &low, &high) != 0)
            return -1;
        part->first = low;
        if (run->last > 0) {
            if (high - low < run->last) {
                fprintf(stderr,
                        "bench_consume: partition %d holds %" PRId64 " records, "
                        "fewer than %ld\n",
                        p, high - low, run->last);
                return -1;
            }
            part->first = high - run->last;
        }
        part->end = high;
        if (high - part->first < *window)
            *window = high - part->first;
    }
    return 0;
}

/* Reads every partition's range once; returns 0, or -1 on error or deadline. */
static int consume_pass(rd_kafka_topic_t *rkt, rd_kafka_queue_t *queue, consume_run_t *run,
                        double deadline)
{
    int open = 0;

    for (int p = 0; p < run->partitions; p++) {
        consume_part_t *part = &run->parts[p];

        part->next = part->first;
        if (part->first == part->end)
            continue;
        if (rd_kafka_consume_start_queue(rkt, p, part->first, queue) != 0) {
            fprintf(stderr, "bench_consume: start partition %d: %s\n", p,
                    rd_kafka_err2str(rd_kafka_last_error()));
            return -1;
        }
        open++;
    }
    while (open > 0 && bench_now() < deadline) {
        rd_kafka_message_t *msg = rd_kafka_consume_queue(queue, CONSUME_POLL_MS);
        consume_part_t *part;

        if (!msg)
            continue;
        part = msg->partition >= 0 && msg->partition < run->partitions ? &run->parts[msg->partition]
                                                                       : NULL;
        if (msg->err && msg->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
            fprintf(stderr, "bench_consume: %s\n", rd_kafka_message_errstr(msg));
        else if (!msg->err && part && msg->offset >= part->next && msg->offset < part->end) {
            run->records++;
            run->bytes += (long)msg->len;
            part->next = msg->offset + 1;
            if (part->next == part->end)
                open--;
        }
        rd_kafka_message_destroy(msg);
    }
    for (int p = 0; p < run->partitions; p++)
        if (run->parts[p].first < run->parts[p].end)
            rd_kafka_consume_stop(rkt, p);
    return open == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    consume_run_t run = {NULL, 0, 1, 0, NULL, 0, 0};
    const char *bootstrap = NULL;
    bench_conf_t extra = {{0}, 0};
    const bench_conf_t *lists[] = {&extra};
    rd_kafka_conf_t *conf;
    rd_kafka_t *rk = NULL;
    rd_kafka_topic_t *rkt = NULL;
    rd_kafka_queue_t *queue = NULL;
    char errstr[512];
    int64_t window = 0;
    double start, deadline;
    int opt, status = 2;

    while ((opt = getopt(argc, argv, "b:t:l:r:X:")) != -1) {
        switch (opt) {
        case 'b':
            bootstrap = optarg;
            break;
        case 't':
            run.topic = optarg;
            break;
        case 'l':
            run.last = atol(optarg);
            break;
        case 'r':
            run.passes = atoi(optarg);
            break;
        case 'X':
            if (bench_conf_add(&extra, optarg) != 0)
                return 2;
            break;
        default:
            return 2;
        }
    }
    if (!bootstrap || !run.topic || run.last < 0 || run.passes <= 0) {
        fprintf(stderr, "usage: bench_consume -b bootstrap -t topic [-l last] [-r passes] "
                        "[-X key=value]...\n");
        return 2;
    }
    conf = bench_conf_build(bootstrap, lists, 1);
    if (!conf)
        return 2;
    rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "bench_consume: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
        return 2;
    }
    status = 1;
    run.partitions = bench_partition_count(rk, run.topic, CONSUME_META_S);
    if (run.partitions <= 0)
        goto fail;
    run.parts = calloc((size_t)run.partitions, sizeof(*run.parts));
    rkt = rd_kafka_topic_new(rk, run.topic, NULL);
    queue = rd_kafka_queue_new(rk);
    if (!run.parts || !rkt || !queue || consume_plan(rk, &run, &window) != 0)
        goto fail;

    start = bench_now();
    deadline = start + CONSUME_DEADLINE_S;
    for (int pass = 0; pass < run.passes; pass++)
        if (consume_pass(rkt, queue, &run, deadline) != 0) {
            fprintf(stderr, "bench_consume: pass %d did not finish\n", pass);
            goto fail;
        }
    printf("{\"records\":%ld,\"bytes\":%ld,\"seconds\":%.6f,\"window\":%" PRId64 "}\n", run.records,
           run.bytes, bench_now() - start, window);
    status = 0;
fail:
    if (queue)
        rd_kafka_queue_destroy(queue);
    if (rkt)
        rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
    free(run.parts);
    return status;
}
