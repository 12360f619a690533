/* SPDX-License-Identifier: Apache-2.0 */
/* The /config/changes notification reader and its purge; see config_changes.h. */
#include "controller/config_changes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "controller/zk_member.h"
#include "core/context.h"
#include "metadata/broker_config_store.h"
#include "metadata/group_config_store.h"
#include "metadata/store.h"
#include "metadata/topic_config_fetch.h"
#include "metadata/topics.h"
#include "metadata/zk_docs.h"

/* The purge of expired /config/changes notifications runs at least this often. */
#define CHANGES_PURGE_MAX_SEC 60.0
#define MS_PER_SEC            1000.0

/* A read's context: dropped when the session it belongs to is gone. */
typedef struct change_op {
    gr_zk_member_t *m;
    uint64_t gen;
} change_op_t;

static change_op_t *change_op_new(gr_zk_member_t *m)
{
    change_op_t *op = malloc(sizeof *op);
    if (op) {
        op->m = m;
        op->gen = m->gen;
    }
    return op;
}

static bool change_op_current(change_op_t *op)
{
    bool current = op->gen == op->m->gen && !op->m->b->stopping;
    if (!current)
        free(op);
    return current;
}

/* A changed config may allow an election (unclean.leader.election.enable): reconcile. */
static void on_change_applied(void *opaque)
{
    gr_broker_t *b = opaque;
    if (gr_zk_member_is_controller(b))
        ctl_kick(&b->zk->controller);
}

void gr_config_changes_broker_applied(gr_broker_t *b)
{
    if (b->zk && !b->stopping)
        on_change_applied(b);
}

static void on_change_data(void *opaque, int rc, const void *data, size_t len,
                           const gr_store_stat_t *stat)
{
    (void)stat;
    change_op_t *op = opaque;
    if (!change_op_current(op))
        return;
    gr_broker_t *b = op->m->b;
    free(op);
    char topic[GR_TOPIC_NAME_LIMIT + 1];
    char user[GR_STORE_PATH_MAX + 1];
    char entity[GR_STORE_PATH_MAX + sizeof "clients/"];
    if (rc == GR_STORE_OK && b->on_quota_changed &&
        gr_zk_parse_config_change_entity(data, len, "clients", user, sizeof user) == 0) {
        snprintf(entity, sizeof entity, "clients/%s", user);
        b->on_quota_changed(b, entity); /* client-id quotas (quota/) */
        return;
    }
    if (rc == GR_STORE_OK &&
        gr_zk_parse_config_change_entity(data, len, "users", user, sizeof user) == 0) {
        /* A user's node holds both SCRAM credentials and quotas; users/<u>/clients/<c> quotas. */
        snprintf(entity, sizeof entity, "users/%s", user);
        if (b->on_quota_changed)
            b->on_quota_changed(b, entity);
        if (b->on_user_changed && !strchr(user, '/'))
            b->on_user_changed(b, user); /* SCRAM credentials (security/) */
        return;
    }
    if (rc == GR_STORE_OK && gr_zk_parse_config_change_entity(
                                 data, len, GR_GROUP_CONFIG_ENTITY_TYPE, user, sizeof user) == 0) {
        gr_group_config_store_reload(b, user); /* a group's configs (share and consumer groups) */
        return;
    }
    if (rc == GR_STORE_OK && gr_zk_parse_config_change_entity(
                                 data, len, GR_BROKER_CONFIG_ENTITY_TYPE, user, sizeof user) == 0) {
        gr_broker_config_store_reload(b, user); /* dynamic broker configs (KIP-226) */
        return;
    }
    if (rc != GR_STORE_OK || gr_zk_parse_config_change(data, len, topic, sizeof topic) != 0)
        return; /* not about a topic: nothing to apply */
    gr_str_t name = {topic, (int32_t)strlen(topic)};
    if (gr_topics_find(b->topics, topic, strlen(topic))) {
        gr_logf(&b->log, GR_LOG_INFO, "topics", "config of %s changed", topic);
        (void)gr_topic_configs_fetch(b, &name, 1, on_change_applied, b, NULL);
    }
}

/* The sequence number of a config_change_NNNNNNNNNN child, or -1. */
static int64_t change_sequence(const char *name)
{
    size_t prefix = strlen(GR_ZK_CONFIG_CHANGE_PREFIX);
    if (strncmp(name, GR_ZK_CONFIG_CHANGE_PREFIX, prefix) != 0)
        return -1;
    char *end = NULL;
    long long seq = strtoll(name + prefix, &end, 10);
    return *end || seq < 0 ? -1 : (int64_t)seq;
}

/*
 * Expiry of notifications, as Kafka's change listener does it: every broker,
 * whenever it lists /config/changes, deletes the notifications created more
 * than gregor.config.change.expiration.ms ago (Kafka: 15 minutes), so the
 * list stays short; a broker that was away that long re-reads every topic's
 * config at registration anyway. A timer lists them too, so old ones go when
 * no new change comes. Brokers race to delete: NONODE is the loser's answer.
 */
typedef struct purge_op {
    gr_zk_member_t *m;
    uint64_t gen;
    char path[GR_STORE_PATH_MAX + 1];
} purge_op_t;

static bool purge_current(purge_op_t *op)
{
    bool current = op->gen == op->m->gen && !op->m->b->stopping;
    if (!current)
        free(op);
    return current;
}

