/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codec_load: the broker's own ceiling, measured without librdkafka. Built on
 * Gregor's generated codec, it sends prebuilt record batches over several
 * connections with pipelined requests, then fetches them back.
 *
 * Usage:
 *   bench_codec_load MODE -b host:port -t topic [options]
 *
 *   create   -p partitions [-R replicas]  create the topic (CreateTopics)
 *   produce  -p partitions -c conns -d depth -s record_size -r records_per_batch
 *            -B total_bytes [-a acks] append batches to every partition
 *   fetch    -p partitions -c conns -F partition_max_bytes
 *            read every partition from offset 0 to its high watermark
 *   metadata -n requests              Metadata v12 for all topics, one request
 *            at a time (-t is ignored); each timed from the write of the
 *            request to its decoded answer
 *
 * Connection k owns partitions k, k+c, k+2c, ...; produce keeps `depth`
 * requests in flight on each connection (one batch per request, partitions
 * in turn); fetch keeps one request in flight per owned partition. Every
 * response is decoded and checked (error codes; fetched batches must be
 * whole and continue where the last one ended). The clock runs from the
 * moment every connection is open to the last response.
 *
 * Last stdout line:
 *   {"mode":M,"bytes":B,"seconds":S,"requests":N}
 * (create: {"mode":"create","partitions":P,"error":E}, E 0 or 36 for a
 * topic that already existed; metadata: {"mode":"metadata","topics":T,
 * "partitions":P,"led":L,"seconds":median,"min":S,"max":S,"requests":N}, L the
 * partitions answered without error and with a leader, in the last answer)
 * where bytes are record-batch bytes (request payload for produce, response
 * records for fetch). Exit status: 0 success, 1 a broker error or a broken
 * response, 2 bad usage.
 *
 * Threads: one per connection; each owns its socket, buffers and arena, and
 * writes only its own slot of the results array.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gen/create_topics.h"
#include "gen/fetch.h"
#include "gen/metadata.h"
#include "gen/produce.h"
#include "protocol/kerr.h"
#include "protocol/records.h"

#include "load_wire.h"

#define LOAD_PRODUCE_VERSION    9
#define LOAD_FETCH_VERSION      11
#define LOAD_CREATE_VERSION     4
#define LOAD_METADATA_VERSION   12 /* what current Java clients send */
#define LOAD_MAX_METADATA_CALLS 1000
#define LOAD_MAX_CONNS          64
#define LOAD_CREATE_TIMEOUT_MS  120000
#define LOAD_PRODUCE_TIMEOUT_MS 30000
#define LOAD_FETCH_WAIT_MS      500
#define LOAD_CORRELATION_POS    8 /* size(4) api_key(2) api_version(2) */

typedef enum load_mode { LOAD_CREATE, LOAD_PRODUCE, LOAD_FETCH, LOAD_METADATA } load_mode_t;

typedef struct load_opts {
    load_mode_t mode;
    const char *hostport;
    const char *topic;
    int partitions;
    int conns;
    int depth;
    int record_size;
    int batch_records;
    long long total_bytes;
    int acks;
    int fetch_bytes;
    int replicas;
    int calls;
} load_opts_t;

/* One connection (socket, correlation counter, response buffer) and its totals. */
typedef struct load_conn {
    const load_opts_t *opts;
    int index;
    load_wire_t wire;
    long long bytes; /* out: record-batch bytes moved */
    long requests;   /* out */
    int failed;      /* out: 1 when a check failed */
} load_conn_t;

static double load_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Builds one uncompressed batch of the configured records into w. */
static int load_build_batch(const load_opts_t *o, gr_writer_t *w)
{
    gr_record_t *recs = calloc((size_t)o->batch_records, sizeof(*recs));
    uint8_t *value = malloc((size_t)o->record_size);
    gr_batch_header_t h;
    int rc;

    if (!recs || !value) {
        free(recs);
        free(value);
        return -ENOMEM;
    }
    for (int i = 0; i < o->record_size; i++)
        value[i] = (uint8_t)('a' + (i * 7) % 26);
    memset(&h, 0, sizeof(h));
    h.base_timestamp = h.max_timestamp = (int64_t)time(NULL) * 1000;
    h.producer_id = -1;
    h.producer_epoch = -1;
    h.base_sequence = -1;
    h.last_offset_delta = o->batch_records - 1;
    for (int i = 0; i < o->batch_records; i++) {
        recs[i].offset_delta = i;
        recs[i].key.len = GR_NULL_LEN;
        recs[i].value.ptr = value;
        recs[i].value.len = o->record_size;
    }
    rc = gr_batch_build(w, &h, recs, o->batch_records, GR_COMPRESSION_NONE);
    free(recs);
    free(value);
    return rc;
}

