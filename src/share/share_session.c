/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share session cache (share_session.h): a hash table of sessions
 * keyed (group id, member id), chained in GR_SHARE_SESSION_BUCKETS buckets.
 * A session's partitions are an unsorted array: sessions hold few, and a
 * request touches each once.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/hash.h"
#include "share/share_session.h"

#define GR_SHARE_SESSION_BUCKETS 256

struct gr_share_sessions {
    gr_share_session_t *buckets[GR_SHARE_SESSION_BUCKETS];
    int32_t count;
    int32_t max;
    gr_share_session_closed_fn *on_close;
    void *arg;
};

void gr_share_member_id(gr_str_t member, char out[GR_SHARE_MEMBER_ID_MAX])
{
    size_t len = member.len > 0 ? (size_t)member.len : 0;
    if (len >= GR_SHARE_MEMBER_ID_MAX)
        len = GR_SHARE_MEMBER_ID_MAX - 1;
    if (len)
        memcpy(out, member.ptr, len);
    out[len] = '\0';
}

gr_share_sessions_t *gr_share_sessions_new(int32_t max, gr_share_session_closed_fn *on_close,
                                           void *arg)
{
    gr_share_sessions_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->max = max > 0 ? max : GR_SHARE_SESSIONS_DEFAULT_MAX;
    s->on_close = on_close;
    s->arg = arg;
    return s;
}

static void session_free(gr_share_session_t *session)
{
    free(session->group_id);
    free(session->member_id);
    free(session->partitions);
    free(session);
}

void gr_share_sessions_free(gr_share_sessions_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < GR_SHARE_SESSION_BUCKETS; i++) {
        while (s->buckets[i]) {
            gr_share_session_t *next = s->buckets[i]->next;
            session_free(s->buckets[i]);
            s->buckets[i] = next;
        }
    }
    free(s);
}

int32_t gr_share_sessions_count(const gr_share_sessions_t *s)
{
    return s->count;
}

static size_t bucket_of(gr_str_t group, gr_str_t member)
{
    size_t g = gr_coordinator_key_bucket(group, GR_SHARE_SESSION_BUCKETS);
    size_t m = gr_coordinator_key_bucket(member, GR_SHARE_SESSION_BUCKETS);
    return (g * 31 + m) % GR_SHARE_SESSION_BUCKETS;
}

static bool same(const char *s, gr_str_t v)
{
    size_t len = v.len > 0 ? (size_t)v.len : 0;
    return strlen(s) == len && memcmp(s, v.ptr, len) == 0;
}

gr_share_session_t *gr_share_sessions_find(gr_share_sessions_t *s, gr_str_t group, gr_str_t member)
{
    for (gr_share_session_t *it = s->buckets[bucket_of(group, member)]; it; it = it->next)
        if (same(it->group_id, group) && same(it->member_id, member))
            return it;
    return NULL;
}

void gr_share_sessions_remove(gr_share_sessions_t *s, gr_share_session_t *session)
{
    gr_str_t group = gr_str(session->group_id), member = gr_str(session->member_id);
    gr_share_session_t **at = &s->buckets[bucket_of(group, member)];
    while (*at && *at != session)
        at = &(*at)->next;
    if (!*at)
        return; /* not in this cache: cannot happen */
    *at = session->next;
    s->count--;
    session_free(session);
}

static char *copy_str(gr_str_t v)
{
    size_t len = v.len > 0 ? (size_t)v.len : 0;
    char *out = malloc(len + 1);
    if (out) {
        if (len)
            memcpy(out, v.ptr, len);
        out[len] = '\0';
    }
    return out;
}

gr_kerr_t gr_share_sessions_open(gr_share_sessions_t *s, gr_str_t group, gr_str_t member,
                                 const void *conn, gr_share_session_t **out)
{
    gr_share_session_t *old = gr_share_sessions_find(s, group, member);
    if (old)
        gr_share_sessions_remove(s, old);
    if (s->count >= s->max)
        return GR_KERR_SHARE_SESSION_LIMIT_REACHED;
    gr_share_session_t *session = calloc(1, sizeof *session);
    if (!session)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    session->group_id = copy_str(group);
    session->member_id = copy_str(member);
    if (!session->group_id || !session->member_id) {
        session_free(session);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    session->epoch = 1;
    session->conn = conn;
    size_t b = bucket_of(group, member);
    session->next = s->buckets[b];
    s->buckets[b] = session;
    s->count++;
    *out = session;
    return GR_KERR_NONE;
}

gr_kerr_t gr_share_sessions_check(gr_share_sessions_t *s, gr_str_t group, gr_str_t member,
                                  int32_t epoch, gr_share_session_t **out)
{
    gr_share_session_t *session = gr_share_sessions_find(s, group, member);
    if (!session)
        return GR_KERR_SHARE_SESSION_NOT_FOUND;
    if (epoch != GR_SHARE_SESSION_EPOCH_FINAL) {
        if (epoch != session->epoch)
            return GR_KERR_INVALID_SHARE_SESSION_EPOCH;
        session->epoch = session->epoch == INT32_MAX ? 1 : session->epoch + 1;
    }
    *out = session;
    return GR_KERR_NONE;
}

static int32_t find_tp(const gr_share_session_t *session, gr_uuid_t topic_id, int32_t partition)
{
    for (int32_t i = 0; i < session->partition_count; i++)
        if (session->partitions[i].partition == partition &&
            memcmp(session->partitions[i].topic_id.b, topic_id.b, sizeof topic_id.b) == 0)
            return i;
    return -1;
}

int gr_share_session_add(gr_share_session_t *session, gr_uuid_t topic_id, int32_t partition)
{
    if (find_tp(session, topic_id, partition) >= 0)
        return 0;
    if (session->partition_count >= GR_SHARE_SESSION_MAX_PARTITIONS)
        return -ENOSPC;
    if (session->partition_count == session->partition_cap) {
        int32_t cap = session->partition_cap ? session->partition_cap * 2 : 8;
        gr_share_tp_t *grown = realloc(session->partitions, (size_t)cap * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        session->partitions = grown;
        session->partition_cap = cap;
    }
    session->partitions[session->partition_count++] = (gr_share_tp_t){topic_id, partition};
    return 0;
}

void gr_share_session_forget(gr_share_session_t *session, gr_uuid_t topic_id, int32_t partition)
{
    int32_t i = find_tp(session, topic_id, partition);
    if (i < 0)
        return;
    session->partitions[i] = session->partitions[--session->partition_count];
}

void gr_share_sessions_conn_closed(gr_share_sessions_t *s, const void *conn)
{
    if (!conn)
        return;
    for (size_t i = 0; i < GR_SHARE_SESSION_BUCKETS; i++) {
        gr_share_session_t **at = &s->buckets[i];
        while (*at) {
            gr_share_session_t *session = *at;
            if (session->conn != conn) {
                at = &session->next;
                continue;
            }
            if (s->on_close)
                s->on_close(s->arg, session);
            *at = session->next;
            s->count--;
            session_free(session);
        }
    }
}
