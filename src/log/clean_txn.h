/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cleaner's view of transactions (Kafka's rules for compacting a log
 * with transactional data), fed every batch of a pass in log order:
 *
 *  - The cleaner only cleans below the last stable offset, so every
 *    transaction it meets is decided, and the aborted ones are known ahead
 *    from the transaction indexes (gr_log_collect_aborted at the start of
 *    the job), sorted by first offset.
 *  - A data batch of an aborted transaction is discarded whole, keys
 *    aside, and never enters the key map (an aborted value must not
 *    supersede a committed one).
 *  - A transactional batch of a committed transaction is compacted like
 *    any other.
 *  - A marker is kept while batches of its transaction were met in this
 *    pass (consumers need it to decide them); an ABORT marker kept so also
 *    keeps its .txnindex entry, which goes to the rewritten segment. Once no
 *    batch of the transaction is left, the marker is "discardable": it is
 *    stamped with a delete horizon (now + delete.retention.ms) like a
 *    tombstone, and dropped by a cleaning after that horizon, so a consumer
 *    that read the transaction's data has time to read the marker too.
 *
 * State: the aborted transactions not yet reached (a cursor into the
 * sorted list), those reached whose marker is still ahead (per producer,
 * with whether a batch was met), and the producers with a committed
 * transaction's batch met since their last COMMIT marker.
 *
 * Runs on: the cleaner's worker thread (plain memory, no log access).
 */
#ifndef GR_LOG_CLEAN_TXN_H
#define GR_LOG_CLEAN_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/producer_state.h"
#include "protocol/control_batch.h"
#include "protocol/records.h"

typedef struct gr_clean_txn_open {
    int64_t producer_id;
    size_t aborted; /* index in the aborted list */
    bool seen;      /* a batch of it was met in this pass */
} gr_clean_txn_open_t;

typedef struct gr_clean_txns {
    const gr_aborted_txn_t *aborted; /* sorted by first offset; not owned */
    size_t aborted_count;
    size_t next; /* first aborted transaction not yet reached */
    gr_clean_txn_open_t *open;
    size_t open_count, open_cap;
    int64_t *committed; /* producers with a committed batch met since their last marker */
    size_t committed_count, committed_cap;
} gr_clean_txns_t;

/* aborted (count of them, sorted by first offset) must outlive t. */
void gr_clean_txns_init(gr_clean_txns_t *t, const gr_aborted_txn_t *aborted, size_t count);
void gr_clean_txns_fini(gr_clean_txns_t *t);

/*
 * A data batch (header h) met: 1 when it belongs to an aborted transaction
 * (discard it), 0 otherwise, or -ENOMEM.
 */
int gr_clean_txns_on_batch(gr_clean_txns_t *t, const gr_batch_header_t *h);

/*
 * A control batch met, with its marker (NULL: no readable control record,
 * e.g. one the cleaner emptied). Returns 1 when the marker is discardable
 * (see the file comment), 0 when it must be kept; *index (may be NULL) is
 * set with *entry filled when a kept ABORT marker keeps its index entry.
 */
int gr_clean_txns_on_marker(gr_clean_txns_t *t, const gr_batch_header_t *h,
                            const gr_control_marker_t *marker, bool *index,
                            gr_aborted_txn_t *entry /* out */);

#endif
