// SPDX-License-Identifier: Apache-2.0
/*
 * group_admin: librdkafka's Admin API for consumer groups from the command
 * line, for the group interop tests.
 *
 * Usage:
 *   group_admin -b bootstrap list [STATE...]
 *   group_admin -b bootstrap describe GROUP...
 *   group_admin -b bootstrap delete GROUP...
 *   group_admin -b bootstrap offsets GROUP [TOPIC:PARTITION...]
 *   group_admin -b bootstrap alter-offsets GROUP TOPIC:PARTITION:OFFSET[:METADATA]...
 *   group_admin -b bootstrap delete-offsets GROUP TOPIC:PARTITION...
 *
 * list is ListConsumerGroups (only groups in the given states, e.g. Stable
 * Empty, when some are named); describe is DescribeConsumerGroups; delete is
 * DeleteGroups; offsets is ListConsumerGroupOffsets (all committed
 * partitions when none are named); alter-offsets and delete-offsets are
 * AlterConsumerGroupOffsets and DeleteConsumerGroupOffsets.
 *
 * Output, one line each, error names as rd_kafka_err2name() spells them:
 *   list:       group GROUP STATE simple|consumer
 *               list-error ERROR_NAME message      (a broker that failed)
 *   describe:   group GROUP STATE ERROR_NAME assignor=NAME members=N
 *               member GROUP CONSUMER_ID CLIENT_ID INSTANCE_ID|- PARTS
 *   delete:     result GROUP ERROR_NAME
 *   *offsets:   result GROUP ERROR_NAME
 *               offset GROUP TOPIC PARTITION OFFSET ERROR_NAME [metadata=TEXT]
 *               (the commit's metadata, when it has some)
 * STATE is rd_kafka_consumer_group_state_name()'s spelling (Stable, Empty,
 * PreparingRebalance, CompletingRebalance, Dead, Unknown); PARTS is "-" or
 * TOPIC:PARTITION,... sorted; offset lines are sorted by topic and partition.
 *
 * Exit status: 0 when the request got an answer (whatever its error codes),
 * 1 when none came (timeout, transport error), 2 bad usage.
 *
 * Thread: main thread only; results arrive on a private queue.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "support/prog_opts.h"
#include "support/rdk_util.h"

#define GA_TIMEOUT_MS     30000
#define GA_MAX_STATES     RD_KAFKA_CONSUMER_GROUP_STATE__CNT
#define GA_MAX_TOPIC_NAME 249 /* Kafka's limit on topic name length */

/* Prints " PARTS" for a member's assignment, sorted. */
static void ga_print_parts(const rd_kafka_topic_partition_list_t *parts)
{
    rd_kafka_topic_partition_list_t *sorted = rd_kafka_topic_partition_list_copy(parts);
    int i;

    qsort(sorted->elems, (size_t)sorted->cnt, sizeof(*sorted->elems), rdk_compare_partitions);
    printf(" ");
    if (sorted->cnt == 0)
        printf("-");
    for (i = 0; i < sorted->cnt; i++)
        printf("%s%s:%" PRId32, i ? "," : "", sorted->elems[i].topic, sorted->elems[i].partition);
    printf("\n");
    rd_kafka_topic_partition_list_destroy(sorted);
}

/*
 * Parses "TOPIC:PARTITION" or, with want_offset,
 * "TOPIC:PARTITION:OFFSET[:METADATA]" into list. Returns 0 or -EINVAL.
 */
static int ga_parse_partition(const char *text, bool want_offset,
                              rd_kafka_topic_partition_list_t *list /* out: appended */)
{
    char topic[GA_MAX_TOPIC_NAME + 1];
    const char *colon = strchr(text, ':');
    char *end = NULL;
    long partition;
    long long offset = RD_KAFKA_OFFSET_INVALID;
    const char *metadata = NULL;
    rd_kafka_topic_partition_t *added;

    if (!colon || colon == text || (size_t)(colon - text) > GA_MAX_TOPIC_NAME)
        return -EINVAL;
    memcpy(topic, text, (size_t)(colon - text));
    topic[colon - text] = '\0';
    errno = 0;
    partition = strtol(colon + 1, &end, 10);
    if (errno || end == colon + 1 || partition < 0 || partition > INT32_MAX)
        return -EINVAL;
    if (want_offset) {
        const char *offset_text = end + 1;

        if (*end != ':')
            return -EINVAL;
        offset = strtoll(offset_text, &end, 10);
        if (errno || end == offset_text || offset < 0)
            return -EINVAL;
        if (*end == ':')
            metadata = end + 1;
    }
    if (*end && !metadata)
        return -EINVAL;
    added = rd_kafka_topic_partition_list_add(list, topic, (int32_t)partition);
    added->offset = offset;
    if (metadata) {
        /* the list owns it: librdkafka frees a partition's metadata */
        added->metadata = strdup(metadata);
        if (!added->metadata)
            return -ENOMEM;
        added->metadata_size = strlen(metadata);
    }
    return 0;
}

