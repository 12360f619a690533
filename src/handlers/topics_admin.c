/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CreateTopics (v0-7) and DeleteTopics (v0-6), the controller's requests
 * (NOT_CONTROLLER on other brokers; a single broker is its own controller).
 * A creation or deletion is written to the metadata store for the
 * controller to carry out, and the response waits until this broker's
 * metadata shows it done, or timeout_ms (REQUEST_TIMED_OUT).
 *
 * CreateTopics, per topic, checks in Kafka's order and reports the first
 * failure (with a message from v1 on):
 *   a name asked twice in one request    INVALID_REQUEST (every copy)
 *   the topic exists                      TOPIC_ALREADY_EXISTS
 *   a config with a null value            INVALID_CONFIG
 *   assignments with num_partitions or
 *     replication_factor not -1           INVALID_REQUEST
 *   partitions < 1 (-1: num.partitions)   INVALID_PARTITIONS
 *   replication factor < 1 or above the live
 *     brokers (-1: default.replication.factor)  INVALID_REPLICATION_FACTOR
 *   bad name, or colliding with an existing topic once '.' and '_' are
 *     treated alike                       INVALID_TOPIC_EXCEPTION
 *   assignments not numbering partitions 0..n-1, naming a broker that is
 *     not live, a broker twice in a partition, or partitions with
 *     different replica counts            INVALID_REPLICA_ASSIGNMENT
 *   only some live brokers with broker.rack (Kafka's AdminOperationException)
 *                                         UNKNOWN_SERVER_ERROR
 *   unknown key or bad value              INVALID_CONFIG
 * Without assignments the replicas are placed as Kafka's AdminUtils places
 * them (controller/replica_assignment.h), rack-aware when every live broker
 * has a rack.
 * validate_only (v1+) stops there. From v5 a created (or validated) topic
 * reports its partition count, replication factor and every topic config
 * with its value and source, as DescribeConfigs would (overrides
 * DYNAMIC_TOPIC_CONFIG, the rest from the broker or the default).
 *
 * DeleteTopics takes names (v0-5 topic_names, v6 topics[].name) or topic ids
 * (v6 topics[].topic_id). delete.topic.enable=false answers every topic
 * TOPIC_DELETION_DISABLED (INVALID_REQUEST before v3); an entry with both a
 * name and an id makes the request INVALID_REQUEST for every topic; unknown
 * names are UNKNOWN_TOPIC_OR_PARTITION, unknown ids UNKNOWN_TOPIC_ID. A topic
 * named twice is deleted once and reported twice. Once a topic is deleted the
 * groups forget its committed offsets, as Kafka's coordinator does when its
 * metadata drops the topic (on the controller's UpdateMetadata).
 *
 * Runs on: loop thread.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "controller/zk_member.h"
#include "security/authorizer.h"
#include "handlers/request.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"
#include "metadata/topics_cluster.h"
#include "metadata/topic_config.h"
#include "gen/create_topics.h"
#include "gen/delete_topics.h"
#include "replica/replica.h"
#include "controller/zk_admin.h"
#include "handlers/admin_wait.h"
#include "handlers/handlers.h"

#define GR_NO_NUM_PARTITIONS                    (-1)
#define GR_NO_REPLICATION_FACTOR                (-1)
#define GR_DELETE_TOPICS_DISABLED_ERROR_VERSION 3 /* TOPIC_DELETION_DISABLED from v3 */
#define GR_ADMIN_MESSAGE_MAX                    512

/* Copies msg into the request's arena as a response string (null if out of memory). */
static gr_str_t message_str(gr_request_t *req, const char *msg)
{
    char *copy = gr_arena_strndup(req->arena, msg, strlen(msg));
    gr_str_t s = {copy, copy ? (int32_t)strlen(copy) : GR_NULL_LEN};
    return s;
}

/* An index into a request array, sorted by a key to find repeats. */
typedef struct keyed {
    gr_str_t name;
    uintptr_t ptr;
    size_t index;
} keyed_t;

static int keyed_name_cmp(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    if (x->name.len != y->name.len)
        return x->name.len < y->name.len ? -1 : 1;
    return x->name.len > 0 ? memcmp(x->name.ptr, y->name.ptr, (size_t)x->name.len) : 0;
}

static int keyed_ptr_cmp(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    return (x->ptr > y->ptr) - (x->ptr < y->ptr);
}

/* Sorts keys by cmp and, if dup is not NULL, marks dup[index] of every repeated key. */
static void mark_repeats(keyed_t *keys, size_t n, int (*cmp)(const void *, const void *), bool *dup)
{
    qsort(keys, n, sizeof(*keys), cmp);
    for (size_t i = 1; dup && i < n; i++) {
        if (cmp(&keys[i - 1], &keys[i]) == 0) {
            dup[keys[i - 1].index] = true;
            dup[keys[i].index] = true;
        }
    }
}

/* ---- CreateTopics ---- */

/* Brokers a topic can be placed on: the live ones the controller knows. */
static int32_t broker_count(const gr_broker_t *b)
{
    return (int32_t)gr_zk_admin_live_brokers(b, NULL, 0);
}

static bool broker_live(const gr_broker_t *b, int32_t id)
{
    return gr_cluster_view_node(b->cluster, id) != NULL;
}

typedef struct collision {
    const char *name;
    const char *found; /* out: an existing topic colliding with name */
} collision_t;

static bool same_but_dots(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '.' ? '_' : *a, y = *b == '.' ? '_' : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

static void find_collision(gr_topic_t *topic, void *arg)
{
    collision_t *c = arg;
    if (!c->found && strcmp(topic->name, c->name) != 0 && same_but_dots(topic->name, c->name))
        c->found = topic->name;
}

/* Names the configs with null values into msg; returns how many. */
static int null_configs(const gr_create_topics_request_creatable_topic_t *want, char *msg,
                        size_t len)
{
    int n = 0;
    size_t used = (size_t)snprintf(msg, len, "Null value not supported for topic configs: ");
    for (int32_t i = 0; i < want->configs_count; i++) {
        const gr_str_t *key = &want->configs[i].name;
        if (want->configs[i].value.len != GR_NULL_LEN)
            continue;
        if (used < len)
            used += (size_t)snprintf(msg + used, len - used, "%s%.*s", n ? "," : "",
                                     key->len > 0 ? key->len : 0, key->ptr ? key->ptr : "");
        n++;
    }
    return n;
}

/* Whether broker_ids[0..r) holds broker_ids[r] already. */
static bool listed_before(const int32_t *broker_ids, int32_t r)
{
    for (int32_t i = 0; i < r; i++)
        if (broker_ids[i] == broker_ids[r])
            return true;
    return false;
}

/*
 * Checks manual assignments: partitions 0..n-1 once each, each with the
 * same number of distinct live brokers.
 */
static gr_kerr_t check_assignments(gr_broker_t *b, gr_request_t *req,
                                   const gr_create_topics_request_creatable_topic_t *want,
                                   char *msg, size_t len)
{
    int32_t n = want->assignments_count;
    bool *seen = gr_request_alloc(req, (size_t)n);
    if (!seen) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    for (int32_t i = 0; i < n; i++) {
        const gr_create_topics_request_creatable_replica_assignment_t *a = &want->assignments[i];
        if (a->partition_index < 0 || a->partition_index >= n || seen[a->partition_index]) {
            snprintf(msg, len, "partitions should be a consecutive 0-based integer sequence");
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
        }
        seen[a->partition_index] = true;
        if (a->broker_ids_count <= 0) {
            snprintf(msg, len, "Partition %d has an empty replica list", a->partition_index);
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
        }
        if (a->broker_ids_count != want->assignments[0].broker_ids_count) {
            snprintf(msg, len, "All partitions should have the same number of replicas");
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
        }
        for (int32_t r = 0; r < a->broker_ids_count; r++) {
            if (!broker_live(b, a->broker_ids[r])) {
                snprintf(msg, len, "Unknown broker(s) in replica assignment: %d.",
                         a->broker_ids[r]);
                return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
            }
            if (listed_before(a->broker_ids, r)) {
                snprintf(msg, len, "Duplicate replica assignment found for partition %d: broker %d",
                         a->partition_index, a->broker_ids[r]);
                return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
            }
        }
    }
    return GR_KERR_NONE;
}

/*
 * Runs every check of the file comment but the duplicate one, and copies the
 * configs into NUL-terminated strings in the request's arena.
 * Returns GR_KERR_NONE with *out_partitions, *out_factor and configs
 * filled, or an error with msg filled.
 */
static gr_kerr_t check_create(gr_broker_t *b, gr_request_t *req,
                              const gr_create_topics_request_creatable_topic_t *want,
                              const char *name, int32_t *out_partitions, int32_t *out_factor,
                              gr_topic_config_t *configs, char *msg, size_t len)
{
    if (gr_topics_find(b->topics, want->name.ptr, (size_t)want->name.len)) {
        snprintf(msg, len, "Topic '%s' already exists.", name);
        return GR_KERR_TOPIC_ALREADY_EXISTS;
    }
    if (null_configs(want, msg, len) > 0)
        return GR_KERR_INVALID_CONFIG;
    bool manual = want->assignments_count > 0;
    if (manual && (want->num_partitions != GR_NO_NUM_PARTITIONS ||
                   want->replication_factor != GR_NO_REPLICATION_FACTOR)) {
        snprintf(msg, len,
                 "Both numPartitions or replicationFactor and replicasAssignments were set. "
                 "Both cannot be used at the same time.");
        return GR_KERR_INVALID_REQUEST;
    }
    int32_t partitions = want->num_partitions == GR_NO_NUM_PARTITIONS ? b->config.num_partitions
                                                                      : want->num_partitions;
    int32_t factor = want->replication_factor == GR_NO_REPLICATION_FACTOR
                         ? b->config.default_replication_factor
                         : want->replication_factor;
    if (manual) {
        partitions = want->assignments_count;
        factor = want->assignments[0].broker_ids_count; /* every partition's, checked below */
    }
    if (partitions <= 0) {
        snprintf(msg, len, "Number of partitions must be larger than 0.");
        return GR_KERR_INVALID_PARTITIONS;
    }
    if (!manual && factor <= 0) {
        snprintf(msg, len, "Replication factor must be larger than 0.");
        return GR_KERR_INVALID_REPLICATION_FACTOR;
    }
    if (!manual && factor > broker_count(b)) {
        snprintf(msg, len, "Replication factor: %d larger than available brokers: %d.", factor,
                 broker_count(b));
        return GR_KERR_INVALID_REPLICATION_FACTOR;
    }
    if (gr_topic_name_check(want->name.ptr, (size_t)want->name.len)) {
        snprintf(msg, len,
                 "Topic name \"%s\" is illegal: it must be 1 to %d characters of ASCII "
                 "alphanumerics, '.', '_' and '-', and not \".\" or \"..\"",
                 name, GR_TOPIC_NAME_LIMIT);
        return GR_KERR_INVALID_TOPIC_EXCEPTION;
    }
    if (strpbrk(name, "._")) {
        collision_t c = {name, NULL};
        gr_topics_foreach(b->topics, find_collision, &c);
        if (c.found) {
            snprintf(msg, len, "Topic '%s' collides with existing topic: %s", name, c.found);
            return GR_KERR_INVALID_TOPIC_EXCEPTION;
        }
    }
    gr_kerr_t err = manual ? check_assignments(b, req, want, msg, len)
                           : gr_zk_admin_place_check(b, factor, GR_RACK_MODE_ENFORCED, msg, len);
    if (err)
        return err;
    if (want->configs_count > GR_TOPIC_MAX_CONFIGS) {
        snprintf(msg, len, "At most %d topic configs can be set", GR_TOPIC_MAX_CONFIGS);
        return GR_KERR_INVALID_CONFIG;
    }
    for (int32_t i = 0; i < want->configs_count; i++) {
        const gr_create_topics_request_createable_topic_config_t *c = &want->configs[i];
        configs[i].key = gr_arena_strndup(req->arena, c->name.ptr ? c->name.ptr : "",
                                          (size_t)(c->name.len > 0 ? c->name.len : 0));
        configs[i].value =
            gr_arena_strndup(req->arena, c->value.ptr ? c->value.ptr : "", (size_t)c->value.len);
        if (!configs[i].key || !configs[i].value) {
            snprintf(msg, len, "Out of memory");
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        }
        err = gr_topic_config_check(configs[i].key, configs[i].value, msg, len);
        if (err)
            return err;
    }
    *out_partitions = partitions;
    *out_factor = factor;
    return GR_KERR_NONE;
}

/*
 * Lists every topic config in out (v5+) as DescribeConfigs would describe it
 * for a topic with these overrides (count of them), as Kafka does.
 */
static void fill_configs(gr_broker_t *b, gr_request_t *req, const gr_topic_config_t *configs,
                         int count, gr_create_topics_response_creatable_topic_result_t *out)
{
    gr_topic_t *view = gr_request_alloc(req, sizeof(*view));
    size_t n = gr_topic_config_def_count();
    out->configs = gr_request_alloc_array(req, (int64_t)n, sizeof(*out->configs));
    if (!view || !out->configs || count > GR_TOPIC_MAX_CONFIGS) {
        out->topic_config_error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        out->configs = NULL;
        return;
    }
    if (count > 0)
        memcpy(view->configs, configs, (size_t)count * sizeof(*configs));
    view->config_count = count;
    for (size_t i = 0; i < n; i++) {
        const gr_topic_config_def_t *def = gr_topic_config_def_at(i);
        gr_config_described_t d;
        gr_topic_config_describe(b, view, def, &d);
        gr_create_topics_response_creatable_topic_configs_t *c = &out->configs[i];
        gr_create_topics_response_creatable_topic_configs_init(c);
        c->name = gr_str(def->name);
        c->value = message_str(req, d.value);
        c->read_only = false;
        c->config_source = d.source;
        c->is_sensitive = false;
    }
    out->configs_count = (int32_t)n;
}

/* A topic being created in cluster mode: its result is final once its leaders are known. */
typedef struct create_state {
    gr_create_topics_response_creatable_topic_result_t *out;
    const char *name;
    int32_t partitions;
    int32_t factor;
    bool waiting; /* written to ZooKeeper; waiting for its leaders */
} create_state_t;

typedef struct cluster_create {
    gr_create_topics_response_t *resp;
    create_state_t *states;
    int32_t count;
    int32_t timeout_ms;
} cluster_create_t;

typedef struct zk_write {
    gr_admin_wait_t *wait;
    create_state_t *state; /* in the request's arena: only while the request lives */
} zk_write_t;

static void on_topic_written(void *opaque, gr_kerr_t err)
{
    zk_write_t *zw = opaque;
    if (gr_admin_wait_request(zw->wait) && err) {
        zw->state->waiting = false;
        zw->state->out->error_code = err;
    }
    gr_admin_wait_release(zw->wait);
    free(zw);
}

static gr_kerr_t cluster_create(gr_broker_t *b, gr_request_t *req, gr_admin_wait_t *w,
                                create_state_t *st,
                                const gr_create_topics_request_creatable_topic_t *want,
                                const gr_topic_config_t *configs, int config_count, char *msg,
                                size_t len)
{
    size_t factor = (size_t)st->factor;
    int32_t *replicas =
        gr_request_alloc_array(req, (size_t)st->partitions * factor, sizeof *replicas);
    if (!replicas)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (int32_t i = 0; i < want->assignments_count; i++) {
        const gr_create_topics_request_creatable_replica_assignment_t *a = &want->assignments[i];
        memcpy(&replicas[(size_t)a->partition_index * factor], a->broker_ids,
               factor * sizeof *replicas);
    }
    if (want->assignments_count == 0) {
        gr_kerr_t err = gr_zk_admin_place(b, st->partitions, st->factor, GR_RACK_MODE_ENFORCED,
                                          NULL, replicas, msg, len);
        if (err)
            return err;
    }
    zk_write_t *zw = calloc(1, sizeof *zw);
    if (!zw)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    zw->wait = w;
    zw->state = st;
    gr_admin_wait_hold(w);
    if (gr_zk_admin_create_topic(b, st->name, st->partitions, st->factor, replicas, configs,
                                 config_count, on_topic_written, zw) != 0) {
        gr_admin_wait_release(w);
        free(zw);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    st->waiting = true;
    return GR_KERR_NONE;
}

static void create_topic(gr_broker_t *b, gr_request_t *req, bool validate_only,
                         const gr_create_topics_request_creatable_topic_t *want,
                         gr_create_topics_response_creatable_topic_result_t *out,
                         gr_admin_wait_t *w, create_state_t *st)
{
    char msg[GR_ADMIN_MESSAGE_MAX] = "";
    int16_t version = req->api_version;
    int32_t partitions = 0, factor = 0;
    gr_topic_config_t *configs = NULL;
    int config_count = want->configs_count;
    gr_kerr_t err = GR_KERR_NONE;
    char *name = gr_arena_strndup(req->arena, want->name.ptr ? want->name.ptr : "",
                                  (size_t)(want->name.len > 0 ? want->name.len : 0));
    if (config_count > 0)
        configs = gr_request_alloc(req, (size_t)config_count * sizeof(*configs));
    if (!name || (config_count > 0 && !configs)) {
        snprintf(msg, sizeof msg, "Out of memory");
        err = GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (!err)
        err = check_create(b, req, want, name, &partitions, &factor, configs, msg, sizeof msg);
    if (!err && !validate_only) {
        st->name = name;
        st->partitions = partitions;
        st->factor = factor;
        err = cluster_create(b, req, w, st, want, configs, config_count, msg, sizeof msg);
    }
    if (err) {
        out->error_code = err;
        if (version >= 1)
            out->error_message = message_str(req, msg);
        return;
    }
    out->error_message.len = GR_NULL_LEN;
    out->num_partitions = partitions;
    out->replication_factor = (int16_t)factor;
    if (version >= 5)
        fill_configs(b, req, configs, config_count, out);
}

static bool created_topics_led(gr_request_t *req, void *arg)
{
    cluster_create_t *cc = arg;
    for (int32_t i = 0; i < cc->count; i++)
        if (cc->states[i].waiting &&
            !gr_topic_led(req->broker, cc->states[i].name, cc->states[i].partitions))
            return false;
    return true;
}

static void finish_create(gr_request_t *req, void *arg, bool timed_out)
{
    cluster_create_t *cc = arg;
    for (int32_t i = 0; i < cc->count; i++) {
        create_state_t *st = &cc->states[i];
        if (!st->waiting)
            continue;
        gr_topic_t *topic = gr_topics_find(req->broker->topics, st->name, strlen(st->name));
        if (topic)
            st->out->topic_id = topic->id;
        if (timed_out && cc->timeout_ms > 0 && !gr_topic_led(req->broker, st->name, st->partitions))
            st->out->error_code = GR_KERR_REQUEST_TIMED_OUT;
    }
    gr_request_respond(req, cc->resp);
}

/* Only the controller creates topics (clients retry elsewhere on NOT_CONTROLLER). */
static bool refuse_not_controller(gr_broker_t *b, gr_request_t *req, int32_t count,
                                  gr_create_topics_response_t *resp,
                                  const gr_create_topics_request_t *in)
{
    if (gr_zk_member_is_controller(b))
        return false;
    for (int32_t i = 0; i < count; i++) {
        gr_create_topics_response_creatable_topic_result_init(&resp->topics[i]);
        resp->topics[i].name = in->topics[i].name;
        resp->topics[i].error_code = GR_KERR_NOT_CONTROLLER;
        if (req->api_version >= 1)
            resp->topics[i].error_message =
                gr_str("This is not the correct controller for this cluster.");
    }
    resp->topics_count = count;
    gr_request_respond(req, resp);
    return true;
}

void gr_handle_create_topics(gr_broker_t *b, gr_request_t *req)
{
    gr_create_topics_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_create_topics_response_t *respp = gr_request_alloc(req, sizeof *respp);
    if (!respp) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_create_topics_response_t resp;
    gr_create_topics_response_init(&resp);
    size_t n = in.topics_count;
    resp.topics = gr_request_alloc_array(req, n, sizeof(*resp.topics));
    bool *dup = gr_request_alloc_array(req, n, sizeof(bool));
    keyed_t *keys = gr_request_alloc_array(req, n, sizeof(*keys));
    if (!resp.topics || !dup || !keys) {
        gr_request_fail(req, "out of memory");
        return;
    }
    if (refuse_not_controller(b, req, (int32_t)n, &resp, &in))
        return;
    cluster_create_t *cc = gr_request_alloc(req, sizeof *cc);
    create_state_t *states = gr_request_alloc_array(req, n, sizeof *states);
    gr_admin_wait_t *w = NULL;
    if (!cc || !states ||
        !(w = gr_admin_wait_new(req, in.timeout_ms, created_topics_led, finish_create, cc))) {
        gr_request_fail(req, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = (keyed_t){in.topics[i].name, 0, i};
    mark_repeats(keys, n, keyed_name_cmp, dup);
    resp.topics_count = (int32_t)n;
    /* Kafka: CREATE on the cluster covers every topic, else CREATE on each. */
    bool cluster_create =
        gr_authorize_quiet(b, req->session, GR_ACL_OPERATION_CREATE, GR_ACL_RESOURCE_TYPE_CLUSTER,
                           GR_ACL_CLUSTER_NAME, strlen(GR_ACL_CLUSTER_NAME));
    for (size_t i = 0; i < n; i++) {
        gr_create_topics_response_creatable_topic_result_t *out = &resp.topics[i];
        gr_create_topics_response_creatable_topic_result_init(out);
        out->name = in.topics[i].name;
        if (dup[i]) {
            out->error_code = GR_KERR_INVALID_REQUEST;
            if (req->api_version >= 1)
                out->error_message = gr_str("Found multiple entries for this topic.");
            continue;
        }
        if (!cluster_create && !gr_authorize_str(b, req->session, GR_ACL_OPERATION_CREATE,
                                                 GR_ACL_RESOURCE_TYPE_TOPIC, in.topics[i].name)) {
            out->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            out->error_message = gr_str("Authorization failed.");
            continue;
        }
        states[i].out = out;
        create_topic(b, req, req->api_version >= 1 && in.validate_only, &in.topics[i], out, w,
                     &states[i]);
    }
    *respp = resp;
    *cc = (cluster_create_t){respp, states, (int32_t)n, in.timeout_ms};
    gr_admin_wait_release(w);
}

/* ---- DeleteTopics ---- */

/* The v6 list, or the v0-5 names seen as one. */
static gr_delete_topics_request_delete_topic_state_t *
delete_targets(gr_request_t *req, gr_delete_topics_request_t *in, size_t *count)
{
    if (req->api_version >= 6) {
        *count = in->topics_count;
        return in->topics;
    }
    size_t n = in->topic_names_count;
    gr_delete_topics_request_delete_topic_state_t *all =
        gr_request_alloc_array(req, n, sizeof(*all));
    if (all)
        for (size_t i = 0; i < n; i++)
            all[i].name = in->topic_names[i];
    *count = n;
    return all;
}

static void delete_error(gr_request_t *req, gr_delete_topics_response_deletable_topic_result_t *out,
                         gr_kerr_t err, const char *msg)
{
    out->error_code = err;
    if (req->api_version >= 5)
        out->error_message = message_str(req, msg);
}

typedef struct cluster_delete {
    gr_delete_topics_response_t resp;
    bool *waiting; /* per response entry: deletion queued, topic still known here */
    int32_t timeout_ms;
} cluster_delete_t;

typedef struct zk_delete {
    gr_admin_wait_t *wait;
    cluster_delete_t *cd;
    size_t index;
} zk_delete_t;

static void on_delete_queued(void *opaque, gr_kerr_t err)
{
    zk_delete_t *zd = opaque;
    if (gr_admin_wait_request(zd->wait) && err) {
        zd->cd->waiting[zd->index] = false;
        zd->cd->resp.responses[zd->index].error_code = err;
    }
    gr_admin_wait_release(zd->wait);
    free(zd);
}

static bool deleted_topics_gone(gr_request_t *req, void *arg)
{
    cluster_delete_t *cd = arg;
    for (int32_t i = 0; i < cd->resp.responses_count; i++) {
        gr_str_t name = cd->resp.responses[i].name;
        if (cd->waiting[i] && gr_topics_find(req->broker->topics, name.ptr, (size_t)name.len))
            return false;
    }
    return true;
}

static void finish_delete(gr_request_t *req, void *arg, bool timed_out)
{
    cluster_delete_t *cd = arg;
    for (int32_t i = 0; timed_out && cd->timeout_ms > 0 && i < cd->resp.responses_count; i++) {
        gr_str_t name = cd->resp.responses[i].name;
        if (cd->waiting[i] && gr_topics_find(req->broker->topics, name.ptr, (size_t)name.len))
            cd->resp.responses[i].error_code = GR_KERR_REQUEST_TIMED_OUT;
    }
    gr_request_respond(req, &cd->resp);
}

/* Queues the deletion in the metadata store; the controller does it. */
static gr_kerr_t cluster_delete(gr_broker_t *b, gr_admin_wait_t *w, cluster_delete_t *cd,
                                size_t index)
{
    zk_delete_t *zd = calloc(1, sizeof *zd);
    if (!zd)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    *zd = (zk_delete_t){w, cd, index};
    gr_str_t name = cd->resp.responses[index].name;
    char cname[GR_TOPIC_NAME_LIMIT + 1];
    snprintf(cname, sizeof cname, "%.*s", name.len, name.ptr);
    gr_admin_wait_hold(w);
    if (gr_zk_admin_delete_topic(b, cname, on_delete_queued, zd) != 0) {
        gr_admin_wait_release(w);
        free(zd);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    cd->waiting[index] = true;
    return GR_KERR_NONE;
}

void gr_handle_delete_topics(gr_broker_t *b, gr_request_t *req)
{
    gr_delete_topics_request_t in;
    if (gr_request_decode(req, &in))
        return;
    cluster_delete_t *cd = gr_request_alloc(req, sizeof *cd);
    if (!cd) {
        gr_request_fail(req, "out of memory");
        return;
    }
    gr_delete_topics_response_t resp;
    gr_delete_topics_response_init(&resp);
    size_t n = 0;
    gr_delete_topics_request_delete_topic_state_t *targets = delete_targets(req, &in, &n);
    resp.responses = gr_request_alloc_array(req, n, sizeof(*resp.responses));
    gr_topic_t **found = gr_request_alloc_array(req, n, sizeof(*found));
    keyed_t *keys = gr_request_alloc_array(req, n, sizeof(*keys));
    if (!targets || !resp.responses || !found || !keys) {
        gr_request_fail(req, "out of memory");
        return;
    }
    bool not_controller = !gr_zk_member_is_controller(b);
    gr_admin_wait_t *w = NULL;
    cd->waiting = gr_request_alloc_array(req, n, sizeof(bool));
    cd->timeout_ms = in.timeout_ms;
    if (!cd->waiting ||
        (!not_controller &&
         !(w = gr_admin_wait_new(req, in.timeout_ms, deleted_topics_gone, finish_delete, cd)))) {
        gr_request_fail(req, "out of memory");
        return;
    }
    bool both = false;
    for (size_t i = 0; i < n; i++)
        both |= targets[i].name.len != GR_NULL_LEN && !gr_uuid_is_zero(targets[i].topic_id);
    resp.responses_count = (int32_t)n;
    size_t keyed = 0;
    for (size_t i = 0; i < n; i++) {
        const gr_delete_topics_request_delete_topic_state_t *want = &targets[i];
        gr_delete_topics_response_deletable_topic_result_t *out = &resp.responses[i];
        gr_delete_topics_response_deletable_topic_result_init(out);
        out->name = want->name;
        if (req->api_version >= 6)
            out->topic_id = want->topic_id;
        if (not_controller) {
            delete_error(req, out, GR_KERR_NOT_CONTROLLER,
                         "This is not the correct controller for this cluster.");
        } else if (both) {
            delete_error(req, out, GR_KERR_INVALID_REQUEST,
                         "Topic name and topic ID can not both be specified.");
        } else if (!b->config.delete_topic_enable) {
            delete_error(req, out,
                         req->api_version < GR_DELETE_TOPICS_DISABLED_ERROR_VERSION
                             ? GR_KERR_INVALID_REQUEST
                             : GR_KERR_TOPIC_DELETION_DISABLED,
                         "Topic deletion is disabled.");
        } else if (want->name.len == GR_NULL_LEN) {
            found[i] = gr_topics_find_id(b->topics, want->topic_id);
            if (!found[i])
                delete_error(req, out, GR_KERR_UNKNOWN_TOPIC_ID,
                             "This server does not host this topic ID.");
            else if (!gr_authorize(b, req->session, GR_ACL_OPERATION_DELETE,
                                   GR_ACL_RESOURCE_TYPE_TOPIC, found[i]->name,
                                   strlen(found[i]->name))) {
                found[i] = NULL;
                delete_error(req, out, GR_KERR_TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
            }
        } else if (!gr_authorize_str(b, req->session, GR_ACL_OPERATION_DELETE,
                                     GR_ACL_RESOURCE_TYPE_TOPIC, want->name)) {
            delete_error(req, out, GR_KERR_TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
        } else {
            found[i] = want->name.len > 0
                           ? gr_topics_find(b->topics, want->name.ptr, (size_t)want->name.len)
                           : NULL;
            if (!found[i])
                delete_error(req, out, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION,
                             "This server does not host this topic-partition.");
        }
        if (found[i]) {
            /* The topic's own strings die with it: copy them first. */
            out->name = message_str(req, found[i]->name);
            if (req->api_version >= 6)
                out->topic_id = found[i]->id;
            keys[keyed++] = (keyed_t){{NULL, 0}, (uintptr_t)found[i], i};
        }
    }
    mark_repeats(keys, keyed, keyed_ptr_cmp, NULL);
    for (size_t k = 0; k < keyed; k++) {
        /* keys are sorted by topic: delete each on its first entry only. */
        if (k > 0 && keys[k].ptr == keys[k - 1].ptr)
            continue;
        size_t i = keys[k].index;
        cd->resp = resp;
        gr_kerr_t err = cluster_delete(b, w, cd, i);
        if (err) {
            for (size_t j = k; j < keyed && keys[j].ptr == keys[k].ptr; j++)
                delete_error(req, &resp.responses[keys[j].index], err,
                             "Deleting the topic failed.");
        }
    }
    cd->resp = resp;
    if (w)
        gr_admin_wait_release(w);
    else
        gr_request_respond(req, &resp);
}
