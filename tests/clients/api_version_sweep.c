/* SPDX-License-Identifier: Apache-2.0 */
/*
 * api_version_sweep HOST:PORT
 *
 * A raw-socket client that exercises every version the broker advertises of
 * ApiVersions, CreateTopics, Metadata, Produce, Fetch, ListOffsets,
 * OffsetForLeaderEpoch and DeleteTopics, and checks the response fields of
 * each (not only that they decode). Requests are built with the generated
 * codec, which the oracle fixtures check independently for every version.
 *
 * Per version N of the data APIs it works on its own topic "sweep-<api>-vN"
 * so versions do not see each other's records. Prints one line per check;
 * exits 0 when all pass, 1 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gen/api_versions.h"
#include "gen/codec_registry.h"
#include "gen/create_topics.h"
#include "gen/delete_topics.h"
#include "gen/fetch.h"
#include "gen/headers.h"
#include "gen/list_offsets.h"
#include "gen/metadata.h"
#include "gen/offset_for_leader_epoch.h"
#include "gen/produce.h"
#include "protocol/kerr.h"
#include "protocol/records.h"

#define SWEEP_RECORDS    3
#define SWEEP_PARTITIONS 2
#define MAX_RESPONSE     (16 * 1024 * 1024)
#define TOPIC_NAME_MAX   64

typedef struct sweep {
    int sock;
    int32_t correlation_id;
    int failures;
    int checks;
    gr_arena_t arena;
    int32_t broker_id;
} sweep_t;

static void check(sweep_t *s, bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    s->checks++;
    if (!ok)
        s->failures++;
    printf("%s ", ok ? "ok  " : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static int connect_to(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || (size_t)(colon - hostport) >= sizeof host)
        return -1;
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -1;
    int fd = socket(res->ai_family, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/*
 * Sends request msg of api at version v and decodes the response into resp
 * (a struct of the API's response type). Returns 0 or -1.
 */
static int call(sweep_t *s, int16_t key, int16_t v, const void *msg, void *resp)
{
    const gr_api_desc_t *api = gr_api_find(key);
    gr_writer_t w;
    gr_writer_init(&w);
    size_t size_pos = gr_write_reserve(&w, 4);
    gr_request_header_t h;
    gr_request_header_init(&h);
    h.request_api_key = key;
    h.request_api_version = v;
    h.correlation_id = ++s->correlation_id;
    h.client_id = gr_str("api-version-sweep");
    bool flexible = api->flexible_min != GR_VERSION_NONE && v >= api->flexible_min;
    gr_request_header_encode(&w, flexible ? 2 : 1, &h);
    int rc = api->request->encode(&w, v, msg);
    gr_writer_put_int32(&w, size_pos, (int32_t)(w.len - 4));
    if (rc == 0)
        rc = write_all(s->sock, w.buf, w.len);
    gr_writer_fini(&w);
    if (rc)
        return -1;
    uint8_t size_buf[4];
    if (read_all(s->sock, size_buf, 4))
        return -1;
    uint32_t size =
        (uint32_t)size_buf[0] << 24 | size_buf[1] << 16 | size_buf[2] << 8 | size_buf[3];
    if (size > MAX_RESPONSE)
        return -1;
    uint8_t *buf = gr_arena_alloc(&s->arena, size ? size : 1);
    if (read_all(s->sock, buf, size))
        return -1;
    gr_reader_t r;
    gr_reader_init(&r, buf, size);
    gr_response_header_t rh;
    int16_t rhv = key == GR_API_API_VERSIONS ? 0 : flexible ? 1 : 0;
    if (gr_response_header_decode(&r, rhv, &s->arena, &rh) ||
        rh.correlation_id != s->correlation_id)
        return -1;
    rc = api->response->decode(&r, v, &s->arena, resp);
    return rc == 0 && gr_reader_left(&r) == 0 ? 0 : -1;
}

