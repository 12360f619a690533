// SPDX-License-Identifier: Apache-2.0
/*
 * roundtrip: a stock librdkafka producer and consumer that write records to a
 * broker and read them back, checking every byte. The interop tests drive it.
 *
 * Usage:
 *   roundtrip -b bootstrap -t topic [-n count] [-z codec] [-a acks] [-s size]
 *             [-m both|produce|consume] [-E] [-p partition] [-T base_ms] [-A] [-L]
 *             [-x error_name] [-w seconds] [-X key=value]...
 *
 *   -n  records to produce (default 1000); in consume mode, records to wait
 *       for (0: read to the end of every partition, however many there are)
 *   -z  compression.codec: none, gzip, snappy, lz4, zstd (default none)
 *   -a  acks: 0, 1, -1 or all (default all)
 *   -s  value size in bytes (default 100)
 *   -m  both (default): produce, then consume from the beginning and verify;
 *       produce: produce only; consume: consume from the beginning only
 *   -E  one record per partition: record i goes to partition i and the count
 *       is the topic's partition count (the topic is created, or auto-created,
 *       before producing)
 *   -p  produce every record to this partition (default: by key hash)
 *   -T  record i carries timestamp base_ms + i (checked when consumed)
 *   -A  print "acked <partition> <offset> <id>" for each delivered record
 *   -L  print "got <partition> <offset> <id>" for each consumed record
 *   -x  expect every delivery report to fail with this error name (as
 *       rd_kafka_err2name() prints it, e.g. MSG_SIZE_TOO_LARGE); exit 0 iff so
 *   -w  deadline in seconds for each phase (default 120)
 *   -X  extra librdkafka property for both clients (repeatable)
 *
 * Record id i has key "k%09d" and a value of `size` bytes: "v%09d:" (cut to
 * size) followed by letters that are a function of i and the byte position,
 * so a consumed record proves its own content. Checks on consumption: every
 * record's value matches its key, no id appears twice, ids increase within
 * each partition (one producer, so per-partition order is production order),
 * with -E the id equals the partition, with -T the timestamp is base_ms + id,
 * and (both mode, or consume with -n) exactly the ids 0..n-1 arrive.
 *
 * The last stdout line is a summary:
 *   roundtrip: topic=T produced=N acked=N failed=N consumed=N partitions=P ok|FAILED
 * Exit status: 0 all checks passed, 1 a check failed, 2 bad usage or setup.
 *
 * Thread: main thread only (librdkafka's own threads aside); delivery
 * reports run inside rd_kafka_poll()/rd_kafka_flush() on the main thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "support/prog_opts.h"
#include "support/rdk_util.h"

#define RT_KEY_SIZE       11 /* "k" + 9 digits + NUL is 11 */
#define RT_VALUE_PREFIX   11 /* "v" + 9 digits + ":" */
#define RT_MAX_EXTRA      64
#define RT_METADATA_MS    5000
#define RT_POLL_MS        200
#define RT_DEFAULT_COUNT  1000
#define RT_DEFAULT_SIZE   100
#define RT_DEFAULT_WAIT_S 120

typedef enum rt_mode { RT_BOTH, RT_PRODUCE, RT_CONSUME } rt_mode_t;

/* Everything one run owns; passed to the delivery callback as its opaque. */
typedef struct rt_run {
    const char *bootstrap;
    const char *topic;
    const char *codec;
    const char *acks;
    const char *expect_error;
    const char *extra[RT_MAX_EXTRA];
    int extra_count;
    rt_mode_t mode;
    long count;
    long value_size;
    bool each_partition;
    int32_t partition; /* RD_KAFKA_PARTITION_UA: by key */
    bool print_acks;
    bool print_consumed;
    int64_t base_ts;
    bool has_ts;
    int wait_s;

    int partitions;
    long produced;
    long acked;
    long failed;
    long failed_expected;
    long consumed;
    long bad;
    char *value_buf;

    unsigned char *seen; /* seen[id]: consumed once already */
    long seen_len;
    long *last_id; /* per partition, -1 before the first record */
    bool *at_eof;  /* per partition: EOF reported since the last record */
} rt_run_t;

/* Fills buf (size bytes) with record id's value. */
static void rt_value_fill(char *buf, long size, long id)
{
    char prefix[RT_VALUE_PREFIX + 1];
    long i;

    snprintf(prefix, sizeof(prefix), "v%09u:", (unsigned)(id % 1000000000L));
    for (i = 0; i < size; i++)
        buf[i] = i < RT_VALUE_PREFIX ? prefix[i] : (char)('a' + (id * 31 + i) % 26);
}

