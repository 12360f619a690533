/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DescribeConfigs (v0-4), AlterConfigs (v0-2) and IncrementalAlterConfigs
 * (v0-1), over the topic config table (broker/topic_config.h) and the
 * broker's own config table (core/config.h).
 *
 * DescribeConfigs, per resource:
 *   TOPIC   every topic key (or only the keys asked, unknown ones left out)
 *           with its value: the override (DYNAMIC_TOPIC_CONFIG), else the
 *           broker's (STATIC_BROKER_CONFIG when set in the file or on the
 *           command line, else DEFAULT_CONFIG); synonyms on request (v1+);
 *           types (v3+) and our documentation on request (v3+). A bad name
 *           is INVALID_TOPIC_EXCEPTION, an unknown topic
 *           UNKNOWN_TOPIC_OR_PARTITION.
 *   GROUP   every group key (metadata/group_config.h): the group's override
 *           (GROUP_CONFIG) or the broker default (DEFAULT_CONFIG), whether
 *           or not the group exists, as Kafka does; an empty name is
 *           INVALID_REQUEST.
 *   BROKER  named by this broker's id: every key Gregor accepts, read-only
 *           (nothing is dynamic here); "" (the cluster default) has no
 *           dynamic defaults to list; another name is INVALID_REQUEST.
 *   BROKER_LOGGER  named by this broker's id: "root" and every logger with
 *           its level (DYNAMIC_BROKER_LOGGER_CONFIG), configs_broker_logger.h.
 *   other   INVALID_REQUEST.
 *
 * AlterConfigs replaces a topic's whole override set; IncrementalAlterConfigs
 * changes single keys (SET, DELETE, APPEND and SUBTRACT, the last two for
 * list keys only) starting from the current overrides. Both check
 * everything first and change nothing on error or with validate_only:
 *   the same resource twice              INVALID_REQUEST (every copy)
 *   a key twice (incremental)            INVALID_REQUEST
 *   a null value (SET, APPEND, SUBTRACT)  INVALID_REQUEST
 *   an unknown operation                 INVALID_REQUEST
 *   APPEND/SUBTRACT on a non-list key    INVALID_CONFIG
 *   unknown key, bad value               INVALID_CONFIG (message names it)
 *   unknown topic                        UNKNOWN_TOPIC_OR_PARTITION
 *   an unknown group key                 INVALID_CONFIG; values and ranges as
 *                                        Kafka's GroupConfig checks them
 *   broker configs                       INVALID_REQUEST: none can change
 *                                        while running (an empty change is
 *                                        accepted)
 *   BROKER_LOGGER                        AlterConfigs: INVALID_REQUEST, as
 *                                        Kafka; incremental: its own rules
 *                                        (configs_broker_logger.h), not
 *                                        persisted
 * A change takes effect at once on every partition (segment rolling,
 * retention, produce checks) and is persisted in /config/topics/<name>; a
 * group's at once in the group config cache (the share leader and the
 * group coordinator read it there) and in /config/groups/<name>.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/alter_configs.h"
#include "controller/zk_admin.h"
#include "core/context.h"
#include "security/authorizer.h"
#include "handlers/request.h"
#include "metadata/broker_config_store.h"
#include "metadata/group_config.h"
#include "metadata/group_config_store.h"
#include "metadata/topics.h"
#include "metadata/topic_config.h"
#include "gen/describe_configs.h"
#include "handlers/admin_common.h"
#include "handlers/configs_broker.h"
#include "handlers/configs_broker_logger.h"
#include "handlers/handlers.h"
#include "gen/incremental_alter_configs.h"

#define DESCRIBE_DOCS_VERSION  3 /* config types and documentation */
#define DESCRIBE_ISDEFAULT_MAX 0 /* is_default exists in v0 only */

/* ---- DescribeConfigs ---- */

typedef struct describe_ctx {
    gr_request_t *req;
    const gr_describe_configs_request_describe_configs_resource_t *want;
    bool synonyms;
    bool docs;
} describe_ctx_t;

/* Whether key was asked for (no keys, or an empty list, means all); keys are sorted. */
static bool key_wanted(const describe_ctx_t *ctx, const char *key)
{
    const gr_describe_configs_request_describe_configs_resource_t *w = ctx->want;
    if (w->configuration_keys_count <= 0)
        return true;
    gr_str_t k = gr_str(key);
    return bsearch(&k, w->configuration_keys, (size_t)w->configuration_keys_count, sizeof(gr_str_t),
                   gr_admin_str_cmp) != NULL;
}

