/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Committed offsets: OffsetCommit (v0-10), OffsetFetch (v0-10, several
 * groups from v8) and OffsetDelete (v0).
 *
 * From v10 both name topics by id (KIP-848): an id is resolved through the
 * topic table, an unknown one answers its partitions UNKNOWN_TOPIC_ID, and
 * answers carry the ids. OffsetFetch's "every topic" form answers the
 * committed topics that still have an id, by id (a deleted topic has none).
 *
 * OffsetCommit: a partition of an unknown topic gets
 * UNKNOWN_TOPIC_OR_PARTITION and metadata over offset.metadata.max.bytes
 * OFFSET_METADATA_TOO_LARGE; the rest are checked against the group (a
 * commit without generation and member creates a commit-only group, one
 * with a generation for an unknown group gets ILLEGAL_GENERATION) and
 * written as one batch. v0 commits, which Kafka kept in ZooKeeper, are kept
 * in __consumer_offsets like the others. v2-4 retention times set an
 * explicit expiry.
 *
 * OffsetFetch answers -1 and empty metadata for partitions without a
 * commit (also for unknown groups); a null topic list means every committed
 * partition. Offsets pending in a transaction are not shown (the committed
 * ones are); with require_stable (v7+) such a partition gets
 * UNSTABLE_OFFSET_COMMIT and offset -1 instead, and the client retries, as
 * Kafka 3.8 answers (per partition, the group's error staying NONE).
 *
 * OffsetDelete also drops pending transactional offsets of the partitions
 * it deletes (Kafka's removeOffsets).
 *
 * Runs on: loop thread.
 */
#include <string.h>

#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/isr_wait.h"
#include "group/cgroup.h"
#include "group/cgroup_classic.h"
#include "handlers/request.h"
#include "metadata/topics.h"
#include "group/coordinator.h"
#include "group/group_listing.h"
#include "handlers/handlers.h"
#include "gen/offset_commit.h"
#include "gen/offset_delete.h"
#include "gen/offset_fetch.h"

#define GR_OFFSET_FETCH_GROUP_ERROR_VERSION 2 /* top-level error code from v2 */
#define GR_OFFSET_FETCH_BATCH_VERSION       8
#define GR_COMMIT_MEMBER_EPOCH_VERSION      9  /* OffsetCommit: generation is a member epoch */
#define GR_OFFSETS_TOPIC_ID_VERSION         10 /* both APIs name topics by id from v10 */

/* A v10+ topic id's name, or an empty name (and *known false) for an unknown id. */
static gr_str_t name_of_id(gr_broker_t *b, gr_uuid_t id, bool *known)
{
    gr_topic_t *t = gr_topics_find_id(b->topics, id);
    *known = t != NULL;
    return t ? gr_str(t->name) : gr_str("");
}

/* The id of a named topic, zero when no such topic exists. */
static gr_uuid_t id_of_name(gr_broker_t *b, gr_str_t name)
{
    gr_topic_t *t = gr_topics_find(b->topics, name.ptr, name.len > 0 ? (size_t)name.len : 0);
    return t ? t->id : (gr_uuid_t){0};
}

static bool partition_exists(gr_broker_t *b, gr_str_t topic, int32_t partition)
{
    gr_topic_t *t = gr_topics_find(b->topics, topic.ptr, topic.len > 0 ? (size_t)topic.len : 0);
    return t && gr_topic_partition(t, partition) != NULL;
}

/* --- OffsetCommit ----------------------------------------------------------------- */

/* Allocates the response mirroring the request, and the commits; presets per-partition errors. */
static gr_offset_commit_t *commit_prepare(gr_broker_t *b, gr_request_t *req,
                                          const gr_offset_commit_request_t *in,
                                          gr_offset_commit_response_t *resp, int32_t *count)
{
    int32_t total = 0;
    for (int32_t t = 0; t < in->topics_count; t++)
        total += in->topics[t].partitions_count;
    gr_offset_commit_t *commits = gr_request_alloc_array(req, total, sizeof(*commits));
    resp->topics = gr_request_alloc_array(req, in->topics_count, sizeof(*resp->topics));
    if (!commits || !resp->topics)
        return NULL;
    int64_t expire = in->retention_time_ms >= 0 ? gr_broker_now_ms(b) + in->retention_time_ms : -1;
    int32_t n = 0;
    for (int32_t t = 0; t < in->topics_count; t++) {
        const gr_offset_commit_request_offset_commit_request_topic_t *tin = &in->topics[t];
        gr_offset_commit_response_offset_commit_response_topic_t *tout =
            &resp->topics[resp->topics_count++];
        bool known = true;
        gr_str_t name = req->api_version >= GR_OFFSETS_TOPIC_ID_VERSION
                            ? name_of_id(b, tin->topic_id, &known)
                            : tin->name;
        tout->name = name;
        tout->topic_id = tin->topic_id;
        tout->partitions =
            gr_request_alloc_array(req, tin->partitions_count, sizeof(*tout->partitions));
        if (!tout->partitions)
            return NULL;
        bool readable = known && gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ,
                                                  GR_ACL_RESOURCE_TYPE_TOPIC, name);
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            const gr_offset_commit_request_offset_commit_request_partition_t *p =
                &tin->partitions[i];
            gr_offset_commit_response_offset_commit_response_partition_t *pout =
                &tout->partitions[tout->partitions_count++];
            pout->partition_index = p->partition_index;
            if (!known)
                pout->error_code = GR_KERR_UNKNOWN_TOPIC_ID;
            else if (!readable)
                pout->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            else if (!partition_exists(b, name, p->partition_index))
                pout->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
            else if (p->committed_metadata.len > b->config.offset_metadata_max_bytes)
                pout->error_code = GR_KERR_OFFSET_METADATA_TOO_LARGE;
            commits[n++] = (gr_offset_commit_t){.topic = name,
                                                .partition = p->partition_index,
                                                .offset = p->committed_offset,
                                                .leader_epoch = p->committed_leader_epoch,
                                                .metadata = p->committed_metadata,
                                                .expire_timestamp = expire,
                                                .error = &pout->error_code};
        }
    }
    *count = n;
    return commits;
}