static void sweep_api_versions(sweep_t *s)
{
    for (int16_t v = 0; v <= GR_API_VERSIONS_REQUEST_MAX_VERSION; v++) {
        gr_api_versions_request_t req;
        gr_api_versions_request_init(&req);
        req.client_software_name = gr_str("sweep");
        req.client_software_version = gr_str("1.0");
        gr_api_versions_response_t resp;
        bool ok = call(s, GR_API_API_VERSIONS, v, &req, &resp) == 0;
        bool produce = false, fetch = false;
        for (int32_t i = 0; ok && i < resp.api_keys_count; i++) {
            produce |= resp.api_keys[i].api_key == GR_API_PRODUCE &&
                       resp.api_keys[i].min_version == 3 &&
                       resp.api_keys[i].max_version == GR_PRODUCE_REQUEST_MAX_VERSION;
            fetch |= resp.api_keys[i].api_key == GR_API_FETCH &&
                     resp.api_keys[i].min_version == 4 &&
                     resp.api_keys[i].max_version == GR_FETCH_REQUEST_MAX_VERSION;
        }
        check(s,
              ok && resp.error_code == 0 && produce && fetch &&
                  (v < 3 || resp.finalized_features_epoch == -1),
              "ApiVersions v%d lists Produce 3-%d and Fetch 4-%d", v,
              GR_PRODUCE_REQUEST_MAX_VERSION, GR_FETCH_REQUEST_MAX_VERSION);
    }
}

/* v3 checks the client software fields as Kafka does. */
static void sweep_api_versions_invalid_software(sweep_t *s)
{
    gr_api_versions_request_t req;
    gr_api_versions_request_init(&req);
    req.client_software_name = gr_str("bad name!");
    req.client_software_version = gr_str("1.0");
    gr_api_versions_response_t resp;
    bool ok = call(s, GR_API_API_VERSIONS, 3, &req, &resp) == 0;
    check(s, ok && resp.error_code == GR_KERR_INVALID_REQUEST,
          "ApiVersions v3 with an invalid client software name gets INVALID_REQUEST");
}

static void topic_name(char *buf, const char *api, int16_t v)
{
    snprintf(buf, TOPIC_NAME_MAX, "sweep-%s-v%d", api, v);
}

/* Creates topic name with CreateTopics at version v; returns its id. */
static gr_uuid_t create_topic(sweep_t *s, int16_t v, const char *name, int16_t *out_err)
{
    gr_create_topics_request_t req;
    gr_create_topics_request_init(&req);
    gr_create_topics_request_creatable_topic_t t;
    gr_create_topics_request_creatable_topic_init(&t);
    gr_create_topics_request_createable_topic_config_t cfg;
    gr_create_topics_request_createable_topic_config_init(&cfg);
    cfg.name = gr_str("retention.ms");
    cfg.value = gr_str("86400000");
    t.name = gr_str(name);
    t.num_partitions = SWEEP_PARTITIONS;
    t.replication_factor = 1;
    t.configs = &cfg;
    t.configs_count = 1;
    req.topics = &t;
    req.topics_count = 1;
    req.timeout_ms = 10000;
    gr_create_topics_response_t resp;
    gr_uuid_t id = {{0}};
    *out_err = -999;
    if (call(s, GR_API_CREATE_TOPICS, v, &req, &resp) == 0 && resp.topics_count == 1) {
        *out_err = resp.topics[0].error_code;
        id = resp.topics[0].topic_id;
    }
    return id;
}

static void sweep_create_topics(sweep_t *s)
{
    for (int16_t v = 0; v <= GR_CREATE_TOPICS_REQUEST_MAX_VERSION; v++) {
        char name[TOPIC_NAME_MAX];
        topic_name(name, "create", v);
        int16_t err;
        gr_uuid_t id = create_topic(s, v, name, &err);
        check(s, err == 0 && (v < 7 || !gr_uuid_is_zero(id)), "CreateTopics v%d creates %s", v,
              name);
        create_topic(s, v, name, &err);
        check(s, err == GR_KERR_TOPIC_ALREADY_EXISTS,
              "CreateTopics v%d: a second create gets TOPIC_ALREADY_EXISTS (%d)", v, err);
    }
}

