/* SPDX-License-Identifier: Apache-2.0 */
#include "metadata/zk_docs.h"

#include "metadata/store.h"
#include "metadata/cluster_view.h"
#include "metadata/topics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BROKER_JSON_VERSION          5
#define CONTROLLER_JSON_VERSION      1
#define PARTITION_STATE_JSON_VERSION 1
#define ASSIGNMENT_JSON_VERSION      3
#define CONFIG_CHANGE_JSON_VERSION   2
#define TOPIC_CONFIG_JSON_VERSION    1
#define MOVES_JSON_VERSION           1
#define NO_JMX_PORT                  (-1)
#define CONFIG_CHANGE_TOPICS         "topics"

static int writer_error(gr_zk_json_writer_t *w)
{
    return w->err;
}

static void timestamp(gr_zk_json_writer_t *w, int64_t now_ms)
{
    char ts[32];
    snprintf(ts, sizeof ts, "%" PRId64, now_ms);
    gr_zk_json_key(w, "timestamp");
    gr_zk_json_string(w, ts);
}

/* "NAME://host:port", or "NAME://[v6]:port". */
static void format_endpoint(char *out, size_t size, const gr_listener_spec_t *e)
{
    const char *fmt = strchr(e->host, ':') ? "%s://[%s]:%d" : "%s://%s:%d";
    snprintf(out, size, fmt, e->name, e->host, e->port);
}

int gr_zk_doc_broker(gr_zk_json_writer_t *w, const gr_cluster_node_t *node, int64_t now_ms)
{
    char endpoint[GR_LISTENER_NAME_MAX + GR_LISTENER_HOST_MAX + 16];
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "features");
    gr_zk_json_object_begin(w);
    gr_zk_json_object_end(w);
    gr_zk_json_key(w, "listener_security_protocol_map");
    gr_zk_json_object_begin(w);
    for (int32_t i = 0; i < node->endpoint_count; i++) {
        gr_zk_json_key(w, node->endpoints[i].name);
        gr_zk_json_string(w, gr_security_protocol_name(node->endpoints[i].protocol));
    }
    gr_zk_json_object_end(w);
    gr_zk_json_key(w, "endpoints");
    gr_zk_json_array_begin(w);
    for (int32_t i = 0; i < node->endpoint_count; i++) {
        format_endpoint(endpoint, sizeof endpoint, &node->endpoints[i]);
        gr_zk_json_string(w, endpoint);
    }
    gr_zk_json_array_end(w);
    if (node->rack) {
        gr_zk_json_key(w, "rack");
        gr_zk_json_string(w, node->rack);
    }
    gr_zk_json_key(w, "jmx_port");
    gr_zk_json_int(w, NO_JMX_PORT);
    gr_zk_json_key(w, "port");
    gr_zk_json_int(w, node->port);
    gr_zk_json_key(w, "host");
    gr_zk_json_string(w, node->host);
    gr_zk_json_key(w, "version");
    gr_zk_json_int(w, BROKER_JSON_VERSION);
    timestamp(w, now_ms);
    gr_zk_json_object_end(w);
    return writer_error(w);
}

/* "NAME://host:port" or "NAME://[v6]:port" into e's name, host and port. */
static int parse_endpoint(const char *s, gr_listener_spec_t *e)
{
    const char *sep = strstr(s, "://");
    if (!sep || (size_t)(sep - s) >= sizeof e->name)
        return -EINVAL;
    const char *host = sep + 3;
    const char *colon = strrchr(host, ':');
    if (!colon)
        return -EINVAL;
    size_t hlen = (size_t)(colon - host);
    if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
        host++;
        hlen -= 2;
    }
    char *end = NULL;
    long port = strtol(colon + 1, &end, 10);
    if (hlen >= sizeof e->host || *end || port < 0 || port > UINT16_MAX)
        return -EINVAL;
    memcpy(e->name, s, (size_t)(sep - s));
    e->name[sep - s] = '\0';
    memcpy(e->host, host, hlen);
    e->host[hlen] = '\0';
    e->port = (uint16_t)port;
    return 0;
}

