/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ACL APIs (kafka-acls.sh's requests): CreateAcls, DescribeAcls and
 * DeleteAcls, v0-3, answered as Kafka's ZooKeeper-mode authorizer does:
 * SECURITY_DISABLED without an authorizer; CLUSTER_AUTHORIZATION_FAILED
 * unless the principal may ALTER the cluster (create, delete) or DESCRIBE it
 * (describe); INVALID_REQUEST for a malformed binding or filter.
 *
 * Describe answers from the authorizer's cache. Create and delete write the
 * store (security/authorizer_write.c) and answer once every write has
 * completed: the request is held by an admin wait (admin_wait.h), one hold
 * per write; each write's result lands in the response, which lives in the
 * request's arena, only while the request does (the client may go away).
 *
 * Runs on: loop thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/create_acls.h"
#include "gen/delete_acls.h"
#include "gen/describe_acls.h"
#include "handlers/admin_common.h"
#include "handlers/admin_wait.h"
#include "handlers/handlers.h"
#include "security/authorizer.h"

/* How long the writes of one request may take before it is answered anyway. */
#define ACL_WRITE_TIMEOUT_MS 30000

#define MSG_NO_AUTHORIZER "No Authorizer is configured on the broker"

/* One write's result slot; freed by its completion. */
typedef struct acl_write {
    gr_admin_wait_t *wait;
    int16_t *error_code; /* in the request's arena: written only while the request lives */
} acl_write_t;

static void on_write_done(void *opaque, int16_t kerr)
{
    acl_write_t *wr = opaque;
    if (gr_admin_wait_request(wr->wait))
        *wr->error_code = kerr;
    gr_admin_wait_release(wr->wait);
    free(wr);
}

static bool always_ready(gr_request_t *req, void *arg)
{
    (void)req;
    (void)arg;
    return true;
}

static void respond_held(gr_request_t *req, void *arg, bool timed_out)
{
    (void)timed_out; /* results still out say REQUEST_TIMED_OUT already */
    gr_request_respond(req, arg);
}

/* Starts one write through fn, holding wait; a write that cannot start fails at once. */
static void start_write(gr_broker_t *b, gr_admin_wait_t *wait, const gr_acl_binding_t *binding,
                        bool add, int16_t *error_code)
{
    acl_write_t *wr = malloc(sizeof *wr);
    *error_code = GR_KERR_REQUEST_TIMED_OUT;
    if (wr) {
        *wr = (acl_write_t){wait, error_code};
        gr_admin_wait_hold(wait);
        int rc = add ? gr_authorizer_add(b->authorizer, binding, on_write_done, wr)
                     : gr_authorizer_remove(b->authorizer, binding, on_write_done, wr);
        if (rc == 0)
            return;
        gr_admin_wait_release(wait);
        free(wr);
    }
    *error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
}

/* A request string as a C string in the arena; NULL for null (filters: any). */
static const char *opt_cstr(gr_request_t *req, gr_str_t s)
{
    return s.len < 0 ? NULL : gr_admin_cstr(req, s);
}

/* --- CreateAcls ------------------------------------------------------------------------ */

typedef gr_create_acls_request_acl_creation_t creation_t;
typedef gr_create_acls_response_acl_creation_result_t creation_result_t;

/* Reads a creation into a binding; false (with *why) when malformed. */
static bool read_creation(gr_request_t *req, const creation_t *c, gr_acl_binding_t *a,
                          const char **why)
{
    const char *principal = gr_admin_cstr(req, c->principal);
    const char *host = gr_admin_cstr(req, c->host);
    *a = (gr_acl_binding_t){.type = c->resource_type,
                            .pattern = c->resource_pattern_type,
                            .name = gr_admin_cstr(req, c->resource_name),
                            .op = c->operation,
                            .permission = c->permission_type};
    if (!principal || !host || !a->name || strlen(principal) >= sizeof a->principal ||
        strlen(host) >= sizeof a->host) {
        *why = "principal or host too long";
        return false;
    }
    snprintf(a->principal, sizeof a->principal, "%s", principal);
    snprintf(a->host, sizeof a->host, "%s", host);
    *why = gr_acl_binding_invalid(a);
    return *why == NULL;
}

/* Every result gets the same error (no authorizer, or not allowed). */
static void create_refuse_all(gr_request_t *req, gr_create_acls_response_t *resp, int16_t kerr,
                              const char *msg)
{
    for (int32_t i = 0; i < resp->results_count; i++) {
        resp->results[i].error_code = kerr;
        resp->results[i].error_message =
            msg ? gr_admin_message(req, msg) : (gr_str_t){NULL, GR_NULL_LEN};
    }
    gr_request_respond(req, resp);
}

void gr_handle_create_acls(gr_broker_t *b, gr_request_t *req)
{
    gr_create_acls_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_create_acls_response_t *resp = gr_request_alloc(req, sizeof *resp);
    creation_result_t *results = gr_request_alloc_array(req, in.creations_count, sizeof *results);
    if (!resp || !results)
        return gr_request_fail(req, "out of memory");
    gr_create_acls_response_init(resp);
    resp->results = results;
    resp->results_count = in.creations_count;
    for (int32_t i = 0; i < in.creations_count; i++)
        gr_create_acls_response_acl_creation_result_init(&results[i]);
    if (!b->authorizer)
        return create_refuse_all(req, resp, GR_KERR_SECURITY_DISABLED, MSG_NO_AUTHORIZER);
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_ALTER))
        return create_refuse_all(req, resp, GR_KERR_CLUSTER_AUTHORIZATION_FAILED, NULL);
    gr_admin_wait_t *wait =
        gr_admin_wait_new(req, ACL_WRITE_TIMEOUT_MS, always_ready, respond_held, resp);
    if (!wait)
        return gr_request_fail(req, "out of memory");
    for (int32_t i = 0; i < in.creations_count; i++) {
        gr_acl_binding_t a;
        const char *why;
        if (read_creation(req, &in.creations[i], &a, &why)) {
            start_write(b, wait, &a, true, &results[i].error_code);
            continue;
        }
        results[i].error_code = GR_KERR_INVALID_REQUEST;
        results[i].error_message = gr_admin_message(req, why);
    }
    gr_admin_wait_release(wait); /* the caller's hold: answers once the writes are done */
}

