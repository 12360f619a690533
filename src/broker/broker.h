/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker context: everything one broker owns, passed to every handler.
 * No other mutable state exists at file scope, so a test can run two
 * brokers in one process.
 *
 * Lifecycle: gr_broker_init (config loaded) -> gr_broker_start (log dir
 * locked, metadata store opened under it, topics loaded from the store and
 * their partitions opened and recovered, listeners bound, timers armed)
 * -> ev_run -> gr_broker_stop (stop accepting, drain responses) ->
 * gr_broker_fini (store writes completed, store closed, logs flushed,
 * checkpoints and the clean-shutdown marker written).
 *
 * Runs on: loop thread.
 */
#ifndef GR_BROKER_BROKER_H
#define GR_BROKER_BROKER_H

#include <ev.h>

#include "api_versions.h"
#include "log/batch_io.h"
#include "broker/cleaner.h"
#include "core/config.h"
#include "core/logging.h"
#include "metadata/producer_ids.h"
#include "handlers/request.h"
#include "core/worker.h"
#include "metadata/topics.h"
#include "metadata/cluster_view.h"
#include "metadata/store.h"
#include "controller/zk_member.h"
#include "group/coordinator.h"
#include "log/log.h"
#include "log/log_dir.h"
#include "net/chain.h"
#include "net/server.h"

#define GR_CLUSTER_ID_MAX           64
#define GR_BROKER_MAX_OPEN_SEGMENTS 8192

typedef struct gr_broker_stats {
    uint64_t requests;
    uint64_t fetch_record_bytes; /* record bytes put into fetch responses */
    uint64_t recompress_jobs;    /* produces recompressed on the worker */
} gr_broker_stats_t;

struct gr_broker {
    struct ev_loop *loop;
    gr_config_t config;
    gr_logger_t log;
    gr_server_t server;
    gr_log_dir_t *log_dir;
    gr_fd_cache_t *fds;
    gr_batch_io_t io;   /* the logs' I/O table */
    gr_worker_t worker; /* slow work off the loop: recompression */
    bool worker_started;
    gr_cleaner_t cleaner; /* log compaction, on threads of its own */
    gr_topics_t topics;
    gr_cluster_view_t cluster;         /* live brokers and the controller, as last told */
    gr_zk_member_t zk;                 /* cluster mode: registration, election, controller */
    gr_coordinator_t groups;           /* the group coordinator */
    gr_store_t *store;                 /* the metadata store (the local one under the log dir) */
    gr_store_session_t *store_session; /* the broker's session on it */
    int store_pending;                 /* store writes issued and not yet completed */
    gr_chain_stats_t net_stats;
    gr_broker_stats_t stats;
    char cluster_id[GR_CLUSTER_ID_MAX];
    char advertised_host[GR_LISTENER_HOST_MAX];
    int32_t advertised_port;
    ev_timer retention_timer;
    ev_timer flush_timer;
    ev_signal sigterm;
    ev_signal sigint;
    ev_timer checkpoint_timer;
    uint32_t fetch_wake_gen; /* generation of the latest gr_fetch_wake (fetch.c) */
    bool stopping;
    bool started;
    gr_producer_ids_t producer_ids; /* InitProducerId's id blocks, producer expiry */
};

/* Initialises b with a loaded, resolved config (moved into b). 0 or -errno. */
int gr_broker_init(gr_broker_t *b, struct ev_loop *loop, gr_config_t *config);
/* Opens the log dir, recovers partitions, binds listeners. 0 or -errno (logged). */
int gr_broker_start(gr_broker_t *b);
/* Begins a graceful stop; the loop ends when connections have drained. */
void gr_broker_stop(gr_broker_t *b);
/* Flushes logs, writes checkpoints and the clean marker, frees everything. */
int gr_broker_fini(gr_broker_t *b);

/* Wall clock in ms. */
int64_t gr_broker_now_ms(const gr_broker_t *b);

/* Fills the API list of an ApiVersions response (all versions advertised). */
void gr_broker_fill_api_versions(gr_broker_t *b, gr_request_t *req,
                                 gr_api_versions_response_t *resp);

#endif