/* The endpoints' protocols, from listener_security_protocol_map (default: the name's own). */
static void parse_protocols(const gr_zk_json_t *doc, gr_cluster_node_t *out)
{
    const gr_zk_json_t *map = gr_zk_json_find(doc, "listener_security_protocol_map");
    for (int32_t i = 0; i < out->endpoint_count; i++) {
        gr_listener_spec_t *e = &out->endpoints[i];
        const gr_zk_json_t *p = map ? gr_zk_json_find(map, e->name) : NULL;
        const char *name = p && p->type == GR_ZK_JSON_STRING ? p->string : e->name;
        if (gr_security_protocol_parse(name, strlen(name), &e->protocol))
            e->protocol = GR_SECURITY_PLAINTEXT;
    }
}

static int parse_broker_doc(const gr_zk_json_t *doc, const char *listener, gr_cluster_node_t *out)
{
    const gr_zk_json_t *eps = gr_zk_json_find(doc, "endpoints");
    out->endpoint_count = 0;
    for (size_t i = 0; eps && eps->type == GR_ZK_JSON_ARRAY && i < eps->count; i++)
        if (eps->items[i]->type == GR_ZK_JSON_STRING && out->endpoint_count < GR_LISTENERS_MAX &&
            parse_endpoint(eps->items[i]->string, &out->endpoints[out->endpoint_count]) == 0)
            out->endpoint_count++;
    parse_protocols(doc, out);
    if (out->endpoint_count > 0) {
        gr_cluster_node_use_listener(out, listener);
    } else {
        const gr_zk_json_t *host = gr_zk_json_find(doc, "host");
        const gr_zk_json_t *port = gr_zk_json_find(doc, "port");
        if (!host || host->type != GR_ZK_JSON_STRING || !port || port->type != GR_ZK_JSON_INT ||
            host->string_len >= sizeof out->host)
            return -EINVAL;
        snprintf(out->host, sizeof out->host, "%s", host->string);
        out->port = (int32_t)port->integer;
    }
    const gr_zk_json_t *rack = gr_zk_json_find(doc, "rack");
    out->rack = NULL;
    if (rack && rack->type == GR_ZK_JSON_STRING && !(out->rack = strdup(rack->string)))
        return -ENOMEM;
    return 0;
}

int gr_zk_parse_broker(const char *text, size_t len, const char *listener, gr_cluster_node_t *out)
{
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc == 0)
        rc = parse_broker_doc(doc, listener, out);
    gr_zk_json_free(doc);
    return rc;
}

int gr_zk_doc_controller(gr_zk_json_writer_t *w, int32_t broker_id, int64_t now_ms)
{
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "version");
    gr_zk_json_int(w, CONTROLLER_JSON_VERSION);
    gr_zk_json_key(w, "brokerid");
    gr_zk_json_int(w, broker_id);
    timestamp(w, now_ms);
    gr_zk_json_object_end(w);
    return writer_error(w);
}

static int json_int32(const gr_zk_json_t *doc, const char *key, int32_t *out)
{
    const gr_zk_json_t *v = gr_zk_json_find(doc, key);
    if (!v || v->type != GR_ZK_JSON_INT || v->integer < INT32_MIN || v->integer > INT32_MAX)
        return -EINVAL;
    *out = (int32_t)v->integer;
    return 0;
}

int gr_zk_parse_controller(const char *text, size_t len, int32_t *broker_id)
{
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc == 0)
        rc = json_int32(doc, "brokerid", broker_id);
    gr_zk_json_free(doc);
    return rc;
}

static void int_array(gr_zk_json_writer_t *w, const int32_t *items, int32_t count)
{
    gr_zk_json_array_begin(w);
    for (int32_t i = 0; i < count; i++)
        gr_zk_json_int(w, items[i]);
    gr_zk_json_array_end(w);
}

/* A JSON array of int32 into a malloc'd array. */
static int parse_int_array(const gr_zk_json_t *v, int32_t **out, int32_t *count)
{
    if (!v || v->type != GR_ZK_JSON_ARRAY || v->count > INT32_MAX)
        return -EINVAL;
    int32_t *items = malloc((v->count ? v->count : 1) * sizeof *items);
    if (!items)
        return -ENOMEM;
    for (size_t i = 0; i < v->count; i++) {
        const gr_zk_json_t *x = v->items[i];
        if (x->type != GR_ZK_JSON_INT || x->integer < INT32_MIN || x->integer > INT32_MAX) {
            free(items);
            return -EINVAL;
        }
        items[i] = (int32_t)x->integer;
    }
    *out = items;
    *count = (int32_t)v->count;
    return 0;
}

