/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SCRAM-SHA-256 / SCRAM-SHA-512 server side (RFC 5802, RFC 7677), as Kafka
 * speaks it: no channel binding (gs2 header "n,," or "y,,", an authzid only
 * if it is the user), no extensions Gregor cannot honour (tokenauth:
 * delegation tokens are not supported).
 *
 * States, with the function doing each transition:
 *   FIRST  waiting for client-first (client_first): -> FINAL, answering
 *          server-first "r=<client nonce><server nonce>,s=<salt>,i=<n>".
 *          An unknown user gets a made-up salt and fails only at the proof,
 *          so the exchange does not tell which users exist.
 *   FINAL  waiting for client-final (client_final): the proof is checked,
 *          -> DONE answering server-final "v=<server signature>".
 *   any failure -> OVER.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "security/sasl_server.h"

#define NONCE_BYTES       24   /* random bytes behind the server's nonce */
#define FAKE_SALT_BYTES   16   /* salt shown for an unknown user */
#define SCRAM_MESSAGE_MAX 4096 /* longest client message accepted */
#define GS2_HEADER_MAX    (GR_SASL_USER_MAX + 8)
#define TOKEN_AUTH_EXT    "tokenauth="

typedef enum scram_state { SCRAM_FIRST, SCRAM_FINAL, SCRAM_DONE, SCRAM_OVER } scram_state_t;

struct gr_scram_server {
    gr_sasl_mechanism_t mechanism;
    const gr_scram_users_t *users;
    scram_state_t state;
    bool known; /* the user has a credential for this mechanism */
    gr_scram_credential_t cred;
    char user[GR_SASL_USER_MAX];
    char gs2_header[GS2_HEADER_MAX];
    char nonce[SCRAM_MESSAGE_MAX]; /* client's + server's */
    char *client_first_bare;
    char *server_first;
};

gr_scram_server_t *gr_scram_server_new(gr_sasl_mechanism_t m, const gr_scram_users_t *users,
                                       const char *nonce)
{
    gr_scram_server_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->mechanism = m;
    s->users = users;
    uint8_t raw[NONCE_BYTES];
    if (nonce) {
        snprintf(s->nonce, sizeof s->nonce, "%s", nonce);
    } else if (RAND_bytes(raw, sizeof raw) != 1 ||
               gr_base64_encode(raw, sizeof raw, s->nonce, sizeof s->nonce) < 0) {
        free(s);
        return NULL;
    }
    return s;
}

void gr_scram_server_free(gr_scram_server_t *s)
{
    if (!s)
        return;
    free(s->client_first_bare);
    free(s->server_first);
    OPENSSL_cleanse(s, sizeof *s);
    free(s);
}

const char *gr_scram_server_user(const gr_scram_server_t *s)
{
    return s->user;
}

/* SCRAM's saslname: "=2C" is ',' and "=3D" is '='; any other '=' is malformed. */
static int unescape_name(const char *in, size_t len, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (c == '=') {
            if (len - i < 3)
                return -EINVAL;
            if (strncmp(in + i, "=2C", 3) == 0)
                c = ',';
            else if (strncmp(in + i, "=3D", 3) == 0)
                c = '=';
            else
                return -EINVAL;
            i += 2;
        }
        if (n + 1 >= size || c == '\0')
            return -EINVAL;
        out[n++] = c;
    }
    out[n] = '\0';
    return n ? 0 : -EINVAL;
}

/* Splits off "<letter>=" attribute at *p; returns its value span or NULL. */
static const char *attribute(const char **p, char letter, size_t *len)
{
    if ((*p)[0] != letter || (*p)[1] != '=')
        return NULL;
    const char *v = *p + 2;
    const char *end = strchr(v, ',');
    *len = end ? (size_t)(end - v) : strlen(v);
    *p = end ? end + 1 : v + *len;
    return v;
}

