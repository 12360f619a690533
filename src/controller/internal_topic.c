/* SPDX-License-Identifier: Apache-2.0 */
/* Internal topics created on first use: see internal_topic.h. */
#include "controller/internal_topic.h"

#include "controller/zk_admin.h"
#include "core/context.h"
#include "metadata/cluster_view.h"

#define GR_INTERNAL_TOPIC_ERR_MAX 256

/* Kafka's rule: never create the topic with fewer replicas than configured. */
static bool enough_brokers(gr_broker_t *b, gr_internal_topic_t *t)
{
    int32_t live_brokers = (int32_t)b->cluster->node_count;
    if (t->factor <= live_brokers)
        return true;
    if (!t->warned_replication)
        gr_logf(&b->log, GR_LOG_WARN, t->log_tag,
                "cannot create %s: %s=%d but %d broker(s) alive; set %s=1 for a single broker",
                t->name, t->factor_key, t->factor, live_brokers, t->factor_key);
    t->warned_replication = true;
    return false;
}

gr_kerr_t gr_internal_topic_create(gr_broker_t *b, gr_internal_topic_t *t)
{
    if (!enough_brokers(b, t))
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    char err[GR_INTERNAL_TOPIC_ERR_MAX];
    gr_kerr_t kerr = gr_admin_create_topic_now(b, t->name, t->partitions, t->factor, t->configs,
                                               t->config_count, err, sizeof err);
    if (kerr == GR_KERR_LEADER_NOT_AVAILABLE) {
        t->requested = true;
        gr_logf(&b->log, GR_LOG_INFO, t->log_tag, "creating %s with %d partitions", t->name,
                t->partitions);
        return GR_KERR_COORDINATOR_NOT_AVAILABLE; /* the controller is creating it */
    }
    if (kerr && kerr != GR_KERR_TOPIC_ALREADY_EXISTS) {
        gr_logf(&b->log, GR_LOG_ERROR, t->log_tag, "creating %s failed: %s", t->name, err);
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    }
    return GR_KERR_NONE;
}