int gr_zk_doc_partition_state(gr_zk_json_writer_t *w, const gr_zk_partition_state_t *s)
{
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "controller_epoch");
    gr_zk_json_int(w, s->controller_epoch);
    gr_zk_json_key(w, "leader");
    gr_zk_json_int(w, s->leader);
    gr_zk_json_key(w, "version");
    gr_zk_json_int(w, PARTITION_STATE_JSON_VERSION);
    gr_zk_json_key(w, "leader_epoch");
    gr_zk_json_int(w, s->leader_epoch);
    gr_zk_json_key(w, "isr");
    int_array(w, s->isr, s->isr_count);
    gr_zk_json_object_end(w);
    return writer_error(w);
}

int gr_zk_parse_partition_state(const char *text, size_t len, gr_zk_partition_state_t *out)
{
    gr_zk_json_t *doc = NULL;
    memset(out, 0, sizeof *out);
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc == 0)
        rc = json_int32(doc, "leader", &out->leader);
    if (rc == 0)
        rc = json_int32(doc, "leader_epoch", &out->leader_epoch);
    if (rc == 0)
        rc = json_int32(doc, "controller_epoch", &out->controller_epoch);
    if (rc == 0)
        rc = parse_int_array(gr_zk_json_find(doc, "isr"), &out->isr, &out->isr_count);
    gr_zk_json_free(doc);
    return rc;
}

void gr_zk_partition_state_free(gr_zk_partition_state_t *s)
{
    free(s->isr);
    s->isr = NULL;
    s->isr_count = 0;
}

/* {"<partition>":[ids],...} for the partitions with a non-empty list (lists may be NULL). */
static void partition_lists(gr_zk_json_writer_t *w, int32_t partitions, int32_t *const *lists,
                            const int32_t *counts)
{
    char key[16];
    gr_zk_json_object_begin(w);
    for (int32_t i = 0; lists && i < partitions; i++) {
        if (counts[i] <= 0)
            continue;
        snprintf(key, sizeof key, "%" PRId32, i);
        gr_zk_json_key(w, key);
        int_array(w, lists[i], counts[i]);
    }
    gr_zk_json_object_end(w);
}

bool gr_zk_assignment_reassigning(const gr_zk_assignment_t *a)
{
    for (int32_t i = 0; a->adding && i < a->partition_count; i++)
        if (a->adding_counts[i] > 0 || a->removing_counts[i] > 0)
            return true;
    return false;
}

int gr_zk_doc_assignment(gr_zk_json_writer_t *w, const gr_zk_assignment_t *a)
{
    char key[16];
    char id[GR_UUID_STRING_CHARS + 1];
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "partitions");
    gr_zk_json_object_begin(w);
    for (int32_t i = 0; i < a->partition_count; i++) {
        snprintf(key, sizeof key, "%" PRId32, i);
        gr_zk_json_key(w, key);
        int_array(w, a->replicas[i], a->replica_counts[i]);
    }
    gr_zk_json_object_end(w);
    gr_zk_json_key(w, "topic_id");
    gr_uuid_format(a->id, id);
    gr_zk_json_string(w, id);
    gr_zk_json_key(w, "adding_replicas");
    partition_lists(w, a->partition_count, a->adding, a->adding_counts);
    gr_zk_json_key(w, "removing_replicas");
    partition_lists(w, a->partition_count, a->removing, a->removing_counts);
    gr_zk_json_key(w, "version");
    gr_zk_json_int(w, ASSIGNMENT_JSON_VERSION);
    gr_zk_json_object_end(w);
    return writer_error(w);
}

void gr_zk_assignment_free(gr_zk_assignment_t *a)
{
    for (int32_t i = 0; i < a->partition_count; i++) {
        if (a->replicas)
            free(a->replicas[i]);
        if (a->adding)
            free(a->adding[i]);
        if (a->removing)
            free(a->removing[i]);
    }
    free(a->replicas);
    free(a->replica_counts);
    free(a->adding);
    free(a->adding_counts);
    free(a->removing);
    free(a->removing_counts);
    memset(a, 0, sizeof *a);
}

