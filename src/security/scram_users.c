/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SCRAM credential cache and Kafka's credential strings: see
 * scram_users.h. A plain array: user counts are small and lookups happen
 * once per login. Runs on: loop thread.
 */
#include "security/scram_users.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "metadata/zk_json.h"

typedef struct scram_user {
    char *name;
    bool has[GR_SCRAM_MECHANISMS];
    gr_scram_credential_t cred[GR_SCRAM_MECHANISMS];
} scram_user_t;

struct gr_scram_users {
    scram_user_t *items;
    size_t count;
};

static int slot_of(gr_sasl_mechanism_t m)
{
    return gr_sasl_mechanism_is_scram(m) ? (int)m - GR_SASL_SCRAM_SHA_256 : -1;
}

gr_scram_users_t *gr_scram_users_new(void)
{
    return calloc(1, sizeof(gr_scram_users_t));
}

static void user_clear(scram_user_t *u)
{
    free(u->name);
    OPENSSL_cleanse(u, sizeof *u);
}

void gr_scram_users_free(gr_scram_users_t *u)
{
    if (!u)
        return;
    for (size_t i = 0; i < u->count; i++)
        user_clear(&u->items[i]);
    free(u->items);
    free(u);
}

static scram_user_t *user_find(const gr_scram_users_t *u, const char *name)
{
    for (size_t i = 0; i < u->count; i++)
        if (strcmp(u->items[i].name, name) == 0)
            return &u->items[i];
    return NULL;
}

const gr_scram_credential_t *gr_scram_users_find(const gr_scram_users_t *u, const char *user,
                                                 gr_sasl_mechanism_t m)
{
    const scram_user_t *e = u ? user_find(u, user) : NULL;
    int k = slot_of(m);
    return e && k >= 0 && e->has[k] ? &e->cred[k] : NULL;
}

static void user_remove(gr_scram_users_t *u, const char *name)
{
    scram_user_t *e = user_find(u, name);
    if (!e)
        return;
    user_clear(e);
    size_t i = (size_t)(e - u->items);
    memmove(e, e + 1, (u->count - i - 1) * sizeof *e);
    u->count--;
}

/* Reads the SCRAM keys of a parsed znode into e. */
static int read_doc(const gr_zk_json_t *doc, scram_user_t *e)
{
    const gr_zk_json_t *config = gr_zk_json_find(doc, "config");
    if (!config || config->type != GR_ZK_JSON_OBJECT)
        return -EINVAL;
    for (int m = GR_SASL_SCRAM_SHA_256; m <= GR_SASL_SCRAM_SHA_512; m++) {
        const gr_zk_json_t *v = gr_zk_json_find(config, gr_sasl_mechanism_name(m));
        if (!v)
            continue;
        int k = slot_of(m);
        if (v->type != GR_ZK_JSON_STRING || gr_scram_credential_parse(v->string, m, &e->cred[k]))
            return -EINVAL;
        e->has[k] = true;
    }
    return 0;
}

int gr_scram_users_apply(gr_scram_users_t *u, const char *user, const char *text, size_t len)
{
    user_remove(u, user);
    if (!text || len == 0)
        return 0;
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc)
        return rc == -ENOMEM ? rc : -EINVAL;
    scram_user_t e = {0};
    rc = read_doc(doc, &e);
    gr_zk_json_free(doc);
    if (rc || (!e.has[0] && !e.has[1])) {
        OPENSSL_cleanse(&e, sizeof e);
        return rc;
    }
    scram_user_t *items = realloc(u->items, (u->count + 1) * sizeof *items);
    e.name = items ? strdup(user) : NULL;
    if (items)
        u->items = items;
    if (!e.name) {
        OPENSSL_cleanse(&e, sizeof e);
        return -ENOMEM;
    }
    u->items[u->count++] = e;
    return 0;
}

size_t gr_scram_users_count(const gr_scram_users_t *u)
{
    return u ? u->count : 0;
}

const char *gr_scram_users_name(const gr_scram_users_t *u, size_t i)
{
    return u->items[i].name;
}

/* ---- credential strings ---------------------------------------------------------------- */

/* The value of "name=" in a comma-separated list, as a span; NULL when absent. */
static const char *field(const char *text, const char *name, size_t *len)
{
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            const char *v = p + n + 1;
            const char *end = strchr(v, ',');
            *len = end ? (size_t)(end - v) : strlen(v);
            return v;
        }
    }
    return NULL;
}

static int decode_field(const char *text, const char *name, uint8_t *out, size_t size, size_t want,
                        size_t *got)
{
    size_t len = 0;
    const char *v = field(text, name, &len);
    /* Decoding writes whole 3-byte groups, padding included: room for them. */
    uint8_t buf[GR_SCRAM_SALT_MAX + 3];
    int n = v ? gr_base64_decode(v, len, buf, sizeof buf) : -EINVAL;
    if (n <= 0 || (size_t)n > size || (want && (size_t)n != want))
        return -EINVAL;
    memcpy(out, buf, (size_t)n);
    if (got)
        *got = (size_t)n;
    return 0;
}

int gr_scram_credential_parse(const char *text, gr_sasl_mechanism_t m, gr_scram_credential_t *out)
{
    size_t hash_len = gr_scram_hash_len(m), len = 0;
    memset(out, 0, sizeof *out);
    if (decode_field(text, "salt", out->salt, sizeof out->salt, 0, &out->salt_len) ||
        decode_field(text, "stored_key", out->stored_key, sizeof out->stored_key, hash_len, NULL) ||
        decode_field(text, "server_key", out->server_key, sizeof out->server_key, hash_len, NULL))
        return -EINVAL;
    const char *it = field(text, "iterations", &len);
    char digits[16];
    if (!it || len == 0 || len >= sizeof digits)
        return -EINVAL;
    memcpy(digits, it, len);
    digits[len] = '\0';
    char *end = NULL;
    long v = strtol(digits, &end, 10);
    if (*end || v < 1 || v > INT32_MAX)
        return -EINVAL;
    out->iterations = (int32_t)v;
    return 0;
}

int gr_scram_credential_format(const gr_scram_credential_t *c, gr_sasl_mechanism_t m, char *out,
                               size_t size)
{
    char salt[GR_SCRAM_SALT_MAX * 2], stored[GR_SCRAM_HASH_MAX * 2], server[GR_SCRAM_HASH_MAX * 2];
    size_t n = gr_scram_hash_len(m);
    if (gr_base64_encode(c->salt, c->salt_len, salt, sizeof salt) < 0 ||
        gr_base64_encode(c->stored_key, n, stored, sizeof stored) < 0 ||
        gr_base64_encode(c->server_key, n, server, sizeof server) < 0)
        return -ENOSPC;
    int len = snprintf(out, size, "salt=%s,stored_key=%s,server_key=%s,iterations=%d", salt, stored,
                       server, c->iterations);
    return len < 0 || (size_t)len >= size ? -ENOSPC : 0;
}
