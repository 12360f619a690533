/* SPDX-License-Identifier: Apache-2.0 */
/*
 * This broker in a ZooKeeper cluster: start-up on the store, registration,
 * election, sessions; see zk_member.h. The /config/changes reader is
 * config_changes.c.
 */
#include "controller/zk_member.h"
#include "controller/config_changes.h"
#include "controller/controller_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/broker_id.h"
#include "core/context.h"
#include "metadata/cluster_view.h"
#include "metadata/store.h"
#include "metadata/zk_docs.h"

#define MEMBER_RETRY_SEC        1.0
#define MS_PER_SEC              1000.0
#define CLUSTER_ID_JSON_VERSION "1"

/* Kafka's persistent paths, parents first. */
static const char *const zk_paths[] = {
    GR_ZK_BROKERS_PATH,        GR_ZK_BROKER_IDS_PATH,     GR_ZK_BROKER_TOPICS_PATH,
    GR_ZK_BROKER_SEQID_PATH,   GR_ZK_CONFIG_PATH,         GR_ZK_CONFIG_TOPICS_PATH,
    GR_ZK_CONFIG_CHANGES_PATH, GR_ZK_CONFIG_BROKERS_PATH, GR_ZK_CONFIG_USERS_PATH,
    GR_ZK_ADMIN_PATH,          GR_ZK_DELETE_TOPICS_PATH,  GR_ZK_ISR_CHANGE_PATH,
    GR_ZK_CLUSTER_PATH,        GR_ZK_CONFIG_CLIENTS_PATH,
};

static gr_zk_member_t *member(gr_broker_t *b)
{
    return b->zk;
}

/* ---- start-up: synchronous steps, running the loop until each completes ------------ */

typedef struct sync_op {
    bool done;
    int rc;
    char data[512];
    size_t len;
    gr_store_stat_t stat;
} sync_op_t;

static void on_sync_deadline(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    *(bool *)t->data = true;
}

static int run_until(gr_broker_t *b, const bool *done, double timeout_sec)
{
    bool expired = false;
    ev_timer deadline;
    ev_timer_init(&deadline, on_sync_deadline, timeout_sec, 0.);
    deadline.data = &expired;
    ev_timer_start(b->loop, &deadline);
    while (!*done && !expired)
        ev_run(b->loop, EVRUN_ONCE);
    ev_timer_stop(b->loop, &deadline);
    return *done ? 0 : -ETIMEDOUT;
}

static double startup_timeout(const gr_broker_t *b)
{
    return (double)b->config.effective.zookeeper_connection_timeout_ms / MS_PER_SEC;
}

static void on_sync_created(void *opaque, int rc, const char *path)
{
    (void)path;
    sync_op_t *op = opaque;
    op->rc = rc;
    op->done = true;
}

static void on_sync_data(void *opaque, int rc, const void *data, size_t len,
                         const gr_store_stat_t *stat)
{
    (void)stat;
    sync_op_t *op = opaque;
    op->rc = rc;
    op->len = len < sizeof op->data ? len : sizeof op->data - 1;
    if (rc == GR_STORE_OK)
        memcpy(op->data, data, op->len);
    op->done = true;
}

static void on_sync_stat(void *opaque, int rc, const gr_store_stat_t *stat)
{
    sync_op_t *op = opaque;
    op->rc = rc;
    if (rc == GR_STORE_OK)
        op->stat = *stat;
    op->done = true;
}

static int sync_set(gr_broker_t *b, const char *path, sync_op_t *op)
{
    memset(op, 0, sizeof *op);
    int rc = gr_store_set(b->store_session, path, "", 0, GR_STORE_ANY_VERSION, on_sync_stat, op);
    if (rc != GR_STORE_OK)
        return rc;
    if (run_until(b, &op->done, startup_timeout(b)))
        return GR_STORE_OPERATIONTIMEOUT;
    return op->rc;
}

static int sync_create(gr_broker_t *b, const char *path, const char *data, size_t len)
{
    sync_op_t op = {0};
    int rc = gr_store_create(b->store_session, path, data, len, GR_STORE_PERSISTENT,
                             on_sync_created, &op);
    if (rc != GR_STORE_OK)
        return rc;
    if (run_until(b, &op.done, startup_timeout(b)))
        return GR_STORE_OPERATIONTIMEOUT;
    return op.rc;
}

