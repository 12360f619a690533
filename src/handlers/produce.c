/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Produce: validate each partition's record batches and append them.
 *
 * Per partition: the topic and partition must exist (no auto-creation here,
 * as Kafka); every batch is magic 2 with a good CRC-32C, sound lengths,
 * record count and offset deltas (gr_batch_validate); a batch larger than
 * max.message.bytes is MESSAGE_TOO_LARGE; CreateTime timestamps outside the
 * topic's before/after window are INVALID_TIMESTAMP; LogAppendTime topics
 * get the broker's time written into each batch (CRC rewritten). The batches
 * are then appended as they came, compressed or not.
 *
 * Single node: acks=-1 completes once the local append is done, and fails
 * with NOT_ENOUGH_REPLICAS when min.insync.replicas exceeds the ISR of one.
 * acks=0 gets no response at all.
 *
 * The request frame is owned by this request's slot and nothing else reads
 * it after decoding, so batches are stamped with offsets in place.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "broker/broker.h"
#include "handlers/handlers.h"
#include "produce.h"
#include "protocol/records.h"

#define GR_ACKS_NONE 0
#define GR_ACKS_ALL  (-1)
#define GR_ISR_SIZE  1 /* single node: the leader alone */
#define GR_ERROR_MAX 200

typedef gr_produce_response_partition_produce_response_t partition_resp_t;

static void set_error(gr_request_t *req, partition_resp_t *out, gr_kerr_t err, const char *msg)
{
    out->error_code = err;
    out->base_offset = -1;
    if (msg) {
        char *copy = gr_arena_strndup(req->arena, msg, strlen(msg));
        if (copy)
            out->error_message = gr_str(copy);
    }
}

/* Checks every batch in records; returns the first error (msg filled). */
static gr_kerr_t check_batches(gr_broker_t *b, gr_topic_t *topic, uint8_t *data, size_t len,
                               char *msg, size_t msglen)
{
    const gr_topic_settings_t *s = &topic->settings;
    int64_t now = gr_broker_now_ms(b);
    size_t pos = 0;
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
        if (h.magic != GR_RECORD_BATCH_MAGIC_V2) {
            snprintf(msg, msglen, "Record batch magic %d is not supported", h.magic);
            return GR_KERR_UNSUPPORTED_FOR_MESSAGE_FORMAT;
        }
        if ((int64_t)size > s->max_message_bytes) {
            snprintf(msg, msglen, "Record batch of %zu bytes exceeds max.message.bytes %d", size,
                     s->max_message_bytes);
            return GR_KERR_MESSAGE_TOO_LARGE;
        }
        gr_kerr_t err = gr_batch_validate(data + pos, size);
        if (err) {
            snprintf(msg, msglen, "Record batch failed validation");
            return err;
        }
        if (s->timestamp_type == GR_TIMESTAMP_CREATE_TIME &&
            !(h.attributes & GR_BATCH_ATTR_CONTROL)) {
            if ((h.base_timestamp >= 0 && now - h.base_timestamp > s->timestamp_before_max_ms) ||
                h.max_timestamp - now > s->timestamp_after_max_ms) {
                snprintf(msg, msglen, "Timestamp out of the acceptable range");
                return GR_KERR_INVALID_TIMESTAMP;
            }
        } else if (s->timestamp_type == GR_TIMESTAMP_LOG_APPEND_TIME) {
            gr_batch_set_log_append_time(data + pos, size, now);
        }
        pos += size;
    }
    return GR_KERR_NONE;
}

/*
 * A topic whose compression.type names a codec stores every batch with it:
 * batches in another codec are rewritten into out (left empty when every
 * batch already matches). Runs on the loop thread: batches are bounded by
 * max.message.bytes. Returns 0 or -errno.
 */
static int recompress_batches(const gr_topic_t *topic, const uint8_t *data, size_t len,
                              gr_writer_t *out)
{
    int target = topic->settings.compression;
    if (target < 0)
        return 0;
    bool needed = false;
    for (size_t pos = 0; pos < len && !needed;) {
        gr_batch_header_t h;
        (void)gr_batch_header_parse(data + pos, len - pos, &h);
        needed = (int)gr_batch_compression(&h) != target;
        pos += (size_t)gr_batch_size(&h);
    }
    for (size_t pos = 0; needed && pos < len;) {
        gr_batch_header_t h;
        (void)gr_batch_header_parse(data + pos, len - pos, &h);
        size_t size = (size_t)gr_batch_size(&h);
        int rc = (int)gr_batch_compression(&h) == target
                     ? (gr_write_raw(out, data + pos, size), out->err)
                     : gr_batch_recompress(data + pos, size, (gr_compression_t)target, out);
        if (rc)
            return rc;
        pos += size;
    }
    return 0;
}

