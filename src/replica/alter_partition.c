/* SPDX-License-Identifier: Apache-2.0 */
/* ISR changes through the controller; see alter_partition.h. */
#include "replica/alter_partition.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/alter_partition.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "net/peer.h"
#include "partition/partition.h"
#include "replica/leader.h"
#include "replica/replication.h"

/* What the answer is matched against: the partition may have changed meanwhile. */
typedef struct proposal {
    gr_broker_t *b;
    char topic[GR_TOPIC_NAME_LIMIT + 1];
    gr_uuid_t topic_id;
    int32_t index;
    int32_t leader_epoch;
    int32_t isr_change; /* members the proposal adds (> 0) or removes (< 0) */
} proposal_t;

/*
 * Counts the outcome as Kafka's leaders do: an accepted proposal by its kind
 * (the ISR here may already hold it, the controller's LeaderAndIsr can come
 * first), a refused or unanswered one as a failed update.
 */
static void count_outcome(gr_broker_t *b, const proposal_t *pr, int16_t err)
{
    gr_replication_t *r = b->replication;
    if (err != GR_KERR_NONE)
        r->failed_isr_updates++;
    else if (pr->isr_change < 0)
        r->isr_shrinks++;
    else if (pr->isr_change > 0)
        r->isr_expands++;
}

static gr_peer_t *controller_peer(gr_broker_t *b)
{
    gr_replication_t *r = b->replication;
    const gr_cluster_node_t *node = gr_cluster_view_node(b->cluster, b->cluster->controller_id);
    if (!node)
        return NULL;
    if (r->controller && r->controller_id != node->id)
        gr_replica_alter_partition_stop(b);
    if (!r->controller) {
        char client_id[64];
        snprintf(client_id, sizeof client_id, "gregor-isr-%d", b->config.broker_id);
        r->controller = gr_peer_new_to_broker(b, node->id, node->host, node->port, client_id,
                                              b->config.replica_socket_timeout_ms);
        if (!r->controller)
            return NULL;
        gr_peer_set_unsent(r->controller, GR_PEER_FAIL_UNSENT);
        r->controller_id = node->id;
    } else {
        (void)gr_peer_set_address(r->controller, node->host, node->port);
    }
    return r->controller;
}

/* The partition the proposal was for, if it is still led here at that epoch and waiting. */
static gr_partition_t *proposal_partition(const proposal_t *pr)
{
    gr_broker_t *b = pr->b;
    gr_topic_t *t = gr_topics_find(b->topics, pr->topic, strlen(pr->topic));
    if (!t || memcmp(t->id.b, pr->topic_id.b, sizeof t->id.b) != 0)
        return NULL;
    gr_partition_t *p = gr_topic_partition(t, pr->index);
    if (!p || !p->proposed_isr || p->leader_epoch != pr->leader_epoch ||
        !gr_partition_led_by(p, b->config.broker_id))
        return NULL;
    return p;
}

static void apply_answer(gr_broker_t *b, gr_partition_t *p,
                         const gr_alter_partition_response_partition_data_t *a)
{
    if (a->leader_epoch != p->leader_epoch || a->leader_id != p->leader_id)
        return; /* a new leader was elected: its LeaderAndIsr is on the way */
    if (gr_partition_set_placement(p, p->leader_id, p->leader_epoch, p->replicas, p->replica_count,
                                   a->isr, a->isr_count, a->partition_epoch))
        return;
    gr_logf(&b->log, GR_LOG_INFO, "replica", "%s-%d: ISR now %d replica(s), partition epoch %d",
            p->topic->name, p->index, p->isr_count, p->partition_epoch);
}

static const gr_alter_partition_response_partition_data_t *
answer_of(const gr_alter_partition_response_t *resp)
{
    if (!resp || resp->error_code || resp->topics_count != 1 ||
        resp->topics[0].partitions_count != 1)
        return NULL;
    return &resp->topics[0].partitions[0];
}

