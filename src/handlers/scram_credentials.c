/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DescribeUserScramCredentials (v0) from this broker's credential cache, and
 * AlterUserScramCredentials (v0) written to the metadata store by this
 * broker, as any broker does in Kafka's ZooKeeper mode
 * (security/scram_store.h). Alterations are grouped per user: one store
 * write per user, one result per user; the slot is deferred until every
 * user's write completed.
 *
 * Runs on: loop thread.
 */
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/alter_user_scram_credentials.h"
#include "gen/describe_user_scram_credentials.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "security/authorizer.h"
#include "security/scram_store.h"

typedef gr_describe_user_scram_credentials_response_describe_user_scram_credentials_result_t
    described_t;
typedef gr_alter_user_scram_credentials_response_alter_user_scram_credentials_result_t altered_t;
typedef gr_alter_user_scram_credentials_request_scram_credential_upsertion_t upsertion_t;

static char *user_name(gr_request_t *req, gr_str_t s)
{
    return gr_arena_strndup(req->arena, s.ptr ? s.ptr : "", s.len > 0 ? (size_t)s.len : 0);
}

static void describe_one(gr_broker_t *b, gr_request_t *req, const char *user, bool duplicate,
                         described_t *out)
{
    gr_describe_user_scram_credentials_response_describe_user_scram_credentials_result_init(out);
    out->user = gr_str(user);
    out->credential_infos =
        gr_request_alloc_array(req, GR_SCRAM_MECHANISMS, sizeof *out->credential_infos);
    if (duplicate) {
        out->error_code = GR_KERR_DUPLICATE_RESOURCE;
        out->error_message = gr_str("Cannot describe SCRAM credentials for the same user twice");
        return;
    }
    for (int m = GR_SASL_SCRAM_SHA_256; m <= GR_SASL_SCRAM_SHA_512; m++) {
        const gr_scram_credential_t *c = gr_scram_users_find(b->scram_users, user, m);
        if (c && out->credential_infos)
            out->credential_infos[out->credential_infos_count++] =
                (gr_describe_user_scram_credentials_response_credential_info_t){(int8_t)m,
                                                                                c->iterations};
    }
    if (out->credential_infos_count == 0) {
        out->error_code = GR_KERR_RESOURCE_NOT_FOUND;
        out->error_message = gr_str("Attempt to describe a user credential that does not exist");
    }
}

void gr_handle_describe_user_scram_credentials(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_user_scram_credentials_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_user_scram_credentials_response_t resp;
    gr_describe_user_scram_credentials_response_init(&resp);
    /* Kafka: DESCRIBE on the cluster, else one top-level error and no results. */
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_DESCRIBE)) {
        resp.error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        gr_request_respond(req, &resp);
        return;
    }
    bool all = in.users_null || in.users_count == 0;
    int64_t n = all ? (int64_t)gr_scram_users_count(b->scram_users) : in.users_count;
    resp.results = gr_request_alloc_array(req, n, sizeof *resp.results);
    if (!resp.results) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        const char *user =
            all ? gr_scram_users_name(b->scram_users, (size_t)i) : user_name(req, in.users[i].name);
        bool duplicate = false;
        for (int64_t k = 0; !all && k < n && !duplicate; k++)
            duplicate = k != i && gr_str_eq(in.users[k].name, in.users[i].name);
        describe_one(b, req, user ? user : "", duplicate, &resp.results[resp.results_count++]);
    }
    gr_request_respond(req, &resp);
}

/* --- AlterUserScramCredentials -------------------------------------------------------- */

typedef struct alter_ctx {
    gr_request_t *req; /* NULL once the connection closed */
    gr_alter_user_scram_credentials_response_t resp;
    int pending;
} alter_ctx_t;

static void alter_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    alter_ctx_t *ctx = arg;
    ctx->req = NULL;
}

static void alter_finish_one(alter_ctx_t *ctx)
{
    if (--ctx->pending > 0)
        return;
    if (ctx->req)
        gr_request_respond(ctx->req, &ctx->resp);
    free(ctx);
}

typedef struct user_done {
    alter_ctx_t *ctx;
    altered_t *result;
} user_done_t;

static void on_user_altered(void *opaque, gr_kerr_t err)
{
    user_done_t *d = opaque;
    if (d->ctx->req) {
        d->result->error_code = err;
        if (err == GR_KERR_RESOURCE_NOT_FOUND)
            d->result->error_message =
                gr_str("Attempt to delete a user credential that does not exist");
    }
    alter_ctx_t *ctx = d->ctx;
    free(d);
    alter_finish_one(ctx);
}

/* The error of one alteration checked alone, with its message. */
static gr_kerr_t check_one(gr_str_t name, int8_t mechanism, const upsertion_t *u,
                           const char **message)
{
    if (name.len <= 0 || memchr(name.ptr, '/', (size_t)name.len)) {
        *message = "Username must not be empty or contain '/'";
        return GR_KERR_UNACCEPTABLE_CREDENTIAL;
    }
    if (!gr_sasl_mechanism_is_scram((gr_sasl_mechanism_t)mechanism)) {
        *message = "Unknown SCRAM mechanism";
        return GR_KERR_UNSUPPORTED_SASL_MECHANISM;
    }
    if (u && u->iterations < GR_SCRAM_MIN_ITERATIONS) {
        *message = "Too few iterations";
        return GR_KERR_UNACCEPTABLE_CREDENTIAL;
    }
    if (u && u->iterations > GR_SCRAM_MAX_ITERATIONS) {
        *message = "Too many iterations";
        return GR_KERR_UNACCEPTABLE_CREDENTIAL;
    }
    if (u && (u->salt.len <= 0 || u->salt.len > GR_SCRAM_SALT_MAX ||
              u->salted_password.len != (int32_t)gr_scram_hash_len(mechanism))) {
        *message = "Salt or salted password of the wrong size";
        return GR_KERR_UNACCEPTABLE_CREDENTIAL;
    }
    return GR_KERR_NONE;
}

