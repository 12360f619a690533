/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fetcher's truncation step: OffsetForLeaderEpoch (v3, replica_id = this
 * broker) for every partition just followed, and the truncation its answer
 * decides (partition/isr.h). See fetcher.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/offset_for_leader_epoch.h"
#include "net/peer.h"
#include "partition/isr.h"
#include "partition/partition.h"
#include "replica/fetcher_int.h"

#define EPOCHS_VERSION 3 /* the first with replica_id and the current leader epoch */

/* A log that never recorded an epoch has nothing to compare: back to its high watermark. */
static void truncate_without_epoch(gr_fetcher_t *f, fetch_part_t *part, gr_partition_t *p)
{
    int rc = gr_log_truncate_to(p->log, gr_log_high_watermark(p->log));
    if (rc) {
        gr_logf(&f->b->log, GR_LOG_ERROR, "replica", "truncating %s-%d: %s", part->topic,
                part->index, strerror(-rc));
        fetcher_part_back_off(f, part);
        return;
    }
    part->state = FETCH_PART_FETCH;
}

/* The parts to ask about, grouped by topic into req (arrays malloc'ed). */
static int32_t build(gr_fetcher_t *f, int64_t now, gr_offset_for_leader_epoch_request_t *req)
{
    req->topics = calloc((size_t)f->count, sizeof *req->topics);
    gr_offset_for_leader_epoch_request_offset_for_leader_partition_t *parts =
        calloc((size_t)f->count, sizeof *parts);
    if (!req->topics || !parts) {
        free(parts);
        return -ENOMEM;
    }
    int32_t n = 0;
    for (int32_t i = 0; i < f->count; i++) {
        fetch_part_t *part = &f->parts[i];
        gr_partition_t *p = fetcher_part_due(f, part, FETCH_PART_TRUNCATE, now);
        if (!p)
            continue;
        int32_t epoch = gr_log_latest_epoch(p->log);
        if (epoch < 0) {
            truncate_without_epoch(f, part, p);
            continue;
        }
        gr_offset_for_leader_epoch_request_offset_for_leader_topic_t *t =
            req->topics_count > 0 ? &req->topics[req->topics_count - 1] : NULL;
        if (!t || fetcher_new_topic(part, t->topic)) {
            t = &req->topics[req->topics_count++];
            t->topic = gr_str(part->topic);
            t->partitions = &parts[n];
        }
        parts[n].partition = part->index;
        parts[n].current_leader_epoch = part->leader_epoch;
        parts[n].leader_epoch = epoch;
        t->partitions_count++;
        part->in_request = true;
        n++;
    }
    if (n == 0)
        free(parts);
    return n;
}

static void apply_answer(gr_fetcher_t *f, fetch_part_t *part, gr_partition_t *p,
                         const gr_offset_for_leader_epoch_response_epoch_end_offset_t *a)
{
    if (a->error_code) {
        gr_logf(&f->b->log, GR_LOG_DEBUG, "replica", "%s-%d: epoch query: %s", part->topic,
                part->index, gr_kerr_name((gr_kerr_t)a->error_code));
        fetcher_part_back_off(f, part);
        return;
    }
    int32_t local_epoch = GR_LOG_NO_EPOCH;
    int64_t local_end = -1;
    gr_log_end_offset_for_epoch(p->log, a->leader_epoch, &local_epoch, &local_end);
    int64_t leo = gr_log_end_offset(p->log);
    gr_truncation_t t = gr_truncation_decide(a->leader_epoch, a->end_offset, local_epoch, local_end,
                                             leo, gr_log_high_watermark(p->log));
    if (t.offset < leo) {
        gr_logf(&f->b->log, GR_LOG_WARN, "replica",
                "%s-%d: truncating from %" PRId64 " to %" PRId64
                " (leader %d has epoch %d to %" PRId64 ")",
                part->topic, part->index, leo, t.offset, f->source, a->leader_epoch, a->end_offset);
        int rc = gr_log_truncate_to(p->log, t.offset);
        if (rc) {
            gr_logf(&f->b->log, GR_LOG_ERROR, "replica", "truncating %s-%d: %s", part->topic,
                    part->index, strerror(-rc));
            fetcher_part_back_off(f, part);
            return;
        }
    }
    if (t.done)
        part->state = FETCH_PART_FETCH;
}

static void on_epochs(void *opaque, int rc, const void *response)
{
    gr_fetcher_t *f = opaque;
    if (f->closing)
        return;
    const gr_offset_for_leader_epoch_response_t *resp = rc == 0 ? response : NULL;
    for (int32_t t = 0; resp && t < resp->topics_count; t++) {
        const gr_offset_for_leader_epoch_response_offset_for_leader_topic_result_t *tr =
            &resp->topics[t];
        for (int32_t i = 0; i < tr->partitions_count; i++) {
            fetch_part_t *part = fetcher_part_find(f, tr->topic.ptr, (size_t)tr->topic.len,
                                                   tr->partitions[i].partition);
            gr_partition_t *p = part && part->in_request ? fetcher_partition(f, part) : NULL;
            if (p && part->state == FETCH_PART_TRUNCATE)
                apply_answer(f, part, p, &tr->partitions[i]);
        }
    }
    fetcher_request_done(f, rc);
}

int fetcher_send_epochs(gr_fetcher_t *f, int64_t now)
{
    gr_offset_for_leader_epoch_request_t req;
    gr_offset_for_leader_epoch_request_init(&req);
    req.replica_id = f->b->config.broker_id;
    int32_t n = build(f, now, &req);
    int rc = n < 0 ? n : 1;
    if (n > 0)
        rc = gr_peer_send(f->peer, GR_API_OFFSET_FOR_LEADER_EPOCH, EPOCHS_VERSION, &req, on_epochs,
                          f);
    if (n > 0)
        free(req.topics[0].partitions);
    free(req.topics);
    if (rc < 0)
        for (int32_t i = 0; i < f->count; i++)
            f->parts[i].in_request = false;
    return rc;
}
