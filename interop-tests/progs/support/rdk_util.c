/* SPDX-License-Identifier: Apache-2.0 */
#include "rdk_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double rdk_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int rdk_compare_partitions(const void *a, const void *b)
{
    const rd_kafka_topic_partition_t *left = a;
    const rd_kafka_topic_partition_t *right = b;
    int by_topic = strcmp(left->topic, right->topic);

    if (by_topic)
        return by_topic;
    return (left->partition > right->partition) - (left->partition < right->partition);
}

void rdk_print_partitions(const char *label, const rd_kafka_topic_partition_list_t *parts,
                          bool with_count)
{
    rd_kafka_topic_partition_list_t *sorted = rd_kafka_topic_partition_list_copy(parts);

    qsort(sorted->elems, (size_t)sorted->cnt, sizeof(*sorted->elems), rdk_compare_partitions);
    printf("%s", label);
    if (with_count)
        printf(" %d", sorted->cnt);
    printf(" ");
    if (sorted->cnt == 0)
        printf("-");
    for (int i = 0; i < sorted->cnt; i++)
        printf("%s%s:%" PRId32, i ? "," : "", sorted->elems[i].topic, sorted->elems[i].partition);
    printf("\n");
    rd_kafka_topic_partition_list_destroy(sorted);
}

int rdk_conf_set(rd_kafka_conf_t *conf, const char *prog, const char *key, const char *value)
{
    char errstr[512];

    if (rd_kafka_conf_set(conf, key, value, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "%s: %s=%s: %s\n", prog, key, value, errstr);
        return -EINVAL;
    }
    return 0;
}

int rdk_conf_set_pair(rd_kafka_conf_t *conf, const char *prog, const char *pair)
{
    char key[256];
    const char *eq = strchr(pair, '=');
    size_t len = eq ? (size_t)(eq - pair) : 0;

    if (len == 0 || len >= sizeof(key)) {
        fprintf(stderr, "%s: bad -X \"%s\" (want key=value)\n", prog, pair);
        return -EINVAL;
    }
    memcpy(key, pair, len);
    key[len] = '\0';
    return rdk_conf_set(conf, prog, key, eq + 1);
}

int rdk_partition_count(rd_kafka_t *rk, const char *topic, double deadline)
{
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    int count = -1;

    while (rkt && count < 0 && rdk_now() < deadline) {
        const struct rd_kafka_metadata *md = NULL;
        rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, rkt, &md, 5000);

        if (!err && md->topic_cnt == 1 && !md->topics[0].err && md->topics[0].partition_cnt > 0)
            count = md->topics[0].partition_cnt;
        if (md)
            rd_kafka_metadata_destroy(md);
        if (count < 0)
            usleep(100 * 1000); /* not known yet: ask again shortly */
    }
    if (rkt)
        rd_kafka_topic_destroy(rkt);
    return count;
}

bool rdk_stop_requested(const sigset_t *stop_signals)
{
    const struct timespec no_wait = {0, 0};

    return sigtimedwait(stop_signals, NULL, &no_wait) > 0;
}

int rdk_parse_long(const char *text, long min, long max, long *out /* out */)
{
    char *end = NULL;
    long value;

    errno = 0;
    value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < min || value > max)
        return -EINVAL;
    *out = value;
    return 0;
}