/* Parses an id from key "k%09d". Returns the id, or -1 if key is not one. */
static long rt_key_id(const void *key, size_t len)
{
    const char *text = key;
    long id = 0;
    size_t i;

    if (!key || len != RT_KEY_SIZE - 1 || text[0] != 'k')
        return -1;
    for (i = 1; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        id = id * 10 + (text[i] - '0');
    }
    return id;
}

/*
 * Applies the common and extra properties to conf. Returns 0, or -EINVAL
 * after printing which property was refused.
 */
static int rt_conf_apply(const rt_run_t *run, rd_kafka_conf_t *conf, bool producer)
{
    char errstr[512];
    const char *common[][2] = {
        {"bootstrap.servers", run->bootstrap},
        {"log_level", "4"},
    };
    size_t i;
    int j;

    for (i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
        if (rd_kafka_conf_set(conf, common[i][0], common[i][1], errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK)
            goto bad;
    }
    if (producer) {
        if (rd_kafka_conf_set(conf, "compression.codec", run->codec, errstr, sizeof(errstr)) !=
                RD_KAFKA_CONF_OK ||
            rd_kafka_conf_set(conf, "acks", run->acks, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK)
            goto bad;
    } else {
        if (rd_kafka_conf_set(conf, "enable.partition.eof", "true", errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK)
            goto bad;
    }
    for (j = 0; j < run->extra_count; j++) {
        char key[256];
        const char *eq = strchr(run->extra[j], '=');

        if (!eq || (size_t)(eq - run->extra[j]) >= sizeof(key)) {
            snprintf(errstr, sizeof(errstr), "bad -X \"%s\"", run->extra[j]);
            goto bad;
        }
        memcpy(key, run->extra[j], (size_t)(eq - run->extra[j]));
        key[eq - run->extra[j]] = '\0';
        if (rd_kafka_conf_set(conf, key, eq + 1, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK)
            goto bad;
    }
    return 0;
bad:
    fprintf(stderr, "roundtrip: config: %s\n", errstr);
    return -EINVAL;
}

/* Delivery report: counts, optionally prints, the outcome of one record. */
static void rt_on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque)
{
    rt_run_t *run = opaque;
    long id = (long)(intptr_t)msg->_private;

    (void)rk;
    if (msg->err) {
        run->failed++;
        if (run->expect_error && strcmp(rd_kafka_err2name(msg->err), run->expect_error) == 0)
            run->failed_expected++;
        else if (run->failed - run->failed_expected <= 10)
            fprintf(stderr, "roundtrip: delivery of id %ld failed: %s (%s)\n", id,
                    rd_kafka_err2name(msg->err), rd_kafka_err2str(msg->err));
        return;
    }
    run->acked++;
    if (run->print_acks)
        printf("acked %" PRId32 " %" PRId64 " %ld\n", msg->partition, msg->offset, id);
}

/*
 * Waits for the topic's partition count through rk's metadata (a producer's
 * request may auto-create the topic). Returns the count, or -1 at the deadline.
 */
static int rt_partition_count(rd_kafka_t *rk, const char *topic, double deadline)
{
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    int count = -1;

    while (rkt && rdk_now() < deadline) {
        const struct rd_kafka_metadata *md = NULL;
        rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, rkt, &md, RT_METADATA_MS);

        if (!err && md->topic_cnt == 1 && !md->topics[0].err && md->topics[0].partition_cnt > 0)
            count = md->topics[0].partition_cnt;
        if (md)
            rd_kafka_metadata_destroy(md);
        if (count > 0)
            break;
        usleep(100 * 1000); /* the topic is being created; ask again shortly */
    }
    if (rkt)
        rd_kafka_topic_destroy(rkt);
    return count;
}

/* Produces the records. Returns 0 when the outcome is what was asked for, else 1 or 2. */
static int rt_produce(rt_run_t *run)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_t *rk = NULL;
    double deadline = rdk_now() + run->wait_s;
    int status = 2;
    long id;

    if (rt_conf_apply(run, conf, true) != 0)
        goto fail;
    rd_kafka_conf_set_dr_msg_cb(conf, rt_on_delivery);
    rd_kafka_conf_set_opaque(conf, run);
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "roundtrip: producer: %s\n", errstr);
        goto fail;
    }
    conf = NULL;

    if (run->each_partition) {
        run->partitions = rt_partition_count(rk, run->topic, deadline);
        if (run->partitions < 0) {
            fprintf(stderr, "roundtrip: no metadata for topic %s\n", run->topic);
            goto fail;
        }
        run->count = run->partitions;
    }
    status = 1;
    for (id = 0; id < run->count; id++) {
        char key[RT_KEY_SIZE];
        rd_kafka_resp_err_t err;

        snprintf(key, sizeof(key), "k%09u", (unsigned)(id % 1000000000L));
        rt_value_fill(run->value_buf, run->value_size, id);
        for (;;) {
            err = rd_kafka_producev(
                rk, RD_KAFKA_V_TOPIC(run->topic), RD_KAFKA_V_KEY(key, RT_KEY_SIZE - 1),
                RD_KAFKA_V_VALUE(run->value_buf, (size_t)run->value_size),
                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                RD_KAFKA_V_PARTITION(run->each_partition ? (int32_t)id : run->partition),
                RD_KAFKA_V_TIMESTAMP(run->has_ts ? run->base_ts + id : 0),
                RD_KAFKA_V_OPAQUE((void *)(intptr_t)id), RD_KAFKA_V_END);
            if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
                break;
            rd_kafka_poll(rk, 100); /* queue full: serve delivery reports, then retry */
            if (rdk_now() > deadline)
                break;
        }
        if (err) {
            fprintf(stderr, "roundtrip: produce call for id %ld failed: %s (%s)\n", id,
                    rd_kafka_err2name(err), rd_kafka_err2str(err));
            goto fail;
        }
        run->produced++;
        rd_kafka_poll(rk, 0);
    }
    while (rd_kafka_outq_len(rk) > 0 && rdk_now() < deadline)
        rd_kafka_flush(rk, RT_POLL_MS);
    fflush(stdout);
    if (rd_kafka_outq_len(rk) > 0) {
        fprintf(stderr, "roundtrip: %d record(s) still undelivered at the deadline\n",
                rd_kafka_outq_len(rk));
        goto fail;
    }
    if (run->expect_error) {
        status = run->failed_expected == run->produced ? 0 : 1;
        if (status)
            fprintf(stderr, "roundtrip: expected %s for all %ld record(s), got it for %ld\n",
                    run->expect_error, run->produced, run->failed_expected);
    } else {
        status = run->acked == run->produced ? 0 : 1;
    }
