// SPDX-License-Identifier: Apache-2.0
/*
 * group_member: one librdkafka KafkaConsumer in a consumer group, for the
 * group interop tests. A test starts several in the background, reads what
 * they print, and stops, kills or restarts them.
 *
 * Usage:
 *   group_member -b bootstrap -g group -t topic [-t topic]...
 *                [-a range|roundrobin|cooperative-sticky] [-i instance_id]
 *                [-s session_ms] [-h heartbeat_ms] [-c auto|sync|none]
 *                [-n records] [-o earliest|latest] [-w seconds] [-X key=value]...
 *
 *   -a  partition.assignment.strategy (default range); cooperative-sticky
 *       makes the rebalances incremental
 *   -i  group.instance.id: a static member (no LeaveGroup on close)
 *   -s  session.timeout.ms (default 10000); -h heartbeat.interval.ms (500)
 *   -c  auto: auto-commit every 200 ms and on close (default); sync: commit
 *       every record synchronously as it is consumed; none: never commit
 *   -n  stop after this many records (default 0: until a signal)
 *   -o  auto.offset.reset (default earliest)
 *   -w  run at most this long (default 120 s), then stop with status 1
 *   -X  extra librdkafka consumer property (repeatable)
 *
 * Output (stdout, one line each, flushed per line):
 *   rebalance assign|revoke|lost PARTS   a rebalance callback, PARTS being
 *                                        the partitions it hands over
 *   assignment COUNT PARTS               the whole assignment after it
 *   member MEMBER_ID                     the member id, after an assign
 *                                        callback, when it changed
 *   got TOPIC PARTITION OFFSET KEY       a consumed record ("-" for no key)
 *   committed TOPIC PARTITION OFFSET     a successful commit: the group's
 *                                        position (next offset to read)
 *   commit-failed ERROR_NAME             a commit the coordinator refused
 *   error ERROR_NAME reason              a consumer error librdkafka reports
 *                                        and retries (e.g. a refused JoinGroup)
 *   fatal ERROR_NAME reason              a fatal client error (e.g. fenced)
 *   closed consumed=N rebalances=N ok|FAILED
 * PARTS is "-" or a comma-separated list of TOPIC:PARTITION sorted by topic
 * and partition, so a test can compare assignments as strings.
 *
 * Stopping: SIGTERM or SIGINT closes the consumer cleanly (final commit in
 * auto mode, LeaveGroup unless static) and exits 0. Exit status: 0 stopped
 * by signal or after -n records, 1 deadline passed or close failed, 2 bad
 * usage or setup, 3 fatal client error (e.g. FENCED_INSTANCE_ID).
 *
 * Signals are blocked before librdkafka starts its threads (they inherit the
 * mask) and the poll loop takes them with sigtimedwait(), so there is no
 * handler and no global flag.
 *
 * Thread: main thread only; the rebalance and commit callbacks run inside
 * rd_kafka_consumer_poll() and rd_kafka_consumer_close() on it.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "support/prog_opts.h"
#include "support/rdk_util.h"

#define GM_PROG "group_member" /* names it in messages */

#define GM_MAX_TOPICS        16
#define GM_MAX_EXTRA         64
#define GM_POLL_MS           100
#define GM_DEFAULT_WAIT_S    120
#define GM_DEFAULT_SESSION   "10000"
#define GM_DEFAULT_HEARTBEAT "500"
#define GM_AUTO_COMMIT_MS    "200"
#define GM_EXIT_FATAL        3

typedef enum gm_commit { GM_COMMIT_AUTO, GM_COMMIT_SYNC, GM_COMMIT_NONE } gm_commit_t;

/* Everything one member owns; passed to the callbacks as their opaque. */
typedef struct gm_member {
    const char *bootstrap;
    const char *group;
    const char *topics[GM_MAX_TOPICS];
    int topic_count;
    const char *strategy;
    const char *instance_id;
    const char *session_ms;
    const char *heartbeat_ms;
    const char *offset_reset;
    const char *extra[GM_MAX_EXTRA];
    int extra_count;
    gm_commit_t commit;
    long max_records;
    int wait_s;

    long consumed;
    long rebalances;
    char *member_id;                             /* last printed member id */
    rd_kafka_topic_partition_list_t *assignment; /* what the rebalances handed over */
} gm_member_t;

