/* SPDX-License-Identifier: Apache-2.0 */
/* SASL's client side: see sasl_client.h. Runs on: any thread. */
#include "security/sasl_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "security/scram_crypto.h"

#define NONCE_BYTES    24
#define TOKEN_MAX      2048 /* every token this client writes fits */
#define SALT_MAX       256
#define GS2_HEADER_B64 "biws" /* base64 of "n,,": no channel binding, no authzid */

typedef enum step_state { STEP_FIRST, STEP_SERVER_FIRST, STEP_SERVER_FINAL, STEP_DONE } step_t;

struct gr_sasl_client {
    gr_sasl_mechanism_t mechanism;
    step_t step;
    char *user;
    char *password;
    char nonce[NONCE_BYTES * 2];
    char first_bare[TOKEN_MAX];            /* "n=<user>,r=<nonce>" */
    uint8_t server_key[GR_SCRAM_HASH_MAX]; /* kept to check the server's signature */
    uint8_t signature[GR_SCRAM_HASH_MAX];  /* the one the server must send */
    uint8_t token[TOKEN_MAX];
    size_t token_len;
};

gr_sasl_client_t *gr_sasl_client_new(gr_sasl_mechanism_t m, const char *user, const char *password)
{
    if (m < 0 || m >= GR_SASL_MECHANISM_COUNT || !user || !password ||
        strlen(user) >= GR_SASL_USER_MAX || strlen(password) >= TOKEN_MAX / 2)
        return NULL;
    gr_sasl_client_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->mechanism = m;
    c->user = strdup(user);
    c->password = strdup(password);
    if (!c->user || !c->password) {
        gr_sasl_client_free(c);
        return NULL;
    }
    return c;
}

void gr_sasl_client_free(gr_sasl_client_t *c)
{
    if (!c)
        return;
    if (c->password)
        OPENSSL_cleanse(c->password, strlen(c->password));
    free(c->password);
    free(c->user);
    OPENSSL_cleanse(c, sizeof *c);
    free(c);
}

static int plain_step(gr_sasl_client_t *c)
{
    if (c->step != STEP_FIRST) {
        c->step = STEP_DONE; /* the server's (empty) answer: it accepted */
        c->token_len = 0;
        return GR_SASL_CLIENT_DONE;
    }
    size_t ulen = strlen(c->user), plen = strlen(c->password);
    /* authzid (empty), NUL, user, NUL, password */
    c->token[0] = 0;
    memcpy(c->token + 1, c->user, ulen);
    c->token[1 + ulen] = 0;
    memcpy(c->token + 2 + ulen, c->password, plen);
    c->token_len = 2 + ulen + plen;
    c->step = STEP_SERVER_FIRST;
    return GR_SASL_CLIENT_CONTINUE;
}

/* The user name as SCRAM writes it: ',' as "=2C", '=' as "=3D". */
static int escape_user(const char *user, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = user; *p; p++) {
        const char *piece = *p == ',' ? "=2C" : *p == '=' ? "=3D" : NULL;
        size_t len = piece ? 3 : 1;
        if (n + len >= size)
            return -ENOSPC;
        memcpy(out + n, piece ? piece : p, len);
        n += len;
    }
    out[n] = '\0';
    return 0;
}

static int scram_first(gr_sasl_client_t *c)
{
    uint8_t raw[NONCE_BYTES];
    char user[GR_SASL_USER_MAX * 3];
    if (RAND_bytes(raw, sizeof raw) != 1)
        return -EIO;
    if (gr_base64_encode(raw, sizeof raw, c->nonce, sizeof c->nonce) < 0 ||
        escape_user(c->user, user, sizeof user) < 0)
        return -ENOSPC;
    int n = snprintf(c->first_bare, sizeof c->first_bare, "n=%s,r=%s", user, c->nonce);
    int t = snprintf((char *)c->token, sizeof c->token, "n,,%s", c->first_bare);
    if (n < 0 || (size_t)n >= sizeof c->first_bare || t < 0 || (size_t)t >= sizeof c->token)
        return -ENOSPC;
    c->token_len = (size_t)t;
    c->step = STEP_SERVER_FIRST;
    return GR_SASL_CLIENT_CONTINUE;
}

/* The value of attribute letter in a "k=v,k=v" message (a copy in out), or -EBADMSG. */
static int attribute(const char *msg, char letter, char *out, size_t size)
{
    for (const char *p = msg; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (p[0] != letter || p[1] != '=')
            continue;
        const char *v = p + 2, *end = strchr(v, ',');
        size_t len = end ? (size_t)(end - v) : strlen(v);
        if (len >= size)
            return -EBADMSG;
        memcpy(out, v, len);
        out[len] = '\0';
        return 0;
    }
    return -EBADMSG;
}

typedef struct server_first {
    char nonce[TOKEN_MAX / 2]; /* leaves room for the proof in client-final */
    uint8_t salt[SALT_MAX];
    int salt_len;
    long iterations;
} server_first_t;