/* Copies n synonyms into out (v1+, when asked). 0 or -ENOMEM. */
static int fill_synonyms(const describe_ctx_t *ctx, const gr_config_synonym_t *syn, int n,
                         gr_describe_configs_response_describe_configs_resource_result_t *out)
{
    if (!ctx->synonyms || ctx->req->api_version < 1 || n == 0)
        return 0;
    out->synonyms = gr_request_alloc_array(ctx->req, n, sizeof(*out->synonyms));
    if (!out->synonyms)
        return -ENOMEM;
    for (int i = 0; i < n; i++) {
        out->synonyms[i].name = gr_str(syn[i].name);
        out->synonyms[i].value =
            syn[i].value ? gr_admin_message(ctx->req, syn[i].value) : gr_str(NULL);
        out->synonyms[i].source = syn[i].source;
    }
    out->synonyms_count = n;
    return 0;
}

static void fill_entry(const describe_ctx_t *ctx, const char *name, const char *value,
                       int8_t source, int type, bool read_only, const char *doc,
                       gr_describe_configs_response_describe_configs_resource_result_t *out)
{
    gr_describe_configs_response_describe_configs_resource_result_init(out);
    out->name = gr_str(name);
    out->value = value ? gr_admin_message(ctx->req, value) : gr_str(NULL);
    out->read_only = read_only;
    if (ctx->req->api_version <= DESCRIBE_ISDEFAULT_MAX)
        out->is_default = source == GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG;
    out->config_source = source;
    out->is_sensitive = false;
    out->config_type = (int8_t)type;
    out->documentation = gr_str(ctx->docs ? doc : NULL);
}

static int describe_topic(gr_broker_t *b, const describe_ctx_t *ctx, const gr_topic_t *topic,
                          gr_describe_configs_response_describe_configs_result_t *out)
{
    size_t n = gr_topic_config_def_count();
    out->configs = gr_request_alloc_array(ctx->req, (int64_t)n, sizeof(*out->configs));
    if (!out->configs)
        return -ENOMEM;
    int32_t count = 0;
    for (size_t i = 0; i < n; i++) {
        const gr_topic_config_def_t *def = gr_topic_config_def_at(i);
        if (!key_wanted(ctx, def->name))
            continue;
        gr_config_described_t d;
        gr_topic_config_describe(b, topic, def, &d);
        gr_describe_configs_response_describe_configs_resource_result_t *e = &out->configs[count++];
        fill_entry(ctx, def->name, d.value, d.source, def->type, false, def->doc, e);
        if (fill_synonyms(ctx, d.synonyms, d.synonym_count, e))
            return -ENOMEM;
    }
    out->configs_count = count;
    return 0;
}

/* Kafka's ConfigType PASSWORD (DescribeConfigs v3+): its values are never returned. */
#define CONFIG_TYPE_PASSWORD 9

/* A key Kafka types PASSWORD (keystore and key passwords, the JAAS text, the encoder's secrets). */
static bool is_password(const char *name)
{
    size_t len = strlen(name), tail = strlen(".password");
    return strcmp(name, "sasl.jaas.config") == 0 || strcmp(name, "password.encoder.secret") == 0 ||
           strcmp(name, "password.encoder.old.secret") == 0 ||
           (len >= tail && strcmp(name + len - tail, ".password") == 0);
}

/* This broker's listener SSL keys set live, after its table keys (as Kafka lists them). */
static int describe_listener_keys(gr_broker_t *b, const describe_ctx_t *ctx,
                                  gr_describe_configs_response_describe_configs_result_t *out)
{
    const gr_listener_configs_t *live = gr_broker_dynamic_listeners(b);
    for (size_t i = 0; i < live->count; i++) {
        char listener[GR_LISTENER_NAME_MAX];
        const char *base;
        if (!key_wanted(ctx, live->keys[i]) ||
            !gr_listener_ssl_key(live->keys[i], listener, sizeof listener, &base))
            continue;
        bool secret = gr_listener_ssl_key_is_password(base);
        const char *value = secret ? NULL : live->values[i];
        /* The name in the request's memory: the set may change before the response is sent. */
        const char *name = gr_admin_message(ctx->req, live->keys[i]).ptr;
        if (!name)
            return -ENOMEM;
        gr_config_synonym_t syn = {name, value, GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_BROKER_CONFIG};
        gr_describe_configs_response_describe_configs_resource_result_t *entry =
            &out->configs[out->configs_count++];
        int type =
            secret ? CONFIG_TYPE_PASSWORD : gr_config_def_at((size_t)gr_config_find(base))->type;
        fill_entry(ctx, name, value, syn.source, type, false, NULL, entry);
        entry->is_sensitive = secret;
        if (fill_synonyms(ctx, &syn, 1, entry))
            return -ENOMEM;
    }
    return 0;
}

