/* SPDX-License-Identifier: Apache-2.0 */
/* Transaction markers: see control_batch.h. */
#include "protocol/control_batch.h"

#include <errno.h>
#include <string.h>

#include "protocol/reader.h"

#define CONTROL_KEY_SIZE   4 /* int16 version, int16 type */
#define CONTROL_VALUE_SIZE 6 /* int16 version, int32 coordinator epoch */

int gr_control_batch_build(gr_writer_t *w, int64_t producer_id, int16_t producer_epoch,
                           int32_t coordinator_epoch, bool commit, int64_t now_ms)
{
    uint8_t key[CONTROL_KEY_SIZE], value[CONTROL_VALUE_SIZE];
    int16_t type = commit ? GR_CONTROL_TYPE_COMMIT : GR_CONTROL_TYPE_ABORT;
    key[0] = 0;
    key[1] = GR_CONTROL_KEY_VERSION;
    key[2] = (uint8_t)((uint16_t)type >> 8);
    key[3] = (uint8_t)type;
    value[0] = 0;
    value[1] = GR_CONTROL_VALUE_VERSION;
    for (int i = 0; i < 4; i++)
        value[2 + i] = (uint8_t)((uint32_t)coordinator_epoch >> (24 - 8 * i));
    gr_record_t rec = {
        .key = {key, CONTROL_KEY_SIZE},
        .value = {value, CONTROL_VALUE_SIZE},
    };
    gr_batch_header_t h = {
        .partition_leader_epoch = -1,
        .attributes = GR_BATCH_ATTR_CONTROL | GR_BATCH_ATTR_TRANSACTIONAL,
        .base_timestamp = now_ms,
        .max_timestamp = now_ms,
        .producer_id = producer_id,
        .producer_epoch = producer_epoch,
        .base_sequence = -1,
    };
    return gr_batch_build(w, &h, &rec, 1, GR_COMPRESSION_NONE);
}

int gr_control_batch_parse(const uint8_t *batch, size_t size, const gr_batch_header_t *h,
                           gr_control_marker_t *out)
{
    if (!gr_batch_is_control(h) || gr_batch_compression(h) != GR_COMPRESSION_NONE ||
        size < GR_RECORD_BATCH_HEADER_SIZE || h->records_count < 1)
        return -EBADMSG;
    gr_record_iter_t it;
    gr_record_t rec;
    gr_record_iter_init(&it, batch + GR_RECORD_BATCH_HEADER_SIZE,
                        size - GR_RECORD_BATCH_HEADER_SIZE, h->records_count);
    if (gr_record_iter_next(&it, &rec) != 1 || rec.key.len < CONTROL_KEY_SIZE)
        return -EBADMSG;
    const uint8_t *k = rec.key.ptr;
    out->type = (int16_t)(k[2] << 8 | k[3]);
    out->coordinator_epoch = -1;
    if (rec.value.len >= CONTROL_VALUE_SIZE) {
        const uint8_t *v = rec.value.ptr;
        out->coordinator_epoch =
            (int32_t)((uint32_t)v[2] << 24 | (uint32_t)v[3] << 16 | (uint32_t)v[4] << 8 | v[5]);
    }
    return 0;
}
