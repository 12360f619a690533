/* SPDX-License-Identifier: Apache-2.0 */
/*
 * share_load: records per second through a share group (KIP-932) of N
 * consumers, and whether every offset was delivered exactly once. librdkafka
 * has no share consumer, so this one is built on Gregor's generated codec.
 *
 * Usage:
 *   bench_share_load consume -b host:port -t topic -g group -n records
 *                    [-c consumers] [-m max_records] [-w max_wait_ms]
 *                    [-d deadline_s] [-W]
 *   bench_share_load config -b host:port -g group -k key -v value
 *
 * consume: each consumer (a thread with its own connection) joins the group
 * with ShareGroupHeartbeat v1 (a member id it made itself, member epoch 0,
 * then heartbeats at the interval the coordinator answers) and, once it is
 * assigned a partition of the topic, loops on ShareFetch v1 over its
 * partitions: share session epochs 0, 1, 2, ...; MaxRecords = BatchSize =
 * -m; the ranges one response acquired are acknowledged ACCEPT in the next
 * request. The run ends when the group has been delivered `records`
 * distinct offsets; each consumer then sends its last acknowledgements in a
 * ShareAcknowledge at epoch -1 (closing its session) and leaves (member
 * epoch -1). With -W every consumer first joins, is assigned and opens its
 * session with one fetch; then {"ready":C} is printed and the consumers
 * only heartbeat until a line arrives on stdin. That lets the caller
 * produce after the share-partitions were initialized at the log end (the
 * default share.auto.offset.reset=latest) and still time the reading alone.
 * The group coordinator and the partition leaders must be the -b broker.
 *
 * config: sets one group config with IncrementalAlterConfigs (resource type
 * GROUP), e.g. share.auto.offset.reset=earliest, and prints
 * {"mode":"config","error":E} with the broker's error code.
 *
 * Exactly once: every acquired offset is counted. duplicates: deliveries of
 * an offset already delivered; gaps: offsets between a partition's lowest
 * and highest delivered ones that never were;
 * uncovered: acquired offsets that the response's record batches did not
 * hold. A correct broker gives 0, 0, 0 (no lock expires in a run: the
 * consumers acknowledge within one fetch of acquiring).
 *
 * Last stdout line:
 *   {"records":R,"deliveries":D,"duplicates":X,"gaps":G,"uncovered":U,
 *    "ack_errors":A,"close_errors":E,"fetches":F,"seconds":S,
 *    "seconds_with_join":J,"consumers":C}
 * seconds: first acquired record to the R-th distinct one; seconds_with_join:
 * from the start of the consumers (with -W, from the line on stdin) to it.
 * Exit status: 0 when the group got R distinct records (the check fields
 * say whether it got them exactly once), 1 on a broker error, a broken
 * response or the deadline, 2 bad usage.
 *
 * Threads: one per consumer, owning its connection, member and session;
 * they share the tally (under its mutex) and the run's atomics (stop, go,
 * ready and failed counts, first-record time).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "gen/common.h"
#include "gen/find_coordinator.h"
#include "gen/incremental_alter_configs.h"
#include "gen/metadata.h"
#include "gen/share_acknowledge.h"
#include "gen/share_fetch.h"
#include "gen/share_group_heartbeat.h"
#include "protocol/kerr.h"
#include "protocol/records.h"
#include "share/share_state.h"

#include "load_wire.h"

#define SHARE_HEARTBEAT_VERSION   1
#define SHARE_FETCH_VERSION       1
#define SHARE_ACKNOWLEDGE_VERSION 1
#define SHARE_METADATA_VERSION    12
#define SHARE_FIND_COORD_VERSION  4
#define SHARE_CONFIG_VERSION      1
#define SHARE_MAX_CONSUMERS       64
#define SHARE_MAX_PARTITIONS      256
#define SHARE_FETCH_MAX_BYTES     (16 << 20)
#define SHARE_JOIN_POLL_S         0.02 /* heartbeat pace until the first assignment */
#define SHARE_RETRY_S             0.05 /* coordinator or topic not ready yet */
#define SHARE_EPOCH_JOIN          0
#define SHARE_EPOCH_LEAVE         (-1)
#define SHARE_SESSION_OPEN        0
#define SHARE_SESSION_CLOSE       (-1)
#define SHARE_MEMBER_ID_LEN       22 /* a UUID in base64url without padding */

