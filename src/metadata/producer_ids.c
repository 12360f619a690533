/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Producer id blocks and producer expiry; the design is in
 * producer_ids.h.
 *
 * Claim state machine (one claim at a time, ids->claiming):
 *   idle --request with no id left--> get /latest_producer_id_block
 *   get NONODE                  --> create the first block [0, size-1]
 *   get OK                      --> set the block after it (version-checked)
 *   create/set OK               --> block installed, waiters served, idle
 *   NODEEXISTS / BADVERSION     --> get again (another claimer won; bounded)
 *   anything else               --> waiters fail (retriable), idle
 */
#include "metadata/producer_ids.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "log/log.h"
#include "metadata/store.h"
#include "metadata/topics.h"
#include "metadata/zk_json.h"

#define CLAIM_RETRIES_MAX 10
#define BLOCK_FIELD_MAX   24 /* decimal int64 */
#define MS_PER_SEC        1000.0

void gr_producer_ids_init(gr_producer_ids_t *ids)
{
    memset(ids, 0, sizeof *ids);
    ids->next = 0;
    ids->end = -1;
}

/* ---- blocks ------------------------------------------------------------ */

static void waiters_serve(gr_broker_t *b, gr_kerr_t err)
{
    gr_producer_ids_t *ids = b->producer_ids;
    while (ids->head && (err || ids->next <= ids->end)) {
        gr_producer_id_wait_t *w = ids->head;
        ids->head = w->next;
        if (ids->head)
            ids->head->prev = NULL;
        else
            ids->tail = NULL;
        w->next = w->prev = NULL;
        int64_t id = err ? -1 : ids->next++;
        w->done(w, err, id);
    }
}

static void claim_start(gr_broker_t *b);

