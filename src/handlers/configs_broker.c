/* SPDX-License-Identifier: Apache-2.0 */
/* AlterConfigs on a BROKER resource; see configs_broker.h. */
#include "handlers/configs_broker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/worker.h"
#include "gen/incremental_alter_configs.h"
#include "handlers/admin_common.h"
#include "handlers/configs_broker_tls.h"
#include "metadata/broker_config_store.h"

#define KEY_MAX 256

/* Kafka's text of a ConfigResource in its messages. */
static void resource_text(gr_str_t name, char *out, size_t len)
{
    snprintf(out, len, "ConfigResource(type=BROKER, name='%.*s')", name.len > 0 ? name.len : 0,
             name.ptr ? name.ptr : "");
}

/* Kafka's ConfigException, as its admin manager reports it. */
static gr_kerr_t refuse(gr_str_t name, char *msg, size_t len, const char *why, const char *key)
{
    char res[KEY_MAX];
    resource_text(name, res, sizeof res);
    snprintf(msg, len, "Invalid config value for resource %s: %s: Set(%s)", res, why, key);
    return GR_KERR_INVALID_CONFIG;
}

/* A value checked as the properties file's would be (a scratch config). */
static gr_kerr_t check_value(const char *key, const char *value, char *msg, size_t len)
{
    gr_config_t scratch;
    char err[KEY_MAX] = "";
    if (gr_config_init(&scratch)) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    int rc = gr_config_set(&scratch, key, value, GR_CONFIG_SOURCE_OVERRIDE, NULL, err, sizeof err);
    gr_config_fini(&scratch);
    if (rc) {
        snprintf(msg, len, "%s", err);
        return GR_KERR_INVALID_CONFIG;
    }
    return GR_KERR_NONE;
}

/*
 * The cleaner's map needs a load factor in (0, 1) and a positive buffer (a
 * broker starting with others disables its cleaner; a live change is refused).
 */
static gr_kerr_t check_cleaner(const char *key, const char *value, char *msg, size_t len)
{
    bool bad = false;
    if (strcmp(key, "log.cleaner.io.buffer.load.factor") == 0) {
        double lf = strtod(value, NULL);
        bad = !(lf > 0 && lf < 1);
    } else if (strcmp(key, "log.cleaner.dedupe.buffer.size") == 0)
        bad = strtoll(value, NULL, 10) < 1;
    if (!bad)
        return GR_KERR_NONE;
    snprintf(msg, len,
             "Invalid value %s for configuration %s: the load factor must be in (0, 1) and "
             "the buffer positive",
             value, key);
    return GR_KERR_INVALID_CONFIG;
}

/*
 * log.cleaner.threads changes at most by half or double the current count,
 * as Kafka's LogCleaner checks (with its messages), within Gregor's pool.
 */
static gr_kerr_t check_cleaner_threads(const gr_broker_t *b, const char *value, char *msg,
                                       size_t len)
{
    long n = strtol(value, NULL, 10);
    int current = b->config.log_cleaner_threads;
    if (n < 1)
        snprintf(msg, len, "Log cleaner threads should be at least 1");
    else if (n < current / 2)
        snprintf(msg, len,
                 "Log cleaner threads cannot be reduced to less than half the current value %d",
                 current);
    else if (n > (long)current * 2)
        snprintf(msg, len,
                 "Log cleaner threads cannot be increased to more than double the current value %d",
                 current);
    else if (n > GR_WORKER_MAX_THREADS)
        snprintf(msg, len, "Gregor runs at most %d log cleaner threads", GR_WORKER_MAX_THREADS);
    else
        return GR_KERR_NONE;
    return GR_KERR_INVALID_CONFIG;
}

/* num.replica.fetchers changes as Kafka's DynamicThreadPool checks (with its messages). */
static gr_kerr_t check_replica_fetchers(const gr_broker_t *b, const char *value, char *msg,
                                        size_t len)
{
    long n = strtol(value, NULL, 10);
    int current = b->config.num_replica_fetchers;
    int w = snprintf(msg, len,
                     "Dynamic thread count update validation failed for num.replica.fetchers=%s, ",
                     value);
    size_t at = w > 0 && (size_t)w < len ? (size_t)w : 0;
    if (n == current)
        return GR_KERR_NONE;
    if (n <= 0)
        snprintf(msg + at, len - at, "value should be at least 1");
    else if (n < current / 2)
        snprintf(msg + at, len - at, "value should be at least half the current value %d", current);
    else if (n > (long)current * 2)
        snprintf(msg + at, len - at, "value should not be greater than double the current value %d",
                 current);
    else
        return GR_KERR_NONE;
    return GR_KERR_INVALID_CONFIG;
}

/*
 * APPEND or SUBTRACT of value (freed) on the level's current list, else the
 * key's default, as Kafka edits the stored entity's list. The new list, or
 * NULL when out of memory.
 */
static char *list_op(char *value, const char *current, const char *dflt, bool append)
{
    const char *base = current ? current : dflt ? dflt : "";
    char *out = malloc(gr_admin_list_edit_size(base, value));
    if (out)
        gr_admin_list_edit(out, base, value, append);
    free(value);
    return out;
}