static int describe_broker(gr_broker_t *b, const describe_ctx_t *ctx,
                           gr_describe_configs_response_describe_configs_result_t *out)
{
    size_t n = gr_config_key_count() + gr_broker_dynamic_listeners(b)->count;
    out->configs = gr_request_alloc_array(ctx->req, (int64_t)n, sizeof(*out->configs));
    if (!out->configs)
        return -ENOMEM;
    int32_t count = 0;
    for (size_t i = 0; i < gr_config_key_count(); i++) {
        gr_config_entry_t e;
        gr_config_entry(&b->config, i, &e);
        if (!key_wanted(ctx, e.def->name))
            continue;
        int8_t source = gr_config_source_described(e.source);
        bool secret = is_password(e.def->name);
        /* Kafka's order: dynamic per broker, dynamic default, static, default. */
        gr_config_synonym_t syn[4];
        int nsyn = gr_broker_dynamic_synonyms(b, e.def->name, syn, 3);
        if (nsyn == 0 && e.source != GR_CONFIG_SOURCE_DEFAULT && e.value)
            syn[nsyn++] = (gr_config_synonym_t){e.def->name, e.value, source};
        if (e.def->default_value)
            syn[nsyn++] = (gr_config_synonym_t){e.def->name, e.def->default_value,
                                                GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG};
        for (int k = 0; secret && k < nsyn; k++)
            syn[k].value = NULL;
        gr_describe_configs_response_describe_configs_resource_result_t *entry =
            &out->configs[count++];
        bool read_only = gr_broker_dynamic_find(e.def->name) < 0;
        fill_entry(ctx, e.def->name, secret ? NULL : e.value, source,
                   secret ? CONFIG_TYPE_PASSWORD : e.def->type, read_only, NULL, entry);
        entry->is_sensitive = secret;
        if (fill_synonyms(ctx, syn, nsyn, entry))
            return -ENOMEM;
    }
    out->configs_count = count;
    return describe_listener_keys(b, ctx, out);
}

/* The cluster-wide default ("" name): the values set there, as Kafka lists them. */
static int describe_broker_default(gr_broker_t *b, const describe_ctx_t *ctx,
                                   gr_describe_configs_response_describe_configs_result_t *out)
{
    const gr_broker_dynamic_set_t *set = gr_broker_dynamic_level(b, true);
    out->configs = gr_request_alloc_array(ctx->req, GR_BROKER_DYNAMIC_KEYS, sizeof(*out->configs));
    if (!out->configs)
        return -ENOMEM;
    int32_t count = 0;
    for (int k = 0; k < GR_BROKER_DYNAMIC_KEYS; k++) {
        const char *name = gr_broker_dynamic_name(k);
        if (!set->values[k] || !key_wanted(ctx, name))
            continue;
        const gr_config_def_t *def = gr_config_def_at((size_t)gr_config_find(name));
        gr_config_synonym_t syn = {name, set->values[k],
                                   GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG};
        gr_describe_configs_response_describe_configs_resource_result_t *entry =
            &out->configs[count++];
        fill_entry(ctx, name, set->values[k], syn.source, def->type, false, NULL, entry);
        if (fill_synonyms(ctx, &syn, 1, entry))
            return -ENOMEM;
    }
    out->configs_count = count;
    return 0;
}

/* "root" and every logger (or those asked) with its effective level. */
static int describe_broker_logger(gr_broker_t *b, const describe_ctx_t *ctx,
                                  gr_describe_configs_response_describe_configs_result_t *out)
{
    int n = gr_logger_count();
    out->configs = gr_request_alloc_array(ctx->req, n, sizeof(*out->configs));
    if (!out->configs)
        return -ENOMEM;
    int32_t count = 0;
    for (int id = 0; id < n; id++) {
        const char *name = gr_logger_name(id);
        if (!key_wanted(ctx, name))
            continue;
        const char *level = gr_log_level_name(gr_logger_level(&b->log, id));
        /* Kafka gives these entries no config type (UNKNOWN, 0). */
        fill_entry(ctx, name, level, GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_BROKER_LOGGER_CONFIG, 0,
                   false, NULL, &out->configs[count++]);
    }
    out->configs_count = count;
    return 0;
}

/* Every group key: the override (GROUP_CONFIG) or the broker default (DEFAULT_CONFIG). */
static int describe_group(gr_broker_t *b, const describe_ctx_t *ctx, gr_str_t group,
                          gr_describe_configs_response_describe_configs_result_t *out)
{
    out->configs =
        gr_request_alloc_array(ctx->req, GR_GROUP_CONFIG_KEY_COUNT, sizeof(*out->configs));
    if (!out->configs)
        return -ENOMEM;
    int32_t count = 0;
    for (int k = 0; k < GR_GROUP_CONFIG_KEY_COUNT; k++) {
        const gr_group_config_def_t *def = gr_group_config_def_at(k);
        if (!key_wanted(ctx, def->name))
            continue;
        char buf[GR_CONFIG_DESCRIBED_VALUE_MAX];
        bool overridden = false;
        const char *value =
            gr_group_config_text(b, group.ptr, (size_t)group.len, k, buf, sizeof buf, &overridden);
        int8_t source = overridden ? GR_DESCRIBE_CONFIGS_SOURCE_GROUP_CONFIG
                                   : GR_DESCRIBE_CONFIGS_SOURCE_DEFAULT_CONFIG;
        gr_describe_configs_response_describe_configs_resource_result_t *e = &out->configs[count++];
        fill_entry(ctx, def->name, value, source, def->type, false, def->doc, e);
        gr_config_synonym_t syn = {def->name, value, source};
        if (fill_synonyms(ctx, &syn, 1, e))
            return -ENOMEM;
    }
    out->configs_count = count;
    return 0;
}

