/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fetch: read record batches, long-polling until min_bytes are available.
 *
 * A fetch is evaluated by fetch_build(): every requested partition is read
 * (gr_log_read, up to the high watermark) within partition_max_bytes and the
 * response's max_bytes, the first partition with data getting at least one
 * whole batch even when it is larger (KIP-74). Record bytes are not copied:
 * each partition's records field names a range of a segment file, which the
 * response chain sends with sendfile.
 *
 * States of a fetch:
 *   evaluate -> enough bytes (>= min_bytes), an error, or max_wait_ms == 0:
 *               respond now.
 *            -> otherwise WAITING: the slot is deferred, a link per partition
 *               is put on that partition's waiter list and a timer armed.
 *   WAITING  -> fetch_wake (gr_partition_append woke a partition):
 *               evaluate again; respond if enough.
 *            -> timer: respond with what there is.
 *            -> connection closed: fetch_cancel unlinks and frees.
 * Segment references from reads are held only while a response is built
 * (the chain takes its own) and are put right after.
 *
 * Isolation (KIP-98): a read_committed consumer reads only batches below
 * the partition's last stable offset, and each partition answering records
 * lists the aborted transactions overlapping them (from the segments'
 * .txnindex), so the consumer can drop their records; read_uncommitted
 * reads to the high watermark and gets a null list. last_stable_offset is
 * the real LSO either way. A marker moves the LSO only by an append or a
 * high watermark move, both of which wake waiting fetches.
 *
 * A follower's fetch (replica_id >= 0, replica/fetcher.h) reads up to the
 * log end offset instead of the high watermark, and its fetch offsets tell
 * the leader how far the follower has come (gr_replica_follower_fetch, once
 * per request): that moves the high watermark and the ISR.
 *
 * Fetch from followers (KIP-392): a consumer's fetch (v11+) is served by
 * any replica here, up to its high watermark; with replica.selector.class
 * RackAwareReplicaSelector, the leader sends a consumer naming its rack
 * (client.rack) to an in-sync follower of that rack (preferred_read_replica,
 * no records) unless the leader is in that rack itself.
 *
 * v17's replica directory id (KIP-853) and v18's high watermark (KIP-1166)
 * are tagged fields only KRaft voters send each other; a broker's Fetch
 * reads past them, as Kafka's does.
 *
 * Fetch sessions (KIP-227, handlers/fetch_context.h): an incremental fetch
 * is rewritten to every partition of its session before it is read, so it
 * reads and long-polls as a full one; its response keeps only partitions
 * with news when it is sent (fetch_respond).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/fetch_context.h"
#include "handlers/quota_throttle.h"
#include "handlers/request.h"
#include "log/log.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "replica/leader.h"
#include "replica/replica.h"
#include "gen/common.h"
#include "gen/fetch.h"
#include "handlers/handlers.h"

#define GR_MS_PER_SEC               1000.0
#define REPLICA_STATE_MIN_VERSION   15 /* the follower's id moved into ReplicaState */
#define CLIENT_METADATA_MIN_VERSION 11 /* consumers name their rack, may read from followers */
#define RACK_AWARE_SELECTOR         "org.apache.kafka.common.replica.RackAwareReplicaSelector"

typedef struct fetch_op fetch_op_t;

struct fetch_op {
    gr_broker_t *b;
    gr_request_t *req;
    gr_fetch_request_t in;
    ev_timer timer;
    gr_partition_waiter_t *links; /* one per partition waited on */
    int32_t link_count;
    gr_segment_t **held; /* segment references taken by the last build */
    int32_t held_count;
    bool waiting;
    int32_t replica_id;         /* a follower's broker id, or -1 (a consumer) */
    bool *denied;               /* per request topic: READ refused; NULL when none is */
    bool all_denied;            /* every topic refused: nothing to wait for */
    bool progress_recorded;     /* a follower's fetch offsets went to its leaders */
    int64_t record_bytes;       /* record bytes in the response fetch_build made last */
    gr_topic_t **topics;        /* per request topic, as the last build found it (or NULL) */
    gr_fetch_context_t session; /* the fetch session this request uses, if any */
};

static void links_remove(fetch_op_t *op)
{
    for (int32_t i = 0; i < op->link_count; i++)
        gr_partition_unwait(&op->links[i]);
    op->link_count = 0;
}

