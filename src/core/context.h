/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker context: everything one broker owns, passed to every handler
 * and subsystem. No other mutable state exists at file scope, so a test can
 * run two brokers in one process.
 *
 * The core services (loop, config, logger, worker pool) are embedded; every
 * subsystem sits behind a pointer to a type declared here only by name, so
 * this header depends on nothing above src/core/. A file that uses a
 * subsystem includes that subsystem's header, and the include graph between
 * folders shows who really calls whom (see DESIGN.md, "Source layout").
 * gr_broker_init (src/broker/) allocates and wires them; the composition root
 * is the only place that knows them all.
 *
 * Runs on: loop thread.
 */
#ifndef GR_CORE_CONTEXT_H
#define GR_CORE_CONTEXT_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/logging.h"
#include "core/worker.h"

#define GR_CLUSTER_ID_MAX 64

typedef struct gr_broker gr_broker_t;
typedef struct gr_server gr_server_t;
typedef struct gr_log_dir gr_log_dir_t;
typedef struct gr_fd_cache gr_fd_cache_t;
typedef struct gr_batch_io gr_batch_io_t;
typedef struct gr_log_manager gr_log_manager_t;
typedef struct gr_topics gr_topics_t;
typedef struct gr_cluster_view gr_cluster_view_t;
typedef struct gr_zk_member gr_zk_member_t;
typedef struct gr_coordinator gr_coordinator_t;
typedef struct gr_txn_coordinator gr_txn_coordinator_t;
typedef struct gr_share_coordinator gr_share_coordinator_t;
typedef struct gr_share_persister gr_share_persister_t;
typedef struct gr_store gr_store_t;
typedef struct gr_store_session gr_store_session_t;
typedef struct gr_producer_ids gr_producer_ids_t;
typedef struct gr_partition gr_partition_t;
typedef struct gr_replication gr_replication_t;
typedef struct gr_share_manager gr_share_manager_t;
typedef struct gr_fetch_sessions gr_fetch_sessions_t;
typedef struct gr_controlled_shutdown gr_controlled_shutdown_t;
typedef struct gr_broker_tls gr_broker_tls_t;
typedef struct gr_sasl gr_sasl_t;
typedef struct gr_scram_users gr_scram_users_t;
typedef struct gr_authorizer gr_authorizer_t;
typedef struct gr_quotas gr_quotas_t;
typedef struct gr_start_gate gr_start_gate_t;
typedef struct gr_group_configs gr_group_configs_t;
struct gr_broker_dynamic;
typedef struct gr_http_server gr_http_server_t;
typedef struct gr_request_stats gr_request_stats_t;
typedef struct gr_loop_stats gr_loop_stats_t;

/*
 * Kafka's BrokerTopicMetrics counters: one set on each topic (gr_topic_t,
 * gone with the topic) and the all-topics sum in gr_broker_stats_t. Bumped
 * by handlers/produce.c and fetch.c, per partition of a request, as Kafka
 * marks its meters; docs/monitoring.md says what each counts.
 */
typedef struct gr_topic_stats {
    uint64_t messages_in;             /* records appended by Produce */
    uint64_t bytes_in;                /* batch bytes appended by Produce */
    uint64_t bytes_out;               /* record bytes in Fetch responses to consumers */
    uint64_t bytes_rejected;          /* batch bytes of Produce partitions refused */
    uint64_t failed_produce_requests; /* Produce partitions answered with an error */
    uint64_t failed_fetch_requests;   /* Fetch partitions answered with an error */
    uint64_t total_produce_requests;  /* Produce partitions */
    uint64_t total_fetch_requests;    /* Fetch partitions (consumers and followers) */
} gr_topic_stats_t;

typedef struct gr_broker_stats {
    uint64_t requests;
    uint64_t fetch_record_bytes;          /* record bytes put into fetch responses */
    uint64_t follower_fetch_record_bytes; /* of those, to followers */
    uint64_t recompress_jobs;             /* produces recompressed on the worker */
    /* What deleted topics counted: the all-topics figures are this plus the
     * live topics' (summed when read, not bumped twice on every request). */
    gr_topic_stats_t gone_topics;
} gr_broker_stats_t;