/* Prints a group result and its partitions (sorted). */
static void ga_print_group_result(const rd_kafka_group_result_t *result)
{
    const rd_kafka_error_t *error = rd_kafka_group_result_error(result);
    const rd_kafka_topic_partition_list_t *parts = rd_kafka_group_result_partitions(result);
    const char *group = rd_kafka_group_result_name(result);
    rd_kafka_topic_partition_list_t *sorted;
    int i;

    printf("result %s %s\n", group,
           error ? rd_kafka_err2name(rd_kafka_error_code(error)) : "NO_ERROR");
    if (!parts)
        return;
    sorted = rd_kafka_topic_partition_list_copy(parts);
    qsort(sorted->elems, (size_t)sorted->cnt, sizeof(*sorted->elems), rdk_compare_partitions);
    for (i = 0; i < sorted->cnt; i++) {
        const rd_kafka_topic_partition_t *part = &sorted->elems[i];

        printf("offset %s %s %" PRId32 " %" PRId64 " %s", group, part->topic, part->partition,
               part->offset, rd_kafka_err2name(part->err));
        if (part->metadata_size > 0)
            printf(" metadata=%.*s", (int)part->metadata_size, (const char *)part->metadata);
        printf("\n");
    }
    rd_kafka_topic_partition_list_destroy(sorted);
}

static void ga_print_listing(rd_kafka_event_t *event)
{
    const rd_kafka_ListConsumerGroups_result_t *result =
        rd_kafka_event_ListConsumerGroups_result(event);
    const rd_kafka_ConsumerGroupListing_t **groups;
    const rd_kafka_error_t **errors;
    size_t count = 0;
    size_t i;

    groups = rd_kafka_ListConsumerGroups_result_valid(result, &count);
    for (i = 0; i < count; i++)
        printf("group %s %s %s\n", rd_kafka_ConsumerGroupListing_group_id(groups[i]),
               rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupListing_state(groups[i])),
               rd_kafka_ConsumerGroupListing_is_simple_consumer_group(groups[i]) ? "simple"
                                                                                 : "consumer");
    errors = rd_kafka_ListConsumerGroups_result_errors(result, &count);
    for (i = 0; i < count; i++)
        printf("list-error %s %s\n", rd_kafka_err2name(rd_kafka_error_code(errors[i])),
               rd_kafka_error_string(errors[i]));
}

static void ga_print_description(const rd_kafka_ConsumerGroupDescription_t *group)
{
    const rd_kafka_error_t *error = rd_kafka_ConsumerGroupDescription_error(group);
    const char *id = rd_kafka_ConsumerGroupDescription_group_id(group);
    const char *assignor = rd_kafka_ConsumerGroupDescription_partition_assignor(group);
    size_t members = rd_kafka_ConsumerGroupDescription_member_count(group);
    size_t i;

    printf("group %s %s %s assignor=%s members=%zu\n", id,
           rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupDescription_state(group)),
           error ? rd_kafka_err2name(rd_kafka_error_code(error)) : "NO_ERROR",
           assignor && *assignor ? assignor : "-", members);
    for (i = 0; i < members; i++) {
        const rd_kafka_MemberDescription_t *member =
            rd_kafka_ConsumerGroupDescription_member(group, i);
        const char *instance = rd_kafka_MemberDescription_group_instance_id(member);

        printf("member %s %s %s %s", id, rd_kafka_MemberDescription_consumer_id(member),
               rd_kafka_MemberDescription_client_id(member), instance ? instance : "-");
        ga_print_parts(
            rd_kafka_MemberAssignment_partitions(rd_kafka_MemberDescription_assignment(member)));
    }
}

