/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LeaderAndIsr (v0-7): which partitions this broker is a replica of, who
 * leads them and at which leader epoch. A partition state with an older
 * leader epoch than this broker's is refused with STALE_CONTROLLER_EPOCH
 * (Kafka's answer), an equal one is applied again (the controller resends
 * after reconnecting). A replica's log is opened (created or recovered) when
 * first named; the configs of topics new to this broker are read from
 * /config/topics first, so the response waits for them.
 */
#include <string.h>

#include "core/context.h"
#include "log/batch_io.h"
#include "log/log_dir.h"
#include "gen/leader_and_isr.h"
#include "metadata/topic_config_fetch.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "partition/partition.h"
#include "replica/replica.h"
#include "replica/requests_int.h"

#define TOPIC_IDS_MIN_VERSION 5 /* per-topic errors named by topic id */

static gr_kerr_t apply_state(gr_broker_t *b, gr_str_t name, gr_uuid_t id,
                             const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s)
{
    gr_topic_t *topic = gr_topics_learn(b, name.ptr, (size_t)name.len, id, s->partition_index + 1);
    if (!topic)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_partition_t *p = &topic->partitions[s->partition_index];
    if (p->log && s->leader_epoch < p->leader_epoch)
        return GR_KERR_STALE_CONTROLLER_EPOCH;
    /* The same epoch with an older ISR (an AlterPartition answer overtook it): keep ours. */
    if (p->log && s->leader_epoch == p->leader_epoch && s->partition_epoch < p->partition_epoch)
        return GR_KERR_NONE;
    int32_t previous_epoch = p->leader_epoch;
    bool was_leader = gr_partition_led_by(p, b->config.broker_id);
    if (gr_partition_set_placement(p, s->leader, s->leader_epoch, s->replicas, s->replicas_count,
                                   s->isr, s->isr_count, s->partition_epoch))
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    p->controller_epoch = s->controller_epoch;
    return gr_replica_apply(b, p, previous_epoch, was_leader);
}

static bool state_valid(gr_str_t name,
                        const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s)
{
    return name.len > 0 && gr_topic_name_check(name.ptr, (size_t)name.len) == GR_KERR_NONE &&
           s->partition_index >= 0 && s->partition_index < GR_TOPIC_MAX_PARTITIONS;
}

/* Applies one partition state and fills its error entry. */
static void apply_one(gr_broker_t *b, gr_str_t name, gr_uuid_t id,
                      const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s,
                      gr_leader_and_isr_response_leader_and_isr_partition_error_t *e)
{
    gr_leader_and_isr_response_leader_and_isr_partition_error_init(e);
    e->topic_name = name;
    e->partition_index = s->partition_index;
    e->error_code = state_valid(name, s) ? apply_state(b, name, id, s) : GR_KERR_INVALID_REQUEST;
}

/* Before v5: one flat list of partition errors, named by topic name. */
static int apply_by_name(gr_replica_call_t *call, gr_leader_and_isr_response_t *resp)
{
    const gr_leader_and_isr_request_t *in = call->request;
    int64_t n = in->ungrouped_partition_states_count;
    for (int32_t t = 0; t < in->topic_states_count; t++)
        n += in->topic_states[t].partition_states_count;
    resp->partition_errors = replica_alloc(call, n, sizeof *resp->partition_errors);
    if (!resp->partition_errors)
        return -1;
    resp->partition_errors_count = (int32_t)n;
    int32_t k = 0;
    for (int32_t i = 0; i < in->ungrouped_partition_states_count; i++) {
        const gr_leader_and_isr_request_leader_and_isr_partition_state_t *s =
            &in->ungrouped_partition_states[i];
        apply_one(call->b, s->topic_name, (gr_uuid_t){0}, s, &resp->partition_errors[k++]);
    }
    for (int32_t t = 0; t < in->topic_states_count; t++) {
        const gr_leader_and_isr_request_leader_and_isr_topic_state_t *ts = &in->topic_states[t];
        for (int32_t i = 0; i < ts->partition_states_count; i++)
            apply_one(call->b, ts->topic_name, ts->topic_id, &ts->partition_states[i],
                      &resp->partition_errors[k++]);
    }
    return 0;
}

/* From v5: errors grouped by topic, named by topic id. */
static int apply_by_topic(gr_replica_call_t *call, gr_leader_and_isr_response_t *resp)
{
    const gr_leader_and_isr_request_t *in = call->request;
    int32_t n = in->topic_states_count;
    resp->topics = replica_alloc(call, n, sizeof *resp->topics);
    if (!resp->topics)
        return -1;
    resp->topics_count = n;
    for (int32_t t = 0; t < n; t++) {
        const gr_leader_and_isr_request_leader_and_isr_topic_state_t *ts = &in->topic_states[t];
        gr_leader_and_isr_response_leader_and_isr_topic_error_t *te = &resp->topics[t];
        gr_leader_and_isr_response_leader_and_isr_topic_error_init(te);
        te->topic_id = ts->topic_id;
        int32_t m = ts->partition_states_count;
        te->partition_errors = replica_alloc(call, m, sizeof *te->partition_errors);
        if (!te->partition_errors)
            return -1;
        te->partition_errors_count = m;
        for (int32_t i = 0; i < m; i++)
            apply_one(call->b, ts->topic_name, ts->topic_id, &ts->partition_states[i],
                      &te->partition_errors[i]);
    }
    return 0;
}

