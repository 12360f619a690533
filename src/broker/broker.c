/* SPDX-License-Identifier: Apache-2.0 */
/* Broker lifecycle: see broker.h. Runs on: loop thread. */
#include "broker/broker.h"
#include "core/broker_id.h"
#include "core/loop_stats.h"
#include "broker/broker_security.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "handlers/request_stats.h"
#include "metadata/zk_json.h"
#include "broker/conn_limits.h"
#include "broker/listener_tls.h"
#include "broker/sd_notify.h"
#include "controller/config_changes.h"
#include "controller/controller.h"
#include "controller/zk_member.h"
#include "group/coordinator.h"
#include "handlers/start_gate.h"
#include "observe/http_server.h"
#include "log/batch_io.h"
#include "log/log.h"
#include "log/log_dir.h"
#include "log_manager/log_manager.h"
#include "metadata/cluster_view.h"
#include "metadata/group_config.h"
#include "metadata/broker_config_store.h"
#include "metadata/group_config_store.h"
#include "metadata/producer_ids.h"
#include "metadata/store.h"
#include "metadata/topics.h"
#include "net/server.h"
#include "replica/controlled_shutdown.h"
#include "replica/fetcher.h"
#include "replica/replication.h"
#include "security/authorizer.h"
#include "security/session.h"
#include "share/share_coordinator.h"
#include "share/share_manager.h"
#include "handlers/fetch_sessions.h"
#include "share/share_persister.h"
#include "txn/txn_coordinator.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GR_STOP_DEADLINE_SEC 10.0
#define GR_CLUSTER_ID_BYTES  16

/* The metadata store's directory under the first log dir (no "-<n>": not a partition). */
#define GR_STORE_DIR "__gregor_metadata"
/* How long gr_broker_fini waits for store writes still in flight. */
#define GR_STORE_DRAIN_SEC 10.0
/* Kafka's /cluster/id document carries its version as a string. */
/* Longest a single-node start-up waits for its own controller's metadata. */
#define GR_SINGLE_NODE_READY_SEC 30

/*
 * Groups follow the leadership of __consumer_offsets partitions here,
 * transactional ids that of __transaction_state partitions, and
 * share-partition states that of __share_group_state partitions.
 */
static void on_leadership(gr_broker_t *b, gr_partition_t *p, bool led_here, int32_t leader_epoch)
{
    /* Share-partitions live on their partition's leader only. */
    if (b->share_manager)
        gr_share_manager_leadership(b->share_manager, p, led_here);
    if (strcmp(p->topic->name, GR_SHARE_STATE_TOPIC) == 0) {
        if (!b->share_coordinator)
            return;
        if (led_here)
            gr_share_coordinator_elect(b->share_coordinator, p->index, leader_epoch);
        else
            gr_share_coordinator_resign(b->share_coordinator, p->index, leader_epoch);
        return;
    }
    if (strcmp(p->topic->name, GR_TRANSACTION_STATE_TOPIC) == 0) {
        if (led_here)
            gr_txn_partition_elected(b->txns, p->index, leader_epoch);
        else
            gr_txn_partition_resigned(b->txns, p->index, leader_epoch);
        return;
    }
    if (strcmp(p->topic->name, GR_OFFSETS_TOPIC) != 0)
        return;
    /* The coordinator ignores a call older than the epochs it has seen. */
    if (led_here)
        gr_coordinator_partition_elected(b->groups, p->index, leader_epoch);
    else
        gr_coordinator_partition_resigned(b->groups, p->index, leader_epoch);
}

/* A marker on a __consumer_offsets partition ends its groups' pending transactional offsets. */
static void on_txn_marker(gr_broker_t *b, gr_partition_t *p, int64_t producer_id, bool commit)
{
    if (strcmp(p->topic->name, GR_OFFSETS_TOPIC) == 0)
        gr_coordinator_txn_marker(b->groups, p->index, producer_id, commit);
}

/* A deleted topic's committed offsets go with it (Kafka's onPartitionsDeleted). */
static void on_topic_deleted(gr_broker_t *b, const char *name, size_t name_len)
{
    gr_coordinator_topic_deleted(b->groups, (gr_str_t){name, (int32_t)name_len});
}

