/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The /metrics page: every collector of metrics.c's table writes its
 * families in turn. A collector reads the broker's own state at scrape
 * time (counters the hot paths bump, gauges computed from the topic table,
 * the replication state, the coordinators); nothing is kept here between
 * scrapes. docs/monitoring.md lists every family and the Kafka MBean it
 * stands for.
 *
 * Runs on: the loop thread.
 */
#ifndef GR_OBSERVE_METRICS_H
#define GR_OBSERVE_METRICS_H

#include "core/context.h"
#include "protocol/writer.h"

/* Writes one area's families (metrics_<area>.c). */
typedef void gr_metrics_collector_fn(gr_broker_t *b, gr_writer_t *out);

/* The whole page into out (appended). out->err is set on allocation failure. */
void gr_metrics_render(gr_broker_t *b, gr_writer_t *out);

#endif