/* Prints the results of one admin event. */
static void ga_print_event(rd_kafka_event_t *event)
{
    const rd_kafka_group_result_t **results = NULL;
    size_t count = 0;
    size_t i;

    switch (rd_kafka_event_type(event)) {
    case RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT:
        ga_print_listing(event);
        return;
    case RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT: {
        const rd_kafka_ConsumerGroupDescription_t **groups =
            rd_kafka_DescribeConsumerGroups_result_groups(
                rd_kafka_event_DescribeConsumerGroups_result(event), &count);

        for (i = 0; i < count; i++)
            ga_print_description(groups[i]);
        return;
    }
    case RD_KAFKA_EVENT_DELETEGROUPS_RESULT:
        results =
            rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(event), &count);
        break;
    case RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT:
        results = rd_kafka_ListConsumerGroupOffsets_result_groups(
            rd_kafka_event_ListConsumerGroupOffsets_result(event), &count);
        break;
    case RD_KAFKA_EVENT_ALTERCONSUMERGROUPOFFSETS_RESULT:
        results = rd_kafka_AlterConsumerGroupOffsets_result_groups(
            rd_kafka_event_AlterConsumerGroupOffsets_result(event), &count);
        break;
    case RD_KAFKA_EVENT_DELETECONSUMERGROUPOFFSETS_RESULT:
        results = rd_kafka_DeleteConsumerGroupOffsets_result_groups(
            rd_kafka_event_DeleteConsumerGroupOffsets_result(event), &count);
        break;
    default:
        fprintf(stderr, "group_admin: unexpected event %s\n", rd_kafka_event_name(event));
        return;
    }
    for (i = 0; i < count; i++)
        ga_print_group_result(results[i]);
}

/* Waits for the result event and prints it. Returns 0, or 1 when none came. */
static int ga_wait_result(rd_kafka_queue_t *queue)
{
    rd_kafka_event_t *event = rd_kafka_queue_poll(queue, GA_TIMEOUT_MS + 5000);
    int status = 1;

    if (!event) {
        fprintf(stderr, "group_admin: no result within the deadline\n");
        return 1;
    }
    if (rd_kafka_event_error(event)) {
        fprintf(stderr, "group_admin: request failed: %s (%s)\n",
                rd_kafka_err2name(rd_kafka_event_error(event)), rd_kafka_event_error_string(event));
        goto fail;
    }
    ga_print_event(event);
    status = 0;
fail:
    rd_kafka_event_destroy(event);
    return status;
}

/* Sets the state filter of a list command. Returns 0 or -EINVAL. */
static int ga_set_state_filter(rd_kafka_AdminOptions_t *options, char **names, int count)
{
    rd_kafka_consumer_group_state_t states[GA_MAX_STATES];
    rd_kafka_error_t *error;
    int i;

    if (count == 0)
        return 0;
    if (count > GA_MAX_STATES)
        return -EINVAL;
    for (i = 0; i < count; i++) {
        states[i] = rd_kafka_consumer_group_state_code(names[i]);
        if (states[i] == RD_KAFKA_CONSUMER_GROUP_STATE_UNKNOWN) {
            fprintf(stderr, "group_admin: unknown group state %s\n", names[i]);
            return -EINVAL;
        }
    }
    error = rd_kafka_AdminOptions_set_match_consumer_group_states(options, states, (size_t)count);
    if (error) {
        fprintf(stderr, "group_admin: %s\n", rd_kafka_error_string(error));
        rd_kafka_error_destroy(error);
        return -EINVAL;
    }
    return 0;
}

/*
 * Parses the partitions of an offsets command (operands from argv[0]).
 * Returns the list (NULL for none when allowed), or sets *bad.
 */
static rd_kafka_topic_partition_list_t *ga_parse_partitions(char **argv, int count,
                                                            bool want_offset, bool *bad /* out */)
{
    rd_kafka_topic_partition_list_t *list;
    int i;

    if (count == 0)
        return NULL;
    list = rd_kafka_topic_partition_list_new(count);
    for (i = 0; i < count; i++) {
        if (ga_parse_partition(argv[i], want_offset, list) != 0) {
            fprintf(stderr, "group_admin: bad partition %s\n", argv[i]);
            *bad = true;
            break;
        }
    }
    return list;
}