fail:
    if (conf)
        rd_kafka_conf_destroy(conf);
    if (rk)
        rd_kafka_destroy(rk);
    return status;
}

/* Records id as seen. Returns 0, or 1 for a duplicate, or -ENOMEM. */
static int rt_mark_seen(rt_run_t *run, long id)
{
    if (id >= run->seen_len) {
        long len = run->seen_len ? run->seen_len : 1024;
        unsigned char *grown;

        while (len <= id)
            len *= 2;
        grown = realloc(run->seen, (size_t)len);
        if (!grown)
            return -ENOMEM;
        memset(grown + run->seen_len, 0, (size_t)(len - run->seen_len));
        run->seen = grown;
        run->seen_len = len;
    }
    if (run->seen[id])
        return 1;
    run->seen[id] = 1;
    return 0;
}

/* Checks one consumed record; counts it, and counts a failed check in run->bad. */
static void rt_check_record(rt_run_t *run, const rd_kafka_message_t *msg)
{
    long id = rt_key_id(msg->key, msg->key_len);
    int32_t p = msg->partition;
    const char *problem = NULL;

    run->consumed++;
    if (run->print_consumed)
        printf("got %" PRId32 " %" PRId64 " %ld\n", p, msg->offset, id);
    if (id < 0) {
        problem = "key is not one of ours";
    } else if ((long)msg->len != run->value_size) {
        problem = "value size differs";
    } else {
        rt_value_fill(run->value_buf, run->value_size, id);
        if (run->value_size && memcmp(msg->payload, run->value_buf, msg->len) != 0)
            problem = "value bytes differ";
    }
    if (!problem && run->count > 0 && id >= run->count)
        problem = "id beyond the produced count";
    if (!problem && run->each_partition && id != p)
        problem = "id is not its partition";
    if (!problem && id <= run->last_id[p])
        problem = "ids out of order within the partition";
    if (!problem && run->has_ts) {
        rd_kafka_timestamp_type_t type;
        int64_t ts = rd_kafka_message_timestamp(msg, &type);

        if (ts != run->base_ts + id)
            problem = "timestamp differs";
    }
    if (!problem) {
        int rc = rt_mark_seen(run, id);

        if (rc == 1)
            problem = "duplicate id";
        else if (rc < 0)
            problem = "out of memory";
    }
    if (id > run->last_id[p])
        run->last_id[p] = id;
    if (problem) {
        run->bad++;
        if (run->bad <= 10)
            fprintf(stderr, "roundtrip: partition %" PRId32 " offset %" PRId64 " id %ld: %s\n", p,
                    msg->offset, id, problem);
    }
}

