/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_group: a consumer group of librdkafka consumers reading a topic that
 * is already full (the consumer-group scenario).
 *
 * Usage:
 *   bench_group -b bootstrap -t topic -n records [-c consumers] [-g group]
 *               [-X key=value]...
 *
 *   -n  records the topic holds; the run ends when the group has read them
 *   -c  consumers in the group (default 4), each on its own thread with its
 *       own client, subscribed to the topic (auto.offset.reset=earliest)
 *   -g  group id (default "bench-group")
 *
 * Two clocks: from the subscriptions to the last record (join and rebalance
 * included) and from the first record to the last (the steady rate).
 *
 * Last stdout line:
 *   {"records":N,"seconds":S,"seconds_with_join":J,"consumers":C}
 * Exit status: 0 when the group read every record, 1 otherwise, 2 bad usage.
 *
 * Threads: one per consumer; they share the run's constants and three
 * atomics (records read, first-record time, stop flag).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_rk.h"

#define GROUP_MAX_CONSUMERS 64
#define GROUP_POLL_MS       100
#define GROUP_DEADLINE_S    120.0

typedef struct group_run {
    const char *bootstrap;
    const char *topic;
    const char *group;
    const bench_conf_t *extra;
    long expected;
    double deadline;
    atomic_long records;
    _Atomic double first_at; /* 0 until a record arrives */
    atomic_int errors;
} group_run_t;

static rd_kafka_t *group_consumer_new(group_run_t *run)
{
    char group_setting[300];
    bench_conf_t own = {{"auto.offset.reset=earliest", "enable.auto.commit=false"}, 2};
    const bench_conf_t *lists[] = {&own, run->extra};
    rd_kafka_conf_t *conf;
    rd_kafka_t *rk;
    char errstr[512];

    snprintf(group_setting, sizeof(group_setting), "group.id=%s", run->group);
    bench_conf_add(&own, group_setting);
    conf = bench_conf_build(run->bootstrap, lists, 2);
    if (!conf)
        return NULL;
    rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "bench_group: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
    }
    return rk;
}

static void *group_consume(void *arg)
{
    group_run_t *run = arg;
    rd_kafka_t *rk = group_consumer_new(run);
    rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new(1);

    rd_kafka_topic_partition_list_add(topics, run->topic, RD_KAFKA_PARTITION_UA);
    if (!rk || rd_kafka_subscribe(rk, topics) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        atomic_fetch_add(&run->errors, 1);
        goto done;
    }
    while (atomic_load(&run->records) < run->expected && bench_now() < run->deadline) {
        rd_kafka_message_t *msg = rd_kafka_consumer_poll(rk, GROUP_POLL_MS);

        if (!msg)
            continue;
        if (msg->err) {
            fprintf(stderr, "bench_group: %s\n", rd_kafka_message_errstr(msg));
        } else {
            double expected_zero = 0;

            atomic_compare_exchange_strong(&run->first_at, &expected_zero, bench_now());
            atomic_fetch_add(&run->records, 1);
        }
        rd_kafka_message_destroy(msg);
    }
    rd_kafka_consumer_close(rk);
done:
    rd_kafka_topic_partition_list_destroy(topics);
    if (rk)
        rd_kafka_destroy(rk);
    return NULL;
}

int main(int argc, char **argv)
{
    group_run_t run = {.group = "bench-group"};
    bench_conf_t extra = {{0}, 0};
    pthread_t threads[GROUP_MAX_CONSUMERS];
    int consumers = 4, started = 0, opt;
    double start, end;

    while ((opt = getopt(argc, argv, "b:t:n:c:g:X:")) != -1) {
        switch (opt) {
        case 'b':
            run.bootstrap = optarg;
            break;
        case 't':
            run.topic = optarg;
            break;
        case 'n':
            run.expected = atol(optarg);
            break;
        case 'c':
            consumers = atoi(optarg);
            break;
        case 'g':
            run.group = optarg;
            break;
        case 'X':
            if (bench_conf_add(&extra, optarg) != 0)
                return 2;
            break;
        default:
            return 2;
        }
    }
    if (!run.bootstrap || !run.topic || run.expected <= 0 || consumers <= 0 ||
        consumers > GROUP_MAX_CONSUMERS) {
        fprintf(stderr, "usage: bench_group -b bootstrap -t topic -n records [-c consumers] "
                        "[-g group] [-X key=value]...\n");
        return 2;
    }
    run.extra = &extra;
    start = bench_now();
    run.deadline = start + GROUP_DEADLINE_S;
    for (; started < consumers; started++)
        if (pthread_create(&threads[started], NULL, group_consume, &run) != 0)
            break;
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    end = bench_now();
    if (atomic_load(&run.records) < run.expected || atomic_load(&run.errors) > 0) {
        fprintf(stderr, "bench_group: read %ld of %ld records\n", atomic_load(&run.records),
                run.expected);
        return 1;
    }
    printf("{\"records\":%ld,\"seconds\":%.6f,\"seconds_with_join\":%.6f,\"consumers\":%d}\n",
           atomic_load(&run.records), end - atomic_load(&run.first_at), end - start, consumers);
    return 0;
}
