/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading the log for a share-partition (private to src/share/): the
 * batches from its next fetch offset up to the last stable offset (the
 * high watermark for a read_uncommitted group), their
 * header facts handed to gr_share_partition_acquire, and the file range of
 * the batches holding what was acquired, sent zero-copy like Fetch's.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SHARE_FETCH_READ_H
#define GR_SHARE_FETCH_READ_H

#include "share/share_manager.h"

typedef struct gr_share_read_request {
    const char *member_id;
    int32_t max_bytes;
    int32_t max_records;
    gr_share_acquire_mode_t mode;
    int32_t batch_size; /* ShareFetch's BatchSize, 0: none */
    /* The group's share.isolation.level: read_committed reads to the last
     * stable offset and archives aborted transactions' records;
     * read_uncommitted reads to the high watermark and acquires them.
     * Control records are never acquired either way. */
    bool read_committed;
    int64_t now_ms;
} gr_share_read_request_t;

/*
 * Reads p's log (p led here) for sp and acquires for req->member_id.
 * out must be zeroed; on NONE it holds the acquired ranges and, when any,
 * the batches' file range (segment reference held). Returns NONE or the
 * partition's error (OFFSET_OUT_OF_RANGE never: a share-partition below the
 * log start moves up to it).
 */
gr_kerr_t gr_share_fetch_read(gr_share_partition_t *sp, gr_partition_t *p,
                              const gr_share_read_request_t *req,
                              gr_share_fetched_t *out /* out */);

#endif
