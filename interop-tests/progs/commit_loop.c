// SPDX-License-Identifier: Apache-2.0
/*
 * commit_loop: commits offsets for a consumer group many times over, or reads
 * a group's committed offset back, with librdkafka (OffsetCommit,
 * OffsetFetch through the group coordinator), for the __consumer_offsets
 * compaction test.
 *
 * Usage:
 *   commit_loop -b bootstrap -g group -t topic -n COUNT
 *       commits offsets 1..COUNT for partition 0 (asynchronously, all in
 *       flight at once, then one last synchronous commit); prints
 *       "committed COUNT"; exit 1 if any commit failed.
 *   commit_loop -b bootstrap -g group -t topic -r
 *       prints "offset N" (the committed offset of partition 0, -1001 if none).
 *
 * Thread: main thread only; commit results arrive through rd_kafka_poll.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "support/prog_opts.h"

#define COMMIT_TIMEOUT_MS 60000
#define COMMIT_POLL_EVERY 1000

typedef struct commit_state {
    long done;
    long failed;
} commit_state_t;

static void on_commit(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                      rd_kafka_topic_partition_list_t *offsets, void *opaque)
{
    commit_state_t *st = opaque;
    (void)rk;
    (void)offsets;
    st->done++;
    if (err) {
        if (st->failed++ == 0)
            fprintf(stderr, "commit_loop: commit failed: %s\n", rd_kafka_err2name(err));
    }
}

static rd_kafka_t *commit_consumer(const char *bootstrap, const char *group, commit_state_t *st)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) ||
        rd_kafka_conf_set(conf, "group.id", group, err, sizeof err) ||
        rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err)) {
        fprintf(stderr, "commit_loop: %s\n", err);
        rd_kafka_conf_destroy(conf);
        return NULL;
    }
    rd_kafka_conf_set_offset_commit_cb(conf, on_commit);
    rd_kafka_conf_set_opaque(conf, st);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk)
        fprintf(stderr, "commit_loop: %s\n", err);
    return rk;
}

static int commit_many(rd_kafka_t *rk, const char *topic, long count, commit_state_t *st)
{
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_t *p = rd_kafka_topic_partition_list_add(list, topic, 0);
    for (long i = 1; i < count; i++) {
        p->offset = i;
        rd_kafka_resp_err_t err = rd_kafka_commit(rk, list, 1);
        if (err) {
            fprintf(stderr, "commit_loop: commit %ld: %s\n", i, rd_kafka_err2name(err));
            rd_kafka_topic_partition_list_destroy(list);
            return 1;
        }
        if (i % COMMIT_POLL_EVERY == 0)
            rd_kafka_poll(rk, 0);
    }
    while (st->done < count - 1)
        rd_kafka_poll(rk, 100);
    p->offset = count;
    rd_kafka_resp_err_t err = rd_kafka_commit(rk, list, 0);
    rd_kafka_topic_partition_list_destroy(list);
    if (err || st->failed) {
        fprintf(stderr, "commit_loop: %ld failed, last: %s\n", st->failed, rd_kafka_err2name(err));
        return 1;
    }
    printf("committed %ld\n", count);
    return 0;
}

static int read_committed(rd_kafka_t *rk, const char *topic)
{
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic, 0);
    rd_kafka_resp_err_t err = rd_kafka_committed(rk, list, COMMIT_TIMEOUT_MS);
    int status = 1;
    if (err || list->elems[0].err)
        fprintf(stderr, "commit_loop: committed: %s\n",
                rd_kafka_err2name(err ? err : list->elems[0].err));
    else {
        printf("offset %lld\n", (long long)list->elems[0].offset);
        status = 0;
    }
    rd_kafka_topic_partition_list_destroy(list);
    return status;
}

int main(int argc, char **argv)
{
    const char *bootstrap = NULL, *group = NULL, *topic = NULL;
    long count = 0;
    bool read = false;
    const prog_opt_t opts[] = {
        PROG_REQUIRED('b', &bootstrap),      PROG_REQUIRED('g', &group), PROG_REQUIRED('t', &topic),
        PROG_LONG('n', &count, 1, LONG_MAX), PROG_FLAG('r', &read),
    };

    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), false) < 0 ||
        (!read && count < 1))
        goto usage;
    commit_state_t st = {0};
    rd_kafka_t *rk = commit_consumer(bootstrap, group, &st);
    if (!rk)
        return 2;
    int status = read ? read_committed(rk, topic) : commit_many(rk, topic, count, &st);
    rd_kafka_destroy(rk);
    return status;
usage:
    fprintf(stderr, "usage: commit_loop -b bootstrap -g group -t topic (-n COUNT | -r)\n");
    return 2;
}
