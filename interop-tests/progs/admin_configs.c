// SPDX-License-Identifier: Apache-2.0
/*
 * admin_configs: librdkafka's Admin API for configs, partitions and records
 * (DescribeConfigs, AlterConfigs, CreatePartitions, DeleteRecords) from the
 * command line, for the interop tests.
 *
 * Usage:
 *   admin_configs -b bootstrap describe topic|broker NAME
 *       one line per config: "<name>=<value> source=<SOURCE> readonly=<0|1>
 *       synonyms=<name>:<SOURCE>,..." (value "(null)" for null), or
 *       "ERROR <ERROR_NAME> <message>" for a resource error
 *   admin_configs -b bootstrap alter [-n] topic|broker NAME [key=value]...
 *       "<NAME> <ERROR_NAME> [message]" (-n: validate only)
 *   admin_configs -b bootstrap grow [-n] TOPIC COUNT
 *       "<TOPIC> <ERROR_NAME> [message]" (-n: validate only)
 *   admin_configs -b bootstrap delete-records TOPIC PARTITION OFFSET
 *       "<TOPIC> <PARTITION> <ERROR_NAME> <low watermark>"
 *
 * Exit status: 0 when the request got an answer (whatever its error codes),
 * 1 when none came or the whole request failed, 2 bad usage.
 *
 * Thread: main thread only; results arrive on a private queue.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "support/prog_opts.h"

#define ADMIN_TIMEOUT_MS 60000

/* Waits for the result event of type; NULL (message on stderr) if none or failed. */
static rd_kafka_event_t *wait_event(rd_kafka_queue_t *queue, rd_kafka_event_type_t type)
{
    rd_kafka_event_t *event = rd_kafka_queue_poll(queue, ADMIN_TIMEOUT_MS + 5000);
    if (!event) {
        fprintf(stderr, "admin_configs: no result within the deadline\n");
        return NULL;
    }
    if (rd_kafka_event_type(event) != type || rd_kafka_event_error(event)) {
        fprintf(stderr, "admin_configs: request failed: %s (%s)\n",
                rd_kafka_err2name(rd_kafka_event_error(event)), rd_kafka_event_error_string(event));
        rd_kafka_event_destroy(event);
        return NULL;
    }
    return event;
}

static rd_kafka_ResourceType_t resource_type(const char *name)
{
    if (strcmp(name, "topic") == 0)
        return RD_KAFKA_RESOURCE_TOPIC;
    if (strcmp(name, "broker") == 0)
        return RD_KAFKA_RESOURCE_BROKER;
    return RD_KAFKA_RESOURCE_UNKNOWN;
}

static void print_entry(const rd_kafka_ConfigEntry_t *e)
{
    size_t nsyn = 0, i;
    const rd_kafka_ConfigEntry_t **syn = rd_kafka_ConfigEntry_synonyms(e, &nsyn);
    const char *value = rd_kafka_ConfigEntry_value(e);

    printf("%s=%s source=%s readonly=%d synonyms=", rd_kafka_ConfigEntry_name(e),
           value ? value : "(null)", rd_kafka_ConfigSource_name(rd_kafka_ConfigEntry_source(e)),
           rd_kafka_ConfigEntry_is_read_only(e));
    for (i = 0; i < nsyn; i++)
        printf("%s%s:%s", i ? "," : "", rd_kafka_ConfigEntry_name(syn[i]),
               rd_kafka_ConfigSource_name(rd_kafka_ConfigEntry_source(syn[i])));
    printf("\n");
}

static int describe(rd_kafka_t *rk, rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *queue,
                    rd_kafka_ResourceType_t type, const char *name)
{
    rd_kafka_ConfigResource_t *res = rd_kafka_ConfigResource_new(type, name);
    rd_kafka_DescribeConfigs(rk, &res, 1, options, queue);
    rd_kafka_ConfigResource_destroy(res);
    rd_kafka_event_t *event = wait_event(queue, RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT);
    if (!event)
        return 1;
    size_t n = 0, i, j;
    const rd_kafka_ConfigResource_t **out =
        rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(event), &n);
    for (i = 0; i < n; i++) {
        if (rd_kafka_ConfigResource_error(out[i])) {
            printf("ERROR %s %s\n", rd_kafka_err2name(rd_kafka_ConfigResource_error(out[i])),
                   rd_kafka_ConfigResource_error_string(out[i]));
            continue;
        }
        size_t count = 0;
        const rd_kafka_ConfigEntry_t **entries = rd_kafka_ConfigResource_configs(out[i], &count);
        for (j = 0; j < count; j++)
            print_entry(entries[j]);
    }
    rd_kafka_event_destroy(event);
    return n > 0 ? 0 : 1;
}