/* The group-level outcome of a commit: NONE lets the commit proceed into *group. */
static gr_kerr_t commit_group(gr_broker_t *b, int16_t version, const gr_offset_commit_request_t *in,
                              gr_group_t **group)
{
    int32_t partition;
    gr_kerr_t err = gr_coordinator_check(b->groups, in->group_id, &partition);
    if (err)
        return err;
    gr_group_t *g = gr_coordinator_find(b->groups, in->group_id);
    if (!g) {
        /* Only a commit outside group management may create the group. */
        if (in->generation_id_or_member_epoch >= 0)
            return GR_KERR_ILLEGAL_GENERATION;
        if (!(g = gr_coordinator_get_or_create(b->groups, in->group_id, partition)))
            return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    *group = g;
    err = gr_group_check_commit(g, &b->groups->env, in->member_id, in->group_instance_id,
                                in->generation_id_or_member_epoch);
    /* Kafka: a consumer-protocol member commits with v9+, whose generation is its epoch
     * (a classic member of a consumer group commits with any version). */
    if (!err && g->consumer && in->member_id.len > 0 && version < GR_COMMIT_MEMBER_EPOCH_VERSION &&
        !gr_cgroup_is_classic_member(g->consumer, in->member_id))
        err = GR_KERR_UNSUPPORTED_VERSION;
    return err;
}

/* An OffsetCommit waiting for the ISR to have its batch (Kafka writes them with acks=-1). */
typedef struct commit_op {
    gr_request_t *req;
    gr_offset_commit_response_t resp;
    gr_offset_commit_t *commits;
    int32_t count;
    gr_isr_wait_t isr_wait;
} commit_op_t;

static void commit_respond(void *opaque)
{
    commit_op_t *op = opaque;
    gr_request_respond(op->req, &op->resp);
}

/* Kafka's mapping of a failed replicated write to what a committer understands. */
static void commit_settle(void *opaque, gr_kerr_t err)
{
    commit_op_t *op = opaque;
    gr_kerr_t mapped = err == GR_KERR_NOT_LEADER_OR_FOLLOWER ? GR_KERR_NOT_COORDINATOR
                                                             : GR_KERR_COORDINATOR_NOT_AVAILABLE;
    for (int32_t i = 0; i < op->count; i++)
        if (!*op->commits[i].error)
            *op->commits[i].error = mapped;
}

static void commit_cancel(gr_resp_slot_t *slot, void *arg)
{
    (void)slot;
    commit_op_t *op = arg;
    gr_isr_wait_cancel(&op->isr_wait);
}

/* Answers once the ISR has the commit's batch (at once for a leader alone in its ISR). */
static void commit_answer(gr_broker_t *b, commit_op_t *op, int32_t partition, int64_t end)
{
    gr_partition_t *p = end > 0 ? gr_coordinator_led_partition(b->groups, partition) : NULL;
    if (p && gr_isr_wait_init(&op->isr_wait, b, op->req, 1, b->config.offsets_commit_timeout_ms,
                              commit_respond, op) == 0) {
        gr_isr_wait_add(&op->isr_wait, p, end, p->topic->settings.min_insync_replicas,
                        commit_settle, op);
        if (op->isr_wait.pending > 0) {
            gr_resp_slot_defer(op->req->slot, commit_cancel, op);
            return;
        }
    }
    commit_respond(op);
}

void gr_handle_offset_commit(gr_broker_t *b, gr_request_t *req)
{
    gr_offset_commit_request_t in;
    if (gr_request_decode(req, &in))
        return;
    commit_op_t *op = gr_request_alloc(req, sizeof *op);
    if (!op) {
        gr_request_fail(req, "out of memory");
        return;
    }
    op->req = req;
    gr_offset_commit_response_init(&op->resp);
    op->commits = commit_prepare(b, req, &in, &op->resp, &op->count);
    if (!op->commits) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_group_t *g = NULL;
    int64_t end = 0;
    gr_kerr_t err = GR_KERR_GROUP_AUTHORIZATION_FAILED;
    bool group_ok = gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ,
                                     GR_ACL_RESOURCE_TYPE_GROUP, in.group_id);
    if (group_ok)
        err = commit_group(b, req->api_version, &in, &g);
    if (err) {
        for (int32_t i = 0; i < op->count; i++)
            if (!*op->commits[i].error || !group_ok)
                *op->commits[i].error = err;
    } else {
        gr_coordinator_commit(b->groups, g, op->commits, op->count, &end);
    }
    commit_answer(b, op, g ? g->key.partition : -1, end);
}

