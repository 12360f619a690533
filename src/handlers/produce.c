/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Produce: validate each partition's record batches and append them.
 *
 * v13 names topics by id (KIP-516): an unknown id answers UNKNOWN_TOPIC_ID.
 * v12 is v11 for this broker: it means an implicit AddPartitionsToTxn only
 * under transactions v2 (KIP-890 part 2), which this broker does not offer
 * (ApiVersions finalizes no transaction.version), so clients still add
 * partitions themselves.
 *
 * Per partition: the topic and partition must exist (no auto-creation here,
 * as Kafka); every batch is magic 2 with a good CRC-32C, sound lengths,
 * record count and offset deltas; a batch larger than max.message.bytes is
 * MESSAGE_TOO_LARGE; then every record is checked (gr_batch_timestamps_validate):
 * a record whose CreateTime timestamp is outside the topic's before/after
 * window makes the batch INVALID_TIMESTAMP, one without a key on a
 * compacted topic INVALID_RECORD (INVALID_TIMESTAMP if both happen). Such a
 * batch is refused whole, as Kafka does, and from v8 on the response names
 * the bad records (record_errors: index and reason) with Kafka's summary in
 * error_message (KIP-467); older versions drop both fields. Each good
 * batch's header gets the records' max timestamp, or on LogAppendTime
 * topics the broker's time (CRC rewritten). The batches are then appended
 * as they came, compressed or not.
 *
 * acks=-1 fails at once with NOT_ENOUGH_REPLICAS when the ISR is smaller
 * than min.insync.replicas, and otherwise completes when the ISR has the
 * batches (handlers/isr_wait.h; at once for a leader alone in its ISR).
 * acks=1 completes after the leader's append; acks=0 gets no response at all.
 *
 * The request frame is owned by this request's slot and nothing else reads
 * it after decoding, so batches are stamped with offsets in place.
 *
 * Idempotent producers (a batch with a producer id): the partition's data
 * must be that one batch, as Kafka requires from v3 on, with a sequence
 * number (else INVALID_RECORD); a transactional batch (KIP-98) must carry a
 * producer id, and control batches (transaction markers) are refused from
 * clients (INVALID_RECORD), as Kafka does. Just before the
 * append (after any recompression, so in append order) the batch is checked
 * against the log's producer state: a duplicate of one of the producer's
 * last five batches is answered with the original offset and not written
 * again; a gap in the sequence gets OUT_OF_ORDER_SEQUENCE_NUMBER, an old
 * epoch INVALID_PRODUCER_EPOCH (what Kafka answers to every Produce version
 * since 2.7), and a non-transactional batch from a producer with a
 * transaction open in the partition INVALID_TXN_STATE. A transactional
 * batch opens a transaction in the partition (log/producer_state.h);
 * checking with the coordinator that the partition was added to the
 * transaction (KIP-890) is not done.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "handlers/quota_throttle.h"
#include "handlers/request.h"
#include "security/authorizer.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "replica/replica.h"
#include "handlers/handlers.h"
#include "handlers/isr_wait.h"
#include "gen/produce.h"
#include "protocol/batch_timestamps.h"
#include "protocol/record_errors.h"
#include "protocol/records.h"

#define GR_ERROR_MAX 200
/* Produce v8 added record_errors and error_message (KIP-467). */
#define RECORD_ERRORS_MIN_VERSION 8
/* Produce v13 names topics by id (KIP-516). */
#define TOPIC_ID_MIN_VERSION 13

static void set_error(gr_request_t *req, gr_produce_response_partition_produce_response_t *out,
                      gr_kerr_t err, const char *msg)
{
    out->error_code = err;
    out->base_offset = -1;
    if (msg) {
        char *copy = gr_arena_strndup(req->arena, msg, strlen(msg));
        if (copy)
            out->error_message = gr_str(copy);
    }
}

/*
 * Checks every batch in records; returns the first error (msg filled). For
 * a batch refused for some of its records, errors names them (only that
 * batch's: Kafka numbers records within their batch and stops there).
 */
