/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share manager (share_manager.h): the table of share-partitions led
 * here, their loading through the persister, acquisition and the end of
 * leadership. Acknowledgements, writes and lock expiry are in
 * share_manager_ack.c.
 *
 * The table is GR_SHARE_MANAGER_BUCKETS chains keyed (group, topic id,
 * partition). An entry is made by the first fetch of a (group, partition)
 * and kept while this broker leads the partition; it reaches its partition
 * again by topic id and index (the partition array may move), never by a
 * kept pointer.
 *
 * The group's configs (metadata/group_config.h) apply as in Kafka:
 * share.auto.offset.reset when a share-partition starts a new group,
 * share.record.lock.duration.ms and share.isolation.level at each fetch,
 * so that a changed override reaches later fetches.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "coordinator/hash.h"
#include "log/log.h"
#include "metadata/group_config.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "share/share_fetch_read.h"
#include "protocol/uuid.h"
#include "share/share_manager_int.h"

static void session_closed(void *arg, const gr_share_session_t *session)
{
    gr_share_manager_release_session(arg, session);
}

gr_share_manager_t *gr_share_manager_new(gr_broker_t *b, gr_share_persister_t *persister)
{
    gr_share_manager_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->b = b;
    m->persister = persister;
    m->sessions =
        gr_share_sessions_new(b->config.group_share_max_share_sessions, session_closed, m);
    if (!m->sessions) {
        free(m);
        return NULL;
    }
    return m;
}

gr_share_sessions_t *gr_share_manager_sessions(gr_share_manager_t *m)
{
    return m->sessions;
}

static gr_group_config_values_t group_config(const gr_broker_t *b, gr_str_t group)
{
    gr_group_config_values_t v;
    gr_group_config_get(b, group.ptr, group.len > 0 ? (size_t)group.len : 0, &v);
    return v;
}

int32_t gr_share_manager_lock_duration_ms(const gr_share_manager_t *m, gr_str_t group)
{
    return group_config(m->b, group).share_record_lock_duration_ms;
}

void gr_share_manager_fetch_limits(const gr_share_manager_t *m, gr_str_t group,
                                   gr_share_fetch_limits_t *out)
{
    gr_group_config_values_t v = group_config(m->b, group);
    *out = (gr_share_fetch_limits_t){
        .lock_duration_ms = v.share_record_lock_duration_ms,
        .read_committed = v.share_isolation_level != GR_GROUP_ISOLATION_READ_UNCOMMITTED,
    };
}

int32_t gr_share_manager_count(const gr_share_manager_t *m)
{
    return m->count;
}

static size_t bucket_of(gr_str_t group, gr_uuid_t topic_id, int32_t partition)
{
    size_t h = gr_coordinator_key_bucket(group, GR_SHARE_MANAGER_BUCKETS);
    for (size_t i = 0; i < sizeof topic_id.b; i++)
        h = h * 31 + topic_id.b[i];
    return (h * 31 + (uint32_t)partition) % GR_SHARE_MANAGER_BUCKETS;
}

static bool entry_is(const share_entry_t *e, gr_str_t group, gr_uuid_t topic_id, int32_t partition)
{
    size_t len = group.len > 0 ? (size_t)group.len : 0;
    return e->partition == partition && memcmp(e->topic_id.b, topic_id.b, sizeof topic_id.b) == 0 &&
           strlen(e->group_id) == len && memcmp(e->group_id, group.ptr, len) == 0;
}

share_entry_t *gr_share_manager_entry(gr_share_manager_t *m, gr_str_t group, gr_uuid_t topic_id,
                                      int32_t partition)
{
    share_entry_t *e = m->buckets[bucket_of(group, topic_id, partition)];
    while (e && !entry_is(e, group, topic_id, partition))
        e = e->next;
    return e;
}

gr_partition_t *gr_share_entry_partition(share_entry_t *e)
{
    gr_broker_t *b = e->m->b;
    gr_topic_t *topic = gr_topics_find_id(b->topics, e->topic_id);
    gr_partition_t *p = topic ? gr_topic_partition(topic, e->partition) : NULL;
    return p && gr_partition_led_by(p, b->config.broker_id) ? p : NULL;
}

void gr_share_entry_wake(share_entry_t *e)
{
    gr_partition_t *p = gr_share_entry_partition(e);
    if (p)
        gr_partition_wake(p);
}

/* Unlinks e and frees it: its persister calls are cancelled, waiting acknowledgements answered. */
static void entry_drop(share_entry_t *e, gr_kerr_t why)
{
    gr_share_manager_t *m = e->m;
    share_entry_t **at = &m->buckets[bucket_of(gr_str(e->group_id), e->topic_id, e->partition)];
    while (*at && *at != e)
        at = &(*at)->next;
    if (*at) {
        *at = e->next;
        m->count--;
    }
    ev_timer_stop(m->b->loop, &e->lock_timer);
    gr_share_persister_cancel(m->persister, e);
    while (e->writes) {
        share_write_t *w = e->writes;
        e->writes = w->next;
        if (w->done)
            w->done(w->arg, why);
        free(w);
    }
    gr_share_partition_free(e->sp);
    free(e->group_id);
    free(e);
}

