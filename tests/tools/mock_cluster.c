// SPDX-License-Identifier: Apache-2.0
/*
 * mock_cluster: runs librdkafka's in-process mock Kafka cluster as a
 * stand-alone server, so real clients (kcat, kafka-python, kafkajs) and the
 * capture proxy have a reference broker to talk to, and benchmarks have a
 * baseline to compare Gregor against.
 *
 * Usage:
 *   mock_cluster [-b brokers] [-t topic[:partitions[:replicas]]]...
 *                [-V api_key:min:max]... [-d debug]
 *
 * The first line written to stdout is the cluster's bootstrap address list
 * ("127.0.0.1:PORT[,127.0.0.1:PORT...]"), flushed at once; nothing else is
 * written to stdout, so a script can read that line and go. Diagnostics go
 * to stderr. The program runs until SIGINT or SIGTERM, then destroys the
 * cluster and exits 0.
 *
 * -V narrows the version range the cluster advertises (and accepts) for one
 * API, e.g. to make clients fall back to older versions; -1:-1 disables the
 * API. librdkafka requires max to stay within what its mock implements.
 *
 * Listen ports: librdkafka (2.0.x) binds each mock broker to 127.0.0.1 on
 * an ephemeral port and offers no way to choose it, hence the bootstrap line.
 *
 * Signals: SIGINT and SIGTERM are blocked before librdkafka starts its
 * threads (which inherit the mask) and the main thread takes them with
 * sigwait(), so no handler and no global flag are needed.
 *
 * Thread: everything here runs on the main thread; the mock brokers run on
 * librdkafka's own threads.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

/* Default shape of a topic given as a bare name on the command line. */
#define MOCK_DEFAULT_PARTITIONS 1
#define MOCK_DEFAULT_REPLICAS   1
#define MOCK_MAX_BROKERS        64
#define MOCK_MAX_TOPIC_NAME     249 /* Kafka's limit on topic name length */

/* Advertised version range of one API, parsed from "key:min:max". */
typedef struct mock_api_range_s {
    int api_key;
    int min_version;
    int max_version;
} mock_api_range_t;

/* One topic to create, parsed from "name[:partitions[:replicas]]". */
typedef struct mock_topic_s {
    char name[MOCK_MAX_TOPIC_NAME + 1];
    int partitions;
    int replicas;
} mock_topic_t;

static void mock_usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-b brokers] [-t topic[:partitions[:replicas]]]... "
            "[-V api_key:min:max]... [-d debug-contexts]\n"
            "  -b  number of mock brokers (1..%d, default 1)\n"
            "  -t  create a topic (repeatable; default %d partition(s), "
            "replication %d)\n"
            "  -V  advertise only versions min..max of an API (repeatable; "
            "-1:-1 disables it)\n"
            "  -d  librdkafka debug contexts, e.g. \"mock,protocol\"\n"
            "Prints the bootstrap address list as the first line of "
            "stdout, then runs until SIGINT/SIGTERM.\n",
            prog, MOCK_MAX_BROKERS, MOCK_DEFAULT_PARTITIONS, MOCK_DEFAULT_REPLICAS);
}

/*
 * Parses a decimal integer in [min, max].
 * Returns 0 and sets *out, or -EINVAL if text is not such a number.
 */
static int mock_parse_int(const char *text, int min, int max, int *out /* out: parsed value */)
{
    char *end = NULL;
    long value;

    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max)
        return -EINVAL;
    *out = (int)value;
    return 0;
}

/*
 * Parses "name[:partitions[:replicas]]" into *topic.
 * Returns 0, or -EINVAL on an empty or over-long name or a bad count.
 */
static int mock_parse_topic(const char *spec, mock_topic_t *topic /* out: parsed topic */)
{
    const char *colon = strchr(spec, ':');
    size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec);
    char counts[32];
    char *second;

    if (name_len == 0 || name_len > MOCK_MAX_TOPIC_NAME)
        return -EINVAL;
    memcpy(topic->name, spec, name_len);
    topic->name[name_len] = '\0';
    topic->partitions = MOCK_DEFAULT_PARTITIONS;
    topic->replicas = MOCK_DEFAULT_REPLICAS;
    if (!colon)
        return 0;

    if (strlen(colon + 1) >= sizeof(counts))
        return -EINVAL;
    strcpy(counts, colon + 1);
    second = strchr(counts, ':');
    if (second)
        *second++ = '\0';
    if (mock_parse_int(counts, 1, INT_MAX, &topic->partitions) != 0)
        return -EINVAL;
    if (second && mock_parse_int(second, 1, MOCK_MAX_BROKERS, &topic->replicas) != 0)
        return -EINVAL;
    return 0;
}

/*
 * Parses "api_key:min:max" into *range; min and max may both be -1.
 * Returns 0, or -EINVAL on a malformed spec.
 */