/* Allocates each subsystem's struct (zeroed); the subsystems' own init follows. */
static int alloc_parts(gr_broker_t *b)
{
    b->server = calloc(1, sizeof *b->server);
    b->io = calloc(1, sizeof *b->io);
    b->log_manager = calloc(1, sizeof *b->log_manager);
    b->topics = calloc(1, sizeof *b->topics);
    b->cluster = calloc(1, sizeof *b->cluster);
    b->zk = calloc(1, sizeof *b->zk);
    b->groups = calloc(1, sizeof *b->groups);
    b->producer_ids = calloc(1, sizeof *b->producer_ids);
    b->txns = calloc(1, sizeof *b->txns);
    b->request_stats = gr_request_stats_new();
    b->loop_stats = gr_loop_stats_new(b->loop);
    bool all = b->server && b->io && b->log_manager && b->topics && b->cluster && b->zk &&
               b->groups && b->producer_ids && b->txns && b->request_stats && b->loop_stats;
    return all ? 0 : -ENOMEM;
}

static void free_parts(gr_broker_t *b)
{
    void *parts[] = {b->server, b->io,     b->log_manager,  b->topics, b->cluster,
                     b->zk,     b->groups, b->producer_ids, b->txns};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        free(parts[i]);
    b->server = NULL;
    b->io = NULL;
    b->log_manager = NULL;
    b->topics = NULL;
    b->cluster = NULL;
    b->zk = NULL;
    b->groups = NULL;
    b->producer_ids = NULL;
    b->txns = NULL;
    gr_request_stats_free(b->request_stats);
    b->request_stats = NULL;
    gr_loop_stats_free(b->loop_stats);
    b->loop_stats = NULL;
}

int gr_broker_init(gr_broker_t *b, struct ev_loop *loop, gr_config_t *config)
{
    memset(b, 0, sizeof(*b));
    b->loop = loop;
    b->config = *config;
    memset(config, 0, sizeof(*config));
    gr_logger_init(&b->log, stderr, GR_LOG_INFO);
    gr_logger_configure(&b->log, &b->config);
    b->on_leadership = on_leadership;
    b->on_topic_deleted = on_topic_deleted;
    b->on_txn_marker = on_txn_marker;
    b->ask_own_controller_shutdown = gr_controller_shutdown_local;
    int rc = alloc_parts(b);
    if (rc) {
        free_parts(b);
        return rc;
    }
    gr_batch_io_init(b->io);
    gr_log_manager_init(b->log_manager);
    gr_producer_ids_init(b->producer_ids);
    gr_cluster_view_init(b->cluster, b->config.zookeeper_connect != NULL);
    rc = gr_topics_init(b->topics);
    if (rc == 0)
        rc = gr_coordinator_init(b->groups, b);
    if (rc == 0)
        gr_coordinator_set_responders(b->groups, gr_group_membership_respond_join,
                                      gr_group_membership_respond_sync);
    if (rc == 0)
        rc = gr_txn_coordinator_init(b->txns, b);
    if (rc == 0) {
        b->share_coordinator = gr_share_coordinator_new(b);
        b->share_persister = gr_share_persister_new(b);
        if (b->share_persister)
            b->share_manager = gr_share_manager_new(b, b->share_persister);
        if (!b->share_coordinator || !b->share_persister || !b->share_manager)
            rc = -ENOMEM;
    }
    if (rc == 0) {
        b->fetch_sessions =
            gr_fetch_sessions_new(b->config.max_incremental_fetch_session_cache_slots,
                                  b->config.min_incremental_fetch_session_eviction_ms);
        if (!b->fetch_sessions)
            rc = -ENOMEM;
    }
    return rc;
}

/*
 * In dependency order: the manager's pending acknowledgements are answered
 * before the persister goes, and the persister's pending calls end
 * (COORDINATOR_NOT_AVAILABLE) before the coordinator goes.
 */
static void free_share(gr_broker_t *b)
{
    gr_share_manager_free(b->share_manager);
    b->share_manager = NULL;
    gr_share_persister_free(b->share_persister);
    b->share_persister = NULL;
    gr_share_coordinator_free(b->share_coordinator);
    b->share_coordinator = NULL;
}