/* --- OffsetFetch ------------------------------------------------------------------ */

typedef struct fetched_partition {
    int32_t partition;
    int64_t offset;
    int32_t leader_epoch;
    gr_str_t metadata;
    gr_kerr_t error;
} fetched_partition_t;

typedef struct fetched_topic {
    gr_str_t name;
    gr_uuid_t id; /* v10+ answers */
    fetched_partition_t *partitions;
    int32_t count;
} fetched_topic_t;

static void fetched_fill(gr_group_t *g, gr_str_t topic, int32_t partition, bool require_stable,
                         fetched_partition_t *out)
{
    gr_group_offset_t *o = g ? gr_group_offset_find(g, topic, partition) : NULL;
    *out = (fetched_partition_t){partition, -1, -1, gr_str(""), GR_KERR_NONE};
    if (require_stable && g && gr_group_txn_offset_pending(g, topic, partition)) {
        out->error = GR_KERR_UNSTABLE_OFFSET_COMMIT;
    } else if (o) {
        out->offset = o->offset;
        out->leader_epoch = o->leader_epoch;
        out->metadata = gr_group_offset_metadata(o);
    }
}

/* Every committed partition of g, grouped by topic. */
static fetched_topic_t *fetch_all(gr_request_t *req, gr_group_t *g, bool require_stable,
                                  int32_t *count)
{
    int32_t n = g ? g->offset_count : 0;
    fetched_topic_t *topics = gr_request_alloc_array(req, n, sizeof(*topics));
    if (!topics)
        return NULL;
    int32_t nt = 0;
    for (int32_t i = 0; i < n; i++) {
        gr_str_t name = gr_str(g->offsets[i].topic);
        fetched_topic_t *t = NULL;
        for (int32_t j = 0; j < nt && !t; j++)
            if (gr_str_eq(topics[j].name, name))
                t = &topics[j];
        if (!t) {
            t = &topics[nt++];
            t->name = name;
            if (!(t->partitions = gr_request_alloc_array(req, n, sizeof(*t->partitions))))
                return NULL;
        }
        fetched_fill(g, name, g->offsets[i].partition, require_stable, &t->partitions[t->count++]);
    }
    *count = nt;
    return topics;
}