static void put_held(fetch_op_t *op)
{
    for (int32_t i = 0; i < op->held_count; i++)
        gr_segment_put(op->held[i]);
    op->held_count = 0;
}

static bool read_committed(const fetch_op_t *op)
{
    return op->replica_id < 0 && op->in.isolation_level == GR_ISOLATION_LEVEL_READ_COMMITTED;
}

/*
 * Followers read up to the log end, consumers up to the high watermark, or
 * with read_committed up to the last stable offset.
 */
static int64_t read_limit(const fetch_op_t *op, const gr_partition_t *p)
{
    if (op->replica_id >= 0)
        return gr_log_end_offset(p->log);
    return read_committed(op) ? gr_log_last_stable_offset(p->log) : gr_log_high_watermark(p->log);
}

/*
 * read_committed: the aborted transactions overlapping the records read,
 * [from, next), into out (an empty, non-null list when none). Returns
 * GR_KERR_NONE or the error answering the partition.
 */
static gr_kerr_t add_aborted(fetch_op_t *op, gr_partition_t *p, int64_t from, int64_t next,
                             gr_fetch_response_partition_data_t *out)
{
    gr_aborted_txn_t *txns = NULL;
    size_t n = 0;
    out->aborted_transactions_null = false;
    if (next <= from)
        return GR_KERR_NONE;
    int rc = gr_log_collect_aborted(p->log, from, next, &txns, &n);
    if (rc < 0)
        return gr_kerr_from_errno(rc);
    if (n > INT32_MAX)
        n = INT32_MAX;
    out->aborted_transactions =
        n ? gr_request_alloc_array(op->req, (int32_t)n, sizeof(*out->aborted_transactions)) : NULL;
    if (n && !out->aborted_transactions) {
        free(txns);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        gr_fetch_response_aborted_transaction_init(&out->aborted_transactions[i]);
        out->aborted_transactions[i].producer_id = txns[i].producer_id;
        out->aborted_transactions[i].first_offset = txns[i].first_offset;
    }
    out->aborted_transactions_count = (int32_t)n;
    free(txns);
    return GR_KERR_NONE;
}

/*
 * Why this broker cannot serve p to this fetch: followers and old consumers
 * read from the leader only; a consumer from v11 on may read from any
 * replica here (KIP-392: it came because the leader sent it).
 */
static gr_kerr_t serve_error(const fetch_op_t *op, const gr_partition_t *p)
{
    int32_t self = op->b->config.broker_id;
    gr_kerr_t err = gr_partition_serve_error(p, self);
    if (err != GR_KERR_NOT_LEADER_OR_FOLLOWER || op->replica_id >= 0 ||
        op->req->api_version < CLIENT_METADATA_MIN_VERSION)
        return err;
    return p->log && p->leader_id >= 0 ? GR_KERR_NONE : err;
}

/* A consumer on a follower asks for what its leader has and this replica not yet. */
static bool follower_behind(const fetch_op_t *op, const gr_partition_t *p, int64_t fetch_offset)
{
    return fetch_offset > gr_log_end_offset(p->log) &&
           !gr_partition_led_by(p, op->b->config.broker_id);
}

static bool same_rack(const char *rack, gr_str_t client)
{
    return rack && client.len > 0 && strlen(rack) == (size_t)client.len &&
           memcmp(rack, client.ptr, (size_t)client.len) == 0;
}

/*
 * KIP-392's RackAwareReplicaSelector, on the leader: an in-sync follower in
 * the consumer's rack that has fetch_offset (the most advanced one), unless
 * the leader is in that rack; -1 to read here.
 */
static int32_t preferred_read_replica(const fetch_op_t *op, const gr_partition_t *p,
                                      int64_t fetch_offset)
{
    const gr_broker_t *b = op->b;
    gr_str_t rack = op->in.rack_id;
    const char *selector = b->config.replica_selector_class;
    if (op->replica_id >= 0 || op->req->api_version < CLIENT_METADATA_MIN_VERSION ||
        rack.len <= 0 || !selector || strcmp(selector, RACK_AWARE_SELECTOR) != 0 ||
        !gr_partition_led_by(p, b->config.broker_id) || same_rack(b->config.broker_rack, rack))
        return -1;
    int32_t best = -1;
    int64_t best_end = -1;
    for (int32_t i = 0; i < p->follower_count; i++) {
        const gr_follower_t *f = &p->followers[i];
        const gr_cluster_node_t *node = gr_cluster_view_node(b->cluster, f->id);
        if (node && same_rack(node->rack, rack) && gr_partition_in_isr(p, f->id) &&
            f->log_end_offset >= fetch_offset && f->log_end_offset > best_end) {
            best = f->id;
            best_end = f->log_end_offset;
        }
    }
    return best;
}