/*
 * Updates the member's own copy of its assignment with what a rebalance
 * handed over, and prints it whole. The copy exists because asking
 * librdkafka (rd_kafka_assignment()) from the revoke that
 * rd_kafka_consumer_close() triggers can block forever once the group
 * handler has terminated (librdkafka issues #4041, #4884).
 */
static void gm_track_assignment(gm_member_t *member, const rd_kafka_topic_partition_list_t *parts,
                                bool assigned, bool cooperative)
{
    rd_kafka_topic_partition_list_t *next = rd_kafka_topic_partition_list_new(0);
    int i;

    for (i = 0; cooperative && i < member->assignment->cnt; i++) {
        const rd_kafka_topic_partition_t *held = &member->assignment->elems[i];

        if (assigned || !rd_kafka_topic_partition_list_find(parts, held->topic, held->partition))
            rd_kafka_topic_partition_list_add(next, held->topic, held->partition);
    }
    for (i = 0; assigned && i < parts->cnt; i++) {
        if (!rd_kafka_topic_partition_list_find(next, parts->elems[i].topic,
                                                parts->elems[i].partition))
            rd_kafka_topic_partition_list_add(next, parts->elems[i].topic,
                                              parts->elems[i].partition);
    }
    rd_kafka_topic_partition_list_destroy(member->assignment);
    member->assignment = next;
    rdk_print_partitions("assignment", next, true);
}

/* Prints the member id when it changed (it is read under a lock, no request). */
static void gm_print_member_id(gm_member_t *member, rd_kafka_t *rk)
{
    char *member_id = rd_kafka_memberid(rk);

    if (member_id && (!member->member_id || strcmp(member_id, member->member_id) != 0)) {
        printf("member %s\n", member_id);
        rd_kafka_mem_free(rk, member->member_id);
        member->member_id = member_id;
    } else if (member_id) {
        rd_kafka_mem_free(rk, member_id);
    }
}

/* Applies what a rebalance hands over, eagerly or incrementally. */
static void gm_on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    gm_member_t *member = opaque;
    bool cooperative = strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
    bool assigned = err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS;
    rd_kafka_error_t *error = NULL;
    rd_kafka_resp_err_t assign_err = RD_KAFKA_RESP_ERR_NO_ERROR;

    member->rebalances++;
    if (assigned) {
        rdk_print_partitions("rebalance assign", parts, false);
        if (cooperative)
            error = rd_kafka_incremental_assign(rk, parts);
        else
            assign_err = rd_kafka_assign(rk, parts);
    } else {
        rdk_print_partitions(rd_kafka_assignment_lost(rk) ? "rebalance lost" : "rebalance revoke",
                             parts, false);
        if (cooperative)
            error = rd_kafka_incremental_unassign(rk, parts);
        else
            assign_err = rd_kafka_assign(rk, NULL);
    }
    if (error) {
        fprintf(stderr, "group_member: incremental (un)assign: %s\n", rd_kafka_error_string(error));
        rd_kafka_error_destroy(error);
    } else if (assign_err) {
        fprintf(stderr, "group_member: assign: %s\n", rd_kafka_err2name(assign_err));
    }
    gm_track_assignment(member, parts, assigned, cooperative);
    if (assigned)
        gm_print_member_id(member, rk);
}

/* Prints the committed positions of a commit, or why it failed. */
static void gm_print_commit(rd_kafka_resp_err_t err, const rd_kafka_topic_partition_list_t *offsets)
{
    int i;

    if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET) {
        printf("commit-failed %s\n", rd_kafka_err2name(err));
        return;
    }
    for (i = 0; offsets && i < offsets->cnt; i++) {
        const rd_kafka_topic_partition_t *part = &offsets->elems[i];

        if (part->err)
            printf("commit-failed %s\n", rd_kafka_err2name(part->err));
        else if (part->offset >= 0)
            printf("committed %s %" PRId32 " %" PRId64 "\n", part->topic, part->partition,
                   part->offset);
    }
}

static void gm_on_commit(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *offsets, void *opaque)
{
    (void)rk;
    (void)opaque;
    gm_print_commit(err, offsets);
}

/*
 * Commits the position after msg synchronously. The outcome is printed by
 * gm_on_commit, which librdkafka calls for synchronous commits too.
 */
