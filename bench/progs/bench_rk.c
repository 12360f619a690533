/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the librdkafka benchmark programs; see bench_rk.h. */
#include "bench_rk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_METADATA_MS  2000
#define BENCH_WATERMARK_MS 10000
#define BENCH_CONF_KEY_MAX 128

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int bench_conf_add(bench_conf_t *conf, const char *pair)
{
    if (conf->count >= BENCH_MAX_CONF)
        return -E2BIG;
    conf->pairs[conf->count++] = pair;
    return 0;
}

/* Sets one "key=value" pair; returns 0 or -1 after printing why. */
static int bench_conf_set_pair(rd_kafka_conf_t *conf, const char *pair)
{
    char key[BENCH_CONF_KEY_MAX];
    char errstr[512];
    const char *eq = strchr(pair, '=');

    if (!eq || (size_t)(eq - pair) >= sizeof(key)) {
        fprintf(stderr, "bench: bad setting \"%s\" (want key=value)\n", pair);
        return -1;
    }
    memcpy(key, pair, (size_t)(eq - pair));
    key[eq - pair] = '\0';
    if (rd_kafka_conf_set(conf, key, eq + 1, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "bench: %s\n", errstr);
        return -1;
    }
    return 0;
}

rd_kafka_conf_t *bench_conf_build(const char *bootstrap, const bench_conf_t *lists[], int count)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();

    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof(errstr)) !=
        RD_KAFKA_CONF_OK) {
        fprintf(stderr, "bench: %s\n", errstr);
        goto fail;
    }
    for (int l = 0; l < count; l++)
        for (int i = 0; lists[l] && i < lists[l]->count; i++)
            if (bench_conf_set_pair(conf, lists[l]->pairs[i]) != 0)
                goto fail;
    return conf;
fail:
    rd_kafka_conf_destroy(conf);
    return NULL;
}

int bench_partition_count(rd_kafka_t *rk, const char *topic, double timeout_s)
{
    double deadline = bench_now() + timeout_s;
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    int count = -1;

    if (!rkt)
        return -1;
    while (count < 0 && bench_now() < deadline) {
        const struct rd_kafka_metadata *md = NULL;

        if (rd_kafka_metadata(rk, 0, rkt, &md, BENCH_METADATA_MS) == RD_KAFKA_RESP_ERR_NO_ERROR) {
            if (md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR &&
                md->topics[0].partition_cnt > 0)
                count = md->topics[0].partition_cnt;
            rd_kafka_metadata_destroy(md);
        }
        if (count < 0)
            usleep(50 * 1000); /* the topic may be being created */
    }
    rd_kafka_topic_destroy(rkt);
    return count;
}

int bench_watermarks(rd_kafka_t *rk, const char *topic, int32_t partition, int64_t *low,
                     int64_t *high)
{
    rd_kafka_resp_err_t err =
        rd_kafka_query_watermark_offsets(rk, topic, partition, low, high, BENCH_WATERMARK_MS);

    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        fprintf(stderr, "bench: watermarks of %s [%d]: %s\n", topic, (int)partition,
                rd_kafka_err2str(err));
        return -1;
    }
    return 0;
}