static gr_topic_t *find_topic(gr_broker_t *b, int16_t version,
                              const gr_fetch_request_fetch_topic_t *t)
{
    if (version >= 13)
        return gr_topics_find_id(b->topics, t->topic_id);
    return gr_topics_find(b->topics, t->topic.ptr, (size_t)t->topic.len);
}

/*
 * A partition of a topic the consumer may not READ: Kafka's error and
 * unknown offsets. As in Kafka, the fetch still waits on the partitions it
 * may read; the refusal rides along in the answer.
 */
static void deny_partition(const gr_fetch_request_fetch_partition_t *in,
                           gr_fetch_response_partition_data_t *out)
{
    out->partition_index = in->partition;
    out->records.ptr = (const uint8_t *)"";
    out->records.len = 0;
    out->aborted_transactions_null = true;
    out->high_watermark = -1;
    out->last_stable_offset = -1;
    out->log_start_offset = -1;
    out->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
}

/*
 * Checks READ on every topic once per request (a long poll re-reads many
 * times). Without an authorizer nothing is allocated. -1 when out of memory.
 */
static int authorize_topics(fetch_op_t *op)
{
    gr_broker_t *b = op->b;
    if (!b->authorizer)
        return 0;
    op->denied = gr_request_alloc_array(op->req, op->in.topics_count, sizeof *op->denied);
    if (!op->denied)
        return -1;
    int32_t denied = 0;
    for (int32_t t = 0; t < op->in.topics_count; t++) {
        const gr_fetch_request_fetch_topic_t *tin = &op->in.topics[t];
        gr_topic_t *topic = find_topic(b, op->req->api_version, tin);
        const char *name = topic ? topic->name : tin->topic.ptr;
        size_t len =
            topic ? strlen(topic->name) : (size_t)(tin->topic.len > 0 ? tin->topic.len : 0);
        if (op->req->api_version >= 13 && !topic)
            continue; /* an unknown id is answered as such */
        op->denied[t] = !gr_authorize(b, op->req->session, GR_ACL_OPERATION_READ,
                                      GR_ACL_RESOURCE_TYPE_TOPIC, name ? name : "", len);
        denied += op->denied[t];
    }
    op->all_denied = denied > 0 && denied == op->in.topics_count;
    return 0;
}

typedef struct fetch_budget {
    int64_t total;     /* record bytes in the response so far */
    int64_t remaining; /* response max_bytes left */
} fetch_budget_t;

/*
 * The error for a partition of a topic id (v13+) not known here. A fetch
 * session's partition also carries the name its id had (fetch_context.h):
 * as in Kafka, a topic deleted since is UNKNOWN_TOPIC_OR_PARTITION, and one
 * created again under that name (a new id) INCONSISTENT_TOPIC_ID.
 */
static gr_kerr_t unknown_id_error(const fetch_op_t *op, const gr_fetch_request_fetch_topic_t *tin)
{
    if (tin->topic.len <= 0 || !tin->topic.ptr)
        return GR_KERR_UNKNOWN_TOPIC_ID;
    return gr_topics_find(op->b->topics, tin->topic.ptr, (size_t)tin->topic.len)
               ? GR_KERR_INCONSISTENT_TOPIC_ID
               : GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
}

/*
 * Reads one partition into out (unknown: the error if its topic is unknown
 * by id). Returns true if it carries an error.
 */
