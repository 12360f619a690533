/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fetcher's Fetch (v12, replica_id = this broker): the request for its
 * FETCH partitions, full or incremental in the leader's fetch session, and
 * the response's batches appended as they came. See fetcher.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/fetch.h"
#include "net/peer.h"
#include "partition/partition.h"
#include "protocol/records.h"
#include "replica/fetcher_int.h"
#include "replica/replication.h"

#define FOLLOWER_FETCH_VERSION 12 /* topics by name, flexible, last fetched epoch */

/* The arrays a request points into, freed once it is sent. */
typedef struct fetch_lists {
    gr_fetch_request_fetch_partition_t *parts;
    gr_fetch_request_forgotten_topic_t *forgotten;
    int32_t *forgotten_parts;
} fetch_lists_t;

static void lists_free(fetch_lists_t *l)
{
    free(l->parts);
    free(l->forgotten);
    free(l->forgotten_parts);
}

/* What this log asks of the leader for part now. */
static void part_request(const gr_config_t *cfg, const fetch_part_t *part, const gr_partition_t *p,
                         gr_fetch_request_fetch_partition_t *fp)
{
    gr_fetch_request_fetch_partition_init(fp);
    fp->partition = part->index;
    fp->current_leader_epoch = part->leader_epoch;
    fp->fetch_offset = gr_log_end_offset(p->log);
    fp->last_fetched_epoch = gr_log_latest_epoch(p->log);
    fp->log_start_offset = gr_log_start_offset(p->log);
    fp->partition_max_bytes = cfg->replica_fetch_max_bytes;
}

/* Whether the leader's session already has fp as it is (nothing to send). */
static bool session_has(const fetch_part_t *part, const gr_fetch_request_fetch_partition_t *fp)
{
    return part->in_session && part->sent_leader_epoch == fp->current_leader_epoch &&
           part->sent_fetch_offset == fp->fetch_offset &&
           part->sent_last_fetched_epoch == fp->last_fetched_epoch &&
           part->sent_log_start_offset == fp->log_start_offset &&
           part->sent_max_bytes == fp->partition_max_bytes;
}

static void session_put(fetch_part_t *part, const gr_fetch_request_fetch_partition_t *fp)
{
    part->in_session = true;
    part->sent_leader_epoch = fp->current_leader_epoch;
    part->sent_fetch_offset = fp->fetch_offset;
    part->sent_last_fetched_epoch = fp->last_fetched_epoch;
    part->sent_log_start_offset = fp->log_start_offset;
    part->sent_max_bytes = fp->partition_max_bytes;
}

static void forget(gr_fetch_request_t *req, fetch_lists_t *l, int32_t *n, const fetch_part_t *part)
{
    gr_fetch_request_forgotten_topic_t *t =
        req->forgotten_topics_data_count > 0
            ? &req->forgotten_topics_data[req->forgotten_topics_data_count - 1]
            : NULL;
    if (!t || fetcher_new_topic(part, t->topic)) {
        t = &req->forgotten_topics_data[req->forgotten_topics_data_count++];
        gr_fetch_request_forgotten_topic_init(t);
        t->topic = gr_str(part->topic);
        t->topic_id = part->topic_id;
        t->partitions = &l->forgotten_parts[*n];
    }
    l->forgotten_parts[(*n)++] = part->index;
    t->partitions_count++;
}

/* f's departed partitions, forgotten unless back in f and in this request. */
static void forget_departed(gr_fetcher_t *f, gr_fetch_request_t *req, fetch_lists_t *l, int32_t *n)
{
    for (int32_t i = 0; i < f->departed_count; i++) {
        const fetch_part_t *d = &f->departed[i];
        const fetch_part_t *back = fetcher_part_find(f, d->topic, strlen(d->topic), d->index);
        if (!back || !back->in_request)
            forget(req, l, n, d);
    }
    f->departed_count = 0;
}

/*
 * The Fetch for f's due partitions: all of them in a full fetch; in an
 * incremental one those the session lacks or has otherwise, and as
 * forgotten the session's partitions no longer due or gone from f.
 * Returns how many partitions the leader will read (0: nothing to fetch)
 * or -ENOMEM.
 */