/* Kafka's cluster ids: a random UUID in URL-safe base64 without padding. */
static void make_cluster_id(char *out, size_t len)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    uint8_t raw[GR_CLUSTER_ID_BYTES];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        memset(raw, 0x5a, sizeof raw);
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < sizeof raw && n + 1 < len; i++) {
        acc = acc << 8 | raw[i];
        bits += 8;
        while (bits >= 6 && n + 1 < len) {
            out[n++] = alphabet[(acc >> (bits - 6)) & 63];
            bits -= 6;
        }
    }
    if (bits > 0 && n + 1 < len)
        out[n++] = alphabet[(acc << (6 - bits)) & 63];
    out[n] = '\0';
}

/* Thousands of partitions mean thousands of files: raise the soft limit. */
static void raise_fd_limit(gr_broker_t *b)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == rl.rlim_max)
        return;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        gr_logf(&b->log, GR_LOG_WARN, "broker", "cannot raise the open file limit: %s",
                strerror(errno));
}

static int open_log_dir(gr_broker_t *b)
{
    const char *path = b->config.effective.log_dirs.items[0];
    if (b->config.effective.log_dirs.count > 1)
        gr_logf(&b->log, GR_LOG_WARN, "log", "only the first of %d log.dirs is used: %s",
                b->config.effective.log_dirs.count, path);
    int rc = gr_log_dir_open(path, NULL, &b->log_dir);
    if (rc == -EWOULDBLOCK) {
        gr_logf(&b->log, GR_LOG_ERROR, "log", "%s is in use by another broker (its .lock is held)",
                path);
        return rc;
    }
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "log", "cannot open log dir %s: %s", path, strerror(-rc));
        return rc;
    }
    gr_logf(&b->log, GR_LOG_INFO, "log", "log dir %s: %s", path,
            gr_log_dir_was_clean(b->log_dir)
                ? "clean shutdown marker found, no recovery needed"
                : "no clean shutdown marker, recovering from checkpoints");
    /* Before any partition opens, and before the checkpoint timer can rewrite them. */
    rc = gr_topics_checkpoints_load(b);
    if (rc)
        gr_logf(&b->log, GR_LOG_ERROR, "log", "cannot load the offset checkpoints: %s",
                strerror(-rc));
    return rc;
}

/* Single-node mode's metadata: the embedded store under the first log dir. */
static int open_store(gr_broker_t *b)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", gr_log_dir_path(b->log_dir), GR_STORE_DIR);
    return gr_zk_member_open_local(b, dir);
}

static void on_store_drain_deadline(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    *(bool *)t->data = true;
}

/* Lets store writes in flight complete (bounded), then closes the session and the store. */
static void close_store(gr_broker_t *b)
{
    if (b->store_session) {
        bool expired = false;
        ev_timer deadline;
        ev_timer_init(&deadline, on_store_drain_deadline, GR_STORE_DRAIN_SEC, 0.);
        deadline.data = &expired;
        ev_timer_start(b->loop, &deadline);
        while (b->store_pending > 0 && !expired)
            ev_run(b->loop, EVRUN_ONCE);
        ev_timer_stop(b->loop, &deadline);
        if (b->store_pending > 0)
            gr_logf(&b->log, GR_LOG_ERROR, "metadata",
                    "%d metadata store write(s) did not complete", b->store_pending);
        gr_store_session_close(b->store_session); /* completes the rest with CLOSING */
        b->store_session = NULL;
    }
    if (b->store) {
        gr_store_close(b->store);
        b->store = NULL;
    }
}

/*
 * The endpoints this broker advertises, one per advertised listener (a port
 * of 0 is the one its listener bound; an empty host is this machine's name),
 * and the inter-broker one as advertised_host/port.
 */
static void pick_advertised(gr_broker_t *b, const uint16_t *bound_ports)
{
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    const gr_listener_list_t *adv = &b->config.effective.advertised_listeners;
    b->advertised_count = 0;
    for (int i = 0; i < adv->count && b->advertised_count < GR_LISTENERS_MAX; i++) {
        gr_listener_spec_t *e = &b->advertised[b->advertised_count++];
        *e = adv->items[i];
        if (!e->host[0] && gethostname(e->host, sizeof e->host))
            snprintf(e->host, sizeof e->host, "localhost");
        const gr_listener_spec_t *bound = gr_listener_spec_find(ls->items, ls->count, e->name);
        if (e->port == 0 && bound)
            e->port = bound_ports[bound - ls->items];
    }
    /* Config checked that the inter-broker listener is advertised. */
    const gr_listener_spec_t *ib = gr_listener_spec_find(b->advertised, b->advertised_count,
                                                         b->config.effective.inter_broker_listener);
    if (!ib)
        ib = &b->advertised[0];
    snprintf(b->advertised_host, sizeof b->advertised_host, "%s", ib->host);
    b->advertised_port = ib->port;
}