typedef struct share_opts {
    const char *hostport;
    const char *topic;
    const char *group;
    long records;
    int consumers;
    int max_records;
    int max_wait_ms;
    double deadline_s;
    bool wait_for_go;
} share_opts_t;

/* Deliveries per offset of each partition, and the run's shared state. */
typedef struct share_run {
    const share_opts_t *opts;
    gr_uuid_t topic_id;
    int32_t partitions;
    pthread_mutex_t lock; /* guards the counts and totals below */
    uint8_t *counts[SHARE_MAX_PARTITIONS];
    int64_t count_cap[SHARE_MAX_PARTITIONS];
    int64_t low[SHARE_MAX_PARTITIONS];  /* lowest delivered offset */
    int64_t high[SHARE_MAX_PARTITIONS]; /* highest delivered offset + 1 */
    long distinct, deliveries, duplicates, uncovered;
    double end_at;
    double deadline;
    _Atomic double first_at; /* 0 until a record is acquired */
    atomic_bool stop;
    atomic_bool go;
    atomic_int ready;
    atomic_int failed;
} share_run_t;

/* Offset ranges acquired and not yet acknowledged, of one partition. */
typedef struct share_ranges {
    int64_t (*r)[2]; /* first, last (inclusive) */
    int n;
    int cap;
} share_ranges_t;

typedef struct share_consumer {
    share_run_t *run;
    load_wire_t wire;
    char member_id[SHARE_MEMBER_ID_LEN + 1];
    int32_t member_epoch;
    double heartbeat_s;
    double next_heartbeat;
    bool assigned[SHARE_MAX_PARTITIONS];
    bool in_session[SHARE_MAX_PARTITIONS]; /* named in the last fetch */
    share_ranges_t pending[SHARE_MAX_PARTITIONS];
    int32_t session_epoch;
    int8_t accept; /* the one acknowledge type every batch carries */
    long fetches;
    long ack_errors;
    long close_errors;
} share_consumer_t;

static double share_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void share_sleep(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

/* A member id as a Kafka client makes one: a random UUID in base64url. */
static int share_member_id(char out[SHARE_MEMBER_ID_LEN + 1])
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    uint8_t u[16];
    uint32_t acc = 0;
    int bits = 0, n = 0;

    if (getrandom(u, sizeof u, 0) != (ssize_t)sizeof u)
        return -EIO;
    for (size_t i = 0; i < sizeof u; i++) {
        acc = acc << 8 | u[i];
        for (bits += 8; bits >= 6; bits -= 6)
            out[n++] = alphabet[(acc >> (bits - 6)) & 63];
    }
    out[n++] = alphabet[(acc << (6 - bits)) & 63];
    out[n] = '\0';
    return 0;
}

/* --- the tally ------------------------------------------------------------ */

/*
 * Counts the delivery of offsets first..last of partition p. Returns 0 or
 * -ENOMEM. Runs under run->lock.
 */
static int share_tally_range(share_run_t *run, int32_t p, int64_t first, int64_t last)
{
    if (first < 0 || last < first)
        return -EINVAL;
    if (last >= run->count_cap[p]) {
        int64_t cap = run->count_cap[p] ? run->count_cap[p] : 1 << 16;
        uint8_t *bigger;

        while (cap <= last)
            cap *= 2;
        bigger = realloc(run->counts[p], (size_t)cap);
        if (!bigger)
            return -ENOMEM;
        memset(bigger + run->count_cap[p], 0, (size_t)(cap - run->count_cap[p]));
        run->counts[p] = bigger;
        run->count_cap[p] = cap;
    }
    for (int64_t o = first; o <= last; o++) {
        if (run->counts[p][o] == 0)
            run->distinct++;
        else
            run->duplicates++;
        if (run->counts[p][o] < UINT8_MAX)
            run->counts[p][o]++;
    }
    run->deliveries += (long)(last - first + 1);
    if (run->high[p] == 0 || first < run->low[p])
        run->low[p] = first;
    if (last + 1 > run->high[p])
        run->high[p] = last + 1;
    return 0;
}

/* Offsets of first..last that no whole batch of records holds. */
static long share_uncovered(const gr_records_t *records, int64_t first, int64_t last)
{
    const uint8_t *p = records->ptr;
    size_t left = records->len > 0 ? (size_t)records->len : 0;
    int64_t next = first; /* lowest offset not yet seen covered */
    gr_batch_header_t h;

    while (next <= last && gr_batch_header_parse(p, left, &h) == 0 &&
           (size_t)gr_batch_size(&h) <= left) {
        int64_t end = h.base_offset + h.last_offset_delta;

        if (h.base_offset <= next && end >= next)
            next = end + 1;
        p += gr_batch_size(&h);
        left -= (size_t)gr_batch_size(&h);
    }
    return next <= last ? (long)(last - next + 1) : 0;
}