static gr_kerr_t check_batches(gr_broker_t *b, gr_topic_t *topic, int32_t partition, uint8_t *data,
                               size_t len, gr_record_errors_t *errors, char *msg, size_t msglen)
{
    const gr_topic_settings_t *s = &topic->settings;
    const gr_batch_timestamp_policy_t rules = {
        .log_append_time = s->timestamp_type == GR_TIMESTAMP_LOG_APPEND_TIME,
        .before_max_ms = s->timestamp_before_max_ms,
        .after_max_ms = s->timestamp_after_max_ms,
        .now_ms = gr_broker_now_ms(b),
        .keys_required = s->log.cleanup_compact,
        .topic = topic->name,
        .partition = partition,
    };
    size_t pos = 0;
    int batches = 0;
    bool idempotent = false;
    if (len == 0) {
        snprintf(msg, msglen, "Produce request has no record batches");
        return GR_KERR_CORRUPT_MESSAGE;
    }
    while (pos < len) {
        gr_batch_header_t h;
        if (gr_batch_header_parse(data + pos, len - pos, &h) != 0 ||
            gr_batch_size(&h) > (int64_t)(len - pos)) {
            snprintf(msg, msglen, "Truncated or malformed record batch");
            return GR_KERR_CORRUPT_MESSAGE;
        }
        size_t size = (size_t)gr_batch_size(&h);
        idempotent |= h.producer_id >= 0;
        /* Markers come from the transaction coordinator (WriteTxnMarkers) only. */
        if (h.attributes & GR_BATCH_ATTR_CONTROL) {
            snprintf(msg, msglen, "Clients are not allowed to write control records");
            return GR_KERR_INVALID_RECORD;
        }
        if ((h.attributes & GR_BATCH_ATTR_TRANSACTIONAL) && h.producer_id < 0) {
            snprintf(msg, msglen, "A transactional record batch must carry a producer id");
            return GR_KERR_INVALID_RECORD;
        }
        if (h.producer_id >= 0 && h.base_sequence < 0) {
            snprintf(msg, msglen, "Invalid sequence number %d for producer %lld",
                     (int)h.base_sequence, (long long)h.producer_id);
            return GR_KERR_INVALID_RECORD;
        }
        if (++batches > 1 && idempotent) {
            snprintf(msg, msglen,
                     "A produce with a producer id must hold exactly one record batch");
            return GR_KERR_INVALID_RECORD;
        }
        if (h.magic != GR_RECORD_BATCH_MAGIC_V2) {
            snprintf(msg, msglen, "Record batch magic %d is not supported", h.magic);
            return GR_KERR_UNSUPPORTED_FOR_MESSAGE_FORMAT;
        }
        if ((int64_t)size > s->max_message_bytes) {
            snprintf(msg, msglen, "Record batch of %zu bytes exceeds max.message.bytes %d", size,
                     s->max_message_bytes);
            return GR_KERR_MESSAGE_TOO_LARGE;
        }
        /* Validates, checks each record; sets the header's timestamp type and max timestamp. */
        gr_kerr_t err =
            gr_batch_timestamps_validate(data + pos, size, &rules, NULL, errors, msg, msglen);
        if (err)
            return err;
        pos += size;
    }
    return GR_KERR_NONE;
}

/*
 * Recompression (a topic whose compression.type names a codec) is slow work:
 * it runs on the broker's worker thread. The batches are copied into a job;
 * the worker rewrites those in another codec; back on the loop thread the
 * result is appended and the partition's response filled. The request's
 * slot is deferred until its last job is back. The worker has one thread, so
 * jobs finish in submission order, and while a partition has jobs out every
 * later produce to it goes through the worker too: appends keep their order.
 * A job outlives a closed connection (the data is still appended, as Kafka
 * does); it then just has no response to fill.
 */
typedef struct produce_op produce_op_t;

