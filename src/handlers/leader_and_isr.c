/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LeaderAndIsr (v0-7): the controller tells this broker which partitions it
 * is a replica of, who leads them and at which leader epoch. Requests from a
 * controller older than the newest one seen get STALE_CONTROLLER_EPOCH; a
 * partition state with an older leader epoch than this broker's is refused
 * with STALE_CONTROLLER_EPOCH (Kafka's answer), an equal one is applied again
 * (the controller resends after reconnecting). A replica's log is opened
 * (created or recovered) when first named; the configs of topics new to this
 * broker are read from /config/topics first, so the response waits for them.
 * Leading or no longer leading a __consumer_offsets partition moves its
 * groups (the coordinator loads or unloads them).
 *
 * Runs on: loop thread.
 */
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "handlers/request.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "replica/replica.h"
#include "metadata/topic_configs.h"
#include "handlers/handlers.h"
#include "leader_and_isr.h"

#define TOPIC_IDS_MIN_VERSION 5 /* per-topic errors named by topic id */

typedef gr_leader_and_isr_request_leader_and_isr_partition_state_t lisr_state_t;
typedef gr_leader_and_isr_response_leader_and_isr_partition_error_t lisr_error_t;

typedef struct lisr_op {
    gr_request_t *req;
    gr_leader_and_isr_request_t in;
    gr_topic_configs_fetch_t *fetch;
} lisr_op_t;

static gr_kerr_t apply_state(gr_broker_t *b, gr_str_t name, gr_uuid_t id, const lisr_state_t *s)
{
    gr_topic_t *topic = gr_topics_learn(b, name.ptr, (size_t)name.len, id, s->partition_index + 1);
    if (!topic)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_partition_t *p = &topic->partitions[s->partition_index];
    if (p->log && s->leader_epoch < p->leader_epoch)
        return GR_KERR_STALE_CONTROLLER_EPOCH;
    if (gr_partition_set_placement(p, s->leader, s->leader_epoch, s->replicas, s->replicas_count,
                                   s->isr, s->isr_count, s->partition_epoch))
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    return gr_replica_apply(b, p);
}

static bool state_valid(gr_str_t name, const lisr_state_t *s)
{
    return name.len > 0 && gr_topic_name_check(name.ptr, (size_t)name.len) == GR_KERR_NONE &&
           s->partition_index >= 0 && s->partition_index < GR_TOPIC_MAX_PARTITIONS;
}

/* Applies one partition state and fills its error entry. */
static void apply_one(gr_broker_t *b, gr_str_t name, gr_uuid_t id, const lisr_state_t *s,
                      lisr_error_t *e)
{
    gr_leader_and_isr_response_leader_and_isr_partition_error_init(e);
    e->topic_name = name;
    e->partition_index = s->partition_index;
    e->error_code = state_valid(name, s) ? apply_state(b, name, id, s) : GR_KERR_INVALID_REQUEST;
}

static void respond(lisr_op_t *op)
{
    gr_request_t *req = op->req;
    gr_broker_t *b = req->broker;
    const gr_leader_and_isr_request_t *in = &op->in;
    gr_leader_and_isr_response_t resp;
    gr_leader_and_isr_response_init(&resp);
    if (req->api_version < TOPIC_IDS_MIN_VERSION) {
        int32_t n = 0;
        for (int32_t t = 0; t < in->topic_states_count; t++)
            n += in->topic_states[t].partition_states_count;
        n += in->ungrouped_partition_states_count > 0 ? in->ungrouped_partition_states_count : 0;
        resp.partition_errors = gr_request_alloc_array(req, n, sizeof *resp.partition_errors);
        if (!resp.partition_errors && n > 0)
            goto oom;
        resp.partition_errors_count = n;
        int32_t k = 0;
        for (int32_t i = 0; i < in->ungrouped_partition_states_count; i++) {
            const lisr_state_t *s = &in->ungrouped_partition_states[i];
            apply_one(b, s->topic_name, (gr_uuid_t){0}, s, &resp.partition_errors[k++]);
        }
        for (int32_t t = 0; t < in->topic_states_count; t++) {
            const gr_leader_and_isr_request_leader_and_isr_topic_state_t *ts = &in->topic_states[t];
            for (int32_t i = 0; i < ts->partition_states_count; i++)
                apply_one(b, ts->topic_name, ts->topic_id, &ts->partition_states[i],
                          &resp.partition_errors[k++]);
        }
    } else {
        int32_t n = in->topic_states_count > 0 ? in->topic_states_count : 0;
        resp.topics = gr_request_alloc_array(req, n, sizeof *resp.topics);
        if (!resp.topics && n > 0)
            goto oom;
        resp.topics_count = n;
        for (int32_t t = 0; t < n; t++) {
            const gr_leader_and_isr_request_leader_and_isr_topic_state_t *ts = &in->topic_states[t];
            gr_leader_and_isr_response_leader_and_isr_topic_error_t *te = &resp.topics[t];
            gr_leader_and_isr_response_leader_and_isr_topic_error_init(te);
            te->topic_id = ts->topic_id;
            int32_t m = ts->partition_states_count > 0 ? ts->partition_states_count : 0;
            te->partition_errors = gr_request_alloc_array(req, m, sizeof *te->partition_errors);
            if (!te->partition_errors && m > 0)
                goto oom;
            te->partition_errors_count = m;
            for (int32_t i = 0; i < m; i++)
                apply_one(b, ts->topic_name, ts->topic_id, &ts->partition_states[i],
                          &te->partition_errors[i]);
        }
    }
    gr_request_respond(req, &resp);
    return;
oom:
    gr_conn_close(req->conn, "out of memory");
}

static void on_configs_read(void *opaque)
{
    lisr_op_t *op = opaque;
    op->fetch = NULL;
    respond(op);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    lisr_op_t *op = arg;
    gr_topic_configs_fetch_cancel(op->fetch);
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

void gr_handle_leader_and_isr(gr_broker_t *b, gr_request_t *req)
{
    lisr_op_t *op = gr_request_alloc(req, sizeof *op);
    if (!op) {
        gr_conn_close(req->conn, "out of memory");
        return;
    }
    op->req = req;
    if (gr_request_decode(req, &op->in))
        return;
    gr_kerr_t err = gr_controller_request_check(b, op->in.controller_id, op->in.controller_epoch);
    if (err) {
        gr_leader_and_isr_response_t resp;
        gr_leader_and_isr_response_init(&resp);
        resp.error_code = err;
        gr_request_respond(req, &resp);
        return;
    }
    int32_t count =
        (op->in.topic_states_count > 0 ? op->in.topic_states_count : 0) +
        (op->in.ungrouped_partition_states_count > 0 ? op->in.ungrouped_partition_states_count : 0);
    gr_str_t *names = gr_request_alloc_array(req, count, sizeof *names);
    if (!names && count > 0) {
        gr_conn_close(req->conn, "out of memory");
        return;
    }
    learn_topics(b, &op->in);
    size_t n = unknown_config_topics(b, &op->in, names);
    if (n > 0 && gr_topic_configs_fetch(b, names, n, on_configs_read, op, &op->fetch) == 0) {
        gr_resp_slot_defer(req->slot, on_cancel, op);
        return;
    }
    respond(op);
}