/* Answers err for every partition of resp (already filled). */
static void fail_all(gr_replica_call_t *call, gr_leader_and_isr_response_t *resp, gr_kerr_t err)
{
    if (call->version < TOPIC_IDS_MIN_VERSION) {
        for (int32_t i = 0; i < resp->partition_errors_count; i++)
            resp->partition_errors[i].error_code = err;
        return;
    }
    for (int32_t t = 0; t < resp->topics_count; t++)
        for (int32_t i = 0; i < resp->topics[t].partition_errors_count; i++)
            resp->topics[t].partition_errors[i].error_code = err;
}

/*
 * Opening thousands of logs (a start-up, a big topic creation) makes files
 * that each want an fsync or two: one I/O batch makes them durable with a
 * single syncfs before the controller hears that the replicas exist.
 */
static void apply_and_finish(gr_replica_call_t *call)
{
    gr_broker_t *b = call->b;
    gr_leader_and_isr_response_t *resp = replica_alloc(call, 1, sizeof *resp);
    if (resp) {
        gr_leader_and_isr_response_init(resp);
        gr_batch_io_begin(b->io);
        int rc = call->version < TOPIC_IDS_MIN_VERSION ? apply_by_name(call, resp)
                                                       : apply_by_topic(call, resp);
        /* No log dir (a broker hosting nothing): nothing was written to sync. */
        int sync_rc = b->log_dir ? gr_batch_io_end(b->io, gr_log_dir_path(b->log_dir)) : 0;
        if (sync_rc) {
            gr_logf(&b->log, GR_LOG_ERROR, "replica", "syncing the opened logs failed: %s",
                    strerror(-sync_rc));
            if (!rc)
                fail_all(call, resp, GR_KERR_KAFKA_STORAGE_ERROR);
        }
        if (rc)
            resp = NULL;
    }
    replica_finish(call, resp);
}

static void on_configs_read(void *opaque)
{
    gr_replica_call_t *call = opaque;
    call->fetch = NULL;
    apply_and_finish(call);
}

/* Enters the request's topics in the table, so that their configs apply once read. */
static void learn_topics(gr_broker_t *b, const gr_leader_and_isr_request_t *in)
{
    for (int32_t t = 0; t < in->topic_states_count; t++) {
        const gr_leader_and_isr_request_leader_and_isr_topic_state_t *ts = &in->topic_states[t];
        int32_t count = 0;
        for (int32_t i = 0; i < ts->partition_states_count; i++)
            if (state_valid(ts->topic_name, &ts->partition_states[i]) &&
                ts->partition_states[i].partition_index >= count)
                count = ts->partition_states[i].partition_index + 1;
        if (count > 0)
            (void)gr_topics_learn(b, ts->topic_name.ptr, (size_t)ts->topic_name.len, ts->topic_id,
                                  count);
    }
}

/* Names of the request's topics whose configs this broker has not read yet. */
static size_t unknown_config_topics(gr_broker_t *b, const gr_leader_and_isr_request_t *in,
                                    gr_str_t *names)
{
    size_t n = 0;
    for (int32_t t = 0; t < in->topic_states_count; t++) {
        gr_str_t name = in->topic_states[t].topic_name;
        gr_topic_t *topic =
            name.len > 0 ? gr_topics_find(b->topics, name.ptr, (size_t)name.len) : NULL;
        if (!topic || !topic->config_known)
            names[n++] = name;
    }
    for (int32_t i = 0; i < in->ungrouped_partition_states_count; i++)
        names[n++] = in->ungrouped_partition_states[i].topic_name;
    return n;
}

static void refuse(gr_replica_call_t *call, gr_kerr_t err)
{
    gr_leader_and_isr_response_t *resp = replica_alloc(call, 1, sizeof *resp);
    if (resp) {
        gr_leader_and_isr_response_init(resp);
        resp->error_code = err;
    }
    replica_finish(call, resp);
}

void replica_leader_and_isr(gr_replica_call_t *call)
{
    const gr_leader_and_isr_request_t *in = call->request;
    gr_kerr_t err = replica_fence(call, in->controller_id, in->controller_epoch);
    if (err) {
        refuse(call, err);
        return;
    }
    int64_t count = (int64_t)in->topic_states_count + in->ungrouped_partition_states_count;
    gr_str_t *names = replica_alloc(call, count, sizeof *names);
    if (!names) {
        replica_finish(call, NULL);
        return;
    }
    learn_topics(call->b, in);
    size_t n = unknown_config_topics(call->b, in, names);
    if (n > 0 &&
        gr_topic_configs_fetch(call->b, names, n, on_configs_read, call, &call->fetch) == 0)
        return;
    apply_and_finish(call);
}

void replica_leader_and_isr_cancel(gr_replica_call_t *call)
{
    if (call->fetch)
        gr_topic_configs_fetch_cancel(call->fetch);
    call->fetch = NULL;
}