/* Partition keys must be exactly "0".."N-1" (duplicates are refused by the parser). */
static int partition_key(const char *key, size_t count, size_t *index)
{
    char *end = NULL;
    char canonical[16];
    long v = strtol(key, &end, 10);
    snprintf(canonical, sizeof canonical, "%ld", v);
    if (*end || strcmp(canonical, key) != 0 || v < 0 || (size_t)v >= count)
        return -EINVAL;
    *index = (size_t)v;
    return 0;
}

/*
 * Reads an adding_replicas or removing_replicas object (absent, null or
 * empty: none) into per-partition lists, allocated only when one is given.
 */
static int parse_partition_lists(const gr_zk_json_t *v, int32_t partitions, int32_t ***lists,
                                 int32_t **counts)
{
    if (!v || v->type == GR_ZK_JSON_NULL || (v->type == GR_ZK_JSON_OBJECT && v->count == 0))
        return 0;
    if (v->type != GR_ZK_JSON_OBJECT || v->count > (size_t)partitions)
        return -EINVAL;
    *lists = calloc((size_t)partitions, sizeof **lists);
    *counts = calloc((size_t)partitions, sizeof **counts);
    if (!*lists || !*counts)
        return -ENOMEM;
    for (size_t i = 0; i < v->count; i++) {
        size_t index = 0;
        int rc = partition_key(v->keys[i], (size_t)partitions, &index);
        if (rc == 0 && (*lists)[index])
            rc = -EINVAL;
        if (rc == 0)
            rc = parse_int_array(v->items[i], &(*lists)[index], &(*counts)[index]);
        if (rc)
            return rc;
    }
    return 0;
}

/* Both lists or neither: a writer that sets one side leaves the other empty. */
static int parse_reassignment(const gr_zk_json_t *doc, gr_zk_assignment_t *out)
{
    int32_t **adding = NULL, **removing = NULL, *adding_counts = NULL, *removing_counts = NULL;
    int32_t n = out->partition_count;
    int rc =
        parse_partition_lists(gr_zk_json_find(doc, "adding_replicas"), n, &adding, &adding_counts);
    if (rc == 0)
        rc = parse_partition_lists(gr_zk_json_find(doc, "removing_replicas"), n, &removing,
                                   &removing_counts);
    if (rc == 0 && (adding || removing)) {
        if (!adding) {
            adding = calloc((size_t)n, sizeof *adding);
            adding_counts = calloc((size_t)n, sizeof *adding_counts);
        }
        if (!removing) {
            removing = calloc((size_t)n, sizeof *removing);
            removing_counts = calloc((size_t)n, sizeof *removing_counts);
        }
        if (!adding || !adding_counts || !removing || !removing_counts)
            rc = -ENOMEM;
    }
    out->adding = adding;
    out->adding_counts = adding_counts;
    out->removing = removing;
    out->removing_counts = removing_counts;
    return rc;
}

static int parse_assignment_doc(const gr_zk_json_t *doc, gr_zk_assignment_t *out)
{
    const gr_zk_json_t *parts = gr_zk_json_find(doc, "partitions");
    if (!parts || parts->type != GR_ZK_JSON_OBJECT || parts->count == 0 || parts->count > INT32_MAX)
        return -EINVAL;
    out->replicas = calloc(parts->count, sizeof *out->replicas);
    out->replica_counts = calloc(parts->count, sizeof *out->replica_counts);
    if (!out->replicas || !out->replica_counts)
        return -ENOMEM;
    out->partition_count = (int32_t)parts->count;
    for (size_t i = 0; i < parts->count; i++) {
        size_t index = 0;
        int rc = partition_key(parts->keys[i], parts->count, &index);
        if (rc == 0)
            rc = parse_int_array(parts->items[i], &out->replicas[index],
                                 &out->replica_counts[index]);
        if (rc)
            return rc;
    }
    /* Absent or null before Kafka 2.8. */
    const gr_zk_json_t *id = gr_zk_json_find(doc, "topic_id");
    if (id && id->type == GR_ZK_JSON_STRING) {
        if (gr_uuid_parse(id->string, id->string_len, &out->id) != 0)
            return -EINVAL;
        out->has_id = !gr_uuid_is_zero(out->id);
    } else if (id && id->type != GR_ZK_JSON_NULL) {
        return -EINVAL;
    }
    return parse_reassignment(doc, out);
}