static long share_gaps(const share_run_t *run)
{
    long gaps = 0;

    for (int32_t p = 0; p < run->partitions; p++)
        for (int64_t o = run->low[p]; o < run->high[p]; o++)
            gaps += run->counts[p][o] == 0;
    return gaps;
}

/* --- acknowledgements waiting for the next request ------------------------ */

static int share_ranges_add(share_ranges_t *s, int64_t first, int64_t last)
{
    if (s->n > 0 && s->r[s->n - 1][1] + 1 == first) {
        s->r[s->n - 1][1] = last; /* contiguous with the last range */
        return 0;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        void *bigger = realloc(s->r, (size_t)cap * sizeof(*s->r));
        if (!bigger)
            return -ENOMEM;
        s->r = bigger;
        s->cap = cap;
    }
    s->r[s->n][0] = first;
    s->r[s->n][1] = last;
    s->n++;
    return 0;
}

/* --- requests on the group coordinator ------------------------------------ */

/* Waits until the group has a coordinator and checks it is the -b broker. */
static int share_find_coordinator(load_wire_t *w, const share_opts_t *o, double deadline)
{
    gr_find_coordinator_request_t req;
    gr_find_coordinator_response_t resp;
    gr_str_t key = gr_str(o->group);
    const char *colon = strrchr(o->hostport, ':');

    gr_find_coordinator_request_init(&req);
    req.key_type = GR_COORDINATOR_TYPE_GROUP;
    req.coordinator_keys = &key;
    req.coordinator_keys_count = 1;
    for (;;) {
        int16_t err;

        if (load_wire_call(w, GR_API_FIND_COORDINATOR, SHARE_FIND_COORD_VERSION, &req, &resp) !=
                0 ||
            resp.coordinators_count != 1)
            return -EBADMSG;
        err = resp.coordinators[0].error_code;
        if (err == GR_KERR_NONE)
            break;
        if ((err != GR_KERR_COORDINATOR_NOT_AVAILABLE &&
             err != GR_KERR_COORDINATOR_LOAD_IN_PROGRESS) ||
            share_now() > deadline) {
            fprintf(stderr, "share_load: FindCoordinator: error %d\n", err);
            return -EIO;
        }
        share_sleep(SHARE_RETRY_S);
    }
    if (!colon || resp.coordinators[0].port != atoi(colon + 1)) {
        fprintf(stderr, "share_load: the coordinator is broker %d, not -b\n",
                resp.coordinators[0].node_id);
        return -EIO;
    }
    return 0;
}

/* Finds the topic's id and partition count, waiting for the topic to exist. */
static int share_metadata(load_wire_t *w, share_run_t *run, double deadline)
{
    gr_metadata_request_t req;
    gr_metadata_request_metadata_request_topic_t t;
    gr_metadata_response_t resp;

    gr_metadata_request_init(&req);
    gr_metadata_request_metadata_request_topic_init(&t);
    t.name = gr_str(run->opts->topic);
    req.topics = &t;
    req.topics_count = 1;
    for (;;) {
        int16_t err;

        if (load_wire_call(w, GR_API_METADATA, SHARE_METADATA_VERSION, &req, &resp) != 0 ||
            resp.topics_count != 1)
            return -EBADMSG;
        err = resp.topics[0].error_code;
        if (err == GR_KERR_NONE && resp.topics[0].partitions_count > 0)
            break;
        if ((err != GR_KERR_NONE && err != GR_KERR_UNKNOWN_TOPIC_OR_PARTITION &&
             err != GR_KERR_LEADER_NOT_AVAILABLE) ||
            share_now() > deadline) {
            fprintf(stderr, "share_load: Metadata %s: error %d\n", run->opts->topic, err);
            return -EIO;
        }
        share_sleep(SHARE_RETRY_S);
    }
    if (resp.topics[0].partitions_count > SHARE_MAX_PARTITIONS)
        return -E2BIG;
    run->topic_id = resp.topics[0].topic_id;
    run->partitions = resp.topics[0].partitions_count;
    return 0;
}