/* Adds each counter of from to into's. */
static inline void gr_topic_stats_add(gr_topic_stats_t *into, const gr_topic_stats_t *from)
{
    uint64_t *to = (uint64_t *)into;
    const uint64_t *add = (const uint64_t *)from;
    for (size_t i = 0; i < sizeof *into / sizeof *to; i++)
        to[i] += add[i];
}

/*
 * What a change of leadership of a partition means above the replica layer
 * (the group coordinator loads or unloads the groups of a __consumer_offsets
 * partition). Set by the composition root; called when the controller's
 * word changes a partition's leadership here (src/replica/) and when a
 * partition's log here closes (leadership ends, epoch GR_LEADERSHIP_ANY_EPOCH).
 */
#define GR_LEADERSHIP_ANY_EPOCH (-1)
typedef void gr_leadership_fn(gr_broker_t *b, gr_partition_t *p, bool led_here,
                              int32_t leader_epoch);
/* The controller announced the deletion of topic name (UpdateMetadata, leader -2). */
typedef void gr_topic_deleted_fn(gr_broker_t *b, const char *name, size_t name_len);
/*
 * A transaction marker (commit or abort of producer_id's transaction) was
 * appended to partition p's log here as its leader (WriteTxnMarkers): the
 * group coordinator applies or drops the producer's pending transactional
 * offsets when p is a __consumer_offsets partition.
 */
typedef void gr_txn_marker_fn(gr_broker_t *b, gr_partition_t *p, int64_t producer_id, bool commit);
/*
 * Asks this broker's own controller, in-process, for a ControlledShutdown of
 * broker id at broker_epoch (-1 when unknown): replica/controlled_shutdown.c
 * asks through it because controller/ sits above replica/. Returns false,
 * and never answers, when this broker is not the active controller (ask it
 * over the network instead); else true, and the answer comes through
 * gr_controlled_shutdown_answered(opaque, ...) (replica/controlled_shutdown.h),
 * at once or later. The composition root sets gr_controller_shutdown_local.
 */
typedef bool gr_own_controller_shutdown_fn(gr_broker_t *b, int32_t id, int64_t broker_epoch,
                                           void *opaque);