/* One alteration of the request, deletion or upsertion. */
typedef struct alteration {
    gr_str_t name;
    int8_t mechanism;
    const upsertion_t *upsertion; /* NULL for a deletion */
} alteration_t;

static alteration_t alteration_at(const gr_alter_user_scram_credentials_request_t *in, int32_t i)
{
    if (i < in->deletions_count)
        return (alteration_t){in->deletions[i].name, in->deletions[i].mechanism, NULL};
    const upsertion_t *u = &in->upsertions[i - in->deletions_count];
    return (alteration_t){u->name, u->mechanism, u};
}

/* The change of an alteration already checked; GR_KERR_NONE or UNACCEPTABLE_CREDENTIAL. */
static gr_kerr_t make_change(const alteration_t *a, gr_scram_change_t *c)
{
    memset(c, 0, sizeof *c);
    c->mechanism = (gr_sasl_mechanism_t)a->mechanism;
    c->remove = a->upsertion == NULL;
    if (c->remove)
        return GR_KERR_NONE;
    const upsertion_t *u = a->upsertion;
    c->cred.iterations = u->iterations;
    c->cred.salt_len = (size_t)u->salt.len;
    memcpy(c->cred.salt, u->salt.ptr, c->cred.salt_len);
    int rc =
        gr_scram_keys(c->mechanism, u->salted_password.ptr, c->cred.stored_key, c->cred.server_key);
    return rc ? GR_KERR_UNACCEPTABLE_CREDENTIAL : GR_KERR_NONE;
}

/* Checks every alteration of user (the one at first and the later ones of that name). */
static gr_kerr_t user_changes(const gr_alter_user_scram_credentials_request_t *in, int32_t first,
                              gr_scram_change_t *changes, int *count, const char **message)
{
    int32_t n = in->deletions_count + in->upsertions_count;
    alteration_t user = alteration_at(in, first);
    *count = 0;
    for (int32_t i = first; i < n; i++) {
        alteration_t a = alteration_at(in, i);
        if (!gr_str_eq(a.name, user.name))
            continue;
        gr_kerr_t err = check_one(a.name, a.mechanism, a.upsertion, message);
        for (int k = 0; err == GR_KERR_NONE && k < *count; k++) {
            if ((int8_t)changes[k].mechanism == a.mechanism) {
                *message = "A user credential cannot be altered twice in the same request";
                err = GR_KERR_DUPLICATE_RESOURCE;
            }
        }
        if (err == GR_KERR_NONE && *count >= GR_SCRAM_MECHANISMS * 2)
            err = GR_KERR_DUPLICATE_RESOURCE;
        if (err == GR_KERR_NONE)
            err = make_change(&a, &changes[(*count)++]);
        if (err)
            return err;
    }
    return GR_KERR_NONE;
}

/* Whether the alteration at i is the first of its user's. */
static bool first_of_user(const gr_alter_user_scram_credentials_request_t *in, int32_t i)
{
    gr_str_t name = alteration_at(in, i).name;
    for (int32_t k = 0; k < i; k++)
        if (gr_str_eq(alteration_at(in, k).name, name))
            return false;
    return true;
}

/* Starts user's store write; its result is filled when it completes. */
static void alter_user(gr_broker_t *b, alter_ctx_t *ctx, const char *user,
                       const gr_scram_change_t *changes, int count, altered_t *result)
{
    user_done_t *d = malloc(sizeof *d);
    if (d) {
        *d = (user_done_t){ctx, result};
        ctx->pending++;
        if (gr_scram_store_alter(b, user, changes, count, on_user_altered, d) == 0)
            return;
        ctx->pending--;
        free(d);
    }
    result->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
}

void gr_handle_alter_user_scram_credentials(gr_broker_t *b, gr_request_t *req)
{
    gr_alter_user_scram_credentials_request_t in;
    if (gr_request_decode(req, &in))
        return;
    int32_t n = in.deletions_count + in.upsertions_count;
    alter_ctx_t *ctx = calloc(1, sizeof *ctx);
    if (ctx)
        ctx->resp.results = gr_request_alloc_array(req, n, sizeof *ctx->resp.results);
    if (!ctx || !ctx->resp.results) {
        free(ctx);
        gr_request_fail(req, "out of memory");
        return;
    }
    ctx->req = req;
    ctx->pending = 1; /* this function's own share, so no early response */
    gr_resp_slot_defer(req->slot, alter_cancel, ctx);
    /* Kafka: ALTER on the cluster, else every user's result is refused. */
    bool allowed = gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_ALTER);
    for (int32_t i = 0; i < n; i++) {
        if (!first_of_user(&in, i))
            continue;
        altered_t *r = &ctx->resp.results[ctx->resp.results_count++];
        gr_alter_user_scram_credentials_response_alter_user_scram_credentials_result_init(r);
        const char *user = user_name(req, alteration_at(&in, i).name);
        r->user = gr_str(user ? user : "");
        if (!allowed) {
            r->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
            continue;
        }
        gr_scram_change_t changes[GR_SCRAM_MECHANISMS * 2];
        int count = 0;
        const char *message = NULL;
        r->error_code =
            user ? user_changes(&in, i, changes, &count, &message) : GR_KERR_UNKNOWN_SERVER_ERROR;
        if (r->error_code == GR_KERR_NONE)
            alter_user(b, ctx, user, changes, count, r);
        else if (message)
            r->error_message = gr_str(message);
    }
    alter_finish_one(ctx);
}
