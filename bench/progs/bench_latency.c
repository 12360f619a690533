/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_latency: end-to-end latency at a fixed record rate: a librdkafka
 * producer (linger.ms=0) sends records stamped with the send time, a
 * librdkafka consumer on default settings (so fetch.wait.max.ms=500: the
 * broker must answer a waiting fetch when data arrives) reads them, and the
 * time from send to receipt of each record gives the percentiles.
 *
 * Usage:
 *   bench_latency -b bootstrap -t topic [-r rate] [-d seconds] [-s size]
 *                 [-X key=value]...
 *
 *   -r  records per second (default 1000), on a fixed schedule: a sender
 *       that falls behind sends at once and does not skip records
 *   -d  seconds of sending (default 10)
 *   -s  value size (default 100, at least 16)
 *   -X  librdkafka setting for both clients (repeatable)
 *
 * The topic's partition 0 is used. A first record, sent and consumed before
 * the clock starts, creates the topic and warms both clients' connections.
 * Producer and consumer share this process and CLOCK_MONOTONIC.
 *
 * Last stdout line:
 *   {"rate":R,"sent":N,"received":M,"late_ms":L,"p50_ms":..,"p99_ms":..,
 *    "p999_ms":..,"max_ms":..}
 * where late_ms is how far the sender fell behind its schedule at worst (a
 * starved machine shows here rather than as a lower rate).
 * Exit status: 0 when records arrived (received < sent says some did not:
 * the mock drops all but its last 5 MiB, which a slow consumer can miss),
 * 1 when none did or a client failed, 2 bad usage.
 *
 * Threads: the producer sends on its own thread (sender); the main thread
 * consumes. They share the run's constants, the sender's done time (an
 * atomic) and its tallies, read after pthread_join.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_rk.h"

#define LATENCY_STAMP_SIZE    16 /* send time (ns) + sequence number */
#define LATENCY_WARMUP_S      30.0
#define LATENCY_DRAIN_S       5.0
#define LATENCY_DEADLINE_S    300.0
#define LATENCY_POLL_MS       100
#define LATENCY_FLUSH_MS      30000
#define LATENCY_QUEUE_FULL_MS 1
#define LATENCY_NS_PER_MS     1e6
#define LATENCY_WARMUP_SEQ    (-1)

typedef struct latency_run {
    const char *topic;
    long rate;
    double seconds;
    long size;
    long count;                    /* records in the timed part */
    long sent;                     /* sender's tally, read after join */
    double late_s;                 /* worst lag behind the schedule, read after join */
    _Atomic double sender_done_at; /* 0 while the sender runs */
    rd_kafka_t *producer;
    int64_t *lat_ns; /* per sequence number, -1 until received */
} latency_run_t;

static void latency_stamp(char *value, int64_t seq)
{
    int64_t now = bench_now_ns();

    memcpy(value, &now, sizeof(now));
    memcpy(value + sizeof(now), &seq, sizeof(seq));
}

