/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fetcher's Fetch (v12, replica_id = this broker): the request for its
 * FETCH partitions, and the response's batches appended as they came. See
 * fetcher.h.
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

static int32_t build(gr_fetcher_t *f, int64_t now, gr_fetch_request_t *req)
{
    const gr_config_t *cfg = &f->b->config;
    req->topics = calloc((size_t)f->count, sizeof *req->topics);
    gr_fetch_request_fetch_partition_t *parts = calloc((size_t)f->count, sizeof *parts);
    if (!req->topics || !parts) {
        free(parts);
        return -ENOMEM;
    }
    int32_t n = 0;
    for (int32_t i = 0; i < f->count; i++) {
        fetch_part_t *part = &f->parts[i];
        gr_partition_t *p = fetcher_part_due(f, part, FETCH_PART_FETCH, now);
        if (!p)
            continue;
        gr_fetch_request_fetch_topic_t *t =
            req->topics_count > 0 ? &req->topics[req->topics_count - 1] : NULL;
        if (!t || fetcher_new_topic(part, t->topic)) {
            t = &req->topics[req->topics_count++];
            gr_fetch_request_fetch_topic_init(t);
            t->topic = gr_str(part->topic);
            t->topic_id = part->topic_id;
            t->partitions = &parts[n];
        }
        gr_fetch_request_fetch_partition_t *fp = &parts[n];
        gr_fetch_request_fetch_partition_init(fp);
        fp->partition = part->index;
        fp->current_leader_epoch = part->leader_epoch;
        fp->fetch_offset = gr_log_end_offset(p->log);
        fp->last_fetched_epoch = gr_log_latest_epoch(p->log);
        fp->log_start_offset = gr_log_start_offset(p->log);
        fp->partition_max_bytes = cfg->replica_fetch_max_bytes;
        t->partitions_count++;
        part->in_request = true;
        n++;
    }
    if (n == 0)
        free(parts);
    req->replica_id = cfg->broker_id;
    req->max_wait_ms = cfg->replica_fetch_wait_max_ms;
    req->min_bytes = cfg->replica_fetch_min_bytes;
    req->max_bytes = cfg->replica_fetch_response_max_bytes;
    req->session_id = 0;
    req->session_epoch = GR_FETCH_SESSION_EPOCH_FINAL; /* sessionless */
    return n;
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

static void on_fetch(void *opaque, int rc, const void *response)
{
    gr_fetcher_t *f = opaque;
    if (f->closing)
        return;
    const gr_fetch_response_t *resp = rc == 0 ? response : NULL;
    if (resp && resp->error_code)
        rc = -EPROTO;
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
    int32_t n = build(f, now, &req);
    int rc = n < 0 ? n : 1;
    if (n > 0)
        rc = gr_peer_send(f->peer, GR_API_FETCH, FOLLOWER_FETCH_VERSION, &req, on_fetch, f);
    if (n > 0)
        free(req.topics[0].partitions);
    free(req.topics);
    if (rc < 0)
        for (int32_t i = 0; i < f->count; i++)
            f->parts[i].in_request = false;
    return rc;
}