/* Partitions connection c owns: c, c+conns, ...; returns how many. */
static int load_owned(const load_conn_t *c, int32_t *owned /* out: partitions */)
{
    int n = 0;

    for (int p = c->index; p < c->opts->partitions; p += c->opts->conns)
        owned[n++] = p;
    return n;
}

/* Builds one Produce frame per owned partition, each carrying batch. */
static int load_produce_frames(load_conn_t *c, const int32_t *owned, int n,
                               const gr_writer_t *batch, gr_writer_t *frames /* out: n frames */)
{
    for (int i = 0; i < n; i++) {
        gr_produce_request_t req;
        gr_produce_request_topic_produce_data_t t;
        gr_produce_request_partition_produce_data_t p;

        gr_produce_request_init(&req);
        gr_produce_request_topic_produce_data_init(&t);
        gr_produce_request_partition_produce_data_init(&p);
        p.index = owned[i];
        p.records.ptr = batch->buf;
        p.records.len = (int32_t)batch->len;
        t.name = gr_str(c->opts->topic);
        t.partition_data = &p;
        t.partition_data_count = 1;
        req.acks = (int16_t)c->opts->acks;
        req.timeout_ms = LOAD_PRODUCE_TIMEOUT_MS;
        req.topic_data = &t;
        req.topic_data_count = 1;
        gr_writer_init(&frames[i]);
        if (load_wire_frame(&frames[i], GR_API_PRODUCE, LOAD_PRODUCE_VERSION, 0, &req) != 0)
            return -EINVAL;
    }
    return 0;
}

/* Decodes and checks one Produce response; returns 0 or -EBADMSG. */
static int load_produce_check(load_conn_t *c, int32_t correlation)
{
    gr_produce_response_t resp;

    if (load_wire_response(&c->wire, GR_API_PRODUCE, LOAD_PRODUCE_VERSION, correlation, &resp) !=
            0 ||
        resp.responses_count != 1 || resp.responses[0].partition_responses_count != 1)
        return -EBADMSG;
    if (resp.responses[0].partition_responses[0].error_code != GR_KERR_NONE) {
        fprintf(stderr, "codec_load: produce error %d\n",
                resp.responses[0].partition_responses[0].error_code);
        return -EBADMSG;
    }
    return 0;
}

static void *load_produce_thread(void *arg)
{
    load_conn_t *c = arg;
    const load_opts_t *o = c->opts;
    int32_t *owned = calloc((size_t)o->partitions, sizeof(*owned));
    gr_writer_t *frames = calloc((size_t)o->partitions, sizeof(*frames));
    gr_writer_t batch;
    long total, sent = 0, done = 0;
    int n = 0;

    gr_writer_init(&batch);
    c->failed = 1;
    if (!owned || !frames || load_build_batch(o, &batch) != 0)
        goto out;
    n = load_owned(c, owned);
    if (n == 0 || load_produce_frames(c, owned, n, &batch, frames) != 0)
        goto out;
    total = (long)((o->total_bytes / o->conns + (long long)batch.len - 1) / (long long)batch.len);
    while (done < total) {
        while (sent < total && sent - done < o->depth) {
            gr_writer_t *f = &frames[sent % n];

            gr_writer_put_int32(f, LOAD_CORRELATION_POS, (int32_t)(sent + 1));
            if (load_wire_write_all(c->wire.fd, f->buf, f->len) != 0)
                goto out;
            sent++;
        }
        if (o->acks != 0 && load_produce_check(c, (int32_t)(done + 1)) != 0)
            goto out;
        done++;
    }
    c->bytes = (long long)total * (long long)batch.len;
    c->requests = total;
    c->failed = 0;
out:
    for (int i = 0; frames && i < n; i++)
        gr_writer_fini(&frames[i]);
    gr_writer_fini(&batch);
    free(frames);
    free(owned);
    return NULL;
}

