/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A coordinator's writes (runtime.h), appended to the partition it leads
 * once the ISR holds min.insync.replicas: the group coordinator batches its
 * records, for a transactional producer too (group/coordinator_records.c);
 * the transaction and share coordinators write a record per change, each
 * as a batch of its own without producer.
 *
 * Runs on: loop thread.
 */
#include <errno.h>

#include "coordinator/runtime.h"
#include "core/context.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "protocol/records.h"
#include "protocol/writer.h"

int gr_coordinator_runtime_append_batch(gr_coordinator_runtime_t *rt, int32_t partition,
                                        const gr_record_t *records, int32_t count,
                                        const gr_coordinator_producer_t *producer,
                                        gr_log_append_info_t *info)
{
    gr_partition_t *p = gr_coordinator_runtime_led_partition(rt, partition);
    if (!p)
        return -EREMOTE;
    if (p->isr_count < p->topic->settings.min_insync_replicas)
        return -EAGAIN; /* Kafka's NOT_ENOUGH_REPLICAS: COORDINATOR_NOT_AVAILABLE */
    int64_t now = gr_broker_now_ms(rt->broker);
    gr_batch_header_t h = {.partition_leader_epoch = p->leader_epoch,
                           .last_offset_delta = count - 1,
                           .base_timestamp = now,
                           .max_timestamp = now,
                           .attributes = producer ? GR_BATCH_ATTR_TRANSACTIONAL : 0,
                           .producer_id = producer ? producer->id : -1,
                           .producer_epoch = producer ? producer->epoch : -1,
                           .base_sequence = -1};
    gr_writer_t batch;
    gr_writer_init(&batch);
    int rc = gr_batch_build(&batch, &h, records, count, GR_COMPRESSION_NONE);
    if (!rc)
        rc = gr_partition_append(p, batch.buf, batch.len, now, info);
    gr_writer_fini(&batch);
    return rc;
}

int gr_coordinator_runtime_append(gr_coordinator_runtime_t *rt, int32_t partition, gr_bytes_t key,
                                  gr_bytes_t value, int64_t *last_offset)
{
    gr_record_t rec = {.key = key, .value = value};
    gr_log_append_info_t info;
    int rc = gr_coordinator_runtime_append_batch(rt, partition, &rec, 1, NULL, &info);
    if (!rc)
        *last_offset = info.last_offset;
    return rc;
}
