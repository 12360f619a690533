/* SPDX-License-Identifier: Apache-2.0 */
#include "observe/metrics.h"

#include <stddef.h>

#include "observe/metrics_collectors.h"

/* In page order; each collector's file is named after its area. */
static gr_metrics_collector_fn *const collectors[] = {
    gr_metrics_collect_requests,     /* RequestMetrics, SocketServer connections */
    gr_metrics_collect_topics,       /* BrokerTopicMetrics */
    gr_metrics_collect_loop,         /* the loop's idle ratio */
    gr_metrics_collect_replica,      /* ReplicaManager, ReplicaFetcherManager */
    gr_metrics_collect_controller,   /* KafkaController, ControllerStats */
    gr_metrics_collect_log,          /* Log, per partition */
    gr_metrics_collect_zookeeper,    /* SessionExpireListener */
    gr_metrics_collect_coordinators, /* group and transaction coordinators */
    gr_metrics_collect_lag,          /* consumer lag (kafka-exporter's names) */
    gr_metrics_collect_process,      /* process_* */
};

void gr_metrics_render(gr_broker_t *b, gr_writer_t *out)
{
    for (size_t i = 0; i < sizeof collectors / sizeof collectors[0]; i++)
        collectors[i](b, out);
}
