/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller's reads of ZooKeeper, each leaving a watch that reads
 * again on change: live brokers, topic assignments and partition states,
 * and topics queued for deletion. Reconciling waits until no read is
 * outstanding (reads_pending), so it always sees a settled picture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/random.h>

#include "controller/controller_int.h"
#include "metadata/zk_docs.h"
#include "metadata/zk_json.h"
#include "metadata/store.h"
#include "metadata/topics.h"

/* A listing changed: read it again (the watch is re-set by the read). */
static void on_listing_watch(void *opaque, gr_store_event_t event, const char *path)
{
    (void)event;
    gr_controller_t *c = opaque;
    if (!c->active)
        return;
    if (strcmp(path, GR_ZK_BROKER_IDS_PATH) == 0)
        ctl_load_brokers(c);
    else if (strcmp(path, GR_ZK_BROKER_TOPICS_PATH) == 0)
        ctl_load_topics(c);
    else if (strcmp(path, GR_ZK_DELETE_TOPICS_PATH) == 0)
        ctl_load_deletions(c);
}

/* Lists path's children with a watch; reconciling waits for cb. */
static void list_children(gr_controller_t *c, const char *path, gr_store_children_fn *cb)
{
    ctl_op_t *op = ctl_op_new(c);
    if (!op)
        return ctl_kick_later(c);
    c->reads_pending++;
    if (gr_store_children(c->b->store_session, path, on_listing_watch, c, cb, op) != GR_STORE_OK) {
        c->reads_pending--;
        free(op);
        ctl_kick_later(c);
    }
}

/* Reads path (watched when watch is set) for op; reconciling waits for cb. */
static void read_node(gr_controller_t *c, ctl_op_t *op, const char *path, gr_store_watch_fn *watch,
                      gr_store_data_fn *cb)
{
    c->reads_pending++;
    if (gr_store_get(c->b->store_session, path, watch, c, cb, op) != GR_STORE_OK) {
        c->reads_pending--;
        free(op);
        ctl_kick_later(c);
    }
}

/* ---- brokers ------------------------------------------------------------------------ */

typedef struct broker_snapshot {
    ctl_op_t *op;
    size_t count, pending;
    gr_ctl_broker_t *items;
    bool *ok;
} broker_snapshot_t;

static int by_id(const void *a, const void *b)
{
    int32_t x = ((const gr_ctl_broker_t *)a)->node.id, y = ((const gr_ctl_broker_t *)b)->node.id;
    return (x > y) - (x < y);
}

/* Replaces the live broker list with the snapshot, keeping peers of brokers that stayed. */
static void brokers_apply(gr_controller_t *c, broker_snapshot_t *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->ok[i])
            s->items[n++] = s->items[i];
    qsort(s->items, n, sizeof *s->items, by_id);
    for (size_t i = 0; i < n; i++) {
        gr_ctl_broker_t *old = ctl_broker_find(c, s->items[i].node.id);
        s->items[i].needs_full = true;
        if (old && old->czxid == s->items[i].czxid) {
            s->items[i].peer = old->peer;
            s->items[i].needs_full = old->needs_full;
            s->items[i].shutting_down = old->shutting_down; /* a restart registers anew */
            old->peer = NULL;
        } else {
            gr_logf(&c->b->log, GR_LOG_INFO, "controller", "broker %d joined (%s:%d)",
                    s->items[i].node.id, s->items[i].node.host, s->items[i].node.port);
        }
    }
    for (size_t i = 0; i < c->broker_count; i++) {
        if (c->brokers[i].peer)
            gr_logf(&c->b->log, GR_LOG_INFO, "controller", "broker %d left", c->brokers[i].node.id);
        ctl_broker_drop_peer(&c->brokers[i]);
        free(c->brokers[i].node.rack);
    }
    free(c->brokers);
    c->brokers = s->items;
    c->broker_count = n;
    c->metadata_dirty = true;
    s->items = NULL;
}

