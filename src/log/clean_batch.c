/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compaction of one record batch (see clean_batch.h for the rules).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log/clean_batch.h"

/* Decompressed records of a whole batch; rc as gr_batch_decompress. */
static int batch_records(const uint8_t *batch, size_t size, gr_batch_header_t *h, uint8_t **records,
                         size_t *len)
{
    if (gr_batch_header_parse(batch, size, h) < 0 || gr_batch_size(h) != (int64_t)size)
        return -EBADMSG;
    return gr_batch_decompress(batch, size, records, len);
}

int gr_clean_batch_map(const uint8_t *batch, size_t size, int64_t from, gr_offset_map_t *map)
{
    gr_batch_header_t h;
    if (gr_batch_header_parse(batch, size, &h) < 0)
        return -EBADMSG;
    if (gr_clean_batch_keeps_whole(&h) || h.base_offset + h.last_offset_delta < from)
        return 0;
    uint8_t *records = NULL;
    size_t len = 0;
    int rc = batch_records(batch, size, &h, &records, &len);
    if (rc < 0)
        return rc;
    gr_record_iter_t it;
    gr_record_t rec;
    int mapped = 0;
    gr_record_iter_init(&it, records, len, h.records_count);
    while ((rc = gr_record_iter_next(&it, &rec)) == 1) {
        int64_t offset = h.base_offset + rec.offset_delta;
        if (rec.key.len < 0 || offset < from)
            continue;
        gr_offset_map_put(map, rec.key.ptr, (size_t)rec.key.len, offset);
        mapped++;
    }
    free(records);
    return rc < 0 ? rc : mapped;
}

/* Whether rec (at offset) survives, and whether it is a tombstone. */
static bool record_survives(const gr_record_t *rec, int64_t offset, const gr_offset_map_t *map,
                            int64_t horizon, int64_t now_ms)
{
    if (rec->key.len < 0)
        return false; /* Kafka drops keyless records from compacted logs */
    int64_t latest = gr_offset_map_get(map, rec->key.ptr, (size_t)rec->key.len);
    if (latest >= 0 && offset < latest)
        return false;
    if (rec->value.len < 0 && horizon >= 0 && horizon <= now_ms)
        return false;
    return true;
}