static void gm_commit_record(rd_kafka_t *rk, const rd_kafka_message_t *msg)
{
    rd_kafka_topic_partition_list_t *offsets = rd_kafka_topic_partition_list_new(1);

    rd_kafka_topic_partition_list_add(offsets, rd_kafka_topic_name(msg->rkt), msg->partition)
        ->offset = msg->offset + 1;
    rd_kafka_commit(rk, offsets, 0);
    rd_kafka_topic_partition_list_destroy(offsets);
}

/* Fills conf from the command line. Returns 0 or -EINVAL. */
static int gm_conf_apply(const gm_member_t *member, rd_kafka_conf_t *conf)
{
    bool auto_commit = member->commit == GM_COMMIT_AUTO;
    int i;

    if (rdk_conf_set(conf, GM_PROG, "bootstrap.servers", member->bootstrap) ||
        rdk_conf_set(conf, GM_PROG, "group.id", member->group) ||
        rdk_conf_set(conf, GM_PROG, "partition.assignment.strategy", member->strategy) ||
        rdk_conf_set(conf, GM_PROG, "session.timeout.ms", member->session_ms) ||
        rdk_conf_set(conf, GM_PROG, "heartbeat.interval.ms", member->heartbeat_ms) ||
        rdk_conf_set(conf, GM_PROG, "auto.offset.reset", member->offset_reset) ||
        rdk_conf_set(conf, GM_PROG, "enable.auto.commit", auto_commit ? "true" : "false") ||
        rdk_conf_set(conf, GM_PROG, "auto.commit.interval.ms", GM_AUTO_COMMIT_MS) ||
        rdk_conf_set(conf, GM_PROG, "log_level", "4"))
        return -EINVAL;
    if (member->instance_id &&
        rdk_conf_set(conf, GM_PROG, "group.instance.id", member->instance_id))
        return -EINVAL;
    for (i = 0; i < member->extra_count; i++) {
        char key[256];
        const char *eq = strchr(member->extra[i], '=');

        if (!eq || (size_t)(eq - member->extra[i]) >= sizeof(key)) {
            fprintf(stderr, "group_member: -X wants key=value, got %s\n", member->extra[i]);
            return -EINVAL;
        }
        memcpy(key, member->extra[i], (size_t)(eq - member->extra[i]));
        key[eq - member->extra[i]] = '\0';
        if (rdk_conf_set(conf, GM_PROG, key, eq + 1))
            return -EINVAL;
    }
    rd_kafka_conf_set_rebalance_cb(conf, gm_on_rebalance);
    rd_kafka_conf_set_offset_commit_cb(conf, gm_on_commit);
    return 0;
}

/* Prints one consumed record and commits it in sync mode. */
static void gm_consume_record(gm_member_t *member, rd_kafka_t *rk, const rd_kafka_message_t *msg)
{
    member->consumed++;
    printf("got %s %" PRId32 " %" PRId64 " %.*s\n", rd_kafka_topic_name(msg->rkt), msg->partition,
           msg->offset, msg->key ? (int)msg->key_len : 1, msg->key ? (const char *)msg->key : "-");
    if (member->commit == GM_COMMIT_SYNC)
        gm_commit_record(rk, msg);
}

/*
 * Polls until a stop signal, the record limit, a fatal error or the
 * deadline. Returns the exit status.
 */
static int gm_poll_loop(gm_member_t *member, rd_kafka_t *rk, const sigset_t *stop_signals)
{
    double deadline = rdk_now() + member->wait_s;

    while (!rdk_stop_requested(stop_signals)) {
        rd_kafka_message_t *msg;

        if (member->max_records > 0 && member->consumed >= member->max_records)
            return 0;
        if (rdk_now() > deadline) {
            fprintf(stderr, "group_member: deadline of %d s passed\n", member->wait_s);
            return 1;
        }
        msg = rd_kafka_consumer_poll(rk, GM_POLL_MS);
        if (!msg)
            continue;
        if (msg->err == RD_KAFKA_RESP_ERR__FATAL) {
            char reason[512];
            rd_kafka_resp_err_t fatal = rd_kafka_fatal_error(rk, reason, sizeof(reason));

            printf("fatal %s %s\n", rd_kafka_err2name(fatal), reason);
            rd_kafka_message_destroy(msg);
            return GM_EXIT_FATAL;
        }
        if (msg->err)
            printf("error %s %s\n", rd_kafka_err2name(msg->err), rd_kafka_message_errstr(msg));
        else
            gm_consume_record(member, rk, msg);
        rd_kafka_message_destroy(msg);
    }
    return 0;
}

