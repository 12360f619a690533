/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AlterClientQuotas (v0-1): sets or removes quotas of user, client-id and
 * (user, client-id) entities, a null name meaning the default entity.
 * Each entry is checked on its own; a bad one gets INVALID_REQUEST (unknown
 * entity type or key, a type twice in one entity, an entity given twice in
 * the request, a key twice in one entry, a value that is not > 0, a byte
 * rate that is not a whole number) and the others still apply. With
 * validate_only nothing is written.
 *
 * The writes (quota/quota_store.h) complete later: the request is deferred
 * with an alter_op_t on the heap, not in the request's arena, because a
 * closing connection frees the arena while writes are still out; cancel
 * only forgets the request, and the last write to finish frees the op.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gen/alter_client_quotas.h"
#include "handlers/client_quotas.h"
#include "handlers/handlers.h"
#include "handlers/request.h"
#include "security/authorizer.h"
#include "quota/quota_store.h"

typedef gr_alter_client_quotas_request_entry_data_t entry_in_t;

typedef struct alter_op alter_op_t;

typedef struct entry_state {
    alter_op_t *op;
    gr_kerr_t err;
    const char *message; /* static text, or NULL */
    gr_quota_entity_t entity;
} entry_state_t;

struct alter_op {
    gr_request_t *req; /* NULL once the connection closed */
    const gr_alter_client_quotas_request_t *in;
    int pending; /* writes out */
    entry_state_t *entries;
};

/* Reads an entry's entity into st->entity. Returns NULL or why it is invalid. */
static const char *read_entity(const entry_in_t *e, entry_state_t *st)
{
    if (e->entity_count == 0)
        return "The entity has no parts";
    for (int32_t i = 0; i < e->entity_count; i++) {
        int part = gr_client_quota_entity_type(e->entity[i].entity_type);
        if (part < 0)
            return "Unsupported entity type";
        gr_quota_part_t *p =
            part == GR_CLIENT_QUOTA_PART_USER ? &st->entity.user : &st->entity.client;
        if (p->present)
            return "Duplicate entity type";
        gr_str_t name = e->entity[i].entity_name;
        if (name.ptr && (name.len == 0 || name.len > GR_QUOTA_NAME_MAX))
            return "Invalid entity name";
        char copy[GR_QUOTA_NAME_MAX + 1];
        if (name.ptr) {
            memcpy(copy, name.ptr, (size_t)name.len);
            copy[name.len] = '\0';
        }
        if (gr_quota_part_set(p, name.ptr ? copy : NULL))
            return "Invalid entity name";
    }
    return NULL;
}

/* Reads an entry's ops into set/remove. Returns NULL or why they are invalid. */
static const char *read_ops(const entry_in_t *e, gr_quota_values_t *set,
                            bool remove[GR_QUOTA_TYPE_COUNT])
{
    for (int32_t i = 0; i < e->ops_count; i++) {
        const gr_alter_client_quotas_request_op_data_t *op = &e->ops[i];
        gr_quota_type_t t;
        if (!op->key.ptr || gr_quota_type_parse(op->key.ptr, (size_t)op->key.len, &t))
            return "Unknown quota key";
        if (set->has[t] || remove[t])
            return "Duplicate quota key";
        if (op->remove) {
            remove[t] = true;
            continue;
        }
        if (!isfinite(op->value) || op->value <= 0)
            return "Quota values must be greater than 0";
        if (t != GR_QUOTA_REQUEST && op->value != floor(op->value))
            return "Byte rate quotas must be whole numbers";
        set->has[t] = true;
        set->value[t] = op->value;
    }
    return NULL;
}

static void invalid(entry_state_t *st, const char *why)
{
    st->err = GR_KERR_INVALID_REQUEST;
    st->message = why;
}

/* Entities named by more than one entry are all invalid. */
static void mark_duplicates(alter_op_t *op, int32_t count)
{
    for (int32_t i = 0; i < count; i++)
        for (int32_t j = i + 1; j < count; j++)
            if (gr_quota_entity_eq(&op->entries[i].entity, &op->entries[j].entity)) {
                invalid(&op->entries[i], "Duplicate entity in the request");
                invalid(&op->entries[j], "Duplicate entity in the request");
            }
}

