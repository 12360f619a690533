/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How one Fetch uses fetch sessions (KIP-227; Kafka's FetchContext): what
 * its SessionId and SessionEpoch ask, done at both ends of the request.
 *
 *   epoch 0  (INITIAL): a full fetch; a session named is dropped first. At
 *            the response a new session is made of the request's
 *            partitions (NEW); its id goes in the response, or 0 when the
 *            cache has no room (then the client goes on sessionless).
 *   epoch -1 (FINAL): a full fetch; a session named is closed. Session id 0.
 *   epoch n  (INCREMENTAL): the session must exist
 *            (FETCH_SESSION_ID_NOT_FOUND), expect n
 *            (INVALID_FETCH_SESSION_EPOCH) and use topic ids as this
 *            version does (FETCH_SESSION_TOPIC_ID_ERROR). The request's
 *            partitions update or join it, ForgottenTopicsData leaves it,
 *            and the request is rewritten to every partition of the
 *            session, in its fetch order, so reading and long-polling work
 *            as for a full fetch. The response then keeps only partitions
 *            with something to say: records, an error, a preferred read
 *            replica, a diverging epoch, a new high watermark, last stable
 *            offset or log start offset (as Kafka, a partition the request
 *            named with nothing new is left out); those with records move
 *            to the end of the fetch order. A session the request empties
 *            is closed and the fetch served sessionless (session id 0).
 * Fetch before v7 has no sessions.
 *
 * A waiting fetch holds the session's id, not the session: it may be
 * evicted or closed meanwhile, and the response then goes unfiltered. If
 * the session took a later request meanwhile (its epoch moved on), the
 * answer is INVALID_FETCH_SESSION_EPOCH with no partitions, as Kafka's.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_FETCH_CONTEXT_H
#define GR_HANDLERS_FETCH_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/context.h"
#include "gen/fetch.h"
#include "handlers/request.h"

typedef enum gr_fetch_context_mode {
    GR_FETCH_CONTEXT_SESSIONLESS,
    GR_FETCH_CONTEXT_NEW,
    GR_FETCH_CONTEXT_INCREMENTAL,
} gr_fetch_context_mode_t;

typedef struct gr_fetch_context {
    gr_fetch_context_mode_t mode;
    int32_t session_id; /* INCREMENTAL's session */
    int32_t epoch;      /* INCREMENTAL: the session's next epoch after this request */
    bool follower;      /* a replica's fetch: its session is privileged */
} gr_fetch_context_t;

/*
 * Applies in's session fields (in->topics may be rewritten, into req's
 * arena). Returns GR_KERR_NONE or the session error answering the whole
 * request; GR_KERR_UNKNOWN_SERVER_ERROR when out of memory.
 */
gr_kerr_t gr_fetch_context_begin(gr_broker_t *b, gr_request_t *req, bool follower,
                                 gr_fetch_request_t *in, gr_fetch_context_t *ctx);

/*
 * Before resp (built for in, topic by topic and partition by partition) is
 * encoded: makes a NEW session or filters an INCREMENTAL response, and sets
 * resp->session_id.
 */
void gr_fetch_context_end(gr_broker_t *b, gr_request_t *req, const gr_fetch_request_t *in,
                          const gr_fetch_context_t *ctx, gr_fetch_response_t *resp);

#endif
