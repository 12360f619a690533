/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The loop's idle ratio (core/loop_stats.h) under Kafka's two names, the
 * network processors' and the request handlers' (Gregor's one loop is
 * both), and gregor_loop_busy_seconds_total.
 */
#include "core/clock.h"
#include "core/loop_stats.h"
#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"

#define NS_PER_SEC 1e9

void gr_metrics_collect_loop(gr_broker_t *b, gr_writer_t *out)
{
    gr_loop_stats_t *s = b->loop_stats;
    if (!s)
        return;
    double idle = gr_loop_stats_idle_ratio(s, gr_clock_mono_ns());
    const char *net = "kafka_network_socketserver_networkprocessoravgidle_percent";
    gr_prom_family(out, net, GR_PROM_GAUGE,
                   "Share of the last 30-60 s the broker's loop waited for events, 0..1 "
                   "(SocketServer NetworkProcessorAvgIdlePercent).");
    gr_prom_sample(out, net, NULL, NULL, 0, idle);
    const char *pool = "kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent";
    gr_prom_family(out, pool, GR_PROM_GAUGE,
                   "The same ratio: Gregor's loop is also its request handler "
                   "(KafkaRequestHandlerPool RequestHandlerAvgIdlePercent).");
    gr_prom_sample(out, pool, NULL, NULL, 0, idle);
    const char *busy = "gregor_loop_busy_seconds_total";
    gr_prom_family(out, busy, GR_PROM_COUNTER,
                   "Seconds the broker's loop spent outside its poll (working).");
    gr_prom_sample(out, busy, NULL, NULL, 0, (double)s->busy_ns / NS_PER_SEC);
}