static int alter(rd_kafka_t *rk, rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *queue,
                 rd_kafka_ResourceType_t type, const char *name, char **pairs, int npairs)
{
    rd_kafka_ConfigResource_t *res = rd_kafka_ConfigResource_new(type, name);
    for (int i = 0; i < npairs; i++) {
        char *eq = strchr(pairs[i], '=');
        if (!eq) {
            rd_kafka_ConfigResource_destroy(res);
            return 2;
        }
        *eq = '\0';
        rd_kafka_ConfigResource_set_config(res, pairs[i], eq + 1);
    }
    rd_kafka_AlterConfigs(rk, &res, 1, options, queue);
    rd_kafka_ConfigResource_destroy(res);
    rd_kafka_event_t *event = wait_event(queue, RD_KAFKA_EVENT_ALTERCONFIGS_RESULT);
    if (!event)
        return 1;
    size_t n = 0;
    const rd_kafka_ConfigResource_t **out =
        rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(event), &n);
    for (size_t i = 0; i < n; i++) {
        const char *msg = rd_kafka_ConfigResource_error_string(out[i]);
        printf("%s %s%s%s\n", rd_kafka_ConfigResource_name(out[i]),
               rd_kafka_err2name(rd_kafka_ConfigResource_error(out[i])), msg ? " " : "",
               msg ? msg : "");
    }
    rd_kafka_event_destroy(event);
    return n > 0 ? 0 : 1;
}

static int grow(rd_kafka_t *rk, rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *queue,
                const char *topic, int count)
{
    char errstr[512];
    rd_kafka_NewPartitions_t *np =
        rd_kafka_NewPartitions_new(topic, (size_t)count, errstr, sizeof errstr);
    if (!np) {
        fprintf(stderr, "admin_configs: %s\n", errstr);
        return 2;
    }
    rd_kafka_CreatePartitions(rk, &np, 1, options, queue);
    rd_kafka_NewPartitions_destroy(np);
    rd_kafka_event_t *event = wait_event(queue, RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT);
    if (!event)
        return 1;
    size_t n = 0;
    const rd_kafka_topic_result_t **out =
        rd_kafka_CreatePartitions_result_topics(rd_kafka_event_CreatePartitions_result(event), &n);
    for (size_t i = 0; i < n; i++) {
        const char *msg = rd_kafka_topic_result_error_string(out[i]);
        printf("%s %s%s%s\n", rd_kafka_topic_result_name(out[i]),
               rd_kafka_err2name(rd_kafka_topic_result_error(out[i])), msg ? " " : "",
               msg ? msg : "");
    }
    rd_kafka_event_destroy(event);
    return n > 0 ? 0 : 1;
}

static int delete_records(rd_kafka_t *rk, rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *queue,
                          const char *topic, int partition, int64_t offset)
{
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic, partition)->offset = offset;
    rd_kafka_DeleteRecords_t *del = rd_kafka_DeleteRecords_new(list);
    rd_kafka_topic_partition_list_destroy(list);
    rd_kafka_DeleteRecords(rk, &del, 1, options, queue);
    rd_kafka_DeleteRecords_destroy(del);
    rd_kafka_event_t *event = wait_event(queue, RD_KAFKA_EVENT_DELETERECORDS_RESULT);
    if (!event)
        return 1;
    const rd_kafka_topic_partition_list_t *out =
        rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(event));
    for (int i = 0; out && i < out->cnt; i++)
        printf("%s %d %s %" PRId64 "\n", out->elems[i].topic, out->elems[i].partition,
               rd_kafka_err2name(out->elems[i].err), out->elems[i].offset);
    int status = out && out->cnt > 0 ? 0 : 1;
    rd_kafka_event_destroy(event);
    return status;
}

static void usage(void)
{
    fprintf(stderr, "usage: admin_configs -b bootstrap describe topic|broker NAME\n"
                    "       admin_configs -b bootstrap alter [-n] topic|broker NAME [k=v]...\n"
                    "       admin_configs -b bootstrap grow [-n] TOPIC COUNT\n"
                    "       admin_configs -b bootstrap delete-records TOPIC PARTITION OFFSET\n");
}

int main(int argc, char **argv)
{
    char errstr[512];
    const char *bootstrap = NULL;
    const prog_opt_t opts[] = {PROG_REQUIRED('b', &bootstrap)};

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), true) < 0 ||
        argc - optind < 2) {
        usage();
        return 2;
    }
    const char *command = argv[optind++];
    int validate = 0;
    if (optind < argc && strcmp(argv[optind], "-n") == 0) {
        validate = 1;
        optind++;
    }
    int left = argc - optind;
    char **args = argv + optind;

    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(conf, "log_level", "4", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "admin_configs: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
        return 2;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "admin_configs: %s\n", errstr);
        return 2;
    }
    rd_kafka_queue_t *queue = rd_kafka_queue_new(rk);
    rd_kafka_AdminOptions_t *options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_ANY);
    rd_kafka_AdminOptions_set_request_timeout(options, ADMIN_TIMEOUT_MS, errstr, sizeof errstr);
    if (validate)
        rd_kafka_AdminOptions_set_validate_only(options, 1, errstr, sizeof errstr);

    int status = 2;
    if (strcmp(command, "describe") == 0 && left == 2)
        status = describe(rk, options, queue, resource_type(args[0]), args[1]);
    else if (strcmp(command, "alter") == 0 && left >= 2)
        status = alter(rk, options, queue, resource_type(args[0]), args[1], args + 2, left - 2);
    else if (strcmp(command, "grow") == 0 && left == 2)
        status = grow(rk, options, queue, args[0], atoi(args[1]));
    else if (strcmp(command, "delete-records") == 0 && left == 3)
        status =
            delete_records(rk, options, queue, args[0], atoi(args[1]), strtoll(args[2], NULL, 10));
    else
        usage();
    rd_kafka_AdminOptions_destroy(options);
    rd_kafka_queue_destroy(queue);
    rd_kafka_destroy(rk);
    return status;
}
