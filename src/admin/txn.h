/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin transactions, the parts that need no connection (txn.c):
 * kafka-transactions.sh's column texts made from the brokers' answers, and
 * which producer an abort targets. Unit-tested in tests/unit/admin_txn_test.c.
 */
#ifndef GR_ADMIN_TXN_H
#define GR_ADMIN_TXN_H

#include <stddef.h>
#include <stdint.h>

#include "gen/describe_producers.h"
#include "gen/describe_transactions.h"

#define GR_ADMIN_TXN_NUMBER_MAX 24 /* an int64 in decimal, sign and NUL included */

/* What a WriteTxnMarkers ABORT needs to end a hanging transaction. */
typedef struct gr_admin_abort_spec {
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t coordinator_epoch;
} gr_admin_abort_spec_t;

/*
 * Finds, in one partition's DescribeProducers answer, the producer whose
 * open transaction starts at start_offset (as kafka-transactions.sh abort
 * does). A coordinator epoch the partition does not know yet (-1: no
 * marker seen from any coordinator) becomes 0, which no coordinator epoch
 * is below. Returns 0 and fills out, or -ENOENT when no open transaction
 * starts there.
 */
int gr_admin_abort_spec_find(const gr_describe_producers_response_partition_response_t *part,
                             int64_t start_offset, gr_admin_abort_spec_t *out /* out */);

/*
 * The abort target given by hand (--producer-id, --producer-epoch,
 * --coordinator-epoch, for brokers without DescribeProducers): the epoch
 * must fit an int16, and a negative coordinator epoch becomes 0 as above.
 * Returns 0, or -EINVAL (out untouched).
 */
int gr_admin_abort_spec_given(int64_t producer_id, int64_t producer_epoch,
                              int64_t coordinator_epoch, gr_admin_abort_spec_t *out /* out */);

/*
 * describe's TopicPartitions column: "topic-partition" items joined by
 * commas, in the answer's order ("" for none). Writes at most size bytes
 * (NUL included) and returns the length the whole text needs, as snprintf.
 */
size_t gr_admin_txn_partitions_text(const gr_describe_transactions_response_transaction_state_t *s,
                                    char *out, size_t size);

/*
 * describe's CurrentTransactionStartTimeMs and TransactionDurationMs
 * columns: the start and now_ms - start (wall-clock ms), or "None" for
 * both when no transaction is under way (start_ms < 0).
 */
void gr_admin_txn_times(int64_t start_ms, int64_t now_ms, char start[GR_ADMIN_TXN_NUMBER_MAX],
                        char duration[GR_ADMIN_TXN_NUMBER_MAX]);

/* describe-producers' CurrentTransactionStartOffset column: the offset, or "None" (-1). */
void gr_admin_txn_offset_text(int64_t offset, char out[GR_ADMIN_TXN_NUMBER_MAX]);

#endif