static void describe_error(gr_request_t *req,
                           gr_describe_configs_response_describe_configs_result_t *out,
                           gr_kerr_t err, const char *msg)
{
    out->error_code = err;
    out->error_message = gr_admin_message(req, msg);
}

/*
 * Kafka's check for the config APIs: op (DESCRIBE_CONFIGS or ALTER_CONFIGS)
 * on the topic, on the group, or on the cluster for a broker. NONE, or the refusal code.
 */
static gr_kerr_t configs_authorize(gr_broker_t *b, gr_request_t *req, gr_acl_operation_t op,
                                   int8_t type, gr_str_t name)
{
    if (type == GR_CONFIG_RESOURCE_TYPE_TOPIC)
        return gr_authorize_str(b, req->session, op, GR_ACL_RESOURCE_TYPE_TOPIC, name)
                   ? GR_KERR_NONE
                   : GR_KERR_TOPIC_AUTHORIZATION_FAILED;
    if (type == GR_CONFIG_RESOURCE_TYPE_GROUP)
        return gr_authorize_str(b, req->session, op, GR_ACL_RESOURCE_TYPE_GROUP, name)
                   ? GR_KERR_NONE
                   : GR_KERR_GROUP_AUTHORIZATION_FAILED;
    if (type == GR_CONFIG_RESOURCE_TYPE_BROKER || type == GR_CONFIG_RESOURCE_TYPE_BROKER_LOGGER)
        return gr_authorize_cluster(b, req->session, op) ? GR_KERR_NONE
                                                         : GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
    return GR_KERR_NONE;
}

static int describe_resource(gr_broker_t *b, const describe_ctx_t *ctx,
                             gr_describe_configs_response_describe_configs_result_t *out)
{
    const gr_describe_configs_request_describe_configs_resource_t *want = ctx->want;
    char msg[GR_ADMIN_MSG_MAX];
    bool is_default = false;
    gr_kerr_t refused = configs_authorize(b, ctx->req, GR_ACL_OPERATION_DESCRIBE_CONFIGS,
                                          want->resource_type, want->resource_name);
    if (refused) {
        describe_error(ctx->req, out, refused, "Authorization failed.");
        return 0;
    }
    if (want->resource_type == GR_CONFIG_RESOURCE_TYPE_TOPIC) {
        const char *name = gr_admin_cstr(ctx->req, want->resource_name);
        if (!name)
            return -ENOMEM;
        /* The name's wire length: a NUL inside it must not cut it short. */
        if (gr_topic_name_check(
                want->resource_name.ptr,
                (size_t)(want->resource_name.len > 0 ? want->resource_name.len : 0))) {
            snprintf(msg, sizeof msg, "Topic name \"%s\" is illegal", name);
            describe_error(ctx->req, out, GR_KERR_INVALID_TOPIC_EXCEPTION, msg);
            return 0;
        }
        gr_topic_t *topic = gr_topics_find(b->topics, name, strlen(name));
        if (!topic) {
            snprintf(msg, sizeof msg, "Topic %s does not exist", name);
            describe_error(ctx->req, out, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION, msg);
            return 0;
        }
        return describe_topic(b, ctx, topic, out);
    }
    if (want->resource_type == GR_CONFIG_RESOURCE_TYPE_GROUP) {
        if (want->resource_name.len <= 0) {
            describe_error(ctx->req, out, GR_KERR_INVALID_REQUEST, "Group name must not be empty");
            return 0;
        }
        return describe_group(b, ctx, want->resource_name, out);
    }
    if (want->resource_type == GR_CONFIG_RESOURCE_TYPE_BROKER) {
        if (gr_admin_is_this_broker(b, want->resource_name, &is_default))
            return describe_broker(b, ctx, out);
        if (is_default)
            return describe_broker_default(b, ctx, out);
        snprintf(msg, sizeof msg,
                 "Unexpected broker id, expected %d or empty string, but received %.*s",
                 b->config.broker_id, want->resource_name.len > 0 ? want->resource_name.len : 0,
                 want->resource_name.ptr ? want->resource_name.ptr : "");
        describe_error(ctx->req, out, GR_KERR_INVALID_REQUEST, msg);
        return 0;
    }
    if (want->resource_type == GR_CONFIG_RESOURCE_TYPE_BROKER_LOGGER) {
        gr_kerr_t err = gr_broker_logger_describe_check(b, want->resource_name, msg, sizeof msg);
        if (err) {
            describe_error(ctx->req, out, err, msg);
            return 0;
        }
        return describe_broker_logger(b, ctx, out);
    }
    snprintf(msg, sizeof msg, "Unsupported resource type %d", want->resource_type);
    describe_error(ctx->req, out, GR_KERR_INVALID_REQUEST, msg);
    return 0;
}

