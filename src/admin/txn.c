/* SPDX-License-Identifier: Apache-2.0 */
/* gregor-admin transactions: column texts and the abort target (see txn.h). */
#include <errno.h>
#include <stdio.h>

#include "admin/txn.h"

#define NO_TXN_START              (-1)
#define UNKNOWN_COORD_EPOCH_FLOOR 0

static int32_t coordinator_epoch_floor(int64_t epoch)
{
    return epoch < 0 ? UNKNOWN_COORD_EPOCH_FLOOR : (int32_t)epoch;
}

int gr_admin_abort_spec_find(const gr_describe_producers_response_partition_response_t *part,
                             int64_t start_offset, gr_admin_abort_spec_t *out)
{
    for (int32_t i = 0; i < part->active_producers_count; i++) {
        const gr_describe_producers_response_producer_state_t *p = &part->active_producers[i];
        if (p->current_txn_start_offset < 0 || p->current_txn_start_offset != start_offset)
            continue;
        out->producer_id = p->producer_id;
        out->producer_epoch = (int16_t)p->producer_epoch;
        out->coordinator_epoch = coordinator_epoch_floor(p->coordinator_epoch);
        return 0;
    }
    return -ENOENT;
}

int gr_admin_abort_spec_given(int64_t producer_id, int64_t producer_epoch,
                              int64_t coordinator_epoch, gr_admin_abort_spec_t *out)
{
    if (producer_id < 0 || producer_epoch < 0 || producer_epoch > INT16_MAX ||
        coordinator_epoch > INT32_MAX)
        return -EINVAL;
    out->producer_id = producer_id;
    out->producer_epoch = (int16_t)producer_epoch;
    out->coordinator_epoch = coordinator_epoch_floor(coordinator_epoch);
    return 0;
}

size_t gr_admin_txn_partitions_text(const gr_describe_transactions_response_transaction_state_t *s,
                                    char *out, size_t size)
{
    size_t len = 0;
    if (size > 0)
        out[0] = '\0';
    for (int32_t t = 0; t < s->topics_count; t++) {
        const gr_describe_transactions_response_topic_data_t *topic = &s->topics[t];
        for (int32_t p = 0; p < topic->partitions_count; p++) {
            int n =
                snprintf(len < size ? out + len : NULL, len < size ? size - len : 0, "%s%.*s-%d",
                         len ? "," : "", topic->topic.len > 0 ? topic->topic.len : 0,
                         topic->topic.ptr ? topic->topic.ptr : "", topic->partitions[p]);
            if (n > 0)
                len += (size_t)n;
        }
    }
    return len;
}

void gr_admin_txn_times(int64_t start_ms, int64_t now_ms, char start[GR_ADMIN_TXN_NUMBER_MAX],
                        char duration[GR_ADMIN_TXN_NUMBER_MAX])
{
    if (start_ms <= NO_TXN_START) {
        snprintf(start, GR_ADMIN_TXN_NUMBER_MAX, "None");
        snprintf(duration, GR_ADMIN_TXN_NUMBER_MAX, "None");
        return;
    }
    snprintf(start, GR_ADMIN_TXN_NUMBER_MAX, "%lld", (long long)start_ms);
    snprintf(duration, GR_ADMIN_TXN_NUMBER_MAX, "%lld", (long long)(now_ms - start_ms));
}

void gr_admin_txn_offset_text(int64_t offset, char out[GR_ADMIN_TXN_NUMBER_MAX])
{
    if (offset < 0)
        snprintf(out, GR_ADMIN_TXN_NUMBER_MAX, "None");
    else
        snprintf(out, GR_ADMIN_TXN_NUMBER_MAX, "%lld", (long long)offset);
}