static int latency_send(latency_run_t *run, char *value, int64_t seq)
{
    latency_stamp(value, seq);
    while (rd_kafka_producev(run->producer, RD_KAFKA_V_TOPIC(run->topic), RD_KAFKA_V_PARTITION(0),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                             RD_KAFKA_V_VALUE(value, (size_t)run->size),
                             RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
        rd_kafka_poll(run->producer, LATENCY_QUEUE_FULL_MS);
    rd_kafka_poll(run->producer, 0);
    return 0;
}

/* Sleeps until t (CLOCK_MONOTONIC seconds); returns at once if t is past. */
static void latency_sleep_until(double t)
{
    struct timespec ts;

    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void *latency_sender(void *arg)
{
    latency_run_t *run = arg;
    char *value = calloc(1, (size_t)run->size);
    double start = bench_now();

    if (!value)
        return NULL;
    for (long i = 0; i < run->count; i++) {
        double due = start + (double)i / (double)run->rate;

        latency_sleep_until(due);
        if (bench_now() - due > run->late_s)
            run->late_s = bench_now() - due;
        latency_send(run, value, i);
        run->sent++;
    }
    rd_kafka_flush(run->producer, LATENCY_FLUSH_MS);
    free(value);
    atomic_store(&run->sender_done_at, bench_now());
    return NULL;
}

/*
 * Consumes until every timed record is in, or (timed part) the sender has
 * been done for LATENCY_DRAIN_S, or the deadline passes; the warm-up record
 * only marks the consumer ready. Returns records received.
 */
static long latency_receive(latency_run_t *run, rd_kafka_queue_t *queue, double deadline,
                            int warmup)
{
    long received = 0;

    while (bench_now() < deadline) {
        double done_at = atomic_load(&run->sender_done_at);

        if (!warmup && done_at > 0 && bench_now() > done_at + LATENCY_DRAIN_S)
            break;
        rd_kafka_message_t *msg = rd_kafka_consume_queue(queue, LATENCY_POLL_MS);
        int64_t now = bench_now_ns(), stamp, seq;

        if (!msg)
            continue;
        if (!msg->err && msg->len >= LATENCY_STAMP_SIZE) {
            memcpy(&stamp, msg->payload, sizeof(stamp));
            memcpy(&seq, (char *)msg->payload + sizeof(stamp), sizeof(seq));
            if (warmup && seq == LATENCY_WARMUP_SEQ) {
                rd_kafka_message_destroy(msg);
                return 1;
            }
            if (!warmup && seq >= 0 && seq < run->count && run->lat_ns[seq] < 0) {
                run->lat_ns[seq] = now - stamp;
                received++;
            }
        }
        rd_kafka_message_destroy(msg);
        if (!warmup && received == run->count)
            break;
    }
    return received;
}

static int latency_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0..1) of n sorted values, in milliseconds. */
static double latency_quantile_ms(const int64_t *sorted, long n, double q)
{
    long i = (long)(q * (double)n);

    if (i >= n)
        i = n - 1;
    return (double)sorted[i] / LATENCY_NS_PER_MS;
}

static void latency_report(latency_run_t *run, long received)
{
    long n = 0;

    for (long i = 0; i < run->count; i++)
        if (run->lat_ns[i] >= 0)
            run->lat_ns[n++] = run->lat_ns[i];
    qsort(run->lat_ns, (size_t)n, sizeof(*run->lat_ns), latency_cmp);
    if (n == 0) {
        printf("{\"rate\":%ld,\"sent\":%ld,\"received\":0}\n", run->rate, run->sent);
        return;
    }
    printf("{\"rate\":%ld,\"sent\":%ld,\"received\":%ld,\"late_ms\":%.3f,\"p50_ms\":%.3f,"
           "\"p99_ms\":%.3f,\"p999_ms\":%.3f,\"max_ms\":%.3f}\n",
           run->rate, run->sent, received, run->late_s * 1e3,
           latency_quantile_ms(run->lat_ns, n, 0.50), latency_quantile_ms(run->lat_ns, n, 0.99),
           latency_quantile_ms(run->lat_ns, n, 0.999),
           (double)run->lat_ns[n - 1] / LATENCY_NS_PER_MS);
}

/* Creates a client from the shared settings plus one of its own; NULL on error. */
static rd_kafka_t *latency_client(const char *bootstrap, const bench_conf_t *extra,
                                  rd_kafka_type_t type, const bench_conf_t *own)
{
    const bench_conf_t *lists[] = {own, extra};
    rd_kafka_conf_t *conf = bench_conf_build(bootstrap, lists, 2);
    char errstr[512];
    rd_kafka_t *rk;

    if (!conf)
        return NULL;
    rk = rd_kafka_new(type, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "bench_latency: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
    }
    return rk;
}

int main(int argc, char **argv)
{
    latency_run_t run = {.rate = 1000, .seconds = 10.0, .size = 100};
    const char *bootstrap = NULL;
    bench_conf_t extra = {{0}, 0};
    bench_conf_t producer_conf = {{"linger.ms=0"}, 1};
    rd_kafka_t *consumer = NULL;
    rd_kafka_topic_t *rkt = NULL;
    rd_kafka_queue_t *queue = NULL;
    pthread_t sender;
    char warm[LATENCY_STAMP_SIZE];
    long received = 0;
    int opt, status = 2;

    while ((opt = getopt(argc, argv, "b:t:r:d:s:X:")) != -1) {
        switch (opt) {
        case 'b':
            bootstrap = optarg;
            break;
        case 't':
            run.topic = optarg;
            break;
        case 'r':
            run.rate = atol(optarg);
            break;
        case 'd':
            run.seconds = atof(optarg);
            break;
        case 's':
            run.size = atol(optarg);
            break;
        case 'X':
            if (bench_conf_add(&extra, optarg) != 0)
                return 2;
            break;
        default:
            return 2;
        }
    }
    run.count = (long)((double)run.rate * run.seconds);
    if (!bootstrap || !run.topic || run.rate <= 0 || run.count <= 0 ||
        run.size < LATENCY_STAMP_SIZE) {
        fprintf(stderr, "usage: bench_latency -b bootstrap -t topic [-r rate] [-d seconds] "
                        "[-s size] [-X key=value]...\n");
        return 2;
    }
    run.lat_ns = malloc(sizeof(*run.lat_ns) * (size_t)run.count);
    run.producer = latency_client(bootstrap, &extra, RD_KAFKA_PRODUCER, &producer_conf);
    consumer = latency_client(bootstrap, &extra, RD_KAFKA_CONSUMER, NULL);
    if (!run.lat_ns || !run.producer || !consumer)
        goto fail;
    memset(run.lat_ns, 0xff, sizeof(*run.lat_ns) * (size_t)run.count); /* all -1 */

    status = 1;
    latency_stamp(warm, LATENCY_WARMUP_SEQ);
    if (rd_kafka_producev(run.producer, RD_KAFKA_V_TOPIC(run.topic), RD_KAFKA_V_PARTITION(0),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                          RD_KAFKA_V_VALUE(warm, sizeof(warm)), RD_KAFKA_V_END) != 0 ||
        rd_kafka_flush(run.producer, LATENCY_FLUSH_MS) != 0) {
        fprintf(stderr, "bench_latency: warm-up record not delivered\n");
        goto fail;
    }
    rkt = rd_kafka_topic_new(consumer, run.topic, NULL);
    queue = rd_kafka_queue_new(consumer);
    if (!rkt || !queue ||
        rd_kafka_consume_start_queue(rkt, 0, RD_KAFKA_OFFSET_BEGINNING, queue) != 0 ||
        latency_receive(&run, queue, bench_now() + LATENCY_WARMUP_S, 1) != 1) {
        fprintf(stderr, "bench_latency: consumer did not get the warm-up record\n");
        goto fail;
    }
    if (pthread_create(&sender, NULL, latency_sender, &run) != 0)
        goto fail;
    received = latency_receive(&run, queue, bench_now() + LATENCY_DEADLINE_S, 0);
    pthread_join(sender, NULL);
    latency_report(&run, received);
    status = received > 0 ? 0 : 1;
fail:
    if (rkt)
        rd_kafka_consume_stop(rkt, 0);
    if (queue)
        rd_kafka_queue_destroy(queue);
    if (rkt)
        rd_kafka_topic_destroy(rkt);
    if (consumer)
        rd_kafka_destroy(consumer);
    if (run.producer)
        rd_kafka_destroy(run.producer);
    free(run.lat_ns);
    return status;
}
