/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Looking at transactions (kafka-transactions.sh's requests):
 * DescribeTransactions (v0) describes ids this broker coordinates
 * (NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS otherwise,
 * TRANSACTIONAL_ID_NOT_FOUND for an unknown one); ListTransactions (v0-1)
 * lists the ids of the __transaction_state partitions this broker leads,
 * filtered by state names, producer ids and (v1) how long the transaction
 * has been open. A tool asks every broker and merges the lists.
 *
 * Runs on: loop thread.
 */
#include <string.h>

#include "core/context.h"
#include "gen/describe_transactions.h"
#include "gen/list_transactions.h"
#include "security/authorizer.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "txn/txn_coordinator.h"

typedef gr_describe_transactions_response_transaction_state_t described_t;
typedef gr_describe_transactions_response_topic_data_t topic_data_t;

/* The image's partitions grouped by topic (they are sorted). -1 when out of memory. */
static int describe_parts(gr_request_t *req, const gr_txn_image_t *im, described_t *out)
{
    out->topics = gr_request_alloc_array(req, im->part_count, sizeof *out->topics);
    int32_t *ids = gr_request_alloc_array(req, im->part_count, sizeof *ids);
    if (!out->topics || !ids)
        return -1;
    for (int32_t i = 0; i < im->part_count; i++) {
        topic_data_t *t = out->topics_count ? &out->topics[out->topics_count - 1] : NULL;
        if (!t || !gr_str_eq_c(t->topic, im->parts[i].topic)) {
            t = &out->topics[out->topics_count++];
            char *name =
                gr_arena_strndup(req->arena, im->parts[i].topic, strlen(im->parts[i].topic));
            if (!name)
                return -1;
            t->topic = gr_str(name);
            t->partitions = &ids[i];
        }
        t->partitions[t->partitions_count++] = im->parts[i].partition;
    }
    return 0;
}

static void describe_one(gr_broker_t *b, gr_request_t *req, gr_str_t id, described_t *out)
{
    gr_describe_transactions_response_transaction_state_init(out);
    out->transactional_id = id;
    out->transaction_state = gr_str("");
    out->topics = gr_request_alloc_array(req, 0, sizeof *out->topics);
    int32_t partition;
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                          GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID, id)) {
        out->error_code = GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        return;
    }
    out->error_code = gr_txn_check(b->txns, id, &partition);
    if (out->error_code)
        return;
    const gr_txn_image_t *im = gr_txn_find(b->txns, id);
    if (!im) {
        out->error_code = GR_KERR_TRANSACTIONAL_ID_NOT_FOUND;
        return;
    }
    out->transaction_state = gr_str(gr_txn_state_name(im->state));
    out->transaction_timeout_ms = im->timeout_ms;
    out->transaction_start_time_ms = im->start_ms;
    out->producer_id = im->producer_id;
    out->producer_epoch = im->producer_epoch;
    if (describe_parts(req, im, out) < 0)
        out->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
}

void gr_handle_describe_transactions(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_transactions_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_transactions_response_t resp;
    gr_describe_transactions_response_init(&resp);
    resp.transaction_states =
        gr_request_alloc_array(req, in.transactional_ids_count, sizeof *resp.transaction_states);
    if (!resp.transaction_states) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (int32_t i = 0; i < in.transactional_ids_count; i++)
        describe_one(b, req, in.transactional_ids[i], &resp.transaction_states[i]);
    resp.transaction_states_count = in.transactional_ids_count;
    gr_request_respond(req, &resp);
}

/* --- ListTransactions ------------------------------------------------------------------ */

typedef struct list_ctx {
    gr_request_t *req;
    const gr_list_transactions_request_t *in;
    bool states[GR_TXN_STATE_COUNT]; /* the states asked for */
    bool any_state;                  /* no state filter */
    int64_t now_ms;
    gr_list_transactions_response_t *resp;
    int32_t cap;
    bool failed;
} list_ctx_t;

static bool wanted(const list_ctx_t *ctx, const gr_txn_image_t *im)
{
    if (!ctx->any_state && !ctx->states[im->state])
        return false;
    bool pid_ok = ctx->in->producer_id_filters_count == 0;
    for (int32_t i = 0; !pid_ok && i < ctx->in->producer_id_filters_count; i++)
        pid_ok = ctx->in->producer_id_filters[i] == im->producer_id;
    if (!pid_ok)
        return false;
    if (ctx->in->duration_filter < 0)
        return true;
    return im->start_ms >= 0 && ctx->now_ms - im->start_ms > ctx->in->duration_filter;
}

static void list_one(const char *id, const gr_txn_image_t *im, void *arg)
{
    list_ctx_t *ctx = arg;
    if (ctx->failed || !wanted(ctx, im))
        return;
    /* Kafka lists only the ids the principal may describe. */
    if (!gr_authorize_quiet(ctx->req->broker, ctx->req->session, GR_ACL_OPERATION_DESCRIBE,
                            GR_ACL_RESOURCE_TYPE_TRANSACTIONAL_ID, id, strlen(id)))
        return;
    gr_list_transactions_response_t *resp = ctx->resp;
    if (resp->transaction_states_count == ctx->cap) {
        int32_t cap = ctx->cap ? ctx->cap * 2 : 16;
        void *grown = gr_request_alloc_array(ctx->req, cap, sizeof *resp->transaction_states);
        if (!grown) {
            ctx->failed = true;
            return;
        }
        if (ctx->cap)
            memcpy(grown, resp->transaction_states,
                   sizeof *resp->transaction_states * (size_t)ctx->cap);
        resp->transaction_states = grown;
        ctx->cap = cap;
    }
    char *copy = gr_arena_strndup(ctx->req->arena, id, strlen(id));
    if (!copy) {
        ctx->failed = true;
        return;
    }
    gr_list_transactions_response_transaction_state_t *s =
        &resp->transaction_states[resp->transaction_states_count++];
    s->transactional_id = gr_str(copy);
    s->producer_id = im->producer_id;
    s->transaction_state = gr_str(gr_txn_state_name(im->state));
}

/* Reads the state filters; unknown names go back to the client. -1 when out of memory. */
static int read_states(list_ctx_t *ctx)
{
    const gr_list_transactions_request_t *in = ctx->in;
    ctx->any_state = in->state_filters_count == 0;
    ctx->resp->unknown_state_filters =
        gr_request_alloc_array(ctx->req, in->state_filters_count, sizeof(gr_str_t));
    if (!ctx->resp->unknown_state_filters)
        return -1;
    for (int32_t i = 0; i < in->state_filters_count; i++) {
        gr_txn_state_t s;
        if (gr_txn_state_parse(in->state_filters[i], &s))
            ctx->states[s] = true;
        else
            ctx->resp->unknown_state_filters[ctx->resp->unknown_state_filters_count++] =
                in->state_filters[i];
    }
    return 0;
}

void gr_handle_list_transactions(gr_broker_t *b, gr_request_t *req)
{
    gr_list_transactions_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_list_transactions_response_t resp;
    gr_list_transactions_response_init(&resp);
    list_ctx_t ctx = {.req = req, .in = &in, .now_ms = gr_broker_now_ms(b), .resp = &resp};
    resp.transaction_states = gr_request_alloc_array(req, 0, sizeof *resp.transaction_states);
    if (read_states(&ctx) < 0 || !resp.transaction_states) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (gr_txn_loading(b->txns))
        resp.error_code = GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
    else
        gr_txn_foreach(b->txns, list_one, &ctx);
    if (ctx.failed) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_request_respond(req, &resp);
}
