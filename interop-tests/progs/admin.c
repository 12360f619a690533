// SPDX-License-Identifier: Apache-2.0
/*
 * admin: librdkafka's Admin API (CreateTopics, DeleteTopics) from the command
 * line, for the interop tests.
 *
 * Usage:
 *   admin -b bootstrap create TOPIC PARTITIONS [REPLICATION [key=value]...]
 *   admin -b bootstrap create-validate TOPIC PARTITIONS [REPLICATION]
 *   admin -b bootstrap delete TOPIC
 *
 * PARTITIONS and REPLICATION may be -1 (the broker's default). Prints one
 * line, "<TOPIC> <ERROR_NAME> [message]", with the error name as
 * rd_kafka_err2name() spells it (NO_ERROR on success), so a test can assert
 * the broker's answer. Exit status: 0 when the request got an answer (whatever
 * its error code), 1 when none came (timeout, transport error), 2 bad usage or
 * a request librdkafka refused to build (its message on stderr).
 *
 * Options stop at the first operand, so PARTITIONS may be -1.
 *
 * Thread: main thread only; results arrive on a private queue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "support/prog_opts.h"

#define ADMIN_TIMEOUT_MS 60000

/* Parses a decimal int. Returns 0 and sets *out, or -EINVAL. */
static int admin_parse_int(const char *text, int *out /* out */)
{
    char *end = NULL;
    long value;

    errno = 0;
    value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < -1 || value > 1000000)
        return -EINVAL;
    *out = (int)value;
    return 0;
}

/* Prints one topic result line. */
static void admin_print_result(const rd_kafka_topic_result_t *result)
{
    const char *message = rd_kafka_topic_result_error_string(result);

    printf("%s %s%s%s\n", rd_kafka_topic_result_name(result),
           rd_kafka_err2name(rd_kafka_topic_result_error(result)), message ? " " : "",
           message ? message : "");
}

/*
 * Waits for the admin result event on queue and prints its topic results.
 * Returns 0, or 1 when no usable result came.
 */
static int admin_wait_result(rd_kafka_queue_t *queue, rd_kafka_event_type_t type)
{
    rd_kafka_event_t *event = rd_kafka_queue_poll(queue, ADMIN_TIMEOUT_MS + 5000);
    const rd_kafka_topic_result_t **results = NULL;
    size_t count = 0;
    size_t i;
    int status = 1;

    if (!event) {
        fprintf(stderr, "admin: no result within the deadline\n");
        return 1;
    }
    if (rd_kafka_event_type(event) != type) {
        fprintf(stderr, "admin: unexpected event %s\n", rd_kafka_event_name(event));
        goto fail;
    }
    if (rd_kafka_event_error(event)) {
        fprintf(stderr, "admin: request failed: %s (%s)\n",
                rd_kafka_err2name(rd_kafka_event_error(event)), rd_kafka_event_error_string(event));
        goto fail;
    }
    if (type == RD_KAFKA_EVENT_CREATETOPICS_RESULT)
        results =
            rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count);
    else
        results =
            rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(event), &count);
    for (i = 0; i < count; i++)
        admin_print_result(results[i]);
    status = count > 0 ? 0 : 1;
fail:
    rd_kafka_event_destroy(event);
    return status;
}

static void admin_usage(void)
{
    fprintf(stderr, "usage: admin -b bootstrap create TOPIC PARTITIONS [REPLICATION [k=v]...]\n"
                    "       admin -b bootstrap create-validate TOPIC PARTITIONS [REPLICATION]\n"
                    "       admin -b bootstrap delete TOPIC\n");
}

int main(int argc, char **argv)
{
    char errstr[512];
    const char *bootstrap = NULL;
    rd_kafka_conf_t *conf = NULL;
    rd_kafka_t *rk = NULL;
    rd_kafka_queue_t *queue = NULL;
    rd_kafka_AdminOptions_t *options = NULL;
    rd_kafka_NewTopic_t *new_topic = NULL;
    rd_kafka_DeleteTopic_t *delete_topic = NULL;
    const char *command;
    int status = 2;
    const prog_opt_t opts[] = {PROG_REQUIRED('b', &bootstrap)};

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), true) < 0 ||
        argc - optind < 2) {
        admin_usage();
        return 2;
    }
    command = argv[optind];

    conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(conf, "log_level", "4", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "admin: %s\n", errstr);
        goto fail;
    }
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "admin: %s\n", errstr);
        goto fail;
    }
    conf = NULL;
    queue = rd_kafka_queue_new(rk);
    options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_ANY);
    if (rd_kafka_AdminOptions_set_request_timeout(options, ADMIN_TIMEOUT_MS, errstr,
                                                  sizeof(errstr)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        fprintf(stderr, "admin: %s\n", errstr);
        goto fail;
    }

    if (strcmp(command, "create") == 0 || strcmp(command, "create-validate") == 0) {
        int partitions = 0;
        int replication = -1;
        int i;

        if (argc - optind < 3 || admin_parse_int(argv[optind + 2], &partitions) != 0 ||
            (argc - optind >= 4 && admin_parse_int(argv[optind + 3], &replication) != 0)) {
            admin_usage();
            goto fail;
        }
        new_topic = rd_kafka_NewTopic_new(argv[optind + 1], partitions, replication, errstr,
                                          sizeof(errstr));
        if (!new_topic) {
            fprintf(stderr, "admin: librdkafka refused the request: %s\n", errstr);
            goto fail;
        }
        for (i = optind + 4; i < argc; i++) {
            char key[256];
            const char *eq = strchr(argv[i], '=');

            if (!eq || (size_t)(eq - argv[i]) >= sizeof(key)) {
                admin_usage();
                goto fail;
            }
            memcpy(key, argv[i], (size_t)(eq - argv[i]));
            key[eq - argv[i]] = '\0';
            rd_kafka_NewTopic_set_config(new_topic, key, eq + 1);
        }
        if (strcmp(command, "create-validate") == 0 &&
            rd_kafka_AdminOptions_set_validate_only(options, 1, errstr, sizeof(errstr)) !=
                RD_KAFKA_RESP_ERR_NO_ERROR) {
            fprintf(stderr, "admin: %s\n", errstr);
            goto fail;
        }
        rd_kafka_CreateTopics(rk, &new_topic, 1, options, queue);
        status = admin_wait_result(queue, RD_KAFKA_EVENT_CREATETOPICS_RESULT);
    } else if (strcmp(command, "delete") == 0) {
        delete_topic = rd_kafka_DeleteTopic_new(argv[optind + 1]);
        rd_kafka_DeleteTopics(rk, &delete_topic, 1, options, queue);
        status = admin_wait_result(queue, RD_KAFKA_EVENT_DELETETOPICS_RESULT);
    } else {
        admin_usage();
    }
fail:
    if (new_topic)
        rd_kafka_NewTopic_destroy(new_topic);
    if (delete_topic)
        rd_kafka_DeleteTopic_destroy(delete_topic);
    if (options)
        rd_kafka_AdminOptions_destroy(options);
    if (queue)
        rd_kafka_queue_destroy(queue);
    if (conf)
        rd_kafka_conf_destroy(conf);
    if (rk)
        rd_kafka_destroy(rk);
    return status;
}
