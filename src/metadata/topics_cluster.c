/* SPDX-License-Identifier: Apache-2.0 */
#include "metadata/topics_cluster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "metadata/topics_int.h"
#include "metadata/cluster_view.h"
#include "log/batch_io.h"
#include "log/log.h"
#include "log/log_dir.h"
#include "metadata/topics.h"
#include "partition/partition.h"

#define PATH_BUF 4096

static gr_topic_t *topic_create_empty(gr_broker_t *b, const char *name, gr_uuid_t id, int32_t count)
{
    gr_topic_t *topic = gr_topic_new(name, count);
    if (!topic)
        return NULL;
    topic->id = id;
    for (int32_t i = 0; i < count; i++) {
        topic->partitions[i].topic = topic;
        topic->partitions[i].index = i;
        topic->partitions[i].leader_id = GR_NO_BROKER;
    }
    gr_topic_settings_compute(b, topic);
    gr_topics_insert(b->topics, topic);
    return topic;
}

/* Grows the partition array; waiting fetches are answered first (the array moves). */
static int topic_grow(gr_topic_t *topic, int32_t count)
{
    for (int32_t i = 0; i < topic->partition_count; i++)
        gr_partition_wake_all(&topic->partitions[i]);
    gr_partition_t *grown = realloc(topic->partitions, (size_t)count * sizeof *grown);
    if (!grown)
        return -ENOMEM;
    memset(&grown[topic->partition_count], 0,
           (size_t)(count - topic->partition_count) * sizeof *grown);
    for (int32_t i = topic->partition_count; i < count; i++) {
        grown[i].topic = topic;
        grown[i].index = i;
        grown[i].leader_id = GR_NO_BROKER;
    }
    topic->partitions = grown;
    topic->partition_count = count;
    return 0;
}

gr_topic_t *gr_topics_learn(gr_broker_t *b, const char *name, size_t name_len, gr_uuid_t id,
                            int32_t partition_count)
{
    if (partition_count < 1 || partition_count > GR_TOPIC_MAX_PARTITIONS ||
        name_len > GR_TOPIC_NAME_LIMIT)
        return NULL;
    char cname[GR_TOPIC_NAME_LIMIT + 1];
    memcpy(cname, name, name_len);
    cname[name_len] = '\0';
    gr_topic_t *topic = gr_topics_find(b->topics, cname, name_len);
    if (topic && !gr_uuid_is_zero(id) && !gr_uuid_is_zero(topic->id) &&
        memcmp(topic->id.b, id.b, sizeof id.b) != 0) {
        gr_logf(&b->log, GR_LOG_INFO, "topics", "%s has a new topic id: dropping the old topic",
                cname);
        gr_topics_forget(b, topic, true);
        topic = NULL;
    }
    if (!topic)
        return topic_create_empty(b, cname, id, partition_count);
    if (gr_uuid_is_zero(topic->id) && !gr_uuid_is_zero(id)) { /* learned before its id */
        gr_topics_remove(b->topics, topic);
        topic->id = id;
        gr_topics_insert(b->topics, topic);
    }
    if (partition_count > topic->partition_count && topic_grow(topic, partition_count))
        return NULL;
    return topic;
}

static int32_t *dup_ids(const int32_t *ids, int32_t count)
{
    int32_t *copy = malloc((size_t)(count > 0 ? count : 1) * sizeof *copy);
    if (copy && count > 0)
        memcpy(copy, ids, (size_t)count * sizeof *copy);
    return copy;
}

int gr_partition_set_placement(gr_partition_t *p, int32_t leader, int32_t leader_epoch,
                               const int32_t *replicas, int32_t replica_count, const int32_t *isr,
                               int32_t isr_count, int32_t partition_epoch)
{
    replica_count = replica_count > 0 ? replica_count : 0;
    isr_count = isr_count > 0 ? isr_count : 0;
    int32_t *r = dup_ids(replicas, replica_count), *i = dup_ids(isr, isr_count);
    if (!r || !i) {
        free(r);
        free(i);
        return -ENOMEM;
    }
    free(p->replicas);
    free(p->isr);
    p->replicas = r;
    p->replica_count = replica_count;
    p->isr = i;
    p->isr_count = isr_count;
    p->leader_id = leader;
    p->leader_epoch = leader_epoch;
    p->partition_epoch = partition_epoch;
    return 0;
}

int gr_partition_host(gr_broker_t *b, gr_partition_t *p)
{
    if (p->log)
        return 0;
    int32_t leader = p->leader_id, epoch = p->leader_epoch;
    gr_topic_t *topic = p->topic;
    int rc = gr_topic_partition_open(b, topic, p->index);
    /* partition_open resets the single-node placement: keep the controller's. */
    p->leader_id = leader;
    p->leader_epoch = epoch;
    if (rc == 0)
        gr_log_set_config(p->log, &topic->settings.log);
    return rc;
}

void gr_partition_unhost(gr_broker_t *b, gr_partition_t *p, bool delete_data)
{
    gr_partition_wake_all(p);
    if (p->log && b->on_leadership)
        b->on_leadership(b, p, false, GR_LEADERSHIP_ANY_EPOCH);
    if (!p->log) {
        if (delete_data)
            gr_partition_dir_delete(b, p->topic->name, strlen(p->topic->name), p->index);
        return;
    }
    if (delete_data)
        gr_topics_checkpoints_forget(b->topics, p->topic->name, p->index);
    else if (gr_topics_checkpoints_keep(b->topics, p->topic->name, p->index, p->log) < 0)
        gr_logf(&b->log, GR_LOG_WARN, "topics",
                "%s-%d: no memory to keep its checkpoints: it recovers as after a crash",
                p->topic->name, p->index);
    int rc = delete_data ? gr_log_delete(p->log) : gr_log_close(p->log);
    p->log = NULL;
    if (rc)
        gr_logf(&b->log, GR_LOG_WARN, "topics", "%s %s-%d: %s",
                delete_data ? "deleting" : "closing", p->topic->name, p->index, strerror(-rc));
}

void gr_partition_dir_delete(gr_broker_t *b, const char *topic, size_t topic_len, int32_t index)
{
    char path[PATH_BUF];
    snprintf(path, sizeof path, "%s/%.*s-%d", gr_topics_log_dir(b), (int)topic_len, topic, index);
    char name[GR_TOPIC_NAME_LIMIT + 1];
    snprintf(name, sizeof name, "%.*s", (int)topic_len, topic);
    gr_topics_checkpoints_forget(b->topics, name, index);
    int rc = gr_log_dir_remove_tree(&b->io->ops, path);
    if (rc && rc != -ENOENT)
        gr_logf(&b->log, GR_LOG_WARN, "topics", "cannot delete %s: %s", path, strerror(-rc));
}

void gr_topics_forget(gr_broker_t *b, gr_topic_t *topic, bool delete_data)
{
    gr_topic_stats_add(&b->stats.gone_topics, &topic->stats);
    gr_topics_remove(b->topics, topic);
    for (int32_t i = 0; i < topic->partition_count; i++)
        gr_partition_unhost(b, &topic->partitions[i], delete_data); /* groups leave with it */
    gr_topic_free(topic);
}

bool gr_topic_led(gr_broker_t *b, const char *name, int32_t partitions)
{
    gr_topic_t *topic = gr_topics_find(b->topics, name, strlen(name));
    if (!topic || topic->partition_count < partitions)
        return false;
    for (int32_t i = 0; i < partitions; i++)
        if (!gr_cluster_view_node(b->cluster, topic->partitions[i].leader_id))
            return false;
    return true;
}