static void on_purged(void *opaque, int rc)
{
    purge_op_t *op = opaque;
    if (!purge_current(op))
        return;
    gr_broker_t *b = op->m->b;
    if (rc == GR_STORE_OK)
        gr_logf(&b->log, GR_LOG_INFO, "zookeeper", "deleted expired config change notification %s",
                op->path);
    else if (rc != GR_STORE_NONODE)
        gr_logf(&b->log, GR_LOG_WARN, "zookeeper", "deleting expired %s: %s (retried later)",
                op->path, gr_store_rc_name(rc));
    free(op);
}

static void on_purge_stat(void *opaque, int rc, const gr_store_stat_t *stat)
{
    purge_op_t *op = opaque;
    if (!purge_current(op))
        return;
    gr_broker_t *b = op->m->b;
    bool expired = rc == GR_STORE_OK &&
                   gr_broker_now_ms(b) - stat->ctime > b->config.gregor_config_change_expiration_ms;
    if (expired && gr_store_delete(b->store_session, op->path, GR_STORE_ANY_VERSION, on_purged,
                                   op) == GR_STORE_OK)
        return;
    free(op);
}

/* Deletes the expired ones among the children names of /config/changes. */
static void purge_changes(gr_zk_member_t *m, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (change_sequence(names[i]) < 0)
            continue; /* not a notification: not ours to delete */
        purge_op_t *op = malloc(sizeof *op);
        if (!op)
            return;
        op->m = m;
        op->gen = m->gen;
        snprintf(op->path, sizeof op->path, GR_ZK_CONFIG_CHANGES_PATH "/%s", names[i]);
        if (gr_store_exists(m->b->store_session, op->path, NULL, NULL, on_purge_stat, op) !=
            GR_STORE_OK)
            free(op);
    }
}

static void on_purge_listing(void *opaque, int rc, const char *const *names, size_t count,
                             const gr_store_stat_t *stat)
{
    (void)stat;
    change_op_t *op = opaque;
    if (!change_op_current(op))
        return;
    gr_zk_member_t *m = op->m;
    free(op);
    if (rc == GR_STORE_OK)
        purge_changes(m, names, count);
}

static void on_purge_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    gr_zk_member_t *m = t->data;
    if (!m->registered || m->b->stopping)
        return;
    change_op_t *op = change_op_new(m);
    if (op && gr_store_children(m->b->store_session, GR_ZK_CONFIG_CHANGES_PATH, NULL, NULL,
                                on_purge_listing, op) != GR_STORE_OK)
        free(op);
}

static void on_changes_watch(void *opaque, gr_store_event_t event, const char *path)
{
    (void)event;
    (void)path;
    gr_zk_member_t *m = opaque;
    if (m->registered && !m->b->stopping)
        gr_config_changes_watch(m);
}

static void on_changes(void *opaque, int rc, const char *const *names, size_t count,
                       const gr_store_stat_t *stat)
{
    (void)stat;
    change_op_t *op = opaque;
    if (!change_op_current(op))
        return;
    gr_zk_member_t *m = op->m;
    free(op);
    int64_t highest = m->changes.seen;
    for (size_t i = 0; rc == GR_STORE_OK && i < count; i++) {
        int64_t seq = change_sequence(names[i]);
        if (seq > highest)
            highest = seq;
        if (seq <= m->changes.seen || !m->changes.primed)
            continue;
        char path[GR_STORE_PATH_MAX + 1];
        snprintf(path, sizeof path, GR_ZK_CONFIG_CHANGES_PATH "/%s", names[i]);
        change_op_t *read = change_op_new(m);
        if (read && gr_store_get(m->b->store_session, path, NULL, NULL, on_change_data, read) !=
                        GR_STORE_OK)
            free(read);
    }
    m->changes.seen = highest;
    m->changes.primed = true;
    if (rc == GR_STORE_OK)
        purge_changes(m, names, count);
}

void gr_config_changes_watch(gr_zk_member_t *m)
{
    change_op_t *op = change_op_new(m);
    if (op && gr_store_children(m->b->store_session, GR_ZK_CONFIG_CHANGES_PATH, on_changes_watch, m,
                                on_changes, op) != GR_STORE_OK)
        free(op);
}

void gr_config_changes_init(gr_config_changes_t *cc)
{
    cc->primed = false;
    /* Sequential children count from 0: config_change_0000000000 is new too. */
    cc->seen = -1;
    ev_init(&cc->purge, NULL);
}

void gr_config_changes_start(gr_zk_member_t *m)
{
    gr_broker_t *b = m->b;
    double expiry_sec = (double)b->config.gregor_config_change_expiration_ms / MS_PER_SEC;
    double every = expiry_sec < CHANGES_PURGE_MAX_SEC ? expiry_sec : CHANGES_PURGE_MAX_SEC;
    ev_timer_init(&m->changes.purge, on_purge_timer, every, every);
    m->changes.purge.data = m;
    ev_timer_start(b->loop, &m->changes.purge);
    ev_unref(b->loop); /* the timer alone does not keep the loop running */
}

void gr_config_changes_stop(gr_zk_member_t *m)
{
    if (ev_is_active(&m->changes.purge)) {
        ev_ref(m->b->loop); /* started unreferenced */
        ev_timer_stop(m->b->loop, &m->changes.purge);
    }
}