static void snapshot_release(broker_snapshot_t *s)
{
    if (--s->pending > 0)
        return;
    ctl_op_t *op = s->op;
    if (ctl_op_current(op)) {
        brokers_apply(op->c, s);
        op->c->reads_pending--;
        ctl_kick(op->c);
        free(op);
    }
    for (size_t i = 0; s->items && i < s->count; i++)
        free(s->items[i].node.rack);
    free(s->items);
    free(s->ok);
    free(s);
}

typedef struct broker_read {
    broker_snapshot_t *s;
    size_t slot;
} broker_read_t;

static void on_broker_data(void *opaque, int rc, const void *data, size_t len,
                           const gr_store_stat_t *stat)
{
    broker_read_t *r = opaque;
    broker_snapshot_t *s = r->s;
    gr_ctl_broker_t *item = &s->items[r->slot];
    if (rc == GR_STORE_OK &&
        gr_zk_parse_broker(data, len, s->op->c->b->config.effective.inter_broker_listener,
                           &item->node) == 0) {
        item->czxid = stat->czxid;
        s->ok[r->slot] = true;
    }
    free(r);
    snapshot_release(s);
}

static void on_broker_ids(void *opaque, int rc, const char *const *names, size_t count,
                          const gr_store_stat_t *stat)
{
    (void)stat;
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    broker_snapshot_t *s = calloc(1, sizeof *s);
    if (rc != GR_STORE_OK || !s || !(s->items = calloc(count + 1, sizeof *s->items)) ||
        !(s->ok = calloc(count + 1, sizeof *s->ok))) {
        if (s) {
            free(s->items);
            free(s);
        }
        gr_logf(&c->b->log, GR_LOG_WARN, "controller", "reading the live brokers failed: %s",
                gr_store_rc_name(rc));
        c->reads_pending--;
        free(op);
        ctl_kick_later(c);
        return;
    }
    s->op = op;
    s->count = count;
    s->pending = 1;
    for (size_t i = 0; i < count; i++) {
        char *end = NULL;
        long id = strtol(names[i], &end, 10);
        broker_read_t *r = malloc(sizeof *r);
        if (*end || id < 0 || id > INT32_MAX || !r) {
            free(r);
            continue;
        }
        s->items[i].node.id = (int32_t)id;
        r->s = s;
        r->slot = i;
        char path[GR_STORE_PATH_MAX + 1];
        snprintf(path, sizeof path, GR_ZK_BROKER_IDS_PATH "/%s", names[i]);
        if (gr_store_get(c->b->store_session, path, NULL, NULL, on_broker_data, r) == GR_STORE_OK)
            s->pending++;
        else
            free(r);
    }
    snapshot_release(s);
}

void ctl_load_brokers(gr_controller_t *c)
{
    list_children(c, GR_ZK_BROKER_IDS_PATH, on_broker_ids);
}

/* ---- partition states ---------------------------------------------------------------- */

static void on_state(void *opaque, int rc, const void *data, size_t len,
                     const gr_store_stat_t *stat)
{
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    gr_ctl_topic_t *t = ctl_topic_find(c, op->name);
    c->reads_pending--;
    if (t && op->index < t->partition_count && !t->partitions[op->index].writing) {
        gr_ctl_partition_t *p = &t->partitions[op->index];
        gr_zk_partition_state_free(&p->state);
        p->has_state = rc == GR_STORE_OK && gr_zk_parse_partition_state(data, len, &p->state) == 0;
        p->state_read = rc == GR_STORE_OK || rc == GR_STORE_NONODE;
        p->zk_version = p->has_state ? stat->version : -1;
        if (rc == GR_STORE_OK && !p->has_state)
            gr_logf(&c->b->log, GR_LOG_ERROR, "controller", "state of %s-%d is unreadable", t->name,
                    op->index);
        p->changed = true;
    }
    free(op);
    ctl_kick(c);
}

void ctl_load_state(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index)
{
    ctl_op_t *op = ctl_op_new(c);
    if (!op)
        return ctl_kick_later(c);
    snprintf(op->name, sizeof op->name, "%s", t->name);
    op->index = index;
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s/partitions/%d/state", t->name, index);
    read_node(c, op, path, NULL, on_state);
}

