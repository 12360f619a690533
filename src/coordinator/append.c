/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A coordinator's write of one record (runtime.h): the group coordinator
 * batches its own (group/coordinator_records.c); the transaction and share
 * coordinators write a record per change, each as a batch of its own
 * without producer, appended to the partition they lead.
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

int gr_coordinator_runtime_append(gr_coordinator_runtime_t *rt, int32_t partition, gr_bytes_t key,
                                  gr_bytes_t value, int64_t *last_offset)
{
    gr_partition_t *p = gr_coordinator_runtime_led_partition(rt, partition);
    if (!p)
        return -EREMOTE;
    if (p->isr_count < p->topic->settings.min_insync_replicas)
        return -EAGAIN; /* Kafka's NOT_ENOUGH_REPLICAS: COORDINATOR_NOT_AVAILABLE */
    int64_t now = gr_broker_now_ms(rt->broker);
    gr_record_t rec = {.key = key, .value = value};
    gr_batch_header_t h = {.partition_leader_epoch = p->leader_epoch,
                           .base_timestamp = now,
                           .max_timestamp = now,
                           .producer_id = -1,
                           .producer_epoch = -1,
                           .base_sequence = -1};
    gr_writer_t batch;
    gr_writer_init(&batch);
    int rc = gr_batch_build(&batch, &h, &rec, 1, GR_COMPRESSION_NONE);
    gr_log_append_info_t info;
    if (!rc)
        rc = gr_partition_append(p, batch.buf, batch.len, now, &info);
    if (!rc)
        *last_offset = info.last_offset;
    gr_writer_fini(&batch);
    return rc;
}