static bool read_partition(fetch_op_t *op, gr_topic_t *topic, gr_kerr_t unknown,
                           const gr_fetch_request_fetch_partition_t *in, fetch_budget_t *budget,
                           gr_fetch_response_partition_data_t *out)
{
    int16_t version = op->req->api_version;
    out->partition_index = in->partition;
    out->records.ptr = (const uint8_t *)"";
    out->records.len = 0;
    if (op->in.isolation_level != GR_ISOLATION_LEVEL_READ_COMMITTED)
        out->aborted_transactions_null = true;
    /* Kafka answers a partition in error with unknown (-1) offsets. */
    out->high_watermark = -1;
    out->last_stable_offset = -1;
    out->log_start_offset = -1;
    gr_partition_t *p = gr_topic_partition(topic, in->partition);
    gr_kerr_t serve = serve_error(op, p);
    if (serve) {
        out->error_code = version >= 13 && !topic ? unknown : serve;
        return true;
    }
    out->error_code = gr_partition_check_leader_epoch(p, in->current_leader_epoch);
    if (!out->error_code && op->replica_id >= 0 && !op->progress_recorded)
        out->error_code = gr_replica_follower_fetch(op->b, p, op->replica_id, in->fetch_offset);
    if (out->error_code)
        return true;
    int64_t high_watermark = gr_log_high_watermark(p->log);
    out->preferred_read_replica = preferred_read_replica(op, p, in->fetch_offset);
    if (out->preferred_read_replica >= 0) { /* no records: the consumer goes there, now */
        out->high_watermark = high_watermark;
        out->last_stable_offset = gr_log_last_stable_offset(p->log);
        out->log_start_offset = gr_log_start_offset(p->log);
        return true;
    }
    int64_t limit = in->partition_max_bytes;
    if (limit > budget->remaining)
        limit = budget->remaining;
    if (limit < 0)
        limit = 0;
    gr_log_read_result_t rd;
    int rc = gr_log_read(p->log, in->fetch_offset, (int32_t)limit, budget->total == 0,
                         read_limit(op, p), &rd);
    if (rc == -ERANGE && follower_behind(op, p, in->fetch_offset)) {
        rc = 0; /* a follower behind its leader: the records are coming, wait for them */
        rd.len = 0;
        rd.segment = NULL;
    }
    if (rc == -ERANGE) {
        out->error_code = GR_KERR_OFFSET_OUT_OF_RANGE;
        return true;
    }
    if (rc) {
        out->error_code = gr_kerr_from_errno(rc);
        return true;
    }
    out->high_watermark = high_watermark;
    out->last_stable_offset = gr_log_last_stable_offset(p->log);
    out->log_start_offset = gr_log_start_offset(p->log);
    if (read_committed(op)) {
        gr_kerr_t err = add_aborted(op, p, in->fetch_offset, rd.len > 0 ? rd.next_offset : -1, out);
        if (err) {
            if (rd.segment)
                gr_segment_put(rd.segment);
            out->error_code = err;
            return true;
        }
    }
    if (rd.len > 0 && rd.segment) {
        op->held[op->held_count++] = rd.segment;
        out->records.ptr = NULL;
        out->records.len = rd.len;
        out->records.file = rd.segment;
        out->records.file_off = rd.file_pos;
        budget->total += rd.len;
        budget->remaining -= rd.len;
    }
    return false;
}

/*
 * Builds the response into resp. Returns true when it should be sent now
 * (enough bytes or an error); false to keep waiting (references put).
 */
static bool fetch_build(fetch_op_t *op, gr_fetch_response_t *resp, bool final)
{
    gr_request_t *req = op->req;
    gr_broker_t *b = op->b;
    const gr_fetch_request_t *in = &op->in;
    bool any_error = false;
    fetch_budget_t budget = {0, req->api_version >= 3 ? in->max_bytes : INT32_MAX};
    gr_fetch_response_init(resp);
    resp->responses_count = in->topics_count;
    resp->responses = gr_request_alloc_array(req, in->topics_count, sizeof(*resp->responses));
    if (!resp->responses)
        return true;
    for (int32_t t = 0; t < in->topics_count; t++) {
        const gr_fetch_request_fetch_topic_t *tin = &in->topics[t];
        gr_fetch_response_fetchable_topic_response_t *tout = &resp->responses[t];
        gr_fetch_response_fetchable_topic_response_init(tout);
        tout->topic = tin->topic;
        tout->topic_id = tin->topic_id;
        gr_topic_t *topic = find_topic(b, req->api_version, tin);
        op->topics[t] = op->denied && op->denied[t] ? NULL : topic;
        gr_kerr_t unknown = topic ? GR_KERR_NONE : unknown_id_error(op, tin);
        int32_t n = tin->partitions_count;
        tout->partitions = gr_request_alloc_array(req, n, sizeof(*tout->partitions));
        if (!tout->partitions) {
            resp->responses_count = t + 1; /* the topics after are not built */
            return true;
        }
        tout->partitions_count = n;
        for (int32_t i = 0; i < n; i++) {
            gr_fetch_response_partition_data_t *pout = &tout->partitions[i];
            gr_fetch_response_partition_data_init(pout);
            if (op->denied && op->denied[t])
                deny_partition(&tin->partitions[i], pout);
            else
                any_error |= read_partition(op, topic, unknown, &tin->partitions[i], &budget, pout);
        }
    }
    op->record_bytes = budget.total;
    if (final || any_error || op->all_denied || budget.total >= in->min_bytes ||
        in->max_wait_ms <= 0)
        return true;
    put_held(op);
    return false;
}