static int64_t saturating_add(int64_t a, int64_t b)
{
    return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Writes the kept records as a new batch: same header but count, horizon, max timestamp. */
static int write_rewritten(const gr_batch_header_t *h, gr_record_t *kept, int count,
                           int64_t new_horizon, gr_writer_t *out, gr_clean_batch_result_t *res)
{
    gr_batch_header_t nh = *h;
    int64_t max_ts = GR_LOG_NO_TIMESTAMP;
    if (new_horizon >= 0) {
        nh.attributes = (int16_t)(nh.attributes | GR_BATCH_ATTR_DELETE_HORIZON);
        nh.base_timestamp = new_horizon;
    }
    for (int i = 0; i < count; i++) {
        int64_t ts = h->base_timestamp + kept[i].timestamp_delta;
        kept[i].timestamp_delta = ts - nh.base_timestamp;
        if (ts > max_ts)
            max_ts = ts;
    }
    if (!(h->attributes & GR_BATCH_ATTR_LOG_APPEND_TIME))
        nh.max_timestamp = max_ts;
    res->max_timestamp = nh.max_timestamp;
    res->delete_horizon_ms =
        nh.attributes & GR_BATCH_ATTR_DELETE_HORIZON ? nh.base_timestamp : GR_LOG_NO_TIMESTAMP;
    return gr_batch_build(out, &nh, kept, count, gr_batch_compression(h));
}

int gr_clean_batch(const uint8_t *batch, size_t size, const gr_offset_map_t *map, int64_t now_ms,
                   int64_t delete_retention_ms, gr_writer_t *out, gr_clean_batch_result_t *res)
{
    gr_batch_header_t h;
    memset(res, 0, sizeof *res);
    res->delete_horizon_ms = GR_LOG_NO_TIMESTAMP;
    if (gr_batch_header_parse(batch, size, &h) < 0 || gr_batch_size(&h) != (int64_t)size)
        return -EBADMSG;
    bool has_horizon = (h.attributes & GR_BATCH_ATTR_DELETE_HORIZON) != 0;
    int64_t horizon = has_horizon ? h.base_timestamp : GR_LOG_NO_TIMESTAMP;
    res->records_in = h.records_count;
    res->max_timestamp = h.max_timestamp;
    res->last_offset = h.base_offset + h.last_offset_delta;
    if (gr_clean_batch_keeps_whole(&h)) {
        res->records_kept = h.records_count;
        res->delete_horizon_ms = horizon;
        gr_write_raw(out, batch, size);
        return out->err;
    }
    uint8_t *records = NULL;
    size_t len = 0;
    int rc = gr_batch_decompress(batch, size, &records, &len);
    if (rc < 0)
        return rc;
    gr_record_t *kept = h.records_count > 0 ? malloc((size_t)h.records_count * sizeof *kept) : NULL;
    if (h.records_count > 0 && !kept) {
        free(records);
        return -ENOMEM;
    }
    gr_record_iter_t it;
    gr_record_t rec;
    int count = 0;
    gr_record_iter_init(&it, records, len, h.records_count);
    while ((rc = gr_record_iter_next(&it, &rec)) == 1) {
        if (!record_survives(&rec, h.base_offset + rec.offset_delta, map, horizon, now_ms))
            continue;
        if (rec.value.len < 0)
            res->tombstones_kept++;
        kept[count++] = rec;
    }
    if (rc < 0)
        goto done;
    rc = 0;
    res->records_kept = count;
    bool stamp = res->tombstones_kept > 0 && !has_horizon;
    if (count == h.records_count && !stamp) {
        res->delete_horizon_ms = horizon;
        gr_write_raw(out, batch, size);
        rc = out->err;
    } else if (count > 0) {
        rc = write_rewritten(
            &h, kept, count,
            stamp ? saturating_add(now_ms, delete_retention_ms) : GR_LOG_NO_TIMESTAMP, out, res);
    }
    /* The stamp outlives the tombstones it was for (the batch keeps its
     * header); reported without one, it would make the log due at every
     * tick for a cleaning that finds nothing to drop. */
    if (res->tombstones_kept == 0)
        res->delete_horizon_ms = GR_LOG_NO_TIMESTAMP;
done:
    free(kept);
    free(records);
    return rc;
}

int gr_clean_batch_stamp_horizon(const uint8_t *batch, size_t size, int64_t horizon_ms,
                                 gr_writer_t *out, gr_clean_batch_result_t *res)
{
    gr_batch_header_t h;
    memset(res, 0, sizeof *res);
    res->delete_horizon_ms = GR_LOG_NO_TIMESTAMP;
    uint8_t *records = NULL;
    size_t len = 0;
    int rc = batch_records(batch, size, &h, &records, &len);
    if (rc < 0)
        return rc;
    res->records_in = h.records_count;
    res->max_timestamp = h.max_timestamp;
    res->last_offset = h.base_offset + h.last_offset_delta;
    gr_record_t *kept = h.records_count > 0 ? malloc((size_t)h.records_count * sizeof *kept) : NULL;
    if (h.records_count > 0 && !kept) {
        free(records);
        return -ENOMEM;
    }
    gr_record_iter_t it;
    int count = 0;
    gr_record_iter_init(&it, records, len, h.records_count);
    while (count < h.records_count && (rc = gr_record_iter_next(&it, &kept[count])) == 1)
        count++;
    if (rc >= 0) {
        res->records_kept = count;
        rc = write_rewritten(&h, kept, count, horizon_ms, out, res);
    }
    free(kept);
    free(records);
    return rc;
}

int gr_clean_batch_write_empty(const uint8_t *batch, size_t size, gr_writer_t *out)
{
    gr_batch_header_t h;
    if (gr_batch_header_parse(batch, size, &h) < 0)
        return -EBADMSG;
    h.attributes &= (int16_t) ~(GR_BATCH_ATTR_COMPRESSION_MASK | GR_BATCH_ATTR_DELETE_HORIZON);
    h.base_timestamp = h.max_timestamp;
    return gr_batch_build(out, &h, NULL, 0, GR_COMPRESSION_NONE);
}