/* Takes the partitions of the run's topic from a new assignment. */
static void share_assign(share_consumer_t *c,
                         const gr_share_group_heartbeat_response_assignment_t *a)
{
    memset(c->assigned, 0, sizeof(c->assigned));
    for (int32_t i = 0; i < a->topic_partitions_count; i++) {
        const gr_share_group_heartbeat_response_topic_partitions_t *tp = &a->topic_partitions[i];

        if (memcmp(&tp->topic_id, &c->run->topic_id, sizeof(tp->topic_id)) != 0)
            continue;
        for (int32_t j = 0; j < tp->partitions_count; j++)
            if (tp->partitions[j] >= 0 && tp->partitions[j] < c->run->partitions)
                c->assigned[tp->partitions[j]] = true;
    }
}

/*
 * One ShareGroupHeartbeat at member epoch `epoch` (the subscription is sent
 * when joining). Returns 0 or -EIO on an error answer or a broken response.
 */
static int share_heartbeat(share_consumer_t *c, int32_t epoch)
{
    gr_share_group_heartbeat_request_t req;
    gr_share_group_heartbeat_response_t resp;
    gr_str_t topic = gr_str(c->run->opts->topic);

    gr_share_group_heartbeat_request_init(&req);
    req.group_id = gr_str(c->run->opts->group);
    req.member_id = gr_str(c->member_id);
    req.member_epoch = epoch;
    req.subscribed_topic_names_null = epoch != SHARE_EPOCH_JOIN;
    if (epoch == SHARE_EPOCH_JOIN) {
        req.subscribed_topic_names = &topic;
        req.subscribed_topic_names_count = 1;
    }
    if (load_wire_call(&c->wire, GR_API_SHARE_GROUP_HEARTBEAT, SHARE_HEARTBEAT_VERSION, &req,
                       &resp) != 0) {
        fprintf(stderr, "share_load: ShareGroupHeartbeat: no readable answer\n");
        return -EIO;
    }
    if (resp.error_code != GR_KERR_NONE) {
        fprintf(stderr, "share_load: ShareGroupHeartbeat epoch %d: error %d %.*s\n", epoch,
                resp.error_code, resp.error_message.len > 0 ? resp.error_message.len : 0,
                resp.error_message.ptr ? resp.error_message.ptr : "");
        return -EIO;
    }
    c->member_epoch = resp.member_epoch;
    if (resp.heartbeat_interval_ms > 0)
        c->heartbeat_s = resp.heartbeat_interval_ms / 1000.0;
    c->next_heartbeat = share_now() + c->heartbeat_s;
    if (resp.assignment)
        share_assign(c, resp.assignment);
    return 0;
}

static bool share_has_assignment(const share_consumer_t *c)
{
    for (int32_t p = 0; p < c->run->partitions; p++)
        if (c->assigned[p])
            return true;
    return false;
}

/* Joins and heartbeats until the coordinator assigns a partition. */
static int share_join(share_consumer_t *c)
{
    if (share_member_id(c->member_id) != 0 || share_heartbeat(c, SHARE_EPOCH_JOIN) != 0)
        return -EIO;
    while (!share_has_assignment(c)) {
        if (share_now() > c->run->deadline || atomic_load(&c->run->stop))
            return -ETIMEDOUT;
        share_sleep(SHARE_JOIN_POLL_S);
        if (share_heartbeat(c, c->member_epoch) != 0)
            return -EIO;
    }
    return 0;
}

static int share_heartbeat_if_due(share_consumer_t *c)
{
    return share_now() >= c->next_heartbeat ? share_heartbeat(c, c->member_epoch) : 0;
}

/* --- share fetches ---------------------------------------------------------- */

/* Acknowledgement batches of every pending range of partition p, into out. */
static int32_t share_fetch_acks(share_consumer_t *c, int32_t p,
                                gr_share_fetch_request_acknowledgement_batch_t *out)
{
    const share_ranges_t *s = &c->pending[p];

    for (int i = 0; i < s->n; i++) {
        gr_share_fetch_request_acknowledgement_batch_init(&out[i]);
        out[i].first_offset = s->r[i][0];
        out[i].last_offset = s->r[i][1];
        out[i].acknowledge_types = &c->accept;
        out[i].acknowledge_types_count = 1;
    }
    return s->n;
}

static int share_pending_total(const share_consumer_t *c)
{
    int n = 0;

    for (int32_t p = 0; p < c->run->partitions; p++)
        n += c->pending[p].n;
    return n;
}