static int sync_get(gr_broker_t *b, const char *path, sync_op_t *op)
{
    memset(op, 0, sizeof *op);
    int rc = gr_store_get(b->store_session, path, NULL, NULL, on_sync_data, op);
    if (rc != GR_STORE_OK)
        return rc;
    if (run_until(b, &op->done, startup_timeout(b)))
        return GR_STORE_OPERATIONTIMEOUT;
    return op->rc;
}

static int create_paths(gr_broker_t *b)
{
    for (size_t i = 0; i < sizeof zk_paths / sizeof zk_paths[0]; i++) {
        int rc = sync_create(b, zk_paths[i], NULL, 0);
        if (rc != GR_STORE_OK && rc != GR_STORE_NODEEXISTS) {
            gr_logf(&b->log, GR_LOG_ERROR, "zookeeper", "cannot create %s: %s", zk_paths[i],
                    gr_store_rc_name(rc));
            return -EIO;
        }
    }
    return 0;
}

static int cluster_id_doc(const char *id, gr_zk_json_writer_t *w)
{
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "version");
    gr_zk_json_string(w, CLUSTER_ID_JSON_VERSION);
    gr_zk_json_key(w, "id");
    gr_zk_json_string(w, id);
    gr_zk_json_object_end(w);
    return w->err;
}

/* ZooKeeper's cluster id into out; -ENOENT when it has none. */
static int read_cluster_id(gr_broker_t *b, char *out, size_t len)
{
    sync_op_t op;
    int rc = sync_get(b, GR_ZK_CLUSTER_ID_PATH, &op);
    if (rc == GR_STORE_NONODE)
        return -ENOENT;
    if (rc != GR_STORE_OK)
        return -EIO;
    gr_zk_json_t *doc = NULL;
    rc = gr_zk_json_parse(op.data, op.len, &doc) ? -EINVAL : 0;
    const gr_zk_json_t *id = rc ? NULL : gr_zk_json_find(doc, "id");
    if (!id || id->type != GR_ZK_JSON_STRING || id->string_len >= len)
        rc = -EINVAL;
    else
        snprintf(out, len, "%s", id->string);
    gr_zk_json_free(doc);
    return rc;
}

static int settle_cluster_id(gr_broker_t *b, bool id_from_meta)
{
    char zk_id[GR_CLUSTER_ID_MAX];
    int rc = read_cluster_id(b, zk_id, sizeof zk_id);
    if (rc == -ENOENT) {
        gr_zk_json_writer_t w;
        const char *text = NULL;
        size_t len = 0;
        gr_zk_json_writer_init(&w);
        rc = cluster_id_doc(b->cluster_id, &w) || gr_zk_json_writer_finish(&w, &text, &len)
                 ? -ENOMEM
                 : sync_create(b, GR_ZK_CLUSTER_ID_PATH, text, len);
        gr_zk_json_writer_fini(&w);
        if (rc == GR_STORE_OK)
            return 0;
        if (rc != GR_STORE_NODEEXISTS)
            return -EIO;
        rc = read_cluster_id(b, zk_id, sizeof zk_id); /* another broker was first */
    }
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "zookeeper", "cannot read %s: %s", GR_ZK_CLUSTER_ID_PATH,
                strerror(-rc));
        return rc;
    }
    if (strcmp(zk_id, b->cluster_id) != 0 && id_from_meta) {
        gr_logf(&b->log, GR_LOG_ERROR, "zookeeper",
                "the cluster id %s in ZooKeeper does not match %s in meta.properties: this log "
                "dir belongs to another cluster",
                zk_id, b->cluster_id);
        return -EINVAL;
    }
    snprintf(b->cluster_id, sizeof b->cluster_id, "%s", zk_id);
    return 0;
}

/*
 * broker.id=-1 without meta.properties: Kafka's generated id. Setting
 * /brokers/seqid (any version) makes the store hand out its next data
 * version, unique however many brokers do this at once; the id is that
 * version plus reserved.broker.max.id (see core/broker_id.h).
 */