static bool rt_all_eof(const rt_run_t *run)
{
    int p;

    for (p = 0; p < run->partitions; p++)
        if (!run->at_eof[p])
            return false;
    return true;
}

/*
 * Consumes every partition from the beginning with the simple (group-less)
 * consumer until the expected records are in and every partition has
 * reported its end. Returns 0 when all checks pass, else 1 or 2.
 */
static int rt_consume(rt_run_t *run)
{
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_t *rk = NULL;
    rd_kafka_topic_t *rkt = NULL;
    rd_kafka_queue_t *queue = NULL;
    double deadline = rdk_now() + run->wait_s;
    int started = 0;
    int status = 2;
    int p;

    if (rt_conf_apply(run, conf, false) != 0)
        goto fail;
    rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "roundtrip: consumer: %s\n", errstr);
        goto fail;
    }
    conf = NULL;
    p = rt_partition_count(rk, run->topic, deadline);
    if (p < 0) {
        fprintf(stderr, "roundtrip: no metadata for topic %s\n", run->topic);
        goto fail;
    }
    if (run->partitions > 0 && p != run->partitions)
        fprintf(stderr, "roundtrip: partition count changed from %d to %d\n", run->partitions, p);
    run->partitions = p;
    run->last_id = malloc(sizeof(*run->last_id) * (size_t)p);
    run->at_eof = calloc((size_t)p, sizeof(*run->at_eof));
    rkt = rd_kafka_topic_new(rk, run->topic, NULL);
    queue = rd_kafka_queue_new(rk);
    if (!run->last_id || !run->at_eof || !rkt || !queue) {
        fprintf(stderr, "roundtrip: consumer setup failed\n");
        goto fail;
    }
    for (p = 0; p < run->partitions; p++) {
        run->last_id[p] = -1;
        if (rd_kafka_consume_start_queue(rkt, p, RD_KAFKA_OFFSET_BEGINNING, queue) != 0) {
            fprintf(stderr, "roundtrip: consume_start partition %d: %s\n", p,
                    rd_kafka_err2str(rd_kafka_last_error()));
            goto fail;
        }
        started = p + 1;
    }

    status = 1;
    while (rdk_now() < deadline) {
        rd_kafka_message_t *msg = rd_kafka_consume_queue(queue, RT_POLL_MS);
        bool enough;

        if (msg) {
            if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                if (msg->partition >= 0 && msg->partition < run->partitions)
                    run->at_eof[msg->partition] = true;
            } else if (msg->err) {
                fprintf(stderr, "roundtrip: consume error on partition %" PRId32 ": %s\n",
                        msg->partition, rd_kafka_message_errstr(msg));
            } else if (msg->partition >= 0 && msg->partition < run->partitions) {
                run->at_eof[msg->partition] = false;
                rt_check_record(run, msg);
            }
            rd_kafka_message_destroy(msg);
        }
        /* Every expected record in (or, with no count, every partition at its end),
         * and the ends reached so that duplicates after them would have shown. */
        enough = run->count > 0 ? run->consumed >= run->count : true;
        if (enough && rt_all_eof(run))
            break;
    }
    if (run->count > 0 && run->consumed - run->bad != run->count) {
        long id, missing = 0;

        for (id = 0; id < run->count; id++) {
            if (id >= run->seen_len || !run->seen[id]) {
                if (++missing <= 10)
                    fprintf(stderr, "roundtrip: id %ld never arrived\n", id);
            }
        }
        fprintf(stderr, "roundtrip: %ld of %ld record(s) missing\n", missing, run->count);
    } else if (!rt_all_eof(run)) {
        fprintf(stderr, "roundtrip: not every partition reached its end by the deadline\n");
    } else if (run->bad == 0) {
        status = 0;
    }