/* Runs the member from subscribe to close. Returns the exit status. */
static int gm_run(gm_member_t *member, const sigset_t *stop_signals)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_topic_partition_list_t *subscription = NULL;
    rd_kafka_t *rk = NULL;
    rd_kafka_resp_err_t err;
    int status = 2;
    int i;

    member->assignment = rd_kafka_topic_partition_list_new(0);
    if (gm_conf_apply(member, conf) != 0)
        goto fail;
    rd_kafka_conf_set_opaque(conf, member);
    rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "group_member: %s\n", errstr);
        goto fail;
    }
    conf = NULL;
    rd_kafka_poll_set_consumer(rk);
    subscription = rd_kafka_topic_partition_list_new(member->topic_count);
    for (i = 0; i < member->topic_count; i++)
        rd_kafka_topic_partition_list_add(subscription, member->topics[i], RD_KAFKA_PARTITION_UA);
    err = rd_kafka_subscribe(rk, subscription);
    if (err) {
        fprintf(stderr, "group_member: subscribe: %s\n", rd_kafka_err2name(err));
        goto fail;
    }
    status = gm_poll_loop(member, rk, stop_signals);
    if (status != GM_EXIT_FATAL) {
        err = rd_kafka_consumer_close(rk);
        if (err) {
            fprintf(stderr, "group_member: close: %s\n", rd_kafka_err2name(err));
            status = 1;
        }
    }
fail:
    if (subscription)
        rd_kafka_topic_partition_list_destroy(subscription);
    if (conf)
        rd_kafka_conf_destroy(conf);
    if (rk) {
        rd_kafka_mem_free(rk, member->member_id);
        member->member_id = NULL;
        rd_kafka_destroy(rk);
    }
    rd_kafka_topic_partition_list_destroy(member->assignment);
    member->assignment = NULL;
    return status;
}

static void gm_usage(void)
{
    fprintf(stderr, "usage: group_member -b bootstrap -g group -t topic [-t topic]... "
                    "[-a range|roundrobin|cooperative-sticky] [-i instance_id] [-s session_ms] "
                    "[-h heartbeat_ms] [-c auto|sync|none] [-n records] [-o earliest|latest] "
                    "[-w seconds] [-X key=value]...\n");
}

/* Parses the command line into member. Returns 0 or -EINVAL. */
static int gm_parse_args(gm_member_t *member, int argc, char **argv)
{
    static const char *const commits[] = {
        [GM_COMMIT_AUTO] = "auto", [GM_COMMIT_SYNC] = "sync", [GM_COMMIT_NONE] = "none", NULL};
    int commit = (int)member->commit;
    const prog_opt_t opts[] = {
        PROG_REQUIRED('b', &member->bootstrap),
        PROG_REQUIRED('g', &member->group),
        PROG_REQUIRED_LIST('t', member->topics, &member->topic_count, GM_MAX_TOPICS),
        PROG_STRING('a', &member->strategy),
        PROG_STRING('i', &member->instance_id),
        PROG_STRING('s', &member->session_ms),
        PROG_STRING('h', &member->heartbeat_ms),
        PROG_CHOICE('c', &commit, commits),
        PROG_LONG('n', &member->max_records, 0, 999999999L),
        PROG_STRING('o', &member->offset_reset),
        PROG_OPT_WAIT_S(&member->wait_s),
        PROG_OPT_EXTRA(member->extra, &member->extra_count, GM_MAX_EXTRA),
    };

    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), false) < 0)
        return -EINVAL;
    member->commit = (gm_commit_t)commit;
    return 0;
}

int main(int argc, char **argv)
{
    gm_member_t member = {
        .strategy = "range",
        .session_ms = GM_DEFAULT_SESSION,
        .heartbeat_ms = GM_DEFAULT_HEARTBEAT,
        .offset_reset = "earliest",
        .commit = GM_COMMIT_AUTO,
        .wait_s = GM_DEFAULT_WAIT_S,
    };
    sigset_t stop_signals;
    int status;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (gm_parse_args(&member, argc, argv) != 0) {
        gm_usage();
        return 2;
    }
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    if (sigprocmask(SIG_BLOCK, &stop_signals, NULL) != 0) {
        perror("group_member: sigprocmask");
        return 2;
    }
    status = gm_run(&member, &stop_signals);
    printf("closed consumed=%ld rebalances=%ld %s\n", member.consumed, member.rebalances,
           status == 0 ? "ok" : "FAILED");
    return status;
}
