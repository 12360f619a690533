// SPDX-License-Identifier: Apache-2.0
/*
 * consumer_destroy: a librdkafka KafkaConsumer in a group that, when told to
 * stop, closes and destroys itself under a watchdog, so that a test can tell
 * a client that hangs in rd_kafka_consumer_close() or rd_kafka_destroy()
 * (librdkafka's broker threads waiting on references that are never
 * dropped) from one that ends.
 *
 * Usage:
 *   consumer_destroy -b bootstrap -g group -t topic [-t topic]...
 *                    [-a strategy] [-d seconds] [-w seconds] [-X key=value]...
 *
 *   -a  partition.assignment.strategy (default cooperative-sticky)
 *   -d  how long close, and then destroy, may each take (default 30 s)
 *   -w  run at most this long before being told to stop (default 120 s)
 *   -X  extra librdkafka consumer property (repeatable)
 *
 * Offsets are auto-committed (every 200 ms and on close), reading from the
 * earliest offset.
 *
 * Output (stdout, one line each, flushed per line):
 *   librdkafka 0xMMmmrrxx VERSION   the librdkafka in use (rd_kafka_version(),
 *                                   first)
 *   assign|revoke|lost PARTS        a rebalance callback; PARTS is "-" or
 *                                   TOPIC:PARTITION,... sorted
 *   got TOPIC PARTITION OFFSET      a consumed record
 *   error ERROR_NAME REASON         an error librdkafka reports, through the
 *                                   error callback (e.g. "gone [0]: desired
 *                                   partition is no longer available") or
 *                                   as a consumer error
 *   closed ERROR_NAME               rd_kafka_consumer_close() returned
 *   destroyed                       rd_kafka_destroy() returned
 *   hang close|destroy SECONDS      the watchdog gave up on that step; the
 *                                   process exits at once (its librdkafka
 *                                   threads cannot be stopped)
 *
 * Stopping: SIGTERM or SIGINT. Exit status: 0 closed and destroyed, 1 the
 * run deadline passed or close failed, 2 bad usage or setup, 4 close or
 * destroy hung.
 *
 * Signals are blocked before librdkafka starts its threads (they inherit the
 * mask) and the poll loop takes them with sigtimedwait(), so there is no
 * handler and no global flag.
 *
 * Threads: the main thread polls, and its callbacks run inside
 * rd_kafka_consumer_poll() and rd_kafka_consumer_close(); error callbacks
 * run there too (the main queue is forwarded to the consumer queue). One
 * watchdog thread per guarded step waits for that step to end; stdout is
 * line-buffered and each line is a single printf, so their lines do not mix.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
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

#define CD_PROG "consumer_destroy" /* names it in messages */

#define CD_MAX_TOPICS      16
#define CD_MAX_EXTRA       64
#define CD_POLL_MS         100
#define CD_DEFAULT_GUARD_S 30
#define CD_DEFAULT_WAIT_S  120
#define CD_AUTO_COMMIT_MS  "200"
#define CD_EXIT_HANG       4

typedef struct cd_options {
    const char *bootstrap;
    const char *group;
    const char *topics[CD_MAX_TOPICS];
    int topic_count;
    const char *strategy;
    const char *extra[CD_MAX_EXTRA];
    int extra_count;
    int guard_s;
    int wait_s;
} cd_options_t;

/* One guarded step: the watchdog thread waits until done or the deadline. */
typedef struct cd_watchdog {
    const char *step;
    int seconds;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* on CLOCK_MONOTONIC */
    bool done;
    pthread_t thread;
} cd_watchdog_t;