void gr_handle_describe_configs(gr_broker_t *b, gr_request_t *req)
{
    gr_describe_configs_request_t in;
    if (gr_request_decode(req, &in))
        return;
    gr_describe_configs_response_t resp;
    gr_describe_configs_response_init(&resp);
    int32_t n = in.resources_count;
    resp.results = gr_request_alloc_array(req, n, sizeof(*resp.results));
    if (!resp.results) {
        gr_request_fail(req, "out of memory");
        return;
    }
    resp.results_count = n;
    for (int32_t i = 0; i < n; i++) {
        gr_describe_configs_response_describe_configs_result_t *out = &resp.results[i];
        gr_describe_configs_response_describe_configs_result_init(out);
        out->resource_type = in.resources[i].resource_type;
        out->resource_name = in.resources[i].resource_name;
        out->error_message = gr_str(NULL);
        gr_describe_configs_request_describe_configs_resource_t *want = &in.resources[i];
        if (want->configuration_keys_count > 1) /* sorted for key_wanted's bsearch */
            qsort(want->configuration_keys, (size_t)want->configuration_keys_count,
                  sizeof(gr_str_t), gr_admin_str_cmp);
        describe_ctx_t ctx = {req, &in.resources[i], in.include_synonyms,
                              req->api_version >= DESCRIBE_DOCS_VERSION &&
                                  in.include_documentation};
        if (describe_resource(b, &ctx, out)) {
            gr_request_fail(req, "out of memory");
            return;
        }
    }
    gr_request_respond(req, &resp);
}

/* ---- AlterConfigs and IncrementalAlterConfigs ---- */

/* One resource's change, the same for both APIs once read from the request. */
typedef struct alter_change {
    int8_t type;
    gr_str_t name;
    int32_t count;
    const gr_str_t *keys;   /* count keys, strided */
    size_t key_stride;      /* bytes between keys */
    const gr_str_t *values; /* likewise */
    const int8_t *ops;      /* likewise; NULL for AlterConfigs (every op SET) */
} alter_change_t;

#define AT(base, stride, i) ((const void *)((const char *)(base) + (size_t)(i) * (stride)))

static gr_str_t change_key(const alter_change_t *c, int32_t i)
{
    return *(const gr_str_t *)AT(c->keys, c->key_stride, i);
}

static gr_str_t change_value(const alter_change_t *c, int32_t i)
{
    return *(const gr_str_t *)AT(c->values, c->key_stride, i);
}

static int8_t change_op(const alter_change_t *c, int32_t i)
{
    return c->ops ? *(const int8_t *)AT(c->ops, c->key_stride, i) : GR_ALTER_CONFIG_OP_SET;
}

/* A working copy of a topic's overrides that operations edit. */
typedef struct override_set {
    gr_topic_config_t *items;
    int count;
    int cap;
} override_set_t;

static gr_topic_config_t *set_find(override_set_t *s, const char *key)
{
    for (int i = 0; i < s->count; i++)
        if (strcmp(s->items[i].key, key) == 0)
            return &s->items[i];
    return NULL;
}

static void set_put(override_set_t *s, char *key, char *value)
{
    gr_topic_config_t *c = set_find(s, key);
    if (c) {
        c->value = value;
        return;
    }
    if (s->count < s->cap)
        s->items[s->count++] = (gr_topic_config_t){key, value};
}

static void set_remove(override_set_t *s, const char *key)
{
    gr_topic_config_t *c = set_find(s, key);
    if (c)
        *c = s->items[--s->count];
}

/* Applies one operation to the working set. GR_KERR_NONE or an error with msg. */
static gr_kerr_t apply_op(gr_request_t *req, override_set_t *set, int8_t op, char *key,
                          gr_str_t value, char *msg, size_t len)
{
    if (op < GR_ALTER_CONFIG_OP_SET || op > GR_ALTER_CONFIG_OP_SUBTRACT) {
        snprintf(msg, len, "Unknown alter config operation type %d for config %s", op, key);
        return GR_KERR_INVALID_REQUEST;
    }
    if (op == GR_ALTER_CONFIG_OP_DELETE) {
        set_remove(set, key);
        return GR_KERR_NONE;
    }
    if (value.len == GR_NULL_LEN) {
        snprintf(msg, len, "Null value not supported for : %s", key);
        return GR_KERR_INVALID_REQUEST;
    }
    char *text = gr_admin_cstr(req, value);
    if (!text) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (op == GR_ALTER_CONFIG_OP_SET) {
        set_put(set, key, text);
        return GR_KERR_NONE;
    }
    const gr_topic_config_def_t *def = gr_topic_config_def_find(key);
    if (!def) {
        snprintf(msg, len, "Unknown topic config name: %s", key);
        return GR_KERR_INVALID_CONFIG;
    }
    if (def->type != GR_CONFIG_LIST) {
        snprintf(msg, len, "Config value %s is not allowed for config key: %s",
                 op == GR_ALTER_CONFIG_OP_APPEND ? "append" : "subtract", key);
        return GR_KERR_INVALID_CONFIG;
    }
    gr_topic_config_t *cur = set_find(set, key);
    const char *base = cur ? cur->value : def->default_value;
    char *edited = gr_request_alloc(req, gr_admin_list_edit_size(base, text));
    if (edited)
        gr_admin_list_edit(edited, base, text, op == GR_ALTER_CONFIG_OP_APPEND);
    if (!edited) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    set_put(set, key, edited);
    return GR_KERR_NONE;
}