static void on_ready_deadline(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    *(bool *)t->data = true;
}

/*
 * Runs the loop until this broker's dynamic configs were read, when a
 * listener runs TLS: a keystore set live is served from the first
 * connection (Kafka reads them before its socket server starts). Bounded
 * by GR_SINGLE_NODE_READY_SEC; then the file's keystores are served until
 * they arrive, logged.
 */
static void await_dynamic_configs(gr_broker_t *b)
{
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    bool tls = false;
    for (int i = 0; i < ls->count; i++)
        tls = tls || gr_security_protocol_is_tls(ls->items[i].protocol);
    bool expired = false;
    ev_timer deadline;
    ev_timer_init(&deadline, on_ready_deadline, GR_SINGLE_NODE_READY_SEC, 0.);
    deadline.data = &expired;
    ev_timer_start(b->loop, &deadline);
    while (tls && !gr_broker_config_store_loaded(b) && !expired && !b->stopping)
        ev_run(b->loop, EVRUN_ONCE);
    ev_timer_stop(b->loop, &deadline);
    if (expired)
        gr_logf(&b->log, GR_LOG_WARN, "broker",
                "dynamic broker configs not read within %d s: TLS listeners open with the file's "
                "keystores",
                GR_SINGLE_NODE_READY_SEC);
}

/* Dynamic broker configs applied: what reads them only where it is set up follows. */
static void on_config_applied(gr_broker_t *b)
{
    gr_conn_limits_apply(b);
    gr_cleaner_reconfigure(b);
    gr_replica_fetchers_resize(b);
    gr_config_changes_broker_applied(b);
}

static int start_listeners(gr_broker_t *b)
{
    gr_server_config_t scfg;
    memset(&scfg, 0, sizeof scfg);
    scfg.conn.max_request_bytes = b->config.socket_request_max_bytes;
    scfg.conn.max_inflight = (uint32_t)b->config.queued_max_requests;
    scfg.conn.on_frame = gr_request_dispatch;
    scfg.conn.on_sent = gr_request_sent;
    scfg.conn.opaque = b;
    scfg.conn.log = &b->log;
    int rc = gr_conn_limits_config(b, &scfg);
    if (rc)
        return rc;
    gr_server_init(b->server, b->loop, &scfg);
    /* Single node: clients wait until the controller here has told this broker everything
     * (cluster mode's listeners accept at once: its start gate holds requests instead). */
    gr_server_hold(b->server, !b->cluster->zk_mode);
    await_dynamic_configs(b);
    rc = gr_broker_tls_open(b);
    if (rc)
        return rc;
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    uint16_t bound_ports[GR_LISTENERS_MAX] = {0};
    for (int i = 0; i < ls->count && i < GR_LISTENERS_MAX; i++) {
        rc = gr_server_listen_tls(b->server, ls->items[i].host, ls->items[i].port, &ls->items[i],
                                  gr_broker_tls_listener(b, i), &bound_ports[i]);
        if (rc) {
            gr_logf(&b->log, GR_LOG_ERROR, "net", "cannot listen on %s:%u: %s", ls->items[i].host,
                    ls->items[i].port, strerror(-rc));
            return rc;
        }
        if (gr_security_protocol_is_sasl(ls->items[i].protocol))
            gr_server_limit_login(b->server, &ls->items[i], b->config.sasl_server_max_receive_size);
        gr_logf(&b->log, GR_LOG_INFO, "net", "listening on %s:%u (%s, %s)",
                ls->items[i].host[0] ? ls->items[i].host : "*", bound_ports[i], ls->items[i].name,
                gr_security_protocol_name(ls->items[i].protocol));
    }
    rc = gr_conn_limits_listeners(b);
    if (rc)
        return rc;
    b->on_broker_config_applied = on_config_applied;
    pick_advertised(b, bound_ports);
    return 0;
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    (void)loop;
    (void)revents;
    gr_broker_t *b = w->data;
    gr_logf(&b->log, GR_LOG_INFO, "broker", "signal %d: shutting down", w->signum);
    gr_sd_notify_stopping(b); /* a controlled shutdown is already a shutdown for systemd */
    /* A second signal during a controlled shutdown stops at once. */
    if (!b->stopping && !b->controlled_shutdown && gr_controlled_shutdown_wanted(b) &&
        gr_controlled_shutdown_start(b, gr_broker_stop) == 0)
        return;
    gr_broker_stop(b);
}

