/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Share sessions (KIP-932): what a share consumer member fetches from this
 * leader, keyed (group id, member id), as Kafka's ShareSessionCache keeps
 * them. A session is the set of partitions a member fetches; requests
 * after the first name only what changed (new partitions, ForgottenTopicsData).
 *
 * Session epochs (ShareSessionEpoch of ShareFetch and ShareAcknowledge):
 *   0   opens a session, replacing the member's old one (whose acquired
 *       records are kept: the member goes on), with no acknowledgements
 *       (INVALID_REQUEST); the session then expects 1.
 *   -1  closes it (SHARE_SESSION_NOT_FOUND when there is none): its
 *       acknowledgements are applied, nothing is fetched and the member's
 *       acquired records are released.
 *   n   the session must exist (SHARE_SESSION_NOT_FOUND) and expect n
 *       (INVALID_SHARE_SESSION_EPOCH); it then expects n + 1, wrapping from
 *       INT32_MAX to 1.
 * At most max sessions exist (group.share.max.share.sessions); one more is
 * SHARE_SESSION_LIMIT_REACHED, as Kafka 4.2 answers (it no longer evicts).
 *
 * A session belongs to the connection that opened it (Kafka 4.1,
 * KAFKA-19015): when that connection closes, the session goes and the
 * member's acquired records are released (the owner's on_close callback).
 * The tag is the connection's security session (gr_session_t), which lives
 * exactly as long as the connection; gr_share_sessions_conn_closed is
 * called when it is freed.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SHARE_SESSION_H
#define GR_SHARE_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/kerr.h"
#include "protocol/types.h"

#define GR_SHARE_SESSION_EPOCH_INITIAL 0
#define GR_SHARE_SESSION_EPOCH_FINAL   (-1)
/* Kafka 4.2's group.share.max.share.sessions default. */
#define GR_SHARE_SESSIONS_DEFAULT_MAX 2000
/* Partitions one session may hold (bounds what a member makes us keep). */
#define GR_SHARE_SESSION_MAX_PARTITIONS 10000

/* Longest member id kept, NUL included (Kafka's are 22-character Uuids). */
#define GR_SHARE_MEMBER_ID_MAX 256

typedef struct gr_share_sessions gr_share_sessions_t;

/* Copies member (< GR_SHARE_MEMBER_ID_MAX bytes, the caller checked) into out with a NUL. */
void gr_share_member_id(gr_str_t member, char out[GR_SHARE_MEMBER_ID_MAX]);

/* A partition of a session: a topic id and an index. */
typedef struct gr_share_tp {
    gr_uuid_t topic_id;
    int32_t partition;
} gr_share_tp_t;

typedef struct gr_share_session {
    struct gr_share_session *next; /* in its bucket */
    char *group_id;
    char *member_id;
    int32_t epoch; /* the epoch the next request must carry */
    gr_share_tp_t *partitions;
    int32_t partition_count;
    int32_t partition_cap;
    const void *conn; /* the connection's tag, or NULL */
} gr_share_session_t;

/*
 * A session is going away with its connection: release member's acquired
 * records on session's partitions. Called before the session is freed.
 */
typedef void gr_share_session_closed_fn(void *arg, const gr_share_session_t *session);

/* An empty cache of at most max sessions (<= 0: the default). NULL: ENOMEM. */
gr_share_sessions_t *gr_share_sessions_new(int32_t max, gr_share_session_closed_fn *on_close,
                                           void *arg);
/* Frees every session (no callbacks). NULL ok. */
void gr_share_sessions_free(gr_share_sessions_t *s);
int32_t gr_share_sessions_count(const gr_share_sessions_t *s);

/* The session of (group, member), or NULL. */
gr_share_session_t *gr_share_sessions_find(gr_share_sessions_t *s, gr_str_t group, gr_str_t member);

/*
 * Epoch 0: opens a new session for (group, member) on connection conn,
 * replacing an old one (freed without callback). Returns NONE with *out,
 * SHARE_SESSION_LIMIT_REACHED, or UNKNOWN_SERVER_ERROR (out of memory).
 */
gr_kerr_t gr_share_sessions_open(gr_share_sessions_t *s, gr_str_t group, gr_str_t member,
                                 const void *conn, gr_share_session_t **out /* out */);

/*
 * Any other epoch: finds the session and checks epoch against it. Returns
 * NONE with *out, SHARE_SESSION_NOT_FOUND or INVALID_SHARE_SESSION_EPOCH.
 * With epoch -1 the caller removes the session when done; otherwise the
 * expected epoch moves on here.
 */
gr_kerr_t gr_share_sessions_check(gr_share_sessions_t *s, gr_str_t group, gr_str_t member,
                                  int32_t epoch, gr_share_session_t **out /* out */);

/* Removes and frees session (no callback). */
void gr_share_sessions_remove(gr_share_sessions_t *s, gr_share_session_t *session);

/*
 * Adds (topic id, partition) to session unless there. Returns 0, -ENOSPC
 * (GR_SHARE_SESSION_MAX_PARTITIONS) or -ENOMEM.
 */
int gr_share_session_add(gr_share_session_t *session, gr_uuid_t topic_id, int32_t partition);
/* Removes (topic id, partition) from session; nothing when absent. */
void gr_share_session_forget(gr_share_session_t *session, gr_uuid_t topic_id, int32_t partition);

/*
 * The connection tagged conn closed: removes its sessions, calling the
 * cache's on_close for each first.
 */
void gr_share_sessions_conn_closed(gr_share_sessions_t *s, const void *conn);

#endif
