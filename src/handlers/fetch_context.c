/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One Fetch's use of the fetch session cache (handlers/fetch_context.h has
 * the rules): begin applies the request to its session and rewrites it to
 * the session's partitions; end makes a new session from a full fetch's
 * response, or keeps only what an incremental response must carry.
 *
 * Runs on: loop thread.
 */
#include "handlers/fetch_context.h"

#include <string.h>

#include "handlers/fetch_sessions.h"
#include "metadata/topics.h"

#define TOPIC_IDS_MIN_VERSION 13 /* topics named by id, not name */
#define SESSIONS_MIN_VERSION  7

static bool uses_topic_ids(const gr_request_t *req)
{
    return req->api_version >= TOPIC_IDS_MIN_VERSION;
}

static size_t str_len(gr_str_t s)
{
    return s.len > 0 ? (size_t)s.len : 0;
}

static void take_request(gr_fetch_session_partition_t *p,
                         const gr_fetch_request_fetch_partition_t *in)
{
    p->current_leader_epoch = in->current_leader_epoch;
    p->fetch_offset = in->fetch_offset;
    p->last_fetched_epoch = in->last_fetched_epoch;
    p->log_start_offset = in->log_start_offset;
    p->max_bytes = in->partition_max_bytes;
}

/*
 * Kafka's CachedPartition.maybeUpdateResponseData: whether out has news
 * for the client, remembering what it sends. An error forgets the high
 * watermark, so the partition is sent again once the error is gone.
 */
static bool take_response(gr_fetch_session_partition_t *p,
                          const gr_fetch_response_partition_data_t *out)
{
    bool news =
        out->records.len > 0 || out->preferred_read_replica >= 0 || out->diverging_epoch.epoch >= 0;
    if (p->high_watermark != out->high_watermark) {
        news = true;
        p->high_watermark = out->high_watermark;
    }
    if (p->last_stable_offset != out->last_stable_offset) {
        news = true;
        p->last_stable_offset = out->last_stable_offset;
    }
    if (p->sent_log_start_offset != out->log_start_offset) {
        news = true;
        p->sent_log_start_offset = out->log_start_offset;
    }
    if (out->error_code != GR_KERR_NONE) {
        news = true;
        p->high_watermark = -1;
    }
    return news;
}

/*
 * The name of tin's topic as the session keeps it: the request's in a name
 * session; in a topic-id session the name the id has now, if any (Kafka's
 * session remembers it, so that a partition of a topic deleted since is
 * answered UNKNOWN_TOPIC_OR_PARTITION, or INCONSISTENT_TOPIC_ID once a
 * topic of that name exists again, rather than UNKNOWN_TOPIC_ID).
 */
static const char *session_name(gr_broker_t *b, const gr_fetch_session_t *s,
                                const gr_fetch_request_fetch_topic_t *tin, size_t *len)
{
    if (!s->topic_ids) {
        *len = str_len(tin->topic);
        return tin->topic.ptr;
    }
    const gr_topic_t *topic = b->topics ? gr_topics_find_id(b->topics, tin->topic_id) : NULL;
    *len = topic ? strlen(topic->name) : 0;
    return topic ? topic->name : NULL;
}

/*
 * The request's partitions join or update s, then the forgotten ones leave
 * (Kafka's FetchSession.update, in that order).
 */
static gr_kerr_t apply_request(gr_broker_t *b, gr_fetch_session_t *s, const gr_fetch_request_t *in)
{
    for (int32_t t = 0; t < in->topics_count; t++) {
        const gr_fetch_request_fetch_topic_t *tin = &in->topics[t];
        size_t len;
        const char *name = session_name(b, s, tin, &len);
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            const gr_fetch_request_fetch_partition_t *pin = &tin->partitions[i];
            gr_fetch_session_partition_t *p =
                gr_fetch_session_upsert(s, tin->topic_id, name, len, pin->partition);
            if (!p)
                return GR_KERR_UNKNOWN_SERVER_ERROR;
            take_request(p, pin);
        }
    }
    if (gr_fetch_session_settle(s))
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (int32_t t = 0; t < in->forgotten_topics_data_count; t++) {
        const gr_fetch_request_forgotten_topic_t *f = &in->forgotten_topics_data[t];
        for (int32_t i = 0; i < f->partitions_count; i++)
            gr_fetch_session_forget(s, f->topic_id, f->topic.ptr, str_len(f->topic),
                                    f->partitions[i]);
    }
    if (gr_fetch_session_settle(s))
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    return GR_KERR_NONE;
}

/* The partition at position k of s's fetch order. */
static gr_fetch_session_partition_t *at(gr_fetch_session_t *s, int32_t k)
{
    return &s->parts[s->order[k]];
}

/*
 * Counts the topic runs of s's fetch order: a topic whose partitions are
 * apart in it is listed once per run, as Kafka's responses do.
 */