/* --- filters (DescribeAcls, DeleteAcls) ------------------------------------------------ */

static gr_acl_filter_t read_filter(gr_request_t *req, int8_t type, gr_str_t name, int8_t pattern,
                                   gr_str_t principal, gr_str_t host, int8_t op, int8_t perm)
{
    gr_acl_filter_t f = {.type = type,
                         .pattern = pattern,
                         .name = opt_cstr(req, name),
                         .name_len = name.len > 0 ? (size_t)name.len : 0,
                         .principal = opt_cstr(req, principal),
                         .host = opt_cstr(req, host),
                         .op = op,
                         .permission = perm};
    return f;
}

/* The bindings of the cache f matches, in an arena array (*count of them); NULL: no memory. */
static const gr_acl_binding_t **matching(gr_request_t *req, const gr_acl_set_t *set,
                                         const gr_acl_filter_t *f, int32_t *count)
{
    const gr_acl_binding_t **out = gr_request_alloc_array(req, (int64_t)set->count, sizeof *out);
    *count = 0;
    for (size_t i = 0; out && i < set->count; i++)
        if (gr_acl_filter_matches(f, &set->items[i]))
            out[(*count)++] = &set->items[i];
    return out;
}

/* --- DescribeAcls ---------------------------------------------------------------------- */

typedef gr_describe_acls_response_describe_acls_resource_t described_t;

static bool same_resource(const described_t *r, const gr_acl_binding_t *a)
{
    return r->resource_type == (int8_t)a->type && r->pattern_type == (int8_t)a->pattern &&
           gr_str_eq_c(r->resource_name, a->name);
}

/* Groups the matches by resource pattern, as the response carries them. -1: no memory. */
static int describe_group(gr_request_t *req, const gr_acl_binding_t **m, int32_t count,
                          gr_describe_acls_response_t *resp)
{
    resp->resources = gr_request_alloc_array(req, count, sizeof *resp->resources);
    if (!resp->resources)
        return -1;
    for (int32_t i = 0; i < count; i++) {
        const gr_acl_binding_t *a = m[i];
        described_t *r = NULL;
        for (int32_t k = 0; k < resp->resources_count && !r; k++)
            r = same_resource(&resp->resources[k], a) ? &resp->resources[k] : NULL;
        if (!r) {
            r = &resp->resources[resp->resources_count++];
            gr_describe_acls_response_describe_acls_resource_init(r);
            r->resource_type = (int8_t)a->type;
            r->resource_name = gr_str(a->name);
            r->pattern_type = (int8_t)a->pattern;
            r->acls = gr_request_alloc_array(req, count, sizeof *r->acls);
            if (!r->acls)
                return -1;
        }
        gr_describe_acls_response_acl_description_t *d = &r->acls[r->acls_count++];
        gr_describe_acls_response_acl_description_init(d);
        d->principal = gr_str(a->principal);
        d->host = gr_str(a->host);
        d->operation = (int8_t)a->op;
        d->permission_type = (int8_t)a->permission;
    }
    return 0;
}

static void describe_fail(gr_request_t *req, gr_describe_acls_response_t *resp, int16_t kerr,
                          const char *msg)
{
    resp->error_code = kerr;
    if (msg)
        resp->error_message = gr_admin_message(req, msg);
    resp->resources = gr_request_alloc_array(req, 0, sizeof *resp->resources);
    gr_request_respond(req, resp);
}