static void sweep_metadata(sweep_t *s)
{
    for (int16_t v = 0; v <= GR_METADATA_REQUEST_MAX_VERSION; v++) {
        char name[TOPIC_NAME_MAX];
        topic_name(name, "metadata", v);
        gr_metadata_request_t req;
        gr_metadata_request_init(&req);
        gr_metadata_request_metadata_request_topic_t t;
        gr_metadata_request_metadata_request_topic_init(&t);
        t.name = gr_str(name);
        req.topics = &t;
        req.topics_count = 1;
        req.allow_auto_topic_creation = true;
        gr_metadata_response_t resp;
        bool ok = call(s, GR_API_METADATA, v, &req, &resp) == 0 && resp.brokers_count == 1 &&
                  resp.topics_count == 1;
        if (ok)
            s->broker_id = resp.brokers[0].node_id;
        ok = ok && resp.topics[0].error_code == 0 && gr_str_eq_c(resp.topics[0].name, name) &&
             resp.topics[0].partitions_count >= 1 &&
             resp.topics[0].partitions[0].leader_id == resp.brokers[0].node_id &&
             resp.topics[0].partitions[0].isr_nodes_count == 1 &&
             (v < 1 || resp.controller_id == resp.brokers[0].node_id) &&
             (v < 2 || resp.cluster_id.len > 0) &&
             (v < 10 || !gr_uuid_is_zero(resp.topics[0].topic_id));
        check(s, ok, "Metadata v%d auto-creates and describes %s", v, name);
    }
}

/* Builds one uncompressed batch of SWEEP_RECORDS records. */
static void build_batch(gr_writer_t *w)
{
    gr_batch_header_t h;
    memset(&h, 0, sizeof h);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    h.base_timestamp = h.max_timestamp = (int64_t)ts.tv_sec * 1000;
    h.producer_id = -1;
    h.producer_epoch = -1;
    h.base_sequence = -1;
    h.last_offset_delta = SWEEP_RECORDS - 1;
    gr_record_t recs[SWEEP_RECORDS];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < SWEEP_RECORDS; i++) {
        recs[i].offset_delta = i;
        recs[i].key.len = GR_NULL_LEN;
        recs[i].value.ptr = (const uint8_t *)"sweep-value";
        recs[i].value.len = 11;
    }
    gr_batch_build(w, &h, recs, SWEEP_RECORDS, GR_COMPRESSION_NONE);
}

/*
 * Produces one batch to partition 0 at version v with acks (the topic named
 * by id from v13); returns the base offset, or -1 with *out_err set to the
 * partition's error code.
 */
static int64_t produce_acks(sweep_t *s, int16_t v, const char *name, gr_uuid_t id, int16_t acks,
                            int16_t *out_err)
{
    gr_writer_t batch;
    gr_writer_init(&batch);
    build_batch(&batch);
    gr_produce_request_t req;
    gr_produce_request_init(&req);
    gr_produce_request_topic_produce_data_t t;
    gr_produce_request_topic_produce_data_init(&t);
    gr_produce_request_partition_produce_data_t p;
    gr_produce_request_partition_produce_data_init(&p);
    p.index = 0;
    p.records.ptr = batch.buf;
    p.records.len = (int32_t)batch.len;
    t.name = gr_str(name);
    t.topic_id = id;
    t.partition_data = &p;
    t.partition_data_count = 1;
    req.acks = acks;
    req.timeout_ms = 10000;
    req.topic_data = &t;
    req.topic_data_count = 1;
    gr_produce_response_t resp;
    int64_t base = -1;
    *out_err = -999;
    if (call(s, GR_API_PRODUCE, v, &req, &resp) == 0 && resp.responses_count == 1 &&
        resp.responses[0].partition_responses_count == 1) {
        *out_err = resp.responses[0].partition_responses[0].error_code;
        if (*out_err == 0)
            base = resp.responses[0].partition_responses[0].base_offset;
    }
    gr_writer_fini(&batch);
    return base;
}

static int64_t produce_id(sweep_t *s, int16_t v, const char *name, gr_uuid_t id)
{
    int16_t err;
    return produce_acks(s, v, name, id, -1, &err);
}

static int64_t produce(sweep_t *s, int16_t v, const char *name)
{
    return produce_id(s, v, name, (gr_uuid_t){0});
}

/* acks other than 0, 1 and -1 get INVALID_REQUIRED_ACKS, nothing appended. */
static void sweep_produce_invalid_acks(sweep_t *s)
{
    int16_t err, ignored;
    create_topic(s, 0, "sweep-acks", &ignored);
    produce_acks(s, 9, "sweep-acks", (gr_uuid_t){0}, 2, &err);
    int64_t next = produce(s, 9, "sweep-acks");
    check(s, err == GR_KERR_INVALID_REQUIRED_ACKS && next == 0,
          "Produce with acks=2 gets INVALID_REQUIRED_ACKS (%d) and appends nothing", err);
}

