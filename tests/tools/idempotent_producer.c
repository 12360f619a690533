// SPDX-License-Identifier: Apache-2.0
/*
 * idempotent_producer: produces a few messages with enable.idempotence=true
 * and waits until every one is acknowledged. Its purpose is the wire traffic
 * this makes librdkafka send (InitProducerId, then Produce with a producer
 * id, epoch and sequence numbers), for captures and interop tests.
 *
 * Usage:
 *   idempotent_producer -b bootstrap -t topic [-n count] [-d debug]
 *
 * Exit status: 0 when all messages were delivered, 1 otherwise (the reason
 * is printed on stderr). Each delivery report counts into a struct owned by
 * main() and passed as the handle's opaque; the callback runs on the main
 * thread from rd_kafka_poll()/rd_kafka_flush().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#define PRODUCER_DEFAULT_COUNT    5
#define PRODUCER_MAX_COUNT        1000000
#define PRODUCER_FLUSH_TIMEOUT_MS 30000

/* Delivery outcome counters, filled in by producer_delivered(). */
typedef struct producer_stats_s {
    int delivered;
    int failed;
} producer_stats_t;

static void producer_usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s -b bootstrap -t topic [-n count] [-d debug-contexts]\n"
            "  -n  messages to produce (default %d)\n",
            prog, PRODUCER_DEFAULT_COUNT);
}

/* Delivery report callback: counts successes and failures. */
static void producer_delivered(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque)
{
    producer_stats_t *stats = opaque;

    (void)rk;
    if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        stats->delivered++;
    } else {
        stats->failed++;
        fprintf(stderr, "idempotent_producer: delivery failed: %s\n", rd_kafka_err2str(msg->err));
    }
}

/*
 * Sets one configuration property.
 * Returns 0, or -EINVAL after printing librdkafka's reason on stderr.
 */
static int producer_conf_set(rd_kafka_conf_t *conf, const char *name, const char *value)
{
    char errstr[512];

    if (rd_kafka_conf_set(conf, name, value, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "idempotent_producer: %s: %s\n", name, errstr);
        return -EINVAL;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *bootstrap = NULL;
    const char *topic = NULL;
    const char *debug = NULL;
    producer_stats_t stats = {0, 0};
    rd_kafka_conf_t *conf = NULL;
    rd_kafka_t *rk = NULL;
    char errstr[512];
    int count = PRODUCER_DEFAULT_COUNT;
    int exit_code = 1;
    int opt;
    int i;

    while ((opt = getopt(argc, argv, "b:t:n:d:h")) != -1) {
        switch (opt) {
        case 'b':
            bootstrap = optarg;
            break;
        case 't':
            topic = optarg;
            break;
        case 'n':
            count = atoi(optarg);
            break;
        case 'd':
            debug = optarg;
            break;
        default:
            producer_usage(argv[0]);
            return opt == 'h' ? 0 : 1;
        }
    }
    if (!bootstrap || !topic || optind != argc || count < 1 || count > PRODUCER_MAX_COUNT) {
        producer_usage(argv[0]);
        return 1;
    }

    conf = rd_kafka_conf_new();
    if (producer_conf_set(conf, "bootstrap.servers", bootstrap) != 0 ||
        producer_conf_set(conf, "enable.idempotence", "true") != 0 ||
        producer_conf_set(conf, "client.id", "idempotent_producer") != 0 ||
        (debug && producer_conf_set(conf, "debug", debug) != 0))
        goto fail;
    rd_kafka_conf_set_dr_msg_cb(conf, producer_delivered);
    rd_kafka_conf_set_opaque(conf, &stats);
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "idempotent_producer: rd_kafka_new: %s\n", errstr);
        goto fail;
    }
    conf = NULL; /* owned by rk now */

    for (i = 0; i < count; i++) {
        char key[32];
        char value[64];
        rd_kafka_resp_err_t err;

        snprintf(key, sizeof(key), "key-%d", i);
        snprintf(value, sizeof(value), "idempotent message %d", i);
        err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_KEY(key, strlen(key)),
                                RD_KAFKA_V_VALUE(value, strlen(value)),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            fprintf(stderr, "idempotent_producer: produce: %s\n", rd_kafka_err2str(err));
            goto fail;
        }
        rd_kafka_poll(rk, 0);
    }
    if (rd_kafka_flush(rk, PRODUCER_FLUSH_TIMEOUT_MS) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        fprintf(stderr, "idempotent_producer: flush timed out\n");
        goto fail;
    }
    if (stats.delivered == count) {
        exit_code = 0;
    } else {
        fprintf(stderr, "idempotent_producer: %d of %d delivered, %d failed\n", stats.delivered,
                count, stats.failed);
    }

fail:
    if (conf)
        rd_kafka_conf_destroy(conf);
    if (rk)
        rd_kafka_destroy(rk);
    return exit_code;
}
