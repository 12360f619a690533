/* SPDX-License-Identifier: Apache-2.0 */
/*
 * UpdateMetadata (v0-8): the controller's description of the cluster that
 * this broker answers Metadata from: the live brokers with their endpoints,
 * and partition states (leader, epochs, replicas, ISR) of the topics named.
 * Updates are incremental: topics not named keep their state. A leader of
 * -2 means the topic is being deleted: it leaves the table (its data goes
 * with StopReplica) and the layer above hears of it (b->on_topic_deleted:
 * the groups coordinated here forget its committed offsets, Kafka's
 * onPartitionsDeleted), also when it had already left the table.
 * The view keeps the broker epoch the request was addressed to, so a
 * starting broker knows when the controller has described the cluster to
 * its current registration (gr_zk_member_state).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "metadata/cluster_view.h"
#include "metadata/topic_config_fetch.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "metadata/zk_docs.h"
#include "partition/partition.h"
#include "replica/leader.h"
#include "replica/requests_int.h"
#include "gen/update_metadata.h"

#define ENDPOINTS_MIN_VERSION 1 /* v0 has one host and port per broker */
#define RACK_MIN_VERSION      2 /* brokers carry their broker.rack */

static void tell_topic_deleted(gr_broker_t *b, gr_str_t name)
{
    if (b->on_topic_deleted)
        b->on_topic_deleted(b, name.ptr, (size_t)name.len);
}

/* Copies the well-formed endpoints into node. Returns how many. */
static int32_t copy_endpoints(gr_cluster_node_t *node,
                              const gr_update_metadata_request_update_metadata_endpoint_t *eps,
                              int32_t count)
{
    node->endpoint_count = 0;
    for (int32_t k = 0; k < count && node->endpoint_count < GR_LISTENERS_MAX; k++) {
        const gr_update_metadata_request_update_metadata_endpoint_t *in = &eps[k];
        gr_listener_spec_t *e = &node->endpoints[node->endpoint_count];
        if (in->host.len <= 0 || (size_t)in->host.len >= sizeof e->host || in->listener.len <= 0 ||
            (size_t)in->listener.len >= sizeof e->name || in->port < 0 || in->port > UINT16_MAX)
            continue;
        memcpy(e->host, in->host.ptr, (size_t)in->host.len);
        e->host[in->host.len] = '\0';
        memcpy(e->name, in->listener.ptr, (size_t)in->listener.len);
        e->name[in->listener.len] = '\0';
        e->port = (uint16_t)in->port;
        e->protocol = (gr_security_protocol_t)in->security_protocol;
        node->endpoint_count++;
    }
    return node->endpoint_count;
}

static int set_live_brokers(gr_broker_t *b, int16_t version,
                            const gr_update_metadata_request_update_metadata_broker_t *brokers,
                            int32_t count)
{
    gr_cluster_node_t *nodes = calloc(count > 0 ? (size_t)count : 1, sizeof *nodes);
    if (!nodes)
        return -ENOMEM;
    size_t n = 0;
    for (int32_t i = 0; i < count; i++) {
        const gr_update_metadata_request_update_metadata_broker_t *in = &brokers[i];
        memset(&nodes[n], 0, sizeof nodes[n]);
        nodes[n].id = in->id;
        if (version >= ENDPOINTS_MIN_VERSION) {
            if (copy_endpoints(&nodes[n], in->endpoints, in->endpoints_count) <= 0)
                continue;
            gr_cluster_node_use_listener(&nodes[n], b->config.effective.inter_broker_listener);
        } else {
            gr_str_t host = in->v0_host;
            if (host.len <= 0 || (size_t)host.len >= sizeof nodes[n].host)
                continue;
            memcpy(nodes[n].host, host.ptr, (size_t)host.len);
            nodes[n].port = in->v0_port;
        }
        /* Borrowed from the request: the view copies it. */
        if (version >= RACK_MIN_VERSION && in->rack.len > 0)
            nodes[n].rack = strndup(in->rack.ptr, (size_t)in->rack.len);
        n++;
    }
    int rc = gr_cluster_view_set_nodes(b->cluster, nodes, n);
    for (size_t i = 0; i < n; i++)
        free(nodes[i].rack);
    free(nodes);
    return rc;
}

