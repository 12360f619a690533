/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The /config/changes notification reader (Kafka's ZkConfigChangeListener
 * with its change-notification expiry), part of this broker's membership
 * (zk_member.h): a writer of a config node (a topic's, a user's, a client's)
 * adds a sequential config_change_N child naming it; every broker watches
 * the list and applies each new one:
 *  - a topic's: its config is read again (metadata/topic_config_fetch.h),
 *    and the controller here reconciles, since a changed config may allow
 *    an election (unclean.leader.election.enable);
 *  - a user's or a client's: b->on_quota_changed and b->on_user_changed
 *    (quotas, SCRAM credentials), set by the composition root;
 *  - a group's: its overrides are read again (metadata/group_config_store.h);
 *  - a broker's (<default> or this one): read again (metadata/broker_config_store.h);
 *  - anything else: nothing.
 *
 * The first listing of a broker's life is the baseline: only notifications
 * after it are applied (the topic configs are read anyway as topics are
 * loaded). The highest sequence seen is kept across sessions, so changes
 * made while cut off are applied on return. Notifications older than
 * gregor.config.change.expiration.ms are deleted whenever the list is read
 * and by a timer (every min(expiry, 60 s)), so old ones go when no new
 * change comes; brokers race to delete, NONODE is the loser's answer.
 *
 * Lifecycle, driven by zk_member.c: gr_config_changes_init (at attach) ->
 * gr_config_changes_start (purge timer, at gr_zk_member_start) ->
 * gr_config_changes_watch (after each registration: list with a watch) ->
 * gr_config_changes_stop (at gr_zk_member_stop). Completions from an old
 * session (m->gen) or after the broker began stopping are dropped.
 *
 * Runs on: loop thread.
 */
#ifndef GR_CONTROLLER_CONFIG_CHANGES_H
#define GR_CONTROLLER_CONFIG_CHANGES_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct gr_zk_member gr_zk_member_t;
typedef struct gr_broker gr_broker_t;

typedef struct gr_config_changes {
    bool primed;    /* the first listing was the baseline (kept across sessions) */
    int64_t seen;   /* highest config_change sequence handled (-1 none) */
    ev_timer purge; /* deletes expired notifications */
} gr_config_changes_t;

/* Nothing seen yet, no timer armed. */
void gr_config_changes_init(gr_config_changes_t *cc);

/* Arms the purge timer of m->changes (unreferenced). Once listeners are bound. */
void gr_config_changes_start(gr_zk_member_t *m);

/* Lists /config/changes with a watch, applying what is new. After each registration. */
void gr_config_changes_watch(gr_zk_member_t *m);

/* Disarms the purge timer. Safe without a start. */
void gr_config_changes_stop(gr_zk_member_t *m);

/*
 * Dynamic broker configs were applied here: the controller, if it is this
 * broker's, reconciles (a default unclean.leader.election.enable turned on
 * may elect an offline partition's leader, as Kafka's controller does on
 * the same change).
 */
void gr_config_changes_broker_applied(gr_broker_t *b);

#endif