static void produce_partition(gr_broker_t *b, gr_request_t *req, gr_topic_t *topic, int16_t acks,
                              const gr_produce_request_partition_produce_data_t *in,
                              partition_resp_t *out)
{
    char msg[GR_ERROR_MAX];
    gr_partition_t *p = gr_topic_partition(topic, in->index);
    if (!p || !p->log) {
        set_error(req, out, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION, NULL);
        return;
    }
    if (acks == GR_ACKS_ALL && topic->settings.min_insync_replicas > GR_ISR_SIZE) {
        snprintf(msg, sizeof msg, "ISR of %d is below min.insync.replicas %d", GR_ISR_SIZE,
                 topic->settings.min_insync_replicas);
        set_error(req, out, GR_KERR_NOT_ENOUGH_REPLICAS, msg);
        return;
    }
    if (in->records.len <= 0) {
        set_error(req, out, GR_KERR_CORRUPT_MESSAGE, "Produce request has no record batches");
        return;
    }
    uint8_t *data = (uint8_t *)in->records.ptr; /* our frame: see the file comment */
    gr_kerr_t err = check_batches(b, topic, data, (size_t)in->records.len, msg, sizeof msg);
    if (err) {
        set_error(req, out, err, msg);
        return;
    }
    gr_writer_t recompressed;
    gr_writer_init(&recompressed);
    size_t len = (size_t)in->records.len;
    int rc = recompress_batches(topic, data, len, &recompressed);
    if (rc == 0 && recompressed.len > 0) {
        data = recompressed.buf;
        len = recompressed.len;
    }
    gr_log_append_info_t info;
    if (rc == 0)
        rc = gr_log_append(p->log, data, len, p->leader_epoch, gr_broker_now_ms(b), &info);
    gr_writer_fini(&recompressed);
    if (rc) {
        /* A batch over segment.bytes is the client's error, not the log's. */
        if (rc != -EMSGSIZE)
            gr_logf(&b->log, GR_LOG_ERROR, "log", "append to %s-%d failed: %s", topic->name,
                    in->index, strerror(-rc));
        set_error(req, out,
                  rc == -EMSGSIZE ? GR_KERR_RECORD_LIST_TOO_LARGE : gr_kerr_from_errno(rc), NULL);
        return;
    }
    gr_log_set_high_watermark(p->log, gr_log_end_offset(p->log));
    out->base_offset = info.first_offset;
    out->log_append_time_ms =
        topic->settings.timestamp_type == GR_TIMESTAMP_LOG_APPEND_TIME ? info.log_append_time : -1;
    out->log_start_offset = info.log_start_offset;
    gr_fetch_wake(b, p);
}

void gr_handle_produce(gr_broker_t *b, gr_request_t *req)
{
    gr_produce_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_produce_response_t resp;
    gr_produce_response_init(&resp);
    resp.responses = gr_request_alloc(
        req, (size_t)(in.topic_data_count > 0 ? in.topic_data_count : 1) * sizeof(*resp.responses));
    if (!resp.responses) {
        gr_conn_close(req->conn, "out of memory");
        return;
    }
    resp.responses_count = in.topic_data_count > 0 ? in.topic_data_count : 0;
    for (int32_t t = 0; t < resp.responses_count; t++) {
        const gr_produce_request_topic_produce_data_t *tin = &in.topic_data[t];
        gr_produce_response_topic_produce_response_t *tout = &resp.responses[t];
        gr_produce_response_topic_produce_response_init(tout);
        tout->name = tin->name;
        int32_t n = tin->partition_data_count > 0 ? tin->partition_data_count : 0;
        tout->partition_responses =
            gr_request_alloc(req, (size_t)(n ? n : 1) * sizeof(*tout->partition_responses));
        if (!tout->partition_responses) {
            gr_conn_close(req->conn, "out of memory");
            return;
        }
        tout->partition_responses_count = n;
        gr_topic_t *topic = gr_topics_find(&b->topics, tin->name.ptr, (size_t)tin->name.len);
        for (int32_t i = 0; i < n; i++) {
            partition_resp_t *pout = &tout->partition_responses[i];
            gr_produce_response_partition_produce_response_init(pout);
            pout->index = tin->partition_data[i].index;
            if (!topic)
                set_error(req, pout, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION, NULL);
            else
                produce_partition(b, req, topic, in.acks, &tin->partition_data[i], pout);
        }
    }
    if (in.acks == GR_ACKS_NONE)
        gr_request_respond_none(req);
    else
        gr_request_respond(req, &resp);
}
