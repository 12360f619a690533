/* SPDX-License-Identifier: Apache-2.0 */
/* A listener's SSL keys changed live; see listener_configs.h. Runs on: loop thread. */
#include "metadata/listener_configs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metadata/password_codec.h"
#include "metadata/zk_docs.h"

#define LISTENER_PREFIX "listener.name."

/* Kafka's SslConfigs.RECONFIGURABLE_CONFIGS. */
static const char *const ssl_keys[] = {
    "ssl.keystore.type",       "ssl.keystore.location",
    "ssl.keystore.password",   "ssl.key.password",
    "ssl.truststore.type",     "ssl.truststore.location",
    "ssl.truststore.password", "ssl.keystore.certificate.chain",
    "ssl.keystore.key",        "ssl.truststore.certificates",
};

bool gr_listener_ssl_key_base(const char *key)
{
    for (size_t i = 0; i < sizeof ssl_keys / sizeof ssl_keys[0]; i++)
        if (strcmp(ssl_keys[i], key) == 0)
            return true;
    return false;
}

bool gr_listener_ssl_key_is_password(const char *base)
{
    size_t len = strlen(base), tail = strlen(".password");
    return len >= tail && strcmp(base + len - tail, ".password") == 0;
}

bool gr_listener_ssl_key(const char *key, char *listener, size_t size, const char **base)
{
    if (strncmp(key, LISTENER_PREFIX, strlen(LISTENER_PREFIX)) != 0)
        return false;
    const char *name = key + strlen(LISTENER_PREFIX);
    const char *dot = strchr(name, '.');
    size_t len = dot ? (size_t)(dot - name) : 0;
    if (!dot || len == 0 || len >= size || !gr_listener_ssl_key_base(dot + 1))
        return false;
    for (size_t i = 0; i < len; i++)
        listener[i] = (char)tolower((unsigned char)name[i]);
    listener[len] = '\0';
    *base = dot + 1;
    return true;
}

/* The index of key in set, or -1. */
static int find(const gr_listener_configs_t *set, const char *key)
{
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(set->keys[i], key) == 0)
            return (int)i;
    return -1;
}

/* key with its listener part lower-cased (malloc'd), or NULL. */
static char *normal_key(const char *key)
{
    char *k = strdup(key);
    for (char *p = k ? k + strlen(LISTENER_PREFIX) : NULL; p && *p && *p != '.'; p++)
        *p = (char)tolower((unsigned char)*p);
    return k;
}

int gr_listener_configs_set(gr_listener_configs_t *set, const char *key, const char *value)
{
    char *k = normal_key(key);
    char *v = value ? strdup(value) : NULL;
    if (!k || (value && !v))
        goto fail;
    int i = find(set, k);
    if (i >= 0) {
        free(k);
        free(set->values[i]);
        set->values[i] = v;
        return 0;
    }
    char **keys = realloc(set->keys, (set->count + 1) * sizeof *keys);
    if (keys)
        set->keys = keys;
    char **values = keys ? realloc(set->values, (set->count + 1) * sizeof *values) : NULL;
    if (!values)
        goto fail;
    set->values = values;
    set->keys[set->count] = k;
    set->values[set->count++] = v;
    return 0;
fail:
    free(k);
    free(v);
    return -ENOMEM;
}

/* Removes entry i. */
static void remove_at(gr_listener_configs_t *set, size_t i)
{
    free(set->keys[i]);
    free(set->values[i]);
    set->keys[i] = set->keys[set->count - 1];
    set->values[i] = set->values[set->count - 1];
    set->count--;
}

const char *gr_listener_configs_get(const gr_listener_configs_t *set, const char *listener,
                                    const char *base)
{
    char key[GR_LISTENER_NAME_MAX + 64];
    snprintf(key, sizeof key, LISTENER_PREFIX "%s.%s", listener, base);
    char *k = normal_key(key);
    int i = k ? find(set, k) : -1;
    free(k);
    return i >= 0 ? set->values[i] : NULL;
}

int gr_listener_configs_overlay(gr_listener_configs_t *set, const gr_listener_configs_t *edit)
{
    for (size_t e = 0; e < edit->count; e++) {
        if (edit->values[e]) {
            if (gr_listener_configs_set(set, edit->keys[e], edit->values[e]))
                return -ENOMEM;
            continue;
        }
        int i = find(set, edit->keys[e]);
        if (i >= 0)
            remove_at(set, (size_t)i);
    }
    return 0;
}

bool gr_listener_configs_equal(const gr_listener_configs_t *a, const gr_listener_configs_t *b)
{
    if (a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++) {
        int j = find(b, a->keys[i]);
        if (j < 0 || !a->values[i] != !b->values[j] ||
            (a->values[i] && strcmp(a->values[i], b->values[j]) != 0))
            return false;
    }
    return true;
}

bool gr_listener_configs_touch(const gr_listener_configs_t *set, const char *listener)
{
    char want[GR_LISTENER_NAME_MAX];
    const char *base;
    for (size_t i = 0; i < set->count; i++)
        if (gr_listener_ssl_key(set->keys[i], want, sizeof want, &base) &&
            strcasecmp(want, listener) == 0)
            return true;
    return false;
}

void gr_listener_configs_clear(gr_listener_configs_t *set)
{
    for (size_t i = 0; i < set->count; i++) {
        free(set->keys[i]);
        if (set->values[i])
            memset(set->values[i], 0, strlen(set->values[i])); /* may be a password */
        free(set->values[i]);
    }
    free(set->keys);
    free(set->values);
    *set = (gr_listener_configs_t){0};
}

typedef struct parse_ctx {
    const gr_config_t *cfg; /* NULL: keep passwords as stored */
    gr_listener_configs_t *set;
    char *err_key;
    size_t err_size;
} parse_ctx_t;

static int keep_ssl_key(void *arg, const char *key, const gr_zk_json_t *v)
{
    parse_ctx_t *p = arg;
    char listener[GR_LISTENER_NAME_MAX];
    const char *base;
    if (v->type != GR_ZK_JSON_STRING || !gr_listener_ssl_key(key, listener, sizeof listener, &base))
        return 0;
    if (!p->cfg || !gr_listener_ssl_key_is_password(base))
        return gr_listener_configs_set(p->set, key, v->string);
    char *plain = NULL;
    int rc = gr_password_decode(p->cfg->password_encoder_secret, v->string, &plain);
    if (rc == -EINVAL)
        rc = gr_password_decode(p->cfg->password_encoder_old_secret, v->string, &plain);
    if (rc == -EINVAL) {
        snprintf(p->err_key, p->err_size, "%s", key); /* Kafka: logged and left out */
        return 0;
    }
    if (rc == 0)
        rc = gr_listener_configs_set(p->set, key, plain);
    if (plain)
        memset(plain, 0, strlen(plain));
    free(plain);
    return rc;
}

int gr_listener_configs_parse(const gr_config_t *cfg, const char *text, size_t len,
                              gr_listener_configs_t *set, char *err_key, size_t err_size)
{
    parse_ctx_t p = {cfg, set, err_key, err_size};
    if (err_size)
        err_key[0] = '\0';
    int rc = gr_zk_doc_config_each(text, len, keep_ssl_key, &p);
    if (rc)
        gr_listener_configs_clear(set);
    return rc;
}

int gr_listener_configs_parse_raw(const char *text, size_t len, gr_listener_configs_t *set)
{
    char unused[1];
    parse_ctx_t p = {NULL, set, unused, sizeof unused};
    int rc = gr_zk_doc_config_each(text, len, keep_ssl_key, &p);
    if (rc)
        gr_listener_configs_clear(set);
    return rc;
}