static int generate_broker_id(gr_broker_t *b)
{
    sync_op_t op;
    int rc = sync_set(b, GR_ZK_BROKER_SEQID_PATH, &op);
    if (rc == GR_STORE_NONODE) { /* an operator deleted it since create_paths */
        rc = sync_create(b, GR_ZK_BROKER_SEQID_PATH, NULL, 0);
        if (rc == GR_STORE_OK || rc == GR_STORE_NODEEXISTS)
            rc = sync_set(b, GR_ZK_BROKER_SEQID_PATH, &op);
    }
    if (rc != GR_STORE_OK) {
        gr_logf(&b->log, GR_LOG_ERROR, "zookeeper", "cannot generate a broker id: set %s: %s",
                GR_ZK_BROKER_SEQID_PATH, gr_store_rc_name(rc));
        return -EIO;
    }
    int32_t id;
    if (gr_broker_id_from_sequence(op.stat.version, b->config.reserved_broker_max_id, &id)) {
        gr_logf(&b->log, GR_LOG_ERROR, "zookeeper",
                "cannot generate a broker id: %s version %d plus reserved.broker.max.id %d is "
                "not a valid id",
                GR_ZK_BROKER_SEQID_PATH, op.stat.version, b->config.reserved_broker_max_id);
        return -ERANGE;
    }
    b->config.broker_id = id;
    gr_logger_set_broker_id(&b->log, id);
    gr_logf(&b->log, GR_LOG_INFO, "zookeeper",
            "generated broker id %d (%s version %d + reserved.broker.max.id %d)", id,
            GR_ZK_BROKER_SEQID_PATH, op.stat.version, b->config.reserved_broker_max_id);
    return 0;
}

static void on_session_state(void *opaque, gr_store_session_state_t state);

static int open_session(gr_broker_t *b)
{
    int rc = gr_store_session_open(b->store, on_session_state, b, &b->store_session);
    if (rc != GR_STORE_OK) {
        gr_logf(&b->log, GR_LOG_ERROR, "zookeeper", "cannot open a session: %s",
                gr_store_rc_name(rc));
        return -ENOMEM;
    }
    return 0;
}

/*
 * Starts membership over b->store: a session, Kafka's paths, the cluster id,
 * and the broker id when it is still to be generated (broker.id -1).
 */
static int attach(gr_broker_t *b, bool id_from_meta)
{
    gr_zk_member_t *m = member(b);
    m->b = b;
    gr_config_changes_init(&m->changes);
    m->broker_epoch = -1;
    gr_controller_init(&m->controller, b);
    ev_init(&m->retry, NULL);
    ev_init(&m->lost, NULL);
    int rc = open_session(b);
    if (rc == 0 && run_until(b, &m->connected, startup_timeout(b))) {
        gr_logf(&b->log, GR_LOG_ERROR, "zookeeper", "timed out connecting to the %s store",
                b->store->ops->name);
        rc = -ETIMEDOUT;
    }
    if (rc == 0)
        rc = create_paths(b);
    if (rc == 0)
        rc = settle_cluster_id(b, id_from_meta);
    if (rc == 0 && b->config.broker_id == GR_BROKER_ID_NONE)
        rc = generate_broker_id(b);
    return rc;
}

int gr_zk_member_open(gr_broker_t *b, bool id_from_meta)
{
    gr_store_zk_config_t cfg = {
        .connect = b->config.zookeeper_connect,
        .session_timeout_ms = b->config.zookeeper_session_timeout_ms,
        .connection_timeout_ms = b->config.effective.zookeeper_connection_timeout_ms,
    };
    int rc = gr_store_zk_open(b->loop, &cfg, &b->log, &b->store);
    if (rc == 0)
        rc = attach(b, id_from_meta);
    if (rc == 0)
        gr_logf(&b->log, GR_LOG_INFO, "zookeeper", "connected to %s, cluster %s",
                b->config.zookeeper_connect, b->cluster_id);
    return rc;
}

int gr_zk_member_open_local(gr_broker_t *b, const char *dir)
{
    int rc = gr_store_local_open(b->loop, dir, &b->log, &b->store);
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "metadata", "cannot open the metadata store %s: %s", dir,
                strerror(-rc));
        return rc;
    }
    return attach(b, true);
}

/* ---- registration and election ------------------------------------------------------ */

/* A step's context: dropped when the session it belongs to is gone. */
typedef struct member_op {
    gr_zk_member_t *m;
    uint64_t gen;
} member_op_t;

