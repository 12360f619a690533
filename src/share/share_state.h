/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The durable state of one share-partition (KIP-932): a share group's view
 * of one topic partition, as the share coordinator keeps it on
 * __share_group_state and as the partition leader hands it over and reads
 * it back. The same shape travels in ReadShareGroupState and
 * WriteShareGroupState and in the ShareSnapshot / ShareUpdate records.
 *
 * A share-partition's records below start_offset are done (acknowledged or
 * archived). From start_offset on, state batches name ranges in a state
 * other than available or with a delivery count above zero; offsets no
 * batch names are available, never delivered. Only AVAILABLE,
 * ACKNOWLEDGED and ARCHIVED are durable: an acquired record is persisted
 * as available with its delivery count, so a new leader redelivers what was
 * in flight and nothing that was acknowledged.
 *
 * Invariants of a gr_share_state_t that gr_share_state_check accepts:
 * batches sorted by first_offset, not overlapping, first <= last, every
 * first_offset >= start_offset, states among the durable ones, delivery
 * counts >= 0.
 *
 * Thread: any (plain data).
 */
#ifndef GR_SHARE_STATE_H
#define GR_SHARE_STATE_H

#include <stdbool.h>
#include <stdint.h>

/* A record's delivery state (Kafka's RecordState ids). */
typedef enum gr_share_record_state {
    GR_SHARE_RECORD_AVAILABLE = 0,
    GR_SHARE_RECORD_ACQUIRED = 1,
    GR_SHARE_RECORD_ACKNOWLEDGED = 2,
    GR_SHARE_RECORD_ARCHIVED = 4,
} gr_share_record_state_t;

/* AcknowledgeTypes of ShareFetch / ShareAcknowledge (Kafka's
 * AcknowledgeType ids; RENEW is KIP-1222, ShareFetch/ShareAcknowledge v2). */
typedef enum gr_share_ack_type {
    GR_SHARE_ACK_GAP = 0,
    GR_SHARE_ACK_ACCEPT = 1,
    GR_SHARE_ACK_RELEASE = 2,
    GR_SHARE_ACK_REJECT = 3,
    GR_SHARE_ACK_RENEW = 4,
} gr_share_ack_type_t;

/* The start offset of a share-partition whose group has no durable state
 * yet: the leader resolves it from share.auto.offset.reset. */
#define GR_SHARE_START_OFFSET_UNINITIALIZED (-1)

/* The state epoch of a share-partition never initialized. */
#define GR_SHARE_STATE_EPOCH_NONE 0

typedef struct gr_share_state_batch {
    int64_t first_offset;
    int64_t last_offset; /* inclusive */
    int8_t state;        /* gr_share_record_state_t, durable ones only */
    int16_t delivery_count;
} gr_share_state_batch_t;

typedef struct gr_share_state {
    int32_t state_epoch;
    int32_t leader_epoch;
    int64_t start_offset; /* or GR_SHARE_START_OFFSET_UNINITIALIZED */
    gr_share_state_batch_t *batches;
    int32_t batch_count;
} gr_share_state_t;

/* The lower-case name of a record state ("available", "acquired", ...), or
 * "unknown". */
const char *gr_share_record_state_name(int state);

/* Whether a record state may be persisted (available, acknowledged,
 * archived). */
bool gr_share_record_state_durable(int state);

/* Whether an acknowledge type is one of Kafka's (0-3, or 4 when renew
 * acknowledgements are allowed: ShareFetch/ShareAcknowledge v2 with
 * IsRenewAck). */
bool gr_share_ack_type_valid(int type, bool renew_allowed);

/* Checks a state against the invariants above. Returns 0, or -EINVAL. */
int gr_share_state_check(const gr_share_state_t *state);

#endif