static int32_t count_topics(gr_fetch_session_t *s)
{
    int32_t n = 0;
    for (int32_t k = 0; k < s->count; k++)
        n += at(s, k)->run_start;
    return n;
}

/*
 * Rewrites in->topics to every partition of s in fetch order, names copied
 * into req's arena (s may be gone by the time a waiting fetch answers).
 */
static gr_kerr_t rewrite_request(gr_request_t *req, gr_fetch_session_t *s, gr_fetch_request_t *in)
{
    int32_t topics = count_topics(s);
    gr_fetch_request_fetch_topic_t *out = gr_request_alloc_array(req, topics, sizeof(*out));
    gr_fetch_request_fetch_partition_t *parts =
        gr_request_alloc_array(req, s->count, sizeof(*parts));
    if ((topics && !out) || (s->count && !parts))
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    int32_t t = -1;
    for (int32_t i = 0; i < s->count; i++) {
        gr_fetch_session_partition_t *p = at(s, i);
        if (p->run_start) {
            gr_fetch_request_fetch_topic_t *tout = &out[++t];
            gr_fetch_request_fetch_topic_init(tout);
            tout->topic_id = p->topic_id;
            if (p->topic) {
                size_t len = strlen(p->topic);
                char *name = gr_request_alloc(req, len + 1);
                if (!name)
                    return GR_KERR_UNKNOWN_SERVER_ERROR;
                memcpy(name, p->topic, len + 1);
                tout->topic.ptr = name;
                tout->topic.len = (int32_t)len;
            }
            tout->partitions = &parts[i];
        }
        gr_fetch_request_fetch_partition_t *pin = &parts[i];
        gr_fetch_request_fetch_partition_init(pin);
        pin->partition = p->partition;
        pin->current_leader_epoch = p->current_leader_epoch;
        pin->fetch_offset = p->fetch_offset;
        pin->last_fetched_epoch = p->last_fetched_epoch;
        pin->log_start_offset = p->log_start_offset;
        pin->partition_max_bytes = p->max_bytes;
        out[t].partitions_count++;
    }
    in->topics = out;
    in->topics_count = topics;
    return GR_KERR_NONE;
}

static gr_kerr_t begin_incremental(gr_broker_t *b, gr_request_t *req, gr_fetch_request_t *in,
                                   gr_fetch_context_t *ctx)
{
    gr_fetch_session_t *s =
        b->fetch_sessions ? gr_fetch_sessions_find(b->fetch_sessions, in->session_id) : NULL;
    if (!s)
        return GR_KERR_FETCH_SESSION_ID_NOT_FOUND;
    if (s->epoch != in->session_epoch)
        return GR_KERR_INVALID_FETCH_SESSION_EPOCH;
    if (s->topic_ids != uses_topic_ids(req))
        return GR_KERR_FETCH_SESSION_TOPIC_ID_ERROR;
    gr_kerr_t err = apply_request(b, s, in);
    if (err == GR_KERR_NONE && s->count == 0) {
        /* Kafka closes a session left empty and serves the request as it is. */
        gr_fetch_sessions_remove(b->fetch_sessions, s->id);
        return GR_KERR_NONE;
    }
    if (err == GR_KERR_NONE)
        err = rewrite_request(req, s, in);
    if (err) { /* the session no longer matches what the client thinks */
        gr_fetch_sessions_remove(b->fetch_sessions, s->id);
        return err;
    }
    s->epoch = gr_fetch_session_next_epoch(s->epoch);
    gr_fetch_sessions_touch(b->fetch_sessions, s, gr_broker_now_ms(b));
    ctx->mode = GR_FETCH_CONTEXT_INCREMENTAL;
    ctx->session_id = s->id;
    ctx->epoch = s->epoch;
    return GR_KERR_NONE;
}

gr_kerr_t gr_fetch_context_begin(gr_broker_t *b, gr_request_t *req, bool follower,
                                 gr_fetch_request_t *in, gr_fetch_context_t *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->follower = follower;
    ctx->mode = GR_FETCH_CONTEXT_SESSIONLESS;
    if (req->api_version < SESSIONS_MIN_VERSION)
        return GR_KERR_NONE;
    if (in->session_epoch != GR_FETCH_SESSION_EPOCH_INITIAL &&
        in->session_epoch != GR_FETCH_SESSION_EPOCH_FINAL)
        return begin_incremental(b, req, in, ctx);
    if (in->session_id != 0 && b->fetch_sessions)
        gr_fetch_sessions_remove(b->fetch_sessions, in->session_id);
    if (in->session_epoch == GR_FETCH_SESSION_EPOCH_INITIAL)
        ctx->mode = GR_FETCH_CONTEXT_NEW;
    return GR_KERR_NONE;
}

static int32_t count_partitions(const gr_fetch_request_t *in)
{
    int32_t n = 0;
    for (int32_t t = 0; t < in->topics_count; t++)
        n += in->topics[t].partitions_count;
    return n;
}