static void sweep_produce(sweep_t *s)
{
    for (int16_t v = 3; v <= GR_PRODUCE_REQUEST_MAX_VERSION; v++) {
        char name[TOPIC_NAME_MAX];
        int16_t err;
        topic_name(name, "produce", v);
        gr_uuid_t id = create_topic(s, 7, name, &err);
        int64_t first = produce_id(s, v, name, id), second = produce_id(s, v, name, id);
        check(s, first == 0 && second == SWEEP_RECORDS,
              "Produce v%d appends at offsets %lld and %lld%s", v, (long long)first,
              (long long)second, v >= 13 ? " (by topic id)" : "");
    }
}

static void sweep_fetch(sweep_t *s)
{
    for (int16_t v = 4; v <= GR_FETCH_REQUEST_MAX_VERSION; v++) {
        char name[TOPIC_NAME_MAX];
        int16_t err;
        topic_name(name, "fetch", v);
        gr_uuid_t id = create_topic(s, 7, name, &err);
        produce(s, 9, name);
        gr_fetch_request_t req;
        gr_fetch_request_init(&req);
        gr_fetch_request_fetch_topic_t t;
        gr_fetch_request_fetch_topic_init(&t);
        gr_fetch_request_fetch_partition_t p;
        gr_fetch_request_fetch_partition_init(&p);
        p.partition = 0;
        p.fetch_offset = 0;
        p.partition_max_bytes = 1 << 20;
        t.topic = gr_str(name);
        t.topic_id = id;
        t.partitions = &p;
        t.partitions_count = 1;
        req.replica_id = -1;
        req.max_wait_ms = 100;
        req.min_bytes = 1;
        req.max_bytes = 1 << 20;
        req.session_epoch = -1;
        req.topics = &t;
        req.topics_count = 1;
        gr_fetch_response_t resp;
        bool ok = call(s, GR_API_FETCH, v, &req, &resp) == 0 && resp.responses_count == 1 &&
                  resp.responses[0].partitions_count == 1;
        const gr_fetch_response_partition_data_t *pd = ok ? &resp.responses[0].partitions[0] : NULL;
        gr_batch_header_t h;
        ok = ok && pd->error_code == 0 && pd->high_watermark == SWEEP_RECORDS &&
             pd->records.len > 0 &&
             gr_batch_header_parse(pd->records.ptr, (size_t)pd->records.len, &h) == 0 &&
             h.base_offset == 0 && h.records_count == SWEEP_RECORDS &&
             gr_batch_validate(pd->records.ptr, (size_t)gr_batch_size(&h)) == GR_KERR_NONE &&
             (v < 5 || pd->log_start_offset == 0) &&
             (v < 13 || memcmp(resp.responses[0].topic_id.b, id.b, sizeof id.b) == 0);
        check(s, ok, "Fetch v%d returns the %d records of %s%s", v, SWEEP_RECORDS, name,
              v >= 13 ? " by topic id" : "");
        /* read_committed: an empty aborted-transactions list, LSO = HW (null when uncommitted) */
        bool uncommitted_null = ok && pd->aborted_transactions_null;
        req.isolation_level = 1;
        ok = call(s, GR_API_FETCH, v, &req, &resp) == 0 && resp.responses_count == 1 &&
             resp.responses[0].partitions_count == 1;
        pd = ok ? &resp.responses[0].partitions[0] : NULL;
        check(s,
              ok && uncommitted_null && pd->error_code == 0 &&
                  pd->aborted_transactions_count == 0 &&
                  pd->last_stable_offset == pd->high_watermark && pd->records.len > 0,
              "Fetch v%d read_committed: empty aborted transactions, LSO = HW", v);
    }
}

/* Fetch sessions (KIP-227): -1 is sessionless and closes the session named;
 * 0 opens a session, whose next epoch is 1 and only 1; an unknown id is
 * FETCH_SESSION_ID_NOT_FOUND. Session errors carry session id 0. */