static member_op_t *op_new(gr_zk_member_t *m)
{
    member_op_t *op = malloc(sizeof *op);
    if (op) {
        op->m = m;
        op->gen = m->gen;
    }
    return op;
}

static bool op_current(member_op_t *op)
{
    bool current = op->gen == op->m->gen && !op->m->b->stopping;
    if (!current)
        free(op);
    return current;
}

static void register_broker(gr_zk_member_t *m);
static void elect(gr_zk_member_t *m);

static void on_retry(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    gr_zk_member_t *m = t->data;
    if (!m->registered)
        register_broker(m);
    else
        elect(m);
}

static void retry_later(gr_zk_member_t *m)
{
    if (m->b->stopping || ev_is_active(&m->retry))
        return;
    ev_timer_init(&m->retry, on_retry, MEMBER_RETRY_SEC, 0.);
    m->retry.data = m;
    ev_timer_start(m->b->loop, &m->retry);
}

static void broker_path(const gr_broker_t *b, char *out, size_t len)
{
    snprintf(out, len, GR_ZK_BROKER_IDS_PATH "/%d", b->config.broker_id);
}

static void on_own_registration_stat(void *opaque, int rc, const gr_store_stat_t *stat)
{
    member_op_t *op = opaque;
    if (!op_current(op))
        return;
    gr_zk_member_t *m = op->m;
    free(op);
    if (rc == GR_STORE_OK && stat->ephemeral_owner == gr_store_session_id(m->b->store_session))
        m->broker_epoch = stat->czxid;
    else /* asked again when the session reconnects (on_session_state) */
        gr_logf(&m->b->log, GR_LOG_WARN, "zookeeper", "reading broker %d's registration: %s",
                m->b->config.broker_id, gr_store_rc_name(rc));
}

/* The broker epoch: the czxid of the registration this session created. */
static void learn_broker_epoch(gr_zk_member_t *m)
{
    char path[GR_STORE_PATH_MAX + 1];
    broker_path(m->b, path, sizeof path);
    member_op_t *op = op_new(m);
    if (op && gr_store_exists(m->b->store_session, path, NULL, NULL, on_own_registration_stat,
                              op) != GR_STORE_OK)
        free(op);
}

/* czxid: the registration's, or -1 when still to be read. */
static void on_registered(gr_zk_member_t *m, int64_t czxid)
{
    m->registered = true;
    m->broker_epoch = czxid;
    m->updates_at_registration = m->b->cluster->metadata_updates;
    if (czxid < 0)
        learn_broker_epoch(m);
    gr_logf(&m->b->log, GR_LOG_INFO, "zookeeper", "registered broker %d at %s:%d",
            m->b->config.broker_id, m->b->advertised_host, m->b->advertised_port);
    elect(m);
    gr_config_changes_watch(m);
}

static void on_old_registration(void *opaque, gr_store_event_t event, const char *path)
{
    (void)path;
    gr_zk_member_t *m = opaque;
    if (event == GR_STORE_EVENT_DELETED && !m->registered && m->started)
        register_broker(m);
}

static void on_old_registration_stat(void *opaque, int rc, const gr_store_stat_t *stat)
{
    member_op_t *op = opaque;
    if (!op_current(op))
        return;
    gr_zk_member_t *m = op->m;
    free(op);
    if (rc == GR_STORE_NONODE)
        return register_broker(m); /* gone meanwhile */
    if (rc != GR_STORE_OK)
        return retry_later(m);
    if (stat->ephemeral_owner == gr_store_session_id(m->b->store_session))
        return on_registered(m, stat->czxid); /* ours: an earlier attempt did create it */
    gr_logf(&m->b->log, GR_LOG_WARN, "zookeeper",
            "waiting for registration: old session of broker %d still holds " GR_ZK_BROKER_IDS_PATH
            "/%d (it expires within zookeeper.session.timeout.ms, %d ms)",
            m->b->config.broker_id, m->b->config.broker_id,
            m->b->config.zookeeper_session_timeout_ms);
}