static int32_t build(gr_fetcher_t *f, int64_t now, gr_fetch_request_t *req, fetch_lists_t *l)
{
    const gr_config_t *cfg = &f->b->config;
    bool full = f->session_epoch == GR_FETCH_SESSION_EPOCH_INITIAL;
    req->topics = calloc((size_t)f->count, sizeof *req->topics);
    size_t forgettable = (size_t)f->count + (size_t)f->departed_count;
    req->forgotten_topics_data = calloc(forgettable, sizeof *req->forgotten_topics_data);
    l->parts = calloc((size_t)f->count, sizeof *l->parts);
    l->forgotten_parts = calloc(forgettable, sizeof *l->forgotten_parts);
    l->forgotten = req->forgotten_topics_data;
    if (!req->topics || !l->parts || !l->forgotten || !l->forgotten_parts)
        return -ENOMEM;
    int32_t n = 0, due = 0, forgotten = 0;
    for (int32_t i = 0; i < f->count; i++) {
        fetch_part_t *part = &f->parts[i];
        gr_partition_t *p = fetcher_part_due(f, part, FETCH_PART_FETCH, now);
        if (!p) {
            if (!full && part->in_session)
                forget(req, l, &forgotten, part);
            part->in_session = false;
            continue;
        }
        due++;
        part->in_request = true;
        gr_fetch_request_fetch_partition_t *fp = &l->parts[n];
        part_request(cfg, part, p, fp);
        if (!full && session_has(part, fp))
            continue; /* the leader reads it from its session */
        session_put(part, fp);
        gr_fetch_request_fetch_topic_t *t =
            req->topics_count > 0 ? &req->topics[req->topics_count - 1] : NULL;
        if (!t || fetcher_new_topic(part, t->topic)) {
            t = &req->topics[req->topics_count++];
            gr_fetch_request_fetch_topic_init(t);
            t->topic = gr_str(part->topic);
            t->topic_id = part->topic_id;
            t->partitions = fp;
        }
        t->partitions_count++;
        n++;
    }
    if (full && due > 0)
        gr_logf(&f->b->log, GR_LOG_DEBUG, "replica",
                "full fetch from broker %d: %d partitions, a new fetch session", f->source, due);
    if (!full)
        forget_departed(f, req, l, &forgotten);
    f->departed_count = 0;
    if (due == 0 && forgotten > 0)
        fetcher_session_reset(f); /* unsent: the next Fetch starts a new session */
    req->replica_id = cfg->broker_id;
    req->max_wait_ms = cfg->replica_fetch_wait_max_ms;
    req->min_bytes = cfg->replica_fetch_min_bytes;
    req->max_bytes = cfg->replica_fetch_response_max_bytes;
    req->session_id = f->session_id;
    req->session_epoch = f->session_epoch;
    return due;
}

/* Whole batches of data at or after from: their byte count (a partial last one is left out). */
static size_t whole_batches(const uint8_t *data, size_t len, int64_t from, size_t *skip)
{
    size_t pos = 0;
    *skip = 0;
    while (pos < len) {
        gr_batch_header_t h;
        if (gr_batch_header_parse(data + pos, len - pos, &h) != 0)
            break;
        size_t size = (size_t)gr_batch_size(&h);
        if (size > len - pos)
            break;
        if (h.base_offset + h.last_offset_delta < from)
            *skip = pos + size; /* already here: only at the front */
        pos += size;
    }
    return pos;
}

static int append(gr_fetcher_t *f, gr_partition_t *p, const gr_records_t *records)
{
    int64_t leo = gr_log_end_offset(p->log);
    size_t skip = 0;
    size_t end = whole_batches(records->ptr, (size_t)records->len, leo, &skip);
    if (end <= skip)
        return 0;
    size_t len = end - skip;
    if (len > f->buf_cap) {
        uint8_t *buf = realloc(f->buf, len);
        if (!buf)
            return -ENOMEM;
        f->buf = buf;
        f->buf_cap = len;
    }
    memcpy(f->buf, records->ptr + skip, len);
    gr_batch_header_t first;
    (void)gr_batch_header_parse(f->buf, len, &first);
    if (first.base_offset != leo)
        return -ERANGE; /* the leader's batches do not start where ours end: diverged */
    gr_log_append_info_t info;
    int rc = gr_log_append_as_follower(p->log, f->buf, len, gr_broker_now_ms(f->b), &info);
    if (rc == 0 || info.records > 0)
        f->b->replication->follower_fetch_bytes += len;
    return rc;
}

/* The leader's watermark and log start, bounded by what this log has. */
static void follow_offsets(gr_partition_t *p, const gr_fetch_response_partition_data_t *d)
{
    int64_t leo = gr_log_end_offset(p->log);
    int64_t hw = d->high_watermark < leo ? d->high_watermark : leo;
    if (hw > gr_log_high_watermark(p->log))
        gr_log_set_high_watermark(p->log, hw);
    int64_t start = d->log_start_offset;
    if (start > gr_log_start_offset(p->log) && start <= gr_log_high_watermark(p->log))
        (void)gr_log_delete_records_before(p->log, start, NULL);
}

static void out_of_range(gr_fetcher_t *f, fetch_part_t *part, gr_partition_t *p,
                         const gr_fetch_response_partition_data_t *d)
{
    if (d->log_start_offset > gr_log_end_offset(p->log)) {
        gr_logf(&f->b->log, GR_LOG_WARN, "replica",
                "%s-%d: leader %d starts at %" PRId64 ", past this log's end: starting over",
                part->topic, part->index, f->source, d->log_start_offset);
        if (gr_log_reset_to(p->log, d->log_start_offset))
            fetcher_part_back_off(f, part);
        return;
    }
    part->state = FETCH_PART_TRUNCATE;
}