/* "n,," or "y,," (or with a=<the user>): the header ends after the second comma. */
static int read_gs2_header(gr_scram_server_t *s, const char *msg, const char **bare)
{
    if ((msg[0] != 'n' && msg[0] != 'y') || msg[1] != ',')
        return -EINVAL;
    const char *end = strchr(msg + 2, ',');
    if (!end || (size_t)(end + 1 - msg) >= sizeof s->gs2_header)
        return -EINVAL;
    memcpy(s->gs2_header, msg, (size_t)(end + 1 - msg));
    *bare = end + 1;
    return 0;
}

static void lookup_credential(gr_scram_server_t *s)
{
    const gr_scram_credential_t *c = gr_scram_users_find(s->users, s->user, s->mechanism);
    s->known = c != NULL;
    if (c) {
        s->cred = *c;
        return;
    }
    s->cred.salt_len = FAKE_SALT_BYTES;
    s->cred.iterations = GR_SCRAM_MIN_ITERATIONS;
    if (RAND_bytes(s->cred.salt, FAKE_SALT_BYTES) != 1)
        memset(s->cred.salt, 0, FAKE_SALT_BYTES);
}

/* Checks the gs2 authzid (empty or "a=<user>") once the user is known. */
static bool authzid_ok(const gr_scram_server_t *s)
{
    const char *a = s->gs2_header + 2;
    if (*a == ',')
        return true;
    char authzid[GR_SASL_USER_MAX];
    size_t len = strlen(a) - 1; /* without the closing ',' */
    return a[0] == 'a' && a[1] == '=' &&
           unescape_name(a + 2, len - 2, authzid, sizeof authzid) == 0 &&
           strcmp(authzid, s->user) == 0;
}

static gr_kerr_t reply_text(gr_sasl_reply_t *reply, const char *text)
{
    reply->len = strlen(text);
    reply->token = malloc(reply->len ? reply->len : 1);
    if (!reply->token)
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    memcpy(reply->token, text, reply->len);
    return GR_KERR_NONE;
}

static gr_kerr_t client_first(gr_scram_server_t *s, const char *msg, gr_sasl_reply_t *reply)
{
    const char *bare = NULL, *p;
    size_t name_len = 0, nonce_len = 0;
    if (read_gs2_header(s, msg, &bare))
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    p = bare;
    const char *name = attribute(&p, 'n', &name_len);
    const char *nonce = name ? attribute(&p, 'r', &nonce_len) : NULL;
    if (!nonce || nonce_len == 0 || unescape_name(name, name_len, s->user, sizeof s->user))
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    /* Extensions follow; delegation tokens (tokenauth) are not served. */
    if (strstr(p, TOKEN_AUTH_EXT) || !authzid_ok(s))
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    /* The full nonce: the client's part, then ours. */
    size_t server_len = strlen(s->nonce);
    if (nonce_len + server_len >= sizeof s->nonce)
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    memmove(s->nonce + nonce_len, s->nonce, server_len + 1);
    memcpy(s->nonce, nonce, nonce_len);
    lookup_credential(s);
    char salt[GR_SCRAM_SALT_MAX * 2];
    (void)gr_base64_encode(s->cred.salt, s->cred.salt_len, salt, sizeof salt);
    char first[SCRAM_MESSAGE_MAX * 2];
    snprintf(first, sizeof first, "r=%s,s=%s,i=%d", s->nonce, salt, s->cred.iterations);
    s->client_first_bare = strdup(bare);
    s->server_first = strdup(first);
    if (!s->client_first_bare || !s->server_first)
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    s->state = SCRAM_FINAL;
    return reply_text(reply, first);
}