typedef struct hosted_check {
    int32_t self;
    bool all; /* every partition led by self has its log open */
} hosted_check_t;

static void hosted_check(gr_topic_t *topic, void *arg)
{
    hosted_check_t *hc = arg;
    for (int32_t i = 0; i < topic->partition_count && hc->all; i++)
        if (topic->partitions[i].leader_id == hc->self && !topic->partitions[i].log)
            hc->all = false;
}

/* The controller's word applied here: brokers known, every partition led here open. */
static bool own_metadata_applied(gr_broker_t *b)
{
    if (b->cluster->node_count == 0)
        return false;
    hosted_check_t hc = {b->config.broker_id, true};
    gr_topics_foreach(b->topics, hosted_check, &hc);
    return hc.all;
}

/*
 * Single-node start-up: runs the loop until this broker's own controller
 * has elected itself and told it the topics and their leaders, then starts
 * accepting, so the first client sees every topic (as before the controller
 * ran here). After GR_SINGLE_NODE_READY_SEC it accepts anyway, logged.
 */
static void await_own_metadata(gr_broker_t *b)
{
    bool expired = false;
    ev_timer deadline;
    ev_timer_init(&deadline, on_ready_deadline, GR_SINGLE_NODE_READY_SEC, 0.);
    deadline.data = &expired;
    ev_timer_start(b->loop, &deadline);
    while (!own_metadata_applied(b) && !expired && !b->stopping)
        ev_run(b->loop, EVRUN_ONCE);
    ev_timer_stop(b->loop, &deadline);
    if (expired)
        gr_logf(&b->log, GR_LOG_ERROR, "broker",
                "the controller's metadata was not applied within %d s: accepting clients anyway",
                GR_SINGLE_NODE_READY_SEC);
    gr_server_hold(b->server, false);
}

/*
 * The broker id and the cluster id, from meta.properties and the metadata
 * store: ZooKeeper in cluster mode, else the embedded store under the log
 * dir. The broker id is chosen as core/broker_id.h says (generated while
 * the store opens when broker.id is -1 and meta.properties has none);
 * meta.properties is written once both ids are known. Partitions are opened
 * when this broker's controller assigns them (LeaderAndIsr), not here.
 */
static int open_identity(gr_broker_t *b)
{
    gr_meta_properties_t meta;
    int rc = gr_log_dir_read_meta(b->log_dir, &meta);
    bool had_meta = rc == 0;
    if (rc != 0 && rc != -ENOENT) {
        gr_logf(&b->log, GR_LOG_ERROR, "broker", "cannot read meta.properties of %s: %s",
                gr_log_dir_path(b->log_dir), strerror(-rc));
        return rc;
    }
    char err[256];
    int32_t id;
    rc = gr_broker_id_choose(b->config.broker_id, had_meta ? meta.broker_id : GR_BROKER_ID_NONE,
                             b->config.broker_id_generation_enable, &id, err, sizeof err);
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "broker", "%s: %s", gr_log_dir_path(b->log_dir), err);
        return rc;
    }
    b->config.broker_id = id;
    gr_logger_set_broker_id(&b->log, id);
    bool cluster_from_meta = had_meta && meta.cluster_id[0];
    if (cluster_from_meta)
        snprintf(b->cluster_id, sizeof b->cluster_id, "%s", meta.cluster_id);
    else
        make_cluster_id(b->cluster_id, sizeof b->cluster_id);
    rc = b->cluster->zk_mode ? gr_zk_member_open(b, cluster_from_meta) : open_store(b);
    if (rc || cluster_from_meta)
        return rc;
    memset(&meta, 0, sizeof meta);
    meta.broker_id = b->config.broker_id;
    snprintf(meta.cluster_id, sizeof meta.cluster_id, "%s", b->cluster_id);
    return gr_log_dir_write_meta(b->log_dir, &meta);
}