void gr_share_manager_free(gr_share_manager_t *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < GR_SHARE_MANAGER_BUCKETS; i++)
        while (m->buckets[i])
            entry_drop(m->buckets[i], GR_KERR_NOT_LEADER_OR_FOLLOWER);
    gr_share_sessions_free(m->sessions);
    free(m);
}

static gr_share_partition_config_t partition_config(const gr_broker_t *b, const char *group)
{
    return (gr_share_partition_config_t){
        .record_lock_duration_ms = group_config(b, gr_str(group)).share_record_lock_duration_ms,
        .delivery_count_limit = (int16_t)b->config.group_share_delivery_count_limit,
        .max_record_locks = b->config.group_share_partition_max_record_locks,
    };
}

static void entry_log(share_entry_t *e, const char *what, const char *why)
{
    char id[GR_UUID_STRING_CHARS + 1];
    gr_uuid_format(e->topic_id, id);
    gr_logf(&e->m->b->log, GR_LOG_WARN, "share", "share-partition %s:%s:%d: %s: %s", e->group_id,
            id, e->partition, what, why);
}

/* The state is known: the share-partition is usable, waiting fetches look again. */
static void entry_ready(share_entry_t *e, const gr_share_state_t *state)
{
    gr_share_partition_config_t config = partition_config(e->m->b, e->group_id);
    int rc = gr_share_partition_new(&config, state, e->start_offset, &e->sp);
    if (rc < 0) {
        entry_log(e, "state refused", strerror(-rc));
        entry_drop(e, GR_KERR_UNKNOWN_SERVER_ERROR);
        return;
    }
    e->phase = SHARE_READY;
    gr_share_entry_wake(e);
}

static void on_initialized(void *opaque, gr_kerr_t err)
{
    share_entry_t *e = opaque;
    if (err) {
        entry_log(e, "initialize", gr_kerr_name(err));
        entry_drop(e, err); /* the next fetch reads again */
        return;
    }
    entry_ready(e, NULL);
}

/*
 * A new group's start offset, from share.auto.offset.reset: latest (the
 * high watermark) by default, earliest (the log start offset), or
 * by_duration: the first record stamped at or after now minus the
 * duration, as ListOffsets by timestamp finds it, else the high watermark.
 */
static int64_t resolve_start_offset(share_entry_t *e, gr_partition_t *p)
{
    gr_broker_t *b = e->m->b;
    gr_group_config_values_t v = group_config(b, gr_str(e->group_id));
    int64_t hwm = gr_log_high_watermark(p->log);
    if (v.share_auto_offset_reset == GR_SHARE_OFFSET_RESET_EARLIEST)
        return gr_log_start_offset(p->log);
    if (v.share_auto_offset_reset != GR_SHARE_OFFSET_RESET_BY_DURATION)
        return hwm;
    gr_log_offset_ts_t found;
    int64_t since = gr_broker_now_ms(b) - v.share_auto_offset_reset_duration_ms;
    int rc = gr_log_offset_for_timestamp(p->log, since > 0 ? since : 0, &found);
    if (rc < 0) {
        entry_log(e, "by_duration lookup", strerror(-rc));
        return hwm;
    }
    return found.offset >= 0 && found.offset < hwm ? found.offset : hwm;
}

static void on_read(void *opaque, gr_kerr_t err, const gr_share_state_t *state)
{
    share_entry_t *e = opaque;
    gr_partition_t *p = gr_share_entry_partition(e);
    if (err || !p) {
        entry_log(e, "read", err ? gr_kerr_name(err) : "no longer led here");
        entry_drop(e, err ? err : GR_KERR_NOT_LEADER_OR_FOLLOWER);
        return;
    }
    if (state->start_offset != GR_SHARE_START_OFFSET_UNINITIALIZED) {
        e->state_epoch = state->state_epoch;
        entry_ready(e, state);
        return;
    }
    e->phase = SHARE_INITIALIZING;
    e->state_epoch = state->state_epoch + 1;
    e->start_offset = resolve_start_offset(e, p);
    gr_share_key_t key = {e->group_id, e->topic_id, e->partition};
    int rc = gr_share_persister_initialize(e->m->persister, &key, e->state_epoch, e->start_offset,
                                           on_initialized, e);
    if (rc < 0) {
        entry_log(e, "initialize", strerror(-rc));
        entry_drop(e, GR_KERR_UNKNOWN_SERVER_ERROR);
    }
}

static void on_lock_timer(struct ev_loop *loop, ev_timer *w, int revents);

