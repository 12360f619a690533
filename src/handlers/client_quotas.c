/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DescribeClientQuotas (v0-1): the quota entities of b->quotas that match a
 * filter. Each filter component names an entity type ("user" or
 * "client-id", at most once each) and matches an exact name (EXACT, match
 * set), the default entity (DEFAULT) or any entity with that part (ANY). A
 * strict filter matches only entities with exactly the filtered parts;
 * otherwise entities may have other parts too. A malformed filter fails the
 * whole request with INVALID_REQUEST, as Kafka does. (ZooKeeper-mode Kafka
 * also knows "ip" entities; Gregor has no IP quotas and refuses them.)
 *
 * AlterClientQuotas lives in client_quotas_alter.c.
 *
 * Runs on: loop thread.
 */
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "gen/describe_client_quotas.h"
#include "handlers/client_quotas.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "security/authorizer.h"
#include "quota/quotas.h"

typedef gr_describe_client_quotas_request_component_data_t component_t;
typedef gr_describe_client_quotas_response_entry_data_t entry_t;

enum match_type { MATCH_EXACT = 0, MATCH_DEFAULT = 1, MATCH_ANY = 2 };

int gr_client_quota_entity_type(gr_str_t type)
{
    if (gr_str_eq_c(type, GR_CLIENT_QUOTA_USER))
        return GR_CLIENT_QUOTA_PART_USER;
    if (gr_str_eq_c(type, GR_CLIENT_QUOTA_CLIENT_ID))
        return GR_CLIENT_QUOTA_PART_CLIENT;
    return -1;
}

typedef struct describe_ctx {
    gr_request_t *req;
    const component_t *by_part[GR_CLIENT_QUOTA_PART_COUNT]; /* the filter of each part, or NULL */
    bool strict;
    gr_describe_client_quotas_response_t *resp;
    int32_t cap;
    bool failed;
} describe_ctx_t;

/* Checks the filter into ctx->by_part. Returns NULL or the reason it is invalid. */
static const char *read_filter(describe_ctx_t *ctx, const gr_describe_client_quotas_request_t *in)
{
    for (int32_t i = 0; i < in->components_count; i++) {
        const component_t *c = &in->components[i];
        int part = gr_client_quota_entity_type(c->entity_type);
        if (part < 0)
            return "Unsupported entity type in the filter";
        if (ctx->by_part[part])
            return "Duplicate entity type in the filter";
        bool has_match = c->match.ptr != NULL;
        if (c->match_type == MATCH_EXACT
                ? !has_match
                : c->match_type != MATCH_DEFAULT && c->match_type != MATCH_ANY)
            return "Invalid match type or missing match in the filter";
        ctx->by_part[part] = c;
    }
    ctx->strict = in->strict;
    return NULL;
}

static bool part_matches(const component_t *c, const gr_quota_part_t *p, bool strict)
{
    if (!c)
        return !strict || !p->present;
    if (!p->present)
        return false;
    if (c->match_type == MATCH_DEFAULT)
        return p->is_default;
    if (c->match_type == MATCH_ANY)
        return true;
    return !p->is_default && gr_str_eq_c(c->match, p->name);
}

/* Copies s into the request's arena; NULL when out of memory. */
static const char *arena_copy(gr_request_t *req, const char *s)
{
    return gr_arena_strndup(req->arena, s, strlen(s));
}

/* Fills out's entity parts from e. Returns false when out of memory. */
static bool describe_entity(gr_request_t *req, const gr_quota_entity_t *e, entry_t *out)
{
    const gr_quota_part_t *parts[GR_CLIENT_QUOTA_PART_COUNT] = {&e->user, &e->client};
    const char *types[GR_CLIENT_QUOTA_PART_COUNT] = {GR_CLIENT_QUOTA_USER,
                                                     GR_CLIENT_QUOTA_CLIENT_ID};
    out->entity = gr_request_alloc_array(req, GR_CLIENT_QUOTA_PART_COUNT, sizeof *out->entity);
    if (!out->entity)
        return false;
    for (int i = 0; i < GR_CLIENT_QUOTA_PART_COUNT; i++) {
        if (!parts[i]->present)
            continue;
        const char *name = parts[i]->is_default ? NULL : arena_copy(req, parts[i]->name);
        if (!parts[i]->is_default && !name)
            return false;
        out->entity[out->entity_count].entity_type = gr_str(types[i]);
        out->entity[out->entity_count].entity_name = gr_str(name);
        out->entity_count++;
    }
    return true;
}

static bool describe_values(gr_request_t *req, const gr_quota_values_t *v, entry_t *out)
{
    out->values = gr_request_alloc_array(req, GR_QUOTA_TYPE_COUNT, sizeof *out->values);
    if (!out->values)
        return false;
    for (int t = 0; t < GR_QUOTA_TYPE_COUNT; t++) {
        if (!v->has[t])
            continue;
        out->values[out->values_count].key = gr_str(gr_quota_type_key((gr_quota_type_t)t));
        out->values[out->values_count].value = v->value[t];
        out->values_count++;
    }
    return true;
}

/* Grows the entries array to hold one more. Returns false when out of memory. */
static bool reserve_entry(describe_ctx_t *ctx)
{
    gr_describe_client_quotas_response_t *resp = ctx->resp;
    if (resp->entries_count < ctx->cap)
        return true;
    int32_t cap = ctx->cap ? ctx->cap * 2 : GR_CLIENT_QUOTA_INITIAL_ENTRIES;
    entry_t *grown = gr_request_alloc_array(ctx->req, cap, sizeof *grown);
    if (!grown)
        return false;
    if (ctx->cap)
        memcpy(grown, resp->entries, sizeof *grown * (size_t)ctx->cap);
    resp->entries = grown;
    ctx->cap = cap;
    return true;
}

static void describe_one(const gr_quota_entity_t *e, const gr_quota_values_t *v, void *arg)
{
    describe_ctx_t *ctx = arg;
    if (ctx->failed ||
        !part_matches(ctx->by_part[GR_CLIENT_QUOTA_PART_USER], &e->user, ctx->strict) ||
        !part_matches(ctx->by_part[GR_CLIENT_QUOTA_PART_CLIENT], &e->client, ctx->strict))
        return;
    if (!reserve_entry(ctx)) {
        ctx->failed = true;
        return;
    }
    entry_t *out = &ctx->resp->entries[ctx->resp->entries_count];
    gr_describe_client_quotas_response_entry_data_init(out);
    if (!describe_entity(ctx->req, e, out) || !describe_values(ctx->req, v, out)) {
        ctx->failed = true;
        return;
    }
    ctx->resp->entries_count++;
}

void gr_handle_describe_client_quotas(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_client_quotas_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_client_quotas_response_t resp;
    gr_describe_client_quotas_response_init(&resp);
    describe_ctx_t ctx = {.req = req, .resp = &resp};
    /* Kafka: DESCRIBE_CONFIGS on the cluster, else one top-level error. */
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_DESCRIBE_CONFIGS)) {
        resp.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        resp.entries_null = true;
        gr_request_respond(req, &resp);
        return;
    }
    const char *invalid = read_filter(&ctx, &in);
    if (invalid) {
        resp.error_code = GR_KERR_INVALID_REQUEST;
        resp.error_message = gr_str(invalid);
        resp.entries_null = true;
        gr_request_respond(req, &resp);
        return;
    }
    resp.entries = gr_request_alloc_array(req, 0, sizeof *resp.entries);
    if (resp.entries && b->quotas)
        gr_quotas_foreach(b->quotas, describe_one, &ctx);
    if (!resp.entries || ctx.failed) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_request_respond(req, &resp);
}