/*
 * Counts the ranges one partition acquired and queues their
 * acknowledgement. Returns 0, -EIO on a fetch error, or -ENOMEM.
 */
static int share_fetch_partition(share_consumer_t *c,
                                 const gr_share_fetch_response_partition_data_t *pd)
{
    share_run_t *run = c->run;
    int32_t p = pd->partition_index;
    int rc = 0;

    if (p < 0 || p >= run->partitions)
        return -EIO;
    if (pd->acknowledge_error_code != GR_KERR_NONE && c->ack_errors++ == 0)
        fprintf(stderr, "share_load: acknowledgement error %d on partition %d\n",
                pd->acknowledge_error_code, p);
    if (pd->error_code != GR_KERR_NONE) {
        fprintf(stderr, "share_load: ShareFetch partition %d: error %d\n", p, pd->error_code);
        return -EIO;
    }
    if (pd->acquired_records_count == 0)
        return 0;
    pthread_mutex_lock(&run->lock);
    for (int32_t i = 0; rc == 0 && i < pd->acquired_records_count; i++) {
        const gr_share_fetch_response_acquired_records_t *a = &pd->acquired_records[i];

        rc = share_tally_range(run, p, a->first_offset, a->last_offset);
        if (rc == 0)
            rc = share_ranges_add(&c->pending[p], a->first_offset, a->last_offset);
        run->uncovered += share_uncovered(&pd->records, a->first_offset, a->last_offset);
    }
    if (run->distinct >= run->opts->records && !atomic_load(&run->stop)) {
        run->end_at = share_now();
        atomic_store(&run->stop, true);
    }
    pthread_mutex_unlock(&run->lock);
    return rc;
}

/* Returns 0, or -EIO on an error answer (the whole request's or a partition's). */
static int share_fetch_response(share_consumer_t *c, const gr_share_fetch_response_t *resp)
{
    if (resp->error_code != GR_KERR_NONE) {
        fprintf(stderr, "share_load: ShareFetch epoch %d: error %d %.*s\n", c->session_epoch,
                resp->error_code, resp->error_message.len > 0 ? resp->error_message.len : 0,
                resp->error_message.ptr ? resp->error_message.ptr : "");
        return -EIO;
    }
    for (int32_t t = 0; t < resp->responses_count; t++)
        for (int32_t i = 0; i < resp->responses[t].partitions_count; i++) {
            const gr_share_fetch_response_partition_data_t *pd = &resp->responses[t].partitions[i];
            double unset = 0;

            if (pd->acquired_records_count > 0)
                atomic_compare_exchange_strong(&c->run->first_at, &unset, share_now());
            if (share_fetch_partition(c, pd) != 0)
                return -EIO;
        }
    return 0;
}

/*
 * One ShareFetch: the assigned partitions and those with acknowledgements
 * pending; partitions named last time and neither now are forgotten. The
 * acknowledged ranges are dropped once the response came.
 */
static int share_fetch(share_consumer_t *c)
{
    share_run_t *run = c->run;
    gr_share_fetch_request_t req;
    gr_share_fetch_request_fetch_topic_t topic;
    gr_share_fetch_request_forgotten_topic_t forgotten;
    gr_share_fetch_request_fetch_partition_t parts[SHARE_MAX_PARTITIONS];
    int32_t forgotten_parts[SHARE_MAX_PARTITIONS];
    gr_share_fetch_request_acknowledgement_batch_t *acks;
    gr_share_fetch_response_t resp;
    int32_t nacks = 0;
    int rc = -ENOMEM;

    acks = calloc((size_t)share_pending_total(c) + 1, sizeof(*acks));
    if (!acks)
        return rc;
    gr_share_fetch_request_init(&req);
    gr_share_fetch_request_fetch_topic_init(&topic);
    gr_share_fetch_request_forgotten_topic_init(&forgotten);
    topic.topic_id = forgotten.topic_id = run->topic_id;
    topic.partitions = parts;
    forgotten.partitions = forgotten_parts;
    for (int32_t p = 0; p < run->partitions; p++) {
        bool wanted = c->assigned[p] || c->pending[p].n > 0;

        if (!wanted && c->in_session[p])
            forgotten_parts[forgotten.partitions_count++] = p;
        c->in_session[p] = wanted;
        if (!wanted)
            continue;
        gr_share_fetch_request_fetch_partition_init(&parts[topic.partitions_count]);
        parts[topic.partitions_count].partition_index = p;
        parts[topic.partitions_count].acknowledgement_batches = &acks[nacks];
        parts[topic.partitions_count].acknowledgement_batches_count =
            share_fetch_acks(c, p, &acks[nacks]);
        nacks += parts[topic.partitions_count++].acknowledgement_batches_count;
    }
    req.group_id = gr_str(run->opts->group);
    req.member_id = gr_str(c->member_id);
    req.share_session_epoch = c->session_epoch;
    req.max_wait_ms = run->opts->max_wait_ms;
    req.min_bytes = 1;
    req.max_bytes = SHARE_FETCH_MAX_BYTES;
    req.max_records = run->opts->max_records;
    req.batch_size = run->opts->max_records;
    req.topics = &topic;
    req.topics_count = 1;
    req.forgotten_topics_data = &forgotten;
    req.forgotten_topics_data_count = forgotten.partitions_count > 0 ? 1 : 0;
    rc = load_wire_call(&c->wire, GR_API_SHARE_FETCH, SHARE_FETCH_VERSION, &req, &resp);
    free(acks);
    if (rc != 0) {
        fprintf(stderr, "share_load: ShareFetch: no readable answer (%d)\n", rc);
        return -EIO;
    }
    for (int32_t p = 0; p < run->partitions; p++)
        c->pending[p].n = 0;
    c->fetches++;
    c->session_epoch = c->session_epoch == INT32_MAX ? 1 : c->session_epoch + 1;
    return share_fetch_response(c, &resp);
}