/*
 * Looks one group's offsets up: the asked partitions (names[i] with
 * parts[i][0..part_counts[i]), or all the committed ones when
 * topic_count < 0.
 */
static fetched_topic_t *fetch_group(gr_request_t *req, gr_group_t *g, bool require_stable,
                                    int32_t topic_count, const gr_str_t *names,
                                    int32_t *const *parts, const int32_t *part_counts,
                                    int32_t *count)
{
    if (topic_count < 0)
        return fetch_all(req, g, require_stable, count);
    fetched_topic_t *topics = gr_request_alloc_array(req, topic_count, sizeof(*topics));
    if (!topics)
        return NULL;
    for (int32_t t = 0; t < topic_count; t++) {
        topics[t].name = names[t];
        topics[t].partitions =
            gr_request_alloc_array(req, part_counts[t], sizeof(*topics[t].partitions));
        if (!topics[t].partitions)
            return NULL;
        for (int32_t i = 0; i < part_counts[t]; i++)
            fetched_fill(g, names[t], parts[t][i], require_stable,
                         &topics[t].partitions[topics[t].count++]);
    }
    *count = topic_count;
    return topics;
}

/* The group's error and, without one, its (possibly NULL: unknown) group. */
static gr_kerr_t fetch_lookup(gr_broker_t *b, gr_request_t *req, gr_str_t id, gr_group_t **g)
{
    *g = NULL;
    if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE, GR_ACL_RESOURCE_TYPE_GROUP,
                          id))
        return GR_KERR_GROUP_AUTHORIZATION_FAILED;
    int32_t partition;
    gr_kerr_t err = gr_coordinator_check(b->groups, id, &partition);
    *g = err ? NULL : gr_coordinator_find(b->groups, id);
    return err;
}

/*
 * Kafka's DESCRIBE check per topic of an OffsetFetch answer: asked for by
 * name, a refused topic's partitions say TOPIC_AUTHORIZATION_FAILED; in the
 * "every topic" form (all), refused topics are left out.
 */
static void authorize_fetched(gr_broker_t *b, gr_request_t *req, bool all, fetched_topic_t *topics,
                              int32_t *count)
{
    int32_t kept = 0;
    for (int32_t t = 0; topics && t < *count; t++) {
        bool ok = gr_authorize_str(b, req->session, GR_ACL_OPERATION_DESCRIBE,
                                   GR_ACL_RESOURCE_TYPE_TOPIC, topics[t].name);
        if (!ok && all)
            continue;
        for (int32_t i = 0; !ok && i < topics[t].count; i++)
            topics[t].partitions[i] =
                (fetched_partition_t){topics[t].partitions[i].partition, -1, -1, gr_str(""),
                                      GR_KERR_TOPIC_AUTHORIZATION_FAILED};
        topics[kept++] = topics[t];
    }
    *count = kept;
}