/* Sends a Fetch for one partition from offset. */
static int load_fetch_send(load_conn_t *c, int32_t partition, int64_t offset)
{
    gr_fetch_request_t req;
    gr_fetch_request_fetch_topic_t t;
    gr_fetch_request_fetch_partition_t p;
    gr_writer_t w;
    int rc;

    gr_fetch_request_init(&req);
    gr_fetch_request_fetch_topic_init(&t);
    gr_fetch_request_fetch_partition_init(&p);
    p.partition = partition;
    p.fetch_offset = offset;
    p.partition_max_bytes = c->opts->fetch_bytes;
    t.topic = gr_str(c->opts->topic);
    t.partitions = &p;
    t.partitions_count = 1;
    req.replica_id = -1;
    req.max_wait_ms = LOAD_FETCH_WAIT_MS;
    req.min_bytes = 1;
    req.max_bytes = c->opts->fetch_bytes;
    req.session_epoch = -1;
    req.topics = &t;
    req.topics_count = 1;
    gr_writer_init(&w);
    rc = load_wire_frame(&w, GR_API_FETCH, LOAD_FETCH_VERSION, ++c->wire.correlation, &req);
    if (rc == 0)
        rc = load_wire_write_all(c->wire.fd, w.buf, w.len);
    gr_writer_fini(&w);
    return rc;
}

/*
 * Walks the whole batches of one fetched partition, which must start at
 * *next; advances *next past them. Returns their bytes, or -1 when a batch
 * starts elsewhere or is corrupt.
 */
static long long load_fetch_batches(const gr_records_t *records, int64_t *next)
{
    const uint8_t *p = records->ptr;
    size_t left = records->len > 0 ? (size_t)records->len : 0;
    long long bytes = 0;
    gr_batch_header_t h;

    while (gr_batch_header_parse(p, left, &h) == 0 && (size_t)gr_batch_size(&h) <= left) {
        if (h.base_offset != *next)
            return -1;
        *next = h.base_offset + h.last_offset_delta + 1;
        bytes += gr_batch_size(&h);
        p += gr_batch_size(&h);
        left -= (size_t)gr_batch_size(&h);
    }
    return bytes;
}

/*
 * Reads the Fetch response with this correlation id and advances *next past
 * its batches. Returns 1 when the partition has more to read, 0 when it is
 * read to its high watermark, -1 on an error or a broken response.
 */
static int load_fetch_receive(load_conn_t *c, int32_t correlation, int64_t *next)
{
    gr_fetch_response_t resp;
    const gr_fetch_response_partition_data_t *pd;
    long long bytes;

    if (load_wire_response(&c->wire, GR_API_FETCH, LOAD_FETCH_VERSION, correlation, &resp) != 0 ||
        resp.error_code != GR_KERR_NONE || resp.responses_count != 1 ||
        resp.responses[0].partitions_count != 1)
        return -1;
    pd = &resp.responses[0].partitions[0];
    if (pd->error_code != GR_KERR_NONE) {
        fprintf(stderr, "codec_load: fetch error %d\n", pd->error_code);
        return -1;
    }
    bytes = load_fetch_batches(&pd->records, next);
    if (bytes < 0 || (bytes == 0 && *next < pd->high_watermark))
        return -1;
    c->bytes += bytes;
    return *next < pd->high_watermark ? 1 : 0;
}

/*
 * One request in flight per owned partition; responses come back in request
 * order, so a ring of partition slots in send order says whose each is.
 */
static void *load_fetch_thread(void *arg)
{
    load_conn_t *c = arg;
    const load_opts_t *o = c->opts;
    int32_t *owned = calloc((size_t)o->partitions, sizeof(*owned));
    int64_t *next = calloc((size_t)o->partitions, sizeof(*next));
    int *ring = calloc((size_t)o->partitions, sizeof(*ring));
    int n, head = 0, inflight = 0;

    c->failed = 1;
    if (!owned || !next || !ring)
        goto out;
    n = load_owned(c, owned);
    for (int i = 0; i < n; i++, inflight++) {
        ring[i] = i;
        if (load_fetch_send(c, owned[i], 0) != 0)
            goto out;
    }
    while (inflight > 0) {
        int slot = ring[head];
        /* the oldest request in flight is the one answered */
        int more = load_fetch_receive(c, c->wire.correlation - inflight + 1, &next[slot]);

        head = (head + 1) % n;
        inflight--;
        if (more < 0)
            goto out;
        if (more) {
            ring[(head + inflight) % n] = slot;
            inflight++;
            if (load_fetch_send(c, owned[slot], next[slot]) != 0)
                goto out;
        }
    }
    c->requests = c->wire.correlation;
    c->failed = 0;
out:
    free(ring);
    free(next);
    free(owned);
    return NULL;
}