static void on_register_created(void *opaque, int rc, const char *path)
{
    (void)path;
    member_op_t *op = opaque;
    if (!op_current(op))
        return;
    gr_zk_member_t *m = op->m;
    if (rc == GR_STORE_OK) {
        free(op);
        return on_registered(m, -1);
    }
    if (rc == GR_STORE_NODEEXISTS) {
        char p[GR_STORE_PATH_MAX + 1];
        broker_path(m->b, p, sizeof p);
        if (gr_store_exists(m->b->store_session, p, on_old_registration, m,
                            on_old_registration_stat, op) == GR_STORE_OK)
            return;
    }
    free(op);
    gr_logf(&m->b->log, GR_LOG_WARN, "zookeeper", "registering broker %d: %s",
            m->b->config.broker_id, gr_store_rc_name(rc));
    retry_later(m);
}

static void register_broker(gr_zk_member_t *m)
{
    gr_broker_t *b = m->b;
    gr_cluster_node_t self = {.id = b->config.broker_id, .port = b->advertised_port};
    snprintf(self.host, sizeof self.host, "%s", b->advertised_host);
    self.endpoint_count = b->advertised_count;
    memcpy(self.endpoints, b->advertised, sizeof self.endpoints);
    self.rack = b->config.broker_rack;
    gr_zk_json_writer_t w;
    const char *text = NULL;
    size_t len = 0;
    char path[GR_STORE_PATH_MAX + 1];
    broker_path(b, path, sizeof path);
    gr_zk_json_writer_init(&w);
    member_op_t *op = op_new(m);
    int rc = !op || gr_zk_doc_broker(&w, &self, gr_broker_now_ms(b)) ||
                     gr_zk_json_writer_finish(&w, &text, &len)
                 ? GR_STORE_NOMEM
                 : gr_store_create(b->store_session, path, text, len, GR_STORE_EPHEMERAL,
                                   on_register_created, op);
    gr_zk_json_writer_fini(&w);
    if (rc != GR_STORE_OK) {
        free(op);
        retry_later(m);
    }
}

static void on_controller_watch(void *opaque, gr_store_event_t event, const char *path)
{
    (void)path;
    gr_zk_member_t *m = opaque;
    if (!m->registered || m->b->stopping)
        return;
    if (event == GR_STORE_EVENT_DELETED && m->controller.active)
        gr_controller_resign(&m->controller);
    elect(m);
}

static void on_controller_data(void *opaque, int rc, const void *data, size_t len,
                               const gr_store_stat_t *stat)
{
    member_op_t *op = opaque;
    if (!op_current(op))
        return;
    gr_zk_member_t *m = op->m;
    free(op);
    int32_t id = GR_NO_BROKER;
    if (rc == GR_STORE_NONODE)
        return elect(m); /* gone between create and get: race again */
    if (rc != GR_STORE_OK)
        return retry_later(m);
    if (gr_zk_parse_controller(data, len, &id) == 0 && id == m->b->config.broker_id &&
        stat->ephemeral_owner == gr_store_session_id(m->b->store_session))
        gr_controller_activate(&m->controller); /* ours, from an attempt cut short */
    else if (m->controller.active)
        gr_controller_resign(&m->controller);
}

static void on_controller_created(void *opaque, int rc, const char *path)
{
    (void)path;
    member_op_t *op = opaque;
    if (!op_current(op))
        return;
    gr_zk_member_t *m = op->m;
    if (rc == GR_STORE_OK) {
        /* Watch our own node too: its deletion (by an operator) means resigning. */
        if (gr_store_get(m->b->store_session, GR_ZK_CONTROLLER_PATH, on_controller_watch, m,
                         on_controller_data, op) != GR_STORE_OK)
            free(op);
        gr_controller_activate(&m->controller);
        return;
    }
    if (rc == GR_STORE_NODEEXISTS &&
        gr_store_get(m->b->store_session, GR_ZK_CONTROLLER_PATH, on_controller_watch, m,
                     on_controller_data, op) == GR_STORE_OK)
        return;
    free(op);
    retry_later(m);
}

static void elect(gr_zk_member_t *m)
{
    gr_broker_t *b = m->b;
    if (m->controller.active)
        return;
    gr_zk_json_writer_t w;
    const char *text = NULL;
    size_t len = 0;
    gr_zk_json_writer_init(&w);
    member_op_t *op = op_new(m);
    int rc = !op || gr_zk_doc_controller(&w, b->config.broker_id, gr_broker_now_ms(b)) ||
                     gr_zk_json_writer_finish(&w, &text, &len)
                 ? GR_STORE_NOMEM
                 : gr_store_create(b->store_session, GR_ZK_CONTROLLER_PATH, text, len,
                                   GR_STORE_EPHEMERAL, on_controller_created, op);
    gr_zk_json_writer_fini(&w);
    if (rc != GR_STORE_OK) {
        free(op);
        retry_later(m);
    }
}