/* Flattens a request topic list into the arrays fetch_group takes. */
#define FETCH_ARGS(req, topics, n, names, parts, counts)                                           \
    do {                                                                                           \
        names = gr_request_alloc_array(req, n, sizeof(*names));                                    \
        parts = gr_request_alloc_array(req, n, sizeof(*parts));                                    \
        counts = gr_request_alloc_array(req, n, sizeof(*counts));                                  \
        for (int32_t k = 0; names && parts && counts && k < (n); k++) {                            \
            names[k] = (topics)[k].name;                                                           \
            parts[k] = (topics)[k].partition_indexes;                                              \
            counts[k] =                                                                            \
                (topics)[k].partition_indexes_count > 0 ? (topics)[k].partition_indexes_count : 0; \
        }                                                                                          \
    } while (0)

static int fetch_single(gr_broker_t *b, gr_request_t *req, const gr_offset_fetch_request_t *in,
                        gr_offset_fetch_response_t *resp)
{
    gr_group_t *g;
    gr_kerr_t err = fetch_lookup(b, req, in->group_id, &g);
    gr_str_t *names;
    int32_t **parts, *counts, n = 0;
    FETCH_ARGS(req, in->topics, in->topics_count, names, parts, counts);
    if (!names || !parts || !counts)
        return -1;
    fetched_topic_t *topics =
        fetch_group(req, g, in->require_stable, in->topics_null ? -1 : in->topics_count, names,
                    parts, counts, &n);
    authorize_fetched(b, req, in->topics_null, topics, &n);
    resp->topics = gr_request_alloc_array(req, n, sizeof(*resp->topics));
    if (!topics || !resp->topics)
        return -1;
    /* Before v2 there is no top-level error: each partition carries it. */
    if (req->api_version >= GR_OFFSET_FETCH_GROUP_ERROR_VERSION)
        resp->error_code = err;
    for (int32_t t = 0; t < n; t++) {
        gr_offset_fetch_response_offset_fetch_response_topic_t *out = &resp->topics[t];
        out->name = topics[t].name;
        out->partitions = gr_request_alloc_array(req, topics[t].count, sizeof(*out->partitions));
        if (!out->partitions)
            return -1;
        for (int32_t i = 0; i < topics[t].count; i++) {
            const fetched_partition_t *f = &topics[t].partitions[i];
            out->partitions[i] = (gr_offset_fetch_response_offset_fetch_response_partition_t){
                f->partition, f->offset, f->leader_epoch, f->metadata,
                req->api_version < GR_OFFSET_FETCH_GROUP_ERROR_VERSION && err ? err : f->error};
        }
        out->partitions_count = topics[t].count;
    }
    resp->topics_count = n;
    return 0;
}

/*
 * v10+: the asked topics' names from their ids (an unknown id gets an empty
 * name and unknown[k] set). Returns -1 when out of memory.
 */
static int resolve_ids(gr_broker_t *b, gr_request_t *req,
                       const gr_offset_fetch_request_offset_fetch_request_group_t *in,
                       gr_str_t *names, bool **unknown)
{
    *unknown = gr_request_alloc_array(req, in->topics_count, sizeof(**unknown));
    if (!*unknown)
        return -1;
    for (int32_t k = 0; k < in->topics_count; k++) {
        bool known;
        names[k] = name_of_id(b, in->topics[k].topic_id, &known);
        (*unknown)[k] = !known;
    }
    return 0;
}

/*
 * v10+: each answered topic's id: the asked one (its partitions
 * UNKNOWN_TOPIC_ID when unknown), or in the "every topic" form the named
 * topic's, leaving out topics that no longer exist. Updates *count.
 */