/* Whether resp answers every partition of in (not cut short by a lack of memory). */
static bool complete(const gr_fetch_request_t *in, const gr_fetch_response_t *resp)
{
    if (!resp->responses || resp->responses_count != in->topics_count)
        return false;
    for (int32_t t = 0; t < in->topics_count; t++)
        if (!resp->responses[t].partitions ||
            resp->responses[t].partitions_count != in->topics[t].partitions_count)
            return false;
    return true;
}

/*
 * A full fetch's new session, of its request and what its response sent;
 * none (session id 0) unless the response is whole, for a session missing
 * partitions would never send them.
 */
static void end_new(gr_broker_t *b, gr_request_t *req, const gr_fetch_request_t *in,
                    const gr_fetch_context_t *ctx, gr_fetch_response_t *resp)
{
    resp->session_id = 0;
    if (!b->fetch_sessions || !complete(in, resp))
        return;
    int64_t now = gr_broker_now_ms(b);
    gr_fetch_session_t *s = gr_fetch_sessions_create(
        b->fetch_sessions, ctx->follower, uses_topic_ids(req), count_partitions(in), now);
    if (!s)
        return;
    for (int32_t t = 0; t < in->topics_count; t++) {
        const gr_fetch_request_fetch_topic_t *tin = &in->topics[t];
        const gr_fetch_response_fetchable_topic_response_t *tout = &resp->responses[t];
        size_t len;
        const char *name = session_name(b, s, tin, &len);
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            gr_fetch_session_partition_t *p =
                gr_fetch_session_upsert(s, tin->topic_id, name, len, tin->partitions[i].partition);
            if (!p) {
                gr_fetch_sessions_remove(b->fetch_sessions, s->id);
                return;
            }
            take_request(p, &tin->partitions[i]);
            take_response(p, &tout->partitions[i]);
        }
    }
    if (gr_fetch_session_settle(s)) {
        gr_fetch_sessions_remove(b->fetch_sessions, s->id);
        return;
    }
    gr_fetch_sessions_touch(b->fetch_sessions, s, now);
    resp->session_id = s->id;
}

/*
 * Keeps, in place, only the partitions (and topics) with something to
 * say. The response follows the rewritten request, which is s's fetch
 * order as it still is (the epoch is unchanged, so no request has edited
 * s since), so its partitions are matched by position, not looked up.
 * Those that carry records then move to the end of the fetch order.
 */
static void filter_response(gr_request_t *req, gr_fetch_session_t *s, gr_fetch_response_t *resp)
{
    bool *to_end = gr_request_alloc_array(req, s->count, sizeof(*to_end));
    int32_t k = 0, topics = 0;
    for (int32_t t = 0; t < resp->responses_count; t++) {
        gr_fetch_response_fetchable_topic_response_t *tout = &resp->responses[t];
        int32_t kept = 0;
        for (int32_t i = 0; i < tout->partitions_count && k < s->count; i++, k++) {
            gr_fetch_response_partition_data_t *pout = &tout->partitions[i];
            gr_fetch_session_partition_t *p = at(s, k);
            /* A mismatch cannot happen (s is as the request was rewritten); sent if it does. */
            if (p->partition != pout->partition_index || take_response(p, pout))
                tout->partitions[kept++] = *pout;
            if (to_end)
                to_end[k] = pout->records.len > 0;
        }
        tout->partitions_count = kept;
        if (kept)
            resp->responses[topics++] = *tout;
    }
    resp->responses_count = topics;
    if (to_end)
        gr_fetch_session_requeue(s, to_end);
}

static void end_incremental(gr_broker_t *b, gr_request_t *req, const gr_fetch_context_t *ctx,
                            gr_fetch_response_t *resp)
{
    resp->session_id = ctx->session_id;
    gr_fetch_session_t *s =
        b->fetch_sessions ? gr_fetch_sessions_find(b->fetch_sessions, ctx->session_id) : NULL;
    if (!s)
        return; /* closed or evicted meanwhile: every partition goes */
    if (s->epoch != ctx->epoch) {
        /* A later request of the session came first (Kafka: a duplicate). */
        resp->error_code = GR_KERR_INVALID_FETCH_SESSION_EPOCH;
        resp->responses_count = 0;
        return;
    }
    filter_response(req, s, resp);
}

void gr_fetch_context_end(gr_broker_t *b, gr_request_t *req, const gr_fetch_request_t *in,
                          const gr_fetch_context_t *ctx, gr_fetch_response_t *resp)
{
    if (!resp->responses) /* out of memory while building: answered as it is */
        resp->responses_count = 0;
    if (ctx->mode == GR_FETCH_CONTEXT_NEW)
        end_new(b, req, in, ctx, resp);
    else if (ctx->mode == GR_FETCH_CONTEXT_INCREMENTAL)
        end_incremental(b, req, ctx, resp);
    else
        resp->session_id = 0;
}