/* --- leaving ------------------------------------------------------------------ */

/* The last acknowledgements, in a ShareAcknowledge that closes the session. */
static int share_close_session(share_consumer_t *c)
{
    share_run_t *run = c->run;
    gr_share_acknowledge_request_t req;
    gr_share_acknowledge_request_acknowledge_topic_t topic;
    gr_share_acknowledge_request_acknowledge_partition_t parts[SHARE_MAX_PARTITIONS];
    gr_share_acknowledge_request_acknowledgement_batch_t *acks;
    gr_share_acknowledge_response_t resp;
    int32_t nacks = 0;
    int rc;

    acks = calloc((size_t)share_pending_total(c) + 1, sizeof(*acks));
    if (!acks)
        return -ENOMEM;
    gr_share_acknowledge_request_init(&req);
    gr_share_acknowledge_request_acknowledge_topic_init(&topic);
    topic.topic_id = run->topic_id;
    topic.partitions = parts;
    for (int32_t p = 0; p < run->partitions; p++) {
        gr_share_acknowledge_request_acknowledge_partition_t *part;

        if (c->pending[p].n == 0)
            continue;
        part = &parts[topic.partitions_count++];
        gr_share_acknowledge_request_acknowledge_partition_init(part);
        part->partition_index = p;
        part->acknowledgement_batches = &acks[nacks];
        for (int i = 0; i < c->pending[p].n; i++, nacks++) {
            gr_share_acknowledge_request_acknowledgement_batch_init(&acks[nacks]);
            acks[nacks].first_offset = c->pending[p].r[i][0];
            acks[nacks].last_offset = c->pending[p].r[i][1];
            acks[nacks].acknowledge_types = &c->accept;
            acks[nacks].acknowledge_types_count = 1;
        }
        part->acknowledgement_batches_count = c->pending[p].n;
    }
    req.group_id = gr_str(run->opts->group);
    req.member_id = gr_str(c->member_id);
    req.share_session_epoch = SHARE_SESSION_CLOSE;
    req.topics = &topic;
    req.topics_count = topic.partitions_count > 0 ? 1 : 0;
    rc = load_wire_call(&c->wire, GR_API_SHARE_ACKNOWLEDGE, SHARE_ACKNOWLEDGE_VERSION, &req, &resp);
    free(acks);
    if (rc != 0)
        return -EIO;
    if (resp.error_code != GR_KERR_NONE) {
        fprintf(stderr, "share_load: closing ShareAcknowledge: error %d\n", resp.error_code);
        return -EIO;
    }
    for (int32_t t = 0; t < resp.responses_count; t++)
        for (int32_t i = 0; i < resp.responses[t].partitions_count; i++)
            if (resp.responses[t].partitions[i].error_code != GR_KERR_NONE)
                return -EIO;
    return 0;
}

/* Closes the session (if one was opened) and leaves the group. */
static void share_leave(share_consumer_t *c)
{
    if (c->session_epoch != SHARE_SESSION_OPEN && share_close_session(c) != 0)
        c->close_errors++;
    if (c->member_epoch > 0 && share_heartbeat(c, SHARE_EPOCH_LEAVE) != 0)
        c->close_errors++;
}