static void answer_ids(gr_broker_t *b,
                       const gr_offset_fetch_request_offset_fetch_request_group_t *in,
                       const bool *unknown, fetched_topic_t *topics, int32_t *count)
{
    int32_t kept = 0;
    for (int32_t t = 0; t < *count; t++) {
        if (in->topics_null) {
            topics[t].id = id_of_name(b, topics[t].name);
            if (gr_uuid_is_zero(topics[t].id))
                continue;
        } else {
            topics[t].id = in->topics[t].topic_id;
            for (int32_t i = 0; unknown[t] && i < topics[t].count; i++)
                topics[t].partitions[i] =
                    (fetched_partition_t){topics[t].partitions[i].partition, -1, -1, gr_str(""),
                                          GR_KERR_UNKNOWN_TOPIC_ID};
        }
        topics[kept++] = topics[t];
    }
    *count = kept;
}

static int fetch_one_group(gr_broker_t *b, gr_request_t *req, bool require_stable,
                           const gr_offset_fetch_request_offset_fetch_request_group_t *in,
                           gr_offset_fetch_response_offset_fetch_response_group_t *out)
{
    gr_group_t *g;
    out->group_id = in->group_id;
    out->error_code = fetch_lookup(b, req, in->group_id, &g);
    /* v9+: a consumer-group member reads with its member id and epoch (KIP-848). */
    if (!out->error_code && g && g->consumer)
        out->error_code = gr_cgroup_check_fetch(g->consumer, in->member_id, in->member_epoch);
    if (!out->error_code && g && g->type == GR_GROUP_TYPE_SHARE)
        out->error_code = GR_KERR_GROUP_ID_NOT_FOUND; /* Kafka: no offsets in a share group */
    gr_str_t *names;
    int32_t **parts, *counts, n = 0;
    bool by_id = req->api_version >= GR_OFFSETS_TOPIC_ID_VERSION, *unknown = NULL;
    FETCH_ARGS(req, in->topics, in->topics_count, names, parts, counts);
    if (!names || !parts || !counts || (by_id && resolve_ids(b, req, in, names, &unknown)))
        return -1;
    fetched_topic_t *topics = out->error_code ? gr_request_alloc_array(req, 0, sizeof(*topics))
                                              : fetch_group(req, g, require_stable,
                                                            in->topics_null ? -1 : in->topics_count,
                                                            names, parts, counts, &n);
    authorize_fetched(b, req, in->topics_null, topics, &n);
    if (topics && by_id)
        answer_ids(b, in, unknown, topics, &n);
    out->topics = gr_request_alloc_array(req, n, sizeof(*out->topics));
    if (!topics || !out->topics)
        return -1;
    for (int32_t t = 0; t < n; t++) {
        gr_offset_fetch_response_offset_fetch_response_topics_t *ot = &out->topics[t];
        ot->name = topics[t].name;
        ot->topic_id = topics[t].id;
        ot->partitions = gr_request_alloc_array(req, topics[t].count, sizeof(*ot->partitions));
        if (!ot->partitions)
            return -1;
        for (int32_t i = 0; i < topics[t].count; i++) {
            const fetched_partition_t *f = &topics[t].partitions[i];
            ot->partitions[i] = (gr_offset_fetch_response_offset_fetch_response_partitions_t){
                f->partition, f->offset, f->leader_epoch, f->metadata, f->error};
        }
        ot->partitions_count = topics[t].count;
    }
    out->topics_count = n;
    return 0;
}

void gr_handle_offset_fetch(gr_broker_t *b, gr_request_t *req)
{
    gr_offset_fetch_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_offset_fetch_response_t resp;
    gr_offset_fetch_response_init(&resp);
    int rc = 0;
    if (req->api_version < GR_OFFSET_FETCH_BATCH_VERSION) {
        rc = fetch_single(b, req, &in, &resp);
    } else {
        resp.groups = gr_request_alloc_array(req, in.groups_count, sizeof(*resp.groups));
        rc = resp.groups ? 0 : -1;
        for (int32_t i = 0; !rc && i < in.groups_count; i++)
            rc = fetch_one_group(b, req, in.require_stable, &in.groups[i],
                                 &resp.groups[resp.groups_count++]);
    }
    if (rc) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_request_respond(req, &resp);
}

