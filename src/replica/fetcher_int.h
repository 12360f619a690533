/* SPDX-License-Identifier: Apache-2.0 */
/* Internals of the replica fetchers (fetcher*.c); see fetcher.h. Runs on: loop thread. */
#ifndef GR_REPLICA_FETCHER_INT_H
#define GR_REPLICA_FETCHER_INT_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metadata/topics.h"
#include "replica/fetcher.h"

typedef struct gr_peer gr_peer_t;
typedef struct gr_fetcher gr_fetcher_t;

typedef enum fetch_part_state {
    FETCH_PART_TRUNCATE,
    FETCH_PART_FETCH,
} fetch_part_state_t;

typedef struct fetch_part {
    char topic[GR_TOPIC_NAME_LIMIT + 1];
    gr_uuid_t topic_id;
    int32_t index;
    int32_t leader_epoch; /* the epoch followed */
    fetch_part_state_t state;
    bool in_request;  /* named in the request in flight */
    int64_t retry_ms; /* held back until (after an error) */
    int64_t lag;      /* leader's high watermark less this log's end, at the last fetch */
    /* In the leader's fetch session, with these values as last sent. */
    bool in_session;
    int32_t sent_leader_epoch;
    int64_t sent_fetch_offset;
    int32_t sent_last_fetched_epoch;
    int64_t sent_log_start_offset;
    int32_t sent_max_bytes;
} fetch_part_t;

typedef enum fetcher_request {
    FETCHER_IDLE,
    FETCHER_EPOCHS, /* OffsetForLeaderEpoch in flight */
    FETCHER_FETCH,  /* Fetch in flight */
} fetcher_request_t;

struct gr_fetcher {
    gr_broker_t *b;
    int32_t source; /* the leader's broker id */
    int32_t number; /* among num.replica.fetchers */
    gr_peer_t *peer;
    fetch_part_t *parts; /* sorted by topic name, then index */
    int32_t count, cap;
    fetcher_request_t request;
    bool closing;
    int64_t retry_ms;        /* the whole fetcher backs off (connection trouble) */
    ev_timer wake;           /* retries once a back-off ends */
    int32_t session_id;      /* the leader's fetch session (KIP-227), 0 for none */
    int32_t session_epoch;   /* the next Fetch's: 0 opens a session (closing session_id's) */
    uint32_t session_resets; /* fetcher_session_reset calls so far */
    uint32_t sent_resets;    /* session_resets when the Fetch out was sent */
    /* Partitions that left f (leadership moved, replica removed) while in the
     * leader's session: the next incremental Fetch forgets them, as Kafka's
     * follower does, rather than starting a new session with all the others. */
    fetch_part_t *departed;
    int32_t departed_count, departed_cap;
    uint8_t *buf; /* a copy of a partition's batches, for the append */
    size_t buf_cap;
    struct gr_fetcher *next;
};

/* Sends the next request if none is out; otherwise waits for the back-off. */
void fetcher_kick(gr_fetcher_t *f);
/* The partition of part if this broker still follows it at part's epoch, else NULL. */
gr_partition_t *fetcher_partition(gr_fetcher_t *f, const fetch_part_t *part);
/* part's partition when part is in state and not held back at now, else NULL. */
gr_partition_t *fetcher_part_due(gr_fetcher_t *f, const fetch_part_t *part,
                                 fetch_part_state_t state, int64_t now);
/* Whether part's topic is another than last (requests group partitions by topic). */
bool fetcher_new_topic(const fetch_part_t *part, gr_str_t last);
fetch_part_t *fetcher_part_find(gr_fetcher_t *f, const char *topic, size_t len, int32_t index);
/* The leader's session no longer matches ours: the next Fetch is a full one. */
void fetcher_session_reset(gr_fetcher_t *f);
/* part leaves f: forgotten by the next incremental Fetch if the leader's session has it. */
void fetcher_session_depart(gr_fetcher_t *f, const fetch_part_t *part);
/* The request ended: kicks the next one. */
void fetcher_request_done(gr_fetcher_t *f, int rc);
/* Holds part back for replica.fetch.backoff.ms. */
void fetcher_part_back_off(gr_fetcher_t *f, fetch_part_t *part);

/* fetcher_epochs.c: OffsetForLeaderEpoch for the TRUNCATE parts; 0, 1 (nothing to ask) or -errno.
 */
int fetcher_send_epochs(gr_fetcher_t *f, int64_t now);
/* fetcher_fetch.c: Fetch for the FETCH parts; 0, 1 (nothing to fetch) or -errno. */
int fetcher_send_fetch(gr_fetcher_t *f, int64_t now);

#endif