static int read_server_first(const gr_sasl_client_t *c, const char *msg, server_first_t *sf)
{
    char salt[SALT_MAX * 2], iterations[16];
    /* RFC 5802: a leading m= is a mandatory extension; we know none, so we must refuse. */
    if (strncmp(msg, "m=", 2) == 0)
        return -EBADMSG;
    if (attribute(msg, 'r', sf->nonce, sizeof sf->nonce) ||
        attribute(msg, 's', salt, sizeof salt) ||
        attribute(msg, 'i', iterations, sizeof iterations))
        return -EBADMSG;
    /* The server's nonce extends ours; anything else is not our exchange. */
    if (strncmp(sf->nonce, c->nonce, strlen(c->nonce)) != 0 ||
        strlen(sf->nonce) == strlen(c->nonce))
        return -EBADMSG;
    sf->salt_len = gr_base64_decode(salt, strlen(salt), sf->salt, sizeof sf->salt);
    char *end;
    sf->iterations = strtol(iterations, &end, 10);
    if (sf->salt_len <= 0 || *end || sf->iterations < GR_SCRAM_MIN_ITERATIONS ||
        sf->iterations > GR_SCRAM_MAX_ITERATIONS)
        return -EBADMSG;
    return 0;
}

/* client-final with its proof; keeps the signature the server must answer with. */
static int scram_final(gr_sasl_client_t *c, const char *server_first)
{
    server_first_t sf;
    if (read_server_first(c, server_first, &sf))
        return -EBADMSG;
    gr_sasl_mechanism_t m = c->mechanism;
    size_t hlen = gr_scram_hash_len(m);
    uint8_t salted[GR_SCRAM_HASH_MAX], client_key[GR_SCRAM_HASH_MAX], stored_key[GR_SCRAM_HASH_MAX],
        client_sig[GR_SCRAM_HASH_MAX];
    char without_proof[TOKEN_MAX / 2 + 16], auth_message[TOKEN_MAX * 3],
        proof[GR_SCRAM_HASH_MAX * 2];
    snprintf(without_proof, sizeof without_proof, "c=" GS2_HEADER_B64 ",r=%s", sf.nonce);
    snprintf(auth_message, sizeof auth_message, "%s,%s,%s", c->first_bare, server_first,
             without_proof);
    int rc = gr_scram_salted_password(m, c->password, sf.salt, (size_t)sf.salt_len,
                                      (int32_t)sf.iterations, salted);
    if (!rc)
        rc = gr_scram_hmac(m, salted, hlen, "Client Key", strlen("Client Key"), client_key);
    if (!rc)
        rc = gr_scram_keys(m, salted, stored_key, c->server_key);
    if (!rc)
        rc = gr_scram_hmac(m, stored_key, hlen, auth_message, strlen(auth_message), client_sig);
    if (!rc)
        rc =
            gr_scram_hmac(m, c->server_key, hlen, auth_message, strlen(auth_message), c->signature);
    for (size_t i = 0; i < hlen; i++)
        client_key[i] ^= client_sig[i]; /* ClientProof := ClientKey XOR ClientSignature */
    if (!rc && gr_base64_encode(client_key, hlen, proof, sizeof proof) < 0)
        rc = -ENOSPC;
    int t = rc ? -1 : snprintf((char *)c->token, sizeof c->token, "%s,p=%s", without_proof, proof);
    OPENSSL_cleanse(salted, sizeof salted);
    OPENSSL_cleanse(client_key, sizeof client_key);
    OPENSSL_cleanse(stored_key, sizeof stored_key);
    OPENSSL_cleanse(client_sig, sizeof client_sig);
    if (rc)
        return rc;
    if (t < 0 || (size_t)t >= sizeof c->token)
        return -ENOSPC;
    c->token_len = (size_t)t;
    c->step = STEP_SERVER_FINAL;
    return GR_SASL_CLIENT_CONTINUE;
}

static int scram_check_server(gr_sasl_client_t *c, const char *server_final)
{
    char v[GR_SCRAM_HASH_MAX * 2];
    uint8_t sig[GR_SCRAM_HASH_MAX + 2]; /* base64 decodes padding into whole groups of 3 */
    if (server_final[0] == 'e' && server_final[1] == '=')
        return -EACCES;
    if (attribute(server_final, 'v', v, sizeof v))
        return -EBADMSG;
    size_t hlen = gr_scram_hash_len(c->mechanism);
    int n = gr_base64_decode(v, strlen(v), sig, sizeof sig);
    if (n != (int)hlen || !gr_scram_equal(sig, c->signature, hlen))
        return -EACCES;
    c->token_len = 0;
    c->step = STEP_DONE;
    return GR_SASL_CLIENT_DONE;
}

int gr_sasl_client_step(gr_sasl_client_t *c, const uint8_t *in, size_t in_len, const uint8_t **out,
                        size_t *out_len)
{
    *out = c->token;
    *out_len = 0;
    if (c->step == STEP_DONE)
        return -EBADMSG;
    int rc;
    if (c->mechanism == GR_SASL_PLAIN) {
        rc = plain_step(c);
    } else if (c->step == STEP_FIRST) {
        rc = scram_first(c);
    } else {
        char text[TOKEN_MAX];
        if (!in || in_len >= sizeof text || memchr(in, 0, in_len))
            return -EBADMSG;
        memcpy(text, in, in_len);
        text[in_len] = '\0';
        rc = c->step == STEP_SERVER_FIRST ? scram_final(c, text) : scram_check_server(c, text);
    }
    if (rc >= 0)
        *out_len = c->token_len;
    return rc;
}
