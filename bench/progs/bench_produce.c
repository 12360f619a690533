/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_produce: a librdkafka producer writing a fixed number of records as
 * fast as the broker takes them (the produce-throughput scenario).
 *
 * Usage:
 *   bench_produce -b bootstrap -t topic [-n count] [-s size] [-p partitions]
 *                 [-X key=value]...
 *
 *   -n  records (default 1000000)
 *   -s  value size in bytes (default 100); records have no key
 *   -p  spread records round-robin over partitions 0..p-1 (default 1)
 *   -X  librdkafka setting (repeatable): acks, linger.ms, compression.codec...
 *
 * Values are slices of a pseudo-random lowercase text (fixed seed), so
 * compressed runs compress as ordinary text does, not as a run of one byte.
 * The clock runs from the first produce call to the end of rd_kafka_flush(),
 * so every record is acknowledged within the measured time.
 *
 * Last stdout line:
 *   {"records":N,"bytes":B,"seconds":S,"failed":F}
 * Exit status: 0 when every record was acknowledged, 1 otherwise, 2 on bad
 * usage.
 *
 * Thread: main thread; delivery reports run inside rd_kafka_poll/flush.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_rk.h"

#define PRODUCE_DEFAULT_COUNT 1000000L
#define PRODUCE_DEFAULT_SIZE  100L
#define PRODUCE_TEXT_SIZE     (1 << 20) /* the pool values are cut from */
#define PRODUCE_TEXT_STRIDE   4099      /* prime, so slices rarely repeat */
#define PRODUCE_MAX_SIZE      (PRODUCE_TEXT_SIZE / 2)
#define PRODUCE_FLUSH_MS      300000
#define PRODUCE_QUEUE_FULL_MS 5

typedef struct produce_run {
    long count;
    long size;
    int partitions;
    long failed;
} produce_run_t;

static void produce_on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque)
{
    produce_run_t *run = opaque;

    (void)rk;
    if (msg->err && run->failed++ == 0)
        fprintf(stderr, "bench_produce: delivery failed: %s\n", rd_kafka_err2str(msg->err));
}

/* Fills text with lowercase letters from a fixed xorshift sequence. */
static void produce_fill_text(char *text, size_t len)
{
    uint64_t x = 0x9e3779b97f4a7c15u;

    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        text[i] = (char)('a' + x % 26);
    }
}

/* Produces every record; returns 0, or -1 when the producer refused one. */
static int produce_all(rd_kafka_t *rk, rd_kafka_topic_t *rkt, produce_run_t *run, const char *text)
{
    size_t span = PRODUCE_TEXT_SIZE - (size_t)run->size;

    for (long i = 0; i < run->count; i++) {
        int32_t partition = (int32_t)(i % run->partitions);
        char *value = (char *)text + ((size_t)i * PRODUCE_TEXT_STRIDE) % span;

        while (rd_kafka_produce(rkt, partition, RD_KAFKA_MSG_F_COPY, value, (size_t)run->size, NULL,
                                0, NULL) != 0) {
            if (rd_kafka_last_error() != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
                fprintf(stderr, "bench_produce: %s\n", rd_kafka_err2str(rd_kafka_last_error()));
                return -1;
            }
            rd_kafka_poll(rk, PRODUCE_QUEUE_FULL_MS);
        }
        rd_kafka_poll(rk, 0);
    }
    return 0;
}

int main(int argc, char **argv)
{
    produce_run_t run = {PRODUCE_DEFAULT_COUNT, PRODUCE_DEFAULT_SIZE, 1, 0};
    const char *bootstrap = NULL, *topic = NULL;
    bench_conf_t extra = {{0}, 0};
    const bench_conf_t *lists[] = {&extra};
    rd_kafka_conf_t *conf;
    rd_kafka_t *rk = NULL;
    rd_kafka_topic_t *rkt = NULL;
    char errstr[512];
    char *text = NULL;
    double start, seconds;
    int opt, status = 2;

    while ((opt = getopt(argc, argv, "b:t:n:s:p:X:")) != -1) {
        switch (opt) {
        case 'b':
            bootstrap = optarg;
            break;
        case 't':
            topic = optarg;
            break;
        case 'n':
            run.count = atol(optarg);
            break;
        case 's':
            run.size = atol(optarg);
            break;
        case 'p':
            run.partitions = atoi(optarg);
            break;
        case 'X':
            if (bench_conf_add(&extra, optarg) != 0)
                return 2;
            break;
        default:
            return 2;
        }
    }
    if (!bootstrap || !topic || run.count <= 0 || run.size <= 0 || run.size > PRODUCE_MAX_SIZE ||
        run.partitions <= 0) {
        fprintf(stderr, "usage: bench_produce -b bootstrap -t topic [-n count] [-s size] "
                        "[-p partitions] [-X key=value]...\n");
        return 2;
    }
    text = malloc(PRODUCE_TEXT_SIZE);
    conf = bench_conf_build(bootstrap, lists, 1);
    if (!text || !conf)
        goto fail;
    produce_fill_text(text, PRODUCE_TEXT_SIZE);
    rd_kafka_conf_set_dr_msg_cb(conf, produce_on_delivery);
    rd_kafka_conf_set_opaque(conf, &run);
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "bench_produce: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
        goto fail;
    }
    rkt = rd_kafka_topic_new(rk, topic, NULL);
    if (!rkt)
        goto fail;

    start = bench_now();
    status = 1;
    if (produce_all(rk, rkt, &run, text) != 0)
        goto fail;
    if (rd_kafka_flush(rk, PRODUCE_FLUSH_MS) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        fprintf(stderr, "bench_produce: flush timed out\n");
        goto fail;
    }
    seconds = bench_now() - start;
    printf("{\"records\":%ld,\"bytes\":%ld,\"seconds\":%.6f,\"failed\":%ld}\n", run.count,
           run.count * run.size, seconds, run.failed);
    status = run.failed == 0 ? 0 : 1;
fail:
    if (rkt)
        rd_kafka_topic_destroy(rkt);
    if (rk)
        rd_kafka_destroy(rk);
    free(text);
    return status;
}
