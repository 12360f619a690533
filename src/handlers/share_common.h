/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What ShareFetch (share_fetch.c) and ShareAcknowledge
 * (share_acknowledge.c) share: the share session step of a request
 * (share/share_session.h's epoch rules), the group and topic checks, and
 * the acknowledgements of a request, each partition's answered once its
 * write through the persister is done.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_SHARE_COMMON_H
#define GR_HANDLERS_SHARE_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/request.h"
#include "share/share_manager.h"

typedef struct gr_share_acks gr_share_acks_t;

/* One partition's acknowledgements in a request. */
typedef struct gr_share_ack_result {
    gr_share_acks_t *acks;
    gr_uuid_t topic_id;
    int32_t partition;
    int16_t error_code;
    bool pending; /* written through the persister, not yet done */
} gr_share_ack_result_t;

/* The acknowledgements of one request; on_written(owner) once the last pending one is done. */
struct gr_share_acks {
    gr_broker_t *b;
    gr_share_ack_result_t *results;
    int32_t count;
    int32_t pending;
    void (*on_written)(void *owner);
    void *owner;
};

/*
 * The request's top-level checks and its share session step: group READ
 * (GROUP_AUTHORIZATION_FAILED), a group and member id (INVALID_REQUEST),
 * then the epoch (share_session.h): 0 opens (has_acks: INVALID_REQUEST),
 * -1 must find the session, others must match it. *out is the session.
 */
gr_kerr_t gr_share_request_session(gr_broker_t *b, gr_request_t *req, gr_str_t group,
                                   gr_str_t member, int32_t epoch, bool has_acks,
                                   gr_share_session_t **out /* out */);

/* Ends a session closed with epoch -1: removed, member's acquired records released. */
void gr_share_request_close_session(gr_broker_t *b, gr_share_session_t *session);

/* Whether req may READ the topic of topic_id (unknown ids pass: they are answered as such). */
bool gr_share_request_topic_allowed(gr_broker_t *b, gr_request_t *req, gr_uuid_t topic_id);

/*
 * The partition (topic_id, index) led here, or NULL with *err:
 * UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER
 * (then *other set to the partition as known here, for CurrentLeader).
 */
gr_partition_t *gr_share_request_partition(gr_broker_t *b, gr_uuid_t topic_id, int32_t index,
                                           gr_kerr_t *err /* out */,
                                           gr_partition_t **other /* out */);

/* Sizes acks for count partitions in req's arena. Returns 0 or -ENOMEM. */
int gr_share_acks_init(gr_share_acks_t *acks, gr_broker_t *b, gr_request_t *req, int32_t count,
                       void (*on_written)(void *owner), void *owner);

/*
 * Applies one partition's acknowledgement batches (the next result slot):
 * its error, or pending until the write is done. batches live in req's arena.
 */
void gr_share_acks_add(gr_share_acks_t *acks, gr_request_t *req, gr_str_t group, gr_str_t member,
                       gr_uuid_t topic_id, int32_t partition, const gr_share_ack_batch_t *batches,
                       int32_t batch_count, bool renew);

/* The request is gone: pending writes call nobody. */
void gr_share_acks_cancel(gr_share_acks_t *acks);

/* The result for (topic_id, partition), or NULL. */
gr_share_ack_result_t *gr_share_acks_find(gr_share_acks_t *acks, gr_uuid_t topic_id,
                                          int32_t partition);

/* Leaders named in NOT_LEADER_OR_FOLLOWER answers, each once (NodeEndpoints). */
typedef struct gr_share_leaders {
    int32_t *ids;
    int32_t count;
    int32_t cap;
} gr_share_leaders_t;

/* Adds id (>= 0) unless listed. Returns 0 or -ENOMEM (req's arena). */
int gr_share_leaders_add(gr_share_leaders_t *l, gr_request_t *req, int32_t id);

/*
 * A NOT_LEADER_OR_FOLLOWER answer's CurrentLeader for (topic_id, index), as
 * known when the response is built (never from a partition pointer kept
 * since the try: the partition array moves when its topic grows), its
 * leader added to l. Both -1 when the partition is unknown or led here again.
 */
void gr_share_leaders_current(gr_share_leaders_t *l, gr_broker_t *b, gr_request_t *req,
                              gr_uuid_t topic_id, int32_t index, int32_t *leader_id /* out */,
                              int32_t *leader_epoch /* out */);

#endif