/* ---- topic assignments --------------------------------------------------------------- */

static void on_assignment_watch(void *opaque, gr_store_event_t event, const char *path)
{
    gr_controller_t *c = opaque;
    const char *name = strrchr(path, '/');
    if (c->active && name && event != GR_STORE_EVENT_DELETED)
        ctl_load_assignment(c, name + 1);
}

/* Takes the assignment's replica lists (and reassignments); grows the topic (partitions never
 * shrink). */
static int topic_set_assignment(gr_ctl_topic_t *t, gr_zk_assignment_t *a)
{
    if (a->partition_count > t->partition_count) {
        gr_ctl_partition_t *grown =
            realloc(t->partitions, (size_t)a->partition_count * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        memset(&grown[t->partition_count], 0,
               (size_t)(a->partition_count - t->partition_count) * sizeof *grown);
        t->partitions = grown;
        t->partition_count = a->partition_count;
    }
    for (int32_t i = 0; i < a->partition_count; i++) {
        gr_ctl_partition_t *p = &t->partitions[i];
        free(p->replicas);
        free(p->stop_state); /* positions of the old list */
        p->stop_state = NULL;
        p->replicas = a->replicas[i];
        p->replica_count = a->replica_counts[i];
        a->replicas[i] = NULL;
        ctl_reassign_clear(p);
        if (a->adding) {
            p->adding = a->adding[i];
            p->adding_count = a->adding_counts[i];
            a->adding[i] = NULL;
            p->removing = a->removing[i];
            p->removing_count = a->removing_counts[i];
            a->removing[i] = NULL;
        }
    }
    if (a->has_id)
        t->id = a->id;
    return 0;
}

static void on_id_written(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    ctl_op_t *op = opaque;
    if (ctl_op_current(op) && rc != GR_STORE_OK && rc != GR_STORE_BADVERSION)
        gr_logf(&op->c->b->log, GR_LOG_WARN, "controller", "cannot write the topic id of %s: %s",
                op->name, gr_store_rc_name(rc));
    free(op);
}

/*
 * A topic written without an id (Kafka before 2.8) gets one, written back
 * over the version read (a concurrent change wins and is read again), as
 * Kafka's controller does since KIP-516.
 */
static void assign_topic_id(gr_controller_t *c, const char *name, gr_zk_assignment_t *a,
                            int32_t version)
{
    if (getrandom(a->id.b, sizeof a->id.b, 0) != (ssize_t)sizeof a->id.b)
        return;
    a->has_id = true;
    gr_zk_json_writer_t w;
    const char *text = NULL;
    size_t len = 0;
    gr_zk_json_writer_init(&w);
    ctl_op_t *op = ctl_op_new(c);
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s", name);
    if (op)
        snprintf(op->name, sizeof op->name, "%s", name);
    if (!op || gr_zk_doc_assignment(&w, a) || gr_zk_json_writer_finish(&w, &text, &len) ||
        gr_store_set(c->b->store_session, path, text, len, version, on_id_written, op) !=
            GR_STORE_OK)
        free(op);
    gr_zk_json_writer_fini(&w);
}

static void on_assignment(void *opaque, int rc, const void *data, size_t len,
                          const gr_store_stat_t *stat)
{
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    gr_ctl_topic_t *t = ctl_topic_find(c, op->name);
    c->reads_pending--;
    gr_zk_assignment_t a;
    if (t && rc == GR_STORE_OK && (t->assignment_writing || t->edits > t->saved)) {
        /* Read before our own write: its watch reads again once it is in. */
    } else if (t && rc == GR_STORE_OK && gr_zk_parse_assignment(data, len, &a) == 0) {
        t->assignment_version = stat->version;
        if (!a.has_id)
            assign_topic_id(c, op->name, &a, stat->version);
        if (topic_set_assignment(t, &a) == 0)
            for (int32_t i = 0; i < t->partition_count; i++)
                if (!t->partitions[i].state_read)
                    ctl_load_state(c, t, i);
        gr_zk_assignment_free(&a);
    } else if (t && rc == GR_STORE_OK) {
        gr_logf(&c->b->log, GR_LOG_ERROR, "controller", "assignment of %s is unreadable", op->name);
    }
    free(op);
    ctl_kick(c);
}

void ctl_load_assignment(gr_controller_t *c, const char *name)
{
    ctl_op_t *op = ctl_op_new(c);
    if (!op)
        return ctl_kick_later(c);
    snprintf(op->name, sizeof op->name, "%s", name);
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s", name);
    read_node(c, op, path, on_assignment_watch, on_assignment);
}

static void on_topic_names(void *opaque, int rc, const char *const *names, size_t count,
                           const gr_store_stat_t *stat)
{
    (void)stat;
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    c->reads_pending--;
    free(op);
    if (rc != GR_STORE_OK) {
        ctl_kick_later(c);
        return;
    }
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next)
        t->seen = false;
    for (size_t i = 0; i < count; i++) {
        gr_ctl_topic_t *t = ctl_topic_find(c, names[i]);
        if (!t && strlen(names[i]) <= GR_TOPIC_NAME_LIMIT && (t = calloc(1, sizeof *t))) {
            if (!(t->name = strdup(names[i]))) {
                free(t);
                continue;
            }
            t->next = c->topics;
            c->topics = t;
            ctl_load_assignment(c, t->name);
        }
        if (t)
            t->seen = true;
    }
    for (gr_ctl_topic_t *t = c->topics, *next; t; t = next) {
        next = t->next;
        if (!t->seen) {
            ctl_topic_unlink(c, t);
            ctl_topic_free(t);
            c->metadata_dirty = true;
        }
    }
    ctl_kick(c);
}