static void apply_partition(gr_fetcher_t *f, fetch_part_t *part, gr_partition_t *p,
                            const gr_fetch_response_partition_data_t *d)
{
    if (d->error_code == GR_KERR_OFFSET_OUT_OF_RANGE)
        return out_of_range(f, part, p, d);
    if (d->error_code) {
        gr_logf(&f->b->log, GR_LOG_DEBUG, "replica", "%s-%d from broker %d: %s", part->topic,
                part->index, f->source, gr_kerr_name((gr_kerr_t)d->error_code));
        return fetcher_part_back_off(f, part);
    }
    int rc = d->records.len > 0 ? append(f, p, &d->records) : 0;
    if (rc == -ERANGE) {
        part->state = FETCH_PART_TRUNCATE;
        return;
    }
    if (rc) {
        gr_logf(&f->b->log, GR_LOG_ERROR, "replica", "appending to %s-%d: %s", part->topic,
                part->index, strerror(-rc));
        return fetcher_part_back_off(f, part);
    }
    follow_offsets(p, d);
    int64_t behind = d->high_watermark - gr_log_end_offset(p->log);
    part->lag = behind > 0 ? behind : 0;
    gr_partition_wake(p);
}

static bool session_error(int16_t err)
{
    return err == GR_KERR_FETCH_SESSION_ID_NOT_FOUND ||
           err == GR_KERR_INVALID_FETCH_SESSION_EPOCH ||
           err == GR_KERR_FETCH_SESSION_TOPIC_ID_ERROR;
}

/* The leader answered the session's request: its next epoch, or a new start. */
static void session_answered(gr_fetcher_t *f, int32_t session_id)
{
    if (f->session_epoch == GR_FETCH_SESSION_EPOCH_INITIAL) {
        /* 0: the leader kept no session; the next Fetch is full again. */
        f->session_id = session_id;
        f->session_epoch = session_id ? 1 : GR_FETCH_SESSION_EPOCH_INITIAL;
    } else if (session_id != f->session_id) {
        fetcher_session_reset(f);
    } else {
        f->session_epoch = f->session_epoch == INT32_MAX ? 1 : f->session_epoch + 1;
    }
}

static void on_fetch(void *opaque, int rc, const void *response)
{
    gr_fetcher_t *f = opaque;
    if (f->closing)
        return;
    const gr_fetch_response_t *resp = rc == 0 ? response : NULL;
    if (resp && resp->error_code) {
        gr_logf(&f->b->log, GR_LOG_DEBUG, "replica", "fetch session %d with broker %d: %s",
                f->session_id, f->source, gr_kerr_name((gr_kerr_t)resp->error_code));
        /* A session error is answered by starting over, at once. */
        rc = session_error(resp->error_code) ? 0 : -EPROTO;
        fetcher_session_reset(f);
        resp = NULL;
    } else if (resp && f->sent_resets != f->session_resets) {
        /* Reset while this Fetch was out (a partition left): the answer's
         * session lacks that change, so the next Fetch starts over, closing it. */
        f->session_id = resp->session_id;
    } else if (resp) {
        session_answered(f, resp->session_id);
    } else {
        fetcher_session_reset(f);
    }
    for (int32_t t = 0; resp && t < resp->responses_count; t++) {
        const gr_fetch_response_fetchable_topic_response_t *tr = &resp->responses[t];
        for (int32_t i = 0; i < tr->partitions_count; i++) {
            const gr_fetch_response_partition_data_t *d = &tr->partitions[i];
            fetch_part_t *part =
                fetcher_part_find(f, tr->topic.ptr, (size_t)tr->topic.len, d->partition_index);
            gr_partition_t *p = part && part->in_request ? fetcher_partition(f, part) : NULL;
            if (p && part->state == FETCH_PART_FETCH)
                apply_partition(f, part, p, d);
        }
    }
    fetcher_request_done(f, rc);
}

int fetcher_send_fetch(gr_fetcher_t *f, int64_t now)
{
    gr_fetch_request_t req;
    gr_fetch_request_init(&req);
    fetch_lists_t lists = {0};
    int32_t n = build(f, now, &req, &lists);
    int rc = n < 0 ? n : 1;
    f->sent_resets = f->session_resets;
    if (n > 0)
        rc = gr_peer_send(f->peer, GR_API_FETCH, FOLLOWER_FETCH_VERSION, &req, on_fetch, f);
    free(req.topics);
    lists_free(&lists);
    if (rc < 0) {
        for (int32_t i = 0; i < f->count; i++)
            f->parts[i].in_request = false;
        fetcher_session_reset(f);
    }
    return rc;
}