/* ---- sessions ------------------------------------------------------------------------ */

/* The session is gone (or must be taken as gone): start over with a new one. */
static void restart_session(gr_zk_member_t *m, const char *why)
{
    gr_broker_t *b = m->b;
    gr_logf(&b->log, GR_LOG_WARN, "zookeeper", "%s: registering again with a new session", why);
    gr_controller_resign(&m->controller);
    m->gen++;
    m->connected = false;
    m->registered = false;
    m->broker_epoch = -1;
    if (ev_is_active(&m->retry))
        ev_timer_stop(b->loop, &m->retry);
    if (ev_is_active(&m->lost))
        ev_timer_stop(b->loop, &m->lost);
    gr_store_session_t *old = b->store_session;
    b->store_session = NULL;
    gr_store_session_close(old);
    if (!b->stopping && open_session(b) != 0)
        gr_logf(&b->log, GR_LOG_ERROR, "zookeeper", "cannot open a new session");
}

/*
 * Cut off from ZooKeeper for a whole session timeout: an ensemble would have
 * expired the session by now (a single server that restarts does not, it
 * renews every session), so act as if it had: another broker may have taken
 * over what this one held.
 */
static void on_connection_lost_too_long(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    restart_session(t->data, "cut off from ZooKeeper for longer than the session timeout");
}

static void on_session_state(void *opaque, gr_store_session_state_t state)
{
    gr_broker_t *b = opaque;
    gr_zk_member_t *m = member(b);
    if (state == GR_STORE_SESSION_CONNECTED) {
        m->connected = true;
        if (ev_is_active(&m->lost))
            ev_timer_stop(b->loop, &m->lost);
        if (m->started && !m->registered)
            register_broker(m);
        else if (m->registered && m->broker_epoch < 0)
            learn_broker_epoch(m);
        return;
    }
    if (state == GR_STORE_SESSION_DISCONNECTED) {
        m->connected = false;
        gr_logf(&b->log, GR_LOG_WARN, "zookeeper", "disconnected from ZooKeeper: reconnecting");
        if (!ev_is_active(&m->lost) && !b->stopping) {
            ev_timer_init(&m->lost, on_connection_lost_too_long,
                          b->config.zookeeper_session_timeout_ms / MS_PER_SEC, 0.);
            m->lost.data = m;
            ev_timer_start(b->loop, &m->lost);
        }
        return;
    }
    restart_session(m, "ZooKeeper session expired");
}

void gr_zk_member_start(gr_broker_t *b)
{
    gr_zk_member_t *m = member(b);
    m->started = true;
    if (m->connected)
        register_broker(m);
    gr_config_changes_start(m);
}

void gr_zk_member_stop(gr_broker_t *b)
{
    gr_zk_member_t *m = member(b);
    if (!m->b)
        return;
    m->gen++;
    if (ev_is_active(&m->retry))
        ev_timer_stop(b->loop, &m->retry);
    if (ev_is_active(&m->lost))
        ev_timer_stop(b->loop, &m->lost);
    gr_config_changes_stop(m);
    gr_controller_fini(&m->controller);
}

gr_zk_member_state_t gr_zk_member_state(const gr_broker_t *b)
{
    const gr_zk_member_t *m = b->zk;
    const gr_cluster_view_t *v = b->cluster;
    if (!m->b || !m->registered)
        return GR_ZK_MEMBER_UNREGISTERED;
    /* Without a broker epoch (UpdateMetadata v0-4): one applied since registering. */
    bool addressed = v->metadata_broker_epoch < 0 ? v->metadata_updates > m->updates_at_registration
                                                  : v->metadata_broker_epoch == m->broker_epoch;
    if (!addressed || v->controller_id == GR_NO_BROKER ||
        !gr_cluster_view_node(v, b->config.broker_id))
        return GR_ZK_MEMBER_REGISTERED;
    return GR_ZK_MEMBER_INFORMED;
}

bool gr_zk_member_is_controller(const gr_broker_t *b)
{
    return b->zk->controller.active && b->zk->controller.epoch >= 0;
}
