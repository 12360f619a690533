/* SPDX-License-Identifier: Apache-2.0 */
#include "replica/replica.h"

#include <string.h>

#include "broker/broker.h"
#include "metadata/topics_cluster.h"

gr_kerr_t gr_controller_request_check(gr_broker_t *b, int32_t controller_id, int32_t epoch)
{
    gr_cluster_view_t *v = &b->cluster;
    if (!v->zk_mode || epoch < v->controller_epoch) {
        gr_logf(&b->log, GR_LOG_WARN, "controller",
                "ignoring a request of controller %d at epoch %d (newest seen: %d)", controller_id,
                epoch, v->controller_epoch);
        return GR_KERR_STALE_CONTROLLER_EPOCH;
    }
    v->controller_epoch = epoch;
    v->controller_id = controller_id;
    return GR_KERR_NONE;
}

static bool is_replica(const gr_partition_t *p, int32_t id)
{
    for (int32_t i = 0; i < p->replica_count; i++)
        if (p->replicas[i] == id)
            return true;
    return false;
}

bool gr_partition_led_here(const gr_broker_t *b, const gr_partition_t *p)
{
    return p->log != NULL && p->leader_id == b->config.broker_id;
}

gr_kerr_t gr_partition_serve_error(const gr_broker_t *b, const gr_partition_t *p)
{
    if (!p)
        return GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (b->cluster.zk_mode && !gr_partition_led_here(b, p))
        return GR_KERR_NOT_LEADER_OR_FOLLOWER;
    return p->log ? GR_KERR_NONE : GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
}

bool gr_topic_led(gr_broker_t *b, const char *name, int32_t partitions)
{
    gr_topic_t *topic = gr_topics_find(&b->topics, name, strlen(name));
    if (!topic || topic->partition_count < partitions)
        return false;
    for (int32_t i = 0; i < partitions; i++)
        if (!gr_cluster_view_node(&b->cluster, topic->partitions[i].leader_id))
            return false;
    return true;
}

static bool is_offsets_topic(const gr_partition_t *p)
{
    return strcmp(p->topic->name, GR_OFFSETS_TOPIC) == 0;
}

gr_kerr_t gr_replica_apply(gr_broker_t *b, gr_partition_t *p)
{
    int32_t self = b->config.broker_id;
    if (!is_replica(p, self)) {
        gr_replica_stop(b, p, false);
        return GR_KERR_NONE;
    }
    int rc = gr_partition_host(b, p);
    if (rc) {
        gr_logf(&b->log, GR_LOG_ERROR, "controller", "cannot host %s-%d: %s", p->topic->name,
                p->index, strerror(-rc));
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    /* The coordinator ignores a call older than the epochs it has seen. */
    if (is_offsets_topic(p) && gr_partition_led_here(b, p))
        gr_coordinator_partition_elected(&b->groups, p->index, p->leader_epoch);
    else if (is_offsets_topic(p))
        gr_coordinator_partition_resigned(&b->groups, p->index, p->leader_epoch);
    return GR_KERR_NONE;
}

void gr_replica_stop(gr_broker_t *b, gr_partition_t *p, bool delete_data)
{
    if (p->log && is_offsets_topic(p))
        gr_coordinator_partition_resigned(&b->groups, p->index, GR_COORDINATOR_ANY_EPOCH);
    gr_partition_unhost(b, p, delete_data);
}
