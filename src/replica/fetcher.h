/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replica fetchers: a follower copies its leaders' logs, as Kafka's
 * ReplicaFetcherThreads do, on the loop. One fetcher per source broker and
 * fetcher number (num.replica.fetchers spreads a broker's partitions over
 * that many connections) carries all its partitions in one Fetch at a time
 * (replica_id = this broker, v12, replica.fetch.* settings).
 *
 * A partition's states in its fetcher:
 *   TRUNCATE  just followed (a new leader or leader epoch): OffsetForLeaderEpoch
 *             with the log's latest epoch, then truncation where the logs
 *             part (partition/isr.h gr_truncation_decide), repeated until
 *             the decision is final; a log with no epoch truncates to its
 *             high watermark.
 *   FETCH     fetching from the log end offset: batches are appended as
 *             they came (offsets, epochs, timestamps and compression kept),
 *             the high watermark follows the leader's (bounded by the log
 *             end), the log start offset too.
 * Fetch sessions (KIP-227, as Kafka's FetchSessionHandler): the first Fetch
 * to a leader is a full one (epoch 0) and opens a session; later ones name
 * only the partitions whose fetch offset, leader epoch, last fetched epoch
 * or log start changed, or that are new, and forget those no longer
 * fetched (held back, truncating); the leader answers only partitions with
 * news. A session error (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH
 * ...), a failed request or a partition leaving the fetcher starts over
 * with a full Fetch, which also closes the old session.
 *
 * A partition error (not leader, fenced or unknown epoch...) holds that
 * partition back for replica.fetch.backoff.ms, a connection failure the
 * whole fetcher; OFFSET_OUT_OF_RANGE goes back to TRUNCATE, or starts the
 * log over at the leader's log start offset when it is behind it.
 *
 * Runs on: loop thread.
 */
#ifndef GR_REPLICA_FETCHER_H
#define GR_REPLICA_FETCHER_H

#include <stdint.h>

typedef struct gr_broker gr_broker_t;
typedef struct gr_partition gr_partition_t;

/*
 * p is followed here from its leader (p->leader_id, p->leader_epoch): moves
 * it to that leader's fetcher, starting with truncation, unless it is there
 * at that epoch already. A partition without a live leader is only removed.
 */
void gr_replica_follow(gr_broker_t *b, gr_partition_t *p);

/* p is no longer followed here (led here now, stopped, or gone). */
void gr_replica_unfollow(gr_broker_t *b, gr_partition_t *p);

/*
 * The largest lag, in offsets, of a partition followed here: its leader's
 * high watermark less this log's end, as of the last fetch answered (Kafka's
 * ReplicaFetcherManager MaxLag). 0 when nothing is followed.
 */
int64_t gr_replica_fetchers_max_lag(const gr_broker_t *b);

/*
 * Follows a live num.replica.fetchers: each followed partition whose
 * fetcher number changed moves to that fetcher with its state (truncating
 * or fetching, lag, back-off); fetchers left empty close their connection.
 */
void gr_replica_fetchers_resize(gr_broker_t *b);

/* Frees every fetcher (broker stop). */
void gr_replica_fetchers_stop(gr_broker_t *b);

#endif
