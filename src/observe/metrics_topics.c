/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka_server_brokertopicmetrics_*: Kafka's BrokerTopicMetrics meters as
 * counters, each family with a sample per topic (label topic) and one
 * without labels for all topics, as the JMX exporter renders the MBean
 * with and without its topic key. The counters live on gr_topic_t; the
 * all-topics figures add them up here, with what deleted topics counted
 * (stats.gone_topics): a deleted topic's samples go, its counts stay. Replication bytes are
 * all-topics only, as in Kafka.
 */
#include <stddef.h>

#include "metadata/topics.h"
#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"
#include "replica/replication.h"

typedef struct topic_family {
    const char *name;
    const char *help;
    size_t offset; /* of the counter in gr_topic_stats_t */
} topic_family_t;

#define FAMILY(n, field, help)                                                                     \
    {                                                                                              \
        "kafka_server_brokertopicmetrics_" n "_total", help, offsetof(gr_topic_stats_t, field)     \
    }

static const topic_family_t families[] = {
    FAMILY("messagesin", messages_in, "Records appended by Produce (MessagesInPerSec)."),
    FAMILY("bytesin", bytes_in, "Record batch bytes appended by Produce (BytesInPerSec)."),
    FAMILY("bytesout", bytes_out, "Record bytes sent to consumers by Fetch (BytesOutPerSec)."),
    FAMILY("bytesrejected", bytes_rejected,
           "Record batch bytes refused for their size (BytesRejectedPerSec)."),
    FAMILY("failedproducerequests", failed_produce_requests,
           "Produce partitions answered with an error (FailedProduceRequestsPerSec)."),
    FAMILY("failedfetchrequests", failed_fetch_requests,
           "Fetch partitions answered with an error (FailedFetchRequestsPerSec)."),
    FAMILY("totalproducerequests", total_produce_requests,
           "Produce partitions (TotalProduceRequestsPerSec)."),
    FAMILY("totalfetchrequests", total_fetch_requests,
           "Fetch partitions, consumers' and followers' (TotalFetchRequestsPerSec)."),
};

static uint64_t field(const gr_topic_stats_t *s, size_t offset)
{
    return *(const uint64_t *)((const char *)s + offset);
}

typedef struct topic_pass {
    gr_writer_t *out;
    const topic_family_t *family;
} topic_pass_t;

static void write_topic(gr_topic_t *topic, void *arg)
{
    topic_pass_t *pass = arg;
    gr_prom_label_t label = GR_PROM_LABEL("topic", topic->name);
    gr_prom_sample_u64(pass->out, pass->family->name, NULL, &label, 1,
                       field(&topic->stats, pass->family->offset));
}

static void add_topic(gr_topic_t *topic, void *arg)
{
    gr_topic_stats_add(arg, &topic->stats);
}

void gr_metrics_collect_topics(gr_broker_t *b, gr_writer_t *out)
{
    gr_topic_stats_t all = b->stats.gone_topics; /* deleted topics, then the live ones */
    if (b->topics)
        gr_topics_foreach(b->topics, add_topic, &all);
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        gr_prom_family(out, families[f].name, GR_PROM_COUNTER, families[f].help);
        gr_prom_sample_u64(out, families[f].name, NULL, NULL, 0, field(&all, families[f].offset));
        if (b->topics) {
            topic_pass_t pass = {out, &families[f]};
            gr_topics_foreach(b->topics, write_topic, &pass);
        }
    }
    const char *in = "kafka_server_brokertopicmetrics_replicationbytesin_total";
    gr_prom_family(out, in, GR_PROM_COUNTER,
                   "Record bytes appended here as a follower (ReplicationBytesInPerSec).");
    gr_prom_sample_u64(out, in, NULL, NULL, 0,
                       b->replication ? b->replication->follower_fetch_bytes : 0);
    const char *rout = "kafka_server_brokertopicmetrics_replicationbytesout_total";
    gr_prom_family(out, rout, GR_PROM_COUNTER,
                   "Record bytes sent to followers by Fetch (ReplicationBytesOutPerSec).");
    gr_prom_sample_u64(out, rout, NULL, NULL, 0, b->stats.follower_fetch_record_bytes);
}