/* One change into the level's edit (level: what the level holds before the request). */
static gr_kerr_t edit(gr_str_t name, const gr_broker_config_change_t *c,
                      const gr_broker_dynamic_set_t *level, gr_broker_dynamic_edit_t *e, char *msg,
                      size_t len)
{
    gr_broker_dynamic_set_t *set = &e->set;
    char key[KEY_MAX];
    snprintf(key, sizeof key, "%.*s", c->key.len > 0 ? c->key.len : 0,
             c->key.ptr ? c->key.ptr : "");
    /* A NUL inside the name would cut it to another key's: no key has one. */
    bool has_nul = c->key.len > 0 && memchr(c->key.ptr, '\0', (size_t)c->key.len);
    int k = has_nul ? -1 : gr_broker_dynamic_find(key);
    if (k < 0 && (has_nul || !gr_broker_dynamic_kafka_allows(key)))
        return refuse(name, msg, len, "Cannot update these configs dynamically", key);
    const char *why = k < 0 ? gr_broker_dynamic_refusal(key) : NULL;
    if (why)
        return refuse(name, msg, len, why, key);
    if (k < 0)
        return refuse(name, msg, len, "Gregor cannot yet apply these configs live", key);
    bool was_touched = e->touched[k];
    e->touched[k] = true;
    if (c->op == GR_ALTER_CONFIG_OP_DELETE) {
        free(set->values[k]);
        set->values[k] = NULL;
        return GR_KERR_NONE;
    }
    if (c->op != GR_ALTER_CONFIG_OP_SET && c->op != GR_ALTER_CONFIG_OP_APPEND &&
        c->op != GR_ALTER_CONFIG_OP_SUBTRACT) {
        snprintf(msg, len, "Unknown alter config operation type %d for config %s", c->op, key);
        return GR_KERR_INVALID_REQUEST;
    }
    if (!c->value.ptr || c->value.len < 0)
        return refuse(name, msg, len, "Null value not supported for", key);
    char *value = strndup(c->value.ptr, (size_t)c->value.len);
    if (value && c->op != GR_ALTER_CONFIG_OP_SET) {
        const gr_config_def_t *def = gr_config_def_at((size_t)gr_config_find(key));
        if (def->type != GR_CONFIG_LIST) {
            free(value);
            snprintf(msg, len, "Config value %s is not allowed for config key: %s",
                     c->op == GR_ALTER_CONFIG_OP_APPEND ? "append" : "subtract", key);
            return GR_KERR_INVALID_CONFIG;
        }
        value = list_op(value, was_touched ? set->values[k] : level->values[k], def->default_value,
                        c->op == GR_ALTER_CONFIG_OP_APPEND);
    }
    if (!value) {
        snprintf(msg, len, "Out of memory");
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_kerr_t err = check_value(key, value, msg, len);
    if (!err)
        err = check_cleaner(key, value, msg, len);
    free(set->values[k]);
    set->values[k] = value;
    return err;
}

/* A listener SSL key goes to configs_broker_tls.c, any other key to edit. */
static gr_kerr_t edit_any(gr_broker_t *b, gr_str_t name, bool is_default,
                          const gr_broker_config_change_t *c, gr_broker_dynamic_edit_t *e,
                          char *msg, size_t len)
{
    char key[KEY_MAX];
    snprintf(key, sizeof key, "%.*s", c->key.len > 0 ? c->key.len : 0,
             c->key.ptr ? c->key.ptr : "");
    bool has_nul = c->key.len > 0 && memchr(c->key.ptr, '\0', (size_t)c->key.len);
    if (!has_nul && gr_broker_tls_key(key))
        return gr_broker_tls_edit(b, name, is_default, key, c, e, msg, len);
    gr_kerr_t err = edit(name, c, gr_broker_dynamic_level(b, is_default), e, msg, len);
    int k = has_nul ? -1 : gr_broker_dynamic_find(key);
    if (!err && k >= 0 && e->set.values[k] && strcmp(key, "log.cleaner.threads") == 0)
        err = check_cleaner_threads(b, e->set.values[k], msg, len);
    if (!err && k >= 0 && e->set.values[k] && strcmp(key, "num.replica.fetchers") == 0)
        err = check_replica_fetchers(b, e->set.values[k], msg, len);
    return err;
}

static void set_free(gr_broker_dynamic_set_t *set)
{
    for (int i = 0; i < GR_BROKER_DYNAMIC_KEYS; i++)
        free(set->values[i]);
}

gr_kerr_t gr_broker_configs_alter(gr_broker_t *b, gr_str_t name,
                                  const gr_broker_config_change_t *changes, int32_t n,
                                  bool incremental, bool validate_only, char *msg, size_t len)
{
    bool is_default = false;
    if (!gr_admin_is_this_broker(b, name, &is_default) && !is_default) {
        snprintf(msg, len, "Unexpected broker id, expected %d or empty string",
                 b->config.broker_id);
        return GR_KERR_INVALID_REQUEST;
    }
    /* Legacy AlterConfigs replaces the level's whole set: every key is touched. */
    gr_broker_dynamic_edit_t e = {.set = {{NULL}}};
    for (int i = 0; !incremental && i < GR_BROKER_DYNAMIC_KEYS; i++)
        e.touched[i] = true;
    e.replace_listeners = !incremental && !is_default;
    gr_kerr_t err = GR_KERR_NONE;
    for (int32_t i = 0; !err && i < n; i++)
        err = edit_any(b, name, is_default, &changes[i], &e, msg, len);
    if (!err) /* a new keystore is read and checked before anything is stored */
        err = gr_broker_tls_validate(b, name, &e, msg, len);
    int rc = err || validate_only ? 0 : gr_broker_config_store_alter(b, is_default, &e);
    if (rc) {
        snprintf(msg, len, "The configs could not be stored: %s", strerror(-rc));
        err = GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    set_free(&e.set);
    gr_listener_configs_clear(&e.listeners);
    return err;
}