/* Sends the offsets commands. Returns 0 when sent, or -EINVAL for bad usage. */
static int ga_send_offsets(rd_kafka_t *rk, const char *command, const char *group, char **parts,
                           int part_count, const rd_kafka_AdminOptions_t *options,
                           rd_kafka_queue_t *queue)
{
    bool altering = strcmp(command, "alter-offsets") == 0;
    bool bad = false;
    rd_kafka_topic_partition_list_t *list = ga_parse_partitions(parts, part_count, altering, &bad);
    int status = -EINVAL;

    if (bad)
        goto fail;
    if (strcmp(command, "offsets") == 0) {
        rd_kafka_ListConsumerGroupOffsets_t *request =
            rd_kafka_ListConsumerGroupOffsets_new(group, list);

        rd_kafka_ListConsumerGroupOffsets(rk, &request, 1, options, queue);
        rd_kafka_ListConsumerGroupOffsets_destroy(request);
    } else if (altering && list) {
        rd_kafka_AlterConsumerGroupOffsets_t *request =
            rd_kafka_AlterConsumerGroupOffsets_new(group, list);

        rd_kafka_AlterConsumerGroupOffsets(rk, &request, 1, options, queue);
        rd_kafka_AlterConsumerGroupOffsets_destroy(request);
    } else if (strcmp(command, "delete-offsets") == 0 && list) {
        rd_kafka_DeleteConsumerGroupOffsets_t *request =
            rd_kafka_DeleteConsumerGroupOffsets_new(group, list);

        rd_kafka_DeleteConsumerGroupOffsets(rk, &request, 1, options, queue);
        rd_kafka_DeleteConsumerGroupOffsets_destroy(request);
    } else {
        goto fail;
    }
    status = 0;
fail:
    if (list)
        rd_kafka_topic_partition_list_destroy(list);
    return status;
}

/* Sends describe or delete for the named groups. */
static void ga_send_groups(rd_kafka_t *rk, bool describe, char **groups, int count,
                           const rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *queue)
{
    rd_kafka_DeleteGroup_t **deletes;
    int i;

    if (describe) {
        rd_kafka_DescribeConsumerGroups(rk, (const char **)groups, (size_t)count, options, queue);
        return;
    }
    deletes = calloc((size_t)count, sizeof(*deletes));
    if (!deletes) {
        fprintf(stderr, "group_admin: out of memory\n");
        exit(2);
    }
    for (i = 0; i < count; i++)
        deletes[i] = rd_kafka_DeleteGroup_new(groups[i]);
    rd_kafka_DeleteGroups(rk, deletes, (size_t)count, options, queue);
    rd_kafka_DeleteGroup_destroy_array(deletes, (size_t)count);
    free(deletes);
}

/*
 * Sends the command in argv (operands after the options). Returns 0 when a
 * request went out, -EINVAL for bad usage.
 */
static int ga_send(rd_kafka_t *rk, int argc, char **argv, rd_kafka_AdminOptions_t *options,
                   rd_kafka_queue_t *queue)
{
    const char *command = argv[0];

    if (strcmp(command, "list") == 0) {
        if (ga_set_state_filter(options, argv + 1, argc - 1) != 0)
            return -EINVAL;
        rd_kafka_ListConsumerGroups(rk, options, queue);
        return 0;
    }
    if (argc < 2)
        return -EINVAL;
    if (strcmp(command, "describe") == 0 || strcmp(command, "delete") == 0) {
        ga_send_groups(rk, strcmp(command, "describe") == 0, argv + 1, argc - 1, options, queue);
        return 0;
    }
    return ga_send_offsets(rk, command, argv[1], argv + 2, argc - 2, options, queue);
}

static void ga_usage(void)
{
    fprintf(stderr, "usage: group_admin -b bootstrap list [STATE...]\n"
                    "       group_admin -b bootstrap describe|delete GROUP...\n"
                    "       group_admin -b bootstrap offsets GROUP [TOPIC:PARTITION...]\n"
                    "       group_admin -b bootstrap alter-offsets GROUP "
                    "TOPIC:PARTITION:OFFSET[:METADATA]...\n"
                    "       group_admin -b bootstrap delete-offsets GROUP TOPIC:PARTITION...\n");
}

int main(int argc, char **argv)
{
    char errstr[512];
    const char *bootstrap = NULL;
    rd_kafka_conf_t *conf = NULL;
    rd_kafka_t *rk = NULL;
    rd_kafka_queue_t *queue = NULL;
    rd_kafka_AdminOptions_t *options = NULL;
    int status = 2;
    const prog_opt_t opts[] = {PROG_REQUIRED('b', &bootstrap)};

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), true) < 0 ||
        argc - optind < 1) {
        ga_usage();
        return 2;
    }
    conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(conf, "log_level", "4", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "group_admin: %s\n", errstr);
        goto fail;
    }
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "group_admin: %s\n", errstr);
        goto fail;
    }
    conf = NULL;
    queue = rd_kafka_queue_new(rk);
    options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_ANY);
    if (rd_kafka_AdminOptions_set_request_timeout(options, GA_TIMEOUT_MS, errstr, sizeof(errstr)) !=
        RD_KAFKA_RESP_ERR_NO_ERROR) {
        fprintf(stderr, "group_admin: %s\n", errstr);
        goto fail;
    }
    if (ga_send(rk, argc - optind, argv + optind, options, queue) != 0) {
        ga_usage();
        goto fail;
    }
    status = ga_wait_result(queue);
fail:
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