typedef struct recompress_job {
    gr_broker_t *b;
    produce_op_t *op; /* NULL once the request's connection has closed */
    gr_produce_response_partition_produce_response_t
        *out; /* in the request's arena: valid while op is */
    char *topic;
    gr_uuid_t topic_id;
    int32_t partition;
    int target; /* gr_compression_t */
    int index;  /* in op->jobs */
    uint8_t *data;
    size_t len;
    gr_writer_t result;
} recompress_job_t;

struct produce_op {
    gr_broker_t *b;
    gr_request_t *req;
    gr_produce_response_t resp;
    int16_t acks;
    int32_t throttle_ms;    /* quota throttle to report and apply (quota_throttle.h) */
    int outstanding;        /* recompression jobs out */
    gr_isr_wait_t isr_wait; /* acks=-1 */
    recompress_job_t **jobs;
    int job_count;
    int32_t record_errors_left; /* of the request's GR_RECORD_ERRORS_MAX (v8+) */
};

static bool needs_recompression(int target, const uint8_t *data, size_t len)
{
    for (size_t pos = 0; pos < len;) {
        gr_batch_header_t h;
        (void)gr_batch_header_parse(data + pos, len - pos, &h);
        if ((int)gr_batch_compression(&h) != target)
            return true;
        pos += (size_t)gr_batch_size(&h);
    }
    return false;
}

/* Runs on the worker thread: every batch of the job, in the target codec. */
static int recompress_job_run(void *arg)
{
    recompress_job_t *job = arg;
    for (size_t pos = 0; pos < job->len;) {
        gr_batch_header_t h;
        (void)gr_batch_header_parse(job->data + pos, job->len - pos, &h);
        size_t size = (size_t)gr_batch_size(&h);
        int rc = (int)gr_batch_compression(&h) == job->target
                     ? (gr_write_raw(&job->result, job->data + pos, size), job->result.err)
                     : gr_batch_recompress(job->data + pos, size, (gr_compression_t)job->target,
                                           &job->result);
        if (rc)
            return rc;
        pos += size;
    }
    return 0;
}

/*
 * Checks an idempotent producer's batch against the partition's producer
 * state. Returns true when it is to be appended; otherwise out (if any) is
 * filled: the original offsets for a duplicate, or the error.
 */
static bool producer_check(gr_request_t *req, gr_partition_t *p, const uint8_t *data, size_t len,
                           gr_produce_response_partition_produce_response_t *out, int64_t *dup_end)
{
    gr_batch_header_t h;
    gr_producer_batch_t dup;
    if (gr_batch_header_parse(data, len, &h) != 0 || h.producer_id < 0)
        return true;
    switch (gr_producer_state_check(gr_log_producer_state(p->log), &h, &dup)) {
    case GR_PRODUCER_APPEND:
        return true;
    case GR_PRODUCER_DUPLICATE:
        *dup_end = dup.last_offset + 1;
        if (out) {
            out->base_offset = dup.first_offset;
            out->log_append_time_ms = -1;
            out->log_start_offset = gr_log_start_offset(p->log);
        }
        return false;
    case GR_PRODUCER_STALE_EPOCH:
        if (out)
            set_error(req, out, GR_KERR_INVALID_PRODUCER_EPOCH,
                      "Producer epoch is older than the current one");
        return false;
    case GR_PRODUCER_OUT_OF_ORDER:
        if (out)
            set_error(req, out, GR_KERR_OUT_OF_ORDER_SEQUENCE_NUMBER,
                      "Out of order sequence number");
        return false;
    case GR_PRODUCER_INVALID_TXN_STATE:
        if (out)
            set_error(req, out, GR_KERR_INVALID_TXN_STATE,
                      "Expected a transactional write from the producer");
        return false;
    case GR_PRODUCER_COORDINATOR_FENCED: /* markers only: never for data */
        break;
    }
    if (out)
        set_error(req, out, GR_KERR_UNKNOWN_SERVER_ERROR, NULL);
    return false;
}

/*
 * The bad records of a refused batch into out: record_errors and Kafka's
 * summary as error_message (v8+ fields: the encoder leaves them out below).
 * A list cut short by memory is left out whole rather than name some of the
 * records; the error code alone still tells the client.
 */