static bool fetch_session_call(sweep_t *s, int32_t id, int32_t epoch, gr_fetch_response_t *resp)
{
    gr_fetch_request_t req;
    gr_fetch_request_init(&req);
    req.replica_id = -1;
    req.max_wait_ms = 0;
    req.session_id = id;
    req.session_epoch = epoch;
    return call(s, GR_API_FETCH, 7, &req, resp) == 0;
}

static void sweep_fetch_sessions(sweep_t *s)
{
    gr_fetch_response_t resp;
    bool ok = fetch_session_call(s, 123, -1, &resp) && resp.error_code == 0 && resp.session_id == 0;
    check(s, ok, "Fetch v7 with session epoch -1 answers sessionless");
    ok = fetch_session_call(s, 123, 5, &resp) &&
         resp.error_code == GR_KERR_FETCH_SESSION_ID_NOT_FOUND && resp.session_id == 0;
    check(s, ok, "Fetch v7 naming an unknown session answers FETCH_SESSION_ID_NOT_FOUND");
    ok = fetch_session_call(s, 0, 0, &resp) && resp.error_code == 0 && resp.session_id != 0;
    int32_t id = ok ? resp.session_id : 0;
    check(s, ok, "Fetch v7 with session epoch 0 opens a session");
    ok = fetch_session_call(s, id, 2, &resp) &&
         resp.error_code == GR_KERR_INVALID_FETCH_SESSION_EPOCH && resp.session_id == 0;
    check(s, ok, "Fetch v7 with the wrong epoch answers INVALID_FETCH_SESSION_EPOCH");
    /* The session holds no partitions: its next epoch leaves it empty, and Kafka then
     * closes it and answers sessionless. */
    ok = fetch_session_call(s, id, 1, &resp) && resp.error_code == 0 && resp.session_id == 0 &&
         fetch_session_call(s, id, 2, &resp) &&
         resp.error_code == GR_KERR_FETCH_SESSION_ID_NOT_FOUND;
    check(s, ok, "Fetch v7 with the next epoch of an empty session is served and closes it");
    ok = fetch_session_call(s, 0, 0, &resp) && resp.error_code == 0 && resp.session_id != 0;
    id = ok ? resp.session_id : 0;
    ok = ok && fetch_session_call(s, id, -1, &resp) && resp.error_code == 0 &&
         resp.session_id == 0 && fetch_session_call(s, id, 1, &resp) &&
         resp.error_code == GR_KERR_FETCH_SESSION_ID_NOT_FOUND;
    check(s, ok, "Fetch v7 with session epoch -1 closes the session");
}

static void sweep_list_offsets(sweep_t *s)
{
    for (int16_t v = 0; v <= GR_LIST_OFFSETS_REQUEST_MAX_VERSION; v++) {
        char name[TOPIC_NAME_MAX];
        int16_t err;
        topic_name(name, "listoffsets", v);
        create_topic(s, 0, name, &err);
        produce(s, 9, name);
        int64_t got[2] = {-100, -100};
        const int64_t times[2] = {-1, -2};
        for (int k = 0; k < 2; k++) {
            gr_list_offsets_request_t req;
            gr_list_offsets_request_init(&req);
            gr_list_offsets_request_list_offsets_topic_t t;
            gr_list_offsets_request_list_offsets_topic_init(&t);
            gr_list_offsets_request_list_offsets_partition_t p;
            gr_list_offsets_request_list_offsets_partition_init(&p);
            p.partition_index = 0;
            p.timestamp = times[k];
            p.max_num_offsets = 1;
            t.name = gr_str(name);
            t.partitions = &p;
            t.partitions_count = 1;
            req.replica_id = -1;
            req.topics = &t;
            req.topics_count = 1;
            gr_list_offsets_response_t resp;
            if (call(s, GR_API_LIST_OFFSETS, v, &req, &resp) == 0 && resp.topics_count == 1 &&
                resp.topics[0].partitions_count == 1 &&
                resp.topics[0].partitions[0].error_code == 0) {
                const gr_list_offsets_response_list_offsets_partition_response_t *pr =
                    &resp.topics[0].partitions[0];
                got[k] = v == 0
                             ? (pr->old_style_offsets_count == 1 ? pr->old_style_offsets[0] : -100)
                             : pr->offset;
            }
        }
        check(s, got[0] == SWEEP_RECORDS && got[1] == 0,
              "ListOffsets v%d: latest %lld, earliest %lld", v, (long long)got[0],
              (long long)got[1]);
    }
}