int gr_zk_parse_assignment(const char *text, size_t len, gr_zk_assignment_t *out)
{
    gr_zk_json_t *doc = NULL;
    memset(out, 0, sizeof *out);
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc == 0)
        rc = parse_assignment_doc(doc, out);
    gr_zk_json_free(doc);
    if (rc)
        gr_zk_assignment_free(out);
    return rc;
}

void gr_zk_moves_free(gr_zk_move_t *moves, int32_t count)
{
    for (int32_t i = 0; moves && i < count; i++) {
        free(moves[i].topic);
        free(moves[i].replicas);
    }
    free(moves);
}

int gr_zk_doc_moves(gr_zk_json_writer_t *w, const gr_zk_move_t *const *moves, int32_t count)
{
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "version");
    gr_zk_json_int(w, MOVES_JSON_VERSION);
    gr_zk_json_key(w, "partitions");
    gr_zk_json_array_begin(w);
    for (int32_t i = 0; i < count; i++) {
        gr_zk_json_object_begin(w);
        gr_zk_json_key(w, "topic");
        gr_zk_json_string(w, moves[i]->topic);
        gr_zk_json_key(w, "partition");
        gr_zk_json_int(w, moves[i]->partition);
        gr_zk_json_key(w, "replicas");
        int_array(w, moves[i]->replicas, moves[i]->replica_count);
        gr_zk_json_object_end(w);
    }
    gr_zk_json_array_end(w);
    gr_zk_json_object_end(w);
    return writer_error(w);
}

static int parse_move(const gr_zk_json_t *v, gr_zk_move_t *out)
{
    if (!v || v->type != GR_ZK_JSON_OBJECT)
        return -EINVAL;
    const gr_zk_json_t *topic = gr_zk_json_find(v, "topic");
    if (!topic || topic->type != GR_ZK_JSON_STRING || strlen(topic->string) != topic->string_len)
        return -EINVAL;
    int rc = json_int32(v, "partition", &out->partition);
    if (rc == 0)
        rc = parse_int_array(gr_zk_json_find(v, "replicas"), &out->replicas, &out->replica_count);
    if (rc == 0 && !(out->topic = strdup(topic->string)))
        rc = -ENOMEM;
    return rc;
}

int gr_zk_parse_moves(const char *text, size_t len, gr_zk_move_t **moves, int32_t *count)
{
    gr_zk_json_t *doc = NULL;
    *moves = NULL;
    *count = 0;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc)
        return rc;
    const gr_zk_json_t *parts = gr_zk_json_find(doc, "partitions");
    if (!parts || parts->type != GR_ZK_JSON_ARRAY || parts->count > INT32_MAX)
        rc = -EINVAL;
    else if (!(*moves = calloc(parts->count + 1, sizeof **moves)))
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < parts->count; i++) {
        rc = parse_move(parts->items[i], &(*moves)[i]);
        *count = (int32_t)i + 1;
    }
    gr_zk_json_free(doc);
    if (rc) {
        gr_zk_moves_free(*moves, *count);
        *moves = NULL;
        *count = 0;
    }
    return rc;
}

/* A key given twice keeps its last value, as Kafka does (and JSON keys must be unique). */
static bool overridden_later(const gr_topic_config_t *configs, int count, int i)
{
    for (int j = i + 1; j < count; j++)
        if (strcmp(configs[j].key, configs[i].key) == 0)
            return true;
    return false;
}

int gr_zk_doc_topic_config(gr_zk_json_writer_t *w, const gr_topic_config_t *configs, int count)
{
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "version");
    gr_zk_json_int(w, TOPIC_CONFIG_JSON_VERSION);
    gr_zk_json_key(w, "config");
    gr_zk_json_object_begin(w);
    for (int i = 0; i < count; i++) {
        if (!overridden_later(configs, count, i)) {
            gr_zk_json_key(w, configs[i].key);
            gr_zk_json_string(w, configs[i].value);
        }
    }
    gr_zk_json_object_end(w);
    gr_zk_json_object_end(w);
    return writer_error(w);
}