static void set_record_errors(gr_request_t *req, gr_partition_t *p,
                              const gr_record_errors_t *errors,
                              gr_produce_response_partition_produce_response_t *out)
{
    /* Kafka answers these with the partition's log start offset. */
    out->log_start_offset = gr_log_start_offset(p->log);
    if (!errors->arena)
        return; /* counted only: a version without record_errors */
    char *summary = errors->err ? NULL : gr_record_errors_summary(errors);
    if (!summary)
        return;
    gr_produce_response_batch_index_and_error_message_t *list = NULL;
    if (errors->listed > 0 && !(list = gr_request_alloc_array(req, errors->listed, sizeof(*list))))
        return;
    for (int32_t i = 0; i < errors->listed; i++) {
        list[i].batch_index = errors->list[i].index;
        list[i].batch_index_error_message = gr_str(errors->list[i].message);
    }
    out->record_errors = list;
    out->record_errors_count = errors->listed;
    out->error_message = gr_str(summary);
}

static void settle_partition(void *opaque, gr_kerr_t err)
{
    gr_produce_response_partition_produce_response_t *out = opaque;
    out->error_code = err;
    out->base_offset = -1;
}

/* Batches refused for their size: Kafka's BytesRejectedPerSec. */
static void count_rejected(gr_topic_t *topic, size_t len)
{
    topic->stats.bytes_rejected += len;
}

/* acks=-1: out waits until the ISR has everything before offset end. */
static void wait_for_isr(produce_op_t *op, gr_topic_t *topic, gr_partition_t *p, int64_t end,
                         gr_produce_response_partition_produce_response_t *out)
{
    if (op && out && op->acks == GR_ACKS_ALL && end > 0)
        gr_isr_wait_add(&op->isr_wait, p, end, topic->settings.min_insync_replicas,
                        settle_partition, out);
}

/* Appends validated batches to p and fills out (op NULL: nobody waits for the answer). */
static void append_and_fill(gr_broker_t *b, produce_op_t *op, gr_topic_t *topic, gr_partition_t *p,
                            uint8_t *data, size_t len,
                            gr_produce_response_partition_produce_response_t *out)
{
    gr_request_t *req = op ? op->req : NULL;
    gr_log_append_info_t info;
    int64_t dup_end = 0;
    if (!producer_check(req, p, data, len, out, &dup_end)) {
        wait_for_isr(op, topic, p, dup_end, out);
        return;
    }
    int rc = gr_partition_append(p, data, len, gr_broker_now_ms(b), &info);
    if (rc) {
        /* A batch over segment.bytes is the client's error, not the log's. */
        if (rc != -EMSGSIZE)
            gr_logf(&b->log, GR_LOG_ERROR, "log", "append to %s-%d failed: %s", topic->name,
                    p->index, strerror(-rc));
        else
            count_rejected(topic, len);
        if (out)
            set_error(req, out,
                      rc == -EMSGSIZE ? GR_KERR_RECORD_LIST_TOO_LARGE : gr_kerr_from_errno(rc),
                      NULL);
        return;
    }
    topic->stats.messages_in += (uint64_t)info.records;
    topic->stats.bytes_in += len;
    if (out) {
        out->base_offset = info.first_offset;
        out->log_append_time_ms = topic->settings.timestamp_type == GR_TIMESTAMP_LOG_APPEND_TIME
                                      ? info.log_append_time
                                      : -1;
        out->log_start_offset = info.log_start_offset;
    }
    wait_for_isr(op, topic, p, info.last_offset + 1, out);
}

static void produce_finish(produce_op_t *op)
{
    if (op->outstanding > 0 || op->isr_wait.pending > 0)
        return; /* the last job or ISR wait to end calls this again */
    /* Even acks=0 mutes a client over its quota (there is just no response to carry it). */
    op->resp.throttle_time_ms = op->throttle_ms;
    gr_request_throttle(op->req, op->throttle_ms);
    if (op->acks == GR_ACKS_NONE)
        gr_request_respond_none(op->req);
    else
        gr_request_respond(op->req, &op->resp);
}