/* Whether a key appears twice in the change (IncrementalAlterConfigs refuses that). */
static bool has_duplicate_key(gr_request_t *req, const alter_change_t *c, bool *failed)
{
    gr_admin_key_t *keys = gr_request_alloc_array(req, c->count, sizeof(*keys));
    bool *dup = gr_request_alloc_array(req, c->count, sizeof(bool));
    *failed = !keys || !dup;
    if (*failed)
        return false;
    for (int32_t i = 0; i < c->count; i++)
        keys[i] = (gr_admin_key_t){0, change_key(c, i), i};
    gr_admin_mark_repeats(keys, c->count, dup);
    for (int32_t i = 0; i < c->count; i++)
        if (dup[i])
            return true;
    return false;
}

static gr_kerr_t alter_topic(gr_broker_t *b, gr_request_t *req, const alter_change_t *c,
                             bool incremental, bool validate_only, char *msg, size_t len)
{
    const char *name = gr_admin_cstr(req, c->name);
    if (!name) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    size_t wire_len = (size_t)(c->name.len > 0 ? c->name.len : 0);
    gr_topic_t *topic = gr_topic_name_check(c->name.ptr, wire_len) == GR_KERR_NONE
                            ? gr_topics_find(b->topics, name, strlen(name))
                            : NULL;
    if (!topic) {
        snprintf(msg, len, "Topic %s does not exist", name);
        return GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
    }
    /* Bounds the work (set_find is linear); no valid set is larger. */
    if (c->count > GR_TOPIC_MAX_CONFIGS) {
        snprintf(msg, len, "At most %d topic configs can be set", GR_TOPIC_MAX_CONFIGS);
        return GR_KERR_INVALID_CONFIG;
    }
    override_set_t set = {NULL, 0, topic->config_count + c->count};
    set.items = gr_request_alloc_array(req, set.cap, sizeof(*set.items));
    if (!set.items) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (incremental)
        for (int i = 0; i < topic->config_count; i++)
            set.items[set.count++] = topic->configs[i];
    for (int32_t i = 0; i < c->count; i++) {
        char *key = gr_admin_cstr(req, change_key(c, i));
        if (!key) {
            snprintf(msg, len, "Out of memory");
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        }
        gr_kerr_t err = apply_op(req, &set, change_op(c, i), key, change_value(c, i), msg, len);
        if (err)
            return err;
    }
    return gr_admin_set_topic_configs(b, topic, set.items, set.count, validate_only, msg, len);
}

/* Applies one operation to a group's working override set. NONE or an error with msg. */
static gr_kerr_t apply_group_op(gr_request_t *req, gr_group_overrides_t *set, int8_t op,
                                const char *key, gr_str_t value, char *msg, size_t len)
{
    if (op < GR_ALTER_CONFIG_OP_SET || op > GR_ALTER_CONFIG_OP_SUBTRACT) {
        snprintf(msg, len, "Unknown alter config operation type %d for config %s", op, key);
        return GR_KERR_INVALID_REQUEST;
    }
    int k = gr_group_config_find(key);
    if (k < 0) {
        snprintf(msg, len, "Unknown group config name: %s", key);
        return GR_KERR_INVALID_CONFIG;
    }
    if (op == GR_ALTER_CONFIG_OP_DELETE) {
        set->values[k] = NULL;
        return GR_KERR_NONE;
    }
    if (value.len == GR_NULL_LEN) {
        snprintf(msg, len, "Null value not supported for : %s", key);
        return GR_KERR_INVALID_REQUEST;
    }
    if (op != GR_ALTER_CONFIG_OP_SET) {
        snprintf(msg, len, "Config value %s is not allowed for config key: %s",
                 op == GR_ALTER_CONFIG_OP_APPEND ? "append" : "subtract", key);
        return GR_KERR_INVALID_CONFIG;
    }
    set->values[k] = gr_admin_cstr(req, value);
    if (!set->values[k]) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    return GR_KERR_NONE;
}

/*
 * A group's change: the new override set (incremental: from the current
 * one), checked whole, then in the cache at once and written to the store.
 * The working set's strings live in the request's arena.
 */
