/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Names and checks of the share-partition state shared by the partition
 * leader, the persister and the share coordinator (share_state.h).
 *
 * Thread: any.
 */
#include "share/share_state.h"

#include <errno.h>

const char *gr_share_record_state_name(int state)
{
    switch (state) {
    case GR_SHARE_RECORD_AVAILABLE:
        return "available";
    case GR_SHARE_RECORD_ACQUIRED:
        return "acquired";
    case GR_SHARE_RECORD_ACKNOWLEDGED:
        return "acknowledged";
    case GR_SHARE_RECORD_ARCHIVED:
        return "archived";
    default:
        return "unknown";
    }
}

bool gr_share_record_state_durable(int state)
{
    return state == GR_SHARE_RECORD_AVAILABLE || state == GR_SHARE_RECORD_ACKNOWLEDGED ||
           state == GR_SHARE_RECORD_ARCHIVED;
}

bool gr_share_ack_type_valid(int type, bool renew_allowed)
{
    if (type >= GR_SHARE_ACK_GAP && type <= GR_SHARE_ACK_REJECT)
        return true;
    return renew_allowed && type == GR_SHARE_ACK_RENEW;
}

int gr_share_state_check(const gr_share_state_t *state)
{
    if (state->batch_count < 0 || (state->batch_count > 0 && !state->batches))
        return -EINVAL;
    int64_t next = state->start_offset;
    for (int32_t i = 0; i < state->batch_count; i++) {
        const gr_share_state_batch_t *b = &state->batches[i];
        if (b->first_offset > b->last_offset || b->first_offset < next)
            return -EINVAL;
        if (!gr_share_record_state_durable(b->state) || b->delivery_count < 0)
            return -EINVAL;
        next = b->last_offset + 1;
    }
    return 0;
}