static void sweep_offset_for_leader_epoch(sweep_t *s)
{
    for (int16_t v = 0; v <= GR_OFFSET_FOR_LEADER_EPOCH_REQUEST_MAX_VERSION; v++) {
        char name[TOPIC_NAME_MAX];
        int16_t err;
        topic_name(name, "epoch", v);
        create_topic(s, 0, name, &err);
        produce(s, 9, name);
        gr_offset_for_leader_epoch_request_t req;
        gr_offset_for_leader_epoch_request_init(&req);
        gr_offset_for_leader_epoch_request_offset_for_leader_topic_t t;
        gr_offset_for_leader_epoch_request_offset_for_leader_topic_init(&t);
        gr_offset_for_leader_epoch_request_offset_for_leader_partition_t p;
        gr_offset_for_leader_epoch_request_offset_for_leader_partition_init(&p);
        p.partition = 0;
        p.current_leader_epoch = 0;
        p.leader_epoch = 0;
        t.topic = gr_str(name);
        t.partitions = &p;
        t.partitions_count = 1;
        req.replica_id = -1;
        req.topics = &t;
        req.topics_count = 1;
        gr_offset_for_leader_epoch_response_t resp;
        bool ok = call(s, GR_API_OFFSET_FOR_LEADER_EPOCH, v, &req, &resp) == 0 &&
                  resp.topics_count == 1 && resp.topics[0].partitions_count == 1 &&
                  resp.topics[0].partitions[0].error_code == 0 &&
                  resp.topics[0].partitions[0].end_offset == SWEEP_RECORDS &&
                  (v < 1 || resp.topics[0].partitions[0].leader_epoch == 0);
        check(s, ok, "OffsetForLeaderEpoch v%d: epoch 0 ends at the log end", v);
    }
}

static void sweep_delete_topics(sweep_t *s)
{
    for (int16_t v = 0; v <= GR_DELETE_TOPICS_REQUEST_MAX_VERSION; v++) {
        char name[TOPIC_NAME_MAX];
        int16_t err;
        topic_name(name, "delete", v);
        gr_uuid_t id = create_topic(s, 7, name, &err);
        gr_delete_topics_request_t req;
        gr_delete_topics_request_init(&req);
        gr_str_t names[1] = {gr_str(name)};
        gr_delete_topics_request_delete_topic_state_t state;
        gr_delete_topics_request_delete_topic_state_init(&state);
        state.name.len = GR_NULL_LEN;
        state.topic_id = id;
        if (v >= 6) {
            req.topics = &state;
            req.topics_count = 1;
        } else {
            req.topic_names = names;
            req.topic_names_count = 1;
        }
        req.timeout_ms = 10000;
        gr_delete_topics_response_t resp;
        bool ok = call(s, GR_API_DELETE_TOPICS, v, &req, &resp) == 0 && resp.responses_count == 1 &&
                  resp.responses[0].error_code == 0;
        create_topic(s, 0, name, &err);
        check(s, ok && err == 0, "DeleteTopics v%d deletes %s%s (and it can be created again)", v,
              name, v >= 6 ? " by id" : "");
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: api_version_sweep HOST:PORT\n");
        return 2;
    }
    sweep_t s = {.sock = connect_to(argv[1])};
    if (s.sock < 0) {
        fprintf(stderr, "cannot connect to %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    gr_arena_init(&s.arena);
    sweep_api_versions(&s);
    sweep_api_versions_invalid_software(&s);
    sweep_create_topics(&s);
    sweep_metadata(&s);
    sweep_produce(&s);
    sweep_produce_invalid_acks(&s);
    sweep_fetch(&s);
    sweep_fetch_sessions(&s);
    sweep_list_offsets(&s);
    sweep_offset_for_leader_epoch(&s);
    sweep_delete_topics(&s);
    printf("%d checks, %d failed\n", s.checks, s.failures);
    gr_arena_fini(&s.arena);
    close(s.sock);
    return s.failures ? 1 : 0;
}