static gr_kerr_t alter_group(gr_broker_t *b, gr_request_t *req, const alter_change_t *c,
                             bool incremental, bool validate_only, char *msg, size_t len)
{
    if (c->name.len <= 0) {
        snprintf(msg, len, "Group name must not be empty");
        return GR_KERR_INVALID_REQUEST;
    }
    const char *group = c->name.ptr;
    size_t group_len = (size_t)c->name.len;
    gr_group_overrides_t set = {{NULL}};
    const gr_group_overrides_t *current =
        b->group_configs ? gr_group_configs_find(b->group_configs, group, group_len) : NULL;
    if (incremental && current)
        set = *current; /* borrowed: only the pointers are replaced below */
    for (int32_t i = 0; i < c->count; i++) {
        char *key = gr_admin_cstr(req, change_key(c, i));
        if (!key) {
            snprintf(msg, len, "Out of memory");
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        }
        gr_kerr_t err =
            apply_group_op(req, &set, change_op(c, i), key, change_value(c, i), msg, len);
        if (err)
            return err;
    }
    if (gr_group_config_validate(b, &set, msg, len))
        return GR_KERR_INVALID_CONFIG;
    if (!gr_group_config_store_name_fits(group, group_len)) {
        snprintf(msg, len, "Group name is too long to store its configs");
        return GR_KERR_INVALID_REQUEST;
    }
    if (validate_only)
        return GR_KERR_NONE;
    if (!b->group_configs || gr_group_configs_set(b->group_configs, group, group_len, &set)) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    /* set may point into the entry just replaced: write from the cache's own copy. */
    const gr_group_overrides_t *now = gr_group_configs_find(b->group_configs, group, group_len);
    gr_group_overrides_t none = {{NULL}};
    int rc = gr_group_config_store_alter(b, group, group_len, now ? now : &none);
    if (rc)
        gr_logf(&b->log, GR_LOG_ERROR, "groups", "cannot write the configs of group %.*s: %s",
                (int)group_len, group, strerror(-rc));
    return GR_KERR_NONE;
}

/* IncrementalAlterConfigs on BROKER_LOGGER: the operations handed to configs_broker_logger.c. */
static gr_kerr_t alter_broker_logger(gr_broker_t *b, gr_request_t *req, const alter_change_t *c,
                                     bool validate_only, char *msg, size_t len)
{
    gr_logger_change_t *changes = gr_request_alloc_array(req, c->count, sizeof(*changes));
    if (!changes && c->count > 0) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    for (int32_t i = 0; i < c->count; i++)
        changes[i] = (gr_logger_change_t){change_key(c, i), change_value(c, i), change_op(c, i)};
    return gr_broker_logger_alter(b, c->name, changes, c->count, validate_only, msg, len);
}

static gr_kerr_t alter_resource(gr_broker_t *b, gr_request_t *req, const alter_change_t *c,
                                bool incremental, bool validate_only, char *msg, size_t len)
{
    bool failed = false;
    /* Kafka's legacy AlterConfigs knows no BROKER_LOGGER (checked before authorization). */
    if (!incremental && c->type == GR_CONFIG_RESOURCE_TYPE_BROKER_LOGGER) {
        snprintf(msg, len, "Unknown resource type %d", c->type);
        return GR_KERR_INVALID_REQUEST;
    }
    if (incremental && has_duplicate_key(req, c, &failed)) {
        snprintf(msg, len, "Error due to duplicate config keys");
        return GR_KERR_INVALID_REQUEST;
    }
    if (failed) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_kerr_t refused = configs_authorize(b, req, GR_ACL_OPERATION_ALTER_CONFIGS, c->type, c->name);
    if (refused) {
        snprintf(msg, len, "Authorization failed.");
        return refused;
    }
    if (c->type == GR_CONFIG_RESOURCE_TYPE_TOPIC)
        return alter_topic(b, req, c, incremental, validate_only, msg, len);
    if (c->type == GR_CONFIG_RESOURCE_TYPE_GROUP)
        return alter_group(b, req, c, incremental, validate_only, msg, len);
    if (c->type == GR_CONFIG_RESOURCE_TYPE_BROKER_LOGGER)
        return alter_broker_logger(b, req, c, validate_only, msg, len);
    if (c->type != GR_CONFIG_RESOURCE_TYPE_BROKER) {
        snprintf(msg, len, "Unsupported resource type %d", c->type);
        return GR_KERR_INVALID_REQUEST;
    }
    gr_broker_config_change_t *changes = gr_request_alloc_array(req, c->count, sizeof(*changes));
    if (!changes && c->count > 0) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    for (int32_t i = 0; i < c->count; i++)
        changes[i] =
            (gr_broker_config_change_t){change_key(c, i), change_value(c, i), change_op(c, i)};
    return gr_broker_configs_alter(b, c->name, changes, c->count, incremental, validate_only, msg,
                                   len);
}