/* The response's copy of an entry's entity parts. Returns false when out of memory. */
static bool echo_entity(gr_request_t *req, const entry_in_t *e,
                        gr_alter_client_quotas_response_entry_data_t *out)
{
    out->entity = gr_request_alloc_array(req, e->entity_count, sizeof *out->entity);
    if (!out->entity)
        return false;
    for (int32_t j = 0; j < e->entity_count; j++) {
        out->entity[j].entity_type = e->entity[j].entity_type;
        out->entity[j].entity_name = e->entity[j].entity_name;
    }
    out->entity_count = e->entity_count;
    return true;
}

static void respond(alter_op_t *op)
{
    gr_request_t *req = op->req;
    const gr_alter_client_quotas_request_t *in = op->in;
    gr_alter_client_quotas_response_t resp;
    gr_alter_client_quotas_response_init(&resp);
    resp.entries = gr_request_alloc_array(req, in->entries_count, sizeof *resp.entries);
    for (int32_t i = 0; resp.entries && i < in->entries_count; i++) {
        gr_alter_client_quotas_response_entry_data_t *out = &resp.entries[i];
        out->error_code = op->entries[i].err;
        out->error_message = gr_str(op->entries[i].message);
        if (!echo_entity(req, &in->entries[i], out)) {
            resp.entries = NULL;
            break;
        }
    }
    if (!resp.entries) {
        gr_request_fail(req, "out of memory");
        return;
    }
    resp.entries_count = in->entries_count;
    gr_request_respond(req, &resp);
}

static void op_free(alter_op_t *op)
{
    free(op->entries);
    free(op);
}

static void on_written(void *opaque, gr_kerr_t err)
{
    entry_state_t *st = opaque;
    alter_op_t *op = st->op;
    st->err = err;
    if (--op->pending > 0)
        return;
    if (op->req)
        respond(op);
    op_free(op);
}

static void on_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    alter_op_t *op = arg;
    op->req = NULL; /* the writes still finish; the last one frees op */
}

/* Starts the write of every valid entry. */
static void apply(gr_broker_t *b, alter_op_t *op, int32_t count)
{
    for (int32_t i = 0; i < count; i++) {
        entry_state_t *st = &op->entries[i];
        gr_quota_values_t set = {0};
        bool remove[GR_QUOTA_TYPE_COUNT] = {false};
        if (st->err || read_ops(&op->in->entries[i], &set, remove))
            continue;
        int rc = gr_quota_store_alter(b, &st->entity, &set, remove, on_written, st);
        if (rc == 0)
            op->pending++;
        else
            st->err = rc == -ENAMETOOLONG ? GR_KERR_INVALID_REQUEST : GR_KERR_UNKNOWN_SERVER_ERROR;
    }
}

void gr_handle_alter_client_quotas(gr_broker_t *b, gr_request_t *req)
{
    gr_alter_client_quotas_request_t *in = gr_request_alloc(req, sizeof *in);
    if (!in) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (gr_request_decode(req, in))
        return;
    alter_op_t *op = calloc(1, sizeof *op);
    if (op)
        op->entries = calloc((size_t)in->entries_count + 1, sizeof *op->entries);
    if (!op || !op->entries) {
        free(op);
        gr_request_fail(req, "out of memory");
        return;
    }
    op->req = req;
    op->in = in;
    for (int32_t i = 0; i < in->entries_count; i++) {
        entry_state_t *st = &op->entries[i];
        gr_quota_values_t set = {0};
        bool remove[GR_QUOTA_TYPE_COUNT] = {false};
        st->op = op;
        const char *why = read_entity(&in->entries[i], st);
        if (!why)
            why = read_ops(&in->entries[i], &set, remove);
        if (why)
            invalid(st, why);
    }
    mark_duplicates(op, in->entries_count);
    /* Kafka: ALTER_CONFIGS on the cluster, else every entry is refused. */
    if (!gr_authorize_cluster(b, req->session, GR_ACL_OPERATION_ALTER_CONFIGS))
        for (int32_t i = 0; i < in->entries_count; i++)
            op->entries[i] = (entry_state_t){op, GR_KERR_CLUSTER_AUTHORIZATION_FAILED, NULL,
                                             op->entries[i].entity};
    if (!in->validate_only)
        apply(b, op, in->entries_count);
    if (op->pending > 0) {
        gr_resp_slot_defer(req->slot, on_cancel, op);
        return;
    }
    respond(op);
    op_free(op);
}
