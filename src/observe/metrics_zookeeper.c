/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka_server_sessionexpirelistener_*: the ZooKeeper session's events
 * (controller/zk_member.c counts them) and its state. Kafka's SessionState
 * gauge is a string, which Prometheus cannot carry as a value: here it is
 * one sample per state, labelled state="...", 1 for the current one and 0
 * for the others. A single broker (no zookeeper.connect) has no ZooKeeper,
 * so none of these families appear, as on a Kafka broker in KRaft mode.
 */
#include <string.h>

#include "controller/zk_member.h"
#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"

void gr_metrics_collect_zookeeper(gr_broker_t *b, gr_writer_t *out)
{
    if (!b->config.zookeeper_connect || !b->zk)
        return;
    const gr_zk_session_stats_t *s = &b->zk->stats;
    gr_prom_counter(out, "kafka_server_sessionexpirelistener_zookeeperexpires_total",
                    "ZooKeeper sessions expired (or cut off for a whole session timeout).",
                    s->expires);
    gr_prom_counter(out, "kafka_server_sessionexpirelistener_zookeeperdisconnects_total",
                    "Connections to ZooKeeper lost.", s->disconnects);
    gr_prom_counter(out, "kafka_server_sessionexpirelistener_zookeepersyncconnects_total",
                    "Connections to ZooKeeper made (new sessions and reconnections).",
                    s->sync_connects);
    gr_prom_counter(out, "kafka_server_sessionexpirelistener_zookeeperauthfailures_total",
                    "ZooKeeper authentication failures (Gregor does not authenticate: always 0).",
                    0);
    static const char *const states[] = GR_ZK_SESSION_STATES;
    const char *now = gr_zk_member_session_state(b);
    gr_prom_family(out, "kafka_server_sessionexpirelistener_sessionstate", GR_PROM_GAUGE,
                   "The ZooKeeper session's state: 1 for the current one, 0 for the others.");
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        gr_prom_label_t label = GR_PROM_LABEL("state", states[i]);
        gr_prom_sample(out, "kafka_server_sessionexpirelistener_sessionstate", NULL, &label, 1,
                       strcmp(states[i], now) == 0);
    }
}