/* Creates the topic; an existing one is fine. Returns 0 or -1. */
static int load_create(const load_opts_t *o)
{
    load_wire_t wire;
    gr_create_topics_request_t req;
    gr_create_topics_request_creatable_topic_t t;
    gr_create_topics_response_t resp;
    int rc = -1;

    if (load_wire_open(&wire, o->hostport) != 0)
        goto out;
    gr_create_topics_request_init(&req);
    gr_create_topics_request_creatable_topic_init(&t);
    t.name = gr_str(o->topic);
    t.num_partitions = o->partitions;
    t.replication_factor = (int16_t)o->replicas;
    req.topics = &t;
    req.topics_count = 1;
    req.timeout_ms = LOAD_CREATE_TIMEOUT_MS;
    if (load_wire_call(&wire, GR_API_CREATE_TOPICS, LOAD_CREATE_VERSION, &req, &resp) != 0 ||
        resp.topics_count != 1)
        goto out;
    if (resp.topics[0].error_code != GR_KERR_NONE &&
        resp.topics[0].error_code != GR_KERR_TOPIC_ALREADY_EXISTS) {
        fprintf(stderr, "codec_load: create %s: error %d\n", o->topic, resp.topics[0].error_code);
        goto out;
    }
    printf("{\"mode\":\"create\",\"partitions\":%d,\"error\":%d}\n", o->partitions,
           resp.topics[0].error_code);
    rc = 0;
out:
    load_wire_close(&wire);
    return rc;
}

static int load_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Counts the partitions of resp and those served with no error and a leader. */
static void load_metadata_count(const gr_metadata_response_t *resp, long *partitions /* out */,
                                long *led /* out */)
{
    *partitions = *led = 0;
    for (int32_t i = 0; i < resp->topics_count; i++)
        for (int32_t j = 0; j < resp->topics[i].partitions_count; j++) {
            const gr_metadata_response_metadata_response_partition_t *p =
                &resp->topics[i].partitions[j];

            (*partitions)++;
            *led += p->error_code == GR_KERR_NONE && p->leader_id >= 0;
        }
}

/* Times o->calls Metadata requests for all topics; prints the summary. 0 or 1. */
static int load_metadata(const load_opts_t *o)
{
    load_wire_t wire;
    gr_metadata_request_t req;
    gr_metadata_response_t resp;
    double *took = calloc((size_t)o->calls, sizeof(*took));
    long partitions = 0, led = 0;
    int rc = 1;

    if (load_wire_open(&wire, o->hostport) != 0 || !took)
        goto out;
    gr_metadata_request_init(&req);
    req.topics_null = true;
    req.allow_auto_topic_creation = false;
    for (int i = 0; i < o->calls; i++) {
        double t0 = load_now();

        if (load_wire_call(&wire, GR_API_METADATA, LOAD_METADATA_VERSION, &req, &resp) != 0) {
            fprintf(stderr, "codec_load: metadata request failed\n");
            goto out;
        }
        took[i] = load_now() - t0;
    }
    load_metadata_count(&resp, &partitions, &led);
    qsort(took, (size_t)o->calls, sizeof(*took), load_compare_double);
    printf("{\"mode\":\"metadata\",\"topics\":%d,\"partitions\":%ld,\"led\":%ld,"
           "\"seconds\":%.6f,\"min\":%.6f,\"max\":%.6f,\"requests\":%d}\n",
           resp.topics_count, partitions, led, took[o->calls / 2], took[0], took[o->calls - 1],
           o->calls);
    rc = 0;
out:
    free(took);
    load_wire_close(&wire);
    return rc;
}