fail:
    for (p = 0; p < started; p++)
        rd_kafka_consume_stop(rkt, p);
    if (queue)
        rd_kafka_queue_destroy(queue);
    if (rkt)
        rd_kafka_topic_destroy(rkt);
    if (conf)
        rd_kafka_conf_destroy(conf);
    if (rk)
        rd_kafka_destroy(rk);
    return status;
}

static void rt_usage(void)
{
    fprintf(stderr,
            "usage: roundtrip -b bootstrap -t topic [-n count] [-z codec] [-a acks] "
            "[-s size] [-m both|produce|consume] [-E] [-p partition] [-T base_ms] [-A] [-L] "
            "[-x error_name] [-w seconds] [-X key=value]...\n");
}

/* -p: the one partition to produce to. */
static int rt_parse_partition(void *out, const char *arg)
{
    long number;

    if (rdk_parse_long(arg, 0, INT32_MAX, &number) != 0)
        return -EINVAL;
    *(int32_t *)out = (int32_t)number;
    return 0;
}

/* -T: the first record's timestamp; the rest follow it. */
static int rt_parse_base_ts(void *out, const char *arg)
{
    rt_run_t *run = out;
    long number;

    if (rdk_parse_long(arg, 0, LONG_MAX, &number) != 0)
        return -EINVAL;
    run->base_ts = number;
    run->has_ts = true;
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {
        [RT_BOTH] = "both", [RT_PRODUCE] = "produce", [RT_CONSUME] = "consume", NULL};
    rt_run_t run = {
        .codec = "none",
        .acks = "all",
        .mode = RT_BOTH,
        .count = RT_DEFAULT_COUNT,
        .value_size = RT_DEFAULT_SIZE,
        .wait_s = RT_DEFAULT_WAIT_S,
        .partition = RD_KAFKA_PARTITION_UA,
    };
    int mode = RT_BOTH;
    const prog_opt_t opts[] = {
        PROG_REQUIRED('b', &run.bootstrap),
        PROG_REQUIRED('t', &run.topic),
        PROG_LONG('n', &run.count, 0, 999999999L),
        PROG_STRING('z', &run.codec),
        PROG_STRING('a', &run.acks),
        PROG_LONG('s', &run.value_size, 0, 512L * 1024 * 1024),
        PROG_CHOICE('m', &mode, modes),
        PROG_FLAG('E', &run.each_partition),
        PROG_CUSTOM('p', &run.partition, rt_parse_partition),
        PROG_CUSTOM('T', &run, rt_parse_base_ts),
        PROG_FLAG('A', &run.print_acks),
        PROG_FLAG('L', &run.print_consumed),
        PROG_STRING('x', &run.expect_error),
        PROG_OPT_WAIT_S(&run.wait_s),
        PROG_OPT_EXTRA(run.extra, &run.extra_count, RT_MAX_EXTRA),
    };
    int status = 2;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (prog_parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), false) < 0)
        goto usage;
    run.mode = (rt_mode_t)mode;
    if (run.each_partition && run.mode == RT_CONSUME)
        run.count = 0; /* learnt from the metadata; checked per partition */

    run.value_buf = malloc((size_t)run.value_size + 1);
    if (!run.value_buf) {
        fprintf(stderr, "roundtrip: out of memory\n");
        return 2;
    }
    status = 0;
    if (run.mode != RT_CONSUME)
        status = rt_produce(&run);
    if (status == 0 && run.mode != RT_PRODUCE && !run.expect_error) {
        if (run.mode == RT_BOTH && run.acked != run.produced)
            status = 1;
        else
            status = rt_consume(&run);
        if (status == 0 && run.each_partition && run.consumed != run.partitions) {
            fprintf(stderr, "roundtrip: %ld record(s) for %d partition(s)\n", run.consumed,
                    run.partitions);
            status = 1;
        }
    }
    printf("roundtrip: topic=%s codec=%s acks=%s produced=%ld acked=%ld failed=%ld "
           "consumed=%ld partitions=%d %s\n",
           run.topic, run.codec, run.acks, run.produced, run.acked, run.failed, run.consumed,
           run.partitions, status == 0 ? "ok" : "FAILED");
    free(run.value_buf);
    free(run.seen);
    free(run.last_id);
    free(run.at_eof);
    return status;
usage:
    rt_usage();
    return 2;
}
