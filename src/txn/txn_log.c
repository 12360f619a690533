/* SPDX-License-Identifier: Apache-2.0 */
/*
 * __transaction_state records and writes. One record per change of a
 * transactional id: key = int16 version 0 + TransactionLogKey, value = int16
 * version 0 + TransactionLogValue (Kafka's layout, so Kafka's tools read the
 * topic; version 1 values are read too), a tombstone when the id expires.
 * The partition list is null in Empty, as Kafka writes it.
 *
 * A write is one uncompressed batch appended to the id's partition, which
 * this broker leads; it counts once the high watermark covers it (every ISR
 * member has it), watched through the partition's waiter list. Until then
 * the id's transition stays pending. A write refused by the log, an ISR
 * below min.insync.replicas, or leadership lost meanwhile ends it with an
 * error (Kafka's coordinator maps them as below).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/record.h"
#include "core/context.h"
#include "gen/transaction_log.h"
#include "log/log.h"
#include "metadata/topics.h"
#include "protocol/arena.h"
#include "protocol/reader.h"
#include "protocol/records.h"
#include "protocol/writer.h"
#include "txn/txn_int.h"

#define GR_TXN_KEY_VERSION   0
#define GR_TXN_VALUE_VERSION 0

/* --- encoding ---------------------------------------------------------------------- */

static int encode_key(gr_writer_t *w, const char *id)
{
    gr_transaction_log_key_t key = {.transactional_id = gr_str(id)};
    gr_write_int16(w, GR_TXN_KEY_VERSION);
    int rc = gr_transaction_log_key_encode(w, GR_TXN_KEY_VERSION, &key);
    return rc ? rc : w->err;
}

/* The image's partitions grouped by topic (parts are sorted), in arrays of *arena. */
static int group_parts(const gr_txn_image_t *im, gr_arena_t *arena, gr_transaction_log_value_t *v)
{
    v->transaction_partitions_null = im->state == GR_TXN_EMPTY;
    if (im->part_count == 0)
        return 0;
    v->transaction_partitions =
        gr_arena_alloc(arena, sizeof(*v->transaction_partitions) * (size_t)im->part_count);
    int32_t *ids = gr_arena_alloc(arena, sizeof(int32_t) * (size_t)im->part_count);
    if (!v->transaction_partitions || !ids)
        return -ENOMEM;
    gr_transaction_log_value_partitions_schema_t *cur = NULL;
    for (int32_t i = 0; i < im->part_count; i++) {
        const gr_txn_tp_t *tp = &im->parts[i];
        if (!cur || strcmp(cur->topic.ptr, tp->topic) != 0) {
            cur = &v->transaction_partitions[v->transaction_partitions_count++];
            cur->topic = gr_str(tp->topic);
            cur->partition_ids = &ids[i];
            cur->partition_ids_count = 0;
        }
        cur->partition_ids[cur->partition_ids_count++] = tp->partition;
    }
    return 0;
}

static int encode_value(gr_writer_t *w, const gr_txn_image_t *im)
{
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_transaction_log_value_t v;
    gr_transaction_log_value_init(&v);
    v.producer_id = im->producer_id;
    v.producer_epoch = im->producer_epoch;
    v.transaction_timeout_ms = im->timeout_ms;
    v.transaction_status = (int8_t)im->state;
    v.transaction_last_update_timestamp_ms = im->update_ms;
    v.transaction_start_timestamp_ms = im->start_ms;
    int rc = group_parts(im, &arena, &v);
    gr_write_int16(w, GR_TXN_VALUE_VERSION);
    if (!rc)
        rc = gr_transaction_log_value_encode(w, GR_TXN_VALUE_VERSION, &v);
    gr_arena_fini(&arena);
    return rc ? rc : w->err;
}

/* --- decoding (replay) --------------------------------------------------------------- */

static int image_from_value(const gr_transaction_log_value_t *v, gr_txn_image_t *im)
{
    if (v->transaction_status < 0 || v->transaction_status >= GR_TXN_STATE_COUNT ||
        v->producer_id < 0)
        return -EBADMSG;
    im->producer_id = v->producer_id;
    im->producer_epoch = v->producer_epoch;
    im->timeout_ms = v->transaction_timeout_ms;
    im->state = (gr_txn_state_t)v->transaction_status;
    im->update_ms = v->transaction_last_update_timestamp_ms;
    im->start_ms = v->transaction_start_timestamp_ms;
    for (int32_t i = 0; i < v->transaction_partitions_count; i++) {
        const gr_transaction_log_value_partitions_schema_t *t = &v->transaction_partitions[i];
        if (t->topic.len <= 0)
            return -EBADMSG;
        for (int32_t j = 0; j < t->partition_ids_count; j++)
            if (gr_txn_image_add(im, t->topic, t->partition_ids[j]) < 0)
                return -ENOMEM;
    }
    return 0;
}

static int decode_value(gr_bytes_t value, gr_arena_t *arena, gr_txn_image_t *im)
{
    gr_reader_t r;
    int version = gr_coordinator_record_open(value, GR_TRANSACTION_LOG_VALUE_MAX_VERSION, &r);
    gr_transaction_log_value_t v;
    if (version < 0 || gr_transaction_log_value_decode(&r, (int16_t)version, arena, &v) < 0)
        return -EBADMSG;
    return image_from_value(&v, im);
}