static int mock_parse_api_range(const char *spec, mock_api_range_t *range /* out: parsed range */)
{
    char copy[64];
    char *min_text;
    char *max_text;

    if (strlen(spec) >= sizeof(copy))
        return -EINVAL;
    strcpy(copy, spec);
    min_text = strchr(copy, ':');
    if (!min_text)
        return -EINVAL;
    *min_text++ = '\0';
    max_text = strchr(min_text, ':');
    if (!max_text)
        return -EINVAL;
    *max_text++ = '\0';
    if (mock_parse_int(copy, 0, INT16_MAX, &range->api_key) != 0 ||
        mock_parse_int(min_text, -1, INT16_MAX, &range->min_version) != 0 ||
        mock_parse_int(max_text, -1, INT16_MAX, &range->max_version) != 0 ||
        range->min_version > range->max_version)
        return -EINVAL;
    return 0;
}

/*
 * Creates the librdkafka handle that owns the mock cluster. It is a
 * producer with no bootstrap servers: it never connects anywhere itself.
 * Returns the handle, or NULL after printing the reason on stderr.
 */
static rd_kafka_t *mock_handle_new(const char *debug)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_t *rk;

    /* Without -d, hide the notice that no bootstrap.servers is configured. */
    if (rd_kafka_conf_set(conf, debug ? "debug" : "log_level", debug ? debug : "4", errstr,
                          sizeof(errstr)) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "mock_cluster: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
        return NULL;
    }
    /* On success rd_kafka_new() takes ownership of conf. */
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "mock_cluster: rd_kafka_new: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
    }
    return rk;
}

int main(int argc, char **argv)
{
    int broker_count = 1;
    const char *debug = NULL;
    mock_topic_t *topics = NULL;
    int topic_count = 0;
    mock_api_range_t *ranges = NULL;
    int range_count = 0;
    rd_kafka_t *rk = NULL;
    rd_kafka_mock_cluster_t *cluster = NULL;
    sigset_t stop_signals;
    int exit_code = 1;
    int signo = 0;
    int opt;
    int i;

    topics = calloc((size_t)argc, sizeof(*topics));
    ranges = calloc((size_t)argc, sizeof(*ranges));
    if (!topics || !ranges) {
        fprintf(stderr, "mock_cluster: out of memory\n");
        goto fail;
    }
    while ((opt = getopt(argc, argv, "b:t:V:d:h")) != -1) {
        switch (opt) {
        case 'b':
            if (mock_parse_int(optarg, 1, MOCK_MAX_BROKERS, &broker_count) != 0) {
                fprintf(stderr,
                        "mock_cluster: bad broker count "
                        "\"%s\"\n",
                        optarg);
                goto fail;
            }
            break;
        case 't':
            if (mock_parse_topic(optarg, &topics[topic_count]) != 0) {
                fprintf(stderr, "mock_cluster: bad topic \"%s\"\n", optarg);
                goto fail;
            }
            topic_count++;
            break;
        case 'V':
            if (mock_parse_api_range(optarg, &ranges[range_count]) != 0) {
                fprintf(stderr, "mock_cluster: bad version range \"%s\"\n", optarg);
                goto fail;
            }
            range_count++;
            break;
        case 'd':
            debug = optarg;
            break;
        case 'h':
            mock_usage(argv[0]);
            exit_code = 0;
            goto fail;
        default:
            mock_usage(argv[0]);
            goto fail;
        }
    }
    if (optind != argc) {
        mock_usage(argv[0]);
        goto fail;
    }

    /* Block before any librdkafka thread exists so that all inherit it. */
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &stop_signals, NULL) != 0) {
        perror("mock_cluster: sigprocmask");
        goto fail;
    }

    rk = mock_handle_new(debug);
    if (!rk)
        goto fail;
    cluster = rd_kafka_mock_cluster_new(rk, broker_count);
    if (!cluster) {
        fprintf(stderr, "mock_cluster: cannot create the cluster\n");
        goto fail;
    }
    for (i = 0; i < topic_count; i++) {
        const mock_topic_t *t = &topics[i];
        rd_kafka_resp_err_t err;

        if (t->replicas > broker_count) {
            fprintf(stderr,
                    "mock_cluster: topic %s: replication %d "
                    "exceeds %d broker(s)\n",
                    t->name, t->replicas, broker_count);
            goto fail;
        }
        err = rd_kafka_mock_topic_create(cluster, t->name, t->partitions, t->replicas);
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            fprintf(stderr, "mock_cluster: topic %s: %s\n", t->name, rd_kafka_err2str(err));
            goto fail;
        }
    }

    for (i = 0; i < range_count; i++) {
        const mock_api_range_t *r = &ranges[i];
        rd_kafka_resp_err_t err = rd_kafka_mock_set_apiversion(
            cluster, (int16_t)r->api_key, (int16_t)r->min_version, (int16_t)r->max_version);

        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            fprintf(stderr, "mock_cluster: api %d: %s\n", r->api_key, rd_kafka_err2str(err));
            goto fail;
        }
    }

    printf("%s\n", rd_kafka_mock_cluster_bootstraps(cluster));
    fflush(stdout);

    while (sigwait(&stop_signals, &signo) != 0)
        ; /* sigwait only fails on an invalid set; retry is harmless */
    fprintf(stderr, "mock_cluster: signal %d, stopping\n", signo);
    exit_code = 0;

fail:
    if (cluster)
        rd_kafka_mock_cluster_destroy(cluster);
    if (rk)
        rd_kafka_destroy(rk);
    free(ranges);
    free(topics);
    return exit_code;
}