/* A new entry for (group, p), LOADING. NULL: out of memory or too many. */
static share_entry_t *entry_new(gr_share_manager_t *m, gr_str_t group, gr_partition_t *p)
{
    if (m->count >= GR_SHARE_MANAGER_MAX_PARTITIONS)
        return NULL;
    share_entry_t *e = calloc(1, sizeof *e);
    size_t len = group.len > 0 ? (size_t)group.len : 0;
    char *id = malloc(len + 1);
    if (!e || !id) {
        free(e);
        free(id);
        return NULL;
    }
    if (len)
        memcpy(id, group.ptr, len);
    id[len] = '\0';
    e->m = m;
    e->group_id = id;
    e->topic_id = p->topic->id;
    e->partition = p->index;
    e->leader_epoch = p->leader_epoch;
    e->phase = SHARE_LOADING;
    ev_timer_init(&e->lock_timer, on_lock_timer, 0., 0.);
    e->lock_timer.data = e;
    gr_share_key_t key = {e->group_id, e->topic_id, e->partition};
    if (gr_share_persister_read(m->persister, &key, e->leader_epoch, on_read, e) < 0) {
        free(id);
        free(e);
        return NULL;
    }
    size_t b = bucket_of(group, e->topic_id, e->partition);
    e->next = m->buckets[b];
    m->buckets[b] = e;
    m->count++;
    return e;
}

static void on_lock_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    share_entry_t *e = w->data;
    int64_t released = gr_share_partition_expire(e->sp, gr_broker_now_ms(e->m->b));
    if (released > 0) {
        gr_share_entry_write(e, NULL, NULL);
        gr_share_entry_wake(e);
    }
    gr_share_entry_arm(e);
}

void gr_share_entry_arm(share_entry_t *e)
{
    struct ev_loop *loop = e->m->b->loop;
    ev_timer_stop(loop, &e->lock_timer);
    if (!e->sp)
        return;
    int64_t deadline = gr_share_partition_next_deadline(e->sp);
    if (deadline == GR_SHARE_PARTITION_NO_DEADLINE)
        return;
    int64_t in_ms = deadline - gr_broker_now_ms(e->m->b);
    ev_timer_set(&e->lock_timer, in_ms > 0 ? (double)in_ms / 1000.0 : 0., 0.);
    ev_timer_start(loop, &e->lock_timer);
}

void gr_share_fetched_fini(gr_share_fetched_t *out)
{
    if (out->segment)
        gr_segment_put(out->segment);
    out->segment = NULL;
    gr_share_acquired_list_fini(&out->acquired);
}

gr_kerr_t gr_share_manager_acquire(gr_share_manager_t *m, gr_str_t group, gr_partition_t *p,
                                   gr_str_t member, const gr_share_fetch_limits_t *limits,
                                   gr_share_fetched_t *out)
{
    memset(out, 0, sizeof *out);
    share_entry_t *e = gr_share_manager_entry(m, group, p->topic->id, p->index);
    if (!e) {
        if (!entry_new(m, group, p))
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        return GR_KERR_NONE; /* loading: nothing yet */
    }
    if (e->phase != SHARE_READY)
        return GR_KERR_NONE;
    char member_id[GR_SHARE_MEMBER_ID_MAX];
    gr_share_member_id(member, member_id);
    gr_share_partition_set_lock_duration(e->sp, limits->lock_duration_ms);
    gr_share_read_request_t req = {
        .member_id = member_id,
        .max_bytes = limits->max_bytes,
        .max_records = limits->max_records,
        .mode = limits->mode,
        .batch_size = limits->batch_size,
        .read_committed = limits->read_committed,
        .now_ms = gr_broker_now_ms(m->b),
    };
    gr_kerr_t err = gr_share_fetch_read(e->sp, p, &req, out);
    if (out->acquired.count > 0)
        gr_share_entry_arm(e);
    return err;
}

void gr_share_manager_release_session(gr_share_manager_t *m, const gr_share_session_t *session)
{
    gr_str_t group = gr_str(session->group_id);
    for (int32_t i = 0; i < session->partition_count; i++) {
        const gr_share_tp_t *tp = &session->partitions[i];
        share_entry_t *e = gr_share_manager_entry(m, group, tp->topic_id, tp->partition);
        if (!e || e->phase != SHARE_READY)
            continue;
        if (gr_share_partition_release_member(e->sp, session->member_id) > 0) {
            gr_share_entry_write(e, NULL, NULL);
            gr_share_entry_arm(e);
            gr_share_entry_wake(e);
        }
    }
}

void gr_share_manager_leadership(gr_share_manager_t *m, gr_partition_t *p, bool led_here)
{
    /* Every partition's resignation passes here: a broker without share
     * groups pays one test, not a walk of the table. */
    if (led_here || !p->topic || m->count == 0)
        return;
    for (size_t i = 0; i < GR_SHARE_MANAGER_BUCKETS; i++) {
        share_entry_t **at = &m->buckets[i];
        while (*at) {
            share_entry_t *e = *at;
            if (e->partition == p->index &&
                memcmp(e->topic_id.b, p->topic->id.b, sizeof e->topic_id.b) == 0)
                entry_drop(e, GR_KERR_NOT_LEADER_OR_FOLLOWER); /* unlinks *at */
            else
                at = &e->next;
        }
    }
}