/* --- one consumer ----------------------------------------------------------- */

/* With -W: open the session, report ready, heartbeat until the go. */
static int share_wait_for_go(share_consumer_t *c)
{
    share_run_t *run = c->run;

    if (share_fetch(c) != 0)
        return -EIO;
    atomic_fetch_add(&run->ready, 1);
    while (!atomic_load(&run->go)) {
        if (atomic_load(&run->stop) || share_now() > run->deadline)
            return -ETIMEDOUT;
        if (share_heartbeat_if_due(c) != 0)
            return -EIO;
        share_sleep(SHARE_JOIN_POLL_S);
    }
    return 0;
}

static void *share_consume(void *arg)
{
    share_consumer_t *c = arg;
    share_run_t *run = c->run;
    int rc;

    c->accept = GR_SHARE_ACK_ACCEPT;
    c->heartbeat_s = 1.0;
    rc = load_wire_open(&c->wire, run->opts->hostport);
    if (rc == 0)
        rc = share_join(c);
    if (rc == 0 && run->opts->wait_for_go)
        rc = share_wait_for_go(c);
    while (rc == 0 && !atomic_load(&run->stop)) {
        if (share_now() > run->deadline) {
            fprintf(stderr, "share_load: deadline passed\n");
            rc = -ETIMEDOUT;
            break;
        }
        rc = share_heartbeat_if_due(c);
        if (rc == 0)
            rc = share_fetch(c);
    }
    if (rc != 0) {
        atomic_fetch_add(&run->failed, 1);
        atomic_store(&run->stop, true);
    } else {
        share_leave(c);
    }
    load_wire_close(&c->wire);
    return NULL;
}

/* --- the run ------------------------------------------------------------------ */

/* With -W: waits for every consumer's session, prints ready, reads the go line. */
static int share_go(share_run_t *run)
{
    char line[64];

    while (atomic_load(&run->ready) < run->opts->consumers) {
        if (atomic_load(&run->failed) > 0 || share_now() > run->deadline)
            return -EIO;
        share_sleep(SHARE_JOIN_POLL_S);
    }
    printf("{\"ready\":%d}\n", run->opts->consumers);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin))
        return -EIO;
    atomic_store(&run->go, true);
    return 0;
}

static void share_report(const share_run_t *run, const share_consumer_t *cons, double start)
{
    long fetches = 0, ack_errors = 0, close_errors = 0;

    for (int i = 0; i < run->opts->consumers; i++) {
        fetches += cons[i].fetches;
        ack_errors += cons[i].ack_errors;
        close_errors += cons[i].close_errors;
    }
    printf("{\"records\":%ld,\"deliveries\":%ld,\"duplicates\":%ld,\"gaps\":%ld,"
           "\"uncovered\":%ld,\"ack_errors\":%ld,\"close_errors\":%ld,\"fetches\":%ld,"
           "\"seconds\":%.6f,\"seconds_with_join\":%.6f,\"consumers\":%d}\n",
           run->distinct, run->deliveries, run->duplicates, share_gaps(run), run->uncovered,
           ack_errors, close_errors, fetches, run->end_at - atomic_load(&run->first_at),
           run->end_at - start, run->opts->consumers);
}

static int share_run(const share_opts_t *o)
{
    share_consumer_t *cons = calloc((size_t)o->consumers, sizeof(*cons));
    share_run_t run = {.opts = o};
    pthread_t threads[SHARE_MAX_CONSUMERS];
    load_wire_t w;
    int started = 0, rc;
    double start = share_now();

    if (!cons)
        return 1;
    run.deadline = start + o->deadline_s;
    pthread_mutex_init(&run.lock, NULL);
    rc = load_wire_open(&w, o->hostport);
    if (rc == 0)
        rc = share_find_coordinator(&w, o, run.deadline);
    if (rc == 0)
        rc = share_metadata(&w, &run, run.deadline);
    load_wire_close(&w);
    for (; rc == 0 && started < o->consumers; started++) {
        cons[started].run = &run;
        if (pthread_create(&threads[started], NULL, share_consume, &cons[started]) != 0)
            rc = -EAGAIN;
    }
    if (rc == 0 && o->wait_for_go) {
        rc = share_go(&run);
        start = share_now();
    }
    if (rc != 0)
        atomic_store(&run.stop, true);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    if (rc == 0 && (atomic_load(&run.failed) > 0 || run.distinct < o->records))
        rc = -EIO;
    if (rc == 0)
        share_report(&run, cons, start);
    else
        fprintf(stderr, "share_load: the group read %ld of %ld records\n", run.distinct,
                o->records);
    for (int i = 0; i < started; i++)
        for (int p = 0; p < SHARE_MAX_PARTITIONS; p++)
            free(cons[i].pending[p].r);
    for (int p = 0; p < SHARE_MAX_PARTITIONS; p++)
        free(run.counts[p]);
    pthread_mutex_destroy(&run.lock);
    free(cons);
    return rc == 0 ? 0 : 1;
}