void ctl_load_topics(gr_controller_t *c)
{
    list_children(c, GR_ZK_BROKER_TOPICS_PATH, on_topic_names);
}

/* ---- deletions ------------------------------------------------------------------------ */

static void on_admin_node_deleted(void *opaque, int rc)
{
    (void)opaque;
    (void)rc;
}

/* A deletion queued for a topic that does not exist: drop the request. */
static void on_queued_topic_exists(void *opaque, int rc, const gr_store_stat_t *stat)
{
    (void)stat;
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    if (rc == GR_STORE_NONODE) {
        char path[GR_STORE_PATH_MAX + 1];
        snprintf(path, sizeof path, GR_ZK_DELETE_TOPICS_PATH "/%s", op->name);
        (void)gr_store_delete(op->c->b->store_session, path, GR_STORE_ANY_VERSION,
                              on_admin_node_deleted, NULL);
    }
    free(op);
}

static void on_deletions(void *opaque, int rc, const char *const *names, size_t count,
                         const gr_store_stat_t *stat)
{
    (void)stat;
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    c->reads_pending--;
    free(op);
    for (size_t i = 0; rc == GR_STORE_OK && i < count; i++) {
        gr_ctl_topic_t *t = ctl_topic_find(c, names[i]);
        if (t && !t->deleting) {
            gr_logf(&c->b->log, GR_LOG_INFO, "controller", "deleting topic %s", t->name);
            t->deleting = true;
            c->metadata_dirty = true;
        } else if (!t && strlen(names[i]) <= GR_TOPIC_NAME_LIMIT) {
            ctl_op_t *check = ctl_op_new(c);
            char path[GR_STORE_PATH_MAX + 1];
            snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s", names[i]);
            if (check) {
                snprintf(check->name, sizeof check->name, "%s", names[i]);
                if (gr_store_exists(c->b->store_session, path, NULL, NULL, on_queued_topic_exists,
                                    check) != GR_STORE_OK)
                    free(check);
            }
        }
    }
    ctl_kick(c);
}

void ctl_load_deletions(gr_controller_t *c)
{
    list_children(c, GR_ZK_DELETE_TOPICS_PATH, on_deletions);
}