int gr_txn_apply_record(gr_txn_coordinator_t *co, int32_t partition, gr_bytes_t key,
                        gr_bytes_t value)
{
    gr_reader_t kr;
    int version = gr_coordinator_record_open(key, GR_TXN_KEY_VERSION, &kr); /* the only one */
    if (version < 0)
        return -EBADMSG;
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_transaction_log_key_t k;
    int rc = -EBADMSG;
    if (gr_transaction_log_key_decode(&kr, (int16_t)version, &arena, &k) == 0 &&
        k.transactional_id.len > 0)
        rc = 0;
    gr_txn_t *txn = rc ? NULL : gr_txn_lookup(co, k.transactional_id);
    if (rc == 0 && value.len < 0) {
        if (txn)
            gr_txn_remove(co, txn, GR_KERR_NOT_COORDINATOR);
    } else if (rc == 0) {
        gr_txn_image_t im;
        gr_txn_image_init(&im);
        rc = decode_value(value, &arena, &im);
        if (rc == 0 && !txn && !(txn = gr_txn_insert(co, k.transactional_id, partition)))
            rc = -ENOMEM;
        if (rc == 0)
            gr_txn_image_move(&txn->cur, &im);
        gr_txn_image_fini(&im);
    }
    gr_arena_fini(&arena);
    return rc;
}

/* --- writing ----------------------------------------------------------------------- */

/* Kafka's coordinator answers a failed write so: the client finds the coordinator again. */
static gr_kerr_t write_error(int rc)
{
    if (rc == -EREMOTE || rc == -ENOENT)
        return GR_KERR_NOT_COORDINATOR;
    return GR_KERR_COORDINATOR_NOT_AVAILABLE;
}

void gr_txn_write_abandon(gr_txn_t *txn)
{
    gr_partition_unwait(&txn->hw_wait);
}

/* Whether the write is in the ISR now; ends it when it is, or when it cannot be. */
static bool check_written(gr_txn_coordinator_t *co, gr_txn_t *txn, bool gone)
{
    gr_partition_t *p = gone ? NULL : gr_txn_led_partition(co, txn->key.partition);
    if (!p) {
        gr_txn_write_abandon(txn);
        gr_txn_write_done(co, txn, GR_KERR_NOT_COORDINATOR);
        return true;
    }
    if (gr_log_high_watermark(p->log) < txn->write_end)
        return false;
    gr_txn_write_abandon(txn);
    gr_txn_write_done(co, txn, GR_KERR_NONE);
    return true;
}

static void on_partition_news(void *owner, gr_partition_t *p, bool gone)
{
    (void)p;
    gr_txn_t *txn = owner;
    check_written(txn->co, txn, gone);
}

/* Appends one record (value NULL: a tombstone) to txn's partition. 0 or -errno. */
static int append_record(gr_txn_coordinator_t *co, gr_txn_t *txn, const gr_txn_image_t *im)
{
    gr_writer_t kv;
    gr_writer_init(&kv);
    int rc = encode_key(&kv, txn->key.id);
    size_t key_len = kv.len;
    if (!rc && im)
        rc = encode_value(&kv, im);
    int64_t last_offset;
    if (!rc)
        rc = gr_coordinator_runtime_append(
            &co->runtime, txn->key.partition, (gr_bytes_t){kv.buf, (int32_t)key_len},
            im ? (gr_bytes_t){kv.buf + key_len, (int32_t)(kv.len - key_len)}
               : (gr_bytes_t){NULL, GR_NULL_LEN},
            &last_offset);
    if (!rc)
        txn->write_end = last_offset + 1;
    gr_writer_fini(&kv);
    if (rc && rc != -EAGAIN && rc != -EREMOTE)
        gr_logf(&co->broker->log, GR_LOG_ERROR, GR_TXN_LOG_TAG, "writing to %s-%d failed: %s",
                GR_TRANSACTION_STATE_TOPIC, txn->key.partition, strerror(-rc));
    return rc;
}

/* Starts the wait for the ISR, or ends the write now. */
static void await_isr(gr_txn_coordinator_t *co, gr_txn_t *txn, int rc)
{
    if (rc) {
        gr_txn_write_done(co, txn, write_error(rc));
        return;
    }
    if (check_written(co, txn, false))
        return;
    txn->hw_wait.wake = on_partition_news;
    txn->hw_wait.owner = txn;
    gr_partition_wait(gr_txn_led_partition(co, txn->key.partition), &txn->hw_wait);
}

void gr_txn_write(gr_txn_coordinator_t *co, gr_txn_t *txn, gr_txn_image_t *im, gr_txn_after_t after)
{
    gr_txn_image_move(&txn->next_image, im);
    txn->pending = true;
    txn->after = after;
    await_isr(co, txn, append_record(co, txn, &txn->next_image));
}

void gr_txn_write_tombstone(gr_txn_coordinator_t *co, gr_txn_t *txn)
{
    txn->pending = true;
    txn->after = GR_TXN_AFTER_FORGET;
    await_isr(co, txn, append_record(co, txn, NULL));
}