/* --- OffsetDelete ------------------------------------------------------------------ */

/* The group-level error; NONE when partitions may be looked at one by one. */
static gr_kerr_t delete_group_check(gr_broker_t *b, gr_str_t id, gr_group_t **g)
{
    int32_t partition;
    gr_kerr_t err = gr_coordinator_check(b->groups, id, &partition);
    if (err)
        return err;
    *g = gr_coordinator_find(b->groups, id);
    if (!*g || (*g)->state == GR_GROUP_DEAD || (*g)->type == GR_GROUP_TYPE_SHARE)
        return GR_KERR_GROUP_ID_NOT_FOUND;
    /* A group with members may lose offsets of topics it does not consume,
     * but only if it is a consumer group whose subscriptions we can read:
     * a classic one of protocol type consumer, or a KIP-848 one (whose
     * subscriptions the coordinator holds: Kafka checks nothing more). */
    if ((*g)->state != GR_GROUP_EMPTY && (*g)->type == GR_GROUP_TYPE_CLASSIC &&
        (!(*g)->protocol_type || strcmp((*g)->protocol_type, "consumer") != 0))
        return GR_KERR_NON_EMPTY_GROUP;
    return GR_KERR_NONE;
}

void gr_handle_offset_delete(gr_broker_t *b, gr_request_t *req)
{
    gr_offset_delete_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_offset_delete_response_t resp;
    gr_offset_delete_response_init(&resp);
    gr_group_t *g = NULL;
    resp.error_code = gr_authorize_str(b, req->session, GR_ACL_OPERATION_DELETE,
                                       GR_ACL_RESOURCE_TYPE_GROUP, in.group_id)
                          ? delete_group_check(b, in.group_id, &g)
                          : GR_KERR_GROUP_AUTHORIZATION_FAILED;
    int32_t n = resp.error_code ? 0 : in.topics_count;
    resp.topics = gr_request_alloc_array(req, n, sizeof(*resp.topics));
    if (!resp.topics) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (int32_t t = 0; t < n; t++) {
        const gr_offset_delete_request_offset_delete_request_topic_t *tin = &in.topics[t];
        gr_offset_delete_response_offset_delete_response_topic_t *tout = &resp.topics[t];
        tout->name = tin->name;
        tout->partitions =
            gr_request_alloc_array(req, tin->partitions_count, sizeof(*tout->partitions));
        if (!tout->partitions) {
            gr_request_fail(req, "out of memory");
            return;
        }
        bool subscribed = gr_group_listing_subscribed(g, tin->name);
        bool readable = gr_authorize_str(b, req->session, GR_ACL_OPERATION_READ,
                                         GR_ACL_RESOURCE_TYPE_TOPIC, tin->name);
        for (int32_t i = 0; i < tin->partitions_count; i++) {
            int32_t p = tin->partitions[i].partition_index;
            gr_kerr_t err = GR_KERR_NONE;
            if (!readable)
                err = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            else if (!partition_exists(b, tin->name, p))
                err = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
            else if (subscribed)
                err = GR_KERR_GROUP_SUBSCRIBED_TO_TOPIC;
            else if (!(err = gr_coordinator_delete_offsets(b->groups, g, &tin->name, &p, 1)))
                gr_group_txn_offset_drop(g, tin->name, p);
            tout->partitions[tout->partitions_count++] =
                (gr_offset_delete_response_offset_delete_response_partition_t){p, err};
        }
    }
    resp.topics_count = n;
    gr_request_respond(req, &resp);
}