static void recompress_job_free(recompress_job_t *job)
{
    gr_writer_fini(&job->result);
    free(job->data);
    free(job->topic);
    free(job);
}

/* Back on the loop thread: append the recompressed batches. */
static void recompress_job_done(void *arg, int result)
{
    recompress_job_t *job = arg;
    gr_broker_t *b = job->b;
    gr_topic_t *topic = gr_topics_find(b->topics, job->topic, strlen(job->topic));
    gr_partition_t *p = topic && memcmp(topic->id.b, job->topic_id.b, sizeof job->topic_id.b) == 0
                            ? gr_topic_partition(topic, job->partition)
                            : NULL;
    produce_op_t *op = job->op;
    if (op)
        op->jobs[job->index] = NULL;
    if (p)
        p->pending_jobs--;
    if (p && p->log && result == 0) {
        append_and_fill(b, op, topic, p, job->result.buf, job->result.len, job->out);
    } else if (op) {
        set_error(op->req, job->out,
                  p ? gr_kerr_from_errno(result) : GR_KERR_UNKNOWN_TOPIC_OR_PARTITION, NULL);
    }
    if (topic && op && job->out->error_code) /* the partition's outcome, known only now */
        topic->stats.failed_produce_requests++;
    recompress_job_free(job);
    if (op) {
        op->outstanding--;
        produce_finish(op);
    }
}

/* Tells the jobs still out that op, and the response they fill, are gone. */
static void produce_detach_jobs(produce_op_t *op)
{
    for (int i = 0; i < op->job_count; i++) {
        if (!op->jobs[i])
            continue; /* already back and freed */
        op->jobs[i]->op = NULL;
        op->jobs[i]->out = NULL;
    }
}

static void produce_cancel(gr_resp_slot_t *slot, void *arg)
{
    produce_op_t *op = arg;
    (void)slot;
    produce_detach_jobs(op);
    gr_isr_wait_cancel(&op->isr_wait);
}

static void on_isr_wait_done(void *opaque)
{
    produce_finish(opaque);
}

/* Hands the batches to the worker; false (out filled) if that fails. */
static bool recompress_submit(produce_op_t *op, gr_topic_t *topic, gr_partition_t *p,
                              const uint8_t *data, size_t len,
                              gr_produce_response_partition_produce_response_t *out)
{
    recompress_job_t *job = calloc(1, sizeof(*job));
    if (job) {
        job->data = malloc(len);
        job->topic = strdup(topic->name);
    }
    if (!job || !job->data || !job->topic) {
        if (job)
            recompress_job_free(job);
        set_error(op->req, out, GR_KERR_UNKNOWN_SERVER_ERROR, NULL);
        return false;
    }
    memcpy(job->data, data, len);
    job->len = len;
    job->b = op->b;
    job->op = op;
    job->out = out;
    job->topic_id = topic->id;
    job->partition = p->index;
    job->target = topic->settings.compression;
    gr_writer_init(&job->result);
    if (gr_worker_submit(&op->b->worker, recompress_job_run, recompress_job_done, job) != 0) {
        recompress_job_free(job);
        set_error(op->req, out, GR_KERR_UNKNOWN_SERVER_ERROR, NULL);
        return false;
    }
    p->pending_jobs++;
    op->b->stats.recompress_jobs++;
    job->index = op->job_count;
    op->jobs[op->job_count++] = job;
    op->outstanding++;
    return true;
}