static void *cd_watchdog_main(void *arg)
{
    cd_watchdog_t *w = arg;
    struct timespec deadline;
    int rc = 0;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += w->seconds;
    pthread_mutex_lock(&w->lock);
    while (!w->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&w->cond, &w->lock, &deadline);
    if (!w->done) {
        /* The guarded call never returns: nothing left to clean up. */
        printf("hang %s %d\n", w->step, w->seconds);
        fflush(stdout);
        _exit(CD_EXIT_HANG);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Starts watching a step. Returns 0 or -errno (then nothing is watched). */
static int cd_watchdog_start(cd_watchdog_t *w, const char *step, int seconds)
{
    pthread_condattr_t attr;
    int rc;

    memset(w, 0, sizeof(*w));
    w->step = step;
    w->seconds = seconds;
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cond, &attr);
    pthread_condattr_destroy(&attr);
    rc = pthread_create(&w->thread, NULL, cd_watchdog_main, w);
    if (rc) {
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        return -rc;
    }
    return 0;
}

/* The step ended in time: stops the watchdog. */
static void cd_watchdog_stop(cd_watchdog_t *w)
{
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
}

/* Hands the partitions over, eagerly or incrementally as the protocol asks. */
static void cd_on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    bool cooperative = strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
    rd_kafka_error_t *error = NULL;

    (void)opaque;
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        rdk_print_partitions("assign", parts, false);
        if (cooperative)
            error = rd_kafka_incremental_assign(rk, parts);
        else
            rd_kafka_assign(rk, parts);
    } else {
        rdk_print_partitions(rd_kafka_assignment_lost(rk) ? "lost" : "revoke", parts, false);
        if (cooperative)
            error = rd_kafka_incremental_unassign(rk, parts);
        else
            rd_kafka_assign(rk, NULL);
    }
    if (error) {
        fprintf(stderr, "consumer_destroy: incremental (un)assign: %s\n",
                rd_kafka_error_string(error));
        rd_kafka_error_destroy(error);
    }
}

static void cd_on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    (void)rk;
    (void)opaque;
    printf("error %s %s\n", rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
}

/* Fills conf from the options. Returns 0 or -EINVAL. */
static int cd_conf_apply(const cd_options_t *opt, rd_kafka_conf_t *conf)
{
    int i;

    if (rdk_conf_set(conf, CD_PROG, "bootstrap.servers", opt->bootstrap) ||
        rdk_conf_set(conf, CD_PROG, "group.id", opt->group) ||
        rdk_conf_set(conf, CD_PROG, "partition.assignment.strategy", opt->strategy) ||
        rdk_conf_set(conf, CD_PROG, "auto.offset.reset", "earliest") ||
        rdk_conf_set(conf, CD_PROG, "auto.commit.interval.ms", CD_AUTO_COMMIT_MS) ||
        rdk_conf_set(conf, CD_PROG, "log_level", "4"))
        return -EINVAL;
    for (i = 0; i < opt->extra_count; i++) {
        char key[256];
        const char *eq = strchr(opt->extra[i], '=');

        if (!eq || (size_t)(eq - opt->extra[i]) >= sizeof(key)) {
            fprintf(stderr, "consumer_destroy: -X wants key=value, got %s\n", opt->extra[i]);
            return -EINVAL;
        }
        memcpy(key, opt->extra[i], (size_t)(eq - opt->extra[i]));
        key[eq - opt->extra[i]] = '\0';
        if (rdk_conf_set(conf, CD_PROG, key, eq + 1))
            return -EINVAL;
    }
    rd_kafka_conf_set_rebalance_cb(conf, cd_on_rebalance);
    rd_kafka_conf_set_error_cb(conf, cd_on_error);
    return 0;
}

/* Polls until a stop signal (returns 0) or the deadline (returns 1). */
static int cd_poll_loop(rd_kafka_t *rk, int wait_s, const sigset_t *stop_signals)
{
    double deadline = rdk_now() + wait_s;

    while (!rdk_stop_requested(stop_signals)) {
        rd_kafka_message_t *msg;

        if (rdk_now() > deadline) {
            fprintf(stderr, "consumer_destroy: deadline of %d s passed\n", wait_s);
            return 1;
        }
        msg = rd_kafka_consumer_poll(rk, CD_POLL_MS);
        if (!msg)
            continue;
        if (msg->err)
            printf("error %s %s\n", rd_kafka_err2name(msg->err), rd_kafka_message_errstr(msg));
        else
            printf("got %s %" PRId32 " %" PRId64 "\n", rd_kafka_topic_name(msg->rkt),
                   msg->partition, msg->offset);
        rd_kafka_message_destroy(msg);
    }
    return 0;
}