/* Runs produce or fetch over every connection; prints the summary. 0 or 1. */
static int load_run(const load_opts_t *o)
{
    load_conn_t conns[LOAD_MAX_CONNS];
    pthread_t threads[LOAD_MAX_CONNS];
    void *(*body)(void *) = o->mode == LOAD_PRODUCE ? load_produce_thread : load_fetch_thread;
    long long bytes = 0;
    long requests = 0;
    int opened = 0, started = 0, failed = 0;
    double start, seconds;

    memset(conns, 0, sizeof(conns));
    for (; opened < o->conns; opened++) {
        conns[opened].opts = o;
        conns[opened].index = opened;
        if (load_wire_open(&conns[opened].wire, o->hostport) != 0) {
            load_wire_close(&conns[opened].wire);
            failed = 1;
            break;
        }
    }
    start = load_now();
    for (; !failed && started < opened; started++)
        if (pthread_create(&threads[started], NULL, body, &conns[started]) != 0) {
            failed = 1;
            break;
        }
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        failed |= conns[i].failed;
        bytes += conns[i].bytes;
        requests += conns[i].requests;
    }
    seconds = load_now() - start;
    for (int i = 0; i < opened; i++)
        load_wire_close(&conns[i].wire);
    if (failed) {
        fprintf(stderr, "codec_load: %s failed\n", o->mode == LOAD_PRODUCE ? "produce" : "fetch");
        return 1;
    }
    printf("{\"mode\":\"%s\",\"bytes\":%lld,\"seconds\":%.6f,\"requests\":%ld}\n",
           o->mode == LOAD_PRODUCE ? "produce" : "fetch", bytes, seconds, requests);
    return 0;
}

static int load_usage(void)
{
    fprintf(stderr, "usage: bench_codec_load create|produce|fetch|metadata -b host:port "
                    "[-t topic] [-p partitions] [-R replicas] [-c conns] [-d depth] "
                    "[-s record_size] [-r records_per_batch] [-B total_bytes] [-a acks] "
                    "[-F fetch_bytes] [-n requests]\n");
    return 2;
}

int main(int argc, char **argv)
{
    load_opts_t o = {.partitions = 1,
                     .conns = 1,
                     .depth = 8,
                     .record_size = 1024,
                     .batch_records = 64,
                     .total_bytes = 1LL << 30,
                     .acks = 1,
                     .fetch_bytes = 4 << 20,
                     .replicas = 1,
                     .calls = 1};
    int opt;

    if (argc < 2)
        return load_usage();
    if (strcmp(argv[1], "create") == 0)
        o.mode = LOAD_CREATE;
    else if (strcmp(argv[1], "produce") == 0)
        o.mode = LOAD_PRODUCE;
    else if (strcmp(argv[1], "fetch") == 0)
        o.mode = LOAD_FETCH;
    else if (strcmp(argv[1], "metadata") == 0)
        o.mode = LOAD_METADATA;
    else
        return load_usage();
    optind = 2;
    while ((opt = getopt(argc, argv, "b:t:p:c:d:s:r:B:a:F:R:n:")) != -1) {
        switch (opt) {
        case 'b':
            o.hostport = optarg;
            break;
        case 't':
            o.topic = optarg;
            break;
        case 'p':
            o.partitions = atoi(optarg);
            break;
        case 'c':
            o.conns = atoi(optarg);
            break;
        case 'd':
            o.depth = atoi(optarg);
            break;
        case 's':
            o.record_size = atoi(optarg);
            break;
        case 'r':
            o.batch_records = atoi(optarg);
            break;
        case 'B':
            o.total_bytes = atoll(optarg);
            break;
        case 'a':
            o.acks = atoi(optarg);
            break;
        case 'F':
            o.fetch_bytes = atoi(optarg);
            break;
        case 'R':
            o.replicas = atoi(optarg);
            break;
        case 'n':
            o.calls = atoi(optarg);
            break;
        default:
            return load_usage();
        }
    }
    if (o.mode == LOAD_METADATA && !o.topic)
        o.topic = "";
    if (!o.hostport || !o.topic || o.partitions <= 0 || o.replicas <= 0 || o.calls <= 0 ||
        o.calls > LOAD_MAX_METADATA_CALLS || o.conns <= 0 || o.conns > LOAD_MAX_CONNS ||
        o.depth <= 0 || o.record_size <= 0 || o.batch_records <= 0 || o.total_bytes <= 0 ||
        o.fetch_bytes <= 0 || (o.acks != 0 && o.acks != 1 && o.acks != -1))
        return load_usage();
    if (o.mode == LOAD_CREATE)
        return load_create(&o) == 0 ? 0 : 1;
    if (o.mode == LOAD_METADATA)
        return load_metadata(&o);
    return load_run(&o);
}
