/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka_network_requestmetrics_* (Kafka's RequestMetrics MBeans: counts by
 * API and version, errors by code, the five time summaries) and
 * gregor_request_total_time_seconds (a real histogram), from the counters
 * handlers/request_stats.h keeps; and the socket server's connection
 * figures per listener from net/server.h. Only APIs that served a request
 * since start appear. Quantiles are over the last 30..60 s; counts and sums
 * since start.
 */
#include <stdio.h>

#include "core/clock.h"
#include "core/listeners.h"
#include "gen/codec_registry.h"
#include "handlers/request_stats.h"
#include "net/server.h"
#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"

#define NS_PER_MS  1e6
#define NS_PER_SEC 1e9

/* Strimzi's quantiles of a Kafka histogram, as label values and fractions. */
static const struct {
    const char *label;
    double q;
} quantiles[] = {{"0.50", 0.50}, {"0.75", 0.75}, {"0.95", 0.95},
                 {"0.98", 0.98}, {"0.99", 0.99}, {"0.999", 0.999}};

static const struct {
    gr_request_time_t time;
    const char *name;
    const char *help;
} summaries[] = {
    {GR_REQUEST_TIME_TOTAL, "kafka_network_requestmetrics_totaltimems",
     "Request time in ms from the frame read to the response's last byte sent (RequestMetrics "
     "TotalTimeMs)."},
    {GR_REQUEST_TIME_QUEUE, "kafka_network_requestmetrics_requestqueuetimems",
     "Time in ms a request waited behind earlier ones on its connection (RequestQueueTimeMs)."},
    {GR_REQUEST_TIME_LOCAL, "kafka_network_requestmetrics_localtimems",
     "Time in ms the broker worked on a request, waits excluded (LocalTimeMs)."},
    {GR_REQUEST_TIME_REMOTE, "kafka_network_requestmetrics_remotetimems",
     "Time in ms a request waited on others: acks=all, long polls, coordinators, the store "
     "(RemoteTimeMs)."},
    {GR_REQUEST_TIME_SEND, "kafka_network_requestmetrics_responsesendtimems",
     "Time in ms from the response being ready to its last byte sent (ResponseSendTimeMs)."},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The API's name when it served requests since start, else NULL. */
static const char *served(const gr_request_stats_t *s, int key)
{
    if (s->apis[key].times[GR_REQUEST_TIME_TOTAL].count == 0)
        return NULL;
    const gr_api_desc_t *api = gr_api_find((int16_t)key);
    return api ? api->name : NULL;
}

static void write_counts(gr_request_stats_t *s, gr_writer_t *out)
{
    const char *name = "kafka_network_requestmetrics_requests_total";
    gr_prom_family(out, name, GR_PROM_COUNTER,
                   "Requests answered, by API and version (RequestMetrics RequestsPerSec).");
    for (int key = 0; key < GR_REQUEST_STATS_APIS; key++) {
        const char *api = served(s, key);
        for (int v = 0; api && v < GR_REQUEST_STATS_VERSIONS; v++) {
            if (!s->apis[key].requests[v])
                continue;
            char version[8];
            snprintf(version, sizeof version, "%d", v);
            gr_prom_label_t labels[] = {GR_PROM_LABEL("request", api),
                                        GR_PROM_LABEL("version", version)};
            gr_prom_sample_u64(out, name, NULL, labels, 2, s->apis[key].requests[v]);
        }
    }
}

static void write_errors(gr_request_stats_t *s, gr_writer_t *out)
{
    const char *name = "kafka_network_requestmetrics_errors_total";
    gr_prom_family(out, name, GR_PROM_COUNTER,
                   "Error codes in responses, NONE included, by API and error (RequestMetrics "
                   "ErrorsPerSec): every error field of every response sent.");
    for (int key = 0; key < GR_REQUEST_STATS_APIS; key++) {
        const char *api = served(s, key);
        for (int i = 0; api && i < GR_REQUEST_STATS_ERRORS; i++) {
            if (!s->apis[key].errors[i])
                continue;
            gr_prom_label_t labels[] = {
                GR_PROM_LABEL("request", api),
                GR_PROM_LABEL("error", gr_kerr_name(gr_request_stats_error_code(i)))};
            gr_prom_sample_u64(out, name, NULL, labels, 2, s->apis[key].errors[i]);
        }
    }
}

static void write_summary(gr_request_stats_t *s, gr_writer_t *out, int64_t now_ns, size_t which)
{
    const char *name = summaries[which].name;
    gr_request_time_t time = summaries[which].time;
    gr_prom_family(out, name, GR_PROM_SUMMARY, summaries[which].help);
    for (int key = 0; key < GR_REQUEST_STATS_APIS; key++) {
        const char *api = served(s, key);
        if (!api)
            continue;
        gr_histogram_t window;
        gr_request_stats_window(s, (int16_t)key, time, now_ns, &window);
        for (size_t q = 0; q < COUNT(quantiles); q++) {
            gr_prom_label_t labels[] = {GR_PROM_LABEL("request", api),
                                        GR_PROM_LABEL("quantile", quantiles[q].label)};
            gr_prom_sample(out, name, NULL, labels, 2,
                           gr_histogram_quantile(&window, quantiles[q].q) / NS_PER_MS);
        }
        const gr_histogram_t *all = &s->apis[key].times[time];
        gr_prom_label_t label = GR_PROM_LABEL("request", api);
        gr_prom_sample(out, name, "_sum", &label, 1, (double)all->sum_ns / NS_PER_MS);
        gr_prom_sample_u64(out, name, "_count", &label, 1, all->count);
    }
}

static void write_histogram(gr_request_stats_t *s, gr_writer_t *out)
{
    const char *name = "gregor_request_total_time_seconds";
    gr_prom_family(out, name, GR_PROM_HISTOGRAM,
                   "Request time in seconds, frame read to response sent, by API.");
    for (int key = 0; key < GR_REQUEST_STATS_APIS; key++) {
        const char *api = served(s, key);
        if (!api)
            continue;
        const gr_histogram_t *h = &s->apis[key].times[GR_REQUEST_TIME_TOTAL];
        for (int k = 0; k < GR_HISTOGRAM_EXPOSED; k++) {
            int i = gr_histogram_exposed_index(k);
            char le[24];
            snprintf(le, sizeof le, "%g", (double)gr_histogram_bound_ns(i) / NS_PER_SEC);
            gr_prom_label_t labels[] = {GR_PROM_LABEL("request", api), GR_PROM_LABEL("le", le)};
            gr_prom_sample_u64(out, name, "_bucket", labels, 2, gr_histogram_cumulative(h, i));
        }
        gr_prom_label_t labels[] = {GR_PROM_LABEL("request", api), GR_PROM_LABEL("le", "+Inf")};
        gr_prom_sample_u64(out, name, "_bucket", labels, 2, h->count);
        gr_prom_sample(out, name, "_sum", labels, 1, (double)h->sum_ns / NS_PER_SEC);
        gr_prom_sample_u64(out, name, "_count", labels, 1, h->count);
    }
}

/* The name of listener i of the server (its tag is the broker's listener spec). */
static const char *listener_name(const gr_server_t *srv, size_t i)
{
    const gr_listener_spec_t *spec = srv->listener_tags[i];
    return spec ? spec->name : "";
}

static void write_connections(const gr_server_t *srv, gr_writer_t *out)
{
    static const struct {
        const char *name;
        gr_prom_type_t type;
        const char *help;
    } families[] = {
        {"kafka_server_socketservermetrics_connections", GR_PROM_GAUGE,
         "Open client connections, by listener (socket-server-metrics connection-count)."},
        {"kafka_server_socketservermetrics_connection_creation_total", GR_PROM_COUNTER,
         "Client connections accepted, by listener (connection-creation-total)."},
        {"kafka_server_socketservermetrics_connection_close_total", GR_PROM_COUNTER,
         "Client connections closed, by listener (connection-close-total)."},
    };
    for (size_t f = 0; f < COUNT(families); f++) {
        gr_prom_family(out, families[f].name, families[f].type, families[f].help);
        for (size_t i = 0; i < srv->listener_count; i++) {
            uint64_t v = f == 0   ? srv->listener_conns[i]
                         : f == 1 ? srv->listener_accepted[i]
                                  : srv->listener_closed[i];
            gr_prom_label_t label = GR_PROM_LABEL("listener", listener_name(srv, i));
            gr_prom_sample_u64(out, families[f].name, NULL, &label, 1, v);
        }
    }
}

/* Connection quotas (net/server.h): blocked, throttled, refused, per listener. */
static void write_connection_quotas(const gr_server_t *srv, gr_writer_t *out)
{
    static const struct {
        const char *name;
        gr_prom_type_t type;
        const char *help;
    } families[] = {
        {"kafka_network_acceptor_acceptorblocked_percent", GR_PROM_GAUGE,
         "Share (0..1) of the time since start the listener did not accept for "
         "max.connections or the creation rate (Acceptor AcceptorBlockedPercent)."},
        {"kafka_server_socketservermetrics_connection_accept_throttle_time", GR_PROM_GAUGE,
         "Average ms of the non-zero creation-rate delays since start "
         "(connection-accept-throttle-time)."},
        {"gregor_connections_throttled_total", GR_PROM_COUNTER,
         "Accepts that paused the listener for max.connection.creation.rate."},
        {"gregor_connections_refused_total", GR_PROM_COUNTER,
         "Connections closed at accept for max.connections.per.ip (or its override)."},
    };
    double up = ev_now(srv->loop) - srv->started;
    for (size_t f = 0; f < COUNT(families); f++) {
        gr_prom_family(out, families[f].name, families[f].type, families[f].help);
        for (size_t i = 0; i < srv->listener_count; i++) {
            gr_prom_label_t label = GR_PROM_LABEL("listener", listener_name(srv, i));
            uint64_t n = srv->listener_throttled[i];
            if (f == 0)
                gr_prom_sample(out, families[f].name, NULL, &label, 1,
                               up > 0 ? gr_server_blocked_sec(srv, i) / up : 0);
            else if (f == 1)
                gr_prom_sample(out, families[f].name, NULL, &label, 1,
                               n ? srv->listener_throttle_sec[i] * 1000 / (double)n : 0);
            else
                gr_prom_sample_u64(out, families[f].name, NULL, &label, 1,
                                   f == 2 ? n : srv->listener_refused[i]);
        }
    }
}

void gr_metrics_collect_requests(gr_broker_t *b, gr_writer_t *out)
{
    gr_request_stats_t *s = b->request_stats;
    if (s) {
        int64_t now_ns = gr_clock_mono_ns();
        write_counts(s, out);
        write_errors(s, out);
        for (size_t i = 0; i < COUNT(summaries); i++)
            write_summary(s, out, now_ns, i);
        write_histogram(s, out);
    }
    if (b->server) {
        write_connections(b->server, out);
        write_connection_quotas(b->server, out);
    }
}
