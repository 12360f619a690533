/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to share_partition*.c: the range array and the primitives every
 * operation is built from.
 *
 * Invariants (gr_share_partition_check asserts them in debug builds):
 * - ranges[0..count) cover [start_offset, end_offset) exactly: sorted,
 *   contiguous, first <= last; count == 0 iff start_offset == end_offset;
 * - an ACQUIRED range has an owner and a deadline, any other has neither
 *   (owner NULL, deadline 0);
 * - the head range is never ACKNOWLEDGED or ARCHIVED (the start offset
 *   moved past it: gr_share_partition_trim_head);
 * - acquired == the records of all ACQUIRED ranges, and each member's
 *   records == those of the ranges it owns; a member with none is freed.
 * Equal neighbours (same state, delivery count, owner, deadline) are merged
 * by gr_share_partition_coalesce after each operation; that keeps the
 * array short, correctness does not depend on it.
 */
#ifndef GR_SHARE_PARTITION_INT_H
#define GR_SHARE_PARTITION_INT_H

#include "share/share_partition.h"

/* A member holding records; shared by its ranges (compared by pointer). */
typedef struct gr_share_owner {
    int64_t records; /* acquired records it holds */
    char id[];
} gr_share_owner_t;

typedef struct gr_share_range {
    int64_t first;
    int64_t last;            /* inclusive */
    int64_t deadline;        /* lock deadline when ACQUIRED, else 0 */
    gr_share_owner_t *owner; /* when ACQUIRED, else NULL */
    int16_t delivery_count;
    int8_t state; /* gr_share_record_state_t */
} gr_share_range_t;

struct gr_share_partition {
    gr_share_partition_config_t config;
    int32_t state_epoch;
    int32_t leader_epoch;
    int64_t start_offset;
    int64_t end_offset;
    gr_share_range_t *ranges;
    int32_t count;
    int32_t capacity;
    gr_share_owner_t **owners;
    int32_t owner_count;
    int32_t owner_capacity;
    int64_t acquired; /* records ACQUIRED */
    bool changed;     /* durable state changed since the last export */
};

static inline int64_t gr_share_range_len(const gr_share_range_t *r)
{
    return r->last - r->first + 1;
}

/* Makes room for `more` ranges beyond count. 0 or -ENOMEM. */
int gr_share_partition_reserve(gr_share_partition_t *sp, int64_t more);

/* The index of the range holding offset (start <= offset < end). */
int32_t gr_share_partition_find(const gr_share_partition_t *sp, int64_t offset);

/* Splits so that a range starts at offset (start < offset < end; no-op at a
 * boundary). Needs one reserved slot. Returns the index of the range that
 * starts at offset. */
int32_t gr_share_partition_split(gr_share_partition_t *sp, int64_t offset);

/* Splits so that [first, last] (inside the window) is whole ranges. Needs
 * two reserved slots. Returns the index of the range starting at first;
 * *end_index (out) one past the range ending at last. */
int32_t gr_share_partition_isolate(gr_share_partition_t *sp, int64_t first, int64_t last,
                                   int32_t *end_index);

/* Appends [first, last] at end_offset (first == end_offset) as AVAILABLE
 * with delivery count 0. Needs one reserved slot. Returns its index. */
int32_t gr_share_partition_append(gr_share_partition_t *sp, int64_t first, int64_t last);

/* Finds or adds the owner for member_id. NULL on -ENOMEM. */
gr_share_owner_t *gr_share_partition_owner(gr_share_partition_t *sp, const char *member_id);

/* Frees owner when it holds no record (after an acquisition that took
 * nothing). */
void gr_share_partition_owner_idle(gr_share_partition_t *sp, gr_share_owner_t *owner);

/* Finds the owner for member_id, or NULL. */
gr_share_owner_t *gr_share_partition_find_owner(const gr_share_partition_t *sp,
                                                const char *member_id);

/* Gives range i a state: the acquired counts follow, an owner left with no
 * record is freed. owner and deadline only for ACQUIRED. */
void gr_share_partition_set(gr_share_partition_t *sp, int32_t i, int8_t state,
                            int16_t delivery_count, gr_share_owner_t *owner, int64_t deadline);

/* Releases acquired range i: AVAILABLE, or ARCHIVED at the delivery count
 * limit. Marks the state changed. */
void gr_share_partition_release_range(gr_share_partition_t *sp, int32_t i);

/* Merges equal neighbours among ranges [lo, hi) and their outer
 * neighbours. */
void gr_share_partition_coalesce(gr_share_partition_t *sp, int32_t lo, int32_t hi);

/* Moves the start offset past a final (ACKNOWLEDGED / ARCHIVED) head. */
void gr_share_partition_trim_head(gr_share_partition_t *sp);

/* Asserts the invariants above (no-op with NDEBUG). */
void gr_share_partition_check(const gr_share_partition_t *sp);

#endif