void gr_handle_describe_acls(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_acls_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_acls_response_t resp;
    gr_describe_acls_response_init(&resp);
    if (!b->authorizer)
        return describe_fail(req, &resp, GR_KERR_SECURITY_DISABLED, MSG_NO_AUTHORIZER);
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_DESCRIBE))
        return describe_fail(req, &resp, GR_KERR_CLUSTER_AUTHORIZATION_FAILED, NULL);
    gr_acl_filter_t f =
        read_filter(req, in.resource_type_filter, in.resource_name_filter, in.pattern_type_filter,
                    in.principal_filter, in.host_filter, in.operation, in.permission_type);
    const char *why = gr_acl_filter_invalid(&f);
    if (why)
        return describe_fail(req, &resp, GR_KERR_INVALID_REQUEST, why);
    int32_t count;
    const gr_acl_binding_t **m = matching(req, gr_authorizer_acls(b->authorizer), &f, &count);
    if (!m || describe_group(req, m, count, &resp) < 0)
        return gr_request_fail(req, "out of memory");
    gr_request_respond(req, &resp);
}

/* --- DeleteAcls ------------------------------------------------------------------------ */

typedef gr_delete_acls_request_delete_acls_filter_t delete_filter_t;
typedef gr_delete_acls_response_delete_acls_filter_result_t filter_result_t;
typedef gr_delete_acls_response_delete_acls_matching_acl_t matching_acl_t;

/*
 * Fills one filter's result with the bindings it matches now and starts
 * their removal. The bindings are copied into the arena first: the cache
 * they come from changes as removals complete.
 */
static int delete_one(gr_broker_t *b, gr_request_t *req, gr_admin_wait_t *wait,
                      const delete_filter_t *in, filter_result_t *out)
{
    gr_acl_filter_t f = read_filter(req, in->resource_type_filter, in->resource_name_filter,
                                    in->pattern_type_filter, in->principal_filter, in->host_filter,
                                    in->operation, in->permission_type);
    const char *why = gr_acl_filter_invalid(&f);
    out->matching_acls = gr_request_alloc_array(req, 0, sizeof *out->matching_acls);
    if (why) {
        out->error_code = GR_KERR_INVALID_REQUEST;
        out->error_message = gr_admin_message(req, why);
        return 0;
    }
    int32_t count;
    const gr_acl_binding_t **m = matching(req, gr_authorizer_acls(b->authorizer), &f, &count);
    gr_acl_binding_t *copies = gr_request_alloc_array(req, count, sizeof *copies);
    out->matching_acls = gr_request_alloc_array(req, count, sizeof *out->matching_acls);
    if (!m || !copies || !out->matching_acls)
        return -1;
    for (int32_t i = 0; i < count; i++) {
        copies[i] = *m[i];
        copies[i].name = gr_admin_cstr(req, gr_str(m[i]->name));
        if (!copies[i].name)
            return -1;
    }
    for (int32_t i = 0; i < count; i++) {
        const gr_acl_binding_t *a = &copies[i];
        matching_acl_t *r = &out->matching_acls[out->matching_acls_count++];
        gr_delete_acls_response_delete_acls_matching_acl_init(r);
        *r = (matching_acl_t){.resource_type = a->type,
                              .resource_name = gr_str(a->name),
                              .pattern_type = a->pattern,
                              .principal = gr_str(a->principal),
                              .host = gr_str(a->host),
                              .operation = a->op,
                              .permission_type = a->permission,
                              .error_message = {NULL, GR_NULL_LEN}};
        start_write(b, wait, a, false, &r->error_code);
    }
    return 0;
}

static void delete_refuse_all(gr_request_t *req, gr_delete_acls_response_t *resp, int16_t kerr,
                              const char *msg)
{
    for (int32_t i = 0; i < resp->filter_results_count; i++) {
        filter_result_t *r = &resp->filter_results[i];
        r->error_code = kerr;
        if (msg)
            r->error_message = gr_admin_message(req, msg);
        r->matching_acls = gr_request_alloc_array(req, 0, sizeof *r->matching_acls);
    }
    gr_request_respond(req, resp);
}

void gr_handle_delete_acls(gr_broker_t *b, gr_request_t *req)
{
    gr_delete_acls_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_delete_acls_response_t *resp = gr_request_alloc(req, sizeof *resp);
    filter_result_t *results = gr_request_alloc_array(req, in.filters_count, sizeof *results);
    if (!resp || !results)
        return gr_request_fail(req, "out of memory");
    gr_delete_acls_response_init(resp);
    resp->filter_results = results;
    resp->filter_results_count = in.filters_count;
    for (int32_t i = 0; i < in.filters_count; i++)
        gr_delete_acls_response_delete_acls_filter_result_init(&results[i]);
    if (!b->authorizer)
        return delete_refuse_all(req, resp, GR_KERR_SECURITY_DISABLED, MSG_NO_AUTHORIZER);
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_ALTER))
        return delete_refuse_all(req, resp, GR_KERR_CLUSTER_AUTHORIZATION_FAILED, NULL);
    gr_admin_wait_t *wait =
        gr_admin_wait_new(req, ACL_WRITE_TIMEOUT_MS, always_ready, respond_held, resp);
    if (!wait)
        return gr_request_fail(req, "out of memory");
    bool failed = false;
    for (int32_t i = 0; i < in.filters_count && !failed; i++)
        failed = delete_one(b, req, wait, &in.filters[i], &results[i]) < 0;
    if (failed)
        for (int32_t i = 0; i < in.filters_count; i++)
            results[i].error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
    gr_admin_wait_release(wait);
}