static void produce_partition_now(produce_op_t *op, gr_topic_t *topic,
                                  const gr_produce_request_partition_produce_data_t *in,
                                  gr_produce_response_partition_produce_response_t *out)
{
    gr_broker_t *b = op->b;
    gr_request_t *req = op->req;
    char msg[GR_ERROR_MAX];
    gr_partition_t *p = gr_topic_partition(topic, in->index);
    gr_kerr_t serve = gr_partition_serve_error(p, b->config.broker_id);
    if (serve) {
        set_error(req, out, serve, NULL);
        return;
    }
    int32_t isr = p->isr_count > 0 ? p->isr_count : 1; /* the leader at least */
    if (op->acks == GR_ACKS_ALL && topic->settings.min_insync_replicas > isr) {
        snprintf(msg, sizeof msg, "ISR of %d is below min.insync.replicas %d", isr,
                 topic->settings.min_insync_replicas);
        set_error(req, out, GR_KERR_NOT_ENOUGH_REPLICAS, msg);
        return;
    }
    if (in->records.len <= 0) {
        set_error(req, out, GR_KERR_CORRUPT_MESSAGE, "Produce request has no record batches");
        return;
    }
    uint8_t *data = (uint8_t *)in->records.ptr; /* our frame: see the file comment */
    size_t len = (size_t)in->records.len;
    /* Before v8 the response has no room for them: count, list nothing. */
    bool listed = req->api_version >= RECORD_ERRORS_MIN_VERSION;
    gr_record_errors_t errors;
    gr_record_errors_init(&errors, listed ? req->arena : NULL);
    errors.max = op->record_errors_left;
    gr_kerr_t err = check_batches(b, topic, p->index, data, len, &errors, msg, sizeof msg);
    op->record_errors_left -= errors.listed;
    if (err && errors.count > 0) {
        set_error(req, out, err, NULL);
        set_record_errors(req, p, &errors, out);
        return;
    }
    if (err == GR_KERR_MESSAGE_TOO_LARGE)
        count_rejected(topic, len);
    if (err) {
        set_error(req, out, err, msg);
        return;
    }
    int target = topic->settings.compression;
    if (target >= 0 && (p->pending_jobs > 0 || needs_recompression(target, data, len)))
        recompress_submit(op, topic, p, data, len, out);
    else
        append_and_fill(b, op, topic, p, data, len, out);
}

/*
 * A partition the client may write, as Kafka's TotalProduceRequestsPerSec
 * and FailedProduceRequestsPerSec count it: failed when answered with an
 * error now, or when its recompression job ends (recompress_job_done).
 */
static void produce_partition(produce_op_t *op, gr_topic_t *topic,
                              const gr_produce_request_partition_produce_data_t *in,
                              gr_produce_response_partition_produce_response_t *out)
{
    int32_t jobs = op->job_count;
    topic->stats.total_produce_requests++;
    produce_partition_now(op, topic, in, out);
    if (op->job_count == jobs && out->error_code)
        topic->stats.failed_produce_requests++;
}

/* Bytes of record batches in the request: what a producer quota counts. */
static int64_t record_bytes(const gr_produce_request_t *in)
{
    int64_t n = 0;
    for (int32_t t = 0; t < in->topic_data_count; t++)
        for (int32_t i = 0; i < in->topic_data[t].partition_data_count; i++)
            if (in->topic_data[t].partition_data[i].records.len > 0)
                n += in->topic_data[t].partition_data[i].records.len;
    return n;
}

static int32_t count_partitions(const gr_produce_request_t *in)
{
    int32_t n = 0;
    for (int32_t t = 0; t < in->topic_data_count; t++)
        n += in->topic_data[t].partition_data_count;
    return n;
}