int gr_zk_doc_config_each(const char *text, size_t len, gr_zk_config_entry_fn *fn, void *ctx)
{
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc)
        return rc;
    const gr_zk_json_t *config = gr_zk_json_find(doc, "config");
    if (!config || config->type != GR_ZK_JSON_OBJECT)
        rc = -EINVAL;
    for (size_t i = 0; rc == 0 && i < config->count; i++)
        rc = fn(ctx, config->keys[i], config->items[i]);
    gr_zk_json_free(doc);
    return rc;
}

typedef struct known_keys {
    int (*find)(const char *key);
    char **values;
} known_keys_t;

static int keep_known(void *ctx, const char *key, const gr_zk_json_t *v)
{
    known_keys_t *known = ctx;
    int k = known->find(key);
    if (k < 0 || v->type != GR_ZK_JSON_STRING)
        return 0;
    free(known->values[k]);
    known->values[k] = strdup(v->string);
    return known->values[k] ? 0 : -ENOMEM;
}

int gr_zk_doc_config_known(const char *text, size_t len, int (*find)(const char *key),
                           char **values)
{
    known_keys_t known = {find, values};
    return gr_zk_doc_config_each(text, len, keep_known, &known);
}

int gr_zk_doc_config_text(const gr_topic_config_t *configs, int count, char **text,
                          size_t *text_len)
{
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    const char *doc = NULL;
    int rc = gr_zk_doc_topic_config(&w, configs, count);
    if (!rc)
        rc = gr_zk_json_writer_finish(&w, &doc, text_len);
    if (!rc && !(*text = malloc(*text_len + 1)))
        rc = -ENOMEM;
    if (!rc) {
        memcpy(*text, doc, *text_len);
        (*text)[*text_len] = '\0';
    }
    gr_zk_json_writer_fini(&w);
    return rc;
}

int gr_zk_doc_config_change_entity(gr_zk_json_writer_t *w, const char *type, const char *name)
{
    char entity[GR_STORE_PATH_MAX + 1];
    snprintf(entity, sizeof entity, "%s/%s", type, name);
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "version");
    gr_zk_json_int(w, CONFIG_CHANGE_JSON_VERSION);
    gr_zk_json_key(w, "entity_path");
    gr_zk_json_string(w, entity);
    gr_zk_json_object_end(w);
    return writer_error(w);
}

int gr_zk_doc_config_change(gr_zk_json_writer_t *w, const char *topic)
{
    return gr_zk_doc_config_change_entity(w, CONFIG_CHANGE_TOPICS, topic);
}

int gr_zk_parse_config_change_entity(const char *text, size_t len, const char *type, char *out,
                                     size_t out_len)
{
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc)
        return rc;
    const gr_zk_json_t *entity = gr_zk_json_find(doc, "entity_path");
    size_t prefix = strlen(type);
    rc = -EINVAL;
    if (entity && entity->type == GR_ZK_JSON_STRING && entity->string_len > prefix + 1 &&
        strncmp(entity->string, type, prefix) == 0 && entity->string[prefix] == '/' &&
        entity->string_len - prefix - 1 < out_len) {
        snprintf(out, out_len, "%s", entity->string + prefix + 1);
        rc = 0;
    }
    gr_zk_json_free(doc);
    return rc;
}

int gr_zk_parse_config_change(const char *text, size_t len, char *out, size_t out_len)
{
    return gr_zk_parse_config_change_entity(text, len, CONFIG_CHANGE_TOPICS, out, out_len);
}

int gr_zk_parse_int32(const char *text, size_t len, int32_t *out)
{
    char buf[16];
    if (len == 0 || len >= sizeof buf)
        return -EINVAL;
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end = NULL;
    long v = strtol(buf, &end, 10);
    if (*end || v < INT32_MIN || v > INT32_MAX)
        return -EINVAL;
    *out = (int32_t)v;
    return 0;
}