/* Closes, then destroys, each under the watchdog. Returns the exit status. */
static int cd_close_and_destroy(rd_kafka_t *rk, int guard_s, int status)
{
    cd_watchdog_t watchdog;
    rd_kafka_resp_err_t err;

    if (cd_watchdog_start(&watchdog, "close", guard_s) != 0) {
        fprintf(stderr, "consumer_destroy: cannot start the watchdog\n");
        return 2;
    }
    err = rd_kafka_consumer_close(rk);
    cd_watchdog_stop(&watchdog);
    printf("closed %s\n", rd_kafka_err2name(err));
    if (err)
        status = 1;
    if (cd_watchdog_start(&watchdog, "destroy", guard_s) != 0) {
        fprintf(stderr, "consumer_destroy: cannot start the watchdog\n");
        return 2;
    }
    rd_kafka_destroy(rk);
    cd_watchdog_stop(&watchdog);
    printf("destroyed\n");
    return status;
}

/* Runs the consumer from subscribe to destroy. Returns the exit status. */
static int cd_run(const cd_options_t *opt, const sigset_t *stop_signals)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_topic_partition_list_t *subscription;
    rd_kafka_t *rk;
    rd_kafka_resp_err_t err;
    int status;
    int i;

    if (cd_conf_apply(opt, conf) != 0) {
        rd_kafka_conf_destroy(conf);
        return 2;
    }
    rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "consumer_destroy: %s\n", errstr);
        rd_kafka_conf_destroy(conf);
        return 2;
    }
    rd_kafka_poll_set_consumer(rk);
    subscription = rd_kafka_topic_partition_list_new(opt->topic_count);
    for (i = 0; i < opt->topic_count; i++)
        rd_kafka_topic_partition_list_add(subscription, opt->topics[i], RD_KAFKA_PARTITION_UA);
    err = rd_kafka_subscribe(rk, subscription);
    rd_kafka_topic_partition_list_destroy(subscription);
    if (err) {
        fprintf(stderr, "consumer_destroy: subscribe: %s\n", rd_kafka_err2name(err));
        status = 2;
    } else {
        status = cd_poll_loop(rk, opt->wait_s, stop_signals);
    }
    return cd_close_and_destroy(rk, opt->guard_s, status);
}

static void cd_usage(void)
{
    fprintf(stderr, "usage: consumer_destroy -b bootstrap -g group -t topic [-t topic]... "
                    "[-a strategy] [-d seconds] [-w seconds] [-X key=value]...\n");
}

/* Parses the command line into opt. Returns 0 or -EINVAL. */
static int cd_parse_args(cd_options_t *opt, int argc, char **argv)
{
    const prog_opt_t opts[] = {
        PROG_REQUIRED('b', &opt->bootstrap),
        PROG_REQUIRED('g', &opt->group),
        PROG_REQUIRED_LIST('t', opt->topics, &opt->topic_count, CD_MAX_TOPICS),
        PROG_STRING('a', &opt->strategy),
        PROG_INT('d', &opt->guard_s, 1, 3600),
        PROG_OPT_WAIT_S(&opt->wait_s),
        PROG_OPT_EXTRA(opt->extra, &opt->extra_count, CD_MAX_EXTRA),
    };

    return prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), false) < 0 ? -EINVAL
                                                                                        : 0;
}

int main(int argc, char **argv)
{
    cd_options_t opt = {
        .strategy = "cooperative-sticky",
        .guard_s = CD_DEFAULT_GUARD_S,
        .wait_s = CD_DEFAULT_WAIT_S,
    };
    sigset_t stop_signals;

    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("librdkafka 0x%08x %s\n", (unsigned)rd_kafka_version(), rd_kafka_version_str());
    if (cd_parse_args(&opt, argc, argv) != 0) {
        cd_usage();
        return 2;
    }
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    if (sigprocmask(SIG_BLOCK, &stop_signals, NULL) != 0) {
        perror("consumer_destroy: sigprocmask");
        return 2;
    }
    return cd_run(&opt, &stop_signals);
}