/*
 * BrokerTopicMetrics of the response about to go: per partition, as Kafka
 * marks them. A follower's bytes are replication bytes (all-topics only,
 * stats.follower_fetch_record_bytes), not BytesOut.
 */
static void count_response(fetch_op_t *op, const gr_fetch_response_t *resp)
{
    for (int32_t t = 0; resp->responses && t < resp->responses_count; t++) {
        const gr_fetch_response_fetchable_topic_response_t *tout = &resp->responses[t];
        gr_topic_t *topic = op->topics[t]; /* responses are the request's topics, in order */
        if (!topic)
            continue;
        for (int32_t i = 0; tout->partitions && i < tout->partitions_count; i++) {
            const gr_fetch_response_partition_data_t *pout = &tout->partitions[i];
            topic->stats.total_fetch_requests++;
            topic->stats.failed_fetch_requests += pout->error_code != GR_KERR_NONE;
            if (op->replica_id < 0 && pout->records.len > 0)
                topic->stats.bytes_out += (uint64_t)pout->records.len;
        }
    }
}

static void fetch_respond(fetch_op_t *op, gr_fetch_response_t *resp)
{
    count_response(op, resp);
    gr_fetch_context_end(op->b, op->req, &op->in, &op->session, resp);
    op->b->stats.fetch_record_bytes += (uint64_t)op->record_bytes;
    if (op->replica_id >= 0)
        op->b->stats.follower_fetch_record_bytes += (uint64_t)op->record_bytes;
    if (op->waiting)
        ev_timer_stop(op->b->loop, &op->timer);
    links_remove(op);
    gr_request_t *req = op->req;
    if (op->replica_id < 0) { /* replicas are exempt from quotas */
        resp->throttle_time_ms =
            gr_request_quota_record(req, GR_QUOTA_FETCH, (double)op->record_bytes);
        gr_request_throttle(req, resp->throttle_time_ms);
    }
    int rc = gr_request_encode(req, resp);
    put_held(op);
    /* Completing or failing may free the slot's arena, op included. */
    if (rc == 0)
        gr_request_complete(req);
    else
        gr_request_fail(req, "response encoding failed");
}

/*
 * Record bytes a waiting fetch would get now, stopping at min_bytes; a huge
 * value when a partition would answer with an error (respond now). Builds
 * nothing, so a fetch woken many times does not grow its arena.
 */
static int64_t fetch_available(fetch_op_t *op)
{
    int64_t total = 0;
    for (int32_t t = 0; t < op->in.topics_count; t++) {
        const gr_fetch_request_fetch_topic_t *tin = &op->in.topics[t];
        gr_topic_t *topic = find_topic(op->b, op->req->api_version, tin);
        if (op->denied && op->denied[t])
            continue; /* nothing to wait for there */
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            const gr_fetch_request_fetch_partition_t *pin = &tin->partitions[i];
            gr_partition_t *p = gr_topic_partition(topic, pin->partition);
            if (serve_error(op, p) || gr_partition_check_leader_epoch(p, pin->current_leader_epoch))
                return INT64_MAX;
            gr_log_read_result_t rd;
            int rc = gr_log_read(p->log, pin->fetch_offset, pin->partition_max_bytes, true,
                                 read_limit(op, p), &rd);
            if (rc == -ERANGE && follower_behind(op, p, pin->fetch_offset))
                continue;
            if (rc != 0)
                return INT64_MAX;
            if (rd.segment)
                gr_segment_put(rd.segment);
            total += rd.len;
            if (total >= op->in.min_bytes)
                return total;
        }
    }
    return total;
}