void gr_handle_produce(gr_broker_t *b, gr_request_t *req)
{
    gr_produce_request_t in;
    if (gr_request_decode(req, &in))
        return;
    produce_op_t *op = gr_request_alloc(req, sizeof(*op));
    int32_t topics = in.topic_data_count;
    if (op)
        op->jobs = gr_request_alloc(req, (size_t)(count_partitions(&in) + 1) * sizeof(*op->jobs));
    if (op)
        op->resp.responses = gr_request_alloc_array(req, topics, sizeof(*op->resp.responses));
    if (!op || !op->jobs || !op->resp.responses) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->b = b;
    op->req = req;
    op->acks = in.acks;
    op->record_errors_left = GR_RECORD_ERRORS_MAX;
    op->throttle_ms =
        gr_quotas_enabled(b->quotas, GR_QUOTA_PRODUCE)
            ? gr_request_quota_record(req, GR_QUOTA_PRODUCE, (double)record_bytes(&in))
            : req->throttle_ms;
    /* Only acks=-1 waits: the others allocate nothing for it. */
    int32_t waits = in.acks == GR_ACKS_ALL ? count_partitions(&in) : 0;
    if (gr_isr_wait_init(&op->isr_wait, b, req, waits, in.timeout_ms, on_isr_wait_done, op)) {
        gr_request_fail(req, "out of memory");
        return;
    }
    bool acks_valid =
        in.acks == GR_ACKS_NONE || in.acks == GR_ACKS_LEADER || in.acks == GR_ACKS_ALL;
    /* Kafka: a transactional produce needs WRITE on its transactional id, then WRITE per topic. */
    bool txn_denied = in.transactional_id.len >= 0 &&
                      !gr_authorize_str(b, req->session, GR_ACL_OPERATION_WRITE,
                                        GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID, in.transactional_id);
    gr_produce_response_t *resp = &op->resp;
    gr_produce_response_topic_produce_response_t *responses = resp->responses;
    gr_produce_response_init(resp);
    resp->responses = responses;
    resp->responses_count = topics;
    for (int32_t t = 0; t < topics; t++) {
        const gr_produce_request_topic_produce_data_t *tin = &in.topic_data[t];
        gr_produce_response_topic_produce_response_t *tout = &resp->responses[t];
        gr_produce_response_topic_produce_response_init(tout);
        tout->name = tin->name;
        tout->topic_id = tin->topic_id;
        int32_t n = tin->partition_data_count;
        tout->partition_responses =
            gr_request_alloc_array(req, n, sizeof(*tout->partition_responses));
        if (!tout->partition_responses) {
            /* The slot is still ours, so failing it calls no cancel: jobs
             * already out must learn here that no response will be filled. */
            produce_detach_jobs(op);
            gr_request_fail(req, "out of memory");
            return;
        }
        tout->partition_responses_count = n;
        bool by_id = req->api_version >= TOPIC_ID_MIN_VERSION;
        gr_topic_t *topic = by_id ? gr_topics_find_id(b->topics, tin->topic_id)
                                  : gr_topics_find(b->topics, tin->name.ptr, (size_t)tin->name.len);
        gr_str_t name = by_id ? gr_str(topic ? topic->name : "") : tin->name;
        /* An unknown id is UNKNOWN_TOPIC_ID below, without an ACL check of no name. */
        bool allowed = !txn_denied && (!by_id || topic) &&
                       gr_authorize_str(b, req->session, GR_ACL_OPERATION_WRITE,
                                        GR_ACL_RESOURCE_TYPE_TOPIC, name);
        for (int32_t i = 0; i < n; i++) {
            gr_produce_response_partition_produce_response_t *pout = &tout->partition_responses[i];
            gr_produce_response_partition_produce_response_init(pout);
            pout->index = tin->partition_data[i].index;
            if (!acks_valid)
                set_error(req, pout, GR_KERR_INVALID_REQUIRED_ACKS, NULL);
            else if (txn_denied)
                set_error(req, pout, GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED, NULL);
            else if (by_id && !topic)
                set_error(req, pout, GR_KERR_UNKNOWN_TOPIC_ID, NULL);
            else if (!allowed)
                set_error(req, pout, GR_KERR_TOPIC_AUTHORIZATION_FAILED, NULL);
            else if (!topic)
                set_error(req, pout, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION, NULL);
            else if (topic->internal) /* only the coordinators write these */
                set_error(req, pout, GR_KERR_INVALID_TOPIC_EXCEPTION,
                          "Cannot append to an internal topic");
            else
                produce_partition(op, topic, &tin->partition_data[i], pout);
        }
    }
    if (op->outstanding > 0 || op->isr_wait.pending > 0)
        gr_resp_slot_defer(req->slot, produce_cancel, op);
    else
        produce_finish(op);
}