/* Producer id expiry and the signal watchers (unreferenced: they alone do not keep the loop). */
static void start_timers(gr_broker_t *b)
{
    gr_producer_ids_start(b);
    ev_signal_init(&b->sigterm, on_signal, SIGTERM);
    b->sigterm.data = b;
    ev_signal_start(b->loop, &b->sigterm);
    ev_unref(b->loop);
    ev_signal_init(&b->sigint, on_signal, SIGINT);
    b->sigint.data = b;
    ev_signal_start(b->loop, &b->sigint);
    ev_unref(b->loop);
}

/* Group config overrides (metadata/group_config.h): the cache, filled from the store. */
static int group_configs_open(gr_broker_t *b)
{
    b->group_configs = gr_group_configs_new();
    if (!b->group_configs)
        return -ENOMEM;
    gr_group_config_store_load(b);
    return 0;
}

int gr_broker_start(gr_broker_t *b)
{
    raise_fd_limit(b);
    int rc = gr_broker_security_init(b);
    if (rc)
        return rc;
    b->fds = gr_fd_cache_new(GR_BROKER_MAX_OPEN_SEGMENTS);
    if (!b->fds)
        return -ENOMEM;
    rc = open_log_dir(b);
    if (rc == 0)
        rc = open_identity(b);
    if (rc == 0)
        gr_broker_security_start(b);
    if (rc == 0)
        rc = group_configs_open(b);
    if (rc == 0)
        gr_broker_config_store_load(b); /* dynamic broker configs (KIP-226), async */
    if (rc == 0)
        rc = gr_log_dir_mark_dirty(b->log_dir);
    /* ACLs are loaded before the listeners open: no request is decided on an empty cache. */
    if (rc == 0)
        rc = gr_authorizer_open(b, &b->authorizer);
    if (rc == 0)
        rc = gr_authorizer_start(b);
    /* One thread: jobs finish in submission order (produce.c relies on it). */
    if (rc == 0) {
        rc = gr_worker_init(&b->worker, b->loop, 1, &b->log);
        b->worker_started = rc == 0;
    }
    if (rc == 0)
        gr_log_manager_start(b); /* retention, flush, checkpoint timers; the cleaner */
    /* Cluster mode: clients wait for the controller's word (start_gate.h). */
    if (rc == 0 && b->cluster->zk_mode)
        rc = gr_start_gate_new(b);
    if (rc == 0)
        rc = start_listeners(b);
    if (rc)
        return rc;
    b->started = true;
    start_timers(b);
    gr_coordinator_start(b->groups);
    gr_txn_coordinator_start(b->txns);
    rc = gr_replication_start(b);
    if (rc)
        return rc;
    gr_zk_member_start(b);
    /* Before the wait below: /readyz says what it waits for meanwhile. */
    rc = gr_http_server_start(b);
    if (rc)
        return rc;
    /* Before the wait below too: READY=1 follows /readyz, checked on the loop. */
    rc = gr_sd_notify_start(b);
    if (rc)
        return rc;
    if (!b->cluster->zk_mode)
        await_own_metadata(b);
    gr_logf(&b->log, GR_LOG_INFO, "broker",
            "started: broker %d, cluster %s, %zu topic(s), advertised %s:%d", b->config.broker_id,
            b->cluster_id, b->topics->count, b->advertised_host, b->advertised_port);
    return 0;
}

static void on_server_stopped(gr_server_t *srv, void *arg)
{
    (void)srv;
    gr_broker_t *b = arg;
    ev_break(b->loop, EVBREAK_ALL);
}

/* Stops the periodic timers (the log manager's, producer id expiry). */
static void release_timers(gr_broker_t *b)
{
    gr_log_manager_stop(b);
    gr_producer_ids_stop(b);
}