static void claim_done(gr_broker_t *b, int rc, int64_t start, int64_t end)
{
    gr_producer_ids_t *ids = b->producer_ids;
    if ((rc == GR_STORE_NODEEXISTS || rc == GR_STORE_BADVERSION) &&
        ++ids->claim_retries < CLAIM_RETRIES_MAX) {
        claim_start(b);
        return;
    }
    ids->claiming = false;
    ids->claim_retries = 0;
    if (rc == GR_STORE_OK) {
        ids->next = start;
        ids->end = end;
        gr_logf(&b->log, GR_LOG_INFO, "producer", "claimed producer id block %" PRId64 "-%" PRId64,
                start, end);
        waiters_serve(b, GR_KERR_NONE);
        if (ids->head)
            claim_start(b);
        return;
    }
    if (rc != GR_STORE_CLOSING)
        gr_logf(&b->log, GR_LOG_WARN, "producer", "claiming a producer id block failed: %s",
                gr_store_rc_name(rc));
    waiters_serve(b, GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
}

/* A claim in flight: the block it writes. */
typedef struct claim {
    gr_broker_t *b;
    int64_t start, end;
} claim_t;

static void on_block_written(gr_broker_t *b, claim_t *c, int rc)
{
    b->store_pending--;
    int64_t start = c->start, end = c->end;
    free(c);
    claim_done(b, rc, start, end);
}

static void on_block_created(void *opaque, int rc, const char *path)
{
    (void)path;
    claim_t *c = opaque;
    on_block_written(c->b, c, rc);
}

static void on_block_set(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    claim_t *c = opaque;
    on_block_written(c->b, c, rc);
}

/* Kafka's block node; 0 or -errno. *out is malloc'd. */
static int block_json(const gr_broker_t *b, int64_t start, int64_t end, char **out, size_t *len)
{
    char s[BLOCK_FIELD_MAX], e[BLOCK_FIELD_MAX];
    const char *text;
    gr_zk_json_writer_t w;
    snprintf(s, sizeof s, "%" PRId64, start);
    snprintf(e, sizeof e, "%" PRId64, end);
    gr_zk_json_writer_init(&w);
    gr_zk_json_object_begin(&w);
    gr_zk_json_key(&w, "version");
    gr_zk_json_int(&w, GR_PRODUCER_ID_BLOCK_VERSION);
    gr_zk_json_key(&w, "broker");
    gr_zk_json_int(&w, b->config.broker_id);
    gr_zk_json_key(&w, "block_start");
    gr_zk_json_string(&w, s);
    gr_zk_json_key(&w, "block_end");
    gr_zk_json_string(&w, e);
    gr_zk_json_object_end(&w);
    int rc = gr_zk_json_writer_finish(&w, &text, len);
    if (rc == 0) {
        *out = strndup(text, *len);
        rc = *out ? 0 : -ENOMEM;
    }
    gr_zk_json_writer_fini(&w);
    return rc;
}

/* The block_end of a node's JSON (a decimal string, or a number), or -1 if malformed. */
static int64_t block_end_parse(const void *data, size_t len)
{
    gr_zk_json_t *root = NULL;
    int64_t end = -1;
    if (gr_zk_json_parse(data, len, &root) < 0)
        return -1;
    const gr_zk_json_t *v = gr_zk_json_find(root, "block_end");
    if (v && v->type == GR_ZK_JSON_INT) {
        end = v->integer;
    } else if (v && v->type == GR_ZK_JSON_STRING && v->string_len > 0 &&
               v->string_len < BLOCK_FIELD_MAX) {
        char *tail;
        long long n = strtoll(v->string, &tail, 10);
        end = *tail == '\0' ? (int64_t)n : -1;
    }
    gr_zk_json_free(root);
    return end;
}

/* Writes the block after end: created (no node yet) or set at version. */
static void block_write(gr_broker_t *b, int64_t prev_end, bool create, int32_t version)
{
    claim_t *c = malloc(sizeof *c);
    char *json = NULL;
    size_t len = 0;
    if (!c || prev_end > INT64_MAX - GR_PRODUCER_ID_BLOCK_SIZE) {
        free(c);
        claim_done(b, c ? GR_STORE_SYSTEMERROR : GR_STORE_NOMEM, 0, -1);
        return;
    }
    c->b = b;
    c->start = prev_end + 1;
    c->end = prev_end + GR_PRODUCER_ID_BLOCK_SIZE;
    if (block_json(b, c->start, c->end, &json, &len) < 0) {
        free(c);
        claim_done(b, GR_STORE_NOMEM, 0, -1);
        return;
    }
    int rc = create ? gr_store_create(b->store_session, GR_PRODUCER_ID_BLOCK_PATH, json, len,
                                      GR_STORE_PERSISTENT, on_block_created, c)
                    : gr_store_set(b->store_session, GR_PRODUCER_ID_BLOCK_PATH, json, len, version,
                                   on_block_set, c);
    free(json);
    if (rc != GR_STORE_OK) {
        free(c);
        claim_done(b, rc, 0, -1);
        return;
    }
    b->store_pending++;
}

static void on_block_read(void *opaque, int rc, const void *data, size_t len,
                          const gr_store_stat_t *stat)
{
    gr_broker_t *b = opaque;
    b->store_pending--;
    if (rc == GR_STORE_NONODE) {
        block_write(b, -1, true, 0);
        return;
    }
    if (rc != GR_STORE_OK) {
        claim_done(b, rc, 0, -1);
        return;
    }
    int64_t end = block_end_parse(data, len);
    if (end < 0) {
        gr_logf(&b->log, GR_LOG_ERROR, "producer", "%s holds malformed JSON",
                GR_PRODUCER_ID_BLOCK_PATH);
        claim_done(b, GR_STORE_SYSTEMERROR, 0, -1);
        return;
    }
    block_write(b, end, false, stat->version);
}

static void claim_start(gr_broker_t *b)
{
    gr_producer_ids_t *ids = b->producer_ids;
    ids->claiming = true;
    if (!b->store_session) {
        claim_done(b, GR_STORE_CLOSING, 0, -1);
        return;
    }
    int rc =
        gr_store_get(b->store_session, GR_PRODUCER_ID_BLOCK_PATH, NULL, NULL, on_block_read, b);
    if (rc != GR_STORE_OK) {
        claim_done(b, rc, 0, -1);
        return;
    }
    b->store_pending++;
}

void gr_producer_ids_request(gr_broker_t *b, gr_producer_id_wait_t *w, gr_producer_id_fn done)
{
    gr_producer_ids_t *ids = b->producer_ids;
    w->done = done;
    w->next = NULL;
    w->prev = ids->tail;
    if (ids->tail)
        ids->tail->next = w;
    else
        ids->head = w;
    ids->tail = w;
    if (ids->next <= ids->end)
        waiters_serve(b, GR_KERR_NONE);
    else if (!ids->claiming)
        claim_start(b);
}

void gr_producer_ids_cancel(gr_broker_t *b, gr_producer_id_wait_t *w)
{
    gr_producer_ids_t *ids = b->producer_ids;
    if (w->prev)
        w->prev->next = w->next;
    else if (ids->head == w)
        ids->head = w->next;
    else
        return; /* not waiting */
    if (w->next)
        w->next->prev = w->prev;
    else
        ids->tail = w->prev;
    w->next = w->prev = NULL;
}

/* ---- expiry ------------------------------------------------------------ */

static void expire_topic(gr_topic_t *topic, void *arg)
{
    gr_broker_t *b = arg;
    int64_t now = gr_broker_now_ms(b);
    for (int32_t i = 0; i < topic->partition_count; i++) {
        gr_log_t *log = topic->partitions[i].log;
        if (log)
            gr_log_expire_producers(log, now, b->config.producer_id_expiration_ms);
    }
}

static void on_expiry_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    gr_broker_t *b = t->data;
    gr_topics_foreach(b->topics, expire_topic, b);
}

void gr_producer_ids_start(gr_broker_t *b)
{
    ev_timer *t = &b->producer_ids->expiry_timer;
    double every = (double)b->config.producer_id_expiration_check_interval_ms / MS_PER_SEC;
    ev_timer_init(t, on_expiry_timer, every, every);
    t->data = b;
    ev_timer_start(b->loop, t);
    ev_unref(b->loop); /* the timer alone does not keep the loop running */
    /* Idle producers found in snapshots go now, not one interval later. */
    gr_topics_foreach(b->topics, expire_topic, b);
}

void gr_producer_ids_stop(gr_broker_t *b)
{
    ev_timer *t = &b->producer_ids->expiry_timer;
    if (ev_is_active(t)) {
        ev_ref(b->loop);
        ev_timer_stop(b->loop, t);
    }
}