/* config mode: one group config set with IncrementalAlterConfigs. */
static int share_config(const share_opts_t *o, const char *key, const char *value)
{
    gr_incremental_alter_configs_request_t req;
    gr_incremental_alter_configs_request_alter_configs_resource_t res;
    gr_incremental_alter_configs_request_alterable_config_t cfg;
    gr_incremental_alter_configs_response_t resp;
    load_wire_t w;
    int rc;

    gr_incremental_alter_configs_request_init(&req);
    gr_incremental_alter_configs_request_alter_configs_resource_init(&res);
    gr_incremental_alter_configs_request_alterable_config_init(&cfg);
    cfg.name = gr_str(key);
    cfg.config_operation = GR_ALTER_CONFIG_OP_SET;
    cfg.value = gr_str(value);
    res.resource_type = GR_CONFIG_RESOURCE_TYPE_GROUP;
    res.resource_name = gr_str(o->group);
    res.configs = &cfg;
    res.configs_count = 1;
    req.resources = &res;
    req.resources_count = 1;
    rc = load_wire_open(&w, o->hostport);
    if (rc == 0)
        rc =
            load_wire_call(&w, GR_API_INCREMENTAL_ALTER_CONFIGS, SHARE_CONFIG_VERSION, &req, &resp);
    if (rc == 0 && resp.responses_count == 1)
        printf("{\"mode\":\"config\",\"error\":%d}\n", resp.responses[0].error_code);
    else
        fprintf(stderr, "share_load: IncrementalAlterConfigs failed (%d)\n", rc);
    load_wire_close(&w);
    return rc == 0 && resp.responses_count == 1 ? 0 : 1;
}

static int share_usage(void)
{
    fprintf(stderr, "usage: bench_share_load consume -b host:port -t topic -g group -n records "
                    "[-c consumers] [-m max_records] [-w max_wait_ms] [-d deadline_s] [-W]\n"
                    "       bench_share_load config -b host:port -g group -k key -v value\n");
    return 2;
}

int main(int argc, char **argv)
{
    share_opts_t o = {.group = "bench-share",
                      .consumers = 1,
                      .max_records = 500,
                      .max_wait_ms = 500,
                      .deadline_s = 300};
    const char *key = NULL, *value = NULL;
    bool consume;
    int opt;

    if (argc < 2 || (strcmp(argv[1], "consume") != 0 && strcmp(argv[1], "config") != 0))
        return share_usage();
    consume = strcmp(argv[1], "consume") == 0;
    optind = 2;
    while ((opt = getopt(argc, argv, "b:t:g:n:c:m:w:d:Wk:v:")) != -1) {
        switch (opt) {
        case 'b':
            o.hostport = optarg;
            break;
        case 't':
            o.topic = optarg;
            break;
        case 'g':
            o.group = optarg;
            break;
        case 'n':
            o.records = atol(optarg);
            break;
        case 'c':
            o.consumers = atoi(optarg);
            break;
        case 'm':
            o.max_records = atoi(optarg);
            break;
        case 'w':
            o.max_wait_ms = atoi(optarg);
            break;
        case 'd':
            o.deadline_s = atof(optarg);
            break;
        case 'W':
            o.wait_for_go = true;
            break;
        case 'k':
            key = optarg;
            break;
        case 'v':
            value = optarg;
            break;
        default:
            return share_usage();
        }
    }
    if (!o.hostport)
        return share_usage();
    if (!consume)
        return key && value ? share_config(&o, key, value) : share_usage();
    if (!o.topic || o.records <= 0 || o.consumers <= 0 || o.consumers > SHARE_MAX_CONSUMERS ||
        o.max_records <= 0 || o.max_wait_ms < 0 || o.deadline_s <= 0)
        return share_usage();
    return share_run(&o);
}
