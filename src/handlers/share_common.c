/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ShareFetch and ShareAcknowledge's common steps (share_common.h).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <string.h>

#include "core/context.h"
#include "handlers/share_common.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "security/authorizer.h"
#include "security/session.h"

/* The connection that opened share sessions closed: they end (Kafka 4.1, KAFKA-19015). */
static void connection_closed(void *arg, const gr_session_t *s)
{
    gr_broker_t *b = arg;
    if (b->share_manager)
        gr_share_sessions_conn_closed(gr_share_manager_sessions(b->share_manager), s);
}

gr_kerr_t gr_share_request_session(gr_broker_t *b, gr_request_t *req, gr_str_t group,
                                   gr_str_t member, int32_t epoch, bool has_acks,
                                   gr_share_session_t **out)
{
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ, GR_ACL_RESOURCE_TYPE_GROUP,
                          group))
        return GR_KERR_GROUP_AUTHORIZATION_FAILED;
    if (group.len <= 0 || member.len <= 0 || member.len >= GR_SHARE_MEMBER_ID_MAX)
        return GR_KERR_INVALID_REQUEST;
    gr_share_sessions_t *sessions = gr_share_manager_sessions(b->share_manager);
    if (epoch != GR_SHARE_SESSION_EPOCH_INITIAL)
        return gr_share_sessions_check(sessions, group, member, epoch, out);
    if (has_acks)
        return GR_KERR_INVALID_REQUEST; /* nothing was delivered in a session not yet open */
    gr_kerr_t err = gr_share_sessions_open(sessions, group, member, req->session, out);
    if (!err && req->session) {
        req->session->on_closed = connection_closed;
        req->session->on_closed_arg = b;
    }
    return err;
}

void gr_share_request_close_session(gr_broker_t *b, gr_share_session_t *session)
{
    gr_share_manager_release_session(b->share_manager, session);
    gr_share_sessions_remove(gr_share_manager_sessions(b->share_manager), session);
}

bool gr_share_request_topic_allowed(gr_broker_t *b, gr_request_t *req, gr_uuid_t topic_id)
{
    gr_topic_t *topic = gr_topics_find_id(b->topics, topic_id);
    if (!topic || !b->authorizer)
        return true;
    return gr_authorize(b, req->session, GR_ACL_OPERATION_READ, GR_ACL_RESOURCE_TYPE_TOPIC,
                        topic->name, strlen(topic->name));
}

gr_partition_t *gr_share_request_partition(gr_broker_t *b, gr_uuid_t topic_id, int32_t index,
                                           gr_kerr_t *err, gr_partition_t **other)
{
    *other = NULL;
    gr_topic_t *topic = gr_topics_find_id(b->topics, topic_id);
    if (!topic) {
        *err = GR_KERR_UNKNOWN_TOPIC_ID;
        return NULL;
    }
    gr_partition_t *p = gr_topic_partition(topic, index);
    if (!p) {
        *err = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return NULL;
    }
    if (!gr_partition_led_by(p, b->config.broker_id)) {
        *err = GR_KERR_NOT_LEADER_OR_FOLLOWER;
        *other = p;
        return NULL;
    }
    *err = GR_KERR_NONE;
    return p;
}

int gr_share_acks_init(gr_share_acks_t *acks, gr_broker_t *b, gr_request_t *req, int32_t count,
                       void (*on_written)(void *owner), void *owner)
{
    memset(acks, 0, sizeof *acks);
    acks->b = b;
    acks->on_written = on_written;
    acks->owner = owner;
    acks->results = gr_request_alloc_array(req, count, sizeof *acks->results);
    return acks->results ? 0 : -ENOMEM;
}

static void ack_written(void *arg, gr_kerr_t err)
{
    gr_share_ack_result_t *r = arg;
    gr_share_acks_t *acks = r->acks;
    r->pending = false;
    r->error_code = err;
    if (--acks->pending == 0 && acks->on_written)
        acks->on_written(acks->owner);
}

void gr_share_acks_add(gr_share_acks_t *acks, gr_request_t *req, gr_str_t group, gr_str_t member,
                       gr_uuid_t topic_id, int32_t partition, const gr_share_ack_batch_t *batches,
                       int32_t batch_count, bool renew)
{
    gr_broker_t *b = acks->b;
    gr_share_ack_result_t *r = &acks->results[acks->count++];
    r->acks = acks;
    r->topic_id = topic_id;
    r->partition = partition;
    gr_partition_t *other;
    gr_kerr_t err;
    gr_partition_t *p = gr_share_request_partition(b, topic_id, partition, &err, &other);
    if (p && !gr_share_request_topic_allowed(b, req, topic_id))
        err = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
    if (!err)
        err = gr_share_manager_acknowledge(b->share_manager, group, p, member, batches, batch_count,
                                           renew, ack_written, r);
    if (err) {
        r->error_code = err;
        return;
    }
    r->pending = true;
    acks->pending++;
}

void gr_share_acks_cancel(gr_share_acks_t *acks)
{
    for (int32_t i = 0; i < acks->count; i++)
        if (acks->results[i].pending)
            gr_share_manager_forget(acks->b->share_manager, &acks->results[i]);
    acks->pending = 0;
}

gr_share_ack_result_t *gr_share_acks_find(gr_share_acks_t *acks, gr_uuid_t topic_id,
                                          int32_t partition)
{
    for (int32_t i = 0; i < acks->count; i++)
        if (acks->results[i].partition == partition &&
            memcmp(acks->results[i].topic_id.b, topic_id.b, sizeof topic_id.b) == 0)
            return &acks->results[i];
    return NULL;
}

int gr_share_leaders_add(gr_share_leaders_t *l, gr_request_t *req, int32_t id)
{
    if (id < 0)
        return 0;
    for (int32_t i = 0; i < l->count; i++)
        if (l->ids[i] == id)
            return 0;
    if (l->count == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 4;
        int32_t *ids = gr_request_alloc_array(req, cap, sizeof *ids);
        if (!ids)
            return -ENOMEM;
        if (l->count)
            memcpy(ids, l->ids, (size_t)l->count * sizeof *ids);
        l->ids = ids;
        l->cap = cap;
    }
    l->ids[l->count++] = id;
    return 0;
}

void gr_share_leaders_current(gr_share_leaders_t *l, gr_broker_t *b, gr_request_t *req,
                              gr_uuid_t topic_id, int32_t index, int32_t *leader_id,
                              int32_t *leader_epoch)
{
    gr_kerr_t err;
    gr_partition_t *other;
    *leader_id = -1;
    *leader_epoch = -1;
    gr_share_request_partition(b, topic_id, index, &err, &other);
    if (!other)
        return;
    *leader_id = other->leader_id;
    *leader_epoch = other->leader_epoch;
    gr_share_leaders_add(l, req, other->leader_id);
}