/* ClientProof verification; fills the server signature on success. */
static bool proof_ok(gr_scram_server_t *s, const char *auth_message, const uint8_t *proof,
                     uint8_t *server_signature)
{
    size_t n = gr_scram_hash_len(s->mechanism), len = strlen(auth_message);
    uint8_t signature[GR_SCRAM_HASH_MAX], client_key[GR_SCRAM_HASH_MAX], stored[GR_SCRAM_HASH_MAX];
    if (gr_scram_hmac(s->mechanism, s->cred.stored_key, n, auth_message, len, signature) ||
        gr_scram_hmac(s->mechanism, s->cred.server_key, n, auth_message, len, server_signature))
        return false;
    for (size_t i = 0; i < n; i++)
        client_key[i] = proof[i] ^ signature[i];
    bool ok = gr_scram_hash(s->mechanism, client_key, n, stored) == 0 &&
              gr_scram_equal(stored, s->cred.stored_key, n);
    OPENSSL_cleanse(client_key, sizeof client_key);
    return ok && s->known;
}

/*
 * The final nonce must end with the one we sent, as Kafka checks it: some
 * clients (librdkafka) put their own part in front of it once more, and
 * their proof covers the message as sent, so that is accepted too.
 */
static bool nonce_ends_right(const char *nonce, size_t len, const char *sent)
{
    size_t n = strlen(sent);
    return len >= n && memcmp(nonce + len - n, sent, n) == 0;
}

static gr_kerr_t client_final(gr_scram_server_t *s, const char *msg, gr_sasl_reply_t *reply)
{
    const char *p = msg, *proof_at = strstr(msg, ",p=");
    size_t cb_len = 0, nonce_len = 0;
    const char *cb = attribute(&p, 'c', &cb_len);
    const char *nonce = cb ? attribute(&p, 'r', &nonce_len) : NULL;
    char header[GS2_HEADER_MAX * 2];
    (void)gr_base64_encode((const uint8_t *)s->gs2_header, strlen(s->gs2_header), header,
                           sizeof header);
    if (!nonce || !proof_at || cb_len != strlen(header) || memcmp(cb, header, cb_len) ||
        !nonce_ends_right(nonce, nonce_len, s->nonce))
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    uint8_t proof[GR_SCRAM_HASH_MAX + 3];
    const char *proof_text = proof_at + strlen(",p=");
    int proof_len = gr_base64_decode(proof_text, strlen(proof_text), proof, sizeof proof);
    if (proof_len != (int)gr_scram_hash_len(s->mechanism))
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    char auth_message[SCRAM_MESSAGE_MAX * 4];
    snprintf(auth_message, sizeof auth_message, "%s,%s,%.*s", s->client_first_bare, s->server_first,
             (int)(proof_at - msg), msg);
    uint8_t server_signature[GR_SCRAM_HASH_MAX];
    if (!proof_ok(s, auth_message, proof, server_signature))
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    char final[GR_SCRAM_HASH_MAX * 2 + 4] = "v=";
    (void)gr_base64_encode(server_signature, gr_scram_hash_len(s->mechanism), final + 2,
                           sizeof final - 2);
    s->state = SCRAM_DONE;
    reply->done = true;
    return reply_text(reply, final);
}

gr_kerr_t gr_scram_server_step(gr_scram_server_t *s, const uint8_t *in, size_t len,
                               gr_sasl_reply_t *reply)
{
    memset(reply, 0, sizeof *reply);
    if (s->state == SCRAM_DONE || s->state == SCRAM_OVER)
        return GR_KERR_ILLEGAL_SASL_STATE;
    char msg[SCRAM_MESSAGE_MAX];
    gr_kerr_t err = GR_KERR_SASL_AUTHENTICATION_FAILED;
    if (len > 0 && len < sizeof msg && !memchr(in, '\0', len)) {
        memcpy(msg, in, len);
        msg[len] = '\0';
        err = s->state == SCRAM_FIRST ? client_first(s, msg, reply) : client_final(s, msg, reply);
    }
    if (err != GR_KERR_NONE) {
        free(reply->token);
        memset(reply, 0, sizeof *reply);
        s->state = SCRAM_OVER;
    }
    return err;
}