struct gr_broker {
    struct ev_loop *loop;
    gr_config_t config;
    gr_logger_t log;
    gr_worker_t worker; /* slow work off the loop: recompression */
    bool worker_started;
    gr_server_t *server;
    gr_broker_tls_t *tls; /* TLS contexts of the SSL/SASL_SSL listeners (broker/listener_tls.h) */
    /* max.connections.per.ip.overrides, resolved (broker/conn_limits.h); the server borrows it. */
    struct gr_ip_override *ip_overrides;
    char *ip_overrides_text; /* what they were resolved from (broker/conn_limits.c) */
    /* Client TLS for connections to other brokers (gr_peer_set_tls), NULL for plaintext. */
    struct gr_tls_ctx *inter_broker_tls;
    /* The SASL client of those connections (gr_peer_set_sasl), NULL without SASL. */
    struct gr_peer_sasl *inter_broker_sasl;
    gr_log_dir_t *log_dir;
    gr_fd_cache_t *fds;
    gr_batch_io_t *io;                 /* the logs' I/O table */
    gr_log_manager_t *log_manager;     /* retention, flush, checkpoints, compaction */
    gr_topics_t *topics;               /* every topic this broker knows, with its partitions */
    gr_cluster_view_t *cluster;        /* live brokers and the controller, as last told */
    gr_zk_member_t *zk;                /* membership, election and the controller */
    gr_coordinator_t *groups;          /* the group coordinator */
    gr_txn_coordinator_t *txns;        /* the transaction coordinator */
    gr_store_t *store;                 /* the metadata store (ZooKeeper or the local one) */
    gr_store_session_t *store_session; /* the broker's session on it */
    int store_pending;                 /* store writes issued and not yet completed */
    gr_producer_ids_t *producer_ids;   /* InitProducerId's id blocks, producer expiry */
    gr_replication_t *replication;     /* fetchers and ISR tracking (replica/) */
    gr_controlled_shutdown_t *controlled_shutdown;              /* NULL unless one was started */
    gr_own_controller_shutdown_fn *ask_own_controller_shutdown; /* may be NULL: network only */
    gr_authorizer_t *authorizer;     /* ACLs (security/authorizer.h); NULL: everything allowed */
    gr_leadership_fn *on_leadership; /* may be NULL */
    gr_topic_deleted_fn *on_topic_deleted; /* may be NULL */
    gr_txn_marker_fn *on_txn_marker;       /* may be NULL */
    gr_sasl_t *sasl;                       /* SASL listeners' settings (security/) */
    gr_scram_users_t *scram_users;         /* SCRAM credentials, from /config/users */
    /* /config/changes named users/<name>: reload its credentials. May be NULL. */
    void (*on_user_changed)(gr_broker_t *b, const char *user);
    gr_quotas_t *quotas; /* client quotas and their rates (quota/) */
    /* Cluster mode, until it opens: holds client requests (handlers/start_gate.h). */
    gr_start_gate_t *start_gate;
    /* The share coordinator (KIP-932 share-partition states). The three
     * share pointers live from gr_broker_init to gr_broker_fini (not freed at
     * the stop: connections draining still use them), NULL after. */
    gr_share_coordinator_t *share_coordinator;
    /* The way to it for leaders and group coordinators. */
    gr_share_persister_t *share_persister;
    /* The share-partitions led here and their share sessions (share/). */
    gr_share_manager_t *share_manager;
    /* Dynamic broker configs were applied to config: apply those read where they are set up
     * (connection limits). May be NULL. */
    void (*on_broker_config_applied)(gr_broker_t *b);
    /* Fetch sessions (KIP-227, handlers/fetch_sessions.h); from gr_broker_init to gr_broker_fini.
     */
    gr_fetch_sessions_t *fetch_sessions;
    /* /config/changes named a quota entity (users/.., clients/..): reload it. May be NULL. */
    void (*on_quota_changed)(gr_broker_t *b, const char *entity_path);
    gr_group_configs_t *group_configs; /* group config overrides (metadata/group_config.h) */
    struct gr_broker_dynamic *dynamic; /* dynamic broker configs (metadata/broker_config_store.h) */
    /* Listener SSL keys changed live: rebuild listener's TLS context (NULL: every TLS
     * listener's), set by the composition root (broker/listener_tls.h). May be NULL. */
    void (*on_listener_tls)(gr_broker_t *b, const char *listener);
    gr_http_server_t *http; /* /metrics, /healthz, /readyz (observe/http_server.h); NULL: off */
    gr_broker_stats_t stats;
    gr_request_stats_t *request_stats; /* per API counts and times (handlers/request_stats.h) */
    gr_loop_stats_t *loop_stats;       /* the loop's busy time (core/loop_stats.h) */
    char cluster_id[GR_CLUSTER_ID_MAX];
    char advertised_host[GR_LISTENER_HOST_MAX]; /* on the inter-broker listener */
    int32_t advertised_port;
    gr_listener_spec_t advertised[GR_LISTENERS_MAX]; /* every listener's, ports bound */
    int advertised_count;
    ev_signal sigterm;
    ev_signal sigint;
    char *notify_socket; /* systemd's NOTIFY_SOCKET, NULL when not run by it (broker/sd_notify.h) */
    ev_timer notify_timer; /* polls the readiness until READY=1 is sent */
    bool stopping;
    bool started;
};

/* Wall clock in ms (core/clock.c). */
int64_t gr_broker_now_ms(const gr_broker_t *b);

#endif
