/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka_server_replicamanager_* (Kafka's ReplicaManager gauges and ISR
 * meters) and kafka_server_replicafetchermanager_maxlag: the partitions
 * this broker holds, counted over the topic table at scrape time; the ISR
 * counters are replica/'s (bumped when the controller answers a proposal).
 * Also kafka_server_fetchsessioncache_* (Kafka's FetchSessionCache): the
 * fetch sessions kept here (handlers/fetch_sessions.h).
 */
#include <stdbool.h>

#include "handlers/fetch_sessions.h"
#include "metadata/topics.h"
#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"
#include "replica/fetcher.h"
#include "replica/replication.h"

typedef struct replica_counts {
    int32_t self;
    int64_t partitions;    /* a replica here (log open) */
    int64_t leaders;       /* led here */
    int64_t offline;       /* assigned here, log not open */
    int64_t under;         /* led here, ISR smaller than the replicas */
    int64_t under_min_isr; /* led here, ISR below min.insync.replicas */
    int64_t at_min_isr;    /* led here, ISR exactly min.insync.replicas */
} replica_counts_t;

static void count_topic(gr_topic_t *t, void *arg)
{
    replica_counts_t *c = arg;
    for (int32_t i = 0; i < t->partition_count; i++) {
        const gr_partition_t *p = &t->partitions[i];
        if (!p->log) {
            c->offline += gr_partition_has_replica(p, c->self);
            continue;
        }
        c->partitions++;
        if (!gr_partition_led_by(p, c->self))
            continue;
        c->leaders++;
        c->under += p->isr_count < p->replica_count;
        c->under_min_isr += p->isr_count < t->settings.min_insync_replicas;
        c->at_min_isr += p->isr_count == t->settings.min_insync_replicas;
    }
}

/* Kafka's FetchSessionCache gauges and evictions meter. */
static void collect_fetch_sessions(gr_broker_t *b, gr_writer_t *out)
{
    const gr_fetch_sessions_t *c = b->fetch_sessions;
    gr_prom_gauge(out, "kafka_server_fetchsessioncache_numincrementalfetchsessions",
                  "Fetch sessions (KIP-227) kept for consumers and followers.",
                  c ? (double)gr_fetch_sessions_count(c) : 0.0);
    gr_prom_gauge(out, "kafka_server_fetchsessioncache_numincrementalfetchpartitionscached",
                  "Partitions in those fetch sessions.",
                  c ? (double)gr_fetch_sessions_partitions(c) : 0.0);
    gr_prom_counter(out, "kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total",
                    "Fetch sessions evicted to make room for new ones.",
                    c ? gr_fetch_sessions_evictions(c) : 0);
}

void gr_metrics_collect_replica(gr_broker_t *b, gr_writer_t *out)
{
    replica_counts_t c = {.self = b->config.broker_id};
    if (b->topics)
        gr_topics_foreach(b->topics, count_topic, &c);
    gr_prom_gauge(out, "kafka_server_replicamanager_partitioncount",
                  "Partitions with a replica on this broker.", (double)c.partitions);
    gr_prom_gauge(out, "kafka_server_replicamanager_leadercount", "Partitions led by this broker.",
                  (double)c.leaders);
    gr_prom_gauge(out, "kafka_server_replicamanager_offlinereplicacount",
                  "Partitions assigned to this broker whose log is not open here.",
                  (double)c.offline);
    gr_prom_gauge(out, "kafka_server_replicamanager_underreplicatedpartitions",
                  "Partitions led here whose ISR is smaller than their replica set.",
                  (double)c.under);
    gr_prom_gauge(out, "kafka_server_replicamanager_underminisrpartitioncount",
                  "Partitions led here whose ISR is below min.insync.replicas.",
                  (double)c.under_min_isr);
    gr_prom_gauge(out, "kafka_server_replicamanager_atminisrpartitioncount",
                  "Partitions led here whose ISR is exactly min.insync.replicas.",
                  (double)c.at_min_isr);
    const gr_replication_t *r = b->replication;
    gr_prom_counter(out, "kafka_server_replicamanager_isrshrinks_total",
                    "ISR shrinks of partitions led here, as the controller accepted them.",
                    r ? r->isr_shrinks : 0);
    gr_prom_counter(out, "kafka_server_replicamanager_isrexpands_total",
                    "ISR expansions of partitions led here, as the controller accepted them.",
                    r ? r->isr_expands : 0);
    gr_prom_counter(out, "kafka_server_replicamanager_failedisrupdates_total",
                    "ISR changes proposed to the controller that it refused or that failed.",
                    r ? r->failed_isr_updates : 0);
    gr_prom_label_t client = GR_PROM_LABEL("clientid", "Replica");
    gr_prom_family(out, "kafka_server_replicafetchermanager_maxlag", GR_PROM_GAUGE,
                   "Largest lag in offsets of a partition followed here behind its leader's "
                   "high watermark.");
    gr_prom_sample(out, "kafka_server_replicafetchermanager_maxlag", NULL, &client, 1,
                   (double)gr_replica_fetchers_max_lag(b));
    collect_fetch_sessions(b, out);
}
