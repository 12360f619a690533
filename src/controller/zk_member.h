/* SPDX-License-Identifier: Apache-2.0 */
/*
 * This broker as a member of its cluster, over the metadata store: ZooKeeper
 * (zookeeper.connect set), or the embedded store of single-node mode, where
 * it is the only member and so elects itself. The same code both ways:
 *  - start-up: the store and a session, Kafka's persistent paths, the
 *    cluster id (/cluster/id, checked against meta.properties), and a
 *    generated broker id when broker.id is still -1 (/brokers/seqid);
 *  - registration: the ephemeral /brokers/ids/<id> with its endpoint; a
 *    registration left by this broker's previous process (killed before its
 *    session expired) is waited out, then replaced. Its czxid is the broker
 *    epoch, which the controller puts in its requests to this broker: an
 *    UpdateMetadata carrying it comes from a controller that knows this
 *    registration (gr_zk_member_state, for the start gate);
 *  - election: the first broker to create the ephemeral /controller runs the
 *    controller; the others watch the node and race again when it goes;
 *  - /config/changes notifications, once registered: read and applied by
 *    config_changes.c (config_changes.h), which this file starts and stops;
 *  - session expiry: the controller resigns, a new session is opened, and
 *    registration, election and watches start over. Being disconnected for
 *    a whole session timeout counts as expiry (see on_connection_lost_too_long).
 *
 * Runs on: loop thread.
 */
#ifndef GR_CONTROLLER_ZK_MEMBER_H
#define GR_CONTROLLER_ZK_MEMBER_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "controller/config_changes.h"
#include "controller/controller.h"

typedef struct gr_broker gr_broker_t;

/*
 * The session's events so far (Kafka's SessionExpireListener meters;
 * observe/ reads them). A disconnection lasting a whole session timeout is
 * taken as an expiry and counted as one.
 */
typedef struct gr_zk_session_stats {
    uint64_t sync_connects; /* connected: a new session, or the old one back */
    uint64_t disconnects;
    uint64_t expires;
} gr_zk_session_stats_t;

typedef struct gr_zk_member {
    gr_broker_t *b;
    gr_controller_t controller;
    uint64_t gen; /* bumped with every new session: late completions are dropped */
    bool started; /* registration may begin (listeners bound) */
    bool connected;
    bool registered;
    int64_t broker_epoch;             /* czxid of this session's registration; -1 until read */
    uint64_t updates_at_registration; /* the view's metadata_updates when registered */
    gr_config_changes_t changes;      /* the /config/changes reader (config_changes.h) */
    ev_timer retry;                   /* retries a failed registration or election */
    ev_timer lost; /* disconnected: a session timeout later, take it as expired */
    gr_zk_session_stats_t stats;
} gr_zk_member_t;

/*
 * Start-up, before topics and listeners: opens the ZooKeeper store and a
 * session (waiting up to zookeeper.connection.timeout.ms for it), creates
 * Kafka's persistent paths, and settles the cluster id: ZooKeeper's if it
 * has one (a different one in meta.properties is an error, as in Kafka),
 * else b->cluster_id (written there). id_from_meta: b->cluster_id came from
 * meta.properties (else it was just made up and ZooKeeper's wins). When
 * b->config.broker_id is GR_BROKER_ID_NONE, it is then generated from
 * /brokers/seqid (core/broker_id.h) and set there; the caller writes it to
 * meta.properties. 0 or -errno (logged).
 */
int gr_zk_member_open(gr_broker_t *b, bool id_from_meta);

/*
 * Single-node mode's start-up: opens the embedded store kept in dir, a
 * session on it and Kafka's paths, and writes b->cluster_id (from
 * meta.properties) to /cluster/id, or checks it against the one there;
 * generates the broker id as gr_zk_member_open does. 0 or -errno (logged).
 */
int gr_zk_member_open_local(gr_broker_t *b, const char *dir);

/* Once listeners are bound: registers this broker and joins the election. */
void gr_zk_member_start(gr_broker_t *b);

/* Shutdown: resigns, closes the session (its ephemerals go, so others react at once). */
void gr_zk_member_stop(gr_broker_t *b);

/* How far this broker has joined the cluster. */
typedef enum gr_zk_member_state {
    GR_ZK_MEMBER_UNREGISTERED, /* not registered by this session (yet) */
    GR_ZK_MEMBER_REGISTERED,   /* registered; no controller has described the cluster to it */
    /* An UpdateMetadata addressed to this registration (its broker epoch; or,
     * in versions without one, applied since registering) has been applied:
     * the live brokers, this one among them, the controller and every topic. */
    GR_ZK_MEMBER_INFORMED,
} gr_zk_member_state_t;

/*
 * Where membership stands now (GR_ZK_MEMBER_UNREGISTERED before
 * gr_zk_member_open). The start gate (handlers/start_gate.h) asks it until
 * INFORMED; a new session starts over from UNREGISTERED.
 */
gr_zk_member_state_t gr_zk_member_state(const gr_broker_t *b);

/*
 * The session's state as ZooKeeper's client names it (Kafka's SessionState
 * gauge): "CONNECTED", "CONNECTING" (a connection or a new session under
 * way) or "CLOSED" (before start-up, after the stop). One of
 * GR_ZK_SESSION_STATES.
 */
#define GR_ZK_SESSION_STATES                                                                       \
    {                                                                                              \
        "CONNECTED", "CONNECTING", "CLOSED"                                                        \
    }
const char *gr_zk_member_session_state(const gr_broker_t *b);

/* Whether this broker is the active controller. */
bool gr_zk_member_is_controller(const gr_broker_t *b);

#endif