static void on_answer(void *opaque, int rc, const void *response)
{
    proposal_t *pr = opaque;
    gr_partition_t *p = proposal_partition(pr);
    const gr_alter_partition_response_t *resp = rc == 0 ? response : NULL;
    const gr_alter_partition_response_partition_data_t *a = answer_of(resp);
    int16_t err = a ? a->error_code : (resp ? resp->error_code : GR_KERR_NETWORK_EXCEPTION);
    if (!a && err == GR_KERR_NONE)
        err = GR_KERR_UNKNOWN_SERVER_ERROR; /* an answer without our partition */
    if (rc != -ECANCELED && pr->b->replication)
        count_outcome(pr->b, pr, err);
    if (p) {
        if (err == GR_KERR_NONE)
            apply_answer(pr->b, p, a);
        else
            gr_logf(&pr->b->log, GR_LOG_WARN, "replica", "%s-%d: ISR change refused: %s",
                    p->topic->name, p->index,
                    rc < 0 ? strerror(-rc) : gr_kerr_name((gr_kerr_t)err));
        free(p->proposed_isr);
        p->proposed_isr = NULL;
        p->proposed_isr_count = 0;
        p->isr_retry_ms = gr_broker_now_ms(pr->b) + GR_ISR_RETRY_MS;
        gr_replica_isr_set(pr->b, p);
    }
    free(pr);
}

static int send_proposal(gr_broker_t *b, gr_partition_t *p, proposal_t *pr)
{
    gr_peer_t *peer = controller_peer(b);
    if (!peer)
        return -EHOSTUNREACH;
    gr_alter_partition_request_partition_data_t part;
    gr_alter_partition_request_partition_data_init(&part);
    part.partition_index = p->index;
    part.leader_epoch = p->leader_epoch;
    part.new_isr = p->proposed_isr;
    part.new_isr_count = p->proposed_isr_count;
    part.partition_epoch = p->partition_epoch;
    gr_alter_partition_request_topic_data_t topic;
    gr_alter_partition_request_topic_data_init(&topic);
    topic.topic_name = gr_str(p->topic->name);
    topic.topic_id = p->topic->id;
    topic.partitions = &part;
    topic.partitions_count = 1;
    gr_alter_partition_request_t req;
    gr_alter_partition_request_init(&req);
    req.broker_id = b->config.broker_id;
    req.topics = &topic;
    req.topics_count = 1;
    b->replication->alter_partitions++;
    return gr_peer_send(peer, GR_API_ALTER_PARTITION, GR_ALTER_PARTITION_VERSION, &req, on_answer,
                        pr);
}

void gr_replica_propose_isr(gr_broker_t *b, gr_partition_t *p, const int32_t *isr, int32_t count)
{
    if (p->proposed_isr || gr_broker_now_ms(b) < p->isr_retry_ms || count <= 0)
        return;
    proposal_t *pr = calloc(1, sizeof *pr);
    p->proposed_isr = malloc(sizeof(int32_t) * (size_t)count);
    if (!pr || !p->proposed_isr) {
        free(pr);
        free(p->proposed_isr);
        p->proposed_isr = NULL;
        return;
    }
    memcpy(p->proposed_isr, isr, sizeof(int32_t) * (size_t)count);
    p->proposed_isr_count = count;
    pr->b = b;
    snprintf(pr->topic, sizeof pr->topic, "%s", p->topic->name);
    pr->topic_id = p->topic->id;
    pr->index = p->index;
    pr->leader_epoch = p->leader_epoch;
    pr->isr_change = count - p->isr_count;
    gr_logf(&b->log, GR_LOG_INFO, "replica", "%s-%d: proposing an ISR of %d (now %d)",
            p->topic->name, p->index, count, p->isr_count);
    int rc = send_proposal(b, p, pr);
    if (rc) {
        free(pr);
        free(p->proposed_isr);
        p->proposed_isr = NULL;
        p->proposed_isr_count = 0;
        p->isr_retry_ms = gr_broker_now_ms(b) + GR_ISR_RETRY_MS;
    }
}

void gr_replica_alter_partition_stop(gr_broker_t *b)
{
    gr_peer_t *peer = b->replication->controller;
    b->replication->controller = NULL;
    gr_peer_free(peer);
}