void gr_broker_stop(gr_broker_t *b)
{
    if (b->stopping)
        return;
    b->stopping = true;
    gr_controlled_shutdown_cancel(b);
    release_timers(b);
    /* Requests waiting in rebalances are answered now, not at the drain deadline. */
    gr_coordinator_fini(b->groups);
    gr_txn_coordinator_fini(b->txns);
    /* The share manager stays until gr_broker_fini: connections still open
     * while the server drains keep sending ShareFetch and hold deferred
     * share fetches, whose handlers and cancels use it; fini frees it after
     * the server has closed them all. */
    gr_replication_stop(b); /* no more fetches or ISR changes from here */
    gr_zk_member_stop(b);
    gr_http_server_stop(b);
    gr_start_gate_free(b); /* requests it still holds would only wait out the drain */
    gr_server_stop(b->server, GR_STOP_DEADLINE_SEC, on_server_stopped, b);
}

/*
 * Stops the timers and signal watchers still active, so that the loop holds
 * nothing of b once it is freed (a test may start another broker on it).
 * They were started unreferenced: take the reference back before stopping.
 */
static void release_watchers(gr_broker_t *b)
{
    release_timers(b);
    ev_signal *signals[] = {&b->sigterm, &b->sigint};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        if (ev_is_active(signals[i])) {
            ev_ref(b->loop);
            ev_signal_stop(b->loop, signals[i]);
        }
    }
}

int gr_broker_fini(gr_broker_t *b)
{
    int rc = 0;
    gr_start_gate_free(b); /* a start-up that failed was never stopped */
    gr_http_server_stop(b);
    if (b->started)
        gr_server_fini(b->server);
    gr_conn_limits_free(b);
    gr_broker_tls_close(b);
    /* After the connections: jobs still out append their data, answer no one. */
    if (b->worker_started)
        gr_worker_fini(&b->worker);
    gr_log_manager_fini(b); /* cleanings cancelled, cleaner checkpoint written */
    if (b->started) {
        gr_logf(&b->log, GR_LOG_INFO, "net",
                "handled %" PRIu64 " requests; sent %" PRIu64 " bytes with sendfile and %" PRIu64
                " with writev; fetch responses carried %" PRIu64 " record bytes (%" PRIu64
                " to followers); %" PRIu64 " produce(s) recompressed on the worker",
                b->stats.requests, b->server->stats.sendfile_bytes, b->server->stats.writev_bytes,
                b->stats.fetch_record_bytes, b->stats.follower_fetch_record_bytes,
                b->stats.recompress_jobs);
    }
    if (b->started)
        release_watchers(b);
    gr_sd_notify_fini(b);
    gr_coordinator_fini(b->groups);
    gr_txn_coordinator_fini(b->txns);
    free_share(b);
    gr_fetch_sessions_free(b->fetch_sessions);
    b->fetch_sessions = NULL;
    gr_replication_stop(b);
    gr_zk_member_stop(b); /* a start-up that failed was never stopped */
    gr_controlled_shutdown_fini(b);
    gr_authorizer_free(b->authorizer); /* before the store its session belongs to */
    b->authorizer = NULL;
    close_store(b);
    if (b->log_dir) {
        /* Closing flushes every partition's files: one syncfs instead of
         * thousands of fsyncs, done before the clean marker is written. */
        gr_batch_io_begin(b->io);
        rc = gr_topics_checkpoint(b);
        int close_rc = gr_topics_fini(b->topics);
        int sync_rc = gr_batch_io_end(b->io, gr_log_dir_path(b->log_dir));
        if (!rc)
            rc = close_rc;
        if (!rc)
            rc = sync_rc;
        if (!rc && b->started)
            rc = gr_log_dir_mark_clean(b->log_dir);
        gr_log_dir_close(b->log_dir);
        b->log_dir = NULL;
    } else {
        gr_topics_fini(b->topics);
    }
    gr_fd_cache_free(b->fds);
    gr_cluster_view_fini(b->cluster);
    gr_broker_security_fini(b);
    gr_group_configs_free(b->group_configs);
    gr_broker_dynamic_free(b);
    b->group_configs = NULL;
    gr_config_fini(&b->config);
    free_parts(b);
    if (rc)
        gr_logf(&b->log, GR_LOG_ERROR, "broker", "unclean shutdown: %s", strerror(-rc));
    else if (b->started)
        gr_logf(&b->log, GR_LOG_INFO, "broker", "stopped cleanly");
    return rc;
}
