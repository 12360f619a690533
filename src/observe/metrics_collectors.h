/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The collectors metrics.c calls, one per area, each in metrics_<area>.c.
 *
 * Runs on: the loop thread.
 */
#ifndef GR_OBSERVE_METRICS_COLLECTORS_H
#define GR_OBSERVE_METRICS_COLLECTORS_H

#include "observe/metrics.h"

/* process_* as Prometheus' client libraries name them: CPU, memory, files, start. */
gr_metrics_collector_fn gr_metrics_collect_process;
/* kafka_network_requestmetrics_*, the request-time histogram, connections per listener. */
gr_metrics_collector_fn gr_metrics_collect_requests;
/* kafka_server_brokertopicmetrics_*, per topic and all topics. */
gr_metrics_collector_fn gr_metrics_collect_topics;
/* The loop's idle ratio and busy seconds. */
gr_metrics_collector_fn gr_metrics_collect_loop;
/* kafka_server_replicamanager_*, kafka_server_replicafetchermanager_maxlag. */
gr_metrics_collector_fn gr_metrics_collect_replica;
/* kafka_controller_kafkacontroller_*, ..._controllerstats_uncleanleaderelections_total. */
gr_metrics_collector_fn gr_metrics_collect_controller;
/* kafka_log_log_* per partition with a log here. */
gr_metrics_collector_fn gr_metrics_collect_log;
/* kafka_server_sessionexpirelistener_* (cluster mode only). */
gr_metrics_collector_fn gr_metrics_collect_zookeeper;
/* The group and transaction coordinators' gauges. */
gr_metrics_collector_fn gr_metrics_collect_coordinators;
/* kafka_consumergroup_*: lag of the groups this broker coordinates (kafka-exporter's names). */
gr_metrics_collector_fn gr_metrics_collect_lag;

#endif