/* Runs every change, filling codes and messages (n of them). 0 or -ENOMEM. */
static int alter_all(gr_broker_t *b, gr_request_t *req, const alter_change_t *changes, int32_t n,
                     bool incremental, bool validate_only, int16_t *codes, gr_str_t *messages)
{
    bool *dup = gr_request_alloc_array(req, n, sizeof(bool));
    gr_admin_key_t *keys = gr_request_alloc_array(req, n, sizeof(*keys));
    if (!dup || !keys)
        return -ENOMEM;
    for (int32_t i = 0; i < n; i++)
        keys[i] = (gr_admin_key_t){changes[i].type, changes[i].name, i};
    gr_admin_mark_repeats(keys, n, dup);
    for (int32_t i = 0; i < n; i++) {
        char msg[GR_ADMIN_MSG_MAX] = "";
        gr_kerr_t err = GR_KERR_INVALID_REQUEST;
        if (dup[i])
            snprintf(msg, sizeof msg, "Duplicate resource.");
        else
            err = alter_resource(b, req, &changes[i], incremental, validate_only, msg, sizeof msg);
        codes[i] = err;
        messages[i] = err ? gr_admin_message(req, msg) : gr_str(NULL);
    }
    return 0;
}

void gr_handle_alter_configs(gr_broker_t *b, gr_request_t *req)
{
    gr_alter_configs_request_t in;
    if (gr_request_decode(req, &in))
        return;
    int32_t n = in.resources_count;
    gr_alter_configs_response_t resp;
    gr_alter_configs_response_init(&resp);
    alter_change_t *changes = gr_request_alloc_array(req, n, sizeof(*changes));
    int16_t *codes = gr_request_alloc_array(req, n, sizeof(*codes));
    gr_str_t *messages = gr_request_alloc_array(req, n, sizeof(*messages));
    resp.responses = gr_request_alloc_array(req, n, sizeof(*resp.responses));
    if (!changes || !codes || !messages || !resp.responses)
        goto fail;
    for (int32_t i = 0; i < n; i++) {
        const gr_alter_configs_request_alter_configs_resource_t *r = &in.resources[i];
        changes[i] = (alter_change_t){r->resource_type,
                                      r->resource_name,
                                      r->configs_count,
                                      r->configs ? &r->configs[0].name : NULL,
                                      sizeof(*r->configs),
                                      r->configs ? &r->configs[0].value : NULL,
                                      NULL};
    }
    if (alter_all(b, req, changes, n, false, in.validate_only, codes, messages))
        goto fail;
    resp.responses_count = n;
    for (int32_t i = 0; i < n; i++) {
        gr_alter_configs_response_alter_configs_resource_response_t *out = &resp.responses[i];
        gr_alter_configs_response_alter_configs_resource_response_init(out);
        out->error_code = codes[i];
        out->error_message = messages[i];
        out->resource_type = in.resources[i].resource_type;
        out->resource_name = in.resources[i].resource_name;
    }
    gr_request_respond(req, &resp);
    return;
fail:
    gr_request_fail(req, "out of memory");
}

void gr_handle_incremental_alter_configs(gr_broker_t *b, gr_request_t *req)
{
    gr_incremental_alter_configs_request_t in;
    if (gr_request_decode(req, &in))
        return;
    int32_t n = in.resources_count;
    gr_incremental_alter_configs_response_t resp;
    gr_incremental_alter_configs_response_init(&resp);
    alter_change_t *changes = gr_request_alloc_array(req, n, sizeof(*changes));
    int16_t *codes = gr_request_alloc_array(req, n, sizeof(*codes));
    gr_str_t *messages = gr_request_alloc_array(req, n, sizeof(*messages));
    resp.responses = gr_request_alloc_array(req, n, sizeof(*resp.responses));
    if (!changes || !codes || !messages || !resp.responses)
        goto fail;
    for (int32_t i = 0; i < n; i++) {
        const gr_incremental_alter_configs_request_alter_configs_resource_t *r = &in.resources[i];
        changes[i] = (alter_change_t){r->resource_type,
                                      r->resource_name,
                                      r->configs_count,
                                      r->configs ? &r->configs[0].name : NULL,
                                      sizeof(*r->configs),
                                      r->configs ? &r->configs[0].value : NULL,
                                      r->configs ? &r->configs[0].config_operation : NULL};
    }
    if (alter_all(b, req, changes, n, true, in.validate_only, codes, messages))
        goto fail;
    resp.responses_count = n;
    for (int32_t i = 0; i < n; i++) {
        gr_incremental_alter_configs_response_alter_configs_resource_response_t *out =
            &resp.responses[i];
        gr_incremental_alter_configs_response_alter_configs_resource_response_init(out);
        out->error_code = codes[i];
        out->error_message = messages[i];
        out->resource_type = in.resources[i].resource_type;
        out->resource_name = in.resources[i].resource_name;
    }
    gr_request_respond(req, &resp);
    return;
fail:
    gr_request_fail(req, "out of memory");
}