/* Re-evaluates a waiting fetch; responds if it can (or must). */
static void fetch_evaluate(fetch_op_t *op, bool final)
{
    if (!final && fetch_available(op) < op->in.min_bytes)
        return;
    gr_fetch_response_t resp;
    fetch_build(op, &resp, true);
    fetch_respond(op, &resp);
}

static void fetch_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    fetch_evaluate(w->data, true);
}

static void fetch_cancel(gr_resp_slot_t *slot, void *arg)
{
    fetch_op_t *op = arg;
    (void)slot;
    ev_timer_stop(op->b->loop, &op->timer);
    links_remove(op);
    put_held(op);
}

/* A partition this fetch waits on has news; gone: it is going away, answer now. */
static void fetch_wake(void *owner, gr_partition_t *p, bool gone)
{
    (void)p;
    fetch_evaluate(owner, gone);
}

static void fetch_wait(fetch_op_t *op)
{
    gr_broker_t *b = op->b;
    int32_t count = 0;
    for (int32_t t = 0; t < op->in.topics_count; t++)
        count += op->in.topics[t].partitions_count;
    op->links = gr_request_alloc_array(op->req, count, sizeof(*op->links));
    if (!op->links) {
        fetch_evaluate(op, true);
        return;
    }
    for (int32_t t = 0; t < op->in.topics_count; t++) {
        gr_topic_t *topic = find_topic(b, op->req->api_version, &op->in.topics[t]);
        for (int32_t i = 0; i < op->in.topics[t].partitions_count; i++) {
            gr_partition_t *p = gr_topic_partition(topic, op->in.topics[t].partitions[i].partition);
            /* Links of one op are pushed together: a repeat is at the head. */
            if (!p || (p->waiters && p->waiters->owner == op))
                continue;
            gr_partition_waiter_t *l = &op->links[op->link_count++];
            l->owner = op;
            l->wake = fetch_wake;
            gr_partition_wait(p, l);
        }
    }
    op->waiting = true;
    ev_timer_init(&op->timer, fetch_timeout, op->in.max_wait_ms / GR_MS_PER_SEC, 0.);
    op->timer.data = op;
    ev_timer_start(b->loop, &op->timer);
    gr_resp_slot_defer(op->req->slot, fetch_cancel, op);
}

static int32_t count_partitions(const gr_fetch_request_t *in)
{
    int32_t count = 0;
    for (int32_t t = 0; t < in->topics_count; t++)
        count += in->topics[t].partitions_count;
    return count;
}

void gr_handle_fetch(gr_broker_t *b, gr_request_t *req)
{
    fetch_op_t *op = gr_request_alloc(req, sizeof(*op));
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (gr_request_decode(req, &op->in))
        return;
    op->b = b;
    op->req = req;
    op->replica_id = req->api_version >= REPLICA_STATE_MIN_VERSION ? op->in.replica_state.replica_id
                                                                   : op->in.replica_id;
    gr_fetch_response_t resp;
    /* Followers need CLUSTER_ACTION (Kafka's rule for replica fetches), checked
     * before the request may touch a fetch session. */
    if (op->replica_id >= 0 &&
        !gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_CLUSTER_ACTION)) {
        gr_fetch_response_init(&resp);
        resp.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        gr_request_respond(req, &resp);
        return;
    }
    /* Session errors answer the whole request, with no session (id 0). */
    gr_kerr_t session_err =
        gr_fetch_context_begin(b, req, op->replica_id >= 0, &op->in, &op->session);
    if (session_err) {
        gr_fetch_response_init(&resp);
        resp.error_code = session_err;
        gr_request_respond(req, &resp);
        return;
    }
    op->held = gr_request_alloc(req, (size_t)(count_partitions(&op->in) + 1) * sizeof(*op->held));
    op->topics = gr_request_alloc_array(req, op->in.topics_count, sizeof(*op->topics));
    if (!op->held || (op->in.topics_count && !op->topics)) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (op->replica_id < 0 && authorize_topics(op) < 0) {
        gr_request_fail(req, "out of memory");
        return;
    }
    bool now = fetch_build(op, &resp, false);
    op->progress_recorded = true;
    if (now)
        fetch_respond(op, &resp);
    else
        fetch_wait(op);
}