/* Applies one partition state; a leader of -2 marks the topic deleted (*deleting). */
static void apply_state(gr_broker_t *b, gr_topic_t *topic,
                        const gr_update_metadata_request_update_metadata_partition_state_t *s,
                        bool *deleting)
{
    if (s->leader == GR_LEADER_DURING_DELETE) {
        *deleting = true;
        return;
    }
    if (s->partition_index < 0 || s->partition_index >= topic->partition_count)
        return;
    gr_partition_t *p = &topic->partitions[s->partition_index];
    /*
     * A replica's leadership comes from LeaderAndIsr (its fetcher or leader
     * state follows it): here only a newer ISR of the same leader epoch.
     */
    if (p->log && (s->leader_epoch != p->leader_epoch || s->zk_version < p->partition_epoch))
        return;
    if (gr_partition_set_placement(p, s->leader, s->leader_epoch, s->replicas, s->replicas_count,
                                   s->isr, s->isr_count, s->zk_version))
        gr_logf(&b->log, GR_LOG_ERROR, "metadata", "out of memory updating %s-%d", topic->name,
                s->partition_index);
    else if (p->log)
        gr_replica_isr_set(b, p);
}

static void apply_topic(gr_broker_t *b, gr_str_t name, gr_uuid_t id,
                        const gr_update_metadata_request_update_metadata_partition_state_t *states,
                        int32_t count)
{
    int32_t partitions = 0;
    for (int32_t i = 0; i < count; i++)
        if (states[i].partition_index >= partitions &&
            states[i].partition_index < GR_TOPIC_MAX_PARTITIONS)
            partitions = states[i].partition_index + 1;
    if (name.len <= 0 || partitions <= 0 || partitions > GR_TOPIC_MAX_PARTITIONS ||
        gr_topic_name_check(name.ptr, (size_t)name.len) != GR_KERR_NONE)
        return;
    bool deleting = false;
    gr_topic_t *topic = gr_topics_find(b->topics, name.ptr, (size_t)name.len);
    if (count > 0 && states[0].leader == GR_LEADER_DURING_DELETE)
        tell_topic_deleted(b, name);
    else
        topic = gr_topics_learn(b, name.ptr, (size_t)name.len, id, partitions);
    if (!topic)
        return;
    for (int32_t i = 0; i < count; i++)
        apply_state(b, topic, &states[i], &deleting);
    if (deleting) {
        gr_logf(&b->log, GR_LOG_INFO, "metadata", "topic %s is being deleted", topic->name);
        gr_topics_forget(b, topic, false);
    } else if (!topic->config_known) {
        gr_str_t n = {topic->name, (int32_t)strlen(topic->name)};
        (void)gr_topic_configs_fetch(b, &n, 1, NULL, NULL, NULL);
    }
}

void replica_update_metadata(gr_replica_call_t *call)
{
    const gr_update_metadata_request_t *in = call->request;
    gr_broker_t *b = call->b;
    gr_update_metadata_response_t *resp = replica_alloc(call, 1, sizeof *resp);
    if (!resp) {
        replica_finish(call, NULL);
        return;
    }
    gr_update_metadata_response_init(resp);
    resp->error_code = replica_fence(call, in->controller_id, in->controller_epoch);
    if (resp->error_code == GR_KERR_NONE) {
        if (set_live_brokers(b, call->version, in->live_brokers, in->live_brokers_count))
            resp->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        for (int32_t t = 0; t < in->topic_states_count; t++) {
            const gr_update_metadata_request_update_metadata_topic_state_t *ts =
                &in->topic_states[t];
            apply_topic(b, ts->topic_name, ts->topic_id, ts->partition_states,
                        ts->partition_states_count);
        }
        for (int32_t i = 0; i < in->ungrouped_partition_states_count; i++) {
            const gr_update_metadata_request_update_metadata_partition_state_t *s =
                &in->ungrouped_partition_states[i];
            apply_topic(b, s->topic_name, (gr_uuid_t){0}, s, 1);
        }
        b->cluster->metadata_broker_epoch = in->broker_epoch;
        b->cluster->metadata_updates++;
    }
    replica_finish(call, resp);
}
